/* Unit tests for cdr.c: layout, alignment, round trips, bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/cdr.h"

/* A heap copy of exactly `n` bytes, so that valgrind sees any read past
 * the end. Never returns NULL (a zero-length copy still gets a block). */
static uint8_t *dup_exact(const void *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    assert_non_null(d);
    if (n)
        memcpy(d, p, n);
    return d;
}

static void test_host_little(void **state)
{
    (void)state;
    const uint32_t probe = 0x11223344;
    uint8_t first;
    memcpy(&first, &probe, 1);
    assert_int_equal(cdr_host_little(), first == 0x44);
}

static void test_init_empty(void **state)
{
    (void)state;
    struct cdr_out o;
    memset(&o, 0xa5, sizeof o);
    cdr_out_init(&o, true);
    assert_null(o.data);
    assert_int_equal(o.len, 0);
    assert_int_equal(o.cap, 0);
    assert_int_equal(o.origin, 0);
    assert_int_equal(o.little, true);
    assert_int_equal(o.err, 0);
    cdr_out_init(&o, false);
    assert_int_equal(o.little, false);
    cdr_out_free(&o);
}

static void test_layout_big(void **state)
{
    (void)state;
    static const uint8_t want[] = {
        0x01, 0x02, 0x03, 0x04,                         /* long */
        0xa1, 0xa2,                                     /* short */
        0x00, 0x00,                                     /* pad to 8 */
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* longlong */
        0x7f, 0x01, 0x00,                               /* octet, bools */
    };
    struct cdr_out o;
    cdr_out_init(&o, false);
    cdr_put_long(&o, 0x01020304u);
    cdr_put_short(&o, 0xa1a2u);
    cdr_put_longlong(&o, 0x1122334455667788ull);
    cdr_put_octet(&o, 0x7f);
    cdr_put_bool(&o, true);
    cdr_put_bool(&o, false);
    assert_int_equal(o.err, 0);
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);
    cdr_out_free(&o);
}

static void test_layout_little(void **state)
{
    (void)state;
    static const uint8_t want[] = {
        0x04, 0x03, 0x02, 0x01,                         /* long */
        0xa2, 0xa1,                                     /* short */
        0x00, 0x00,                                     /* pad to 8 */
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* longlong */
        0x7f, 0x01, 0x00,                               /* octet, bools */
    };
    struct cdr_out o;
    cdr_out_init(&o, true);
    cdr_put_long(&o, 0x01020304u);
    cdr_put_short(&o, 0xa1a2u);
    cdr_put_longlong(&o, 0x1122334455667788ull);
    cdr_put_octet(&o, 0x7f);
    cdr_put_bool(&o, true);
    cdr_put_bool(&o, false);
    assert_int_equal(o.err, 0);
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);
    cdr_out_free(&o);
}

/* An octet then a long: three zero pad bytes, in either order. */
static void check_octet_then_long(bool little)
{
    struct cdr_out o;
    cdr_out_init(&o, little);
    cdr_put_octet(&o, 0xee);
    cdr_put_long(&o, 0xcafef00du);
    assert_int_equal(o.err, 0);
    assert_int_equal(o.len, 8);
    assert_int_equal(o.data[0], 0xee);
    assert_int_equal(o.data[1], 0);
    assert_int_equal(o.data[2], 0);
    assert_int_equal(o.data[3], 0);
    if (little) {
        assert_int_equal(o.data[4], 0x0d);
        assert_int_equal(o.data[5], 0xf0);
        assert_int_equal(o.data[6], 0xfe);
        assert_int_equal(o.data[7], 0xca);
    } else {
        assert_int_equal(o.data[4], 0xca);
        assert_int_equal(o.data[5], 0xfe);
        assert_int_equal(o.data[6], 0xf0);
        assert_int_equal(o.data[7], 0x0d);
    }
    cdr_out_free(&o);
}

static void test_align_octet_long(void **state)
{
    (void)state;
    check_octet_then_long(false);
    check_octet_then_long(true);
}

static void test_align_each_size(void **state)
{
    (void)state;
    /* After k octets, a short/long/longlong lands on its own boundary. */
    for (size_t k = 0; k < 9; k++) {
        struct cdr_out o;
        cdr_out_init(&o, k % 2 == 0);
        for (size_t i = 0; i < k; i++)
            cdr_put_octet(&o, 0xff);
        cdr_put_short(&o, 0x0102);
        size_t s_at = (k + 1) / 2 * 2;
        assert_int_equal(o.len, s_at + 2);
        cdr_put_long(&o, 0x03040506);
        size_t l_at = (s_at + 2 + 3) / 4 * 4;
        assert_int_equal(o.len, l_at + 4);
        cdr_put_longlong(&o, 0x0708090a0b0c0d0eull);
        size_t q_at = (l_at + 4 + 7) / 8 * 8;
        assert_int_equal(o.len, q_at + 8);
        /* Every pad byte is zero. */
        for (size_t i = k; i < s_at; i++)
            assert_int_equal(o.data[i], 0);
        for (size_t i = s_at + 2; i < l_at; i++)
            assert_int_equal(o.data[i], 0);
        for (size_t i = l_at + 4; i < q_at; i++)
            assert_int_equal(o.data[i], 0);
        cdr_out_free(&o);
    }
}

static void test_align_origin(void **state)
{
    (void)state;
    struct cdr_out o;
    cdr_out_init(&o, false);
    cdr_put_bytes(&o, "abc", 3);
    o.origin = 3; /* alignment now counts from data[3] */
    cdr_put_octet(&o, 1);
    cdr_put_long(&o, 2);
    /* 3 + octet + 3 pad + long: pad ends at origin + 4. */
    assert_int_equal(o.len, 11);
    static const uint8_t want[] = {'a', 'b', 'c', 1, 0, 0, 0, 0, 0, 0, 2};
    assert_memory_equal(o.data, want, sizeof want);
    cdr_align(&o, 8);
    assert_int_equal(o.len, 11); /* 11 - 3 == 8: already aligned */
    cdr_out_free(&o);
}

static void test_string_layout(void **state)
{
    (void)state;
    static const uint8_t want_big[] = {0, 0, 0, 3, 'h', 'i', 0};
    static const uint8_t want_little[] = {3, 0, 0, 0, 'h', 'i', 0};
    static const uint8_t want_empty[] = {0, 0, 0, 1, 0};
    struct cdr_out o;
    cdr_out_init(&o, false);
    cdr_put_string(&o, "hi!", 2); /* only len bytes are taken */
    assert_int_equal(o.len, sizeof want_big);
    assert_memory_equal(o.data, want_big, sizeof want_big);
    cdr_out_reset(&o, true);
    cdr_put_string(&o, "hi", 2);
    assert_int_equal(o.len, sizeof want_little);
    assert_memory_equal(o.data, want_little, sizeof want_little);
    cdr_out_reset(&o, false);
    cdr_put_string(&o, "", 0);
    assert_int_equal(o.len, sizeof want_empty);
    assert_memory_equal(o.data, want_empty, sizeof want_empty);
    cdr_out_free(&o);
}

static void test_octet_seq_layout(void **state)
{
    (void)state;
    static const uint8_t want_big[] = {0, 0, 0, 3, 9, 8, 7};
    static const uint8_t want_little[] = {3, 0, 0, 0, 9, 8, 7};
    static const uint8_t want_empty[] = {0, 0, 0, 0};
    struct cdr_out o;
    cdr_out_init(&o, false);
    cdr_put_octet_seq(&o, "\x09\x08\x07", 3);
    assert_int_equal(o.len, sizeof want_big);
    assert_memory_equal(o.data, want_big, sizeof want_big);
    cdr_out_reset(&o, true);
    cdr_put_octet_seq(&o, "\x09\x08\x07", 3);
    assert_int_equal(o.len, sizeof want_little);
    assert_memory_equal(o.data, want_little, sizeof want_little);
    cdr_out_reset(&o, false);
    cdr_put_octet_seq(&o, NULL, 0);
    assert_int_equal(o.len, sizeof want_empty);
    assert_memory_equal(o.data, want_empty, sizeof want_empty);
    cdr_out_free(&o);
}

/* Write one of everything, misaligned on purpose, then read it back. */
static void check_round_trip(bool little)
{
    static const uint8_t blob[] = {0, 1, 2, 0xfe, 0xff};
    struct cdr_out o;
    cdr_out_init(&o, little);
    cdr_put_octet(&o, 0xab);
    cdr_put_short(&o, 0xbeef);
    cdr_put_octet(&o, 0);
    cdr_put_long(&o, 0xdeadbeefu);
    cdr_put_octet(&o, 0xff);
    cdr_put_longlong(&o, 0x0123456789abcdefull);
    cdr_put_bool(&o, true);
    cdr_put_string(&o, "hello, world", 12);
    cdr_put_octet_seq(&o, blob, sizeof blob);
    cdr_put_string(&o, "", 0);
    cdr_put_octet_seq(&o, NULL, 0);
    cdr_put_short(&o, 0);
    cdr_put_long(&o, UINT32_MAX);
    cdr_put_longlong(&o, UINT64_MAX);
    cdr_put_short(&o, UINT16_MAX);
    assert_int_equal(o.err, 0);

    uint8_t *buf = dup_exact(o.data, o.len);
    struct cdr_in in;
    const char *s;
    const uint8_t *p;
    size_t n;
    cdr_in_init(&in, buf, o.len, little);
    assert_int_equal(cdr_in_left(&in), o.len);
    assert_int_equal(cdr_get_octet(&in), 0xab);
    assert_int_equal(cdr_get_short(&in), 0xbeef);
    assert_int_equal(cdr_get_octet(&in), 0);
    assert_int_equal(cdr_get_long(&in), 0xdeadbeefu);
    assert_int_equal(cdr_get_octet(&in), 0xff);
    assert_int_equal(cdr_get_longlong(&in), 0x0123456789abcdefull);
    assert_int_equal(cdr_get_octet(&in), 1);
    assert_int_equal(cdr_get_string(&in, &s, &n), 0);
    assert_int_equal(n, 12);
    assert_string_equal(s, "hello, world");
    assert_true((const uint8_t *)s > buf && (const uint8_t *)s < buf + o.len);
    assert_int_equal(cdr_get_octet_seq(&in, &p, &n), 0);
    assert_int_equal(n, sizeof blob);
    assert_memory_equal(p, blob, sizeof blob);
    assert_int_equal(cdr_get_string(&in, &s, &n), 0);
    assert_int_equal(n, 0);
    assert_string_equal(s, "");
    assert_int_equal(cdr_get_octet_seq(&in, &p, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(cdr_get_short(&in), 0);
    assert_int_equal(cdr_get_long(&in), UINT32_MAX);
    assert_int_equal(cdr_get_longlong(&in), UINT64_MAX);
    assert_int_equal(cdr_get_short(&in), UINT16_MAX);
    assert_int_equal(in.err, 0);
    assert_int_equal(in.pos, o.len);
    assert_int_equal(cdr_in_left(&in), 0);

    /* Every shorter buffer must fail somewhere, and only with EBADMSG. */
    for (size_t cut = 0; cut < o.len; cut++) {
        uint8_t *c = dup_exact(o.data, cut);
        cdr_in_init(&in, c, cut, little);
        cdr_get_octet(&in);
        cdr_get_short(&in);
        cdr_get_octet(&in);
        cdr_get_long(&in);
        cdr_get_octet(&in);
        cdr_get_longlong(&in);
        cdr_get_octet(&in);
        cdr_get_string(&in, &s, &n);
        cdr_get_octet_seq(&in, &p, &n);
        cdr_get_string(&in, &s, &n);
        cdr_get_octet_seq(&in, &p, &n);
        cdr_get_short(&in);
        cdr_get_long(&in);
        cdr_get_longlong(&in);
        cdr_get_short(&in);
        assert_int_equal(in.err, -EBADMSG);
        assert_true(in.pos <= cut);
        free(c);
    }
    free(buf);
    cdr_out_free(&o);
}

static void test_round_trip_big(void **state)
{
    (void)state;
    check_round_trip(false);
}

static void test_round_trip_little(void **state)
{
    (void)state;
    check_round_trip(true);
}

/* Reading with the wrong order swaps bytes: proves `little` is honoured. */
static void test_read_other_order(void **state)
{
    (void)state;
    static const uint8_t buf[] = {0x01, 0x02, 0x00, 0x00,
                                  0x11, 0x22, 0x33, 0x44};
    struct cdr_in in;
    cdr_in_init(&in, buf, sizeof buf, false);
    assert_int_equal(cdr_get_short(&in), 0x0102);
    assert_int_equal(cdr_get_long(&in), 0x11223344u);
    cdr_in_init(&in, buf, sizeof buf, true);
    assert_int_equal(cdr_get_short(&in), 0x0201);
    assert_int_equal(cdr_get_long(&in), 0x44332211u);
    cdr_in_init(&in, buf, sizeof buf, false);
    assert_int_equal(cdr_get_longlong(&in), 0x0102000011223344ull);
    cdr_in_init(&in, buf, sizeof buf, true);
    assert_int_equal(cdr_get_longlong(&in), 0x4433221100000201ull);
}

static void test_in_align(void **state)
{
    (void)state;
    static const uint8_t buf[] = {7, 0xaa, 0xaa, 0xaa, 0, 0, 0, 9};
    struct cdr_in in;
    cdr_in_init(&in, buf, sizeof buf, false);
    assert_int_equal(cdr_get_octet(&in), 7);
    assert_int_equal(in.pos, 1);
    /* Pad bytes are skipped whatever they hold. */
    assert_int_equal(cdr_get_long(&in), 9);
    assert_int_equal(in.pos, 8);
    assert_int_equal(in.err, 0);
    cdr_in_init(&in, buf, sizeof buf, false);
    in.pos = 3;
    cdr_in_align(&in, 4);
    assert_int_equal(in.pos, 4);
    cdr_in_align(&in, 4);
    assert_int_equal(in.pos, 4);
    cdr_in_align(&in, 8);
    assert_int_equal(in.pos, 8);
    assert_int_equal(in.err, 0);
}

static void test_patch_long(void **state)
{
    (void)state;
    struct cdr_out o;
    for (int little = 0; little < 2; little++) {
        cdr_out_init(&o, little);
        cdr_put_octet(&o, 0x55);
        cdr_put_long(&o, 0); /* aligned to 4, so the long sits at 4 */
        assert_int_equal(o.len, 8);
        size_t at = 4;
        cdr_put_octet(&o, 0x66);
        cdr_patch_long(&o, at, 0xa0b0c0d0u);
        assert_int_equal(o.len, 9);
        assert_int_equal(o.data[0], 0x55);
        assert_int_equal(o.data[8], 0x66);
        if (little) {
            static const uint8_t want[] = {0xd0, 0xc0, 0xb0, 0xa0};
            assert_memory_equal(o.data + 4, want, 4);
        } else {
            static const uint8_t want[] = {0xa0, 0xb0, 0xc0, 0xd0};
            assert_memory_equal(o.data + 4, want, 4);
        }
        /* Unaligned offsets are allowed too. */
        cdr_patch_long(&o, 5, 0x01020304u);
        if (little) {
            static const uint8_t want[] = {0xd0, 0x04, 0x03, 0x02, 0x01};
            assert_memory_equal(o.data + 4, want, 5);
        } else {
            static const uint8_t want[] = {0xa0, 0x01, 0x02, 0x03, 0x04};
            assert_memory_equal(o.data + 4, want, 5);
        }
        cdr_out_free(&o);
    }
}

static void test_patch_long_out_of_range(void **state)
{
    (void)state;
    struct cdr_out o;
    cdr_out_init(&o, false);
    cdr_put_long(&o, 0x11111111u);
    cdr_put_short(&o, 0x2222);
    uint8_t before[6];
    memcpy(before, o.data, sizeof before);
    cdr_patch_long(&o, 3, 0xffffffffu); /* would end at 7 > len 6 */
    cdr_patch_long(&o, 6, 0xffffffffu);
    cdr_patch_long(&o, 100, 0xffffffffu);
    assert_int_equal(o.len, 6);
    assert_memory_equal(o.data, before, sizeof before);
    cdr_patch_long(&o, 2, 0); /* ends exactly at len: allowed */
    static const uint8_t want[] = {0x11, 0x11, 0, 0, 0, 0};
    assert_memory_equal(o.data, want, sizeof want);
    assert_int_equal(o.err, 0);
    cdr_out_free(&o);
}

static void test_out_reset(void **state)
{
    (void)state;
    struct cdr_out o;
    cdr_out_init(&o, false);
    cdr_put_long(&o, 0x01020304u);
    uint8_t *mem = o.data;
    size_t cap = o.cap;
    o.origin = 2;
    o.err = -ENOMEM;
    cdr_out_reset(&o, true);
    assert_ptr_equal(o.data, mem);
    assert_int_equal(o.cap, cap);
    assert_int_equal(o.len, 0);
    assert_int_equal(o.origin, 0);
    assert_int_equal(o.err, 0);
    assert_int_equal(o.little, true);
    cdr_put_long(&o, 0x01020304u);
    static const uint8_t want[] = {4, 3, 2, 1};
    assert_memory_equal(o.data, want, sizeof want);
    cdr_out_free(&o);
    assert_null(o.data);
    assert_int_equal(o.len, 0);
}

static void test_out_grows(void **state)
{
    (void)state;
    struct cdr_out o;
    cdr_out_init(&o, true);
    for (uint32_t i = 0; i < 10000; i++)
        cdr_put_long(&o, i);
    assert_int_equal(o.err, 0);
    assert_int_equal(o.len, 40000);
    assert_true(o.cap >= o.len);
    struct cdr_in in;
    cdr_in_init(&in, o.data, o.len, true);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(cdr_get_long(&in), i);
    assert_int_equal(in.err, 0);
    cdr_out_free(&o);
}

/* Output errors are sticky: once set, nothing more is written. */
static void test_out_sticky_error(void **state)
{
    (void)state;
    struct cdr_out o;
    cdr_out_init(&o, false);
    cdr_put_octet(&o, 1);
    o.err = -ENOMEM; /* as out_room would leave it after realloc fails */
    cdr_put_octet(&o, 2);
    cdr_put_long(&o, 3);
    cdr_put_longlong(&o, 4);
    cdr_put_string(&o, "x", 1);
    cdr_put_octet_seq(&o, "y", 1);
    cdr_put_bytes(&o, "z", 1);
    cdr_align(&o, 8);
    cdr_patch_long(&o, 0, 0xffffffffu);
    assert_int_equal(o.len, 1);
    assert_int_equal(o.data[0], 1);
    assert_int_equal(o.err, -ENOMEM);
    cdr_out_free(&o);
}

static void test_encap_orders(void **state)
{
    (void)state;
    /* Byte-order octet, 3 pad octets (alignment counts from the octet),
     * then the long 0x01020304 in the announced order. */
    static const uint8_t big[] = {0, 0xee, 0xee, 0xee, 1, 2, 3, 4};
    static const uint8_t little[] = {1, 0xee, 0xee, 0xee, 4, 3, 2, 1};
    struct cdr_in in;
    assert_int_equal(cdr_in_encap(&in, big, sizeof big), 0);
    assert_int_equal(in.little, false);
    assert_int_equal(in.pos, 1);
    assert_int_equal(cdr_in_left(&in), 7);
    assert_int_equal(cdr_get_long(&in), 0x01020304u);
    assert_int_equal(in.err, 0);
    assert_int_equal(cdr_in_encap(&in, little, sizeof little), 0);
    assert_int_equal(in.little, true);
    assert_int_equal(in.pos, 1);
    assert_int_equal(cdr_get_long(&in), 0x01020304u);
    assert_int_equal(in.err, 0);
}

static void test_encap_bad(void **state)
{
    (void)state;
    struct cdr_in in;
    static const uint8_t two[] = {2, 0, 0, 0, 1, 2, 3, 4};
    static const uint8_t ff[] = {0xff};
    uint8_t *p = dup_exact(two, sizeof two);
    assert_int_equal(cdr_in_encap(&in, p, sizeof two), -EBADMSG);
    assert_int_equal(in.err, -EBADMSG);
    assert_int_equal(cdr_get_long(&in), 0); /* sticky */
    assert_int_equal(cdr_in_left(&in), 0);
    free(p);
    assert_int_equal(cdr_in_encap(&in, ff, sizeof ff), -EBADMSG);
    p = dup_exact(NULL, 0);
    assert_int_equal(cdr_in_encap(&in, p, 0), -EBADMSG);
    assert_int_equal(in.err, -EBADMSG);
    free(p);
    /* Just the order octet is a valid, empty encapsulation. */
    p = dup_exact(ff, 1);
    p[0] = 1;
    assert_int_equal(cdr_in_encap(&in, p, 1), 0);
    assert_int_equal(cdr_in_left(&in), 0);
    assert_int_equal(cdr_get_octet(&in), 0);
    assert_int_equal(in.err, -EBADMSG);
    free(p);
}

static void test_short_reads(void **state)
{
    (void)state;
    static const uint8_t src[] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct cdr_in in;
    for (size_t n = 0; n < 8; n++) {
        uint8_t *p = dup_exact(src, n);
        cdr_in_init(&in, p, n, false);
        assert_int_equal(cdr_get_longlong(&in), 0);
        assert_int_equal(in.err, -EBADMSG);
        assert_int_equal(in.pos, 0);
        if (n < 4) {
            cdr_in_init(&in, p, n, true);
            assert_int_equal(cdr_get_long(&in), 0);
            assert_int_equal(in.err, -EBADMSG);
        }
        if (n < 2) {
            cdr_in_init(&in, p, n, true);
            assert_int_equal(cdr_get_short(&in), 0);
            assert_int_equal(in.err, -EBADMSG);
        }
        if (n < 1) {
            cdr_in_init(&in, p, n, true);
            assert_int_equal(cdr_get_octet(&in), 0);
            assert_int_equal(in.err, -EBADMSG);
        }
        free(p);
    }
}

/* Alignment padding that runs off the end is an error too. */
static void test_pad_past_end(void **state)
{
    (void)state;
    static const uint8_t src[] = {9, 0, 0};
    uint8_t *p = dup_exact(src, sizeof src);
    struct cdr_in in;
    cdr_in_init(&in, p, sizeof src, false);
    assert_int_equal(cdr_get_octet(&in), 9);
    cdr_in_align(&in, 4);
    assert_int_equal(in.err, -EBADMSG);
    cdr_in_init(&in, p, sizeof src, false);
    in.pos = 1;
    assert_int_equal(cdr_get_short(&in), 0); /* pad 1, then needs 2 of 1 */
    assert_int_equal(in.err, -EBADMSG);
    free(p);
}

/* Decode `src` as one string; returns the cdr_get_string result. */
static int get_one_string(const uint8_t *src, size_t n, bool little)
{
    uint8_t *p = dup_exact(src, n);
    struct cdr_in in;
    const char *s = (const char *)"untouched";
    size_t len = 12345;
    cdr_in_init(&in, p, n, little);
    int rc = cdr_get_string(&in, &s, &len);
    assert_int_equal(rc, in.err);
    if (rc) {
        /* Nothing is handed back on failure. */
        assert_string_equal(s, "untouched");
        assert_int_equal(len, 12345);
        assert_int_equal(cdr_in_left(&in), 0);
    }
    free(p);
    return rc;
}

static void test_string_bad(void **state)
{
    (void)state;
    /* Length 16 with only 3 bytes after it. */
    static const uint8_t past_end[] = {0, 0, 0, 16, 'a', 'b', 0};
    /* Length 0: a CDR string always holds at least its NUL. */
    static const uint8_t zero_big[] = {0, 0, 0, 0};
    static const uint8_t zero_little[] = {0, 0, 0, 0, 'x', 0};
    /* Length 3 but the last counted byte is not NUL. */
    static const uint8_t no_nul[] = {3, 0, 0, 0, 'a', 'b', 'c'};
    static const uint8_t no_nul_more[] = {3, 0, 0, 0, 'a', 'b', 'c', 0};
    /* Length 0xffffffff: must not wrap around. */
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 'a', 0};
    /* Length runs one past the end. */
    static const uint8_t one_past[] = {0, 0, 0, 4, 'a', 'b', 0};
    /* Fewer than 4 bytes for the length itself. */
    static const uint8_t stub[] = {0, 0, 0};
    assert_int_equal(get_one_string(past_end, sizeof past_end, false),
                     -EBADMSG);
    assert_int_equal(get_one_string(zero_big, sizeof zero_big, false),
                     -EBADMSG);
    assert_int_equal(get_one_string(zero_little, sizeof zero_little, true),
                     -EBADMSG);
    assert_int_equal(get_one_string(no_nul, sizeof no_nul, true), -EBADMSG);
    assert_int_equal(get_one_string(no_nul_more, sizeof no_nul_more, true),
                     -EBADMSG);
    assert_int_equal(get_one_string(huge, sizeof huge, true), -EBADMSG);
    assert_int_equal(get_one_string(huge, sizeof huge, false), -EBADMSG);
    assert_int_equal(get_one_string(one_past, sizeof one_past, false),
                     -EBADMSG);
    assert_int_equal(get_one_string(stub, sizeof stub, false), -EBADMSG);
    /* Control: the same shapes, well formed, decode. */
    static const uint8_t ok[] = {0, 0, 0, 3, 'a', 'b', 0};
    assert_int_equal(get_one_string(ok, sizeof ok, false), 0);
}

static void test_octet_seq_bad(void **state)
{
    (void)state;
    static const uint8_t longer[] = {0, 0, 0, 5, 1, 2, 3, 4};
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4};
    static const uint8_t stub[] = {4, 0};
    static const uint8_t exact[] = {0, 0, 0, 4, 1, 2, 3, 4};
    struct cdr_in in;
    const uint8_t *p = NULL;
    size_t n = 99;
    uint8_t *b = dup_exact(longer, sizeof longer);
    cdr_in_init(&in, b, sizeof longer, false);
    assert_int_equal(cdr_get_octet_seq(&in, &p, &n), -EBADMSG);
    assert_null(p);
    assert_int_equal(n, 99);
    free(b);
    b = dup_exact(huge, sizeof huge);
    cdr_in_init(&in, b, sizeof huge, true);
    assert_int_equal(cdr_get_octet_seq(&in, &p, &n), -EBADMSG);
    free(b);
    b = dup_exact(stub, sizeof stub);
    cdr_in_init(&in, b, sizeof stub, true);
    assert_int_equal(cdr_get_octet_seq(&in, &p, &n), -EBADMSG);
    free(b);
    b = dup_exact(exact, sizeof exact);
    cdr_in_init(&in, b, sizeof exact, false);
    assert_int_equal(cdr_get_octet_seq(&in, &p, &n), 0);
    assert_ptr_equal(p, b + 4);
    assert_int_equal(n, 4);
    assert_int_equal(cdr_in_left(&in), 0);
    free(b);
}

/* Input errors are sticky: after one failure nothing more is read, even
 * where the bytes would decode. */
static void test_in_sticky_error(void **state)
{
    (void)state;
    static const uint8_t src[] = {0, 0, 0, 9, 0, 0, 0, 2, 'a', 0, 0, 0,
                                  0, 0, 0, 1, 7};
    struct cdr_in in;
    const char *s = NULL;
    const uint8_t *p = NULL;
    size_t n = 77;
    cdr_in_init(&in, src, sizeof src, false);
    assert_int_equal(cdr_get_long(&in), 9);
    in.err = -EBADMSG; /* as a failed read would leave it */
    size_t pos = in.pos;
    assert_int_equal(cdr_in_left(&in), 0);
    assert_int_equal(cdr_get_string(&in, &s, &n), -EBADMSG);
    assert_null(s);
    assert_int_equal(cdr_get_octet_seq(&in, &p, &n), -EBADMSG);
    assert_null(p);
    assert_int_equal(n, 77);
    assert_int_equal(cdr_get_octet(&in), 0);
    assert_int_equal(cdr_get_short(&in), 0);
    assert_int_equal(cdr_get_long(&in), 0);
    assert_int_equal(cdr_get_longlong(&in), 0);
    cdr_in_align(&in, 8);
    assert_int_equal(in.pos, pos);
    assert_int_equal(in.err, -EBADMSG);

    /* A real failure first: a 4-byte read at 15 of 17 fails, and the
     * octet still readable at that spot is then refused as well. */
    cdr_in_init(&in, src, sizeof src, false);
    in.pos = 15;
    assert_int_equal(cdr_get_short(&in), 0); /* pad to 16, then 2 of 1 */
    assert_int_equal(in.err, -EBADMSG);
    in.pos = 16;
    assert_int_equal(cdr_get_octet(&in), 0);
    assert_int_equal(in.err, -EBADMSG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_little),
        cmocka_unit_test(test_init_empty),
        cmocka_unit_test(test_layout_big),
        cmocka_unit_test(test_layout_little),
        cmocka_unit_test(test_align_octet_long),
        cmocka_unit_test(test_align_each_size),
        cmocka_unit_test(test_align_origin),
        cmocka_unit_test(test_string_layout),
        cmocka_unit_test(test_octet_seq_layout),
        cmocka_unit_test(test_round_trip_big),
        cmocka_unit_test(test_round_trip_little),
        cmocka_unit_test(test_read_other_order),
        cmocka_unit_test(test_in_align),
        cmocka_unit_test(test_patch_long),
        cmocka_unit_test(test_patch_long_out_of_range),
        cmocka_unit_test(test_out_reset),
        cmocka_unit_test(test_out_grows),
        cmocka_unit_test(test_out_sticky_error),
        cmocka_unit_test(test_encap_orders),
        cmocka_unit_test(test_encap_bad),
        cmocka_unit_test(test_short_reads),
        cmocka_unit_test(test_pad_past_end),
        cmocka_unit_test(test_string_bad),
        cmocka_unit_test(test_octet_seq_bad),
        cmocka_unit_test(test_in_sticky_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
