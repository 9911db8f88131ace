/* The latency table (scenario kind "latency"), after the Miro evaluation's
 * Table 8.2: latency.servers servers (default 1), latency.warmup_calls
 * untimed calls, then latency.calls synchronous calls, one at a time, to
 * the servers in turn, each echoing call.payload; every call's time is
 * kept. The result gives min, mean, max, standard deviation, median and
 * p99 in µs, every sample, and the payload's sizes: its value, the
 * request and the reply on the wire, and the event (an any) that would
 * store it. */
#ifndef ORBBENCH_LATENCY_H
#define ORBBENCH_LATENCY_H

#include <jansson.h>
#include <stddef.h>

#include "core/scenario.h"
#include "kinds/run.h"

/* Measure one side (nsides must be 1: main refuses paired latency runs).
 * Uses sides[0]'s scenario, kind, transport, spawner group and doc; fills
 * o[0] (STOP_DONE, or interrupted / time_limit / server_died /
 * call_failed / resource with the detail) and the doc's `latency` and
 * `result`. */
void latency_run(struct run *sides, struct run_outcome *o,
                 size_t nsides);

/* One paragraph on stdout: the payload, its sizes, the call times. */
void latency_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out);

#endif
