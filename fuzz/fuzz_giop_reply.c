/* libFuzzer target: GIOP replies as the client reads them. The input is
 * the byte stream a server sent, decoded as one message (giop.c's
 * giop_decode_reply) and fed to the wire (wire_giop's feed: framing,
 * fragment joining, the size limit, decoding) whole and a byte at a time:
 * both feeds must give the same answer, every "more" must ask for bytes
 * beyond those it has and within the limit, and every decoded reply must
 * lie inside the bytes it came from. The same for a typed payload's
 * reply (the body handed over undecoded: giop_decode_reply_body, the
 * feed with body_only), whose body is then checked as every payload type
 * in both byte orders (payload_check: a server's bytes, never trusted). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "codec/giop.h"
#include "fuzz_wire.h"
#include "codec/payload.h"
#include "net/wire.h"

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

/* The input as a typed payload's reply: its body lies inside, 8-aligned,
 * and every payload's check of it stays inside and says yes or no. */
static void decode_body(const uint8_t *msg, size_t len)
{
    struct giop_reply r;
    uint8_t type;
    int rc = giop_decode_reply_body(msg, len, &r, &type);
    if (rc || r.status != GIOP_NO_EXCEPTION)
        return;
    FUZZ_CHECK(r.body_at >= GIOP_HEADER_BYTES && r.body_at <= len);
    FUZZ_CHECK(r.body_at == len || r.body_at % 8 == 0);
    for (size_t i = 0; i < payload_count(); i++) {
        for (int little = 0; little < 2; little++) {
            struct cdr_in in;
            char why[200];
            cdr_in_init(&in, msg + r.body_at, len - r.body_at, little);
            rc = payload_check(payload_at(i), 0, &in, why, sizeof why);
            FUZZ_CHECK(rc == 0 || (rc == -EBADMSG && why[0]));
            FUZZ_CHECK(in.pos <= len - r.body_at);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size);
    decode_body(data, size);
    static const struct fed tmpl = {
        .wire = &wire_giop,
        .max_want = GIOP_HEADER_BYTES + GIOP_MAX_MESSAGE_BYTES,
        .min_bytes = GIOP_HEADER_BYTES,
    };
    fuzz_wire_stream(&tmpl, data, size);
    static const struct fed typed = {
        .wire = &wire_giop,
        .max_want = GIOP_HEADER_BYTES + GIOP_MAX_MESSAGE_BYTES,
        .min_bytes = GIOP_HEADER_BYTES,
        .rx = {.body_only = true},
    };
    fuzz_wire_stream(&typed, data, size);
    return 0;
}
