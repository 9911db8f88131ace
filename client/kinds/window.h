/* The timed-window harness: the loop of every kind that measures in
 * windows, the way lmbench's benchmp(init, benchmark, cleanup) runs a
 * benchmark. A kind hands it callbacks (struct window_ops) and a plan
 * (struct window_plan); the harness owns the rest, once for all of them:
 *
 *   init; per step a warm-up window, then the repeats' windows (or
 *   repeat r of every step before repeat r + 1); after each measured
 *   window the kind's record, the result rewritten (the checkpoint) and
 *   the progress line; the step's end; the stop (done, or what a window
 *   stopped on); the outcome; cleanup.
 *
 * Named for what it times: a window is one measurement of a set length
 * (GROUP.duration_s) or of a set count the kind keeps itself (latency's
 * calls); the stepper (kinds/stepper.h) is the other driver, the sweep's,
 * over an axis of N. The shared settings are declared once here
 * (struct window_opts and the WINDOW_KEY_* rows, which a kind names by
 * its own group: rate.duration_s, scaling.duration_s), as the stepper
 * declares its own. */
#ifndef ORBBENCH_WINDOW_H
#define ORBBENCH_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scenario.h"
#include "kinds/run.h"

/* The shared settings, GROUP.* (GROUP the kind's name), which a kind's
 * options struct holds first. A kind without one of the keys leaves its
 * field 0 (clock has no warm-up). */
struct window_opts {
    double duration_s; /* one window's length */
    double warmup_s;   /* the warm-up window's length; 0: none */
    int64_t repeats;   /* measured windows per step */
};

/* The window settings of a scenario whose kind's options struct holds
 * struct window_opts first. */
const struct window_opts *window_opts(const struct scenario *sc);

/* The key rows of struct window_opts, named PREFIX.duration_s,
 * PREFIX.warmup_s, PREFIX.repeats, each placed in the kind's table where
 * the kind wants it (the order `orbbench keys` and the result list them
 * in). Type, range, unit and field are the harness's; the default
 * warm-up (WARMUP_DEF) and the help sentences are the kind's, which say
 * what its windows are. */
#define WINDOW_OFF(f) SCENARIO_KIND_OFF(struct window_opts, f)
#define WINDOW_KEY_DURATION(PREFIX, HELP)                                    \
    {.key = PREFIX ".duration_s", .type = SCENARIO_NUM,                      \
     .off = WINDOW_OFF(duration_s), .min = 0.01, .max = 3600, .def_num = 1,  \
     .help = HELP}
#define WINDOW_KEY_WARMUP(PREFIX, WARMUP_DEF, HELP)                          \
    {.key = PREFIX ".warmup_s", .type = SCENARIO_NUM,                        \
     .off = WINDOW_OFF(warmup_s), .max = 3600, .def_num = WARMUP_DEF,        \
     .help = HELP}
#define WINDOW_KEY_REPEATS(PREFIX, HELP)                                     \
    {.key = PREFIX ".repeats", .type = SCENARIO_INT,                         \
     .off = WINDOW_OFF(repeats), .min = 1, .max = 1000, .def_num = 5,        \
     .help = HELP}

/* In which order the windows of several steps are taken. */
enum window_order {
    /* Each step's warm-up and repeats, then the next step's (scaling's
     * k = 1, 2, ...; load's offered rates). */
    WINDOW_STEPS_OUTSIDE,
    /* Repeat r of every step, then repeat r + 1: a drift of the host's
     * speed over the run falls on every step alike (clock's sources). */
    WINDOW_REPEATS_OUTSIDE,
};

/* What the kind asks of the harness: filled before the run, and init may
 * still set `steps` (the steps it found: scaling's k list). */
struct window_plan {
    double duration_s;  /* each measured window; 0: the kind's window
                         * ends itself (a count of calls) */
    double warmup_s;    /* the warm-up window's length (with warmup) */
    bool warmup;        /* a warm-up window opens every step (repeats
                         * outside: the first pass only) */
    int64_t repeats;    /* measured windows per step */
    int64_t steps;      /* > 0: that many; 0: ops->next_step decides */
    int64_t max_steps;  /* with steps 0: the most there can be (for the
                         * progress line's total) */
    enum window_order order;
    /* The progress line's noun for a measured window ("repeat",
     * "measurement"); NULL: the kind reports its own progress inside its
     * windows (window_progress) and the harness none. */
    const char *unit;
    /* A measured window's place in messages when there is one a step
     * ("in the measured calls"); NULL: "in repeat R of REPEATS". */
    const char *measured_when;
};

/* One run of the harness: what every callback gets. */
struct window {
    struct side *s;
    struct run_outcome *o;
    struct window_plan plan;
    void *kind;         /* the kind's own state */
    int64_t t0_ns;      /* the run's start */
    int64_t first_ns;   /* the first window's start; 0: none yet */
    int64_t measured;   /* measured windows taken */
};

/* The window about to be taken. */
struct window_at {
    int64_t step;        /* from 0 */
    int64_t repeat;      /* from 0; -1: the warm-up */
    const char *phase;   /* "warm-up" or "measure" */
    int64_t duration_ns; /* its length; 0: the kind's own (a count) */
    int64_t start_ns;    /* when the harness called it */
    /* Where it is, for a stop's detail: "during the warm-up", "in the
     * warm-up of k=4", "in repeat 2 of 5 at k=4". */
    char when[128];
};

/* A kind's callbacks. Those that can stop the run return 0, or -1 once
 * they have ended it (run_stop, servers_failed: o->stop_reason set). */
struct window_ops {
    /* Set up: the result's first fields, servers, threads. Required. */
    int (*init)(struct window *w);
    /* Take one window. Required. A measured window adds its figures to
     * the result itself (where its kind keeps them). */
    int (*window)(struct window *w, const struct window_at *at);
    /* After a step's last window (repeats outside: after the last pass,
     * for each step): settle what is in flight, decide on the step.
     * Optional. */
    int (*step_end)(struct window *w, int64_t step);
    /* With plan.steps 0: is there a step after `step` (the one just
     * ended)? Optional; without it, one step. */
    bool (*next_step)(struct window *w, int64_t step);
    /* The summary of what was measured so far into the result, before
     * every checkpoint and at the end (also when nothing was). Required. */
    void (*record)(struct window *w);
    /* Free what init made (also after a failed init). Optional. */
    void (*cleanup)(struct window *w);
    /* A step's name in messages and the progress line ("k=4"), or ""
     * for none. Optional (none). */
    void (*step_name)(struct window *w, int64_t step, char *buf,
                      size_t len);
    /* The kind's own figure for the progress line after a measured
     * window ("63.4 kHz"). Optional. */
    void (*progress_text)(struct window *w, const struct window_at *at,
                          char *buf, size_t len);
    /* The detail of a run that took every window. Optional: "R repeats
     * of D s". */
    void (*done_detail)(struct window *w, char *buf, size_t len);
};

/* Run side sides[0] with `kind` as its state: the whole run, from init
 * to cleanup; every o[0..nsides) is cleared first and o[0] filled. */
void window_run(const struct window_ops *ops, const struct window_plan *plan,
                void *kind, struct side *sides, struct run_outcome *o,
                size_t nsides);

/* Progress inside a window, for a kind that counts its own (plan.unit
 * NULL): done of total `unit`s of window `at`, since it started. */
void window_progress(const struct window *w, const struct window_at *at,
                     const char *unit, int64_t done, int64_t total,
                     const char *extra);

/* Seconds since the run started. */
double window_elapsed_s(const struct window *w);

#endif
