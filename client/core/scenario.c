/* Scenario loading and strict validation: see scenario.h. Every key is one
 * row of `keys` (fio-style option table); one walker checks them all. */
#include "core/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/suggest.h"
#include "core/util.h"

static const char *const transports[] = {"tcp", "unix", "pipe", NULL};
static const char *const modes[] = {"sync", "thread-per-call", "pool",
                                    "event", NULL};
static const char *const kinds[] = {"omniorb", "tao", "orbit2",
                                    "omniorbpy", "mico", "raw",
                                    "giop-min", "combat", "external",
                                    NULL};

#define OFF(f) SCENARIO_OFF(f)
#define SZ(f) SCENARIO_SZ(f)

static const struct scenario_key keys[] = {
    {.key = "name", .type = SCENARIO_STRING, .off = OFF(name),
     .size = SZ(name), .min = 1, .def_str = "",
     .help = "short name, used in file names (default: the file's base name)"},
    {.key = "description", .type = SCENARIO_STRING, .off = OFF(description),
     .size = SZ(description), .def_str = "",
     .help = "one sentence on what the scenario measures"},
    {.key = "kind", .type = SCENARIO_ENUM, .off = OFF(kind), .size = SZ(kind),
     .def_str = "sweep",
     .help = "what is measured (docs/kinds/KIND.md); each kind's own keys "
     "are listed after the common ones"},
    {.key = "transport", .type = SCENARIO_ENUM, .off = OFF(transport),
     .size = SZ(transport), .choices = transports, .def_str = "tcp",
     .help = "how the client reaches the servers (loopback only; pipe: a "
     "pipe pair per server, raw servers only)"},
    {.key = "server.kind", .type = SCENARIO_ENUM, .off = OFF(server.kind),
     .size = SZ(server.kind), .choices = kinds, .def_str = "omniorb",
     .help = "which echo server to fork: omniorb, tao, orbit2, omniorbpy "
     "(omniORB's Python mapping) and mico (builds of scripts/build-orb, "
     "named by server.orb), combat (the Tcl ORB; tcp "
     "only), or the ORB-less raw (length-prefixed echo) and giop-min (GIOP "
     "1.2, no ORB); external: start none, call those listed in server.iors"},
    {.key = "server.iors", .type = SCENARIO_STRING, .off = OFF(server.iors),
     .size = SZ(server.iors), .def_str = "",
     .help = "server.kind external: a file of stringified IORs, one a line "
     "(optionally followed by the server's PID), \"-\" for standard input"},
    {.key = "server.orb", .type = SCENARIO_STRING, .off = OFF(server.orb),
     .size = SZ(server.orb), .min = 1, .def_str = "omniorb-system",
     .help = "ORB installation: omniorb-system (Debian's), or an id built by "
     "scripts/build-orb (bin/orbs/ID/echo-server: omniorb-4.3.3, tao-2.2.1); "
     "not used by ORB-less kinds"},
    {.key = "server.path", .type = SCENARIO_STRING, .off = OFF(server.path),
     .size = SZ(server.path), .def_str = "",
     .help = "server executable (default: the kind's binary beside orbbench)"},
    {.key = "server.args", .type = SCENARIO_STRLIST, .off = OFF(server.args),
     .size = OFF(server.nargs), .max = SCENARIO_MAX_ARGS,
     .help = "extra arguments for every server (e.g. -ORB options)"},
    {.key = "server.start_timeout_ms", .type = SCENARIO_INT,
     .off = OFF(server.start_timeout_ms), .min = 100, .max = 600000,
     .def_num = 10000,
     .help = "a server must print its IOR within this"},
    {.key = "server.start_parallel", .type = SCENARIO_INT,
     .off = OFF(server.start_parallel), .min = 1, .max = 64, .def_num = 4,
     .help = "servers started at once within a step"},
    {.key = "server.work_us", .type = SCENARIO_INT, .off = OFF(server.work_us),
     .max = 1000000,
     .help = "CPU time each call burns in the server before replying (µs, "
     "the thread's CPU clock; 0 = none)"},
    {.key = "server.work_ns", .type = SCENARIO_INT, .off = OFF(server.work_ns),
     .max = 1000000000,
     .help = "more CPU time each call burns, in ns (beside server.work_us: "
     "a step finer than a µs; omniORB's server only; 0 = none)"},
    {.key = "call.timeout_ms", .type = SCENARIO_INT,
     .off = OFF(call.timeout_ms), .min = 1, .max = 600000, .def_num = 5000,
     .help = "a call without a reply by then fails the run"},
    {.key = "call.payload_bytes", .type = SCENARIO_INT,
     .off = OFF(call.payload_bytes), .max = 1048576, .def_num = 16,
     .help = "length of the echoed string"},
    {.key = "call.payload", .type = SCENARIO_STRING, .off = OFF(call.payload),
     .size = SZ(call.payload), .min = 1, .def_str = "string",
     .help = "what each call echoes: string (call.payload_bytes long), or a "
     "typed payload of idl/payloads.idl: None, Octet1K, Octet100K, Odometry, "
     "RangeSensor, SharedBelief"},
    {.key = "mode", .type = SCENARIO_ENUM, .off = OFF(mode), .size = SZ(mode),
     .choices = modes, .def_str = "sync",
     .help = "how a round issues its calls"},
    {.key = "client.pool_size", .type = SCENARIO_INT,
     .off = OFF(client.pool_size), .min = 1, .max = 10000, .def_num = 100,
     .help = "mode pool: worker threads, the most calls in flight"},
    {.key = "client.thread_stack_kb", .type = SCENARIO_INT,
     .off = OFF(client.thread_stack_kb), .min = 32, .max = 65536,
     .def_num = 64,
     .help = "stack size of every thread the client starts"},
    {.key = "client.connect", .type = SCENARIO_BOOL,
     .off = OFF(client.connect), .def_num = 1,
     .help = "false: start servers but never connect or call (idle "
     "footprint)"},
    {.key = "client.allow_hosts", .type = SCENARIO_STRLIST,
     .off = OFF(client.allow_hosts), .size = OFF(client.nallow_hosts),
     .max = SCENARIO_MAX_HOSTS,
     .help = "server.kind external: hosts or CIDR networks (10.0.0.0/8) "
     "outside loopback the client may call (also --allow-host)"},
    {.key = "probe.budget_ms", .type = SCENARIO_INT,
     .off = OFF(probe.budget_ms), .min = 1, .max = 600000, .def_num = 2000,
     .help = "probing every server's footprint may take this long per step; "
     "past it a stride sample is probed"},
    {.key = "probe.per_server_max", .type = SCENARIO_INT,
     .off = OFF(probe.per_server_max), .max = 100000, .def_num = 32,
     .help = "list every server's footprint when N <= this"},
    {.key = "machine.mem_limit_mb", .type = SCENARIO_INT,
     .off = OFF(machine.mem_limit_mb), .min = 1, .max = 1048576,
     .help = "run the servers in a memory cgroup of this size (absent: no "
     "limit)"},
    {.key = "machine.limit_client", .type = SCENARIO_BOOL,
     .off = OFF(machine.limit_client),
     .help = "put the client in the memory cgroup too"},
    {.key = "machine.cpus", .type = SCENARIO_STRING, .off = OFF(machine.cpus),
     .size = SZ(machine.cpus), .def_str = "",
     .help = "CPU list for the servers, e.g. \"0\" or \"0-1\""},
    {.key = "machine.client_cpus", .type = SCENARIO_STRING,
     .off = OFF(machine.client_cpus), .size = SZ(machine.client_cpus),
     .def_str = "",
     .help = "CPU list for every client thread"},
};

/* A key table row and the kind it belongs to (NULL: every kind's). */
struct row {
    const struct scenario_key *k;
    const struct scenario_kind *owner;
};

/* The common rows, then each kind's; "kind" choices are the kinds'
 * names. */
#define MAX_ROWS 256
#define MAX_KINDS 32
struct rows {
    struct row r[MAX_ROWS];
    size_t n;
    struct scenario_key kind_key;
    const char *kind_names[MAX_KINDS + 1];
};

static int rows_build(const struct scenario_schema *schema, struct rows *rs)
{
    rs->n = 0;
    if (schema->nkinds > MAX_KINDS)
        return -E2BIG;
    for (size_t i = 0; i < schema->nkinds; i++)
        rs->kind_names[i] = schema->kinds[i]->name;
    rs->kind_names[schema->nkinds] = NULL;
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        rs->r[rs->n].k = &keys[i];
        if (strcmp(keys[i].key, "kind") == 0) {
            rs->kind_key = keys[i];
            rs->kind_key.choices = rs->kind_names;
            rs->r[rs->n].k = &rs->kind_key;
        }
        rs->r[rs->n++].owner = NULL;
    }
    for (size_t i = 0; i < schema->nkinds; i++) {
        const struct scenario_kind *sk = schema->kinds[i];
        for (size_t j = 0; j < sk->nkeys; j++) {
            if (rs->n == MAX_ROWS)
                return -E2BIG;
            rs->r[rs->n++] = (struct row){&sk->keys[j], sk};
        }
    }
    return 0;
}

/* Groups of common keys that only the kinds listing them in their `uses`
 * take: how calls are issued and by which client threads, and the
 * footprint probes. */
static const char *const gated[] = {"mode", "client", "probe", NULL};

/* The gated group `key` is in, or NULL. */
static const char *gated_group(const char *key)
{
    for (const char *const *g = gated; *g; g++) {
        size_t n = strlen(*g);
        if (strncmp(key, *g, n) == 0 && (key[n] == 0 || key[n] == '.'))
            return *g;
    }
    return NULL;
}

static bool in_list(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

/* Is row `r` one of scenario kind `sk`'s (or of every kind)? */
static bool of_kind(const struct row *r, const struct scenario_kind *sk)
{
    if (r->owner)
        return r->owner == sk;
    const char *g = gated_group(r->k->key);
    return !g || in_list(sk->uses, g);
}

/* For a message: the kinds that take row `r`. */
static void kinds_of(const struct scenario_schema *schema, const struct row *r,
                     char *buf, size_t len)
{
    if (r->owner) {
        str_copy(buf, len, r->owner->name);
        return;
    }
    const char *g = gated_group(r->k->key);
    buf[0] = 0;
    for (size_t i = 0; i < schema->nkinds; i++)
        if (in_list(schema->kinds[i]->uses, g))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
                     buf[0] ? "\" or \"" : "", schema->kinds[i]->name);
}

static const struct row *find_key(const struct rows *rs, const char *key)
{
    for (size_t i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].k->key, key) == 0)
            return &rs->r[i];
    return NULL;
}

/* True when some key lives below `prefix` (a group such as "sweep"). */
static bool is_group(const struct rows *rs, const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < rs->n; i++)
        if (strncmp(rs->r[i].k->key, prefix, n) == 0 &&
            rs->r[i].k->key[n] == '.')
            return true;
    return false;
}

/* What follows "unknown key \"KEY\"": the nearest key or group of the
 * table, and where every key is listed. */
static void key_hint(const struct rows *rs, const char *key, char *buf,
                     size_t len)
{
    struct suggest s;
    suggest_init(&s, key);
    for (size_t i = 0; i < rs->n; i++) {
        const char *k = rs->r[i].k->key;
        char group[SUGGEST_MAX_BYTES];
        const char *dot = strchr(k, '.');
        /* "swep" is nearer "sweep" than any key in it. */
        if (dot && (size_t)(dot - k) < sizeof group) {
            memcpy(group, k, (size_t)(dot - k));
            group[dot - k] = 0;
            suggest_offer(&s, group);
        }
        suggest_offer(&s, k);
    }
    const char *best = suggest_best(&s);
    if (best)
        snprintf(buf, len, "; did you mean \"%s\"? (see orbbench keys)",
                 best);
    else
        snprintf(buf, len, " (see orbbench keys)");
}

struct scenario_ctx {
    const char *source; /* file name, for messages */
    const struct scenario_schema *schema;
    char *const *sets;
    size_t nsets;
    char *err;
    size_t err_len;
    const struct rows *rows;
};

/* Where a key's value came from: "--set key" when overridden, else the
 * file. Messages always name one of them. */
static const char *origin(const struct scenario_ctx *c, const char *key,
                          char *buf, size_t len)
{
    size_t klen = strlen(key);
    for (size_t i = c->nsets; i-- > 0;)
        if (strncmp(c->sets[i], key, klen) == 0 && c->sets[i][klen] == '=') {
            snprintf(buf, len, "--set %s", key);
            return buf;
        }
    return c->source;
}

/* fail: this file's name for it. */
#define fail scenario_fail

int scenario_fail(const struct scenario_ctx *c, const char *key,
                  const char *fmt, ...)
{
    char where[600], msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *from = key ? origin(c, key, where, sizeof where) : NULL;
    if (key && from != c->source)
        snprintf(c->err, c->err_len, "%s: %s", from, msg);
    else if (key)
        snprintf(c->err, c->err_len, "%s: key \"%s\": %s", from, key, msg);
    else
        snprintf(c->err, c->err_len, "%s: %s", c->source, msg);
    return -EINVAL;
}

static const char *json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* Reject every key of `obj` (at `prefix`) that the table does not know. */
static int check_known(const struct scenario_ctx *c, json_t *obj,
                       const char *prefix)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (is_group(c->rows, path)) {
            if (!json_is_object(v))
                return fail(c, path, "expected an object, got %s",
                            json_type_name(v));
            int rc = check_known(c, v, path);
            if (rc)
                return rc;
        } else if (!find_key(c->rows, path)) {
            char hint[200];
            key_hint(c->rows, path, hint, sizeof hint);
            return fail(c, NULL, "unknown key \"%s\"%s", path, hint);
        }
    }
    return 0;
}

/* The value at a dotted path, or NULL. */
static json_t *get_path(json_t *root, const char *key)
{
    char buf[256];
    str_copy(buf, sizeof buf, key);
    json_t *v = root;
    for (char *save, *part = strtok_r(buf, ".", &save); part && v;
         part = strtok_r(NULL, ".", &save))
        v = json_is_object(v) ? json_object_get(v, part) : NULL;
    return v;
}

/* Set a value at a dotted path, creating groups; steals `val`. */
static int set_path(json_t *root, const char *key, json_t *val)
{
    char buf[256];
    str_copy(buf, sizeof buf, key);
    json_t *obj = root;
    char *save, *part = strtok_r(buf, ".", &save);
    for (char *next; (next = strtok_r(NULL, ".", &save)); part = next) {
        json_t *sub = json_object_get(obj, part);
        if (!json_is_object(sub)) {
            sub = json_object();
            json_object_set_new(obj, part, sub);
        }
        obj = sub;
    }
    return json_object_set_new(obj, part, val) ? -ENOMEM : 0;
}

/* Turn "--set key=value" text into a JSON value of the key's type. */
static int parse_set(const struct scenario_ctx *c, const char *set,
                     json_t *root)
{
    const char *eq = strchr(set, '=');
    char key[256];
    if (!eq || eq == set || (size_t)(eq - set) >= sizeof key) {
        snprintf(c->err, c->err_len,
                 "--set %s: expected key=value (e.g. sweep.max_n=500)", set);
        return -EINVAL;
    }
    memcpy(key, set, (size_t)(eq - set));
    key[eq - set] = 0;
    const char *text = eq + 1;
    const struct row *row = find_key(c->rows, key);
    const struct scenario_key *ks = row ? row->k : NULL;
    if (!ks) {
        char hint[200];
        key_hint(c->rows, key, hint, sizeof hint);
        snprintf(c->err, c->err_len, "--set %s: unknown key \"%s\"%s", set,
                 key, hint);
        return -EINVAL;
    }
    json_t *val = NULL;
    int64_t i;
    double d;
    switch (ks->type) {
    case SCENARIO_STRING:
    case SCENARIO_ENUM:
        val = json_string(text);
        break;
    case SCENARIO_INT:
        if (parse_i64(text, &i) == 0)
            val = json_integer(i);
        break;
    case SCENARIO_NUM:
        if (parse_double(text, &d) == 0)
            val = json_real(d);
        break;
    case SCENARIO_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
            val = json_boolean(text[0] == 't');
        break;
    case SCENARIO_KLIST:
        /* 4, or [1,2,4], or 1,2,4 */
        val = json_loads(text, JSON_DECODE_ANY, NULL);
        if (!val && strchr(text, ',')) {
            char *buf = NULL; /* never cut: a long list is parsed whole */
            if (asprintf(&buf, "[%s]", text) < 0)
                return -ENOMEM;
            val = json_loads(buf, 0, NULL);
            free(buf);
        }
        break;
    case SCENARIO_STRLIST:
        /* A JSON list, or words separated by spaces. */
        val = json_loads(text, JSON_DECODE_ANY, NULL);
        if (!val) {
            val = json_array();
            char *buf = strdup(text); /* never cut: load_key bounds words */
            if (!buf) {
                json_decref(val);
                return -ENOMEM;
            }
            for (char *save, *w = strtok_r(buf, " ", &save); w && val;
                 w = strtok_r(NULL, " ", &save)) {
                /* json_string refuses a word that is not UTF-8: say so
                 * rather than run the server without it. */
                if (json_array_append_new(val, json_string(w)) != 0) {
                    json_decref(val);
                    val = NULL;
                }
            }
            free(buf);
        }
        break;
    }
    if (!val) {
        snprintf(c->err, c->err_len, "--set %s: \"%s\" is not %s", key, text,
                 ks->type == SCENARIO_INT    ? "an integer"
                 : ks->type == SCENARIO_BOOL ? "true or false"
                 : ks->type == SCENARIO_NUM  ? "a number"
                 : ks->type == SCENARIO_KLIST ? "an integer or a list of them"
                                      : "valid UTF-8 text");
        return -EINVAL;
    }
    return set_path(root, key, val);
}

static int check_range(const struct scenario_ctx *c,
                       const struct scenario_key *ks, double v)
{
    if (v < ks->min || v > ks->max)
        return fail(c, ks->key, "%.15g is out of range [%.15g, %.15g]", v,
                    ks->min, ks->max);
    return 0;
}

/* A value of a key with choices must be one of them. */
static int check_choice(const struct scenario_ctx *c,
                        const struct scenario_key *ks, const char *s)
{
    if (!ks->choices)
        return 0;
    char list[256] = "";
    for (const char *const *ch = ks->choices; *ch; ch++) {
        if (strcmp(*ch, s) == 0)
            return 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 ch == ks->choices ? "" : ", ", *ch);
    }
    return fail(c, ks->key, "\"%s\" is not one of: %s", s, list);
}

/* Validate one key's value (or fill its default) into *sc. */
static int load_key(const struct scenario_ctx *c, const struct scenario_key *ks,
                    json_t *v, struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    switch (ks->type) {
    case SCENARIO_STRING:
    case SCENARIO_ENUM: {
        const char *s = ks->def_str;
        if (v) {
            if (!json_is_string(v))
                return fail(c, ks->key, "expected a string, got %s",
                            json_type_name(v));
            s = json_string_value(v);
        }
        if (strlen(s) >= ks->size)
            return fail(c, ks->key, "longer than %zu characters",
                        ks->size - 1);
        if (v && ks->min > 0 && strlen(s) < (size_t)ks->min)
            return fail(c, ks->key, "must not be empty");
        int rc = check_choice(c, ks, s);
        if (rc)
            return rc;
        str_copy(field, ks->size, s);
        return 0;
    }
    case SCENARIO_INT: {
        int64_t x = (int64_t)ks->def_num;
        if (v) {
            if (!json_is_integer(v))
                return fail(c, ks->key, "expected an integer, got %s",
                            json_type_name(v));
            x = json_integer_value(v);
            /* Defaults may lie outside (0 = "none"); values may not. */
            int rc = check_range(c, ks, (double)x);
            if (rc)
                return rc;
        }
        *(int64_t *)field = x;
        return 0;
    }
    case SCENARIO_BOOL: {
        if (v && !json_is_boolean(v))
            return fail(c, ks->key, "expected true or false, got %s",
                        json_type_name(v));
        *(bool *)field = v ? json_is_true(v) : ks->def_num != 0;
        return 0;
    }
    case SCENARIO_NUM: {
        double x = ks->def_num;
        if (v) {
            if (!json_is_number(v))
                return fail(c, ks->key, "expected a number, got %s",
                            json_type_name(v));
            x = json_number_value(v);
        }
        int rc = check_range(c, ks, x);
        if (!rc)
            *(double *)field = x;
        return rc;
    }
    case SCENARIO_KLIST: {
        struct scenario_klist *kl = (struct scenario_klist *)(void *)field;
        kl->max = 0;
        kl->n = 0;
        if (!v || json_is_null(v))
            return 0; /* every CPU allowed: known only at run time */
        if (json_is_integer(v)) {
            int rc = check_range(c, ks, (double)json_integer_value(v));
            if (!rc)
                kl->max = json_integer_value(v);
            return rc;
        }
        if (!json_is_array(v) || json_array_size(v) == 0)
            return fail(c, ks->key, "expected an integer or a non-empty "
                        "list of integers, got %s", json_type_name(v));
        if (json_array_size(v) > SCENARIO_MAX_K)
            return fail(c, ks->key, "more than %d entries", SCENARIO_MAX_K);
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) {
            if (!json_is_integer(item))
                return fail(c, ks->key, "entry %zu: expected an integer, "
                            "got %s", i, json_type_name(item));
            int64_t x = json_integer_value(item);
            int rc = check_range(c, ks, (double)x);
            if (rc)
                return rc;
            if (i > 0 && x <= kl->v[i - 1])
                return fail(c, ks->key, "entry %zu: %lld is not above the "
                            "one before (list k in increasing order)", i,
                            (long long)x);
            kl->v[i] = x;
            kl->n = i + 1;
        }
        return 0;
    }
    case SCENARIO_STRLIST: {
        char **list = (char **)field;
        size_t *count = (size_t *)((char *)sc + ks->size);
        if (!v)
            return 0;
        if (!json_is_array(v))
            return fail(c, ks->key, "expected a list of strings, got %s",
                        json_type_name(v));
        if (json_array_size(v) > (size_t)ks->max)
            return fail(c, ks->key, "more than %g entries", ks->max);
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) {
            if (!json_is_string(item))
                return fail(c, ks->key, "entry %zu: expected a string, got %s",
                            i, json_type_name(item));
            const char *e = json_string_value(item);
            if (json_string_length(item) > SCENARIO_MAX_WORD)
                return fail(c, ks->key, "entry %zu: longer than %d bytes "
                            "(%zu)", i, SCENARIO_MAX_WORD,
                            json_string_length(item));
            int rc = check_choice(c, ks, e);
            for (size_t j = 0; !rc && ks->choices && j < i; j++)
                if (strcmp(list[j], e) == 0)
                    rc = fail(c, ks->key, "\"%s\" is listed twice", e);
            if (rc)
                return rc;
            list[i] = strdup(e);
            if (!list[i])
                return -ENOMEM;
            *count = i + 1;
        }
        return 0;
    }
    }
    return -EINVAL;
}

/* The resolved scenario as JSON: every key, defaults filled in. */
static json_t *resolve(const struct rows *rs,
                       const struct scenario_kind *sk,
                       const struct scenario *sc)
{
    json_t *root = json_object();
    for (size_t i = 0; i < rs->n; i++) {
        const struct scenario_key *ks = rs->r[i].k;
        const char *field = (const char *)sc + ks->off;
        json_t *v = NULL;
        if (!of_kind(&rs->r[i], sk))
            continue; /* the other kind's keys: unused, not recorded */
        if (strcmp(ks->key, "call.payload_bytes") == 0 &&
            strcmp(sc->call.payload, "string") != 0)
            continue; /* a typed payload has its own size */
        switch (ks->type) {
        case SCENARIO_STRING:
        case SCENARIO_ENUM:
            v = json_string(field);
            break;
        case SCENARIO_INT:
            v = json_integer(*(const int64_t *)field);
            break;
        case SCENARIO_NUM:
            v = json_real(*(const double *)field);
            break;
        case SCENARIO_STRLIST: {
            char *const *list = (char *const *)field;
            size_t n = *(const size_t *)((const char *)sc + ks->size);
            v = json_array();
            for (size_t a = 0; a < n; a++)
                json_array_append_new(v, json_string(list[a]));
            break;
        }
        case SCENARIO_BOOL:
            v = json_boolean(*(const bool *)field);
            break;
        case SCENARIO_KLIST: {
            const struct scenario_klist *k =
                (const struct scenario_klist *)field;
            if (k->max > 0) {
                v = json_integer(k->max);
            } else if (k->n == 0) {
                v = json_null(); /* 1..the CPUs allowed */
            } else {
                v = json_array();
                for (size_t j = 0; j < k->n; j++)
                    json_array_append_new(v, json_integer(k->v[j]));
            }
            break;
        }
        }
        set_path(root, ks->key, v);
    }
    return root;
}

int scenario_parse_k(const char *list, uint64_t *k_set)
{
    *k_set = 0;
    const char *p = list;
    while (*p) {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 1 || lo > 64 || errno)
            return -EINVAL;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p || hi < lo || hi > 64 || errno)
                return -EINVAL;
        }
        for (long k = lo; k <= hi; k++)
            *k_set |= 1ULL << (k - 1);
        if (*end == ',')
            end++;
        else if (*end)
            return -EINVAL;
        p = end;
    }
    return *k_set ? 0 : -EINVAL;
}

/* The scenario's kind (its name was checked against the schema's). */
static const struct scenario_kind *kind_of(const struct scenario_ctx *c,
                                           const struct scenario *sc)
{
    for (size_t i = 0; i < c->schema->nkinds; i++)
        if (strcmp(c->schema->kinds[i]->name, sc->kind) == 0)
            return c->schema->kinds[i];
    return NULL;
}

/* Rules that tie keys together. */
static int check_cross(const struct scenario_ctx *c, const struct scenario *sc)
{
    static const char *const cpu_keys[] = {"machine.cpus",
                                           "machine.client_cpus"};
    const char *cpu_vals[] = {sc->machine.cpus, sc->machine.client_cpus};
    for (size_t i = 0; i < ARRAY_LEN(cpu_keys); i++) {
        cpu_set_t set;
        char why[160];
        if (cpu_vals[i][0] &&
            parse_cpu_list(cpu_vals[i], &set, why, sizeof why) != 0)
            return fail(c, cpu_keys[i], "%s", why);
    }
    const struct scenario_kind *sk = kind_of(c, sc);
    int rc = c->schema->check ? c->schema->check(c, sc) : 0;
    if (!rc && sk->check)
        rc = sk->check(c, sc);
    if (rc)
        return rc;
    bool external = strcmp(sc->server.kind, "external") == 0;
    if (external && !sc->server.iors[0])
        return fail(c, "server.iors", "server.kind \"external\" needs a "
                    "file of IORs (or \"-\" for standard input)");
    if (!external && sc->server.iors[0])
        return fail(c, "server.iors", "only for server.kind \"external\"");
    if (!external && sc->client.nallow_hosts)
        return fail(c, "client.allow_hosts",
                    "only for server.kind \"external\"");
    if (external && !sk->external_servers)
        return fail(c, "server.kind", "\"external\" servers can only be "
                    "swept (\"kind\": \"sweep\")");
    if (sc->machine.limit_client && sc->machine.mem_limit_mb == 0)
        return fail(c, "machine.limit_client",
                    "needs machine.mem_limit_mb");
    const char *ids[][2] = {{"name", sc->name}, {"server.orb", sc->server.orb}};
    for (size_t i = 0; i < ARRAY_LEN(ids); i++)
        for (const char *p = ids[i][1]; *p; p++)
            if (!(isalnum((unsigned char)*p) || strchr("._-", *p)))
                return fail(c, ids[i][0],
                            "\"%s\": use only letters, digits, . _ -",
                            ids[i][1]);
    return 0;
}

/* The file's base name without ".json", as the default name. */
static void default_name(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    str_copy(out, cap, base);
    char *dot = strrchr(out, '.');
    if (dot && strcmp(dot, ".json") == 0)
        *dot = 0;
}

/* Validate a parsed document (NULL when it did not parse: jerr says why)
 * from `source` into *sc, as scenario_load describes. Frees root. */
static int load_root(const struct scenario_schema *schema,
                     const char *source, json_t *root,
                     const json_error_t *jerr, char *const *sets,
                     size_t nsets, struct scenario *sc, char *err,
                     size_t err_len)
{
    static struct rows rows; /* one load at a time: main, tests, fuzzer */
    struct scenario_ctx c = {source, schema, sets, nsets, err, err_len,
                             &rows};
    sc->schema = schema;
    if (rows_build(schema, &rows) != 0) {
        json_decref(root);
        snprintf(err, err_len, "%s: the key tables hold more than %d keys "
                 "or %d kinds", source, MAX_ROWS, MAX_KINDS);
        return -E2BIG;
    }
    if (!root) {
        snprintf(err, err_len, "%s:%d:%d: %s", source, jerr->line,
                 jerr->column, jerr->text);
        return -EINVAL;
    }
    int rc = 0;
    if (!json_is_object(root))
        rc = fail(&c, NULL, "expected a JSON object at the top");
    if (!rc)
        rc = check_known(&c, root, "");
    for (size_t i = 0; !rc && i < nsets; i++)
        rc = parse_set(&c, sets[i], root);
    /* The common keys (the kind among them), then the kind's own: its
     * options block is the scenario's alone. */
    for (size_t i = 0; !rc && i < rows.n; i++)
        if (!rows.r[i].owner)
            rc = load_key(&c, rows.r[i].k, get_path(root, rows.r[i].k->key),
                          sc);
    const struct scenario_kind *sk = rc ? NULL : kind_of(&c, sc);
    for (size_t i = 0; !rc && i < rows.n; i++)
        if (rows.r[i].owner == sk)
            rc = load_key(&c, rows.r[i].k, get_path(root, rows.r[i].k->key),
                          sc);
    /* A key of another kind would be silently unused: refuse it. */
    for (size_t i = 0; !rc && i < rows.n; i++)
        if (!of_kind(&rows.r[i], sk) && get_path(root, rows.r[i].k->key)) {
            char who[128];
            kinds_of(schema, &rows.r[i], who, sizeof who);
            rc = fail(&c, rows.r[i].k->key, "only for \"kind\": \"%s\" "
                      "scenarios (this one is \"%s\")", who, sc->kind);
        }
    /* A typed payload has its own size: a length for it is a mistake. */
    if (!rc && strcmp(sc->call.payload, "string") != 0 &&
        get_path(root, "call.payload_bytes"))
        rc = fail(&c, "call.payload_bytes", "only for call.payload "
                  "\"string\" (a typed payload, here \"%s\", has its own "
                  "size)", sc->call.payload);
    if (!rc && !sc->name[0])
        default_name(source, sc->name, sizeof sc->name);
    if (!rc)
        rc = check_cross(&c, sc);
    json_decref(root);
    if (!rc)
        sc->resolved = resolve(&rows, kind_of(&c, sc), sc);
    if (rc)
        scenario_free(sc);
    return rc;
}

int scenario_load(const struct scenario_schema *schema, const char *path,
                  char *const *sets, size_t nsets, struct scenario *sc,
                  char *err, size_t err_len)
{
    json_error_t jerr;
    memset(sc, 0, sizeof *sc);
    str_copy(sc->source, sizeof sc->source, path);

    /* A regular file only: a FIFO would block, a device never end. */
    int fd = open_regular(path, err, err_len);
    if (fd == -EISDIR) {
        snprintf(err, err_len, "%s: %s (give a scenario file; run-suite "
                 "takes a folder)", path, strerror(EISDIR));
        return fd;
    }
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd >= 0) {
            snprintf(err, err_len, "%s: %s", path, strerror(errno));
            close(fd);
            return -ENOMEM;
        }
        return fd;
    }
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    return load_root(schema, path, root, &jerr, sets, nsets, sc, err,
                     err_len);
}

int scenario_load_text(const struct scenario_schema *schema,
                       const char *source, const char *text, size_t len,
                       char *const *sets, size_t nsets, struct scenario *sc,
                       char *err, size_t err_len)
{
    json_error_t jerr;
    memset(sc, 0, sizeof *sc);
    str_copy(sc->source, sizeof sc->source, source);
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    return load_root(schema, source, root, &jerr, sets, nsets, sc, err,
                     err_len);
}

/* Free the entries of every list key of `keys`. */
static void free_lists(struct scenario *sc, const struct scenario_key *ks,
                       size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ks[i].type != SCENARIO_STRLIST)
            continue;
        char **list = (char **)((char *)sc + ks[i].off);
        size_t *count = (size_t *)((char *)sc + ks[i].size);
        for (size_t a = 0; a < *count; a++)
            free(list[a]);
        *count = 0;
    }
}

void scenario_free(struct scenario *sc)
{
    free_lists(sc, keys, ARRAY_LEN(keys));
    for (size_t i = 0; sc->schema && i < sc->schema->nkinds; i++)
        if (strcmp(sc->schema->kinds[i]->name, sc->kind) == 0)
            free_lists(sc, sc->schema->kinds[i]->keys,
                       sc->schema->kinds[i]->nkeys);
    json_decref(sc->resolved);
    sc->resolved = NULL;
}

/* One row of `orbbench keys`. */
static void print_key(FILE *f, const struct scenario_key *ks)
{
    static const char *const type_names[] = {"string", "choice", "integer",
                                             "number", "list", "boolean",
                                             "k-list"};
    fprintf(f, "  %-24s %-8s ", ks->key, type_names[ks->type]);
    switch (ks->type) {
    case SCENARIO_INT:
    case SCENARIO_NUM:
        fprintf(f, "[%.15g..%.15g] default %.15g", ks->min, ks->max,
                ks->def_num);
        break;
    case SCENARIO_ENUM:
        for (const char *const *ch = ks->choices; *ch; ch++)
            fprintf(f, "%s%s", ch == ks->choices ? "" : "|", *ch);
        fprintf(f, " default %s", ks->def_str);
        break;
    case SCENARIO_STRING:
        fprintf(f, "default \"%s\"", ks->def_str);
        break;
    case SCENARIO_BOOL:
        fprintf(f, "default %s", ks->def_num != 0 ? "true" : "false");
        break;
    case SCENARIO_STRLIST:
        fprintf(f, "default []");
        break;
    case SCENARIO_KLIST:
        fprintf(f, "[%.15g..%.15g] or a list, default 1..CPUs", ks->min,
                ks->max);
        break;
    }
    fprintf(f, "\n  %24s %s\n", "", ks->help);
}

void scenario_print_keys(const struct scenario_schema *schema, FILE *f)
{
    static struct rows rows;
    if (rows_build(schema, &rows) != 0)
        return;
    for (size_t i = 0; i < rows.n; i++)
        print_key(f, rows.r[i].k);
}
