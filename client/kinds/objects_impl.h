/* Kind objects' inside, shared by its files alone: objects.c (options,
 * the run's loop over M, the summary, the row) and objects_step.c (one
 * step: make the objects, call them, read the server's footprint, record
 * it). */
#ifndef ORBBENCH_OBJECTS_IMPL_H
#define ORBBENCH_OBJECTS_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "codec/objkey.h"
#include "core/eta.h"
#include "core/stats.h"
#include "host/probe.h"
#include "kinds/run.h"
#include "net/conn.h"
#include "net/invoke.h"

/* The keys of kind objects. */
struct objects_opts {
    int64_t max_m;            /* objects at most */
    double growth;            /* M grows by this factor a step */
    char servants[16];        /* "each" or "default" */
    int64_t calls;            /* K: timed calls a step */
    int64_t warmup;           /* untimed calls a step, before them */
    double max_call_us;       /* a call's median over it: the crossing */
    double max_kb_per_object; /* PSS per object over it: stop */
    double max_seconds;       /* the run's bound */
};

const struct objects_opts *objects_opts(const struct scenario *sc);

/* Objects asked for in one makeObjects call at most: a call's reply
 * comes within seconds on the slowest server, and the client's view of
 * creation counts a round trip per this many objects. */
#define OBJECTS_BATCH 16384

/* The seed of the objects' picks (the same calls in every run). */
#define OBJECTS_SEED 0x6f626a6563747321ull

/* A footprint is judged for memory per object only at M of at least
 * OBJECTS_JUDGED_M and once the server grew OBJECTS_JUDGED_KB since
 * M = 1: before, a heap arena, a thread's stack or a JVM's heap sizing
 * can decide it (docs/kinds/objects.md#memory-per-object). */
#define OBJECTS_JUDGED_M 10000
#define OBJECTS_JUDGED_KB 16384

struct objects {
    struct side *s;
    struct run_outcome *o;
    const struct objects_opts *opts;
    struct conn call;   /* echoString calls; target.key rewritten each */
    struct invoke inv;  /* makeObjects calls, on a connection of its own */
    uint8_t factory_key[OBJKEY_MAX_KEY]; /* the server's own object */
    size_t factory_key_len;
    struct objkey keys; /* the objects' keys */
    char policies[256]; /* the POA's, as the server said them */
    int64_t m;          /* objects made */
    int64_t t0_ns, deadline_ns;
    uint64_t rng;
    struct samples times; /* this step's timed calls, ns */
    /* makeObjects, over the steps made whole: ns the server took, ns
     * the client saw, calls made (the objects they made: made_last.to) */
    int64_t make_server_ns, make_client_ns, make_calls;
    /* the last step's own */
    int64_t step_server_ns, step_client_ns, step_calls;
    /* the last two steps made whole, as the client saw them (zeroed:
     * none yet), for the projection of the next (eta_make_pace); the
     * last one's `to` is every object made in whole steps */
    struct eta_make made_prev, made_last;
    bool have_m1;                /* the M = 1 step was measured */
    struct proc_footprint m1_fp; /* its footprint */
    double m1_median_us, m1_p99_us;
    struct proc_footprint last_fp; /* the step before's */
    int64_t last_m;
    double kb_per_object; /* PSS, since M = 1, judged (0: not yet) */
    int64_t held_m;       /* the largest M whose median stayed in
                           * max_call_us */
    int64_t steps_planned, steps_done;
    json_t *steps, *reference, *baseline;
};

/* The next M after m (0: the first step, 1). */
int64_t objects_next_m(const struct objects_opts *op, int64_t m);

/* Make objects x->m .. target - 1 (x->m becomes target). 0, or -1 with
 * the run stopped. */
int objects_make(struct objects *x, int64_t target);

/* `count` calls, each to an object picked uniformly among the M made;
 * with keep, their times into x->times. 0, or -1 with the run stopped. */
int objects_calls(struct objects *x, int64_t count, bool keep,
                  const char *when);

/* The step at x->m into x->steps: its makes, its calls, the server's
 * footprint; the crossing checked (a stop when over). 0, or -1 with the
 * run stopped. */
int objects_record_step(struct objects *x);

/* The server's footprint as {threads, fds, rss_kb, pss_kb, uss_kb}, or
 * NULL (it is gone); *fp filled. */
json_t *objects_footprint(const struct objects *x, struct proc_footprint *fp);

#endif
