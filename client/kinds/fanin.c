/* Many clients on one server (kind fanin, issue 25): k servers started
 * once, N connections to them grown step by step (each its own socket and
 * GIOP connection, connection i to server i mod k), a round calls once
 * over every connection, until a round crosses max_ms. The stepper
 * (kinds/stepper.h) with connections as its axis: the crossing search
 * drops and re-opens connections instead of servers. Each step records
 * the servers' footprint against their baseline with no connection, per
 * connection (threads, descriptors, RSS/PSS/USS), and a step that would
 * pass a limit (the client's or a server's RLIMIT_NOFILE, the descriptors
 * a server declared it serves, pid_max or threads-max for a server that
 * starts a thread per connection) is a `resource` stop naming it before
 * it is tried. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "codec/payload.h"
#include "core/spread.h"
#include "core/util.h"
#include "host/footprint.h"
#include "host/probe.h"
#include "kinds/kind.h"
#include "kinds/servers.h"
#include "kinds/stepper.h"

/* The keys of kind fanin. */
struct fanin_opts {
    struct stepper_opts stepper; /* first: stepper_opts(sc) reads it */
    int64_t servers;             /* k */
    int64_t client_nofile;       /* the client's soft RLIMIT_NOFILE; 0: as
                                  * raised for max_n */
    int64_t server_nofile;       /* each server's RLIMIT_NOFILE; 0:
                                  * inherited */
};

_Static_assert(offsetof(struct fanin_opts, stepper) == 0,
               "stepper_opts(sc) reads struct stepper_opts at the start");

static const struct fanin_opts *fanin_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct fanin_opts, sc);
}

#define OPT(f) SCENARIO_KIND_OFF(struct fanin_opts, f)
static const struct scenario_key fanin_keys[] = {
    STEPPER_KEY_ROWS("fanin", "connections"),
    {.key = "fanin.servers", .type = SCENARIO_INT, .off = OPT(servers),
     .min = 1, .max = 1000, .def_num = 1,
     .help = "servers started once; connection i goes to server i mod "
     "servers"},
    {.key = "fanin.client_nofile", .type = SCENARIO_INT,
     .off = OPT(client_nofile), .max = 10000000,
     .help = "the client's RLIMIT_NOFILE (soft) for the run; 0: raised as "
     "far as allowed for max_n connections"},
    {.key = "fanin.server_nofile", .type = SCENARIO_INT,
     .off = OPT(server_nofile), .max = 10000000,
     .help = "each server's RLIMIT_NOFILE, set once it is up (prlimit); 0: "
     "what it inherited"},
};
#undef OPT

static const char *const fanin_uses[] = {"mode", "client", "probe", NULL};

static int fanin_check(const struct scenario_ctx *c,
                       const struct scenario *sc)
{
    if (strcmp(sc->transport, "pipe") == 0)
        return scenario_fail(c, "transport", "\"pipe\" is one connection per "
                             "server; kind fanin needs \"tcp\" or \"unix\"");
    if (!sc->client.connect)
        return scenario_fail(c, "client.connect", "kind fanin measures "
                             "connections: it must be true");
    return stepper_check_start(c, sc);
}

/* Every connection is the client's. */
static int64_t fanin_max_connections(const struct scenario *sc)
{
    return stepper_opts(sc)->max_n;
}

/* The axis's state: the k servers, known by pid and address, never
 * called themselves; their footprint with no connection; what a
 * connection was measured to take so far (< 0: not yet). */
struct fanin {
    struct conn *servers;
    size_t k;
    double base[FP_NFIELDS]; /* footprint_fields' totals over the servers,
                              * no connection */
    double threads_per_conn;
    double fds_per_conn;
    /* What each server declared it serves at most (descriptors; 0:
     * nothing declared), and why: spawner_declared_limit. */
    int64_t *declared;
    char (*declared_why)[160];
};

/* The servers' totals of footprint_fields from a footprint: mean ×
 * servers (the footprint samples every stride-th server when probing all
 * would take too long). False when it has none. */
static bool totals(json_t *footprint, double *t)
{
    double of = json_number_value(json_object_get(footprint, "of"));
    for (size_t i = 0; i < FP_NFIELDS; i++) {
        json_t *field = json_object_get(footprint, footprint_fields[i]);
        json_t *mean = json_object_get(field, "mean");
        if (!json_is_number(mean))
            return false;
        t[i] = json_number_value(mean) * of;
    }
    return true;
}

static struct conn *server_slot(void *arg, size_t k)
{
    struct fanin *f = arg;
    return &f->servers[k];
}

/* Each server's RLIMIT_NOFILE to fanin.server_nofile, the client's to
 * fanin.client_nofile (the servers were forked with the limit raised for
 * max_n). False when one cannot be set: the run stops. */
static bool set_limits(struct stepper_hand *h, struct fanin *f)
{
    const struct fanin_opts *fo = fanin_opts(h->s->sc);
    for (size_t j = 0; fo->server_nofile && j < f->k; j++) {
        struct rlimit rl = {(rlim_t)fo->server_nofile,
                            (rlim_t)fo->server_nofile};
        if (prlimit(f->servers[j].pid, RLIMIT_NOFILE, &rl, NULL) != 0) {
            run_stop(h->o, STOP_CALL_FAILED, 1, "fanin.server_nofile: cannot "
                     "set server %u's (pid %d) RLIMIT_NOFILE to %lld: %s",
                     f->servers[j].index, (int)f->servers[j].pid,
                     (long long)fo->server_nofile, strerror(errno));
            return false;
        }
    }
    struct rlimit rl;
    if (fo->client_nofile && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = (rlim_t)fo->client_nofile;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
            rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            run_stop(h->o, STOP_CALL_FAILED, 1, "fanin.client_nofile: cannot "
                     "set the client's RLIMIT_NOFILE to %lld: %s",
                     (long long)fo->client_nofile, strerror(errno));
            return false;
        }
    }
    return true;
}

/* The descriptor limits the servers declared (a select() reactor's
 * FD_SETSIZE, say), recorded in the result as declared_limits. False when
 * a declaration cannot be read: the run stops, naming it. */
static bool read_declared(struct stepper_hand *h, struct fanin *f)
{
    json_t *list = json_array();
    bool ok = true;
    /* Only servers orbbench started have a log to read. */
    bool ours = h->s->sp && (!h->s->src || h->s->src->ops->started_here);
    for (size_t j = 0; ok && ours && j < f->k; j++) {
        int rc = spawner_declared_limit(h->s->sp, f->servers[j].index,
                                        "descriptors", &f->declared[j],
                                        f->declared_why[j],
                                        sizeof f->declared_why[j]);
        if (rc < 0) {
            run_stop(h->o, STOP_CALL_FAILED, 1, "%s", f->declared_why[j]);
            ok = false;
        } else if (rc > 0) {
            json_array_append_new(
                list, json_pack("{s:i, s:I, s:s}", "server",
                                (int)f->servers[j].index, "descriptors",
                                (json_int_t)f->declared[j], "why",
                                f->declared_why[j]));
        }
    }
    json_object_set_new(h->s->doc, "declared_limits", list);
    return ok;
}

/* Start the k servers, set the limits, read what they declared. */
static bool fanin_begin(struct stepper_hand *h)
{
    const struct fanin_opts *fo = fanin_opts(h->s->sc);
    struct fanin *f = calloc(1, sizeof *f);
    size_t k = (size_t)fo->servers;
    if (f) {
        f->servers = calloc(k, sizeof *f->servers);
        f->declared = calloc(k, sizeof *f->declared);
        f->declared_why = calloc(k, sizeof *f->declared_why);
    }
    h->axis = f;
    if (!f || !f->servers || !f->declared || !f->declared_why) {
        run_stop(h->o, STOP_RESOURCE, 0, "out of memory in the client");
        return false;
    }
    f->threads_per_conn = f->fds_per_conn = -1;
    struct servers_want w = {
        .group = h->s->group,
        .first = *h->next_index,
        .count = (unsigned)k,
        .cpu = -1,
        .at = " starting the servers",
        .oom_kills = h->oom_kills,
        .starts = &h->starts,
        .slot = server_slot,
        .arg = f,
        .idle = true, /* called only over the connections to come */
    };
    *h->next_index += (unsigned)k;
    f->k = servers_start(h->s, h->o, &w, NULL);
    h->servers = f->k;
    return f->k == k && !h->o->stop_reason && set_limits(h, f) &&
           read_declared(h, f);
}

/* The servers' footprint with no connection, once every side's are up. */
static void fanin_baseline(struct stepper_hand *h)
{
    struct fanin *f = h->axis;
    json_t *scratch = json_object();
    stepper_probe_servers(h, f->servers, f->k, f->k, scratch);
    json_t *fp = json_object_get(scratch, "footprint");
    if (!totals(fp, f->base))
        memset(f->base, 0, sizeof f->base);
    json_object_set(h->s->doc, "servers_baseline", fp ? fp : json_null());
    json_decref(scratch);
}

/* Would going from n to `target` connections pass a limit? Then stop the
 * side as `resource`, naming it, and return false. */
static bool headroom(struct stepper_hand *h, struct fanin *f, size_t target)
{
    int64_t added = (int64_t)(target - h->n), would;
    struct rlimit rl;
    unsigned per = h->s->tp->fds_per_conn;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        struct spread_limit l = {probe_own_fds(), (int64_t)rl.rlim_cur, per,
                                 per};
        if (l.used >= 0 && spread_over(&l, added, &would)) {
            run_stop(h->o, STOP_RESOURCE, 0, "the client's RLIMIT_NOFILE "
                     "%lld: N=%zu would need %lld descriptors (%lld open at "
                     "N=%zu, %u per connection)", (long long)l.limit, target,
                     (long long)would, (long long)l.used, h->n, per);
            return false;
        }
    }
    for (size_t j = 0; j < f->k; j++) {
        const struct conn *srv = &f->servers[j];
        struct proc_footprint p;
        if (probe_process(srv->pid, &p) != 0 ||
            prlimit(srv->pid, RLIMIT_NOFILE, NULL, &rl) != 0 ||
            rl.rlim_cur == RLIM_INFINITY)
            continue; /* gone: the next round finds out why */
        /* What the server said it serves, when below its RLIMIT_NOFILE
         * (a select() reactor watches only descriptors below FD_SETSIZE;
         * they are handed out lowest first, so their count is the
         * limit). */
        bool declared = f->declared[j] > 0 &&
                        f->declared[j] < (int64_t)rl.rlim_cur;
        struct spread_limit l = {p.fds,
                                 declared ? f->declared[j]
                                          : (int64_t)rl.rlim_cur,
                                 f->fds_per_conn, 1};
        int64_t to_it = spread_share((int64_t)target, (int64_t)f->k,
                                     (int64_t)j) -
                        spread_share((int64_t)h->n, (int64_t)f->k, (int64_t)j);
        if (spread_over(&l, to_it, &would)) {
            if (declared)
                run_stop(h->o, STOP_RESOURCE, 0, "server %u (pid %d) "
                         "serves at most %lld descriptors, as it declared "
                         "(%s): N=%zu would have it hold %lld (%lld at "
                         "N=%zu)", srv->index, (int)srv->pid,
                         (long long)l.limit, f->declared_why[j], target,
                         (long long)would, (long long)p.fds, h->n);
            else
                run_stop(h->o, STOP_RESOURCE, 0, "server %u's (pid %d) "
                         "RLIMIT_NOFILE %lld: N=%zu would have it hold %lld "
                         "descriptors (%lld at N=%zu)", srv->index,
                         (int)srv->pid, (long long)l.limit, target,
                         (long long)would, (long long)p.fds, h->n);
            return false;
        }
    }
    /* Tasks: only a server measured to start threads with its
     * connections adds any. */
    int64_t pid_max = probe_pid_max(), threads_max = probe_threads_max();
    int64_t limit = pid_max;
    if (threads_max > 0 && (limit < 0 || threads_max < limit))
        limit = threads_max;
    struct spread_limit l = {probe_tasks_total(), limit, f->threads_per_conn,
                             0};
    if (l.used >= 0 && f->threads_per_conn > 0 &&
        spread_over(&l, added, &would)) {
        run_stop(h->o, STOP_RESOURCE, 0, "%s %lld: N=%zu would need about "
                 "%lld tasks on the machine (%lld now, the servers started "
                 "%.2f threads per connection up to N=%zu; pid_max %lld, "
                 "threads-max %lld)",
                 limit == pid_max ? "pid_max" : "threads-max",
                 (long long)limit, target, (long long)would,
                 (long long)l.used, f->threads_per_conn, h->n,
                 (long long)pid_max, (long long)threads_max);
        return false;
    }
    return true;
}

/* Open connections n..target-1, in order, so conns stay dense. */
static bool grow(struct stepper_hand *h, struct fanin *f, size_t target)
{
    const struct payload_type *payload = payload_lookup(h->s->sc->call.payload);
    if (!headroom(h, f, target))
        return false;
    while (h->n < target) {
        if (*h->s->interrupted) {
            run_stop(h->o, STOP_INTERRUPTED, 130, "interrupted at N=%zu",
                     h->n);
            return false;
        }
        const struct conn *srv = &f->servers[h->n % f->k];
        struct conn *c = &h->conns[h->n];
        int rc = servers_open_conn(h->s, c, &srv->target, srv->index,
                                   srv->pid, payload);
        if (rc) {
            char at[48];
            snprintf(at, sizeof at, " at N=%zu", h->n);
            if (!servers_resource_stop(h->o, rc, c->why, at))
                stepper_call_failure(h, h->n, rc, c->why);
            conn_close(c);
            return false;
        }
        h->n++;
    }
    return true;
}

/* Open or close connections until exactly `target` are up; the servers
 * stay. */
static bool fanin_set_n(struct stepper_hand *h, size_t target)
{
    struct fanin *f = h->axis;
    if (target > h->n)
        return grow(h, f, target);
    if (target < h->n && h->s->mode->forget)
        h->s->mode->forget(h->mode, h->conns, target);
    while (h->n > target)
        conn_close(&h->conns[--h->n]);
    return true;
}

/* The servers' footprint (the sweep's fields, over the k servers), their
 * totals and what each connection added to them since the baseline. */
static void fanin_footprint(struct stepper_hand *h, json_t *step,
                            size_t on_machine)
{
    struct fanin *f = h->axis;
    double t[FP_NFIELDS];
    stepper_probe_servers(h, f->servers, f->k, on_machine, step);
    if (!totals(json_object_get(step, "footprint"), t) || h->n == 0)
        return;
    json_t *total = json_object(), *per = json_object();
    for (size_t i = 0; i < FP_NFIELDS; i++) {
        json_object_set_new(total, footprint_fields[i], json_real(t[i]));
        json_object_set_new(per, footprint_fields[i],
                            json_real((t[i] - f->base[i]) / (double)h->n));
    }
    json_object_set_new(step, "servers_total", total);
    json_object_set_new(step, "per_connection", per);
    f->threads_per_conn = (t[FP_THREADS] - f->base[FP_THREADS]) / (double)h->n;
    f->fds_per_conn = (t[FP_FDS] - f->base[FP_FDS]) / (double)h->n;
}

static void fanin_end(struct stepper_hand *h)
{
    struct fanin *f = h->axis;
    if (!f)
        return;
    for (size_t j = 0; f->servers && j < f->k; j++)
        conn_close(&f->servers[j]);
    free(f->servers);
    free(f->declared);
    free(f->declared_why);
    free(f);
    h->axis = NULL;
}

/* What one connection added to the servers at step st
 * (steps[].per_connection; result.costs.memory reads the last step with
 * one). */
static json_t *connection_cost(json_t *st)
{
    json_t *per = json_object_get(st, "per_connection");
    if (!per)
        return NULL;
    return json_pack("{s:O?, s:O?, s:O?, s:O?}", "pss_kb",
                     json_object_get(per, "pss_kb"), "uss_kb",
                     json_object_get(per, "uss_kb"), "threads",
                     json_object_get(per, "threads"), "fds",
                     json_object_get(per, "fds"));
}

static const struct stepper_axis connections_axis = {
    .noun = "connections",
    .held_key = "max_connections",
    .begin = fanin_begin,
    .baseline = fanin_baseline,
    .set_n = fanin_set_n,
    .footprint = fanin_footprint,
    .end = fanin_end,
    .unit = "connection",
    .step_cost = connection_cost,
};

static void fanin_run(struct side *sides, struct run_outcome *o,
                      size_t nsides)
{
    stepper_drive(&connections_axis, sides, o, nsides);
}

/* The closing block: what ran, how many connections the servers held,
 * what a connection cost them, the stop. */
static void fanin_summary(const struct scenario *sc, json_t *doc,
                          const struct run_outcome *o, const char *out)
{
    json_t *steps = json_object_get(doc, "steps");
    char held[96];
    snprintf(held, sizeof held, "%lld server%s held %lld connections",
             (long long)fanin_opts(sc)->servers,
             fanin_opts(sc)->servers == 1 ? "" : "s",
             (long long)o->held);
    stepper_summary_head(sc, doc, held);
    json_t *last = json_array_get(steps, json_array_size(steps) - 1);
    json_t *per = json_object_get(last, "per_connection");
    for (size_t i = 0; per && i < FP_NFIELDS; i++)
        printf("%s %.2f %s", i ? "," : "  each connection added",
               json_number_value(json_object_get(per, footprint_fields[i])),
               footprint_words[i]);
    if (per)
        printf(" to the servers at N=%lld\n",
               (long long)json_integer_value(json_object_get(last, "n")));
    stepper_summary_end(sc, doc, o, out);
}

const struct kind_ops kind_fanin = {
    .scenario = {.name = "fanin",
                 .keys = fanin_keys,
                 .nkeys = ARRAY_LEN(fanin_keys),
                 .check = fanin_check,
                 .uses = fanin_uses},
    .flags = KIND_PAIRS,
    .run = fanin_run,
    .summary = fanin_summary,
    .max_connections = fanin_max_connections,
};
