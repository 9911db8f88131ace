/* What is left of a sweep: an estimate of the time to its end, from its
 * own growth, for the progress line (never recorded in a result). Pure:
 * a function of the measurements so far and the sweep's plan, unit-tested
 * with synthetic steps (tests/unit/test_eta.c).
 *
 * The model: a step's wall time is its rounds, (warm-up + timed) x its
 * median round, plus the rest (starting the step's new servers, probing
 * their footprint, writing the result), which grows with N as it has so
 * far (a line in N fitted to the last steps). The round time's own trend
 * (a power of N fitted to the same steps) says at which N the sweep will
 * cross max_ms, so how many steps are left (or up to max_n); the
 * crossing search then costs a confirmation, the bracket's low end and
 * the refines its local fit places, ETA_REFINES on average (bisections
 * first only while it bisects), within max_probes, each what the search's
 * last ones cost, or before any, near_rounds rounds at about max_ms. */
#ifndef ORBBENCH_ETA_H
#define ORBBENCH_ETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One measurement taken (a step or a probe of the search). */
struct eta_point {
    double n;         /* N measured */
    double median_ms; /* its median round time */
    double seconds;   /* its wall time, from the end of the measurement
                       * before it (or the sweep's start): everything */
};

/* What the next measurement is. */
enum eta_stage {
    ETA_SWEEP,    /* a step of the sweep */
    ETA_CONFIRM,  /* the step over max_ms measured again */
    ETA_CHECK_LO, /* the bracket's low end measured again */
    ETA_BISECT,
    ETA_REFINE,   /* the bracket's ends again, to narrow the interval */
};

/* The sweep's settings and where it stands. */
struct eta_plan {
    double max_ms;
    int64_t max_n;
    /* The sweep's next N after n (stepper_next_n); the estimate clamps it
     * to max_n. */
    int64_t (*next_n)(const void *ctx, int64_t n);
    const void *next_ctx;
    double step_rounds;  /* rounds of a step: warm-up and timed */
    double probe_rounds; /* rounds of a search's measurement */
    double resolution;   /* GROUP.resolution; 0: no search */
    int max_probes;
    double elapsed_s;   /* since the sweep started */
    double max_seconds; /* the sweep's time limit (<= 0: none) */
    enum eta_stage stage;
    int64_t lo, hi;     /* the search's bracket (stages after confirm): the
                         * N its measurements are near */
    int probes;         /* search measurements so far */
};

/* The steps fitted for each trend: the last ones, where the sweep is. */
#define ETA_WINDOW 6
/* The measurements the local fit places after the confirmation and the
 * low end, on average: a search's mean count less those two. Measured:
 * docs/measured/2026-12-02-orbit2-beside-omniorb-and-tao.md, "The
 * crossing search, per run". */
#define ETA_REFINES 1.36

struct eta {
    double left_s;        /* the whole estimate, capped by max_seconds */
    double sweep_left_s;  /* the steps still to come */
    double search_left_s; /* the crossing search */
    int steps_left;
    double probes_left;   /* expected: the confirmation, the low end and
                           * ETA_REFINES (probes_to_come in eta.c) */
    double crossing_n;    /* where the round time's trend crosses max_ms,
                           * or 0 when it does not before max_n */
    double round_slope;   /* d ln(round ms) / d ln N fitted */
};

/* The estimate from the steps and probes taken so far, in order (each
 * array may be empty). Returns false (out zeroed) when nothing is known
 * yet: no step measured. */
bool eta_sweep(const struct eta_point *steps, size_t nsteps,
               const struct eta_point *probes, size_t nprobes,
               const struct eta_plan *p, struct eta *out);

/* The bisections from bracket [lo, hi] to one narrower than resolution x
 * lo (crossing_next_n's rule), if the crossing is at `at`. */
int eta_bisections(int64_t lo, int64_t hi, double resolution, double at);

/* One step of kind objects that made objects: M before and after it and
 * the ns its makeObjects calls took. */
struct eta_make {
    int64_t from, to;
    double ns;
};

/* The ns an object of the step from last->to to `next` will take, from
 * the two steps before it (prev may be NULL; a zeroed step is no step:
 * 0 with no last, the last pace with no prev). The cost per object is
 * taken as a power of M, fitted to the two steps at their middle M (the
 * geometric mean of from and to): an ORB whose activation walks a chain
 * as long as M (TAO's 64-bucket map) costs ten times as much an object
 * a step of x10 later. The power is held within [0, 2]: a cost that fell
 * is taken as the last step's, never less. Steps of fewer than
 * ETA_MAKE_MIN objects say nothing of the growth (their calls' own
 * costs swamp it): then the last step's pace, as is. */
#define ETA_MAKE_MIN 1000
double eta_make_pace(const struct eta_make *prev, const struct eta_make *last,
                     int64_t next);

/* Inside a step that is making its objects: the seconds the rest of it
 * would take at the pace of its own makes so far (`so_far`, from the
 * step's start to the objects made), to `to`; 0 before the step has
 * made ETA_MAKE_MIN objects, whose pace says little. Plain, not
 * projected: the steps before already projected the pace, and this is
 * the step's own measurement of it (JacORB 3.4 made its objects at
 * 90-100 us each in the step to 10^5 and at 317-401 us in the next:
 * docs/measured/2026-12-07-objects-quiet.md). */
double eta_step_rest_s(const struct eta_make *so_far, int64_t to);

#endif
