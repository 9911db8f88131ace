/* Wire protocols: how a call is framed on a connection. GIOP (wire_giop.c)
 * for ORB servers; the seam lets ORB-less baselines use a raw framing. */
#ifndef ORBBENCH_WIRE_H
#define ORBBENCH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/cdr.h"
#include "net/transport.h"

struct payload_type;

/* What a connection has received: the conn reads into buf (growing it to
 * what feed asks for), the wire frames it. Reset (len = 0, parsed = 0)
 * before each call. */
struct wire_rx {
    uint8_t *buf;  /* never NULL, even before the first byte */
    size_t len;    /* bytes received */
    size_t cap;    /* bytes buf can hold */
    size_t parsed; /* the wire's: bytes of a reply already joined */
    /* The conn's: the calls echo a typed payload (encode_typed), whose
     * result the wire does not decode: a reply's payload is its body. */
    bool body_only;
};

/* One decoded reply. */
struct wire_reply {
    uint32_t id;         /* the request it answers */
    const char *payload; /* the echoed bytes, in rx->buf */
    size_t payload_len;
    size_t bytes; /* the reply's length at the start of rx->buf; bytes
                   * after it were sent after the reply */
    bool little;  /* rx->body_only: the body's CDR byte order */
};

enum wire_feed_status { WIRE_MORE = 0, WIRE_REPLY = 1, WIRE_CLOSED = 2 };

struct wire_ops {
    const char *name;
    /* Turn a server's ready line (an IOR for GIOP) into a target.
     * 0 or -errno with a one-line reason in `why`. */
    int (*parse_ready)(const char *line, struct target *t, char *why,
                       size_t why_len);
    /* Encode one echo call with request id `id` into `out` (reset by the
     * caller). 0 or -ENOMEM. */
    int (*encode_call)(struct cdr_out *out, const struct target *t,
                       uint32_t id, const char *payload, size_t len);
    /* Optional (NULL when the kind's server has no such operations):
     * a oneway request that the server counts and never answers, and a
     * request whose reply's payload is the number of oneway requests the
     * server has counted so far, in decimal. 0 or -ENOMEM. */
    int (*encode_oneway)(struct cdr_out *out, const struct target *t,
                         uint32_t id, const char *payload, size_t len);
    int (*encode_count)(struct cdr_out *out, const struct target *t,
                        uint32_t id);
    /* Optional: a call of typed payload pt (payload.h): its echo
     * operation with the value for `seed`, in out's byte order; the
     * value's bytes are from *value_at to out's end. 0 or -errno. */
    int (*encode_typed)(struct cdr_out *out, const struct target *t,
                        uint32_t id, const struct payload_type *pt,
                        uint32_t seed, size_t *value_at);
    /* With encode_typed: give the call encoded in out request id `id`
     * (one encoding serves every call). */
    void (*set_id)(struct cdr_out *out, uint32_t id);
    /* Frame what a connection has received so far (see struct wire_rx):
     *   WIRE_MORE   more bytes are needed; *want_bytes is how many rx
     *               should be able to hold before the next read
     *   WIRE_REPLY  one whole reply, checked against the wire's own rules
     *               (its parts joined in place when it came in pieces),
     *               in *reply, borrowed from rx->buf
     *   WIRE_CLOSED the server announced an orderly close of the
     *               connection (no request of ours is being processed)
     *   -errno      with a one-line reason in `why`: -EBADMSG malformed,
     *               -EMSGSIZE over the wire's size limit, -EREMOTEIO an
     *               exception or other non-reply answer.
     * It never asks for more than its size limit. */
    int (*feed)(struct wire_rx *rx, size_t *want_bytes,
                struct wire_reply *reply, char *why, size_t why_len);
};

extern const struct wire_ops wire_giop;
extern const struct wire_ops wire_raw;

/* The raw wire (wire_raw.c): length, id, payload; the raw server shares
 * these. A length field over the limit is refused, never buffered. */
#define WIRE_RAW_HEADER_BYTES 8
#define WIRE_RAW_MAX_MESSAGE_BYTES (16u * 1024 * 1024)

#endif
