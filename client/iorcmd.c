/* `orbbench ior`: decode stringified IORs (ior_decode) and print them as
 * text or JSON, with the endpoint orbbench would use for each transport
 * (the same wire_giop.parse_ready a run uses on a server's ready line). */
#include "iorcmd.h"
#include "cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/ior.h"
#include "core/util.h"
#include "net/wire.h"

#define MAX_LINE_BYTES (1024 * 1024) /* one IOR on standard input */
#define SHOW_RAW_BYTES 32            /* raw components shown in full */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: orbbench ior [--json] IOR|-...\n"
            "\n"
            "Decode stringified IORs as omniORB's catior does: byte order, "
            "type id, each\n"
            "profile (IIOP version, host, port, object key, tagged "
            "components; TAO's and\n"
            "MICO's UIOP profiles with their socket path, ORBit2's "
            "profiles), and what\n"
            "orbbench would connect to over tcp and unix. `-` reads one "
            "IOR a line from\n"
            "standard input (\"IOR [PID]\" lines as in server.iors files; "
            "# starts a\n"
            "comment).\n"
            "\n"
            "options:\n"
            "  --json      one JSON array, an object per IOR\n"
            "  -h, --help  this help\n"
            "\n"
            "exit: 0 every IOR decoded, 2 usage error or a malformed IOR "
            "(one line each\n"
            "      on stderr; the others are still shown)\n"
            "\n"
            "examples:\n"
            "  orbbench ior \"$(cat server.ior)\"\n"
            "  orbbench ior --json - < iors.txt   (orbbench start-servers "
            "--out iors.txt)\n");
}

/* "tag 1" for the OMG's small numbers, "tag 0x41545402" for vendors'. */
static const char *tag_text(uint32_t tag, char *buf, size_t len)
{
    snprintf(buf, len, tag < 0x10000 ? "tag %" PRIu32 : "tag 0x%08" PRIx32,
             tag);
    return buf;
}

/* Lower-case hex of n bytes, malloc'd (NULL when out of memory). */
static char *hex_of(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; s && i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", p[i]);
    if (s)
        s[2 * n] = 0;
    return s;
}

/* Bytes as catior prints them (\xNN for all but printable ASCII), in a
 * malloc'd string. */
static char *escaped(const void *p, size_t n)
{
    size_t need = ior_escape(p, n, NULL, 0) + 1;
    char *s = malloc(need);
    if (s)
        ior_escape(p, n, s, need);
    return s;
}

static json_t *json_escaped(const void *p, size_t n)
{
    char *s = escaped(p, n);
    json_t *j = s ? json_string(s) : json_null();
    free(s);
    return j;
}

static json_t *json_hex(const uint8_t *p, size_t n)
{
    char *s = hex_of(p, n);
    json_t *j = s ? json_string(s) : json_null();
    free(s);
    return j;
}

static json_t *json_u32_hex(uint32_t v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
    return json_string(buf);
}

/* ---- What orbbench would connect to ------------------------------------ */

struct endpoint {
    bool ok;
    char text[600]; /* "127.0.0.1:45749", a path, or why not */
};

struct connect_info {
    struct endpoint tcp, unix_ep;
    struct target t;
    bool loopback;
};

/* An IPv4 or IPv6 address, not a name (the TCP transport resolves none). */
static bool numeric(const char *host)
{
    unsigned char a[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, a) == 1 ||
           inet_pton(AF_INET6, host, a) == 1;
}

static void connect_info(const char *ior, struct connect_info *ci)
{
    char why[300];
    memset(ci, 0, sizeof *ci);
    if (wire_giop.parse_ready(ior, &ci->t, why, sizeof why) != 0) {
        str_escape_inplace(why, sizeof why);
        snprintf(ci->tcp.text, sizeof ci->tcp.text, "%s", why);
        snprintf(ci->unix_ep.text, sizeof ci->unix_ep.text, "%s", why);
        return;
    }
    const struct target *t = &ci->t;
    bool v6 = strchr(t->host, ':') != NULL;
    ci->loopback = ior_host_is_loopback(t->host);
    if (!t->host[0] && t->port == 0) {
        snprintf(ci->tcp.text, sizeof ci->tcp.text, "no IIOP profile (no "
                 "TCP endpoint)");
    } else if (t->port == 0) {
        snprintf(ci->tcp.text, sizeof ci->tcp.text, "the IIOP profile's "
                 "port is 0 (no TCP endpoint: host \"%s\")", t->host);
    } else if (!ci->loopback && !numeric(t->host)) {
        char host[128];
        str_escape(host, sizeof host, t->host);
        snprintf(ci->tcp.text, sizeof ci->tcp.text, "host \"%s\" is a name; "
                 "orbbench connects to numeric addresses only (it resolves "
                 "no names)", host);
    } else {
        ci->tcp.ok = true;
        snprintf(ci->tcp.text, sizeof ci->tcp.text, "%s%s%s:%u",
                 v6 ? "[" : "", t->host, v6 ? "]" : "", t->port);
    }
    if (t->unix_path[0]) {
        ci->unix_ep.ok = true;
        /* The IOR's bytes: shown escaped, never raw to the terminal. */
        str_escape(ci->unix_ep.text, sizeof ci->unix_ep.text, t->unix_path);
    } else {
        snprintf(ci->unix_ep.text, sizeof ci->unix_ep.text, "no UIOP "
                 "profile (TAO's, MICO's) or TAG_ORBIT_SPECIFIC one with a "
                 "socket path (ORBit2's), and the first IIOP profile has no "
                 "TAG_OMNIORB_UNIX_TRANS component (omniORB's)");
    }
}

static json_t *connect_json(const struct connect_info *ci)
{
    json_t *tcp, *ux;
    if (ci->tcp.ok)
        tcp = json_pack("{s:b, s:s, s:i, s:b}", "ok", 1, "host", ci->t.host,
                        "port", (int)ci->t.port, "loopback", ci->loopback);
    else
        tcp = json_pack("{s:b, s:s}", "ok", 0, "why", ci->tcp.text);
    if (ci->unix_ep.ok)
        ux = json_pack("{s:b, s:s}", "ok", 1, "path", ci->unix_ep.text);
    else
        ux = json_pack("{s:b, s:s}", "ok", 0, "why", ci->unix_ep.text);
    return json_pack("{s:o, s:o}", "tcp", tcp, "unix", ux);
}

static void connect_print(const struct connect_info *ci)
{
    if (ci->tcp.ok && !ci->loopback)
        printf("  connect tcp:  %s (not loopback: only as server.kind "
               "external with --allow-host %s)\n", ci->tcp.text, ci->t.host);
    else
        printf("  connect tcp:  %s%s\n", ci->tcp.ok ? "" : "cannot: ",
               ci->tcp.text);
    printf("  connect unix: %s%s\n", ci->unix_ep.ok ? "" : "cannot: ",
           ci->unix_ep.text);
}

/* ---- Components ---------------------------------------------------------
 * Per kind of decoded contents: a one-line text and JSON members. */

/* A code set's name, or its number when it has none. */
static void code_set_text(uint32_t id, FILE *f)
{
    const char *name = ior_codeset_name(id);
    if (name)
        fputs(name, f);
    else
        fprintf(f, "0x%08" PRIx32, id);
}

static void code_sets_text(const char *what, const struct ior_code_sets *cs,
                           FILE *f)
{
    fprintf(f, "%s native ", what);
    code_set_text(cs->native, f);
    fprintf(f, ", conversion%s", cs->nconv ? "" : " none");
    for (uint32_t i = 0; i < cs->nconv; i++) {
        fputs(i ? ", " : " ", f);
        code_set_text(cs->conv[i], f);
    }
}

static json_t *code_set_json(uint32_t id)
{
    const char *name = ior_codeset_name(id);
    return json_pack("{s:o, s:s?}", "id", json_u32_hex(id), "name", name);
}

static json_t *code_sets_json(const struct ior_code_sets *cs)
{
    json_t *conv = json_array();
    for (uint32_t i = 0; i < cs->nconv; i++)
        json_array_append_new(conv, code_set_json(cs->conv[i]));
    return json_pack("{s:o, s:o}", "native", code_set_json(cs->native),
                     "conversion", conv);
}

static const char *const restricted_flags[] = {"data_batch",
                                               "permit_interleaved",
                                               "hold_open"};

static void component_text(const struct ior_component *c, FILE *f)
{
    char *s = NULL;
    switch (c->kind) {
    case IOR_COMP_ORB_TYPE: {
        const char *v = ior_orb_vendor(c->u.orb_type);
        uint8_t be[4] = {(uint8_t)(c->u.orb_type >> 24),
                         (uint8_t)(c->u.orb_type >> 16),
                         (uint8_t)(c->u.orb_type >> 8),
                         (uint8_t)c->u.orb_type};
        s = escaped(be, 4);
        fprintf(f, ": %s (0x%08" PRIx32 " \"%s\")", v ? v : "unknown vendor",
                c->u.orb_type, s ? s : "");
        break;
    }
    case IOR_COMP_CODE_SETS:
        fprintf(f, ": ");
        code_sets_text("char", &c->u.code_sets.chars, f);
        fprintf(f, "; ");
        code_sets_text("wchar", &c->u.code_sets.wchars, f);
        break;
    case IOR_COMP_ADDRESS:
        s = escaped(c->u.address.host.s, c->u.address.host.len);
        fprintf(f, ": host %s, port %u", s ? s : "", c->u.address.port);
        break;
    case IOR_COMP_UNIX:
        s = escaped(c->u.unix_trans.host.s, c->u.unix_trans.host.len);
        fprintf(f, ": host %s, ", s ? s : "");
        free(s);
        s = escaped(c->u.unix_trans.path.s, c->u.unix_trans.path.len);
        fprintf(f, "path %s", s ? s : "");
        break;
    case IOR_COMP_STRING:
        s = escaped(c->u.str.s, c->u.str.len);
        fprintf(f, ": \"%s\"", s ? s : "");
        break;
    case IOR_COMP_SSL:
        fprintf(f, ": port %u, supports 0x%" PRIx32 ", requires 0x%" PRIx32
                "%s", c->u.ssl.port, c->u.ssl.supports, c->u.ssl.requires,
                c->u.ssl.visibroker ? " (VisiBroker's layout)" : "");
        break;
    case IOR_COMP_RESTRICTED:
        fprintf(f, ": version %u, flags 0x%04x (",
                c->u.restricted.version, c->u.restricted.flags);
        if (!(c->u.restricted.flags & 7))
            fprintf(f, "none");
        for (unsigned b = 0, n = 0; b < ARRAY_LEN(restricted_flags); b++)
            if (c->u.restricted.flags & (1u << b))
                fprintf(f, "%s%s", n++ ? " " : "", restricted_flags[b]);
        fprintf(f, "), connection id %" PRIu32 ", max connections %" PRIu32
                ", max threads %" PRIu32, c->u.restricted.connection_id,
                c->u.restricted.max_connections,
                c->u.restricted.max_threads);
        break;
    case IOR_COMP_OCTETS:
    case IOR_COMP_RAW:
        if (c->len && (c->kind == IOR_COMP_OCTETS ||
                       c->len <= SHOW_RAW_BYTES)) {
            s = hex_of(c->data, c->len);
            fprintf(f, ": 0x%s", s ? s : "");
        }
        break;
    }
    free(s);
}

static void component_json(const struct ior_component *c, json_t *o)
{
    const char *v;
    switch (c->kind) {
    case IOR_COMP_ORB_TYPE:
        v = ior_orb_vendor(c->u.orb_type);
        json_object_set_new(o, "orb_type", json_u32_hex(c->u.orb_type));
        json_object_set_new(o, "vendor", v ? json_string(v) : json_null());
        break;
    case IOR_COMP_CODE_SETS:
        json_object_set_new(o, "char", code_sets_json(&c->u.code_sets.chars));
        json_object_set_new(o, "wchar",
                            code_sets_json(&c->u.code_sets.wchars));
        break;
    case IOR_COMP_ADDRESS:
        json_object_set_new(o, "host", json_escaped(c->u.address.host.s,
                                                    c->u.address.host.len));
        json_object_set_new(o, "port", json_integer(c->u.address.port));
        break;
    case IOR_COMP_UNIX:
        json_object_set_new(o, "host",
                            json_escaped(c->u.unix_trans.host.s,
                                         c->u.unix_trans.host.len));
        json_object_set_new(o, "path",
                            json_escaped(c->u.unix_trans.path.s,
                                         c->u.unix_trans.path.len));
        break;
    case IOR_COMP_STRING:
        json_object_set_new(o, "address",
                            json_escaped(c->u.str.s, c->u.str.len));
        break;
    case IOR_COMP_SSL:
        json_object_set_new(o, "port", json_integer(c->u.ssl.port));
        json_object_set_new(o, "supports", json_integer(c->u.ssl.supports));
        json_object_set_new(o, "requires", json_integer(c->u.ssl.requires));
        json_object_set_new(o, "layout", json_string(c->u.ssl.visibroker
                                                         ? "visibroker"
                                                         : "standard"));
        break;
    case IOR_COMP_RESTRICTED:
        json_object_update_new(
            o, json_pack("{s:i, s:i, s:I, s:I, s:I}", "version",
                         c->u.restricted.version, "flags",
                         c->u.restricted.flags, "connection_id",
                         (json_int_t)c->u.restricted.connection_id,
                         "max_connections",
                         (json_int_t)c->u.restricted.max_connections,
                         "max_threads",
                         (json_int_t)c->u.restricted.max_threads));
        break;
    case IOR_COMP_OCTETS:
    case IOR_COMP_RAW:
        json_object_set_new(o, "data_hex", json_hex(c->data, c->len));
        break;
    }
}

/* ---- One IOR ------------------------------------------------------------ */

static const char *order_name(bool little)
{
    return little ? "little-endian" : "big-endian";
}

/* "  profile 2: NAME (tag T, L bytes", "unknown profile" for a tag
 * without a name; the caller closes the parenthesis. */
static void print_tagged(const char *indent, const char *kind, size_t i,
                         const char *name, uint32_t tag, size_t len)
{
    char tb[32];
    printf("%s%s %zu: %s%s (%s, %zu bytes", indent, kind, i + 1,
           name ? "" : "unknown ", name ? name : kind,
           tag_text(tag, tb, sizeof tb), len);
}

static void print_components(const struct ior_profile *p)
{
    for (size_t k = 0; k < p->ncomps; k++) {
        const struct ior_component *c = &p->comps[k];
        print_tagged("    ", "component", k, ior_component_name(c->tag),
                     c->tag, c->len);
        putchar(')');
        component_text(c, stdout);
        putchar('\n');
    }
}

/* The rest of a profile line of ORBit2's (the line is open) and, for
 * its own profile, the object key line. */
static void print_orbit(const struct ior_profile *p)
{
    printf(": GIOP %u.%u", p->iiop_major, p->iiop_minor);
    if (!p->decoded) {
        printf(" (only 1.x is decoded)\n");
        return;
    }
    char *a, *b, *c;
    if (p->tag == IOR_TAG_ORBIT_GENERIC_IOP) {
        a = escaped(p->proto.s, p->proto.len);
        b = escaped(p->host.s, p->host.len);
        c = escaped(p->service.s, p->service.len);
        printf(", protocol %s, host %s, service %s\n", a ? a : "",
               b ? b : "", c ? c : "");
        free(a);
        free(b);
        free(c);
        return;
    }
    a = escaped(p->path.s, p->path.len);
    printf(", Unix socket %s, IPv6 port %u\n", p->path.len ? a : "(none)",
           p->ipv6_port);
    free(a);
    a = hex_of(p->key, p->key_len);
    b = escaped(p->key, p->key_len);
    printf("    object key: 0x%s (%zu bytes) \"%s\"\n", a ? a : "",
           p->key_len, b ? b : "");
    free(a);
    free(b);
}

static void print_doc(const struct ior_doc *d, const char *src,
                      const struct connect_info *ci)
{
    char *s = escaped(d->type_id.s, d->type_id.len);
    printf("IOR (%s)\n  byte order: %s\n  type id: \"%s\"\n", src,
           order_name(d->little), s ? s : "");
    free(s);
    if (d->nprofiles == 0 && d->type_id.len == 0)
        printf("  nil object reference\n");
    for (size_t i = 0; i < d->nprofiles; i++) {
        const struct ior_profile *p = &d->profiles[i];
        print_tagged("  ", "profile", i, ior_profile_name(p->tag), p->tag,
                     p->len);
        if (p->decoded)
            printf(", %s", order_name(p->little));
        printf(")");
        bool mico = p->tag == IOR_TAG_MICO_UIOP;
        bool uiop = p->tag == IOR_TAG_TAO_UIOP || mico;
        if (p->tag == IOR_TAG_INTERNET_IOP || uiop) {
            printf(": %s %u.%u", uiop ? "UIOP" : "IIOP", p->iiop_major,
                   p->iiop_minor);
            if (!p->decoded)
                printf(" (only %s 1.x is decoded)", uiop ? "UIOP" : "IIOP");
        }
        if ((p->tag == IOR_TAG_INTERNET_IOP || uiop) && p->decoded) {
            if (mico) {
                char *h = escaped(p->host.s, p->host.len);
                s = escaped(p->path.s, p->path.len);
                printf(", host %s, path %s\n", h ? h : "", s ? s : "");
                free(h);
            } else if (uiop) {
                s = escaped(p->path.s, p->path.len);
                printf(", rendezvous point %s\n", s ? s : "");
            } else {
                s = escaped(p->host.s, p->host.len);
                printf(", host %s, port %u\n", s ? s : "", p->port);
            }
            free(s);
            s = hex_of(p->key, p->key_len);
            char *text = escaped(p->key, p->key_len);
            printf("    object key: 0x%s (%zu bytes) \"%s\"\n", s ? s : "",
                   p->key_len, text ? text : "");
            free(text);
            free(s);
        } else if (p->tag == IOR_TAG_ORBIT_SPECIFIC ||
                   p->tag == IOR_TAG_ORBIT_GENERIC_IOP) {
            print_orbit(p);
        } else {
            putchar('\n');
        }
        print_components(p);
    }
    connect_print(ci);
}

static json_t *components_json(const struct ior_profile *p)
{
    json_t *a = json_array();
    for (size_t k = 0; k < p->ncomps; k++) {
        const struct ior_component *c = &p->comps[k];
        json_t *o = json_pack("{s:I, s:s?, s:I}", "tag", (json_int_t)c->tag,
                              "name", ior_component_name(c->tag), "length",
                              (json_int_t)c->len);
        component_json(c, o);
        json_array_append_new(a, o);
    }
    return a;
}

/* ORBit2's profiles' fields into o: "giop_version", and "path",
 * "ipv6_port" and the key (its own profile) or "protocol", "host" and
 * "service" (the generic one). */
static void orbit_json(const struct ior_profile *p, json_t *o)
{
    char v[16];
    snprintf(v, sizeof v, "%u.%u", p->iiop_major, p->iiop_minor);
    json_object_set_new(o, "giop_version", json_string(v));
    if (!p->decoded)
        return;
    if (p->tag == IOR_TAG_ORBIT_GENERIC_IOP) {
        json_object_set_new(o, "protocol", json_escaped(p->proto.s,
                                                        p->proto.len));
        json_object_set_new(o, "host", json_escaped(p->host.s, p->host.len));
        json_object_set_new(o, "service", json_escaped(p->service.s,
                                                       p->service.len));
        return;
    }
    json_object_set_new(o, "path", json_escaped(p->path.s, p->path.len));
    json_object_set_new(o, "ipv6_port", json_integer(p->ipv6_port));
    json_object_set_new(o, "object_key_hex", json_hex(p->key, p->key_len));
    json_object_set_new(o, "object_key_text",
                        json_escaped(p->key, p->key_len));
}

static json_t *doc_json(const struct ior_doc *d, const char *src,
                        const struct connect_info *ci)
{
    json_t *profiles = json_array();
    for (size_t i = 0; i < d->nprofiles; i++) {
        const struct ior_profile *p = &d->profiles[i];
        json_t *o = json_pack("{s:I, s:s?, s:I, s:b}", "tag",
                              (json_int_t)p->tag, "name",
                              ior_profile_name(p->tag), "length",
                              (json_int_t)p->len, "decoded", p->decoded);
        if (p->decoded)
            json_object_set_new(o, "byte_order",
                                json_string(p->little ? "little" : "big"));
        bool mico = p->tag == IOR_TAG_MICO_UIOP;
        bool uiop = p->tag == IOR_TAG_TAO_UIOP || mico;
        if (p->tag == IOR_TAG_INTERNET_IOP || uiop) {
            char v[16];
            snprintf(v, sizeof v, "%u.%u", p->iiop_major, p->iiop_minor);
            json_object_set_new(o, uiop ? "uiop_version" : "iiop_version",
                                json_string(v));
        }
        if (uiop && p->decoded)
            json_object_set_new(o, "path", json_escaped(p->path.s,
                                                        p->path.len));
        if (p->tag == IOR_TAG_INTERNET_IOP && p->decoded) {
            json_object_set_new(o, "host", json_escaped(p->host.s,
                                                        p->host.len));
            json_object_set_new(o, "port", json_integer(p->port));
        }
        if (mico && p->decoded)
            json_object_set_new(o, "host", json_escaped(p->host.s,
                                                        p->host.len));
        if ((p->tag == IOR_TAG_INTERNET_IOP || uiop) && p->decoded) {
            json_object_set_new(o, "object_key_hex",
                                json_hex(p->key, p->key_len));
            json_object_set_new(o, "object_key_text",
                                json_escaped(p->key, p->key_len));
        }
        if (p->tag == IOR_TAG_ORBIT_SPECIFIC ||
            p->tag == IOR_TAG_ORBIT_GENERIC_IOP)
            orbit_json(p, o);
        if (p->decoded)
            json_object_set_new(o, "components", components_json(p));
        else
            json_object_set_new(o, "data_hex", json_hex(p->data, p->len));
        json_array_append_new(profiles, o);
    }
    return json_pack("{s:s, s:s, s:o, s:b, s:o, s:o}", "input", src,
                     "byte_order", d->little ? "little" : "big", "type_id",
                     json_escaped(d->type_id.s, d->type_id.len), "nil",
                     d->nprofiles == 0 && d->type_id.len == 0, "profiles",
                     profiles, "connect", connect_json(ci));
}

/* What `orbbench ior` has shown so far. */
struct tally {
    json_t *all; /* --json: the array being built, else NULL */
    unsigned shown;
    unsigned bad;
};

/* Decode and show one IOR; `src` says where it came from. */
static void one(struct tally *t, const char *ior, const char *src)
{
    struct ior_doc d;
    char why[512];
    int rc = ior_decode(ior, &d, why, sizeof why);
    if (rc) {
        fprintf(stderr, "orbbench: ior: %s: %s\n", src, why);
        t->bad++;
        if (t->all)
            json_array_append_new(t->all, json_pack("{s:s, s:s}", "input",
                                                      src, "error", why));
        return;
    }
    struct connect_info ci;
    connect_info(ior, &ci);
    if (t->all) {
        json_array_append_new(t->all, doc_json(&d, src, &ci));
    } else {
        if (t->shown)
            putchar('\n');
        print_doc(&d, src, &ci);
    }
    t->shown++;
    ior_doc_free(&d);
}

/* Standard input, one IOR a line ("IOR [PID]", # comments, blanks). At
 * most MAX_LINE_BYTES a line are ever held: a longer line is one message
 * and the end (exit 2), never read whole into memory. A read error or an
 * allocation that fails is an error (exit 1), not the end of the input.
 * Returns 0, EXIT_USAGE or EXIT_RUN_FAILED. */
static int from_stdin(struct tally *t)
{
    /* The line, its newline and fgets's NUL. */
    char *line = malloc(MAX_LINE_BYTES + 2);
    unsigned no = 0;
    char src[64];
    if (!line) {
        fprintf(stderr, "orbbench: ior: standard input: out of memory for "
                "a line of %d bytes\n", MAX_LINE_BYTES);
        return EXIT_RUN_FAILED;
    }
    for (;;) {
        size_t n = 0;
        int ch;
        while ((ch = getc(stdin)) != EOF && ch != '\n' &&
               n <= MAX_LINE_BYTES)
            line[n++] = (char)ch;
        if (ch == EOF && n == 0)
            break;
        line[n] = 0;
        snprintf(src, sizeof src, "standard input, line %u", ++no);
        if (n > MAX_LINE_BYTES) {
            fprintf(stderr, "orbbench: ior: %s: longer than %d bytes (not "
                    "read further)\n", src, MAX_LINE_BYTES);
            free(line);
            return EXIT_USAGE;
        }
        if (memchr(line, 0, n)) {
            fprintf(stderr, "orbbench: ior: %s: holds a NUL byte\n", src);
            t->bad++;
            continue;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *save, *word = strtok_r(line, " \t\r\n", &save);
        if (!word)
            continue;
        char *pid = strtok_r(NULL, " \t\r\n", &save);
        int64_t v;
        if (pid && (parse_i64(pid, &v) != 0 || v <= 0 ||
                    strtok_r(NULL, " \t\r\n", &save))) {
            fprintf(stderr, "orbbench: ior: %s: expected \"IOR [PID]\"\n",
                    src);
            t->bad++;
            continue;
        }
        one(t, word, src);
    }
    int e = errno;
    free(line);
    if (ferror(stdin)) {
        fprintf(stderr, "orbbench: ior: standard input: %s\n", strerror(e));
        return EXIT_RUN_FAILED;
    }
    return 0;
}

int iorcmd_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    int c;
    optind = 1;
    opterr = 0; /* our own one-line message, naming the option */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: cli_bad_option("ior", opts, c, optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "orbbench: ior: no IOR given (an IOR, or - for "
                        "standard input)\n");
        return EXIT_USAGE;
    }
    struct tally t = {json ? json_array() : NULL, 0, 0};
    char src[64];
    for (int i = optind; i < argc; i++) {
        if (strcmp(argv[i], "-") == 0) {
            int rc = from_stdin(&t);
            if (rc) {
                json_decref(t.all);
                return rc;
            }
            continue;
        }
        snprintf(src, sizeof src, "argument %d", i - optind + 1);
        one(&t, argv[i], src);
    }
    if (t.all) {
        json_dumpf(t.all, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(t.all);
    }
    return t.bad ? EXIT_USAGE : EXIT_OK;
}
