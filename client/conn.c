/* One client connection: see conn.h. */
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Prefix every failure with the server it concerns. */
static int conn_fail(struct conn *c, int rc, const char *what)
{
    snprintf(c->why, sizeof c->why, "server %u (pid %d): %s", c->index,
             (int)c->pid, what);
    return rc;
}

int conn_open(struct conn *c, const struct transport_ops *tp,
              const struct wire_ops *wire, const struct target *t,
              unsigned index, pid_t pid, size_t payload_bytes)
{
    memset(c, 0, sizeof *c);
    c->tp = tp;
    c->wire = wire;
    c->target = *t;
    c->fds.rfd = c->fds.wfd = -1;
    c->index = index;
    c->pid = pid;
    c->payload_bytes = payload_bytes;
    c->next_id = 1;
    cdr_out_init(&c->tx, cdr_host_little());
    c->payload = malloc(payload_bytes + 1);
    c->rx_cap = 512; /* grows to the first reply that needs more */
    c->rx = malloc(c->rx_cap);
    if (!c->payload || !c->rx)
        return conn_fail(c, -ENOMEM, "out of memory");
    char why[CONN_WHY_BYTES];
    int rc = tp->connect(t, &c->fds, why, sizeof why);
    if (rc)
        return conn_fail(c, rc, why);
    return 0;
}

void conn_close(struct conn *c)
{
    if (c->tp && c->fds.rfd >= 0)
        c->tp->close(&c->fds);
    cdr_out_free(&c->tx);
    free(c->payload);
    free(c->rx);
    c->payload = NULL;
    c->rx = NULL;
}

/* A payload unique to this server and call, so a reply meant for another
 * call cannot pass the echo check. */
static void make_payload(struct conn *c)
{
    int n = snprintf(c->payload, c->payload_bytes + 1, "s%u#%u:", c->index,
                     c->id);
    size_t len = n < 0 ? 0 : (size_t)n;
    if (len > c->payload_bytes)
        len = c->payload_bytes;
    for (size_t i = len; i < c->payload_bytes; i++)
        c->payload[i] = (char)('a' + (c->id + i) % 26);
    c->payload[c->payload_bytes] = 0;
    c->payload_len = c->payload_bytes;
}

int conn_begin(struct conn *c)
{
    c->id = c->next_id++;
    make_payload(c);
    cdr_out_reset(&c->tx, cdr_host_little());
    int rc = c->wire->encode_call(&c->tx, &c->target, c->id, c->payload,
                                  c->payload_len);
    if (rc)
        return conn_fail(c, rc, "cannot encode request: out of memory");
    c->tx_done = 0;
    c->rx_len = 0;
    c->rx_joined = 0;
    c->sent_ns = now_ns();
    return 0;
}

int conn_write_some(struct conn *c)
{
    while (c->tx_done < c->tx.len) {
        ssize_t n = c->tp->send(&c->fds, c->tx.data + c->tx_done,
                                c->tx.len - c->tx_done);
        if (n == -EAGAIN)
            return 0;
        if (n < 0) {
            char what[128];
            snprintf(what, sizeof what, "send: %s", strerror((int)-n));
            return conn_fail(c, (int)n, what);
        }
        c->tx_done += (size_t)n;
    }
    return 1;
}

/* Check a complete reply of `len` bytes at the start of rx. */
static int check_reply(struct conn *c, size_t len)
{
    uint32_t id;
    const char *echo;
    size_t echo_len;
    char why[CONN_WHY_BYTES];
    int rc = c->wire->decode_reply(c->rx, len, &id, &echo, &echo_len, why,
                                   sizeof why);
    if (rc)
        return conn_fail(c, rc, why);
    if (id != c->id) {
        snprintf(why, sizeof why, "reply has request id %u, expected %u", id,
                 c->id);
        return conn_fail(c, -EBADMSG, why);
    }
    if (echo_len != c->payload_len ||
        memcmp(echo, c->payload, echo_len) != 0) {
        snprintf(why, sizeof why,
                 "echo differs from what was sent (sent %zu bytes, got %zu)",
                 c->payload_len, echo_len);
        return conn_fail(c, -EBADMSG, why);
    }
    return 0;
}

/* The message at rx + at (total bytes) is complete. Join it to a
 * fragmented reply or finish: 1 reply complete and checked, 0 more
 * fragments to come, -errno. */
static int message_done(struct conn *c, size_t at, size_t total,
                        int64_t *latency_ns)
{
    const struct wire_ops *w = c->wire;
    int64_t t = now_ns();
    bool more = false;
    if (at > 0) {
        /* A continuation: drop its header, close the gap (and move any
         * bytes read past it along), fix the joined message's header. */
        size_t header = 0;
        int rc = w->fragment_info(c->rx, at, c->rx + at, total, &header,
                                  &more);
        if (rc) {
            char what[128];
            snprintf(what, sizeof what, "bad reply fragment (%s)",
                     strerror(-rc));
            return conn_fail(c, -EBADMSG, what);
        }
        memmove(c->rx + at, c->rx + at + header, c->rx_len - at - header);
        c->rx_len -= header;
        total -= header;
        w->set_size(c->rx, at + total, more);
    } else if (w->more_fragments && w->more_fragments(c->rx, total)) {
        if (!w->fragment_info)
            return conn_fail(c, -EBADMSG, "fragmented reply not supported");
        more = true;
    }
    c->rx_joined = at + total;
    if (more)
        return 0;
    if (c->rx_len > c->rx_joined)
        return conn_fail(c, -EBADMSG, "unexpected bytes after the reply");
    int rc = check_reply(c, c->rx_joined);
    if (rc)
        return rc;
    *latency_ns = t - c->sent_ns;
    return 1;
}

int conn_read_some(struct conn *c, int64_t *latency_ns)
{
    for (;;) {
        /* The message being read starts after what is joined so far. */
        size_t at = c->rx_joined, total = 0;
        int rc = c->wire->frame_bytes(c->rx + at, c->rx_len - at, &total);
        if (rc && rc != -EAGAIN) {
            char what[128];
            snprintf(what, sizeof what, "malformed reply header (%s)",
                     strerror(-rc));
            return conn_fail(c, -EBADMSG, what);
        }
        if (rc == 0 && c->rx_len - at >= total) {
            rc = message_done(c, at, total, latency_ns);
            if (rc)
                return rc;
            continue; /* a fragment: its continuation may be in already */
        }
        size_t want = at + (rc == 0 ? total : c->rx_len - at + 64);
        if (want > c->rx_cap) {
            uint8_t *p = realloc(c->rx, want);
            if (!p)
                return conn_fail(c, -ENOMEM, "out of memory");
            c->rx = p;
            c->rx_cap = want;
        }
        ssize_t n = c->tp->recv(&c->fds, c->rx + c->rx_len,
                                c->rx_cap - c->rx_len);
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
        c->rx_len += (size_t)n;
    }
}

/* Wait until the fd is ready for `events` or the deadline passes. */
static int wait_fd(struct conn *c, int fd, short events, int64_t deadline,
                   int64_t timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        int ms = ms_until(deadline);
        if (ms == 0) {
            char what[96];
            snprintf(what, sizeof what, "no reply within %lld ms",
                     (long long)timeout_ms);
            return conn_fail(c, -ETIMEDOUT, what);
        }
        int rc = poll(&p, 1, ms);
        if (rc > 0)
            return 0;
        if (rc < 0 && errno == EINTR)
            return conn_fail(c, -EINTR, "interrupted");
        if (rc < 0)
            return conn_fail(c, -errno, "poll failed");
    }
}

int conn_call(struct conn *c, int64_t timeout_ms, int64_t *latency_ns)
{
    int rc = conn_begin(c);
    int64_t deadline = c->sent_ns + timeout_ms * 1000000;
    while (rc == 0) {
        rc = conn_write_some(c);
        if (rc == 0)
            rc = wait_fd(c, c->fds.wfd, POLLOUT, deadline, timeout_ms);
        else if (rc == 1)
            break;
    }
    while (rc >= 0) {
        rc = conn_read_some(c, latency_ns);
        if (rc == 1)
            return 0;
        if (rc == 0)
            rc = wait_fd(c, c->fds.rfd, POLLIN, deadline, timeout_ms);
    }
    return rc;
}
