/* The latency table (scenario kind "latency"), after the Miro evaluation's
 * Table 8.2: latency.servers servers (default 1), latency.warmup_calls
 * untimed calls, then latency.calls synchronous calls, one at a time, to
 * the servers in turn, each echoing call.payload; every call's time is
 * kept. The result gives min, mean, max, standard deviation, median and
 * p99 in µs, every sample, and the payload's sizes: its value, the
 * request and the reply on the wire, and the event (an any) that would
 * store it.
 *
 * One thread makes every call (the
 * seed's logging client did one event at a time), so a call's time is
 * the transport's and the two sides' marshaling, and the client encodes
 * each server's request once (conn_use_payload) to stay out of it. The
 * warm-up calls and the measured ones are the harness's two windows
 * (kinds/window.h), each its own count of calls. */
#include "kinds/kind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/conn.h"
#include "codec/payload.h"
#include "kinds/run.h"
#include "kinds/servers.h"
#include "kinds/window.h"
#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"

/* kind "latency": warmup_calls, then calls synchronous calls to the
 * servers in turn, every call's time kept. */
struct latency_opts {
    int64_t servers;
    int64_t warmup_calls;
    int64_t calls;
    double max_seconds; /* the whole run's bound */
};

/* The scenario's latency options. */
static const struct latency_opts *latency_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct latency_opts, sc);
}

/* The keys of kind latency: fields of struct latency_opts. */
#define OPT(f) SCENARIO_KIND_OFF(struct latency_opts, f)
static const struct scenario_key latency_keys[] = {
    {.key = "latency.servers", .type = SCENARIO_INT, .off = OPT(servers),
     .min = 1, .max = 256, .def_num = 1,
     .help = "kind latency: servers, called in turn"},
    {.key = "latency.warmup_calls", .type = SCENARIO_INT,
     .off = OPT(warmup_calls), .max = 1000000, .def_num = 100,
     .help = "kind latency: untimed calls first"},
    {.key = "latency.calls", .type = SCENARIO_INT, .off = OPT(calls), .min = 1,
     .max = 1000000, .def_num = 10000,
     .help = "kind latency: measured calls, each one's time kept"},
    {.key = "latency.max_seconds", .type = SCENARIO_NUM,
     .off = OPT(max_seconds), .min = 1, .max = 86400, .def_num = 600,
     .help = "kind latency: stop the run after this long (s)"},
};
#undef OPT


#define LATENCY_MAX_SERVERS 256

struct latency {
    struct side *s;
    struct run_outcome *o;
    struct conn conns[LATENCY_MAX_SERVERS];
    size_t n; /* conns open */
    struct samples times; /* every measured call's, ns */
};

/* A failed call to conn i: servers_failed says what it was. */
static void call_failed(struct latency *l, size_t i, int err,
                        const char *when)
{
    const struct conn *c = &l->conns[i];
    char at[160];
    snprintf(at, sizeof at, " %s", when);
    servers_failed(l->s, l->o,
                   &(struct servers_failure){.index = c->index,
                                             .pid = c->pid,
                                             .err = err,
                                             .why = c->why,
                                             .at = at,
                                             .oom_kills = -1});
}

static struct conn *start_slot(void *arg, size_t k)
{
    struct latency *l = arg;
    return &l->conns[k];
}

/* Start the servers and connect to each. True when all are up. */
static bool start(struct latency *l, size_t k)
{
    const struct scenario *sc = l->s->sc;
    struct servers_want w = {
        .group = l->s->group,
        .count = (unsigned)k,
        .cpu = -1,
        .oom_kills = -1,
        .slot = start_slot,
        .arg = l,
        .payload = payload_lookup(sc->call.payload),
    };
    l->n = servers_start(l->s, l->o, &w, NULL);
    return l->n == k && l->o->stop_reason == NULL;
}

/* `count` calls to the servers in turn; with `keep`, each call's time
 * joins l->times. 0, or -1 once the run has stopped (see l->o). */
static int calls(struct window *w, const struct window_at *at,
                 int64_t count, bool keep, int64_t deadline_ns)
{
    struct latency *l = w->kind;
    for (int64_t k = 0; k < count; k++) {
        size_t i = (size_t)k % l->n;
        int64_t lat;
        int rc = *l->s->interrupted ? -EINTR : conn_call(&l->conns[i], &lat);
        if (rc) {
            call_failed(l, i, rc, at->when);
            return -1;
        }
        if (keep && samples_add(&l->times, lat)) {
            run_stop(l->o, STOP_RESOURCE, 0, "out of memory "
                               "keeping call %lld", (long long)k + 1);
            return -1;
        }
        /* Bounded in time as in count: now_ns is cheap beside a call. */
        int64_t now = now_ns();
        /* Progress every 1024 calls, outside any call's timing. */
        if ((k & 1023) == 1023 || k + 1 == count)
            window_progress(w, at, "call", k + 1, count, NULL);
        if (now > deadline_ns && k + 1 < count) {
            run_stop(l->o, STOP_TIME, 0, "latency.max_seconds "
                               "(%g s) reached %s after %lld of %lld calls",
                               latency_opts(l->s->sc)->max_seconds, at->when,
                               (long long)k + 1, (long long)count);
            return -1;
        }
    }
    return 0;
}

/* Bytes of the call's value alone (CDR from an 8-aligned start), and of
 * the <Name>Event any that would carry it (-1: "string" has none). */
static void value_sizes(const struct scenario *sc, int64_t *value_bytes,
                        int64_t *event_bytes)
{
    const struct payload_type *pt = payload_lookup(sc->call.payload);
    struct cdr_out o;
    *event_bytes = -1;
    if (strcmp(sc->call.payload, "string") == 0) {
        /* ulong length, the characters, the NUL */
        *value_bytes = 4 + sc->call.payload_bytes + 1;
        return;
    }
    cdr_out_init(&o, cdr_host_little());
    *value_bytes = payload_encode(pt, 0, &o) ? -1 : (int64_t)o.len;
    cdr_out_reset(&o, cdr_host_little());
    if (payload_encode_event_any(pt, 0, 0, &o) == 0)
        *event_bytes = (int64_t)o.len;
    cdr_out_free(&o);
}

/* doc.latency: what was asked, the sizes, the summary, every sample. */
static void record(struct latency *l)
{
    const struct scenario *sc = l->s->sc;
    int64_t value_bytes, event_bytes;
    value_sizes(sc, &value_bytes, &event_bytes);
    json_t *samples = json_array();
    struct samples sorted = {0};
    for (size_t i = 0; i < l->times.len; i++)
        json_array_append_new(samples, json_integer(l->times.ns[i]));
    /* The summary sorts: a copy, so that the samples stay in the order
     * taken in the next record too. */
    struct summary sum;
    if (samples_merge(&sorted, &l->times) == 0)
        stats_summarize(&sorted, 1e3, &sum);
    else
        stats_summarize(&l->times, 1e3, &sum);
    samples_free(&sorted);
    json_t *lat = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:o, s:o}", "payload", sc->call.payload,
        "servers", (json_int_t)latency_opts(sc)->servers, "warmup_calls",
        (json_int_t)latency_opts(sc)->warmup_calls, "calls",
        (json_int_t)sum.count, "value_bytes", (json_int_t)value_bytes,
        "call_us", result_summary(&sum), "samples_ns", samples);
    json_object_set_new(lat, "event_bytes",
                        event_bytes < 0 ? json_null()
                                        : json_integer(event_bytes));
    /* The sizes on the wire, when a call was made. */
    if (l->n && l->conns[0].reply_bytes) {
        json_object_set_new(lat, "request_bytes",
                            json_integer((json_int_t)l->conns[0].tx.len));
        json_object_set_new(lat, "reply_bytes",
                            json_integer(
                                (json_int_t)l->conns[0].reply_bytes));
    }
    json_object_set_new(l->s->doc, "latency", lat);
}

/* The servers, started and connected: 0, or -1 once the run stopped. */
static int latency_init(struct window *w)
{
    struct latency *l = w->kind;
    const struct scenario *sc = w->s->sc;
    l->s = w->s;
    l->o = w->o;
    size_t k = (size_t)latency_opts(sc)->servers;
    l->times.ns = malloc((size_t)latency_opts(sc)->calls *
                         sizeof *l->times.ns);
    l->times.cap = l->times.ns ? (size_t)latency_opts(sc)->calls : 0;
    if (k > LATENCY_MAX_SERVERS || !l->times.ns) {
        run_stop(l->o, STOP_RESOURCE, 0, "out of memory in the client");
        return -1;
    }
    return start(l, k) ? 0 : -1;
}

/* The warm-up calls, or the measured ones. */
static int latency_window(struct window *w, const struct window_at *at)
{
    const struct latency_opts *lo = latency_opts(w->s->sc);
    int64_t deadline = w->t0_ns + (int64_t)(lo->max_seconds * 1e9);
    return at->repeat < 0 ? calls(w, at, lo->warmup_calls, false, deadline)
                          : calls(w, at, lo->calls, true, deadline);
}

static void latency_record(struct window *w)
{
    record(w->kind);
}

static void latency_done(struct window *w, char *buf, size_t len)
{
    const struct latency_opts *lo = latency_opts(w->s->sc);
    snprintf(buf, len, "%lld calls after %lld warm-up calls",
             (long long)lo->calls, (long long)lo->warmup_calls);
}

static void latency_cleanup(struct window *w)
{
    struct latency *l = w->kind;
    for (size_t i = 0; i < l->n; i++)
        conn_close(&l->conns[i]);
    samples_free(&l->times);
}

static const struct window_ops latency_ops = {
    .init = latency_init,
    .window = latency_window,
    .record = latency_record,
    .cleanup = latency_cleanup,
    .done_detail = latency_done,
};

static void latency_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    static struct latency l; /* 256 conns: not on the stack */
    struct window_plan plan = {
        .warmup = true, /* latency.warmup_calls, 0 or more */
        .repeats = 1,
        .steps = 1,
        .measured_when = "in the measured calls",
    };
    memset(&l, 0, sizeof l);
    window_run(&latency_ops, &plan, &l, sides, o, nsides);
}

static void latency_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *lat = json_object_get(doc, "latency");
    json_t *us = json_object_get(lat, "call_us");
    const char *version = json_string_value(json_object_get(orb, "version"));
    printf("%s: %s %s over %s, payload %s (%lld bytes)", sc->name,
           json_string_value(json_object_get(orb, "name")),
           version ? version : "(version unknown)", sc->transport,
           sc->call.payload,
           (long long)json_integer_value(json_object_get(lat,
                                                         "value_bytes")));
    if (json_integer_value(json_object_get(us, "count")) > 0)
        printf(": %lld calls, median %.1f us (min %.1f, mean %.1f, p99 "
               "%.1f, max %.1f, std dev %.1f); request %lld bytes, reply "
               "%lld.",
               (long long)json_integer_value(json_object_get(us, "count")),
               json_number_value(json_object_get(us, "median")),
               json_number_value(json_object_get(us, "min")),
               json_number_value(json_object_get(us, "mean")),
               json_number_value(json_object_get(us, "p99")),
               json_number_value(json_object_get(us, "max")),
               json_number_value(json_object_get(us, "stddev")),
               (long long)json_integer_value(json_object_get(lat,
                                                             "request_bytes")),
               (long long)json_integer_value(json_object_get(lat,
                                                             "reply_bytes")));
    else
        printf(": no call was measured.");
    printf(" Stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

/* One connection per server. */
static int64_t latency_max_connections(const struct scenario *sc)
{
    return latency_opts(sc)->servers;
}

const struct kind_ops kind_latency = {
    .scenario = {.name = "latency",
                 .keys = latency_keys,
                 .nkeys = ARRAY_LEN(latency_keys)},
    .run = latency_run,
    .summary = latency_summary,
    .max_connections = latency_max_connections,
};
