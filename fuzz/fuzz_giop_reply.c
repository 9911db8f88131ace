/* libFuzzer target: GIOP replies as the client reads them. The input is
 * the byte stream a server sent: framed and decoded as one message
 * (wire_giop's frame_bytes, decode_reply), then framed and joined as a
 * fragmented reply (join_feed below), fed whole and byte by byte; both
 * feeds must agree, and every decoded reply must lie inside its message. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "giop.h"
#include "wire.h"

static const struct wire_ops *const wire = &wire_giop;

/* ==== The join ==========================================================
 * client/conn.c's conn_read_some and message_done over a buffer: how they
 * drive the wire's frame_bytes, more_fragments, fragment_info and
 * set_size, with recv replaced by the bytes given. Fragment joining is
 * moving from conn.c into the wire as feed(bytes): when it lands, replace
 * this section (struct join, join_feed) by a call to it; the rest of the
 * target only needs join_feed's contract. */

struct join {
    uint8_t *rx;
    size_t rx_len;
    size_t rx_cap;
    size_t rx_joined; /* bytes of a fragmented reply joined so far */
};

/* conn.c's message_done without the reply check: the message at rx + at
 * (total bytes) is complete; join it. 1 the reply is whole, 0 more
 * fragments to come, -EBADMSG. */
static int join_message(struct join *j, size_t at, size_t total)
{
    bool more = false;
    if (at > 0) {
        size_t header = 0;
        int rc = wire->fragment_info(j->rx, at, j->rx + at, total, &header,
                                     &more);
        if (rc)
            return -EBADMSG;
        memmove(j->rx + at, j->rx + at + header, j->rx_len - at - header);
        j->rx_len -= header;
        total -= header;
        wire->set_size(j->rx, at + total, more);
    } else if (wire->more_fragments && wire->more_fragments(j->rx, total)) {
        if (!wire->fragment_info)
            return -EBADMSG;
        more = true;
    }
    j->rx_joined = at + total;
    if (more)
        return 0;
    if (j->rx_len > j->rx_joined)
        return -EBADMSG; /* unexpected bytes after the reply */
    return 1;
}

/* Take `n` more bytes from the server (as conn_read_some's recv would)
 * and frame and join what is in. 1: a whole reply is at rx, *len bytes
 * long; 0: more bytes needed; -EBADMSG: malformed (the connection is
 * done). */
static int join_feed(struct join *j, const uint8_t *bytes, size_t n,
                     size_t *len)
{
    if (!j->rx || j->rx_len + n > j->rx_cap) {
        size_t cap = j->rx_cap ? j->rx_cap : 64;
        while (cap < j->rx_len + n)
            cap *= 2;
        uint8_t *p = realloc(j->rx, cap);
        FUZZ_CHECK(p != NULL);
        j->rx = p;
        j->rx_cap = cap;
    }
    if (n)
        memcpy(j->rx + j->rx_len, bytes, n);
    j->rx_len += n;
    for (;;) {
        size_t at = j->rx_joined, total = 0;
        int rc = wire->frame_bytes(j->rx + at, j->rx_len - at, &total);
        if (rc && rc != -EAGAIN)
            return -EBADMSG; /* malformed reply header */
        if (rc != 0 || j->rx_len - at < total)
            return 0;
        FUZZ_CHECK(total >= GIOP_HEADER_BYTES);
        rc = join_message(j, at, total);
        if (rc == 1)
            *len = j->rx_joined;
        if (rc)
            return rc;
        /* a fragment: its continuation may be in already */
    }
}

static void join_free(struct join *j)
{
    free(j->rx);
    memset(j, 0, sizeof *j);
}

/* ==== end of the join ================================================= */

/* Decode one whole message and check what decode_reply claims. */
static void decode(const uint8_t *msg, size_t len)
{
    uint32_t id = 0;
    const char *payload = NULL;
    size_t payload_len = 0;
    char why[320];
    why[0] = 0;
    int rc = wire->decode_reply(msg, len, &id, &payload, &payload_len, why,
                                sizeof why);
    FUZZ_CHECK(memchr(why, 0, sizeof why) != NULL);
    if (rc) {
        FUZZ_CHECK(rc < 0 && why[0] != 0);
        return;
    }
    /* The echoed string lies inside the message, NUL after it. */
    const char *m = (const char *)msg;
    FUZZ_CHECK(payload != NULL && payload >= m && payload < m + len);
    FUZZ_CHECK(payload_len < (size_t)(m + len - payload));
    FUZZ_CHECK(payload[payload_len] == 0);
    /* A message that decodes is exactly one frame. */
    size_t total = 0;
    FUZZ_CHECK(wire->frame_bytes(msg, len, &total) == 0 && total == len);
}

/* decode() on an exact heap copy, so that reading past the message is
 * caught even when the buffer it sits in is larger. */
static void decode_copy(const uint8_t *msg, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, msg, len);
    decode(copy, len);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The input as one message: libFuzzer's copy is exactly `size` bytes
     * on the heap, so a read past the end is caught. */
    size_t total = 0;
    int rc = wire->frame_bytes(data, size, &total);
    if (rc == 0)
        FUZZ_CHECK(total >= GIOP_HEADER_BYTES &&
                   total <= GIOP_HEADER_BYTES + GIOP_MAX_MESSAGE_BYTES);
    decode(data, size);

    /* The stream fed whole, as one recv would bring it. */
    struct join whole = {0};
    size_t whole_len = 0;
    int whole_rc = join_feed(&whole, data, size, &whole_len);
    if (whole_rc == 1)
        decode_copy(whole.rx, whole_len);

    /* The same stream a byte at a time, to its first outcome. */
    struct join bytes = {0};
    size_t bytes_len = 0, used = 0;
    int bytes_rc = 0;
    while (bytes_rc == 0 && used < size)
        bytes_rc = join_feed(&bytes, data + used++, 1, &bytes_len);
    if (bytes_rc == 1)
        decode_copy(bytes.rx, bytes_len);

    /* How the bytes arrive must not change a reply: whole, the stream is
     * a reply and nothing after it, so byte by byte it ends there too. */
    if (whole_rc == 1) {
        FUZZ_CHECK(bytes_rc == 1 && used == size);
        FUZZ_CHECK(bytes_len == whole_len);
        FUZZ_CHECK(memcmp(bytes.rx, whole.rx, whole_len) == 0);
    }
    if (bytes_rc == 1 && used == size)
        FUZZ_CHECK(whole_rc == 1);
    join_free(&whole);
    join_free(&bytes);
    return 0;
}
