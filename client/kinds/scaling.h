/* The ORB across cores (scenario kind "scaling"): for each k of
 * scaling.k, k client/server pairs, each pair pinned (its client thread
 * and its server on one CPU, or on two: scaling.placement), ping-pong
 * echo calls for scaling.duration_s, scaling.repeats times; per pair the
 * calls and calls per second, their sum, and the CPU of client and
 * servers. */
#ifndef ORBBENCH_SCALING_H
#define ORBBENCH_SCALING_H

#include <jansson.h>
#include <stddef.h>

#include "kinds/run.h"

/* Measure one side (main refuses paired scaling runs). Uses sides[0]'s
 * scenario, kind, transport, spawner group, machine and doc; starts the
 * largest k's servers once, each pinned to its pair's server CPU, and
 * runs the first k of them for each k. Fills o[0] (stop_reason "done",
 * or interrupted / server_died / call_failed / resource with the detail)
 * and the doc's `scaling`, `repeats` and `result`, rewriting out_path
 * after every repeat. */
void scaling_run(struct run *sides, struct run_outcome *o,
                 size_t nsides);

/* One paragraph on stdout: per k the summed and per-pair calls/s. */
void scaling_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out);

#endif
