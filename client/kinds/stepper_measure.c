/* The stepper's measurements: rounds, blocks, pairing; the rounds of
 * finished sides that call along (companions) and the other sides'
 * servers held still (GROUP.hold_others). Each side's rounds go into its
 * samples and client costs; stepper_record.c writes them. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/util.h"
#include "kinds/servers.h"
#include "kinds/stepper_impl.h"

void stepper_call_failure(struct stepper_hand *h, size_t i, int err,
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

/* Connections made again so far, every server's (conn.reconnects). */
uint64_t stepper_reconnects(const struct stepper_side *r)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < r->h.n; i++)
        sum += r->h.conns[i].reconnects;
    return sum;
}

/* Get ready for a measurement: clear what the last one kept. */
void stepper_measure_begin(struct stepper_side *r)
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
    json_decref(r->mode_costs);
    r->mode_costs = NULL;
}

/* The other sides' servers' CPU so far (ns), or -1 when some side has no
 * CPU cgroup. */
static int64_t neighbours_cpu_ns(const struct stepper_side *r)
{
    int64_t sum = 0;
    for (size_t i = 0; i < r->d->nsides; i++) {
        const struct stepper_side *o = &r->d->sides[i];
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
static bool one_round(struct stepper_side *r, int64_t k, int64_t warmup)
{
    struct round_info info;
    struct rusage ru0, ru1;
    bool timed = k >= warmup;
    const struct callmode_ops *mode = r->h.s->mode;
    if (timed && k == warmup && mode->costs_begin)
        mode->costs_begin(r->h.mode, r->h.conns, r->h.n);
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
    if (rc && mode->costs_end && !r->mode_failure) {
        /* What the calls cost up to the failure, and the caller's words
         * for it (its fail lines): result.caller_failure. */
        r->mode_failure = mode->costs_end(r->h.mode, r->h.conns, r->h.n,
                                          info.calls);
        if (r->mode_failure)
            json_object_set_new(r->mode_failure, "n",
                                json_integer((json_int_t)r->h.n));
    }
    if (rc && info.client_resource &&
        servers_resource_stop(r->h.o, rc, info.why, at))
        return false;
    if (rc && info.mode_failed) {
        /* The process making the calls failed, not a server: it is named
         * in info.why. */
        if (rc == -EINTR && *r->h.s->interrupted)
            run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted%s", at);
        else
            run_stop(r->h.o, STOP_CALL_FAILED, 1, "%s%s", info.why, at);
        return false;
    }
    if (rc) {
        stepper_call_failure(&r->h, info.failed, rc, info.why);
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
    if (k == warmup + r->timed - 1) {
        r->h.s->mode->drain(r->h.mode, &r->calls, &r->completions);
        if (mode->costs_end) {
            json_decref(r->mode_costs);
            r->mode_costs = mode->costs_end(r->h.mode, r->h.conns, r->h.n,
                                            (uint64_t)r->calls.len);
        }
    }
    return true;
}

/* A side that has finished keeps calling its servers, unrecorded, while
 * another side still measures: each side's rounds then always follow the
 * other's, as they did all along (each round finds the caches cleared by
 * the other side's round: a side left alone measures faster). */
static void companion_round(struct stepper_side *r)
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
static bool refresh(struct stepper_side *r)
{
    for (size_t i = 0; i < r->h.n; i++) {
        int rc = conn_refresh(&r->h.conns[i]);
        if (rc < 0) {
            stepper_call_failure(&r->h, i, rc, r->h.conns[i].why);
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
static void measure_rounds(struct stepper_side **who, size_t k,
                           struct stepper_side **pals, size_t npals,
                           int64_t most)
{
    int64_t warmup = stepper_opts(who[0]->h.s->sc)->warmup_rounds;
    for (int64_t j = 0; j < warmup + most; j++) {
        for (size_t i = 0; i < k; i++) {
            struct stepper_side *r = who[i];
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
static size_t signal_others(struct stepper_side *r, int sig)
{
    size_t n = 0;
    for (size_t i = 0; i < r->d->nsides; i++) {
        struct stepper_side *o = &r->d->sides[i];
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
 * either disturbs the rounds that follow (docs/measured/2026-12-01-one-
 * answer.md, "Settling"); an opening that differed by the block's place
 * would make the first block of each tick the slower one. Then every timed
 * round follows the side's own, as in a solo run. A finished side does
 * not call along: nothing follows it. */
static void measure_blocks(struct stepper_side **who, size_t k)
{
    const struct stepper_opts *so = stepper_opts(who[0]->h.s->sc);
    bool reverse = who[0]->d->ticks % 2 == 1;
    for (size_t x = 0; x < k; x++) {
        struct stepper_side *r = who[reverse ? k - 1 - x : x];
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
void stepper_measure(struct stepper_side **who, size_t k,
                     struct stepper_side **pals, size_t npals)
{
    int64_t most = 0;
    for (size_t i = 0; i < k; i++) {
        stepper_measure_begin(who[i]);
        who[i]->client.reconnects0 = stepper_reconnects(who[i]);
        refresh(who[i]);
        if (who[i]->timed > most)
            most = who[i]->timed;
    }
    bool rounds = who[0]->d->nsides == 1 ||
                  strcmp(stepper_opts(who[0]->h.s->sc)->pairing, "rounds") == 0;
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
