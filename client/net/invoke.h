/* Blocking GIOP 1.2 calls of any signature on one connection: the caller
 * builds the request (giop_request_begin, its arguments,
 * giop_message_end), invoke_call sends it under a fresh request id and
 * hands back a cursor on the reply's body. For the event channel's set-up
 * calls and pushes (kind channel); the echo calls of the other kinds go
 * through conn.c. Replies are small here (void, object references): a
 * fragmented one is refused, not joined. */
#ifndef ORBBENCH_INVOKE_H
#define ORBBENCH_INVOKE_H

#include <stddef.h>
#include <stdint.h>

#include "codec/cdr.h"
#include "net/transport.h"

#define INVOKE_WHY_BYTES 320

struct invoke {
    const struct transport_ops *tp;
    struct conn_fds fds;
    uint8_t *rx; /* the last reply */
    size_t rx_len, rx_cap;
    uint32_t next_id;
    char why[INVOKE_WHY_BYTES]; /* the last failure, one line */
};

/* Connect to `t` within timeout_ms. 0 or -errno (see v->why); on failure
 * v holds nothing, invoke_close is still safe. */
int invoke_open(struct invoke *v, const struct transport_ops *tp,
                const struct target *t, int64_t timeout_ms);
void invoke_close(struct invoke *v);

/* Send the request at req->origin (its request id rewritten to a fresh
 * one) and wait until deadline_ns (now_ns clock) for its reply. 0 with
 * *body on the reply's body (NO_EXCEPTION; borrowed until the next call),
 * or -errno with v->why: -ETIMEDOUT, -EINTR (a signal), -ECONNRESET (the
 * server closed the connection), -EREMOTEIO (an exception: its id in
 * why), -EBADMSG (not the reply expected). */
int invoke_call(struct invoke *v, struct cdr_out *req, int64_t deadline_ns,
                struct cdr_in *body);

#endif
