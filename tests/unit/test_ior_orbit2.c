/* Unit tests for ior.c on ORBit2's IORs: the IORs of orbbench's ORBit2
 * 2.14.19 echo server (servers/orbit2), captured over IIOP, over ORBit2's
 * Unix sockets and over both (also in tests/fixtures/iors/orbit.txt), for
 * the client's parser (ior_parse, wire_giop) and the whole decoding
 * (ior_decode), and ORBit2 profiles broken on purpose. The layouts are
 * ORBit2's own (src/orb/orb-core/iop-profiles.c): TAG_ORBIT_SPECIFIC
 * (IOP_TAG_ORBIT_SPECIFIC_marshal: version 1.2, the socket's path, the
 * IPv6 port, the key) and TAG_GENERIC_IOP (IOP_TAG_GENERIC_IOP_marshal:
 * GIOP version, protocol, host, service, components; no key). */
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

/* -ORBIIOPIPv4=1 -ORBIIOPUSock=0 -ORBIIOPIPName=127.0.0.1: IIOP 1.2 and
 * TAG_MULTIPLE_COMPONENTS. */
static const char tcp_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e3000000200"
    "00000000000038000000010102000a0000003132372e302e302e310013b31c00"
    "0000000000008c03264eee7af992945f4f3828d77b90010000009452dcc00000"
    "000001000000480000000100000002000000050000001c000000000000008c03"
    "264eee7af992945f4f3828d77b90010000009452dcc001000000140000000100"
    "000001000105000000000901010000000000";

/* -ORBIIOPIPv4=0 -ORBIIOPUSock=1
 * -ORBIIOPIPSock=/tmp/orbbench-orbit2-ior/s0.sock. Bytes:
 *   28       03000000  three profiles
 *   32       0054424f  tag 0x4f425400 (TAG_GENERIC_IOP), 76 bytes at 40
 *   116      caaedfba  tag 0xbadfaeca (TAG_ORBIT_SPECIFIC), 76 bytes:
 *   124      01        little endian
 *   125..126 0102      version 1.2
 *   128      21000000  the path's length, 33; the path at 132..164
 *   166      0000      the IPv6 port, none
 *   168      1c000000  object key length 28, the key at 172..199
 *   200      01000000  tag 1 (TAG_MULTIPLE_COMPONENTS) */
static const char unix_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e3000000300"
    "00000054424f4c0000000101020005000000554e4958000000000a0000006c6f"
    "63616c686f7374000000210000002f746d702f6f726262656e63682d6f726269"
    "74322d696f722f73302e736f636b0000000000000000caaedfba4c0000000101"
    "0200210000002f746d702f6f726262656e63682d6f72626974322d696f722f73"
    "302e736f636b000000001c00000000000000b71450d8a9a8a828282828282828"
    "28280100000034b6b6b601000000480000000100000002000000050000001c00"
    "000000000000b71450d8a9a8a82828282828282828280100000034b6b6b60100"
    "0000140000000100000001000105000000000901010000000000";

/* Both, -ORBIIOPIPSock=/tmp/orbbench-orbit2-ior/s1.sock: TAG_GENERIC_IOP,
 * IIOP, TAG_ORBIT_SPECIFIC, TAG_MULTIPLE_COMPONENTS. */
static const char both_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e3000000400"
    "00000054424f4c0000000101020005000000554e4958000000000a0000003132"
    "372e302e302e31000000210000002f746d702f6f726262656e63682d6f726269"
    "74322d696f722f73312e736f636b000000000000000000000000380000000101"
    "02000a0000003132372e302e302e3100d18a1c00000000000000a738aeec39f0"
    "00fe86ef5b303caa75050100000064b21c4000000000caaedfba4c0000000101"
    "0200210000002f746d702f6f726262656e63682d6f72626974322d696f722f73"
    "312e736f636b000000001c00000000000000a738aeec39f000fe86ef5b303caa"
    "75050100000064b21c4001000000480000000100000002000000050000001c00"
    "000000000000a738aeec39f000fe86ef5b303caa75050100000064b21c400100"
    "0000140000000100000001000105000000000901010000000000";

static const char unix_path[] = "/tmp/orbbench-orbit2-ior/s0.sock";
static const uint8_t unix_key[28] = {
    0x00, 0x00, 0x00, 0x00, 0xb7, 0x14, 0x50, 0xd8, 0xa9, 0xa8, 0xa8, 0x28,
    0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x01, 0x00, 0x00, 0x00,
    0x34, 0xb6, 0xb6, 0xb6};

/* A copy of `ior` with the byte at `offset` (of the CDR after "IOR:") set
 * to `value`; the caller frees it. */
static char *with_byte(const char *ior, size_t offset, uint8_t value)
{
    char *s = strdup(ior);
    assert_non_null(s);
    char hex[3];
    snprintf(hex, sizeof hex, "%02x", value);
    memcpy(s + 4 + 2 * offset, hex, 2);
    return s;
}

static void test_parse_tcp(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(tcp_ior, &r), 0);
    assert_string_equal(r.type_id, "IDL:Bench/Echo:1.0");
    assert_true(r.has_iiop);
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.iiop_major, 1);
    assert_int_equal(r.iiop_minor, 2);
    assert_int_equal(r.key_len, 28);
    assert_false(r.has_unix);
}

static void test_parse_unix_only(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(unix_ior, &r), 0);
    assert_false(r.has_iiop);
    assert_true(r.has_unix);
    assert_string_equal(r.unix_path, unix_path);
    assert_string_equal(r.unix_host, "");
    /* TAG_ORBIT_SPECIFIC's key: the generic profile has none. */
    assert_int_equal(r.key_len, sizeof unix_key);
    assert_memory_equal(r.key, unix_key, sizeof unix_key);
}

static void test_parse_both(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(both_ior, &r), 0);
    assert_true(r.has_iiop && r.has_unix);
    assert_string_equal(r.host, "127.0.0.1");
    assert_true(r.port > 0);
    assert_string_equal(r.unix_path, "/tmp/orbbench-orbit2-ior/s1.sock");
    /* The IIOP profile's key, which ORBit2's own profile repeats. */
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(both_ior, &d, why, sizeof why), 0);
    assert_int_equal(d.profiles[2].tag, IOR_TAG_ORBIT_SPECIFIC);
    assert_int_equal(r.key_len, d.profiles[2].key_len);
    assert_memory_equal(r.key, d.profiles[2].key, r.key_len);
    ior_doc_free(&d);
}

/* What a run reads off an ORBit2 server's ready line. */
static void test_ready_line(void **state)
{
    (void)state;
    struct target t;
    char why[256];
    assert_int_equal(wire_giop.parse_ready(unix_ior, &t, why, sizeof why),
                     0);
    assert_string_equal(t.unix_path, unix_path);
    assert_string_equal(t.host, "");
    assert_int_equal(t.key_len, sizeof unix_key);
    assert_int_equal(wire_giop.parse_ready(both_ior, &t, why, sizeof why),
                     0);
    assert_string_equal(t.host, "127.0.0.1");
    assert_string_equal(t.unix_path, "/tmp/orbbench-orbit2-ior/s1.sock");
}

static void assert_str(struct ior_str s, const char *want)
{
    assert_int_equal(s.len, strlen(want));
    assert_memory_equal(s.s, want, s.len);
}

static void test_decode_unix(void **state)
{
    (void)state;
    struct ior_doc d;
    char why[256] = "";
    assert_int_equal(ior_decode(unix_ior, &d, why, sizeof why), 0);
    assert_int_equal(d.nprofiles, 3);
    const struct ior_profile *g = &d.profiles[0], *o = &d.profiles[1];
    assert_int_equal(g->tag, IOR_TAG_ORBIT_GENERIC_IOP);
    assert_string_equal(ior_profile_name(g->tag), "TAG_GENERIC_IOP");
    assert_true(g->decoded && g->little);
    assert_int_equal(g->iiop_major, 1);
    assert_int_equal(g->iiop_minor, 2);
    assert_str(g->proto, "UNIX");
    assert_str(g->host, "localhost");
    assert_str(g->service, unix_path);
    assert_int_equal(g->ncomps, 0);
    assert_int_equal(g->key_len, 0);
    assert_int_equal(o->tag, IOR_TAG_ORBIT_SPECIFIC);
    assert_string_equal(ior_profile_name(o->tag), "TAG_ORBIT_SPECIFIC");
    assert_true(o->decoded && o->little);
    assert_int_equal(o->iiop_major, 1);
    assert_int_equal(o->iiop_minor, 2);
    assert_str(o->path, unix_path);
    assert_int_equal(o->ipv6_port, 0);
    assert_int_equal(o->key_len, sizeof unix_key);
    assert_memory_equal(o->key, unix_key, sizeof unix_key);
    /* The key once more, in TAG_MULTIPLE_COMPONENTS'
     * TAG_COMPLETE_OBJECT_KEY, and the code sets. */
    const struct ior_profile *m = &d.profiles[2];
    assert_int_equal(m->tag, IOR_TAG_MULTIPLE_COMPONENTS);
    assert_int_equal(m->ncomps, 2);
    assert_int_equal(m->comps[0].tag, 5);
    assert_int_equal(m->comps[0].len, sizeof unix_key);
    assert_memory_equal(m->comps[0].data, unix_key, sizeof unix_key);
    assert_int_equal(m->comps[1].tag, IOR_TAG_CODE_SETS);
    ior_doc_free(&d);
}

/* A TAG_ORBIT_SPECIFIC profile of another major version is listed, not
 * decoded, and a run finds no endpoint in it. */
static void test_unknown_version_is_skipped(void **state)
{
    (void)state;
    char *s = with_byte(unix_ior, 125, 2);
    struct ior r;
    assert_int_equal(ior_parse(s, &r), -ENOENT);
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(s, &d, why, sizeof why), 0);
    assert_false(d.profiles[1].decoded);
    assert_int_equal(d.profiles[1].iiop_major, 2);
    ior_doc_free(&d);
    free(s);
}

/* The path's length past the profile's end: malformed, said where. */
static void test_path_past_the_end(void **state)
{
    (void)state;
    char *s = with_byte(unix_ior, 128, 0xff);
    struct ior r;
    assert_int_equal(ior_parse(s, &r), -EBADMSG);
    struct ior_doc d;
    char why[256] = "";
    assert_int_equal(ior_decode(s, &d, why, sizeof why), -EBADMSG);
    assert_non_null(strstr(why, "TAG_ORBIT_SPECIFIC"));
    assert_non_null(strstr(why, "the Unix socket's path"));
    free(s);
}

/* An empty path (an ORBit2 with IPv6 and no Unix socket) names no Unix
 * endpoint: built here, one TAG_ORBIT_SPECIFIC profile with path "",
 * IPv6 port 4242, key "KEY!". */
static void test_empty_path_is_no_endpoint(void **state)
{
    (void)state;
    static const char ipv6_only[] =
        "IOR:010000001300000049444c3a42656e63682f4563686f3a312e3000000100"
        "0000caaedfba14000000010102000100000000009210040000004b455921";
    struct ior r;
    assert_int_equal(ior_parse(ipv6_only, &r), -ENOENT);
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(ipv6_only, &d, why, sizeof why), 0);
    assert_true(d.profiles[0].decoded);
    assert_int_equal(d.profiles[0].path.len, 0);
    assert_int_equal(d.profiles[0].ipv6_port, 4242);
    ior_doc_free(&d);
    /* A run's ready line: no endpoint at all, said so. */
    struct target t;
    assert_int_not_equal(wire_giop.parse_ready(ipv6_only, &t, why,
                                               sizeof why), 0);
    assert_non_null(strstr(why, "no IIOP, UIOP or ORBit profile"));
}

/* A relative path ("tmp/orbbench-…" with the first '/' replaced) is
 * refused, as TAO's UIOP one is: never resolved against the working
 * folder. */
static void test_relative_path_is_refused(void **state)
{
    (void)state;
    char *s = with_byte(unix_ior, 132, 't');
    struct ior r;
    assert_int_equal(ior_parse(s, &r), -EDESTADDRREQ);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_tcp),
        cmocka_unit_test(test_parse_unix_only),
        cmocka_unit_test(test_parse_both),
        cmocka_unit_test(test_ready_line),
        cmocka_unit_test(test_decode_unix),
        cmocka_unit_test(test_unknown_version_is_skipped),
        cmocka_unit_test(test_path_past_the_end),
        cmocka_unit_test(test_empty_path_is_no_endpoint),
        cmocka_unit_test(test_relative_path_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
