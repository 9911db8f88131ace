/* Sample arrays and summaries: see stats.h. */
#include "stats.h"

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
