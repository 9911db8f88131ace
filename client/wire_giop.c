/* The GIOP 1.2 wire: IORs as ready lines, echoString as the call. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "giop.h"
#include "ior.h"
#include "util.h"
#include "wire.h"

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

static int giop_frame_bytes(const uint8_t *buf, size_t have, size_t *total)
{
    struct giop_header h;
    int rc = giop_header_parse(buf, have, &h);
    if (rc)
        return rc;
    *total = GIOP_HEADER_BYTES + (size_t)h.body_bytes;
    return 0;
}

static int giop_decode(const uint8_t *msg, size_t len, uint32_t *id,
                       const char **payload, size_t *payload_len, char *why,
                       size_t why_len)
{
    struct giop_reply r;
    uint8_t type;
    int rc = giop_decode_reply(msg, len, &r, &type);
    if (rc == -ENOMSG) {
        snprintf(why, why_len, "expected a GIOP Reply, got %s (type %u)",
                 giop_msg_type_name(type), type);
        return rc;
    }
    if (rc) {
        snprintf(why, why_len, "malformed GIOP reply (%s)", strerror(-rc));
        return rc;
    }
    *id = r.request_id;
    switch (r.status) {
    case GIOP_NO_EXCEPTION:
        *payload = r.result;
        *payload_len = r.result_len;
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

const struct wire_ops wire_giop = {
    .name = "giop",
    .parse_ready = giop_parse_ready,
    .encode_call = giop_encode_call,
    .frame_bytes = giop_frame_bytes,
    .decode_reply = giop_decode,
    .more_fragments = giop_more_fragments,
    .fragment_info = giop_fragment_info,
    .set_size = giop_set_size,
};
