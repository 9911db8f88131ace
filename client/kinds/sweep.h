/* The footprint sweep: grow the number of servers step by step, time
 * rounds of calls at each step; when a step's median round time exceeds
 * max_ms, confirm it and narrow the crossing down by bisection; stop at
 * max_n, a resource limit, a failure or an interrupt.
 * A paired run's two sides each have their own sweep and crossing search,
 * measured in alternate rounds (kinds/run.h). */
#ifndef ORBBENCH_SWEEP_H
#define ORBBENCH_SWEEP_H

#include <stddef.h>

#include "kinds/run.h"

/* Run the sides (1 or 2) to their stops, their rounds interleaved. Fills
 * every o[i] and sets each doc's result. */
void sweep_run(struct run *sides, struct run_outcome *o, size_t nsides);

#endif
