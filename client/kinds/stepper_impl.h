/* What the stepper's own files share (kinds/stepper.h lists them): one
 * side's state, the run's, and the calls between the files. The
 * stepper's alone: an axis sees struct stepper_hand, never these. */
#ifndef ORBBENCH_STEPPER_IMPL_H
#define ORBBENCH_STEPPER_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/crossing.h"
#include "core/stats.h"
#include "host/machine.h"
#include "kinds/stepper.h"

/* The client's own costs over one measurement's timed rounds. */
struct client_costs {
    struct cpu_usage server0, server1; /* servers' CPU around the rounds */
    bool server_cpu;
    uint64_t threads_started;
    unsigned max_in_flight;
    unsigned threads_peak;
    double cpu_user_s;
    double cpu_sys_s;
    uint64_t reconnects0; /* the conns' reconnects before the measurement */
};

struct stepper_driver;

/* One side: its servers, its measurements, where its search stands. */
struct stepper_side {
    struct stepper_hand h; /* first: what the axis sees
                            * (stepper_call_failure takes it as the side) */
    struct stepper_grid grid; /* its settings' grid, over its scenario */
    struct client_costs client;
    struct stepper_driver *d;
    int64_t t0_ns; /* sweep start */
    struct samples rounds;
    struct samples calls;       /* service times: sent -> reply */
    struct samples completions; /* round start -> reply */
    struct samples untimed;     /* the measurement's untimed rounds */
    /* The servers' CPU in each timed round (ns), when they have a CPU
     * cgroup: what a call costs round by round, so that a round the host
     * took the CPU from can be told from the rest. */
    struct samples server_rounds;
    /* A paired run: the other sides' servers' CPU during this side's
     * timed rounds (each round read around), when every side has a CPU
     * cgroup. */
    int64_t neighbour_ns;
    bool neighbour_cpu;
    unsigned place; /* pairing blocks: 1 = its tick's first block, 2 … */
    size_t held;    /* GROUP.hold_others: the others' servers stopped */
    /* Every measurement so far (steps and probes), kept for the search,
     * pooling rounds taken at the same N and the crossing's fit, and when
     * each was recorded (now_ns: the estimate of what is left). */
    struct crossing_measure *points;
    int64_t *points_end_ns;
    size_t npoints;
    size_t points_cap;
    size_t nsteps;
    int64_t block; /* GROUP.step_blocks: the step's blocks taken so far */
    json_t *crossing;      /* result fields of the crossing, or NULL */
    /* Where its search stands (core/crossing.h): what it measures next,
     * at which N; CROSSING_DONE once the side has finished. */
    struct crossing_search search;
    int64_t timed;   /* timed rounds of the measurement under way */
    size_t far_steps; /* a warm start's steps of GROUP.far_rounds */
    bool lib_recorded;
    bool companion; /* done, but calls along while another side measures */
    /* The last measurement, for the progress line: what it was ("sweep",
     * "confirm", "bisect", ...), its (pooled) median round, the machine's
     * MemAvailable after a step (-1 after a probe). */
    const char *last_what;
    double last_ms;
    int64_t last_mem_kb;
    /* A mode whose calls another process makes (a caller, with
     * costs_end): what they cost over the measurement's timed rounds, the
     * measurement's "caller" block; and the measurement that failed, for
     * result.caller_failure. NULL: none. */
    json_t *mode_costs;
    json_t *mode_failure;
};

/* The sides of one run and what they share. */
struct stepper_driver {
    struct stepper_side sides[RUN_MAX_SIDES];
    size_t nsides;
    unsigned next_index; /* of the next server started, on any side */
    unsigned ticks;      /* measurements so far (the blocks' order) */
    int64_t t0_ns;
    const struct stepper_axis *axis;
};

/* stepper.c: a warm start's N from which every step takes its full
 * rounds (stepper_full_from); in a paired run the lowest of the sides'.
 * 0: every step full. */
double stepper_full_rounds_from(const struct stepper_driver *d);

/* stepper_measure.c: clear what the last measurement kept; measure the
 * sides in `who`, each r->timed rounds, as GROUP.pairing says, finished
 * sides in `pals` calling along (a side that fails stops alone here; the
 * caller stops the others); the conns' reconnects so far. */
void stepper_measure_begin(struct stepper_side *r);
void stepper_measure(struct stepper_side **who, size_t k,
                     struct stepper_side **pals, size_t npals);
uint64_t stepper_reconnects(const struct stepper_side *r);

/* stepper_record.c: record the measurement just taken as a step (its
 * median round time, ms) or as a probe of the search's `phase` (a
 * literal); write the result so far (the side stops when it cannot);
 * orb.library_path, once, from the first server. */
double stepper_record_step(struct stepper_side *r);
void stepper_record_probe(struct stepper_side *r, const char *phase);
void stepper_checkpoint(struct stepper_side *r);
void stepper_record_library(struct stepper_side *r);

/* stepper_result.c: the result's outcome with the crossing, warm start
 * and costs; the crossing from what was measured within the search's
 * bracket into r->crossing (`refines`: the refining measurements so
 * far). */
void stepper_outcome(struct stepper_side *r, const char *reason,
                     const char *detail);
void stepper_estimate(struct stepper_side *r, bool complete, int refines);

/* stepper_search.c: hand what side r just measured to its search and act
 * on the decision (its next N, or its stop); keep the crossing of a side
 * stopped during its search. */
void stepper_decide(struct stepper_side *r);
void stepper_stopped(struct stepper_side *r);

/* stepper_eta.c: every side still running reports where it is, with the
 * run's estimate of what is left. */
void stepper_report_all(struct stepper_driver *d);

#endif
