/* Unit tests for ior.c on TAO's IORs: the IORs of orbbench's TAO 2.2.1
 * echo server (servers/tao), captured over IIOP, over TAO's UIOP (Unix
 * sockets) and over both (also in tests/fixtures/iors/tao.txt), for the
 * client's parser (ior_parse, wire_giop) and the whole decoding
 * (ior_decode), and UIOP profiles broken on purpose. The expected fields
 * follow TAO's own reading of a UIOP profile: TAO_UIOP_Profile's
 * decode_profile and create_profile_body (TAO/tao/Strategies), and what
 * TAO's catior prints of one (TAO/utils/catior, Catior_i::
 * cat_uiop_profile: "UIOP Version", "Rendezvous point", the object key,
 * the tagged components). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/ior.h"
#include "net/transport.h"
#include "net/wire.h"

/* -ORBDottedDecimalAddresses 1 -ORBListenEndpoints iiop://127.0.0.1:0 */
static const char tcp_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e300000010000"
    "000000000048000000010102000a0000003132372e302e302e310073b21b000000"
    "14010f0052535428c60e6bea370a00000000000100000001000000000100000000"
    "0000000800000001000000004f4154";

/* -ORBListenEndpoints uiop:///tmp/orbbench-tao-ior/s0.sock. Bytes:
 *   28       01000000  one profile
 *   32       004f4154  tag 0x54414f00 (TAO_TAG_UIOP_PROFILE)
 *   36       5c000000  92 bytes of profile, an encapsulation:
 *   40       01        little endian
 *   41..43   0102      version 1.2
 *   44       1e000000  the rendezvous point's length, 30
 *   48..78   "/tmp/orbbench-tao-ior/s0.sock" NUL
 *   80       1b000000  object key length 27, the key at 84..111
 *   112      01000000  one component: TAG_ORB_TYPE, 8 bytes, TAO */
static const char unix_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e300000010000"
    "00004f41545c000000010102001e0000002f746d702f6f726262656e63682d7461"
    "6f2d696f722f73302e736f636b0000001b00000014010f0052535428c60e6bd6a7"
    "0c000000000001000000010000000001000000000000000800000001000000004f"
    "4154";

/* Both endpoints: IIOP, then UIOP with the same key (its padding holds
 * uninitialised bytes: 54 after the key, 13795c in TAG_ORB_TYPE's). */
static const char both_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e300000020000"
    "000000000048000000010102000a0000003132372e302e302e31001daa1b000000"
    "14010f005253542bc60e6bb1d401000000000001000000010000000001000000000"
    "000000800000001000000004f4154004f41545c000000010102001e0000002f746d"
    "702f6f726262656e63682d74616f2d696f722f73312e736f636b0000001b000000"
    "14010f005253542bc60e6bb1d40100000000000100000001000000540100000000"
    "000000080000000113795c004f4154";

static const char type_id[] = "IDL:Bench/Echo:1.0";
static const uint8_t both_key[27] = {
    0x14, 0x01, 0x0f, 0x00, 0x52, 0x53, 0x54, 0x2b, 0xc6, 0x0e, 0x6b, 0xb1,
    0xd4, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00};

static void test_parse_tcp(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(tcp_ior, &r), 0);
    assert_string_equal(r.type_id, type_id);
    assert_true(r.has_iiop);
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.port, 0xb273); /* 73b2 little endian */
    assert_int_equal(r.key_len, 27);
    assert_false(r.has_unix);
}

static void test_parse_unix_only(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(unix_ior, &r), 0);
    assert_false(r.has_iiop);
    assert_string_equal(r.host, "");
    assert_int_equal(r.port, 0);
    assert_true(r.has_unix);
    assert_string_equal(r.unix_path, "/tmp/orbbench-tao-ior/s0.sock");
    assert_string_equal(r.unix_host, "");
    /* The UIOP profile's key: there is no other. */
    assert_int_equal(r.key_len, 27);
    assert_memory_equal(r.key, "\x14\x01\x0f\x00RST(\xc6\x0ek\xd6\xa7\x0c",
                        15);
}

static void test_parse_both(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(both_ior, &r), 0);
    assert_true(r.has_iiop && r.has_unix);
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.port, 0xaa1d);
    assert_string_equal(r.unix_path, "/tmp/orbbench-tao-ior/s1.sock");
    assert_int_equal(r.key_len, sizeof both_key);
    assert_memory_equal(r.key, both_key, sizeof both_key);
}

/* What a run reads off a TAO server's ready line. */
static void test_ready_line(void **state)
{
    (void)state;
    struct target t;
    char why[256];
    assert_int_equal(wire_giop.parse_ready(unix_ior, &t, why, sizeof why),
                     0);
    assert_string_equal(t.unix_path, "/tmp/orbbench-tao-ior/s0.sock");
    assert_string_equal(t.host, "");
    assert_int_equal(t.key_len, 27);
    assert_int_equal(wire_giop.parse_ready(both_ior, &t, why, sizeof why),
                     0);
    assert_string_equal(t.host, "127.0.0.1");
    assert_string_equal(t.unix_path, "/tmp/orbbench-tao-ior/s1.sock");
}

static void test_decode_both(void **state)
{
    (void)state;
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(both_ior, &d, why, sizeof why), 0);
    assert_int_equal(d.nprofiles, 2);
    const struct ior_profile *iiop = &d.profiles[0], *uiop = &d.profiles[1];
    assert_int_equal(iiop->tag, IOR_TAG_INTERNET_IOP);
    assert_int_equal(uiop->tag, IOR_TAG_TAO_UIOP);
    assert_string_equal(ior_profile_name(uiop->tag), "TAO_TAG_UIOP_PROFILE");
    assert_true(uiop->decoded && uiop->little);
    /* catior: "UIOP Version: 1.2", "Rendezvous point: /tmp/..." */
    assert_int_equal(uiop->iiop_major, 1);
    assert_int_equal(uiop->iiop_minor, 2);
    assert_int_equal(uiop->path.len, 29);
    assert_memory_equal(uiop->path.s, "/tmp/orbbench-tao-ior/s1.sock", 29);
    assert_int_equal(uiop->host.len, 0);
    assert_int_equal(uiop->key_len, sizeof both_key);
    assert_memory_equal(uiop->key, both_key, sizeof both_key);
    assert_memory_equal(iiop->key, both_key, sizeof both_key);
    /* 1.2: tagged components follow, TAG_ORB_TYPE "TAO\0" in both. */
    for (size_t i = 0; i < 2; i++) {
        const struct ior_profile *p = &d.profiles[i];
        assert_int_equal(p->ncomps, 1);
        assert_int_equal(p->comps[0].kind, IOR_COMP_ORB_TYPE);
        assert_int_equal(p->comps[0].u.orb_type, 0x54414f00);
        assert_string_equal(ior_orb_vendor(p->comps[0].u.orb_type), "TAO");
    }
    ior_doc_free(&d);
}

/* ---- UIOP profiles broken on purpose, from unix_ior ------------------- */

static char *hex_with(const char *ior, size_t at, const char *bytes)
{
    char *s = strdup(ior);
    assert_non_null(s);
    memcpy(s + 4 + 2 * at, bytes, strlen(bytes));
    return s;
}

/* A major version other than 1: its layout is unknown, so the profile is
 * listed undecoded, and an IOR with nothing else has no endpoint. */
static void test_uiop_version_2(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 41, "02");
    struct ior r;
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_parse(s, &r), -ENOENT);
    assert_int_equal(ior_decode(s, &d, why, sizeof why), 0);
    assert_false(d.profiles[0].decoded);
    assert_int_equal(d.profiles[0].iiop_major, 2);
    ior_doc_free(&d);
    free(s);
}

/* UIOP 1.0 has no components after the key: the byte-for-byte same
 * profile then has 20 bytes left over, which are not read. */
static void test_uiop_1_0(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 42, "00");
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(s, &d, why, sizeof why), 0);
    assert_true(d.profiles[0].decoded);
    assert_int_equal(d.profiles[0].ncomps, 0);
    ior_doc_free(&d);
    free(s);
}

/* The rendezvous point's length past the profile's end. */
static void test_uiop_path_past_end(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 44, "ff000000");
    struct ior r;
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_parse(s, &r), -EBADMSG);
    assert_int_equal(ior_decode(s, &d, why, sizeof why), -EBADMSG);
    assert_non_null(strstr(why, "the rendezvous point"));
    assert_non_null(strstr(why, "profile 1 (TAO_TAG_UIOP_PROFILE)"));
    free(s);
}

/* A path without its NUL. */
static void test_uiop_path_without_nul(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 77, "6b");
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(s, &d, why, sizeof why), -EBADMSG);
    assert_non_null(strstr(why, "string without its NUL"));
    free(s);
}

/* A path longer than sockaddr_un holds: refused, not cut short. */
static void test_uiop_path_too_long(void **state)
{
    (void)state;
    char path[200], hex[800], body[1200], ior[1400];
    memset(path, 'p', 120);
    path[0] = '/';
    path[120] = 0;
    size_t n = strlen(path) + 1, at = 0;
    for (size_t i = 0; i < n; i++)
        at += (size_t)sprintf(hex + at, "%02x", (unsigned char)path[i]);
    /* byte order, 1.2, pad, length, path, pad to 4, key of 1, no
     * components. */
    size_t pad = (4 - (8 + n) % 4) % 4;
    snprintf(body, sizeof body, "01010200%02x000000%s%.*s01000000ab000000"
             "00000000", (unsigned)n, hex, (int)(2 * pad), "000000");
    size_t body_len = strlen(body) / 2;
    snprintf(ior, sizeof ior, "IOR:0100000001000000000000000100000000"
             "4f4154%02x000000%s", (unsigned)body_len, body);
    struct ior r;
    assert_int_equal(ior_parse(ior, &r), -ENAMETOOLONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_tcp),
        cmocka_unit_test(test_parse_unix_only),
        cmocka_unit_test(test_parse_both),
        cmocka_unit_test(test_ready_line),
        cmocka_unit_test(test_decode_both),
        cmocka_unit_test(test_uiop_version_2),
        cmocka_unit_test(test_uiop_1_0),
        cmocka_unit_test(test_uiop_path_past_end),
        cmocka_unit_test(test_uiop_path_without_nul),
        cmocka_unit_test(test_uiop_path_too_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
