/* The sweep's driver: see sweeper.h.
 *
 * Each side has its search (struct crossing_search, core/crossing.h: a
 * pure function of what the side measured); at every tick each side
 * still running sets its N (through its axis) to the search's next
 * target, then all of them are measured together, in turn, and each
 * side hands what it measured to its search, which names the next N or
 * the end. This file only measures and records. */
#include "kinds/sweeper.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/crossing.h"
#include "core/eta.h"
#include "host/footprint.h"
#include "codec/payload.h"
#include "host/probe.h"
#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"
#include "kinds/servers.h"

const char *const sweeper_pairings[] = {"blocks", "rounds", NULL};

const struct sweeper_opts *sweeper_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct sweeper_opts, sc);
}

/* The grid's next N after n: n + step, or ceil(n × growth). */
static int64_t grid_next_n(const struct scenario *sc, int64_t n)
{
    const struct sweeper_opts *so = sweeper_opts(sc);
    if (so->growth > 1) {
        int64_t next = (int64_t)ceil((double)n * so->growth);
        return next > n ? next : n + 1;
    }
    return n + so->step;
}

static int64_t grid_next_of(const void *ctx, int64_t n)
{
    return grid_next_n(ctx, n);
}

/* Is n within SWEEPER_COST_SPAN of GROUP.cost_n (where compare reads
 * round time and CPU per call)? */
static bool near_cost(const struct sweeper_opts *so, double n)
{
    return so->cost_n > 0 && n >= (double)so->cost_n / SWEEPER_COST_SPAN &&
           n <= (double)so->cost_n * SWEEPER_COST_SPAN;
}

/* A warm start's N from which scenario sc's steps take their full
 * rounds: the local fit's window (CROSSING_FIT_SPAN) below the prior's
 * low end, so that a crossing anywhere within the prior's spread is
 * fitted on steps of full rounds; 0: a cold run, or no fewer rounds. */
static double full_from_of(const struct scenario *sc)
{
    const struct sweeper_opts *so = sweeper_opts(sc);
    if (so->prior_n <= 0 || so->far_rounds <= 0 ||
        so->far_rounds >= so->rounds || so->resolution <= 0 ||
        !sc->client.connect)
        return 0;
    /* The spread's step at the prior is the grid's: the prior is never
     * below the full rounds' first N. */
    struct crossing_rules rules = {.resolution = so->resolution,
                                   .next_n = grid_next_of, .next_ctx = sc};
    double spread = crossing_prior_spread(so->prior_n, so->prior_half_width,
                                          &rules);
    return so->prior_n * (1 - spread) / CROSSING_FIT_SPAN;
}

/* Is n below the full rounds' first N `from` (0: nothing is) and away
 * from cost_n? */
static bool below_full(const struct sweeper_opts *so, double from, int64_t n)
{
    return from > 0 && (double)n < from && !near_cost(so, (double)n);
}

/* Is a step at n one of far_rounds: below_full, but not the first step? */
static bool far_step(const struct scenario *sc, double from, int64_t n)
{
    const struct sweeper_opts *so = sweeper_opts(sc);
    return below_full(so, from, n) && n > so->start;
}

int64_t sweeper_next_n(const struct scenario *sc, int64_t n)
{
    const struct sweeper_opts *so = sweeper_opts(sc);
    int64_t grid = grid_next_n(sc, n);
    double from = full_from_of(sc);
    /* From a step of far rounds (or the first, below them), by
     * far_growth: their rounds are no fit's, only the curve's. */
    if (so->far_growth <= 1 || !below_full(so, from, n))
        return grid;
    double next = ceil((double)n * so->far_growth);
    double cost_lo = (double)so->cost_n / SWEEPER_COST_SPAN;
    if (so->cost_n > 0 && (double)n < cost_lo && next > cost_lo)
        next = ceil(cost_lo); /* the cost window's first N */
    if (next > from)
        next = ceil(from); /* the full rounds' first N */
    return next > (double)grid ? (int64_t)next : grid;
}

int sweeper_check_start(const struct scenario_ctx *c,
                        const struct scenario *sc)
{
    char key[48];
    snprintf(key, sizeof key, "%s.start", sc->kind);
    if (sweeper_opts(sc)->start > sweeper_opts(sc)->max_n)
        return scenario_fail(c, key, "%lld is above %s.max_n (%lld)",
                             (long long)sweeper_opts(sc)->start, sc->kind,
                             (long long)sweeper_opts(sc)->max_n);
    return 0;
}

/* The client's own costs over one step's timed rounds. */
struct client_costs {
    struct cpu_usage server0, server1; /* servers' CPU around the rounds */
    bool server_cpu;
    uint64_t threads_started;
    unsigned max_in_flight;
    unsigned threads_peak;
    double cpu_user_s;
    double cpu_sys_s;
    uint64_t reconnects0; /* the conns' reconnects before the measurement */
};

struct driver;

/* One side: its servers, its measurements, where its search stands. */
struct sweeper_side {
    struct sweeper_hand h; /* first: what the axis sees
                            * (sweeper_call_failure takes it as the side) */
    struct client_costs client;
    struct driver *d;
    int64_t t0_ns; /* sweep start */
    struct samples rounds;
    struct samples calls;       /* service times: sent -> reply */
    struct samples completions; /* round start -> reply */
    struct samples untimed;     /* the measurement's untimed rounds */
    /* The servers' CPU in each timed round (ns), when they have a CPU
     * cgroup: what a call costs round by round, so that a round the host
     * took the CPU from can be told from the rest. */
    struct samples server_rounds;
    /* A paired run: the other sides' servers' CPU during this side's
     * timed rounds (each round read around), when every side has a CPU
     * cgroup. */
    int64_t neighbour_ns;
    bool neighbour_cpu;
    unsigned place; /* pairing blocks: 1 = its tick's first block, 2 … */
    size_t held;    /* GROUP.hold_others: the others' servers stopped */
    /* Every measurement so far (steps and probes), kept for the search,
     * pooling rounds taken at the same N and the crossing's fit, and when
     * each was recorded (now_ns: the estimate of what is left). */
    struct crossing_measure *points;
    int64_t *points_end_ns;
    size_t npoints;
    size_t points_cap;
    size_t nsteps;
    int64_t block; /* GROUP.step_blocks: the step's blocks taken so far */
    json_t *crossing;      /* result fields of the crossing, or NULL */
    /* Where its search stands (core/crossing.h): what it measures next,
     * at which N; CROSSING_DONE once the side has finished. */
    struct crossing_search search;
    int64_t timed;   /* timed rounds of the measurement under way */
    size_t far_steps; /* a warm start's steps of GROUP.far_rounds */
    bool lib_recorded;
    bool companion; /* done, but calls along while another side measures */
    /* The last measurement, for the progress line: what it was ("sweep",
     * "confirm", "bisect", ...), its (pooled) median round, the machine's
     * MemAvailable after a step (-1 after a probe). */
    const char *last_what;
    double last_ms;
    int64_t last_mem_kb;
};

/* The sides of one run and what they share. */
struct driver {
    struct sweeper_side sides[RUN_MAX_SIDES];
    size_t nsides;
    unsigned next_index; /* of the next server started, on any side */
    unsigned ticks;      /* measurements so far (the blocks' order) */
    int64_t t0_ns;
    const struct sweeper_axis *axis;
};

void sweeper_call_failure(struct sweeper_hand *h, size_t i, int err,
                          const char *why)
{
    const struct conn *c = &h->conns[i];
    char at[48];
    snprintf(at, sizeof at, " at N=%zu", h->n);
    servers_failed(h->s, h->o,
                   &(struct servers_failure){.index = c->index,
                                             .pid = c->pid,
                                             .err = err,
                                             .why = why,
                                             .at = at,
                                             .oom_kills = h->oom_kills});
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Get ready for a measurement: clear what the last one kept. */
/* Connections made again so far, every server's (conn.reconnects). */
static uint64_t reconnects(const struct sweeper_side *r)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < r->h.n; i++)
        sum += r->h.conns[i].reconnects;
    return sum;
}

static void measure_begin(struct sweeper_side *r)
{
    samples_clear(&r->rounds);
    samples_clear(&r->calls);
    samples_clear(&r->completions);
    samples_clear(&r->untimed);
    samples_clear(&r->server_rounds);
    memset(&r->client, 0, sizeof r->client);
    r->neighbour_ns = 0;
    r->neighbour_cpu = r->d->nsides > 1;
    r->place = 0;
    r->held = 0;
}

/* The other sides' servers' CPU so far (ns), or -1 when some side has no
 * CPU cgroup. */
static int64_t neighbours_cpu_ns(const struct sweeper_side *r)
{
    int64_t sum = 0;
    for (size_t i = 0; i < r->d->nsides; i++) {
        const struct sweeper_side *o = &r->d->sides[i];
        struct cpu_usage u;
        if (o == r)
            continue;
        if (!o->h.s->machine || machine_server_cpu(o->h.s->machine, &u) != 0)
            return -1;
        sum += u.total_ns;
    }
    return sum;
}

/* One round on side r: its time into r->rounds when timed, the client's
 * own costs (getrusage around the round: while one side's round runs the
 * others' threads wait) and the servers' CPU at the first and after the
 * last timed round. False when the side stopped. */
static bool one_round(struct sweeper_side *r, int64_t k, int64_t warmup)
{
    struct round_info info;
    struct rusage ru0, ru1;
    bool timed = k >= warmup;
    if (timed && k == warmup)
        r->client.server_cpu =
            r->h.s->machine &&
            machine_server_cpu(r->h.s->machine, &r->client.server0) == 0;
    /* What the other sides' servers run during this round: the tail of
     * their own last round, or anything else they do meanwhile. */
    int64_t nb0 = timed && r->neighbour_cpu ? neighbours_cpu_ns(r) : -1;
    getrusage(RUSAGE_SELF, &ru0);
    int64_t t0 = now_ns();
    int rc = r->h.s->mode->round(r->h.mode, r->h.conns, r->h.n, timed, &info);
    int64_t dt = now_ns() - t0;
    getrusage(RUSAGE_SELF, &ru1);
    int64_t nb1 = nb0 >= 0 ? neighbours_cpu_ns(r) : -1;
    if (nb0 >= 0 && nb1 >= nb0)
        r->neighbour_ns += nb1 - nb0;
    else if (timed)
        r->neighbour_cpu = false;
    char at[48];
    snprintf(at, sizeof at, " at N=%zu", r->h.n);
    if (rc && info.client_resource &&
        servers_resource_stop(r->h.o, rc, info.why, at))
        return false;
    if (rc) {
        sweeper_call_failure(&r->h, info.failed, rc, info.why);
        return false;
    }
    if (info.calls != r->h.n) {
        run_stop(r->h.o, STOP_CALL_FAILED, 1,
                 "a round made %llu calls for %zu servers",
             (unsigned long long)info.calls, r->h.n);
        return false;
    }
    if (!timed) {
        samples_add(&r->untimed, dt);
        return true;
    }
    struct client_costs *cc = &r->client;
    cc->threads_started += info.threads_started;
    if (info.max_in_flight > cc->max_in_flight)
        cc->max_in_flight = info.max_in_flight;
    if (info.threads_peak > cc->threads_peak)
        cc->threads_peak = info.threads_peak;
    cc->cpu_user_s += tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
    cc->cpu_sys_s += tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
    samples_add(&r->rounds, dt);
    if (cc->server_cpu) {
        /* The servers' CPU after every timed round: the last read is the
         * measurement's end (server1), each difference a round's. */
        int64_t before = k == warmup ? cc->server0.total_ns
                                     : cc->server1.total_ns;
        cc->server_cpu =
            machine_server_cpu(r->h.s->machine, &cc->server1) == 0;
        if (cc->server_cpu)
            samples_add(&r->server_rounds, cc->server1.total_ns - before);
    }
    if (k == warmup + r->timed - 1)
        r->h.s->mode->drain(r->h.mode, &r->calls, &r->completions);
    return true;
}

/* A side that has finished keeps calling its servers, unrecorded, while
 * another side still measures: each side's rounds then always follow the
 * other's, as they did all along (each round finds the caches cleared by
 * the other side's round: a side left alone measures faster). */
static void companion_round(struct sweeper_side *r)
{
    struct round_info info;
    if (r->h.s->mode->round(r->h.mode, r->h.conns, r->h.n, false, &info) != 0)
        r->companion = false; /* it stopped answering: leave it be */
}

/* Before a measurement, outside its rounds: a server may have closed an
 * idle connection while the sweep started more servers (omniORB closes
 * one idle for its scan period, 180 s by default, with a GIOP
 * CloseConnection). Connect again, as an ORB's client would, and count
 * it. False when the side stopped. */
static bool refresh(struct sweeper_side *r)
{
    for (size_t i = 0; i < r->h.n; i++) {
        int rc = conn_refresh(&r->h.conns[i]);
        if (rc < 0) {
            sweeper_call_failure(&r->h, i, rc, r->h.conns[i].why);
            return false;
        }
    }
    return true;
}

/* Pairing "rounds" (and every solo run): the sides in `who` take one
 * round each in turn, GROUP.warmup_rounds untimed, then each side's
 * r->timed, so that what the host does to one round it does to the
 * others' neighbouring rounds; finished sides in `pals` call along,
 * unrecorded. Each round of a side then follows the other side's round,
 * which is not a neutral background: the other side's servers are still
 * busy with it (docs/measured/2026-12-01-one-answer.md). */
static void measure_rounds(struct sweeper_side **who, size_t k,
                           struct sweeper_side **pals, size_t npals,
                           int64_t most)
{
    int64_t warmup = sweeper_opts(who[0]->h.s->sc)->warmup_rounds;
    for (int64_t j = 0; j < warmup + most; j++) {
        for (size_t i = 0; i < k; i++) {
            struct sweeper_side *r = who[i];
            if (r->h.o->stop_reason)
                continue;
            if (*r->h.s->interrupted)
                run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted at N=%zu",
                         r->h.n);
            else if (j < warmup + r->timed)
                one_round(r, j, warmup);
            else
                companion_round(r); /* its rounds are done; others' not */
        }
        for (size_t i = 0; i < npals; i++)
            if (pals[i]->companion && !*pals[i]->h.s->interrupted)
                companion_round(pals[i]);
    }
}

/* GROUP.hold_others: send sig (SIGSTOP, SIGCONT) to every server of the
 * sides other than r that this run started (servers it did not start,
 * a server list's, run on: stopping another's processes is not a
 * benchmark's to do). The number of servers signalled. */
static size_t signal_others(struct sweeper_side *r, int sig)
{
    size_t n = 0;
    for (size_t i = 0; i < r->d->nsides; i++) {
        struct sweeper_side *o = &r->d->sides[i];
        if (o == r || !o->h.s->src->ops->started_here)
            continue;
        pid_t last = 0;
        for (size_t j = 0; j < o->h.n; j++) {
            pid_t pid = o->h.conns[j].pid;
            if (pid <= 0 || pid == last)
                continue; /* one server's several connections (fanin) */
            if (kill(pid, sig) == 0)
                n++;
            last = pid;
        }
    }
    return n;
}

/* Pairing "blocks" (a paired run's default): each side in `who` takes its
 * whole measurement in turn, in an order that flips at every tick (A B,
 * B A, A B: a drift across two blocks falls on both sides alike). Every
 * block opens with GROUP.warmup_rounds + GROUP.switch_rounds untimed
 * rounds, whichever ran before it: the first block of a tick follows both
 * sides' new servers' start, the second the other side's rounds, and
 * either disturbs the next 5-8 rounds (docs/measured/2026-12-01-one-
 * answer.md, "settling"); an opening that differed by the block's place
 * made the first block of each tick the slower one. Then every timed
 * round follows the side's own, as in a solo run. A finished side does
 * not call along: nothing follows it. */
static void measure_blocks(struct sweeper_side **who, size_t k)
{
    const struct sweeper_opts *so = sweeper_opts(who[0]->h.s->sc);
    bool reverse = who[0]->d->ticks % 2 == 1;
    for (size_t x = 0; x < k; x++) {
        struct sweeper_side *r = who[reverse ? k - 1 - x : x];
        int64_t untimed = so->warmup_rounds + so->switch_rounds;
        r->place = (unsigned)x + 1;
        if (so->hold_others)
            r->held = signal_others(r, SIGSTOP);
        for (int64_t j = 0; j < untimed + r->timed; j++) {
            if (r->h.o->stop_reason)
                break;
            if (*r->h.s->interrupted) {
                run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted at N=%zu",
                         r->h.n);
                break;
            }
            if (!one_round(r, j, untimed))
                break;
        }
        if (so->hold_others)
            signal_others(r, SIGCONT);
    }
}

/* Measure the sides in `who`, each r->timed rounds, as the scenario's
 * GROUP.pairing says (a solo run: one side, either way the same). A side
 * that fails stops alone here; the caller stops the others. */
static void measure(struct sweeper_side **who, size_t k,
                    struct sweeper_side **pals, size_t npals)
{
    int64_t most = 0;
    for (size_t i = 0; i < k; i++) {
        measure_begin(who[i]);
        who[i]->client.reconnects0 = reconnects(who[i]);
        refresh(who[i]);
        if (who[i]->timed > most)
            most = who[i]->timed;
    }
    bool rounds = who[0]->d->nsides == 1 ||
                  strcmp(sweeper_opts(who[0]->h.s->sc)->pairing, "rounds") == 0;
    if (rounds) {
        for (size_t i = 0; i < npals; i++)
            if (pals[i]->companion && !refresh(pals[i]))
                pals[i]->companion = false;
        measure_rounds(who, k, pals, npals, most);
    } else {
        measure_blocks(who, k);
    }
    who[0]->d->ticks++;
}

/* Servers on the machine, every side's. */
static size_t on_machine(const struct sweeper_side *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->d->nsides; i++)
        n += r->d->sides[i].h.servers;
    return n;
}

static int64_t next_n_of(const void *ctx, int64_t n)
{
    return sweeper_next_n(ctx, n);
}

/* Side r's estimate of what is left (core/eta.h), from its measurements
 * so far, each timed from the end of the one before: in a paired run that
 * holds the other side's turns too. False before its first step. */
static bool side_eta(const struct sweeper_side *r, struct eta *e)
{
    const struct scenario *sc = r->h.s->sc;
    const struct sweeper_opts *so = sweeper_opts(sc);
    struct eta_point *steps = calloc(r->npoints + 1, sizeof *steps);
    struct eta_point *probes = calloc(r->npoints + 1, sizeof *probes);
    size_t ns = 0, np = 0;
    int64_t before = r->t0_ns;
    bool ok = false;
    if (steps && probes) {
        for (size_t i = 0; i < r->npoints; i++) {
            const struct crossing_measure *pt = &r->points[i];
            int64_t end_ns = r->points_end_ns[i];
            struct eta_point q = {(double)pt->n, pt->median_ms,
                                  (double)(end_ns - before) / 1e9};
            before = end_ns;
            if (pt->probe)
                probes[np++] = q;
            else
                steps[ns++] = q;
        }
        static const enum eta_stage stage[] = {
            [CROSSING_SWEEPING] = ETA_SWEEP,
            [CROSSING_CONFIRMING] = ETA_CONFIRM,
            [CROSSING_SEEDING] = ETA_CONFIRM,
            [CROSSING_CHECKING_LO] = ETA_CHECK_LO,
            [CROSSING_BISECTING] = ETA_BISECT,
            [CROSSING_REFINING] = ETA_REFINE,
            [CROSSING_DONE] = ETA_REFINE};
        const struct crossing_search *cs = &r->search;
        bool confirming = cs->phase == CROSSING_CONFIRMING ||
                          cs->phase == CROSSING_SEEDING;
        int64_t warmup = so->warmup_rounds +
                         (r->d->nsides > 1 ? so->switch_rounds : 0);
        struct eta_plan p = {
            .max_ms = so->max_ms, .max_n = so->max_n, .next_n = next_n_of,
            .next_ctx = sc, .step_rounds =
                (double)(so->step_blocks * (warmup + so->rounds)),
            .probe_rounds = (double)(warmup + so->near_rounds),
            .resolution = sc->client.connect ? so->resolution : 0,
            .max_probes = (int)so->max_probes,
            .elapsed_s = (double)(now_ns() - r->t0_ns) / 1e9,
            .max_seconds = so->max_seconds, .stage = stage[cs->phase],
            .lo = confirming ? r->h.o->held : cs->b.lo,
            .hi = confirming ? (int64_t)r->h.n : cs->b.hi,
            .probes = cs->probes};
        ok = eta_sweep(steps, ns, probes, np, &p, e) && isfinite(e->left_s);
        /* The step's blocks still to come, each as long as its last. */
        if (ok && cs->phase == CROSSING_SWEEPING && r->block > 0 && ns)
            e->left_s += (double)(so->step_blocks - r->block) *
                         steps[ns - 1].seconds;
    }
    free(steps);
    free(probes);
    return ok;
}

/* Where side r is, once it has decided its next measurement: the live
 * line and the progress descriptor (kinds/run.h). `left_s` is the run's
 * estimate: every side's longest. */
static void report(struct sweeper_side *r, double left_s)
{
    const struct sweeper_opts *so = sweeper_opts(r->h.s->sc);
    if (r->search.phase == CROSSING_DONE || !r->last_what ||
        (!r->h.s->progress && r->h.s->progress_fd <= 0))
        return;
    char extra[64] = "";
    if (r->last_mem_kb >= 0)
        snprintf(extra, sizeof extra, "MemAvailable %.1f GiB",
                 (double)r->last_mem_kb / (1024.0 * 1024.0));
    bool sweeping = strcmp(r->last_what, "sweep") == 0;
    struct run_progress p = {
        .phase = sweeping                             ? "sweep"
                 : strcmp(r->last_what, "refine") == 0 ? "refine"
                                                       : "search",
        .what = r->last_what, .n = (int64_t)r->h.n, .round_ms = r->last_ms,
        .max_ms = so->max_ms, .steps = (int64_t)r->nsteps,
        .probes = r->search.probes, .max_probes = so->max_probes,
        .elapsed_s = (double)(now_ns() - r->t0_ns) / 1e9, .left_s = left_s,
        .extra = extra[0] ? extra : NULL};
    run_progress(r->h.s, &p);
}

/* Every side still running reports, with the run's estimate. */
static void report_all(struct driver *d)
{
    double left = -1;
    for (size_t i = 0; i < d->nsides; i++) {
        struct eta e;
        if (d->sides[i].search.phase != CROSSING_DONE &&
            side_eta(&d->sides[i], &e) &&
            e.left_s > left)
            left = e.left_s;
    }
    for (size_t i = 0; i < d->nsides; i++)
        report(&d->sides[i], left);
}

void sweeper_probe_servers(struct sweeper_hand *h, const struct conn *srv,
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
static int keep_point(struct sweeper_side *r, double median_ms, bool probe)
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

/* Every timed round at n so far, pooled: its median (ms) and count. */
static double pooled_median(const struct sweeper_side *r, int64_t n,
                            size_t *count)
{
    return crossing_pooled_ms(r->points, r->npoints, n, count);
}

/* What every measurement records, steps and probes alike (no footprint):
 * the rounds, each in order, their summary and the median's interval,
 * the calls' service and completion times, the client's and servers'
 * costs. Keeps the measurement's rounds (r->points). *median_ms gets the
 * median round time. */
static json_t *measurement_json(struct sweeper_side *r, const char *phase,
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
    if (sweeper_opts(r->h.s->sc)->hold_others && r->place)
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
                  (json_int_t)(reconnects(r) - cc->reconnects0)));
    if (cc->server_cpu && r->calls.len)
        server_cpu_json(m, cc, (double)r->calls.len, &r->server_rounds);
    if (keep_point(r, round_ms.median, strcmp(phase, "sweep") != 0) != 0)
        run_stop(r->h.o, STOP_RESOURCE, 0, "out of memory in the client at N=%zu",
             r->h.n);
    return m;
}

/* Record one step of the sweep. Returns its median round time (ms). */
static double record_step(struct sweeper_side *r)
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
    if (sweeper_opts(r->h.s->sc)->step_blocks > 1)
        json_object_set_new(step, "block", json_integer(r->block + 1));
    /* The servers' footprint once a step: the same processes at every
     * block, and probing them costs seconds at large N. */
    if (r->block == 0)
        r->d->axis->footprint(&r->h, step, on_machine(r));
    json_array_append_new(json_object_get(r->h.s->doc, "steps"), step);
    r->nsteps++;
    r->last_what = "sweep";
    r->last_ms = median;
    r->last_mem_kb = mi.mem_available_kb;
    return median;
}

static struct crossing_rules rules_of(const struct scenario *sc);
static double full_rounds_from(const struct driver *d);

/* result.warm_start: the prior the run started from, where it came from,
 * what it did (the seeds, the steps of fewer rounds); NULL on a cold
 * run. */
static json_t *warm_start_json(const struct sweeper_side *r)
{
    const struct scenario *sc = r->h.s->sc;
    const struct sweeper_opts *so = sweeper_opts(sc);
    if (so->prior_n <= 0)
        return NULL;
    const struct crossing_search *cs = &r->search;
    struct crossing_rules rules = rules_of(sc);
    const char *what =
        cs->seed_bracketed ? "bracketed: the seeds made the search's "
                             "first bracket"
        : cs->seeds > 0    ? "missed: the crossing lay above the seeds, "
                             "and the sweep went on from them"
                           : "not reached: the sweep went over (or "
                             "stopped) below the prior, and searched as "
                             "a cold run";
    return json_pack(
        "{s:f, s:f, s:s?, s:f, s:I, s:I, s:I, s:I, s:b, s:s}", "prior_n",
        so->prior_n, "spread", rules.prior_spread, "from",
        so->prior_from[0] ? so->prior_from : NULL, "full_rounds_from_n",
        full_rounds_from(r->d), "far_rounds", (json_int_t)so->far_rounds,
        "far_steps", (json_int_t)r->far_steps, "cost_n",
        (json_int_t)so->cost_n, "seeds", (json_int_t)cs->seeds,
        "bracketed", cs->seed_bracketed, "outcome", what);
}

/* The measurement (step or probe) with a server CPU figure whose N is
 * nearest `want` (the larger of two as near), or NULL. */
static json_t *nearest_cpu(json_t *doc, int64_t want)
{
    static const char *const lists[] = {"steps", "probes"};
    json_t *best = NULL;
    int64_t best_n = 0;
    for (size_t l = 0; l < ARRAY_LEN(lists); l++) {
        size_t i;
        json_t *m;
        json_array_foreach(json_object_get(doc, lists[l]), i, m) {
            json_t *cpu = json_object_get(json_object_get(m, "cpu_per_call_us"),
                                          "server");
            int64_t n = json_integer_value(json_object_get(m, "n"));
            if (!json_is_number(cpu))
                continue;
            int64_t d = llabs(n - want), bd = llabs(best_n - want);
            if (!best || d < bd || (d == bd && n > best_n)) {
                best = m;
                best_n = n;
            }
        }
    }
    return best;
}

/* result.costs: the axis's memory per unit of N; the servers' CPU per
 * call at the measurement nearest KIND.cost_n (it moves with N, and
 * compare reads it there: docs/compare.md), or the largest N measured
 * with cost_n 0; the first step's median call; each with the N it is
 * at. A new object, or NULL when there is none of them. */
static json_t *result_costs(const struct sweeper_axis *axis,
                            const struct scenario *sc, json_t *doc)
{
    json_t *costs = json_object();
    json_t *steps = json_object_get(doc, "steps");
    for (size_t i = json_array_size(steps); axis->step_cost && i-- > 0;) {
        json_t *st = json_array_get(steps, i);
        json_t *cost = axis->step_cost(st);
        if (!cost)
            continue;
        json_t *mem = json_pack("{s:s, s:O}", "per", axis->unit, "n",
                                json_object_get(st, "n"));
        json_object_update(mem, cost);
        json_decref(cost);
        json_object_set_new(costs, "memory", mem);
        break;
    }
    int64_t want = sweeper_opts(sc)->cost_n ? sweeper_opts(sc)->cost_n : INT64_MAX;
    json_t *m = nearest_cpu(doc, want);
    if (m)
        json_object_set_new(
            costs, "server_cpu",
            json_pack("{s:O, s:O, s:I}", "n", json_object_get(m, "n"),
                      "us_per_call",
                      json_object_get(json_object_get(m, "cpu_per_call_us"),
                                      "server"),
                      "cost_n", (json_int_t)sweeper_opts(sc)->cost_n));
    json_t *first = json_array_get(json_object_get(doc, "steps"), 0);
    json_t *call = json_object_get(json_object_get(first, "call_us"), "median");
    if (json_is_number(call))
        json_object_set_new(costs, "call",
                            json_pack("{s:O, s:O}", "n",
                                      json_object_get(first, "n"),
                                      "median_us", call));
    if (json_object_size(costs) == 0) {
        json_decref(costs);
        return NULL;
    }
    return costs;
}

/* The result's outcome, with the crossing's fields when there are any. */
static void outcome(struct sweeper_side *r, const char *reason,
                    const char *detail)
{
    result_set_outcome(r->h.s->doc, reason, detail,
                       (double)(now_ns() - r->t0_ns) / 1e9);
    json_t *res = json_object_get(r->h.s->doc, "result");
    /* What the run held, in its unit; and the same number under the
     * field name earlier results of the schema had (max_servers,
     * max_connections), for their readers. */
    json_object_set_new(res, "held", json_integer(r->h.o->held));
    json_object_set_new(res, "held_unit", json_string(r->d->axis->noun));
    json_object_set_new(res, r->d->axis->held_key,
                        json_integer(r->h.o->held));
    if (r->crossing)
        json_object_update(res, r->crossing);
    json_t *warm = warm_start_json(r);
    if (warm)
        json_object_set_new(res, "warm_start", warm);
    json_t *costs = result_costs(r->d->axis, r->h.s->sc, r->h.s->doc);
    if (costs)
        json_object_set_new(res, "costs", costs);
}

/* Write what we have so far; a later step or the end rewrites it. When
 * it cannot be written the side has stopped (write_failed, final): the
 * driver ends it before its next measurement. */
static void checkpoint(struct sweeper_side *r)
{
    outcome(r, "running", "the run had not finished when this was written");
    run_checkpoint(r->h.s, r->h.o);
}

/* Record the measurement just taken as a probe of the crossing search,
 * with the decision the search takes on it: on every round measured at
 * this N so far. */
static void record_probe(struct sweeper_side *r, const char *phase)
{
    const struct scenario *sc = r->h.s->sc;
    double median;
    json_t *m = measurement_json(r, phase, &median);
    size_t count;
    double pooled = pooled_median(r, (int64_t)r->h.n, &count);
    bool over = pooled > sweeper_opts(sc)->max_ms;
    json_object_set_new(m, "pooled",
                        json_pack("{s:I, s:f, s:s}", "rounds",
                                  (json_int_t)count, "median_ms", pooled,
                                  "decision", over ? "over" : "under"));
    json_array_append_new(json_object_get(r->h.s->doc, "probes"), m);
    r->last_what = phase; /* a literal: "confirm", "bisect", ... */
    r->last_ms = pooled;
    r->last_mem_kb = -1;
    checkpoint(r);
}

/* The crossing from what was measured within the search's bracket:
 * result.crossing_n, its interval and how they were found (r->crossing).
 * `refines`: the refining measurements taken so far. */
static void estimate(struct sweeper_side *r, bool complete, int refines)
{
    const struct scenario *sc = r->h.s->sc;
    const struct bracket *b = &r->search.b;
    const char *group = sc->kind;
    struct crossing_estimate e;
    size_t count;
    if (crossing_estimate_of(r->points, r->npoints, sweeper_opts(sc)->max_ms,
                             b, &e) != 0)
        return;
    double lo_ms = b->lo > 0 ? pooled_median(r, b->lo, &count) : 0;
    double hi_ms = pooled_median(r, b->hi, &count);
    json_t *how = json_pack(
        "{s:[I, I], s:f, s:f, s:I, s:b, s:f}", "bracket", (json_int_t)b->lo,
        (json_int_t)b->hi, "bracket_lo_ms", lo_ms, "bracket_hi_ms", hi_ms,
        "probes", (json_int_t)r->search.probes, "complete", complete,
        "bracket_width_pct",
        b->lo > 0 ? 100.0 * (double)(b->hi - b->lo) / (double)b->lo : 100.0);
    if (e.found) {
        json_object_set_new(how, "method", json_string(e.method));
        json_object_set_new(how, "level", json_real(0.95));
        json_object_set_new(
            how, "slope",
            json_pack("{s:f, s:f, s:b, s:I, s:[f, f]}", "value", e.slope,
                      "se", e.slope_se, "assumed", e.slope_assumed, "points",
                      (json_int_t)e.slope_points, "n_range", e.slope_min_n,
                      e.slope_max_n));
        json_object_set_new(how, "implied_by",
                            json_integer((json_int_t)e.probes));
        if (strcmp(e.method, CROSSING_PROBES) == 0) {
            json_object_set_new(how, "sd_ln", json_real(e.sd_ln));
            json_object_set_new(how, "df", json_integer(e.df));
        }
        const struct crossing_fit *f = &e.fit;
        if (strcmp(e.method, CROSSING_FIT) == 0) {
            /* The local fit's own figures; the probes' estimate it
             * replaced, for reference (core/crossing.h). */
            json_object_set_new(
                how, "fit",
                json_pack("{s:[f, f], s:I, s:I, s:f, s:f, s:f, s:I, s:f, "
                          "s:f, s:I}",
                          "n_range", f->from_n, f->to_n, "points",
                          (json_int_t)f->points, "distinct",
                          (json_int_t)f->distinct, "slope", f->slope,
                          "slope_se", f->slope_se, "sd_ln", f->sd_ln, "df",
                          (json_int_t)f->df, "lag1", f->lag1, "inflation",
                          f->inflation, "recentred",
                          (json_int_t)f->iterations));
            json_object_set_new(
                how, "reference",
                json_pack("{s:s, s:f, s:[f, f]}", "method",
                          e.reference.method, "crossing_n", e.reference.n,
                          "interval", e.reference.low, e.reference.high));
        }
        if (e.why[0])
            json_object_set_new(how, "note", json_string(e.why));
        json_object_set_new(how, "outside_bracket", json_boolean(e.outside));
        double hw = crossing_half_width(&e),
               want = crossing_target_half_width(sweeper_opts(sc)->resolution);
        bool narrow = hw <= want;
        char why[200] = "", cut[64] = "the search was cut short";
        if (r->search.probes >= sweeper_opts(sc)->max_probes)
            snprintf(cut, sizeof cut, "%s.max_probes reached", group);
        if (!narrow)
            snprintf(why, sizeof why,
                     "interval ±%.1f%%, wider than the target ±%.1f%% "
                     "(2 × %s.resolution) after %d more measurement%s: %s",
                     100 * hw, 100 * want, group, refines,
                     refines == 1 ? "" : "s", cut);
        json_object_set_new(
            how, "width",
            json_pack("{s:f, s:f, s:I, s:b, s:s*}", "half_width_pct",
                      100 * hw, "target_pct", 100 * want, "refines",
                      (json_int_t)refines, "narrow_enough", narrow,
                      "why", narrow ? NULL : why));
    }
    json_decref(r->crossing);
    r->crossing = json_pack("{s:o, s:o, s:o}", "crossing_n",
                            e.found ? json_real(e.n) : json_null(),
                            "crossing_interval",
                            e.found ? json_pack("[f, f]", e.low, e.high)
                                    : json_null(),
                            "crossing", how);
}

/* Side r reached its stop (latency, max_n): done, and while another side
 * still measures, it calls along. */
static void done(struct sweeper_side *r)
{
    r->search.phase = CROSSING_DONE;
    r->companion = r->h.s->sc->client.connect && r->h.n > 0;
}

/* The search has ended: the bracket is narrow enough, or the probes ran
 * out. The crossing from what was measured, and the stop. */
static void finish_search(struct sweeper_side *r)
{
    const struct scenario *sc = r->h.s->sc;
    const struct bracket *b = &r->search.b;
    int probes = r->search.probes;
    estimate(r, true, r->search.refines);
    done(r);
    if (b->lo == 0) {
        run_stop(r->h.o, STOP_LATENCY, 0,
             "the median round time exceeded max_ms %g even at N=%lld "
             "(%d measurements of the crossing search); no N was within it",
             sweeper_opts(sc)->max_ms, (long long)b->hi, probes);
        return;
    }
    json_t *cx = json_object_get(r->crossing, "crossing_interval");
    json_t *wide = json_object_get(
        json_object_get(json_object_get(r->crossing, "crossing"), "width"),
        "why");
    char est[400] = "";
    if (json_is_array(cx))
        snprintf(est, sizeof est,
                 "; crossing_n %.0f (95%% interval %.0f-%.0f%s%s)",
                 json_real_value(json_object_get(r->crossing, "crossing_n")),
                 json_real_value(json_array_get(cx, 0)),
                 json_real_value(json_array_get(cx, 1)), wide ? ": " : "",
                 wide ? json_string_value(wide) : "");
    /* The budget cut the search short: the interval was still wider than
     * the target, or (no local fit) the bracket had an N to bisect. */
    char cut[64] = "";
    const char *method = json_string_value(json_object_get(
        json_object_get(r->crossing, "crossing"), "method"));
    bool fitted = method && strcmp(method, CROSSING_FIT) == 0;
    if (probes >= sweeper_opts(sc)->max_probes &&
        (wide || (!fitted && crossing_next_n(b, sweeper_opts(sc)->resolution))))
        snprintf(cut, sizeof cut, " (%s.max_probes reached)", sc->kind);
    run_stop(r->h.o, STOP_LATENCY, 0,
         "the median round time crossed max_ms %g between N=%lld (under) and "
         "N=%lld (over), %.1f%% apart, after %d measurements of the crossing "
         "search%s%s; the largest N within it was %lld",
         sweeper_opts(sc)->max_ms, (long long)b->lo, (long long)b->hi,
         b->lo > 0 ? 100.0 * (double)(b->hi - b->lo) / (double)b->lo : 100.0,
         probes, cut, est, (long long)b->lo);
}

/* The search's view of the scenario's settings. */
static struct crossing_rules rules_of(const struct scenario *sc)
{
    const struct sweeper_opts *so = sweeper_opts(sc);
    struct crossing_rules rules = {.max_ms = so->max_ms,
                                   .max_n = so->max_n,
                                   .resolution = so->resolution,
                                   .near_rounds = so->near_rounds,
                                   .max_probes = so->max_probes,
                                   .timed = sc->client.connect,
                                   .next_n = next_n_of,
                                   .next_ctx = sc,
                                   .prior_n = so->prior_n};
    if (so->prior_n > 0)
        rules.prior_spread = crossing_prior_spread(
            so->prior_n, so->prior_half_width, &rules);
    return rules;
}

/* A warm start's N from which every step takes its full rounds
 * (full_from_of). In a paired run, the lowest of the sides' (they share
 * every sweep key, so one prior: run-suite gives the pair's lower
 * crossing): both sides' steps are measured alike. 0: no warm start on
 * some side, every step full. */
static double full_rounds_from(const struct driver *d)
{
    double from = 0;
    for (size_t i = 0; i < d->nsides; i++) {
        double at = full_from_of(d->sides[i].h.s->sc);
        if (at <= 0)
            return 0;
        if (i == 0 || at < from)
            from = at;
    }
    return from;
}

/* The timed rounds of side r's step at n: GROUP.rounds, or a warm
 * start's GROUP.far_rounds below full_rounds_from, but at the first step
 * (result.costs' call) and within SWEEPER_COST_SPAN of GROUP.cost_n
 * (where compare reads round time and CPU per call): those costs are
 * measured as in a cold run. */
static int64_t step_rounds(const struct sweeper_side *r, int64_t n)
{
    const struct sweeper_opts *so = sweeper_opts(r->h.s->sc);
    return far_step(r->h.s->sc, full_rounds_from(r->d), n) ? so->far_rounds
                                                          : so->rounds;
}

/* Record what side r just measured, hand it to the search (core/
 * crossing.h) and act on what that decides: its next N, or its stop. */
static void decide(struct sweeper_side *r)
{
    const struct scenario *sc = r->h.s->sc;
    struct crossing_search *cs = &r->search;
    if (cs->phase == CROSSING_DONE)
        return;
    if (cs->phase == CROSSING_SWEEPING) {
        record_step(r);
        if (r->h.o->stop_reason) {
            cs->phase = CROSSING_DONE;
            return;
        }
        if (++r->block < sweeper_opts(sc)->step_blocks) {
            checkpoint(r); /* the step's next block, at the same N */
            return;
        }
        r->block = 0;
    } else {
        record_probe(r, crossing_phase_name(cs->phase));
    }
    struct crossing_rules rules = rules_of(sc);
    enum crossing_end end =
        crossing_search_next(cs, &rules, r->points, r->npoints);
    r->h.o->held = cs->held;
    switch (end) {
    case CROSSING_GOING:
        if (cs->phase == CROSSING_SWEEPING) {
            checkpoint(r); /* a step or a confirmation came out under */
        } else if (cs->phase == CROSSING_REFINING) {
            /* The estimate that sent it back to the bracket's ends, for
             * the result written meanwhile (before this refine). */
            estimate(r, false, cs->refines - 1);
        }
        return;
    case CROSSING_MAX_N:
        run_stop(r->h.o, STOP_MAX_N, 0,
             "reached max_n=%zu%s%s%s with a median round time of %.3f ms "
             "(max_ms %g)",
             r->h.n, r->h.s->max_n_why ? " (" : "",
             r->h.s->max_n_why ? r->h.s->max_n_why : "",
             r->h.s->max_n_why ? ")" : "", cs->decided_ms, rules.max_ms);
        done(r);
        return;
    case CROSSING_OVER:
        run_stop(r->h.o, STOP_LATENCY, 0,
             "median round time %.3f ms at N=%zu exceeded max_ms %g; "
             "the largest N within it was %lld",
             cs->decided_ms, r->h.n, rules.max_ms,
             (long long)r->h.o->held);
        done(r);
        return;
    case CROSSING_NARROWED:
        finish_search(r);
        return;
    }
}

/* The side stopped during its search: keep the crossing it had. */
static void stopped(struct sweeper_side *r)
{
    r->companion = false;
    if (crossing_search_stop(&r->search)) {
        r->h.o->held = r->search.held;
        estimate(r, false, r->search.refines);
    }
}

/* What the server of side r really loaded, not what we meant to run. */
static void record_library(struct sweeper_side *r)
{
    char lib[512];
    json_t *orb = json_object_get(r->h.s->doc, "orb");
    if (r->lib_recorded || r->h.n == 0)
        return;
    if (orb && r->h.conns[0].pid > 0 &&
        probe_mapped_library(r->h.conns[0].pid, r->h.s->kind->library, lib,
                             sizeof lib) == 0)
        json_object_set_new(orb, "library_path", json_string(lib));
    r->lib_recorded = true;
}

/* Side r ready to sweep. Its memory baseline is `base` when given (the
 * first side's: one machine, one baseline), else taken now. */
static void init_side(struct driver *d, struct sweeper_side *r, struct run *s,
                      struct run_outcome *o, const struct footprint *base)
{
    const struct scenario *sc = s->sc;
    struct callmode_config mcfg = {
        .timeout_ms = sc->call.timeout_ms,
        .pool_size = sc->client.pool_size,
        .thread_stack_kb = sc->client.thread_stack_kb,
        .interrupted = s->interrupted,
    };
    memset(o, 0, sizeof *o);
    *r = (struct sweeper_side){.h = {.s = s, .o = o,
                                     .next_index = &d->next_index},
                               .d = d, .t0_ns = d->t0_ns};
    crossing_search_start(&r->search, sweeper_opts(sc)->start);
    r->h.conns = calloc((size_t)sweeper_opts(sc)->max_n, sizeof *r->h.conns);
    if (base)
        r->h.fp = *base;
    else
        footprint_init(&r->h.fp, sc->probe.budget_ms, sc->probe.per_server_max);
    json_object_set_new(
        s->doc, "baseline",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:b}", "mem_available_kb",
                  (json_int_t)r->h.fp.base.mem_available_kb, "slab_kb",
                  (json_int_t)r->h.fp.base.slab_kb, "kernel_stack_kb",
                  (json_int_t)r->h.fp.base.kernel_stack_kb, "page_tables_kb",
                  (json_int_t)r->h.fp.base.page_tables_kb, "mem_free_kb",
                  (json_int_t)r->h.fp.base.mem_free_kb, "settle_ms",
                  r->h.fp.settle_ms, "settled", r->h.fp.settled));
    json_object_set_new(s->doc, "probes", json_array());
    r->h.oom_kills = s->machine ? machine_oom_kills(s->machine) : -1;
    int mrc = r->h.conns ? s->mode->create(&r->h.mode, &mcfg) : -ENOMEM;
    if (mrc) {
        run_stop(r->h.o, STOP_RESOURCE, 0, "cannot start call mode %s: %s",
             s->mode->name, strerror(-mrc));
        r->search.phase = CROSSING_DONE;
    } else if (d->axis->begin && !d->axis->begin(&r->h)) {
        r->search.phase = CROSSING_DONE;
    }
}

static void free_side(struct sweeper_side *r)
{
    run_progress_end(r->h.s);
    outcome(r, r->h.o->stop_reason, r->h.o->detail);
    for (size_t i = 0; i < r->h.n; i++)
        conn_close(&r->h.conns[i]);
    if (r->d->axis->end)
        r->d->axis->end(&r->h);
    free(r->h.conns);
    if (r->h.mode)
        r->h.s->mode->destroy(r->h.mode);
    samples_free(&r->rounds);
    samples_free(&r->calls);
    samples_free(&r->completions);
    samples_free(&r->untimed);
    samples_free(&r->server_rounds);
    samples_free(&r->h.starts);
    for (size_t i = 0; i < r->npoints; i++)
        free(r->points[i].rounds_ns);
    free(r->points);
    free(r->points_end_ns);
    json_decref(r->crossing);
}

/* A side failed (exit 1) or was interrupted: a paired run is one
 * experiment, so the other sides stop too. */
static void stop_partners(struct driver *d)
{
    const struct sweeper_side *bad = NULL;
    for (size_t i = 0; i < d->nsides && !bad; i++)
        if (d->sides[i].h.o->exit_code != 0)
            bad = &d->sides[i];
    if (!bad)
        return;
    for (size_t i = 0; i < d->nsides; i++) {
        struct sweeper_side *r = &d->sides[i];
        if (r->search.phase == CROSSING_DONE || r == bad)
            continue;
        if (bad->h.o->exit_code == 130)
            run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted at N=%zu", r->h.n);
        else
            run_stop(r->h.o, STOP_PARTNER, 1, "side %s stopped at N=%zu: %s",
                 bad->h.s->label ? bad->h.s->label : "?", bad->h.n,
                 bad->h.o->detail);
        stopped(r);
    }
}

void sweeper_drive(const struct sweeper_axis *axis, struct run *sides,
                   struct run_outcome *o, size_t nsides)
{
    struct driver d = {.nsides = nsides, .t0_ns = now_ns(), .axis = axis};
    struct server_source spawned[RUN_MAX_SIDES];
    for (size_t i = 0; i < nsides; i++)
        if (!sides[i].src) {
            server_source_spawner(&spawned[i], sides[i].sp);
            sides[i].src = &spawned[i];
        }
    for (size_t i = 0; i < nsides; i++) {
        /* A sweep's own field: every step. */
        json_object_set_new(sides[i].doc, "steps", json_array());
    }
    for (size_t i = 0; i < nsides; i++)
        init_side(&d, &d.sides[i], &sides[i], &o[i],
                  i ? &d.sides[0].h.fp : NULL);
    for (size_t i = 0; axis->baseline && i < nsides; i++)
        if (d.sides[i].search.phase != CROSSING_DONE)
            axis->baseline(&d.sides[i].h);
    for (;;) {
        struct sweeper_side *who[RUN_MAX_SIDES];
        size_t k = 0;
        for (size_t i = 0; i < nsides; i++)
            if (d.sides[i].search.phase != CROSSING_DONE)
                who[k++] = &d.sides[i];
        if (k == 0)
            break;
        /* Each side sets its N for this measurement. */
        size_t ready = 0;
        for (size_t i = 0; i < k; i++) {
            struct sweeper_side *r = who[i];
            const struct scenario *sc = r->h.s->sc;
            double elapsed = (double)(now_ns() - d.t0_ns) / 1e9;
            bool stepping = r->search.phase == CROSSING_SWEEPING;
            if (r->h.o->stop_reason) {
                /* stopped by its checkpoint: write_failed */
            } else if (*r->h.s->interrupted) {
                run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted at N=%zu",
                         r->h.n);
            } else if (elapsed > sweeper_opts(sc)->max_seconds) {
                run_stop(r->h.o, STOP_TIME, 0,
                         "%s.max_seconds (%g s) ran out at N=%zu%s", sc->kind,
                         sweeper_opts(sc)->max_seconds, r->h.n,
                         stepping ? "" : " during the crossing search");
            } else if (d.axis->set_n(&r->h, (size_t)r->search.target)) {
                record_library(r);
                r->timed = stepping ? step_rounds(r, r->search.target)
                                    : sweeper_opts(sc)->near_rounds;
                if (stepping && r->timed < sweeper_opts(sc)->rounds)
                    r->far_steps++;
                if (sc->client.connect || !stepping) {
                    who[ready++] = r;
                    continue;
                }
                /* Idle servers: a step without rounds. */
                measure_begin(r);
                decide(r);
                continue;
            }
            record_library(r);
            stopped(r);
        }
        stop_partners(&d);
        if (ready == 0) {
            report_all(&d); /* idle steps (no rounds) were decided */
            continue;
        }
        /* Finished sides that stopped normally call along (see
         * companion_round). */
        struct sweeper_side *pals[RUN_MAX_SIDES];
        size_t npals = 0;
        for (size_t i = 0; i < nsides; i++)
            if (d.sides[i].search.phase == CROSSING_DONE &&
                d.sides[i].companion)
                pals[npals++] = &d.sides[i];
        measure(who, ready, pals, npals);
        for (size_t i = 0; i < ready; i++) {
            if (who[i]->h.o->stop_reason)
                stopped(who[i]);
            else
                decide(who[i]);
        }
        stop_partners(&d);
        report_all(&d);
    }
    for (size_t i = 0; i < nsides; i++)
        free_side(&d.sides[i]);
}

void sweeper_summary_head(const struct scenario *sc, json_t *doc,
                          const char *held)
{
    json_t *orb = json_object_get(doc, "orb");
    const char *version = json_string_value(json_object_get(orb, "version"));
    printf("%s: %s %s over %s, %s calls, max_ms %g\n  %s", sc->name,
           json_string_value(json_object_get(orb, "name")),
           version ? version : "(version unknown)", sc->transport, sc->mode,
           sweeper_opts(sc)->max_ms, held);
    json_t *res = json_object_get(doc, "result");
    json_t *cx = json_object_get(res, "crossing_interval");
    if (json_is_array(cx))
        printf("; round time crosses %g ms at N=%.0f (95%% interval "
               "%.0f-%.0f)",
               sweeper_opts(sc)->max_ms,
               json_number_value(json_object_get(res, "crossing_n")),
               json_number_value(json_array_get(cx, 0)),
               json_number_value(json_array_get(cx, 1)));
    printf("\n");
}

void sweeper_summary_end(const struct scenario *sc, json_t *doc,
                         const struct run_outcome *o, const char *out)
{
    json_t *steps = json_object_get(doc, "steps");
    json_t *first = json_array_get(steps, 0);
    if (!sc->client.connect)
        printf("  the servers were idle: never connected or called\n");
    else if (first)
        printf("  median call at N=%lld: %.1f us\n",
               (long long)json_integer_value(json_object_get(first, "n")),
               json_number_value(json_object_get(
                   json_object_get(first, "call_us"), "median")));
    json_t *warm = json_object_get(json_object_get(doc, "result"),
                                   "warm_start");
    if (warm) {
        /* Where the prior came from is a path someone gave: printable. */
        const char *from = json_string_value(json_object_get(warm, "from"));
        char from_s[600] = "";
        if (from) {
            char esc[560];
            str_escape(esc, sizeof esc, from);
            snprintf(from_s, sizeof from_s, " (from %s)", esc);
        }
        printf("  warm start at N=%.0f%s: %s; %lld steps of %lld rounds "
               "below N=%.0f\n",
               json_number_value(json_object_get(warm, "prior_n")), from_s,
               json_string_value(json_object_get(warm, "outcome")),
               (long long)json_integer_value(
                   json_object_get(warm, "far_steps")),
               (long long)json_integer_value(
                   json_object_get(warm, "far_rounds")),
               json_number_value(
                   json_object_get(warm, "full_rounds_from_n")));
    }
    printf("  stop: %s: %s\n", o->stop_reason, o->detail);
    printf("  %zu steps; result: %s\n", json_array_size(steps), out);
}
