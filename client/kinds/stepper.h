/* The stepper: the sweep's driver over any axis. N grows step by step,
 * rounds of calls over conns[0..N-1] are timed at each step; when a
 * step's median round time exceeds max_ms it is confirmed and the
 * crossing narrowed down (the search in core/crossing.h, a function of
 * what was measured); it stops at max_n, max_seconds, a resource limit, a
 * failure or an interrupt. Paired runs (kinds/run.h) have one search per
 * side, measured in turns (GROUP.pairing: blocks, or rounds).
 *
 * What N counts is the axis's: servers, each with its connection (kind
 * sweep, kinds/sweep.c), or connections spread over k servers started
 * once (kind fanin, kinds/fanin.c). The axis opens and closes the conns,
 * and probes the servers' footprint; the stepper does everything else
 * and writes the same result shape for both (steps, probes, result). Its
 * settings are its own (kinds/stepper_keys.h), and so is its grid
 * (kinds/stepper_grid.h).
 *
 * Named for what it does, step N along an axis: "sweep" is one of the
 * kinds it drives. Its files, one job each: stepper.c (this contract and
 * the loop over the sides), stepper_keys.c (its settings),
 * stepper_grid.c (where steps go: pure), stepper_measure.c (rounds,
 * blocks, pairing), stepper_search.c (the search's decisions and stops),
 * stepper_record.c (steps and probes into the result),
 * stepper_result.c (result.*: outcome, crossing, costs, warm start),
 * stepper_eta.c (what is left, the progress line), stepper_summary.c
 * (the closing block); stepper_impl.h is what they share. */
#ifndef ORBBENCH_STEPPER_H
#define ORBBENCH_STEPPER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scenario.h"
#include "core/stats.h"
#include "host/footprint.h"
#include "kinds/run.h"
#include "kinds/stepper_grid.h"
#include "kinds/stepper_keys.h"
#include "modes/callmode.h"
#include "net/conn.h"

/* What an axis sees of one side. */
struct stepper_hand {
    struct side *s;
    struct run_outcome *o;
    struct conn *conns;    /* stepper_opts(sc)->max_n of them; conns[0..n-1]
                            * are called once each round */
    size_t n;              /* N */
    struct callmode *mode; /* the side's call mode (its forget, when
                            * conns close) */
    size_t servers;        /* this side's server processes (the machine's
                            * memory is divided among every side's) */
    unsigned *next_index;  /* number of the next server started, any side */
    int64_t oom_kills;     /* in the memory cgroup, at the start */
    struct samples starts; /* this step's server start times */
    struct footprint fp;   /* the machine's baseline */
    void *axis;            /* the axis's own state */
};

struct stepper_axis {
    const char *noun;     /* what N counts, in messages and as
                           * result.held_unit: "servers" */
    const char *held_key; /* result.held's name in earlier results of the
                           * schema (max_servers), still written */
    /* Before the side's first step (fanin: start its servers). True, or
     * false when it stopped (h->o). Optional. */
    bool (*begin)(struct stepper_hand *h);
    /* Once every side has begun, before the first step: a baseline that
     * the other side's servers starting would have moved (the ORB's
     * library pages turn from private to shared). Optional. */
    void (*baseline)(struct stepper_hand *h);
    /* Make N exactly `target`: open or close conns (and start or stop
     * their servers). True, or false when the side stopped (h->o). */
    bool (*set_n)(struct stepper_hand *h, size_t target);
    /* A step's footprint into `step`: the servers of every side number
     * on_machine. */
    void (*footprint)(struct stepper_hand *h, json_t *step, size_t on_machine);
    /* Free the axis's state, once the stepper closed conns[0..n-1].
     * Optional. */
    void (*end)(struct stepper_hand *h);
    /* What one unit of N (`unit`: "server") cost in memory at a step of
     * the result: a new object (pss_kb, uss_kb, threads, fds, …), or NULL
     * when the step lacks it. Optional. The stepper reads it at the last
     * step that has it, for result.costs.memory (adding "per", the unit,
     * and "n", the step's N), and adds the servers' CPU per call and the
     * first call. */
    const char *unit;
    json_t *(*step_cost)(json_t *step);
};

/* Run the sides (1, or 2 paired) of a sweep along `axis`: a kind's run. */
void stepper_drive(const struct stepper_axis *axis, struct side *sides,
                   struct run_outcome *o, size_t nsides);

/* A call or connect on conns[i] failed with err (-errno) and `why`: stop
 * the side, saying whether its server died, was OOM-killed or is at a
 * limit (resource), or interrupted. */
void stepper_call_failure(struct stepper_hand *h, size_t i, int err,
                          const char *why);

/* The footprint of servers srv[0..k-1] (their pid and index; those of a
 * server list with no known pid are counted apart) into `step`
 * (footprint_step). */
void stepper_probe_servers(struct stepper_hand *h, const struct conn *srv,
                           size_t k, size_t on_machine, json_t *step);

/* A sweep's closing block, in pieces around the kind's own lines: the
 * head ("NAME: ORB VERSION over T, M calls, max_ms X", then "  <held>"
 * and the crossing on the next line), and the end (the first step's
 * median call, the stop and its detail, the steps and where the result
 * is). Every line ends in a newline. */
void stepper_summary_head(const struct scenario *sc, json_t *doc,
                          const char *held);
void stepper_summary_end(const struct scenario *sc, json_t *doc,
                         const struct run_outcome *o, const char *out);

#endif
