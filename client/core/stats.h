/* Sample arrays and their summaries (min, mean, median, percentiles, max,
 * standard deviation). Every sample is kept: exact, not binned. */
#ifndef ORBBENCH_STATS_H
#define ORBBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* A growable array of samples in nanoseconds, owned by one thread. */
struct samples {
    int64_t *ns;
    size_t len;
    size_t cap;
};

struct summary {
    size_t count;
    double min, mean, median, p90, p99, max, stddev;
};

/* Append one sample. Returns 0 or -ENOMEM. */
int samples_add(struct samples *s, int64_t ns);
/* Append all of src to dst (src is left as it was). 0 or -ENOMEM. */
int samples_merge(struct samples *dst, const struct samples *src);
void samples_clear(struct samples *s);
void samples_free(struct samples *s);

/* Summarize s (sorted in place) with every figure divided by `scale`
 * (1e6 for ms, 1e3 for us). Percentiles interpolate linearly between the
 * two nearest ranks (numpy's default); stddev is the population one. An
 * empty s gives count 0 and zeros. */
void stats_summarize(struct samples *s, double scale, struct summary *out);

/* The q-quantile (0..1) of sorted values v[0..n-1], linear interpolation. */
double stats_quantile(const int64_t *sorted, size_t n, double q);

/* The mean of the cheapest `share` (0..1] of v[0..n-1]: of its lowest
 * ceil(share * n) values, at least one; 0 when n == 0. v is not changed.
 * What a cost is when the host only ever adds to it: this guest's host
 * takes the CPU away in bursts of a few rounds that the servers' clock
 * counts as theirs (docs/compare.md, "Server CPU per call"). */
double stats_low_mean(const int64_t *v, size_t n, double share);

/* A confidence interval for the median of samples taken in sequence. */
struct median_ci {
    double low, high; /* in the samples' unit, divided by `scale` */
    double level;     /* 0.95 */
    size_t block;     /* rounds per bootstrap block (1: independent) */
    unsigned resamples;
};

/* The 95% interval of the median of v[0..n-1], given in the order the
 * samples were taken, by a circular moving-block bootstrap: rounds of one
 * run are correlated over about a second on a shared host, so single
 * rounds are not resampled alone. The block is the first lag at which
 * the sample autocorrelation falls below 2/sqrt(n) (1 when none is
 * significant, at most n/4 so that there are 4 blocks). Percentile
 * interval of up to 2000 resamples (fewer for very long series), from a
 * fixed seed: the same samples give the same interval. Divides by
 * `scale`. v is not changed. 0, or -ENOMEM; n == 0 gives zeros. */
int stats_median_ci(const int64_t *v, size_t n, double scale,
                    struct median_ci *out);

/* The two-sided 95% quantile of Student's t with df degrees of freedom
 * (df >= 1): tabulated to df 30, then z + (z^3 + z) / (4 df). */
double stats_t975(int df);

/* qsort's comparison of doubles, ascending. */
int stats_cmp_double(const void *a, const void *b);

/* The median, min and max of v[0..n-1], n > 0 (sorts v in place). */
struct spread {
    double median, min, max;
};
void stats_spread(double *v, size_t n, struct spread *out);

#endif
