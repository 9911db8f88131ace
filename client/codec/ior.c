/* Stringified IOR parsing: see ior.h. Layouts from CORBA 3 part 2, 13.6
 * (IOP::IOR, IIOP::ProfileBody_1_1, CONV_FRAME::CodeSetComponentInfo,
 * the standard components) and omniORB's components (TAG_OMNIORB_*).
 *
 * The one file in client/ over 800 lines, on purpose: it is one job, the
 * IOR's layout decoded in the order the specification gives it (the
 * profile, then each component by its tag), in short functions (the
 * longest about 50 lines); split by component, the one table a reader
 * checks against the specification would be scattered over files that
 * share every helper. fuzz_ior covers it whole. */
#include "codec/ior.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/cdr.h"
#include "core/util.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Copy a borrowed CDR string into a fixed field. */
static int copy_str(char *dst, size_t cap, const char *s, size_t len)
{
    if (len >= cap)
        return -ENAMETOOLONG;
    /* A NUL inside would cut the host or path short without a word; NULs
     * at the end only (padding some encoders count in the length) are
     * harmless. */
    const char *nul = memchr(s, 0, len);
    if (nul) {
        for (const char *p = nul; p < s + len; p++)
            if (*p)
                return -EBADMSG;
        len = (size_t)(nul - s);
    }
    memcpy(dst, s, len);
    dst[len] = 0;
    return 0;
}

static int parse_unix_component(const uint8_t *p, size_t n, struct ior *out)
{
    struct cdr_in in;
    const char *s;
    size_t len;
    int rc = cdr_in_encap(&in, p, n);
    if (rc)
        return rc;
    if ((rc = cdr_get_string(&in, &s, &len)))
        return rc;
    if ((rc = copy_str(out->unix_host, sizeof out->unix_host, s, len)))
        return rc;
    if ((rc = cdr_get_string(&in, &s, &len)))
        return rc;
    if ((rc = copy_str(out->unix_path, sizeof out->unix_path, s, len)))
        return rc;
    if (out->unix_path[0] != '/')
        return -EDESTADDRREQ;
    out->has_unix = true;
    return 0;
}

static int parse_iiop_profile(const uint8_t *p, size_t n, struct ior *out)
{
    struct cdr_in in;
    const char *s;
    size_t len;
    const uint8_t *key;
    int rc = cdr_in_encap(&in, p, n);
    if (rc)
        return rc;
    out->iiop_major = cdr_get_octet(&in);
    out->iiop_minor = cdr_get_octet(&in);
    if (in.err)
        return in.err;
    /* Before reading on: another major version has another layout. */
    if (out->iiop_major != 1)
        return -EPROTO;
    if ((rc = cdr_get_string(&in, &s, &len)))
        return rc;
    if ((rc = copy_str(out->host, sizeof out->host, s, len)))
        return rc;
    out->port = cdr_get_short(&in);
    if ((rc = cdr_get_octet_seq(&in, &key, &len)))
        return rc;
    if (len > sizeof out->key)
        return -ENAMETOOLONG;
    memcpy(out->key, key, len);
    out->key_len = len;
    out->has_iiop = true;
    if (out->iiop_minor == 0)
        return in.err;
    /* IIOP 1.1+: sequence<TaggedComponent>; only the Unix one matters. */
    uint32_t count = cdr_get_long(&in);
    for (uint32_t i = 0; i < count && !in.err; i++) {
        uint32_t tag = cdr_get_long(&in);
        const uint8_t *data;
        size_t data_len;
        if ((rc = cdr_get_octet_seq(&in, &data, &data_len)))
            return rc;
        if (tag == IOR_TAG_OMNIORB_UNIX_TRANS && !out->has_unix &&
            (rc = parse_unix_component(data, data_len, out)))
            return rc;
    }
    return in.err;
}

/* What a Unix-socket profile (TAO's UIOP, ORBit2's TAG_ORBIT_SPECIFIC)
 * gives: its key when take_key (no IIOP profile came first), its path
 * unless a Unix endpoint is known already. A relative path would connect
 * relative to the working folder, an empty one to nothing: both are
 * refused (-EDESTADDRREQ), never guessed at. 0 or -errno. */
static int take_unix_profile(struct ior *out, const char *path,
                             size_t path_len, const uint8_t *key,
                             size_t key_len, bool take_key)
{
    int rc;
    if (take_key) {
        if (key_len > sizeof out->key)
            return -ENAMETOOLONG;
        memcpy(out->key, key, key_len);
        out->key_len = key_len;
    }
    if (out->has_unix)
        return 0;
    if ((rc = copy_str(out->unix_path, sizeof out->unix_path, path,
                       path_len)))
        return rc;
    if (out->unix_path[0] != '/')
        return -EDESTADDRREQ;
    out->unix_host[0] = 0;
    out->has_unix = true;
    return 0;
}

/* TAO's UIOP profile (TAO/tao/Strategies/UIOP_Profile.cpp,
 * create_profile_body): its GIOP version, the socket's path, the object
 * key, and from 1.1 on components, which are not needed here. The key is
 * taken when take_key (no IIOP profile came first), the path unless a
 * Unix endpoint is known already. 1: a major version other than 1, whose
 * layout is unknown (the profile is skipped). */
static int parse_uiop_profile(const uint8_t *p, size_t n, struct ior *out,
                              bool take_key)
{
    struct cdr_in in;
    const char *path;
    size_t path_len, key_len;
    const uint8_t *key;
    int rc = cdr_in_encap(&in, p, n);
    if (rc)
        return rc;
    uint8_t major = cdr_get_octet(&in);
    (void)cdr_get_octet(&in);
    if (in.err)
        return in.err;
    if (major != 1)
        return 1;
    if ((rc = cdr_get_string(&in, &path, &path_len)) ||
        (rc = cdr_get_octet_seq(&in, &key, &key_len)))
        return rc;
    return take_unix_profile(out, path, path_len, key, key_len, take_key);
}

/* MICO's UIOP profile (TAG_UNIX_IOP, orb/ior.cc UIOPProfile::encode):
 * its GIOP version, the host it names, the socket's path, the object key,
 * and from 1.1 on components, which are not needed here; taken as
 * parse_uiop_profile takes TAO's (MICO's decoder refuses a version above
 * 1.2; so does this one, as a major version other than 1: skipped, 1). */
static int parse_mico_uiop_profile(const uint8_t *p, size_t n,
                                   struct ior *out, bool take_key)
{
    struct cdr_in in;
    const char *host, *path;
    size_t host_len, path_len, key_len;
    const uint8_t *key;
    int rc = cdr_in_encap(&in, p, n);
    if (rc)
        return rc;
    uint8_t major = cdr_get_octet(&in);
    (void)cdr_get_octet(&in);
    if (in.err)
        return in.err;
    if (major != 1)
        return 1;
    if ((rc = cdr_get_string(&in, &host, &host_len)) ||
        (rc = cdr_get_string(&in, &path, &path_len)) ||
        (rc = cdr_get_octet_seq(&in, &key, &key_len)))
        return rc;
    bool had_unix = out->has_unix;
    rc = take_unix_profile(out, path, path_len, key, key_len, take_key);
    if (!rc && !had_unix)
        rc = copy_str(out->unix_host, sizeof out->unix_host, host, host_len);
    return rc;
}

/* ORBit2's TAG_ORBIT_SPECIFIC profile (iop-profiles.c,
 * IOP_TAG_ORBIT_SPECIFIC_marshal): two version octets, the Unix socket's
 * path, the IPv6 port, the object key; taken as parse_uiop_profile takes
 * TAO's. 1: the profile is skipped, for a major version other than 1 or
 * an empty path (an ORBit2 with IPv6 and no Unix socket: no endpoint). */
static int parse_orbit_profile(const uint8_t *p, size_t n, struct ior *out,
                               bool take_key)
{
    struct cdr_in in;
    const char *path;
    size_t path_len, key_len;
    const uint8_t *key;
    int rc = cdr_in_encap(&in, p, n);
    if (rc)
        return rc;
    uint8_t major = cdr_get_octet(&in);
    (void)cdr_get_octet(&in);
    if (in.err)
        return in.err;
    if (major != 1)
        return 1;
    if ((rc = cdr_get_string(&in, &path, &path_len)))
        return rc;
    (void)cdr_get_short(&in); /* the IPv6 port */
    if ((rc = cdr_get_octet_seq(&in, &key, &key_len)))
        return rc;
    if (path_len == 0 || path[0] == 0)
        return 1;
    return take_unix_profile(out, path, path_len, key, key_len, take_key);
}

/* The bytes a stringified IOR's hex stands for, in a new buffer *out of
 * *n bytes. Whitespace around it is allowed. 0, -EINVAL (with a reason
 * in why, when why is not NULL) or -ENOMEM. */
static int unhex(const char *str, uint8_t **out, size_t *n, char *why,
                 size_t why_len)
{
    const char *start;
    while (isspace((unsigned char)*str))
        str++;
    start = str;
    if (strncmp(str, "IOR:", 4) != 0) {
        if (why) {
            char head[80];
            ior_escape(str, strnlen(str, 16), head, sizeof head);
            snprintf(why, why_len, "missing \"IOR:\" prefix (it starts "
                     "\"%s%s\")", head, strlen(str) > 16 ? "..." : "");
        }
        return -EINVAL;
    }
    str += 4;
    size_t hex_len = strlen(str);
    while (hex_len && isspace((unsigned char)str[hex_len - 1]))
        hex_len--;
    if (hex_len == 0 || hex_len % 2) {
        if (why && hex_len)
            snprintf(why, why_len, "odd length: %zu hex digits after "
                     "\"IOR:\", not whole octets", hex_len);
        else if (why)
            snprintf(why, why_len, "no hex digits after \"IOR:\"");
        return -EINVAL;
    }
    *n = hex_len / 2;
    uint8_t *bytes = malloc(*n);
    if (!bytes)
        return -ENOMEM;
    for (size_t i = 0; i < *n; i++) {
        int hi = hexval((unsigned char)str[2 * i]);
        int lo = hexval((unsigned char)str[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            if (why) {
                size_t at = 2 * i + (hi >= 0);
                char c[8];
                ior_escape(str + at, 1, c, sizeof c);
                snprintf(why, why_len, "bad hex: '%s' at character %zu of "
                         "the IOR", c, (size_t)(str + at - start) + 1);
            }
            free(bytes);
            return -EINVAL;
        }
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = bytes;
    return 0;
}

int ior_parse(const char *str, struct ior *out)
{
    memset(out, 0, sizeof *out);
    uint8_t *bytes;
    size_t n;
    int rc = unhex(str, &bytes, &n, NULL, 0);
    if (rc)
        return rc;

    struct cdr_in in;
    rc = cdr_in_encap(&in, bytes, n);
    if (!rc)
        rc = ior_read(&in, out);
    free(bytes);
    return rc;
}

int ior_read(struct cdr_in *in, struct ior *out)
{
    const char *s;
    size_t len;
    bool iiop = false, uiop = false, orbit = false, mico = false;
    memset(out, 0, sizeof *out);
    int rc = cdr_get_string(in, &s, &len);
    if (!rc)
        rc = copy_str(out->type_id, sizeof out->type_id, s, len);
    uint32_t profiles = rc ? 0 : cdr_get_long(in);
    for (uint32_t i = 0; !rc && !in->err && i < profiles; i++) {
        uint32_t tag = cdr_get_long(in);
        const uint8_t *data;
        size_t data_len;
        rc = cdr_get_octet_seq(in, &data, &data_len);
        if (!rc && tag == IOR_TAG_INTERNET_IOP && !iiop) {
            rc = parse_iiop_profile(data, data_len, out);
            iiop = true;
        } else if (!rc && tag == IOR_TAG_TAO_UIOP && !uiop) {
            rc = parse_uiop_profile(data, data_len, out,
                                    !iiop && !orbit && !mico);
            uiop = rc == 0;
            rc = rc == 1 ? 0 : rc;
        } else if (!rc && tag == IOR_TAG_MICO_UIOP && !mico) {
            rc = parse_mico_uiop_profile(data, data_len, out,
                                         !iiop && !uiop && !orbit);
            mico = rc == 0;
            rc = rc == 1 ? 0 : rc;
        } else if (!rc && tag == IOR_TAG_ORBIT_SPECIFIC && !orbit) {
            rc = parse_orbit_profile(data, data_len, out,
                                     !iiop && !uiop && !mico);
            orbit = rc == 0;
            rc = rc == 1 ? 0 : rc;
        }
    }
    if (!rc)
        rc = in->err;
    if (!rc && !iiop && !uiop && !orbit && !mico)
        rc = -ENOENT;
    return rc;
}

void ior_put_nil(struct cdr_out *o)
{
    /* CORBA 3 part 2, 13.6.2: an empty type id and no profiles. */
    cdr_put_string(o, "", 0);
    cdr_put_long(o, 0);
}

/* `in`'s bytes as an encapsulation (a byte-order octet first) appended
 * to `out` as a sequence<octet>. */
static void put_encap(struct cdr_out *out, const struct cdr_out *in)
{
    cdr_put_octet_seq(out, in->data, in->len);
}

void ior_put(struct cdr_out *o, const struct ior *ior)
{
    struct cdr_out profile, comp;
    cdr_out_init(&profile, o->little);
    cdr_out_init(&comp, o->little);
    /* Each encapsulation aligns from its own start: the byte-order octet
     * is at its offset 0 (origin stays 0). */
    cdr_put_octet(&profile, o->little);
    cdr_put_octet(&profile, 1); /* IIOP 1.2 */
    cdr_put_octet(&profile, 2);
    cdr_put_string(&profile, ior->host, strlen(ior->host));
    cdr_put_short(&profile, ior->port);
    cdr_put_octet_seq(&profile, ior->key, ior->key_len);
    cdr_put_long(&profile, ior->has_unix ? 1 : 0); /* components */
    if (ior->has_unix) {
        cdr_put_octet(&comp, o->little);
        cdr_put_string(&comp, ior->unix_host, strlen(ior->unix_host));
        cdr_put_string(&comp, ior->unix_path, strlen(ior->unix_path));
        cdr_put_long(&profile, IOR_TAG_OMNIORB_UNIX_TRANS);
        put_encap(&profile, &comp);
    }
    cdr_put_string(o, ior->type_id, strlen(ior->type_id));
    cdr_put_long(o, 1); /* one profile */
    cdr_put_long(o, IOR_TAG_INTERNET_IOP);
    put_encap(o, &profile);
    if (!o->err)
        o->err = profile.err ? profile.err : comp.err;
    cdr_out_free(&profile);
    cdr_out_free(&comp);
}

int ior_format(const struct ior *ior, char **out)
{
    struct cdr_out o;
    cdr_out_init(&o, true);
    cdr_put_octet(&o, 1);
    ior_put(&o, ior);
    int rc = o.err;
    char *s = rc ? NULL : malloc(4 + 2 * o.len + 1);
    if (!rc && !s)
        rc = -ENOMEM;
    if (!rc) {
        static const char hex[] = "0123456789abcdef";
        memcpy(s, "IOR:", 4);
        for (size_t i = 0; i < o.len; i++) {
            s[4 + 2 * i] = hex[o.data[i] >> 4];
            s[5 + 2 * i] = hex[o.data[i] & 15];
        }
        s[4 + 2 * o.len] = 0;
        *out = s;
    }
    cdr_out_free(&o);
    return rc;
}

const char *ior_strerror(int err)
{
    switch (err) {
    case 0:
        return "ok";
    case -EINVAL:
        return "not \"IOR:\" followed by hex digits";
    case -EBADMSG:
        return "truncated or malformed CDR";
    case -ENOENT:
        return "no IIOP, UIOP or ORBit profile";
    case -ENAMETOOLONG:
        return "a field is too long";
    case -EPROTO:
        return "unknown IIOP version";
    case -EDESTADDRREQ:
        return "a Unix socket path (UIOP rendezvous point, MICO's UIOP "
               "or ORBit2's profile or omniORB's unix component) that is "
               "empty or not absolute";
    case -ENOMEM:
        return "out of memory";
    default:
        return "invalid IOR";
    }
}

bool ior_host_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6);
    return false;
}

size_t ior_escape(const void *p, size_t n, char *out, size_t cap)
{
    const uint8_t *b = p;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char one[5];
        size_t k = 1;
        if (b[i] >= ' ' && b[i] <= '~')
            one[0] = (char)b[i];
        else
            k = (size_t)snprintf(one, sizeof one, "\\x%02x", b[i]);
        for (size_t j = 0; j < k; j++, len++)
            if (len + 1 < cap)
                out[len] = one[j];
    }
    if (cap)
        out[len < cap ? len : cap - 1] = 0;
    return len;
}

/* ---- Names -------------------------------------------------------------
 * Tags from CORBA 3 (IOP module, CSIIOP, FT, MIOP) and the vendor ranges
 * the OMG assigned (omniORB "ATT", TAO "TAO", ORBit "OBT"); MICO's own
 * profile numbers (include/mico/ior.h: it has no vendor block, and its
 * IORs carry no TAG_ORB_TYPE). */

struct tag_name {
    uint32_t tag;
    const char *name;
};

static const struct tag_name profile_names[] = {
    {0, "TAG_INTERNET_IOP"},
    {1, "TAG_MULTIPLE_COMPONENTS"},
    {2, "TAG_SCCP_IOP"},
    {3, "TAG_UIPMC"},
    {4, "TAG_MOBILE_TERMINAL_IOP"},
    {20000, "TAG_LOCAL (MICO)"},
    {20002, "TAG_UNIX_IOP (MICO)"}, /* MICO's UIOP */
    {20004, "TAG_UDP_IOP (MICO)"},
    {0x4f425400, "TAG_GENERIC_IOP"},  /* ORBit2: Unix sockets, IPv6 */
    {0xbadfaeca, "TAG_ORBIT_SPECIFIC"}, /* ORBit */
    {0x54414f00, "TAO_TAG_UIOP_PROFILE"},
    {0x54414f02, "TAO_TAG_SHMEM_PROFILE"},
    {0x54414f04, "TAO_TAG_UDP_PROFILE"},
    {0x54414f0c, "TAO_TAG_UIPMC_PROFILE"},
    {0x54414f0f, "TAO_TAG_BIOP_PROFILE"},
};

static const struct tag_name component_names[] = {
    {0, "TAG_ORB_TYPE"},
    {1, "TAG_CODE_SETS"},
    {2, "TAG_POLICIES"},
    {3, "TAG_ALTERNATE_IIOP_ADDRESS"},
    {5, "TAG_COMPLETE_OBJECT_KEY"},
    {6, "TAG_ENDPOINT_ID_POSITION"},
    {12, "TAG_LOCATION_POLICY"},
    {13, "TAG_ASSOCIATION_OPTIONS"},
    {14, "TAG_SEC_NAME"},
    {15, "TAG_SPKM_1_SEC_MECH"},
    {16, "TAG_SPKM_2_SEC_MECH"},
    {17, "TAG_KERBEROSV5_SEC_MECH"},
    {18, "TAG_CSI_ECMA_SECRET_SEC_MECH"},
    {19, "TAG_CSI_ECMA_HYBRID_SEC_MECH"},
    {20, "TAG_SSL_SEC_TRANS"},
    {21, "TAG_CSI_ECMA_PUBLIC_SEC_MECH"},
    {22, "TAG_GENERIC_SEC_MECH"},
    {23, "TAG_FIREWALL_TRANS"},
    {24, "TAG_SCCP_CONTACT_INFO"},
    {25, "TAG_JAVA_CODEBASE"},
    {26, "TAG_TRANSACTION_POLICY"},
    {27, "TAG_FT_GROUP"},
    {28, "TAG_FT_PRIMARY"},
    {29, "TAG_FT_HEARTBEAT_ENABLED"},
    {30, "TAG_MESSAGE_ROUTERS"},
    {31, "TAG_OTS_POLICY"},
    {32, "TAG_INV_POLICY"},
    {33, "TAG_CSI_SEC_MECH_LIST"},
    {34, "TAG_NULL_TAG"},
    {35, "TAG_SECIOP_SEC_TRANS"},
    {36, "TAG_TLS_SEC_TRANS"},
    {37, "TAG_ACTIVITY_POLICY"},
    {38, "TAG_RMI_CUSTOM_MAX_STREAM_FORMAT"},
    {39, "TAG_GROUP"},
    {40, "TAG_GROUP_IIOP"},
    {100, "TAG_DCE_STRING_BINDING"},
    {101, "TAG_DCE_BINDING_NAME"},
    {102, "TAG_DCE_NO_PIPES"},
    {103, "TAG_DCE_SEC_MECH"},
    {123, "TAG_INET_SEC_TRANS"},
    {0x41545401, "TAG_OMNIORB_BIDIR"},
    {0x41545402, "TAG_OMNIORB_UNIX_TRANS"},
    {0x41545403, "TAG_OMNIORB_PERSISTENT_ID"},
    {0x41545404, "TAG_OMNIORB_RESTRICTED_CONNECTION"},
    {0x41545405, "TAG_OMNIORB_HTTP_TRANS"},
    {0x54414f00, "TAO_TAG_PRIORITY"}, /* TAO's, retired */
    {0x54414f02, "TAO_TAG_ENDPOINTS"},
};

/* Code sets by their OSF registry number, named as catior names them. */
static const struct tag_name codeset_names[] = {
    {0x00010001, "ISO-8859-1"},    {0x00010002, "ISO-8859-2"},
    {0x00010003, "ISO-8859-3"},    {0x00010004, "ISO-8859-4"},
    {0x00010005, "ISO-8859-5"},    {0x00010006, "ISO-8859-6"},
    {0x00010007, "ISO-8859-7"},    {0x00010008, "ISO-8859-8"},
    {0x00010009, "ISO-8859-9"},    {0x0001000a, "ISO-8859-10"},
    {0x0001000b, "ISO-8859-11"},   {0x0001000d, "ISO-8859-13"},
    {0x0001000e, "ISO-8859-14"},   {0x0001000f, "ISO-8859-15"},
    {0x00010010, "ISO-8859-16"},   {0x00010020, "ISO-646"},
    {0x00010100, "UCS-2-level-1"}, {0x00010101, "UCS-2-level-2"},
    {0x00010102, "UCS-2-level-3"}, {0x00010106, "UCS-4"},
    {0x00010109, "UTF-16"},        {0x05010001, "UTF-8"},
    {0x10020025, "IBM-037"},       {0x100201f8, "IBM-500"},
    {0x100204e2, "windows-1250"},  {0x100204e3, "windows-1251"},
    {0x100204e4, "windows-1252"},  {0x100204e5, "windows-1253"},
    {0x100204e6, "windows-1254"},  {0x100204e7, "windows-1255"},
    {0x100204e8, "windows-1256"},  {0x100204e9, "windows-1257"},
    {0x100204ea, "windows-1258"},  {0x10020567, "GBK"},
    {0x10040366, "SNI-EDF-4"},
};

/* ORB types by vendor: the OMG gives each vendor a block of values that
 * share their top three octets (mostly the vendor's letters). */
static const struct tag_name vendor_names[] = {
    {0x41545400, "omniORB"},
    {0x54414f00, "TAO"},
    {0x4a414300, "JacORB"},
    {0x4f425400, "ORBit"},
    {0x49545f00, "Orbix (IONA)"},
    {0x4f4f4300, "ORBacus (IONA)"},
    {0x56495300, "VisiBroker (Borland)"},
    {0x53554e00, "Sun"},
    {0x49424d00, "IBM"},
    {0x48500000, "HP"},
    {0x4e534400, "HP"},
    {0x42454100, "BEA"},
    {0x4f424200, "BEA"},
    {0x574c5300, "BEA"},
    {0x494c5500, "Xerox (ILU)"},
    {0x58505300, "PrismTech"},
    {0x50544300, "PrismTech"},
    {0x49534900, "AdNovum Informatik"},
    {0x4f495300, "Objective Interface Systems"},
    {0x46420000, "FloorBoard Software"},
    {0x4e4e4e00, "Rogue Wave"},
    {0x4e550000, "Nihon Unisys"},
    {0x4a424b00, "SilverStream Software"},
    {0x4c434200, "2AB"},
    {0x41505800, "Univ. of Erlangen-Nuernberg"},
    {0x47534900, "GemStone Systems"},
    {0x464a0000, "Fujitsu"},
    {0x4f425f00, "TIBCO"},
    {0x4f414b00, "Camros Corporation"},
    {0x4e454300, "NEC"},
    {0x424c5500, "Berry Software"},
    {0x56495400, "Vitria"},
    {0x444f4700, "Exoffice Technologies"},
    {0xcb0e0000, "Chicago Board of Exchange"},
    {0x58545200, "Xtradyne Technologies"},
    {0x54475800, "Top Graph'X"},
    {0x41646100, "AdaOS project"},
    {0x4e4f4b00, "Nokia"},
    {0x45524900, "Ericsson (Orber)"},
    {0x52415900, "RayORB"},
    {0x53414e00, "Sankhya Technologies"},
    {0x414e4400, "Androsoft"},
    {0x42424300, "Bionic Buffalo"},
    {0x522e4300, "Remoting.Corba"},
    {0x504f0000, "PolyORB"},
    {0x54494400, "Telefonica (TIDorb)"},
};

static const char *name_of(const struct tag_name *t, size_t n, uint32_t tag)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].tag == tag)
            return t[i].name;
    return NULL;
}

const char *ior_profile_name(uint32_t tag)
{
    return name_of(profile_names, ARRAY_LEN(profile_names), tag);
}

const char *ior_component_name(uint32_t tag)
{
    return name_of(component_names, ARRAY_LEN(component_names), tag);
}

const char *ior_codeset_name(uint32_t id)
{
    return name_of(codeset_names, ARRAY_LEN(codeset_names), id);
}

const char *ior_orb_vendor(uint32_t orb_type)
{
    return name_of(vendor_names, ARRAY_LEN(vendor_names),
                   orb_type & 0xffffff00u);
}

/* ---- Decoding ----------------------------------------------------------
 * A cursor over one encapsulation that says, when it cannot read on, what
 * it was reading, where, and why: every read checks its room first. */

struct rd {
    struct cdr_in in;
    const char *where; /* "the IOR", "profile 2 (TAG_INTERNET_IOP)" */
    char *why;
    size_t why_len;
};

static int rd_fail(struct rd *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int rd_fail(struct rd *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, r->why_len, fmt, ap);
    va_end(ap);
    return -EBADMSG;
}

/* Start r on the encapsulation of `n` bytes at `p`, named `where`. */
static int rd_open(struct rd *r, const uint8_t *p, size_t n,
                   const char *where, char *why, size_t why_len)
{
    r->where = where;
    r->why = why;
    r->why_len = why_len;
    if (n == 0)
        return rd_fail(r, "truncated encapsulation: %s is empty (no "
                       "byte-order octet)", where);
    if (p[0] > 1)
        return rd_fail(r, "bad byte-order octet 0x%02x at the start of %s "
                       "(0 big-endian, 1 little-endian)", p[0], where);
    return cdr_in_encap(&r->in, p, n);
}

/* Room for `n` bytes aligned to `n`, the field `what`? */
static int rd_need(struct rd *r, size_t n, const char *what)
{
    size_t pos = r->in.pos, pad = (n - pos % n) % n;
    if (r->in.len - pos >= pad + n)
        return 0;
    return rd_fail(r, "truncated encapsulation: %s (%zu bytes at offset "
                   "%zu) runs past the end of %s (%zu bytes)", what, n,
                   pos + pad, r->where, r->in.len);
}

static int rd_octet(struct rd *r, const char *what, uint8_t *v)
{
    int rc = rd_need(r, 1, what);
    if (!rc)
        *v = cdr_get_octet(&r->in);
    return rc;
}

static int rd_ushort(struct rd *r, const char *what, uint16_t *v)
{
    int rc = rd_need(r, 2, what);
    if (!rc)
        *v = cdr_get_short(&r->in);
    return rc;
}

static int rd_ulong(struct rd *r, const char *what, uint32_t *v)
{
    int rc = rd_need(r, 4, what);
    if (!rc)
        *v = cdr_get_long(&r->in);
    return rc;
}

/* A length (unit 1: "X's length", bytes) or a count of `what`s of at
 * least `unit` bytes each, that must fit in what is left: a length past
 * the end is refused before anything is allocated for it. */
static int rd_count(struct rd *r, const char *what, size_t unit,
                    uint32_t *count)
{
    char field[96];
    if (unit == 1)
        snprintf(field, sizeof field, "%s's length", what);
    else
        snprintf(field, sizeof field, "%s", what);
    int rc = rd_ulong(r, field, count);
    size_t left = cdr_in_left(&r->in);
    if (rc || *count <= left / unit)
        return rc;
    if (unit == 1)
        return rd_fail(r, "length past the end: %s has length %" PRIu32
                       " at offset %zu, but %s has %zu bytes left after it",
                       what, *count, r->in.pos - 4, r->where, left);
    return rd_fail(r, "length past the end: %s is %" PRIu32 " (at least "
                   "%zu bytes) at offset %zu, but %s has %zu bytes left "
                   "after it", what, *count, (size_t)*count * unit,
                   r->in.pos - 4, r->where, left);
}

/* A sequence<octet>, borrowed. */
static int rd_octets(struct rd *r, const char *what, const uint8_t **p,
                     size_t *n)
{
    uint32_t count;
    struct cdr_in at = r->in; /* rd_count reads the length: read it again */
    int rc = rd_count(r, what, 1, &count);
    if (rc)
        return rc;
    r->in = at;
    return cdr_get_octet_seq(&r->in, p, n);
}

/* A string, borrowed: its length counts a NUL that must end it. */
static int rd_string(struct rd *r, const char *what, struct ior_str *s)
{
    const uint8_t *p;
    size_t n;
    size_t at = (r->in.pos + 3) & ~(size_t)3; /* where its length is */
    int rc = rd_octets(r, what, &p, &n);
    if (rc)
        return rc;
    if (n == 0 || p[n - 1] != 0)
        return rd_fail(r, "string without its NUL: %s at offset %zu of %s "
                       "(length %zu)", what, at, r->where, n);
    s->s = (const char *)p;
    s->len = n - 1;
    return 0;
}

static int decode_orb_type(struct rd *r, struct ior_component *c)
{
    return rd_ulong(r, "the ORB type", &c->u.orb_type);
}

static int decode_code_set_half(struct rd *r, const char *what,
                                struct ior_code_sets *cs)
{
    char field[64];
    snprintf(field, sizeof field, "the %s native code set", what);
    int rc = rd_ulong(r, field, &cs->native);
    snprintf(field, sizeof field, "the %s conversion code set count", what);
    if (!rc)
        rc = rd_count(r, field, 4, &cs->nconv);
    if (rc)
        return rc;
    cs->conv = calloc(cs->nconv ? cs->nconv : 1, sizeof *cs->conv);
    if (!cs->conv)
        return -ENOMEM;
    for (uint32_t i = 0; i < cs->nconv && !rc; i++)
        rc = rd_ulong(r, "a conversion code set", &cs->conv[i]);
    return rc;
}

static int decode_code_sets(struct rd *r, struct ior_component *c)
{
    int rc = decode_code_set_half(r, "char", &c->u.code_sets.chars);
    return rc ? rc : decode_code_set_half(r, "wchar", &c->u.code_sets.wchars);
}

static int decode_address(struct rd *r, struct ior_component *c)
{
    int rc = rd_string(r, "the host", &c->u.address.host);
    return rc ? rc : rd_ushort(r, "the port", &c->u.address.port);
}

static int decode_unix(struct rd *r, struct ior_component *c)
{
    int rc = rd_string(r, "the host", &c->u.unix_trans.host);
    return rc ? rc : rd_string(r, "the socket path", &c->u.unix_trans.path);
}

static int decode_string(struct rd *r, struct ior_component *c)
{
    return rd_string(r, "the address", &c->u.str);
}

/* TAG_SSL_SEC_TRANS comes in two layouts (as catior reads it): the
 * standard one (ushort supports, requires, port: 8 bytes with the
 * byte-order octet) and VisiBroker's (ulong, ulong, ushort). One that
 * fits neither is listed by tag only, as catior does. */
static int decode_ssl(struct rd *r, struct ior_component *c)
{
    uint16_t s, q;
    if (c->len == 8) {
        if (rd_ushort(r, "supports", &s) || rd_ushort(r, "requires", &q) ||
            rd_ushort(r, "the port", &c->u.ssl.port))
            return 0;
        c->u.ssl.supports = s;
        c->u.ssl.requires = q;
    } else {
        if (rd_ulong(r, "supports", &c->u.ssl.supports) ||
            rd_ulong(r, "requires", &c->u.ssl.requires) ||
            rd_ushort(r, "the port", &c->u.ssl.port))
            return 0;
        c->u.ssl.visibroker = true;
    }
    return 1; /* decoded */
}

static int decode_restricted(struct rd *r, struct ior_component *c)
{
    int rc = rd_octet(r, "the version", &c->u.restricted.version);
    if (!rc)
        rc = rd_ushort(r, "the flags", &c->u.restricted.flags);
    if (!rc)
        rc = rd_ulong(r, "the connection id",
                      &c->u.restricted.connection_id);
    if (!rc)
        rc = rd_ulong(r, "max_connections",
                      &c->u.restricted.max_connections);
    if (!rc)
        rc = rd_ulong(r, "max_threads", &c->u.restricted.max_threads);
    return rc;
}

/* The components orbbench decodes: how, and into which kind. A decode
 * returns 0 (decoded), 1 (decoded, for decode_ssl), -EBADMSG with
 * r->why, or -ENOMEM. NULL: the data is shown as it is, no encapsulation
 * to read. */
static const struct comp_decoder {
    uint32_t tag;
    enum ior_comp_kind kind;
    int (*decode)(struct rd *r, struct ior_component *c);
} comp_decoders[] = {
    {IOR_TAG_ORB_TYPE, IOR_COMP_ORB_TYPE, decode_orb_type},
    {IOR_TAG_CODE_SETS, IOR_COMP_CODE_SETS, decode_code_sets},
    {IOR_TAG_ALTERNATE_IIOP_ADDRESS, IOR_COMP_ADDRESS, decode_address},
    {IOR_TAG_SSL_SEC_TRANS, IOR_COMP_SSL, decode_ssl},
    {IOR_TAG_OMNIORB_BIDIR, IOR_COMP_STRING, decode_string},
    {IOR_TAG_OMNIORB_UNIX_TRANS, IOR_COMP_UNIX, decode_unix},
    {IOR_TAG_OMNIORB_PERSISTENT_ID, IOR_COMP_OCTETS, NULL},
    {IOR_TAG_OMNIORB_RESTRICTED_CONNECTION, IOR_COMP_RESTRICTED,
     decode_restricted},
    {IOR_TAG_OMNIORB_HTTP_TRANS, IOR_COMP_STRING, decode_string},
};

/* "profile 2 (TAG_INTERNET_IOP)", "profile 3 (tag 0x56495301)". */
static void name_place(char *buf, size_t len, const char *what, size_t i,
                       const char *name, uint32_t tag, const char *of)
{
    if (name)
        snprintf(buf, len, "%s %zu (%s)%s", what, i + 1, name, of);
    else
        snprintf(buf, len, "%s %zu (tag 0x%08" PRIx32 ")%s", what, i + 1,
                 tag, of);
}

static int decode_component(struct ior_component *c, size_t i,
                            const char *profile, char *why, size_t why_len)
{
    const struct comp_decoder *d = NULL;
    for (size_t k = 0; k < ARRAY_LEN(comp_decoders); k++)
        if (comp_decoders[k].tag == c->tag)
            d = &comp_decoders[k];
    if (!d)
        return 0; /* listed by tag and length */
    if (!d->decode) {
        c->kind = d->kind;
        return 0;
    }
    char where[160], of[100];
    snprintf(of, sizeof of, " of %s", profile);
    name_place(where, sizeof where, "component", i,
               ior_component_name(c->tag), c->tag, of);
    struct rd r;
    int rc = rd_open(&r, c->data, c->len, where, why, why_len);
    if (rc && c->tag == IOR_TAG_SSL_SEC_TRANS)
        return 0; /* not an encapsulation either: by tag, as catior */
    if (!rc)
        rc = d->decode(&r, c);
    if (rc == 1 || (!rc && d->kind != IOR_COMP_SSL)) {
        c->kind = d->kind;
        rc = 0;
    }
    return rc;
}

/* sequence<TaggedComponent> at r's cursor into p->comps. */
static int decode_components(struct rd *r, struct ior_profile *p,
                             char *why, size_t why_len)
{
    uint32_t n;
    /* Each component is at least a tag and a length. */
    int rc = rd_count(r, "the component count", 8, &n);
    if (rc)
        return rc;
    p->comps = calloc(n ? n : 1, sizeof *p->comps);
    if (!p->comps)
        return -ENOMEM;
    for (uint32_t i = 0; i < n && !rc; i++) {
        struct ior_component *c = &p->comps[i];
        char what[64];
        snprintf(what, sizeof what, "component %" PRIu32 "'s tag", i + 1);
        rc = rd_ulong(r, what, &c->tag);
        snprintf(what, sizeof what, "component %" PRIu32, i + 1);
        if (!rc)
            rc = rd_octets(r, what, &c->data, &c->len);
        if (!rc) {
            p->ncomps++;
            rc = decode_component(c, i, r->where, why, why_len);
        }
    }
    return rc;
}

/* An IIOP profile body: version, host, port, key, and from 1.1 on its
 * components; or TAO's UIOP one, the same with the socket's path (its
 * "rendezvous point") for host and port (see parse_uiop_profile), or
 * MICO's, with a host and the path (see parse_mico_uiop_profile).
 * Another major version is listed undecoded, as the layout after the
 * version is only known for 1.x. */
static int decode_iiop(struct ior_profile *p, const char *where, char *why,
                       size_t why_len)
{
    bool mico = p->tag == IOR_TAG_MICO_UIOP;
    bool uiop = p->tag == IOR_TAG_TAO_UIOP || mico;
    struct rd r;
    int rc = rd_open(&r, p->data, p->len, where, why, why_len);
    if (!rc)
        rc = rd_octet(&r, uiop ? "the GIOP major version"
                               : "the IIOP major version", &p->iiop_major);
    if (!rc)
        rc = rd_octet(&r, uiop ? "the GIOP minor version"
                               : "the IIOP minor version", &p->iiop_minor);
    if (rc || p->iiop_major != 1)
        return rc;
    p->little = r.in.little;
    if (mico) {
        rc = rd_string(&r, "the host", &p->host);
        if (!rc)
            rc = rd_string(&r, "the socket path", &p->path);
    } else if (uiop) {
        rc = rd_string(&r, "the rendezvous point", &p->path);
    } else {
        rc = rd_string(&r, "the host", &p->host);
        if (!rc)
            rc = rd_ushort(&r, "the port", &p->port);
    }
    if (!rc)
        rc = rd_octets(&r, "the object key", &p->key, &p->key_len);
    if (!rc && p->iiop_minor >= 1)
        rc = decode_components(&r, p, why, why_len);
    p->decoded = !rc;
    return rc;
}

/* ORBit2's two profiles (see IOR_TAG_ORBIT_SPECIFIC and
 * IOR_TAG_ORBIT_GENERIC_IOP): after the version, the specific one has a
 * path, an IPv6 port and the key; the generic one a protocol, host and
 * service, then components. */
static int decode_orbit(struct ior_profile *p, const char *where,
                        char *why, size_t why_len)
{
    struct rd r;
    int rc = rd_open(&r, p->data, p->len, where, why, why_len);
    if (!rc)
        rc = rd_octet(&r, "the GIOP major version", &p->iiop_major);
    if (!rc)
        rc = rd_octet(&r, "the GIOP minor version", &p->iiop_minor);
    if (rc || p->iiop_major != 1)
        return rc;
    p->little = r.in.little;
    if (p->tag == IOR_TAG_ORBIT_SPECIFIC) {
        rc = rd_string(&r, "the Unix socket's path", &p->path);
        if (!rc)
            rc = rd_ushort(&r, "the IPv6 port", &p->ipv6_port);
        if (!rc)
            rc = rd_octets(&r, "the object key", &p->key, &p->key_len);
    } else {
        rc = rd_string(&r, "the protocol", &p->proto);
        if (!rc)
            rc = rd_string(&r, "the host", &p->host);
        if (!rc)
            rc = rd_string(&r, "the service", &p->service);
        if (!rc)
            rc = decode_components(&r, p, why, why_len);
    }
    p->decoded = !rc;
    return rc;
}

static int decode_multiple(struct ior_profile *p, const char *where,
                           char *why, size_t why_len)
{
    struct rd r;
    int rc = rd_open(&r, p->data, p->len, where, why, why_len);
    if (!rc) {
        p->little = r.in.little;
        rc = decode_components(&r, p, why, why_len);
    }
    p->decoded = !rc;
    return rc;
}

int ior_decode(const char *str, struct ior_doc *doc, char *why,
               size_t why_len)
{
    memset(doc, 0, sizeof *doc);
    int rc = unhex(str, &doc->bytes, &doc->len, why, why_len);
    if (rc == -ENOMEM)
        snprintf(why, why_len, "out of memory");
    if (rc)
        return rc;
    struct rd r;
    uint32_t n = 0;
    rc = rd_open(&r, doc->bytes, doc->len, "the IOR", why, why_len);
    if (!rc) {
        doc->little = r.in.little;
        rc = rd_string(&r, "the type id", &doc->type_id);
    }
    /* Each profile is at least a tag and a length. */
    if (!rc)
        rc = rd_count(&r, "the profile count", 8, &n);
    if (!rc && !(doc->profiles = calloc(n ? n : 1, sizeof *doc->profiles)))
        rc = -ENOMEM;
    for (uint32_t i = 0; i < n && !rc; i++) {
        struct ior_profile *p = &doc->profiles[i];
        char what[64], where[80];
        snprintf(what, sizeof what, "profile %" PRIu32 "'s tag", i + 1);
        rc = rd_ulong(&r, what, &p->tag);
        snprintf(what, sizeof what, "profile %" PRIu32, i + 1);
        if (!rc)
            rc = rd_octets(&r, what, &p->data, &p->len);
        if (rc)
            break;
        doc->nprofiles++;
        name_place(where, sizeof where, "profile", i,
                   ior_profile_name(p->tag), p->tag, "");
        if (p->tag == IOR_TAG_INTERNET_IOP || p->tag == IOR_TAG_TAO_UIOP ||
            p->tag == IOR_TAG_MICO_UIOP)
            rc = decode_iiop(p, where, why, why_len);
        else if (p->tag == IOR_TAG_MULTIPLE_COMPONENTS)
            rc = decode_multiple(p, where, why, why_len);
        else if (p->tag == IOR_TAG_ORBIT_SPECIFIC ||
                 p->tag == IOR_TAG_ORBIT_GENERIC_IOP)
            rc = decode_orbit(p, where, why, why_len);
    }
    if (rc == -ENOMEM)
        snprintf(why, why_len, "out of memory");
    if (rc)
        ior_doc_free(doc);
    return rc;
}

void ior_doc_free(struct ior_doc *doc)
{
    for (size_t i = 0; doc->profiles && i < doc->nprofiles; i++) {
        struct ior_profile *p = &doc->profiles[i];
        for (size_t k = 0; p->comps && k < p->ncomps; k++) {
            if (p->comps[k].tag != IOR_TAG_CODE_SETS)
                continue;
            free(p->comps[k].u.code_sets.chars.conv);
            free(p->comps[k].u.code_sets.wchars.conv);
        }
        free(p->comps);
    }
    free(doc->profiles);
    free(doc->bytes);
    memset(doc, 0, sizeof *doc);
}
