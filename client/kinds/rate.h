/* The upcall rate (scenario kind "rate"): k servers, each called on its
 * own connection with rate.window requests in flight (1: ping-pong; more:
 * pipelining, replies matched by request id), or with GIOP oneway
 * requests that the server counts; after rate.warmup_s, rate.repeats
 * back-to-back windows of rate.duration_s each give upcalls per second
 * and the CPU per upcall of client and servers, user and kernel, and
 * context switches per upcall. */
#ifndef ORBBENCH_RATE_H
#define ORBBENCH_RATE_H

#include <stddef.h>

#include "kinds/run.h"


/* Measure the upcall rate of one side (nsides must be 1: main refuses
 * paired rate runs). Uses sides[0]'s scenario, kind, transport, spawner
 * group, machine and doc (mode is unused); fills o[0] (stop_reason
 * STOP_DONE, or interrupted / server_died / call_failed / resource with
 * the detail) and the doc's `repeats`, `rate` and `result`, rewriting
 * out_path after every repeat. */
void rate_run(struct run *sides, struct run_outcome *o, size_t nsides);

/* Why the scenario cannot run with this kind of server, or NULL: the key
 * to blame in *key (oneway on a wire without oneway operations). */
const char *rate_unsupported(const struct scenario *sc,
                             const struct server_kind *kind,
                             const char **key);

#endif
