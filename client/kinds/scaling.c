/* The ORB across cores (scenario kind "scaling"): for each k of
 * scaling.k, k client/server pairs, each pair pinned (its client thread
 * and its server on one CPU, or on two: scaling.placement), ping-pong
 * echo calls for scaling.duration_s, scaling.repeats times; per pair the
 * calls and calls per second, their sum, and the CPU of client and
 * servers. The warm-up, the windows (one a repeat, k the step), the
 * checkpoints and the progress line are the harness's (kinds/window.h).
 *
 * One client thread per pair, pinned
 * to its CPU, each with its own connection to its own server, which the
 * spawner pinned to its CPU before exec; the threads start together at a
 * gate and stop on a shared flag after duration_s. Every call is checked
 * (conn_call). */
#include "kinds/kind.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "net/conn.h"
#include "codec/payload.h"
#include "core/result.h"
#include "core/util.h"
#include "core/stats.h"
#include "kinds/servers.h"
#include "kinds/window.h"

static const char *const placements[] = {"same", "spread", NULL};

/* kind "scaling": k client/server pairs, each pinned, ping-pong for
 * duration_s, for every k of the list. */
struct scaling_opts {
    struct window_opts win; /* scaling.duration_s, warmup_s (untimed,
                             * before each k's repeats), repeats */
    char placement[8]; /* "same" | "spread" */
    struct scenario_klist k;
};

/* The scenario's scaling options. */
static const struct scaling_opts *scaling_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct scaling_opts, sc);
}

/* The keys of kind scaling: fields of struct scaling_opts. */
#define OPT(f) SCENARIO_KIND_OFF(struct scaling_opts, f)
#define OPT_SZ(f) SCENARIO_KIND_SZ(struct scaling_opts, f)
static const struct scenario_key scaling_keys[] = {
    WINDOW_KEY_DURATION("scaling", "kind scaling: each pair ping-pongs this "
                        "long per repeat (s)"),
    WINDOW_KEY_WARMUP("scaling", 0.2, "kind scaling: untimed calls by every "
                      "pair before each k's repeats (s)"),
    WINDOW_KEY_REPEATS("scaling", "kind scaling: measured repeats for each "
                       "k"),
    {.key = "scaling.k", .type = SCENARIO_KLIST, .off = OPT(k), .min = 1,
     .max = SCENARIO_MAX_K,
     .help = "kind scaling: pairs, K (1..K) or a list [1, 2, 4] (default: "
     "1..the CPUs machine.cpus allows)"},
    {.key = "scaling.placement", .type = SCENARIO_ENUM, .off = OPT(placement),
     .size = OPT_SZ(placement), .choices = placements, .def_str = "same",
     .help = "kind scaling: same (a pair's client thread and server on one "
     "CPU) or spread (on two CPUs)"},
};
#undef OPT
#undef OPT_SZ

/* A scaling run places its pairs on the CPUs machine.cpus allows (all of
 * this process's when absent): k cannot exceed them, spread needs two,
 * and the client's threads are placed per pair, not by
 * machine.client_cpus. */
static int scaling_check(const struct scenario_ctx *c,
                         const struct scenario *sc)
{
    cpu_set_t set;
    char why[160];
    if (sc->machine.client_cpus[0])
        return scenario_fail(c, "machine.client_cpus", "not used by a "
                             "scaling run: each pair's client thread is "
                             "pinned by scaling.placement on the CPUs of "
                             "machine.cpus");
    if (sc->machine.cpus[0]) {
        if (parse_cpu_list(sc->machine.cpus, &set, why, sizeof why) != 0)
            return scenario_fail(c, "machine.cpus", "%s", why);
    } else if (sched_getaffinity(0, sizeof set, &set) != 0) {
        CPU_ZERO(&set);
    }
    int64_t ncpu = CPU_COUNT(&set);
    const struct scenario_klist *k = &scaling_opts(sc)->k;
    int64_t top = k->max > 0 ? k->max : k->n ? k->v[k->n - 1] : ncpu;
    if (top > ncpu)
        return scenario_fail(c, "scaling.k", "%lld pairs, above the %lld "
                             "CPUs allowed (%s)", (long long)top,
                             (long long)ncpu,
                             sc->machine.cpus[0] ? "machine.cpus"
                                                 : "this process's");
    if (strcmp(scaling_opts(sc)->placement, "spread") == 0 && ncpu < 2)
        return scenario_fail(c, "scaling.placement", "spread needs two "
                             "CPUs; machine.cpus allows %lld",
                             (long long)ncpu);
    return 0;
}


#define THREAD_STACK_BYTES (256 * 1024)
#define READY_WAIT_MS 10000 /* threads created to all at the gate */

/* One client/server pair. */
struct pair {
    struct scaling *g;
    struct conn c;
    bool open;
    int client_cpu, server_cpu;
    /* one run of the threads */
    pthread_t th;
    uint64_t calls;
    int64_t t0_ns, t1_ns;
    double user_s, sys_s; /* this thread's CPU (RUSAGE_THREAD) */
    int ran_on;           /* sched_getcpu() at its end */
    int err;
    char why[CONN_WHY_BYTES];
};

struct scaling {
    struct side *s;
    struct run_outcome *o;
    struct pair *p;
    size_t npairs;   /* servers started and connected */
    int *cpus;       /* the CPUs allowed, increasing */
    size_t ncpus;
    int64_t *ks;     /* the k of each step */
    size_t nks;
    int64_t t0_ns;
    /* the gate the threads of a run wait at */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t ready;
    bool open;
    atomic_bool stop;
    double last_sum; /* the last repeat's summed calls per second */
};

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The CPUs allowed: machine.cpus, else this process's. */
static void allowed_cpus(struct scaling *g)
{
    cpu_set_t set;
    const struct machine *m = g->s->machine;
    if (m && m->has_server_cpus)
        set = m->server_cpus;
    else if (sched_getaffinity(0, sizeof set, &set) != 0)
        CPU_ZERO(&set);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            g->cpus[g->ncpus++] = cpu;
}

/* Where pair i runs. same: client and server on CPU i. spread: the
 * server half the CPUs further on (mod n), so that for k <= n/2 every
 * pair has two CPUs of its own, and past that each CPU holds one pair's
 * client and another pair's server (with 2 CPUs: pair 0 on 0 and 1,
 * pair 1 on 1 and 0). The placement of pair i does not depend on k. */
static void place(struct scaling *g, size_t i)
{
    size_t n = g->ncpus;
    bool spread = strcmp(scaling_opts(g->s->sc)->placement, "spread") == 0;
    g->p[i].client_cpu = g->cpus[i % n];
    g->p[i].server_cpu = g->cpus[spread ? (i + n / 2) % n : i % n];
}

/* The k of every step: scaling.k's list, 1..max, or 1..the CPUs. */
static int steps(struct scaling *g)
{
    const struct scenario_klist *k = &scaling_opts(g->s->sc)->k;
    size_t n = k->n ? k->n : k->max > 0 ? (size_t)k->max : g->ncpus;
    g->ks = calloc(n ? n : 1, sizeof *g->ks);
    if (!g->ks)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        g->ks[i] = k->n ? k->v[i] : (int64_t)i + 1;
    g->nks = n;
    return 0;
}

static json_t *affinity_json(pid_t pid)
{
    cpu_set_t set;
    json_t *a = json_array();
    if (sched_getaffinity(pid, sizeof set, &set) != 0)
        return a;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            json_array_append_new(a, json_integer(cpu));
    return a;
}

static struct conn *start_slot(void *arg, size_t k)
{
    struct pair *p = arg;
    (void)k;
    return &p->c;
}

/* Start server i on its pair's server CPU and connect to it. */
static bool start_one(struct scaling *g, size_t i, json_t *pairs)
{
    const struct scenario *sc = g->s->sc;
    struct pair *p = &g->p[i];
    struct spawn_result res;
    struct servers_want w = {
        .group = g->s->group,
        .first = (unsigned)i,
        .count = 1,
        .cpu = p->server_cpu,
        .oom_kills = -1,
        .slot = start_slot,
        .arg = p,
        .payload = payload_lookup(sc->call.payload),
    };
    size_t up = servers_start(g->s, g->o, &w, &res);
    if (res.pid > 0 && res.err == 0)
        json_array_append_new(
            pairs, json_pack("{s:I, s:i, s:i, s:I, s:I, s:o}", "pair",
                             (json_int_t)i, "client_cpu", p->client_cpu,
                             "server_cpu", p->server_cpu, "server_index",
                             (json_int_t)res.index, "pid",
                             (json_int_t)res.pid, "server_affinity",
                             affinity_json(res.pid)));
    if (!up)
        return false;
    p->open = true;
    g->npairs = i + 1;
    return true;
}

static void *pair_main(void *arg)
{
    struct pair *p = arg;
    struct scaling *g = p->g;
    struct rusage a, b;
    pthread_mutex_lock(&g->mu);
    g->ready++;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    getrusage(RUSAGE_THREAD, &a);
    p->t0_ns = now_ns();
    /* Bounded in time: the main thread sets `stop` after duration_s (or
     * at once on an interrupt or another pair's failure), and each call
     * is bounded by call.timeout_ms. */
    while (!atomic_load_explicit(&g->stop, memory_order_relaxed)) {
        int64_t lat;
        int e = conn_call(&p->c, &lat);
        if (e) {
            p->err = e;
            str_copy(p->why, sizeof p->why, p->c.why);
            atomic_store(&g->stop, true);
            break;
        }
        p->calls++;
    }
    p->t1_ns = now_ns();
    getrusage(RUSAGE_THREAD, &b);
    p->user_s = tv_s(b.ru_utime) - tv_s(a.ru_utime);
    p->sys_s = tv_s(b.ru_stime) - tv_s(a.ru_stime);
    p->ran_on = sched_getcpu();
    return NULL;
}

/* Readings at a run's edges. */
struct snap {
    int64_t t_ns;
    struct rusage ru;
    struct cpu_usage srv;
    bool srv_ok;
};

static void take_snap(struct scaling *g, struct snap *sn)
{
    sn->t_ns = now_ns();
    getrusage(RUSAGE_SELF, &sn->ru);
    sn->srv_ok = g->s->machine &&
                 machine_server_cpu(g->s->machine, &sn->srv) == 0;
}

/* Sleep until `until_ns`, in slices, waking early on an interrupt or a
 * failed pair. */
static void wait_until(struct scaling *g, int64_t until_ns)
{
    /* Bounded: every pass sleeps at most 20 ms toward until_ns. */
    for (;;) {
        int64_t left = until_ns - now_ns();
        if (left <= 0 || *g->s->interrupted ||
            atomic_load(&g->stop))
            return;
        if (left > 20000000)
            left = 20000000;
        struct timespec ts = {0, (long)left};
        nanosleep(&ts, NULL); /* EINTR: a signal, looked at above */
    }
}

/* Run pairs 0..k-1 for duration_s: 0, -EINTR, or the first failure's
 * -errno (in that pair's err and why). *a and *b: readings just before
 * the gate opens and after every thread ended. */
static int run_pairs(struct scaling *g, size_t k, double duration_s,
                     struct snap *a, struct snap *b)
{
    sigset_t block, old;
    size_t made = 0;
    int rc = 0;
    atomic_store(&g->stop, false);
    g->ready = 0;
    g->open = false;
    for (size_t i = 0; i < k; i++) {
        g->p[i].calls = 0;
        g->p[i].err = 0;
        g->p[i].why[0] = 0;
    }
    /* Signals go to the main thread, which sleeps and looks at the
     * interrupt flag; the pairs' calls are never cut by EINTR. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (size_t i = 0; i < k; i++) {
        pthread_attr_t at;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(g->p[i].client_cpu, &one);
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, THREAD_STACK_BYTES);
        int e = pthread_attr_setaffinity_np(&at, sizeof one, &one);
        if (!e)
            e = pthread_create(&g->p[i].th, &at, pair_main, &g->p[i]);
        pthread_attr_destroy(&at);
        if (e) {
            g->p[i].err = -e;
            snprintf(g->p[i].why, sizeof g->p[i].why,
                     "cannot start the client thread on CPU %d: %s",
                     g->p[i].client_cpu, strerror(e));
            rc = -e;
            break;
        }
        made++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* Every thread at the gate (bounded), then open it. */
    int64_t give_up = now_ns() + (int64_t)READY_WAIT_MS * 1000000;
    pthread_mutex_lock(&g->mu);
    while (g->ready < made && now_ns() < give_up) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&g->cv, &g->mu, &ts);
    }
    if (rc)
        atomic_store(&g->stop, true);
    take_snap(g, a);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (!rc)
        wait_until(g, a->t_ns + (int64_t)(duration_s * 1e9));
    atomic_store(&g->stop, true);
    for (size_t i = 0; i < made; i++)
        pthread_join(g->p[i].th, NULL);
    take_snap(g, b);
    for (size_t i = 0; i < k && !rc; i++)
        rc = g->p[i].err;
    if (!rc && *g->s->interrupted)
        rc = -EINTR;
    return rc;
}

/* A failed run: interrupted, a server that died, a failed call. */
static void run_failed(struct scaling *g, size_t k, int err,
                       const char *when)
{
    char at[160];
    snprintf(at, sizeof at, " %s", when);
    if (*g->s->interrupted) {
        run_stop(g->o, STOP_INTERRUPTED, 130, "interrupted %s", when);
        return;
    }
    /* The first pair whose server is gone (its exit taken here), else
     * the first that failed (its call's why names the server). */
    const struct pair *bad = NULL;
    int st = 0;
    bool exited = false;
    for (size_t i = 0; i < k && !bad; i++)
        if (g->p[i].err &&
            spawner_check(g->s->sp, g->p[i].c.pid, 200, &st) == 1) {
            bad = &g->p[i];
            exited = true;
        }
    for (size_t i = 0; i < k && !bad; i++)
        if (g->p[i].err)
            bad = &g->p[i];
    if (!bad) {
        run_stop(g->o, STOP_CALL_FAILED, 1, "%s %s", strerror(-err), when);
        return;
    }
    servers_failed(g->s, g->o,
                   &(struct servers_failure){.index = bad->c.index,
                                             .pid = bad->c.pid,
                                             .err = bad->err,
                                             .why = bad->why,
                                             .exited = exited,
                                             .wstatus = st,
                                             .at = at,
                                             .oom_kills = -1});
}

/* One repeat of k pairs as JSON. */
static json_t *repeat_json(struct scaling *g, size_t k, int r,
                           const struct snap *a, const struct snap *b)
{
    json_t *pairs = json_array();
    uint64_t sum = 0;
    double sum_rate = 0;
    for (size_t i = 0; i < k; i++) {
        const struct pair *p = &g->p[i];
        double el = (double)(p->t1_ns - p->t0_ns) / 1e9;
        double rate = el > 0 ? (double)p->calls / el : 0;
        sum += p->calls;
        sum_rate += rate;
        json_array_append_new(
            pairs, json_pack("{s:I, s:I, s:f, s:f, s:i, s:i, s:i, s:f, "
                             "s:f}", "pair", (json_int_t)i, "calls",
                             (json_int_t)p->calls, "elapsed_s", el,
                             "calls_per_s", rate, "client_cpu",
                             p->client_cpu, "server_cpu", p->server_cpu,
                             "ran_on_cpu", p->ran_on, "cpu_user_s",
                             p->user_s, "cpu_sys_s", p->sys_s));
    }
    json_t *j = json_pack(
        "{s:I, s:i, s:f, s:o, s:I, s:f, s:{s:f, s:f}}", "k", (json_int_t)k,
        "repeat", r, "elapsed_s", (double)(b->t_ns - a->t_ns) / 1e9,
        "pairs", pairs, "sum_calls", (json_int_t)sum, "sum_calls_per_s",
        sum_rate, "client", "cpu_user_s",
        tv_s(b->ru.ru_utime) - tv_s(a->ru.ru_utime), "cpu_sys_s",
        tv_s(b->ru.ru_stime) - tv_s(a->ru.ru_stime));
    if (a->srv_ok && b->srv_ok)
        json_object_set_new(
            j, "server_cpu",
            json_pack("{s:f, s:f, s:f}", "total_s",
                      (double)(b->srv.total_ns - a->srv.total_ns) / 1e9,
                      "sampled_user_s",
                      (double)(b->srv.user_ns - a->srv.user_ns) / 1e9,
                      "sampled_sys_s",
                      (double)(b->srv.sys_ns - a->srv.sys_ns) / 1e9));
    return j;
}

/* {median, min, max} of v[0..n-1] (sorted in place). */
static json_t *spread_json(double *v, size_t n)
{
    if (!n)
        return json_null();
    struct spread sp;
    stats_spread(v, n, &sp);
    return json_pack("{s:f, s:f, s:f}", "median", sp.median, "min", sp.min,
                     "max", sp.max);
}

/* doc.scaling.steps: per k, the summed and per-pair calls/s over its
 * repeats (median, min, max). */
static void summarize(struct scaling *g)
{
    json_t *reps = json_object_get(g->s->doc, "repeats");
    json_t *steps_j = json_array();
    size_t nrep = json_array_size(reps);
    double *sums = calloc(nrep ? nrep : 1, sizeof *sums);
    double *per = calloc((nrep ? nrep : 1) * (g->npairs ? g->npairs : 1),
                         sizeof *per);
    for (size_t s = 0; s < g->nks && sums && per; s++) {
        size_t ns = 0, np = 0, i;
        json_t *rep;
        json_array_foreach(reps, i, rep) {
            if (json_integer_value(json_object_get(rep, "k")) != g->ks[s])
                continue;
            sums[ns++] = json_number_value(
                json_object_get(rep, "sum_calls_per_s"));
            size_t j;
            json_t *pp;
            json_array_foreach(json_object_get(rep, "pairs"), j, pp)
                per[np++] = json_number_value(
                    json_object_get(pp, "calls_per_s"));
        }
        if (!ns)
            continue;
        json_array_append_new(
            steps_j, json_pack("{s:I, s:I, s:o, s:o}", "k",
                               (json_int_t)g->ks[s], "repeats",
                               (json_int_t)ns, "sum_calls_per_s",
                               spread_json(sums, ns), "pair_calls_per_s",
                               spread_json(per, np)));
    }
    free(sums);
    free(per);
    json_object_set_new(json_object_get(g->s->doc, "scaling"), "steps",
                        steps_j);
}

/* The result's first fields, the CPUs and the k of every step, and the
 * largest k's servers, once: pair i's placement does not depend on k,
 * and idle servers (blocked in accept or epoll) take no CPU, so the
 * first k of them serve step k. 0, or -1 once the run stopped. */
static int scaling_init(struct window *w)
{
    struct scaling *g = w->kind;
    const struct scenario *sc = w->s->sc;
    g->s = w->s;
    g->o = w->o;
    g->t0_ns = w->t0_ns;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    json_t *pairs = json_array();
    json_t *ks = json_array();
    json_t *cpus = json_array();
    json_object_set_new(g->s->doc, "repeats", json_array());
    json_object_set_new(g->s->doc, "scaling",
                        json_pack("{s:s, s:o, s:o, s:o, s:[]}", "placement",
                                  scaling_opts(sc)->placement, "cpus", cpus,
                                  "k", ks, "pairs", pairs, "steps"));
    g->cpus = calloc(CPU_SETSIZE, sizeof *g->cpus);
    if (g->cpus)
        allowed_cpus(g);
    if (!g->cpus || steps(g) != 0 || g->ncpus == 0) {
        run_stop(g->o, STOP_RESOURCE, 0, "out of memory in the client, or "
                 "no CPU allowed");
        return -1;
    }
    for (size_t i = 0; i < g->ncpus; i++)
        json_array_append_new(cpus, json_integer(g->cpus[i]));
    for (size_t i = 0; i < g->nks; i++)
        json_array_append_new(ks, json_integer(g->ks[i]));
    size_t kmax = (size_t)g->ks[g->nks - 1];
    g->p = calloc(kmax, sizeof *g->p);
    if (!g->p) {
        run_stop(g->o, STOP_RESOURCE, 0, "out of memory in the client");
        return -1;
    }
    for (size_t i = 0; i < kmax; i++) {
        g->p[i].g = g;
        place(g, i);
        if (!start_one(g, i, pairs))
            return -1;
    }
    w->plan.steps = (int64_t)g->nks;
    return 0;
}

/* Step s's k pairs for one window: the warm-up or a repeat. */
static int scaling_window(struct window *w, const struct window_at *at)
{
    struct scaling *g = w->kind;
    size_t k = (size_t)g->ks[at->step];
    struct snap a, b;
    int e = run_pairs(g, k, (double)at->duration_ns / 1e9, &a, &b);
    if (e) {
        run_failed(g, k, e, at->when);
        return -1;
    }
    if (at->repeat < 0)
        return 0;
    json_t *j = repeat_json(g, k, (int)at->repeat, &a, &b);
    g->last_sum = json_number_value(json_object_get(j, "sum_calls_per_s"));
    json_array_append_new(json_object_get(g->s->doc, "repeats"), j);
    return 0;
}

static void scaling_record(struct window *w)
{
    summarize(w->kind);
}

static void scaling_step_name(struct window *w, int64_t step, char *buf,
                              size_t len)
{
    struct scaling *g = w->kind;
    snprintf(buf, len, "k=%lld", (long long)g->ks[step]);
}

static void scaling_progress(struct window *w, const struct window_at *at,
                             char *buf, size_t len)
{
    struct scaling *g = w->kind;
    snprintf(buf, len, "k=%lld  %.1f kHz summed",
             (long long)g->ks[at->step], g->last_sum / 1e3);
}

static void scaling_done(struct window *w, char *buf, size_t len)
{
    struct scaling *g = w->kind;
    snprintf(buf, len, "k = %lld..%lld pairs, %lld repeats of %g s each",
             (long long)g->ks[0], (long long)g->ks[g->nks - 1],
             (long long)w->plan.repeats, w->plan.duration_s);
}

static void scaling_cleanup(struct window *w)
{
    struct scaling *g = w->kind;
    for (size_t i = 0; i < g->npairs; i++)
        if (g->p[i].open)
            conn_close(&g->p[i].c);
    free(g->p);
    free(g->ks);
    free(g->cpus);
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
}

static const struct window_ops scaling_ops = {
    .init = scaling_init,
    .window = scaling_window,
    .record = scaling_record,
    .cleanup = scaling_cleanup,
    .step_name = scaling_step_name,
    .progress_text = scaling_progress,
    .done_detail = scaling_done,
};

static void scaling_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    const struct window_opts *win = window_opts(sides[0].sc);
    struct window_plan plan = {
        .duration_s = win->duration_s,
        .warmup_s = win->warmup_s,
        .warmup = win->warmup_s > 0,
        .repeats = win->repeats,
        .steps = 1, /* init sets the k list's length */
        .order = WINDOW_STEPS_OUTSIDE,
        .unit = "repeat",
    };
    struct scaling g = {0};
    window_run(&scaling_ops, &plan, &g, sides, o, nsides);
}

static void scaling_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *steps_j = json_object_get(json_object_get(doc, "scaling"),
                                      "steps");
    printf("%s: %s over %s, pairs placed %s, ping-pong for %g s:",
           sc->name, json_string_value(json_object_get(orb, "name")),
           sc->transport, scaling_opts(sc)->placement,
               scaling_opts(sc)->win.duration_s);
    size_t i;
    json_t *st;
    double first = 0, last = 0;
    json_array_foreach(steps_j, i, st) {
        double sum = json_number_value(json_object_get(
            json_object_get(st, "sum_calls_per_s"), "median"));
        double per = json_number_value(json_object_get(
            json_object_get(st, "pair_calls_per_s"), "median"));
        printf(" k=%lld %.1f kHz summed (%.1f kHz a pair);",
               (long long)json_integer_value(json_object_get(st, "k")),
               sum / 1e3, per / 1e3);
        if (i == 0)
            first = sum;
        last = sum;
    }
    if (json_array_size(steps_j) > 1 && first > 0)
        printf(" last/first sum %.2f;", last / first);
    if (!json_array_size(steps_j))
        printf(" no repeat was measured;");
    printf(" medians over each k's repeats. Stop: %s (%s); result: %s\n",
           o->stop_reason, o->detail, out);
}

/* One connection per pair, at the largest k (at most one per CPU). */
static int64_t scaling_max_connections(const struct scenario *sc)
{
    const struct scenario_klist *k = &scaling_opts(sc)->k;
    return k->max > 0 ? k->max : k->n ? k->v[k->n - 1] : CPU_SETSIZE;
}

const struct kind_ops kind_scaling = {
    .scenario = {.name = "scaling",
                 .keys = scaling_keys,
                 .nkeys = ARRAY_LEN(scaling_keys),
                 .check = scaling_check},
    .run = scaling_run,
    .summary = scaling_summary,
    .max_connections = scaling_max_connections,
};
