/* Unit tests for eta.c, the estimate of what is left of a sweep, on
 * synthetic sweeps whose every step's time is known: the model's sum is
 * worked out here step by step, apart from the code under test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/eta.h"

/* The Grisby suite's sweep: N grows by 10% a step (stepper_next_n). */
static int64_t grow10(const void *ctx, int64_t n)
{
    (void)ctx;
    int64_t next = (int64_t)ceil((double)n * 1.1);
    return next > n ? next : n + 1;
}

static int64_t add50(const void *ctx, int64_t n)
{
    (void)ctx;
    return n + 50;
}

/* A synthetic host: a round over N servers takes 0.05 N ms (100 ms at
 * N = 2000); a step takes its 15 rounds, 2 ms per server started and
 * 0.1 s more. */
static double model_ms(double n) { return 0.05 * n; }

static double model_step_s(double prev, double n)
{
    return 15 * model_ms(n) / 1000 + 0.002 * (n - prev) + 0.1;
}

/* The sweep's steps from 25 up to the last N below `until`. */
static size_t sweep_to(struct eta_point *pts, size_t cap, int64_t until,
                       int64_t (*next)(const void *, int64_t))
{
    size_t k = 0;
    int64_t n = 25, prev = 0;
    while (n < until && k < cap) {
        pts[k++] = (struct eta_point){(double)n, model_ms((double)n),
                                      model_step_s((double)prev, (double)n)};
        prev = n;
        n = next(NULL, n);
    }
    return k;
}

static struct eta_plan plan(int64_t (*next)(const void *, int64_t))
{
    return (struct eta_plan){
        .max_ms = 100, .max_n = 4000, .next_n = next, .step_rounds = 15,
        .probe_rounds = 25, .resolution = 0.02, .max_probes = 12,
        .max_seconds = 0, .stage = ETA_SWEEP};
}

static void test_nothing_measured_no_estimate(void **state)
{
    (void)state;
    struct eta_plan p = plan(grow10);
    struct eta e;
    assert_false(eta_sweep(NULL, 0, NULL, 0, &p, &e));
    assert_true(e.left_s == 0);
}

/* Half way (N about 500 of the crossing's 2000): the trend finds the
 * crossing, the steps left are the sweep's own up to the first over, and
 * their time is the model's within a few percent. */
static void test_sweep_left_from_its_own_growth(void **state)
{
    (void)state;
    struct eta_point pts[100];
    size_t k = sweep_to(pts, 100, 500, grow10);
    struct eta_plan p = plan(grow10);
    struct eta e;
    assert_true(eta_sweep(pts, k, NULL, 0, &p, &e));
    assert_true(fabs(e.crossing_n - 2000) < 0.02 * 2000);
    assert_true(fabs(e.round_slope - 1) < 1e-6);
    /* By hand: the steps after the last one measured, to the first at or
     * over 2000. */
    double want = 0, prev = pts[k - 1].n;
    int steps = 0;
    int64_t n = (int64_t)prev;
    int64_t lo = 0;
    while (n < 2000) {
        lo = n;
        n = grow10(NULL, n);
        want += model_step_s(prev, (double)n);
        prev = (double)n;
        steps++;
    }
    assert_int_equal(e.steps_left, steps);
    assert_true(fabs(e.sweep_left_s - want) < 0.05 * want);
    /* The search: confirm, the low end and the local fit's refines. */
    (void)lo;
    assert_true(e.probes_left == 2 + ETA_REFINES);
    /* Each: 25 rounds at about 100 ms, and half a step's rest. */
    assert_true(e.search_left_s > e.probes_left * 2.5);
    assert_true(e.search_left_s < e.probes_left * 4.0);
    assert_true(fabs(e.left_s - (e.sweep_left_s + e.search_left_s)) < 1e-9);
}

/* The estimate falls as the sweep goes on, and each step's is near the
 * model's time still to come. */
static void test_estimate_moves_down(void **state)
{
    (void)state;
    struct eta_point pts[100];
    size_t all = sweep_to(pts, 100, 2000, grow10);
    struct eta_plan p = plan(grow10);
    double first = 0, last = 0;
    for (size_t k = 6; k < all; k += 4) {
        struct eta e;
        assert_true(eta_sweep(pts, k, NULL, 0, &p, &e));
        double rest = 0;
        for (size_t i = k; i < all; i++)
            rest += pts[i].seconds;
        /* The model's remaining steps, plus the first over. */
        int64_t over = grow10(NULL, (int64_t)pts[all - 1].n);
        rest += model_step_s(pts[all - 1].n, (double)over);
        assert_true(fabs(e.sweep_left_s - rest) < 0.1 * rest);
        if (!first)
            first = e.sweep_left_s;
        else
            assert_true(e.sweep_left_s < last);
        last = e.sweep_left_s;
    }
    /* The last 4 steps of a 10% sweep are a third of its time. */
    assert_true(last < first / 2);
}

/* A round time that does not grow: no crossing before max_n, so the
 * steps go to max_n and there is no search. */
static void test_flat_rounds_run_to_max_n(void **state)
{
    (void)state;
    struct eta_point pts[8];
    for (size_t i = 0; i < 8; i++)
        pts[i] = (struct eta_point){50.0 * (double)(i + 1), 5.0, 1.0};
    struct eta_plan p = plan(add50);
    p.max_n = 1000;
    struct eta e;
    assert_true(eta_sweep(pts, 8, NULL, 0, &p, &e));
    assert_true(e.crossing_n == 0);
    assert_int_equal(e.steps_left, (1000 - 400) / 50);
    assert_int_equal(e.probes_left, 0);
    assert_true(e.search_left_s == 0);
    /* Each step: 15 rounds of 5 ms and the rest, 1 - 0.075 s. */
    assert_true(fabs(e.sweep_left_s - 12 * 1.0) < 0.01);
}

/* sweep.max_seconds bounds the estimate. */
static void test_max_seconds_caps(void **state)
{
    (void)state;
    struct eta_point pts[100];
    size_t k = sweep_to(pts, 100, 500, grow10);
    struct eta_plan p = plan(grow10);
    p.max_seconds = 30;
    p.elapsed_s = 25;
    struct eta e;
    assert_true(eta_sweep(pts, k, NULL, 0, &p, &e));
    assert_true(fabs(e.left_s - 5) < 1e-9);
    p.elapsed_s = 40;
    assert_true(eta_sweep(pts, k, NULL, 0, &p, &e));
    assert_true(e.left_s == 0);
}

/* In the search, its measurements cost what the last ones did (up to 4),
 * and what is left of its budget is still to come. */
static void test_search_stages(void **state)
{
    (void)state;
    struct eta_point pts[100];
    size_t k = sweep_to(pts, 100, 2000, grow10);
    struct eta_point probes[3] = {
        {2126, 106, 3.0}, {1932, 97, 2.0}, {2029, 101, 4.0}};
    struct eta_plan p = plan(grow10);
    struct eta e;
    p.stage = ETA_BISECT;
    p.lo = 1932;
    p.hi = 2029;
    p.probes = 3;
    assert_true(eta_sweep(pts, k, probes, 3, &p, &e));
    assert_int_equal(e.steps_left, 0);
    assert_true(e.sweep_left_s == 0);
    /* Two bisections to 2% (1980 under, 2004 over), then the refines. */
    assert_int_equal(eta_bisections(1932, 2029, 0.02, 2000), 2);
    assert_true(e.probes_left == 2 + ETA_REFINES);
    assert_true(fabs(e.search_left_s - 3.0 * (2 + ETA_REFINES)) < 1e-9);
    /* Five taken: the mean of the last four. */
    struct eta_point five[5] = {{2126, 106, 9.0}, {1932, 97, 2.0},
                                {2029, 101, 4.0}, {1980, 99, 2.0},
                                {2004, 100, 4.0}};
    p.stage = ETA_REFINE;
    p.probes = 10;
    assert_true(eta_sweep(pts, k, five, 5, &p, &e));
    assert_true(e.probes_left == 1); /* past the average: this one */
    assert_true(fabs(e.search_left_s - 3.0 * 1) < 1e-9);
    /* Two taken, a refine next: the average's rest. */
    p.probes = 2;
    assert_true(eta_sweep(pts, k, five, 5, &p, &e));
    assert_true(fabs(e.probes_left - ETA_REFINES) < 1e-9);
    /* Never past max_probes. */
    p.stage = ETA_CONFIRM;
    p.lo = 1932;
    p.hi = 2126;
    p.probes = 11;
    assert_true(eta_sweep(pts, k, probes, 3, &p, &e));
    assert_true(e.probes_left == 1);
    p.probes = 12;
    assert_true(eta_sweep(pts, k, probes, 3, &p, &e));
    assert_true(e.probes_left == 0);
    /* No search at all: resolution 0. */
    p.resolution = 0;
    p.probes = 0;
    assert_true(eta_sweep(pts, k, probes, 3, &p, &e));
    assert_true(e.probes_left == 0);
}

/* By hand, crossing at 150 in [100, 200], resolution 2%: 150 over, 125,
 * 137, 143, 146, 148 under; [148, 150] is 2 wide, within 2.96. */
static void test_bisections_by_hand(void **state)
{
    (void)state;
    assert_int_equal(eta_bisections(100, 200, 0.02, 150), 6);
    assert_int_equal(eta_bisections(100, 102, 0.02, 101), 0);
    /* Nothing under yet: down to adjacent integers. */
    assert_int_equal(eta_bisections(0, 8, 0.02, 3), 3);
}

/* eta_make_pace: the next step's ns an object, from the two before.
 * The steps here are built from a known cost per object at each M, so
 * the expected value is worked out by hand: for a cost of c * M^b, the
 * pace at a step's middle M (sqrt(from * to)). */
static struct eta_make made(int64_t from, int64_t to, double ns_each)
{
    return (struct eta_make){from, to, ns_each * (double)(to - from)};
}

static void test_make_pace_flat(void **state)
{
    (void)state;
    /* the same 2 us an object at every M: the last pace, as is */
    struct eta_make a = made(1000, 10000, 2000), b = made(10000, 100000, 2000);
    assert_float_equal(eta_make_pace(&a, &b, 1000000), 2000, 1e-6);
    /* no step before: the last pace */
    assert_float_equal(eta_make_pace(NULL, &b, 1000000), 2000, 1e-6);
    /* a zeroed step is no step: the last pace; and with no last, 0 */
    struct eta_make none = {0, 0, 0};
    assert_float_equal(eta_make_pace(&none, &b, 1000000), 2000, 1e-6);
    assert_float_equal(eta_make_pace(&none, &none, 10), 0, 0);
}

static void test_make_pace_grows_as_m(void **state)
{
    (void)state;
    /* a cost as long as M (a 64-bucket map's chains): 10 us an object
     * over 10^3..10^4, 100 over 10^4..10^5, so 1000 over 10^5..10^6 */
    struct eta_make a = made(1000, 10000, 10e3), b = made(10000, 100000, 100e3);
    assert_float_equal(eta_make_pace(&a, &b, 1000000), 1000e3, 1e-3);
    /* a step of x2 next: its middle M sqrt(10^5 * 2x10^5) over the last
     * step's sqrt(10^4 * 10^5), to the power 1 */
    double want = 100e3 * sqrt(1e5 * 2e5) / sqrt(1e4 * 1e5);
    assert_float_equal(eta_make_pace(&a, &b, 200000), want, 1e-3);
}

static void test_make_pace_bounds(void **state)
{
    (void)state;
    /* a pace that fell is the last one's, never less */
    struct eta_make a = made(1000, 10000, 50e3), b = made(10000, 100000, 5e3);
    assert_float_equal(eta_make_pace(&a, &b, 1000000), 5e3, 1e-6);
    /* a power past 2 (x1000 a decade) is held at 2: x100 */
    struct eta_make c = made(1000, 10000, 1e3), d = made(10000, 100000, 1e6);
    assert_float_equal(eta_make_pace(&c, &d, 1000000), 1e8, 1.0);
    /* steps of fewer than ETA_MAKE_MIN objects say nothing of growth */
    struct eta_make e = made(10, 100, 1e3), f = made(100, 1000, 50e3);
    assert_float_equal(eta_make_pace(&e, &f, 10000), 50e3, 1e-6);
    /* a step that added nothing: no pace */
    struct eta_make g = made(100, 100, 0);
    assert_float_equal(eta_make_pace(NULL, &g, 1000), 0, 0);
}

/* eta_step_rest_s: the rest of a step at its own pace so far. */
static void test_step_rest(void **state)
{
    (void)state;
    /* JacORB's step to 10^6: 32,768 made at 317 us each, 867,232 to go */
    struct eta_make jac = made(100000, 132768, 317e3);
    assert_float_equal(eta_step_rest_s(&jac, 1000000), 867232 * 317e-6,
                       1e-6);
    /* the last object made: nothing left */
    assert_float_equal(eta_step_rest_s(&jac, 132768), 0, 0);
    /* fewer than ETA_MAKE_MIN made in the step: its pace says nothing */
    struct eta_make few = made(100000, 100000 + ETA_MAKE_MIN - 1, 1e9);
    assert_float_equal(eta_step_rest_s(&few, 1000000), 0, 0);
    struct eta_make enough = made(100000, 100000 + ETA_MAKE_MIN, 1e3);
    assert_float_equal(eta_step_rest_s(&enough, 1000000),
                       (1000000 - 100000 - ETA_MAKE_MIN) * 1e-6, 1e-9);
    /* a clock that read no time: no estimate */
    struct eta_make none = {100000, 200000, 0};
    assert_float_equal(eta_step_rest_s(&none, 1000000), 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_measured_no_estimate),
        cmocka_unit_test(test_sweep_left_from_its_own_growth),
        cmocka_unit_test(test_estimate_moves_down),
        cmocka_unit_test(test_flat_rounds_run_to_max_n),
        cmocka_unit_test(test_max_seconds_caps),
        cmocka_unit_test(test_search_stages),
        cmocka_unit_test(test_bisections_by_hand),
        cmocka_unit_test(test_make_pace_flat),
        cmocka_unit_test(test_make_pace_grows_as_m),
        cmocka_unit_test(test_make_pace_bounds),
        cmocka_unit_test(test_step_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
