/* Call modes: how one round issues its calls (one to every server). Each
 * mode fills a struct callmode_ops in a file of its own (mode_*.c); the
 * mode owns concurrency, the conn and its transport own the I/O. */
#ifndef ORBBENCH_CALLMODE_H
#define ORBBENCH_CALLMODE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "net/conn.h"
#include "core/stats.h"

struct callmode_config {
    int64_t timeout_ms;       /* per call */
    int64_t pool_size;        /* pool: worker threads (k) */
    int64_t thread_stack_kb;  /* stack of every thread a mode starts */
    /* Set by the signal handler: stop taking new calls, return -EINTR. */
    volatile sig_atomic_t *interrupted;
    /* A mode's own settings, or NULL (host/caller.c: the caller to
     * start). */
    const void *ext;
    /* Where create puts a one-line reason when it fails (why_len
     * bytes), or NULL. */
    char *why;
    size_t why_len;
};

/* What one round did. */
struct round_info {
    uint64_t calls;            /* calls completed and checked */
    unsigned max_in_flight;    /* most calls awaiting replies at once */
    unsigned threads_started;  /* threads created during the round */
    unsigned threads_peak;     /* most client threads alive at once */
    int err;                   /* 0, or the first failure's -errno */
    bool client_resource;      /* the client itself ran out (threads) */
    /* The mode itself failed, not a call to a server: the process that
     * makes the calls (a caller) died, hung or broke its protocol. `why`
     * names it; `failed` names no server. */
    bool mode_failed;
    size_t failed;             /* conns index of that failure */
    char why[CONN_WHY_BYTES];  /* its one-line reason */
};

struct callmode;

struct callmode_ops {
    const char *name;
    /* 0 or -errno. */
    int (*create)(struct callmode **out, const struct callmode_config *cfg);
    /* One call to each of conns[0..n-1]; returns info->err. When `record`
     * every call's service time (request sent -> reply read) and its
     * completion time (round start -> reply read) are kept (per thread)
     * until drain. */
    int (*round)(struct callmode *m, struct conn *conns, size_t n,
                 bool record, struct round_info *info);
    /* Merge the kept service and completion times (ns) into the two
     * arrays and forget them. 0/-ENOMEM. */
    int (*drain)(struct callmode *m, struct samples *service,
                 struct samples *completion);
    void (*destroy)(struct callmode *m);
    /* Optional: conns[from..] are about to be closed (the sweep is
     * dropping its newest servers); forget any state kept for them. */
    void (*forget)(struct callmode *m, struct conn *conns, size_t from);

    /* A mode whose calls another process makes (a caller, host/caller.h)
     * fills the three below. That process opens its own connections, so
     * the harness opens none: its servers are known by pid only
     * (conn_open is never called) and each new server's ready line (its
     * IOR) is handed over here, outside the timed rounds:
     * lines[0..count-1] are those of conns[from..from+count-1]. 0, or
     * -errno with a one-line reason in `why`. */
    int (*targets)(struct callmode *m, const struct conn *conns,
                   size_t from, const char *const *lines, size_t count,
                   char *why, size_t why_len);
    /* Around a measurement's timed rounds over conns[0..n-1] (between
     * rounds, never inside one): begin before the first, end after the
     * last, with the calls they completed. end returns what the calls
     * cost outside this process (the caller's CPU, memory, threads,
     * descriptors; its connections as the servers see them) as a new
     * object, or NULL. */
    void (*costs_begin)(struct callmode *m, const struct conn *conns,
                        size_t n);
    json_t *(*costs_end)(struct callmode *m, const struct conn *conns,
                         size_t n, uint64_t calls);
};

extern const struct callmode_ops callmode_sync;
extern const struct callmode_ops callmode_thread_per_call;
extern const struct callmode_ops callmode_pool;
extern const struct callmode_ops callmode_event;

/* Shared by the threaded modes: thread attributes with the configured
 * stack size. 0 or -errno. */
int callmode_thread_attr(pthread_attr_t *attr, int64_t stack_kb);
/* Raise *peak to v if it is lower (lock-free). */
void callmode_raise_peak(atomic_uint *peak, unsigned v);
/* What a mode keeps of its calls (one per thread that records). */
struct call_times {
    struct samples service;    /* request sent -> reply read */
    struct samples completion; /* round start -> reply read */
};

/* Keep one call: sent at sent_ns, its reply read latency_ns later, in a
 * round that started at round_start_ns. 0 or -ENOMEM. */
int callmode_keep(struct call_times *kept, int64_t round_start_ns,
                  int64_t sent_ns, int64_t latency_ns);
/* A mode's drain for one kept buffer: merge it, then clear it. */
int callmode_move_samples(struct samples *service, struct samples *completion,
                          struct call_times *kept);
void callmode_free_times(struct call_times *kept);
/* Copy a failed conn's reason into info (the first failure wins). */
void callmode_note_failure(struct round_info *info, int err, size_t index,
                           const struct conn *c);

/* The mode called `name`, or NULL. */
const struct callmode_ops *callmode_lookup(const char *name);

#endif
