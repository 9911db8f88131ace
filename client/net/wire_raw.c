/* The raw wire: the ORB-less baseline's framing. A message is a 4-byte
 * little-endian length L, a 4-byte little-endian request id, then L-4
 * payload bytes; the reply echoes id and payload the same way. Ready
 * lines: "RAW tcp HOST PORT", "RAW unix PATH", "RAW pipe" (a pipe pair
 * the spawner hands over with the spawn result). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/payload.h"
#include "core/util.h"
#include "net/wire.h"

static int raw_parse_ready(const char *line, struct target *t, char *why,
                           size_t why_len)
{
    char kind[8], host[TARGET_MAX_HOST], path[TARGET_MAX_PATH + 1];
    unsigned port;
    char end;
    memset(t, 0, sizeof *t);
    t->rfd = t->wfd = -1;
    if (sscanf(line, "RAW %7s", kind) != 1)
        goto bad;
    if (strcmp(kind, "tcp") == 0) {
        /* %255s: TARGET_MAX_HOST - 1; a longer host does not match. */
        if (sscanf(line, "RAW tcp %255s %u %c", host, &port, &end) != 2 ||
            port == 0 || port > 65535)
            goto bad;
        str_copy(t->host, sizeof t->host, host);
        t->port = (uint16_t)port;
        return 0;
    }
    if (strcmp(kind, "unix") == 0) {
        if (sscanf(line, "RAW unix %108s %c", path, &end) != 1 ||
            strlen(path) >= TARGET_MAX_PATH)
            goto bad;
        str_copy(t->unix_path, sizeof t->unix_path, path);
        return 0;
    }
    if (strcmp(line, "RAW pipe") == 0)
        return 0;
bad:
    snprintf(why, why_len, "bad ready line \"%.80s\": expected \"RAW tcp "
             "HOST PORT\", \"RAW unix PATH\" or \"RAW pipe\"", line);
    return -EBADMSG;
}

static void put_le32(struct cdr_out *out, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                    (uint8_t)(v >> 24)};
    cdr_put_bytes(out, b, sizeof b);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static int raw_encode_call(struct cdr_out *out, const struct target *t,
                           uint32_t id, const char *payload, size_t len)
{
    (void)t;
    if (len > WIRE_RAW_MAX_MESSAGE_BYTES - 4)
        return -EMSGSIZE;
    put_le32(out, (uint32_t)len + 4);
    put_le32(out, id);
    cdr_put_bytes(out, payload, len);
    return out->err;
}

static void set_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A typed payload's value as the raw payload: the raw server echoes it
 * byte for byte, so the reply is in the byte order it was encoded in. */
static int raw_encode_typed(struct cdr_out *out, const struct target *t,
                            uint32_t id, const struct payload_type *pt,
                            uint32_t seed, size_t *value_at)
{
    (void)t;
    size_t start = out->len;
    put_le32(out, 0); /* the length, below */
    put_le32(out, id);
    *value_at = out->len;
    out->origin = out->len; /* CDR alignment counts from the value */
    payload_encode(pt, seed, out);
    if (out->err)
        return out->err;
    if (out->len - start - 4 > WIRE_RAW_MAX_MESSAGE_BYTES)
        return -EMSGSIZE;
    set_le32(out->data + start, (uint32_t)(out->len - start - 4));
    return 0;
}

static void raw_set_id(struct cdr_out *out, uint32_t id)
{
    if (out->len >= WIRE_RAW_HEADER_BYTES)
        set_le32(out->data + 4, id);
}

static int raw_feed(struct wire_rx *rx, size_t *want_bytes,
                    struct wire_reply *reply, char *why, size_t why_len)
{
    if (rx->len < WIRE_RAW_HEADER_BYTES) {
        *want_bytes = WIRE_RAW_HEADER_BYTES;
        return WIRE_MORE;
    }
    uint32_t l = le32(rx->buf);
    if (l < 4) {
        snprintf(why, why_len, "malformed raw reply: length %u is under "
                 "the 4-byte request id", l);
        return -EBADMSG;
    }
    if (l > WIRE_RAW_MAX_MESSAGE_BYTES) {
        snprintf(why, why_len, "raw reply of %lu bytes is over the %u-byte "
                 "limit", (unsigned long)l, WIRE_RAW_MAX_MESSAGE_BYTES);
        return -EMSGSIZE;
    }
    size_t total = 4 + (size_t)l;
    if (rx->len < total) {
        *want_bytes = total;
        return WIRE_MORE;
    }
    reply->id = le32(rx->buf + 4);
    reply->payload = (const char *)rx->buf + WIRE_RAW_HEADER_BYTES;
    reply->payload_len = l - 4;
    reply->bytes = total;
    reply->little = cdr_host_little(); /* what conns encode in */
    return WIRE_REPLY;
}

const struct wire_ops wire_raw = {
    .name = "raw",
    .parse_ready = raw_parse_ready,
    .encode_call = raw_encode_call,
    .encode_typed = raw_encode_typed,
    .set_id = raw_set_id,
    .feed = raw_feed,
};
