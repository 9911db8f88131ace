/* The clock benchmark (scenario kind "clock"): for each k in clock.k, k
 * threads, each pinned to its own CPU, call a time source as often as
 * they can for clock.duration_s, clock.repeats times; per thread the
 * calls counted exactly and the calls per second. After the RTEMS
 * timekeeping study (#2271): a source that reads the clock hardware
 * against a coarse one that reads none. */
#ifndef ORBBENCH_CLOCK_H
#define ORBBENCH_CLOCK_H

#include <stddef.h>

#include "kinds/run.h"

/* Run the clock benchmark of sides[0] (no servers: only sc, doc,
 * out_path, interrupted and progress are used). Fills o[0] (stop_reason
 * "done", interrupted, or thread_failed with the detail) and the doc's
 * `kind`, `cpus`, `sources` and `result`, rewriting out_path after every
 * repeat. */
void clock_run(struct run *sides, struct run_outcome *o, size_t nsides);


#endif
