/* Unit tests for crossing.c (the bisection's bracket and the crossing
 * estimate) and for the statistics they lean on in stats.c (the median's
 * block-bootstrap interval, Student's t quantile). Expected values are
 * worked out by hand in the comments, not recomputed by the code under
 * test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/crossing.h"
#include "core/stats.h"

/* ---- the bracket ------------------------------------------------------- */

static void test_next_n_midpoint_and_stop(void **state)
{
    (void)state;
    struct bracket b = {100, 200};
    assert_int_equal(crossing_next_n(&b, 0.02), 150);
    /* 2% of 100 is 2: a bracket 2 wide is narrow enough, 3 is not. */
    b = (struct bracket){100, 102};
    assert_int_equal(crossing_next_n(&b, 0.02), 0);
    b = (struct bracket){100, 103};
    assert_int_equal(crossing_next_n(&b, 0.02), 101);
    /* Nothing under yet: bisect down from hi. */
    b = (struct bracket){0, 10};
    assert_int_equal(crossing_next_n(&b, 0.02), 5);
    /* Adjacent integers: nothing left between them, whatever resolution. */
    b = (struct bracket){5, 6};
    assert_int_equal(crossing_next_n(&b, 0), 0);
    b = (struct bracket){0, 1};
    assert_int_equal(crossing_next_n(&b, 0), 0);
}

static void test_decide_moves_one_end(void **state)
{
    (void)state;
    struct bracket b = {100, 200};
    crossing_decide(&b, 150, true);
    assert_int_equal(b.lo, 100);
    assert_int_equal(b.hi, 150);
    crossing_decide(&b, 120, false);
    assert_int_equal(b.lo, 120);
    assert_int_equal(b.hi, 150);
    /* A decision outside the bracket never widens it. */
    crossing_decide(&b, 300, true);
    crossing_decide(&b, 50, false);
    assert_int_equal(b.lo, 120);
    assert_int_equal(b.hi, 150);
}

/* Round time 1e-4 * N^1.5 ms crosses 100 ms at N = 1e6^(2/3) = 10000. */
static double model_ms(double n) { return 1e-4 * pow(n, 1.5); }

static void test_bisection_finds_a_known_crossing(void **state)
{
    (void)state;
    struct bracket b = {8000, 12000};
    int steps = 0;
    for (int64_t mid; (mid = crossing_next_n(&b, 0.02)); steps++)
        crossing_decide(&b, mid, model_ms((double)mid) > 100);
    assert_true(b.lo <= 10000 && 10000 < b.hi);
    assert_true((double)(b.hi - b.lo) <= 0.02 * (double)b.lo);
    /* 4000 wide down to <= 160: 5 halvings (125). */
    assert_int_equal(steps, 5);
}

/* ---- the estimate ------------------------------------------------------ */

/* Sweep steps exactly on the model from N=5250 to 10500, for the slope. */
static size_t model_steps(struct crossing_point *p)
{
    const double ns[] = {5250, 6000, 7000, 8000, 9000, 10500};
    for (size_t i = 0; i < 6; i++)
        p[i] = (struct crossing_point){ns[i], model_ms(ns[i]), 10, false};
    return 6;
}

static void test_probes_on_the_model_give_the_crossing(void **state)
{
    (void)state;
    struct crossing_point p[10];
    size_t k = model_steps(p);
    const double probes[] = {10500, 9800, 10200, 10100};
    for (size_t i = 0; i < 4; i++)
        p[k++] = (struct crossing_point){probes[i], model_ms(probes[i]), 20,
                                         true};
    struct crossing_estimate e;
    crossing_estimate(p, k, 100, 9800, model_ms(9800), 10100,
                      model_ms(10100), &e);
    assert_true(e.found);
    assert_string_equal(e.method, CROSSING_PROBES);
    assert_false(e.slope_assumed);
    assert_true(fabs(e.slope - 1.5) < 1e-9);
    assert_int_equal(e.probes, 4);
    assert_int_equal(e.df, 3);
    assert_true(fabs(e.n - 10000) < 1e-6);
    /* Every probe implies the same N: the probes' interval is the point,
     * widened to hold the measured bracket. */
    assert_true(e.low == 9800 && e.high == 10100);
}

/* The sweep's steps and three probes whose medians imply 9900, 10000
 * and 10100 through slope 1.5: median = 100 (n / implied)^1.5. */
static size_t spread_probes(struct crossing_point *p)
{
    size_t k = model_steps(p);
    p[k++] = (struct crossing_point){9800, 98.48868109087459, 20, true};
    p[k++] = (struct crossing_point){10050, 100.75093672021119, 20, true};
    p[k++] = (struct crossing_point){10300, 102.98495329777701, 20, true};
    return k;
}

static void test_interval_is_the_t_interval_of_the_probes(void **state)
{
    (void)state;
    /* Probes whose medians imply 9900, 10000 and 10100 through slope 1.5:
     * median = 100 (n / implied)^1.5. Geometric mean 9999.67; in ln N
     * their sd is 0.010000, t(2) = 4.303, so 9999.67 · exp(±4.303 ·
     * 0.01 / √3) = 9754.29 .. 10251.21 (worked out by hand). */
    struct crossing_point p[9];
    size_t k = spread_probes(p);
    struct crossing_estimate e;
    crossing_estimate(p, k, 100, 9800, 98.49, 10050, 100.75, &e);
    assert_string_equal(e.method, CROSSING_PROBES);
    assert_true(fabs(e.slope - 1.5) < 0.01);
    assert_true(fabs(e.n - 9999.67) < 1);
    assert_true(fabs(e.low - 9754.29) < 2);
    assert_true(fabs(e.high - 10251.21) < 2);
}

static void test_far_measurements_do_not_count(void **state)
{
    (void)state;
    /* A wild probe at N=5000 lies below both windows (slope: from
     * 10500/2 = 5250; probes: from 9800/1.2 = 8167): it must change
     * nothing. */
    struct crossing_point p[12];
    size_t k = model_steps(p);
    p[k++] = (struct crossing_point){9800, model_ms(9800), 20, true};
    p[k++] = (struct crossing_point){10100, model_ms(10100), 20, true};
    p[k++] = (struct crossing_point){5000, 1000, 20, true};
    struct crossing_estimate e;
    crossing_estimate(p, k, 100, 9800, model_ms(9800), 10100,
                      model_ms(10100), &e);
    assert_int_equal(e.probes, 2);
    assert_int_equal(e.slope_points, 8);
    assert_true(fabs(e.n - 10000) < 1e-6);
}

static void test_estimate_near_the_bracket_stands(void **state)
{
    (void)state;
    /* The probes of test_interval_is_the_t_interval_of_the_probes imply
     * 9999.67; a bracket 10025-10050 puts that 0.25% below its low end:
     * scatter, not a contradiction, so the probes' mean stands. */
    struct crossing_point p[9];
    size_t k = spread_probes(p);
    struct crossing_estimate e;
    crossing_estimate(p, k, 100, 10025, 99, 10050, 101, &e);
    assert_string_equal(e.method, CROSSING_PROBES);
    assert_true(fabs(e.n - 9999.67) < 1);
    assert_true(e.outside);
    /* One number, one interval: the estimate inside it, and the interval
     * holding both measured ends. */
    assert_true(e.low <= e.n && e.n <= e.high);
    assert_true(e.low <= 10025 && e.high >= 10050);
}

static void test_interval_always_holds_the_bracket(void **state)
{
    (void)state;
    /* The probes' interval [9754.29, 10251.21] overlaps a bracket
     * 10200-10300 only in part: it is widened to 10300, the point stays
     * inside the bracket's reach, and the half-width is the larger side
     * over the estimate: (10300 - 9999.67) / 9999.67 = 3.0%. */
    struct crossing_point p[9];
    size_t k = spread_probes(p);
    struct crossing_estimate e;
    crossing_estimate(p, k, 100, 10200, 99, 10300, 101, &e);
    assert_true(fabs(e.low - 9754.29) < 2 && e.high == 10300);
    assert_true(fabs(crossing_half_width(&e) - 300.33 / 9999.67) < 1e-3);
    /* Inside the bracket: not outside, no note about it. */
    crossing_estimate(p, k, 100, 9900, 99, 10100, 101, &e);
    assert_false(e.outside);
    assert_null(strstr(e.why, "outside"));
    assert_true(fabs(crossing_half_width(&e) - 251.54 / 9999.67) < 1e-3);
    struct crossing_estimate none = {0};
    assert_true(crossing_half_width(&none) == 0);
}

static void test_interval_missing_the_bracket_is_widened(void **state)
{
    (void)state;
    /* The same probes (9999.67 [9754.29, 10251.21]) against a bracket
     * 10300-10400 decided by the bisection: only 3% away, so the probes'
     * mean stands, but an interval that misses both measured ends would
     * contradict them: it is widened up to 10400. */
    struct crossing_point p[9];
    size_t k = spread_probes(p);
    struct crossing_estimate e;
    crossing_estimate(p, k, 100, 10300, 99, 10400, 101, &e);
    assert_string_equal(e.method, CROSSING_PROBES);
    assert_true(fabs(e.n - 9999.67) < 1);
    assert_true(fabs(e.low - 9754.29) < 2 && e.high == 10400);
    assert_true(e.outside);
    assert_true(strstr(e.why, "lay 3.0% outside the measured bracket "
                              "10300-10400") != NULL);
    /* And from above: bracket 9500-9600, widened down to 9500. */
    crossing_estimate(p, k, 100, 9500, 99, 9600, 101, &e);
    assert_string_equal(e.method, CROSSING_PROBES);
    assert_true(e.low == 9500 && fabs(e.high - 10251.21) < 2);
}

static void test_estimate_far_outside_the_bracket_falls_back(void **state)
{
    (void)state;
    /* An uncertain slope: round times falling with N, so b = 1 is
     * assumed, and probes that imply 80, 100 and 130 servers (n · 100 /
     * median). Their geometric mean 101.32, sd 0.2430 in ln N, t(2) =
     * 4.303: interval 55.40 .. 185.30, wide enough to hold the bracket
     * 88-90, yet the mean is more than 10% above it (90 · 1.1 = 99). The
     * point is the bracket's interpolation, 88 · (90/88)^0.5025 = 89.00;
     * the interval stays the probes'. */
    struct crossing_point p[3] = {{88, 110, 20, true},
                                  {90, 90, 20, true},
                                  {92, 100.0 * 92 / 130, 20, true}};
    struct crossing_estimate e;
    crossing_estimate(p, 3, 100, 88, 99, 90, 101, &e);
    assert_true(e.slope_assumed);
    assert_string_equal(e.method, CROSSING_BRACKET);
    assert_true(fabs(e.n - 89.00) < 0.01);
    assert_true(fabs(e.low - 55.40) < 0.05 && fabs(e.high - 185.30) < 0.05);
    assert_true(strstr(e.why, "more than 10% outside the measured bracket "
                              "88-90") != NULL);
    /* Bracket 92-94: the mean is 8% above it, inside its interval: it
     * stands. */
    crossing_estimate(p, 3, 100, 92, 99, 94, 101, &e);
    assert_string_equal(e.method, CROSSING_PROBES);
}

static void test_flat_slope_is_assumed_one(void **state)
{
    (void)state;
    /* Round time that does not grow across the measurements: no slope
     * to fit, so 1 is assumed and each probe implies n · 100 / median:
     * 99.01, 105.05, 105.88, 114.29; geometric mean 105.92, t(3) 3.182,
     * interval 96.45 .. 116.32 (by hand). */
    struct crossing_point p[4] = {{100, 101, 20, true},
                                  {104, 99, 20, true},
                                  {108, 102, 20, true},
                                  {112, 98, 20, true}};
    struct crossing_estimate e;
    crossing_estimate(p, 4, 100, 104, 99, 108, 102, &e);
    assert_string_equal(e.method, CROSSING_PROBES);
    assert_true(e.slope_assumed && e.slope == 1);
    assert_true(strstr(e.why, "not clearly above 0") != NULL);
    assert_true(fabs(e.n - 105.92) < 0.01);
    assert_true(fabs(e.low - 96.45) < 0.01);
    assert_true(fabs(e.high - 116.32) < 0.01);
}

static void test_bracket_interpolation_without_probes(void **state)
{
    (void)state;
    /* Only two sweep steps: lo 100 at 80 ms, hi 121 at 120 ms, max 100:
     * frac = ln(100/80) / ln(120/80) = 0.22314 / 0.40547 = 0.55034;
     * n = 100 · 1.21^0.55034 = 100 · exp(0.55034 · 0.19062) = 111.06. */
    struct crossing_point p[2] = {{100, 80, 10, false},
                                  {121, 120, 10, false}};
    struct crossing_estimate e;
    crossing_estimate(p, 2, 100, 100, 80, 121, 120, &e);
    assert_true(e.found);
    assert_string_equal(e.method, CROSSING_BRACKET);
    assert_true(fabs(e.n - 111.06) < 0.01);
    assert_true(e.low == 100 && e.high == 121);
    assert_true(strstr(e.why, "0 probes") != NULL);
}

static void test_not_found_without_an_n_under(void **state)
{
    (void)state;
    struct crossing_point p[1] = {{1, 200, 20, true}};
    struct crossing_estimate e;
    crossing_estimate(p, 1, 100, 0, 0, 1, 200, &e);
    assert_false(e.found);
}

static void test_an_estimate_below_one_is_clamped_to_one(void **state)
{
    (void)state;
    /* N = 1 was under max_ms 100 (bracket [1, 2]), but its probes read
     * 103 ms and N = 2 206 ms: slope 1, so each implies a crossing at
     * 1 · 100/103 = 0.971, within 10% of lo, where an estimate outside
     * the bracket stands. N counts servers: 1 is used, and said. */
    int64_t r103[5] = {103000000, 103000000, 103000000, 103000000,
                       103000000};
    int64_t r206[5] = {206000000, 206000000, 206000000, 206000000,
                       206000000};
    struct crossing_measure m[5] = {
        {1, r103, 5, 103, false}, {2, r206, 5, 206, false},
        {1, r103, 5, 103, true},  {2, r206, 5, 206, true},
        {1, r103, 5, 103, true}};
    struct bracket b = {1, 2};
    struct crossing_estimate e;
    assert_int_equal(crossing_estimate_of(m, 5, 100, &b, &e), 0);
    assert_true(e.found);
    assert_true(e.n == 1);
    assert_true(e.low >= 1 && e.high >= e.n);
    assert_non_null(strstr(e.why, "lies below N = 1"));
    assert_non_null(strstr(e.why, "0.971"));
}

/* ---- the median's interval and t --------------------------------------- */

static void test_median_ci_of_constant_and_tiny_series(void **state)
{
    (void)state;
    int64_t v[10];
    for (int i = 0; i < 10; i++)
        v[i] = 5000000;
    struct median_ci ci;
    assert_int_equal(stats_median_ci(v, 10, 1e6, &ci), 0);
    assert_true(ci.low == 5.0 && ci.high == 5.0);
    assert_int_equal(stats_median_ci(v, 1, 1e6, &ci), 0);
    assert_true(ci.low == 5.0 && ci.high == 5.0);
    assert_int_equal(stats_median_ci(v, 0, 1e6, &ci), 0);
    assert_true(ci.low == 0 && ci.high == 0 && ci.level == 0.95);
}

/* 1..n in an order from a fixed LCG shuffle (Fisher-Yates). */
static void shuffled(int64_t *v, size_t n)
{
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++)
        v[i] = (int64_t)i + 1;
    for (size_t i = n - 1; i > 0; i--) {
        x = x * 1103515245u + 12345u;
        size_t j = (x >> 8) % (i + 1);
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void test_median_ci_holds_the_median(void **state)
{
    (void)state;
    int64_t v[101];
    shuffled(v, 101);
    struct median_ci ci;
    assert_int_equal(stats_median_ci(v, 101, 1, &ci), 0);
    /* The sample median is 51. For 101 independent values the order-
     * statistic 95% interval runs from rank 41 to rank 61; a bootstrap
     * one is about as wide. */
    assert_true(ci.low <= 51 && 51 <= ci.high);
    assert_true(ci.low >= 36 && ci.high <= 66);
    assert_true(ci.high - ci.low >= 8);
    /* The same call gives the same interval: a fixed seed. */
    struct median_ci again;
    stats_median_ci(v, 101, 1, &again);
    assert_true(again.low == ci.low && again.high == ci.high);
}

static void test_median_ci_widens_for_correlated_rounds(void **state)
{
    (void)state;
    /* 48 rounds: a slow phase then a fast one (as a host that changes
     * speed mid-step), against the same 48 values shuffled. In order,
     * neighbours are alike, so blocks of rounds are resampled and the
     * interval must be wider than for the shuffled values. */
    int64_t ordered[48], mixed[48], idx[48];
    for (int i = 0; i < 48; i++)
        ordered[i] = (i < 24 ? 100 : 140) + (i % 5);
    shuffled(idx, 48);
    for (int i = 0; i < 48; i++)
        mixed[i] = ordered[idx[i] - 1];
    struct median_ci a, b;
    stats_median_ci(ordered, 48, 1, &a);
    stats_median_ci(mixed, 48, 1, &b);
    assert_true(a.block > 1);
    assert_true(a.high - a.low > b.high - b.low);
}

static void test_t975_table_and_tail(void **state)
{
    (void)state;
    assert_true(fabs(stats_t975(1) - 12.706) < 1e-9);
    assert_true(fabs(stats_t975(4) - 2.776) < 1e-9);
    assert_true(fabs(stats_t975(30) - 2.042) < 1e-9);
    /* df 60: 2.000 in the tables; df 120: 1.980. */
    assert_true(fabs(stats_t975(60) - 2.000) < 0.002);
    assert_true(fabs(stats_t975(120) - 1.980) < 0.002);
    assert_true(isinf(stats_t975(0)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_n_midpoint_and_stop),
        cmocka_unit_test(test_decide_moves_one_end),
        cmocka_unit_test(test_bisection_finds_a_known_crossing),
        cmocka_unit_test(test_probes_on_the_model_give_the_crossing),
        cmocka_unit_test(test_interval_is_the_t_interval_of_the_probes),
        cmocka_unit_test(test_far_measurements_do_not_count),
        cmocka_unit_test(test_estimate_near_the_bracket_stands),
        cmocka_unit_test(test_interval_missing_the_bracket_is_widened),
        cmocka_unit_test(test_interval_always_holds_the_bracket),
        cmocka_unit_test(test_estimate_far_outside_the_bracket_falls_back),
        cmocka_unit_test(test_flat_slope_is_assumed_one),
        cmocka_unit_test(test_bracket_interpolation_without_probes),
        cmocka_unit_test(test_not_found_without_an_n_under),
        cmocka_unit_test(test_an_estimate_below_one_is_clamped_to_one),
        cmocka_unit_test(test_median_ci_of_constant_and_tiny_series),
        cmocka_unit_test(test_median_ci_holds_the_median),
        cmocka_unit_test(test_median_ci_widens_for_correlated_rounds),
        cmocka_unit_test(test_t975_table_and_tail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
