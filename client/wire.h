/* Wire protocols: how a call is framed on a connection. GIOP (wire_giop.c)
 * for ORB servers; the seam lets ORB-less baselines use a raw framing. */
#ifndef ORBBENCH_WIRE_H
#define ORBBENCH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdr.h"
#include "transport.h"

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
    /* Size of the whole message starting at buf once enough bytes are in:
     * 0 with *total set, -EAGAIN for more bytes, or -errno if malformed. */
    int (*frame_bytes)(const uint8_t *buf, size_t have, size_t *total);
    /* Decode one whole reply: its id and echoed payload (borrowed from
     * msg). 0, or -errno with a one-line reason in `why`. */
    int (*decode_reply)(const uint8_t *msg, size_t len, uint32_t *id,
                        const char **payload, size_t *payload_len, char *why,
                        size_t why_len);
    /* Fragmented replies (NULL for wires without them): does this whole
     * message have continuations; is `frag` the next one (how many header
     * bytes to drop, and are more coming); rewrite the joined message's
     * header for its new length. */
    bool (*more_fragments)(const uint8_t *msg, size_t len);
    int (*fragment_info)(const uint8_t *msg, size_t msg_len,
                         const uint8_t *frag, size_t frag_len,
                         size_t *header_bytes, bool *more);
    void (*set_size)(uint8_t *msg, size_t len, bool more);
};

extern const struct wire_ops wire_giop;

#endif
