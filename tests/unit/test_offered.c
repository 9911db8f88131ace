/* Unit tests for the open loop's pure parts: core/arrival.c (a constant
 * schedule without drift, Poisson gaps of the right mean and spread,
 * reproducible by seed) and core/offered.c (kind load's search for the
 * highest offered rate within the bound, on synthetic thresholds). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/arrival.h"
#include "core/offered.h"

static void test_constant_schedule_has_no_drift(void **st)
{
    (void)st;
    struct arrival a;
    arrival_start(&a, 1000, 3000, false, 1); /* every 333333.3 ns */
    int64_t t = 0;
    for (int k = 0; k < 3000001; k++)
        t = arrival_next(&a);
    /* the 3,000,001st call is exactly 1000 s after the first */
    assert_int_equal(t, 1000 + 1000000000000LL);
}

static void test_poisson_gaps(void **st)
{
    (void)st;
    struct arrival a, b;
    arrival_start(&a, 0, 10000, true, 7);
    arrival_start(&b, 0, 10000, true, 7);
    int n = 200000;
    double sum = 0, sq = 0;
    int64_t last = arrival_next(&a);
    assert_int_equal(last, 0);
    assert_int_equal(arrival_next(&b), 0);
    for (int k = 0; k < n; k++) {
        int64_t t = arrival_next(&a);
        assert_int_equal(arrival_next(&b), t); /* the seed fixes it */
        double gap = (double)(t - last);
        assert_true(gap >= 0);
        sum += gap;
        sq += gap * gap;
        last = t;
    }
    double mean = sum / n, sd = sqrt(sq / n - mean * mean);
    /* exponential: mean 1/R = 100 us, standard deviation the same */
    assert_float_equal(mean, 100000, 1000);
    assert_float_equal(sd / mean, 1.0, 0.02);
    struct arrival c;
    arrival_start(&c, 0, 10000, true, 8);
    arrival_next(&c);
    int same = 0;
    arrival_start(&a, 0, 10000, true, 7);
    arrival_next(&a);
    for (int k = 0; k < 100; k++)
        same += arrival_next(&a) == arrival_next(&c);
    assert_true(same < 5); /* another seed, another schedule */
}

static const struct offered_rules RULES = {.start = 1000, .growth = 2,
                                           .max_rate = 100000,
                                           .resolution = 0.05,
                                           .max_probes = 10};

/* Run the search against "over when rate > threshold". */
static struct offered_search search(const struct offered_rules *r,
                                    int64_t threshold, int64_t *measured)
{
    struct offered_search s;
    offered_start(&s, r);
    *measured = 0;
    for (int i = 0; i < 1000 && s.phase != OFFERED_DONE; i++) {
        (*measured)++;
        offered_next(&s, r, s.rate > threshold);
    }
    return s;
}

static void test_steps_are_fixed(void **st)
{
    (void)st;
    int64_t want[] = {1000, 2000, 4000, 8000, 16000, 32000, 64000, 100000,
                      100000};
    for (int k = 0; k < 9; k++)
        assert_int_equal(offered_step_rate(&RULES, k), want[k]);
    /* a growth that rounds to nothing still steps by one */
    struct offered_rules slow = {.start = 3, .growth = 1.1,
                                 .max_rate = 10};
    assert_int_equal(offered_step_rate(&slow, 1), 4);
    assert_int_equal(offered_step_rate(&slow, 2), 5);
    assert_int_equal(offered_max_measurements(&RULES), 8 + 10);
}

static void test_search_brackets_the_threshold(void **st)
{
    (void)st;
    int64_t thresholds[] = {1000, 1999, 2000, 5000, 12345, 64000, 99999};
    for (size_t i = 0; i < sizeof thresholds / sizeof *thresholds; i++) {
        int64_t t = thresholds[i], n;
        struct offered_search s = search(&RULES, t, &n);
        assert_int_equal(s.end, OFFERED_CROSSED);
        assert_true(s.b.lo <= t && t < s.b.hi);
        /* narrow enough, within the probes */
        assert_true(s.b.hi - s.b.lo <= 1 ||
                    (double)(s.b.hi - s.b.lo) <=
                        RULES.resolution * (double)s.b.lo ||
                    s.probes == RULES.max_probes);
        assert_true(n <= offered_max_measurements(&RULES));
    }
}

static void test_search_ends(void **st)
{
    (void)st;
    int64_t n;
    struct offered_search s = search(&RULES, 999, &n);
    assert_int_equal(s.end, OFFERED_NONE); /* the first step over */
    assert_int_equal(s.b.lo, 0);
    assert_int_equal(s.b.hi, 1000);
    assert_int_equal(n, 1);
    s = search(&RULES, 1000000, &n);
    assert_int_equal(s.end, OFFERED_MAX_RATE); /* never over */
    assert_int_equal(s.b.lo, 100000);
    assert_int_equal(s.b.hi, 0);
    assert_int_equal(n, 8);
    struct offered_rules coarse = RULES;
    coarse.resolution = 0; /* stop at the first step over */
    s = search(&coarse, 5000, &n);
    assert_int_equal(s.end, OFFERED_CROSSED);
    assert_int_equal(s.b.lo, 4000);
    assert_int_equal(s.b.hi, 8000);
    assert_int_equal(s.probes, 0);
    struct offered_rules few = RULES;
    few.max_probes = 2;
    s = search(&few, 5000, &n);
    assert_int_equal(s.probes, 2);
    assert_true(s.b.lo <= 5000 && 5000 < s.b.hi);
    assert_int_equal(n, 4 + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_schedule_has_no_drift),
        cmocka_unit_test(test_poisson_gaps),
        cmocka_unit_test(test_steps_are_fixed),
        cmocka_unit_test(test_search_brackets_the_threshold),
        cmocka_unit_test(test_search_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
