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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/event_log.h"
#include "codec/payload.h"
#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"
#include "host/server_kind.h"
#include "kinds/channel_impl.h"
#include "kinds/run.h"

/* This file: the kind's options and keys, the run and its summary, the
 * row. The processes' setup: channel_setup.c; the start:
 * channel_connect.c; the pushes: channel_push.c. */

static const char *const channel_vias[] = {"channel", "direct", NULL};

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

static void channel_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    const struct channel_setup *setup = &channel_setup;
    const struct scenario *sc = sides[0].sc;
    struct chan c = {.s = &sides[0], .o = &o[0], .t0_ns = now_ns()};
    memset(o, 0, nsides * sizeof *o);
    c.inv.fds.rfd = c.inv.fds.wfd = -1;
    c.log.fd = -1;
    c.pt = payload_lookup(sc->call.payload);
    c.label = setup->via_channel ? "event channel" : "direct push";
    c.info = json_pack("{s:s, s:s, s:s, s:I, s:I}", "via",
                       channel_opts(sc)->via,
                       "payload", sc->call.payload, "transport",
                       sc->transport, "warmup_events",
                       (json_int_t)channel_opts(sc)->warmup_events, "events",
                       (json_int_t)channel_opts(sc)->events);
    /* The ORB's server here is the consumer, not the echo server. */
    json_t *orb = json_object_get(c.s->doc, "orb");
    if (orb)
        json_object_set_new(orb, "server_path",
                            json_string(setup->consumer));
    json_object_set(c.s->doc, "channel", c.info);
    c.sent = calloc((size_t)channel_opts(sc)->events, sizeof *c.sent);
    if (!c.sent || !c.pt)
        run_stop(c.o, STOP_RESOURCE, 0, "out of memory in the "
                           "client");
    else if (channel_start(&c) == 0 &&
             channel_run_phase(&c, channel_opts(sc)->warmup_events,
                               false) == 0 &&
             channel_run_phase(&c, channel_opts(sc)->events, true) == 0)
        run_stop(c.o, STOP_DONE, 0, "%lld %s events %s after %lld",
                           (long long)channel_opts(sc)->events,
                               sc->call.payload,
                           setup->via_channel ? "through the channel"
                                             : "pushed directly",
                           (long long)channel_opts(sc)->warmup_events);
    run_progress_end(c.s);
    if (c.log.map)
        channel_read_back(&c);
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
