/* What is left of a sweep: see eta.h. */
#include "core/eta.h"

#include <math.h>
#include <string.h>

/* ln ms = a + b ln N, least squares over pts[0..k-1] (points with N or
 * ms <= 0 left out). False when fewer than two distinct N. */
static bool fit_power(const struct eta_point *pts, size_t k, double *a,
                      double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (pts[i].n <= 0 || pts[i].median_ms <= 0)
            continue;
        double x = log(pts[i].n), y = log(pts[i].median_ms);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        m++;
    }
    if (m < 2)
        return false;
    double den = (double)m * sxx - sx * sx;
    if (den <= 1e-12 * (double)m * sxx)
        return false; /* every N the same */
    *b = ((double)m * sxy - sx * sy) / den;
    *a = (sy - *b * sx) / (double)m;
    return true;
}

/* The round time's trend, ms = exp(a) N^b: the window's fit, its slope
 * kept within [0, 4] (a fit out of bounds is noise over a short range;
 * no fit: slope 1), through the last point when the slope was bounded. */
struct power {
    double a, b;
};

static struct power round_trend(const struct eta_point *w, size_t k)
{
    struct power p;
    const struct eta_point *last = &w[k - 1];
    double slope = 1;
    if (fit_power(w, k, &p.a, &p.b)) {
        if (p.b >= 0 && p.b <= 4)
            return p;
        slope = p.b < 0 ? 0 : 4;
    }
    p.b = slope;
    p.a = log(last->median_ms > 0 ? last->median_ms : 1e-3) -
          slope * log(last->n > 0 ? last->n : 1);
    return p;
}

static double power_at(struct power p, double n)
{
    return exp(p.a + p.b * log(n > 0 ? n : 1));
}

/* A step's wall time beyond its rounds (starting its servers, probing
 * them, writing the result): c0 + c1 N, least squares over the window,
 * c1 >= 0 (a falling fit, or one N: the mean). */
struct line {
    double c0, c1;
};

static double rest_of(const struct eta_point *p, double rounds)
{
    return p->seconds - rounds * p->median_ms / 1000;
}

static struct line rest_trend(const struct eta_point *w, size_t k,
                              double rounds)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < k; i++) {
        mx += w[i].n;
        my += rest_of(&w[i], rounds);
    }
    mx /= (double)k;
    my /= (double)k;
    for (size_t i = 0; i < k; i++) {
        sxx += (w[i].n - mx) * (w[i].n - mx);
        sxy += (w[i].n - mx) * (rest_of(&w[i], rounds) - my);
    }
    struct line l = {my, 0};
    if (sxx > 0 && sxy > 0) {
        l.c1 = sxy / sxx;
        l.c0 = my - l.c1 * mx;
    }
    return l;
}

static double line_at(struct line l, double n)
{
    double v = l.c0 + l.c1 * n;
    return v > 1e-3 ? v : 1e-3;
}

int eta_bisections(int64_t lo, int64_t hi, double resolution, double at)
{
    int count = 0;
    while (count < 64) {
        int64_t width = hi - lo;
        double enough = resolution * (double)lo;
        if (width <= 1 || (double)width <= (enough > 1 ? enough : 1))
            break;
        int64_t mid = lo + width / 2;
        if ((double)mid >= at)
            hi = mid;
        else
            lo = mid;
        count++;
    }
    return count;
}

/* Measurements the search is expected to take from stage p->stage, with
 * `bis` bisections to go (only a search that is bisecting: one whose
 * local fit is not usable yet), within max_probes: the confirmation and
 * the low end, then the refines the local fit places, ETA_REFINES on
 * average; in a refine, what of that average is left, this one at
 * least. */
static double probes_to_come(const struct eta_plan *p, int bis)
{
    double left;
    switch (p->stage) {
    case ETA_SWEEP:
    case ETA_CONFIRM: left = 2 + ETA_REFINES; break;
    case ETA_CHECK_LO: left = 1 + ETA_REFINES; break;
    case ETA_BISECT: left = bis + ETA_REFINES; break;
    case ETA_REFINE:
    default:
        left = 2 + ETA_REFINES - p->probes;
        if (left < 1)
            left = 1;
        break;
    }
    int budget = p->max_probes - p->probes;
    if (budget <= 0)
        return 0;
    return left > budget ? budget : left;
}

bool eta_sweep(const struct eta_point *steps, size_t nsteps,
               const struct eta_point *probes, size_t nprobes,
               const struct eta_plan *p, struct eta *out)
{
    memset(out, 0, sizeof *out);
    if (nsteps == 0)
        return false;
    /* The trends from the last steps; the rest's without the first step
     * when there are others (it also holds the sweep's start-up). */
    size_t k = nsteps < ETA_WINDOW ? nsteps : ETA_WINDOW;
    const struct eta_point *w = steps + nsteps - k;
    size_t skip = nsteps == k && nsteps >= 3 ? 1 : 0;
    struct power trend = round_trend(w, k);
    struct line rest_line = rest_trend(w + skip, k - skip, p->step_rounds);
    const struct eta_point *last = &steps[nsteps - 1];
    out->round_slope = trend.b;

    /* Where the trend crosses max_ms (a step over it already: there). */
    double cross = 0;
    if (last->median_ms > p->max_ms)
        cross = last->n;
    else if (trend.b > 0)
        cross = exp((log(p->max_ms) - trend.a) / trend.b);
    if (!(cross <= (double)p->max_n))
        cross = 0; /* beyond max_n, or no finite crossing */
    out->crossing_n = cross;

    /* The steps still to come, and the bracket the first over makes. */
    int64_t lo = p->lo, hi = p->hi;
    bool over = p->stage != ETA_SWEEP;
    if (p->stage == ETA_SWEEP) {
        int64_t n = (int64_t)last->n;
        for (int i = 0; i < 100000 && n < p->max_n; i++) {
            int64_t next = p->next_n(p->next_ctx, n);
            if (next > p->max_n)
                next = p->max_n;
            if (next <= n)
                break;
            out->sweep_left_s += p->step_rounds *
                                     power_at(trend, (double)next) / 1000 +
                                 line_at(rest_line, (double)next);
            out->steps_left++;
            if (cross > 0 && (double)next >= cross) {
                lo = n;
                hi = next;
                over = true;
                break;
            }
            n = next;
        }
    }

    /* The crossing search, if the sweep has one and gets there. */
    if (over && p->resolution > 0) {
        double at = cross >= (double)lo && cross <= (double)hi
                        ? cross
                        : ((double)lo + (double)hi) / 2;
        double left = probes_to_come(
            p, eta_bisections(lo, hi, p->resolution, at));
        /* A measurement of the search: what the last few taken cost, or
         * before any, its rounds at about max_ms and half a step's rest
         * (it starts or stops fewer servers and probes none). */
        double each = 0;
        size_t from = nprobes > 4 ? nprobes - 4 : 0;
        for (size_t i = from; i < nprobes; i++)
            each += probes[i].seconds;
        if (nprobes > from)
            each /= (double)(nprobes - from);
        else
            each = p->probe_rounds * p->max_ms / 1000 +
                   0.5 * line_at(rest_line, at);
        out->probes_left = left;
        out->search_left_s = each * left;
    }
    out->left_s = out->sweep_left_s + out->search_left_s;
    if (p->max_seconds > 0 && out->left_s > p->max_seconds - p->elapsed_s)
        out->left_s = p->max_seconds - p->elapsed_s;
    if (out->left_s < 0)
        out->left_s = 0;
    return true;
}

static double make_mid(const struct eta_make *s)
{
    return sqrt((double)(s->from > 0 ? s->from : 1) * (double)s->to);
}

double eta_make_pace(const struct eta_make *prev, const struct eta_make *last,
                     int64_t next)
{
    int64_t added = last->to - last->from;
    if (added <= 0)
        return 0;
    double pace = last->ns / (double)added;
    if (!prev || prev->to - prev->from < ETA_MAKE_MIN ||
        added < ETA_MAKE_MIN || prev->ns <= 0 || pace <= 0)
        return pace;
    double prev_pace = prev->ns / (double)(prev->to - prev->from);
    double span = log(make_mid(last) / make_mid(prev));
    if (span <= 0)
        return pace;
    double power = log(pace / prev_pace) / span;
    if (!(power > 0))
        return pace;
    if (power > 2)
        power = 2;
    struct eta_make to_come = {last->to, next, 0};
    return pace * pow(make_mid(&to_come) / make_mid(last), power);
}

double eta_step_rest_s(const struct eta_make *so_far, int64_t to)
{
    int64_t made = so_far->to - so_far->from;
    if (made < ETA_MAKE_MIN || so_far->ns <= 0 || to <= so_far->to)
        return 0;
    return (double)(to - so_far->to) * so_far->ns / (double)made / 1e9;
}
