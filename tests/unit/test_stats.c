/* Unit tests for stats.c's cheapest-share mean (stats_low_mean), the
 * figure compare reads a measurement's server CPU per call from. Expected
 * values are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/stats.h"

static void test_low_mean_takes_the_cheapest_share(void **state)
{
    (void)state;
    /* Ten rounds, three of them taken by the host (300, 290, 250): the
     * cheapest 30% are 90, 95, 100 whatever the order. */
    int64_t v[] = {300, 100, 95, 290, 120, 110, 250, 90, 105, 115};
    assert_float_equal(stats_low_mean(v, 10, 0.3), 95.0, 1e-9);
    /* The input is left as it was (the rounds stay in the order taken). */
    assert_int_equal(v[0], 300);
    assert_int_equal(v[9], 115);
    /* All of them: the plain mean. */
    assert_float_equal(stats_low_mean(v, 10, 1.0), 157.5, 1e-9);
}

static void test_low_mean_rounds_its_count_up(void **state)
{
    (void)state;
    /* 30% of 7 is 2.1: the cheapest 3; 30% of 10 is exactly 3, not 4
     * (a float's 3.0000000004 is not rounded up). */
    int64_t v[] = {7, 1, 6, 2, 5, 3, 4};
    assert_float_equal(stats_low_mean(v, 7, 0.3), 2.0, 1e-9);
    int64_t w[] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    assert_float_equal(stats_low_mean(w, 10, 0.3), 2.0, 1e-9);
    /* Never fewer than one: the cheapest. */
    assert_float_equal(stats_low_mean(v, 7, 0.01), 1.0, 1e-9);
    /* One value is its own. */
    int64_t one[] = {42};
    assert_float_equal(stats_low_mean(one, 1, 0.3), 42.0, 1e-9);
}

static void test_low_mean_of_nothing_is_zero(void **state)
{
    (void)state;
    assert_float_equal(stats_low_mean(NULL, 0, 0.3), 0.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_low_mean_takes_the_cheapest_share),
        cmocka_unit_test(test_low_mean_rounds_its_count_up),
        cmocka_unit_test(test_low_mean_of_nothing_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
