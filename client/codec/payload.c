/* Typed payloads as a table of type descriptions: see payload.h. The
 * types are those of idl/payloads.idl; TypeCode layouts from CORBA 3.0
 * part 2, section 15.3.5 (15.3.5.1, table 15-2). */
#include "codec/payload.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum pnode_kind {
    PN_OCTET,
    PN_LONG,
    PN_ULONG,
    PN_LONGLONG,
    PN_ULONGLONG,
    PN_DOUBLE,
    PN_STRING,
    PN_STRUCT,
    PN_SEQUENCE,
    PN_ALIAS, /* an IDL typedef: a TypeCode of its own, the same value */
};

struct pmember;

/* One node of a type description. */
struct pnode {
    enum pnode_kind kind;
    const char *name;              /* struct, alias: the name in Bench */
    const struct pmember *members; /* struct */
    size_t nmembers;
    const struct pnode *elem; /* sequence: the element; alias: the type */
    uint32_t len;             /* sequence: elements sent; string: chars */
    /* sequence: when > 0 the length varies with the index i of the
     * element of the enclosing sequence that holds it: len + (5 i mod
     * vary). Never with the seed: a payload's size is fixed. */
    uint32_t vary;
};

struct pmember {
    const char *name;
    const struct pnode *type;
};

struct payload_type {
    const char *name;
    const char *operation;
    const struct pnode *type; /* NULL: no value (None) */
};

#define N_ELEMS(a) (sizeof(a) / sizeof *(a))
#define STRUCT(n, m) \
    {.kind = PN_STRUCT, .name = (n), .members = (m), .nmembers = N_ELEMS(m)}
#define SEQUENCE(e, n, v) \
    {.kind = PN_SEQUENCE, .elem = (e), .len = (n), .vary = (v)}
#define ALIAS(n, t) {.kind = PN_ALIAS, .name = (n), .elem = (t)}

static const struct pnode t_octet = {.kind = PN_OCTET};
static const struct pnode t_long = {.kind = PN_LONG};
static const struct pnode t_ulong = {.kind = PN_ULONG};
static const struct pnode t_ulonglong = {.kind = PN_ULONGLONG};
static const struct pnode t_double = {.kind = PN_DOUBLE};
static const struct pnode t_string16 = {.kind = PN_STRING, .len = 16};

/* typedef sequence<octet> Octet1K, Octet100K */
static const struct pnode t_octets1k = SEQUENCE(&t_octet, 1024, 0);
static const struct pnode t_octet1k = ALIAS("Octet1K", &t_octets1k);
static const struct pnode t_octets100k = SEQUENCE(&t_octet, 102400, 0);
static const struct pnode t_octet100k = ALIAS("Octet100K", &t_octets100k);

/* struct Odometry {TimeIDL time; PositionIDL position; VelocityIDL velocity;
 * unsigned long cycle;}: 44 bytes, 4 of them padding before rotation. */
static const struct pmember m_timestamp[] = {{"sec", &t_long},
                                             {"usec", &t_long}};
static const struct pnode t_timestamp = STRUCT("TimeIDL", m_timestamp);
static const struct pmember m_point[] = {{"x", &t_long}, {"y", &t_long}};
static const struct pnode t_point = STRUCT("PointIDL", m_point);
static const struct pmember m_position[] = {{"point", &t_point},
                                            {"heading", &t_double}};
static const struct pnode t_position = STRUCT("PositionIDL", m_position);
static const struct pmember m_velocity[] = {{"translation", &t_long},
                                            {"rotation", &t_double}};
static const struct pnode t_velocity = STRUCT("VelocityIDL", m_velocity);
static const struct pmember m_odometry[] = {{"time", &t_timestamp},
                                            {"position", &t_position},
                                            {"velocity", &t_velocity},
                                            {"cycle", &t_ulong}};
static const struct pnode t_odometry = STRUCT("Odometry", m_odometry);

/* struct RangeSensor {TimeIDL time; unsigned long scan; LongSeq range;}
 * with 361 ranges: 1,460 bytes. */
static const struct pnode t_ranges = SEQUENCE(&t_long, 361, 0);
static const struct pnode t_range_seq = ALIAS("LongSeq", &t_ranges);
static const struct pmember m_range[] = {{"time", &t_timestamp},
                                         {"scan", &t_ulong},
                                         {"range", &t_range_seq}};
static const struct pnode t_range_sensor = STRUCT("RangeSensor", m_range);

/* typedef sequence<BeliefObject> SharedBelief, 17 objects of 6..22 cells:
 * 1,260 bytes. */
static const struct pnode t_cells = SEQUENCE(&t_long, 6, 17);
static const struct pnode t_cell_seq = ALIAS("LongSeq", &t_cells);
static const struct pmember m_belief[] = {{"id", &t_ulong},
                                          {"confidence", &t_double},
                                          {"cells", &t_cell_seq}};
static const struct pnode t_belief_object = STRUCT("BeliefObject", m_belief);
static const struct pnode t_beliefs = SEQUENCE(&t_belief_object, 17, 0);
static const struct pnode t_shared_belief = ALIAS("SharedBelief",
                                                  &t_beliefs);

static const struct payload_type table[] = {
    {"string", "echoString", &t_string16},
    {"None", "echoNone", NULL},
    {"Octet1K", "echoOctet1K", &t_octet1k},
    {"Octet100K", "echoOctet100K", &t_octet100k},
    {"Odometry", "echoOdometry", &t_odometry},
    {"RangeSensor", "echoRangeSensor", &t_range_sensor},
    {"SharedBelief", "echoSharedBelief", &t_shared_belief},
};

const struct payload_type *payload_lookup(const char *name)
{
    for (size_t i = 0; i < N_ELEMS(table); i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

size_t payload_count(void)
{
    return N_ELEMS(table);
}

const struct payload_type *payload_at(size_t i)
{
    return i < N_ELEMS(table) ? &table[i] : NULL;
}

void payload_names(char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = 0;
    for (size_t i = 0; i < N_ELEMS(table) && at < len; i++) {
        int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
                         table[i].name);
        at += n > 0 ? (size_t)n : 0;
    }
}

const char *payload_name(const struct payload_type *t)
{
    return t->name;
}

const char *payload_operation(const struct payload_type *t)
{
    return t->operation;
}

bool payload_has_value(const struct payload_type *t)
{
    return t->type != NULL;
}

/* ---- values --------------------------------------------------------- */

/* The values for a seed: leaf k (in encoding order) is derived from
 * x0 + k * STEP (mod 2^64). One add per field keeps the value's cost
 * small beside its marshaling; the top bits of such a sequence still
 * change from field to field, so a field swapped or shifted is seen. */
#define GEN_STEP 0xd1b54a32d192ed03ull

static uint64_t gen_start(uint32_t seed)
{
    return ((uint64_t)seed + 1) * 0x9e3779b97f4a7c15ull;
}

static uint8_t octet_of(uint64_t x) { return (uint8_t)(x >> 56); }
static uint32_t long_of(uint64_t x) { return (uint32_t)(x >> 32); }
/* Exact in a double: a 32-bit integer over 8. */
static double double_of(uint64_t x)
{
    return (double)(int32_t)(x >> 32) / 8.0;
}
/* String character j of the string whose leaf value is x. */
static char char_of(uint64_t x, uint32_t j)
{
    return (char)('a' + (long_of(x) + j) % 26);
}

/* A sequence's length when it is held by element `index` of the
 * enclosing sequence (0 when none encloses it). */
static uint32_t seq_len(const struct pnode *n, uint32_t index)
{
    return n->vary ? n->len + (5 * index) % n->vary : n->len;
}

/* Octet j of a sequence<octet> whose walk starts at leaf value x: a
 * progression of odd step from x's top byte (bytes next to each other
 * differ, the seed moves it). It repeats every 256 octets, so a sequence
 * is filled at memory speed (a value per octet from the 64-bit walk cost
 * 0.3 ns each: 30 µs for 100 KB, 30 times omniORB's marshaling). The
 * sequence takes `count` leaves of the walk, as octet by octet. */
#define OCTET_STEP 0x9du
static uint8_t seq_octet(uint64_t x, uint32_t j)
{
    return (uint8_t)(octet_of(x) + j * OCTET_STEP);
}

/* The leaf values put in blocks: a put per element would cost more than
 * the values themselves. */
static void encode_octets(uint32_t count, uint64_t *x, struct cdr_out *o)
{
    uint8_t block[4096]; /* whole periods of 256 */
    uint32_t fill = count < sizeof block ? (count + 255) & ~255u
                                         : (uint32_t)sizeof block;
    for (uint32_t j = 0; j < 256 && j < fill; j++)
        block[j] = seq_octet(*x, j);
    for (uint32_t j = 256; j < fill; j += 256)
        memcpy(block + j, block, 256);
    for (uint32_t done = 0; done < count;) {
        uint32_t k = count - done < fill ? count - done : fill;
        cdr_put_bytes(o, block, k);
        done += k;
    }
    *x += (uint64_t)count * GEN_STEP;
}

static void encode_longs(uint32_t count, uint64_t *x, struct cdr_out *o)
{
    uint32_t block[256];
    bool swap = o->little != cdr_host_little();
    for (uint32_t done = 0; done < count;) {
        uint32_t k = count - done < N_ELEMS(block) ? count - done
                                                   : (uint32_t)N_ELEMS(block);
        for (uint32_t j = 0; j < k; j++, *x += GEN_STEP) {
            uint32_t v = long_of(*x);
            block[j] = swap ? __builtin_bswap32(v) : v;
        }
        cdr_put_bytes(o, block, 4 * (size_t)k); /* 4-aligned: the count */
        done += k;
    }
}

static void encode_node(const struct pnode *n, uint64_t *x, uint32_t index,
                        struct cdr_out *o)
{
    switch (n->kind) {
    case PN_OCTET:
        cdr_put_octet(o, octet_of(*x));
        break;
    case PN_LONG:
    case PN_ULONG:
        cdr_put_long(o, long_of(*x));
        break;
    case PN_LONGLONG:
    case PN_ULONGLONG:
        cdr_put_longlong(o, *x);
        break;
    case PN_DOUBLE: {
        double d = double_of(*x);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        cdr_put_longlong(o, bits);
        break;
    }
    case PN_STRING: {
        char s[256];
        uint32_t len = n->len < sizeof s ? n->len : sizeof s - 1;
        for (uint32_t j = 0; j < len; j++)
            s[j] = char_of(*x, j);
        cdr_put_string(o, s, len);
        break;
    }
    case PN_STRUCT:
        for (size_t i = 0; i < n->nmembers; i++)
            encode_node(n->members[i].type, x, index, o);
        return; /* not a leaf */
    case PN_SEQUENCE: {
        uint32_t count = seq_len(n, index);
        cdr_put_long(o, count);
        if (n->elem->kind == PN_OCTET)
            return encode_octets(count, x, o);
        if (n->elem->kind == PN_LONG || n->elem->kind == PN_ULONG)
            return encode_longs(count, x, o);
        for (uint32_t i = 0; i < count; i++)
            encode_node(n->elem, x, i, o);
        return;
    }
    case PN_ALIAS:
        encode_node(n->elem, x, index, o);
        return;
    }
    *x += GEN_STEP; /* the next leaf */
}

int payload_encode(const struct payload_type *t, uint32_t seed,
                   struct cdr_out *out)
{
    uint64_t x = gen_start(seed);
    if (t->type)
        encode_node(t->type, &x, 0, out);
    return out->err;
}

/* ---- checking ------------------------------------------------------- */

/* Where the walk is: a chain of frames on the C stack, turned into a
 * path ("SharedBelief[3].cells[7]") only when a field differs. */
struct frame {
    const struct frame *up;
    const char *member; /* NULL: an element, at index */
    uint32_t index;
};

struct check {
    struct cdr_in *in;
    uint64_t x;
    const char *root;
    char *why;
    size_t why_len;
};

static void path_of(const struct frame *f, const char *root, char *buf,
                    size_t len)
{
    const struct frame *chain[32];
    size_t n = 0;
    for (; f && n < N_ELEMS(chain); f = f->up)
        chain[n++] = f;
    size_t at = (size_t)snprintf(buf, len, "%s", root);
    while (n-- > 0 && at < len) {
        int k = chain[n]->member
                    ? snprintf(buf + at, len - at, ".%s", chain[n]->member)
                    : snprintf(buf + at, len - at, "[%" PRIu32 "]",
                               chain[n]->index);
        at += k > 0 ? (size_t)k : 0;
    }
}

/* Report field f: "PATH: what". Returns -EBADMSG. */
static int differs(struct check *c, const struct frame *f, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));

static int differs(struct check *c, const struct frame *f, const char *fmt,
                   ...)
{
    char path[160], what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    path_of(f, c->root, path, sizeof path);
    snprintf(c->why, c->why_len, "%s: %s", path, what);
    return -EBADMSG;
}

static int truncated(struct check *c, const struct frame *f)
{
    return differs(c, f, "truncated");
}

static int check_node(struct check *c, const struct pnode *n,
                      uint32_t index, const struct frame *f);

static int check_leaf(struct check *c, const struct pnode *n,
                      const struct frame *f)
{
    struct cdr_in *in = c->in;
    uint64_t x = c->x;
    c->x += GEN_STEP;
    switch (n->kind) {
    case PN_OCTET: {
        uint8_t got = cdr_get_octet(in), want = octet_of(x);
        if (in->err)
            return truncated(c, f);
        return got == want ? 0
                           : differs(c, f, "got %u, want %u", got, want);
    }
    case PN_LONG: {
        int32_t got = (int32_t)cdr_get_long(in), want = (int32_t)long_of(x);
        if (in->err)
            return truncated(c, f);
        return got == want ? 0
                           : differs(c, f, "got %" PRId32 ", want %" PRId32,
                                     got, want);
    }
    case PN_ULONG: {
        uint32_t got = cdr_get_long(in), want = long_of(x);
        if (in->err)
            return truncated(c, f);
        return got == want ? 0
                           : differs(c, f, "got %" PRIu32 ", want %" PRIu32,
                                     got, want);
    }
    case PN_LONGLONG:
    case PN_ULONGLONG: {
        uint64_t got = cdr_get_longlong(in);
        if (in->err)
            return truncated(c, f);
        if (got == x)
            return 0;
        return n->kind == PN_LONGLONG
                   ? differs(c, f, "got %" PRId64 ", want %" PRId64,
                             (int64_t)got, (int64_t)x)
                   : differs(c, f, "got %" PRIu64 ", want %" PRIu64, got, x);
    }
    case PN_DOUBLE: {
        uint64_t bits = cdr_get_longlong(in), want_bits;
        double got, want = double_of(x);
        if (in->err)
            return truncated(c, f);
        memcpy(&got, &bits, sizeof got);
        memcpy(&want_bits, &want, sizeof want_bits);
        return bits == want_bits ? 0
                                 : differs(c, f, "got %.17g, want %.17g",
                                           got, want);
    }
    case PN_STRING: {
        const char *s;
        size_t len;
        if (cdr_get_string(in, &s, &len))
            return truncated(c, f);
        size_t j = 0;
        while (j < len && j < n->len && s[j] == char_of(x, j))
            j++;
        if (len != n->len)
            return differs(c, f, "length %zu, want %" PRIu32, len, n->len);
        return j == len ? 0
                        : differs(c, f, "character %zu is '%c', want '%c'",
                                  j, s[j], char_of(x, (uint32_t)j));
    }
    default:
        return check_node(c, n, 0, f);
    }
}

/* sequence<octet> of `want` octets, compared in one pass. */
static int check_octets(struct check *c, uint32_t want,
                        const struct frame *f)
{
    const uint8_t *p;
    size_t got;
    uint32_t len = cdr_get_long(c->in);
    if (c->in->err)
        return truncated(c, f);
    if (len != want)
        return differs(c, f, "length %" PRIu32 ", want %" PRIu32, len,
                       want);
    c->in->pos -= 4; /* read it again with the octets */
    if (cdr_get_octet_seq(c->in, &p, &got))
        return truncated(c, f);
    for (uint32_t i = 0; i < want; i++)
        if (p[i] != seq_octet(c->x, i)) {
            struct frame e = {f, NULL, i};
            return differs(c, &e, "got %u, want %u", p[i],
                           seq_octet(c->x, i));
        }
    c->x += (uint64_t)want * GEN_STEP;
    return 0;
}

static int check_node(struct check *c, const struct pnode *n,
                      uint32_t index, const struct frame *f)
{
    switch (n->kind) {
    case PN_STRUCT:
        for (size_t i = 0; i < n->nmembers; i++) {
            struct frame m = {f, n->members[i].name, 0};
            int rc = check_node(c, n->members[i].type, index, &m);
            if (rc)
                return rc;
        }
        return 0;
    case PN_SEQUENCE: {
        uint32_t want = seq_len(n, index), got;
        if (n->elem->kind == PN_OCTET)
            return check_octets(c, want, f);
        got = cdr_get_long(c->in);
        if (c->in->err)
            return truncated(c, f);
        if (got != want)
            return differs(c, f, "length %" PRIu32 ", want %" PRIu32, got,
                           want);
        for (uint32_t i = 0; i < want; i++) {
            struct frame e = {f, NULL, i};
            int rc = check_node(c, n->elem, i, &e);
            if (rc)
                return rc;
        }
        return 0;
    }
    case PN_ALIAS:
        return check_node(c, n->elem, index, f);
    default:
        return check_leaf(c, n, f);
    }
}

int payload_check(const struct payload_type *t, uint32_t seed,
                  struct cdr_in *in, char *why, size_t why_len)
{
    struct check c = {in, gen_start(seed), t->name, why, why_len};
    if (why_len)
        why[0] = 0;
    return t->type ? check_node(&c, t->type, 0, NULL) : 0;
}

/* ---- TypeCodes ------------------------------------------------------ */

/* TCKind values (CORBA 3.0 part 2, 15.3.5.1). */
enum {
    TK_VOID = 1,
    TK_LONG = 3,
    TK_ULONG = 5,
    TK_DOUBLE = 7,
    TK_OCTET = 10,
    TK_STRUCT = 15,
    TK_STRING = 18,
    TK_SEQUENCE = 19,
    TK_ALIAS = 21,
    TK_LONGLONG = 23,
    TK_ULONGLONG = 24,
};

/* A complex TypeCode's parameters are an encapsulation: a ulong length,
 * then a byte-order octet and the parameters, aligned relative to that
 * octet. Returns where the length goes; encap_end patches it. */
static size_t encap_begin(struct cdr_out *o, size_t *saved_origin)
{
    cdr_put_long(o, 0);
    size_t at = o->len;
    *saved_origin = o->origin;
    o->origin = at;
    cdr_put_octet(o, o->little ? 1 : 0);
    return at;
}

static void encap_end(struct cdr_out *o, size_t at, size_t saved_origin)
{
    cdr_patch_long(o, at - 4, (uint32_t)(o->len - at));
    o->origin = saved_origin;
}

static void put_cstring(struct cdr_out *o, const char *s)
{
    cdr_put_string(o, s, strlen(s));
}

/* "IDL:Bench/NAME:1.0" and NAME: the ids of payloads.idl's types. */
static void put_names(struct cdr_out *o, const char *name)
{
    char id[128];
    snprintf(id, sizeof id, "IDL:Bench/%s:1.0", name);
    put_cstring(o, id);
    put_cstring(o, name);
}

static void typecode_node(const struct pnode *n, struct cdr_out *o)
{
    static const uint32_t simple[] = {
        [PN_OCTET] = TK_OCTET,         [PN_LONG] = TK_LONG,
        [PN_ULONG] = TK_ULONG,         [PN_LONGLONG] = TK_LONGLONG,
        [PN_ULONGLONG] = TK_ULONGLONG, [PN_DOUBLE] = TK_DOUBLE,
    };
    size_t at, origin;
    switch (n->kind) {
    case PN_STRING:
        cdr_put_long(o, TK_STRING);
        cdr_put_long(o, 0); /* unbounded: a simple parameter list */
        return;
    case PN_STRUCT:
        cdr_put_long(o, TK_STRUCT);
        at = encap_begin(o, &origin);
        put_names(o, n->name);
        cdr_put_long(o, (uint32_t)n->nmembers);
        for (size_t i = 0; i < n->nmembers; i++) {
            put_cstring(o, n->members[i].name);
            typecode_node(n->members[i].type, o);
        }
        encap_end(o, at, origin);
        return;
    case PN_SEQUENCE:
        cdr_put_long(o, TK_SEQUENCE);
        at = encap_begin(o, &origin);
        typecode_node(n->elem, o);
        cdr_put_long(o, 0); /* unbounded */
        encap_end(o, at, origin);
        return;
    case PN_ALIAS:
        cdr_put_long(o, TK_ALIAS);
        at = encap_begin(o, &origin);
        put_names(o, n->name);
        typecode_node(n->elem, o);
        encap_end(o, at, origin);
        return;
    default:
        cdr_put_long(o, simple[n->kind]);
        return;
    }
}

int payload_encode_typecode(const struct payload_type *t,
                            struct cdr_out *out)
{
    if (t->type)
        typecode_node(t->type, out);
    else
        cdr_put_long(out, TK_VOID);
    return out->err;
}

int payload_encode_event_any(const struct payload_type *t, uint32_t seed,
                             uint64_t sent_ns, struct cdr_out *out)
{
    if (t->type && t->type->kind == PN_STRING)
        return -ENOTSUP;
    /* struct <Name>Event {unsigned long long sent_ns; <Name> payload;} */
    char name[64];
    snprintf(name, sizeof name, "%sEvent", t->name);
    const struct pmember members[] = {{"sent_ns", &t_ulonglong},
                                      {"payload", t->type}};
    const struct pnode event = {.kind = PN_STRUCT, .name = name,
                                .members = members,
                                .nmembers = t->type ? 2 : 1};
    typecode_node(&event, out);
    cdr_put_longlong(out, sent_ns);
    return payload_encode(t, seed, out);
}
