/* libFuzzer target: IOR parsing as a server's ready line reaches it
 * (wire_giop's parse_ready, which calls ior_parse). Each input is tried as
 * the line's text, and as raw CDR behind "IOR:" in hex, so mutations reach
 * the CDR decoder without having to keep the hex well formed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ior.h"
#include "transport.h"
#include "wire.h"

/* A field the parser filled must end inside its buffer. */
static void check_terminated(const char *s, size_t cap)
{
    FUZZ_CHECK(memchr(s, 0, cap) != NULL);
}

static void parse(const char *line)
{
    struct ior ior;
    int rc = ior_parse(line, &ior);
    FUZZ_CHECK(rc <= 0);
    if (rc == 0) {
        check_terminated(ior.type_id, sizeof ior.type_id);
        check_terminated(ior.host, sizeof ior.host);
        check_terminated(ior.unix_host, sizeof ior.unix_host);
        check_terminated(ior.unix_path, sizeof ior.unix_path);
        FUZZ_CHECK(ior.key_len <= sizeof ior.key);
        FUZZ_CHECK(ior.iiop_major == 1);
    }
    FUZZ_CHECK(ior_strerror(rc) != NULL);

    struct target t;
    char why[256];
    why[0] = 0;
    int wrc = wire_giop.parse_ready(line, &t, why, sizeof why);
    check_terminated(why, sizeof why);
    if (wrc == 0) {
        /* parse_ready agrees with ior_parse and keeps what fits. */
        FUZZ_CHECK(rc == 0);
        FUZZ_CHECK(t.key_len == ior.key_len);
        FUZZ_CHECK(memcmp(t.key, ior.key, t.key_len) == 0);
        FUZZ_CHECK(t.port == ior.port);
        check_terminated(t.host, sizeof t.host);
        check_terminated(t.unix_path, sizeof t.unix_path);
    } else {
        FUZZ_CHECK(wrc < 0 && why[0] != 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The line as text: a NUL-terminated copy of exactly its bytes. */
    char *line = malloc(size + 1);
    FUZZ_CHECK(line != NULL);
    memcpy(line, data, size);
    line[size] = 0;
    parse(line);
    free(line);

    /* The bytes as the IOR's CDR: "IOR:" and their hex. */
    static const char hex[] = "0123456789abcdef";
    char *ior = malloc(4 + 2 * size + 1);
    FUZZ_CHECK(ior != NULL);
    memcpy(ior, "IOR:", 4);
    for (size_t i = 0; i < size; i++) {
        ior[4 + 2 * i] = hex[data[i] >> 4];
        ior[4 + 2 * i + 1] = hex[data[i] & 15];
    }
    ior[4 + 2 * size] = 0;
    parse(ior);
    free(ior);
    return 0;
}
