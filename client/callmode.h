/* Call modes: how one round issues its calls (one to every server). Each
 * mode fills a struct callmode_ops in a file of its own (mode_*.c); the
 * mode owns concurrency, the conn and its transport own the I/O. */
#ifndef ORBBENCH_CALLMODE_H
#define ORBBENCH_CALLMODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "stats.h"

struct callmode_config {
    int64_t timeout_ms; /* per call */
};

/* What one round did. */
struct round_info {
    uint64_t calls;            /* calls completed and checked */
    unsigned max_in_flight;    /* most calls awaiting replies at once */
    unsigned threads_started;  /* threads created during the round */
    int err;                   /* 0, or the first failure's -errno */
    size_t failed;             /* conns index of that failure */
    char why[CONN_WHY_BYTES];  /* its one-line reason */
};

struct callmode;

struct callmode_ops {
    const char *name;
    /* 0 or -errno. */
    int (*create)(struct callmode **out, const struct callmode_config *cfg);
    /* One call to each of conns[0..n-1]; returns info->err. When `record`
     * every call's latency is kept (per thread) until drain. */
    int (*round)(struct callmode *m, struct conn *conns, size_t n,
                 bool record, struct round_info *info);
    /* Merge the kept latencies (ns) into dst and forget them. 0/-ENOMEM. */
    int (*drain)(struct callmode *m, struct samples *dst);
    void (*destroy)(struct callmode *m);
};

extern const struct callmode_ops callmode_sync;

/* The mode called `name`, or NULL. */
const struct callmode_ops *callmode_lookup(const char *name);

#endif
