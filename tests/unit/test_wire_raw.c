/* Unit tests for wire_raw.c: ready lines, the call's framing, and feed's
 * framing of replies however the bytes arrive. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/cdr.h"
#include "net/wire.h"

static void test_parse_ready(void **state)
{
    (void)state;
    struct target t;
    char why[256];
    assert_int_equal(wire_raw.parse_ready("RAW tcp 127.0.0.1 4242", &t, why,
                                          sizeof why), 0);
    assert_string_equal(t.host, "127.0.0.1");
    assert_int_equal(t.port, 4242);
    assert_int_equal(t.rfd, -1);
    assert_int_equal(wire_raw.parse_ready("RAW unix /tmp/x/s1.sock", &t,
                                          why, sizeof why), 0);
    assert_string_equal(t.unix_path, "/tmp/x/s1.sock");
    assert_int_equal(wire_raw.parse_ready("RAW pipe", &t, why, sizeof why),
                     0);
    assert_int_equal(t.wfd, -1);
    const char *bad[] = {"", "RAW", "RAW tcp 127.0.0.1", "RAW tcp h 0",
                         "RAW tcp h 70000", "RAW tcp h 1 x", "RAW pipe 3",
                         "RAW unix", "IOR:00", "RAW udp x 1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = 0;
        assert_int_equal(wire_raw.parse_ready(bad[i], &t, why, sizeof why),
                         -EBADMSG);
        assert_non_null(strstr(why, "bad ready line"));
    }
}

static void test_encode(void **state)
{
    (void)state;
    struct cdr_out o;
    struct target t = {.rfd = -1, .wfd = -1};
    cdr_out_init(&o, false); /* the byte order must not matter */
    assert_int_equal(wire_raw.encode_call(&o, &t, 0x01020304, "abc", 3), 0);
    const uint8_t want[] = {7, 0, 0, 0, 4, 3, 2, 1, 'a', 'b', 'c'};
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);
    cdr_out_free(&o);
}

/* Feed `msg` (len bytes) into rx in chunks of `chunk` bytes, growing rx as
 * feed asks; every WIRE_MORE must ask beyond what it has. */
static int feed_chunks(const uint8_t *msg, size_t len, size_t chunk,
                       struct wire_reply *r)
{
    struct wire_rx rx = {.buf = malloc(1), .cap = 1};
    char why[256];
    size_t at = 0;
    int rc;
    for (;;) {
        size_t want = 0;
        rc = wire_raw.feed(&rx, &want, r, why, sizeof why);
        if (rc != WIRE_MORE)
            break;
        assert_true(want > rx.len);
        assert_true(want <= 4 + (size_t)WIRE_RAW_MAX_MESSAGE_BYTES);
        if (at == len) {
            rc = -EAGAIN; /* asked for more than the message has */
            break;
        }
        size_t n = len - at < chunk ? len - at : chunk;
        if (rx.len + n > rx.cap) {
            rx.cap = rx.len + n > want ? rx.len + n : want;
            rx.buf = realloc(rx.buf, rx.cap);
        }
        memcpy(rx.buf + rx.len, msg + at, n);
        rx.len += n;
        at += n;
    }
    if (rc == WIRE_REPLY) {
        /* copy out: rx.buf is freed here */
        static uint8_t keep[64];
        assert_true(r->payload_len <= sizeof keep);
        memcpy(keep, r->payload, r->payload_len);
        r->payload = (const char *)keep;
    }
    free(rx.buf);
    return rc;
}

static void test_feed_every_chunking(void **state)
{
    (void)state;
    const uint8_t msg[] = {9, 0, 0, 0, 42, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'};
    for (size_t chunk = 1; chunk <= sizeof msg; chunk++) {
        struct wire_reply r;
        assert_int_equal(feed_chunks(msg, sizeof msg, chunk, &r), WIRE_REPLY);
        assert_int_equal(r.id, 42);
        assert_int_equal(r.payload_len, 5);
        assert_memory_equal(r.payload, "hello", 5);
        assert_int_equal(r.bytes, sizeof msg);
    }
    /* an empty payload is a reply */
    const uint8_t empty[] = {4, 0, 0, 0, 1, 0, 0, 0};
    struct wire_reply r;
    assert_int_equal(feed_chunks(empty, sizeof empty, 3, &r), WIRE_REPLY);
    assert_int_equal(r.payload_len, 0);
}

static void test_feed_bytes_after_reply(void **state)
{
    (void)state;
    uint8_t two[] = {5, 0, 0, 0, 1, 0, 0, 0, 'x', 5, 0, 0, 0, 2, 0, 0, 0,
                     'y'};
    struct wire_rx rx = {.buf = two, .len = sizeof two, .cap = sizeof two};
    struct wire_reply r;
    size_t want;
    char why[128];
    assert_int_equal(wire_raw.feed(&rx, &want, &r, why, sizeof why),
                     WIRE_REPLY);
    /* the conn sees bytes after the reply and refuses them */
    assert_int_equal(r.bytes, 9);
}

static void test_feed_bad_length_and_limit(void **state)
{
    (void)state;
    char why[256];
    size_t want = 0;
    struct wire_reply r;
    for (uint32_t l = 0; l < 4; l++) {
        uint8_t m[8] = {(uint8_t)l, 0, 0, 0, 1, 0, 0, 0};
        struct wire_rx rx = {.buf = m, .len = 8, .cap = 8};
        assert_int_equal(wire_raw.feed(&rx, &want, &r, why, sizeof why),
                         -EBADMSG);
        assert_non_null(strstr(why, "malformed raw reply"));
    }
    uint32_t over = WIRE_RAW_MAX_MESSAGE_BYTES + 1;
    uint8_t m[8] = {(uint8_t)over, (uint8_t)(over >> 8),
                    (uint8_t)(over >> 16), (uint8_t)(over >> 24), 1, 0, 0, 0};
    struct wire_rx rx = {.buf = m, .len = 8, .cap = 8};
    assert_int_equal(wire_raw.feed(&rx, &want, &r, why, sizeof why),
                     -EMSGSIZE);
    assert_non_null(strstr(why, "over the"));
    /* at the limit: asks for exactly the whole message, no more */
    uint32_t at = WIRE_RAW_MAX_MESSAGE_BYTES;
    uint8_t a[8] = {(uint8_t)at, (uint8_t)(at >> 8), (uint8_t)(at >> 16),
                    (uint8_t)(at >> 24), 1, 0, 0, 0};
    struct wire_rx rx2 = {.buf = a, .len = 8, .cap = 8};
    assert_int_equal(wire_raw.feed(&rx2, &want, &r, why, sizeof why),
                     WIRE_MORE);
    assert_int_equal(want, 4 + (size_t)WIRE_RAW_MAX_MESSAGE_BYTES);
    uint8_t all_ones[8];
    memset(all_ones, 0xff, sizeof all_ones);
    struct wire_rx rx3 = {.buf = all_ones, .len = 8, .cap = 8};
    assert_int_equal(wire_raw.feed(&rx3, &want, &r, why, sizeof why),
                     -EMSGSIZE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_ready),
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_feed_every_chunking),
        cmocka_unit_test(test_feed_bytes_after_reply),
        cmocka_unit_test(test_feed_bad_length_and_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
