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

#include "cdr.h"
#include "transport.h"
#include "wire.h"

#define CONN_WHY_BYTES 320

struct conn {
    const struct transport_ops *tp;
    const struct wire_ops *wire;
    struct target target;
    struct conn_fds fds;
    unsigned index; /* server number in the sweep */
    pid_t pid;      /* server process */
    size_t payload_bytes;
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
    char why[CONN_WHY_BYTES]; /* the last failure, one line */
};

/* Connect to `t`, waiting at most timeout_ms (which also bounds each
 * call). Returns 0 or -errno (see c->why): -ETIMEDOUT, -EINTR when a
 * signal came. On failure the conn holds no descriptor; conn_close is
 * still safe. */
int conn_open(struct conn *c, const struct transport_ops *tp,
              const struct wire_ops *wire, const struct target *t,
              unsigned index, pid_t pid, size_t payload_bytes,
              int64_t timeout_ms);
void conn_close(struct conn *c);

/* Between calls: has the server closed the connection (a GIOP
 * CloseConnection, or end of stream)? Then connect again, as an ORB's
 * client does. 0 nothing to do, 1 reconnected (c->reconnects counts),
 * -errno (see c->why), e.g. -EBADMSG for bytes no call asked for. Costs
 * one poll(2) when nothing happened. */
int conn_refresh(struct conn *c);

/* Encode the next call; stamps sent_ns and the call's deadline. 0 or
 * -ENOMEM. */
int conn_begin(struct conn *c);
/* Write what the transport takes: 1 when the request is all out, 0 when it
 * would block, -errno on failure (see c->why). */
int conn_write_some(struct conn *c);
/* Read what is there: 1 when the reply is complete and checked (right id,
 * right echo) with *latency_ns = reply time - sent_ns; 0 when more is
 * needed; -errno on failure (see c->why): -ECONNRESET for end of stream
 * or a CloseConnection, -EREMOTEIO for an exception reply, -EBADMSG for
 * a wrong reply, -EMSGSIZE for one over the wire's limit, -ETIMEDOUT
 * when bytes keep coming past the call's deadline. */
int conn_read_some(struct conn *c, int64_t *latency_ns);

/* One blocking call: send, wait for the reply, check it. Fails with
 * -ETIMEDOUT after the conn's timeout_ms. 0 or -errno (see c->why). */
int conn_call(struct conn *c, int64_t *latency_ns);

#endif
