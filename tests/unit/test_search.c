/* Unit tests for the crossing search (crossing_search_next, core/
 * crossing.c): what a sweep measures next, from what it measured, over
 * synthetic round-time curves. A curve gives every round of a measurement
 * the same time, by N and by how often that N was measured before (its
 * visit), so nothing depends on this host's speed. Each test asserts the
 * exact sequence of measurements ("phase N", the phase as the result
 * names it) and where the search ended.
 *
 * The plain curves' sequences are worked out by hand in the comments. The
 * noisy ones (a refine) were worked out with a hand port of the original
 * driver's rules (kinds/sweeper.c at 59d85d6, before the search moved
 * here) and crossing_estimate; their decisions' margins are given. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/crossing.h"

#define MAX_MEASURES 64
#define MAX_ROUNDS 32

/* A synthetic host: the curve, a step's timed rounds, and what was
 * measured on it. */
struct host {
    double (*round_ms)(int64_t n, int visit);
    size_t step_rounds;
    struct crossing_measure m[MAX_MEASURES];
    int64_t ns[MAX_MEASURES][MAX_ROUNDS];
    size_t k;
    char trace[2048];
};

/* The stepping rules: linear by *ctx, or doubling. */
static int64_t add_step(const void *ctx, int64_t n)
{
    return n + *(const int64_t *)ctx;
}

static int64_t doubling(const void *ctx, int64_t n)
{
    (void)ctx;
    return 2 * n;
}

static const int64_t step10 = 10;

/* The sweep scenario's defaults (kinds/sweeper.h): max_ms 100,
 * resolution 0.02, near_rounds 20, max_probes 12; max_n 1000, steps of
 * 10. */
static struct crossing_rules defaults(void)
{
    return (struct crossing_rules){.max_ms = 100,
                                   .max_n = 1000,
                                   .resolution = 0.02,
                                   .near_rounds = 20,
                                   .max_probes = 12,
                                   .timed = true,
                                   .next_n = add_step,
                                   .next_ctx = &step10};
}

static struct host *host_new(double (*round_ms)(int64_t, int))
{
    struct host *h = calloc(1, sizeof *h);
    assert_non_null(h);
    h->round_ms = round_ms;
    h->step_rounds = 10;
    return h;
}

/* Run the search from `start` to its end on host h, as the driver does:
 * measure s->target as s->phase asks, append it, hand it back. */
static enum crossing_end search(struct host *h,
                                const struct crossing_rules *rules,
                                int64_t start, struct crossing_search *s)
{
    crossing_search_start(s, start);
    for (;;) {
        assert_true(h->k < MAX_MEASURES);
        int64_t n = s->target;
        int visit = 0;
        for (size_t i = 0; i < h->k; i++)
            visit += h->m[i].n == n;
        bool probe = s->phase != CROSSING_SWEEPING;
        size_t len = probe ? (size_t)rules->near_rounds : h->step_rounds;
        assert_true(len <= MAX_ROUNDS);
        int64_t ns = llround(h->round_ms(n, visit) * 1e6);
        for (size_t j = 0; j < len; j++)
            h->ns[h->k][j] = ns;
        h->m[h->k] = (struct crossing_measure){.n = n,
                                               .rounds_ns = h->ns[h->k],
                                               .len = len,
                                               .median_ms = (double)ns / 1e6,
                                               .probe = probe};
        h->k++;
        size_t used = strlen(h->trace);
        snprintf(h->trace + used, sizeof h->trace - used, "%s%s %lld",
                 used ? ", " : "", crossing_phase_name(s->phase),
                 (long long)n);
        enum crossing_end end = crossing_search_next(s, rules, h->m, h->k);
        if (end != CROSSING_GOING) {
            assert_int_equal(s->phase, CROSSING_DONE);
            return end;
        }
    }
}

#define SWEEP_TO_80                                                          \
    "sweep 10, sweep 20, sweep 30, sweep 40, sweep 50, sweep 60, sweep 70, " \
    "sweep 80"

/* ---- plain curves -------------------------------------------------------- */

static double linear_ms(int64_t n, int visit)
{
    (void)visit;
    return (double)n; /* 1 ms per server: crosses 100 ms at N=100 */
}

/* Steps 10..100 are within 100 ms (100 is not over), 110 is over and
 * confirmed: bracket 100-110. The low end has a step's 10 rounds, fewer
 * than near_rounds: measured again (under). Then bisection: 105 over,
 * 102 over; 100-102 is 2 wide, within 2% of 100: done. Every point lies
 * on the curve, so the probes' implied crossings are all 100 and the
 * interval is the bracket's, ±2%, within the target ±4%: no refine. */
static void test_linear_curve_bisects_to_the_resolution(void **state)
{
    (void)state;
    struct host *h = host_new(linear_ms);
    struct crossing_rules rules = defaults();
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        SWEEP_TO_80 ", sweep 90, sweep 100, sweep 110, "
                                    "confirm 110, bracket 100, bisect 105, "
                                    "bisect 102");
    assert_int_equal(s.b.lo, 100);
    assert_int_equal(s.b.hi, 102);
    assert_int_equal(s.held, 100);
    assert_int_equal(s.probes, 4);
    assert_int_equal(s.refines, 0);
    /* Narrow enough: nothing left to bisect (not the budget). */
    assert_int_equal(crossing_next_n(&s.b, rules.resolution), 0);
    free(h);
}

static double steep_ms(int64_t n, int visit)
{
    (void)visit;
    double x = (double)n / 73.0;
    return 100.0 * x * x; /* ∝ N²: crosses at N=73 exactly (100 ms) */
}

/* 70 is under (91.9 ms), 80 over (120.1) and confirmed; the low end 70
 * again (under); bisect 75 over, 72 under, 73 (exactly 100: not over)
 * under, 74 over: 73-74 is 1 wide. The interval (slope 2 fitted exactly)
 * is the bracket's, ±1.4%. */
static void test_steep_curve(void **state)
{
    (void)state;
    struct host *h = host_new(steep_ms);
    struct crossing_rules rules = defaults();
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        SWEEP_TO_80 ", confirm 80, bracket 70, bisect 75, "
                                    "bisect 72, bisect 73, bisect 74");
    assert_int_equal(s.b.lo, 73);
    assert_int_equal(s.b.hi, 74);
    assert_int_equal(s.held, 73);
    assert_int_equal(s.probes, 6);
    free(h);
}

static double power15_ms(int64_t n, int visit)
{
    (void)visit;
    return 100.0 * pow((double)n / 100.0, 1.5); /* crosses at N=100 */
}

/* A geometric sweep (×2 from 1): 64 under, 128 over and confirmed;
 * bracket 64-128, the low end again, then bisect 96 under, 112 over,
 * 104 over, 100 (exactly 100 ms) under, 102 over: 100-102, within 2%. */
static void test_geometric_steps(void **state)
{
    (void)state;
    struct host *h = host_new(power15_ms);
    struct crossing_rules rules = defaults();
    rules.next_n = doubling;
    rules.next_ctx = NULL;
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 1, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        "sweep 1, sweep 2, sweep 4, sweep 8, sweep 16, "
                        "sweep 32, sweep 64, sweep 128, confirm 128, "
                        "bracket 64, bisect 96, bisect 112, bisect 104, "
                        "bisect 100, bisect 102");
    assert_int_equal(s.b.lo, 100);
    assert_int_equal(s.b.hi, 102);
    assert_int_equal(s.probes, 7);
    free(h);
}

/* ---- a bracket that moves ------------------------------------------------ */

/* ∝ N², crossing at 93, but the first measurement at 30 reads 150 ms (a
 * hiccup of the host). */
static double hiccup_ms(int64_t n, int visit)
{
    double x = (double)n / 93.0;
    return n == 30 && visit == 0 ? 150.0 : 100.0 * x * x;
}

/* The step at 30 is over; its confirmation reads 10.4 ms, and the 30
 * rounds pooled (10 of 150, 20 of 10.4) have the median 10.4: under, the
 * sweep goes on from 30 (held 30). 90 is under (93.6), 100 over
 * (115.6) and confirmed: bracket 90-100, then as on a plain curve: the
 * low end, bisect 95 over, 92 under, 93 under (100), 94 over. */
static void test_a_failed_confirmation_sweeps_on(void **state)
{
    (void)state;
    struct host *h = host_new(hiccup_ms);
    struct crossing_rules rules = defaults();
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        "sweep 10, sweep 20, sweep 30, confirm 30, sweep 40, "
                        "sweep 50, sweep 60, sweep 70, sweep 80, sweep 90, "
                        "sweep 100, confirm 100, bracket 90, bisect 95, "
                        "bisect 92, bisect 93, bisect 94");
    assert_int_equal(s.b.lo, 93);
    assert_int_equal(s.b.hi, 94);
    assert_int_equal(s.held, 93);
    assert_int_equal(s.probes, 7);
    free(h);
}

/* ∝ N², crossing at 65, but the step at 70 reads 95 ms (a lucky under):
 * it is 116 ms. */
static double lucky_ms(int64_t n, int visit)
{
    double x = (double)n / 65.0;
    return n == 70 && visit == 0 ? 95.0 : 100.0 * x * x;
}

/* 70 passes as a step (95), 80 is over and confirmed: bracket 70-80. The
 * low end measured again reads 116 ms; its 30 rounds pooled (10 of 95,
 * 20 of 116) are over: the bracket moves down to the step before, 60-70.
 * 60 has a step's rounds only: measured again (85.2, under); then bisect
 * 65 (exactly 100) under, 67 over, 66 over. */
static void test_a_lucky_low_end_moves_the_bracket_down(void **state)
{
    (void)state;
    struct host *h = host_new(lucky_ms);
    struct crossing_rules rules = defaults();
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        SWEEP_TO_80 ", confirm 80, bracket 70, bracket 60, "
                                    "bisect 65, bisect 67, bisect 66");
    assert_int_equal(s.b.lo, 65);
    assert_int_equal(s.b.hi, 66);
    assert_int_equal(s.held, 65);
    assert_int_equal(s.probes, 6);
    free(h);
}

/* ---- noisy but deterministic: the refine --------------------------------- */

/* ∝ N², crossing at 73, each measurement 10% low on even visits (the
 * first), 10% high on odd ones. */
static double alternating_ms(int64_t n, int visit)
{
    double x = (double)n / 73.0;
    return 100.0 * x * x * (visit % 2 ? 1.1 : 0.9);
}

/* The step at 80 reads low but over; the confirmation at 80 and the low
 * end 70 read high: the bracket moves down to 60-70 and bisects to
 * 69-70. Narrow, but the probes scatter: the interval is ±5.9%, wider
 * than the target ±4% (2 × resolution), so the end nearer the estimate,
 * 70, is measured again: its third visit reads low and its 50 rounds
 * pooled (30 low) come out under. The one N measured above 70, 80, is
 * over: the bracket moves up to 70-80 and bisection follows, to 76-77,
 * where the interval is ±3.1%. */
static void test_a_refine_that_changes_sides_moves_the_bracket_up(
    void **state)
{
    (void)state;
    struct host *h = host_new(alternating_ms);
    struct crossing_rules rules = defaults();
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        SWEEP_TO_80 ", confirm 80, bracket 70, bracket 60, "
                                    "bisect 65, bisect 67, bisect 68, "
                                    "bisect 69, refine 70, bisect 75, "
                                    "bisect 77, bisect 76");
    assert_int_equal(s.b.lo, 76);
    assert_int_equal(s.b.hi, 77);
    assert_int_equal(s.held, 76);
    assert_int_equal(s.probes, 11);
    assert_int_equal(s.refines, 1);
    free(h);
}

/* ∝ N², crossing at 73, every measurement's first visit `first_low`
 * low, later ones as far high. */
static double first_low;

static double first_low_ms(int64_t n, int visit)
{
    double x = (double)n / 73.0;
    return 100.0 * x * x * (visit == 0 ? 1 - first_low : 1 + first_low);
}

/* 10%: as above to 69-70, then the ends in turn from the one nearer the
 * estimate (70, 69, 70, 69), each pooling more rounds, until the interval
 * is ±3.9% (after ±5.9, 5.2, 4.7, 4.3%): within the target, 11 probes
 * of 12. */
static void test_refines_alternate_ends_until_narrow(void **state)
{
    (void)state;
    first_low = 0.1;
    struct host *h = host_new(first_low_ms);
    struct crossing_rules rules = defaults();
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        SWEEP_TO_80 ", confirm 80, bracket 70, bracket 60, "
                                    "bisect 65, bisect 67, bisect 68, "
                                    "bisect 69, refine 70, refine 69, "
                                    "refine 70, refine 69");
    assert_int_equal(s.b.lo, 69);
    assert_int_equal(s.b.hi, 70);
    assert_int_equal(s.held, 69);
    assert_int_equal(s.probes, 11);
    assert_int_equal(s.refines, 4);
    free(h);
}

/* ---- the probe budget ---------------------------------------------------- */

/* The steep curve with max_probes 3: confirm 80, the low end 70, bisect
 * 75 (over); the budget is spent with 70-75 still 5 wide. */
static void test_the_probe_budget_ends_the_bisection(void **state)
{
    (void)state;
    struct host *h = host_new(steep_ms);
    struct crossing_rules rules = defaults();
    rules.max_probes = 3;
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        SWEEP_TO_80 ", confirm 80, bracket 70, bisect 75");
    assert_int_equal(s.b.lo, 70);
    assert_int_equal(s.b.hi, 75);
    assert_int_equal(s.held, 70);
    assert_int_equal(s.probes, 3);
    /* Cut short: the bisection still had an N to measure. */
    assert_int_not_equal(crossing_next_n(&s.b, rules.resolution), 0);
    free(h);
}

/* 20% low first visits: 80 passes as a step (96.1 ms read, 120.1 true),
 * 90 is over and confirmed; the low ends read high when measured again:
 * the bracket moves down from 80-90 to 70-80 and 60-70, and bisects to
 * 69-70. The interval is wide (±9.5, 8.2, 7.2, 6.3% before each refine):
 * the ends in turn, 70, 69, 70, 69; the second refine of 69 (its third
 * visit, 40 of its 60 rounds high) finds it over after all: the bracket
 * moves down to 60-69, and that 12th probe has spent the budget with it
 * 9 wide. */
static void test_the_probe_budget_ends_the_refining(void **state)
{
    (void)state;
    first_low = 0.2;
    struct host *h = host_new(first_low_ms);
    struct crossing_rules rules = defaults();
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_NARROWED);
    assert_string_equal(h->trace,
                        SWEEP_TO_80 ", sweep 90, confirm 90, bracket 80, "
                                    "bracket 70, bracket 60, bisect 65, "
                                    "bisect 67, bisect 68, bisect 69, "
                                    "refine 70, refine 69, refine 70, "
                                    "refine 69");
    assert_int_equal(s.b.lo, 60);
    assert_int_equal(s.b.hi, 69);
    assert_int_equal(s.held, 60);
    assert_int_equal(s.probes, 12);
    assert_int_equal(s.refines, 4);
    assert_int_not_equal(crossing_next_n(&s.b, rules.resolution), 0);
    free(h);
}

/* ---- the other ends ------------------------------------------------------ */

/* resolution 0: the first step over (80, 120.1 ms) ends it, unconfirmed;
 * held stays at the last step under. */
static void test_resolution_zero_stops_at_the_first_step_over(void **state)
{
    (void)state;
    struct host *h = host_new(steep_ms);
    struct crossing_rules rules = defaults();
    rules.resolution = 0;
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_OVER);
    assert_string_equal(h->trace, SWEEP_TO_80);
    assert_int_equal(s.held, 70);
    assert_int_equal(s.probes, 0);
    /* 100 × (80/73)² = 120.0976 ms, in whole ns. */
    assert_true(fabs(s.decided_ms - 120.097579) < 1e-9);
    free(h);
}

static double flat_ms(int64_t n, int visit)
{
    (void)n;
    (void)visit;
    return 1.0;
}

/* Never over: steps of 10 to 30, then 40 clamped to max_n 35, where it
 * ends within max_ms. */
static void test_max_n_clamps_the_last_step(void **state)
{
    (void)state;
    struct host *h = host_new(flat_ms);
    struct crossing_rules rules = defaults();
    rules.max_n = 35;
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_MAX_N);
    assert_string_equal(h->trace,
                        "sweep 10, sweep 20, sweep 30, sweep 35");
    assert_int_equal(s.held, 35);
    assert_true(s.decided_ms == 1.0);
    free(h);
}

static double slow_ms(int64_t n, int visit)
{
    (void)n;
    (void)visit;
    return 1000.0;
}

/* Idle servers (no rounds timed): a step is never over, whatever it
 * reads; the sweep goes to max_n. */
static void test_idle_steps_are_never_over(void **state)
{
    (void)state;
    struct host *h = host_new(slow_ms);
    struct crossing_rules rules = defaults();
    rules.max_n = 35;
    rules.timed = false;
    struct crossing_search s;
    assert_int_equal(search(h, &rules, 10, &s), CROSSING_MAX_N);
    assert_string_equal(h->trace,
                        "sweep 10, sweep 20, sweep 30, sweep 35");
    assert_int_equal(s.held, 35);
    free(h);
}

/* A run stopped during the bisection keeps the bracket's low end; one
 * stopped while sweeping keeps the last step under. */
static void test_a_stopped_search_keeps_what_it_had(void **state)
{
    (void)state;
    struct crossing_search s;
    crossing_search_start(&s, 10);
    s.phase = CROSSING_BISECTING;
    s.b = (struct bracket){70, 80};
    s.held = 70;
    s.target = 75;
    assert_true(crossing_search_stop(&s));
    assert_int_equal(s.phase, CROSSING_DONE);
    assert_int_equal(s.held, 70);

    crossing_search_start(&s, 10);
    s.held = 40;
    s.target = 50;
    assert_false(crossing_search_stop(&s));
    assert_int_equal(s.phase, CROSSING_DONE);
    assert_int_equal(s.held, 40);
}

/* Rounds taken at the same N in different measurements pool: 10 of
 * 150 ms and 20 of 74 ms have the median 74 ms; other N do not count. */
static void test_pooled_median(void **state)
{
    (void)state;
    int64_t a[10], b[20], c[5];
    for (size_t i = 0; i < 10; i++)
        a[i] = 150000000;
    for (size_t i = 0; i < 20; i++)
        b[i] = 74000000;
    for (size_t i = 0; i < 5; i++)
        c[i] = 1;
    const struct crossing_measure m[] = {
        {.n = 30, .rounds_ns = a, .len = 10, .median_ms = 150},
        {.n = 40, .rounds_ns = c, .len = 5, .median_ms = 1e-6},
        {.n = 30, .rounds_ns = b, .len = 20, .median_ms = 74, .probe = true},
    };
    size_t rounds;
    assert_true(crossing_pooled_ms(m, 3, 30, &rounds) == 74.0);
    assert_int_equal(rounds, 30);
    assert_true(crossing_pooled_ms(m, 3, 50, &rounds) == 0);
    assert_int_equal(rounds, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_curve_bisects_to_the_resolution),
        cmocka_unit_test(test_steep_curve),
        cmocka_unit_test(test_geometric_steps),
        cmocka_unit_test(test_a_failed_confirmation_sweeps_on),
        cmocka_unit_test(test_a_lucky_low_end_moves_the_bracket_down),
        cmocka_unit_test(test_a_refine_that_changes_sides_moves_the_bracket_up),
        cmocka_unit_test(test_refines_alternate_ends_until_narrow),
        cmocka_unit_test(test_the_probe_budget_ends_the_bisection),
        cmocka_unit_test(test_the_probe_budget_ends_the_refining),
        cmocka_unit_test(test_resolution_zero_stops_at_the_first_step_over),
        cmocka_unit_test(test_max_n_clamps_the_last_step),
        cmocka_unit_test(test_idle_steps_are_never_over),
        cmocka_unit_test(test_a_stopped_search_keeps_what_it_had),
        cmocka_unit_test(test_pooled_median),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
