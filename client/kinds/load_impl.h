/* What the files of kind load share (kinds/load.c: keys, the run on the
 * window harness, the search; load_event.c: the one-thread engine;
 * load_threads.c: the pool and thread-per-call engines; load_record.c:
 * windows and steps into the result). Their own: no other file includes
 * it (make check-layers). */
#ifndef ORBBENCH_LOAD_IMPL_H
#define ORBBENCH_LOAD_IMPL_H

#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "core/arrival.h"
#include "core/hist.h"
#include "core/offered.h"
#include "host/machine.h"
#include "kinds/run.h"
#include "kinds/window.h"
#include "net/conn.h"
#include "net/pipeline.h"

#define LOAD_MAX_SERVERS 256

/* kind "load": offered rates over N servers, open (or closed) loop. */
struct load_opts {
    struct window_opts win; /* load.duration_s, warmup_s, repeats: each
                             * step's windows */
    int64_t servers;
    int64_t rate;           /* the first step's offered calls/s */
    double growth;          /* factor a step */
    int64_t max_rate;
    char arrival[16];       /* "constant" | "poisson" */
    char mode[24];          /* "event" | "pool" | "thread-per-call" */
    char loop[8];           /* "open" | "closed" */
    int64_t threads;        /* pool: workers; thread-per-call:
                             * connections per server */
    int64_t max_outstanding;
    char percentile[8];     /* "p50" ... "max": what max_ms bounds */
    double max_ms;
    double min_achieved;    /* a share of the scheduled rate */
    double resolution;
    int64_t max_probes;
    int64_t spin_us;        /* event: wake this early and spin */
    int64_t late_us;        /* a call sent later than this is late */
    double max_late_share;  /* the client's own late calls: more, and the
                             * step slipped */
    int64_t seed;           /* Poisson's */
};

static inline const struct load_opts *load_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct load_opts, sc);
}

/* One window's calls: what the engines fill (under l->mu when threads
 * record) and load_record.c writes. */
struct load_win {
    struct hist lat;     /* the loop's latency: from the intended time
                          * (open), from the send (closed) */
    struct hist service; /* from the send, always */
    struct hist lag;     /* send - intended, every call */
    struct hist own;     /* dispatch - intended, of the calls nothing
                          * held: the client's scheduling jitter */
    uint64_t scheduled;  /* calls due in the window */
    uint64_t sent, completed;
    uint64_t in_window;  /* replies taken before the window's end */
    uint64_t unsent;     /* due, never sent (held, or late: its own) */
    uint64_t held;       /* due while the bound was full (sent later) */
    uint64_t late, late_own;
    int64_t peak_outstanding;
    int64_t start_ns, end_ns; /* the schedule's span */
};

/* Readings at a window's edges, for the CPU per call. */
struct load_snap {
    int64_t t_ns;
    struct rusage ru;
    struct cpu_usage srv;
    bool srv_ok;
    int64_t srv_ctx; /* -1: unknown */
};

struct load;

/* An engine: how calls go out and replies come back. */
struct load_engine {
    const char *mode;
    /* After the servers are up (l->conns[0..n) connected): the rest of
     * its conns, threads, pipelines. 0, or -errno with l->why. */
    int (*start)(struct load *l);
    /* The schedule at l->rate over [w->start_ns, w->end_ns), then every
     * reply in. 0, -EINTR, or -errno with l->failed and l->why. */
    int (*window)(struct load *l, struct load_win *w);
    void (*stop)(struct load *l);
};

extern const struct load_engine load_event;
extern const struct load_engine load_pool;
extern const struct load_engine load_tpc;

struct load {
    struct side *s;
    struct run_outcome *o;
    const struct load_opts *opt;
    const struct load_engine *eng;
    bool closed;           /* load.loop closed */
    bool poisson;
    /* conns[lane * n + j]: server j's conn of lane `lane` (event: one
     * lane; pool: a lane a worker; thread-per-call: load.threads) */
    struct conn *conns;
    size_t n, lanes, opened;
    void *engine;          /* the engine's own state */
    pthread_mutex_t mu;    /* threads' records into `win` */
    /* the step and the window */
    double rate;           /* the step's offered calls/s */
    uint64_t windows;      /* windows taken: each its own Poisson seed */
    struct load_win *win;  /* the window being taken */
    struct load_win *step; /* the step's measured windows, merged */
    struct load_win *warm; /* a warm-up's, dropped */
    struct offered_rules rules;
    struct offered_search search;
    json_t *steps;         /* doc.load.steps */
    json_t *cur;           /* the step being measured */
    int64_t last_p_ns;     /* the last window's bounded percentile */
    int old_slack;         /* the timer slack before the run (ns) */
    /* a failure */
    bool client_limit;     /* the client's own: a thread not started */
    size_t failed;         /* the conn it happened on */
    int err;
    char why[CONN_WHY_BYTES];
};

/* The percentile load.percentile names (0..100, 100 for max). */
double load_percentile_q(const struct load_opts *o);

/* Count a call sent at sent_ns that was due at due_ns and dispatched at
 * disp_ns (the event loop: when it was queued; threads: when the
 * dispatcher handed it over), `held` when the bound kept it back. */
void load_count_sent(struct load *l, struct load_win *w, int64_t due_ns,
                     int64_t disp_ns, int64_t sent_ns, bool held);
/* Count its reply, taken at at_ns. */
void load_count_reply(struct load *l, struct load_win *w, int64_t due_ns,
                      int64_t sent_ns, int64_t at_ns);
/* Count the calls due in [t, w->end_ns) that were never sent (the next
 * due at t): the schedule's rest, drawn from `a`; those due by held_to
 * waited on the bound (held), the others on the client (late, its own). */
void load_count_unsent(struct load_win *w, struct arrival *a, int64_t t,
                       int64_t held_to);
/* The window's own Poisson stream (each window its seed). */
void load_schedule(struct load *l, struct load_win *w, struct arrival *a);
/* A failure on conn i: note it, return err. */
int load_fail(struct load *l, size_t i, int err, const char *why);

/* load_record.c: snapshots, one window and one step into the result,
 * the sustainable rate. */
void load_snap(struct load *l, struct load_snap *sn);
json_t *load_window_json(struct load *l, const struct load_win *w,
                         int64_t repeat, const struct load_snap *a,
                         const struct load_snap *b);
json_t *load_summary_json(const struct hist *h);
json_t *load_hist_json(const struct hist *h);
/* The verdict of the step merged in l->step: "within", "over",
 * "behind", "overloaded", "slipped". */
const char *load_verdict(struct load *l);
void load_step_json(struct load *l, json_t *step, const char *verdict);
void load_sustainable_json(struct load *l);

#endif
