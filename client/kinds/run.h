/* A run's sides, what every kind of measurement gets, and how a run ends.
 *
 * A run has one side, or two (a paired run, `orbbench run --versus`): two
 * sets of servers on the machine at once, measured in turns
 * (sweep.pairing), so that the host's drifting speed falls on both
 * alike. main fills one struct side per side and calls the kind's run
 * (kinds/kind.h); the kind fills one struct run_outcome per side. No kind
 * owns this context. */
#ifndef ORBBENCH_RUN_H
#define ORBBENCH_RUN_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/scenario.h"
#include "host/machine.h"
#include "host/server_kind.h"
#include "host/source.h"
#include "host/spawn.h"
#include "modes/callmode.h"
#include "net/transport.h"

#define RUN_MAX_SIDES 2 /* A and B; each may have a caller: spawn.h */

/* One side of a run. A kind that starts no server (KIND_SERVERLESS) gets
 * only sc, doc, out_path, interrupted and progress. */
struct side {
    const struct scenario *sc;
    const struct server_kind *server; /* what server.kind names */
    const struct transport_ops *tp;
    const struct callmode_ops *mode;
    /* The mode's own settings (callmode_config.ext: a caller's, host/
     * caller.h), or NULL. */
    const void *mode_ext;
    struct spawner *sp;   /* shared by the sides */
    int group;            /* the spawner group of this side's servers */
    const struct machine *machine;
    json_t *doc;          /* the result document */
    const char *out_path; /* rewritten as the run goes */
    volatile sig_atomic_t *interrupted;
    bool progress;        /* a live line on stderr */
    /* orbbench run --progress-fd: where the progress goes as JSON lines
     * (run_progress), for a supervisor (run-suite); 0: nowhere (the
     * descriptor is never stdin). */
    int progress_fd;
    const char *label;    /* "A", "B" in a paired run's progress line */
    /* Where the servers come from; NULL: the spawner sp. */
    const struct server_source *src;
    /* Servers orbbench did not start, whose addresses were checked
     * against client.allow_hosts: TCP may leave loopback. */
    bool remote_ok;
    /* Why sweep.max_n is what it is, when not the scenario's (the IOR
     * list's length), or NULL. */
    const char *max_n_why;
};

/* Stop reasons, every kind's. "interrupted" exits 130, the failures 1,
 * the rest 0. */
#define STOP_DONE "done"            /* every repeat was measured */
#define STOP_LATENCY "latency"      /* a sweep's round crossed max_ms */
#define STOP_MAX_N "max_n"
#define STOP_RESOURCE "resource"    /* a limit of the machine was hit */
#define STOP_MEMORY "memory"
/* A cost per unit passed the scenario's bound (kind objects: memory per
 * object over objects.max_kb_per_object). */
#define STOP_COST "cost"
#define STOP_TIME "time_limit"
#define STOP_SERVER_DIED "server_died"
#define STOP_CALL_FAILED "call_failed"
#define STOP_THREAD_FAILED "thread_failed"
#define STOP_NOT_DELIVERED "not_delivered" /* an event was never logged */
#define STOP_LOG_FULL "log_full"
#define STOP_INTERRUPTED "interrupted"
/* The result could not be rewritten (a full disk, an I/O error): the run
 * stops at once, the file keeps the last result written whole. Final: a
 * later run_stop of the same outcome does not replace it. */
#define STOP_WRITE_FAILED "write_failed"
/* A paired run: the other side failed, so this one stopped too. */
#define STOP_PARTNER "partner_failed"

struct run_outcome {
    const char *stop_reason;
    char detail[768];
    int64_t held; /* a sweep driver's kind: the largest N whose median
                   * round stayed in max_ms, counted in its axis's noun
                   * (servers, connections); other kinds leave it 0 */
    int exit_code;
};

/* End a run: its stop reason (a STOP_* string), exit code and one-line
 * detail. Every kind ends through this. */
void run_stop(struct run_outcome *o, const char *reason, int exit_code,
              const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Rewrite side s's result at s->out_path (none: nothing to do) as the run
 * goes: every kind's checkpoint. 0, or -errno when it could not be
 * written: then this has ended the run, run_stop(o, STOP_WRITE_FAILED, 1,
 * "cannot write ..."), the file keeps the last result written whole, and
 * the kind stops at once (measures nothing more). */
int run_checkpoint(const struct side *s, struct run_outcome *o);

/* Where a run is, after a measurement: what run_progress shows. */
struct run_progress {
    const char *phase;  /* "sweep", "search", "refine"; a kind's own word */
    const char *what;   /* the measurement's own name ("bisect"), or NULL */
    int64_t n;          /* N measured, or -1 */
    double round_ms;    /* its median round time (pooled in a search) */
    double max_ms;      /* the threshold it is held against; <= 0: none */
    int64_t steps;      /* steps of the sweep so far */
    int64_t probes;     /* measurements of the crossing search so far */
    int64_t max_probes;
    double elapsed_s;   /* since the run started */
    double left_s;      /* the estimate of what is left; < 0: none yet */
    const char *extra;  /* more for the live line ("MemAvailable ...", a
                         * kind's own figure "63.4 kHz"), or NULL */
    /* A kind that counts something else than sweep steps (repeats,
     * events, payloads): its noun, and done of total; NULL: steps. Its
     * round_ms is then < 0 (none). */
    const char *unit;
    int64_t done, total;
};

/* Show p: with s->progress, one line on stderr rewritten in place
 * ("\r", erase to its end); with s->progress_fd, one JSON line on that
 * descriptor, written whole or not at all (a full pipe drops it: the
 * measurement never waits for a reader). The line's fields and their
 * stability: docs/usage.md#progress. */
void run_progress(const struct side *s, const struct run_progress *p);

/* run_progress for a kind that counts `unit`s (repeat, event, payload):
 * done of total so far, the counted ones having taken counted_s of the
 * run's elapsed_s; the estimate left is the rest at their pace. extra:
 * the kind's own figure ("63.4 kHz"), or NULL. */
void run_progress_count(const struct side *s, const char *phase,
                        const char *unit, int64_t done, int64_t total,
                        double counted_s, double elapsed_s,
                        const char *extra);

/* The run is over: erase the live line (with s->progress). */
void run_progress_end(const struct side *s);

#endif
