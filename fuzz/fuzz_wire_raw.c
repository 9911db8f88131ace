/* libFuzzer target: the raw wire (servers/raw's framing: a 4-byte
 * little-endian length, a 4-byte request id, the payload) as the client
 * reads it: the input as a server's ready line (parse_ready) and as the
 * byte stream it sent (feed, whole and a byte at a time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_wire.h"
#include "net/transport.h"
#include "net/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The ready line: a NUL-terminated copy, as the spawner hands it. */
    char *line = malloc(size + 1);
    FUZZ_CHECK(line != NULL);
    if (size)
        memcpy(line, data, size);
    line[size] = 0;
    struct target t;
    char why[320];
    why[0] = 0;
    if (wire_raw.parse_ready(line, &t, why, sizeof why) == 0) {
        FUZZ_CHECK(memchr(t.host, 0, sizeof t.host) != NULL);
        FUZZ_CHECK(memchr(t.unix_path, 0, sizeof t.unix_path) != NULL);
    } else {
        FUZZ_CHECK(why[0] != 0 && memchr(why, 0, sizeof why) != NULL);
    }
    free(line);

    static const struct fed tmpl = {
        .wire = &wire_raw,
        .max_want = 4 + WIRE_RAW_MAX_MESSAGE_BYTES,
        .min_bytes = 8,
    };
    fuzz_wire_stream(&tmpl, data, size);
    return 0;
}
