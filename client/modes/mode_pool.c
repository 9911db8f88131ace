/* A pool of k long-lived worker threads: each round's calls go on a queue
 * (an atomic index into the round's servers); each worker takes the next
 * one, sends and blocks for the reply. At most k calls are in flight. This
 * is how omniORB 4 implemented send_deferred. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modes/callmode.h"
#include "core/util.h"

struct worker {
    struct callmode *m;
    pthread_t thread;
    struct call_times kept; /* this worker's times: no shared lock */
    int rc;              /* its first failure this round */
    size_t failed;
};

struct callmode {
    struct callmode_config cfg;
    struct worker *workers;
    size_t started; /* workers running */
    pthread_mutex_t lock;
    pthread_cond_t go;   /* a round (or the end) is posted */
    pthread_cond_t done; /* the last worker finished the round */
    uint64_t generation;
    bool quit;
    size_t finished;
    /* the round being served */
    struct conn *conns;
    size_t n;
    bool record;
    int64_t t0_ns; /* the round's start: its calls queue from here */
    atomic_size_t next;
    atomic_uint in_flight;
    atomic_uint max_in_flight;
    atomic_bool abort_round;
};

static void serve_round(struct worker *w)
{
    struct callmode *m = w->m;
    for (;;) {
        if (atomic_load(&m->abort_round))
            break;
        if (*m->cfg.interrupted) {
            w->rc = -EINTR;
            w->failed = 0;
            atomic_store(&m->abort_round, true);
            break;
        }
        size_t i = atomic_fetch_add(&m->next, 1);
        if (i >= m->n)
            break;
        int64_t lat;
        unsigned f = atomic_fetch_add(&m->in_flight, 1) + 1;
        callmode_raise_peak(&m->max_in_flight, f);
        int rc = conn_call(&m->conns[i], &lat);
        atomic_fetch_sub(&m->in_flight, 1);
        if (rc == 0 && m->record)
            rc = callmode_keep(&w->kept, m->t0_ns, m->conns[i].sent_ns, lat);
        if (rc) {
            w->rc = rc;
            w->failed = i;
            atomic_store(&m->abort_round, true);
            break;
        }
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct callmode *m = w->m;
    uint64_t seen = 0;
    pthread_mutex_lock(&m->lock);
    for (;;) {
        while (!m->quit && m->generation == seen)
            pthread_cond_wait(&m->go, &m->lock);
        if (m->quit)
            break;
        seen = m->generation;
        pthread_mutex_unlock(&m->lock);
        serve_round(w);
        pthread_mutex_lock(&m->lock);
        if (++m->finished == m->started)
            pthread_cond_signal(&m->done);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

static void pool_destroy(struct callmode *m)
{
    pthread_mutex_lock(&m->lock);
    m->quit = true;
    pthread_cond_broadcast(&m->go);
    pthread_mutex_unlock(&m->lock);
    for (size_t i = 0; i < m->started; i++)
        pthread_join(m->workers[i].thread, NULL);
    for (size_t i = 0; m->workers && i < (size_t)m->cfg.pool_size; i++)
        callmode_free_times(&m->workers[i].kept);
    pthread_cond_destroy(&m->go);
    pthread_cond_destroy(&m->done);
    pthread_mutex_destroy(&m->lock);
    free(m->workers);
    free(m);
}

static int pool_create(struct callmode **out,
                       const struct callmode_config *cfg)
{
    struct callmode *m = calloc(1, sizeof *m);
    pthread_attr_t attr;
    if (!m)
        return -ENOMEM;
    m->cfg = *cfg;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->go, NULL);
    pthread_cond_init(&m->done, NULL);
    m->workers = calloc((size_t)cfg->pool_size, sizeof *m->workers);
    int rc = m->workers ? callmode_thread_attr(&attr, cfg->thread_stack_kb)
                        : -ENOMEM;
    if (rc) {
        pool_destroy(m);
        return rc;
    }
    /* Workers leave signals to the main thread. */
    sigset_t block, old;
    sigfillset(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (size_t i = 0; i < (size_t)cfg->pool_size && !rc; i++) {
        m->workers[i].m = m;
        rc = -pthread_create(&m->workers[i].thread, &attr, worker_main,
                             &m->workers[i]);
        if (!rc)
            m->started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc) {
        pool_destroy(m);
        return rc;
    }
    *out = m;
    return 0;
}

static int pool_round(struct callmode *m, struct conn *conns, size_t n,
                      bool record, struct round_info *info)
{
    memset(info, 0, sizeof *info);
    pthread_mutex_lock(&m->lock);
    m->conns = conns;
    m->n = n;
    m->record = record;
    m->t0_ns = now_ns();
    atomic_store(&m->next, 0);
    atomic_store(&m->in_flight, 0);
    atomic_store(&m->max_in_flight, 0);
    atomic_store(&m->abort_round, false);
    for (size_t i = 0; i < m->started; i++)
        m->workers[i].rc = 0;
    m->finished = 0;
    m->generation++;
    pthread_cond_broadcast(&m->go);
    /* Every call is bounded by its timeout, so this wait is too. */
    while (m->finished < m->started)
        pthread_cond_wait(&m->done, &m->lock);
    pthread_mutex_unlock(&m->lock);

    info->max_in_flight = atomic_load(&m->max_in_flight);
    info->threads_peak = (unsigned)m->started + 1;
    size_t taken = atomic_load(&m->next);
    info->calls = taken < n ? taken : n;
    for (size_t i = 0; i < m->started; i++) {
        struct worker *w = &m->workers[i];
        if (w->rc) {
            callmode_note_failure(info, w->rc, w->failed, &conns[w->failed]);
            if (w->rc == -EINTR)
                snprintf(info->why, sizeof info->why, "interrupted");
        }
    }
    if (info->err)
        info->calls = 0;
    return info->err;
}

static int pool_drain(struct callmode *m, struct samples *service,
                      struct samples *completion)
{
    int rc = 0;
    for (size_t i = 0; i < m->started && !rc; i++)
        rc = callmode_move_samples(service, completion,
                                   &m->workers[i].kept);
    return rc;
}

const struct callmode_ops callmode_pool = {
    .name = "pool",
    .create = pool_create,
    .round = pool_round,
    .drain = pool_drain,
    .destroy = pool_destroy,
};
