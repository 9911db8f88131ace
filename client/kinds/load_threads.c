/* Kind load's threaded engines. The main thread keeps the schedule: at
 * each call's time it hands the call over, unless load.max_outstanding
 * calls are already handed over and unanswered (then it waits, and the
 * calls due meanwhile are held). Each call is a blocking conn_call on a
 * connection of its own lane (load.threads lanes, each with a connection
 * to every server); its latency runs from its intended time, so the wait
 * for a thread or a connection counts, as it does for an ORB's caller.
 *   pool: load.threads workers, worker k on lane k, taking calls from a
 *         queue in order;
 *   thread-per-call: a new thread a call, which takes the first free
 *         lane of its server (waiting for one), at most
 *         load.max_outstanding threads alive: the mode bounds itself.
 * Counts go into the window under l->mu. Threads are started with the
 * run's signals blocked: the main thread sees an interrupt. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "kinds/load_impl.h"
#include "kinds/servers.h"

#define LOAD_STACK_BYTES (256 * 1024)

/* One call handed over. */
struct call {
    int64_t due_ns, disp_ns;
    size_t server;
    bool held;
};

/* A thread-per-call thread's slot. */
struct tslot {
    struct threads *t;
    pthread_t th;
    struct call c;
    bool used, done;
};

struct threads {
    struct load *l;
    bool pool;
    pthread_cond_t work;   /* pool: a call is queued, or quit */
    pthread_cond_t done;   /* a call is answered (or failed) */
    pthread_cond_t lane;   /* thread-per-call: a lane came free */
    /* pool */
    pthread_t *workers;
    size_t nworkers;
    struct call *q;        /* a ring of max_outstanding calls */
    size_t cap, head, count;
    bool quit;
    /* thread-per-call */
    struct tslot *slots;   /* max_outstanding */
    bool *lane_busy;       /* [lane * n + server] */
    size_t alive;
    /* both */
    size_t busy;           /* calls being made */
    bool failed;
    struct load_win *w;
};

/* Make call c on conn ci (blocking) and count it. Called unlocked. */
static void make_call(struct threads *t, const struct call *c, size_t ci)
{
    struct load *l = t->l;
    struct conn *conn = &l->conns[ci];
    int64_t lat;
    int rc = conn_call(conn, &lat);
    pthread_mutex_lock(&l->mu);
    if (rc) {
        load_fail(l, ci, rc, conn->why);
        t->failed = true;
        t->count = 0; /* the run stops: the queued calls are not made */
    } else {
        load_count_sent(l, t->w, c->due_ns, c->disp_ns, conn->sent_ns,
                        c->held);
        load_count_reply(l, t->w, c->due_ns, conn->sent_ns,
                         conn->sent_ns + lat);
    }
    t->busy--;
    pthread_cond_broadcast(&t->done);
    pthread_mutex_unlock(&l->mu);
}

static void *worker_main(void *arg)
{
    struct threads *t = ((struct tslot *)arg)->t;
    size_t lane = (size_t)(((struct tslot *)arg) - t->slots);
    struct load *l = t->l;
    pthread_mutex_lock(&l->mu);
    /* Bounded: it ends when quit is set (ev_stop), and each call is
     * bounded by call.timeout_ms. */
    for (;;) {
        while (!t->quit && t->count == 0)
            pthread_cond_wait(&t->work, &l->mu);
        if (t->quit)
            break;
        struct call c = t->q[t->head];
        t->head = (t->head + 1) % t->cap;
        t->count--;
        t->busy++;
        pthread_mutex_unlock(&l->mu);
        make_call(t, &c, lane * l->n + c.server);
        pthread_mutex_lock(&l->mu);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

static void *call_main(void *arg)
{
    struct tslot *s = arg;
    struct threads *t = s->t;
    struct load *l = t->l;
    size_t lane = 0;
    pthread_mutex_lock(&l->mu);
    /* Bounded: a lane comes free when its call ends, within
     * call.timeout_ms. */
    for (;;) {
        for (lane = 0; lane < l->lanes; lane++)
            if (!t->lane_busy[lane * l->n + s->c.server])
                break;
        if (lane < l->lanes || t->failed)
            break;
        pthread_cond_wait(&t->lane, &l->mu);
    }
    bool go = lane < l->lanes && !t->failed;
    if (go)
        t->lane_busy[lane * l->n + s->c.server] = true;
    pthread_mutex_unlock(&l->mu);
    if (go)
        make_call(t, &s->c, lane * l->n + s->c.server);
    pthread_mutex_lock(&l->mu);
    if (go)
        t->lane_busy[lane * l->n + s->c.server] = false;
    else
        t->busy--;
    t->alive--;
    s->done = true;
    pthread_cond_broadcast(&t->lane);
    pthread_cond_broadcast(&t->done);
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* A thread with the run's signals blocked. 0 or an errno. */
static int spawn(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t block, old;
    pthread_attr_t at;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, LOAD_STACK_BYTES);
    int e = pthread_create(th, &at, fn, arg);
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e;
}

/* The other lanes' connections: lane k's to server j is a new connection
 * to conns[j]'s address. */
static int open_lanes(struct load *l)
{
    for (size_t k = 1; k < l->lanes; k++)
        for (size_t j = 0; j < l->n; j++) {
            struct conn *c = &l->conns[k * l->n + j];
            const struct conn *first = &l->conns[j];
            int e = servers_open_conn(l->s, c, &first->target, first->index,
                                      first->pid, first->ptype);
            l->opened++;
            if (e)
                return load_fail(l, k * l->n + j, e, c->why);
        }
    return 0;
}

static int t_start(struct load *l, bool pool)
{
    size_t max = (size_t)l->opt->max_outstanding;
    struct threads *t = calloc(1, sizeof *t);
    l->engine = t;
    if (!t)
        return load_fail(l, 0, -ENOMEM, "out of memory in the client");
    t->l = l;
    t->pool = pool;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->work, &ca);
    pthread_cond_init(&t->done, &ca);
    pthread_cond_init(&t->lane, &ca);
    pthread_condattr_destroy(&ca);
    /* conns[n..) are the lanes past the first, opened here */
    int e = open_lanes(l);
    if (e)
        return e;
    t->cap = max;
    t->slots = calloc(pool ? l->lanes : max, sizeof *t->slots);
    t->q = calloc(max, sizeof *t->q);
    t->lane_busy = calloc(l->n * l->lanes, sizeof *t->lane_busy);
    t->workers = calloc(l->lanes, sizeof *t->workers);
    if (!t->slots || !t->q || !t->lane_busy || !t->workers)
        return load_fail(l, 0, -ENOMEM, "out of memory in the client");
    for (size_t k = 0; pool && k < l->lanes; k++) {
        t->slots[k].t = t;
        e = spawn(&t->workers[k], worker_main, &t->slots[k]);
        if (e)
            return load_fail(l, 0, -e, "cannot start a worker thread");
        t->nworkers++;
    }
    return 0;
}

static int pool_start(struct load *l)
{
    return t_start(l, true);
}

static int tpc_start(struct load *l)
{
    return t_start(l, false);
}

/* Join the thread-per-call threads that ended. Under l->mu. */
static void reap(struct threads *t, bool all)
{
    size_t max = (size_t)t->l->opt->max_outstanding;
    for (size_t i = 0; i < max; i++)
        if (t->slots[i].used && (t->slots[i].done || all)) {
            pthread_mutex_unlock(&t->l->mu);
            pthread_join(t->slots[i].th, NULL);
            pthread_mutex_lock(&t->l->mu);
            t->slots[i].used = false;
        }
}

/* Hand call c over. Under l->mu. 0, or -errno (a thread not started). */
static int hand_over(struct threads *t, const struct call *c)
{
    struct load *l = t->l;
    if (t->pool) {
        t->q[(t->head + t->count) % t->cap] = *c;
        t->count++;
        pthread_cond_signal(&t->work);
        return 0;
    }
    size_t max = (size_t)l->opt->max_outstanding, i;
    for (i = 0; i < max && t->slots[i].used; i++)
        ;
    if (i == max)
        reap(t, false);
    for (i = 0; i < max && t->slots[i].used; i++)
        ;
    if (i == max)
        return -EAGAIN; /* cannot be: alive < max */
    t->slots[i] = (struct tslot){.t = t, .c = *c, .used = true};
    t->busy++;
    t->alive++;
    int e = spawn(&t->slots[i].th, call_main, &t->slots[i]);
    if (e) {
        t->slots[i].used = false;
        t->busy--;
        t->alive--;
        l->client_limit = true;
        return load_fail(l, 0, -e, "the client could not start a thread "
                         "for a call");
    }
    return 0;
}

/* Wait on t->done until `until_ns` (absolute, monotonic). Under l->mu. */
static void wait_done(struct threads *t, int64_t until_ns)
{
    struct timespec ts = {until_ns / 1000000000, until_ns % 1000000000};
    pthread_cond_timedwait(&t->done, &t->l->mu, &ts);
}

static int t_window(struct load *l, struct load_win *w)
{
    struct threads *t = l->engine;
    struct arrival a;
    size_t max = (size_t)l->opt->max_outstanding, j = 0;
    int64_t stop = w->end_ns + l->opt->late_us * 1000;
    int64_t held_to = INT64_MIN;
    bool blocked = false;
    int rc = 0;
    load_schedule(l, w, &a);
    int64_t next = arrival_next(&a);
    pthread_mutex_lock(&l->mu);
    t->w = w;
    /* Bounded in time: the schedule ends at stop; each wait ends by the
     * next call's time or a millisecond. */
    while (!rc && next < w->end_ns) {
        int64_t now = now_ns();
        if (*l->s->interrupted)
            rc = -EINTR;
        else if (t->failed)
            rc = l->err;
        if (rc || now >= stop)
            break;
        if (blocked) {
            held_to = now;
            blocked = false;
        }
        while (!rc && next < w->end_ns && next <= now) {
            size_t out = t->busy + t->count;
            if (out >= max) {
                blocked = true;
                break;
            }
            struct call c = {.due_ns = next, .disp_ns = now, .server = j,
                             .held = next <= held_to};
            rc = hand_over(t, &c);
            if ((int64_t)(out + 1) > w->peak_outstanding)
                w->peak_outstanding = (int64_t)(out + 1);
            j = (j + 1) % l->n;
            next = arrival_next(&a);
        }
        int64_t wake = blocked || next > stop ? now_ns() + 1000000 : next;
        if (!rc && next < w->end_ns)
            wait_done(t, wake < stop ? wake : stop);
    }
    load_count_unsent(w, &a, next, blocked ? now_ns() : held_to);
    if (rc)
        t->count = 0; /* the run stops: the queued calls are not made */
    /* Every call handed over answered (or failed): bounded by
     * call.timeout_ms each, a few at a time. */
    while (t->busy + t->count > 0)
        wait_done(t, now_ns() + 100000000);
    if (!t->pool)
        reap(t, true);
    if (!rc && t->failed)
        rc = l->err;
    if (!rc && *l->s->interrupted)
        rc = -EINTR;
    pthread_mutex_unlock(&l->mu);
    return rc;
}

static void t_stop(struct load *l)
{
    struct threads *t = l->engine;
    if (!t)
        return;
    pthread_mutex_lock(&l->mu);
    t->quit = true;
    pthread_cond_broadcast(&t->work);
    if (t->slots && !t->pool)
        reap(t, true);
    pthread_mutex_unlock(&l->mu);
    for (size_t k = 0; k < t->nworkers; k++)
        pthread_join(t->workers[k], NULL);
    pthread_cond_destroy(&t->work);
    pthread_cond_destroy(&t->done);
    pthread_cond_destroy(&t->lane);
    free(t->workers);
    free(t->slots);
    free(t->q);
    free(t->lane_busy);
    free(t);
    l->engine = NULL;
}

const struct load_engine load_pool = {
    .mode = "pool",
    .start = pool_start,
    .window = t_window,
    .stop = t_stop,
};

const struct load_engine load_tpc = {
    .mode = "thread-per-call",
    .start = tpc_start,
    .window = t_window,
    .stop = t_stop,
};
