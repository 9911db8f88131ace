/* The search of kind load for the highest offered rate (calls/s) whose
 * latency stays within its bound: a pure function of the decisions so
 * far, as the sweep's (core/crossing.h), whose bracket and bisection it
 * takes. The rate steps up by a factor from `start` (the same rates in
 * every run of a scenario, so that runs compare at them) until a step is
 * over (its percentile past the bound, or the rate not kept); then the
 * bracket [last under, first over] is bisected until it is within
 * `resolution` of its low end, or the probes run out. The answer is the
 * bracket's low end, the highest rate measured within the bound, and its
 * interval the bracket. */
#ifndef ORBBENCH_OFFERED_H
#define ORBBENCH_OFFERED_H

#include <stdbool.h>
#include <stdint.h>

#include "core/crossing.h"

struct offered_rules {
    int64_t start;      /* the first step's rate, >= 1 */
    double growth;      /* factor a step, > 1 */
    int64_t max_rate;   /* never offer more (the last step: max_rate) */
    double resolution;  /* bisect until hi - lo <= resolution * lo; 0:
                         * stop at the first step over */
    int64_t max_probes; /* the bisection's measurements at most */
};

enum offered_phase { OFFERED_STEP, OFFERED_BISECT, OFFERED_DONE };

enum offered_end {
    OFFERED_GOING,
    OFFERED_MAX_RATE, /* max_rate was within the bound */
    OFFERED_NONE,     /* the first step was already over */
    OFFERED_CROSSED,  /* bracketed: narrow enough, or the probes spent */
};

struct offered_search {
    enum offered_phase phase; /* of the measurement at `rate` */
    int64_t rate;             /* the next measurement's offered rate */
    enum offered_end end;     /* once phase is OFFERED_DONE */
    struct bracket b;         /* lo: highest within (0: none); hi: lowest
                               * over (0: none) */
    int64_t steps, probes;    /* measurements of each phase so far */
};

/* The k-th step's rate (k from 0): start * growth^k rounded, at least
 * one above the step before, at most max_rate. */
int64_t offered_step_rate(const struct offered_rules *r, int64_t k);

/* The most measurements a search takes: the steps up to max_rate and
 * every probe. */
int64_t offered_max_measurements(const struct offered_rules *r);

/* A search whose first measurement is the first step. */
void offered_start(struct offered_search *s, const struct offered_rules *r);

/* The measurement at s->rate was over the bound (or not): decide, and
 * set the next measurement or end the search (s->end). Returns s->end. */
enum offered_end offered_next(struct offered_search *s,
                              const struct offered_rules *r, bool over);

/* "step", "bisect": what a measurement of `phase` is called. */
const char *offered_phase_name(enum offered_phase phase);

#endif
