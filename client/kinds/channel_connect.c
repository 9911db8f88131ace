/* Kind channel's start: omniEvents and the consumer started, the
 * connection to the channel (or the consumer), the supplier's side of
 * CosEventChannelAdmin set up, and the push request encoded once. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codec/giop.h"
#include "codec/payload.h"
#include "core/util.h"
#include "host/server_kind.h"
#include "kinds/channel_impl.h"
#include "kinds/servers.h"

void channel_process_failed(struct chan *c, pid_t pid, const char *who,
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
        channel_process_failed(c, c->events_pid, "omniEvents", "%s: %s", op,
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

/* Start omniEvents (via the channel) and the consumer, record them,
 * read where the pushes go from the consumer's ready line and open its
 * log. 0, or -1 with the run stopped. */
static int start_processes(struct chan *c)
{
    const struct channel_setup *setup = &channel_setup;
    const struct scenario *sc = c->s->sc;
    struct spawn_result r;
    char why[320];
    if (setup->via_channel) {
        if (spawn_one(c, EVENTS_SERVER, "omniEvents", &r) != 0)
            return -1;
        c->events_pid = r.pid;
        char name[64], version[64], vwhy[256];
        json_t *ev = json_pack("{s:s, s:i, s:s, s:I}", "path",
                               setup->omnievents, "pid", (int)r.pid,
                               "factory", setup->factory, "cycle_period_ns",
                               (json_int_t)channel_opts(sc)->cycle_period_ns);
        if (server_query_version_opt(setup->omnievents, "-V", name,
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
                                  "log", setup->log_path, "log_bytes",
                                  (json_int_t)setup->log_bytes_n));
    /* "CONSUMER_IOR" or "CONSUMER_IOR CHANNEL_IOR" */
    char *channel_ior = strchr(r.line, ' ');
    if (channel_ior)
        *channel_ior++ = 0;
    if (setup->via_channel != (channel_ior != NULL) ||
        wire_giop.parse_ready(channel_ior ? channel_ior : r.line, &c->target,
                              why, sizeof why) != 0) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "event consumer (pid "
                           "%d): its ready line is not %s: %.80s", (int)r.pid,
                           setup->via_channel ? "two IORs" : "one IOR",
                           r.line);
        return -1;
    }
    int rc = event_log_open(&c->log, setup->log_path, why, sizeof why);
    if (rc) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "event consumer (pid "
                           "%d): %s", (int)r.pid, why);
        return -1;
    }
    return 0;
}

int channel_start(struct chan *c)
{
    const struct channel_setup *setup = &channel_setup;
    const struct scenario *sc = c->s->sc;
    if (start_processes(c) != 0)
        return -1;
    int rc = invoke_open(&c->inv, c->s->tp, &c->target, sc->call.timeout_ms);
    if (rc && !servers_resource_stop(c->o, rc, c->inv.why, NULL)) {
        channel_process_failed(
            c, setup->via_channel ? c->events_pid : c->consumer_pid,
            setup->via_channel ? "omniEvents" : "event consumer",
            "connect: %s", c->inv.why);
        return -1;
    }
    if (rc)
        return -1;
    c->key = c->target.key;
    c->key_len = c->target.key_len;
    if (setup->via_channel) {
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
