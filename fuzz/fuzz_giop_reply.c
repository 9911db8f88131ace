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
#include "fuzz_wire.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size);
    static const struct fed tmpl = {
        .wire = &wire_giop,
        .max_want = GIOP_HEADER_BYTES + GIOP_MAX_MESSAGE_BYTES,
        .min_bytes = GIOP_HEADER_BYTES,
    };
    fuzz_wire_stream(&tmpl, data, size);
    return 0;
}
