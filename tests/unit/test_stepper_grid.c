/* Unit tests for the stepper's grid (kinds/stepper_grid.c): where steps
 * go and how many rounds each takes, from the settings alone. Every
 * expected N is worked out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kinds/stepper_grid.h"

/* The sweep's defaults that matter here (kinds/stepper_keys.h): 10
 * rounds, resolution 0.02, no warm start, far_growth 1.5, cost_n 500. */
static struct stepper_opts defaults(void)
{
    return (struct stepper_opts){.start = 1, .step = 10, .growth = 1,
                                 .max_n = 1000, .max_ms = 100, .rounds = 10,
                                 .resolution = 0.02, .near_rounds = 20,
                                 .max_probes = 12, .far_rounds = 3,
                                 .far_growth = 1.5, .cost_n = 500};
}

/* A warm start at N=200 on a grid of +10%, cost_n out of the way:
 * the prior's spread is 2 × resolution = 0.04 (the step there, about
 * 10%, is wider), so the full rounds start at 200 × 0.96 / 1.5 = 128
 * (CROSSING_FIT_SPAN below the spread's low end). */
static struct stepper_opts warm(void)
{
    struct stepper_opts so = defaults();
    so.growth = 1.1;
    so.prior_n = 200;
    so.cost_n = 0;
    return so;
}

static void test_linear_and_geometric(void **state)
{
    (void)state;
    struct stepper_opts so = defaults();
    so.step = 5;
    struct stepper_grid g = {&so, true};
    assert_int_equal(stepper_next_n(&g, 1), 6);
    assert_int_equal(stepper_next_n(&g, 6), 11);
    /* Geometric: ceil(50 × 1.15 = 57.5) = 58, ceil(66.7) = 67; the step
     * no longer used. */
    so.growth = 1.15;
    assert_int_equal(stepper_next_n(&g, 50), 58);
    assert_int_equal(stepper_next_n(&g, 58), 67);
    /* ceil(5 × 1.01 = 5.05) = 6: never N again. */
    so.growth = 1.01;
    assert_int_equal(stepper_next_n(&g, 5), 6);
    assert_int_equal(stepper_next_n(&g, 1), 2);
}

static void test_cost_window(void **state)
{
    (void)state;
    struct stepper_opts so = defaults(); /* cost_n 500: [333.3, 750] */
    assert_false(stepper_near_cost(&so, 333));
    assert_true(stepper_near_cost(&so, 334));
    assert_true(stepper_near_cost(&so, 500));
    assert_true(stepper_near_cost(&so, 750));
    assert_false(stepper_near_cost(&so, 751));
    so.cost_n = 0; /* none */
    assert_false(stepper_near_cost(&so, 500));
}

static void test_full_from(void **state)
{
    (void)state;
    struct stepper_opts so = warm();
    struct stepper_grid g = {&so, true};
    assert_float_equal(stepper_full_from(&g), 128, 1e-9);
    /* A wider prior: 200 × 0.92 / 1.5. */
    so.prior_half_width = 0.08;
    assert_float_equal(stepper_full_from(&g), 200 * 0.92 / 1.5, 1e-9);
    /* Wider than a step: one step. 200 × 1.1 is 220.00000000000003 in
     * doubles, whose ceiling is 221: a step of 10.5%, 200 × 0.895 / 1.5. */
    so.prior_half_width = 0.5;
    assert_float_equal(stepper_full_from(&g), 200 * 0.895 / 1.5, 1e-9);
    /* Every step full: a cold run, idle servers, far rounds none or no
     * fewer, no search. */
    so = warm();
    g.timed = false;
    assert_float_equal(stepper_full_from(&g), 0, 0);
    g.timed = true;
    so.prior_n = 0;
    assert_float_equal(stepper_full_from(&g), 0, 0);
    so = warm();
    so.far_rounds = 0;
    assert_float_equal(stepper_full_from(&g), 0, 0);
    so.far_rounds = 10;
    assert_float_equal(stepper_full_from(&g), 0, 0);
    so = warm();
    so.resolution = 0;
    assert_float_equal(stepper_full_from(&g), 0, 0);
}

static void test_step_rounds(void **state)
{
    (void)state;
    struct stepper_opts so = warm();
    struct stepper_grid g = {&so, true};
    double from = stepper_full_from(&g); /* 128 */
    assert_int_equal(stepper_step_rounds(&g, from, 1), 10);   /* first */
    assert_int_equal(stepper_step_rounds(&g, from, 50), 3);   /* far */
    assert_int_equal(stepper_step_rounds(&g, from, 127), 3);  /* far */
    assert_int_equal(stepper_step_rounds(&g, from, 128), 10); /* full */
    assert_int_equal(stepper_step_rounds(&g, 0, 50), 10);     /* cold */
    /* cost_n 100: [66.7, 150] keeps its rounds whole. */
    so.cost_n = 100;
    assert_int_equal(stepper_step_rounds(&g, from, 66), 3);
    assert_int_equal(stepper_step_rounds(&g, from, 67), 10);
}

static void test_far_steps(void **state)
{
    (void)state;
    struct stepper_opts so = warm(); /* full rounds from 128 */
    struct stepper_grid g = {&so, true};
    /* By far_growth 1.5 below 128: ceil(1.5) = 2 (the grid's too),
     * ceil(15) = 15 (the grid: 11). */
    assert_int_equal(stepper_next_n(&g, 1), 2);
    assert_int_equal(stepper_next_n(&g, 10), 15);
    /* ceil(150) passes 128: it stops there, the full rounds' first N. */
    assert_int_equal(stepper_next_n(&g, 100), 128);
    /* From 128 on, the grid: ceil(140.8) = 141. */
    assert_int_equal(stepper_next_n(&g, 128), 141);
    /* cost_n 100: stop at its window's first N, ceil(66.7) = 67, not
     * ceil(75) = 75; within it, the grid: ceil(73.7) = 74. */
    so.cost_n = 100;
    assert_int_equal(stepper_next_n(&g, 50), 67);
    assert_int_equal(stepper_next_n(&g, 67), 74);
    /* far_growth 1: the grid's steps, ceil(11) = 11. */
    so.cost_n = 0;
    so.far_growth = 1;
    assert_int_equal(stepper_next_n(&g, 10), 11);
}

static void test_rules(void **state)
{
    (void)state;
    struct stepper_opts so = warm();
    struct stepper_grid g = {&so, true};
    struct crossing_rules r = stepper_rules(&g);
    assert_float_equal(r.max_ms, 100, 0);
    assert_int_equal(r.max_n, 1000);
    assert_int_equal(r.near_rounds, 20);
    assert_int_equal(r.max_probes, 12);
    assert_true(r.timed);
    assert_float_equal(r.prior_n, 200, 0);
    /* The spread is measured on the plain grid at the prior. */
    assert_float_equal(r.prior_spread, 0.04, 1e-12);
    /* The search steps as the stepper does, far steps and all. */
    assert_int_equal(r.next_n(r.next_ctx, 10), 15);
    so.prior_n = 0;
    r = stepper_rules(&g);
    assert_float_equal(r.prior_spread, 0, 0);
    assert_int_equal(r.next_n(r.next_ctx, 10), 11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_and_geometric),
        cmocka_unit_test(test_cost_window),
        cmocka_unit_test(test_full_from),
        cmocka_unit_test(test_step_rounds),
        cmocka_unit_test(test_far_steps),
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
