/* libFuzzer target: GIOP replies as the client reads them. The input is
 * the byte stream a server sent, decoded as one message (giop.c's
 * giop_decode_reply) and fed to the wire (wire_giop's feed: framing,
 * fragment joining, the size limit, decoding) whole and a byte at a time:
 * both feeds must give the same answer, every "more" must ask for bytes
 * beyond those it has and within the limit, and every decoded reply must
 * lie inside the bytes it came from. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "giop.h"
#include "wire.h"

/* The input as one message: what the decoder claims lies inside it. */
static void decode(const uint8_t *msg, size_t len)
{
    struct giop_reply r;
    uint8_t type;
    int rc = giop_decode_reply(msg, len, &r, &type);
    if (rc || r.status != GIOP_NO_EXCEPTION)
        return;
    const char *m = (const char *)msg;
    FUZZ_CHECK(r.result != NULL && r.result >= m && r.result < m + len);
    FUZZ_CHECK(r.result_len < (size_t)(m + len - r.result));
    FUZZ_CHECK(r.result[r.result_len] == 0);
}

struct fed {
    struct wire_rx rx;
    struct wire_reply reply;
    int rc;
};

/* Append n bytes to f->rx, as a connection's recv would, and feed. */
static void feed(struct fed *f, const uint8_t *bytes, size_t n)
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
    f->rc = wire_giop.feed(rx, &want, &f->reply, why, sizeof why);
    FUZZ_CHECK(memchr(why, 0, sizeof why) != NULL);
    if (f->rc < 0)
        FUZZ_CHECK(why[0] != 0);
    else if (f->rc == WIRE_MORE)
        FUZZ_CHECK(want > rx->len &&
                   want <= GIOP_HEADER_BYTES + GIOP_MAX_MESSAGE_BYTES);
    else if (f->rc == WIRE_REPLY) {
        const struct wire_reply *r = &f->reply;
        const char *b = (const char *)rx->buf;
        FUZZ_CHECK(r->bytes >= GIOP_HEADER_BYTES && r->bytes <= rx->len);
        FUZZ_CHECK(r->payload >= b && r->payload < b + r->bytes);
        FUZZ_CHECK(r->payload_len < (size_t)(b + r->bytes - r->payload));
        FUZZ_CHECK(rx->parsed == 0);
    } else {
        FUZZ_CHECK(f->rc == WIRE_CLOSED);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size);

    /* The stream fed whole, as one recv would bring it. */
    struct fed whole = {0};
    feed(&whole, data, size);

    /* The same stream a byte at a time, to its first answer. */
    struct fed bytes = {0};
    if (size == 0)
        feed(&bytes, NULL, 0);
    for (size_t used = 0; used < size; used++) {
        feed(&bytes, data + used, 1);
        if (bytes.rc != WIRE_MORE)
            break;
    }

    /* How the bytes arrive must not change the answer. */
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
    return 0;
}
