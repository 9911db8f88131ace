/* One client connection: see conn.h. */
#include "net/conn.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/payload.h"
#include "core/util.h"

/* Prefix every failure with the server it concerns. */
static int conn_fail(struct conn *c, int rc, const char *what)
{
    snprintf(c->why, sizeof c->why, "server %u (pid %d): %s", c->index,
             (int)c->pid, what);
    return rc;
}

int conn_failed(struct conn *c, int err, const char *fmt, ...)
{
    char what[CONN_WHY_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return conn_fail(c, err, what);
}

int conn_open(struct conn *c, const struct transport_ops *tp,
              const struct wire_ops *wire, const struct target *t,
              unsigned index, pid_t pid, size_t payload_bytes,
              int64_t timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->tp = tp;
    c->wire = wire;
    c->target = *t;
    c->fds.rfd = c->fds.wfd = -1;
    c->index = index;
    c->pid = pid;
    c->payload_bytes = payload_bytes;
    c->timeout_ms = timeout_ms;
    c->next_id = 1;
    cdr_out_init(&c->tx, cdr_host_little());
    c->payload = malloc(payload_bytes + 1);
    c->rx.cap = 512; /* grows to the first reply that needs more */
    c->rx.buf = malloc(c->rx.cap);
    char why[CONN_WHY_BYTES];
    int rc = c->payload && c->rx.buf
                 ? tp->connect(t, &c->fds, timeout_ms, why, sizeof why)
                 : -ENOMEM;
    if (rc) {
        /* Handed-over descriptors are the conn's from here on, taken or
         * not: never leave them open. */
        if (t->rfd >= 0 && c->fds.rfd != t->rfd)
            close(t->rfd);
        if (t->wfd >= 0 && c->fds.wfd != t->wfd)
            close(t->wfd);
    }
    /* Used once: a reconnect must not take descriptor numbers that may
     * since belong to another connection. */
    c->target.rfd = c->target.wfd = -1;
    if (rc == -ENOMEM)
        return conn_fail(c, rc, "out of memory");
    if (rc)
        return conn_fail(c, rc, why);
    return 0;
}

void conn_close(struct conn *c)
{
    if (c->tp && c->fds.rfd >= 0)
        c->tp->close(&c->fds);
    c->fds.rfd = c->fds.wfd = -1;
    cdr_out_free(&c->tx);
    free(c->payload);
    free(c->rx.buf);
    c->payload = NULL;
    c->rx.buf = NULL;
}

int conn_use_payload(struct conn *c, const struct payload_type *t)
{
    if (t && strcmp(payload_name(t), "string") == 0)
        t = NULL; /* echoString, as without a typed payload */
    if (t && (!c->wire->encode_typed || !c->wire->set_id))
        return conn_fail(c, -ENOTSUP, "this server's wire has no typed "
                         "payloads");
    c->ptype = t;
    c->rx.body_only = t != NULL;
    c->tx_ready = false;
    return 0;
}

/* Connect again after the server closed the connection. */
static int reconnect(struct conn *c)
{
    if (c->fds.rfd >= 0)
        c->tp->close(&c->fds);
    c->fds.rfd = c->fds.wfd = -1;
    char why[CONN_WHY_BYTES];
    int rc = c->tp->connect(&c->target, &c->fds, c->timeout_ms, why,
                            sizeof why);
    if (rc) {
        char what[CONN_WHY_BYTES];
        snprintf(what, sizeof what, "connecting again after the server "
                 "closed the connection: %s", why);
        return conn_fail(c, rc, what);
    }
    c->reconnects++;
    c->closed_by_peer = false;
    c->fd_changed = true;
    return 0;
}

/* Are `len` bytes at `bytes` exactly a CloseConnection? */
static bool is_close(const struct conn *c, uint8_t *bytes, size_t len)
{
    struct wire_rx rx = {.buf = bytes, .len = len, .cap = len};
    struct wire_reply r;
    size_t want;
    char why[CONN_WHY_BYTES];
    return c->wire->feed(&rx, &want, &r, why, sizeof why) == WIRE_CLOSED;
}

int conn_refresh(struct conn *c)
{
    if (c->fds.rfd < 0)
        return 0;
    if (c->closed_by_peer)
        return reconnect(c) ? -1 : 1;
    struct pollfd p = {.fd = c->fds.rfd, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0)
        return 0;
    /* A CloseConnection is one 12-byte write: one read sees all of it. */
    uint8_t buf[64];
    ssize_t n = c->tp->recv(&c->fds, buf, sizeof buf);
    if (n == -EAGAIN)
        return 0;
    if (n > 0 && is_close(c, buf, (size_t)n))
        return reconnect(c) ? -1 : 1;
    char what[CONN_WHY_BYTES];
    if (n > 0)
        snprintf(what, sizeof what, "%zd bytes between calls that are not "
                 "a CloseConnection", n);
    else if (n == 0)
        snprintf(what, sizeof what, "the server closed the connection "
                 "between calls without a CloseConnection");
    else
        snprintf(what, sizeof what, "recv between calls: %s",
                 strerror((int)-n));
    return conn_fail(c, n > 0 ? -EBADMSG : n == 0 ? -ECONNRESET : (int)n,
                     what);
}

int conn_resend(struct conn *c)
{
    if (++c->resends > CONN_MAX_RESENDS) {
        char what[96];
        snprintf(what, sizeof what, "the server closed the connection %d "
                 "times before replying", CONN_MAX_RESENDS + 1);
        return conn_fail(c, -ECONNRESET, what);
    }
    int rc = reconnect(c);
    if (rc)
        return rc;
    c->tx_done = 0;
    c->rx.len = 0;
    c->rx.parsed = 0;
    /* The request is sent again: it has call.timeout_ms from now (its
     * time is still counted from the first send). */
    c->deadline_ns = now_ns() + c->timeout_ms * 1000000;
    return 0;
}

void conn_payload_for(const struct conn *c, uint32_t id, char *buf)
{
    int n = snprintf(buf, c->payload_bytes + 1, "s%u#%u:", c->index, id);
    size_t len = n < 0 ? 0 : (size_t)n;
    if (len > c->payload_bytes)
        len = c->payload_bytes;
    for (size_t i = len; i < c->payload_bytes; i++)
        buf[i] = (char)('a' + (id + i) % 26);
    buf[c->payload_bytes] = 0;
}

static void make_payload(struct conn *c)
{
    conn_payload_for(c, c->id, c->payload);
    c->payload_len = c->payload_bytes;
}

/* The call of a typed payload: encoded on the first call (in host byte
 * order: the raw wire's echo comes back in it), then only its id changes,
 * so a call costs the client no marshaling. */
static int encode_typed(struct conn *c)
{
    if (c->tx_ready) {
        c->wire->set_id(&c->tx, c->id);
        return 0;
    }
    cdr_out_reset(&c->tx, cdr_host_little());
    int rc = c->wire->encode_typed(&c->tx, &c->target, c->id, c->ptype,
                                   c->index, &c->value_at);
    c->tx_ready = rc == 0;
    return rc;
}

int conn_begin(struct conn *c)
{
    if (c->closed_by_peer) {
        int rc = reconnect(c);
        if (rc)
            return rc;
    }
    c->resends = 0;
    c->id = c->next_id++;
    int rc;
    if (c->ptype) {
        rc = encode_typed(c);
    } else {
        make_payload(c);
        cdr_out_reset(&c->tx, cdr_host_little());
        rc = c->wire->encode_call(&c->tx, &c->target, c->id, c->payload,
                                  c->payload_len);
    }
    if (rc) {
        char what[96];
        snprintf(what, sizeof what, "cannot encode request: %s",
                 strerror(-rc));
        return conn_fail(c, rc, what);
    }
    c->tx_done = 0;
    c->rx.len = 0;
    c->rx.parsed = 0;
    c->sent_ns = now_ns();
    c->deadline_ns = c->sent_ns + c->timeout_ms * 1000000;
    return 0;
}

/* Is a CloseConnection waiting to be read? */
static bool close_waiting(struct conn *c)
{
    uint8_t buf[64];
    ssize_t n = c->tp->recv(&c->fds, buf, sizeof buf);
    return n > 0 && is_close(c, buf, (size_t)n);
}

int conn_write_some(struct conn *c)
{
    while (c->tx_done < c->tx.len) {
        ssize_t n = c->tp->send(&c->fds, c->tx.data + c->tx_done,
                                c->tx.len - c->tx_done);
        if (n == -EAGAIN)
            return 0;
        if (n < 0) {
            /* A server that closed the connection with a CloseConnection
             * (which we have not read yet) did not take the request. */
            if ((n == -EPIPE || n == -ECONNRESET) && close_waiting(c))
                return CONN_RESEND;
            char what[128];
            snprintf(what, sizeof what, "send: %s", strerror((int)-n));
            return conn_fail(c, (int)n, what);
        }
        c->tx_done += (size_t)n;
    }
    return 1;
}

int conn_check_typed(struct conn *c, const struct wire_reply *r,
                     const uint8_t *sent, size_t sent_len, bool sent_little)
{
    if (r->little == sent_little && r->payload_len == sent_len &&
        memcmp(r->payload, sent, sent_len) == 0)
        return 0;
    char what[CONN_WHY_BYTES - 64], why[CONN_WHY_BYTES];
    struct cdr_in in;
    /* The body starts 8-aligned in its message: alignment from its start
     * is the message's. */
    cdr_in_init(&in, r->payload, r->payload_len, r->little);
    int rc = payload_check(c->ptype, c->index, &in, what, sizeof what);
    if (rc == 0 && cdr_in_left(&in) == 0)
        return 0;
    if (rc == 0)
        snprintf(what, sizeof what, "%s: %zu bytes after the value",
                 payload_name(c->ptype), cdr_in_left(&in));
    snprintf(why, sizeof why, "echo differs from what was sent: %s", what);
    return conn_fail(c, -EBADMSG, why);
}

static int check_typed(struct conn *c, const struct wire_reply *r)
{
    return conn_check_typed(c, r, c->tx.data + c->value_at,
                            c->tx.len - c->value_at, c->tx.little);
}

/* Is this the reply to the call in flight? */
static int check_reply(struct conn *c, const struct wire_reply *r)
{
    char why[CONN_WHY_BYTES];
    if (r->id != c->id) {
        snprintf(why, sizeof why, "reply has request id %u, expected %u",
                 r->id, c->id);
        return conn_fail(c, -EBADMSG, why);
    }
    if (c->ptype) {
        int rc = check_typed(c, r);
        if (rc)
            return rc;
    } else if (r->payload_len != c->payload_len ||
               memcmp(r->payload, c->payload, r->payload_len) != 0) {
        snprintf(why, sizeof why,
                 "echo differs from what was sent (sent %zu bytes, got %zu)",
                 c->payload_len, r->payload_len);
        return conn_fail(c, -EBADMSG, why);
    }
    /* After its reply a server may close the connection (GIOP lets it):
     * the next call connects again. Anything else is an error. */
    if (c->rx.len > r->bytes) {
        if (!is_close(c, c->rx.buf + r->bytes, c->rx.len - r->bytes))
            return conn_fail(c, -EBADMSG, "unexpected bytes after the reply");
        c->closed_by_peer = true;
    }
    return 0;
}

static int timed_out(struct conn *c)
{
    char what[96];
    snprintf(what, sizeof what, "no reply within %lld ms",
             (long long)c->timeout_ms);
    return conn_fail(c, -ETIMEDOUT, what);
}

int conn_read_some(struct conn *c, int64_t *latency_ns)
{
    for (bool first = true;; first = false) {
        size_t want = 0;
        struct wire_reply r;
        char why[CONN_WHY_BYTES];
        int rc = c->wire->feed(&c->rx, &want, &r, why, sizeof why);
        if (rc == WIRE_REPLY) {
            int64_t t = now_ns();
            rc = check_reply(c, &r);
            if (rc)
                return rc;
            c->reply_bytes = r.bytes;
            *latency_ns = t - c->sent_ns;
            return 1;
        }
        if (rc == WIRE_CLOSED)
            return CONN_RESEND;
        if (rc < 0)
            return conn_fail(c, rc, why);
        /* Bytes that keep coming must not hold a call past its deadline
         * (the wire's size limit bounds them too). */
        if (!first && now_ns() >= c->deadline_ns)
            return timed_out(c);
        if (want < c->rx.len + 64)
            want = c->rx.len + 64; /* read what is there, not byte by byte */
        if (want > c->rx.cap) {
            uint8_t *p = realloc(c->rx.buf, want);
            if (!p)
                return conn_fail(c, -ENOMEM, "out of memory");
            c->rx.buf = p;
            c->rx.cap = want;
        }
        ssize_t n = c->tp->recv(&c->fds, c->rx.buf + c->rx.len,
                                c->rx.cap - c->rx.len);
        if (n == -EAGAIN)
            return 0;
        if (n < 0) {
            char what[128];
            snprintf(what, sizeof what, "recv: %s", strerror((int)-n));
            return conn_fail(c, (int)n, what);
        }
        if (n == 0)
            return conn_fail(c, -ECONNRESET,
                             "connection closed by the server");
        c->rx.len += (size_t)n;
    }
}

/* Wait until the fd is ready for `events` or the call's deadline passes. */
static int wait_fd(struct conn *c, int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        int ms = ms_until(c->deadline_ns);
        if (ms == 0)
            return timed_out(c);
        int rc = poll(&p, 1, ms);
        if (rc > 0)
            return 0;
        if (rc < 0 && errno == EINTR)
            return conn_fail(c, -EINTR, "interrupted");
        if (rc < 0)
            return conn_fail(c, -errno, "poll failed");
    }
}

int conn_call(struct conn *c, int64_t *latency_ns)
{
    int rc = conn_begin(c);
    while (rc == 0) {
        rc = conn_write_some(c);
        while (rc == 0) {
            rc = wait_fd(c, c->fds.wfd, POLLOUT);
            if (rc == 0)
                rc = conn_write_some(c);
        }
        if (rc == 1) {
            /* A read before the first poll almost always finds nothing
             * (4 system calls a call where 3 would do), yet it is the
             * faster order (docs/measured/2026-11-30-misbehaving-
             * servers.md, "Read before poll, or poll first"). */
            rc = conn_read_some(c, latency_ns);
            while (rc == 0) {
                rc = wait_fd(c, c->fds.rfd, POLLIN);
                if (rc == 0)
                    rc = conn_read_some(c, latency_ns);
            }
            if (rc == 1)
                return 0;
        }
        if (rc != CONN_RESEND)
            return rc;
        rc = conn_resend(c);
    }
    return rc;
}
