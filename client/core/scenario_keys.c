/* The scenario's key rows: the common keys (every kind's, or a gated
 * group's), then each kind's own, as one table the loader walks; the
 * lookups and the "did you mean" over it; `orbbench keys`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/scenario.h"
#include "core/scenario_impl.h"
#include "core/suggest.h"
#include "core/util.h"

static const char *const transports[] = {"tcp", "unix", "pipe", NULL};
static const char *const modes[] = {"sync", "thread-per-call", "pool",
                                    "event", NULL};
static const char *const jvm_gcs[] = {"default", "serial", "parallel", "g1",
                                      "z", "shenandoah", NULL};
static const char *const jvm_jits[] = {"tiered", "c1", "c2", "interpreter",
                                       NULL};

#define OFF(f) SCENARIO_OFF(f)
#define SZ(f) SCENARIO_SZ(f)

/* The JVM's settings of a server kind or a caller that runs on one
 * (JacORB): the rows of GROUP.jvm.* (GROUP server or caller; WHO its
 * noun in the help). At their defaults the JVM chooses, as a program
 * started by hand would get. */
#define JVM_KEYS(group, who)                                                 \
    {.key = #group ".jvm.heap_max_mb", .type = SCENARIO_INT,                \
     .off = OFF(group.jvm.heap_max_mb), .max = 1048576,                      \
     .help = "a JVM " who "'s heap limit (-Xmx), MB; 0: the JVM's own (a "   \
     "quarter of the memory it sees: the host's, or machine.mem_limit_mb)"}, \
    {.key = #group ".jvm.heap_initial_mb", .type = SCENARIO_INT,            \
     .off = OFF(group.jvm.heap_initial_mb), .max = 1048576,                  \
     .help = "a JVM " who "'s initial heap (-Xms), MB; 0: the JVM's own "    \
     "(1/64 of the memory it sees)"},                                       \
    {.key = #group ".jvm.thread_stack_kb", .type = SCENARIO_INT,            \
     .off = OFF(group.jvm.thread_stack_kb), .max = 1048576,                  \
     .help = "a JVM " who "'s thread stack size (-Xss), KB; 0: the JVM's "   \
     "own (1024 on x86_64 Linux)"},                                         \
    {.key = #group ".jvm.gc", .type = SCENARIO_ENUM,                        \
     .off = OFF(group.jvm.gc), .size = SZ(group.jvm.gc),                     \
     .choices = jvm_gcs, .def_str = "default",                              \
     .help = "a JVM " who "'s garbage collector (-XX:+UseSerialGC, ...); "   \
     "default: the JVM's choice (G1 with 2 CPUs and 1792 MB or more, "      \
     "Serial below)"},                                                      \
    {.key = #group ".jvm.jit", .type = SCENARIO_ENUM,                       \
     .off = OFF(group.jvm.jit), .size = SZ(group.jvm.jit),                   \
     .choices = jvm_jits, .def_str = "tiered",                              \
     .help = "a JVM " who "'s compilers: tiered (the JVM's: C1, then C2), "  \
     "c1 (-XX:TieredStopAtLevel=1), c2 (-XX:-TieredCompilation), "          \
     "interpreter (-Xint)"},                                                \
    {.key = #group ".jvm.cds", .type = SCENARIO_BOOL,                       \
     .off = OFF(group.jvm.cds), .def_num = 1,                                \
     .help = "a JVM " who "'s class data sharing (the JDK's archive, "       \
     "mapped and shared between JVMs); false: -Xshare:off"}

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
     .size = SZ(server.kind), .def_str = "omniorb", /* choices: schema's */
     .help = "which echo server to fork (docs/servers.md): an ORB's (those "
     "built by scripts/build-orb named by server.orb), the ORB-less raw "
     "(length-prefixed echo) and giop-min (GIOP 1.2, no ORB); external: "
     "start none, call those listed in server.iors"},
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
    JVM_KEYS(server, "server"),
    {.key = "caller.kind", .type = SCENARIO_ENUM, .off = OFF(caller.kind),
     .size = SZ(caller.kind), .def_str = "none",
     .help = "who makes the calls: none (orbbench's own client, the "
     "default), or an ORB's own client, a caller (docs/callers.md), which "
     "makes each round on orbbench's command in place of mode"},
    {.key = "caller.orb", .type = SCENARIO_STRING, .off = OFF(caller.orb),
     .size = SZ(caller.orb), .min = 1, .def_str = "system",
     .help = "the caller's ORB installation: system (KIND-system, the "
     "caller beside orbbench), or a build's id (bin/orbs/ID/caller: "
     "omniorb-4.0.7)"},
    {.key = "caller.mode", .type = SCENARIO_STRING, .off = OFF(caller.mode),
     .size = SZ(caller.mode), .def_str = "",
     .help = "the caller's mode (sync, deferred, ami-poller, ami-callback, "
     "async, ...: what its build offers, CALLER --modes); empty: its "
     "default"},
    {.key = "caller.args", .type = SCENARIO_STRLIST, .off = OFF(caller.args),
     .size = OFF(caller.nargs), .max = SCENARIO_MAX_ARGS,
     .help = "arguments for the caller's ORB_init (e.g. "
     "-ORBmaxClientThreadPoolSize 5)"},
    JVM_KEYS(caller, "caller"),
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

const struct scenario_key *scenario_common_keys(size_t *n)
{
    *n = ARRAY_LEN(keys);
    return keys;
}

int scenario_rows_build(const struct scenario_schema *schema,
                        struct rows *rs)
{
    rs->n = 0;
    if (schema->nkinds > MAX_KINDS)
        return -E2BIG;
    for (size_t i = 0; i < schema->nkinds; i++)
        rs->kind_names[i] = schema->kinds[i]->name;
    rs->kind_names[schema->nkinds] = NULL;
    size_t ns = 0;
    for (const char *name;
         schema->server_name && (name = schema->server_name(ns)); ns++) {
        if (ns == MAX_SERVERS)
            return -E2BIG;
        rs->server_names[ns] = name;
    }
    rs->server_names[ns] = NULL;
    size_t nc = 0;
    rs->caller_names[nc++] = "none";
    for (const char *name;
         schema->caller_name && (name = schema->caller_name(nc - 1)); nc++) {
        if (nc == MAX_CALLERS + 1)
            return -E2BIG;
        rs->caller_names[nc] = name;
    }
    rs->caller_names[nc] = NULL;
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        rs->r[rs->n].k = &keys[i];
        if (strcmp(keys[i].key, "kind") == 0) {
            rs->kind_key = keys[i];
            rs->kind_key.choices = rs->kind_names;
            rs->r[rs->n].k = &rs->kind_key;
        } else if (strcmp(keys[i].key, "server.kind") == 0) {
            rs->server_key = keys[i];
            rs->server_key.choices = rs->server_names;
            rs->r[rs->n].k = &rs->server_key;
        } else if (strcmp(keys[i].key, "caller.kind") == 0) {
            rs->caller_key = keys[i];
            rs->caller_key.choices = rs->caller_names;
            rs->r[rs->n].k = &rs->caller_key;
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
 * take: how calls are issued and by which client threads (or which
 * caller), and the footprint probes. */
static const char *const gated[] = {"mode", "client", "probe", "caller",
                                    NULL};

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
bool scenario_of_kind(const struct row *r, const struct scenario_kind *sk)
{
    if (r->owner)
        return r->owner == sk;
    const char *g = gated_group(r->k->key);
    return !g || in_list(sk->uses, g);
}

/* For a message: the kinds that take row `r`. */
void scenario_kinds_of(const struct scenario_schema *schema,
                       const struct row *r, char *buf, size_t len)
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

const struct row *scenario_find_key(const struct rows *rs, const char *key)
{
    for (size_t i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].k->key, key) == 0)
            return &rs->r[i];
    return NULL;
}

/* True when some key lives below `prefix` (a group such as "sweep"). */
bool scenario_is_group(const struct rows *rs, const char *prefix)
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
void scenario_key_hint(const struct rows *rs, const char *key, char *buf,
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
    if (scenario_rows_build(schema, &rows) != 0)
        return;
    for (size_t i = 0; i < rows.n; i++)
        print_key(f, rows.r[i].k);
}
