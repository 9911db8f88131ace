/* Unit tests for payload.c: encoded sizes and layout, alignment relative
 * to the stream's origin, both byte orders, the field a wrong byte is
 * named by, and TypeCodes checked byte by byte against CORBA 3.0 part 2,
 * 15.3.5. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/payload.h"

static const struct payload_type *get(const char *name)
{
    const struct payload_type *t = payload_lookup(name);
    assert_non_null(t);
    return t;
}

/* The value for seed in the given byte order, from origin 0. */
static void encode(const char *name, uint32_t seed, bool little,
                   struct cdr_out *o)
{
    cdr_out_init(o, little);
    assert_int_equal(payload_encode(get(name), seed, o), 0);
}

/* Check the len bytes at p (an exact heap copy, so that a read past the
 * end is seen) as name's value for seed. */
static int check_bytes(const char *name, uint32_t seed, const uint8_t *p,
                       size_t len, bool little, char *why, size_t why_len,
                       size_t *end)
{
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    if (len)
        memcpy(copy, p, len);
    struct cdr_in in;
    cdr_in_init(&in, copy, len, little);
    int rc = payload_check(get(name), seed, &in, why, why_len);
    if (end)
        *end = in.pos;
    free(copy);
    return rc;
}

static void test_table(void **state)
{
    (void)state;
    static const char *const names[][2] = {
        {"string", "echoString"},       {"None", "echoNone"},
        {"Octet1K", "echoOctet1K"},     {"Octet100K", "echoOctet100K"},
        {"Odometry", "echoOdometry"},   {"RangeSensor", "echoRangeSensor"},
        {"SharedBelief", "echoSharedBelief"},
    };
    assert_int_equal(payload_count(), 7);
    for (size_t i = 0; i < 7; i++) {
        const struct payload_type *t = get(names[i][0]);
        assert_ptr_equal(payload_at(i), t);
        assert_string_equal(payload_name(t), names[i][0]);
        assert_string_equal(payload_operation(t), names[i][1]);
        assert_int_equal(payload_has_value(t), i != 1);
    }
    assert_null(payload_lookup("octet1k"));
    assert_null(payload_lookup(""));
    assert_null(payload_at(7));
    char buf[128];
    payload_names(buf, sizeof buf);
    assert_string_equal(buf, "string, None, Octet1K, Octet100K, Odometry, "
                             "RangeSensor, SharedBelief");
    payload_names(buf, 10); /* cut short, still terminated */
    assert_string_equal(buf, "string, N");
}

/* The sizes idl/payloads.idl promises, close to the seed's. */
static void test_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        size_t bytes;
    } want[] = {
        {"string", 4 + 17},       {"None", 0},
        {"Octet1K", 4 + 1024},    {"Octet100K", 4 + 102400},
        {"Odometry", 44},         {"RangeSensor", 8 + 4 + 4 + 361 * 4},
        {"SharedBelief", 1260},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        for (int little = 0; little < 2; little++) {
            struct cdr_out o;
            encode(want[i].name, 7, little, &o);
            assert_int_equal(o.len, want[i].bytes);
            cdr_out_free(&o);
        }
    }
}

static uint32_t le32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Odometry's layout: time 0-8, point 8-16, heading 16-24, translation
 * 24-28, padding 28-32, rotation 32-40, cycle 40-44; the padding is
 * zero and every field differs from the others. */
static void test_odometry_layout(void **state)
{
    (void)state;
    struct cdr_out o;
    encode("Odometry", 3, true, &o);
    assert_int_equal(o.len, 44);
    static const uint8_t zero[4];
    assert_memory_equal(o.data + 28, zero, 4);
    const size_t longs[] = {0, 4, 8, 12, 24, 40};
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(le32_at(o.data + longs[i]),
                                 le32_at(o.data + longs[j]));
    /* A double is a 32-bit integer over 8: exact, and not zero here. */
    double heading;
    memcpy(&heading, o.data + 16, 8); /* this host is little-endian */
    assert_true(heading != 0 && heading * 8 == (double)(int64_t)(heading * 8));
    cdr_out_free(&o);
}

/* The same value, big- and little-endian: each decodes in its own byte
 * order and not in the other. */
static void test_both_orders(void **state)
{
    (void)state;
    for (size_t i = 0; i < payload_count(); i++) {
        const char *name = payload_name(payload_at(i));
        struct cdr_out big, little;
        char why[200];
        size_t end;
        encode(name, 11, false, &big);
        encode(name, 11, true, &little);
        assert_int_equal(big.len, little.len);
        assert_int_equal(check_bytes(name, 11, big.data, big.len, false, why,
                                     sizeof why, &end),
                         0);
        assert_int_equal(end, big.len);
        assert_int_equal(check_bytes(name, 11, little.data, little.len, true,
                                     why, sizeof why, &end),
                         0);
        assert_int_equal(end, little.len);
        if (payload_has_value(payload_at(i)))
            assert_int_equal(check_bytes(name, 11, big.data, big.len, true,
                                         why, sizeof why, NULL),
                             -EBADMSG);
        cdr_out_free(&big);
        cdr_out_free(&little);
    }
}

/* Alignment counts from the stream's origin: a value after 3 bytes of a
 * message whose origin is at those 3 bytes' end has the bytes it has at
 * offset 0; after 1 byte from origin 0 it is padded, and decodes there. */
static void test_alignment(void **state)
{
    (void)state;
    struct cdr_out ref, o;
    encode("SharedBelief", 5, true, &ref);
    cdr_out_init(&o, true);
    cdr_put_bytes(&o, "abc", 3);
    o.origin = 3;
    assert_int_equal(payload_encode(get("SharedBelief"), 5, &o), 0);
    assert_int_equal(o.len, 3 + ref.len);
    assert_memory_equal(o.data + 3, ref.data, ref.len);

    cdr_out_reset(&o, false);
    cdr_put_octet(&o, 0xee);
    assert_int_equal(payload_encode(get("Odometry"), 5, &o), 0);
    /* 1 + 3 padding, time and point (4-20), 4 more before heading (24-32),
     * translation, 4 before rotation (40-48), cycle: 52, not 4 + 44. */
    assert_int_equal(o.len, 52);
    uint8_t *copy = malloc(o.len);
    assert_non_null(copy);
    memcpy(copy, o.data, o.len);
    struct cdr_in in;
    char why[200];
    cdr_in_init(&in, copy, o.len, false);
    assert_int_equal(cdr_get_octet(&in), 0xee);
    assert_int_equal(payload_check(get("Odometry"), 5, &in, why, sizeof why),
                     0);
    assert_int_equal(in.pos, o.len);
    free(copy);
    cdr_out_free(&o);
    cdr_out_free(&ref);
}

static void test_seed_matters(void **state)
{
    (void)state;
    for (size_t i = 0; i < payload_count(); i++) {
        const char *name = payload_name(payload_at(i));
        struct cdr_out a, b;
        encode(name, 1, true, &a);
        encode(name, 2, true, &b);
        assert_int_equal(a.len, b.len); /* sizes do not depend on it */
        if (a.len)
            assert_memory_not_equal(a.data, b.data, a.len);
        cdr_out_free(&a);
        cdr_out_free(&b);
    }
    struct cdr_out a;
    char why[200];
    encode("Odometry", 1, true, &a);
    assert_int_equal(check_bytes("Odometry", 2, a.data, a.len, true, why,
                                 sizeof why, NULL),
                     -EBADMSG);
    assert_true(strncmp(why, "Odometry.time.sec: got ", 23) == 0);
    cdr_out_free(&a);
}

/* Change one byte at `at` (or nothing when at is past the end) and check:
 * the message must start with `want`. */
static void flip_named(const char *name, size_t at, bool little,
                       const char *want)
{
    struct cdr_out o;
    char why[200] = "";
    encode(name, 9, little, &o);
    assert_true(at < o.len);
    o.data[at] ^= 0x01;
    int rc = check_bytes(name, 9, o.data, o.len, little, why, sizeof why,
                         NULL);
    if (!want) {
        assert_int_equal(rc, 0);
    } else {
        assert_int_equal(rc, -EBADMSG);
        if (strncmp(why, want, strlen(want)) != 0)
            fail_msg("flipping byte %zu of %s: \"%s\", want \"%s...\"", at,
                     name, why, want);
    }
    cdr_out_free(&o);
}

static void test_flipped_field_named(void **state)
{
    (void)state;
    /* SharedBelief: count 0-4; object 0: id 4, confidence 8, cells
     * 16 (6 of them, 20-44); object 1: id 44, confidence 48, cells 56
     * (11, 60-104); object 2: id 104, padding, confidence 112, cells 120
     * (16, 124-188); object 3: id 188, confidence 192, cells 200 (21),
     * cells[7] at 204 + 28. */
    flip_named("SharedBelief", 232, true, "SharedBelief[3].cells[7]: got ");
    flip_named("SharedBelief", 235, false, "SharedBelief[3].cells[7]: got ");
    flip_named("SharedBelief", 104, true, "SharedBelief[2].id: got ");
    flip_named("SharedBelief", 108, true, NULL); /* padding: no field */
    flip_named("SharedBelief", 200, true,
               "SharedBelief[3].cells: length 20, want 21");
    flip_named("SharedBelief", 0, true, "SharedBelief: length 16, want 17");
    flip_named("Odometry", 39, false, "Odometry.velocity.rotation: got ");
    flip_named("Odometry", 12, true, "Odometry.position.point.y: got ");
    flip_named("Odometry", 30, true, NULL);
    flip_named("Octet1K", 4 + 1000, true, "Octet1K[1000]: got ");
    flip_named("Octet100K", 4 + 102399, false, "Octet100K[102399]: got ");
    flip_named("RangeSensor", 16 + 4 * 360, true, "RangeSensor.range[360]: ");
    flip_named("RangeSensor", 8, true, "RangeSensor.scan: got ");
    flip_named("string", 4 + 3, true, "string: character 3 is ");
    flip_named("string", 0, true, "string: truncated");
}

/* The message gives both values, as the type prints them. */
static void test_message_values(void **state)
{
    (void)state;
    struct cdr_out o;
    char why[200], want[200];
    encode("SharedBelief", 9, true, &o);
    int32_t v = (int32_t)le32_at(o.data + 232);
    o.data[232] ^= 0x01;
    assert_int_equal(check_bytes("SharedBelief", 9, o.data, o.len, true,
                                 why, sizeof why, NULL),
                     -EBADMSG);
    snprintf(want, sizeof want, "SharedBelief[3].cells[7]: got %d, want %d",
             (int)(v ^ 1), (int)v);
    assert_string_equal(why, want);
    cdr_out_free(&o);
}

static void test_truncated(void **state)
{
    (void)state;
    char why[200];
    struct cdr_out o;
    encode("Odometry", 4, true, &o);
    assert_int_equal(check_bytes("Odometry", 4, o.data, 36, true, why,
                                 sizeof why, NULL),
                     -EBADMSG);
    assert_string_equal(why, "Odometry.velocity.rotation: truncated");
    cdr_out_free(&o);
    encode("Octet1K", 4, true, &o);
    assert_int_equal(check_bytes("Octet1K", 4, o.data, 100, true, why,
                                 sizeof why, NULL),
                     -EBADMSG);
    assert_string_equal(why, "Octet1K: truncated");
    assert_int_equal(check_bytes("Octet1K", 4, o.data, 0, true, why,
                                 sizeof why, NULL),
                     -EBADMSG);
    cdr_out_free(&o);
    /* None reads nothing, whatever follows. */
    size_t end = 99;
    assert_int_equal(check_bytes("None", 4, (const uint8_t *)"xyz", 3, true,
                                 why, sizeof why, &end),
                     0);
    assert_int_equal(end, 0);
}

/* NoneEvent's any, little-endian, laid out by hand from 15.3.5.1: tk_struct
 * (15), then an encapsulation (ulong length, byte-order octet, the
 * parameters aligned from that octet): repository id, name, member count,
 * then per member its name and TypeCode (tk_ulonglong, 24); then the value,
 * 8-aligned in the outer stream. */
static void test_none_event_any(void **state)
{
    (void)state;
    static const uint8_t want[] = {
        15, 0, 0, 0,        /* tk_struct */
        68, 0, 0, 0,        /* encapsulation length */
        1, 0, 0, 0,         /* little-endian, pad to 4 (from the octet) */
        24, 0, 0, 0,        /* id: 24 chars with the NUL */
        'I', 'D', 'L', ':', 'B', 'e', 'n', 'c', 'h', '/', 'N', 'o', 'n', 'e',
        'E', 'v', 'e', 'n', 't', ':', '1', '.', '0', 0,
        10, 0, 0, 0,        /* name */
        'N', 'o', 'n', 'e', 'E', 'v', 'e', 'n', 't', 0,
        0, 0,               /* pad: encapsulation offset 46 -> 48 */
        1, 0, 0, 0,         /* one member */
        8, 0, 0, 0, 's', 'e', 'n', 't', '_', 'n', 's', 0,
        24, 0, 0, 0,        /* tk_ulonglong; encapsulation ends (68) */
        0, 0, 0, 0,         /* stream offset 76 -> 80 for the value */
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
    };
    struct cdr_out o;
    cdr_out_init(&o, true);
    assert_int_equal(payload_encode_event_any(get("None"), 1,
                                              0x1122334455667788ull, &o),
                     0);
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);
    assert_int_equal(o.origin, 0); /* restored after the encapsulations */
    cdr_out_free(&o);
}

/* Octet1K's TypeCode, big-endian: tk_alias (21) {id, name, tk_sequence
 * (19) {tk_octet (10), bound 0}}. */
static void test_octet1k_typecode(void **state)
{
    (void)state;
    static const uint8_t want[] = {
        0, 0, 0, 21,                          /* tk_alias */
        0, 0, 0, 64,                          /* encapsulation length */
        0, 0, 0, 0,                           /* big-endian, pad to 4 */
        0, 0, 0, 22, 'I', 'D', 'L', ':', 'B', 'e', 'n', 'c', 'h', '/', 'O',
        'c', 't', 'e', 't', '1', 'K', ':', '1', '.', '0', 0,
        0, 0,                                 /* pad: 30 -> 32 */
        0, 0, 0, 8, 'O', 'c', 't', 'e', 't', '1', 'K', 0, /* to 44 */
        0, 0, 0, 19,                          /* tk_sequence */
        0, 0, 0, 12,                          /* its encapsulation */
        0, 0, 0, 0,                           /* big-endian, pad */
        0, 0, 0, 10,                          /* tk_octet */
        0, 0, 0, 0,                           /* bound: unbounded */
    };
    struct cdr_out o;
    cdr_out_init(&o, false);
    assert_int_equal(payload_encode_typecode(get("Octet1K"), &o), 0);
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);
    cdr_out_free(&o);
}

/* An Odometry event: the struct's TypeCode names every member and nested
 * type by its IDL name and repository id, and the value follows aligned;
 * alignment inside an encapsulation counts from its byte-order octet even
 * when the any starts at an odd offset. */
static void test_event_any_names(void **state)
{
    (void)state;
    struct cdr_out o, value;
    cdr_out_init(&o, true);
    cdr_put_octet(&o, 0x5a);
    assert_int_equal(payload_encode_event_any(get("Odometry"), 3, 42, &o),
                     0);
    static const char *const names[] = {
        "IDL:Bench/OdometryEvent:1.0", "sent_ns", "payload",
        "IDL:Bench/Odometry:1.0", "IDL:Bench/TimeIDL:1.0",
        "IDL:Bench/PositionIDL:1.0", "IDL:Bench/PointIDL:1.0", "heading",
        "IDL:Bench/VelocityIDL:1.0", "rotation", "cycle"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t n = strlen(names[i]) + 1;
        bool found = false;
        for (size_t at = 4; at + n <= o.len && !found; at++)
            found = le32_at(o.data + at - 4) == n &&
                    memcmp(o.data + at, names[i], n) == 0;
        if (!found)
            fail_msg("%s is not in the TypeCode", names[i]);
    }
    /* The value: sent_ns 8-aligned, then the 44 bytes of Odometry. */
    encode("Odometry", 3, true, &value);
    assert_int_equal((o.len - 44) % 8, 0);
    assert_memory_equal(o.data + o.len - 44, value.data, 44);
    assert_int_equal(le32_at(o.data + o.len - 52), 42);
    cdr_out_free(&value);
    cdr_out_free(&o);
    cdr_out_init(&o, true);
    assert_int_equal(payload_encode_event_any(get("string"), 3, 42, &o),
                     -ENOTSUP);
    cdr_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_odometry_layout),
        cmocka_unit_test(test_both_orders),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_seed_matters),
        cmocka_unit_test(test_flipped_field_named),
        cmocka_unit_test(test_message_values),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_none_event_any),
        cmocka_unit_test(test_octet1k_typecode),
        cmocka_unit_test(test_event_any_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
