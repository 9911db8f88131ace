/* Kind load's event engine (load.mode event): one thread, each server's
 * connection pipelined (net/pipeline.h). It sleeps in ppoll until the
 * next call is due, a reply comes or a reply is overdue; a due call is
 * queued and written at once, unless load.max_outstanding calls are
 * unanswered (closed loop: unless its connection has one), when it
 * waits (held) and the ones due after it with it. Calls due in the
 * window's last load.late_us still go; past that, those not sent are
 * counted unsent. Every reply is then taken before the window ends.
 * With load.spin_us it wakes that long before a call's time and polls
 * without sleeping until then. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "kinds/load_impl.h"

struct ev {
    struct pipeline *pl; /* one a server */
    struct pollfd *pfd;  /* two a server: its read and write sides */
    size_t outstanding;  /* sent, unanswered */
    struct load *l;
    struct load_win *w;
};

static int ev_start(struct load *l)
{
    struct ev *e = calloc(1, sizeof *e);
    l->engine = e;
    if (!e || !(e->pl = calloc(l->n, sizeof *e->pl)) ||
        !(e->pfd = calloc(2 * l->n, sizeof *e->pfd)))
        return load_fail(l, 0, -ENOMEM, "out of memory in the client");
    e->l = l;
    size_t depth = l->closed ? 1 : (size_t)l->opt->max_outstanding;
    for (size_t j = 0; j < l->n; j++)
        if (pipeline_init(&e->pl[j], &l->conns[j], depth))
            return load_fail(l, j, -ENOMEM, "out of memory in the client");
    return 0;
}

static void ev_stop(struct load *l)
{
    struct ev *e = l->engine;
    if (!e)
        return;
    for (size_t j = 0; e->pl && j < l->n; j++)
        pipeline_free(&e->pl[j]);
    free(e->pl);
    free(e->pfd);
    free(e);
    l->engine = NULL;
}

static int on_reply(void *arg, struct pipeline *p, const struct wire_reply *rp,
                    const struct pipeline_slot *slot, int64_t at_ns)
{
    struct ev *e = arg;
    (void)p;
    (void)rp;
    if (!slot)
        return -ENOENT;
    e->outstanding--;
    load_count_reply(e->l, e->w, slot->due_ns, slot->sent_ns, at_ns);
    return 0;
}

/* Read and write what the descriptors of conn j are ready for. */
static int serve(struct ev *e, size_t j)
{
    struct pipeline *p = &e->pl[j];
    short rev = e->pfd[2 * j].revents, wev = e->pfd[2 * j + 1].revents;
    int rc = 0;
    if ((rev & POLLOUT) || (wev & (POLLOUT | POLLERR | POLLHUP)))
        rc = pipeline_write_some(p);
    if (rc >= 0 && (rev & (POLLIN | POLLERR | POLLHUP)))
        rc = pipeline_read_some(p, on_reply, e);
    return rc < 0 ? load_fail(e->l, j, rc, p->c->why) : 0;
}

/* The earliest time a reply is overdue, or INT64_MAX. */
static int64_t overdue(const struct ev *e, size_t n, int64_t timeout_ns)
{
    int64_t t = INT64_MAX;
    for (size_t j = 0; j < n && e->outstanding; j++) {
        int64_t one = pipeline_deadline(&e->pl[j], timeout_ns);
        if (one < t)
            t = one;
    }
    return t;
}

/* Queue the calls due by `now` while the bound allows. */
static int send_due(struct ev *e, struct arrival *a, int64_t *next,
                    size_t *j, int64_t *held_to, bool *blocked)
{
    struct load *l = e->l;
    size_t max = (size_t)l->opt->max_outstanding;
    int64_t stop = e->w->end_ns + l->opt->late_us * 1000;
    int64_t now = now_ns();
    if (*blocked) {
        *held_to = now; /* every call due until now waited on the bound */
        *blocked = false;
    }
    /* Bounded: the window's schedule. */
    while (*next < e->w->end_ns && *next <= now && now < stop) {
        struct pipeline *p = &e->pl[*j];
        if (l->closed ? p->in_flight > 0 : e->outstanding >= max) {
            *blocked = true;
            break;
        }
        int rc = pipeline_call(p, *next, 0);
        if (rc)
            return load_fail(l, *j, rc, p->c->why);
        e->outstanding++;
        if ((int64_t)e->outstanding > e->w->peak_outstanding)
            e->w->peak_outstanding = (int64_t)e->outstanding;
        load_count_sent(l, e->w, *next, now, now, *next <= *held_to);
        *j = (*j + 1) % l->n;
        *next = arrival_next(a);
        now = now_ns();
    }
    /* The calls queued go out now, one write a connection. */
    for (size_t k = 0; k < l->n; k++) {
        int rc = pipeline_write_some(&e->pl[k]);
        if (rc < 0)
            return load_fail(l, k, rc, e->pl[k].c->why);
    }
    return 0;
}

static int ev_window(struct load *l, struct load_win *w)
{
    struct ev *e = l->engine;
    struct arrival a;
    e->w = w;
    e->outstanding = 0;
    load_schedule(l, w, &a);
    int64_t next = arrival_next(&a), held_to = INT64_MIN;
    int64_t timeout_ns = l->s->sc->call.timeout_ms * 1000000;
    int64_t stop = w->end_ns + l->opt->late_us * 1000;
    int64_t check_at = 0, due = INT64_MAX;
    size_t j = 0;
    bool blocked = false, sending = true;
    /* Bounded in time: the schedule ends at stop, then every reply is in
     * or overdue within call.timeout_ms; each pass sleeps until the next
     * of those times or a descriptor is ready. */
    for (;;) {
        if (*l->s->interrupted)
            return -EINTR;
        if (sending) {
            int rc = send_due(e, &a, &next, &j, &held_to, &blocked);
            if (rc)
                return rc;
            if (next >= w->end_ns || now_ns() >= stop) {
                load_count_unsent(w, &a, next,
                                  blocked ? now_ns() : held_to);
                sending = false;
            }
        }
        bool writing = false;
        for (size_t k = 0; k < l->n; k++)
            writing = writing || pipeline_writing(&e->pl[k]);
        if (!sending && !e->outstanding && !writing)
            return 0;
        /* Overdue replies are looked for every 10 ms (a scan of the
         * slots in flight), or when a reply could be overdue sooner. */
        int64_t now = now_ns();
        if (now >= check_at || due <= now) {
            due = overdue(e, l->n, timeout_ns);
            check_at = now + 10000000;
        }
        if (due <= now)
            for (size_t k = 0; k < l->n; k++)
                if (e->pl[k].in_flight) {
                    char why[CONN_WHY_BYTES];
                    snprintf(why, sizeof why, "server %u (pid %d): no reply "
                             "within %lld ms (%zu calls in flight)",
                             l->conns[k].index, (int)l->conns[k].pid,
                             (long long)l->s->sc->call.timeout_ms,
                             e->pl[k].in_flight);
                    return load_fail(l, k, -ETIMEDOUT, why);
                }
        int64_t wake = due < check_at ? due : check_at;
        if (sending && !blocked && next - l->opt->spin_us * 1000 < wake)
            wake = next - l->opt->spin_us * 1000;
        if (sending && stop < wake)
            wake = stop;
        for (size_t k = 0; k < l->n; k++) {
            struct conn *c = &l->conns[k];
            bool tx = pipeline_writing(&e->pl[k]);
            bool one = c->fds.wfd == c->fds.rfd;
            e->pfd[2 * k] = (struct pollfd){
                .fd = c->fds.rfd,
                .events = (short)(POLLIN | (tx && one ? POLLOUT : 0))};
            e->pfd[2 * k + 1] = (struct pollfd){
                .fd = tx && !one ? c->fds.wfd : -1, .events = POLLOUT};
        }
        int64_t left = wake - now_ns();
        left = left < 0 ? 0 : left > 100000000 ? 100000000 : left;
        struct timespec ts = {left / 1000000000, left % 1000000000};
        int ready = ppoll(e->pfd, 2 * l->n, &ts, NULL);
        if (ready < 0 && errno != EINTR)
            return load_fail(l, 0, -errno, "ppoll failed");
        for (size_t k = 0; ready > 0 && k < l->n; k++) {
            int rc = serve(e, k);
            if (rc)
                return rc;
        }
    }
}

const struct load_engine load_event = {
    .mode = "event",
    .start = ev_start,
    .window = ev_window,
    .stop = ev_stop,
};
