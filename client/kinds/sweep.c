/* The footprint sweep (kind sweep): N servers, each with its connection,
 * grown step by step until a round of calls to all of them crosses
 * max_ms. This file is the axis of servers: starting them (and
 * connecting) as N grows, stopping the newest as the crossing search
 * drops N; the stepper (kinds/stepper.h) does the rest. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/payload.h"
#include "core/util.h"
#include "kinds/kind.h"
#include "kinds/servers.h"
#include "kinds/stepper.h"

/* Every server of the last step has its connection (or none: idle). */
static int64_t sweep_max_connections(const struct scenario *sc)
{
    return stepper_opts(sc)->max_n;
}

/* N grows over an IOR list in order: it ends at the list's end. */
static int sweep_fit_servers(struct scenario *sc, size_t available,
                             const char *list, char *note, size_t note_len,
                             char *why, size_t why_len)
{
    struct stepper_opts *so = (struct stepper_opts *)(void *)sc->kind_opts;
    note[0] = 0;
    if ((size_t)so->start > available) {
        snprintf(why, why_len, "key \"sweep.start\": %lld is above the %zu "
                 "servers %s lists", (long long)so->start, available, list);
        return -EINVAL;
    }
    if ((size_t)so->max_n > available) {
        snprintf(note, note_len, "the end of %s: it lists %zu servers, "
                 "sweep.max_n was %lld",
                 strcmp(list, "-") ? list : "standard input", available,
                 (long long)so->max_n);
        so->max_n = (int64_t)available;
    }
    return 0;
}

/* The common keys the sweep takes beside its own. */
static const char *const sweep_uses[] = {"mode", "client", "probe", "caller",
                                         NULL};

/* The keys of kind sweep: the driver's settings, as sweep.*. */
static const struct scenario_key sweep_keys[] = {
    STEPPER_KEY_ROWS("sweep", "servers"),
};

/* The sweep's own rules: it starts no higher than it may go. */
static int sweep_check(const struct scenario_ctx *c,
                       const struct scenario *sc)
{
    return stepper_check_start(c, sc);
}

static struct conn *grow_slot(void *arg, size_t k)
{
    struct stepper_hand *h = arg;
    return &h->conns[h->n + k];
}

static void grow_failed(void *arg, size_t k, struct conn *c, int err)
{
    struct stepper_hand *h = arg;
    stepper_call_failure(h, h->n + k, err, c->why);
}

/* A mode whose calls another process makes (a caller) connects to the
 * new servers itself: hand it their IORs, conns[from..from+count-1]'s
 * ready lines. True, or false when the side stopped. */
static bool hand_targets(struct stepper_hand *h, size_t from, size_t count,
                         const struct spawn_result *res)
{
    const char **lines = malloc((count ? count : 1) * sizeof *lines);
    char why[700];
    if (!lines) {
        run_stop(h->o, STOP_RESOURCE, 0, "out of memory in the client at "
                 "N=%zu", from);
        return false;
    }
    for (size_t k = 0; k < count; k++)
        lines[k] = res[k].line;
    int rc = h->s->mode->targets(h->mode, h->conns, from, lines, count, why,
                                 sizeof why);
    free(lines);
    if (rc == -EINTR && *h->s->interrupted)
        run_stop(h->o, STOP_INTERRUPTED, 130, "interrupted at N=%zu", from);
    else if (rc)
        run_stop(h->o, STOP_CALL_FAILED, 1, "%s at N=%zu", why, from);
    return rc == 0;
}

/* Start servers n..target-1 and connect to each (or, with a caller, hand
 * it each one's IOR). True when all are up. */
static bool grow(struct stepper_hand *h, size_t target)
{
    const struct scenario *sc = h->s->sc;
    size_t count = target - h->n, from = h->n;
    /* A caller connects, never orbbench: the servers see only its
     * connections. Their ready lines are kept for it. */
    bool caller = h->s->mode->targets != NULL;
    struct spawn_result *res = NULL;
    char at[48];
    snprintf(at, sizeof at, " at N=%zu", h->n);
    if (caller && !(res = calloc(count, sizeof *res))) {
        run_stop(h->o, STOP_RESOURCE, 0, "out of memory in the client%s",
                 at);
        return false;
    }
    samples_clear(&h->starts);
    struct servers_want w = {
        .group = h->s->group,
        .first = *h->next_index,
        .count = (unsigned)count,
        .cpu = -1,
        .at = at,
        .oom_kills = h->oom_kills,
        .starts = &h->starts,
        .slot = grow_slot,
        .arg = h,
        .idle = !sc->client.connect || caller,
        .payload = payload_lookup(sc->call.payload),
        .failed = grow_failed,
    };
    *h->next_index += (unsigned)count;
    h->n += servers_start(h->s, h->o, &w, res);
    bool ok = h->n == target && !h->o->stop_reason;
    if (caller && h->n > from && !h->o->stop_reason)
        ok = hand_targets(h, from, h->n - from, res) && ok;
    free(res);
    return ok;
}

/* Drop the newest servers until n remain: close their connections, then
 * have the source drop them (the spawner kills and reaps its own; servers
 * of a list are left running). True when all went. */
static bool shrink(struct stepper_hand *h, size_t target)
{
    size_t count = h->n - target;
    pid_t *pids = malloc(count * sizeof *pids);
    if (!pids) {
        run_stop(h->o, STOP_RESOURCE, 0, "out of memory in the client at N=%zu",
             h->n);
        return false;
    }
    if (h->s->mode->forget)
        h->s->mode->forget(h->mode, h->conns, target);
    for (size_t i = target; i < h->n; i++) {
        pids[i - target] = h->conns[i].pid;
        conn_close(&h->conns[i]);
    }
    size_t was = h->n;
    h->n = target;
    int rc = h->s->src->ops->drop(h->s->src->ctx, pids, (unsigned)count,
                                  5000);
    free(pids);
    if (rc == -EINTR && *h->s->interrupted) {
        run_stop(h->o, STOP_INTERRUPTED, 130, "interrupted at N=%zu", was);
        return false;
    }
    if (rc) {
        run_stop(h->o, STOP_CALL_FAILED, 1,
             "could not stop servers %zu..%zu to go from N=%zu down to "
             "%zu: %s",
             target, was - 1, was, target,
             rc == -ESRCH ? "some had already exited or were not reaped"
                          : "the spawner stopped answering");
        return false;
    }
    return true;
}

/* Start or stop servers until exactly `target` run. */
static bool servers_set_n(struct stepper_hand *h, size_t target)
{
    bool ok = target > h->n   ? grow(h, target)
              : target < h->n ? shrink(h, target)
                              : true;
    h->servers = h->n;
    return ok;
}

/* Each server's footprint: N of them. */
static void servers_footprint(struct stepper_hand *h, json_t *step,
                              size_t on_machine)
{
    stepper_probe_servers(h, h->conns, h->n, on_machine, step);
}

/* What one server cost at step st: memory, threads and descriptors
 * (result.costs.memory reads the last step with a footprint: they barely
 * move with N). */
static json_t *servers_cost(json_t *st)
{
    json_t *per = json_object_get(st, "mem_per_server_kb");
    json_t *fp = json_object_get(st, "footprint");
    if (!per || !fp)
        return NULL;
    return json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?}", "pss_kb",
                     json_object_get(per, "pss"), "uss_kb",
                     json_object_get(per, "uss"), "mem_available_kb",
                     json_object_get(per, "mem_available"), "threads",
                     json_object_get(json_object_get(fp, "threads"), "mean"),
                     "fds", json_object_get(json_object_get(fp, "fds"), "mean"));
}

static const struct stepper_axis servers_axis = {
    .noun = "servers",
    .held_key = "max_servers",
    .set_n = servers_set_n,
    .footprint = servers_footprint,
    .unit = "server",
    .step_cost = servers_cost,
};

static void sweep_run(struct side *sides, struct run_outcome *o, size_t nsides)
{
    stepper_drive(&servers_axis, sides, o, nsides);
}

/* The closing block: what ran, how far it got, what each server cost
 * (result.costs), why it stopped, where the figures are. */
static void sweep_summary(const struct scenario *sc, json_t *doc,
                          const struct run_outcome *o, const char *out)
{
    char held[64];
    snprintf(held, sizeof held, "the machine held %lld servers",
             (long long)o->held);
    stepper_summary_head(sc, doc, held);
    json_t *costs = json_object_get(json_object_get(doc, "result"), "costs");
    json_t *mem = json_object_get(costs, "memory");
    if (mem) {
        double avail =
            json_number_value(json_object_get(mem, "mem_available_kb"));
        char avail_s[48];
        /* Other processes' memory moves MemAvailable too: a server cannot
         * give memory back, so less than nothing is the machine's noise. */
        if (avail < 0)
            snprintf(avail_s, sizeof avail_s, "MemAvailable below noise");
        else
            snprintf(avail_s, sizeof avail_s, "MemAvailable %.0f kB", avail);
        printf("  each server at N=%lld: PSS %.0f kB, USS %.0f kB, %s, "
               "%.4g threads, %.4g descriptors\n",
               (long long)json_integer_value(json_object_get(mem, "n")),
               json_number_value(json_object_get(mem, "pss_kb")),
               json_number_value(json_object_get(mem, "uss_kb")), avail_s,
               json_number_value(json_object_get(mem, "threads")),
               json_number_value(json_object_get(mem, "fds")));
    }
    json_t *cpu = json_object_get(costs, "server_cpu");
    if (cpu)
        printf("  server CPU per call at N=%lld: %.1f us\n",
               (long long)json_integer_value(json_object_get(cpu, "n")),
               json_number_value(json_object_get(cpu, "us_per_call")));
    json_t *caller = json_object_get(costs, "caller");
    if (caller) {
        /* The client's own row: what the caller's calls cost it. */
        json_t *per = json_object_get(caller, "cpu_per_call_us");
        json_t *fp = json_object_get(caller, "footprint");
        /* USS: its PSS falls as servers of the same ORB share its
         * library's pages. */
        json_t *slope = json_object_get(json_object_get(caller,
                                                        "memory_per_server_kb"),
                                        "uss_kb");
        printf("  the caller: CPU per call at N=%lld: %.1f us (user %.1f, "
               "sys %.1f)",
               (long long)json_integer_value(json_object_get(caller, "n")),
               json_number_value(json_object_get(per, "total")),
               json_number_value(json_object_get(per, "user")),
               json_number_value(json_object_get(per, "sys")));
        if (fp)
            printf("; at N=%lld: PSS %lld kB, %lld threads, %lld "
                   "descriptors",
                   (long long)json_integer_value(json_object_get(fp, "n")),
                   (long long)json_integer_value(json_object_get(fp,
                                                                 "pss_kb")),
                   (long long)json_integer_value(json_object_get(fp,
                                                                 "threads")),
                   (long long)json_integer_value(json_object_get(fp, "fds")));
        if (json_is_number(slope))
            printf("; USS %.1f kB per server", json_number_value(slope));
        printf("\n");
    }
    stepper_summary_end(sc, doc, o, out);
}

const struct kind_ops kind_sweep = {
    .scenario = {.name = "sweep",
                 .keys = sweep_keys,
                 .nkeys = ARRAY_LEN(sweep_keys),
                 .check = sweep_check,
                 .external_servers = true,
                 .uses = sweep_uses},
    .flags = KIND_PAIRS,
    .run = sweep_run,
    .summary = sweep_summary,
    .max_connections = sweep_max_connections,
    .fit_servers = sweep_fit_servers,
};
