/* libFuzzer target: IOR parsing as a server's ready line reaches it
 * (wire_giop's parse_ready, which calls ior_parse), and the whole decoding
 * `orbbench ior` shows (ior_decode). Each input is tried as the line's
 * text, and as raw CDR behind "IOR:" in hex, so mutations reach the CDR
 * decoders without having to keep the hex well formed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "codec/ior.h"
#include "net/transport.h"
#include "net/wire.h"

/* A field the parser filled must end inside its buffer. */
static void check_terminated(const char *s, size_t cap)
{
    FUZZ_CHECK(memchr(s, 0, cap) != NULL);
}

/* `n` bytes at `p` lie inside the decoded IOR's bytes. */
static void check_inside(const struct ior_doc *d, const void *p, size_t n)
{
    const uint8_t *b = p;
    FUZZ_CHECK(n == 0 || (b >= d->bytes && n <= d->len &&
                          b - d->bytes <= (ptrdiff_t)(d->len - n)));
}

/* A decoded string lies inside the bytes and ends with its NUL there. */
static void check_str(const struct ior_doc *d, struct ior_str s)
{
    check_inside(d, s.s, s.len + 1);
    FUZZ_CHECK(s.s[s.len] == 0);
}

static void check_component(const struct ior_doc *d,
                            const struct ior_component *c)
{
    char buf[64];
    check_inside(d, c->data, c->len);
    FUZZ_CHECK(ior_escape(c->data, c->len, buf, sizeof buf) >= c->len);
    check_terminated(buf, sizeof buf);
    switch (c->kind) {
    case IOR_COMP_CODE_SETS:
        /* Each conversion code set took 4 bytes of the component. */
        FUZZ_CHECK(c->u.code_sets.chars.nconv <= c->len / 4);
        FUZZ_CHECK(c->u.code_sets.wchars.nconv <= c->len / 4);
        break;
    case IOR_COMP_ADDRESS:
        check_str(d, c->u.address.host);
        break;
    case IOR_COMP_UNIX:
        check_str(d, c->u.unix_trans.host);
        check_str(d, c->u.unix_trans.path);
        break;
    case IOR_COMP_STRING:
        check_str(d, c->u.str);
        break;
    default:
        break;
    }
}

/* ior_decode: a reason when it fails; when it succeeds, everything
 * borrowed lies inside the IOR's bytes, and the first IIOP profile is
 * what ior_parse gave the client (`rc`, `ior`). */
static void decode(const char *line, int rc, const struct ior *ior)
{
    struct ior_doc d;
    char why[256];
    why[0] = 0;
    int drc = ior_decode(line, &d, why, sizeof why);
    FUZZ_CHECK(drc <= 0);
    check_terminated(why, sizeof why);
    if (drc) {
        FUZZ_CHECK(why[0] != 0);
        FUZZ_CHECK(d.bytes == NULL && d.profiles == NULL);
        return;
    }
    check_str(&d, d.type_id);
    const struct ior_profile *iiop = NULL, *uiop = NULL;
    for (size_t i = 0; i < d.nprofiles; i++) {
        const struct ior_profile *p = &d.profiles[i];
        check_inside(&d, p->data, p->len);
        if (!iiop && p->tag == IOR_TAG_INTERNET_IOP)
            iiop = p;
        /* The first Unix profile a run would take its key from: TAO's
         * or MICO's UIOP or ORBit2's own. */
        if (!uiop && p->decoded && (p->tag == IOR_TAG_TAO_UIOP ||
                                    p->tag == IOR_TAG_MICO_UIOP ||
                                    (p->tag == IOR_TAG_ORBIT_SPECIFIC &&
                                     p->path.len && p->path.s[0])))
            uiop = p;
        FUZZ_CHECK(p->decoded || p->ncomps == 0);
        if (p->decoded && p->tag == IOR_TAG_INTERNET_IOP) {
            check_str(&d, p->host);
            check_inside(&d, p->key, p->key_len);
        }
        if (p->decoded && (p->tag == IOR_TAG_TAO_UIOP ||
                           p->tag == IOR_TAG_MICO_UIOP ||
                           p->tag == IOR_TAG_ORBIT_SPECIFIC)) {
            check_str(&d, p->path);
            check_inside(&d, p->key, p->key_len);
        }
        if (p->decoded && p->tag == IOR_TAG_MICO_UIOP)
            check_str(&d, p->host);
        if (p->decoded && p->tag == IOR_TAG_ORBIT_GENERIC_IOP) {
            check_str(&d, p->proto);
            check_str(&d, p->host);
            check_str(&d, p->service);
        }
        for (size_t k = 0; k < p->ncomps; k++)
            check_component(&d, &p->comps[k]);
        /* The OMG's profile tags, 0 to 4, all have names. */
        FUZZ_CHECK(ior_profile_name(p->tag) != NULL || p->tag > 4);
    }
    if (rc == 0 && !ior->has_iiop) {
        /* Only a Unix profile (TAO's or MICO's UIOP, ORBit2's with a
         * path): the client took its key. */
        FUZZ_CHECK(!iiop && uiop && ior->has_unix);
        FUZZ_CHECK(ior->key_len == uiop->key_len &&
                   memcmp(ior->key, uiop->key, ior->key_len) == 0);
    } else if (rc == 0) {
        /* The client found this profile too, so it is decoded. */
        FUZZ_CHECK(iiop && iiop->decoded);
        size_t hl = strlen(ior->host);
        FUZZ_CHECK(hl <= iiop->host.len &&
                   memcmp(ior->host, iiop->host.s, hl) == 0);
        FUZZ_CHECK(ior->port == iiop->port);
        FUZZ_CHECK(ior->key_len == iiop->key_len &&
                   memcmp(ior->key, iiop->key, ior->key_len) == 0);
    }
    ior_doc_free(&d);
}

static void parse(const char *line)
{
    struct ior ior;
    int rc = ior_parse(line, &ior);
    FUZZ_CHECK(rc <= 0);
    if (rc == 0) {
        check_terminated(ior.type_id, sizeof ior.type_id);
        check_terminated(ior.host, sizeof ior.host);
        check_terminated(ior.unix_host, sizeof ior.unix_host);
        check_terminated(ior.unix_path, sizeof ior.unix_path);
        FUZZ_CHECK(ior.key_len <= sizeof ior.key);
        FUZZ_CHECK(ior.iiop_major == 1 || !ior.has_iiop);
        FUZZ_CHECK(ior.has_iiop || ior.has_unix);
    }
    FUZZ_CHECK(ior_strerror(rc) != NULL);
    decode(line, rc, &ior);

    struct target t;
    char why[256];
    why[0] = 0;
    int wrc = wire_giop.parse_ready(line, &t, why, sizeof why);
    check_terminated(why, sizeof why);
    if (wrc == 0) {
        /* parse_ready agrees with ior_parse and keeps what fits. */
        FUZZ_CHECK(rc == 0);
        FUZZ_CHECK(t.key_len == ior.key_len);
        FUZZ_CHECK(memcmp(t.key, ior.key, t.key_len) == 0);
        FUZZ_CHECK(t.port == ior.port);
        check_terminated(t.host, sizeof t.host);
        check_terminated(t.unix_path, sizeof t.unix_path);
    } else {
        FUZZ_CHECK(wrc < 0 && why[0] != 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The line as text: a NUL-terminated copy of exactly its bytes. */
    char *line = malloc(size + 1);
    FUZZ_CHECK(line != NULL);
    memcpy(line, data, size);
    line[size] = 0;
    parse(line);
    free(line);

    /* The bytes as the IOR's CDR: "IOR:" and their hex. */
    static const char hex[] = "0123456789abcdef";
    char *ior = malloc(4 + 2 * size + 1);
    FUZZ_CHECK(ior != NULL);
    memcpy(ior, "IOR:", 4);
    for (size_t i = 0; i < size; i++) {
        ior[4 + 2 * i] = hex[data[i] >> 4];
        ior[4 + 2 * i + 1] = hex[data[i] & 15];
    }
    ior[4 + 2 * size] = 0;
    parse(ior);
    free(ior);
    return 0;
}
