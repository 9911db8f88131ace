/* Sample arrays and summaries: see stats.h. */
#include "core/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int samples_add(struct samples *s, int64_t ns)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        int64_t *p = realloc(s->ns, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        s->ns = p;
        s->cap = cap;
    }
    s->ns[s->len++] = ns;
    return 0;
}

int samples_merge(struct samples *dst, const struct samples *src)
{
    if (dst->len + src->len > dst->cap) {
        size_t cap = dst->len + src->len;
        int64_t *p = realloc(dst->ns, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        dst->ns = p;
        dst->cap = cap;
    }
    if (src->len)
        memcpy(dst->ns + dst->len, src->ns, src->len * sizeof *src->ns);
    dst->len += src->len;
    return 0;
}

void samples_clear(struct samples *s) { s->len = 0; }

void samples_free(struct samples *s)
{
    free(s->ns);
    memset(s, 0, sizeof *s);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

double stats_low_mean(const int64_t *v, size_t n, double share)
{
    if (n == 0)
        return 0;
    int64_t *w = malloc(n * sizeof *w);
    if (!w) { /* no room to sort: the cheapest single value */
        int64_t low = v[0];
        for (size_t i = 1; i < n; i++)
            if (v[i] < low)
                low = v[i];
        return (double)low;
    }
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmp_i64);
    size_t k = (size_t)ceil(share * (double)n - 1e-9);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    double sum = 0;
    for (size_t i = 0; i < k; i++)
        sum += (double)w[i];
    free(w);
    return sum / (double)k;
}

double stats_quantile(const int64_t *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    return (double)sorted[lo] + frac * (double)(sorted[hi] - sorted[lo]);
}

void stats_summarize(struct samples *s, double scale, struct summary *out)
{
    memset(out, 0, sizeof *out);
    if (s->len == 0)
        return;
    qsort(s->ns, s->len, sizeof *s->ns, cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < s->len; i++)
        sum += (double)s->ns[i];
    double mean = sum / (double)s->len, var = 0;
    for (size_t i = 0; i < s->len; i++) {
        double d = (double)s->ns[i] - mean;
        var += d * d;
    }
    out->count = s->len;
    out->min = (double)s->ns[0] / scale;
    out->max = (double)s->ns[s->len - 1] / scale;
    out->mean = mean / scale;
    out->median = stats_quantile(s->ns, s->len, 0.5) / scale;
    out->p90 = stats_quantile(s->ns, s->len, 0.9) / scale;
    out->p99 = stats_quantile(s->ns, s->len, 0.99) / scale;
    out->stddev = sqrt(var / (double)s->len) / scale;
}

/* splitmix64: a small, fixed-seed generator, so an interval can be
 * reproduced from the samples alone. */
static uint64_t next_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int stats_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_spread(double *v, size_t n, struct spread *out)
{
    qsort(v, n, sizeof *v, stats_cmp_double);
    out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    out->min = v[0];
    out->max = v[n - 1];
}

/* The k-th smallest of v[0..n-1] (reorders v): Wirth's selection. */
static double select_kth(double *v, long n, long k)
{
    long l = 0, m = n - 1;
    while (l < m) {
        double x = v[k];
        long i = l, j = m;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k)
            l = i;
        if (k < i)
            m = j;
    }
    return v[k];
}

/* Median as stats_quantile(…, 0.5) defines it, on a scratch copy. */
static double median_of(double *v, size_t n)
{
    double a = select_kth(v, (long)n, (long)(n - 1) / 2);
    if (n % 2)
        return a;
    double b = select_kth(v, (long)n, (long)n / 2);
    return (a + b) / 2;
}

/* The first lag whose autocorrelation is insignificant (|r| < 2/sqrt(n)),
 * capped at n/4. */
static size_t block_length(const int64_t *v, size_t n)
{
    if (n < 8)
        return 1;
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += (double)v[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += ((double)v[i] - mean) * ((double)v[i] - mean);
    if (var == 0)
        return 1;
    size_t cap = n / 4;
    double bound = 2 / sqrt((double)n);
    for (size_t lag = 1; lag <= cap; lag++) {
        double c = 0;
        for (size_t i = 0; i + lag < n; i++)
            c += ((double)v[i] - mean) * ((double)v[i + lag] - mean);
        if (fabs(c / var) < bound)
            return lag;
    }
    return cap;
}

int stats_median_ci(const int64_t *v, size_t n, double scale,
                    struct median_ci *out)
{
    memset(out, 0, sizeof *out);
    out->level = 0.95;
    if (n == 0)
        return 0;
    size_t block = block_length(v, n);
    /* Bound the work: about 2e7 sample copies at most. */
    unsigned resamples = 2000;
    if ((double)resamples * (double)n > 2e7)
        resamples = (unsigned)(2e7 / (double)n);
    if (resamples < 200)
        resamples = 200;
    double *buf = malloc(n * sizeof *buf);
    double *meds = malloc(resamples * sizeof *meds);
    if (!buf || !meds) {
        free(buf);
        free(meds);
        return -ENOMEM;
    }
    uint64_t seed = 0x6f72626265ULL ^ (uint64_t)n;
    for (unsigned r = 0; r < resamples; r++) {
        for (size_t got = 0; got < n;) {
            size_t start = (size_t)(next_rand(&seed) % n);
            for (size_t j = 0; j < block && got < n; j++)
                buf[got++] = (double)v[(start + j) % n];
        }
        meds[r] = median_of(buf, n);
    }
    qsort(meds, resamples, sizeof *meds, stats_cmp_double);
    /* Percentile interval: the 2.5% and 97.5% points of the resampled
     * medians, by the same linear interpolation as the summaries. */
    double lo_pos = 0.025 * (double)(resamples - 1);
    double hi_pos = 0.975 * (double)(resamples - 1);
    size_t l = (size_t)lo_pos, h = (size_t)hi_pos;
    out->low = (meds[l] + (lo_pos - (double)l) *
                              (meds[l + 1 < resamples ? l + 1 : l] - meds[l])) /
               scale;
    out->high = (meds[h] + (hi_pos - (double)h) *
                               (meds[h + 1 < resamples ? h + 1 : h] - meds[h])) /
                scale;
    out->block = block;
    out->resamples = resamples;
    free(buf);
    free(meds);
    return 0;
}

double stats_t975(int df)
{
    static const double table[] = {
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228,  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093,  2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
        2.048,  2.045, 2.042};
    if (df < 1)
        return INFINITY;
    if (df <= 30)
        return table[df - 1];
    const double z = 1.959964;
    return z + (z * z * z + z) / (4.0 * df);
}
