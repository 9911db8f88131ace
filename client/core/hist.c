/* A log-bucketed histogram: see hist.h. */
#include "core/hist.h"

#include <math.h>
#include <string.h>

void hist_clear(struct hist *h)
{
    memset(h, 0, sizeof *h);
}

size_t hist_bucket(int64_t v)
{
    if (v < HIST_LINEAR)
        return v < 0 ? 0 : (size_t)v;
    if (v >= (int64_t)1 << HIST_MAX_BITS)
        return HIST_BUCKETS - 1;
    int e = 63 - __builtin_clzll((unsigned long long)v); /* 8.. */
    int shift = e - 7;                                  /* width 2^shift */
    size_t sub = (size_t)(v >> shift) - HIST_SUB;        /* 0..127 */
    return HIST_LINEAR + (size_t)(e - 8) * HIST_SUB + sub;
}

int64_t hist_bucket_low(size_t i)
{
    if (i < HIST_LINEAR)
        return (int64_t)i;
    size_t k = i - HIST_LINEAR;
    int e = (int)(k / HIST_SUB) + 8;
    int64_t sub = (int64_t)(k % HIST_SUB) + HIST_SUB;
    return sub << (e - 7);
}

int64_t hist_bucket_high(size_t i)
{
    if (i < HIST_LINEAR)
        return (int64_t)i;
    int e = (int)((i - HIST_LINEAR) / HIST_SUB) + 8;
    return hist_bucket_low(i) + ((int64_t)1 << (e - 7)) - 1;
}

void hist_add_n(struct hist *h, int64_t v, uint64_t n)
{
    if (!n)
        return;
    if (v < 0)
        v = 0;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max)
        h->max = v;
    if (v >= (int64_t)1 << HIST_MAX_BITS)
        h->clamped += n;
    h->counts[hist_bucket(v)] += n;
    h->count += n;
    h->sum += (double)v * (double)n;
}

void hist_add(struct hist *h, int64_t v)
{
    hist_add_n(h, v, 1);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (!src->count)
        return;
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
    dst->count += src->count;
    dst->clamped += src->clamped;
    dst->sum += src->sum;
}

int64_t hist_percentile(const struct hist *h, double q)
{
    if (!h->count)
        return 0;
    if (q <= 0)
        return h->min;
    if (q >= 100)
        return h->max;
    /* The nearest rank, from 1: ceil(q% of the count), at least 1. */
    double r = ceil(q / 100.0 * (double)h->count - 1e-9);
    uint64_t rank = r < 1 ? 1 : (uint64_t)r;
    uint64_t seen = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            int64_t v = hist_bucket_high(i);
            if (v > h->max)
                v = h->max;
            if (v < h->min)
                v = h->min;
            return v;
        }
    }
    return h->max;
}

double hist_mean(const struct hist *h)
{
    return h->count ? h->sum / (double)h->count : 0;
}
