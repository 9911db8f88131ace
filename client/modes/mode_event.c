/* Event loop: one thread, no blocking. It writes every request on
 * non-blocking sockets, then collects the replies with epoll as they
 * arrive; each reply is matched by its GIOP request id. The least client
 * overhead possible: what it measures is the servers' own limit.
 *
 * Edge-triggered: a connection that has replied and then hangs up (or
 * sends a stray byte) while others are still awaited wakes the loop once,
 * not on every epoll_wait as level-triggered readiness would (a spin that
 * cost 0.4 s of client CPU in a round). conn_read_some reads until the
 * reply is whole or the socket is empty, as edge triggering requires;
 * bytes past a reply are found by the next round's read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "modes/callmode.h"
#include "core/util.h"

struct callmode {
    struct callmode_config cfg;
    struct call_times kept;
    int epfd;
    size_t registered; /* conns[0..registered) are in the epoll set */
    struct conn *conns; /* the array they belong to */
    struct epoll_event *events;
    size_t events_cap;
};

static int event_create(struct callmode **out,
                        const struct callmode_config *cfg)
{
    struct callmode *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->cfg = *cfg;
    m->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (m->epfd < 0) {
        int e = errno;
        free(m);
        return -e;
    }
    *out = m;
    return 0;
}

/* Connections persist across rounds and only grow: add the new ones. */
static int watch(struct callmode *m, struct conn *conns, size_t n,
                 struct round_info *info)
{
    if (m->conns != conns)
        m->registered = 0;
    m->conns = conns;
    for (; m->registered < n; m->registered++) {
        size_t i = m->registered;
        struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = i};
        if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, conns[i].fds.rfd, &ev) != 0) {
            info->err = -errno;
            info->failed = i;
            info->client_resource = true;
            snprintf(info->why, sizeof info->why, "epoll_ctl: %s",
                     strerror(errno));
            return info->err;
        }
    }
    if (m->events_cap < n) {
        struct epoll_event *e = realloc(m->events, n * sizeof *e);
        if (!e)
            return info->err = -ENOMEM;
        m->events = e;
        m->events_cap = n;
    }
    return 0;
}

/* Conn i connected again (a CloseConnection): its old descriptor left
 * the set when it was closed; watch the new one. 0 or -errno. */
static int rewatch(struct callmode *m, size_t i)
{
    struct conn *c = &m->conns[i];
    c->fd_changed = false;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = i};
    if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, c->fds.rfd, &ev) != 0)
        return -errno;
    return 0;
}

/* Ask for (or stop asking for) writability of conn i. A pipe pair's
 * write end is another descriptor (a read end is never writable): it
 * joins the set only while a request is blocked on it. */
static void want_write(struct callmode *m, size_t i, bool on)
{
    const struct conn_fds *f = &m->conns[i].fds;
    if (f->wfd != f->rfd) {
        struct epoll_event ev = {.events = EPOLLOUT | EPOLLET,
                                 .data.u64 = i};
        epoll_ctl(m->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, f->wfd, &ev);
        return;
    }
    struct epoll_event ev = {
        .events = EPOLLIN | EPOLLET | (on ? EPOLLOUT : 0), .data.u64 = i};
    epoll_ctl(m->epfd, EPOLL_CTL_MOD, f->rfd, &ev);
}

/* Send conn i's request (again, after a resend): its new state, 0 still
 * writing or 1 awaiting the reply, or -errno. */
static int send_call(struct callmode *m, size_t i, bool resend)
{
    struct conn *c = &m->conns[i];
    int rc = resend ? conn_resend(c) : conn_begin(c);
    if (rc == 0 && c->fd_changed) {
        rc = rewatch(m, i);
        if (rc)
            snprintf(c->why, sizeof c->why, "server %u (pid %d): epoll_ctl: "
                     "%s", c->index, (int)c->pid, strerror(-rc));
    }
    for (int k = 0; rc == 0; k++) {
        rc = conn_write_some(c);
        if (rc == CONN_RESEND && k < CONN_MAX_RESENDS + 1) {
            rc = conn_resend(c);
            if (rc == 0 && c->fd_changed)
                rc = rewatch(m, i);
            continue;
        }
        break;
    }
    if (rc == CONN_RESEND)
        rc = -ECONNRESET;
    if (rc == 0)
        want_write(m, i, true);
    return rc < 0 ? rc : (rc == 1 ? 1 : 0);
}

static int event_round(struct callmode *m, struct conn *conns, size_t n,
                       bool record, struct round_info *info)
{
    memset(info, 0, sizeof *info);
    info->threads_peak = 1;
    if (n == 0 || watch(m, conns, n, info))
        return info->err;
    int64_t t0 = now_ns();
    size_t pending = 0;
    size_t oldest = 0; /* the first call still awaited: the earliest sent */
    unsigned resent = 0; /* calls sent again: their deadlines moved on */
    unsigned in_flight = 0;
    char *state = calloc(n, 1); /* 0 writing, 1 awaiting reply, 2 done */
    if (!state)
        return info->err = -ENOMEM;

    /* Every request goes out before any reply is awaited. */
    for (size_t i = 0; i < n; i++) {
        int rc = send_call(m, i, false);
        if (rc < 0) {
            callmode_note_failure(info, rc, i, &conns[i]);
            goto out;
        }
        in_flight++;
        pending++;
        state[i] = (char)rc;
    }
    info->max_in_flight = in_flight;

    while (pending > 0) {
        if (*m->cfg.interrupted) {
            info->err = -EINTR;
            snprintf(info->why, sizeof info->why, "interrupted");
            goto out;
        }
        /* Each call has its own deadline (call.timeout_ms after it was
         * sent); calls went out in index order, so the oldest one still
         * awaited has the nearest, unless some were sent again. */
        while (state[oldest] == 2)
            oldest++;
        size_t due = oldest;
        for (size_t i = oldest; resent && i < n; i++)
            if (state[i] != 2 && conns[i].deadline_ns < conns[due].deadline_ns)
                due = i;
        int ms = ms_until(conns[due].deadline_ns);
        int got = ms ? epoll_wait(m->epfd, m->events, (int)n, ms) : 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            info->err = -errno;
            info->failed = due;
            snprintf(info->why, sizeof info->why, "epoll_wait: %s",
                     strerror(errno));
            goto out;
        }
        if (got == 0) {
            if (ms_until(conns[due].deadline_ns) > 0)
                continue;
            struct conn *c = &conns[due];
            snprintf(c->why, sizeof c->why,
                     "server %u (pid %d): no reply within %lld ms", c->index,
                     (int)c->pid, (long long)m->cfg.timeout_ms);
            callmode_note_failure(info, -ETIMEDOUT, due, c);
            goto out;
        }
        for (int e = 0; e < got; e++) {
            size_t i = (size_t)m->events[e].data.u64;
            struct conn *c = &conns[i];
            int rc = 0;
            if (state[i] == 0) {
                rc = conn_write_some(c);
                if (rc == 1) {
                    state[i] = 1;
                    want_write(m, i, false);
                }
            }
            if (rc >= 0 && rc != CONN_RESEND && state[i] == 1 &&
                (m->events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
                int64_t lat;
                rc = conn_read_some(c, &lat);
                if (rc == 1) {
                    state[i] = 2;
                    pending--;
                    info->calls++;
                    if (record &&
                        callmode_keep(&m->kept, t0, c->sent_ns, lat))
                        rc = -ENOMEM;
                }
            }
            /* The server closed the connection without taking the
             * request: send it again on a new one. */
            if (rc == CONN_RESEND) {
                rc = send_call(m, i, true);
                if (rc >= 0)
                    state[i] = (char)rc;
                resent++;
            }
            /* Anything on a finished conn (state 2) waits for the next
             * round, where it is read (and rejected) as the start of a
             * reply, or found closed. */
            if (rc < 0) {
                callmode_note_failure(info, rc, i, c);
                goto out;
            }
        }
    }
out:
    free(state);
    if (info->err)
        info->calls = 0;
    return info->err;
}

static void event_forget(struct callmode *m, struct conn *conns, size_t from)
{
    if (m->conns != conns)
        return;
    /* Still open: take them out of the set before they close, so a new
     * connection that reuses a descriptor number is added afresh. */
    for (size_t i = from; i < m->registered; i++) {
        epoll_ctl(m->epfd, EPOLL_CTL_DEL, conns[i].fds.rfd, NULL);
        if (conns[i].fds.wfd != conns[i].fds.rfd)
            epoll_ctl(m->epfd, EPOLL_CTL_DEL, conns[i].fds.wfd, NULL);
    }
    if (from < m->registered)
        m->registered = from;
}

static int event_drain(struct callmode *m, struct samples *service,
                       struct samples *completion)
{
    return callmode_move_samples(service, completion, &m->kept);
}

static void event_destroy(struct callmode *m)
{
    close(m->epfd);
    free(m->events);
    callmode_free_times(&m->kept);
    free(m);
}

const struct callmode_ops callmode_event = {
    .name = "event",
    .create = event_create,
    .round = event_round,
    .drain = event_drain,
    .destroy = event_destroy,
    .forget = event_forget,
};
