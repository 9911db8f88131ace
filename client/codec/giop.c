/* GIOP 1.2 encoding and decoding: see giop.h. Layouts from CORBA 3 part 2,
 * chapter 15 (GIOP message header, Request 1.2, Reply 1.2). */
#include "codec/giop.h"

#include <errno.h>
#include <string.h>

int giop_header_parse(const uint8_t *buf, size_t len, struct giop_header *h)
{
    if (len < GIOP_HEADER_BYTES)
        return -EAGAIN;
    if (memcmp(buf, "GIOP", 4) != 0)
        return -EBADMSG;
    h->major = buf[4];
    h->minor = buf[5];
    if (h->major != 1 || h->minor > 2)
        return -EPROTO;
    /* GIOP 1.0 has a byte-order boolean here; 1.1+ a flags octet whose
     * bit 0 is the byte order and bit 1 "more fragments". */
    h->little = buf[6] & 1;
    h->more_fragments = h->minor >= 1 && (buf[6] & 2);
    h->type = buf[7];
    struct cdr_in in;
    cdr_in_init(&in, buf + 8, 4, h->little);
    h->body_bytes = cdr_get_long(&in);
    if (h->body_bytes > GIOP_MAX_MESSAGE_BYTES)
        return -EMSGSIZE;
    return 0;
}

int giop_encode_request(struct cdr_out *out, uint32_t request_id,
                        const uint8_t *key, size_t key_len, const char *op,
                        const char *arg, size_t arg_len)
{
    return giop_encode_request_flags(out, request_id,
                                     GIOP_RESPONSE_SYNC_WITH_TARGET, key,
                                     key_len, op, arg, arg_len);
}

int giop_encode_request_flags(struct cdr_out *out, uint32_t request_id,
                              uint8_t response_flags, const uint8_t *key,
                              size_t key_len, const char *op,
                              const char *arg, size_t arg_len)
{
    if (arg_len > GIOP_MAX_MESSAGE_BYTES || key_len > GIOP_MAX_MESSAGE_BYTES)
        return -EMSGSIZE;
    size_t size_at = giop_request_begin(out, request_id, response_flags, key,
                                        key_len, op, arg != NULL);
    if (arg)
        cdr_put_string(out, arg, arg_len);
    return giop_message_end(out, size_at);
}

size_t giop_request_begin(struct cdr_out *out, uint32_t request_id,
                          uint8_t response_flags, const uint8_t *key,
                          size_t key_len, const char *op, bool has_body)
{
    out->origin = out->len;
    cdr_put_bytes(out, "GIOP", 4);
    cdr_put_octet(out, 1);
    cdr_put_octet(out, 2);
    cdr_put_octet(out, out->little ? 1 : 0);
    cdr_put_octet(out, GIOP_REQUEST);
    size_t size_at = out->len;
    cdr_put_long(out, 0); /* patched by giop_message_end */
    cdr_put_long(out, request_id);
    cdr_put_octet(out, response_flags);
    cdr_put_bytes(out, "\0\0\0", 3);
    cdr_put_short(out, 0); /* TargetAddress: KeyAddr */
    cdr_put_octet_seq(out, key, key_len);
    cdr_put_string(out, op, strlen(op));
    cdr_put_long(out, 0); /* no service contexts */
    /* GIOP 1.2: the request body starts on an 8-octet boundary; an
     * operation without arguments has no body, and no padding. */
    if (has_body)
        cdr_align(out, 8);
    return size_at;
}

int giop_message_end(struct cdr_out *out, size_t size_at)
{
    if (!out->err &&
        out->len - out->origin - GIOP_HEADER_BYTES > GIOP_MAX_MESSAGE_BYTES)
        out->err = -EMSGSIZE;
    cdr_patch_long(out, size_at,
                   (uint32_t)(out->len - out->origin - GIOP_HEADER_BYTES));
    return out->err;
}

void giop_set_request_id(struct cdr_out *out, uint32_t request_id)
{
    /* Request and Reply 1.2 alike: right after the 12-byte header. */
    cdr_patch_long(out, out->origin + GIOP_HEADER_BYTES, request_id);
}

/* Skip a GIOP 1.2 header's service contexts and align to the body (8,
 * but only when there is a body). 0 or the stream's -errno. */
static int skip_contexts_to_body(struct cdr_in *in)
{
    uint32_t contexts = cdr_get_long(in);
    for (uint32_t i = 0; i < contexts && !in->err; i++) {
        const uint8_t *data;
        size_t n;
        cdr_get_long(in); /* context id */
        cdr_get_octet_seq(in, &data, &n);
    }
    if (!in->err && cdr_in_left(in) > 0)
        cdr_in_align(in, 8);
    return in->err;
}

/* Check that msg (len bytes) is one whole GIOP 1.2 message of type
 * `want`, unfragmented; *type gets its type (0xff when the header does
 * not parse). 0, a header error, -EBADMSG (length), -ENOMSG (another
 * type) or -EPROTO (another version, or a first fragment). */
static int whole_message(const uint8_t *msg, size_t len, uint8_t want,
                         struct giop_header *h, uint8_t *type)
{
    int rc = giop_header_parse(msg, len, h);
    *type = 0xff;
    if (rc)
        return rc;
    *type = h->type;
    if (len != GIOP_HEADER_BYTES + (size_t)h->body_bytes)
        return -EBADMSG;
    if (h->type != want)
        return -ENOMSG;
    if (h->minor != 2 || h->more_fragments)
        return -EPROTO;
    return 0;
}

/* A Reply; with string_result a NO_EXCEPTION body is decoded as the
 * string, else only located (r->body_at). */
static int decode_reply(const uint8_t *msg, size_t len, struct giop_reply *r,
                        uint8_t *type, bool string_result)
{
    struct giop_header h;
    memset(r, 0, sizeof *r);
    /* we only ever send 1.2, unfragmented */
    int rc = whole_message(msg, len, GIOP_REPLY, &h, type);
    if (rc)
        return rc;

    struct cdr_in in;
    cdr_in_init(&in, msg, len, h.little);
    in.pos = GIOP_HEADER_BYTES;
    r->little = h.little;
    r->request_id = cdr_get_long(&in);
    r->status = cdr_get_long(&in);
    if ((rc = skip_contexts_to_body(&in)))
        return rc;
    r->body_at = in.pos;
    switch (r->status) {
    case GIOP_NO_EXCEPTION:
        if (!string_result)
            return 0;
        return cdr_get_string(&in, &r->result, &r->result_len);
    case GIOP_USER_EXCEPTION:
        return cdr_get_string(&in, &r->exception_id, &r->exception_id_len);
    case GIOP_SYSTEM_EXCEPTION:
        if (cdr_get_string(&in, &r->exception_id, &r->exception_id_len))
            return in.err;
        r->minor = cdr_get_long(&in);
        r->completed = cdr_get_long(&in);
        return in.err;
    case GIOP_LOCATION_FORWARD:
    case GIOP_LOCATION_FORWARD_PERM:
    case GIOP_NEEDS_ADDRESSING_MODE:
        /* Not followed; the caller reports the status. The body is not
         * decoded, but a failed alignment above still counts. */
        return in.err;
    default:
        return -EBADMSG;
    }
}

int giop_decode_reply(const uint8_t *msg, size_t len, struct giop_reply *r,
                      uint8_t *type)
{
    return decode_reply(msg, len, r, type, true);
}

int giop_decode_reply_body(const uint8_t *msg, size_t len,
                           struct giop_reply *r, uint8_t *type)
{
    return decode_reply(msg, len, r, type, false);
}

bool giop_more_fragments(const uint8_t *msg, size_t len)
{
    struct giop_header h;
    return giop_header_parse(msg, len, &h) == 0 && h.more_fragments;
}

/* The request id right after a 1.2 header (Reply and Fragment alike). */
static int request_id_at(const uint8_t *msg, size_t len, uint32_t *id)
{
    struct giop_header h;
    int rc = giop_header_parse(msg, len, &h);
    if (rc)
        return rc;
    struct cdr_in in;
    cdr_in_init(&in, msg, len, h.little);
    in.pos = GIOP_HEADER_BYTES;
    *id = cdr_get_long(&in);
    return in.err;
}

int giop_fragment_info(const uint8_t *msg, size_t msg_len,
                       const uint8_t *frag, size_t frag_len,
                       size_t *header_bytes, bool *more)
{
    struct giop_header h;
    uint32_t want, got;
    int rc = giop_header_parse(frag, frag_len, &h);
    if (rc)
        return rc;
    if (h.type != GIOP_FRAGMENT)
        return -ENOMSG;
    if (h.minor != 2)
        return -EPROTO;
    if (frag_len != GIOP_HEADER_BYTES + (size_t)h.body_bytes ||
        (rc = request_id_at(msg, msg_len, &want)) ||
        (rc = request_id_at(frag, frag_len, &got)))
        return rc ? rc : -EBADMSG;
    if (want != got)
        return -EBADMSG;
    /* 1.2: header, then the ulong request id; the data that follows
     * starts 8-aligned, so it continues the stream where msg ended. */
    *header_bytes = GIOP_HEADER_BYTES + 4;
    *more = h.more_fragments;
    return 0;
}

void giop_set_size(uint8_t *msg, size_t len, bool more)
{
    struct cdr_out o = {.data = msg, .len = GIOP_HEADER_BYTES,
                        .cap = GIOP_HEADER_BYTES, .little = msg[6] & 1};
    cdr_patch_long(&o, 8, (uint32_t)(len - GIOP_HEADER_BYTES));
    msg[6] = (uint8_t)((msg[6] & ~2u) | (more ? 2u : 0u));
}

int giop_decode_request(const uint8_t *msg, size_t len,
                        struct giop_request *rq, uint8_t *type)
{
    struct giop_header h;
    memset(rq, 0, sizeof *rq);
    /* 1.0/1.1 Requests have another layout */
    int rc = whole_message(msg, len, GIOP_REQUEST, &h, type);
    if (rc)
        return rc;
    struct cdr_in in;
    cdr_in_init(&in, msg, len, h.little);
    in.pos = GIOP_HEADER_BYTES;
    rq->little = h.little;
    rq->request_id = cdr_get_long(&in);
    rq->response_expected = cdr_get_octet(&in) & 1;
    for (int i = 0; i < 3; i++)
        cdr_get_octet(&in); /* reserved */
    uint16_t disposition = cdr_get_short(&in);
    if (in.err)
        return in.err;
    if (disposition != 0)
        return -EPROTO; /* ProfileAddr, ReferenceAddr: not for us */
    if ((rc = cdr_get_octet_seq(&in, &rq->key, &rq->key_len)))
        return rc;
    if ((rc = cdr_get_string(&in, &rq->operation, &rq->operation_len)))
        return rc;
    if ((rc = skip_contexts_to_body(&in)))
        return rc;
    rq->body_at = in.pos;
    return 0;
}

/* A Reply's header and fixed fields; returns where the size goes. */
static size_t reply_start(struct cdr_out *out, uint32_t request_id,
                          uint32_t status)
{
    out->origin = out->len;
    cdr_put_bytes(out, "GIOP", 4);
    cdr_put_octet(out, 1);
    cdr_put_octet(out, 2);
    cdr_put_octet(out, out->little ? 1 : 0);
    cdr_put_octet(out, GIOP_REPLY);
    size_t size_at = out->len;
    cdr_put_long(out, 0); /* patched by giop_message_end */
    cdr_put_long(out, request_id);
    cdr_put_long(out, status);
    cdr_put_long(out, 0); /* no service contexts */
    cdr_align(out, 8);    /* GIOP 1.2: the body starts 8-aligned */
    return size_at;
}

int giop_encode_reply(struct cdr_out *out, uint32_t request_id,
                      const char *result, size_t len)
{
    if (len > GIOP_MAX_MESSAGE_BYTES)
        return -EMSGSIZE;
    size_t size_at = reply_start(out, request_id, GIOP_NO_EXCEPTION);
    cdr_put_string(out, result, len);
    return giop_message_end(out, size_at);
}

int giop_encode_reply_body(struct cdr_out *out, uint32_t request_id,
                           const void *body, size_t len)
{
    /* giop_message_end refuses a body over the limit. */
    size_t size_at = reply_start(out, request_id, GIOP_NO_EXCEPTION);
    cdr_put_bytes(out, body, len);
    return giop_message_end(out, size_at);
}

int giop_encode_system_exception(struct cdr_out *out, uint32_t request_id,
                                 const char *repo_id, uint32_t minor,
                                 uint32_t completed)
{
    size_t size_at = reply_start(out, request_id, GIOP_SYSTEM_EXCEPTION);
    cdr_put_string(out, repo_id, strlen(repo_id));
    cdr_put_long(out, minor);
    cdr_put_long(out, completed);
    return giop_message_end(out, size_at);
}

const char *giop_reply_status_name(uint32_t status)
{
    static const char *const names[] = {
        "NO_EXCEPTION",        "USER_EXCEPTION",
        "SYSTEM_EXCEPTION",    "LOCATION_FORWARD",
        "LOCATION_FORWARD_PERM", "NEEDS_ADDRESSING_MODE",
    };
    return status < sizeof names / sizeof *names ? names[status] : "unknown";
}

const char *giop_msg_type_name(uint8_t type)
{
    static const char *const names[] = {
        "Request",         "Reply",        "CancelRequest", "LocateRequest",
        "LocateReply",     "CloseConnection", "MessageError", "Fragment",
    };
    return type < sizeof names / sizeof *names ? names[type] : "unknown";
}
