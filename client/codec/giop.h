/* GIOP 1.2 messages: the 12-byte header, Request encoding and Reply
 * decoding. Pure functions over buffers. */
#ifndef ORBBENCH_GIOP_H
#define ORBBENCH_GIOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/cdr.h"

#define GIOP_HEADER_BYTES 12
/* Replies larger than this are refused rather than buffered. */
#define GIOP_MAX_MESSAGE_BYTES (16u * 1024 * 1024)

enum giop_msg_type {
    GIOP_REQUEST = 0,
    GIOP_REPLY = 1,
    GIOP_CANCEL_REQUEST = 2,
    GIOP_LOCATE_REQUEST = 3,
    GIOP_LOCATE_REPLY = 4,
    GIOP_CLOSE_CONNECTION = 5,
    GIOP_MESSAGE_ERROR = 6,
    GIOP_FRAGMENT = 7,
};

enum giop_reply_status {
    GIOP_NO_EXCEPTION = 0,
    GIOP_USER_EXCEPTION = 1,
    GIOP_SYSTEM_EXCEPTION = 2,
    GIOP_LOCATION_FORWARD = 3,
    GIOP_LOCATION_FORWARD_PERM = 4,
    GIOP_NEEDS_ADDRESSING_MODE = 5,
};

struct giop_header {
    uint8_t major;
    uint8_t minor;
    bool little;
    bool more_fragments;
    uint8_t type;
    uint32_t body_bytes; /* message size after the 12-byte header */
};

/* Parse a header from the first bytes of a message. Returns 0, or
 *   -EAGAIN   fewer than 12 bytes yet
 *   -EBADMSG  the magic is not "GIOP"
 *   -EPROTO   not GIOP 1.x (x <= 2)
 *   -EMSGSIZE the body is over GIOP_MAX_MESSAGE_BYTES */
int giop_header_parse(const uint8_t *buf, size_t len, struct giop_header *h);

/* Append a complete GIOP 1.2 Request (response expected: flags
 * SYNC_WITH_TARGET, KeyAddr target,
 * no service contexts) for operation `op` with one string argument `arg`
 * of `arg_len` bytes to `out`; alignment counts from where the message
 * starts (out->origin is set there). Returns 0, -ENOMEM, or -EMSGSIZE when
 * the key or argument is over GIOP_MAX_MESSAGE_BYTES. */
int giop_encode_request(struct cdr_out *out, uint32_t request_id,
                        const uint8_t *key, size_t key_len, const char *op,
                        const char *arg, size_t arg_len);

/* response_flags of a Request (GIOP 1.2): none wanted (a oneway
 * operation), or a reply after the target's processing. */
#define GIOP_RESPONSE_NONE 0
#define GIOP_RESPONSE_SYNC_WITH_TARGET 3

/* giop_encode_request with the Request's response_flags given:
 * GIOP_RESPONSE_NONE encodes a oneway request, which gets no reply. An
 * `arg` of NULL encodes an operation without arguments (no body). */
int giop_encode_request_flags(struct cdr_out *out, uint32_t request_id,
                              uint8_t response_flags, const uint8_t *key,
                              size_t key_len, const char *op,
                              const char *arg, size_t arg_len);

/* A Request in pieces, for arguments of any type: the header through the
 * service contexts (the body 8-aligned when has_body, as GIOP 1.2 wants),
 * then the caller appends the arguments in out's byte order (alignment
 * counts from where the message starts: out->origin is set there), then
 * giop_message_end. giop_request_begin returns where the size goes. */
size_t giop_request_begin(struct cdr_out *out, uint32_t request_id,
                          uint8_t response_flags, const uint8_t *key,
                          size_t key_len, const char *op, bool has_body);
/* Patch the size of the message begun at out->origin whose size field is
 * at size_at. 0, out->err, or -EMSGSIZE when its body is over
 * GIOP_MAX_MESSAGE_BYTES. */
int giop_message_end(struct cdr_out *out, size_t size_at);
/* Rewrite the request id of the 1.2 Request or Reply at out->origin (to
 * send an encoded request again under another id). */
void giop_set_request_id(struct cdr_out *out, uint32_t request_id);

/* A decoded reply. Strings point into the message buffer. */
struct giop_reply {
    uint32_t request_id;
    uint32_t status;
    /* GIOP_NO_EXCEPTION: the returned string */
    const char *result;
    size_t result_len;
    /* USER/SYSTEM_EXCEPTION: the repository id */
    const char *exception_id;
    size_t exception_id_len;
    /* SYSTEM_EXCEPTION */
    uint32_t minor;
    uint32_t completed;
    /* The body's offset in the message (8-aligned; == len when there is
     * none) and the message's byte order. */
    size_t body_at;
    bool little;
};

/* Decode a whole Reply message (header included) whose operation returns a
 * string. Returns 0 when the message is a well-formed Reply of a known
 * status (check r->status; the bodies of LOCATION_FORWARD[_PERM] and
 * NEEDS_ADDRESSING_MODE are not decoded), or
 *   -EAGAIN/-EBADMSG/-EPROTO/-EMSGSIZE as giop_header_parse
 *   -EPROTO   a Reply of GIOP 1.0/1.1, or a fragmented one (we send 1.2)
 *   -EBADMSG  truncated body, an unknown status, or `len` differs from
 *             the header's size
 *   -ENOMSG   a well-formed message that is not a Reply (see *type) */
int giop_decode_reply(const uint8_t *msg, size_t len, struct giop_reply *r,
                      uint8_t *type);

/* giop_decode_reply for an operation of any result type: a NO_EXCEPTION
 * body is not decoded, only located (r->body_at to the end; r->little).
 * The same returns. */
int giop_decode_reply_body(const uint8_t *msg, size_t len,
                           struct giop_reply *r, uint8_t *type);

/* GIOP 1.2 fragmentation (an ORB splits a large reply into a Reply with
 * the more-fragments flag, then Fragment messages). */

/* True when msg (a whole 1.1+ message) says more fragments follow. */
bool giop_more_fragments(const uint8_t *msg, size_t len);

/* A Fragment `frag` (whole message, frag_len bytes) that should continue
 * the 1.2 message `msg`: checks it is a GIOP 1.2 Fragment for the same
 * request id, and gives how many of its leading bytes are header (to drop
 * when joining) and whether more fragments follow. 0, -ENOMSG (not a
 * Fragment), -EPROTO (not 1.2), -EBADMSG (another request, or truncated). */
int giop_fragment_info(const uint8_t *msg, size_t msg_len,
                       const uint8_t *frag, size_t frag_len,
                       size_t *header_bytes, bool *more);

/* Rewrite msg's header after joining: size field = len - 12, the
 * more-fragments flag as given. */
void giop_set_size(uint8_t *msg, size_t len, bool more);

/* ---- the server side (servers/giop_min): a Request in, a Reply out ---- */

/* A decoded GIOP 1.2 Request. Key and operation point into the message. */
struct giop_request {
    uint32_t request_id;
    bool response_expected; /* response_flags bit 0: false for oneway */
    bool little;            /* the message's byte order */
    const uint8_t *key;     /* KeyAddr target */
    size_t key_len;
    const char *operation;  /* NUL-terminated */
    size_t operation_len;
    size_t body_at; /* the arguments start here (8-aligned from msg);
                     * == len when there are none */
};

/* Decode a whole Request message (header included). 0, or
 *   -EAGAIN/-EBADMSG/-EPROTO/-EMSGSIZE as giop_header_parse
 *   -EPROTO   not GIOP 1.2, fragmented, or a target other than KeyAddr
 *   -EBADMSG  truncated, or `len` differs from the header's size
 *   -ENOMSG   a well-formed message that is not a Request (see *type) */
int giop_decode_request(const uint8_t *msg, size_t len,
                        struct giop_request *rq, uint8_t *type);

/* Append a GIOP 1.2 Reply, NO_EXCEPTION, whose result is the string
 * `result` (len bytes), in out's byte order. 0, -ENOMEM or -EMSGSIZE. */
int giop_encode_reply(struct cdr_out *out, uint32_t request_id,
                      const char *result, size_t len);

/* Append a GIOP 1.2 Reply, NO_EXCEPTION, whose body is the `len` bytes
 * at `body` (already CDR in out's byte order, encoded from an 8-aligned
 * start: a 1.2 body starts 8-aligned). 0, -ENOMEM or -EMSGSIZE. */
int giop_encode_reply_body(struct cdr_out *out, uint32_t request_id,
                           const void *body, size_t len);

/* Append a GIOP 1.2 Reply, SYSTEM_EXCEPTION `repo_id` (e.g.
 * "IDL:omg.org/CORBA/BAD_OPERATION:1.0") with minor code and completion
 * status (0 YES, 1 NO, 2 MAYBE). 0 or -ENOMEM. */
int giop_encode_system_exception(struct cdr_out *out, uint32_t request_id,
                                 const char *repo_id, uint32_t minor,
                                 uint32_t completed);

/* Static names for enum values, "unknown" otherwise. */
const char *giop_reply_status_name(uint32_t status);
const char *giop_msg_type_name(uint8_t type);

#endif
