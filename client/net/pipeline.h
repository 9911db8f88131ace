/* Several requests in flight on one connection (pipelining): requests
 * queued into the conn's transmit buffer and written as the transport
 * takes them, replies matched to their requests by request id in
 * whatever order the server sends them, every echo checked (a string's
 * characters, or a typed payload's value). For event loops: the conn's
 * descriptors are non-blocking, one thread uses a pipeline, and nothing
 * here waits. Failures name the server in c->why (conn_failed). */
#ifndef ORBBENCH_PIPELINE_H
#define ORBBENCH_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/cdr.h"
#include "net/conn.h"
#include "net/wire.h"

/* A request awaiting its reply. */
struct pipeline_slot {
    uint32_t id;
    bool used;
    int64_t sent_ns; /* when it was queued */
    int64_t due_ns;  /* the caller's: when it was meant to go */
    uint32_t tag;    /* the caller's: what it belongs to */
};

struct pipeline {
    struct conn *c;
    struct pipeline_slot *slots; /* depth of them */
    size_t depth;
    size_t in_flight;
    uint64_t sent; /* requests queued (oneway or not), in total */
    uint64_t done; /* replies to them checked, in total */
    char *expect;  /* scratch: the string a reply must echo */
    /* A typed payload (c->ptype): its call encoded once, copied for
     * each request with its own id. */
    struct cdr_out typed;
    size_t value_at;
    bool typed_ready;
};

/* Up to `depth` (>= 1) two-way requests in flight on conn c (open, its
 * payload attached). 0 or -ENOMEM. */
int pipeline_init(struct pipeline *p, struct conn *c, size_t depth);
void pipeline_free(struct pipeline *p);

/* Bytes are queued that the transport has not taken yet. */
bool pipeline_writing(const struct pipeline *p);

/* Queue one two-way echo request in a free slot, sent_ns now, with the
 * caller's due_ns and tag. 0, -ENOBUFS when every slot is in flight
 * (nothing queued), or -errno (see c->why). */
int pipeline_call(struct pipeline *p, int64_t due_ns, uint32_t tag);

/* Queue one oneway request (the wire's encode_oneway; no slot, no
 * reply): 0 or -errno (see c->why). */
int pipeline_oneway(struct pipeline *p);

/* Queue the wire's count request (encode_count), whose reply the caller
 * takes (pipeline_read_some's unmatched reply); *id is its id. 0 or
 * -errno (see c->why). */
int pipeline_count(struct pipeline *p, uint32_t *id);

/* Write what the transport takes: 1 when something was written, 0 when
 * nothing was (nothing queued, or it would block), -errno (see c->why). */
int pipeline_write_some(struct pipeline *p);

/* Called for each whole reply: with its request's slot (a copy; the
 * echo checked, the slot free again) and the time it was taken, or with
 * slot NULL for a reply that matches no request in flight. Returns 0 (a
 * NULL slot's reply taken), -ENOENT (not the caller's either: the
 * pipeline fails naming its id) or another -errno after conn_failed. */
typedef int (*pipeline_reply_fn)(void *arg, struct pipeline *p,
                                 const struct wire_reply *rp,
                                 const struct pipeline_slot *slot,
                                 int64_t at_ns);

/* Read what is there and take every whole reply (fn for each). 1 when a
 * reply came, 0 when none, -errno (see c->why): -ECONNRESET for end of
 * stream or a CloseConnection, -EBADMSG for a wrong reply, the wire's
 * other errors. */
int pipeline_read_some(struct pipeline *p, pipeline_reply_fn fn, void *arg);

/* The earliest time a request in flight is due a reply, timeout_ns after
 * it was queued; INT64_MAX with none. */
int64_t pipeline_deadline(const struct pipeline *p, int64_t timeout_ns);

#endif
