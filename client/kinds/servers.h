/* Start servers and connect to them: the one path every kind that needs
 * servers takes (every kind in registry.c but the serverless ones). From
 * the run's server source (the spawner unless an IOR list was given),
 * each server started is recorded in the result (result_add_server), its
 * ready line parsed by the kind's wire, its handed-over pipe pair given
 * to its conn, the conn opened and the payload attached. A failure ends
 * the run through one errno table: a limit of the machine
 * (servers_resource_errno) is a `resource` stop, exit 0, whose detail
 * names the limit most likely hit (servers_limit_note); a failed call
 * through one classifier (servers_failed); anything else is a failure,
 * exit 1. */
#ifndef ORBBENCH_SERVERS_H
#define ORBBENCH_SERVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/payload.h"
#include "core/stats.h"
#include "host/source.h"
#include "host/spawn.h"
#include "kinds/run.h"
#include "net/conn.h"

/* The errno table, in one place: is -e (e > 0) a limit of the machine
 * (descriptors, the file table, tasks, memory, ports, buffers, space)
 * rather than a fault of the ORB or of orbbench? */
bool servers_resource_errno(int e);

/* " (...)": the limit that errno e most likely hit, with its value, or ""
 * when there is nothing to add. EMFILE: RLIMIT_NOFILE and the client's
 * descriptors; ENFILE: the system file table (fs.file-max); EAGAIN (fork,
 * threads): RLIMIT_NPROC when the user's tasks are near it, else the pids
 * cgroup's pids.max, else kernel.pid_max / threads-max. */
void servers_limit_note(int e, char *buf, size_t len);

/* When servers_resource_errno(-err): stop the run as `resource` (exit 0)
 * with "<why><at><limit note>" and return true; else false and the run
 * is left as it was. */
bool servers_resource_stop(struct run_outcome *o, int err, const char *why,
                           const char *at);

/* The run's server source; `own` is filled with the spawner's when the
 * run names none (s->src NULL), as a sweep defaults. */
const struct server_source *servers_source(const struct side *s,
                                           struct server_source *own);

/* What to start, and what to do with the servers. */
struct servers_want {
    int group;          /* the spawner group (s->group, or a kind's own) */
    unsigned first;     /* index of the first server */
    unsigned count;
    int cpu;            /* pin each server to this CPU; -1: no pin */
    const char *who;    /* names them in messages ("event consumer"), or
                         * NULL: "server <index>" */
    const char *at;     /* appended to a stop's detail (" at N=12"), or
                         * NULL */
    /* The memory cgroup's OOM kills before (a SIGKILLed server while it
     * rose: a `memory` stop); -1: read now, when the run has a machine. */
    int64_t oom_kills;
    struct samples *starts; /* each start time joins it, or NULL */
    /* Where server k's conn goes; NULL: start only (res[] is the
     * caller's, with any handed-over descriptors). */
    struct conn *(*slot)(void *arg, size_t k);
    void *arg;
    bool idle; /* known by pid and address (c->target), never connected
                * (client.connect false; fanin's servers): handed-over
                * descriptors close with the conn */
    const struct payload_type *payload; /* echoed on every call, or NULL */
    /* A connect that failed for a reason not in the errno table, on the
     * conn of server k (still open: closed after): stop the run. NULL:
     * interrupted (130), the server died (server_died), or call_failed. */
    void (*failed)(void *arg, size_t k, struct conn *c, int err);
};

/* A call (or connect, or a process's task) that failed on a server of
 * the run: what servers_failed classifies. */
struct servers_failure {
    unsigned index; /* the server's */
    pid_t pid;      /* its pid (0: none known) */
    const char *who;  /* names it in messages: "WHO INDEX"; NULL: "server" */
    const char *name; /* names it alone instead ("the event consumer"), or
                       * NULL */
    int err;          /* -errno of the failure (-EINTR: maybe interrupted) */
    const char *why;  /* what failed, in words (the conn's why) */
    const char *at;   /* appended where it happened (" at N=12", " measuring
                       * k=2"), or NULL */
    /* The memory cgroup's OOM kills at the run's start; -1: 0 (each run's
     * cgroup is its own, made empty). */
    int64_t oom_kills;
    /* The caller already took its exit (a source's check reports it
     * once): wstatus is its wait status. */
    bool exited;
    int wstatus;
};

/* The one classifier of a failure every kind stops on, in this order:
 * interrupted (130); a server the run did not start (server.kind
 * external): server_died when it is gone, else call_failed (1); a server
 * that exited: memory (0) when SIGKILLed while the memory cgroup's OOM
 * kills rose, else server_died with its wait status (1); a live server
 * at a task limit (it could not start the thread for its connection):
 * resource (0); else call_failed (1). The source is servers_source(s). */
void servers_failed(struct side *s, struct run_outcome *o,
                    const struct servers_failure *f);

/* Open conn c to server `index` (pid) at t with the scenario's call
 * settings (payload_bytes, timeout_ms), the payload attached (NULL: none):
 * conn_open and conn_use_payload. 0 or -errno (see c->why); c is then
 * still to be closed. */
int servers_open_conn(const struct side *s, struct conn *c,
                      const struct target *t, unsigned index, pid_t pid,
                      const struct payload_type *payload);

/* Start w->count servers and, with w->slot, connect to each in order.
 * res: w->count results, or NULL (kept here). Returns how many conns
 * were filled (slot mode: those up and connected before the first
 * failure; start-only: count when all started, else 0). When that is
 * short of w->count the run is stopped (o->stop_reason set). The source
 * is servers_source(s). */
size_t servers_start(struct side *s, struct run_outcome *o,
                     const struct servers_want *w, struct spawn_result *res);

#endif
