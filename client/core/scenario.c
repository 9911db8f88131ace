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

#include "codec/payload.h"
#include "core/util.h"

enum key_type {
    K_STRING, K_ENUM, K_INT, K_NUM, K_STRLIST, K_BOOL,
    K_KLIST, /* scaling.k: an integer (1..it) or a list of integers */
};

struct key_spec {
    const char *key; /* dotted path */
    enum key_type type;
    size_t off;  /* into struct scenario */
    size_t size; /* K_STRING/K_ENUM: buffer size; K_STRLIST: the offset
                  * of its size_t count of entries */
    double min, max;
    const char *const *choices; /* K_ENUM, NULL-terminated */
    const char *def_str;
    double def_num;
    const char *help;
};

static const char *const transports[] = {"tcp", "unix", "pipe", NULL};
static const char *const modes[] = {"sync", "thread-per-call", "pool",
                                    "event", NULL};
static const char *const kinds[] = {"omniorb", "raw", "giop-min",
                                    "combat", "external", NULL};
static const char *const measurements[] = {"sweep", "rate", "scaling",
                                           "clock", "latency", "marshal",
                                           "channel", NULL};
static const char *const placements[] = {"same", "spread", NULL};
static const char *const channel_vias[] = {"channel", "direct", NULL};
/* Time sources of kind clock (client/clock.c implements each). */
static const char *const clock_sources[] = {
    "monotonic", "monotonic_raw", "realtime", "boottime",
    "monotonic_coarse", "realtime_coarse", "tsc", "monotonic_syscall",
    NULL};

#define OFF(f) offsetof(struct scenario, f)
#define SZ(f) sizeof(((struct scenario *)0)->f)

static const struct key_spec keys[] = {
    {"name", K_STRING, OFF(name), SZ(name), 1, 0, NULL, "", 0,
     "short name, used in file names (default: the file's base name)"},
    {"description", K_STRING, OFF(description), SZ(description), 0, 0, NULL,
     "", 0, "one sentence on what the scenario measures"},
    {"kind", K_ENUM, OFF(kind), SZ(kind), 0, 0, measurements, "sweep", 0,
     "what is measured: sweep (servers held, footprint), rate (upcalls "
     "per second of k servers), clock (time-source calls per second "
     "of k pinned threads), latency (every call's time, one at a time), "
     "marshal (the cost of encoding each payload, no servers) or channel "
     "(events pushed through an omniEvents channel, or directly, to a "
     "logging consumer)"},
    {"transport", K_ENUM, OFF(transport), SZ(transport), 0, 0, transports,
     "tcp", 0, "how the client reaches the servers (loopback only; pipe: a "
     "pipe pair per server, raw servers only)"},
    {"mode", K_ENUM, OFF(mode), SZ(mode), 0, 0, modes, "sync", 0,
     "how a round issues its calls"},
    {"server.kind", K_ENUM, OFF(server.kind), SZ(server.kind), 0, 0, kinds,
     "omniorb", 0, "which echo server to fork: omniorb, combat (the Tcl "
     "ORB; tcp only), or the ORB-less raw (length-prefixed echo) and "
     "giop-min (GIOP 1.2, no ORB); external: start none, call those "
     "listed in server.iors"},
    {"server.iors", K_STRING, OFF(server.iors), SZ(server.iors), 0, 0, NULL,
     "", 0, "server.kind external: a file of stringified IORs, one a line "
     "(optionally followed by the server's PID), \"-\" for standard input"},
    {"server.orb", K_STRING, OFF(server.orb), SZ(server.orb), 1, 0, NULL,
     "omniorb-system", 0, "ORB installation: omniorb-system (Debian's), or an "
     "id built by scripts/build-orb (bin/orbs/ID/echo-server); not used by "
     "ORB-less kinds"},
    {"server.path", K_STRING, OFF(server.path), SZ(server.path), 0, 0, NULL,
     "", 0, "server executable (default: the kind's binary beside orbbench)"},
    {"server.args", K_STRLIST, OFF(server.args), OFF(server.nargs), 0,
     SCENARIO_MAX_ARGS, NULL, NULL, 0,
     "extra arguments for every server (e.g. -ORB options)"},
    {"server.start_timeout_ms", K_INT, OFF(server.start_timeout_ms), 0, 100,
     600000, NULL, NULL, 10000, "a server must print its IOR within this"},
    {"server.start_parallel", K_INT, OFF(server.start_parallel), 0, 1, 64,
     NULL, NULL, 4, "servers started at once within a step"},
    {"server.work_us", K_INT, OFF(server.work_us), 0, 0, 1000000, NULL, NULL,
     0, "CPU time each call burns in the server before replying (µs, the "
     "thread's CPU clock; 0 = none)"},
    {"sweep.start", K_INT, OFF(sweep.start), 0, 1, 1000000, NULL, NULL, 1,
     "servers in the first step"},
    {"sweep.step", K_INT, OFF(sweep.step), 0, 1, 1000000, NULL, NULL, 10,
     "servers added per step (linear sweep; unused when growth > 1)"},
    {"sweep.growth", K_NUM, OFF(sweep.growth), 0, 1, 100, NULL, NULL, 1,
     "factor per step; > 1 makes the sweep geometric"},
    {"sweep.max_n", K_INT, OFF(sweep.max_n), 0, 1, 1000000, NULL, NULL, 1000,
     "never run more servers than this"},
    {"sweep.max_ms", K_NUM, OFF(sweep.max_ms), 0, 1e-6, 1e7, NULL, NULL, 100,
     "stop when a step's median round time exceeds this (ms)"},
    {"sweep.rounds", K_INT, OFF(sweep.rounds), 0, 1, 100000, NULL, NULL, 10,
     "timed rounds per step"},
    {"sweep.warmup_rounds", K_INT, OFF(sweep.warmup_rounds), 0, 0, 1000,
     NULL, NULL, 1, "untimed rounds before the timed ones"},
    {"sweep.max_seconds", K_NUM, OFF(sweep.max_seconds), 0, 1, 86400, NULL,
     NULL, 3600, "stop the sweep after this long (s)"},
    {"sweep.resolution", K_NUM, OFF(sweep.resolution), 0, 0, 0.5, NULL, NULL,
     0.02, "after a step over max_ms is confirmed, bisect until the bracket "
     "is within this fraction of N (0: stop at the first step over)"},
    {"sweep.near_rounds", K_INT, OFF(sweep.near_rounds), 0, 1, 100000, NULL,
     NULL, 20, "timed rounds of each measurement of the crossing search "
     "(confirmation, bracket check, bisection)"},
    {"sweep.max_probes", K_INT, OFF(sweep.max_probes), 0, 1, 100, NULL, NULL,
     12, "at most this many measurements in the crossing search"},
    {"call.timeout_ms", K_INT, OFF(call.timeout_ms), 0, 1, 600000, NULL, NULL,
     5000, "a call without a reply by then fails the run"},
    {"call.payload_bytes", K_INT, OFF(call.payload_bytes), 0, 0, 1048576,
     NULL, NULL, 16, "length of the echoed string"},
    {"call.payload", K_STRING, OFF(call.payload), SZ(call.payload), 1, 0,
     NULL, "string", 0, "what each call echoes: string (call.payload_bytes "
     "long), or a typed payload of idl/payloads.idl: None, Octet1K, "
     "Octet100K, Odometry, RangeSensor, SharedBelief"},
    {"client.pool_size", K_INT, OFF(client.pool_size), 0, 1, 10000, NULL,
     NULL, 100, "mode pool: worker threads, the most calls in flight"},
    {"client.thread_stack_kb", K_INT, OFF(client.thread_stack_kb), 0, 32,
     65536, NULL, NULL, 64, "stack size of every thread the client starts"},
    {"client.connect", K_BOOL, OFF(client.connect), 0, 0, 0, NULL, NULL, 1,
     "false: start servers but never connect or call (idle footprint)"},
    {"client.allow_hosts", K_STRLIST, OFF(client.allow_hosts),
     OFF(client.nallow_hosts), 0, SCENARIO_MAX_HOSTS, NULL, NULL, 0,
     "server.kind external: hosts or CIDR networks (10.0.0.0/8) outside "
     "loopback the client may call (also --allow-host)"},
    {"probe.budget_ms", K_INT, OFF(probe.budget_ms), 0, 1, 600000, NULL,
     NULL, 2000, "probing every server's footprint may take this long per "
     "step; past it a stride sample is probed"},
    {"probe.per_server_max", K_INT, OFF(probe.per_server_max), 0, 0, 100000,
     NULL, NULL, 32, "list every server's footprint when N <= this"},
    {"rate.window", K_INT, OFF(rate.window), 0, 1, 1024, NULL, NULL, 1,
     "kind rate: requests in flight per connection (1 = ping-pong); "
     "oneway: requests per write"},
    {"rate.duration_s", K_NUM, OFF(rate.duration_s), 0, 0.01, 3600, NULL,
     NULL, 1, "kind rate: length of one repeat's measuring window (s)"},
    {"rate.warmup_s", K_NUM, OFF(rate.warmup_s), 0, 0, 3600, NULL, NULL, 0.5,
     "kind rate: untimed calls before the first repeat (s)"},
    {"rate.repeats", K_INT, OFF(rate.repeats), 0, 1, 1000, NULL, NULL, 5,
     "kind rate: measuring windows, back to back"},
    {"rate.servers", K_INT, OFF(rate.servers), 0, 1, 256, NULL, NULL, 1,
     "kind rate: servers, each called on its own connection"},
    {"rate.oneway", K_BOOL, OFF(rate.oneway), 0, 0, 0, NULL, NULL, 0,
     "kind rate: GIOP oneway requests, counted by the server and read "
     "back after each window"},
    {"scaling.duration_s", K_NUM, OFF(scaling.duration_s), 0, 0.01, 3600,
     NULL, NULL, 1, "kind scaling: each pair ping-pongs this long per "
     "repeat (s)"},
    {"scaling.warmup_s", K_NUM, OFF(scaling.warmup_s), 0, 0, 3600, NULL,
     NULL, 0.2, "kind scaling: untimed calls by every pair before each "
     "k's repeats (s)"},
    {"scaling.repeats", K_INT, OFF(scaling.repeats), 0, 1, 1000, NULL, NULL,
     5, "kind scaling: measured repeats for each k"},
    {"scaling.k", K_KLIST, OFF(scaling.k), 0, 1, SCENARIO_MAX_K, NULL, NULL,
     0, "kind scaling: pairs, K (1..K) or a list [1, 2, 4] (default: 1.."
     "the CPUs machine.cpus allows)"},
    {"scaling.placement", K_ENUM, OFF(scaling.placement),
     SZ(scaling.placement), 0, 0, placements, "same", 0,
     "kind scaling: same (a pair's client thread and server on one CPU) "
     "or spread (on two CPUs)"},
    {"clock.sources", K_STRLIST, OFF(clock.sources), OFF(clock.nsources), 0,
     SCENARIO_MAX_CLOCK_SOURCES, clock_sources, NULL, 0,
     "kind clock: time sources to call (default: every one available "
     "here)"},
    {"clock.duration_s", K_NUM, OFF(clock.duration_s), 0, 0.01, 3600, NULL,
     NULL, 1, "kind clock: how long the threads call, each repeat (s)"},
    {"clock.repeats", K_INT, OFF(clock.repeats), 0, 1, 1000, NULL, NULL, 5,
     "kind clock: repeats of every source at every k"},
    {"clock.k", K_STRING, OFF(clock.k), SZ(clock.k), 0, 0, NULL, "", 0,
     "kind clock: thread counts, e.g. \"1-4\" or \"1,2,4\" (default: 1 "
     "to the CPUs usable, machine.cpus if given)"},
    {"latency.servers", K_INT, OFF(latency.servers), 0, 1, 256, NULL, NULL,
     1, "kind latency: servers, called in turn"},
    {"latency.warmup_calls", K_INT, OFF(latency.warmup_calls), 0, 0,
     1000000, NULL, NULL, 100, "kind latency: untimed calls first"},
    {"latency.calls", K_INT, OFF(latency.calls), 0, 1, 1000000, NULL, NULL,
     10000, "kind latency: measured calls, each one's time kept"},
    {"latency.max_seconds", K_NUM, OFF(latency.max_seconds), 0, 1, 86400,
     NULL, NULL, 600, "kind latency: stop the run after this long (s)"},
    {"marshal.payloads", K_STRLIST, OFF(marshal.payloads),
     OFF(marshal.npayloads), 0, SCENARIO_MAX_PAYLOADS, NULL, NULL, 0,
     "kind marshal: payloads to encode (default: the six of "
     "idl/payloads.idl)"},
    {"marshal.encodes", K_INT, OFF(marshal.encodes), 0, 1, 100000000, NULL,
     NULL, 10000, "kind marshal: encodes of a payload per repeat"},
    {"marshal.repeats", K_INT, OFF(marshal.repeats), 0, 1, 1000, NULL, NULL,
     11, "kind marshal: repeats; each gives ns per encode"},
    {"marshal.omniorb", K_BOOL, OFF(marshal.omniorb), 0, 0, 0, NULL, NULL, 1,
     "kind marshal: also time omniORB's C++ marshaling of the same bytes "
     "(bin/omniorb-marshal-bench)"},
    {"marshal.max_seconds", K_NUM, OFF(marshal.max_seconds), 0, 1, 86400,
     NULL, NULL, 600, "kind marshal: stop the run after this long (s)"},
    {"channel.via", K_ENUM, OFF(channel.via), SZ(channel.via), 0, 0,
     channel_vias, "channel", 0, "kind channel: push each event through an "
     "omniEvents event channel to the consumer, or straight to it (direct)"},
    {"channel.events", K_INT, OFF(channel.events), 0, 1, 10000000, NULL,
     NULL, 10000, "kind channel: events measured, one in flight at a time "
     "(each logged before the next is pushed)"},
    {"channel.warmup_events", K_INT, OFF(channel.warmup_events), 0, 0,
     10000000, NULL, NULL, 1000, "kind channel: events pushed and logged "
     "before the measured ones, not measured"},
    {"channel.deadline_ms", K_INT, OFF(channel.deadline_ms), 0, 1, 86400000,
     NULL, NULL, 60000, "kind channel: the warm-up's events, then the "
     "measured ones, must all be logged within this (ms) or the run fails"},
    {"channel.cycle_period_ns", K_INT, OFF(channel.cycle_period_ns), 0, 1,
     4294967295.0, NULL, NULL, 100000, "kind channel: omniEvents's "
     "CyclePeriod_ns, how long its channel sleeps between moving events "
     "from suppliers to consumers (its own default: 100000000)"},
    {"channel.log_mb", K_INT, OFF(channel.log_mb), 0, 1, 65536, NULL, NULL, 0,
     "kind channel: the consumer's log file (MiB; default: sized for the "
     "run's events)"},
    {"channel.omnievents", K_STRING, OFF(channel.omnievents),
     SZ(channel.omnievents), 1, 0, NULL, "/usr/sbin/omniEvents", 0,
     "kind channel: the omniEvents executable (Debian's omnievents)"},
    {"machine.mem_limit_mb", K_INT, OFF(machine.mem_limit_mb), 0, 1, 1048576,
     NULL, NULL, 0, "run the servers in a memory cgroup of this size "
     "(absent: no limit)"},
    {"machine.limit_client", K_BOOL, OFF(machine.limit_client), 0, 0, 0,
     NULL, NULL, 0, "put the client in the memory cgroup too"},
    {"machine.cpus", K_STRING, OFF(machine.cpus), SZ(machine.cpus), 0, 0,
     NULL, "", 0, "CPU list for the servers, e.g. \"0\" or \"0-1\""},
    {"machine.client_cpus", K_STRING, OFF(machine.client_cpus),
     SZ(machine.client_cpus), 0, 0, NULL, "", 0,
     "CPU list for every client thread"},
};

/* Keys that only one kind of measurement uses: whole groups, or single
 * keys. */
static const struct {
    const char *key; /* a group ("sweep") or a key ("mode") */
    const char *kind;
} kind_keys[] = {
    {"sweep", "sweep"},  {"probe", "sweep"}, {"client", "sweep"},
    {"mode", "sweep"},   {"rate", "rate"}, {"scaling", "scaling"},
    {"clock", "clock"},  {"latency", "latency"}, {"marshal", "marshal"},
    {"channel", "channel"},
};

const char *scenario_key_kind(const char *key)
{
    for (size_t i = 0; i < ARRAY_LEN(kind_keys); i++) {
        size_t n = strlen(kind_keys[i].key);
        if (strncmp(key, kind_keys[i].key, n) == 0 &&
            (key[n] == 0 || key[n] == '.'))
            return kind_keys[i].kind;
    }
    return NULL;
}

/* Is `key` one of scenario kind `kind`'s (or of every kind)? */
static bool of_kind(const char *key, const char *kind)
{
    const char *k = scenario_key_kind(key);
    return !k || strcmp(k, kind) == 0;
}

static const struct key_spec *find_key(const char *key)
{
    for (size_t i = 0; i < ARRAY_LEN(keys); i++)
        if (strcmp(keys[i].key, key) == 0)
            return &keys[i];
    return NULL;
}

/* True when some key lives below `prefix` (a group such as "sweep"). */
static bool is_group(const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < ARRAY_LEN(keys); i++)
        if (strncmp(keys[i].key, prefix, n) == 0 && keys[i].key[n] == '.')
            return true;
    return false;
}

struct ctx {
    const char *source; /* file name, for messages */
    char *const *sets;
    size_t nsets;
    char *err;
    size_t err_len;
};

/* Where a key's value came from: "--set key" when overridden, else the
 * file. Messages always name one of them. */
static const char *origin(const struct ctx *c, const char *key, char *buf,
                          size_t len)
{
    size_t klen = strlen(key);
    for (size_t i = c->nsets; i-- > 0;)
        if (strncmp(c->sets[i], key, klen) == 0 && c->sets[i][klen] == '=') {
            snprintf(buf, len, "--set %s", key);
            return buf;
        }
    return c->source;
}

static int fail(const struct ctx *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const struct ctx *c, const char *key, const char *fmt, ...)
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
static int check_known(const struct ctx *c, json_t *obj, const char *prefix)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (is_group(path)) {
            if (!json_is_object(v))
                return fail(c, path, "expected an object, got %s",
                            json_type_name(v));
            int rc = check_known(c, v, path);
            if (rc)
                return rc;
        } else if (!find_key(path)) {
            return fail(c, NULL, "unknown key \"%s\"", path);
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
static int parse_set(const struct ctx *c, const char *set, json_t *root)
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
    const struct key_spec *ks = find_key(key);
    if (!ks) {
        snprintf(c->err, c->err_len, "--set %s: unknown key \"%s\"", set,
                 key);
        return -EINVAL;
    }
    json_t *val = NULL;
    int64_t i;
    double d;
    switch (ks->type) {
    case K_STRING:
    case K_ENUM:
        val = json_string(text);
        break;
    case K_INT:
        if (parse_i64(text, &i) == 0)
            val = json_integer(i);
        break;
    case K_NUM:
        if (parse_double(text, &d) == 0)
            val = json_real(d);
        break;
    case K_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
            val = json_boolean(text[0] == 't');
        break;
    case K_KLIST:
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
    case K_STRLIST:
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
                 ks->type == K_INT    ? "an integer"
                 : ks->type == K_BOOL ? "true or false"
                 : ks->type == K_NUM  ? "a number"
                 : ks->type == K_KLIST ? "an integer or a list of them"
                                      : "valid UTF-8 text");
        return -EINVAL;
    }
    return set_path(root, key, val);
}

static int check_range(const struct ctx *c, const struct key_spec *ks,
                       double v)
{
    if (v < ks->min || v > ks->max)
        return fail(c, ks->key, "%.15g is out of range [%.15g, %.15g]", v,
                    ks->min, ks->max);
    return 0;
}

/* A value of a key with choices must be one of them. */
static int check_choice(const struct ctx *c, const struct key_spec *ks,
                        const char *s)
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
static int load_key(const struct ctx *c, const struct key_spec *ks,
                    json_t *v, struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    switch (ks->type) {
    case K_STRING:
    case K_ENUM: {
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
    case K_INT: {
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
    case K_BOOL: {
        if (v && !json_is_boolean(v))
            return fail(c, ks->key, "expected true or false, got %s",
                        json_type_name(v));
        *(bool *)field = v ? json_is_true(v) : ks->def_num != 0;
        return 0;
    }
    case K_NUM: {
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
    case K_KLIST: {
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
    case K_STRLIST: {
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
static json_t *resolve(const struct scenario *sc)
{
    json_t *root = json_object();
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        const struct key_spec *ks = &keys[i];
        const char *field = (const char *)sc + ks->off;
        json_t *v = NULL;
        if (!of_kind(ks->key, sc->kind))
            continue; /* the other kind's keys: unused, not recorded */
        if (strcmp(ks->key, "call.payload_bytes") == 0 &&
            strcmp(sc->call.payload, "string") != 0)
            continue; /* a typed payload has its own size */
        switch (ks->type) {
        case K_STRING:
        case K_ENUM:
            v = json_string(field);
            break;
        case K_INT:
            v = json_integer(*(const int64_t *)field);
            break;
        case K_NUM:
            v = json_real(*(const double *)field);
            break;
        case K_STRLIST: {
            char *const *list = (char *const *)field;
            size_t n = *(const size_t *)((const char *)sc + ks->size);
            v = json_array();
            for (size_t a = 0; a < n; a++)
                json_array_append_new(v, json_string(list[a]));
            break;
        }
        case K_BOOL:
            v = json_boolean(*(const bool *)field);
            break;
        case K_KLIST:
            if (sc->scaling.k.max > 0) {
                v = json_integer(sc->scaling.k.max);
            } else if (sc->scaling.k.n == 0) {
                v = json_null(); /* 1..the CPUs allowed */
            } else {
                v = json_array();
                for (size_t j = 0; j < sc->scaling.k.n; j++)
                    json_array_append_new(v,
                                          json_integer(sc->scaling.k.v[j]));
            }
            break;
        }
        set_path(root, ks->key, v);
    }
    return root;
}

/* A scaling run places its pairs on the CPUs machine.cpus allows (all of
 * this process's when absent): k cannot exceed them, spread needs two,
 * and the client's threads are placed per pair, not by
 * machine.client_cpus. */
static int check_scaling(const struct ctx *c, const struct scenario *sc)
{
    cpu_set_t set;
    char why[160];
    if (sc->machine.client_cpus[0])
        return fail(c, "machine.client_cpus", "not used by a scaling run: "
                    "each pair's client thread is pinned by "
                    "scaling.placement on the CPUs of machine.cpus");
    if (sc->machine.cpus[0]) {
        if (parse_cpu_list(sc->machine.cpus, &set, why, sizeof why) != 0)
            return fail(c, "machine.cpus", "%s", why);
    } else if (sched_getaffinity(0, sizeof set, &set) != 0) {
        CPU_ZERO(&set);
    }
    int64_t ncpu = CPU_COUNT(&set);
    int64_t top = sc->scaling.k.max > 0 ? sc->scaling.k.max
                  : sc->scaling.k.n  ? sc->scaling.k.v[sc->scaling.k.n - 1]
                                     : ncpu;
    if (top > ncpu)
        return fail(c, "scaling.k", "%lld pairs, above the %lld CPUs "
                    "allowed (%s)", (long long)top, (long long)ncpu,
                    sc->machine.cpus[0] ? "machine.cpus" : "this process's");
    if (strcmp(sc->scaling.placement, "spread") == 0 && ncpu < 2)
        return fail(c, "scaling.placement", "spread needs two CPUs; "
                    "machine.cpus allows %lld", (long long)ncpu);
    return 0;
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

/* clock.k: a list of thread counts, none above the CPUs usable (the
 * process's affinity, within machine.cpus when given). */
static int check_clock_k(const struct ctx *c, const struct scenario *sc)
{
    cpu_set_t set;
    char why[160];
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return fail(c, NULL, "sched_getaffinity: %s", strerror(errno));
    if (sc->machine.cpus[0] &&
        parse_cpu_list(sc->machine.cpus, &set, why, sizeof why) != 0)
        return fail(c, "machine.cpus", "%s", why);
    uint64_t ks;
    if (!sc->clock.k[0])
        return 0;
    if (scenario_parse_k(sc->clock.k, &ks) != 0)
        return fail(c, "clock.k", "\"%s\" is not a list of thread counts "
                    "(e.g. 1-4 or 1,2,4; each 1..64)", sc->clock.k);
    int usable = CPU_COUNT(&set);
    for (int k = 64; k > usable; k--)
        if (ks & (1ULL << (k - 1)))
            return fail(c, "clock.k", "%d threads, but only %d CPU(s) are "
                        "usable%s", k, usable,
                        sc->machine.cpus[0] ? " in machine.cpus" : "");
    return 0;
}

/* Rules that tie keys together. */
static int check_cross(const struct ctx *c, const struct scenario *sc)
{
    if (sc->sweep.start > sc->sweep.max_n)
        return fail(c, "sweep.start", "%lld is above sweep.max_n (%lld)",
                    (long long)sc->sweep.start, (long long)sc->sweep.max_n);
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
    if (strcmp(sc->kind, "scaling") == 0) {
        int rc = check_scaling(c, sc);
        if (rc)
            return rc;
    }
    if (strcmp(sc->kind, "clock") == 0) {
        int rc = check_clock_k(c, sc);
        if (rc)
            return rc;
    }
    if (!payload_lookup(sc->call.payload)) {
        char names[160];
        payload_names(names, sizeof names);
        return fail(c, "call.payload", "\"%s\" is not one of: %s",
                    sc->call.payload, names);
    }
    for (size_t i = 0; i < sc->marshal.npayloads; i++) {
        const char *p = sc->marshal.payloads[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(sc->marshal.payloads[j], p) == 0)
                return fail(c, "marshal.payloads", "\"%s\" is listed "
                            "twice", p);
        if (!payload_lookup(p) || strcmp(p, "string") == 0)
            return fail(c, "marshal.payloads", "\"%s\" is not a typed "
                        "payload (None, Octet1K, Octet100K, Odometry, "
                        "RangeSensor, SharedBelief)", p);
    }
    if (strcmp(sc->call.payload, "string") != 0 &&
        strcmp(sc->kind, "rate") == 0)
        return fail(c, "call.payload", "kind rate echoes strings only "
                    "(call.payload_bytes)");
    if (strcmp(sc->call.payload, "string") == 0 &&
        strcmp(sc->kind, "channel") == 0)
        return fail(c, "call.payload", "kind channel pushes events: give "
                    "one of the typed payloads (None, Octet1K, ...)");
    bool external = strcmp(sc->server.kind, "external") == 0;
    if (external && !sc->server.iors[0])
        return fail(c, "server.iors", "server.kind \"external\" needs a "
                    "file of IORs (or \"-\" for standard input)");
    if (!external && sc->server.iors[0])
        return fail(c, "server.iors", "only for server.kind \"external\"");
    if (!external && sc->client.nallow_hosts)
        return fail(c, "client.allow_hosts",
                    "only for server.kind \"external\"");
    if (external && strcmp(sc->kind, "sweep") != 0)
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
static int load_root(const char *source, json_t *root,
                     const json_error_t *jerr, char *const *sets,
                     size_t nsets, struct scenario *sc, char *err,
                     size_t err_len)
{
    struct ctx c = {source, sets, nsets, err, err_len};
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
    for (size_t i = 0; !rc && i < ARRAY_LEN(keys); i++)
        rc = load_key(&c, &keys[i], get_path(root, keys[i].key), sc);
    /* A key of the other kind would be silently unused: refuse it. */
    for (size_t i = 0; !rc && i < ARRAY_LEN(keys); i++)
        if (!of_kind(keys[i].key, sc->kind) && get_path(root, keys[i].key))
            rc = fail(&c, keys[i].key, "only for \"kind\": \"%s\" "
                      "scenarios (this one is \"%s\")",
                      scenario_key_kind(keys[i].key), sc->kind);
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
        sc->resolved = resolve(sc);
    if (rc)
        scenario_free(sc);
    return rc;
}

int scenario_load(const char *path, char *const *sets, size_t nsets,
                  struct scenario *sc, char *err, size_t err_len)
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
    return load_root(path, root, &jerr, sets, nsets, sc, err, err_len);
}

int scenario_load_text(const char *source, const char *text, size_t len,
                       char *const *sets, size_t nsets, struct scenario *sc,
                       char *err, size_t err_len)
{
    json_error_t jerr;
    memset(sc, 0, sizeof *sc);
    str_copy(sc->source, sizeof sc->source, source);
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    return load_root(source, root, &jerr, sets, nsets, sc, err, err_len);
}

void scenario_free(struct scenario *sc)
{
    for (size_t i = 0; i < sc->server.nargs; i++)
        free(sc->server.args[i]);
    sc->server.nargs = 0;
    for (size_t i = 0; i < sc->clock.nsources; i++)
        free(sc->clock.sources[i]);
    sc->clock.nsources = 0;
    for (size_t i = 0; i < sc->client.nallow_hosts; i++)
        free(sc->client.allow_hosts[i]);
    sc->client.nallow_hosts = 0;
    for (size_t i = 0; i < sc->marshal.npayloads; i++)
        free(sc->marshal.payloads[i]);
    sc->marshal.npayloads = 0;
    json_decref(sc->resolved);
    sc->resolved = NULL;
}

int64_t scenario_next_n(const struct scenario *sc, int64_t n)
{
    if (sc->sweep.growth > 1) {
        int64_t next = (int64_t)ceil((double)n * sc->sweep.growth);
        return next > n ? next : n + 1;
    }
    return n + sc->sweep.step;
}

void scenario_print_keys(FILE *f)
{
    static const char *const type_names[] = {"string", "choice", "integer",
                                             "number", "list", "boolean",
                                             "k-list"};
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        const struct key_spec *ks = &keys[i];
        fprintf(f, "  %-24s %-8s ", ks->key, type_names[ks->type]);
        switch (ks->type) {
        case K_INT:
        case K_NUM:
            fprintf(f, "[%.15g..%.15g] default %.15g", ks->min, ks->max,
                    ks->def_num);
            break;
        case K_ENUM:
            for (const char *const *ch = ks->choices; *ch; ch++)
                fprintf(f, "%s%s", ch == ks->choices ? "" : "|", *ch);
            fprintf(f, " default %s", ks->def_str);
            break;
        case K_STRING:
            fprintf(f, "default \"%s\"", ks->def_str);
            break;
        case K_BOOL:
            fprintf(f, "default %s", ks->def_num != 0 ? "true" : "false");
            break;
        case K_STRLIST:
            fprintf(f, "default []");
            break;
        case K_KLIST:
            fprintf(f, "[%.15g..%.15g] or a list, default 1..CPUs", ks->min,
                    ks->max);
            break;
        }
        fprintf(f, "\n  %24s %s\n", "", ks->help);
    }
}
