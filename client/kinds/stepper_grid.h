/* The stepper's grid: at which N its steps go and how many timed rounds
 * each takes, a function of the settings alone (no measurement): the
 * stepping rule, a warm start's far steps (fewer rounds, by far_growth,
 * below the prior), the cost window they spare, and the search's view of
 * the settings. tests/unit/test_stepper_grid.c checks it. */
#ifndef ORBBENCH_STEPPER_GRID_H
#define ORBBENCH_STEPPER_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "core/crossing.h"
#include "core/scenario.h"
#include "kinds/stepper_keys.h"

/* Where compare reads a cost: the measurements within this factor of
 * cost_n (COST_WINDOW, scripts/orbbench/comparison/model.py); a warm
 * start keeps their rounds whole. */
#define STEPPER_COST_SPAN 1.5

/* What the grid is a function of. */
struct stepper_grid {
    const struct stepper_opts *opts; /* borrowed */
    bool timed; /* the steps take rounds (client.connect; false: idle
                 * servers, never called) */
};

/* Scenario sc's grid (its stepper settings, its client.connect); it
 * borrows sc. */
struct stepper_grid stepper_grid_of(const struct scenario *sc);

/* Is n within STEPPER_COST_SPAN of GROUP.cost_n (where compare reads
 * round time and CPU per call)? False when cost_n is 0. */
bool stepper_near_cost(const struct stepper_opts *so, double n);

/* The stepping rule: the next N after `n` (n + step, or ceil(n × growth)
 * and at least n + 1; a warm start's far steps by far_growth, up to the
 * cost window's first N and the full rounds' first); the caller clamps
 * it to max_n. */
int64_t stepper_next_n(const struct stepper_grid *g, int64_t n);

/* stepper_next_n as the search's and the estimate's callback
 * (crossing_rules.next_n, eta_plan.next_n): ctx is a struct
 * stepper_grid. */
int64_t stepper_next_of(const void *ctx, int64_t n);

/* A warm start's N from which the steps take their full rounds: the
 * local fit's window (CROSSING_FIT_SPAN) below the prior's low end, so
 * that a crossing anywhere within the prior's spread is fitted on steps
 * of full rounds; 0: a cold run, idle servers, or no fewer rounds. */
double stepper_full_from(const struct stepper_grid *g);

/* The timed rounds of a step at n, the full rounds starting at `from`
 * (stepper_full_from, or a paired run's lowest; 0: every step full):
 * GROUP.far_rounds below it, but at the first step (result.costs' call)
 * and within STEPPER_COST_SPAN of GROUP.cost_n, which are measured as in
 * a cold run; else GROUP.rounds. */
int64_t stepper_step_rounds(const struct stepper_grid *g, double from,
                            int64_t n);

/* The search's view of the settings (core/crossing.h); its next_n is
 * stepper_next_n's, over g, which must outlive it. */
struct crossing_rules stepper_rules(const struct stepper_grid *g);

#endif
