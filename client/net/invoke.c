/* Blocking GIOP calls of any signature: see invoke.h. */
#include "net/invoke.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/giop.h"
#include "core/util.h"

static int invoke_fail(struct invoke *v, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int invoke_fail(struct invoke *v, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
    return rc;
}

int invoke_open(struct invoke *v, const struct transport_ops *tp,
                const struct target *t, int64_t timeout_ms)
{
    memset(v, 0, sizeof *v);
    v->tp = tp;
    v->fds.rfd = v->fds.wfd = -1;
    v->next_id = 1;
    v->rx_cap = 1024;
    v->rx = malloc(v->rx_cap);
    if (!v->rx)
        return invoke_fail(v, -ENOMEM, "out of memory");
    return tp->connect(t, &v->fds, timeout_ms, v->why, sizeof v->why);
}

void invoke_close(struct invoke *v)
{
    if (v->tp && v->fds.rfd >= 0)
        v->tp->close(&v->fds);
    v->fds.rfd = v->fds.wfd = -1;
    free(v->rx);
    v->rx = NULL;
}

/* Wait for `events` on fd until the deadline. */
static int wait_fd(struct invoke *v, int fd, short events,
                   int64_t deadline_ns, const char *what)
{
    struct pollfd p = {.fd = fd, .events = events};
    int ms = ms_until(deadline_ns);
    int n = ms > 0 ? poll(&p, 1, ms) : 0;
    if (n > 0)
        return 0;
    if (n == 0)
        return invoke_fail(v, -ETIMEDOUT, "no %s in time", what);
    if (errno == EINTR)
        return invoke_fail(v, -EINTR, "interrupted");
    return invoke_fail(v, -errno, "poll: %s", strerror(errno));
}

static int send_all(struct invoke *v, const uint8_t *p, size_t len,
                    int64_t deadline_ns)
{
    /* Bounded by the deadline: each pass moves bytes or waits in poll. */
    while (len > 0) {
        ssize_t n = v->tp->send(&v->fds, p, len);
        if (n == -EAGAIN) {
            int rc = wait_fd(v, v->fds.wfd, POLLOUT, deadline_ns,
                             "room to send the request");
            if (rc)
                return rc;
            continue;
        }
        if (n < 0)
            return invoke_fail(v, (int)n, "send: %s", strerror((int)-n));
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read one whole message into v->rx. */
static int read_message(struct invoke *v, int64_t deadline_ns)
{
    size_t want = GIOP_HEADER_BYTES;
    v->rx_len = 0;
    while (v->rx_len < want) {
        if (want > v->rx_cap) {
            uint8_t *p = realloc(v->rx, want);
            if (!p)
                return invoke_fail(v, -ENOMEM, "out of memory");
            v->rx = p;
            v->rx_cap = want;
        }
        ssize_t n = v->tp->recv(&v->fds, v->rx + v->rx_len, want - v->rx_len);
        if (n == -EAGAIN) {
            int rc = wait_fd(v, v->fds.rfd, POLLIN, deadline_ns, "reply");
            if (rc)
                return rc;
            continue;
        }
        if (n < 0)
            return invoke_fail(v, (int)n, "recv: %s", strerror((int)-n));
        if (n == 0)
            return invoke_fail(v, -ECONNRESET, "the server closed the "
                               "connection");
        v->rx_len += (size_t)n;
        if (v->rx_len == GIOP_HEADER_BYTES) {
            struct giop_header h;
            int rc = giop_header_parse(v->rx, v->rx_len, &h);
            if (rc)
                return invoke_fail(v, -EBADMSG, "malformed reply header "
                                   "(%s)", strerror(-rc));
            want = GIOP_HEADER_BYTES + (size_t)h.body_bytes;
        }
    }
    return 0;
}

int invoke_call(struct invoke *v, struct cdr_out *req, int64_t deadline_ns,
                struct cdr_in *body)
{
    uint32_t id = v->next_id++;
    giop_set_request_id(req, id);
    int rc = send_all(v, req->data + req->origin, req->len - req->origin,
                      deadline_ns);
    if (!rc)
        rc = read_message(v, deadline_ns);
    if (rc)
        return rc;
    struct giop_reply r;
    uint8_t type;
    if (giop_more_fragments(v->rx, v->rx_len))
        return invoke_fail(v, -EBADMSG, "a fragmented reply (not joined "
                           "here)");
    rc = giop_decode_reply_body(v->rx, v->rx_len, &r, &type);
    if (rc == -ENOMSG && type == GIOP_CLOSE_CONNECTION)
        return invoke_fail(v, -ECONNRESET, "the server closed the "
                           "connection (CloseConnection)");
    if (rc)
        return invoke_fail(v, -EBADMSG, "expected a GIOP 1.2 Reply, got %s "
                           "(%s)", giop_msg_type_name(type), strerror(-rc));
    if (r.request_id != id)
        return invoke_fail(v, -EBADMSG, "reply has request id %u, expected "
                           "%u", r.request_id, id);
    if (r.status == GIOP_USER_EXCEPTION || r.status == GIOP_SYSTEM_EXCEPTION)
        return invoke_fail(v, -EREMOTEIO, "the server raised %.*s",
                           (int)r.exception_id_len, r.exception_id);
    if (r.status != GIOP_NO_EXCEPTION)
        return invoke_fail(v, -EREMOTEIO, "reply status %s (not followed)",
                           giop_reply_status_name(r.status));
    cdr_in_init(body, v->rx, v->rx_len, r.little);
    body->pos = r.body_at;
    return 0;
}
