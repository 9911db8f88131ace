/* The GIOP 1.2 wire: IORs as ready lines, echoString (or a typed
 * payload's echo<Name>) as the call. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "codec/giop.h"
#include "codec/ior.h"
#include "codec/payload.h"
#include "core/util.h"
#include "net/wire.h"

static int giop_parse_ready(const char *line, struct target *t, char *why,
                            size_t why_len)
{
    struct ior ior;
    int rc = ior_parse(line, &ior);
    if (rc) {
        snprintf(why, why_len, "bad IOR: %s", ior_strerror(rc));
        return rc;
    }
    if (ior.key_len > sizeof t->key) {
        snprintf(why, why_len, "bad IOR: object key too long");
        return -ENAMETOOLONG;
    }
    memset(t, 0, sizeof *t);
    t->rfd = t->wfd = -1; /* none handed over */
    str_copy(t->host, sizeof t->host, ior.host);
    t->port = ior.port;
    if (ior.has_unix)
        str_copy(t->unix_path, sizeof t->unix_path, ior.unix_path);
    memcpy(t->key, ior.key, ior.key_len);
    t->key_len = ior.key_len;
    return 0;
}

static int giop_encode_call(struct cdr_out *out, const struct target *t,
                            uint32_t id, const char *payload, size_t len)
{
    return giop_encode_request(out, id, t->key, t->key_len, "echoString",
                               payload, len);
}

/* Bench::Echo's oneway sendOneway(in string) and string onewayCount(). */
static int giop_encode_oneway(struct cdr_out *out, const struct target *t,
                              uint32_t id, const char *payload, size_t len)
{
    return giop_encode_request_flags(out, id, GIOP_RESPONSE_NONE, t->key,
                                     t->key_len, "sendOneway", payload, len);
}

/* onewayCount takes no argument: the Request ends after its header (a
 * 1.2 body is aligned only when there is one). */
static int giop_encode_count(struct cdr_out *out, const struct target *t,
                             uint32_t id)
{
    return giop_encode_request_flags(out, id,
                                     GIOP_RESPONSE_SYNC_WITH_TARGET, t->key,
                                     t->key_len, "onewayCount", NULL, 0);
}

/* Bench::Echo's echo<Name> (idl/payloads.idl) with the value for seed;
 * echoNone has no argument. */
static int giop_encode_typed(struct cdr_out *out, const struct target *t,
                             uint32_t id, const struct payload_type *pt,
                             uint32_t seed, size_t *value_at)
{
    size_t size_at = giop_request_begin(
        out, id, GIOP_RESPONSE_SYNC_WITH_TARGET, t->key, t->key_len,
        payload_operation(pt), payload_has_value(pt));
    *value_at = out->len;
    payload_encode(pt, seed, out);
    return giop_message_end(out, size_at);
}

/* A reply's result: the string (echoString), or the body as it is
 * (body_only: a typed payload's, checked by the conn). */
static int giop_decode(const uint8_t *msg, size_t len, bool body_only,
                       struct wire_reply *reply, char *why, size_t why_len)
{
    struct giop_reply r;
    uint8_t type;
    int rc = body_only ? giop_decode_reply_body(msg, len, &r, &type)
                       : giop_decode_reply(msg, len, &r, &type);
    if (rc == -ENOMSG) {
        snprintf(why, why_len, "expected a GIOP Reply, got %s (type %u)",
                 giop_msg_type_name(type), type);
        return -EBADMSG;
    }
    if (rc) {
        snprintf(why, why_len, "malformed GIOP reply (%s)", strerror(-rc));
        return rc;
    }
    reply->id = r.request_id;
    switch (r.status) {
    case GIOP_NO_EXCEPTION:
        reply->little = r.little;
        if (body_only) {
            reply->payload = (const char *)msg + r.body_at;
            reply->payload_len = len - r.body_at;
        } else {
            reply->payload = r.result;
            reply->payload_len = r.result_len;
        }
        return 0;
    case GIOP_SYSTEM_EXCEPTION:
        snprintf(why, why_len,
                 "reply status SYSTEM_EXCEPTION %.*s minor 0x%x completed %s",
                 (int)r.exception_id_len, r.exception_id, r.minor,
                 r.completed == 0   ? "YES"
                 : r.completed == 1 ? "NO"
                                    : "MAYBE");
        return -EREMOTEIO;
    case GIOP_USER_EXCEPTION:
        snprintf(why, why_len, "reply status USER_EXCEPTION %.*s",
                 (int)r.exception_id_len, r.exception_id);
        return -EREMOTEIO;
    default:
        snprintf(why, why_len, "reply status %s is not supported",
                 giop_reply_status_name(r.status));
        return -EREMOTEIO;
    }
}

/* A Reply may come as a Reply with the more-fragments flag and then
 * Fragments (GIOP 1.2): each continuation's header is dropped and the
 * bytes joined in place, so the decoder sees one message. rx->parsed is
 * the length of the message joined so far (0 before the first is whole). */
static int giop_feed(struct wire_rx *rx, size_t *want_bytes,
                     struct wire_reply *reply, char *why, size_t why_len)
{
    for (;;) {
        size_t at = rx->parsed; /* the message being read starts here */
        struct giop_header h;
        int rc = giop_header_parse(rx->buf + at, rx->len - at, &h);
        if (rc == -EAGAIN) {
            *want_bytes = at + GIOP_HEADER_BYTES;
            return WIRE_MORE;
        }
        if (rc == -EMSGSIZE) {
            snprintf(why, why_len, "reply body of %lu bytes is over the "
                     "%u-byte limit", (unsigned long)h.body_bytes,
                     GIOP_MAX_MESSAGE_BYTES);
            return rc;
        }
        if (rc) {
            snprintf(why, why_len, "malformed reply header (%s)",
                     rc == -EBADMSG ? "bad magic, not GIOP"
                                    : "not GIOP 1.0-1.2");
            return -EBADMSG;
        }
        size_t total = GIOP_HEADER_BYTES + (size_t)h.body_bytes;
        /* The limit holds for the joined reply, not only each piece. */
        if (at + total > GIOP_HEADER_BYTES + GIOP_MAX_MESSAGE_BYTES) {
            snprintf(why, why_len, "fragmented reply grows over the %u-byte "
                     "limit", GIOP_MAX_MESSAGE_BYTES);
            return -EMSGSIZE;
        }
        if (rx->len - at < total) {
            *want_bytes = at + total;
            return WIRE_MORE;
        }
        bool more = false;
        if (at == 0) {
            if (h.type == GIOP_CLOSE_CONNECTION)
                return WIRE_CLOSED;
            more = giop_more_fragments(rx->buf, total);
        } else {
            size_t header = 0;
            rc = giop_fragment_info(rx->buf, at, rx->buf + at, total, &header,
                                    &more);
            if (rc) {
                snprintf(why, why_len, "bad reply fragment (%s)",
                         rc == -ENOMSG   ? "not a Fragment message"
                         : rc == -EPROTO ? "not GIOP 1.2"
                                         : "another request's, or truncated");
                return -EBADMSG;
            }
            memmove(rx->buf + at, rx->buf + at + header,
                    rx->len - at - header);
            rx->len -= header;
            total -= header;
            giop_set_size(rx->buf, at + total, more);
        }
        rx->parsed = at + total;
        if (more)
            continue; /* the next fragment may be in already */
        size_t bytes = rx->parsed;
        rx->parsed = 0;
        rc = giop_decode(rx->buf, bytes, rx->body_only, reply, why,
                         why_len);
        if (rc)
            return rc;
        reply->bytes = bytes;
        return WIRE_REPLY;
    }
}

const struct wire_ops wire_giop = {
    .name = "giop",
    .parse_ready = giop_parse_ready,
    .encode_call = giop_encode_call,
    .encode_oneway = giop_encode_oneway,
    .encode_count = giop_encode_count,
    .encode_typed = giop_encode_typed,
    .set_id = giop_set_request_id,
    .feed = giop_feed,
};
