/* The footprint sweep: grow the number of servers step by step, time
 * rounds of calls at each step; when a step's median round time exceeds
 * max_ms, confirm it and narrow the crossing down by bisection; stop at
 * max_n, a resource limit, a failure or an interrupt.
 *
 * A run has one side, or two (a paired run, `orbbench run --versus`): two
 * sets of servers on the machine at once, each with its own sweep and
 * crossing search, measured in alternate rounds, so that the host's speed,
 * which drifts by tens of percent over seconds here, falls on both alike. */
#ifndef ORBBENCH_SWEEP_H
#define ORBBENCH_SWEEP_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "modes/callmode.h"
#include "host/machine.h"
#include "core/scenario.h"
#include "host/server_kind.h"
#include "host/source.h"
#include "host/spawn.h"
#include "net/transport.h"

#define SWEEP_MAX_SIDES SPAWN_MAX_GROUPS

/* One side of a run. */
struct sweep {
    const struct scenario *sc;
    const struct server_kind *kind;
    const struct transport_ops *tp;
    const struct callmode_ops *mode;
    struct spawner *sp;   /* shared by the sides */
    int group;            /* the spawner group of this side's servers */
    const struct machine *machine;
    json_t *doc;          /* the result document; steps are added here */
    const char *out_path; /* rewritten after every step */
    volatile sig_atomic_t *interrupted;
    bool progress;        /* a live line on stderr */
    const char *label;    /* "A", "B" in a paired run's progress line */
    /* Where the sweep's servers come from; NULL: the spawner sp. */
    const struct server_source *src;
    /* Servers orbbench did not start, whose addresses were checked
     * against client.allow_hosts: TCP may leave loopback. */
    bool remote_ok;
    /* Why max_n is what it is, when not the scenario's (the IOR list's
     * length), or NULL. */
    const char *max_n_why;
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
/* A paired run: the other side failed, so this one stopped too. */
#define STOP_PARTNER "partner_failed"

struct sweep_outcome {
    const char *stop_reason;
    char detail[768];
    int64_t max_servers; /* largest N whose median round stayed in max_ms */
    int exit_code;
};

/* End a run: its stop reason (a STOP_* string), exit code and one-line
 * detail. Every kind of measurement ends through this. */
void sweep_outcome_stop(struct sweep_outcome *o, const char *reason,
                        int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Run the sides (1 or 2) to their stops, their rounds interleaved. Fills
 * every o[i] and sets each doc's result. */
void sweep_run(struct sweep *sides, struct sweep_outcome *o, size_t nsides);

#endif
