/* The crossing estimate, the bisection's bracket and the search over
 * them: see crossing.h. */
#include "core/crossing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

int64_t crossing_next_n(const struct bracket *b, double resolution)
{
    int64_t width = b->hi - b->lo;
    double enough = resolution * (double)b->lo;
    if (width <= 1 || (double)width <= (enough > 1 ? enough : 1))
        return 0;
    return b->lo + width / 2;
}

void crossing_decide(struct bracket *b, int64_t n, bool over)
{
    if (over && n < b->hi)
        b->hi = n;
    else if (!over && n > b->lo)
        b->lo = n;
}

/* Log-log interpolation between the bracket's ends: always inside it. */
static void from_bracket(struct crossing_estimate *e, double max_ms,
                         int64_t lo, double lo_ms, int64_t hi, double hi_ms)
{
    double frac = 0.5;
    if (lo_ms > 0 && hi_ms > lo_ms)
        frac = (log(max_ms) - log(lo_ms)) / (log(hi_ms) - log(lo_ms));
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    e->method = CROSSING_BRACKET;
    e->n = exp(log((double)lo) + frac * (log((double)hi) - log((double)lo)));
    e->low = (double)lo;
    e->high = (double)hi;
}

/* The interval [low, high] widened to hold the bracket [lo, hi]. */
static void hold_bracket(struct crossing_estimate *e, double low,
                         double high, int64_t lo, int64_t hi)
{
    e->low = low < (double)lo ? low : (double)lo;
    e->high = high > (double)hi ? high : (double)hi;
}

static bool usable(const struct crossing_point *p, double from, double to)
{
    return p->n >= from && p->n <= to && p->median_ms > 0 && p->rounds > 0;
}

/* One weighted least-squares line through (ln N, ln median) of the
 * points with N in [from, to]. */
struct line {
    size_t used, distinct;
    double sw, xbar, ybar, sxx, slope, ss; /* ss: Σ w r², weights
                                            * rescaled to average 1 */
    double lag1; /* the residuals' lag-1 autocorrelation, in the order
                  * measured */
};

static void fit_line(const struct crossing_point *p, size_t k, double from,
                     double to, struct line *l)
{
    double sw = 0, sx = 0, sy = 0;
    *l = (struct line){0};
    for (size_t i = 0; i < k; i++) {
        if (!usable(&p[i], from, to))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = usable(&p[j], from, to) && p[j].n == p[i].n;
        l->distinct += !seen;
        l->used++;
        sw += p[i].rounds;
        sx += p[i].rounds * log(p[i].n);
        sy += p[i].rounds * log(p[i].median_ms);
    }
    if (l->distinct < 2)
        return;
    double scale = (double)l->used / sw;
    l->sw = (double)l->used;
    l->xbar = sx / sw;
    l->ybar = sy / sw;
    double sxy = 0;
    for (size_t i = 0; i < k; i++) {
        if (!usable(&p[i], from, to))
            continue;
        double w = p[i].rounds * scale, dx = log(p[i].n) - l->xbar;
        l->sxx += w * dx * dx;
        sxy += w * dx * (log(p[i].median_ms) - l->ybar);
    }
    l->slope = sxy / l->sxx;
    double prev = 0, lag = 0, sq = 0;
    bool first = true;
    for (size_t i = 0; i < k; i++) {
        if (!usable(&p[i], from, to))
            continue;
        double r = log(p[i].median_ms) - l->ybar -
                   l->slope * (log(p[i].n) - l->xbar);
        l->ss += p[i].rounds * scale * r * r;
        sq += r * r;
        if (!first)
            lag += prev * r;
        prev = r;
        first = false;
    }
    l->lag1 = sq > 0 ? lag / sq : 0;
}

/* The slope of ln(median) on ln(n), weighted by rounds, over the points
 * in [from, to] (fit_line's). Sets e->slope* (slope_se by the residual
 * scatter); 0 when it is usable, else -1 with e->why set. */
static int fit_slope(const struct crossing_point *p, size_t k, double from,
                     double to, struct crossing_estimate *e)
{
    double nmin = INFINITY, nmax = 0;
    struct line l;
    fit_line(p, k, from, to, &l);
    for (size_t i = 0; i < k; i++) {
        if (!usable(&p[i], from, to))
            continue;
        nmin = p[i].n < nmin ? p[i].n : nmin;
        nmax = p[i].n > nmax ? p[i].n : nmax;
    }
    e->slope_points = l.used;
    e->slope_min_n = l.used ? nmin : 0;
    e->slope_max_n = nmax;
    if (l.distinct < 3) {
        snprintf(e->why, sizeof e->why,
                 "%zu distinct N from %.0f to %.0f: the slope needs 3",
                 l.distinct, from, to);
        return -1;
    }
    int df = (int)l.used - 2;
    double b = l.slope, se = sqrt(l.ss / df / l.sxx);
    e->slope = b;
    e->slope_se = se;
    if (!(b > stats_t975(df) * se)) {
        snprintf(e->why, sizeof e->why,
                 "the fitted slope %.3g is not clearly above 0 (95%% margin "
                 "%.3g)",
                 b, stats_t975(df) * se);
        return -1;
    }
    return 0;
}

void crossing_estimate(const struct crossing_point *p, size_t k,
                       double max_ms, int64_t lo, double lo_ms, int64_t hi,
                       double hi_ms, struct crossing_estimate *out)
{
    memset(out, 0, sizeof *out);
    if (lo <= 0 || hi <= lo)
        return;
    out->found = true;
    if (fit_slope(p, k, (double)hi / CROSSING_SLOPE_SPAN,
                  (double)hi * CROSSING_SPAN, out) != 0) {
        out->slope = 1;
        out->slope_se = 0;
        out->slope_assumed = true;
    }
    double b = out->slope, from = (double)lo / CROSSING_SPAN,
           to = (double)hi * CROSSING_SPAN;
    double sum = 0, sum2 = 0, lever = 0;
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (!p[i].probe || !usable(&p[i], from, to))
            continue;
        double gap = log(max_ms) - log(p[i].median_ms);
        double x = log(p[i].n) + gap / b;
        sum += x;
        sum2 += x * x;
        lever += gap;
        m++;
    }
    out->probes = m;
    if (m < 2) {
        snprintf(out->why + strlen(out->why),
                 sizeof out->why - strlen(out->why), "%s%zu probe%s near "
                 "the bracket: interpolated between its ends",
                 out->why[0] ? "; " : "", m, m == 1 ? "" : "s");
        from_bracket(out, max_ms, lo, lo_ms, hi, hi_ms);
        return;
    }
    double x0 = sum / (double)m;
    double var = (sum2 - (double)m * x0 * x0) / (double)(m - 1);
    var = var > 0 ? var : 0;
    /* d x_i / d b = -gap_i / b²: the slope's error moves every implied
     * crossing by the mean gap over b². */
    double slope_term = (lever / (double)m) / (b * b) * out->slope_se;
    double se = sqrt(var / (double)m + slope_term * slope_term);
    double t = stats_t975((int)m - 1);
    out->method = CROSSING_PROBES;
    out->sd_ln = sqrt(var);
    out->df = (int)m - 1;
    out->n = exp(x0);
    out->low = exp(x0 - t * se);
    out->high = exp(x0 + t * se);
    /* The bracket's ends were measured (lo under max_ms, hi over), so the
     * interval always holds them: it is consistent with what the search
     * saw. The probes' mean is the better estimate near them (it pools
     * every probe; docs/measured/2026-11-30-crossing-constants.md), so
     * it stands even a little
     * outside a bracket narrower than the round-time noise, and `why`
     * says so; its own interval holds it by construction. Far outside
     * (a slope bent by drift, too uncertain for its interval to miss
     * anything) the point goes back to what was measured, the
     * interpolation between the bracket's ends. */
    double probe_n = out->n, low = out->low, high = out->high;
    bool far = probe_n < (double)lo / CROSSING_OUTSIDE ||
               probe_n > (double)hi * CROSSING_OUTSIDE;
    out->outside = probe_n < (double)lo || probe_n > (double)hi;
    if (!far) {
        if (out->outside)
            snprintf(out->why + strlen(out->why),
                     sizeof out->why - strlen(out->why),
                     "%sthe probes' mean %.0f lay %.1f%% outside the measured "
                     "bracket %lld-%lld (its two decisions within the "
                     "rounds' noise of max_ms): the interval holds both",
                     out->why[0] ? "; " : "", probe_n,
                     100.0 * (probe_n < (double)lo
                                  ? (double)lo / probe_n - 1
                                  : probe_n / (double)hi - 1),
                     (long long)lo, (long long)hi);
        hold_bracket(out, low, high, lo, hi);
        return;
    }
    snprintf(out->why + strlen(out->why), sizeof out->why - strlen(out->why),
             "%sthe probes' mean %.0f lay more than %.0f%% outside the "
             "measured bracket %lld-%lld: interpolated between its ends",
             out->why[0] ? "; " : "", probe_n, (CROSSING_OUTSIDE - 1) * 100,
             (long long)lo, (long long)hi);
    from_bracket(out, max_ms, lo, lo_ms, hi, hi_ms);
    out->outside = false;
    hold_bracket(out, low, high, lo, hi);
}

void crossing_local_fit(const struct crossing_point *p, size_t k,
                        double max_ms, double guess, struct crossing_fit *out)
{
    memset(out, 0, sizeof *out);
    double c = guess, y = log(max_ms);
    struct line l;
    if (!(c > 0) || !(max_ms > 0)) {
        snprintf(out->why, sizeof out->why, "no crossing to centre it on");
        return;
    }
    for (int it = 0;; it++) {
        out->from_n = c / CROSSING_FIT_SPAN;
        out->to_n = c * CROSSING_FIT_SPAN;
        out->iterations = it;
        fit_line(p, k, out->from_n, out->to_n, &l);
        out->points = l.used;
        out->distinct = l.distinct;
        if (l.used < 4 || l.distinct < 3) {
            snprintf(out->why, sizeof out->why,
                     "%zu measurements at %zu distinct N from %.0f to %.0f: "
                     "the local fit needs 4 at 3",
                     l.used, l.distinct, out->from_n, out->to_n);
            return;
        }
        /* Re-centre on the line's own crossing: the same measurements give
         * the same line, which is then the answer. */
        double next = exp(l.xbar + (y - l.ybar) / l.slope);
        if (!(l.slope > 0) || !isfinite(next) || next == c || it == 8)
            break;
        c = next;
    }
    out->df = (int)l.used - 2;
    /* The host drifts: measurements taken one after the other share part
     * of their error, which the residuals' scatter alone would count as
     * independent. Their lag-1 autocorrelation inflates the variance of
     * the line's level as for the mean of an AR(1) series, (1 + r) /
     * (1 - r), r within [0, 0.8]; a line's residuals read about 2/m low
     * (m measurements: -0.21 for independent ones at m = 10,
     * tests/unit/test_search.c), hence r = lag1 + 2/m. The slope's
     * variance is not inflated: that made the Fieller interval unbounded
     * in practice where the slope was loose. What either choice does to
     * coverage: docs/measured/2026-11-30-crossing-constants.md. */
    double r1 = l.lag1 + 2.0 / (double)l.used;
    r1 = r1 < 0 ? 0 : r1 > 0.8 ? 0.8 : r1;
    out->lag1 = l.lag1;
    out->inflation = (1 + r1) / (1 - r1);
    double s2 = l.ss / out->df, t = stats_t975(out->df);
    double v0 = s2 * out->inflation / l.sw, v1 = s2 / l.sxx;
    out->slope = l.slope;
    out->slope_se = sqrt(v1);
    out->sd_ln = sqrt(s2);
    /* Fieller: the d = ln N - xbar where the line's 95% band holds
     * ln max_ms, (g - b d)² <= t² (v0 + d² v1), g = y - ybar, v0 and v1
     * the variances of the level and the slope. A bounded interval needs
     * b² > t² v1: a slope clearly above 0. */
    double g = y - l.ybar, b = l.slope, t2 = t * t;
    double a = b * b - t2 * v1;
    if (!(b > 0) || !(a > 0)) {
        snprintf(out->why, sizeof out->why,
                 "the local slope %.3g is not clearly above 0 (95%% margin "
                 "%.3g): the interval would be unbounded",
                 b, t * out->slope_se);
        return;
    }
    double disc = g * g * t2 * v1 + a * t2 * v0;
    double root = sqrt(disc > 0 ? disc : 0);
    out->n = exp(l.xbar + g / b);
    out->low = exp(l.xbar + (g * b - root) / a);
    out->high = exp(l.xbar + (g * b + root) / a);
    out->usable = true;
}

void crossing_estimate_fit(const struct crossing_point *p, size_t k,
                           double max_ms, int64_t lo, double lo_ms,
                           int64_t hi, double hi_ms,
                           struct crossing_estimate *out)
{
    crossing_estimate(p, k, max_ms, lo, lo_ms, hi, hi_ms, out);
    if (!out->found)
        return;
    out->reference = (struct crossing_reference){out->method, out->n,
                                                 out->low, out->high};
    size_t used = strlen(out->why);
    crossing_local_fit(p, k, max_ms, out->n, &out->fit);
    const struct crossing_fit *f = &out->fit;
    if (!f->usable) {
        snprintf(out->why + used, sizeof out->why - used,
                 "%sno local fit (%s)", used ? "; " : "", f->why);
        return;
    }
    /* Far outside what was measured (both ends decided on their pooled
     * rounds): a line bent by drift; the probes' estimate stands. */
    if (f->n < (double)lo / CROSSING_OUTSIDE ||
        f->n > (double)hi * CROSSING_OUTSIDE) {
        snprintf(out->why + used, sizeof out->why - used,
                 "%sthe local fit's crossing %.0f lay more than %.0f%% "
                 "outside the measured bracket %lld-%lld: not used",
                 used ? "; " : "", f->n, (CROSSING_OUTSIDE - 1) * 100,
                 (long long)lo, (long long)hi);
        return;
    }
    out->method = CROSSING_FIT;
    out->n = f->n;
    out->low = f->low;
    out->high = f->high;
    out->outside = f->n < (double)lo || f->n > (double)hi;
    /* The notes were the probes' estimate's; the fit's own, if any. */
    out->why[0] = '\0';
    if (out->outside)
        snprintf(out->why, sizeof out->why,
                 "the local fit's crossing %.0f lay %.1f%% outside the "
                 "measured bracket %lld-%lld (its two decisions within the "
                 "rounds' noise of max_ms)",
                 f->n,
                 100.0 * (f->n < (double)lo ? (double)lo / f->n - 1
                                            : f->n / (double)hi - 1),
                 (long long)lo, (long long)hi);
}

double crossing_half_width(const struct crossing_estimate *e)
{
    if (!e->found || !(e->n > 0))
        return 0;
    double below = e->n - e->low, above = e->high - e->n;
    return (below > above ? below : above) / e->n;
}

/* ---- the search -------------------------------------------------------- */

void crossing_search_start(struct crossing_search *s, int64_t start)
{
    *s = (struct crossing_search){.phase = CROSSING_SWEEPING,
                                  .target = start};
}

const char *crossing_phase_name(enum crossing_phase phase)
{
    static const char *const names[] = {
        [CROSSING_SWEEPING] = "sweep",    [CROSSING_CONFIRMING] = "confirm",
        [CROSSING_SEEDING] = "seed",
        [CROSSING_CHECKING_LO] = "bracket", [CROSSING_BISECTING] = "bisect",
        [CROSSING_REFINING] = "refine",   [CROSSING_DONE] = "done"};
    return names[phase];
}

double crossing_pooled_ms(const struct crossing_measure *m, size_t k,
                          int64_t n, size_t *rounds)
{
    struct samples all = {0};
    for (size_t i = 0; i < k; i++)
        if (m[i].n == n)
            for (size_t j = 0; j < m[i].len; j++)
                samples_add(&all, m[i].rounds_ns[j]);
    struct summary sum;
    stats_summarize(&all, 1e6, &sum);
    samples_free(&all);
    *rounds = sum.count;
    return sum.median;
}

int crossing_estimate_of(const struct crossing_measure *m, size_t k,
                         double max_ms, const struct bracket *b,
                         struct crossing_estimate *out)
{
    struct crossing_point *pts = calloc(k ? k : 1, sizeof *pts);
    size_t count;
    if (!pts) {
        memset(out, 0, sizeof *out);
        return -ENOMEM;
    }
    for (size_t i = 0; i < k; i++)
        pts[i] = (struct crossing_point){(double)m[i].n, m[i].median_ms,
                                         (double)m[i].len, m[i].probe};
    double lo_ms = b->lo > 0 ? crossing_pooled_ms(m, k, b->lo, &count) : 0;
    double hi_ms = crossing_pooled_ms(m, k, b->hi, &count);
    crossing_estimate_fit(pts, k, max_ms, b->lo, lo_ms, b->hi, hi_ms, out);
    free(pts);
    if (out->found && out->n < 1) {
        /* N counts servers or connections, and N = lo >= 1 was under
         * max_ms: an estimate below one (a fit a little past the bracket,
         * which may stand) is clamped to one, its interval too. */
        size_t used = strlen(out->why);
        snprintf(out->why + used, sizeof out->why - used,
                 "%sthe estimate %.3f lies below N = 1, which was under "
                 "max_ms: 1 is used", used ? "; " : "", out->n);
        out->n = 1;
        if (out->low < 1)
            out->low = 1;
        if (out->high < out->n)
            out->high = out->n;
    }
    return 0;
}

double crossing_target_half_width(double resolution)
{
    return 2 * resolution;
}

/* Rounds measured at n so far. */
static size_t rounds_at(const struct crossing_measure *m, size_t k,
                        int64_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < k; i++)
        if (m[i].n == n)
            count += m[i].len;
    return count;
}

/* The sweep step before `n` (steps grow: the last one below the first
 * step at or above n), or 0 when n was the first. */
static int64_t step_before(const struct crossing_measure *m, size_t k,
                           int64_t n)
{
    int64_t prev = 0;
    for (size_t i = 0; i < k; i++) {
        if (m[i].probe)
            continue;
        if (m[i].n >= n)
            break;
        prev = m[i].n;
    }
    return prev;
}

/* The smallest N above n measured so far whose pooled rounds are over
 * max_ms, or 0. */
static int64_t over_above(const struct crossing_measure *m, size_t k,
                          int64_t n, double max_ms)
{
    int64_t best = 0;
    size_t count;
    for (size_t i = 0; i < k; i++) {
        int64_t at = m[i].n;
        if (at > n && (!best || at < best) &&
            crossing_pooled_ms(m, k, at, &count) > max_ms)
            best = at;
    }
    return best;
}

static enum crossing_end end(struct crossing_search *s,
                             enum crossing_end why)
{
    s->phase = CROSSING_DONE;
    s->end = why;
    return why;
}

/* A step or a confirmation at n came out under (at ms): the sweep goes
 * on, up to max_n. */
static enum crossing_end sweep_on(struct crossing_search *s,
                                  const struct crossing_rules *rules,
                                  int64_t n, double ms)
{
    s->held = n;
    s->decided_ms = ms;
    s->phase = CROSSING_SWEEPING;
    if (n >= rules->max_n)
        return end(s, CROSSING_MAX_N);
    int64_t next = rules->next_n(rules->next_ctx, n);
    s->target = next > rules->max_n ? rules->max_n : next;
    int64_t p = llround(rules->prior_n);
    /* The low seed's N: a step at or above it would measure again what
     * the seeds measure (a step 1% under the prior, then the prior). */
    int64_t lo = llround(rules->prior_n * (1 - rules->prior_spread));
    if (rules->prior_n > 0 && rules->resolution > 0 && rules->timed &&
        s->seeds == 0 && n < p && p <= rules->max_n &&
        (next >= p || (next >= lo && lo > n))) {
        /* A warm start: the next step would reach the prior, or the
         * prior's spread below it; measure the prior first (a probe of
         * near_rounds) instead. */
        s->phase = CROSSING_SEEDING;
        s->target = p;
    }
    return CROSSING_GOING;
}

double crossing_prior_spread(double p, double half_width,
                             const struct crossing_rules *rules)
{
    double want = crossing_target_half_width(rules->resolution);
    double step = p >= 1 ? (double)(rules->next_n(rules->next_ctx,
                                                  llround(p)) -
                                     llround(p)) / p
                         : want;
    double w = half_width > 0 ? half_width : want;
    if (w > step)
        w = step;
    return w < want ? want : w;
}

/* A seed at n came out over or under (the search's seeding phase): the
 * next seed, the bracket, or the sweep on. */
static enum crossing_end seed(struct crossing_search *s,
                              const struct crossing_rules *rules, int64_t n,
                              bool over, double pooled)
{
    int64_t p = llround(rules->prior_n);
    if (s->seeds++ == 0) {
        if (over) {
            int64_t lo = llround(rules->prior_n * (1 - rules->prior_spread));
            if (lo > s->held && lo < n) {
                s->target = lo;
                return CROSSING_GOING;
            }
            s->b = (struct bracket){s->held, n};
        } else {
            int64_t hi = llround(rules->prior_n * (1 + rules->prior_spread));
            if (hi > rules->max_n)
                hi = rules->max_n;
            if (hi <= n)
                return sweep_on(s, rules, n, pooled);
            s->held = n;
            s->target = hi;
            return CROSSING_GOING;
        }
    } else if (n < p) {
        /* Below the prior, which came out over. */
        s->b = over ? (struct bracket){s->held, n} : (struct bracket){n, p};
    } else if (over) {
        s->b = (struct bracket){p, n}; /* above the prior, under */
    } else {
        /* Both under: the prior was low. Sweep on from here. */
        return sweep_on(s, rules, n, pooled);
    }
    s->seed_bracketed = true;
    return CROSSING_GOING;
}

/* The local fit's estimate e seen as the probes' (its reference): what
 * the rule without the fit decides on. */
static void as_probes(struct crossing_estimate *e)
{
    if (strcmp(e->method, CROSSING_FIT) == 0) {
        e->method = e->reference.method;
        e->n = e->reference.n;
        e->low = e->reference.low;
        e->high = e->reference.high;
    }
}

/* N nearest x within the bracket [lo, hi]. */
static int64_t within(const struct bracket *b, double x)
{
    double lo = (double)b->lo, hi = (double)b->hi;
    return llround(x < lo ? lo : x > hi ? hi : x);
}

/* The next probe where the local fit's interval e shrinks most: in turn
 * at its crossing, its interval's low end and its high end, each within
 * the bracket (an end outside it is where the bracket's own end, decided
 * on its rounds, is measured again). A probe at the crossing adds most
 * where the line is least known; one at each end tests the bracket's
 * sides close to the crossing, so the measured bracket narrows with the
 * interval. */
static enum crossing_end place(struct crossing_search *s,
                               const struct crossing_estimate *e)
{
    static const int turn[] = {0, -1, 0, 1};
    int side = turn[s->refines % 4];
    s->refines++;
    s->phase = CROSSING_REFINING;
    s->target = within(&s->b, side < 0 ? e->low : side > 0 ? e->high : e->n);
    return CROSSING_GOING;
}

/* The next measurement of a search whose bracket is s->b: the low end
 * again while it was measured with fewer rounds than the rest (it may have
 * been a lucky under); then, with a local fit (crossing_estimate_fit), a
 * probe where it places one, until its interval is within the target or
 * the budget is spent. Without one (or with rules->bisect), the
 * bracket's midpoint; or, the bracket narrow enough but the crossing's
 * interval not, the bracket's ends again in turn; or the end. */
static enum crossing_end search_next(struct crossing_search *s,
                                     const struct crossing_rules *rules,
                                     const struct crossing_measure *m,
                                     size_t k)
{
    bool budget = s->probes < rules->max_probes;
    if (budget && s->b.lo > 0 &&
        rounds_at(m, k, s->b.lo) < (size_t)rules->near_rounds) {
        s->phase = CROSSING_CHECKING_LO;
        s->target = s->b.lo;
        return CROSSING_GOING;
    }
    struct crossing_estimate e;
    double want = crossing_target_half_width(rules->resolution);
    bool have = s->b.lo > 0 && rules->resolution > 0 &&
                crossing_estimate_of(m, k, rules->max_ms, &s->b, &e) == 0 &&
                e.found;
    if (have && !rules->bisect && strcmp(e.method, CROSSING_FIT) == 0) {
        if (budget && crossing_half_width(&e) > want)
            return place(s, &e);
        s->held = s->b.lo;
        return end(s, CROSSING_NARROWED);
    }
    if (have)
        as_probes(&e);
    int64_t mid = crossing_next_n(&s->b, rules->resolution);
    if (budget && mid) {
        s->phase = CROSSING_BISECTING;
        s->target = mid;
        return CROSSING_GOING;
    }
    if (budget && have && crossing_half_width(&e) > want) {
        /* Narrow enough a bracket, but is the crossing known as well?
         * Its interval wider than the target: measure the bracket's ends
         * again, in turn from the one nearer the estimate (each pools its
         * rounds and adds a probe near the crossing). */
        bool lo_first = e.n - (double)s->b.lo <= (double)s->b.hi - e.n;
        bool lo = (s->refines % 2 == 0) == lo_first;
        s->refines++;
        s->phase = CROSSING_REFINING;
        s->target = lo ? s->b.lo : s->b.hi;
        return CROSSING_GOING;
    }
    s->held = s->b.lo;
    return end(s, CROSSING_NARROWED);
}

enum crossing_end crossing_search_next(struct crossing_search *s,
                                       const struct crossing_rules *rules,
                                       const struct crossing_measure *m,
                                       size_t k)
{
    int64_t n = s->target;
    size_t count;
    double pooled = 0;
    bool over = false;
    if (s->phase == CROSSING_DONE)
        return s->end;
    if (s->phase != CROSSING_SWEEPING) {
        /* A probe decides on every round measured at its N so far. */
        s->probes++;
        pooled = crossing_pooled_ms(m, k, n, &count);
        over = pooled > rules->max_ms;
        s->decided_ms = pooled;
    }
    switch (s->phase) {
    case CROSSING_SWEEPING: {
        /* Every round of the step (a step of several blocks: all of
         * them), pooled. */
        double median = k ? crossing_pooled_ms(m, k, n, &count) : 0;
        if (!rules->timed || median <= rules->max_ms)
            return sweep_on(s, rules, n, median);
        s->decided_ms = median;
        if (rules->resolution <= 0)
            return end(s, CROSSING_OVER);
        /* One set of rounds does not decide the stop: measure again and
         * decide on every round taken at this N. */
        s->phase = CROSSING_CONFIRMING;
        return CROSSING_GOING;
    }
    case CROSSING_CONFIRMING:
        if (!over)
            return sweep_on(s, rules, n, pooled);
        s->b = (struct bracket){s->held, n};
        break;
    case CROSSING_SEEDING:
        if (seed(s, rules, n, over, pooled) != CROSSING_GOING ||
            !s->seed_bracketed)
            return s->phase == CROSSING_DONE ? s->end : CROSSING_GOING;
        break;
    case CROSSING_CHECKING_LO:
        if (over) {
            /* It was over after all: step back to the step before it. */
            s->b.hi = s->b.lo;
            s->b.lo = step_before(m, k, s->b.lo);
        }
        /* Under: now measured with near_rounds, so bisection follows. */
        break;
    case CROSSING_BISECTING:
        crossing_decide(&s->b, n, over);
        break;
    case CROSSING_REFINING: {
        /* Inside the bracket, a decision as in a bisection. An end
         * measured again decides on all its rounds now: an end that
         * changed sides moves the bracket (and the search goes on from
         * there). */
        int64_t above;
        if (n > s->b.lo && n < s->b.hi) {
            crossing_decide(&s->b, n, over); /* placed inside */
        } else if (n == s->b.lo && over) {
            s->b.hi = s->b.lo;
            s->b.lo = step_before(m, k, s->b.lo);
        } else if (n == s->b.hi && !over) {
            if (!(above = over_above(m, k, n, rules->max_ms)))
                return sweep_on(s, rules, n, pooled);
            s->b = (struct bracket){n, above};
        }
        break;
    }
    case CROSSING_DONE:
        break;
    }
    return search_next(s, rules, m, k);
}

bool crossing_search_stop(struct crossing_search *s)
{
    bool bracketed = s->phase == CROSSING_CHECKING_LO ||
                     s->phase == CROSSING_BISECTING ||
                     s->phase == CROSSING_REFINING;
    if (bracketed)
        s->held = s->b.lo;
    s->phase = CROSSING_DONE;
    return bracketed;
}
