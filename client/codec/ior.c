/* Stringified IOR parsing: see ior.h. Layouts from CORBA 3 part 2, 13.6
 * (IOP::IOR, IIOP::ProfileBody_1_1) and omniORB's TAG_OMNIORB_UNIX_TRANS. */
#include "ior.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cdr.h"

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
        if (tag == IOR_TAG_OMNIORB_UNIX_TRANS &&
            (rc = parse_unix_component(data, data_len, out)))
            return rc;
    }
    return in.err;
}

int ior_parse(const char *str, struct ior *out)
{
    memset(out, 0, sizeof *out);
    while (isspace((unsigned char)*str))
        str++;
    if (strncmp(str, "IOR:", 4) != 0)
        return -EINVAL;
    str += 4;
    size_t hex_len = strlen(str);
    while (hex_len && isspace((unsigned char)str[hex_len - 1]))
        hex_len--;
    if (hex_len == 0 || hex_len % 2)
        return -EINVAL;
    size_t n = hex_len / 2;
    uint8_t *bytes = malloc(n);
    if (!bytes)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval((unsigned char)str[2 * i]);
        int lo = hexval((unsigned char)str[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(bytes);
            return -EINVAL;
        }
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }

    struct cdr_in in;
    int rc = cdr_in_encap(&in, bytes, n);
    if (!rc)
        rc = ior_decode(&in, out);
    free(bytes);
    return rc;
}

int ior_decode(struct cdr_in *in, struct ior *out)
{
    const char *s;
    size_t len;
    bool found = false;
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
        if (!rc && tag == IOR_TAG_INTERNET_IOP && !found) {
            rc = parse_iiop_profile(data, data_len, out);
            found = true;
        }
    }
    if (!rc)
        rc = in->err;
    if (!rc && !found)
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

int ior_format(const struct ior *ior, char **out)
{
    struct cdr_out o, profile, comp;
    cdr_out_init(&o, true);
    cdr_out_init(&profile, true);
    cdr_out_init(&comp, true);
    /* Each encapsulation aligns from its own start: the byte-order octet
     * is at its offset 0 (origin stays 0). */
    cdr_put_octet(&profile, 1);
    cdr_put_octet(&profile, 1); /* IIOP 1.2 */
    cdr_put_octet(&profile, 2);
    cdr_put_string(&profile, ior->host, strlen(ior->host));
    cdr_put_short(&profile, ior->port);
    cdr_put_octet_seq(&profile, ior->key, ior->key_len);
    cdr_put_long(&profile, ior->has_unix ? 1 : 0); /* components */
    if (ior->has_unix) {
        cdr_put_octet(&comp, 1);
        cdr_put_string(&comp, ior->unix_host, strlen(ior->unix_host));
        cdr_put_string(&comp, ior->unix_path, strlen(ior->unix_path));
        cdr_put_long(&profile, IOR_TAG_OMNIORB_UNIX_TRANS);
        put_encap(&profile, &comp);
    }
    cdr_put_octet(&o, 1);
    cdr_put_string(&o, ior->type_id, strlen(ior->type_id));
    cdr_put_long(&o, 1); /* one profile */
    cdr_put_long(&o, IOR_TAG_INTERNET_IOP);
    put_encap(&o, &profile);
    int rc = o.err ? o.err : profile.err ? profile.err : comp.err;
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
    cdr_out_free(&profile);
    cdr_out_free(&comp);
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
        return "no IIOP profile";
    case -ENAMETOOLONG:
        return "a field is too long";
    case -EPROTO:
        return "unknown IIOP version";
    case -ENOMEM:
        return "out of memory";
    default:
        return "invalid IOR";
    }
}
