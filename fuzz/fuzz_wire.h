/* Shared by the wire fuzz targets: a wire's feed given a server's byte
 * stream whole and a byte at a time, with what every answer must hold. */
#ifndef ORBBENCH_FUZZ_WIRE_H
#define ORBBENCH_FUZZ_WIRE_H

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "net/wire.h"

struct fed {
    const struct wire_ops *wire;
    size_t max_want;  /* the most a "more" may ask for: the wire's limit */
    size_t min_bytes; /* the shortest whole reply */
    struct wire_rx rx;
    struct wire_reply reply;
    int rc;
};

/* Append n bytes to f->rx, as a connection's recv would, and feed. */
static void feed_bytes(struct fed *f, const uint8_t *bytes, size_t n)
{
    struct wire_rx *rx = &f->rx;
    /* A connection's buffer always exists (wire.h), even before the
     * first byte. */
    if (!rx->buf || rx->len + n > rx->cap) {
        size_t cap = rx->cap ? rx->cap : 64;
        while (cap < rx->len + n)
            cap *= 2;
        uint8_t *p = realloc(rx->buf, cap);
        FUZZ_CHECK(p != NULL);
        rx->buf = p;
        rx->cap = cap;
    }
    if (n)
        memcpy(rx->buf + rx->len, bytes, n);
    rx->len += n;
    size_t want = 0;
    char why[320];
    why[0] = 0;
    f->rc = f->wire->feed(rx, &want, &f->reply, why, sizeof why);
    FUZZ_CHECK(memchr(why, 0, sizeof why) != NULL);
    if (f->rc < 0)
        FUZZ_CHECK(why[0] != 0);
    else if (f->rc == WIRE_MORE)
        FUZZ_CHECK(want > rx->len && want <= f->max_want);
    else if (f->rc == WIRE_REPLY) {
        const struct wire_reply *r = &f->reply;
        const char *b = (const char *)rx->buf;
        FUZZ_CHECK(r->bytes >= f->min_bytes && r->bytes <= rx->len);
        /* The payload lies inside the reply (an empty one may point at
         * its end). */
        FUZZ_CHECK(r->payload >= b && r->payload <= b + r->bytes);
        FUZZ_CHECK(r->payload_len <= (size_t)(b + r->bytes - r->payload));
        FUZZ_CHECK(rx->parsed == 0);
    } else {
        FUZZ_CHECK(f->rc == WIRE_CLOSED);
    }
}

/* Feed data to f's wire whole and a byte at a time (both fed from
 * zeroed `struct fed`s with the wire and its bounds set): the two answers
 * must agree. Frees the buffers. */
static void fuzz_wire_stream(const struct fed *tmpl, const uint8_t *data,
                             size_t size)
{
    struct fed whole = *tmpl, bytes = *tmpl;
    feed_bytes(&whole, data, size);
    if (size == 0)
        feed_bytes(&bytes, NULL, 0);
    for (size_t used = 0; used < size; used++) {
        feed_bytes(&bytes, data + used, 1);
        if (bytes.rc != WIRE_MORE)
            break;
    }
    FUZZ_CHECK(bytes.rc == whole.rc);
    if (whole.rc == WIRE_REPLY) {
        FUZZ_CHECK(bytes.reply.id == whole.reply.id);
        FUZZ_CHECK(bytes.reply.bytes == whole.reply.bytes);
        FUZZ_CHECK(bytes.reply.payload_len == whole.reply.payload_len);
        FUZZ_CHECK(memcmp(bytes.rx.buf, whole.rx.buf, whole.reply.bytes) ==
                   0);
    }
    free(whole.rx.buf);
    free(bytes.rx.buf);
}

#endif
