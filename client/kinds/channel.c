/* An event channel in the path (scenario kind "channel"), after the Miro
 * evaluation's Table 8.3: the client pushes Bench::<Name>Event anys
 * (call.payload) one at a time, each stamped with CLOCK_MONOTONIC, either
 * through an omniEvents event channel (channel.via "channel": the client
 * is the push supplier, speaking GIOP itself) or straight to the push
 * consumer (channel.via "direct"); the consumer (servers/omniorb/
 * event_consumer.cc) appends each event to a memory-mapped log with the
 * time it was logged. Per event: push to logged and push to received
 * (read back from the log: same machine, same clock) and the push call's
 * own round trip, after channel.warmup_events untimed ones. omniEvents
 * and the consumer are started by the spawner (servers 0 and 1) and
 * stopped with it.
 *
 * One thread pushes an event,
 * waits until the consumer has logged it (it looks at the log's record
 * count every POLL_NS), then pushes the next, so no event waits behind
 * another; the times are read back from the log at the end. The push
 * request is encoded once: each push rewrites only its request id and
 * its sent_ns stamp, so the client's own work per event is a few stores
 * and the system calls. */
#include "kinds/kind.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "codec/event_log.h"
#include "codec/giop.h"
#include "net/invoke.h"
#include "codec/ior.h"
#include "codec/payload.h"
#include "kinds/run.h"
#include "kinds/servers.h"
#include "core/result.h"
#include "host/server_kind.h"
#include "core/stats.h"
#include "core/util.h"

static const char *const channel_vias[] = {"channel", "direct", NULL};

/* kind "channel": events pushed one at a time to an event consumer
 * that logs them, through an omniEvents channel or directly. */
struct channel_opts {
    char via[16];          /* "channel" | "direct" */
    int64_t events;        /* measured */
    int64_t warmup_events;
    int64_t deadline_ms;   /* per phase: every event logged by then */
    int64_t cycle_period_ns; /* omniEvents's CyclePeriod_ns */
    int64_t log_mb;        /* 0: sized for the run */
    char omnievents[256];  /* its executable */
};

/* The scenario's channel options. */
static const struct channel_opts *channel_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct channel_opts, sc);
}

/* The keys of kind channel: fields of struct channel_opts. */
#define OPT(f) SCENARIO_KIND_OFF(struct channel_opts, f)
#define OPT_SZ(f) SCENARIO_KIND_SZ(struct channel_opts, f)
static const struct scenario_key channel_keys[] = {
    {.key = "channel.via", .type = SCENARIO_ENUM, .off = OPT(via),
     .size = OPT_SZ(via), .choices = channel_vias, .def_str = "channel",
     .help = "kind channel: push each event through an omniEvents event "
     "channel to the consumer, or straight to it (direct)"},
    {.key = "channel.events", .type = SCENARIO_INT, .off = OPT(events),
     .min = 1, .max = 10000000, .def_num = 10000,
     .help = "kind channel: events measured, one in flight at a time (each "
     "logged before the next is pushed)"},
    {.key = "channel.warmup_events", .type = SCENARIO_INT,
     .off = OPT(warmup_events), .max = 10000000, .def_num = 1000,
     .help = "kind channel: events pushed and logged before the measured "
     "ones, not measured"},
    {.key = "channel.deadline_ms", .type = SCENARIO_INT,
     .off = OPT(deadline_ms), .min = 1, .max = 86400000, .def_num = 60000,
     .help = "kind channel: the warm-up's events, then the measured ones, "
     "must all be logged within this (ms) or the run fails"},
    {.key = "channel.cycle_period_ns", .type = SCENARIO_INT,
     .off = OPT(cycle_period_ns), .min = 1, .max = 4294967295.0,
     .def_num = 100000,
     .help = "kind channel: omniEvents's CyclePeriod_ns, how long its "
     "channel sleeps between moving events from suppliers to consumers (its "
     "own default: 100000000)"},
    {.key = "channel.log_mb", .type = SCENARIO_INT, .off = OPT(log_mb),
     .min = 1, .max = 65536,
     .help = "kind channel: the consumer's log file (MiB; default: sized for "
     "the run's events)"},
    {.key = "channel.omnievents", .type = SCENARIO_STRING,
     .off = OPT(omnievents), .size = OPT_SZ(omnievents), .min = 1,
     .def_str = "/usr/sbin/omniEvents",
     .help = "kind channel: the omniEvents executable (Debian's omnievents)"},
};
#undef OPT
#undef OPT_SZ

/* Events are typed payloads: the channel carries anys. */
static int channel_check(const struct scenario_ctx *c,
                         const struct scenario *sc)
{
    if (strcmp(sc->call.payload, "string") == 0)
        return scenario_fail(c, "call.payload", "kind channel pushes "
                             "events: give one of the typed payloads "
                             "(None, Octet1K, ...)");
    return 0;
}


/* Spawner groups and server indices: omniEvents, then the consumer. */
enum { EVENTS_SERVER = 0, CONSUMER_SERVER = 1 };
#define CONSUMER_BINARY "omniorb-event-consumer"
/* omniEvents's factory is this object key in its INS POA. */
#define FACTORY_KEY "omniEvents"
/* Every event carries the value of this seed: the consumer does not
 * check values, and one encoding serves every push. */
#define EVENT_SEED 1u
#define POLL_NS 20000
/* The log's room beyond its records: header and type names. */
#define LOG_SLACK_BYTES 65536

/* What the spawner needs to start both processes, and the run to find
 * them: filled by channel_spawn_setup before the spawner is forked (which
 * copies it), read by channel_make_argv in the spawner. */
static struct channel_setup {
    bool via_channel;
    char omnievents[256];
    char consumer[PATH_MAX];
    char data_dir[PATH_MAX];  /* omniEvents's database */
    char log_path[PATH_MAX];  /* the consumer's log */
    char port[8];             /* omniEvents's loopback TCP port */
    char factory[64];         /* corbaloc of its factory */
    char events_unix[PATH_MAX + 16]; /* transport unix: its endpoint */
    char consumer_ep[PATH_MAX + 16];
    char log_bytes[24];
    uint64_t log_bytes_n;
    char cycle_ns[24];
    char *const *args; /* server.args, for the consumer */
    size_t nargs;
} setup;

/* spawn_argv_fn: server 0 is omniEvents, server 1 the consumer. */
static void channel_make_argv(const void *arg, unsigned index, char **argv,
                              char *buf, size_t buf_len)
{
    const struct channel_setup *s = arg;
    size_t n = 0;
    (void)buf;
    (void)buf_len;
    if (index == EVENTS_SERVER) {
        /* omniEvents listens on every interface at the port it is given
         * and publishes the machine's address, unless omniORB is told a
         * host: OMNIORB_USEHOSTNAME makes its one TCP endpoint
         * 127.0.0.1:port (env execs it: the same process). */
        argv[n++] = (char *)"/usr/bin/env";
        argv[n++] = (char *)"OMNIORB_USEHOSTNAME=127.0.0.1";
        argv[n++] = (char *)s->omnievents;
        argv[n++] = (char *)"-f"; /* foreground */
        argv[n++] = (char *)"-v"; /* print the factory's IOR */
        argv[n++] = (char *)"-l";
        argv[n++] = (char *)s->data_dir;
        argv[n++] = (char *)"-p";
        argv[n++] = (char *)s->port;
        if (s->events_unix[0]) {
            argv[n++] = (char *)"-ORBendPoint";
            argv[n++] = (char *)s->events_unix;
        }
    } else {
        argv[n++] = (char *)s->consumer;
        argv[n++] = (char *)"-ORBendPoint";
        argv[n++] = (char *)s->consumer_ep;
        argv[n++] = (char *)"--log";
        argv[n++] = (char *)s->log_path;
        argv[n++] = (char *)"--log-bytes";
        argv[n++] = (char *)s->log_bytes;
        if (s->via_channel) {
            argv[n++] = (char *)"--factory";
            argv[n++] = (char *)s->factory;
            argv[n++] = (char *)"--cycle-period-ns";
            argv[n++] = (char *)s->cycle_ns;
        }
        for (size_t i = 0; i < s->nargs && n < SPAWN_MAX_ARGS; i++)
            argv[n++] = s->args[i];
    }
    argv[n] = NULL;
}

/* A loopback TCP port free now (the kernel's pick). 0, or -errno. */
static int free_port(uint16_t *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
                     getsockname(fd, (struct sockaddr *)&a, &len) != 0
                 ? -errno
                 : 0;
    if (fd >= 0)
        close(fd);
    *port = ntohs(a.sin_port);
    return rc;
}

/* The encoded size of one event's any, for the log's size. */
static size_t any_bytes(const struct payload_type *pt)
{
    struct cdr_out o;
    cdr_out_init(&o, cdr_host_little());
    payload_encode_event_any(pt, EVENT_SEED, 0, &o);
    size_t n = o.err ? 0 : o.len;
    cdr_out_free(&o);
    return n;
}

static int channel_spawn_setup(const struct scenario *sc, const char *bin_dir,
                        struct spawn_config *cfg, char *why, size_t why_len)
{
    struct channel_setup *s = &setup;
    const char *run = cfg->log_dir;
    memset(s, 0, sizeof *s);
    s->via_channel = strcmp(channel_opts(sc)->via, "channel") == 0;
    s->args = sc->server.args;
    s->nargs = sc->server.nargs;
    snprintf(s->consumer, sizeof s->consumer, "%s/%s", bin_dir,
             CONSUMER_BINARY);
    if (access(s->consumer, X_OK) != 0) {
        int e = errno;
        snprintf(why, why_len, "event consumer %s: %s (run make first?)",
                 s->consumer, strerror(e));
        return -e;
    }
    str_copy(s->omnievents, sizeof s->omnievents, channel_opts(sc)->omnievents);
    if (s->via_channel && access(s->omnievents, X_OK) != 0) {
        int e = errno;
        snprintf(why, why_len, "key \"channel.omnievents\": %s: %s (Debian's "
                 "omnievents; scripts/install-deps installs it)",
                 s->omnievents, strerror(e));
        return -e;
    }
    uint16_t port = 0;
    int rc = s->via_channel ? free_port(&port) : 0;
    if (rc) {
        snprintf(why, why_len, "no free loopback port for omniEvents: %s",
                 strerror(-rc));
        return rc;
    }
    snprintf(s->port, sizeof s->port, "%u", port);
    snprintf(s->factory, sizeof s->factory, "corbaloc::127.0.0.1:%u/%s", port,
             FACTORY_KEY);
    snprintf(s->cycle_ns, sizeof s->cycle_ns, "%lld",
             (long long)channel_opts(sc)->cycle_period_ns);
    snprintf(s->data_dir, sizeof s->data_dir, "%s/omnievents", run);
    snprintf(s->log_path, sizeof s->log_path, "%s/events.log", run);
    bool on_unix = strcmp(sc->transport, "unix") == 0;
    if (on_unix && s->via_channel)
        snprintf(s->events_unix, sizeof s->events_unix,
                 "giop:unix:%s/events.sock", run);
    if (on_unix)
        snprintf(s->consumer_ep, sizeof s->consumer_ep,
                 "giop:unix:%s/consumer.sock", run);
    else
        str_copy(s->consumer_ep, sizeof s->consumer_ep, "giop:tcp:127.0.0.1:");
    if (s->via_channel && mkdir(s->data_dir, 0700) != 0) {
        int e = errno;
        snprintf(why, why_len, "mkdir %s: %s", s->data_dir, strerror(e));
        return -e;
    }
    /* Room for every event, warm-up included; the consumer logs the
     * event struct, never more than its any. */
    uint64_t events = (uint64_t)(channel_opts(sc)->events +
                                 channel_opts(sc)->warmup_events);
    uint64_t bytes = channel_opts(sc)->log_mb
                         ? (uint64_t)channel_opts(sc)->log_mb << 20
                         : LOG_SLACK_BYTES +
                               events * event_log_record_bytes(any_bytes(
                                            payload_lookup(sc->call.payload)));
    s->log_bytes_n = bytes;
    snprintf(s->log_bytes, sizeof s->log_bytes, "%llu",
             (unsigned long long)bytes);
    const struct machine *m = cfg->groups[0].machine;
    cfg->make_argv = channel_make_argv;
    cfg->groups[EVENTS_SERVER] = (struct spawn_group){
        .make_argv_arg = s, .machine = m, .ready_marker = "IOR:"};
    cfg->groups[CONSUMER_SERVER] =
        (struct spawn_group){.make_argv_arg = s, .machine = m};
    cfg->ngroups = 2;
    return 0;
}

static const char *channel_unsupported(const struct scenario *sc,
                                const struct server_kind *server,
                                const char **key)
{
    if (strcmp(server->name, "omniorb") != 0) {
        *key = "server.kind";
        return "has no event consumer (kind channel: omniorb only)";
    }
    if (strcmp(sc->server.orb, "omniorb-system") != 0 &&
        strcmp(sc->server.orb, "system") != 0) {
        *key = "server.orb";
        return "is not the system omniORB, the only one the event consumer "
               "and omniEvents are built for";
    }
    if (sc->server.path[0]) {
        *key = "server.path";
        return "is an echo server: a channel run starts omniEvents and "
               "the event consumer";
    }
    return NULL;
}

/* ---- the run ------------------------------------------------------------ */

struct chan {
    struct side *s;
    struct run_outcome *o;
    const struct payload_type *pt;
    const char *label; /* "event channel" or "direct push": errors say it */
    int64_t t0_ns;
    pid_t events_pid, consumer_pid;
    struct target target; /* where the pushes go */
    struct invoke inv;
    struct event_log log;
    struct cdr_out req; /* the push, encoded once */
    size_t stamp_at;    /* where its sent_ns lies in req.data */
    const uint8_t *key; /* the push target's object key */
    size_t key_len;
    struct ior proxy;   /* the channel's ProxyPushConsumer */
    int64_t *sent;      /* each measured event's stamp */
    struct samples call_ns;
    int64_t pushed;     /* measured events pushed (their push replied) */
    /* measured events whose stamp went out: pushed, or one more whose
     * push had no reply, which may still reach the consumer */
    int64_t stamped;
    uint64_t base;      /* log records before the measured events */
    /* A run stopped because events were not delivered: the log's records
     * then, the ones its message counts; 0: read them all. */
    uint64_t records_at_stop;
    json_t *info;       /* doc.channel */
};

/* Stop the run for a process that failed: it died (server_died, with its
 * status), or `what` failed while it ran (call_failed). */
static void process_failed(struct chan *c, pid_t pid, const char *who,
                           const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void process_failed(struct chan *c, pid_t pid, const char *who,
                           const char *fmt, ...)
{
    char what[600], at[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(at, sizeof at, " (%s)", c->label);
    servers_failed(c->s, c->o,
                   &(struct servers_failure){.name = who,
                                             .pid = pid,
                                             .why = what,
                                             .at = at,
                                             .oom_kills = -1});
}

/* Start server `index` of its own group. 0, or -1 with the run stopped. */
static int spawn_one(struct chan *c, unsigned index, const char *who,
                     struct spawn_result *r)
{
    struct servers_want w = {
        .group = (int)index,
        .first = index,
        .count = 1,
        .cpu = -1,
        .who = who,
        .oom_kills = -1,
    };
    return servers_start(c->s, c->o, &w, r) == 1 ? 0 : -1;
}

/* A set-up call on the channel's connection: `op` on object `key`, with
 * a nil reference as its argument when nil_arg; the object reference it
 * returns into *ref when ref. 0, or -1 with the run stopped. */
static int setup_call(struct chan *c, const uint8_t *key, size_t key_len,
                      const char *op, bool nil_arg, struct ior *ref)
{
    struct cdr_out o;
    struct cdr_in body;
    cdr_out_init(&o, cdr_host_little());
    size_t size_at = giop_request_begin(&o, 0, GIOP_RESPONSE_SYNC_WITH_TARGET,
                                        key, key_len, op, nil_arg);
    if (nil_arg)
        ior_put_nil(&o);
    int rc = giop_message_end(&o, size_at);
    if (!rc)
        rc = invoke_call(&c->inv, &o,
                         now_ns() + c->s->sc->call.timeout_ms * 1000000,
                         &body);
    cdr_out_free(&o);
    if (rc) {
        process_failed(c, c->events_pid, "omniEvents", "%s: %s", op,
                       c->inv.why);
        return -1;
    }
    if (!ref)
        return 0;
    rc = ior_read(&body, ref);
    /* Every object of the channel lives in omniEvents: the same endpoint,
     * so one connection serves them all. */
    bool here = ref->has_unix && c->target.unix_path[0]
                    ? strcmp(ref->unix_path, c->target.unix_path) == 0
                    : strcmp(ref->host, c->target.host) == 0 &&
                          ref->port == c->target.port;
    if (rc || !here) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "%s: %s returned %s",
                           c->label, op,
                           rc ? ior_strerror(rc)
                              : "an object at another endpoint (not "
                                "followed)");
        return -1;
    }
    return 0;
}

/* The push request for `key`, and where its sent_ns lies: the any is
 * encoded twice with different stamps, and the eight bytes that differ
 * are the stamp's, whatever the TypeCode before it. 0 or -errno. */
static int build_push(struct chan *c)
{
    struct cdr_out probe;
    int rc = 0;
    cdr_out_init(&c->req, cdr_host_little());
    cdr_out_init(&probe, cdr_host_little());
    for (int k = 0; k < 2 && !rc; k++) {
        struct cdr_out *o = k ? &probe : &c->req;
        size_t size_at = giop_request_begin(
            o, 0, GIOP_RESPONSE_SYNC_WITH_TARGET, c->key, c->key_len, "push",
            true);
        payload_encode_event_any(c->pt, EVENT_SEED, k ? UINT64_MAX : 0, o);
        rc = giop_message_end(o, size_at);
    }
    size_t first = 0, differ = 0;
    bool same_len = c->req.len == probe.len;
    for (size_t i = 0; !rc && same_len && i < c->req.len; i++)
        if (c->req.data[i] != probe.data[i] && differ++ == 0)
            first = i;
    cdr_out_free(&probe);
    if (rc)
        return rc;
    if (differ != 8 || !same_len || first % 8)
        return -EPROTO;
    c->stamp_at = first;
    return 0;
}

/* Start what the run needs, connect, and set up the supplier. 0, or -1
 * with the run stopped. */
static int start(struct chan *c)
{
    const struct scenario *sc = c->s->sc;
    struct spawn_result r;
    char why[320];
    if (setup.via_channel) {
        if (spawn_one(c, EVENTS_SERVER, "omniEvents", &r) != 0)
            return -1;
        c->events_pid = r.pid;
        char name[64], version[64], vwhy[256];
        json_t *ev = json_pack("{s:s, s:i, s:s, s:I}", "path",
                               setup.omnievents, "pid", (int)r.pid,
                               "factory", setup.factory, "cycle_period_ns",
                               (json_int_t)channel_opts(sc)->cycle_period_ns);
        if (server_query_version_opt(setup.omnievents, "-V", name,
                                     sizeof name, version, sizeof version,
                                     vwhy, sizeof vwhy) == 0)
            json_object_set_new(ev, "version", json_string(version));
        json_object_set_new(c->info, "omnievents", ev);
    }
    if (spawn_one(c, CONSUMER_SERVER, "event consumer", &r) != 0)
        return -1;
    c->consumer_pid = r.pid;
    json_object_set_new(c->info, "consumer",
                        json_pack("{s:i, s:s, s:I}", "pid", (int)r.pid,
                                  "log", setup.log_path, "log_bytes",
                                  (json_int_t)setup.log_bytes_n));
    /* "CONSUMER_IOR" or "CONSUMER_IOR CHANNEL_IOR" */
    char *channel_ior = strchr(r.line, ' ');
    if (channel_ior)
        *channel_ior++ = 0;
    if (setup.via_channel != (channel_ior != NULL) ||
        wire_giop.parse_ready(channel_ior ? channel_ior : r.line, &c->target,
                              why, sizeof why) != 0) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "event consumer (pid "
                           "%d): its ready line is not %s: %.80s", (int)r.pid,
                           setup.via_channel ? "two IORs" : "one IOR",
                           r.line);
        return -1;
    }
    int rc = event_log_open(&c->log, setup.log_path, why, sizeof why);
    if (rc) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "event consumer (pid "
                           "%d): %s", (int)r.pid, why);
        return -1;
    }
    rc = invoke_open(&c->inv, c->s->tp, &c->target, sc->call.timeout_ms);
    if (rc && !servers_resource_stop(c->o, rc, c->inv.why, NULL)) {
        process_failed(c, setup.via_channel ? c->events_pid : c->consumer_pid,
                       setup.via_channel ? "omniEvents" : "event consumer",
                       "connect: %s", c->inv.why);
        return -1;
    }
    if (rc)
        return -1;
    c->key = c->target.key;
    c->key_len = c->target.key_len;
    if (setup.via_channel) {
        /* The supplier's side of CosEventChannelAdmin: for_suppliers,
         * obtain_push_consumer, connect_push_supplier(nil). */
        struct ior admin;
        if (setup_call(c, c->key, c->key_len, "for_suppliers", false,
                       &admin) ||
            setup_call(c, admin.key, admin.key_len, "obtain_push_consumer",
                       false, &c->proxy) ||
            setup_call(c, c->proxy.key, c->proxy.key_len,
                       "connect_push_supplier", true, NULL))
            return -1;
        c->key = c->proxy.key;
        c->key_len = c->proxy.key_len;
    }
    rc = build_push(c);
    if (rc) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "%s: cannot encode "
                           "the push of a %s event: %s", c->label,
                           payload_name(c->pt), strerror(-rc));
        return -1;
    }
    json_object_set_new(c->info, "request_bytes",
                        json_integer((json_int_t)c->req.len));
    return 0;
}

/* Wait until the log holds `want` records or the deadline passes. 0,
 * -ETIMEDOUT, -EINTR, -ENOSPC (the log is full), -EPROTO (the consumer
 * logged an event it could not extract). */
static int wait_logged(struct chan *c, uint64_t want, int64_t deadline_ns)
{
    const struct event_log_header *h = event_log_get_header(&c->log);
    /* Bounded by the deadline. */
    while (event_log_records(&c->log) < want) {
        if (__atomic_load_n(&h->dropped, __ATOMIC_RELAXED))
            return -ENOSPC;
        if (*c->s->interrupted)
            return -EINTR;
        if (now_ns() >= deadline_ns)
            return -ETIMEDOUT;
        struct timespec ts = {0, POLL_NS};
        nanosleep(&ts, NULL);
    }
    return __atomic_load_n(&h->unknown, __ATOMIC_RELAXED) ? -EPROTO : 0;
}

/* Why a phase ended early, as the run's stop: `rc` from the push of
 * event i (pushed false) or from waiting for it to be logged (pushed),
 * the phase's events all due by deadline_ns. */
static void phase_failed(struct chan *c, int rc, bool pushed, int64_t i,
                         int64_t n, uint64_t base, const char *phase,
                         int64_t deadline_ns)
{
    const struct scenario *sc = c->s->sc;
    uint64_t logged = event_log_records(&c->log) - base;
    if (rc == -EINTR && *c->s->interrupted) {
        run_stop(c->o, STOP_INTERRUPTED, 130, "interrupted at "
                           "%s%sevent %lld of %lld", phase, *phase ? " " : "",
                           (long long)i + 1, (long long)n);
        return;
    }
    if (rc == -ENOSPC) {
        run_stop(c->o, STOP_LOG_FULL, 1, "event consumer (pid %d): "
                           "its log %s is full (%s bytes): %llu events "
                           "dropped (channel.log_mb)", (int)c->consumer_pid,
                           setup.log_path, setup.log_bytes,
                           (unsigned long long)
                               event_log_get_header(&c->log)->dropped);
        return;
    }
    if (rc == -EPROTO) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "event consumer (pid "
                           "%d): an event it was pushed is no %sEvent it "
                           "knows", (int)c->consumer_pid,
                           payload_name(c->pt));
        return;
    }
    /* The phase's deadline, while pushing or waiting: the named error. */
    if (rc == -ETIMEDOUT && (pushed || now_ns() >= deadline_ns)) {
        /* An event still in flight may be logged after this: the result
         * keeps what the message says was delivered. */
        c->records_at_stop = base + logged;
        run_stop(c->o, STOP_NOT_DELIVERED, 1, "%s: %llu of %lld "
                           "%s%sevents reached the consumer within %lld ms%s",
                           c->label, (unsigned long long)logged, (long long)n,
                           phase, *phase ? " " : "",
                           (long long)channel_opts(sc)->deadline_ms,
                           pushed ? "" : " (a push had no reply by then)");
        return;
    }
    /* The push went to the process that is the channel, or the consumer. */
    pid_t pid = setup.via_channel ? c->events_pid : c->consumer_pid;
    const char *who = setup.via_channel ? "omniEvents" : "event consumer";
    if (rc == -ETIMEDOUT)
        process_failed(c, pid, who, "the push of %s%sevent %lld of %lld had "
                       "no reply within %lld ms (call.timeout_ms)", phase,
                       *phase ? " " : "", (long long)i + 1, (long long)n,
                       (long long)sc->call.timeout_ms);
    else
        process_failed(c, pid, who, "the push of %s%sevent %lld: %s", phase,
                       *phase ? " " : "", (long long)i + 1, c->inv.why);
}

/* Push n events, each logged before the next is pushed; the measured
 * phase keeps every stamp and call time. 0, or -1 with the run stopped. */
static int run_phase(struct chan *c, int64_t n, bool measured)
{
    const struct scenario *sc = c->s->sc;
    const char *phase = measured ? "" : "warm-up";
    uint64_t base = event_log_records(&c->log);
    int64_t start_ns = now_ns();
    int64_t deadline = start_ns + channel_opts(sc)->deadline_ms * 1000000;
    if (measured)
        c->base = base;
    for (int64_t i = 0; i < n; i++) {
        struct cdr_in body;
        int64_t t = now_ns();
        int64_t due = t + sc->call.timeout_ms * 1000000;
        c->inv.why[0] = 0;
        /* The stamp goes out in the host's order, as the request. */
        memcpy(c->req.data + c->stamp_at, &t, sizeof t);
        if (measured) {
            c->sent[i] = t;
            c->stamped = i + 1;
        }
        int rc = *c->s->interrupted ? -EINTR
                 : invoke_call(&c->inv, &c->req,
                               due < deadline ? due : deadline, &body);
        int64_t t2 = now_ns();
        if (!rc && cdr_in_left(&body) != 0) {
            snprintf(c->inv.why, sizeof c->inv.why, "push's reply has %zu "
                     "bytes of result; it returns void", cdr_in_left(&body));
            rc = -EBADMSG;
        }
        if (rc) {
            phase_failed(c, rc, false, i, n, base, phase, deadline);
            return -1;
        }
        if (measured) {
            c->pushed = i + 1;
            if (samples_add(&c->call_ns, t2 - t) != 0) {
                run_stop(c->o, STOP_RESOURCE, 0, "out of memory "
                                   "in the client");
                return -1;
            }
        }
        rc = wait_logged(c, base + (uint64_t)i + 1, deadline);
        if (rc) {
            phase_failed(c, rc, true, i, n, base, phase, deadline);
            return -1;
        }
        if ((i & 255) == 0 || i + 1 == n) {
            int64_t now = now_ns();
            run_progress_count(c->s, measured ? "measure" : "warm-up",
                               "event", i + 1, n,
                               (double)(now - start_ns) / 1e9,
                               (double)(now - c->t0_ns) / 1e9, NULL);
        }
    }
    return 0;
}

/* The measured events' times from the log: every event the client pushed
 * and the consumer logged, checked against what was sent. Sets doc's
 * latency_us and counts; a record that does not match stops the run
 * (unless it stopped already). */
static void read_back(struct chan *c)
{
    struct samples logged = {0}, received = {0};
    struct summary sm;
    uint64_t at = 0, have = event_log_records(&c->log);
    if (c->records_at_stop && c->records_at_stop < have)
        have = c->records_at_stop;
    struct event_log_record rec;
    const char *name = payload_name(c->pt);
    int64_t got = 0;
    /* An event whose push had no reply may have been logged (the channel
     * forwarded it, then stopped): it counts, as the stop's message does. */
    for (uint64_t k = 0; k < have && got < c->stamped; k++) {
        if (event_log_next(&c->log, &at, &rec) != 0) {
            if (!c->o->stop_reason)
                run_stop(c->o, STOP_CALL_FAILED, 1, "event "
                                   "consumer: its log's record %llu runs "
                                   "past its end", (unsigned long long)k);
            break;
        }
        if (k < c->base)
            continue; /* the warm-up's */
        const char *type = event_log_type_name(&c->log, rec.type);
        if ((int64_t)rec.sent_ns != c->sent[got] || strcmp(type, name)) {
            if (!c->o->stop_reason)
                run_stop(c->o, STOP_CALL_FAILED, 1, "event "
                                   "consumer: measured event %lld was "
                                   "logged as a %s sent at %llu ns, not the "
                                   "%s sent at %lld ns", (long long)got + 1,
                                   type, (unsigned long long)rec.sent_ns,
                                   name, (long long)c->sent[got]);
            break;
        }
        if (samples_add(&logged, (int64_t)(rec.logged_ns - rec.sent_ns)) ||
            samples_add(&received,
                        (int64_t)(rec.received_ns - rec.sent_ns)))
            break;
        got++;
    }
    json_t *lat = json_object();
    stats_summarize(&logged, 1e3, &sm);
    json_object_set_new(lat, "push_to_logged", result_summary(&sm));
    stats_summarize(&received, 1e3, &sm);
    json_object_set_new(lat, "push_to_received", result_summary(&sm));
    stats_summarize(&c->call_ns, 1e3, &sm);
    json_object_set_new(lat, "push_call", result_summary(&sm));
    json_object_set_new(c->s->doc, "latency_us", lat);
    json_object_set_new(c->info, "events_pushed",
                        json_integer((json_int_t)c->pushed));
    json_object_set_new(c->info, "events_logged",
                        json_integer((json_int_t)got));
    samples_free(&logged);
    samples_free(&received);
}

static void channel_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    const struct scenario *sc = sides[0].sc;
    struct chan c = {.s = &sides[0], .o = &o[0], .t0_ns = now_ns()};
    memset(o, 0, nsides * sizeof *o);
    c.inv.fds.rfd = c.inv.fds.wfd = -1;
    c.log.fd = -1;
    c.pt = payload_lookup(sc->call.payload);
    c.label = setup.via_channel ? "event channel" : "direct push";
    c.info = json_pack("{s:s, s:s, s:s, s:I, s:I}", "via",
                       channel_opts(sc)->via,
                       "payload", sc->call.payload, "transport",
                       sc->transport, "warmup_events",
                       (json_int_t)channel_opts(sc)->warmup_events, "events",
                       (json_int_t)channel_opts(sc)->events);
    /* The ORB's server here is the consumer, not the echo server. */
    json_t *orb = json_object_get(c.s->doc, "orb");
    if (orb)
        json_object_set_new(orb, "server_path", json_string(setup.consumer));
    json_object_set(c.s->doc, "channel", c.info);
    c.sent = calloc((size_t)channel_opts(sc)->events, sizeof *c.sent);
    if (!c.sent || !c.pt)
        run_stop(c.o, STOP_RESOURCE, 0, "out of memory in the "
                           "client");
    else if (start(&c) == 0 &&
             run_phase(&c, channel_opts(sc)->warmup_events, false) == 0 &&
             run_phase(&c, channel_opts(sc)->events, true) == 0)
        run_stop(c.o, STOP_DONE, 0, "%lld %s events %s after %lld",
                           (long long)channel_opts(sc)->events,
                               sc->call.payload,
                           setup.via_channel ? "through the channel"
                                             : "pushed directly",
                           (long long)channel_opts(sc)->warmup_events);
    run_progress_end(c.s);
    if (c.log.map)
        read_back(&c);
    result_set_outcome(c.s->doc, o->stop_reason, o->detail,
                       (double)(now_ns() - c.t0_ns) / 1e9);
    invoke_close(&c.inv);
    event_log_close(&c.log);
    cdr_out_free(&c.req);
    samples_free(&c.call_ns);
    free(c.sent);
    json_decref(c.info);
}

static void channel_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out)
{
    json_t *lat = json_object_get(doc, "latency_us");
    json_t *lg = json_object_get(lat, "push_to_logged");
    json_t *call = json_object_get(lat, "push_call");
    printf("%s: %s events %s over %s: ", sc->name, sc->call.payload,
           strcmp(channel_opts(sc)->via, "channel") == 0
               ? "through an omniEvents channel"
               : "pushed straight to the consumer",
           sc->transport);
    if (json_integer_value(json_object_get(lg, "count")) > 0)
        printf("push to logged median %.1f us (p99 %.1f, min %.1f, mean "
               "%.1f, max %.1f) over %lld events; the push call %.1f us.",
               json_number_value(json_object_get(lg, "median")),
               json_number_value(json_object_get(lg, "p99")),
               json_number_value(json_object_get(lg, "min")),
               json_number_value(json_object_get(lg, "mean")),
               json_number_value(json_object_get(lg, "max")),
               (long long)json_integer_value(json_object_get(lg, "count")),
               json_number_value(json_object_get(call, "median")));
    else
        printf("no event was measured.");
    printf(" Stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

const struct kind_ops kind_channel = {
    .scenario = {.name = "channel",
                 .keys = channel_keys,
                 .nkeys = ARRAY_LEN(channel_keys),
                 .check = channel_check},
    .run = channel_run,
    .summary = channel_summary,
    .unsupported = channel_unsupported,
    .spawn_setup = channel_spawn_setup,
};
