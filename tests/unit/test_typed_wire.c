/* Unit tests for calls of typed payloads on the wires: GIOP requests of
 * any argument type (giop_request_begin/giop_message_end, a new request
 * id), reply bodies (giop_encode_reply_body, giop_decode_reply_body), and
 * each wire's encode_typed, set_id and body-only feed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/giop.h"
#include "codec/payload.h"
#include "net/wire.h"

static const uint8_t key[] = "an-object-key";

static struct target target(void)
{
    struct target t;
    memset(&t, 0, sizeof t);
    memcpy(t.key, key, sizeof key - 1);
    t.key_len = sizeof key - 1;
    return t;
}

/* Request in pieces with a string argument: the bytes of
 * giop_encode_request. */
static void test_begin_end_as_encode_request(void **state)
{
    (void)state;
    for (int little = 0; little < 2; little++) {
        struct cdr_out a, b;
        cdr_out_init(&a, little);
        cdr_out_init(&b, little);
        assert_int_equal(giop_encode_request(&a, 7, key, sizeof key - 1,
                                             "echoString", "hello", 5),
                         0);
        size_t at = giop_request_begin(&b, 7, GIOP_RESPONSE_SYNC_WITH_TARGET,
                                       key, sizeof key - 1, "echoString",
                                       true);
        cdr_put_string(&b, "hello", 5);
        assert_int_equal(giop_message_end(&b, at), 0);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        cdr_out_free(&a);
        cdr_out_free(&b);
    }
}

static void test_set_request_id(void **state)
{
    (void)state;
    for (int little = 0; little < 2; little++) {
        struct cdr_out o;
        struct giop_request rq;
        uint8_t type;
        cdr_out_init(&o, little);
        cdr_put_bytes(&o, "xyz", 3); /* the message need not start at 0 */
        assert_int_equal(giop_encode_request(&o, 1, key, sizeof key - 1,
                                             "echoString", "a", 1),
                         0);
        giop_set_request_id(&o, 0xa1b2c3d4u);
        assert_int_equal(giop_decode_request(o.data + 3, o.len - 3, &rq,
                                             &type),
                         0);
        assert_int_equal(rq.request_id, 0xa1b2c3d4u);
        assert_string_equal(rq.operation, "echoString");
        cdr_out_free(&o);
    }
}

/* wire_giop's typed call: echo<Name>, the value 8-aligned from the
 * message's start, where value_at says; None has no body at all. */
static void test_giop_encode_typed(void **state)
{
    (void)state;
    struct target t = target();
    for (size_t i = 0; i < payload_count(); i++) {
        const struct payload_type *pt = payload_at(i);
        struct cdr_out o;
        struct giop_request rq;
        uint8_t type;
        size_t value_at = 0;
        char why[200];
        cdr_out_init(&o, false);
        assert_int_equal(wire_giop.encode_typed(&o, &t, 5, pt, 3, &value_at),
                         0);
        assert_int_equal(giop_decode_request(o.data, o.len, &rq, &type), 0);
        assert_string_equal(rq.operation, payload_operation(pt));
        assert_int_equal(rq.request_id, 5);
        assert_true(rq.response_expected);
        assert_int_equal(rq.body_at, value_at);
        if (!payload_has_value(pt)) {
            assert_int_equal(value_at, o.len);
        } else {
            assert_int_equal(value_at % 8, 0);
            struct cdr_in in;
            cdr_in_init(&in, o.data + value_at, o.len - value_at, false);
            assert_int_equal(payload_check(pt, 3, &in, why, sizeof why), 0);
            assert_int_equal(cdr_in_left(&in), 0);
        }
        wire_giop.set_id(&o, 6);
        assert_int_equal(giop_decode_request(o.data, o.len, &rq, &type), 0);
        assert_int_equal(rq.request_id, 6);
        cdr_out_free(&o);
    }
}

/* Feed a whole message to `wire` with body_only set: its answer. */
static int feed_body(const struct wire_ops *wire, const uint8_t *msg,
                     size_t len, struct wire_reply *r, uint8_t **buf)
{
    struct wire_rx rx = {.buf = malloc(len), .len = len, .cap = len,
                         .body_only = true};
    assert_non_null(rx.buf);
    memcpy(rx.buf, msg, len);
    size_t want = 0;
    char why[200];
    *buf = rx.buf;
    return wire->feed(&rx, &want, r, why, sizeof why);
}

/* A Reply whose body is a value's bytes, either byte order: the feed
 * hands back exactly the body, and says its byte order. */
static void test_giop_reply_body(void **state)
{
    (void)state;
    const struct payload_type *pt = payload_lookup("SharedBelief");
    for (int little = 0; little < 2; little++) {
        struct cdr_out value, msg;
        cdr_out_init(&value, little);
        assert_int_equal(payload_encode(pt, 8, &value), 0);
        cdr_out_init(&msg, little);
        assert_int_equal(giop_encode_reply_body(&msg, 77, value.data,
                                                value.len),
                         0);
        struct giop_reply gr;
        uint8_t type;
        assert_int_equal(giop_decode_reply_body(msg.data, msg.len, &gr,
                                                &type),
                         0);
        assert_int_equal(gr.request_id, 77);
        assert_int_equal(gr.status, GIOP_NO_EXCEPTION);
        assert_int_equal(gr.little, little);
        assert_int_equal(gr.body_at, 24); /* 12 + id, status, contexts */
        struct wire_reply r;
        uint8_t *buf;
        assert_int_equal(feed_body(&wire_giop, msg.data, msg.len, &r, &buf),
                         WIRE_REPLY);
        assert_int_equal(r.id, 77);
        assert_int_equal(r.little, little);
        assert_int_equal(r.bytes, msg.len);
        assert_int_equal(r.payload_len, value.len);
        assert_memory_equal(r.payload, value.data, value.len);
        free(buf);
        /* The same reply is no string: decoding it as echoString's
         * fails, so the flag is what makes the difference. */
        assert_int_not_equal(giop_decode_reply(msg.data, msg.len, &gr,
                                               &type),
                             0);
        cdr_out_free(&value);
        cdr_out_free(&msg);
    }
    /* echoNone: an empty body. */
    struct cdr_out msg;
    struct wire_reply r;
    uint8_t *buf;
    cdr_out_init(&msg, true);
    assert_int_equal(giop_encode_reply_body(&msg, 3, NULL, 0), 0);
    assert_int_equal(msg.len, 24);
    assert_int_equal(feed_body(&wire_giop, msg.data, msg.len, &r, &buf),
                     WIRE_REPLY);
    assert_int_equal(r.payload_len, 0);
    free(buf);
    cdr_out_free(&msg);
}

/* The raw wire carries the value as its payload, byte for byte. */
static void test_raw_typed(void **state)
{
    (void)state;
    struct target t = target();
    const struct payload_type *pt = payload_lookup("Odometry");
    struct cdr_out o, value;
    size_t value_at;
    cdr_out_init(&o, cdr_host_little());
    assert_int_equal(wire_raw.encode_typed(&o, &t, 9, pt, 4, &value_at), 0);
    assert_int_equal(value_at, WIRE_RAW_HEADER_BYTES);
    assert_int_equal(o.len, 8 + 44);
    static const uint8_t head[] = {48, 0, 0, 0, 9, 0, 0, 0};
    assert_memory_equal(o.data, head, sizeof head);
    cdr_out_init(&value, cdr_host_little());
    assert_int_equal(payload_encode(pt, 4, &value), 0);
    assert_memory_equal(o.data + 8, value.data, value.len);
    wire_raw.set_id(&o, 0x01020304u);
    static const uint8_t id[] = {4, 3, 2, 1};
    assert_memory_equal(o.data + 4, id, 4);
    /* The raw server's echo is the request itself. */
    struct wire_reply r;
    uint8_t *buf;
    assert_int_equal(feed_body(&wire_raw, o.data, o.len, &r, &buf),
                     WIRE_REPLY);
    assert_int_equal(r.id, 0x01020304u);
    assert_int_equal(r.little, cdr_host_little());
    assert_int_equal(r.payload_len, 44);
    assert_memory_equal(r.payload, value.data, 44);
    free(buf);
    cdr_out_free(&value);
    cdr_out_free(&o);
}

static void test_message_size_limit(void **state)
{
    (void)state;
    struct cdr_out o;
    cdr_out_init(&o, true);
    size_t at = giop_request_begin(&o, 1, GIOP_RESPONSE_SYNC_WITH_TARGET,
                                   key, sizeof key - 1, "echoOctet1K", true);
    uint8_t *big = calloc(1, GIOP_MAX_MESSAGE_BYTES);
    assert_non_null(big);
    cdr_put_bytes(&o, big, GIOP_MAX_MESSAGE_BYTES);
    assert_int_equal(giop_message_end(&o, at), -EMSGSIZE);
    free(big);
    cdr_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_begin_end_as_encode_request),
        cmocka_unit_test(test_set_request_id),
        cmocka_unit_test(test_giop_encode_typed),
        cmocka_unit_test(test_giop_reply_body),
        cmocka_unit_test(test_raw_typed),
        cmocka_unit_test(test_message_size_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
