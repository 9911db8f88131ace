/* Unit tests for spread.c: how N connections fall over k servers, and
 * when a step passes a limit. Expected values are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/spread.h"

static void test_share_round_robin(void **state)
{
    (void)state;
    /* 10 connections over 3 servers: 0,3,6,9 | 1,4,7 | 2,5,8. */
    assert_int_equal(spread_share(10, 3, 0), 4);
    assert_int_equal(spread_share(10, 3, 1), 3);
    assert_int_equal(spread_share(10, 3, 2), 3);
    /* Fewer connections than servers: the last ones have none. */
    assert_int_equal(spread_share(2, 3, 1), 1);
    assert_int_equal(spread_share(2, 3, 2), 0);
    /* One server holds them all. */
    assert_int_equal(spread_share(7, 1, 0), 7);
    /* Out of range: nothing. */
    assert_int_equal(spread_share(0, 3, 0), 0);
    assert_int_equal(spread_share(5, 3, 3), 0);
    assert_int_equal(spread_share(5, 0, 0), 0);
}

static void test_share_sums_to_n(void **state)
{
    (void)state;
    for (int64_t k = 1; k <= 7; k++)
        for (int64_t n = 0; n <= 50; n++) {
            int64_t sum = 0;
            for (int64_t j = 0; j < k; j++)
                sum += spread_share(n, k, j);
            assert_int_equal(sum, n);
        }
}

static void test_over_descriptors(void **state)
{
    (void)state;
    int64_t would;
    /* 90 open of 100, one each: 10 more fit exactly, 11 do not. */
    struct spread_limit l = {90, 100, -1, 1};
    assert_false(spread_over(&l, 10, &would));
    assert_int_equal(would, 100);
    assert_true(spread_over(&l, 11, &would));
    assert_int_equal(would, 101);
    /* Measured 2 per connection (a pipe pair): 5 more fill it, 6 pass. */
    l.per_conn = 2;
    assert_false(spread_over(&l, 5, &would));
    assert_true(spread_over(&l, 6, &would));
    assert_int_equal(would, 102);
    /* A measured share a hair over 1 is still one each. */
    l.per_conn = 1.0000001;
    assert_false(spread_over(&l, 10, &would));
    assert_int_equal(would, 100);
    /* No limit: never over. */
    l.limit = -1;
    assert_false(spread_over(&l, 1000000, &would));
}

static void test_over_threads(void **state)
{
    (void)state;
    int64_t would;
    /* A pool server: no thread per connection measured, none projected. */
    struct spread_limit l = {32000, 32768, 0.01, 0};
    assert_false(spread_over(&l, 100, &would));
    assert_int_equal(would, 32001);
    /* Thread per connection: 1 each, 800 more would pass pid_max. */
    l.per_conn = 1;
    assert_false(spread_over(&l, 768, &would));
    assert_true(spread_over(&l, 769, &would));
    /* Not yet measured and nothing least: nothing projected. */
    l.per_conn = -1;
    assert_false(spread_over(&l, 5000, &would));
    assert_int_equal(would, 32000);
    /* Nothing added: what is used now. */
    l.per_conn = 1;
    assert_false(spread_over(&l, 0, &would));
    assert_int_equal(would, 32000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share_round_robin),
        cmocka_unit_test(test_share_sums_to_n),
        cmocka_unit_test(test_over_descriptors),
        cmocka_unit_test(test_over_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
