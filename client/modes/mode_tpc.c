/* Thread per call: each round starts one new thread per server; each sends
 * its request and blocks for the reply; the round ends when all are
 * joined. This is how omniORB 3 implemented send_deferred. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modes/callmode.h"
#include "core/util.h"

struct callmode {
    struct callmode_config cfg;
    struct call_times kept;
    pthread_attr_t attr;
};

/* One call's thread. Writes only its own slot: no shared lock. */
struct tpc_call {
    struct callmode *m;
    struct conn *conn;
    atomic_uint *in_flight;
    atomic_uint *max_in_flight;
    atomic_uint *alive;
    atomic_uint *peak;
    pthread_t thread;
    int64_t latency_ns;
    int rc;
};

static void *tpc_thread(void *arg)
{
    struct tpc_call *t = arg;
    unsigned alive = atomic_fetch_add(t->alive, 1) + 1;
    callmode_raise_peak(t->peak, alive + 1); /* + the main thread */
    if (*t->m->cfg.interrupted) {
        t->rc = -EINTR;
    } else {
        unsigned f = atomic_fetch_add(t->in_flight, 1) + 1;
        callmode_raise_peak(t->max_in_flight, f);
        t->rc = conn_call(t->conn, &t->latency_ns);
        atomic_fetch_sub(t->in_flight, 1);
    }
    atomic_fetch_sub(t->alive, 1);
    return NULL;
}

static int tpc_create(struct callmode **out, const struct callmode_config *cfg)
{
    struct callmode *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->cfg = *cfg;
    int rc = callmode_thread_attr(&m->attr, cfg->thread_stack_kb);
    if (rc) {
        free(m);
        return rc;
    }
    *out = m;
    return 0;
}

static int tpc_round(struct callmode *m, struct conn *conns, size_t n,
                     bool record, struct round_info *info)
{
    atomic_uint in_flight = 0, max_in_flight = 0, alive = 0, peak = 1;
    int64_t t0 = now_ns(); /* every call of the round waits from here */
    struct tpc_call *calls = calloc(n ? n : 1, sizeof *calls);
    size_t started = 0;
    int create_rc = 0;
    memset(info, 0, sizeof *info);
    if (!calls)
        return info->err = -ENOMEM;
    /* Threads inherit the mask: keep signals for the main thread. */
    sigset_t block, old;
    sigfillset(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (; started < n; started++) {
        struct tpc_call *t = &calls[started];
        *t = (struct tpc_call){m, &conns[started], &in_flight,
                               &max_in_flight, &alive, &peak, 0, 0, 0};
        int rc = pthread_create(&t->thread, &m->attr, tpc_thread, t);
        if (rc) {
            create_rc = -rc;
            break;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    for (size_t i = 0; i < started; i++)
        pthread_join(calls[i].thread, NULL);
    info->threads_started = (unsigned)started;
    info->threads_peak = atomic_load(&peak);
    info->max_in_flight = atomic_load(&max_in_flight);
    for (size_t i = 0; i < started; i++) {
        if (calls[i].rc) {
            callmode_note_failure(info, calls[i].rc, i, &conns[i]);
            continue;
        }
        info->calls++;
        if (record && callmode_keep(&m->kept, t0, conns[i].sent_ns,
                                    calls[i].latency_ns))
            info->err = info->err ? info->err : -ENOMEM;
    }
    if (create_rc && !info->err) {
        info->err = create_rc;
        info->failed = started;
        info->client_resource = true;
        snprintf(info->why, sizeof info->why,
                 "pthread_create for call %zu of %zu: %s", started + 1, n,
                 strerror(-create_rc));
    }
    free(calls);
    return info->err;
}

static int tpc_drain(struct callmode *m, struct samples *service,
                     struct samples *completion)
{
    return callmode_move_samples(service, completion, &m->kept);
}

static void tpc_destroy(struct callmode *m)
{
    pthread_attr_destroy(&m->attr);
    callmode_free_times(&m->kept);
    free(m);
}

const struct callmode_ops callmode_thread_per_call = {
    .name = "thread-per-call",
    .create = tpc_create,
    .round = tpc_round,
    .drain = tpc_drain,
    .destroy = tpc_destroy,
};
