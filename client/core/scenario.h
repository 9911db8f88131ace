/* Scenario files: the only module that knows the JSON scenario keys. Loads
 * a file, applies --set overrides, validates strictly and fills defaults. */
#ifndef ORBBENCH_SCENARIO_H
#define ORBBENCH_SCENARIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCENARIO_MAX_ARGS 64
/* The longest entry of a list key (server.args words...), in bytes: a
 * longer one is refused, naming the key, never cut. */
#define SCENARIO_MAX_WORD 1023
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
    char kind[16]; /* "sweep" (default) | "rate" | "scaling" | "clock" |
                    * "latency" | "marshal" | "channel" */
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
};

/* Load `path`, apply `nsets` overrides "dotted.key=value" and validate.
 * Returns 0, or -EINVAL (bad content) / -errno (unreadable) with a one-line
 * message in err naming the file or --set and the key. On success the
 * caller owns *sc and frees it with scenario_free. */
int scenario_load(const char *path, char *const *sets, size_t nsets,
                  struct scenario *sc, char *err, size_t err_len);
/* The same from `len` bytes of JSON text (no NUL needed); `source` stands
 * for the file name in messages and gives the default name. */
int scenario_load_text(const char *source, const char *text, size_t len,
                       char *const *sets, size_t nsets, struct scenario *sc,
                       char *err, size_t err_len);
void scenario_free(struct scenario *sc);

/* Parse a clock.k list ("2", "1-4", "1,2,8") into k_set (bit k-1 set for
 * each k, k in 1..64). 0, or -EINVAL. */
int scenario_parse_k(const char *list, uint64_t *k_set);

/* The kind of measurement a key belongs to ("sweep", "rate"), or NULL
 * for keys every kind uses. A key of the other kind is refused. */
const char *scenario_key_kind(const char *key);

/* The next N of the sweep after `n` servers (the caller clamps to max_n). */
int64_t scenario_next_n(const struct scenario *sc, int64_t n);

/* Print every key with its type, range, default and help to `f`. */
void scenario_print_keys(FILE *f);

#endif
