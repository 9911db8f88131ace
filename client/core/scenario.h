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
/* The longest entry of a list key (server.args words...), in bytes: a
 * longer one is refused, naming the key, never cut. */
#define SCENARIO_MAX_WORD 1023
#define SCENARIO_MAX_HOSTS 32
#define SCENARIO_MAX_K 1024 /* entries of a k-list (scaling.k) */
/* Room for a kind's options: each kind checks its struct fits
 * (SCENARIO_KIND_OPTS). */
#define SCENARIO_KIND_OPTS_BYTES 16384

/* A k-list key (scaling.k): max > 0 means 1..max; else the n values of v
 * (increasing); neither (max 0, n 0): 1..the CPUs allowed. */
struct scenario_klist {
    int64_t max;
    size_t n;
    int64_t v[SCENARIO_MAX_K];
};

/* The JVM's settings for a server kind or a caller that runs on one
 * (JacORB), each at its default the JVM's own choice
 * (docs/servers.md#jacorb). */
struct scenario_jvm {
    int64_t heap_max_mb;     /* -Xmx; 0: the JVM's (a quarter of memory) */
    int64_t heap_initial_mb; /* -Xms; 0: the JVM's (1/64 of memory) */
    int64_t thread_stack_kb; /* -Xss; 0: the JVM's (1 MB on x86_64) */
    char gc[16];             /* "default" (the JVM's), "serial", ... */
    char jit[16];            /* "tiered" (the JVM's), "c1", "c2",
                              * "interpreter" */
    bool cds;                /* class data sharing (the JVM's: on) */
};

struct scenario {
    char source[512]; /* the file it came from */
    char name[128];
    char description[512];
    char kind[16]; /* a kind of measurement's name: "sweep" (default),
                    * or another of the schema's kinds */
    char transport[16]; /* a transport's name (net/transport.c) */
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
        int64_t work_ns; /* more of it, in ns (a finer step), 0 = none */
        char iors[512];  /* kind "external": the IOR list, "-" = stdin */
        struct scenario_jvm jvm; /* kinds on a JVM only */
    } server;
    /* Who makes the calls (docs/callers.md): orbbench's own client
     * ("none", the default), or a caller, an ORB's own client. */
    struct {
        char kind[32];   /* "none", or a caller (host/caller_kind.c) */
        char orb[64];    /* its installation: "system" (KIND-system), or a
                          * build's id */
        char mode[32];   /* one of its modes; "": its default */
        char *args[SCENARIO_MAX_ARGS]; /* to its ORB_init */
        size_t nargs;
        struct scenario_jvm jvm; /* callers on a JVM only */
    } caller;
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
    /* The scenario's kind's own options (its struct, e.g. kinds/rate.c's
     * struct rate_opts, laid over this block: scenario_kind_opts). */
    _Alignas(max_align_t) unsigned char kind_opts[SCENARIO_KIND_OPTS_BYTES];
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
/* A kind's key row: field f of its options struct `type`. */
#define SCENARIO_KIND_OFF(type, f) \
    (offsetof(struct scenario, kind_opts) + offsetof(type, f))
#define SCENARIO_KIND_SZ(type, f) sizeof(((type *)0)->f)

/* The kind's options of `sc`, as its struct `type` (which must fit). */
#define SCENARIO_KIND_OPTS(type, sc)                                       \
    ((void)sizeof(char[sizeof(type) <= SCENARIO_KIND_OPTS_BYTES ? 1 : -1]), \
     (const type *)(const void *)(sc)->kind_opts)

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
    /* Groups of common keys only some kinds use ("mode", "client",
     * "probe"), NULL-terminated: present in a scenario of a kind that does
     * not list them, they are refused. */
    const char *const *uses;
};

/* Every kind the loader knows, and the rules on the common keys that need
 * more than this layer knows (call.payload's names). */
struct scenario_schema {
    const struct scenario_kind *const *kinds;
    size_t nkinds;
    int (*check)(const struct scenario_ctx *c, const struct scenario *sc);
    /* The server kinds, server.kind's choices: the i-th one's name (i
     * from 0), NULL past the last. Their one list is the host layer's
     * (host/server_kind.c), above this one. */
    const char *(*server_name)(size_t i);
    /* The callers, caller.kind's choices after "none" (orbbench's own
     * client): the i-th one's name, NULL past the last; their one list
     * is host/caller_kind.c's. */
    const char *(*caller_name)(size_t i);
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

/* Print every key with its type, range, default and help to `f`: the
 * common ones, then each kind's. */
void scenario_print_keys(const struct scenario_schema *schema, FILE *f);

#endif
