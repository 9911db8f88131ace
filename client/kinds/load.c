/* Latency at an offered load (scenario kind "load"): calls go to
 * load.servers servers, in turn, at an offered rate of R calls a second
 * on a schedule fixed in advance (constant, or Poisson arrivals:
 * load.arrival), whether or not the replies keep up: an open loop. Each
 * call's latency runs from the time it was meant to go, so a server that
 * stalls is charged for every call the stall delayed, not only the one it
 * held (no coordinated omission). Latencies go into a log-bucketed
 * histogram (core/hist.h: within 0.79% above the exact percentile),
 * stored in the result; each window gives p50 to p99.99 and the max, the
 * rate achieved, the calls sent late and by how much (the client's own
 * scheduling jitter apart), and the CPU per call of client and servers.
 *
 * R steps up by load.growth from load.rate until the step's
 * load.percentile passes load.max_ms, its achieved rate falls below
 * load.min_achieved of the schedule, the calls outstanding reach
 * load.max_outstanding (overloaded: the calls past it wait, counted and
 * named, none dropped) or the client's own schedule slips (more than
 * load.max_late_share of its calls late by over load.late_us: the
 * latencies are then the client's, not the server's); the bracket is
 * then bisected (core/offered.h). The result: the highest offered rate
 * within the bound, with its interval.
 *
 * How calls go out (load.mode): event, one thread, every server's
 * connection pipelined (net/pipeline.h), at most load.max_outstanding in
 * flight; pool, load.threads workers each with its own connection to
 * every server, the calls queued for them; thread-per-call, a thread a
 * call at its time, load.threads connections a server to share, at most
 * load.max_outstanding threads. load.loop closed (event only) keeps one
 * call at a time on each connection and times it from its send, as a
 * closed-loop benchmark does: kept to show what that misses.
 *
 * Each step is a warm-up and load.repeats windows of the harness
 * (kinds/window.h); every window's calls are all answered before the
 * next begins. Files: this one (keys, the run, the search),
 * load_event.c, load_threads.c, load_record.c; load_impl.h. */
#include "kinds/kind.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "codec/payload.h"
#include "core/result.h"
#include "core/util.h"
#include "kinds/load_impl.h"
#include "kinds/servers.h"

static const char *const arrivals[] = {"constant", "poisson", NULL};
static const char *const modes[] = {"event", "pool", "thread-per-call",
                                    NULL};
static const char *const loops[] = {"open", "closed", NULL};
static const char *const percentiles[] = {"p50", "p90", "p99", "p99.9",
                                          "p99.99", "max", NULL};

#define OPT(f) SCENARIO_KIND_OFF(struct load_opts, f)
#define OPT_SZ(f) SCENARIO_KIND_SZ(struct load_opts, f)
static const struct scenario_key load_keys[] = {
    {.key = "load.servers", .type = SCENARIO_INT, .off = OPT(servers),
     .min = 1, .max = LOAD_MAX_SERVERS, .def_num = 1,
     .help = "kind load: servers, the calls spread over them in turn"},
    {.key = "load.rate", .type = SCENARIO_INT, .off = OPT(rate), .min = 1,
     .max = 10000000, .def_num = 1000,
     .help = "kind load: the first step's offered rate (calls/s)"},
    {.key = "load.growth", .type = SCENARIO_NUM, .off = OPT(growth),
     .min = 1.01, .max = 100, .def_num = 2,
     .help = "kind load: the offered rate's factor from one step to the "
     "next"},
    {.key = "load.max_rate", .type = SCENARIO_INT, .off = OPT(max_rate),
     .min = 1, .max = 10000000, .def_num = 1000000,
     .help = "kind load: never offer more (calls/s)"},
    {.key = "load.arrival", .type = SCENARIO_ENUM, .off = OPT(arrival),
     .size = OPT_SZ(arrival), .choices = arrivals, .def_str = "constant",
     .help = "kind load: the schedule, constant (every 1/R s) or poisson "
     "(exponential gaps of mean 1/R, seeded by load.seed)"},
    {.key = "load.mode", .type = SCENARIO_ENUM, .off = OPT(mode),
     .size = OPT_SZ(mode), .choices = modes, .def_str = "event",
     .help = "kind load: how calls go out: event (one thread, requests "
     "pipelined on each server's connection), pool (load.threads workers, "
     "each with a connection to every server) or thread-per-call (a "
     "thread a call, load.threads connections a server)"},
    {.key = "load.loop", .type = SCENARIO_ENUM, .off = OPT(loop),
     .size = OPT_SZ(loop), .choices = loops, .def_str = "open",
     .help = "kind load: open (every call at its time, timed from it) or "
     "closed (mode event: one call at a time a connection, timed from its "
     "send, as closed-loop benchmarks do)"},
    {.key = "load.threads", .type = SCENARIO_INT, .off = OPT(threads),
     .min = 1, .max = 1024, .def_num = 4,
     .help = "kind load: mode pool, worker threads; thread-per-call, "
     "connections to each server that the calls' threads share"},
    {.key = "load.max_outstanding", .type = SCENARIO_INT,
     .off = OPT(max_outstanding), .min = 1, .max = 10000, .def_num = 1000,
     .help = "kind load: calls sent and unanswered (and, mode pool, queued) "
     "at most; a call due past it waits, and the step is overloaded"},
    WINDOW_KEY_DURATION("load", "kind load: each measured window's length "
                        "(s)"),
    WINDOW_KEY_WARMUP("load", 0.5, "kind load: untimed calls at the step's "
                      "rate before its windows (s)"),
    WINDOW_KEY_REPEATS("load", "kind load: measured windows at each offered "
                       "rate"),
    {.key = "load.percentile", .type = SCENARIO_ENUM, .off = OPT(percentile),
     .size = OPT_SZ(percentile), .choices = percentiles, .def_str = "p99",
     .help = "kind load: the percentile load.max_ms bounds"},
    {.key = "load.max_ms", .type = SCENARIO_NUM, .off = OPT(max_ms),
     .min = 0.001, .max = 60000, .def_num = 1,
     .help = "kind load: a step whose load.percentile is over this (ms) "
     "is over the bound"},
    {.key = "load.min_achieved", .type = SCENARIO_NUM,
     .off = OPT(min_achieved), .min = 0.01, .max = 1, .def_num = 0.95,
     .help = "kind load: a step whose replies in its windows fall below "
     "this share of its scheduled calls is behind"},
    {.key = "load.resolution", .type = SCENARIO_NUM, .off = OPT(resolution),
     .max = 1, .def_num = 0.1,
     .help = "kind load: after the first step over, bisect until the "
     "bracket is within this fraction of its low end (0: stop there)"},
    {.key = "load.max_probes", .type = SCENARIO_INT, .off = OPT(max_probes),
     .max = 50, .def_num = 6,
     .help = "kind load: the bisection's measurements at most"},
    {.key = "load.spin_us", .type = SCENARIO_INT, .off = OPT(spin_us),
     .max = 10000,
     .help = "kind load: mode event, wake this long before each call's time "
     "and spin to it: a tighter schedule for the client's CPU (us; 0: "
     "sleep to it)"},
    {.key = "load.late_us", .type = SCENARIO_INT, .off = OPT(late_us),
     .min = 1, .max = 10000000, .def_num = 500,
     .help = "kind load: a call sent later than this after its time is late "
     "(us)"},
    {.key = "load.max_late_share", .type = SCENARIO_NUM,
     .off = OPT(max_late_share), .max = 1, .def_num = 0.01,
     .help = "kind load: a step where more than this share of the calls "
     "went late through the client's own fault (nothing held them) "
     "slipped: its latencies are the client's"},
    {.key = "load.seed", .type = SCENARIO_INT, .off = OPT(seed), .min = 0,
     .max = 1000000000, .def_num = 1,
     .help = "kind load: the Poisson schedule's seed (each window its own "
     "stream from it)"},
};
#undef OPT
#undef OPT_SZ

/* The rules between the keys: the first rate within max_rate, the closed
 * loop in mode event, extra connections where the transport has them. */
static int load_check(const struct scenario_ctx *c, const struct scenario *sc)
{
    const struct load_opts *o = load_opts(sc);
    if (o->rate > o->max_rate)
        return scenario_fail(c, "load.rate", "%lld is above load.max_rate "
                             "(%lld)", (long long)o->rate,
                             (long long)o->max_rate);
    if (strcmp(o->loop, "closed") == 0 && strcmp(o->mode, "event") != 0)
        return scenario_fail(c, "load.loop", "closed runs in load.mode "
                             "event only");
    if (strcmp(o->mode, "event") != 0 && o->spin_us)
        return scenario_fail(c, "load.spin_us", "spins in load.mode event "
                             "only");
    if (strcmp(o->mode, "event") != 0 && strcmp(sc->transport, "pipe") == 0)
        return scenario_fail(c, "load.mode", "%s opens several connections "
                             "a server; transport pipe has one", o->mode);
    return 0;
}

double load_percentile_q(const struct load_opts *o)
{
    if (strcmp(o->percentile, "max") == 0)
        return 100;
    return atof(o->percentile + 1);
}

static const struct load_engine *engine_of(const struct load_opts *o)
{
    if (strcmp(o->mode, "pool") == 0)
        return &load_pool;
    if (strcmp(o->mode, "thread-per-call") == 0)
        return &load_tpc;
    return &load_event;
}

int load_fail(struct load *l, size_t i, int err, const char *why)
{
    if (!l->err) {
        l->err = err;
        l->failed = i;
        snprintf(l->why, sizeof l->why, "%s", why);
    }
    return err;
}

static struct conn *start_slot(void *arg, size_t k)
{
    struct load *l = arg;
    return &l->conns[k];
}

/* A failure of the engine: servers_failed says what it was. -1. */
static int failed(struct load *l, int err, const char *when)
{
    const struct conn *c = &l->conns[l->failed < l->opened ? l->failed : 0];
    char at[160];
    snprintf(at, sizeof at, " %s", when);
    if (l->client_limit) {
        run_stop(l->o, STOP_RESOURCE, 0, "%s (%s)%s", l->why, strerror(-err),
                 at);
        return -1;
    }
    servers_failed(l->s, l->o,
                   &(struct servers_failure){.index = c->index,
                                             .pid = c->pid,
                                             .err = err,
                                             .why = l->why[0] ? l->why
                                                              : c->why,
                                             .at = at,
                                             .oom_kills = -1});
    return -1;
}

/* doc.load, the servers and the engine: 0, or -1 once stopped. */
static int load_init(struct window *w)
{
    struct load *l = w->kind;
    const struct scenario *sc = w->s->sc;
    l->s = w->s;
    l->o = w->o;
    l->opt = load_opts(sc);
    l->eng = engine_of(l->opt);
    l->closed = strcmp(l->opt->loop, "closed") == 0;
    l->poisson = strcmp(l->opt->arrival, "poisson") == 0;
    l->n = (size_t)l->opt->servers;
    l->lanes = l->eng == &load_event ? 1 : (size_t)l->opt->threads;
    l->rules = (struct offered_rules){.start = l->opt->rate,
                                      .growth = l->opt->growth,
                                      .max_rate = l->opt->max_rate,
                                      .resolution = l->opt->resolution,
                                      .max_probes = l->opt->max_probes};
    offered_start(&l->search, &l->rules);
    w->plan.max_steps = offered_max_measurements(&l->rules);
    pthread_mutex_init(&l->mu, NULL);
    l->steps = json_array();
    json_object_set_new(
        w->s->doc, "load",
        json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:f, s:I, s:I, s:o}",
                  "servers", (json_int_t)l->n, "mode", l->opt->mode, "loop",
                  l->opt->loop, "arrival", l->opt->arrival, "latency_from",
                  l->closed ? "sent" : "intended", "percentile",
                  l->opt->percentile, "max_ms", l->opt->max_ms,
                  "max_outstanding", (json_int_t)l->opt->max_outstanding,
                  "late_us", (json_int_t)l->opt->late_us, "steps",
                  json_incref(l->steps)));
    /* What a step's histogram is, for other tools (docs/kinds/load.md). */
    json_object_set_new(
        json_object_get(w->s->doc, "load"), "histogram_form",
        json_pack("{s:s, s:i, s:i, s:f, s:s}", "unit", "ns", "linear_below",
                  HIST_LINEAR, "buckets_per_power_of_two", HIST_SUB,
                  "relative_error", HIST_RELATIVE_ERROR, "buckets",
                  "[lowest value, count] of every non-empty bucket; from "
                  "256 up, a bucket is 2^(floor(log2 v) - 7) wide: "
                  "docs/kinds/load.md#the-histograms-stored-form"));
    l->conns = calloc(l->n * l->lanes, sizeof *l->conns);
    l->win = malloc(sizeof *l->win);
    l->step = malloc(sizeof *l->step);
    l->warm = malloc(sizeof *l->warm);
    if (!l->conns || !l->win || !l->step || !l->warm) {
        run_stop(l->o, STOP_RESOURCE, 0, "out of memory in the client");
        return -1;
    }
    /* Timer slack 1 ns: the loop's sleeps end when asked, not up to the
     * default 50 us later, which would be the client's jitter. */
    l->old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    struct servers_want want = {
        .group = w->s->group, .count = (unsigned)l->n, .cpu = -1,
        .oom_kills = -1, .slot = start_slot, .arg = l,
        .payload = payload_lookup(sc->call.payload)};
    l->opened = servers_start(w->s, w->o, &want, NULL);
    if (l->opened != l->n || w->o->stop_reason)
        return -1;
    int e = l->eng->start(l);
    return e ? failed(l, e, "opening the connections") : 0;
}

/* One window at the step's rate: the warm-up's figures are dropped. */
static int load_window(struct window *w, const struct window_at *at)
{
    struct load *l = w->kind;
    l->rate = (double)l->search.rate;
    struct load_win *lw = at->repeat < 0 ? l->warm : l->win;
    memset(lw, 0, sizeof *lw);
    lw->start_ns = now_ns();
    lw->end_ns = lw->start_ns + at->duration_ns;
    struct load_snap a, b;
    load_snap(l, &a);
    l->err = 0;
    l->why[0] = 0;
    int e = l->eng->window(l, lw);
    if (e)
        return failed(l, e, at->when);
    load_snap(l, &b);
    if (at->repeat < 0)
        return 0;
    if (at->repeat == 0) {
        memset(l->step, 0, sizeof *l->step);
        l->cur = json_pack("{s:f, s:s, s:[]}", "offered_per_s", l->rate,
                           "phase", offered_phase_name(l->search.phase),
                           "repeats");
        json_array_append_new(l->steps, l->cur);
    }
    json_array_append_new(json_object_get(l->cur, "repeats"),
                          load_window_json(l, lw, at->repeat, &a, &b));
    hist_merge(&l->step->lat, &lw->lat);
    hist_merge(&l->step->service, &lw->service);
    hist_merge(&l->step->lag, &lw->lag);
    hist_merge(&l->step->own, &lw->own);
    l->step->scheduled += lw->scheduled;
    l->step->sent += lw->sent;
    l->step->completed += lw->completed;
    l->step->in_window += lw->in_window;
    l->step->unsent += lw->unsent;
    l->step->held += lw->held;
    l->step->late += lw->late;
    l->step->late_own += lw->late_own;
    if (lw->peak_outstanding > l->step->peak_outstanding)
        l->step->peak_outstanding = lw->peak_outstanding;
    l->last_p_ns = hist_percentile(&lw->lat, load_percentile_q(l->opt));
    return 0;
}

/* The step's verdict, recorded, and the search fed with it. */
static int load_step_end(struct window *w, int64_t step)
{
    struct load *l = w->kind;
    (void)step;
    const char *verdict = load_verdict(l);
    load_step_json(l, l->cur, verdict);
    offered_next(&l->search, &l->rules, strcmp(verdict, "within") != 0);
    return 0;
}

static bool load_next_step(struct window *w, int64_t step)
{
    struct load *l = w->kind;
    (void)step;
    return l->search.phase != OFFERED_DONE;
}

static void load_record(struct window *w)
{
    struct load *l = w->kind;
    if (l->steps)
        load_sustainable_json(l);
}

static void load_step_name(struct window *w, int64_t step, char *buf,
                           size_t len)
{
    struct load *l = w->kind;
    (void)step;
    snprintf(buf, len, "%lld calls/s", (long long)l->search.rate);
}

static void load_progress(struct window *w, const struct window_at *at,
                          char *buf, size_t len)
{
    struct load *l = w->kind;
    (void)at;
    snprintf(buf, len, "%lld/s  %s %.0f us", (long long)l->search.rate,
             l->opt->percentile, (double)l->last_p_ns / 1e3);
}

/* The sustainable rate's note (load_sustainable_json). */
static void load_done(struct window *w, char *buf, size_t len)
{
    struct load *l = w->kind;
    load_sustainable_json(l);
    json_t *note = json_object_get(
        json_object_get(json_object_get(w->s->doc, "load"), "sustainable"),
        "note");
    snprintf(buf, len, "%s", json_string_value(note));
}

static void load_cleanup(struct window *w)
{
    struct load *l = w->kind;
    if (l->eng && l->conns)
        l->eng->stop(l);
    for (size_t i = 0; l->conns && i < l->opened; i++)
        conn_close(&l->conns[i]);
    free(l->conns);
    free(l->win);
    free(l->step);
    free(l->warm);
    json_decref(l->steps);
    if (l->opt) {
        prctl(PR_SET_TIMERSLACK, (unsigned long)l->old_slack, 0, 0, 0);
        pthread_mutex_destroy(&l->mu);
    }
}

static const struct window_ops load_ops = {
    .init = load_init,
    .window = load_window,
    .step_end = load_step_end,
    .next_step = load_next_step,
    .record = load_record,
    .cleanup = load_cleanup,
    .step_name = load_step_name,
    .progress_text = load_progress,
    .done_detail = load_done,
};

static void load_run(struct side *sides, struct run_outcome *o,
                     size_t nsides)
{
    const struct window_opts *win = window_opts(sides[0].sc);
    struct window_plan plan = {
        .duration_s = win->duration_s,
        .warmup_s = win->warmup_s,
        .warmup = win->warmup_s > 0,
        .repeats = win->repeats,
        .steps = 0, /* the search decides */
        .unit = "window",
    };
    struct load l = {0};
    window_run(&load_ops, &plan, &l, sides, o, nsides);
}

/* "p99 123.4 us" of a step's latency summary. */
static double us_at(json_t *sum, const char *p)
{
    return json_number_value(json_object_get(sum, p));
}

static void load_summary(const struct scenario *sc, json_t *doc,
                         const struct run_outcome *o, const char *out)
{
    const struct load_opts *lo = load_opts(sc);
    json_t *orb = json_object_get(doc, "orb");
    json_t *ld = json_object_get(doc, "load");
    json_t *sus = json_object_get(ld, "sustainable");
    json_t *first = json_array_get(json_object_get(ld, "steps"), 0);
    const char *version = json_string_value(json_object_get(orb, "version"));
    printf("%s: %s %s over %s, %lld server(s), %s %s loop, %s arrivals:",
           sc->name, json_string_value(json_object_get(orb, "name")),
           version ? version : "(version unknown)", sc->transport,
           (long long)lo->servers, lo->mode, lo->loop, lo->arrival);
    if (json_is_object(sus))
        printf(" %s.", json_string_value(json_object_get(sus, "note")));
    json_t *lat = json_object_get(first, "latency_us");
    if (json_integer_value(json_object_get(lat, "count")) > 0)
        printf(" At %.0f calls/s: p50 %.1f, p99 %.1f, p99.9 %.1f, max %.1f "
               "us (%s).",
               json_number_value(json_object_get(first, "offered_per_s")),
               us_at(lat, "p50"), us_at(lat, "p99"), us_at(lat, "p99.9"),
               us_at(lat, "max"),
               json_string_value(json_object_get(first, "verdict"))
                   ? json_string_value(json_object_get(first, "verdict"))
                   : "unfinished");
    printf(" Stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

/* Every server's connections: one a lane. */
static int64_t load_max_connections(const struct scenario *sc)
{
    const struct load_opts *o = load_opts(sc);
    return o->servers * (strcmp(o->mode, "event") == 0 ? 1 : o->threads);
}

const struct kind_ops kind_load = {
    .scenario = {.name = "load",
                 .keys = load_keys,
                 .nkeys = ARRAY_LEN(load_keys),
                 .check = load_check},
    .run = load_run,
    .summary = load_summary,
    .max_connections = load_max_connections,
};
