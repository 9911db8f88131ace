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

#endif
