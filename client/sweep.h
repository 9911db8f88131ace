/* The footprint sweep: grow the number of servers step by step, time
 * rounds of calls at each step, stop at the latency threshold, max_n, a
 * resource limit, a failure or an interrupt. */
#ifndef ORBBENCH_SWEEP_H
#define ORBBENCH_SWEEP_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "callmode.h"
#include "machine.h"
#include "scenario.h"
#include "server_kind.h"
#include "spawn.h"
#include "transport.h"

struct sweep {
    const struct scenario *sc;
    const struct server_kind *kind;
    const struct transport_ops *tp;
    const struct callmode_ops *mode;
    struct spawner *sp;
    const struct machine *machine;
    json_t *doc;          /* the result document; steps are added here */
    const char *out_path; /* rewritten after every step */
    volatile sig_atomic_t *interrupted;
    bool progress; /* a live line on stderr */
};

/* Stop reasons. "interrupted" exits 130, the failures 1, the rest 0. */
#define STOP_LATENCY "latency"
#define STOP_MAX_N "max_n"
#define STOP_RESOURCE "resource"
#define STOP_MEMORY "memory"
#define STOP_TIME "time_limit"
#define STOP_SERVER_DIED "server_died"
#define STOP_CALL_FAILED "call_failed"
#define STOP_INTERRUPTED "interrupted"

struct sweep_outcome {
    const char *stop_reason;
    char detail[768];
    int64_t max_servers; /* largest N whose median round stayed in max_ms */
    int exit_code;
};

/* Run the sweep. Fills *o in every case and sets doc.result. */
void sweep_run(struct sweep *s, struct sweep_outcome *o);

#endif
