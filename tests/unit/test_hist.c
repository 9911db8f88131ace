/* Unit tests for core/hist.c: its buckets tile the values, and its
 * percentiles of known distributions (uniform, exponential, a log-normal
 * tail, two modes, a constant) stay within the stated relative error of
 * the exact nearest-rank percentile of the same samples, never below. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/hist.h"

static struct hist h, g;

/* A fixed generator (xorshift64*), so every run draws the same samples. */
static uint64_t state = 0x9e3779b97f4a7c15ull;
static double uniform01(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (double)((state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The exact nearest-rank percentile of sorted v[0..n-1]. */
static int64_t exact(const int64_t *v, size_t n, double q)
{
    if (q <= 0)
        return v[0];
    double r = ceil(q / 100.0 * (double)n - 1e-9);
    size_t rank = r < 1 ? 1 : (size_t)r;
    return v[(rank > n ? n : rank) - 1];
}

static const double QS[] = {0, 1, 10, 50, 90, 99, 99.9, 99.99, 100};

/* Fill h with v[0..n-1] and check every percentile of QS. */
static void check_within_error(int64_t *v, size_t n)
{
    hist_clear(&h);
    for (size_t i = 0; i < n; i++)
        hist_add(&h, v[i]);
    qsort(v, n, sizeof *v, cmp_i64);
    assert_int_equal(h.count, n);
    assert_int_equal(h.min, v[0]);
    assert_int_equal(h.max, v[n - 1]);
    for (size_t k = 0; k < sizeof QS / sizeof QS[0]; k++) {
        int64_t want = exact(v, n, QS[k]), got = hist_percentile(&h, QS[k]);
        if (got < want || (double)got > (double)want *
                                              (1 + HIST_RELATIVE_ERROR)) {
            print_error("p%g: histogram %lld, exact %lld\n", QS[k],
                        (long long)got, (long long)want);
            fail();
        }
    }
}

#define N 200000
static int64_t v[N];

static void test_buckets_tile_the_values(void **st)
{
    (void)st;
    /* Consecutive buckets meet: each starts one past the last's end,
     * and no bucket is wider than 1/128 of its lowest value. */
    for (size_t i = 1; i < HIST_BUCKETS; i++) {
        assert_int_equal(hist_bucket_low(i), hist_bucket_high(i - 1) + 1);
        int64_t lo = hist_bucket_low(i), w = hist_bucket_high(i) - lo + 1;
        assert_true(w == 1 || (double)w <= (double)lo / HIST_SUB);
        assert_int_equal(hist_bucket(lo), i);
        assert_int_equal(hist_bucket(hist_bucket_high(i)), i);
    }
    assert_int_equal(hist_bucket(-5), 0);
    assert_int_equal(hist_bucket(255), 255);
    assert_int_equal(hist_bucket(256), 256);
    assert_int_equal(hist_bucket(INT64_MAX), HIST_BUCKETS - 1);
}

static void test_small_values_are_exact(void **st)
{
    (void)st;
    for (size_t i = 0; i < 1000; i++)
        v[i] = (int64_t)(uniform01() * 256);
    check_within_error(v, 1000);
    /* Below 256 a bucket is one value wide: the percentile is exact. */
    for (size_t k = 0; k < sizeof QS / sizeof QS[0]; k++)
        assert_int_equal(hist_percentile(&h, QS[k]), exact(v, 1000, QS[k]));
}

static void test_uniform(void **st)
{
    (void)st;
    for (size_t i = 0; i < N; i++)
        v[i] = 10000 + (int64_t)(uniform01() * 990000); /* 10 us..1 ms */
    check_within_error(v, N);
    assert_float_equal(hist_mean(&h), 505000, 3000);
}

static void test_exponential(void **st)
{
    (void)st;
    for (size_t i = 0; i < N; i++)
        v[i] = (int64_t)(-log(1 - uniform01()) * 50000); /* mean 50 us */
    check_within_error(v, N);
    /* The exponential's p99 is mean * ln 100 = 230 us, to sampling. */
    assert_float_equal((double)hist_percentile(&h, 99), 230259, 12000);
}

static void test_lognormal_tail(void **st)
{
    (void)st;
    for (size_t i = 0; i < N; i++) {
        /* Box-Muller: a heavy tail over five decades. */
        double z = sqrt(-2 * log(1 - uniform01())) *
                   cos(2 * M_PI * uniform01());
        v[i] = (int64_t)exp(11 + 2.0 * z);
    }
    check_within_error(v, N);
}

static void test_two_modes_and_a_stall(void **st)
{
    (void)st;
    /* 95% near 20 us, 5% near 50 ms: a server that stalls. p90 is in
     * the first mode, p99 in the second. */
    for (size_t i = 0; i < N; i++)
        v[i] = i % 20 == 0 ? 50000000 + (int64_t)(uniform01() * 1e6)
                           : 20000 + (int64_t)(uniform01() * 2000);
    check_within_error(v, N);
    assert_true(hist_percentile(&h, 90) < 23000);
    assert_true(hist_percentile(&h, 99) > 50000000);
}

static void test_constant_and_merge(void **st)
{
    (void)st;
    hist_clear(&h);
    hist_clear(&g);
    assert_int_equal(hist_percentile(&h, 50), 0); /* empty */
    hist_add_n(&h, 123456, 1000);
    /* A constant: every percentile is it (clamped to min and max). */
    assert_int_equal(hist_percentile(&h, 1), 123456);
    assert_int_equal(hist_percentile(&h, 99.99), 123456);
    hist_add_n(&g, 1000, 3000);
    hist_merge(&g, &h);
    assert_int_equal(g.count, 4000);
    assert_int_equal(g.min, 1000);
    assert_int_equal(g.max, 123456);
    /* Its bucket's highest value: 1000..1003 is one bucket. */
    assert_int_equal(hist_percentile(&g, 75), 1003);
    assert_int_equal(hist_percentile(&g, 75.1), 123456);
    assert_float_equal(hist_mean(&g), (3000 * 1000.0 + 123456000.0) / 4000,
                       1e-6);
    /* Past 2^42 ns: counted, clamped into the top bucket, max exact. */
    hist_add(&g, (int64_t)1 << 50);
    assert_int_equal(g.clamped, 1);
    assert_int_equal(hist_percentile(&g, 100), (int64_t)1 << 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buckets_tile_the_values),
        cmocka_unit_test(test_small_values_are_exact),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_exponential),
        cmocka_unit_test(test_lognormal_tail),
        cmocka_unit_test(test_two_modes_and_a_stall),
        cmocka_unit_test(test_constant_and_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
