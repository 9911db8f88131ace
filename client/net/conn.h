/* One client connection to one server: a transport, a wire, and the call
 * in flight. Calls are made either blocking (conn_call) or step by step on
 * non-blocking descriptors (conn_begin, conn_write_some, conn_read_some)
 * for event loops. A conn is used by one thread at a time. */
#ifndef ORBBENCH_CONN_H
#define ORBBENCH_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "codec/cdr.h"
#include "net/transport.h"
#include "net/wire.h"

#define CONN_WHY_BYTES 320
/* conn_write_some, conn_read_some: the server closed the connection
 * (GIOP CloseConnection) without processing the request; GIOP lets the
 * client send it again: conn_resend, then write again. */
#define CONN_RESEND 2
/* A call is sent again at most this often. */
#define CONN_MAX_RESENDS 3

struct conn {
    const struct transport_ops *tp;
    const struct wire_ops *wire;
    struct target target;
    struct conn_fds fds;
    unsigned index; /* server number in the sweep */
    pid_t pid;      /* server process */
    size_t payload_bytes;
    /* A typed payload (conn_use_payload), or NULL: echoString of
     * payload_bytes. Its call is encoded once into tx (value_at: where
     * the value's bytes start) and then only given each call's id. */
    const struct payload_type *ptype;
    size_t value_at;
    bool tx_ready;
    size_t reply_bytes; /* the last reply's size on the wire */
    uint32_t next_id;
    /* the call in flight */
    uint32_t id;
    char *payload;
    size_t payload_len;
    struct cdr_out tx;
    size_t tx_done;
    struct wire_rx rx;   /* the reply being received */
    int64_t sent_ns;
    int64_t deadline_ns; /* sent_ns + timeout_ms */
    int64_t timeout_ms;  /* per call, and per connect */
    unsigned reconnects; /* after the server closed the connection */
    unsigned resends;    /* of the call in flight */
    bool closed_by_peer; /* a CloseConnection came after the last reply */
    bool fd_changed;     /* reconnected: event loops must watch the new fd;
                          * they clear it */
    char why[CONN_WHY_BYTES]; /* the last failure, one line */
};

/* Connect to `t`, waiting at most timeout_ms (which also bounds each
 * call). Descriptors handed over in t (t->rfd, t->wfd >= 0) belong to the
 * conn from here on, also when it fails. Returns 0 or -errno (see c->why): -ETIMEDOUT, -EINTR when a
 * signal came. On failure the conn holds no descriptor; conn_close is
 * still safe. */
int conn_open(struct conn *c, const struct transport_ops *tp,
              const struct wire_ops *wire, const struct target *t,
              unsigned index, pid_t pid, size_t payload_bytes,
              int64_t timeout_ms);
void conn_close(struct conn *c);

/* Echo typed payload t (payload.h) on every call from now on: the value
 * for seed c->index, checked field by field in the reply (a reply in our
 * byte order is compared byte for byte first). NULL, or the "string"
 * entry, keeps echoString of payload_bytes. 0, or -ENOTSUP when the
 * conn's wire has no typed calls (see c->why). */
int conn_use_payload(struct conn *c, const struct payload_type *t);

/* Between calls: has the server closed the connection with a GIOP
 * CloseConnection? Then connect again, as an ORB's client does. 0 nothing
 * to do, 1 reconnected (c->reconnects counts, c->fd_changed), -errno (see
 * c->why): -EBADMSG for bytes no call asked for, -ECONNRESET for a close
 * without CloseConnection (not an orderly one). Costs one poll(2) when
 * nothing happened. */
int conn_refresh(struct conn *c);

/* Encode the next call; stamps sent_ns and the call's deadline. When the
 * server closed the connection after the last reply, connect again first
 * (c->fd_changed). 0 or -errno (see c->why). */
int conn_begin(struct conn *c);
/* Write what the transport takes: 1 when the request is all out, 0 when it
 * would block, CONN_RESEND, -errno on failure (see c->why). */
int conn_write_some(struct conn *c);
/* Read what is there: 1 when the reply is complete and checked (right id,
 * right echo: for a typed payload the right value, else -EBADMSG naming
 * the first wrong field) with *latency_ns = reply time - sent_ns (the first send:
 * a resent call's time includes the resend); 0 when more is needed;
 * CONN_RESEND; -errno on failure (see c->why): -ECONNRESET for end of stream
 * or a CloseConnection, -EREMOTEIO for an exception reply, -EBADMSG for
 * a wrong reply, -EMSGSIZE for one over the wire's limit, -ETIMEDOUT
 * when bytes keep coming past the call's deadline. */
int conn_read_some(struct conn *c, int64_t *latency_ns);

/* After CONN_RESEND: connect again (c->fd_changed) and rewind the call
 * in flight (its id, payload and sent_ns stay; its deadline is
 * timeout_ms from now). 0 or -errno
 * (see c->why), -ECONNRESET after CONN_MAX_RESENDS. */
int conn_resend(struct conn *c);

/* The echoString payload of call `id` on c: payload_bytes characters
 * unique to this server and call while the id fits ("s3#17:" then
 * letters), so that a reply meant for another call fails the check; buf
 * holds payload_bytes + 1 (a NUL ends it). */
void conn_payload_for(const struct conn *c, uint32_t id, char *buf);

/* Does reply r of c's typed payload hold the value sent (`sent_len`
 * bytes at `sent`, encoded in byte order sent_little)? Byte for byte when
 * the orders agree, else decoded and compared field by field. 0, or
 * -EBADMSG naming the first wrong field (see c->why). */
int conn_check_typed(struct conn *c, const struct wire_reply *r,
                     const uint8_t *sent, size_t sent_len, bool sent_little);

/* Note a failure on c: c->why becomes "server I (pid P): " and the
 * formatted text. Returns err. */
int conn_failed(struct conn *c, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One blocking call: send, wait for the reply, check it; a call the
 * server closed the connection on is sent again. Fails with
 * -ETIMEDOUT after the conn's timeout_ms. 0 or -errno (see c->why). */
int conn_call(struct conn *c, int64_t *latency_ns);

#endif
