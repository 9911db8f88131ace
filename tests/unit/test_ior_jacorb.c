/* Unit tests for ior.c on JacORB's IORs: the IOR of orbbench's JacORB 3.4
 * echo server (servers/jacorb) over IIOP (also in
 * tests/fixtures/iors/jacorb.txt and a fuzz seed), for the client's parser
 * (ior_parse, wire_giop) and the whole decoding (ior_decode): big-endian
 * throughout, as JacORB writes every IOR, one IIOP 1.2 profile whose one
 * component is TAG_ORB_TYPE "JAC\0", which names the ORB. */
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

/* -ORBListenEndpoints iiop://127.0.0.1:0. Bytes:
 *   0        00        big endian (and 3 bytes of padding)
 *   4..27    the type id, 19 bytes, "IDL:Bench/Echo:1.0"
 *   28       00000001  one profile: TAG_INTERNET_IOP, 72 bytes
 *   40..43   00 0102   big endian, IIOP 1.2
 *   44..57   "127.0.0.1", port 0x936d (37741)
 *   60       0000001c  object key of 28 bytes: the transient POA's server
 *                      id as text, "50018043/", then the RootPOA's
 *                      object id (19 bytes)
 *   92       00000001  one component: TAG_ORB_TYPE, 8 bytes, "JAC\0" */
static const char tcp_ior[] =
    "IOR:000000000000001349444C3A42656E63682F4563686F3A312E300000000000"
    "010000000000000048000102000000000A3132372E302E302E3100936D0000001C"
    "35303031383034332F0011323D41032D36100630463814141B484C1B0000000100"
    "00000000000008000000004A414300";

static const uint8_t key[28] = {
    '5', '0', '0', '1', '8', '0', '4', '3', '/', 0x00, 0x11, 0x32, 0x3d,
    0x41, 0x03, 0x2d, 0x36, 0x10, 0x06, 0x30, 0x46, 0x38, 0x14, 0x14, 0x1b,
    0x48, 0x4c, 0x1b};

static void test_parse(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(tcp_ior, &r), 0);
    assert_string_equal(r.type_id, "IDL:Bench/Echo:1.0");
    assert_true(r.has_iiop);
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.port, 37741);
    assert_int_equal(r.key_len, sizeof key);
    assert_memory_equal(r.key, key, sizeof key);
    assert_false(r.has_unix);
}

/* What a run reads off a JacORB server's ready line. */
static void test_ready_line(void **state)
{
    (void)state;
    struct target t;
    char why[256];
    assert_int_equal(wire_giop.parse_ready(tcp_ior, &t, why, sizeof why),
                     0);
    assert_string_equal(t.host, "127.0.0.1");
    assert_int_equal(t.port, 37741);
    assert_string_equal(t.unix_path, "");
    assert_int_equal(t.key_len, sizeof key);
}

static void test_decode(void **state)
{
    (void)state;
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(tcp_ior, &d, why, sizeof why), 0);
    assert_false(d.little);
    assert_int_equal(d.nprofiles, 1);
    const struct ior_profile *p = &d.profiles[0];
    assert_int_equal(p->tag, IOR_TAG_INTERNET_IOP);
    assert_true(p->decoded);
    assert_false(p->little);
    assert_int_equal(p->iiop_major, 1);
    assert_int_equal(p->iiop_minor, 2);
    assert_int_equal(p->port, 37741);
    assert_int_equal(p->key_len, sizeof key);
    assert_memory_equal(p->key, key, sizeof key);
    assert_int_equal(p->ncomps, 1);
    assert_int_equal(p->comps[0].kind, IOR_COMP_ORB_TYPE);
    assert_int_equal(p->comps[0].u.orb_type, 0x4a414300);
    assert_string_equal(ior_orb_vendor(p->comps[0].u.orb_type), "JacORB");
    ior_doc_free(&d);
}

/* The ORB type's byte order is its component's own: the same four bytes
 * read little-endian would be another vendor's tag, or none. */
static void test_orb_type_read_in_its_byte_order(void **state)
{
    (void)state;
    char *s = strdup(tcp_ior);
    assert_non_null(s);
    /* The component's byte-order octet (at 104) says little-endian: the
     * tag then reads 0x0043414a, which no vendor has. */
    memcpy(s + 4 + 2 * 104, "01", 2);
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(s, &d, why, sizeof why), 0);
    assert_int_equal(d.profiles[0].comps[0].u.orb_type, 0x0043414a);
    assert_null(ior_orb_vendor(0x0043414a));
    ior_doc_free(&d);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_ready_line),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_orb_type_read_in_its_byte_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
