/* The cost of a new connection (scenario kind "connect"): one server,
 * one client that opens a connection, makes one call over it, reads the
 * reply and closes it, again and again (connect.count connections in
 * connect.blocks blocks, after connect.warmup untimed ones). It answers
 * how fast a server accepts clients: connections per second (the median
 * of the blocks' rates, with its 95% interval), each connection's time
 * to connect and to its first reply; and what a connection costs the
 * server: its footprint (threads, descriptors, RSS, PSS, USS) idle, after
 * the churn, with connect.hold connections held open, and once they are
 * closed again, giving what each held connection added.
 *
 * Servers are started and connected to through kinds/servers.h, the path
 * every kind takes; the loop is bounded in count and in time
 * (connect.max_seconds). */
#include "kinds/kind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/payload.h"
#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"
#include "host/footprint.h"
#include "host/probe.h"
#include "kinds/run.h"
#include "kinds/servers.h"
#include "net/conn.h"

/* The keys of kind connect. */
struct connect_opts {
    int64_t count;      /* timed connections, over every block */
    int64_t blocks;     /* the count split in this many blocks */
    int64_t warmup;     /* untimed connections first */
    int64_t hold;       /* connections held open at once for the
                         * footprint */
    double max_seconds; /* the whole run's bound */
};

static const struct connect_opts *connect_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct connect_opts, sc);
}

#define CONNECT_MAX_HOLD 10000

#define OPT(f) SCENARIO_KIND_OFF(struct connect_opts, f)
static const struct scenario_key connect_keys[] = {
    {.key = "connect.count", .type = SCENARIO_INT, .off = OPT(count),
     .min = 1, .max = 1000000, .def_num = 10000,
     .help = "kind connect: timed connections, each opened, called once "
             "and closed, over every block"},
    {.key = "connect.blocks", .type = SCENARIO_INT, .off = OPT(blocks),
     .min = 1, .max = 1000, .def_num = 20,
     .help = "kind connect: the count in this many blocks; connections/s "
             "is their median, with a 95% interval"},
    {.key = "connect.warmup", .type = SCENARIO_INT, .off = OPT(warmup),
     .min = 0, .max = 100000, .def_num = 50,
     .help = "kind connect: untimed connections first"},
    {.key = "connect.hold", .type = SCENARIO_INT, .off = OPT(hold),
     .min = 0, .max = CONNECT_MAX_HOLD, .def_num = 100,
     .help = "kind connect: connections held open at once to read what "
             "each costs the server; 0: none"},
    {.key = "connect.max_seconds", .type = SCENARIO_NUM,
     .off = OPT(max_seconds), .min = 1, .max = 86400, .def_num = 300,
     .help = "kind connect: stop the run after this long (s)"},
};
#undef OPT

static int connect_check(const struct scenario_ctx *c,
                         const struct scenario *sc)
{
    const struct connect_opts *co = connect_opts(sc);
    if (strcmp(sc->transport, "pipe") == 0)
        return scenario_fail(c, "transport", "\"pipe\" is one connection "
                             "per server; kind connect needs \"tcp\" or "
                             "\"unix\"");
    if (co->blocks > co->count)
        return scenario_fail(c, "connect.blocks", "%lld blocks of %lld "
                             "connections: at most one block a connection",
                             (long long)co->blocks, (long long)co->count);
    return 0;
}

/* The connections held at once, and the server's. */
static int64_t connect_max_connections(const struct scenario *sc)
{
    return connect_opts(sc)->hold + 1;
}


struct connect {
    struct side *s;
    struct run_outcome *o;
    struct conn server; /* idle: known by pid and address */
    const struct payload_type *payload;
    int64_t t0_ns, deadline_ns;
    int64_t checkpoint_ns; /* the last run_checkpoint */
    /* every timed connection's times, ns */
    struct samples open_ns, call_ns, total_ns;
    json_t *blocks;         /* [{connections, seconds, per_s}] */
    double *rates;          /* per block, connections/s */
    size_t nrates;
    json_t *footprint;      /* {idle, churned, held, released} */
    json_t *per_connection; /* (held - churned) / hold */
    struct conn *held;
    size_t nheld;
    int64_t settle_ms;      /* to get back to the churned descriptors */
};

static struct conn *server_slot(void *arg, size_t k)
{
    (void)k;
    return &((struct connect *)arg)->server;
}

/* A failed connect or call on conn c: a limit of the machine is a
 * `resource` stop, the rest goes to the one classifier. */
static void failed(struct connect *x, struct conn *c, int err,
                   const char *when)
{
    char at[160];
    snprintf(at, sizeof at, " %s", when);
    if (servers_resource_stop(x->o, err, c->why, at))
        return;
    servers_failed(x->s, x->o,
                   &(struct servers_failure){.index = x->server.index,
                                             .pid = x->server.pid,
                                             .err = err,
                                             .why = c->why,
                                             .at = at,
                                             .oom_kills = -1});
}

/* Open c to the server and make its first call; the times of the two
 * halves in *open_ns, *call_ns. 0, or -1 once the run has stopped. */
static int connect_one(struct connect *x, struct conn *c, int64_t *open_ns,
                       int64_t *call_ns, const char *when)
{
    if (*x->s->interrupted) {
        run_stop(x->o, STOP_INTERRUPTED, 130, "interrupted %s", when);
        return -1;
    }
    int64_t t0 = now_ns();
    int rc = servers_open_conn(x->s, c, &x->server.target, x->server.index,
                               x->server.pid, x->payload);
    int64_t t1 = now_ns();
    if (rc == 0)
        rc = conn_call(c, call_ns);
    if (rc) {
        failed(x, c, rc, when);
        conn_close(c);
        return -1;
    }
    *open_ns = t1 - t0;
    return 0;
}

/* Past connect.max_seconds? Then stop the run, saying where. */
static bool out_of_time(struct connect *x, const char *when)
{
    if (now_ns() <= x->deadline_ns)
        return false;
    run_stop(x->o, STOP_TIME, 0, "connect.max_seconds (%g s) reached %s",
             connect_opts(x->s->sc)->max_seconds, when);
    return true;
}

/* `count` connections, one after the other; timed ones join the
 * samples. The number made (count unless the run stopped). */
static int64_t churn(struct connect *x, int64_t count, bool timed,
                     const char *when)
{
    for (int64_t k = 0; k < count; k++) {
        struct conn c;
        int64_t open, call;
        if (connect_one(x, &c, &open, &call, when))
            return k;
        conn_close(&c);
        if (timed && (samples_add(&x->open_ns, open) ||
                      samples_add(&x->call_ns, call) ||
                      samples_add(&x->total_ns, open + call))) {
            run_stop(x->o, STOP_RESOURCE, 0, "out of memory keeping "
                     "connection %lld", (long long)k + 1);
            return k + 1;
        }
        if (k + 1 < count && out_of_time(x, when))
            return k + 1;
    }
    return count;
}

/* The server's footprint now, as {threads, fds, rss_kb, pss_kb, uss_kb};
 * NULL when it cannot be read (the process is gone: the next call finds
 * out why). */
static json_t *footprint(const struct connect *x, struct proc_footprint *p)
{
    if (probe_process(x->server.pid, p) != 0)
        return NULL;
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "threads",
                     (json_int_t)p->threads, "fds", (json_int_t)p->fds,
                     "rss_kb", (json_int_t)p->rss_kb, "pss_kb",
                     (json_int_t)p->pss_kb, "uss_kb", (json_int_t)p->uss_kb);
}

/* Wait, at most 2 s, for the server to close what the client closed
 * (its descriptors back to `fds` or below): an ORB reaps a closed
 * connection on its own thread, after the client has moved on. The
 * footprint then, and the ms it took in *waited_ms. */
static json_t *settled(const struct connect *x, int64_t fds,
                       int64_t *waited_ms)
{
    struct proc_footprint p;
    int64_t t0 = now_ns();
    json_t *fp = footprint(x, &p);
    while (fp && p.fds > fds && now_ns() - t0 < 2000000000 &&
           !*x->s->interrupted) {
        json_decref(fp);
        nanosleep(&(struct timespec){0, 10000000}, NULL);
        fp = footprint(x, &p);
    }
    *waited_ms = (now_ns() - t0) / 1000000;
    return fp;
}

/* The footprint at a point, kept in x->footprint under `name`. */
static void keep_footprint(struct connect *x, const char *name, json_t *fp)
{
    json_object_set_new(x->footprint, name, fp ? fp : json_null());
}

static void record(struct connect *x);

/* The timed blocks: connect.count connections in connect.blocks blocks,
 * each block's rate kept. 0, or -1 once the run has stopped. */
static int timed_blocks(struct connect *x)
{
    const struct connect_opts *co = connect_opts(x->s->sc);
    int64_t blocks_ns = now_ns();
    for (int64_t b = 0; b < co->blocks; b++) {
        /* Block b's share of the count, the remainder spread over the
         * first blocks. */
        int64_t want = co->count / co->blocks + (b < co->count % co->blocks);
        char when[64];
        snprintf(when, sizeof when, "in block %lld of %lld", (long long)b + 1,
                 (long long)co->blocks);
        int64_t t0 = now_ns();
        int64_t made = churn(x, want, true, when);
        double s = (double)(now_ns() - t0) / 1e9;
        if (made > 0 && s > 0) {
            x->rates[x->nrates++] = (double)made / s;
            json_array_append_new(
                x->blocks, json_pack("{s:I, s:f, s:f, s:b}", "connections",
                                     (json_int_t)made, "seconds", s, "per_s",
                                     (double)made / s, "whole",
                                     made == want));
        }
        /* The live line: blocks done of connect.blocks, this block's
         * rate. */
        char rate[48];
        snprintf(rate, sizeof rate, "%.0f connections/s",
                 made > 0 && s > 0 ? (double)made / s : 0.0);
        run_progress_count(x->s, "connect", "block", b + 1, co->blocks,
                           (double)(now_ns() - blocks_ns) / 1e9,
                           (double)(now_ns() - x->t0_ns) / 1e9, rate);
        if (x->o->stop_reason)
            return -1;
        /* The result so far, at most once a second (record sorts every
         * sample so far). */
        if (now_ns() - x->checkpoint_ns > 1000000000) {
            x->checkpoint_ns = now_ns();
            record(x);
            if (run_checkpoint(x->s, x->o))
                return -1;
        }
        if (b + 1 < co->blocks && out_of_time(x, when))
            return -1;
    }
    return 0;
}

/* connect.hold connections open at once (each called once), the
 * footprint then, closed again, the footprint once the server let them
 * go. 0, or -1 once the run has stopped. */
static int hold(struct connect *x, int64_t base_fds)
{
    int64_t k = connect_opts(x->s->sc)->hold;
    if (k == 0)
        return 0;
    x->held = calloc((size_t)k, sizeof *x->held);
    if (!x->held) {
        run_stop(x->o, STOP_RESOURCE, 0, "out of memory in the client");
        return -1;
    }
    for (; x->nheld < (size_t)k; x->nheld++) {
        char when[64];
        int64_t open, call;
        snprintf(when, sizeof when, "holding connection %zu of %lld",
                 x->nheld + 1, (long long)k);
        if (connect_one(x, &x->held[x->nheld], &open, &call, when))
            return -1;
    }
    struct proc_footprint p;
    json_t *held = footprint(x, &p);
    if (held) {
        json_t *before = json_object_get(x->footprint, "churned");
        json_t *per = json_object();
        for (size_t i = 0; before && i < FP_NFIELDS; i++) {
            const char *field = footprint_fields[i];
            double d = (double)(json_integer_value(
                                    json_object_get(held, field)) -
                                json_integer_value(
                                    json_object_get(before, field)));
            json_object_set_new(per, field, json_real(d / (double)k));
        }
        x->per_connection = per;
    }
    keep_footprint(x, "held", held);
    while (x->nheld)
        conn_close(&x->held[--x->nheld]);
    keep_footprint(x, "released", settled(x, base_fds, &x->settle_ms));
    return 0;
}

/* The median of the blocks' rates with its 95% interval (the blocks in
 * the order measured), in connections/s. */
static json_t *rate_summary(const struct connect *x)
{
    if (x->nrates == 0)
        return json_null();
    int64_t *v = malloc(x->nrates * sizeof *v);
    double *sorted = malloc(x->nrates * sizeof *sorted);
    struct median_ci ci = {0};
    struct spread sp = {0};
    json_t *j = json_null();
    if (v && sorted) {
        /* milli-connections/s: the interval's samples are integers */
        for (size_t i = 0; i < x->nrates; i++) {
            v[i] = (int64_t)(x->rates[i] * 1e3);
            sorted[i] = x->rates[i];
        }
        stats_spread(sorted, x->nrates, &sp);
        if (stats_median_ci(v, x->nrates, 1e3, &ci) == 0)
            j = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:I}", "median",
                          sp.median, "min", sp.min, "max", sp.max, "low",
                          ci.low, "high", ci.high, "level", ci.level,
                          "blocks", (json_int_t)x->nrates);
    }
    free(v);
    free(sorted);
    return j;
}

static json_t *times_us(struct samples *s)
{
    struct summary sum;
    struct samples copy = {0};
    samples_merge(&copy, s); /* stats_summarize sorts: keep the order */
    stats_summarize(&copy, 1e3, &sum);
    samples_free(&copy);
    return result_summary(&sum);
}

/* doc.connect: what was asked, the rate, the times, the footprints. */
static void record(struct connect *x)
{
    const struct connect_opts *co = connect_opts(x->s->sc);
    json_t *c = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:O, s:o, s:o, s:o, s:o, s:O}", "count",
        (json_int_t)co->count, "blocks_asked", (json_int_t)co->blocks,
        "warmup", (json_int_t)co->warmup, "hold", (json_int_t)co->hold,
        "connections", (json_int_t)x->total_ns.len, "blocks", x->blocks,
        "per_s", rate_summary(x), "connect_us", times_us(&x->open_ns),
        "first_call_us", times_us(&x->call_ns), "total_us",
        times_us(&x->total_ns), "footprint", x->footprint);
    json_object_set(c, "per_connection",
                    x->per_connection ? x->per_connection : json_null());
    json_object_set_new(c, "settle_ms", x->settle_ms >= 0
                                            ? json_integer(x->settle_ms)
                                            : json_null());
    json_object_set_new(x->s->doc, "connect", c);
}

static void connect_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    struct connect x = {.s = &sides[0], .o = &o[0], .settle_ms = -1};
    memset(o, 0, nsides * sizeof *o);
    const struct scenario *sc = x.s->sc;
    const struct connect_opts *co = connect_opts(sc);
    x.t0_ns = now_ns();
    x.deadline_ns = x.t0_ns + (int64_t)(co->max_seconds * 1e9);
    x.payload = payload_lookup(sc->call.payload);
    x.blocks = json_array();
    x.footprint = json_object();
    x.rates = calloc((size_t)co->blocks, sizeof *x.rates);
    struct servers_want w = {
        .group = x.s->group,
        .count = 1,
        .cpu = -1,
        .oom_kills = -1,
        .slot = server_slot,
        .arg = &x,
        .idle = true, /* connected to anew for every measurement */
    };
    struct proc_footprint p;
    int64_t waited;
    if (!x.rates)
        run_stop(x.o, STOP_RESOURCE, 0, "out of memory in the client");
    else if (servers_start(x.s, x.o, &w, NULL) == 1 && !x.o->stop_reason) {
        /* The descriptors of the server with no connection: what each
         * later footprint waits to get back to. */
        json_t *started = footprint(&x, &p);
        int64_t base_fds = started ? p.fds : 0;
        keep_footprint(&x, "started", started);
        if (churn(&x, co->warmup, false, "during the warm-up") ==
                co->warmup &&
            !x.o->stop_reason) {
            keep_footprint(&x, "idle", settled(&x, base_fds, &waited));
            if (timed_blocks(&x) == 0) {
                keep_footprint(&x, "churned",
                               settled(&x, base_fds, &waited));
                if (hold(&x, base_fds) == 0)
                    run_stop(x.o, STOP_DONE, 0, "%lld connections in %zu "
                             "blocks after %lld warm-up ones, %lld held at "
                             "once", (long long)x.total_ns.len, x.nrates,
                             (long long)co->warmup, (long long)co->hold);
            }
        }
    }
    record(&x);
    result_set_outcome(x.s->doc, x.o->stop_reason, x.o->detail,
                       (double)(now_ns() - x.t0_ns) / 1e9);
    run_progress_end(x.s);
    while (x.nheld)
        conn_close(&x.held[--x.nheld]);
    conn_close(&x.server);
    free(x.held);
    free(x.rates);
    json_decref(x.blocks);
    json_decref(x.footprint);
    json_decref(x.per_connection);
    samples_free(&x.open_ns);
    samples_free(&x.call_ns);
    samples_free(&x.total_ns);
}

static double num(json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* What ran, the rate and the times, what a held connection cost, the
 * stop. */
static void connect_summary(const struct scenario *sc, json_t *doc,
                            const struct run_outcome *o, const char *out)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *c = json_object_get(doc, "connect");
    json_t *rate = json_object_get(c, "per_s");
    json_t *us = json_object_get(c, "total_us");
    const char *version = json_string_value(json_object_get(orb, "version"));
    printf("%s: %s %s over %s, %lld connections opened, called once and "
           "closed\n", sc->name,
           json_string_value(json_object_get(orb, "name")),
           version ? version : "(version unknown)", sc->transport,
           (long long)json_integer_value(json_object_get(c, "connections")));
    if (json_is_object(rate))
        printf("  %.0f connections/s (median of %lld blocks, 95%% interval "
               "%.0f-%.0f)\n", num(rate, "median"),
               (long long)json_integer_value(json_object_get(rate, "blocks")),
               num(rate, "low"), num(rate, "high"));
    if (json_integer_value(json_object_get(us, "count")) > 0)
        printf("  connect and first reply: median %.1f us (connect %.1f, "
               "call %.1f; p99 %.1f, max %.1f)\n", num(us, "median"),
               num(json_object_get(c, "connect_us"), "median"),
               num(json_object_get(c, "first_call_us"), "median"),
               num(us, "p99"), num(us, "max"));
    json_t *per = json_object_get(c, "per_connection");
    json_t *fp = json_object_get(c, "footprint");
    for (size_t i = 0; json_is_object(per) && i < FP_NFIELDS; i++)
        printf("%s %.2f %s", i ? "," : "  each held connection added",
               num(per, footprint_fields[i]), footprint_words[i]);
    if (json_is_object(per))
        printf(" to the server (%lld held)\n",
               (long long)json_integer_value(json_object_get(c, "hold")));
    json_t *idle = json_object_get(fp, "idle");
    json_t *released = json_object_get(fp, "released");
    if (json_is_object(idle) && json_is_object(released))
        printf("  the server idle: %lld kB USS, %lld descriptors; after "
               "every connection closed: %lld kB USS, %lld descriptors\n",
               (long long)num(idle, "uss_kb"), (long long)num(idle, "fds"),
               (long long)num(released, "uss_kb"),
               (long long)num(released, "fds"));
    printf("  stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

const struct kind_ops kind_connect = {
    .scenario = {.name = "connect",
                 .keys = connect_keys,
                 .nkeys = ARRAY_LEN(connect_keys),
                 .check = connect_check},
    .run = connect_run,
    .summary = connect_summary,
    .max_connections = connect_max_connections,
};
