/* A log-bucketed histogram of non-negative values (latencies in ns), the
 * HdrHistogram layout: values below 256 each have a bucket of their own;
 * above, every power of two [2^e, 2^(e+1)) is cut into 128 buckets of
 * equal width 2^(e-7). So a bucket is never wider than 1/128 of its
 * lowest value: a percentile read from it (its bucket's highest value,
 * clamped to the exact min and max) is never below the exact sample at
 * that rank and less than 1/128 (0.79%) above it, at any magnitude,
 * the precision of an HdrHistogram of 2 significant digits. Values from
 * 2^HIST_MAX_BITS ns (about 73 minutes) up go in the top bucket and are
 * counted in `clamped`; min, max, the count and the sum are exact.
 *
 * Pure: no allocation (a histogram is one struct of fixed size, about
 * 36 KiB), no clock, one thread; merge per-thread ones. */
#ifndef ORBBENCH_HIST_H
#define ORBBENCH_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_LINEAR 256         /* values with a bucket each */
#define HIST_SUB 128            /* buckets per power of two above */
#define HIST_MAX_BITS 42        /* values below 2^42 are bucketed */
#define HIST_BUCKETS (HIST_LINEAR + (HIST_MAX_BITS - 8) * HIST_SUB)
/* A percentile's bound: reported <= exact * (1 + HIST_RELATIVE_ERROR). */
#define HIST_RELATIVE_ERROR (1.0 / HIST_SUB)

struct hist {
    uint64_t counts[HIST_BUCKETS];
    uint64_t count;   /* values added */
    uint64_t clamped; /* of which at or over 2^HIST_MAX_BITS */
    int64_t min, max; /* exact; 0 when empty */
    double sum;       /* for the mean */
};

/* Empty h. */
void hist_clear(struct hist *h);

/* Count value v (< 0 counts as 0) n times. */
void hist_add_n(struct hist *h, int64_t v, uint64_t n);
void hist_add(struct hist *h, int64_t v);

/* Add every count of src to dst. */
void hist_merge(struct hist *dst, const struct hist *src);

/* The value at percentile q (0..100) by nearest rank: the smallest value
 * with at least q% of the count at or below it (q 0: the min; q 100:
 * the max; exact), as its bucket's highest value within [min, max]. 0
 * when empty. */
int64_t hist_percentile(const struct hist *h, double q);

/* The mean of the values added (exact), 0 when empty. */
double hist_mean(const struct hist *h);

/* The bucket of value v, and a bucket's lowest and highest values. */
size_t hist_bucket(int64_t v);
int64_t hist_bucket_low(size_t i);
int64_t hist_bucket_high(size_t i);

#endif
