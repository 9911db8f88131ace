/* Unit tests for ior.c: real omniORB IORs, built IORs, rejections, for
 * the client's parser (ior_parse) and the whole decoding (ior_decode). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/cdr.h"
#include "codec/ior.h"

/* From an omniORB 4.2.5 echo server, -ORBendPoint giop:tcp:127.0.0.1: */
static const char tcp_ior[] =
    "IOR:"
    "010000001300000049444c3a42656e63682f4563686f3a312e30000001000000"
    "0000000060000000010102000a0000003132372e302e302e3100b5b20e000000"
    "fe0a9c0c6b00000d190000000000000002000000000000000800000001000000"
    "00545441010000001c0000000100000001000100010000000100010509010100"
    "0100000009010100";

/* The same server with -ORBendPoint giop:unix:/tmp/pt/u/s0 */
static const char unix_ior[] =
    "IOR:"
    "010000001300000049444c3a42656e63682f4563686f3a312e30000001000000"
    "00000000810000000101020003000000766d0000000000000e000000fe0c9c0c"
    "6b00000d1e000000000000000300000000000000080000000100000000545441"
    "010000001c000000010000000100010001000000010001050901010001000000"
    "09010100025454411d0000000100000003000000766d00000d0000002f746d70"
    "2f70742f752f733000";

/* Offsets below are in hex characters after "IOR:" (byte offset * 2).
 *
 * Both IORs open the same way:
 *   0..2     01        encapsulation byte order: little endian
 *   2..8     000000    padding to 4
 *   8..16    13000000  type id length 0x13 = 19 (counting the NUL)
 *   16..54   49444c..  "IDL:Bench/Echo:1.0" NUL
 *   54..56   00        padding to 4
 *   56..64   01000000  one profile
 *   64..72   00000000  tag 0 = TAG_INTERNET_IOP
 *   72..80   60000000 (tcp, 96 bytes) / 81000000 (unix, 129 bytes)
 *   80..     the profile, an encapsulation of its own:
 *   80..82   01        byte order: little endian
 *   82..86   0102      IIOP 1.2
 *   86..88   00        padding
 *
 * TCP profile:
 *   88..96   0a000000  host length 10
 *   96..116  3132..00  "127.0.0.1" NUL
 *   116..120 b5b2      port 0xb2b5 = 45749 (little endian ushort)
 *   120..128 0e000000  object key length 14
 *   128..156 fe0a9c0c6b00000d190000000000  the key
 *   156..160 0000      padding; then 2 components (ORB type, code sets)
 *
 * Unix profile:
 *   88..96   03000000  host length 3
 *   96..102  766d00    "vm" NUL
 *   102..104 00        padding
 *   104..108 0000      port 0
 *   108..112 0000      padding
 *   112..120 0e000000  object key length 14
 *   120..148 fe0c9c0c6b00000d1e0000000000  the key
 *   148..152 0000      padding; then 3 components, the last being
 *   264..272 02545441  tag 0x41545402 = TAG_OMNIORB_UNIX_TRANS
 *   272..280 1d000000  29 bytes of encapsulation:
 *   280..288 01000000  byte order little, padding
 *   288..296 03000000  host length 3
 *   296..302 766d00    "vm" NUL
 *   302..304 00        padding
 *   304..312 0d000000  path length 13
 *   312..338 2f74..00  "/tmp/pt/u/s0" NUL
 */
static const char want_type_id[] = "IDL:Bench/Echo:1.0";
static const uint8_t tcp_key[] = {0xfe, 0x0a, 0x9c, 0x0c, 0x6b, 0x00, 0x00,
                                  0x0d, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00};
static const uint8_t unix_key[] = {0xfe, 0x0c, 0x9c, 0x0c, 0x6b, 0x00, 0x00,
                                   0x0d, 0x1e, 0x00, 0x00, 0x00, 0x00, 0x00};

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    fail_msg("bad hex digit '%c' in a test vector", c);
    return -1;
}

/* Decode the hex after "IOR:" into a new buffer; *n is its length. */
static uint8_t *ior_bytes(const char *ior, size_t *n)
{
    assert_memory_equal(ior, "IOR:", 4);
    const char *hex = ior + 4;
    size_t hex_len = strlen(hex);
    assert_int_equal(hex_len % 2, 0);
    uint8_t *b = malloc(hex_len / 2);
    assert_non_null(b);
    for (size_t i = 0; i < hex_len / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *n = hex_len / 2;
    return b;
}

/* "IOR:" and the hex of `n` bytes, in a new string. */
static char *ior_string(const uint8_t *b, size_t n)
{
    char *s = malloc(4 + 2 * n + 1);
    assert_non_null(s);
    memcpy(s, "IOR:", 4);
    for (size_t i = 0; i < n; i++)
        snprintf(s + 4 + 2 * i, 3, "%02x", b[i]);
    s[4 + 2 * n] = 0;
    return s;
}

static int parse_bytes(const uint8_t *b, size_t n, struct ior *out)
{
    char *s = ior_string(b, n);
    int rc = ior_parse(s, out);
    free(s);
    return rc;
}

static void check_tcp(const struct ior *r)
{
    assert_string_equal(r->type_id, want_type_id);
    assert_int_equal(r->iiop_major, 1);
    assert_int_equal(r->iiop_minor, 2);
    assert_string_equal(r->host, "127.0.0.1");
    assert_int_equal(r->port, 45749);
    assert_int_equal(r->key_len, sizeof tcp_key);
    assert_memory_equal(r->key, tcp_key, sizeof tcp_key);
    assert_false(r->has_unix);
    assert_string_equal(r->unix_host, "");
    assert_string_equal(r->unix_path, "");
}

static void check_unix(const struct ior *r)
{
    assert_string_equal(r->type_id, want_type_id);
    assert_int_equal(r->iiop_major, 1);
    assert_int_equal(r->iiop_minor, 2);
    assert_string_equal(r->host, "vm");
    assert_int_equal(r->port, 0);
    assert_int_equal(r->key_len, sizeof unix_key);
    assert_memory_equal(r->key, unix_key, sizeof unix_key);
    assert_true(r->has_unix);
    assert_string_equal(r->unix_host, "vm");
    assert_string_equal(r->unix_path, "/tmp/pt/u/s0");
}

static void test_real_tcp(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(tcp_ior, &r), 0);
    check_tcp(&r);
}

static void test_real_unix(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(unix_ior, &r), 0);
    check_unix(&r);
    /* A later parse starts from a clean struct: no Unix path left over. */
    assert_int_equal(ior_parse(tcp_ior, &r), 0);
    check_tcp(&r);
}

static void test_whitespace(void **state)
{
    (void)state;
    struct ior r;
    size_t n = strlen(tcp_ior);
    char *s = malloc(n + 16);
    assert_non_null(s);
    snprintf(s, n + 16, " \t\n%s\r\n \t", tcp_ior);
    assert_int_equal(ior_parse(s, &r), 0);
    check_tcp(&r);
    snprintf(s, n + 16, "%s\n", tcp_ior);
    assert_int_equal(ior_parse(s, &r), 0);
    check_tcp(&r);
    /* Whitespace inside the hex is not accepted. */
    snprintf(s, n + 16, "%.20s %s", tcp_ior, tcp_ior + 20);
    assert_int_equal(ior_parse(s, &r), -EINVAL);
    snprintf(s, n + 16, "IOR: %s", tcp_ior + 4);
    assert_int_equal(ior_parse(s, &r), -EINVAL);
    free(s);
    assert_int_equal(ior_parse("IOR: \n", &r), -EINVAL);
    assert_int_equal(ior_parse(" \t\n", &r), -EINVAL);
}

static void test_upper_case_hex(void **state)
{
    (void)state;
    struct ior r;
    char *s = strdup(tcp_ior);
    assert_non_null(s);
    for (char *p = s + 4; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 'a' + 'A');
    assert_int_equal(ior_parse(s, &r), 0);
    check_tcp(&r);
    free(s);
}

static void test_bad_prefix(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse("", &r), -EINVAL);
    assert_int_equal(ior_parse("IOR", &r), -EINVAL);
    assert_int_equal(ior_parse("IOR:", &r), -EINVAL);
    assert_int_equal(ior_parse(tcp_ior + 4, &r), -EINVAL); /* hex only */
    assert_int_equal(ior_parse(tcp_ior + 1, &r), -EINVAL); /* "OR:..." */
    assert_int_equal(ior_parse("corbaloc::127.0.0.1:1/x", &r), -EINVAL);
    char *s = strdup(tcp_ior);
    assert_non_null(s);
    s[0] = 'X';
    assert_int_equal(ior_parse(s, &r), -EINVAL);
    s[0] = 'I';
    s[3] = ';';
    assert_int_equal(ior_parse(s, &r), -EINVAL);
    free(s);
}

static void test_odd_hex(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse("IOR:0", &r), -EINVAL);
    assert_int_equal(ior_parse("IOR:010", &r), -EINVAL);
    char *s = strdup(tcp_ior);
    assert_non_null(s);
    s[strlen(s) - 1] = 0;
    assert_int_equal(ior_parse(s, &r), -EINVAL);
    free(s);
}

static void test_non_hex(void **state)
{
    (void)state;
    static const char bad[] = {'g', 'G', 'x', ':', '-', '\t', '\x7f',
                               '\xe9'};
    static const size_t at[] = {4, 5, 50, 100};
    struct ior r;
    char *s = strdup(tcp_ior);
    assert_non_null(s);
    for (size_t i = 0; i < sizeof bad; i++) {
        for (size_t j = 0; j < sizeof at / sizeof *at; j++) {
            char keep = s[at[j]];
            s[at[j]] = bad[i];
            assert_int_equal(ior_parse(s, &r), -EINVAL);
            s[at[j]] = keep;
        }
    }
    /* The last digit too. */
    size_t last = strlen(s) - 1;
    s[last] = 'z';
    assert_int_equal(ior_parse(s, &r), -EINVAL);
    free(s);
}

/* Cut the hex at every length: odd cuts are -EINVAL, even ones -EBADMSG
 * (the first octet alone is already truncated CDR), none crash. */
static void check_hex_cuts(const char *full)
{
    size_t n = strlen(full);
    struct ior r;
    for (size_t cut = 4; cut < n; cut++) {
        char *s = malloc(cut + 1);
        assert_non_null(s);
        memcpy(s, full, cut);
        s[cut] = 0;
        int rc = ior_parse(s, &r);
        size_t hex = cut - 4;
        if (hex == 0 || hex % 2)
            assert_int_equal(rc, -EINVAL);
        else
            assert_int_equal(rc, -EBADMSG);
        free(s);
    }
}

static void test_truncated_hex(void **state)
{
    (void)state;
    check_hex_cuts(tcp_ior);
    check_hex_cuts(unix_ior);
}

/* An IOR holding the real type id and one tagged profile `data`. */
static void put_ior(struct cdr_out *o, bool little, const char *type_id,
                    uint32_t tag, const uint8_t *data, size_t n)
{
    cdr_out_init(o, little);
    cdr_put_octet(o, little);
    cdr_put_string(o, type_id, strlen(type_id));
    cdr_put_long(o, 1);
    cdr_put_long(o, tag);
    cdr_put_octet_seq(o, data, n);
    assert_int_equal(o->err, 0);
}

/* Keep the outer lengths consistent but cut the real profile short: every
 * cut is truncated CDR inside the profile. */
static void check_profile_cuts(const char *full)
{
    size_t n;
    uint8_t *b = ior_bytes(full, &n);
    /* Bytes 36..40 hold the profile length, the profile follows. */
    uint32_t plen = (uint32_t)b[36] | (uint32_t)b[37] << 8 |
                    (uint32_t)b[38] << 16 | (uint32_t)b[39] << 24;
    assert_int_equal(40 + plen, n);
    struct ior r;
    for (size_t cut = 0; cut < plen; cut++) {
        struct cdr_out o;
        put_ior(&o, true, want_type_id, IOR_TAG_INTERNET_IOP, b + 40, cut);
        assert_int_equal(parse_bytes(o.data, o.len, &r), -EBADMSG);
        cdr_out_free(&o);
    }
    /* Control: the uncut profile, re-wrapped, parses. */
    struct cdr_out o;
    put_ior(&o, true, want_type_id, IOR_TAG_INTERNET_IOP, b + 40, plen);
    assert_int_equal(o.len, n);
    assert_memory_equal(o.data, b, n);
    assert_int_equal(parse_bytes(o.data, o.len, &r), 0);
    cdr_out_free(&o);
    free(b);
}

static void test_truncated_profile(void **state)
{
    (void)state;
    check_profile_cuts(tcp_ior);
    check_profile_cuts(unix_ior);
}

/* What goes into a built IIOP profile. */
struct profile_spec {
    bool little;
    uint8_t major;
    uint8_t minor;
    const char *host;
    size_t host_len;
    uint16_t port;
    const uint8_t *key;
    size_t key_len;
    /* Components, IIOP 1.1+ only. */
    bool with_unix;
    bool unix_little;
    const char *unix_host;
    const char *unix_path;
    size_t unix_path_len;
    const uint8_t *unix_raw; /* when set, the component's bytes verbatim */
    size_t unix_raw_len;
    bool with_other; /* an unrelated component before the Unix one */
};

static void put_unix_component(struct cdr_out *o, const struct profile_spec *p)
{
    struct cdr_out c;
    cdr_out_init(&c, p->unix_little);
    cdr_put_octet(&c, p->unix_little);
    cdr_put_string(&c, p->unix_host, strlen(p->unix_host));
    cdr_put_string(&c, p->unix_path, p->unix_path_len);
    assert_int_equal(c.err, 0);
    cdr_put_long(o, IOR_TAG_OMNIORB_UNIX_TRANS);
    if (p->unix_raw)
        cdr_put_octet_seq(o, p->unix_raw, p->unix_raw_len);
    else
        cdr_put_octet_seq(o, c.data, c.len);
    cdr_out_free(&c);
}

/* The profile body (an encapsulation) into a fresh *o. */
static void put_profile(struct cdr_out *o, const struct profile_spec *p)
{
    cdr_out_init(o, p->little);
    cdr_put_octet(o, p->little);
    cdr_put_octet(o, p->major);
    cdr_put_octet(o, p->minor);
    cdr_put_string(o, p->host, p->host_len);
    cdr_put_short(o, p->port);
    cdr_put_octet_seq(o, p->key, p->key_len);
    if (p->minor >= 1) {
        cdr_put_long(o, (uint32_t)(p->with_unix + p->with_other));
        if (p->with_other) {
            /* TAG_ORB_TYPE, as omniORB sends it. */
            static const uint8_t orb_type[] = {1, 0, 0, 0, 0, 'T', 'T', 'A'};
            cdr_put_long(o, 0);
            cdr_put_octet_seq(o, orb_type, sizeof orb_type);
        }
        if (p->with_unix)
            put_unix_component(o, p);
    }
    assert_int_equal(o->err, 0);
}

static int parse_spec(bool little, const char *type_id,
                      const struct profile_spec *p, struct ior *r)
{
    struct cdr_out body, o;
    put_profile(&body, p);
    put_ior(&o, little, type_id, IOR_TAG_INTERNET_IOP, body.data, body.len);
    int rc = parse_bytes(o.data, o.len, r);
    cdr_out_free(&o);
    cdr_out_free(&body);
    return rc;
}

static const uint8_t some_key[] = {0, 1, 2, 3, 0xfc, 0xfd, 0xfe, 0xff, 9};

static struct profile_spec default_spec(bool little)
{
    struct profile_spec p = {
        .little = little,
        .major = 1,
        .minor = 2,
        .host = "example.org",
        .host_len = 11,
        .port = 0x1234,
        .key = some_key,
        .key_len = sizeof some_key,
        .with_unix = true,
        .unix_little = little,
        .unix_host = "box",
        .unix_path = "/run/bench/s1",
        .unix_path_len = 13,
        .with_other = true,
    };
    return p;
}

static void check_spec(const struct ior *r, const struct profile_spec *p)
{
    assert_string_equal(r->type_id, "IDL:Test/Thing:1.0");
    assert_int_equal(r->iiop_major, p->major);
    assert_int_equal(r->iiop_minor, p->minor);
    assert_int_equal(strlen(r->host), p->host_len);
    assert_memory_equal(r->host, p->host, p->host_len);
    assert_int_equal(r->port, p->port);
    assert_int_equal(r->key_len, p->key_len);
    assert_memory_equal(r->key, p->key, p->key_len);
    bool want_unix = p->minor >= 1 && p->with_unix;
    assert_int_equal(r->has_unix, want_unix);
    if (want_unix) {
        assert_string_equal(r->unix_host, p->unix_host);
        assert_int_equal(strlen(r->unix_path), p->unix_path_len);
        assert_memory_equal(r->unix_path, p->unix_path, p->unix_path_len);
    } else {
        assert_string_equal(r->unix_host, "");
        assert_string_equal(r->unix_path, "");
    }
}

/* Every mix of outer, profile and component byte orders. */
static void test_built_orders(void **state)
{
    (void)state;
    for (int mask = 0; mask < 8; mask++) {
        struct profile_spec p = default_spec(mask & 2);
        p.unix_little = mask & 4;
        struct ior r;
        assert_int_equal(parse_spec(mask & 1, "IDL:Test/Thing:1.0", &p, &r),
                         0);
        check_spec(&r, &p);
    }
}

/* A big-endian IOR, checked against bytes written out by hand: a parser
 * that ignored the byte-order octet would read port 0x3412. */
static void test_built_big_endian(void **state)
{
    (void)state;
    static const uint8_t profile[] = {
        0,                      /* big endian */
        1, 2, 0,                /* IIOP 1.2, pad */
        0, 0, 0, 2, 'h', 0,     /* host "h" */
        0x12, 0x34,             /* port 0x1234 */
        0, 0, 0, 3, 7, 8, 9, 0, /* key {7,8,9}, pad */
        0, 0, 0, 0,             /* no components */
    };
    struct cdr_out o;
    put_ior(&o, false, "IDL:Test/Thing:1.0", IOR_TAG_INTERNET_IOP, profile,
            sizeof profile);
    static const uint8_t head[] = {0, 0, 0, 0, 0, 0, 0, 19, 'I', 'D', 'L'};
    assert_memory_equal(o.data, head, sizeof head);
    struct ior r;
    assert_int_equal(parse_bytes(o.data, o.len, &r), 0);
    assert_string_equal(r.type_id, "IDL:Test/Thing:1.0");
    assert_int_equal(r.iiop_major, 1);
    assert_int_equal(r.iiop_minor, 2);
    assert_string_equal(r.host, "h");
    assert_int_equal(r.port, 0x1234);
    assert_int_equal(r.key_len, 3);
    assert_memory_equal(r.key, "\x07\x08\x09", 3);
    assert_false(r.has_unix);
    cdr_out_free(&o);
}

static void test_built_iiop_1_0(void **state)
{
    (void)state;
    struct profile_spec p = default_spec(false);
    p.minor = 0; /* no component list at all */
    struct ior r;
    assert_int_equal(parse_spec(false, "IDL:Test/Thing:1.0", &p, &r), 0);
    check_spec(&r, &p);
    p.minor = 1;
    p.with_unix = false;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    check_spec(&r, &p);
}

static void test_built_edges(void **state)
{
    (void)state;
    struct profile_spec p = default_spec(true);
    struct ior r;
    p.host = "";
    p.host_len = 0;
    p.key = NULL;
    p.key_len = 0;
    p.port = 65535;
    assert_int_equal(parse_spec(true, "", &p, &r), 0);
    assert_string_equal(r.type_id, "");
    assert_string_equal(r.host, "");
    assert_int_equal(r.key_len, 0);
    assert_int_equal(r.port, 65535);
}

/* Profiles other than TAG_INTERNET_IOP are skipped; the first IIOP one is
 * used and a second is not even looked at. */
static void test_several_profiles(void **state)
{
    (void)state;
    struct profile_spec p = default_spec(true);
    struct cdr_out body, o;
    static const uint8_t junk[] = {7, 7, 7};
    put_profile(&body, &p);
    cdr_out_init(&o, false);
    cdr_put_octet(&o, 0);
    cdr_put_string(&o, "IDL:Test/Thing:1.0", 18);
    cdr_put_long(&o, 3);
    cdr_put_long(&o, 1); /* TAG_MULTIPLE_COMPONENTS */
    cdr_put_octet_seq(&o, junk, sizeof junk);
    cdr_put_long(&o, IOR_TAG_INTERNET_IOP);
    cdr_put_octet_seq(&o, body.data, body.len);
    cdr_put_long(&o, IOR_TAG_INTERNET_IOP);
    cdr_put_octet_seq(&o, junk, sizeof junk);
    struct ior r;
    assert_int_equal(parse_bytes(o.data, o.len, &r), 0);
    check_spec(&r, &p);
    cdr_out_free(&o);
    cdr_out_free(&body);
}

static void test_no_iiop_profile(void **state)
{
    (void)state;
    struct profile_spec p = default_spec(true);
    struct cdr_out body, o;
    struct ior r;
    put_profile(&body, &p);
    /* A good IIOP body, but under tag 1: not an IIOP profile. */
    put_ior(&o, true, "IDL:Test/Thing:1.0", 1, body.data, body.len);
    assert_int_equal(parse_bytes(o.data, o.len, &r), -ENOENT);
    cdr_out_free(&o);
    put_ior(&o, false, "IDL:Test/Thing:1.0", IOR_TAG_OMNIORB_UNIX_TRANS,
            body.data, body.len);
    assert_int_equal(parse_bytes(o.data, o.len, &r), -ENOENT);
    cdr_out_free(&o);
    /* No profiles at all (what a nil reference looks like). */
    cdr_out_init(&o, true);
    cdr_put_octet(&o, 1);
    cdr_put_string(&o, "", 0);
    cdr_put_long(&o, 0);
    assert_int_equal(parse_bytes(o.data, o.len, &r), -ENOENT);
    cdr_out_free(&o);
    cdr_out_free(&body);
}

static void test_iiop_version(void **state)
{
    (void)state;
    struct profile_spec p = default_spec(false);
    struct ior r;
    p.major = 2;
    assert_int_equal(parse_spec(false, "IDL:Test/Thing:1.0", &p, &r),
                     -EPROTO);
    p.major = 0;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -EPROTO);
    /* Minor versions above 2 are accepted as 1.x. */
    p.major = 1;
    p.minor = 3;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    check_spec(&r, &p);
}

/* A string of `n` copies of `c`, NUL terminated. */
static char *filled(size_t n, char c)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = 0;
    return s;
}

static void test_too_long(void **state)
{
    (void)state;
    struct profile_spec p = default_spec(true);
    struct ior r;
    char *big = filled(IOR_MAX_KEY + 1, 'a');

    /* Host: up to IOR_MAX_HOST - 1 characters fit with the NUL. */
    p.host = big;
    p.host_len = IOR_MAX_HOST - 1;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    check_spec(&r, &p);
    p.host_len = IOR_MAX_HOST;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -ENAMETOOLONG);
    p.host_len = IOR_MAX_HOST + 100;
    assert_int_equal(parse_spec(false, "IDL:Test/Thing:1.0", &p, &r),
                     -ENAMETOOLONG);
    p = default_spec(false);

    /* Type id. */
    big[IOR_MAX_TYPE_ID - 1] = 0;
    assert_int_equal(parse_spec(false, big, &p, &r), 0);
    assert_int_equal(strlen(r.type_id), IOR_MAX_TYPE_ID - 1);
    big[IOR_MAX_TYPE_ID - 1] = 'a';
    big[IOR_MAX_TYPE_ID] = 0;
    assert_int_equal(parse_spec(false, big, &p, &r), -ENAMETOOLONG);
    big[IOR_MAX_TYPE_ID] = 'a';

    /* Object key: IOR_MAX_KEY bytes fit exactly. */
    p.key = (const uint8_t *)big;
    p.key_len = IOR_MAX_KEY;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    check_spec(&r, &p);
    p.key_len = IOR_MAX_KEY + 1;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -ENAMETOOLONG);
    p = default_spec(true);

    /* Unix path: sun_path holds IOR_MAX_PATH - 1 characters and a NUL
     * (an absolute path: a relative one is refused, below). */
    big[0] = '/';
    p.unix_path = big;
    p.unix_path_len = IOR_MAX_PATH - 1;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    check_spec(&r, &p);
    p.unix_path_len = IOR_MAX_PATH;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -ENAMETOOLONG);
    big[0] = 'a';
    /* Relative or empty: it would connect relative to the working folder
     * (issue 32), so refused with its own reason. */
    p.unix_path = "rel.sock";
    p.unix_path_len = 8;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -EDESTADDRREQ);
    assert_non_null(strstr(ior_strerror(-EDESTADDRREQ), "not absolute"));
    p.unix_path = "";
    p.unix_path_len = 0;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -EDESTADDRREQ);
    p = default_spec(true);

    /* Unix host. */
    big[IOR_MAX_HOST] = 0;
    p.unix_host = big;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -ENAMETOOLONG);
    big[IOR_MAX_HOST - 1] = 0;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    check_spec(&r, &p);
    free(big);
}

/* A Unix component that is cut short, or has a bad byte-order octet,
 * makes the whole IOR malformed. */
static void test_bad_unix_component(void **state)
{
    (void)state;
    /* The real component's 29 bytes, hex chars 280..338. */
    static const uint8_t comp[] = {
        0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 'v', 'm',
        0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, '/',  't',  'm', 'p',
        '/',  'p',  't',  '/',  'u',  '/',  's',  '0',  0x00,
    };
    struct profile_spec p = default_spec(true);
    struct ior r;
    p.unix_raw = comp;
    p.unix_raw_len = sizeof comp;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    assert_true(r.has_unix);
    assert_string_equal(r.unix_host, "vm");
    assert_string_equal(r.unix_path, "/tmp/pt/u/s0");
    for (size_t cut = 0; cut < sizeof comp; cut++) {
        p.unix_raw_len = cut;
        assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                         -EBADMSG);
    }
    uint8_t bad[sizeof comp];
    memcpy(bad, comp, sizeof comp);
    bad[0] = 2;
    p.unix_raw = bad;
    p.unix_raw_len = sizeof bad;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -EBADMSG);
    /* No NUL where the path's length says it ends. */
    bad[0] = 1;
    bad[sizeof bad - 1] = '!';
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -EBADMSG);
    /* A NUL inside the path: refused, not cut short to "/tmp". */
    memcpy(bad, comp, sizeof comp);
    bad[16 + 4] = 0;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -EBADMSG);
}

/* A NUL inside the host: refused, not cut short. */
static void test_nul_inside_host(void **state)
{
    (void)state;
    struct profile_spec p = default_spec(true);
    struct ior r;
    p.host = "127.0.0.1\0.evil";
    p.host_len = 15;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r),
                     -EBADMSG);
    p.host_len = 9; /* the same bytes up to the NUL: fine */
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    assert_string_equal(r.host, "127.0.0.1");
    /* NULs at the end only (padding counted in the length): fine */
    p.host = "127.0.0.1\0\0";
    p.host_len = 11;
    assert_int_equal(parse_spec(true, "IDL:Test/Thing:1.0", &p, &r), 0);
    assert_string_equal(r.host, "127.0.0.1");
}

static void test_bad_outer(void **state)
{
    (void)state;
    struct ior r;
    size_t n;
    uint8_t *b = ior_bytes(tcp_ior, &n);
    b[0] = 2; /* byte-order octet must be 0 or 1 */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[0] = 1;
    b[4] = 0; /* type id of length 0 */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[4] = 0x13;
    b[26] = '!'; /* type id not NUL terminated */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[26] = 0;
    b[28] = 2; /* two profiles, only one present */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[28] = 1;
    b[36] = 0x61; /* profile one byte longer than the IOR */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[36] = 0x60;
    b[40] = 2; /* profile byte-order octet */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[40] = 1;
    b[60] = 0x60; /* object key longer than the profile */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[60] = 0x0e;
    b[80] = 0x03; /* a third component that is not there */
    assert_int_equal(parse_bytes(b, n, &r), -EBADMSG);
    b[80] = 0x02;
    assert_int_equal(parse_bytes(b, n, &r), 0);
    check_tcp(&r);
    free(b);
}

/* An IIOP 2.0 profile whose body is not 1.x-shaped is -EPROTO, not a
 * truncation: the version is checked before anything else is read. */
static void test_iiop_major_2_short_body(void **state)
{
    (void)state;
    struct ior ior;
    assert_int_equal(
        ior_parse("IOR:01000000010000000000000001000000000000000300000000020000",
                  &ior),
        -EPROTO);
}

static void test_strerror(void **state)
{
    (void)state;
    assert_string_equal(ior_strerror(0), "ok");
    assert_string_equal(ior_strerror(-EINVAL),
                        "not \"IOR:\" followed by hex digits");
    assert_string_equal(ior_strerror(-EBADMSG), "truncated or malformed CDR");
    assert_string_equal(ior_strerror(-ENOENT), "no IIOP, UIOP or ORBit profile");
    assert_string_equal(ior_strerror(-ENAMETOOLONG), "a field is too long");
    assert_string_equal(ior_strerror(-EPROTO), "unknown IIOP version");
    assert_string_equal(ior_strerror(-ENOMEM), "out of memory");
    assert_string_equal(ior_strerror(-EIO), "invalid IOR");
    assert_string_equal(ior_strerror(12345), "invalid IOR");
}

/* ior_format, read back by the client's own parser and its wire. */
static void test_format_round_trip(void **state)
{
    (void)state;
    struct ior in, out;
    memset(&in, 0, sizeof in);
    strcpy(in.type_id, "IDL:Bench/Echo:1.0");
    strcpy(in.host, "127.0.0.1");
    in.port = 40123;
    memcpy(in.key, "orbbench\0echo", 13);
    in.key_len = 13;
    for (int with_unix = 0; with_unix < 2; with_unix++) {
        in.has_unix = with_unix;
        if (with_unix) {
            strcpy(in.unix_host, "localhost");
            strcpy(in.unix_path, "/tmp/orbbench-x/s3.sock");
        }
        char *s = NULL;
        assert_int_equal(ior_format(&in, &s), 0);
        assert_int_equal(strncmp(s, "IOR:", 4), 0);
        assert_int_equal(ior_parse(s, &out), 0);
        assert_string_equal(out.type_id, in.type_id);
        assert_int_equal(out.iiop_major, 1);
        assert_int_equal(out.iiop_minor, 2);
        assert_string_equal(out.host, "127.0.0.1");
        assert_int_equal(out.port, 40123);
        assert_int_equal(out.key_len, 13);
        assert_memory_equal(out.key, in.key, 13);
        assert_int_equal(out.has_unix, with_unix);
        if (with_unix) {
            assert_string_equal(out.unix_host, "localhost");
            assert_string_equal(out.unix_path, in.unix_path);
        }
        free(s);
    }
}

/* ---- ior_decode: the whole IOR, as `orbbench ior` shows it ---------- */

/* Decode `b` (n bytes) as the hex of an IOR; *why gets the reason. */
static int decode_bytes(const uint8_t *b, size_t n, struct ior_doc *d,
                        char *why, size_t why_len)
{
    char *s = ior_string(b, n);
    why[0] = 0;
    int rc = ior_decode(s, d, why, why_len);
    free(s);
    return rc;
}

/* Decoding fails with -EBADMSG and a reason starting with `reason`. */
static void expect_bad(const uint8_t *b, size_t n, const char *reason)
{
    struct ior_doc d;
    char why[512];
    assert_int_equal(decode_bytes(b, n, &d, why, sizeof why), -EBADMSG);
    if (strncmp(why, reason, strlen(reason)) != 0)
        fail_msg("reason \"%s\", expected it to start with \"%s\"", why,
                 reason);
    assert_null(d.profiles); /* freed on failure */
    assert_null(d.bytes);
}

static void check_omni_components(const struct ior_profile *p, size_t n)
{
    assert_int_equal(p->ncomps, n);
    const struct ior_component *c = &p->comps[0];
    assert_int_equal(c->tag, IOR_TAG_ORB_TYPE);
    assert_int_equal(c->kind, IOR_COMP_ORB_TYPE);
    assert_int_equal(c->u.orb_type, 0x41545400);
    assert_string_equal(ior_orb_vendor(c->u.orb_type), "omniORB");
    c = &p->comps[1];
    assert_int_equal(c->tag, IOR_TAG_CODE_SETS);
    assert_int_equal(c->kind, IOR_COMP_CODE_SETS);
    assert_int_equal(c->len, 28);
    assert_int_equal(c->u.code_sets.chars.native, 0x00010001);
    assert_int_equal(c->u.code_sets.chars.nconv, 1);
    assert_int_equal(c->u.code_sets.chars.conv[0], 0x05010001);
    assert_int_equal(c->u.code_sets.wchars.native, 0x00010109);
    assert_int_equal(c->u.code_sets.wchars.nconv, 1);
    assert_int_equal(c->u.code_sets.wchars.conv[0], 0x00010109);
}

static void test_decode_real(void **state)
{
    (void)state;
    struct ior_doc d;
    char why[512];
    assert_int_equal(ior_decode(tcp_ior, &d, why, sizeof why), 0);
    assert_true(d.little);
    assert_int_equal(d.type_id.len, strlen(want_type_id));
    assert_memory_equal(d.type_id.s, want_type_id, d.type_id.len);
    assert_int_equal(d.nprofiles, 1);
    const struct ior_profile *p = &d.profiles[0];
    assert_int_equal(p->tag, IOR_TAG_INTERNET_IOP);
    assert_int_equal(p->len, 96);
    assert_true(p->decoded);
    assert_true(p->little);
    assert_int_equal(p->iiop_major, 1);
    assert_int_equal(p->iiop_minor, 2);
    assert_int_equal(p->host.len, 9);
    assert_memory_equal(p->host.s, "127.0.0.1", 9);
    assert_int_equal(p->port, 45749);
    assert_int_equal(p->key_len, sizeof tcp_key);
    assert_memory_equal(p->key, tcp_key, sizeof tcp_key);
    check_omni_components(p, 2);
    ior_doc_free(&d);

    assert_int_equal(ior_decode(unix_ior, &d, why, sizeof why), 0);
    p = &d.profiles[0];
    assert_int_equal(p->port, 0);
    assert_memory_equal(p->host.s, "vm", 3); /* with its NUL */
    check_omni_components(p, 3);
    const struct ior_component *c = &p->comps[2];
    assert_int_equal(c->tag, IOR_TAG_OMNIORB_UNIX_TRANS);
    assert_int_equal(c->kind, IOR_COMP_UNIX);
    assert_int_equal(c->len, 29);
    assert_int_equal(c->u.unix_trans.host.len, 2);
    assert_memory_equal(c->u.unix_trans.path.s, "/tmp/pt/u/s0", 13);
    ior_doc_free(&d);
    ior_doc_free(&d); /* a freed doc is empty: freeing again is harmless */
}

/* One encapsulated component: tag, then `body` as sequence<octet>. */
static void put_component(struct cdr_out *o, uint32_t tag,
                          struct cdr_out *body)
{
    assert_int_equal(body->err, 0);
    cdr_put_long(o, tag);
    cdr_put_octet_seq(o, body->data, body->len);
    cdr_out_free(body);
}

static void encap_start(struct cdr_out *c, bool little)
{
    cdr_out_init(c, little);
    cdr_put_octet(c, little);
}

static const uint8_t raw_policies[] = {0, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t raw_unknown[] = {9, 9};
static const uint8_t raw_pid[] = {1, 2, 3};

/* Every component orbbench decodes, and three it lists by tag, each an
 * encapsulation in byte order `le` (the raw ones verbatim). */
static void put_all_components(struct cdr_out *o, bool le)
{
    struct cdr_out c;
    cdr_put_long(o, 13);
    encap_start(&c, le);
    cdr_put_long(&c, 0x54414f00);
    put_component(o, IOR_TAG_ORB_TYPE, &c);
    encap_start(&c, le);
    cdr_put_long(&c, 0x00010001);
    cdr_put_long(&c, 2);
    cdr_put_long(&c, 0x05010001);
    cdr_put_long(&c, 0x00010020);
    cdr_put_long(&c, 0x00010109);
    cdr_put_long(&c, 0);
    put_component(o, IOR_TAG_CODE_SETS, &c);
    encap_start(&c, le);
    cdr_put_string(&c, "127.0.0.2", 9);
    cdr_put_short(&c, 2809);
    put_component(o, IOR_TAG_ALTERNATE_IIOP_ADDRESS, &c);
    encap_start(&c, le);
    cdr_put_string(&c, "box", 3);
    cdr_put_string(&c, "/tmp/s.sock", 11);
    put_component(o, IOR_TAG_OMNIORB_UNIX_TRANS, &c);
    encap_start(&c, le); /* the standard layout: 8 bytes */
    cdr_put_short(&c, 0x66);
    cdr_put_short(&c, 0);
    cdr_put_short(&c, 12124);
    assert_int_equal(c.len, 8);
    put_component(o, IOR_TAG_SSL_SEC_TRANS, &c);
    encap_start(&c, le); /* VisiBroker's: ulong, ulong, ushort */
    cdr_put_long(&c, 6);
    cdr_put_long(&c, 2);
    cdr_put_short(&c, 443);
    put_component(o, IOR_TAG_SSL_SEC_TRANS, &c);
    encap_start(&c, le);
    cdr_put_string(&c, "giop:tcp:127.0.0.1:1234", 23);
    put_component(o, IOR_TAG_OMNIORB_BIDIR, &c);
    cdr_put_long(o, IOR_TAG_OMNIORB_PERSISTENT_ID);
    cdr_put_octet_seq(o, raw_pid, sizeof raw_pid);
    encap_start(&c, le);
    cdr_put_octet(&c, 1);
    cdr_put_short(&c, 5);
    cdr_put_long(&c, 7);
    cdr_put_long(&c, 2);
    cdr_put_long(&c, 3);
    put_component(o, IOR_TAG_OMNIORB_RESTRICTED_CONNECTION, &c);
    encap_start(&c, le);
    cdr_put_string(&c, "http://127.0.0.1/x", 18);
    put_component(o, IOR_TAG_OMNIORB_HTTP_TRANS, &c);
    cdr_put_long(o, IOR_TAG_POLICIES);
    cdr_put_octet_seq(o, raw_policies, sizeof raw_policies);
    cdr_put_long(o, IOR_TAG_CSI_SEC_MECH_LIST);
    cdr_put_octet_seq(o, raw_policies, sizeof raw_policies);
    cdr_put_long(o, 0x12345678);
    cdr_put_octet_seq(o, raw_unknown, sizeof raw_unknown);
}

static void check_str(struct ior_str s, const char *want)
{
    assert_int_equal(s.len, strlen(want));
    assert_memory_equal(s.s, want, s.len);
    assert_int_equal(s.s[s.len], 0);
}

static void check_all_components(const struct ior_profile *p)
{
    assert_int_equal(p->ncomps, 13);
    const struct ior_component *c = p->comps;
    assert_int_equal(c[0].kind, IOR_COMP_ORB_TYPE);
    assert_int_equal(c[0].u.orb_type, 0x54414f00);
    assert_int_equal(c[1].kind, IOR_COMP_CODE_SETS);
    assert_int_equal(c[1].u.code_sets.chars.native, 0x00010001);
    assert_int_equal(c[1].u.code_sets.chars.nconv, 2);
    assert_int_equal(c[1].u.code_sets.chars.conv[0], 0x05010001);
    assert_int_equal(c[1].u.code_sets.chars.conv[1], 0x00010020);
    assert_int_equal(c[1].u.code_sets.wchars.native, 0x00010109);
    assert_int_equal(c[1].u.code_sets.wchars.nconv, 0);
    assert_int_equal(c[2].kind, IOR_COMP_ADDRESS);
    check_str(c[2].u.address.host, "127.0.0.2");
    assert_int_equal(c[2].u.address.port, 2809);
    assert_int_equal(c[3].kind, IOR_COMP_UNIX);
    check_str(c[3].u.unix_trans.host, "box");
    check_str(c[3].u.unix_trans.path, "/tmp/s.sock");
    assert_int_equal(c[4].kind, IOR_COMP_SSL);
    assert_false(c[4].u.ssl.visibroker);
    assert_int_equal(c[4].u.ssl.supports, 0x66);
    assert_int_equal(c[4].u.ssl.requires, 0);
    assert_int_equal(c[4].u.ssl.port, 12124);
    assert_int_equal(c[5].kind, IOR_COMP_SSL);
    assert_true(c[5].u.ssl.visibroker);
    assert_int_equal(c[5].u.ssl.supports, 6);
    assert_int_equal(c[5].u.ssl.requires, 2);
    assert_int_equal(c[5].u.ssl.port, 443);
    assert_int_equal(c[6].kind, IOR_COMP_STRING);
    check_str(c[6].u.str, "giop:tcp:127.0.0.1:1234");
    assert_int_equal(c[7].kind, IOR_COMP_OCTETS);
    assert_int_equal(c[7].len, sizeof raw_pid);
    assert_memory_equal(c[7].data, raw_pid, sizeof raw_pid);
    assert_int_equal(c[8].kind, IOR_COMP_RESTRICTED);
    assert_int_equal(c[8].u.restricted.version, 1);
    assert_int_equal(c[8].u.restricted.flags, 5);
    assert_int_equal(c[8].u.restricted.connection_id, 7);
    assert_int_equal(c[8].u.restricted.max_connections, 2);
    assert_int_equal(c[8].u.restricted.max_threads, 3);
    assert_int_equal(c[9].kind, IOR_COMP_STRING);
    check_str(c[9].u.str, "http://127.0.0.1/x");
    /* Listed by tag and length: policies, CSIv2, an unknown tag. */
    static const uint32_t raw_tags[] = {IOR_TAG_POLICIES,
                                        IOR_TAG_CSI_SEC_MECH_LIST,
                                        0x12345678};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(c[10 + i].tag, raw_tags[i]);
        assert_int_equal(c[10 + i].kind, IOR_COMP_RAW);
    }
    assert_int_equal(c[12].len, sizeof raw_unknown);
    assert_memory_equal(c[12].data, raw_unknown, sizeof raw_unknown);
}

/* An IIOP 1.minor profile body: host "127.0.0.1", port 0x1234, key
 * some_key, and (1.1 on) every component. */
static void put_iiop_body(struct cdr_out *body, bool le, bool comp_le,
                          uint8_t minor)
{
    encap_start(body, le);
    cdr_put_octet(body, 1);
    cdr_put_octet(body, minor);
    cdr_put_string(body, "127.0.0.1", 9);
    cdr_put_short(body, 0x1234);
    cdr_put_octet_seq(body, some_key, sizeof some_key);
    if (minor >= 1)
        put_all_components(body, comp_le);
    assert_int_equal(body->err, 0);
}

static const uint8_t vis_profile[] = {1, 2, 3};

/* A whole IOR: an IIOP profile, a TAG_MULTIPLE_COMPONENTS one with every
 * component, VisiBroker's own profile, and an IIOP 2.0 profile. */
static void put_kitchen_sink(struct cdr_out *o, unsigned orders,
                             uint8_t minor)
{
    bool le = orders & 1, prof_le = orders & 2, comp_le = orders & 4;
    struct cdr_out body;
    cdr_out_init(o, le);
    cdr_put_octet(o, le);
    cdr_put_string(o, "IDL:Test/Thing:1.0", 18);
    cdr_put_long(o, 4);
    cdr_put_long(o, IOR_TAG_INTERNET_IOP);
    put_iiop_body(&body, prof_le, comp_le, minor);
    cdr_put_octet_seq(o, body.data, body.len);
    cdr_out_free(&body);
    encap_start(&body, !prof_le);
    put_all_components(&body, comp_le);
    cdr_put_long(o, IOR_TAG_MULTIPLE_COMPONENTS);
    cdr_put_octet_seq(o, body.data, body.len);
    cdr_out_free(&body);
    cdr_put_long(o, 0x56495301);
    cdr_put_octet_seq(o, vis_profile, sizeof vis_profile);
    encap_start(&body, prof_le);
    cdr_put_octet(&body, 2); /* IIOP 2.0: the rest is not 1.x-shaped */
    cdr_put_octet(&body, 0);
    cdr_put_octet(&body, 0xee);
    cdr_put_long(o, IOR_TAG_INTERNET_IOP);
    cdr_put_octet_seq(o, body.data, body.len);
    cdr_out_free(&body);
    assert_int_equal(o->err, 0);
}

static void check_kitchen_sink(const struct ior_doc *d, unsigned orders,
                               uint8_t minor)
{
    check_str(d->type_id, "IDL:Test/Thing:1.0");
    assert_int_equal(d->little, (orders & 1) != 0);
    assert_int_equal(d->nprofiles, 4);
    const struct ior_profile *p = &d->profiles[0];
    assert_true(p->decoded);
    assert_int_equal(p->little, (orders & 2) != 0);
    assert_int_equal(p->iiop_minor, minor);
    check_str(p->host, "127.0.0.1");
    assert_int_equal(p->port, 0x1234);
    assert_int_equal(p->key_len, sizeof some_key);
    assert_memory_equal(p->key, some_key, sizeof some_key);
    if (minor == 0)
        assert_int_equal(p->ncomps, 0);
    else
        check_all_components(p);
    p = &d->profiles[1];
    assert_int_equal(p->tag, IOR_TAG_MULTIPLE_COMPONENTS);
    assert_true(p->decoded);
    assert_int_equal(p->little, (orders & 2) == 0);
    check_all_components(p);
    p = &d->profiles[2];
    assert_int_equal(p->tag, 0x56495301);
    assert_false(p->decoded);
    assert_int_equal(p->len, sizeof vis_profile);
    assert_memory_equal(p->data, vis_profile, sizeof vis_profile);
    assert_int_equal(p->ncomps, 0);
    p = &d->profiles[3];
    assert_int_equal(p->tag, IOR_TAG_INTERNET_IOP);
    assert_false(p->decoded);
    assert_int_equal(p->iiop_major, 2);
    assert_int_equal(p->iiop_minor, 0);
}

/* Every mix of byte orders (IOR, profiles, components), IIOP 1.0 (no
 * components), 1.1 and 1.2; several profiles, unknown profile and
 * component tags listed, never refused. */
static void test_decode_built(void **state)
{
    (void)state;
    for (unsigned orders = 0; orders < 8; orders++) {
        for (uint8_t minor = 0; minor <= 2; minor++) {
            struct cdr_out o;
            struct ior_doc d;
            char why[512];
            put_kitchen_sink(&o, orders, minor);
            int rc = decode_bytes(o.data, o.len, &d, why, sizeof why);
            if (rc)
                fail_msg("orders %u, IIOP 1.%u: %s", orders, minor, why);
            check_kitchen_sink(&d, orders, minor);
            ior_doc_free(&d);
            cdr_out_free(&o);
        }
    }
}

/* A big-endian IOR written out by hand, byte for byte, so that the
 * builder's own byte order cannot hide a mistake. */
static void test_decode_big_endian_by_hand(void **state)
{
    (void)state;
    static const uint8_t b[] = {
        0, 0, 0, 0,                 /* big-endian, pad */
        0, 0, 0, 2, 'T', 0, 0, 0,   /* type id "T", pad */
        0, 0, 0, 1,                 /* one profile */
        0, 0, 0, 0, 0, 0, 0, 24,    /* TAG_INTERNET_IOP, 24 bytes */
        0, 1, 1, 0,                 /* big-endian, IIOP 1.1, pad */
        0, 0, 0, 2, 'h', 0,         /* host "h" */
        0x12, 0x34,                 /* port 0x1234 */
        0, 0, 0, 1, 7, 0, 0, 0,     /* key {7}, pad */
        0, 0, 0, 0,                 /* no components */
    };
    struct ior_doc d;
    char why[512];
    assert_int_equal(decode_bytes(b, sizeof b, &d, why, sizeof why), 0);
    assert_false(d.little);
    check_str(d.type_id, "T");
    assert_int_equal(d.profiles[0].port, 0x1234);
    assert_int_equal(d.profiles[0].iiop_minor, 1);
    assert_int_equal(d.profiles[0].key_len, 1);
    assert_int_equal(d.profiles[0].ncomps, 0);
    ior_doc_free(&d);
}

static void test_decode_nil(void **state)
{
    (void)state;
    struct ior_doc d;
    char why[512];
    /* "IOR:" + byte order, empty type id, no profiles. */
    assert_int_equal(ior_decode("IOR:00000000000000010000000000000000", &d,
                                why, sizeof why), 0);
    assert_int_equal(d.type_id.len, 0);
    assert_int_equal(d.nprofiles, 0);
    ior_doc_free(&d);
}

static void expect_text_bad(const char *ior, const char *reason)
{
    struct ior_doc d;
    char why[512] = "";
    assert_int_equal(ior_decode(ior, &d, why, sizeof why), -EINVAL);
    if (strcmp(why, reason) != 0)
        fail_msg("reason \"%s\", expected \"%s\"", why, reason);
}

/* Each malformed input, with its reason. */
static void test_decode_bad_text(void **state)
{
    (void)state;
    expect_text_bad("corbaloc::127.0.0.1:1/x",
                    "missing \"IOR:\" prefix (it starts "
                    "\"corbaloc::127.0....\")");
    expect_text_bad("ior:0100", "missing \"IOR:\" prefix (it starts "
                                "\"ior:0100\")");
    expect_text_bad("", "missing \"IOR:\" prefix (it starts \"\")");
    expect_text_bad("IOR:", "no hex digits after \"IOR:\"");
    expect_text_bad(" IOR: \n", "no hex digits after \"IOR:\"");
    expect_text_bad("IOR:010", "odd length: 3 hex digits after \"IOR:\", "
                               "not whole octets");
    expect_text_bad("IOR:01g0", "bad hex: 'g' at character 7 of the IOR");
    expect_text_bad("  IOR:0\x01", "bad hex: '\\x01' at character 6 of the "
                                   "IOR");
    expect_text_bad("IOR:01 0", "bad hex: ' ' at character 7 of the IOR");
}

/* A copy of the real TCP IOR's bytes with byte `at` set to `v`. */
static void expect_patched(size_t at, uint8_t v, const char *reason)
{
    size_t n;
    uint8_t *b = ior_bytes(tcp_ior, &n);
    b[at] = v;
    expect_bad(b, n, reason);
    free(b);
}

static void test_decode_bad_cdr(void **state)
{
    (void)state;
    /* The byte offsets are those listed at the top of this file. */
    expect_patched(0, 2, "bad byte-order octet 0x02 at the start of the "
                         "IOR");
    expect_patched(40, 7, "bad byte-order octet 0x07 at the start of "
                          "profile 1 (TAG_INTERNET_IOP)");
    expect_patched(4, 0xff, "length past the end: the type id has length "
                            "255 at offset 4, but the IOR has 128 bytes left");
    expect_patched(26, '!', "string without its NUL: the type id at "
                            "offset 4 of the IOR");
    expect_patched(4, 0, "string without its NUL: the type id");
    expect_patched(28, 2, "truncated encapsulation: profile 2's tag (4 "
                          "bytes at offset 136) runs past the end of the "
                          "IOR (136 bytes)");
    expect_patched(28, 14, "length past the end: the profile count is 14 "
                           "(at least 112 bytes) at offset 28, but the IOR "
                           "has 104 bytes left");
    expect_patched(36, 0x61, "length past the end: profile 1 has length 97 "
                             "at offset 36, but the IOR has 96 bytes left");
    expect_patched(60, 0x60, "length past the end: the object key has "
                             "length 96 at offset 20, but profile 1 "
                             "(TAG_INTERNET_IOP) has");
    expect_patched(80, 3, "truncated encapsulation: component 3's tag (4 "
                          "bytes at offset 96) runs past the end of profile "
                          "1 (TAG_INTERNET_IOP) (96 bytes)");
    expect_patched(80, 7, "length past the end: the component count is 7 "
                          "(at least 56 bytes) at offset 40");
    expect_patched(104, 0x20, "length past the end: component 2 has length "
                              "32");
    /* The code sets' own encapsulation: its byte order, its counts. */
    expect_patched(108, 9, "bad byte-order octet 0x09 at the start of "
                           "component 2 (TAG_CODE_SETS) of profile 1 "
                           "(TAG_INTERNET_IOP)");
    expect_patched(116, 9, "length past the end: the char conversion code "
                           "set count is 9 (at least 36 bytes)");
}

/* A profile, then a component, cut at every length with the lengths
 * around them kept consistent: truncated, never read past. */
static void test_decode_cuts(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = ior_bytes(unix_ior, &n);
    const size_t plen = 0x81;
    assert_int_equal(40 + plen, n);
    for (size_t cut = 0; cut < plen; cut++) {
        struct cdr_out o;
        put_ior(&o, true, want_type_id, IOR_TAG_INTERNET_IOP, b + 40, cut);
        if (cut == 0) {
            expect_bad(o.data, o.len, "truncated encapsulation: profile 1 "
                                      "(TAG_INTERNET_IOP) is empty");
        } else {
            struct ior_doc d;
            char why[512];
            assert_int_equal(decode_bytes(o.data, o.len, &d, why, sizeof why),
                             -EBADMSG);
            assert_true(strncmp(why, "truncated encapsulation: ", 25) == 0 ||
                        strncmp(why, "length past the end: ", 21) == 0);
        }
        cdr_out_free(&o);
    }
    /* The IOR itself cut short: every prefix. */
    for (size_t cut = 1; cut < n; cut++) {
        struct ior_doc d;
        char why[512];
        assert_int_equal(decode_bytes(b, cut, &d, why, sizeof why),
                         -EBADMSG);
        assert_true(strncmp(why, "truncated encapsulation: ", 25) == 0 ||
                    strncmp(why, "length past the end: ", 21) == 0);
    }
    free(b);
    /* A profile with no room for its IIOP version. */
    static const uint8_t one[] = {1};
    struct cdr_out o;
    put_ior(&o, true, "", IOR_TAG_INTERNET_IOP, one, sizeof one);
    expect_bad(o.data, o.len, "truncated encapsulation: the IIOP major "
                              "version (1 bytes at offset 1) runs past the "
                              "end of profile 1 (TAG_INTERNET_IOP) (1 "
                              "bytes)");
    cdr_out_free(&o);
}

/* A TAG_SSL_SEC_TRANS in neither layout is listed by tag, as catior
 * does; a TAG_CODE_SETS that does not decode makes the IOR malformed. */
static void test_decode_component_layouts(void **state)
{
    (void)state;
    static const uint8_t odd_ssl[] = {1, 0, 0};
    static const uint8_t short_codesets[] = {1, 0, 0, 0, 1, 0, 1, 0};
    struct cdr_out body, o;
    struct ior_doc d;
    char why[512];
    encap_start(&body, true);
    cdr_put_octet(&body, 1);
    cdr_put_octet(&body, 2);
    cdr_put_string(&body, "h", 1);
    cdr_put_short(&body, 1);
    cdr_put_octet_seq(&body, NULL, 0);
    cdr_put_long(&body, 1);
    cdr_put_long(&body, IOR_TAG_SSL_SEC_TRANS);
    cdr_put_octet_seq(&body, odd_ssl, sizeof odd_ssl);
    put_ior(&o, true, "", IOR_TAG_INTERNET_IOP, body.data, body.len);
    assert_int_equal(decode_bytes(o.data, o.len, &d, why, sizeof why), 0);
    assert_int_equal(d.profiles[0].ncomps, 1);
    assert_int_equal(d.profiles[0].comps[0].kind, IOR_COMP_RAW);
    ior_doc_free(&d);
    cdr_out_free(&o);
    /* The same profile with the code sets cut after the char native. */
    body.len -= 4 + 4 + sizeof odd_ssl;
    cdr_put_long(&body, IOR_TAG_CODE_SETS);
    cdr_put_octet_seq(&body, short_codesets, sizeof short_codesets);
    put_ior(&o, true, "", IOR_TAG_INTERNET_IOP, body.data, body.len);
    expect_bad(o.data, o.len, "truncated encapsulation: the char conversion "
                              "code set count (4 bytes at offset 8) runs "
                              "past the end of component 1 (TAG_CODE_SETS) "
                              "of profile 1 (TAG_INTERNET_IOP) (8 bytes)");
    cdr_out_free(&o);
    cdr_out_free(&body);
}

/* What the client connects to (ior_parse) is what the decoding shows
 * for the first IIOP profile. */
static void test_decode_agrees_with_parse(void **state)
{
    (void)state;
    const char *const iors[] = {tcp_ior, unix_ior};
    for (size_t i = 0; i < 2; i++) {
        struct ior r;
        struct ior_doc d;
        char why[512];
        assert_int_equal(ior_parse(iors[i], &r), 0);
        assert_int_equal(ior_decode(iors[i], &d, why, sizeof why), 0);
        const struct ior_profile *p = &d.profiles[0];
        assert_string_equal(r.host, p->host.s);
        assert_int_equal(r.port, p->port);
        assert_int_equal(r.key_len, p->key_len);
        assert_memory_equal(r.key, p->key, p->key_len);
        ior_doc_free(&d);
    }
}

/* omniORBpy 4.2.6 (servers/omniorbpy) over Debian's omniORB 4.2.5, with
 * -ORBendPoint giop:tcp:127.0.0.1: and giop:unix:/tmp/orbbench-
 * omniorbpy-ior/s0.sock: omniORB's C++ core writes the IOR, so it is an
 * omniORB IOR, TAG_ORB_TYPE "ATT\0" and the Unix component included;
 * orbbench ior names its ORB omniORB. */
static const char omniorbpy_ior[] =
    "IOR:"
    "010000001300000049444c3a42656e63682f4563686f3a312e30000001000000"
    "000000009c000000010102000a0000003132372e302e302e31008bc40e000000"
    "fe6fd1146b000007520000000000000003000000000000000800000001000000"
    "00545441010000001c0000000100000001000100010000000100010509010100"
    "010000000901010002545441340000000100000003000000766d000024000000"
    "2f746d702f6f726262656e63682d6f6d6e696f726270792d696f722f73302e73"
    "6f636b00";

static void test_omniorbpy_is_omniorb(void **state)
{
    (void)state;
    struct ior r;
    assert_int_equal(ior_parse(omniorbpy_ior, &r), 0);
    assert_string_equal(r.host, "127.0.0.1");
    assert_string_equal(r.unix_path, "/tmp/orbbench-omniorbpy-ior/s0.sock");
    struct ior_doc d;
    char why[256];
    assert_int_equal(ior_decode(omniorbpy_ior, &d, why, sizeof why), 0);
    assert_int_equal(d.nprofiles, 1);
    const struct ior_profile *p = &d.profiles[0];
    assert_int_equal(p->ncomps, 3);
    assert_int_equal(p->comps[0].kind, IOR_COMP_ORB_TYPE);
    assert_string_equal(ior_orb_vendor(p->comps[0].u.orb_type), "omniORB");
    assert_int_equal(p->comps[2].kind, IOR_COMP_UNIX);
    ior_doc_free(&d);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(ior_profile_name(0), "TAG_INTERNET_IOP");
    assert_string_equal(ior_profile_name(1), "TAG_MULTIPLE_COMPONENTS");
    assert_string_equal(ior_profile_name(0xbadfaeca), "TAG_ORBIT_SPECIFIC");
    /* MICO has no vendor block: its own profile numbers name it. */
    assert_string_equal(ior_profile_name(20002), "TAG_UNIX_IOP (MICO)");
    assert_null(ior_profile_name(0x56495301));
    assert_string_equal(ior_component_name(0x41545402),
                        "TAG_OMNIORB_UNIX_TRANS");
    assert_string_equal(ior_component_name(33), "TAG_CSI_SEC_MECH_LIST");
    assert_string_equal(ior_component_name(38),
                        "TAG_RMI_CUSTOM_MAX_STREAM_FORMAT");
    assert_null(ior_component_name(4));
    assert_null(ior_component_name(0x12345678));
    assert_string_equal(ior_codeset_name(0x05010001), "UTF-8");
    assert_string_equal(ior_codeset_name(0x100204e4), "windows-1252");
    assert_null(ior_codeset_name(0x12345678));
    /* Vendors by the top three octets of the ORB type. */
    assert_string_equal(ior_orb_vendor(0x41545400), "omniORB");
    assert_string_equal(ior_orb_vendor(0x4154540f), "omniORB");
    assert_string_equal(ior_orb_vendor(0x54414f00), "TAO");
    assert_string_equal(ior_orb_vendor(0x4a414300), "JacORB");
    assert_string_equal(ior_orb_vendor(0x4f425400), "ORBit");
    assert_string_equal(ior_orb_vendor(0x49545f00), "Orbix (IONA)");
    assert_string_equal(ior_orb_vendor(0x56495300), "VisiBroker (Borland)");
    assert_string_equal(ior_orb_vendor(0x53554e00), "Sun");
    assert_null(ior_orb_vendor(0x41545500));
    assert_null(ior_orb_vendor(0));
}

static void test_escape(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(ior_escape("ab\0\xff~ ", 6, buf, sizeof buf), 12);
    assert_string_equal(buf, "ab\\x00\\xff~ ");
    /* Cut to fit, still terminated; the whole length is returned. */
    assert_int_equal(ior_escape("\x01\x02", 2, buf, 6), 8);
    assert_string_equal(buf, "\\x01\\");
    assert_int_equal(ior_escape("xyz", 3, NULL, 0), 3);
}

static void test_loopback(void **state)
{
    (void)state;
    assert_true(ior_host_is_loopback("127.0.0.1"));
    assert_true(ior_host_is_loopback("127.255.0.9"));
    assert_true(ior_host_is_loopback("::1"));
    assert_false(ior_host_is_loopback("128.0.0.1"));
    assert_false(ior_host_is_loopback("localhost"));
    assert_false(ior_host_is_loopback(""));
}


/* An object reference in a GIOP reply is marshaled inline, not as an
 * encapsulation: the real IOR's bytes after their byte-order octet are
 * exactly that, aligned from the buffer's start. */
static void test_decode_inline(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = ior_bytes(tcp_ior, &n);
    struct cdr_in in;
    struct ior out;
    cdr_in_init(&in, b, n, true);
    in.pos = 1;
    assert_int_equal(ior_read(&in, &out), 0);
    check_tcp(&out);
    assert_int_equal(in.pos, n); /* the cursor ends after the IOR */
    /* Cut short anywhere: refused, never read past the end. */
    for (size_t cut = 1; cut < n; cut++) {
        cdr_in_init(&in, b, cut, true);
        in.pos = 1;
        assert_int_not_equal(ior_read(&in, &out), 0);
    }
    free(b);
}

/* The same reference marshaled big-endian after a long: the profile is
 * its own (little-endian) encapsulation, taken as it is. */
static void test_decode_inline_big_endian(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = ior_bytes(tcp_ior, &n);
    struct cdr_out o;
    struct cdr_in in;
    struct ior out;
    cdr_out_init(&o, false);
    cdr_put_long(&o, 42);
    cdr_put_string(&o, "IDL:Bench/Echo:1.0", 18);
    cdr_put_long(&o, 1);
    cdr_put_long(&o, IOR_TAG_INTERNET_IOP);
    cdr_put_octet_seq(&o, b + 40, 96); /* the profile: hex 80..272 */
    cdr_in_init(&in, o.data, o.len, false);
    assert_int_equal(cdr_get_long(&in), 42);
    assert_int_equal(ior_read(&in, &out), 0);
    check_tcp(&out);
    assert_int_equal(in.pos, o.len);
    cdr_out_free(&o);
    free(b);
}

/* connect_push_supplier(nil): an empty type id and no profile. */
static void test_nil(void **state)
{
    (void)state;
    static const uint8_t want[] = {7, 0, 0, 0, 1, 0, 0, 0,
                                   0, 0, 0, 0, 0, 0, 0, 0};
    struct cdr_out o;
    struct cdr_in in;
    struct ior out;
    cdr_out_init(&o, true);
    cdr_put_octet(&o, 7);
    ior_put_nil(&o);
    assert_int_equal(o.len, sizeof want);
    assert_memory_equal(o.data, want, sizeof want);
    cdr_in_init(&in, o.data, o.len, true);
    in.pos = 1;
    assert_int_equal(ior_read(&in, &out), -ENOENT);
    assert_string_equal(out.type_id, "");
    cdr_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_decode_inline),
        cmocka_unit_test(test_decode_inline_big_endian),
        cmocka_unit_test(test_nil),
        cmocka_unit_test(test_real_tcp),
        cmocka_unit_test(test_real_unix),
        cmocka_unit_test(test_whitespace),
        cmocka_unit_test(test_upper_case_hex),
        cmocka_unit_test(test_bad_prefix),
        cmocka_unit_test(test_odd_hex),
        cmocka_unit_test(test_non_hex),
        cmocka_unit_test(test_truncated_hex),
        cmocka_unit_test(test_truncated_profile),
        cmocka_unit_test(test_built_orders),
        cmocka_unit_test(test_built_big_endian),
        cmocka_unit_test(test_built_iiop_1_0),
        cmocka_unit_test(test_built_edges),
        cmocka_unit_test(test_several_profiles),
        cmocka_unit_test(test_no_iiop_profile),
        cmocka_unit_test(test_iiop_version),
        cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_bad_unix_component),
        cmocka_unit_test(test_nul_inside_host),
        cmocka_unit_test(test_bad_outer),
        cmocka_unit_test(test_iiop_major_2_short_body),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_decode_real),
        cmocka_unit_test(test_decode_built),
        cmocka_unit_test(test_decode_big_endian_by_hand),
        cmocka_unit_test(test_decode_nil),
        cmocka_unit_test(test_decode_bad_text),
        cmocka_unit_test(test_decode_bad_cdr),
        cmocka_unit_test(test_decode_cuts),
        cmocka_unit_test(test_decode_component_layouts),
        cmocka_unit_test(test_decode_agrees_with_parse),
        cmocka_unit_test(test_omniorbpy_is_omniorb),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_loopback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
