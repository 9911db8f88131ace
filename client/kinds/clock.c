/* The clock benchmark (scenario kind "clock"): for each k in clock.k, k
 * threads, each pinned to its own CPU, call a time source as often as
 * they can for clock.duration_s, clock.repeats times; per thread the
 * calls counted exactly and the calls per second. After the RTEMS
 * timekeeping study (#2271): a source that reads the clock hardware
 * against a coarse one that reads none.
 *
 * Per repeat, k threads are started,
 * each pins itself to its CPU and waits at a barrier with the main
 * thread; the main thread sleeps duration_s and sets a shared stop flag,
 * which each thread reads once per batch of CLOCK_BATCH calls, so a
 * thread's count is exact (a multiple of the batch) and the check costs
 * one relaxed load per batch. The windows (a repeat of each source at
 * each k, repeat r of every one before r + 1), the checkpoints and the
 * progress line are the harness's (kinds/window.h). */
#include "kinds/kind.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define CLOCK_HAVE_RDTSC 1
#else
#define CLOCK_HAVE_RDTSC 0
#endif

#include "host/probe.h"
#include "kinds/run.h"
#include "kinds/window.h"
#include "core/result.h"
#include "core/util.h"
#include "core/stats.h"

/* The time sources this file implements. */
static const char *const clock_sources[] = {
    "monotonic", "monotonic_raw", "realtime", "boottime",
    "monotonic_coarse", "realtime_coarse", "tsc", "monotonic_syscall",
    NULL};

#define CLOCK_MAX_SOURCES 16
/* kind "clock": k threads, each pinned to its own CPU, call a time
 * source as often as they can for duration_s, repeats times. */
struct clock_opts {
    struct window_opts win; /* clock.duration_s, repeats (no warm-up) */
    char *sources[CLOCK_MAX_SOURCES]; /* none = all */
    size_t nsources;
    char k[64]; /* thread counts, "1-4" or "1,2,4"; "" = 1..CPUs */
};

/* The scenario's clock options. */
static const struct clock_opts *clock_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct clock_opts, sc);
}

/* The keys of kind clock: fields of struct clock_opts. */
#define OPT(f) SCENARIO_KIND_OFF(struct clock_opts, f)
#define OPT_SZ(f) SCENARIO_KIND_SZ(struct clock_opts, f)
static const struct scenario_key clock_keys[] = {
    {.key = "clock.sources", .type = SCENARIO_STRLIST, .off = OPT(sources),
     .size = OPT(nsources), .max = CLOCK_MAX_SOURCES, .choices = clock_sources,
     .help = "kind clock: time sources to call (default: every one available "
     "here)"},
    WINDOW_KEY_DURATION("clock", "kind clock: how long the threads call, "
                        "each repeat (s)"),
    WINDOW_KEY_REPEATS("clock", "kind clock: repeats of every source at "
                       "every k"),
    {.key = "clock.k", .type = SCENARIO_STRING, .off = OPT(k),
     .size = OPT_SZ(k), .def_str = "",
     .help = "kind clock: thread counts, e.g. \"1-4\" or \"1,2,4\" (default: "
     "1 to the CPUs usable, machine.cpus if given)"},
};
#undef OPT
#undef OPT_SZ

/* clock.k: a list of thread counts, none above the CPUs usable (the
 * process's affinity, within machine.cpus when given). */
static int clock_check(const struct scenario_ctx *c,
                       const struct scenario *sc)
{
    cpu_set_t set;
    char why[160];
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return scenario_fail(c, NULL, "sched_getaffinity: %s",
                             strerror(errno));
    if (sc->machine.cpus[0] &&
        parse_cpu_list(sc->machine.cpus, &set, why, sizeof why) != 0)
        return scenario_fail(c, "machine.cpus", "%s", why);
    uint64_t ks;
    if (!clock_opts(sc)->k[0])
        return 0;
    if (scenario_parse_k(clock_opts(sc)->k, &ks) != 0)
        return scenario_fail(c, "clock.k", "\"%s\" is not a list of thread "
                             "counts (e.g. 1-4 or 1,2,4; each 1..64)",
                             clock_opts(sc)->k);
    int usable = CPU_COUNT(&set);
    for (int k = 64; k > usable; k--)
        if (ks & (1ULL << (k - 1)))
            return scenario_fail(c, "clock.k", "%d threads, but only %d "
                                 "CPU(s) are usable%s", k, usable,
                                 sc->machine.cpus[0] ? " in machine.cpus"
                                                     : "");
    return 0;
}


#define CLOCK_BATCH 1024
#define CLOCK_MAX_THREADS 64 /* clock.k is at most 64 */

enum path { VIA_VDSO, VIA_SYSCALL, VIA_TSC };

/* A time source: its scenario name, how it is read, and whether a read
 * touches the clock hardware (the seed's "with periphery"). */
struct source {
    const char *name;
    enum path path;
    clockid_t id;
    const char *call; /* what each call is, for the result */
    bool hardware;
};

static const struct source sources[] = {
    {"monotonic", VIA_VDSO, CLOCK_MONOTONIC,
     "clock_gettime(CLOCK_MONOTONIC) (vDSO)", true},
    {"monotonic_raw", VIA_VDSO, CLOCK_MONOTONIC_RAW,
     "clock_gettime(CLOCK_MONOTONIC_RAW) (vDSO)", true},
    {"realtime", VIA_VDSO, CLOCK_REALTIME,
     "clock_gettime(CLOCK_REALTIME) (vDSO)", true},
    {"boottime", VIA_VDSO, CLOCK_BOOTTIME,
     "clock_gettime(CLOCK_BOOTTIME) (vDSO)", true},
    {"monotonic_coarse", VIA_VDSO, CLOCK_MONOTONIC_COARSE,
     "clock_gettime(CLOCK_MONOTONIC_COARSE): the last tick, no hardware "
     "read", false},
    {"realtime_coarse", VIA_VDSO, CLOCK_REALTIME_COARSE,
     "clock_gettime(CLOCK_REALTIME_COARSE): the last tick, no hardware "
     "read", false},
    {"tsc", VIA_TSC, CLOCK_MONOTONIC, "__rdtsc(): the TSC read directly",
     true},
    {"monotonic_syscall", VIA_SYSCALL, CLOCK_MONOTONIC,
     "syscall(SYS_clock_gettime, CLOCK_MONOTONIC): the system call, not "
     "the vDSO", true},
};

/* Does /proc/cpuinfo list `flag` among the first CPU's flags? */
static bool cpu_flag(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (!f)
        return false;
    char line[8192];
    bool found = false;
    size_t n = strlen(flag);
    /* Bounded by the file; stops at the first flags line. */
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        for (char *p = strstr(line, flag); p && !found;
             p = strstr(p + 1, flag))
            found = p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n');
        break;
    }
    fclose(f);
    return found;
}

/* Why source s cannot be measured here, or NULL. */
static const char *unavailable(const struct source *s, char *buf,
                               size_t len)
{
    if (s->path == VIA_TSC) {
        if (!CLOCK_HAVE_RDTSC)
            return "no TSC: not an x86 CPU";
        if (!cpu_flag("constant_tsc"))
            return "the CPU flags lack constant_tsc: the TSC's rate may "
                   "change with the CPU's frequency";
        return NULL;
    }
    struct timespec ts;
    if (clock_getres(s->id, &ts) != 0) {
        snprintf(buf, len, "clock_getres: %s", strerror(errno));
        return buf;
    }
    return NULL;
}

/* What the threads of one repeat share. */
struct gate {
    atomic_int ready; /* threads pinned (or failed to) and waiting */
    atomic_bool go;   /* all of them may start */
    atomic_bool stop; /* the repeat is over */
};

/* One thread of a repeat. */
struct worker {
    pthread_t tid;
    const struct source *src;
    int cpu;              /* pinned to */
    int cpu_seen;         /* sched_getcpu() after the calls */
    struct gate *gate;
    uint64_t max_calls;   /* a bound only a missing stop flag would reach */
    uint64_t calls;
    int64_t elapsed_ns;
    uint64_t sink;        /* the values read, so that no read is elided */
    int err;              /* pinning failed: its error number */
};

/* The calls, one loop per way of reading so that the loop has no
 * indirect call in it. Each loop ends at the stop flag, or at max_calls,
 * which no real clock reaches within the repeat (10^10 calls a second). */
static void spin(struct worker *w)
{
    uint64_t n = 0, sink = 0;
    struct timespec ts;
    atomic_bool *stop = &w->gate->stop;
    switch (w->src->path) {
    case VIA_VDSO:
        while (!atomic_load_explicit(stop, memory_order_relaxed) &&
               n < w->max_calls) {
            for (int i = 0; i < CLOCK_BATCH; i++) {
                clock_gettime(w->src->id, &ts);
                sink += (uint64_t)ts.tv_nsec;
            }
            n += CLOCK_BATCH;
        }
        break;
    case VIA_SYSCALL:
        while (!atomic_load_explicit(stop, memory_order_relaxed) &&
               n < w->max_calls) {
            for (int i = 0; i < CLOCK_BATCH; i++) {
                syscall(SYS_clock_gettime, w->src->id, &ts);
                sink += (uint64_t)ts.tv_nsec;
            }
            n += CLOCK_BATCH;
        }
        break;
    case VIA_TSC:
#if CLOCK_HAVE_RDTSC
        while (!atomic_load_explicit(stop, memory_order_relaxed) &&
               n < w->max_calls) {
            for (int i = 0; i < CLOCK_BATCH; i++)
                sink += __rdtsc();
            n += CLOCK_BATCH;
        }
#endif
        break;
    }
    w->calls = n;
    w->sink = sink;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(w->cpu, &one);
    w->err = pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    atomic_fetch_add(&w->gate->ready, 1);
    /* Bounded: the main thread sets go in every path, after all threads
     * are ready or when starting one failed. */
    while (!atomic_load(&w->gate->go))
        sched_yield();
    if (w->err || atomic_load(&w->gate->stop))
        return NULL;
    int64_t t0 = now_ns();
    spin(w);
    w->elapsed_ns = now_ns() - t0;
    w->cpu_seen = sched_getcpu();
    return NULL;
}

/* One step: a source at one k, and its entry in the result. */
struct clock_step {
    const struct source *src;
    json_t *kj; /* {k, cpus, repeats, ...} */
    int k;
};

struct clock_bench {
    struct side *s;
    struct run_outcome *o;
    struct clock_step *steps; /* every source's every k, in that order */
    int cpus[CLOCK_MAX_THREADS]; /* the CPUs usable, the first k used */
    int ncpus;
    uint64_t k_set;
    int64_t t0_ns;
};

/* Sleep until the absolute CLOCK_MONOTONIC time `until_ns`, or an
 * interrupt. False when interrupted. Bounded: each pass sleeps to the
 * deadline unless a signal wakes it. */
static bool sleep_until(struct clock_bench *b, int64_t until_ns)
{
    struct timespec ts = {until_ns / 1000000000LL, until_ns % 1000000000LL};
    while (!*b->s->interrupted && now_ns() < until_ns)
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    return !*b->s->interrupted;
}

/* The repeat's figures from its threads, or NULL after the stop when a
 * thread could not be pinned. */
static json_t *repeat_json(struct clock_bench *b, const struct worker *w,
                           int k, int repeat)
{
    json_t *th = json_array();
    uint64_t sum = 0;
    double sum_rate = 0;
    for (int i = 0; i < k; i++) {
        if (w[i].err) {
            json_decref(th);
            run_stop(b->o, STOP_THREAD_FAILED, 1,
                     "pthread_setaffinity_np to CPU "
                 "%d: %s", w[i].cpu, strerror(w[i].err));
            return NULL;
        }
        double el = (double)w[i].elapsed_ns / 1e9;
        double rate = el > 0 ? (double)w[i].calls / el : 0;
        sum += w[i].calls;
        sum_rate += rate;
        json_array_append_new(
            th, json_pack("{s:i, s:i, s:I, s:f, s:f}", "cpu", w[i].cpu,
                          "cpu_seen", w[i].cpu_seen, "calls",
                          (json_int_t)w[i].calls, "elapsed_s", el,
                          "calls_per_s", rate));
    }
    return json_pack("{s:i, s:o, s:I, s:f}", "repeat", repeat, "threads", th,
                     "sum_calls", (json_int_t)sum, "sum_calls_per_s",
                     sum_rate);
}

/* One repeat of source src with k threads on the first k CPUs: its JSON,
 * or NULL after the stop (a failure or an interrupt). Every thread started
 * is joined before it returns. */
static json_t *one_repeat(struct clock_bench *b, const struct source *src,
                          int k, int repeat)
{
    const struct scenario *sc = b->s->sc;
    struct worker w[CLOCK_MAX_THREADS];
    struct gate gate;
    atomic_init(&gate.ready, 0);
    atomic_init(&gate.go, false);
    atomic_init(&gate.stop, false);
    int started = 0, err = 0;
    for (int i = 0; i < k && !err; i++) {
        w[i] = (struct worker){
            .src = src, .cpu = b->cpus[i], .cpu_seen = -1, .gate = &gate,
            .max_calls = (uint64_t)(clock_opts(sc)->win.duration_s * 1e10) +
                         CLOCK_BATCH};
        err = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
        if (!err)
            started++;
    }
    if (err)
        atomic_store(&gate.stop, true); /* the started ones return */
    /* Bounded: every started thread adds itself to ready first thing. */
    while (!err && atomic_load(&gate.ready) < k)
        sched_yield();
    atomic_store(&gate.go, true);
    bool done = err || sleep_until(b, now_ns() +
                                   (int64_t)(clock_opts(sc)->win.duration_s *
                                             1e9));
    atomic_store(&gate.stop, true);
    for (int i = 0; i < started; i++)
        pthread_join(w[i].tid, NULL);
    if (err) {
        run_stop(b->o, STOP_THREAD_FAILED, 1,
                 "pthread_create (thread %d of %d): "
             "%s", started + 1, k, strerror(err));
        return NULL;
    }
    if (!done) {
        run_stop(b->o, STOP_INTERRUPTED, 130, "interrupted in repeat %d of %s "
             "with %d thread(s)", repeat + 1, src->name, k);
        return NULL;
    }
    return repeat_json(b, w, k, repeat);
}

/* {median, min, max} of v[0..n-1] (sorted in place). */
static json_t *spread(double *v, size_t n)
{
    if (!n)
        return json_null();
    struct spread sp;
    stats_spread(v, n, &sp);
    return json_pack("{s:f, s:f, s:f, s:I}", "median", sp.median, "min",
                     sp.min, "max", sp.max, "count", (json_int_t)n);
}

/* One k's summary over its repeats: the per-core calls/s of every thread
 * of every repeat, and the sum of each repeat. */
static void summarize_k(json_t *kj)
{
    json_t *reps = json_object_get(kj, "repeats"), *rep, *t;
    size_t nrep = json_array_size(reps), i, j, n = 0;
    int k = (int)json_integer_value(json_object_get(kj, "k"));
    double *per = malloc((nrep * (size_t)k + 1) * sizeof *per);
    double *sums = malloc((nrep + 1) * sizeof *sums);
    if (!per || !sums) {
        free(per);
        free(sums);
        return;
    }
    json_array_foreach(reps, i, rep) {
        sums[i] = json_real_value(json_object_get(rep, "sum_calls_per_s"));
        json_array_foreach(json_object_get(rep, "threads"), j, t)
            per[n++] = json_real_value(json_object_get(t, "calls_per_s"));
    }
    json_object_set_new(kj, "per_core_calls_per_s", spread(per, n));
    json_object_set_new(kj, "sum_calls_per_s", spread(sums, nrep));
    free(per);
    free(sums);
}

/* The CPUs usable: this thread's affinity, within machine.cpus. */
static int usable_cpus(struct clock_bench *b, char *why, size_t len)
{
    cpu_set_t set, want;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(why, len, "sched_getaffinity: %s", strerror(errno));
        return -errno;
    }
    if (b->s->sc->machine.cpus[0]) {
        if (parse_cpu_list(b->s->sc->machine.cpus, &want, why, len) != 0)
            return -EINVAL;
        CPU_AND(&set, &set, &want);
    }
    b->ncpus = 0;
    for (int c = 0; c < CPU_SETSIZE && b->ncpus < CLOCK_MAX_THREADS; c++)
        if (CPU_ISSET(c, &set))
            b->cpus[b->ncpus++] = c;
    if (clock_opts(b->s->sc)->k[0]) {
        if (scenario_parse_k(clock_opts(b->s->sc)->k, &b->k_set) != 0) {
            snprintf(why, len, "clock.k: \"%s\" is not a list",
                     clock_opts(b->s->sc)->k);
            return -EINVAL;
        }
    } else {
        b->k_set = b->ncpus >= 64 ? ~0ULL : (1ULL << b->ncpus) - 1;
    }
    for (int k = 64; k > b->ncpus; k--)
        if (b->k_set & (1ULL << (k - 1))) {
            snprintf(why, len, "clock.k: %d threads, only %d CPU(s) usable",
                     k, b->ncpus);
            return -EINVAL;
        }
    return b->ncpus ? 0 : -EINVAL;
}

/* The sources asked for (all when none is named), each with its entry in
 * the doc: {name, call, reads_hardware, available, skipped, ks}. */
static json_t *source_list(struct clock_bench *b)
{
    const struct scenario *sc = b->s->sc;
    json_t *list = json_array();
    for (size_t i = 0; i < ARRAY_LEN(sources); i++) {
        const struct source *s = &sources[i];
        bool asked = clock_opts(sc)->nsources == 0;
        for (size_t j = 0; j < clock_opts(sc)->nsources && !asked; j++)
            asked = strcmp(clock_opts(sc)->sources[j], s->name) == 0;
        if (!asked)
            continue;
        char buf[160];
        const char *no = unavailable(s, buf, sizeof buf);
        json_t *ks = json_array();
        for (int k = 1; k <= b->ncpus && !no; k++)
            if (b->k_set & (1ULL << (k - 1)))
                json_array_append_new(
                    ks, json_pack("{s:i, s:[], s:[]}", "k", k, "cpus",
                                  "repeats"));
        for (size_t j = 0; j < json_array_size(ks); j++) {
            json_t *kj = json_array_get(ks, j), *cpus;
            cpus = json_object_get(kj, "cpus");
            int k = (int)json_integer_value(json_object_get(kj, "k"));
            for (int c = 0; c < k; c++)
                json_array_append_new(cpus, json_integer(b->cpus[c]));
        }
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:b, s:b, s:o, s:o}", "name",
                            s->name, "call", s->call, "reads_hardware",
                            s->hardware, "available", no == NULL, "skipped",
                            no ? json_string(no) : json_null(), "ks", ks));
    }
    return list;
}

static const struct source *source_named(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(sources); i++)
        if (strcmp(sources[i].name, name) == 0)
            return &sources[i];
    return NULL;
}

/* The CPUs, the sources and every step: 0, or -1 once the run stopped. */
static int clock_init(struct window *w)
{
    struct clock_bench *b = w->kind;
    char why[256];
    b->s = w->s;
    b->o = w->o;
    b->t0_ns = w->t0_ns;
    json_t *doc = b->s->doc;
    if (usable_cpus(b, why, sizeof why) != 0) {
        run_stop(b->o, STOP_THREAD_FAILED, 1, "%s", why);
        json_object_set_new(doc, "sources", json_array());
        return -1;
    }
    json_t *cpus = json_array();
    for (int i = 0; i < b->ncpus; i++)
        json_array_append_new(cpus, json_integer(b->cpus[i]));
    json_object_set_new(doc, "cpus", cpus);
    json_t *list = source_list(b);
    json_object_set_new(doc, "sources", list);
    json_t *src, *kj;
    size_t i, j, n = 0;
    json_array_foreach(list, i, src)
        n += json_array_size(json_object_get(src, "ks"));
    b->steps = calloc(n ? n : 1, sizeof *b->steps);
    if (!b->steps) {
        run_stop(b->o, STOP_THREAD_FAILED, 1, "out of memory");
        return -1;
    }
    n = 0;
    json_array_foreach(list, i, src)
        json_array_foreach(json_object_get(src, "ks"), j, kj)
            b->steps[n++] = (struct clock_step){
                .src = source_named(
                    json_string_value(json_object_get(src, "name"))),
                .kj = kj,
                .k = (int)json_integer_value(json_object_get(kj, "k"))};
    w->plan.steps = (int64_t)n;
    return 0;
}

/* One repeat of a source at its k. */
static int clock_window(struct window *w, const struct window_at *at)
{
    struct clock_bench *b = w->kind;
    const struct clock_step *st = &b->steps[at->step];
    json_t *rep = one_repeat(b, st->src, st->k, (int)at->repeat);
    if (!rep)
        return -1;
    json_array_append_new(json_object_get(st->kj, "repeats"), rep);
    summarize_k(st->kj);
    return 0;
}

static void clock_record(struct window *w)
{
    struct clock_bench *b = w->kind;
    char cs[64];
    probe_clocksource(cs, sizeof cs);
    json_object_set_new(json_object_get(b->s->doc, "clock"),
                        "clocksource_at_end", json_string(cs));
}

static void clock_progress(struct window *w, const struct window_at *at,
                           char *buf, size_t len)
{
    struct clock_bench *b = w->kind;
    snprintf(buf, len, "repeat %lld/%lld  %s  k=%d",
             (long long)at->repeat + 1, (long long)w->plan.repeats,
             b->steps[at->step].src->name, b->steps[at->step].k);
}

static void clock_cleanup(struct window *w)
{
    struct clock_bench *b = w->kind;
    free(b->steps);
}

static const struct window_ops clock_ops = {
    .init = clock_init,
    .window = clock_window,
    .record = clock_record,
    .cleanup = clock_cleanup,
    .progress_text = clock_progress,
};

/* Every repeat, in the order repeat, source, k: a drift of the host's
 * speed over the run falls on every source and k alike. */
static void clock_run(struct side *sides, struct run_outcome *o, size_t nsides)
{
    const struct window_opts *win = window_opts(sides[0].sc);
    struct window_plan plan = {
        .duration_s = win->duration_s,
        .repeats = win->repeats,
        .order = WINDOW_REPEATS_OUTSIDE,
        .unit = "measurement",
    };
    struct clock_bench b = {0};
    window_run(&clock_ops, &plan, &b, sides, o, nsides);
}

/* One paragraph for a clock run: per source the summed calls/s at the
 * smallest and largest k. */
static void clock_summary(const struct scenario *sc, json_t *doc,
                          const struct run_outcome *o, const char *out)
{
    json_t *src, *ks;
    size_t i;
    printf("%s: time-source calls per second, clocksource %s:", sc->name,
           json_string_value(json_object_get(json_object_get(doc, "clock"),
                                             "clocksource")));
    json_array_foreach(json_object_get(doc, "sources"), i, src) {
        ks = json_object_get(src, "ks");
        json_t *lo = json_array_get(ks, 0);
        json_t *hi = json_array_get(ks, json_array_size(ks) - 1);
        json_t *slo = json_object_get(lo, "sum_calls_per_s");
        json_t *shi = json_object_get(hi, "sum_calls_per_s");
        const char *name = json_string_value(json_object_get(src, "name"));
        if (!json_is_object(slo) || !json_is_object(shi)) {
            printf(" %s not measured;", name);
            continue;
        }
        printf(" %s %.1f M/s at k=%lld, %.1f M/s at k=%lld;", name,
               json_number_value(json_object_get(slo, "median")) / 1e6,
               (long long)json_integer_value(json_object_get(lo, "k")),
               json_number_value(json_object_get(shi, "median")) / 1e6,
               (long long)json_integer_value(json_object_get(hi, "k")));
    }
    printf(" stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

const struct kind_ops kind_clock = {
    .scenario = {.name = "clock",
                 .keys = clock_keys,
                 .nkeys = ARRAY_LEN(clock_keys),
                 .check = clock_check},
    .flags = KIND_SERVERLESS,
    .run = clock_run,
    .summary = clock_summary,
};
