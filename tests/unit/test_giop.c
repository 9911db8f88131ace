/* Unit tests for giop.c: Request encoding, Reply decoding, rejections. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/cdr.h"
#include "codec/giop.h"
#include "net/wire.h"

/* --- A small decoder of our own, so the encoder is not checked against
 * --- the code it shares with cdr.c. */

static uint16_t rd16(const uint8_t *p, bool little)
{
    return little ? (uint16_t)(p[0] | p[1] << 8)
                  : (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p, bool little)
{
    if (little)
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
               (uint32_t)p[3] << 24;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

static void wr32(uint8_t *p, uint32_t v, bool little)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * (little ? i : 3 - i)));
}

static size_t round_up(size_t off, size_t n)
{
    return (off + n - 1) / n * n;
}

/* Pad bytes from `from` to `to` must all be zero. */
static void check_zero(const uint8_t *m, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        assert_int_equal(m[i], 0);
}

/* A heap copy of exactly `n` bytes, so valgrind sees reads past the end. */
static uint8_t *dup_exact(const void *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    assert_non_null(d);
    if (n)
        memcpy(d, p, n);
    return d;
}

/* --- Requests --- */

static void check_request(bool little, uint32_t id, const uint8_t *key,
                          size_t key_len, const char *op, const char *arg,
                          size_t arg_len)
{
    struct cdr_out o;
    cdr_out_init(&o, little);
    assert_int_equal(giop_encode_request(&o, id, key, key_len, op, arg,
                                         arg_len),
                     0);
    assert_int_equal(o.err, 0);
    const uint8_t *m = o.data;
    size_t n = o.len;
    assert_true(n >= 12);

    /* Header: magic, version 1.2, flags (bit 0 = little), type Request,
     * then the size of everything after the 12 header bytes. */
    assert_memory_equal(m, "GIOP", 4);
    assert_int_equal(m[4], 1);
    assert_int_equal(m[5], 2);
    assert_int_equal(m[6], little ? 1 : 0);
    assert_int_equal(m[7], 0);
    assert_int_equal(rd32(m + 8, little), n - 12);

    /* RequestHeader_1_2 */
    assert_int_equal(rd32(m + 12, little), id);
    assert_int_equal(m[16], 3); /* response_flags */
    check_zero(m, 17, 20);      /* reserved[3] */
    assert_int_equal(rd16(m + 20, little), 0); /* KeyAddr */
    check_zero(m, 22, 24);
    assert_int_equal(rd32(m + 24, little), key_len);
    if (key_len)
        assert_memory_equal(m + 28, key, key_len);
    size_t off = 28 + key_len;
    size_t at = round_up(off, 4);
    check_zero(m, off, at);
    size_t op_len = strlen(op);
    assert_int_equal(rd32(m + at, little), op_len + 1);
    assert_memory_equal(m + at + 4, op, op_len);
    assert_int_equal(m[at + 4 + op_len], 0);
    off = at + 4 + op_len + 1;
    at = round_up(off, 4);
    check_zero(m, off, at);
    assert_int_equal(rd32(m + at, little), 0); /* service contexts */
    off = at + 4;

    /* The body (the string argument) starts 8-aligned from message start. */
    at = round_up(off, 8);
    assert_int_equal(at % 8, 0);
    check_zero(m, off, at);
    assert_int_equal(rd32(m + at, little), arg_len + 1);
    if (arg_len)
        assert_memory_equal(m + at + 4, arg, arg_len);
    assert_int_equal(m[at + 4 + arg_len], 0);
    assert_int_equal(at + 4 + arg_len + 1, n);
    cdr_out_free(&o);
}

/* The object key of the real omniORB TCP IOR (see test_ior.c). */
static const uint8_t real_key[] = {0xfe, 0x0a, 0x9c, 0x0c, 0x6b, 0x00, 0x00,
                                   0x0d, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00};

static void test_request_real_key(void **state)
{
    (void)state;
    check_request(false, 1, real_key, sizeof real_key, "echoString", "hello",
                  5);
    check_request(true, 1, real_key, sizeof real_key, "echoString", "hello",
                  5);
}

/* Every key length from 0 to 17 moves the padding before the body. */
static void test_request_alignments(void **state)
{
    (void)state;
    uint8_t key[17];
    for (size_t i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(0xa0 + i);
    for (int little = 0; little < 2; little++) {
        for (size_t k = 0; k <= sizeof key; k++) {
            check_request(little, (uint32_t)k * 0x01010101u, key, k,
                          "echoString", "x", 1);
            check_request(little, 0xffffffffu, key, k, "op", "", 0);
            check_request(little, 7, key, k, "a_longer_name", "abcdefg", 7);
        }
    }
}

static void test_request_large_arg(void **state)
{
    (void)state;
    size_t n = 100000;
    char *arg = malloc(n);
    assert_non_null(arg);
    for (size_t i = 0; i < n; i++)
        arg[i] = (char)('a' + i % 26);
    check_request(false, 42, real_key, sizeof real_key, "echoString", arg, n);
    check_request(true, 42, real_key, sizeof real_key, "echoString", arg, n);
    free(arg);
}

/* One request written out byte by byte. */
static void test_request_exact_bytes(void **state)
{
    (void)state;
    static const uint8_t key[] = {0xaa, 0xbb, 0xcc};
    static const uint8_t want[] = {
        'G', 'I', 'O', 'P', 1, 2, 0, 0, /* GIOP 1.2, big endian, Request */
        0, 0, 0, 51,                    /* 63 - 12 */
        0, 0, 0, 5,                     /* request id */
        3, 0, 0, 0,                     /* response flags, reserved */
        0, 0, 0, 0,                     /* KeyAddr, pad */
        0, 0, 0, 3, 0xaa, 0xbb, 0xcc, 0, /* key, pad */
        0, 0, 0, 11, 'e', 'c', 'h', 'o', 'S', 't', 'r', 'i', 'n', 'g', 0,
        0,                              /* pad to 48 */
        0, 0, 0, 0,                     /* no service contexts */
        0, 0, 0, 0,                     /* pad to 56 */
        0, 0, 0, 3, 'h', 'i', 0,        /* the argument */
    };
    struct cdr_out o;
    cdr_out_init(&o, false);
    assert_int_equal(giop_encode_request(&o, 5, key, sizeof key,
                                         "echoString", "hi", 2),
                     0);
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);

    /* The same in little endian differs only in flags and numbers. */
    uint8_t want_le[sizeof want];
    memcpy(want_le, want, sizeof want);
    want_le[6] = 1;
    wr32(want_le + 8, 51, true);
    wr32(want_le + 12, 5, true);
    wr32(want_le + 24, 3, true);
    wr32(want_le + 32, 11, true);
    wr32(want_le + 56, 3, true);
    cdr_out_reset(&o, true);
    assert_int_equal(giop_encode_request(&o, 5, key, sizeof key,
                                         "echoString", "hi", 2),
                     0);
    assert_int_equal(o.len, sizeof want_le);
    assert_memory_equal(o.data, want_le, sizeof want_le);
    cdr_out_free(&o);
}

/* A oneway request (response_flags 0) is the synchronous one with only
 * that octet changed; the wire's sendOneway and onewayCount (no argument:
 * no body, no padding after the service contexts) byte by byte. */
static void test_request_oneway(void **state)
{
    (void)state;
    static const uint8_t key[] = {0xaa, 0xbb, 0xcc};
    for (int little = 0; little < 2; little++) {
        struct cdr_out a, b;
        cdr_out_init(&a, little);
        cdr_out_init(&b, little);
        assert_int_equal(giop_encode_request(&a, 9, key, sizeof key,
                                             "sendOneway", "0123456789", 10),
                         0);
        assert_int_equal(giop_encode_request_flags(
                             &b, 9, GIOP_RESPONSE_NONE, key, sizeof key,
                             "sendOneway", "0123456789", 10),
                         0);
        assert_int_equal(a.len, b.len);
        assert_int_equal(a.data[16], 3);
        assert_int_equal(b.data[16], 0);
        b.data[16] = 3;
        assert_memory_equal(a.data, b.data, a.len);
        cdr_out_free(&a);
        cdr_out_free(&b);
    }
    static const uint8_t want[] = {
        'G', 'I', 'O', 'P', 1, 2, 0, 0, /* GIOP 1.2, big endian, Request */
        0, 0, 0, 40,                    /* 52 - 12 */
        0, 0, 0, 7,                     /* request id */
        3, 0, 0, 0,                     /* response flags, reserved */
        0, 0, 0, 0,                     /* KeyAddr, pad */
        0, 0, 0, 3, 0xaa, 0xbb, 0xcc, 0, /* key, pad */
        0, 0, 0, 12, 'o', 'n', 'e', 'w', 'a', 'y', 'C', 'o', 'u', 'n', 't',
        0,                              /* ends at 48 */
        0, 0, 0, 0,                     /* no service contexts, no body */
    };
    struct cdr_out o;
    cdr_out_init(&o, false);
    assert_int_equal(giop_encode_request_flags(
                         &o, 7, GIOP_RESPONSE_SYNC_WITH_TARGET, key,
                         sizeof key, "onewayCount", NULL, 0),
                     0);
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);
    cdr_out_free(&o);
}

/* A request encoded into a reused buffer is the same as into a new one. */
static void test_request_reuse(void **state)
{
    (void)state;
    struct cdr_out a, b;
    cdr_out_init(&a, true);
    cdr_out_init(&b, true);
    assert_int_equal(giop_encode_request(&a, 1, real_key, 3, "echoString",
                                         "first, longer argument", 22),
                     0);
    cdr_out_reset(&a, true);
    assert_int_equal(giop_encode_request(&a, 2, real_key, 5, "echoString",
                                         "second", 6),
                     0);
    assert_int_equal(giop_encode_request(&b, 2, real_key, 5, "echoString",
                                         "second", 6),
                     0);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    cdr_out_free(&a);
    cdr_out_free(&b);
}

/* --- Replies, built with cdr_out --- */

/* GIOP header with size 0 (patched by end_message), then the reply
 * header: request id, status and `contexts` service contexts whose data
 * lengths (5, 3) leave the end unaligned. */
static void start_reply(struct cdr_out *o, bool little, uint32_t id,
                        uint32_t status, int contexts)
{
    cdr_out_init(o, little);
    cdr_put_bytes(o, "GIOP", 4);
    cdr_put_octet(o, 1);
    cdr_put_octet(o, 2);
    cdr_put_octet(o, little ? 1 : 0);
    cdr_put_octet(o, GIOP_REPLY);
    cdr_put_long(o, 0);
    cdr_put_long(o, id);
    cdr_put_long(o, status);
    cdr_put_long(o, (uint32_t)contexts);
    for (int i = 0; i < contexts; i++) {
        static const uint8_t data[] = {1, 0x11, 0x22, 0x33, 0x44};
        cdr_put_long(o, 0x4f4d0000u + (uint32_t)i);
        cdr_put_octet_seq(o, data, i == 0 ? 5 : 3);
    }
}

/* Start the body: GIOP 1.2 aligns it on 8 from the message start. */
static void start_body(struct cdr_out *o)
{
    cdr_align(o, 8);
}

static void end_message(struct cdr_out *o)
{
    cdr_patch_long(o, 8, (uint32_t)(o->len - 12));
    assert_int_equal(o->err, 0);
}

static void build_no_exception(struct cdr_out *o, bool little, int contexts,
                               const char *result)
{
    start_reply(o, little, 0x01020304u, GIOP_NO_EXCEPTION, contexts);
    start_body(o);
    cdr_put_string(o, result, strlen(result));
    end_message(o);
}

static void build_system_exception(struct cdr_out *o, bool little,
                                   int contexts)
{
    start_reply(o, little, 77, GIOP_SYSTEM_EXCEPTION, contexts);
    start_body(o);
    cdr_put_string(o, "IDL:omg.org/CORBA/BAD_OPERATION:1.0", 35);
    cdr_put_long(o, 0x4f4d0002u);
    cdr_put_long(o, 1); /* COMPLETED_NO */
    end_message(o);
}

static void build_user_exception(struct cdr_out *o, bool little,
                                 int contexts, bool member)
{
    start_reply(o, little, 78, GIOP_USER_EXCEPTION, contexts);
    start_body(o);
    cdr_put_string(o, "IDL:Bench/Oops:1.0", 18);
    if (member)
        cdr_put_long(o, 0xdeadbeefu);
    end_message(o);
}

/* A forward carries an IOR; here a minimal one. */
static void build_forward(struct cdr_out *o, bool little, uint32_t status,
                          int contexts)
{
    start_reply(o, little, 79, status, contexts);
    start_body(o);
    cdr_put_string(o, "IDL:Bench/Echo:1.0", 18);
    cdr_put_long(o, 0);
    end_message(o);
}

static void build_needs_addressing(struct cdr_out *o, bool little)
{
    start_reply(o, little, 80, GIOP_NEEDS_ADDRESSING_MODE, 0);
    start_body(o);
    cdr_put_short(o, 1); /* AddressingDisposition: ProfileAddr */
    end_message(o);
}

static int decode(const struct cdr_out *o, struct giop_reply *r,
                  uint8_t *type)
{
    /* Decode from an exact-size copy so over-reads are caught. */
    uint8_t *m = dup_exact(o->data, o->len);
    int rc = giop_decode_reply(m, o->len, r, type);
    /* Borrowed pointers must point inside m; rebase them onto o->data,
     * which holds the same bytes, before m goes. */
    if (r->result) {
        assert_true((const uint8_t *)r->result >= m &&
                    (const uint8_t *)r->result < m + o->len);
        r->result = (const char *)o->data + ((const uint8_t *)r->result - m);
    }
    if (r->exception_id) {
        assert_true((const uint8_t *)r->exception_id >= m &&
                    (const uint8_t *)r->exception_id < m + o->len);
        r->exception_id = (const char *)o->data +
                          ((const uint8_t *)r->exception_id - m);
    }
    free(m);
    return rc;
}

static void test_reply_handwritten(void **state)
{
    (void)state;
    /* Little endian, request 7, NO_EXCEPTION, no contexts, "ok". */
    static const uint8_t msg[] = {
        'G', 'I', 'O', 'P', 1, 2, 1, 1, /* GIOP 1.2, little, Reply */
        19, 0, 0, 0,                    /* 31 - 12 */
        7, 0, 0, 0,                     /* request id */
        0, 0, 0, 0,                     /* NO_EXCEPTION */
        0, 0, 0, 0,                     /* no contexts; 24 is 8-aligned */
        3, 0, 0, 0, 'o', 'k', 0,
    };
    struct giop_reply r;
    uint8_t type = 0;
    uint8_t *m = dup_exact(msg, sizeof msg);
    assert_int_equal(giop_decode_reply(m, sizeof msg, &r, &type), 0);
    assert_int_equal(type, GIOP_REPLY);
    assert_int_equal(r.request_id, 7);
    assert_int_equal(r.status, GIOP_NO_EXCEPTION);
    assert_ptr_equal(r.result, m + 28);
    assert_int_equal(r.result_len, 2);
    assert_string_equal(r.result, "ok");
    assert_null(r.exception_id);
    free(m);
}

static void test_reply_no_exception(void **state)
{
    (void)state;
    /* Body offsets: no contexts 24; one (5 bytes) ends at 37 -> 40; two
     * end at 51 -> 56. */
    static const size_t body_at[] = {24, 40, 56};
    for (int little = 0; little < 2; little++) {
        for (int ctx = 0; ctx < 3; ctx++) {
            struct cdr_out o;
            struct giop_reply r;
            uint8_t type = 0;
            build_no_exception(&o, little, ctx, "hello back");
            assert_int_equal(o.len, body_at[ctx] + 4 + 11);
            assert_int_equal(decode(&o, &r, &type), 0);
            assert_int_equal(type, GIOP_REPLY);
            assert_int_equal(r.request_id, 0x01020304u);
            assert_int_equal(r.status, GIOP_NO_EXCEPTION);
            assert_ptr_equal(r.result, o.data + body_at[ctx] + 4);
            assert_int_equal(r.result_len, 10);
            assert_string_equal(r.result, "hello back");
            assert_null(r.exception_id);
            assert_int_equal(r.exception_id_len, 0);
            cdr_out_free(&o);
        }
    }
}

static void test_reply_empty_result(void **state)
{
    (void)state;
    struct cdr_out o;
    struct giop_reply r;
    uint8_t type;
    build_no_exception(&o, true, 1, "");
    assert_int_equal(decode(&o, &r, &type), 0);
    assert_int_equal(r.result_len, 0);
    assert_string_equal(r.result, "");
    cdr_out_free(&o);
}

static void test_reply_system_exception(void **state)
{
    (void)state;
    for (int little = 0; little < 2; little++) {
        for (int ctx = 0; ctx < 3; ctx++) {
            struct cdr_out o;
            struct giop_reply r;
            uint8_t type;
            build_system_exception(&o, little, ctx);
            assert_int_equal(decode(&o, &r, &type), 0);
            assert_int_equal(type, GIOP_REPLY);
            assert_int_equal(r.request_id, 77);
            assert_int_equal(r.status, GIOP_SYSTEM_EXCEPTION);
            assert_int_equal(r.exception_id_len, 35);
            assert_string_equal(r.exception_id,
                                "IDL:omg.org/CORBA/BAD_OPERATION:1.0");
            assert_int_equal(r.minor, 0x4f4d0002u);
            assert_int_equal(r.completed, 1);
            assert_null(r.result);
            cdr_out_free(&o);
        }
    }
}

static void test_reply_user_exception(void **state)
{
    (void)state;
    for (int little = 0; little < 2; little++) {
        struct cdr_out o;
        struct giop_reply r;
        uint8_t type;
        build_user_exception(&o, little, little ? 2 : 1, true);
        assert_int_equal(decode(&o, &r, &type), 0);
        assert_int_equal(r.request_id, 78);
        assert_int_equal(r.status, GIOP_USER_EXCEPTION);
        assert_int_equal(r.exception_id_len, 18);
        assert_string_equal(r.exception_id, "IDL:Bench/Oops:1.0");
        assert_int_equal(r.minor, 0);
        assert_int_equal(r.completed, 0);
        assert_null(r.result);
        cdr_out_free(&o);
    }
}

static void test_reply_forward(void **state)
{
    (void)state;
    static const uint32_t statuses[] = {GIOP_LOCATION_FORWARD,
                                        GIOP_LOCATION_FORWARD_PERM};
    for (int little = 0; little < 2; little++) {
        for (size_t i = 0; i < 2; i++) {
            struct cdr_out o;
            struct giop_reply r;
            uint8_t type;
            build_forward(&o, little, statuses[i], 1);
            assert_int_equal(decode(&o, &r, &type), 0);
            assert_int_equal(type, GIOP_REPLY);
            assert_int_equal(r.request_id, 79);
            assert_int_equal(r.status, statuses[i]);
            assert_null(r.result);
            assert_null(r.exception_id);
            cdr_out_free(&o);
        }
    }
}

static void test_reply_needs_addressing(void **state)
{
    (void)state;
    for (int little = 0; little < 2; little++) {
        struct cdr_out o;
        struct giop_reply r;
        uint8_t type;
        build_needs_addressing(&o, little);
        assert_int_equal(decode(&o, &r, &type), 0);
        assert_int_equal(r.request_id, 80);
        assert_int_equal(r.status, GIOP_NEEDS_ADDRESSING_MODE);
        assert_null(r.result);
        cdr_out_free(&o);
    }
}

static void test_reply_unknown_status(void **state)
{
    (void)state;
    struct cdr_out o;
    struct giop_reply r;
    uint8_t type;
    start_reply(&o, true, 81, 6, 0);
    start_body(&o);
    cdr_put_string(&o, "x", 1);
    end_message(&o);
    assert_int_equal(decode(&o, &r, &type), -EBADMSG);
    cdr_out_free(&o);
}

/* --- Headers and rejections --- */

/* 12 header bytes with the given fields; big or little size field. */
static void header(uint8_t *m, const char *magic, uint8_t major,
                   uint8_t minor, uint8_t flags, uint8_t type, uint32_t size)
{
    memcpy(m, magic, 4);
    m[4] = major;
    m[5] = minor;
    m[6] = flags;
    m[7] = type;
    wr32(m + 8, size, flags & 1);
}

static void test_header_parse(void **state)
{
    (void)state;
    uint8_t m[12];
    struct giop_header h;
    header(m, "GIOP", 1, 2, 1, GIOP_REPLY, 0x00010203u);
    assert_int_equal(giop_header_parse(m, 12, &h), 0);
    assert_int_equal(h.major, 1);
    assert_int_equal(h.minor, 2);
    assert_true(h.little);
    assert_false(h.more_fragments);
    assert_int_equal(h.type, GIOP_REPLY);
    assert_int_equal(h.body_bytes, 0x00010203u);

    header(m, "GIOP", 1, 1, 2, GIOP_FRAGMENT, 0x00010203u);
    assert_int_equal(giop_header_parse(m, 12, &h), 0);
    assert_false(h.little);
    assert_true(h.more_fragments);
    assert_int_equal(h.type, GIOP_FRAGMENT);
    assert_int_equal(h.body_bytes, 0x00010203u);

    /* GIOP 1.0 has no fragment bit. */
    header(m, "GIOP", 1, 0, 3, GIOP_REQUEST, 9);
    assert_int_equal(giop_header_parse(m, 12, &h), 0);
    assert_true(h.little);
    assert_false(h.more_fragments);
    assert_int_equal(h.body_bytes, 9);

    /* More bytes than the header is fine: only 12 are looked at. */
    uint8_t longer[20] = {0};
    header(longer, "GIOP", 1, 2, 0, GIOP_REPLY, 8);
    assert_int_equal(giop_header_parse(longer, sizeof longer, &h), 0);
    assert_int_equal(h.body_bytes, 8);
}

static void test_header_size_limit(void **state)
{
    (void)state;
    uint8_t m[12];
    struct giop_header h;
    for (int little = 0; little < 2; little++) {
        header(m, "GIOP", 1, 2, (uint8_t)little, GIOP_REPLY,
               GIOP_MAX_MESSAGE_BYTES);
        assert_int_equal(giop_header_parse(m, 12, &h), 0);
        assert_int_equal(h.body_bytes, GIOP_MAX_MESSAGE_BYTES);
        header(m, "GIOP", 1, 2, (uint8_t)little, GIOP_REPLY,
               GIOP_MAX_MESSAGE_BYTES + 1);
        assert_int_equal(giop_header_parse(m, 12, &h), -EMSGSIZE);
        header(m, "GIOP", 1, 2, (uint8_t)little, GIOP_REPLY, 0xffffffffu);
        assert_int_equal(giop_header_parse(m, 12, &h), -EMSGSIZE);
    }
}

static void test_reject_short(void **state)
{
    (void)state;
    struct cdr_out o;
    struct giop_reply r;
    struct giop_header h;
    uint8_t type = 0;
    build_no_exception(&o, false, 0, "x");
    for (size_t n = 0; n < 12; n++) {
        uint8_t *m = dup_exact(o.data, n);
        assert_int_equal(giop_header_parse(m, n, &h), -EAGAIN);
        assert_int_equal(giop_decode_reply(m, n, &r, &type), -EAGAIN);
        free(m);
    }
    cdr_out_free(&o);
}

static void test_reject_magic(void **state)
{
    (void)state;
    static const char *const bad[] = {"GIOQ", "giop", "POIG", "RMI\0",
                                      "\0\0\0\0"};
    struct cdr_out o;
    struct giop_reply r;
    uint8_t type;
    build_no_exception(&o, true, 0, "x");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memcpy(o.data, bad[i], 4);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
    }
    memcpy(o.data, "GIOP", 4);
    assert_int_equal(decode(&o, &r, &type), 0);
    cdr_out_free(&o);
}

static void test_reject_version(void **state)
{
    (void)state;
    static const uint8_t bad[][2] = {{2, 0}, {0, 9}, {1, 3}, {2, 2},
                                     {0xff, 0xff}};
    struct cdr_out o;
    struct giop_reply r;
    struct giop_header h;
    uint8_t type;
    build_no_exception(&o, false, 1, "x");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o.data[4] = bad[i][0];
        o.data[5] = bad[i][1];
        assert_int_equal(giop_header_parse(o.data, o.len, &h), -EPROTO);
        assert_int_equal(decode(&o, &r, &type), -EPROTO);
    }
    /* The header parser knows 1.0 and 1.1, but a Reply must be 1.2: that
     * is all we ever send. */
    for (uint8_t minor = 0; minor < 2; minor++) {
        o.data[4] = 1;
        o.data[5] = minor;
        assert_int_equal(giop_header_parse(o.data, o.len, &h), 0);
        assert_int_equal(decode(&o, &r, &type), -EPROTO);
        assert_int_equal(type, GIOP_REPLY);
    }
    /* A 1.2 Reply with "more fragments" set is refused as well. */
    o.data[5] = 2;
    o.data[6] = 2;
    assert_int_equal(decode(&o, &r, &type), -EPROTO);
    o.data[6] = 0;
    assert_int_equal(decode(&o, &r, &type), 0);
    cdr_out_free(&o);
}

static void test_reject_size(void **state)
{
    (void)state;
    uint8_t m[12];
    struct giop_reply r;
    uint8_t type;
    for (int little = 0; little < 2; little++) {
        /* The size is refused before the missing body is noticed. */
        header(m, "GIOP", 1, 2, (uint8_t)little, GIOP_REPLY,
               GIOP_MAX_MESSAGE_BYTES + 1);
        assert_int_equal(giop_decode_reply(m, sizeof m, &r, &type),
                         -EMSGSIZE);
        header(m, "GIOP", 1, 2, (uint8_t)little, GIOP_REPLY, 0x80000000u);
        assert_int_equal(giop_decode_reply(m, sizeof m, &r, &type),
                         -EMSGSIZE);
        /* At the limit it is only a length mismatch. */
        header(m, "GIOP", 1, 2, (uint8_t)little, GIOP_REPLY,
               GIOP_MAX_MESSAGE_BYTES);
        assert_int_equal(giop_decode_reply(m, sizeof m, &r, &type),
                         -EBADMSG);
    }
}

static void test_reject_length_mismatch(void **state)
{
    (void)state;
    struct cdr_out o;
    struct giop_reply r;
    uint8_t type;
    for (int little = 0; little < 2; little++) {
        build_no_exception(&o, little, 1, "abc");
        uint32_t size = rd32(o.data + 8, little);
        assert_int_equal(size, o.len - 12);
        /* One trailing byte beyond the declared size. */
        cdr_put_octet(&o, 0);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        o.len--;
        assert_int_equal(decode(&o, &r, &type), 0);
        /* Declared size one more, or one less, than what is there. */
        wr32(o.data + 8, size + 1, little);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        wr32(o.data + 8, size - 1, little);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        /* The size in the wrong byte order reads as 0x24000000 and over. */
        assert_true(size < 256);
        wr32(o.data + 8, size, !little);
        assert_int_equal(decode(&o, &r, &type), -EMSGSIZE);
        cdr_out_free(&o);
    }
}

static void test_reject_not_reply(void **state)
{
    (void)state;
    uint8_t m[16] = {0};
    struct giop_reply r;
    uint8_t type = 0xee;
    header(m, "GIOP", 1, 2, 0, GIOP_CLOSE_CONNECTION, 0);
    assert_int_equal(giop_decode_reply(m, 12, &r, &type), -ENOMSG);
    assert_int_equal(type, GIOP_CLOSE_CONNECTION);
    assert_int_equal(type, 5);
    header(m, "GIOP", 1, 0, 1, GIOP_CLOSE_CONNECTION, 0);
    assert_int_equal(giop_decode_reply(m, 12, &r, &type), -ENOMSG);
    assert_int_equal(type, 5);
    header(m, "GIOP", 1, 2, 1, GIOP_MESSAGE_ERROR, 0);
    assert_int_equal(giop_decode_reply(m, 12, &r, &type), -ENOMSG);
    assert_int_equal(type, GIOP_MESSAGE_ERROR);
    header(m, "GIOP", 1, 2, 0, GIOP_REQUEST, 4);
    assert_int_equal(giop_decode_reply(m, 16, &r, &type), -ENOMSG);
    assert_int_equal(type, GIOP_REQUEST);
    header(m, "GIOP", 1, 2, 0, GIOP_LOCATE_REPLY, 4);
    assert_int_equal(giop_decode_reply(m, 16, &r, &type), -ENOMSG);
    assert_int_equal(type, GIOP_LOCATE_REPLY);
}

/* Cut a reply at every length. Cut as received (the header still claims
 * the full size) it must fail; cut with the header's size made to match,
 * only the body is short, and it must fail with -EBADMSG. */
static void check_cuts(const struct cdr_out *o, bool little,
                       bool body_checked)
{
    struct giop_reply r;
    uint8_t type;
    for (size_t n = 0; n < o->len; n++) {
        uint8_t *m = dup_exact(o->data, n);
        int rc = giop_decode_reply(m, n, &r, &type);
        assert_int_equal(rc, n < 12 ? -EAGAIN : -EBADMSG);
        if (n >= 12 && body_checked) {
            wr32(m + 8, (uint32_t)(n - 12), little);
            assert_int_equal(giop_decode_reply(m, n, &r, &type), -EBADMSG);
        }
        free(m);
    }
}

static void test_truncated_replies(void **state)
{
    (void)state;
    for (int little = 0; little < 2; little++) {
        for (int ctx = 0; ctx < 3; ctx++) {
            struct cdr_out o;
            build_no_exception(&o, little, ctx, "hello back");
            check_cuts(&o, little, true);
            cdr_out_free(&o);
            build_no_exception(&o, little, ctx, "");
            check_cuts(&o, little, true);
            cdr_out_free(&o);
            build_system_exception(&o, little, ctx);
            check_cuts(&o, little, true);
            cdr_out_free(&o);
            build_user_exception(&o, little, ctx, false);
            check_cuts(&o, little, true);
            cdr_out_free(&o);
            /* The decoder does not read past the repository id of a user
             * exception nor into a forward's IOR, so only cuts that make
             * the length disagree with the header are checked here. */
            build_user_exception(&o, little, ctx, true);
            check_cuts(&o, little, false);
            cdr_out_free(&o);
            build_forward(&o, little, GIOP_LOCATION_FORWARD, ctx);
            check_cuts(&o, little, false);
            cdr_out_free(&o);
            build_needs_addressing(&o, little);
            check_cuts(&o, little, false);
            cdr_out_free(&o);
        }
    }
}

/* Bad lengths inside a reply whose total length is right. */
static void test_reply_bad_inner_lengths(void **state)
{
    (void)state;
    struct cdr_out o;
    struct giop_reply r;
    uint8_t type;
    for (int little = 0; little < 2; little++) {
        build_no_exception(&o, little, 1, "abc");
        /* Context data length (at 28) past the end. */
        wr32(o.data + 28, 0x7fffffffu, little);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        wr32(o.data + 28, 5, little);
        /* Context count (at 20) larger than what is there. */
        wr32(o.data + 20, 1000000, little);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        wr32(o.data + 20, 1, little);
        /* Result length (at 40) past the end, then 0, then no NUL. */
        wr32(o.data + 40, 5, little);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        wr32(o.data + 40, 0, little);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        wr32(o.data + 40, 3, little);
        assert_int_equal(decode(&o, &r, &type), -EBADMSG);
        wr32(o.data + 40, 4, little);
        assert_int_equal(decode(&o, &r, &type), 0);
        assert_string_equal(r.result, "abc");
        cdr_out_free(&o);
    }
}

/* A forward reply whose body cannot even be aligned is malformed. */
static void test_reply_forward_truncated(void **state)
{
    (void)state;
    static const uint8_t msg[] = {
        'G', 'I', 'O', 'P', 1, 2, 1, 1, 0x16, 0, 0, 0,
        9, 0, 0, 0,  /* request id */
        3, 0, 0, 0,  /* LOCATION_FORWARD */
        1, 0, 0, 0,  /* one service context */
        0, 0, 0, 0,  /* its id */
        1, 0, 0, 0,  /* its data: one octet */
        0xaa, 0xbb,  /* the octet, then one byte: no room to align to 8 */
    };
    struct giop_reply r;
    uint8_t type;
    assert_int_equal(giop_decode_reply(msg, sizeof msg, &r, &type), -EBADMSG);
}

/* --- Fragments: a reply split the way an ORB splits a large one --- */

/* A Fragment message carrying `data` for request `id`. */
static void build_fragment(struct cdr_out *o, bool little, uint32_t id,
                           const uint8_t *data, size_t n, bool more,
                           uint8_t minor)
{
    cdr_out_init(o, little);
    cdr_put_bytes(o, "GIOP", 4);
    cdr_put_octet(o, 1);
    cdr_put_octet(o, minor);
    cdr_put_octet(o, (uint8_t)((little ? 1 : 0) | (more ? 2 : 0)));
    cdr_put_octet(o, GIOP_FRAGMENT);
    cdr_put_long(o, 0);
    cdr_put_long(o, id);
    cdr_put_bytes(o, data, n);
    end_message(o);
}

/* Feed `len` bytes of `wire` to wire_giop's feed `chunk` bytes at a time,
 * as a connection would read them, until it answers something other than
 * "more": that answer, with the reply in *r and rx holding the buffer
 * (the caller frees rx->buf). Every "more" must ask for bytes beyond
 * those it has, and never past the size limit. */
static int feed_in_chunks(const uint8_t *wire, size_t len, size_t chunk,
                          struct wire_rx *rx, struct wire_reply *r)
{
    char why[160];
    rx->cap = len + 64;
    rx->buf = malloc(rx->cap);
    assert_non_null(rx->buf);
    rx->len = rx->parsed = 0;
    rx->body_only = false;
    for (size_t off = 0;;) {
        size_t want = 0;
        int rc = wire_giop.feed(rx, &want, r, why, sizeof why);
        if (rc != WIRE_MORE)
            return rc;
        assert_true(want > rx->len);
        assert_true(want <= GIOP_HEADER_BYTES + GIOP_MAX_MESSAGE_BYTES);
        if (off == len)
            return -EAGAIN; /* it wants more than there is */
        size_t n = len - off < chunk ? len - off : chunk;
        assert_true(rx->len + n <= rx->cap);
        memcpy(rx->buf + rx->len, wire + off, n);
        rx->len += n;
        off += n;
    }
}

/* Split a whole reply into a Reply with the more-fragments flag and two
 * Fragments (every piece but the last a multiple of 8 bytes long, as GIOP
 * 1.2 requires), send them back to back, and let the wire's feed join
 * them, whatever the sizes of the reads: the joined message is the whole
 * reply, byte for byte, and decodes to the text. */
static void split_and_join(bool little)
{
    char text[200];
    for (size_t i = 0; i < sizeof text - 1; i++)
        text[i] = (char)('a' + i % 26);
    text[sizeof text - 1] = 0;
    struct cdr_out whole, f1, f2;
    build_no_exception(&whole, little, 1, text);
    size_t cut1 = 64, cut2 = 64 + 48; /* 12 header + 52 body; then 48 */
    uint8_t *first = dup_exact(whole.data, cut1);
    giop_set_size(first, cut1, true);
    assert_true(giop_more_fragments(first, cut1));
    assert_int_equal(rd32(first + 8, little), cut1 - 12);
    build_fragment(&f1, little, 0x01020304u, whole.data + cut1, cut2 - cut1,
                   true, 2);
    build_fragment(&f2, little, 0x01020304u, whole.data + cut2,
                   whole.len - cut2, false, 2);
    size_t len = cut1 + f1.len + f2.len;
    uint8_t *wire = malloc(len + 1);
    assert_non_null(wire);
    memcpy(wire, first, cut1);
    memcpy(wire + cut1, f1.data, f1.len);
    memcpy(wire + cut1 + f1.len, f2.data, f2.len);

    static const size_t chunks[] = {1, 5, 13, 64, 4096};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        struct wire_rx rx;
        struct wire_reply r;
        assert_int_equal(feed_in_chunks(wire, len, chunks[k], &rx, &r),
                         WIRE_REPLY);
        assert_int_equal(r.id, 0x01020304u);
        assert_int_equal(r.bytes, whole.len);
        assert_int_equal(rx.len, whole.len); /* nothing after it */
        assert_memory_equal(rx.buf, whole.data, whole.len);
        assert_int_equal(r.payload_len, strlen(text));
        assert_memory_equal(r.payload, text, r.payload_len);
        assert_int_equal(rx.parsed, 0); /* ready for the next call */
        free(rx.buf);
    }
    /* A stray byte after the last fragment is left for the caller. */
    wire[len] = 'x';
    struct wire_rx rx;
    struct wire_reply r;
    assert_int_equal(feed_in_chunks(wire, len + 1, 4096, &rx, &r),
                     WIRE_REPLY);
    assert_int_equal(r.bytes, whole.len);
    assert_int_equal(rx.len, whole.len + 1);
    free(rx.buf);
    free(wire);
    free(first);
    cdr_out_free(&f1);
    cdr_out_free(&f2);
    cdr_out_free(&whole);
}

static void test_fragments_join(void **state)
{
    (void)state;
    split_and_join(true);
    split_and_join(false);
}

/* What feed answers besides a reply: an orderly close, a bad header, and
 * the size limit, which holds for the joined reply too. */
static void test_feed_close_bad_and_too_big(void **state)
{
    (void)state;
    struct wire_rx rx;
    struct wire_reply r;
    char why[160];
    size_t want;
    /* GIOP 1.2 CloseConnection: a header alone */
    static const uint8_t close_msg[12] = {'G', 'I', 'O', 'P', 1, 2, 1, 5,
                                          0, 0, 0, 0};
    assert_int_equal(feed_in_chunks(close_msg, 12, 5, &rx, &r), WIRE_CLOSED);
    free(rx.buf);
    /* bad magic */
    static const uint8_t junk[12] = {'H', 'T', 'T', 'P', '/', '1', '.', '1',
                                     ' ', '2', '0', '0'};
    assert_int_equal(feed_in_chunks(junk, 12, 12, &rx, &r), -EBADMSG);
    uint8_t *b = rx.buf;
    rx.len = 12;
    rx.parsed = 0;
    assert_int_equal(wire_giop.feed(&rx, &want, &r, why, sizeof why),
                     -EBADMSG);
    assert_non_null(strstr(why, "bad magic"));
    free(b);
    /* one message over the limit: refused at its header */
    uint8_t big[12] = {'G', 'I', 'O', 'P', 1, 2, 1, GIOP_REPLY};
    uint32_t over = GIOP_MAX_MESSAGE_BYTES + 1;
    memcpy(big + 8, &over, 4); /* little-endian host, flag bit 0 set */
    assert_int_equal(feed_in_chunks(big, 12, 12, &rx, &r), -EMSGSIZE);
    free(rx.buf);
    /* fragments that each fit but join to more than the limit: refused
     * at the header of the one that would cross it, before its body is
     * asked for (only its header is sent) */
    size_t body = GIOP_MAX_MESSAGE_BYTES - 16;
    size_t len = 12 + body + 16;
    uint8_t *wire = calloc(1, len);
    assert_non_null(wire);
    memcpy(wire, "GIOP\x01\x02\x03\x01", 8); /* little, more fragments */
    uint32_t b32 = (uint32_t)body;
    memcpy(wire + 8, &b32, 4);
    uint8_t *frag = wire + 12 + body;
    memcpy(frag, "GIOP\x01\x02\x01\x07", 8);
    uint32_t fb = 4 + 64;
    memcpy(frag + 8, &fb, 4);
    assert_int_equal(feed_in_chunks(wire, len, 1 << 20, &rx, &r), -EMSGSIZE);
    free(rx.buf);
    free(wire);
}

static void test_fragment_rejections(void **state)
{
    (void)state;
    struct cdr_out reply, frag;
    static const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t header;
    bool more;
    build_no_exception(&reply, true, 0, "x");
    giop_set_size(reply.data, reply.len, true);
    /* another request's fragment */
    build_fragment(&frag, true, 99, data, sizeof data, true, 2);
    assert_int_equal(giop_fragment_info(reply.data, reply.len, frag.data,
                                        frag.len, &header, &more),
                     -EBADMSG);
    cdr_out_free(&frag);
    /* GIOP 1.1 fragments carry no request id: not ours to join */
    build_fragment(&frag, true, 0x01020304u, data, sizeof data, true, 1);
    assert_int_equal(giop_fragment_info(reply.data, reply.len, frag.data,
                                        frag.len, &header, &more),
                     -EPROTO);
    cdr_out_free(&frag);
    /* not a Fragment at all: a second Reply */
    assert_int_equal(giop_fragment_info(reply.data, reply.len, reply.data,
                                        reply.len, &header, &more),
                     -ENOMSG);
    /* a fragment whose size field runs past what arrived */
    build_fragment(&frag, true, 0x01020304u, data, sizeof data, true, 2);
    assert_int_equal(giop_fragment_info(reply.data, reply.len, frag.data,
                                        frag.len - 1, &header, &more),
                     -EBADMSG);
    /* the right one: more to come */
    assert_int_equal(giop_fragment_info(reply.data, reply.len, frag.data,
                                        frag.len, &header, &more),
                     0);
    assert_true(more);
    cdr_out_free(&frag);
    cdr_out_free(&reply);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(giop_reply_status_name(0), "NO_EXCEPTION");
    assert_string_equal(giop_reply_status_name(1), "USER_EXCEPTION");
    assert_string_equal(giop_reply_status_name(2), "SYSTEM_EXCEPTION");
    assert_string_equal(giop_reply_status_name(3), "LOCATION_FORWARD");
    assert_string_equal(giop_reply_status_name(4), "LOCATION_FORWARD_PERM");
    assert_string_equal(giop_reply_status_name(5), "NEEDS_ADDRESSING_MODE");
    assert_string_equal(giop_reply_status_name(6), "unknown");
    assert_string_equal(giop_reply_status_name(0xffffffffu), "unknown");
    assert_string_equal(giop_msg_type_name(0), "Request");
    assert_string_equal(giop_msg_type_name(1), "Reply");
    assert_string_equal(giop_msg_type_name(2), "CancelRequest");
    assert_string_equal(giop_msg_type_name(3), "LocateRequest");
    assert_string_equal(giop_msg_type_name(4), "LocateReply");
    assert_string_equal(giop_msg_type_name(5), "CloseConnection");
    assert_string_equal(giop_msg_type_name(6), "MessageError");
    assert_string_equal(giop_msg_type_name(7), "Fragment");
    assert_string_equal(giop_msg_type_name(8), "unknown");
    assert_string_equal(giop_msg_type_name(0xff), "unknown");
}

/* --- The server side: Requests decoded, Replies encoded, each checked
 * --- against the other half of the client's own codec. */

static void test_request_round_trip(void **state)
{
    (void)state;
    const uint8_t key[] = {1, 2, 3, 0, 5};
    for (int little = 0; little < 2; little++) {
        for (size_t arg_len = 0; arg_len < 12; arg_len++) {
            struct cdr_out o;
            char arg[16] = "abcdefghijkl";
            arg[arg_len] = 0;
            cdr_out_init(&o, little);
            assert_int_equal(giop_encode_request(&o, 77 + arg_len, key,
                                                 sizeof key, "echoString",
                                                 arg, arg_len), 0);
            struct giop_request rq;
            uint8_t type;
            assert_int_equal(giop_decode_request(o.data, o.len, &rq, &type),
                             0);
            assert_int_equal(type, GIOP_REQUEST);
            assert_int_equal(rq.request_id, 77 + arg_len);
            assert_true(rq.response_expected);
            assert_int_equal(rq.little, little);
            assert_int_equal(rq.key_len, sizeof key);
            assert_memory_equal(rq.key, key, sizeof key);
            assert_string_equal(rq.operation, "echoString");
            assert_int_equal(rq.body_at % 8, 0);
            struct cdr_in in;
            const char *s;
            size_t n;
            cdr_in_init(&in, o.data, o.len, little);
            in.pos = rq.body_at;
            assert_int_equal(cdr_get_string(&in, &s, &n), 0);
            assert_int_equal(n, arg_len);
            assert_memory_equal(s, arg, arg_len);
            /* oneway: response_flags 0 */
            o.data[GIOP_HEADER_BYTES + 4] = 0;
            assert_int_equal(giop_decode_request(o.data, o.len, &rq, &type),
                             0);
            assert_false(rq.response_expected);
            /* every truncation is refused */
            for (size_t cut = 0; cut < o.len; cut++)
                assert_int_not_equal(giop_decode_request(o.data, cut, &rq,
                                                         &type), 0);
            cdr_out_free(&o);
        }
    }
}

static void test_request_rejects(void **state)
{
    (void)state;
    struct cdr_out o;
    struct giop_request rq;
    uint8_t type;
    cdr_out_init(&o, true);
    giop_encode_request(&o, 1, (const uint8_t *)"k", 1, "echoString", "x",
                        1);
    /* a ProfileAddr target */
    o.data[GIOP_HEADER_BYTES + 8] = 1;
    assert_int_equal(giop_decode_request(o.data, o.len, &rq, &type),
                     -EPROTO);
    o.data[GIOP_HEADER_BYTES + 8] = 0;
    /* GIOP 1.1 */
    o.data[5] = 1;
    assert_int_equal(giop_decode_request(o.data, o.len, &rq, &type),
                     -EPROTO);
    o.data[5] = 2;
    /* a Reply is not a Request */
    o.data[7] = GIOP_REPLY;
    assert_int_equal(giop_decode_request(o.data, o.len, &rq, &type),
                     -ENOMSG);
    assert_int_equal(type, GIOP_REPLY);
    cdr_out_free(&o);
}

static void test_reply_encode_round_trip(void **state)
{
    (void)state;
    for (int little = 0; little < 2; little++) {
        for (size_t len = 0; len < 10; len++) {
            struct cdr_out o;
            struct giop_reply r;
            uint8_t type;
            cdr_out_init(&o, little);
            assert_int_equal(giop_encode_reply(&o, 9 + len, "0123456789",
                                               len), 0);
            assert_int_equal(giop_decode_reply(o.data, o.len, &r, &type), 0);
            assert_int_equal(r.request_id, 9 + len);
            assert_int_equal(r.status, GIOP_NO_EXCEPTION);
            assert_int_equal(r.result_len, len);
            assert_memory_equal(r.result, "0123456789", len);
            /* and through the wire's framing, as a connection sees it */
            struct wire_rx rx = {.buf = o.data, .len = o.len, .cap = o.cap};
            struct wire_reply wr;
            size_t want;
            char why[128];
            assert_int_equal(wire_giop.feed(&rx, &want, &wr, why, sizeof why),
                             WIRE_REPLY);
            assert_int_equal(wr.bytes, o.len);
            cdr_out_free(&o);
        }
        struct cdr_out o;
        struct giop_reply r;
        uint8_t type;
        cdr_out_init(&o, little);
        assert_int_equal(giop_encode_system_exception(
                             &o, 5, "IDL:omg.org/CORBA/BAD_OPERATION:1.0",
                             0x4f4d0001, 1), 0);
        assert_int_equal(giop_decode_reply(o.data, o.len, &r, &type), 0);
        assert_int_equal(r.status, GIOP_SYSTEM_EXCEPTION);
        assert_int_equal(r.request_id, 5);
        assert_int_equal(r.minor, 0x4f4d0001);
        assert_int_equal(r.completed, 1);
        assert_int_equal(r.exception_id_len,
                         strlen("IDL:omg.org/CORBA/BAD_OPERATION:1.0"));
        cdr_out_free(&o);
    }
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_round_trip),
        cmocka_unit_test(test_request_rejects),
        cmocka_unit_test(test_reply_encode_round_trip),
        cmocka_unit_test(test_request_real_key),
        cmocka_unit_test(test_request_alignments),
        cmocka_unit_test(test_request_large_arg),
        cmocka_unit_test(test_request_exact_bytes),
        cmocka_unit_test(test_request_reuse),
        cmocka_unit_test(test_request_oneway),
        cmocka_unit_test(test_reply_handwritten),
        cmocka_unit_test(test_reply_no_exception),
        cmocka_unit_test(test_reply_empty_result),
        cmocka_unit_test(test_reply_system_exception),
        cmocka_unit_test(test_reply_user_exception),
        cmocka_unit_test(test_reply_forward),
        cmocka_unit_test(test_reply_needs_addressing),
        cmocka_unit_test(test_reply_unknown_status),
        cmocka_unit_test(test_header_parse),
        cmocka_unit_test(test_header_size_limit),
        cmocka_unit_test(test_reject_short),
        cmocka_unit_test(test_reject_magic),
        cmocka_unit_test(test_reject_version),
        cmocka_unit_test(test_reject_size),
        cmocka_unit_test(test_reject_length_mismatch),
        cmocka_unit_test(test_reject_not_reply),
        cmocka_unit_test(test_truncated_replies),
        cmocka_unit_test(test_reply_bad_inner_lengths),
        cmocka_unit_test(test_reply_forward_truncated),
        cmocka_unit_test(test_fragments_join),
        cmocka_unit_test(test_fragment_rejections),
        cmocka_unit_test(test_feed_close_bad_and_too_big),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
