/* The cost of one system call (scenario kind "syscall"): the client calls
 * syscall(SYS_getpid), the cheapest call into the kernel and back (no
 * argument, no lock, glibc's cache of the pid bypassed), as often as it
 * can for syscall.repeats windows of syscall.duration_s after
 * syscall.warmup_s; each window gives the calls, its length and the ns
 * per call, the result their median, min and max. A floor row: every
 * call an ORB makes crosses into the kernel a few times (a send, a
 * receive, a poll), and this is what one crossing costs here.
 *
 * Written from the skeleton (kinds/skeleton.c.example): the windows, the
 * checkpoints and the progress line are the harness's (kinds/window.h).
 * It starts no server (KIND_SERVERLESS). */
#include "kinds/kind.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"
#include "kinds/window.h"

/* Calls between two looks at the clock: the clock's cost (about one
 * call's) spread over them. */
#define SYSCALL_BATCH 256

/* Its options are the harness's alone, struct window_opts:
 * syscall.duration_s, warmup_s, repeats. */
#define SYSCALL_WHAT "syscall(SYS_getpid)"

static const struct scenario_key syscall_keys[] = {
    WINDOW_KEY_DURATION("syscall", "kind syscall: how long each window "
                        "calls getpid (s)"),
    WINDOW_KEY_WARMUP("syscall", 0.1, "kind syscall: untimed calls before "
                      "the first window (s)"),
    WINDOW_KEY_REPEATS("syscall", "kind syscall: measured windows"),
};

struct syscall_bench {
    double last_ns; /* the last window's ns per call */
    long sink;      /* the calls' results, used so that none is elided */
};

static int syscall_init(struct window *w)
{
    json_object_set_new(w->s->doc, "repeats", json_array());
    return 0;
}

/* Call getpid in batches until the window's end. Bounded by it: one
 * batch takes microseconds. */
static int syscall_window(struct window *w, const struct window_at *at)
{
    struct syscall_bench *b = w->kind;
    int64_t until = at->start_ns + at->duration_ns, now;
    uint64_t calls = 0;
    long sink = 0;
    while ((now = now_ns()) < until && !*w->s->interrupted) {
        for (int i = 0; i < SYSCALL_BATCH; i++)
            sink += syscall(SYS_getpid);
        calls += SYSCALL_BATCH;
    }
    if (*w->s->interrupted) {
        run_stop(w->o, STOP_INTERRUPTED, 130, "interrupted %s", at->when);
        return -1;
    }
    b->sink += sink;
    if (at->repeat < 0)
        return 0;
    double ns = (double)(now - at->start_ns);
    b->last_ns = calls ? ns / (double)calls : 0;
    json_array_append_new(json_object_get(w->s->doc, "repeats"),
                          json_pack("{s:I, s:I, s:f, s:f}", "repeat",
                                    (json_int_t)at->repeat, "calls",
                                    (json_int_t)calls, "elapsed_s", ns / 1e9,
                                    "ns_per_call", b->last_ns));
    return 0;
}

/* doc.syscall: what each call is, the windows, ns per call over them. */
static void syscall_record(struct window *w)
{
    json_t *reps = json_object_get(w->s->doc, "repeats"), *rep;
    size_t n = json_array_size(reps), i;
    double v[1000];
    json_array_foreach(reps, i, rep)
        if (i < ARRAY_LEN(v))
            v[i] = json_number_value(json_object_get(rep, "ns_per_call"));
    json_t *sum = json_pack("{s:s, s:I}", "call", SYSCALL_WHAT, "repeats",
                            (json_int_t)n);
    if (n) {
        struct spread sp;
        stats_spread(v, n < ARRAY_LEN(v) ? n : ARRAY_LEN(v), &sp);
        json_object_set_new(sum, "ns_per_call",
                            json_pack("{s:f, s:f, s:f}", "median", sp.median,
                                      "min", sp.min, "max", sp.max));
    }
    json_object_set_new(w->s->doc, "syscall", sum);
}

static void syscall_progress(struct window *w, const struct window_at *at,
                             char *buf, size_t len)
{
    struct syscall_bench *b = w->kind;
    (void)at;
    snprintf(buf, len, "%.1f ns a call", b->last_ns);
}

static const struct window_ops syscall_ops = {
    .init = syscall_init,
    .window = syscall_window,
    .record = syscall_record,
    .progress_text = syscall_progress,
};

static void syscall_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    const struct window_opts *win = window_opts(sides[0].sc);
    struct window_plan plan = {
        .duration_s = win->duration_s,
        .warmup_s = win->warmup_s,
        .warmup = win->warmup_s > 0,
        .repeats = win->repeats,
        .steps = 1,
        .unit = "window",
    };
    struct syscall_bench b = {0};
    window_run(&syscall_ops, &plan, &b, sides, o, nsides);
}

static void syscall_summary(const struct scenario *sc, json_t *doc,
                            const struct run_outcome *o, const char *out)
{
    json_t *ns = json_object_get(json_object_get(doc, "syscall"),
                                 "ns_per_call");
    printf("%s: %s", sc->name, SYSCALL_WHAT);
    if (ns)
        printf(" takes %.1f ns (median of %zu windows, %.1f-%.1f).",
               json_number_value(json_object_get(ns, "median")),
               json_array_size(json_object_get(doc, "repeats")),
               json_number_value(json_object_get(ns, "min")),
               json_number_value(json_object_get(ns, "max")));
    else
        printf(": no window was measured.");
    printf(" Stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

const struct kind_ops kind_syscall = {
    .scenario = {.name = "syscall",
                 .keys = syscall_keys,
                 .nkeys = ARRAY_LEN(syscall_keys)},
    .flags = KIND_SERVERLESS,
    .run = syscall_run,
    .summary = syscall_summary,
};
