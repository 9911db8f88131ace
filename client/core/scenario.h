/* Scenario files: loads a file, applies --set overrides, validates
 * strictly against key tables and fills defaults. The keys every kind has
 * are this module's table; each kind of measurement brings its own rows
 * and cross-key rules (struct scenario_kind, filled in by each file of kinds/ and
 * handed in by the kind registry as a struct scenario_schema), the way a
 * fio engine carries its options. */
#ifndef ORBBENCH_SCENARIO_H
#define ORBBENCH_SCENARIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCENARIO_MAX_ARGS 64
#define SCENARIO_MAX_HOSTS 32
#define SCENARIO_MAX_K 1024 /* entries of a scaling.k list */

/* scaling.k: max > 0 means 1..max; else the n values of v (increasing);
 * neither (max 0, n 0): 1..the CPUs allowed. */
struct scenario_klist {
    int64_t max;
    size_t n;
    int64_t v[SCENARIO_MAX_K];
};
#define SCENARIO_MAX_CLOCK_SOURCES 16
#define SCENARIO_MAX_PAYLOADS 16

struct scenario {
    char source[512]; /* the file it came from */
    char name[128];
    char description[512];
    char kind[16]; /* a kind of measurement's name: "sweep" (default),
                    * or another of the schema's kinds */
    char transport[16]; /* "tcp" | "unix" */
    char mode[32];      /* a call mode's name */
    struct {
        char kind[32];   /* "omniorb" */
        char orb[64];    /* ORB installation id, "omniorb-system" */
        char path[512];  /* "" = the installation's binary */
        char *args[SCENARIO_MAX_ARGS];
        size_t nargs;
        int64_t start_timeout_ms;
        int64_t start_parallel;
        int64_t work_us; /* CPU each call burns in the server, 0 = none */
        char iors[512];  /* kind "external": the IOR list, "-" = stdin */
    } server;
    struct {
        int64_t start;
        int64_t step;
        double growth; /* 1 = linear (add step), > 1 = geometric */
        int64_t max_n;
        double max_ms;
        int64_t rounds;
        int64_t warmup_rounds;
        double max_seconds;
        /* The crossing search: bisect until the bracket is within
         * resolution × N (0: stop at the first step over, unconfirmed). */
        double resolution;
        int64_t near_rounds; /* timed rounds of each confirmation/probe */
        int64_t max_probes;  /* bound on the search's measurements */
    } sweep;
    struct {
        int64_t timeout_ms;
        int64_t payload_bytes;
        char payload[32]; /* "string" (payload_bytes), or payload.h's */
    } call;
    struct {
        int64_t pool_size;       /* mode "pool": worker threads */
        int64_t thread_stack_kb; /* stack of every client thread */
        bool connect;            /* false: idle servers, no calls */
        /* kind "external": hosts or CIDR networks outside loopback the
         * client may connect to */
        char *allow_hosts[SCENARIO_MAX_HOSTS];
        size_t nallow_hosts;
    } client;
    struct {
        int64_t budget_ms;      /* probing all servers may take this long */
        int64_t per_server_max; /* list each server when N <= this */
    } probe;
    struct {
        int64_t mem_limit_mb;  /* 0 = no memory cgroup */
        bool limit_client;     /* the client joins the cgroup too */
        char cpus[64];         /* "" = anywhere */
        char client_cpus[64];
    } machine;
    /* kind "rate": the upcall rate of k servers, w requests in flight on
     * each one's connection, for repeats windows of duration_s. */
    struct {
        int64_t window;    /* requests in flight per connection; oneway:
                            * requests per write */
        double duration_s; /* one repeat's measuring window */
        double warmup_s;   /* untimed, before the first repeat */
        int64_t repeats;
        int64_t servers;   /* k, each with its own connection */
        bool oneway;       /* GIOP oneway requests, counted by the server */
    } rate;
    /* kind "scaling": k client/server pairs, each pinned, ping-pong for
     * duration_s, for every k of the list. */
    struct {
        double duration_s;
        double warmup_s;   /* untimed, before each k's repeats */
        int64_t repeats;
        char placement[8]; /* "same" | "spread" */
        struct scenario_klist k;
    } scaling;
    /* kind "clock": k threads, each pinned to its own CPU, call a time
     * source as often as they can for duration_s, repeats times. */
    struct {
        char *sources[SCENARIO_MAX_CLOCK_SOURCES]; /* none = all */
        size_t nsources;
        double duration_s;
        int64_t repeats;
        char k[64]; /* thread counts, "1-4" or "1,2,4"; "" = 1..CPUs */
    } clock;
    /* kind "latency": warmup_calls, then calls synchronous calls to the
     * servers in turn, every call's time kept. */
    struct {
        int64_t servers;
        int64_t warmup_calls;
        int64_t calls;
        double max_seconds; /* the whole run's bound */
    } latency;
    /* kind "marshal": each payload encoded `encodes` times per repeat, in
     * the C codec and (omniorb) in omniORB's C++ marshaling. */
    struct {
        char *payloads[SCENARIO_MAX_PAYLOADS]; /* none = the six */
        size_t npayloads;
        int64_t encodes;
        int64_t repeats;
        bool omniorb;
        double max_seconds;
    } marshal;
    /* kind "channel": events pushed one at a time to an event consumer
     * that logs them, through an omniEvents channel or directly. */
    struct {
        char via[16];          /* "channel" | "direct" */
        int64_t events;        /* measured */
        int64_t warmup_events;
        int64_t deadline_ms;   /* per phase: every event logged by then */
        int64_t cycle_period_ns; /* omniEvents's CyclePeriod_ns */
        int64_t log_mb;        /* 0: sized for the run */
        char omnievents[256];  /* its executable */
    } channel;
    /* The fully resolved scenario (defaults filled in) for the result. */
    json_t *resolved;
    /* The schema it was loaded with (scenario_free walks its lists). */
    const struct scenario_schema *schema;
};

/* A key's type. */
enum scenario_key_type {
    SCENARIO_STRING, SCENARIO_ENUM, SCENARIO_INT, SCENARIO_NUM,
    SCENARIO_STRLIST, SCENARIO_BOOL,
    SCENARIO_KLIST, /* an integer K (1..K) or a list of integers */
};

/* One key: a row of a key table. */
struct scenario_key {
    const char *key; /* dotted path */
    enum scenario_key_type type;
    size_t off;  /* into struct scenario */
    size_t size; /* STRING/ENUM: buffer size; STRLIST: the offset of its
                  * size_t count of entries */
    double min, max; /* INT/NUM: range; STRING: min 1 = not empty;
                      * STRLIST/KLIST: max entries */
    const char *const *choices; /* ENUM (and STRLIST, optional),
                                 * NULL-terminated */
    const char *def_str;
    double def_num;
    const char *help;
};

#define SCENARIO_OFF(f) offsetof(struct scenario, f)
#define SCENARIO_SZ(f) sizeof(((struct scenario *)0)->f)

/* Where a check's message goes: the file and --set options being loaded. */
struct scenario_ctx;

/* Fill the load's error message, naming the file (or the --set option
 * that gave `key`) and `key` (NULL: the file alone). Returns -EINVAL. */
int scenario_fail(const struct scenario_ctx *c, const char *key,
                  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What a kind of measurement brings to a scenario: its name, its key rows
 * (keys of groups that only it uses; present in another kind's scenario,
 * they are refused) and the rules that tie its keys to others. */
struct scenario_kind {
    const char *name;
    const struct scenario_key *keys;
    size_t nkeys;
    /* Cross-key rules, after every key is loaded: 0, or scenario_fail's
     * -EINVAL. Optional. */
    int (*check)(const struct scenario_ctx *c, const struct scenario *sc);
    /* server.kind external (servers orbbench did not start) is for this
     * kind. */
    bool external_servers;
};

/* Every kind the loader knows, and the rules on the common keys that need
 * more than this layer knows (call.payload's names). */
struct scenario_schema {
    const struct scenario_kind *const *kinds;
    size_t nkinds;
    int (*check)(const struct scenario_ctx *c, const struct scenario *sc);
};

/* Load `path`, apply `nsets` overrides "dotted.key=value" and validate.
 * Returns 0, or -EINVAL (bad content) / -errno (unreadable) with a one-line
 * message in err naming the file or --set and the key. On success the
 * caller owns *sc and frees it with scenario_free. */
int scenario_load(const struct scenario_schema *schema, const char *path,
                  char *const *sets, size_t nsets, struct scenario *sc,
                  char *err, size_t err_len);
/* The same from `len` bytes of JSON text (no NUL needed); `source` stands
 * for the file name in messages and gives the default name. */
int scenario_load_text(const struct scenario_schema *schema,
                       const char *source, const char *text, size_t len,
                       char *const *sets, size_t nsets, struct scenario *sc,
                       char *err, size_t err_len);
void scenario_free(struct scenario *sc);

/* Parse a clock.k list ("2", "1-4", "1,2,8") into k_set (bit k-1 set for
 * each k, k in 1..64). 0, or -EINVAL. */
int scenario_parse_k(const char *list, uint64_t *k_set);

/* The next N of the sweep after `n` servers (the caller clamps to max_n). */
int64_t scenario_next_n(const struct scenario *sc, int64_t n);

/* Print every key with its type, range, default and help to `f`: the
 * common ones, then each kind's. */
void scenario_print_keys(const struct scenario_schema *schema, FILE *f);

#endif
