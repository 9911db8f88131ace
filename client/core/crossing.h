/* The crossing: where a sweep's median round time passes max_ms, as a
 * continuous estimate with an interval, and the search that finds it.
 * Pure functions over measurements (no processes, no clock), so the rules
 * can be unit tested: the bracket a bisection narrows, the estimate from
 * the measurements near it, and the search's next N from what it has
 * measured so far. */
#ifndef ORBBENCH_CROSSING_H
#define ORBBENCH_CROSSING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a bisection knows: lo was decided under max_ms (0: no N was),
 * hi over. */
struct bracket {
    int64_t lo;
    int64_t hi;
};

/* The next N to measure between lo and hi, or 0 when the bracket is
 * narrow enough: hi - lo <= max(1, resolution * lo), or no integer lies
 * between them. The midpoint, rounded down. */
int64_t crossing_next_n(const struct bracket *b, double resolution);

/* Record a decision at n (lo < n < hi): over moves hi, under moves lo. */
void crossing_decide(struct bracket *b, int64_t n, bool over);

/* One measurement: n servers, the median of its timed rounds, how many
 * rounds that median summarises, and whether the crossing search took it
 * (a probe) or the sweep did (a step). */
struct crossing_point {
    double n;
    double median_ms;
    double rounds;
    bool probe;
};

#define CROSSING_PROBES "probe-mean"
#define CROSSING_BRACKET "bracket"
#define CROSSING_FIT "local-fit"

/* The local fit: a weighted least-squares line through (ln N, ln median)
 * of every measurement near the crossing, steps and probes alike. */
struct crossing_fit {
    bool usable;        /* false: why says why; the rest may be partial */
    double n;           /* where the line meets ln max_ms */
    double low, high;   /* its 95% Fieller interval */
    double slope, slope_se;
    double sd_ln;       /* the residual scatter of ln median (ms) of a
                         * measurement of average weight */
    int df;             /* points - 2 */
    double lag1;        /* the residuals' lag-1 autocorrelation, in the
                         * order measured */
    double inflation;   /* of the level's variance for it: (1 + r) /
                         * (1 - r), r = lag1 + 2 / points within
                         * [0, 0.8] */
    size_t points, distinct;
    double from_n, to_n; /* the window: [n / CROSSING_FIT_SPAN,
                          * n * CROSSING_FIT_SPAN] of the fit's own n */
    int iterations;     /* window re-centred this many times */
    char why[160];
};

/* The probes' estimate (crossing_estimate's own answer) when the local
 * fit replaced it, for reference. */
struct crossing_reference {
    const char *method; /* CROSSING_PROBES or CROSSING_BRACKET */
    double n, low, high;
};

struct crossing_estimate {
    bool found;         /* false: no N was under max_ms */
    const char *method; /* CROSSING_FIT (crossing_estimate_fit only),
                         * CROSSING_PROBES or CROSSING_BRACKET */
    double n;           /* the crossing */
    double low, high;   /* its 95% interval */
    /* the local slope d ln(round ms) / d ln(N) */
    double slope;
    double slope_se;
    bool slope_assumed; /* no usable fit: 1 (round time ∝ N) was used */
    size_t slope_points;
    double slope_min_n, slope_max_n;
    /* the probes' implied crossings */
    size_t probes;
    double sd_ln;       /* their standard deviation, in ln N */
    int df;             /* probes - 1 */
    bool outside;       /* the estimate (the probes' mean) lies outside
                         * [lo, hi] */
    char why[320];      /* why the slope was assumed or the bracket used */
    /* crossing_estimate_fit only: the local fit, and the probes' estimate
     * (what crossing_estimate gives) as reference */
    struct crossing_fit fit;
    struct crossing_reference reference;
};

/* Where the slope is fitted: [hi / CROSSING_SLOPE_SPAN, hi * CROSSING_SPAN];
 * which probes imply the crossing: [lo / CROSSING_SPAN, hi * CROSSING_SPAN]. */
#define CROSSING_SLOPE_SPAN 2.0
#define CROSSING_SPAN 1.2

/* How far outside the measured bracket (a factor) the probes' mean may
 * lie when its interval still holds the bracket: within it, the scatter
 * of a mean over drifting seconds, the mean stands; past it, a slope
 * bent by drift. Measured: docs/measured/2026-11-30-crossing-constants.md
 */
#define CROSSING_OUTSIDE 1.1

/* Estimate the crossing of max_ms from the measurements (any order, an N
 * may repeat) and the final bracket [lo, hi], whose pooled medians are
 * lo_ms (<= max_ms) and hi_ms (> max_ms).
 *
 * The local slope b is a least-squares line through (ln N, ln median) of
 * every measurement with N in [hi/2, hi*1.2] (weights: rounds): a range
 * wide enough to fix the slope, which the bisection's closely spaced
 * probes cannot. Each probe near the bracket then implies a crossing,
 * ln N_i + (ln max_ms - ln median_i) / b; crossing_n is their mean (in
 * ln N) and its 95% interval the t-interval of that mean (df = probes - 1)
 * with the slope's standard error added by the delta method. The scatter
 * of probes taken seconds apart is what widens it: this host's speed
 * drifts. When the slope is not clearly above 0 (or fewer than 3 distinct
 * N), b = 1 is assumed (round time proportional to N) and `why` says so.
 * With fewer than 2 probes near the bracket the crossing is interpolated
 * between lo and hi in log-log space, interval [lo, hi]. The measured
 * bracket bounds the rest: a probes' interval that misses [lo, hi] is
 * widened to hold it; a probes' mean more than CROSSING_OUTSIDE outside
 * it (a slope bent by drift) gives way to the bracket's interpolation,
 * the interval the probes' widened to hold [lo, hi]; `why` says which.
 * lo == 0: not found. */
void crossing_estimate(const struct crossing_point *p, size_t k,
                       double max_ms, int64_t lo, double lo_ms, int64_t hi,
                       double hi_ms, struct crossing_estimate *out);

/* The local fit's window: the measurements with N within a factor
 * CROSSING_FIT_SPAN of the fit's own crossing. Local, because the curve
 * is no power law over wide ranges; wide enough that a ×1.1 sweep puts 4
 * steps below the crossing in it, which fix the slope that the closely
 * spaced probes cannot. Measured:
 * docs/measured/2026-11-30-crossing-constants.md */
#define CROSSING_FIT_SPAN 1.5

/* The local fit of ln(median ms) on ln N over p[0..k-1] (weights:
 * rounds), in a window re-centred on its own crossing from `guess` until
 * it holds the same measurements (at most 8 times). The crossing is where
 * the line meets ln max_ms; its 95% interval the Fieller interval of that
 * ratio with the residual scatter (t with points - 2 df), so the drift of
 * this host between measurements widens it, and the level's variance is
 * inflated for the residuals' serial correlation (out->inflation): p must
 * be in the order measured. Unusable (out->usable false,
 * why says why) with fewer than 4 measurements or 3 distinct N in the
 * window, or a slope not clearly above 0 (the interval would be
 * unbounded). */
void crossing_local_fit(const struct crossing_point *p, size_t k,
                        double max_ms, double guess,
                        struct crossing_fit *out);

/* crossing_estimate, then the local fit from its answer (p in the order
 * measured, as crossing_local_fit reads it): when the fit is
 * usable and its crossing lies within CROSSING_OUTSIDE of the bracket
 * [lo, hi], it is the answer (method CROSSING_FIT, its interval as it
 * is: not widened to hold the bracket, whose two ends are single
 * decisions, noisier than the fit of every measurement near them);
 * else crossing_estimate's, and why says why. out->reference is
 * crossing_estimate's answer either way. */
void crossing_estimate_fit(const struct crossing_point *p, size_t k,
                           double max_ms, int64_t lo, double lo_ms,
                           int64_t hi, double hi_ms,
                           struct crossing_estimate *out);

/* The interval's larger half-width as a fraction of the estimate (0.04:
 * ±4%); 0 when not found. */
double crossing_half_width(const struct crossing_estimate *e);

/* ---- the search ---------------------------------------------------------
 * What the stepper (kinds/stepper.h, the sweep's driver) measures next,
 * as a function of what it has measured: the driver sets N to
 * s->target, takes the measurement s->phase asks for, appends it and
 * calls crossing_search_next, until that says the search is over. */

/* One measurement as the search reads it: N, its timed rounds in the
 * order taken (ns: the caller owns them), their median, and whether the
 * search took it (a probe) or the sweep did (a step). */
struct crossing_measure {
    int64_t n;
    int64_t *rounds_ns;
    size_t len;
    double median_ms;
    bool probe;
};

/* What the next measurement is for. */
enum crossing_phase {
    CROSSING_SWEEPING,    /* a step: N grows by the stepping rule */
    CROSSING_CONFIRMING,  /* the first step over max_ms, measured again */
    CROSSING_SEEDING,     /* a warm start: at the prior crossing, then at
                           * its interval's end on the side it came out */
    CROSSING_CHECKING_LO, /* the bracket's low end again, with near_rounds
                           * (a step's rounds may have been a lucky under) */
    CROSSING_BISECTING,   /* the bracket's midpoint */
    CROSSING_REFINING,    /* to narrow the crossing's interval: where the
                           * local fit places it (its crossing, its
                           * interval's ends, within the bracket), or
                           * without a fit a narrow bracket's end again */
    CROSSING_DONE,
};

/* How the search ended (CROSSING_GOING: it has not). */
enum crossing_end {
    CROSSING_GOING,
    CROSSING_MAX_N,    /* a step at max_n was within max_ms */
    CROSSING_OVER,     /* a step was over and resolution 0: no search */
    CROSSING_NARROWED, /* the bracket is narrow enough, or the budget ran
                        * out (crossing_next_n still gives an N) */
};

/* The settings the search follows (the driver's: kinds/stepper_grid.h,
 * stepper_rules). */
struct crossing_rules {
    double max_ms;
    int64_t max_n;
    double resolution;   /* 0: stop at the first step over */
    int64_t near_rounds; /* timed rounds of each of its measurements */
    int64_t max_probes;  /* its measurements at most */
    bool timed;          /* false: idle servers, steps without rounds,
                          * never over */
    /* true: the rule before the local fit, kept to compare against
     * (tests/unit/test_search.c): bisect the bracket until it is narrow,
     * then measure its ends again while the probes' estimate
     * (crossing_estimate) is wider than the target. */
    bool bisect;
    /* The stepping rule: the next N after n (unclamped). */
    int64_t (*next_n)(const void *ctx, int64_t n);
    const void *next_ctx;
    /* A warm start: a crossing known before (0: none), and how far from
     * it, as a fraction, the second seed goes (crossing_prior_spread). */
    double prior_n;
    double prior_spread;
};

/* How far from a prior crossing p the second seed goes: the prior's
 * interval half-width `half_width` (a fraction; 0: the target), within
 * [the target 2 × resolution, one step of the sweep at p] — wider than a
 * step would put it no nearer than the sweep's own next step. */
double crossing_prior_spread(double p, double half_width,
                             const struct crossing_rules *rules);

/* Where a search stands. */
struct crossing_search {
    enum crossing_phase phase; /* of the measurement at target */
    int64_t target;            /* N of the next measurement */
    enum crossing_end end;     /* once phase is CROSSING_DONE */
    struct bracket b;          /* after the confirmation */
    int64_t held;       /* the largest N decided within max_ms (0: none) */
    int probes;         /* measurements of the search so far */
    int refines;        /* of which placed to narrow the interval */
    double decided_ms;  /* the round time the last decision read: the
                         * step's median, or the pooled one at its N */
    /* A warm start: the seeds measured (0, 1 or 2: then it is over), and
     * whether they made the bracket (both sides of the crossing within
     * the prior's spread, or the step under and a seed over). */
    int seeds;
    bool seed_bracketed;
};

/* A search that starts with a step at `start`. With rules->prior_n (a
 * warm start), when the next step would reach the prior p (and p is
 * within max_n), the search measures p instead (a probe, "seed"): over,
 * then p × (1 - spread) (if above the last step under); under, then
 * p × (1 + spread). Two seeds either side of the crossing, or the last
 * step under and a seed over, are the bracket, and the search goes on
 * from there as after a confirmation; both seeds under (the prior was
 * low) and the sweep goes on from the second, stepping as before. A
 * prior above the crossing is never reached: the sweep goes over first
 * and searches as without one. The estimate reads the measurements only,
 * never the prior: a repeat stays independent of the one before. */
void crossing_search_start(struct crossing_search *s, int64_t start);

/* The measurement of s->target asked for by s->phase has been taken and
 * is among m[0..k-1] (every measurement so far, in order): decide on it
 * (a step on its own median, a probe on every round pooled at its N) and
 * set the next measurement, or end the search (phase CROSSING_DONE,
 * s->end says why; s->held is then the answer). Returns s->end. */
enum crossing_end crossing_search_next(struct crossing_search *s,
                                       const struct crossing_rules *rules,
                                       const struct crossing_measure *m,
                                       size_t k);

/* The run stopped the search early (a failure, a limit, an interrupt):
 * phase CROSSING_DONE, and when it held a bracket, s->held becomes its
 * low end. True when it did (the crossing can be estimated from it). */
bool crossing_search_stop(struct crossing_search *s);

/* What a measurement of `phase` is called in the result and the progress
 * line: "sweep", "confirm", "bracket", "bisect", "refine". */
const char *crossing_phase_name(enum crossing_phase phase);

/* Every timed round at n in m[0..k-1], pooled: their median (ms), and
 * their number in *rounds. */
double crossing_pooled_ms(const struct crossing_measure *m, size_t k,
                          int64_t n, size_t *rounds);

/* crossing_estimate_fit over m[0..k-1] and the bracket b, its ends'
 * medians pooled. 0, or -ENOMEM (out->found false). */
int crossing_estimate_of(const struct crossing_measure *m, size_t k,
                         double max_ms, const struct bracket *b,
                         struct crossing_estimate *out);

/* How wide the crossing's interval may be, as crossing_half_width, before
 * the search measures more: 2 × resolution. */
double crossing_target_half_width(double resolution);

#endif
