/* The stepper's steps and probes into the result: every measurement's
 * rounds, calls and costs (result.steps[], result.probes[]), the
 * footprint of a step's servers, the search's points kept beside them,
 * and the checkpoint that writes what there is so far. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"
#include "host/probe.h"
#include "kinds/stepper_impl.h"

void stepper_probe_servers(struct stepper_hand *h, const struct conn *srv,
                           size_t n, size_t on_machine, json_t *step)
{
    const struct server_source *src = h->s->src;
    pid_t *pids = calloc(n ? n : 1, sizeof *pids);
    unsigned *index = calloc(n ? n : 1, sizeof *index);
    size_t k = 0, missing = 0;
    const char *why = NULL;
    for (size_t i = 0; pids && index && i < n; i++) {
        const char *no = src->ops->no_pid_why(src->ctx, srv[i].index);
        if (no || srv[i].pid <= 0) {
            /* A server of a list that no process here is known to be. */
            why = why ? why : no ? no : "its pid is unknown";
            missing++;
            continue;
        }
        pids[k] = srv[i].pid;
        index[k++] = srv[i].index;
    }
    if (pids && index && (k || !missing))
        footprint_step(&h->fp, pids, index, k, on_machine, step);
    if (missing)
        json_object_set_new(
            step, "footprint_unavailable",
            json_pack("{s:I, s:s}", "servers", (json_int_t)missing,
                      "why", why));
    if (missing && !k)
        json_object_set_new(step, "footprint", json_null());
    free(pids);
    free(index);
}

/* A measurement's server_low: the mean of its cheapest LOW_SHARE of
 * timed rounds' server CPU, per call, when it has LOW_MIN rounds or more
 * (docs/compare.md, "Server CPU per call"). */
#define LOW_SHARE 0.3
#define LOW_MIN 5

/* The servers' CPU over the timed rounds, and per call on both sides.
 * The total is exact; user/system divide it in the kernel's sampled
 * proportion; server_low is the cheapest rounds' (`rounds`: each timed
 * round's, ns). */
static void server_cpu_json(json_t *step, const struct client_costs *cc,
                            double calls, const struct samples *rounds)
{
    double total_s =
        (double)(cc->server1.total_ns - cc->server0.total_ns) / 1e9;
    double user = (double)(cc->server1.user_ns - cc->server0.user_ns);
    double sys = (double)(cc->server1.sys_ns - cc->server0.sys_ns);
    double user_share = user + sys > 0 ? user / (user + sys) : 0;
    json_object_set_new(step, "server_cpu",
                        json_pack("{s:f, s:f, s:f}", "total_s", total_s,
                                  "user_s", total_s * user_share, "sys_s",
                                  total_s * (1 - user_share)));
    json_object_set_new(
        step, "cpu_per_call_us",
        json_pack("{s:f, s:f, s:f, s:f, s:f}", "server",
                  total_s * 1e6 / calls, "server_user",
                  total_s * user_share * 1e6 / calls, "server_sys",
                  total_s * (1 - user_share) * 1e6 / calls, "client_user",
                  cc->cpu_user_s * 1e6 / calls, "client_sys",
                  cc->cpu_sys_s * 1e6 / calls));
    if (rounds->len >= LOW_MIN) {
        double per_round = calls / (double)rounds->len;
        json_object_set_new(
            json_object_get(step, "cpu_per_call_us"), "server_low",
            json_real(stats_low_mean(rounds->ns, rounds->len, LOW_SHARE) /
                      1e3 / per_round));
    }
    json_t *each = json_array();
    for (size_t i = 0; i < rounds->len; i++)
        json_array_append_new(each, json_real((double)rounds->ns[i] / 1e6));
    json_object_set_new(step, "server_cpu_rounds_ms", each);
}

/* Keep this measurement's rounds for the search, pooling and the fit. */
static int keep_point(struct stepper_side *r, double median_ms, bool probe)
{
    if (r->npoints == r->points_cap) {
        size_t cap = r->points_cap ? r->points_cap * 2 : 64;
        struct crossing_measure *p = realloc(r->points, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        r->points = p;
        int64_t *end = realloc(r->points_end_ns, cap * sizeof *end);
        if (!end)
            return -ENOMEM;
        r->points_end_ns = end;
        r->points_cap = cap;
    }
    struct crossing_measure *pt = &r->points[r->npoints];
    pt->rounds_ns = malloc((r->rounds.len ? r->rounds.len : 1) *
                           sizeof *pt->rounds_ns);
    if (!pt->rounds_ns)
        return -ENOMEM;
    memcpy(pt->rounds_ns, r->rounds.ns, r->rounds.len * sizeof(int64_t));
    pt->len = r->rounds.len;
    pt->n = (int64_t)r->h.n;
    pt->median_ms = median_ms;
    pt->probe = probe;
    r->points_end_ns[r->npoints] = now_ns();
    r->npoints++;
    return 0;
}

/* What every measurement records, steps and probes alike (no footprint):
 * the rounds, each in order, their summary and the median's interval,
 * the calls' service and completion times, the client's and servers'
 * costs. Keeps the measurement's rounds (r->points). *median_ms gets the
 * median round time. */
static json_t *measurement_json(struct stepper_side *r, const char *phase,
                                double *median_ms)
{
    struct summary round_ms, call_us, done_us;
    struct median_ci ci;
    json_t *each = json_array();
    for (size_t i = 0; i < r->rounds.len; i++)
        json_array_append_new(each,
                              json_real((double)r->rounds.ns[i] / 1e6));
    /* In the order taken, before stats_summarize sorts them. */
    stats_median_ci(r->rounds.ns, r->rounds.len, 1e6, &ci);
    stats_summarize(&r->rounds, 1e6, &round_ms);
    stats_summarize(&r->calls, 1e3, &call_us);
    stats_summarize(&r->completions, 1e3, &done_us);
    *median_ms = round_ms.median;
    json_t *m = json_pack(
        "{s:s, s:I, s:o, s:o, s:{s:f, s:f, s:f, s:s, s:I, s:I}, s:o, s:o, "
        "s:I, s:f}",
        "phase", phase, "n", (json_int_t)r->h.n, "round_ms",
        result_summary(&round_ms), "rounds_ms", each, "round_ms_ci", "low",
        ci.low, "high", ci.high, "level", ci.level, "method",
        "moving-block bootstrap of the median, percentile interval",
        "block", (json_int_t)ci.block, "resamples", (json_int_t)ci.resamples,
        "call_us", result_summary(&call_us), "completion_us",
        result_summary(&done_us), "calls", (json_int_t)r->calls.len,
        "elapsed_s", (double)(now_ns() - r->t0_ns) / 1e9);
    const struct client_costs *cc = &r->client;
    json_object_set_new(m, "max_in_flight", json_integer(cc->max_in_flight));
    json_t *untimed = json_array();
    for (size_t i = 0; i < r->untimed.len; i++)
        json_array_append_new(untimed,
                              json_real((double)r->untimed.ns[i] / 1e6));
    json_object_set_new(m, "untimed_ms", untimed);
    if (r->neighbour_cpu)
        json_object_set_new(m, "neighbour_cpu_ms",
                            json_real((double)r->neighbour_ns / 1e6));
    if (r->place)
        json_object_set_new(m, "place", json_integer(r->place));
    if (stepper_opts(r->h.s->sc)->hold_others && r->place)
        json_object_set_new(m, "held_servers",
                            json_integer((json_int_t)r->held));
    json_object_set_new(
        m, "client",
        json_pack("{s:I, s:f, s:I, s:f, s:f, s:I}", "threads_started",
                  (json_int_t)cc->threads_started, "threads_started_per_round",
                  r->rounds.len ? (double)cc->threads_started /
                                      (double)r->rounds.len
                                : 0.0,
                  "threads_peak", (json_int_t)cc->threads_peak, "cpu_user_s",
                  cc->cpu_user_s, "cpu_sys_s", cc->cpu_sys_s, "reconnects",
                  (json_int_t)(stepper_reconnects(r) - cc->reconnects0)));
    if (cc->server_cpu && r->calls.len)
        server_cpu_json(m, cc, (double)r->calls.len, &r->server_rounds);
    /* The costs of calls another process made (a caller): its block,
     * named by its mode ("caller"). */
    if (r->mode_costs)
        json_object_set(m, r->h.s->mode->name, r->mode_costs);
    if (keep_point(r, round_ms.median, strcmp(phase, "sweep") != 0) != 0)
        run_stop(r->h.o, STOP_RESOURCE, 0,
                 "out of memory in the client at N=%zu", r->h.n);
    return m;
}

/* Servers on the machine, every side's. */
static size_t servers_on_machine(const struct stepper_side *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->d->nsides; i++)
        n += r->d->sides[i].h.servers;
    return n;
}

/* Record one step of the sweep. Returns its median round time (ms). */
double stepper_record_step(struct stepper_side *r)
{
    struct summary start_ms;
    struct machine_mem mi;
    double median;
    json_t *step = measurement_json(r, "sweep", &median);
    stats_summarize(&r->h.starts, 1e6, &start_ms);
    probe_machine_mem(&mi);
    json_object_set_new(step, "mem_available_kb",
                        json_integer(mi.mem_available_kb));
    json_object_set_new(step, "mem_free_kb", json_integer(mi.mem_free_kb));
    if (start_ms.count)
        json_object_set_new(step, "server_start_ms",
                            result_summary(&start_ms));
    if (stepper_opts(r->h.s->sc)->step_blocks > 1)
        json_object_set_new(step, "block", json_integer(r->block + 1));
    /* The servers' footprint once a step: the same processes at every
     * block, and probing them costs seconds at large N. */
    if (r->block == 0)
        r->d->axis->footprint(&r->h, step, servers_on_machine(r));
    json_array_append_new(json_object_get(r->h.s->doc, "steps"), step);
    r->nsteps++;
    r->last_what = "sweep";
    r->last_ms = median;
    r->last_mem_kb = mi.mem_available_kb;
    return median;
}

/* Write what we have so far; a later step or the end rewrites it. When
 * it cannot be written the side has stopped (write_failed, final): the
 * driver ends it before its next measurement. */
void stepper_checkpoint(struct stepper_side *r)
{
    stepper_outcome(r, "running",
                    "the run had not finished when this was written");
    run_checkpoint(r->h.s, r->h.o);
}

/* Record the measurement just taken as a probe of the crossing search,
 * with the decision the search takes on it: on every round measured at
 * this N so far. */
void stepper_record_probe(struct stepper_side *r, const char *phase)
{
    const struct scenario *sc = r->h.s->sc;
    double median;
    json_t *m = measurement_json(r, phase, &median);
    size_t count;
    double pooled = crossing_pooled_ms(r->points, r->npoints, (int64_t)r->h.n,
                                       &count);
    bool over = pooled > stepper_opts(sc)->max_ms;
    json_object_set_new(m, "pooled",
                        json_pack("{s:I, s:f, s:s}", "rounds",
                                  (json_int_t)count, "median_ms", pooled,
                                  "decision", over ? "over" : "under"));
    json_array_append_new(json_object_get(r->h.s->doc, "probes"), m);
    r->last_what = phase; /* a literal: "confirm", "bisect", ... */
    r->last_ms = pooled;
    r->last_mem_kb = -1;
    stepper_checkpoint(r);
}

/* What the server of side r really loaded, not what we meant to run. */
void stepper_record_library(struct stepper_side *r)
{
    char lib[512];
    json_t *orb = json_object_get(r->h.s->doc, "orb");
    if (r->lib_recorded || r->h.n == 0)
        return;
    if (orb && r->h.conns[0].pid > 0 &&
        probe_mapped_library(r->h.conns[0].pid, r->h.s->server->library, lib,
                             sizeof lib) == 0)
        json_object_set_new(orb, "library_path", json_string(lib));
    r->lib_recorded = true;
}
