/* libFuzzer target: the caller protocol's lines (codec/caller_proto.h) as
 * a caller's stdout reaches the harness, and as the harness's commands
 * reach orbbench's own caller. The input is split at '\n' into lines,
 * each parsed as a reply and as a command; a times line is read pair by
 * pair. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/caller_proto.h"
#include "fuzz.h"

/* A borrowed field lies inside its line. */
static void check_inside(const char *line, size_t len, const char *p)
{
    FUZZ_CHECK(p >= line && p <= line + len);
}

static void one_line(const char *line, size_t len)
{
    struct caller_reply r;
    struct caller_cmd c;
    char why[200];
    if (caller_parse_reply(line, &r, why, sizeof why) == 0) {
        if (r.type == CALLER_ERROR || r.type == CALLER_FAIL)
            check_inside(line, len, r.message);
        if (r.type == CALLER_TIMES)
            check_inside(line, len, r.pairs);
        FUZZ_CHECK(memchr(r.mode, 0, sizeof r.mode) != NULL);
        FUZZ_CHECK(memchr(r.word, 0, sizeof r.word) != NULL);
        FUZZ_CHECK(r.type != CALLER_READY || r.pid > 0);
        const char *p = r.pairs;
        int64_t s, d;
        /* Bounded: each pair moves p forward, within the line. */
        for (int rc; (rc = caller_times_next(&p, &s, &d)) == 1;) {
            check_inside(line, len, p);
            FUZZ_CHECK(s >= 0 && d >= 0);
        }
    } else {
        FUZZ_CHECK(memchr(why, 0, sizeof why) != NULL && why[0]);
    }
    if (caller_parse_cmd(line, &c, why, sizeof why) == 0) {
        if (c.type == CALLER_TARGET)
            check_inside(line, len, c.ior);
        FUZZ_CHECK(c.type != CALLER_ROUND || c.n >= 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    for (char *line = buf, *end = buf + size; line <= end;) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
        line[len] = 0; /* a NUL inside a line ends it, as in the harness */
        one_line(line, strlen(line));
        if (!nl)
            break;
        line = nl + 1;
    }
    free(buf);
    return 0;
}
