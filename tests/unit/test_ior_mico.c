/* Unit tests for ior.c on MICO's IORs: the IORs of orbbench's MICO
 * 2.3.13 echo server (servers/mico), captured over IIOP, over MICO's own
 * Unix-socket profile (TAG_UNIX_IOP, 20002) and over both (also in
 * tests/fixtures/iors/mico.txt), for the client's parser (ior_parse,
 * wire_giop) and the whole decoding (ior_decode), and UIOP profiles
 * broken on purpose. The expected fields follow MICO's own reading of its
 * profile: UIOPProfile::encode and UIOPProfileDecoder::decode
 * (orb/ior.cc): a version, the host, the socket's path, the object key,
 * from 1.1 on components. MICO writes no TAG_ORB_TYPE; its code sets go
 * into a TAG_MULTIPLE_COMPONENTS profile of their own. */
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

/* -ORBNoResolve -ORBIIOPAddr inet:127.0.0.1:0 (and -ORBGIOPVersion 1.2
 * -ORBIIOPVersion 1.2, which the server adds): an IIOP 1.2 profile
 * without components, then the code sets in TAG_MULTIPLE_COMPONENTS. */
static const char tcp_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e300000020000"
    "000000000030000000010102000a0000003132372e302e302e3100838e14000000"
    "2f32393334372f313739363532363339342f5f3000000000010000002400000001"
    "000000010000000100000014000000010000000100010000000000090101000000"
    "0000";

/* -ORBIIOPAddr unix:/tmp/orbbench-mico-ior/s0.sock. Bytes:
 *   28       02000000  two profiles
 *   32       01000000  TAG_MULTIPLE_COMPONENTS, 36 bytes (the code sets)
 *   76       224e0000  tag 20002 (TAG_UNIX_IOP)
 *   80       54000000  84 bytes of profile, an encapsulation:
 *   84       01        little endian
 *   85..86   0102      version 1.2
 *   88       0a000000  the host's length, 10: "127.0.0.1" NUL at 92
 *   104      1f000000  the path's length, 31
 *   108..138 "/tmp/orbbench-mico-ior/s0.sock" NUL
 *   140      14000000  object key length 20: "/29865/1796526397/_0"
 *   164      00000000  no components */
static const char unix_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e300000020000"
    "000100000024000000010000000100000001000000140000000100000001000100"
    "000000000901010000000000224e000054000000010102000a0000003132372e30"
    "2e302e310000001f0000002f746d702f6f726262656e63682d6d69636f2d696f72"
    "2f73302e736f636b0000140000002f32393836352f313739363532363339372f5f"
    "3000000000";

/* Both: IIOP, the code sets, then UIOP with the same key. */
static const char both_ior[] =
    "IOR:010000001300000049444c3a42656e63682f4563686f3a312e300000030000"
    "000000000030000000010102000a0000003132372e302e302e3100019814000000"
    "2f33303130382f313739363532363430302f5f3000000000010000002400000001"
    "000000010000000100000014000000010000000100010000000000090101000000"
    "0000224e000054000000010102000a0000003132372e302e302e310000001f0000"
    "002f746d702f6f726262656e63682d6d69636f2d696f722f73312e736f636b0000"
    "140000002f33303130382f313739363532363430302f5f3000000000";

static const char type_id[] = "IDL:Bench/Echo:1.0";

static void test_parse_tcp(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(tcp_ior, &r), 0);
    assert_string_equal(r.type_id, type_id);
    assert_true(r.has_iiop);
    assert_int_equal(r.iiop_minor, 2);
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.port, 0x8e83); /* 838e little endian */
    assert_int_equal(r.key_len, 20);
    assert_memory_equal(r.key, "/29347/1796526394/_0", 20);
    assert_false(r.has_unix);
}

static void test_parse_unix_only(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(unix_ior, &r), 0);
    assert_false(r.has_iiop);
    assert_int_equal(r.port, 0);
    assert_true(r.has_unix);
    assert_string_equal(r.unix_path, "/tmp/orbbench-mico-ior/s0.sock");
    assert_string_equal(r.unix_host, "127.0.0.1");
    /* The UIOP profile's key: there is no other. */
    assert_int_equal(r.key_len, 20);
    assert_memory_equal(r.key, "/29865/1796526397/_0", 20);
}

static void test_parse_both(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(both_ior, &r), 0);
    assert_true(r.has_iiop && r.has_unix);
    assert_string_equal(r.host, "127.0.0.1");
    assert_string_equal(r.unix_path, "/tmp/orbbench-mico-ior/s1.sock");
    assert_int_equal(r.key_len, 20);
    assert_memory_equal(r.key, "/30108/1796526400/_0", 20);
}

/* What a run reads off a MICO server's ready line. */
static void test_ready_line(void **state)
{
    (void)state;
    struct target t;
    char why[256];
    assert_int_equal(wire_giop.parse_ready(unix_ior, &t, why, sizeof why),
                     0);
    assert_string_equal(t.unix_path, "/tmp/orbbench-mico-ior/s0.sock");
    assert_string_equal(t.host, "");
    assert_int_equal(t.key_len, 20);
    assert_int_equal(wire_giop.parse_ready(both_ior, &t, why, sizeof why),
                     0);
    assert_string_equal(t.host, "127.0.0.1");
    assert_string_equal(t.unix_path, "/tmp/orbbench-mico-ior/s1.sock");
}

static void test_decode_both(void **state)
{
    (void)state;
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(both_ior, &d, why, sizeof why), 0);
    assert_int_equal(d.nprofiles, 3);
    const struct ior_profile *iiop = &d.profiles[0], *mc = &d.profiles[1],
                             *uiop = &d.profiles[2];
    assert_int_equal(iiop->tag, IOR_TAG_INTERNET_IOP);
    assert_int_equal(mc->tag, IOR_TAG_MULTIPLE_COMPONENTS);
    assert_int_equal(uiop->tag, IOR_TAG_MICO_UIOP);
    assert_string_equal(ior_profile_name(uiop->tag), "TAG_UNIX_IOP (MICO)");
    assert_true(uiop->decoded && uiop->little);
    assert_int_equal(uiop->iiop_major, 1);
    assert_int_equal(uiop->iiop_minor, 2);
    assert_int_equal(uiop->host.len, 9);
    assert_memory_equal(uiop->host.s, "127.0.0.1", 9);
    assert_int_equal(uiop->path.len, 30);
    assert_memory_equal(uiop->path.s, "/tmp/orbbench-mico-ior/s1.sock", 30);
    assert_int_equal(uiop->key_len, 20);
    assert_memory_equal(uiop->key, iiop->key, 20);
    /* No component in either IIOP 1.2 profile (no TAG_ORB_TYPE: MICO
     * writes none); the code sets alone in TAG_MULTIPLE_COMPONENTS. */
    assert_int_equal(iiop->ncomps, 0);
    assert_int_equal(uiop->ncomps, 0);
    assert_int_equal(mc->ncomps, 1);
    assert_int_equal(mc->comps[0].kind, IOR_COMP_CODE_SETS);
    assert_int_equal(mc->comps[0].u.code_sets.chars.native, 0x00010001);
    assert_int_equal(mc->comps[0].u.code_sets.wchars.native, 0x00010109);
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

/* A major version other than 1: listed undecoded, and an IOR with
 * nothing else has no endpoint. */
static void test_uiop_version_2(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 85, "02");
    struct ior r;
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_parse(s, &r), -ENOENT);
    assert_int_equal(ior_decode(s, &d, why, sizeof why), 0);
    assert_false(d.profiles[1].decoded);
    assert_int_equal(d.profiles[1].iiop_major, 2);
    ior_doc_free(&d);
    free(s);
}

/* The path's length past the profile's end. */
static void test_uiop_path_past_end(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 104, "ff000000");
    struct ior r;
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_parse(s, &r), -EBADMSG);
    assert_int_equal(ior_decode(s, &d, why, sizeof why), -EBADMSG);
    assert_non_null(strstr(why, "the socket path"));
    assert_non_null(strstr(why, "profile 2 (TAG_UNIX_IOP (MICO))"));
    free(s);
}

/* A relative path would connect relative to the working folder: refused,
 * never guessed at. */
static void test_uiop_relative_path(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 108, "74"); /* "tmp/orbbench-..." */
    struct ior r;
    assert_int_equal(ior_parse(s, &r), -EDESTADDRREQ);
    free(s);
}

/* UIOP 1.0 has no components after the key: the 4 bytes of an empty
 * component list are then left over, and not read. */
static void test_uiop_1_0(void **state)
{
    (void)state;
    char *s = hex_with(unix_ior, 86, "00");
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(s, &d, why, sizeof why), 0);
    assert_true(d.profiles[1].decoded);
    assert_int_equal(d.profiles[1].iiop_minor, 0);
    ior_doc_free(&d);
    free(s);
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
        cmocka_unit_test(test_uiop_path_past_end),
        cmocka_unit_test(test_uiop_relative_path),
        cmocka_unit_test(test_uiop_1_0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
