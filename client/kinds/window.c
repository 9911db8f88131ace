/* The timed-window harness: see window.h. */
#include "kinds/window.h"

#include <stdio.h>
#include <string.h>

#include "core/result.h"
#include "core/util.h"

const struct window_opts *window_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct window_opts, sc);
}

double window_elapsed_s(const struct window *w)
{
    return (double)(now_ns() - w->t0_ns) / 1e9;
}

static void outcome(const struct window_ops *ops, struct window *w,
                    const char *reason, const char *detail)
{
    ops->record(w);
    result_set_outcome(w->s->doc, reason, detail, window_elapsed_s(w));
}

/* Where window (step, repeat) is, in words, for a stop's detail. */
static void place(const struct window_ops *ops, struct window *w,
                  struct window_at *at)
{
    char name[64] = "";
    if (ops->step_name)
        ops->step_name(w, at->step, name, sizeof name);
    if (at->repeat < 0 && name[0])
        snprintf(at->when, sizeof at->when, "in the warm-up of %s", name);
    else if (at->repeat < 0)
        snprintf(at->when, sizeof at->when, "during the warm-up");
    else if (w->plan.measured_when)
        snprintf(at->when, sizeof at->when, "%s", w->plan.measured_when);
    else
        snprintf(at->when, sizeof at->when, "in repeat %lld of %lld%s%s",
                 (long long)at->repeat + 1, (long long)w->plan.repeats,
                 name[0] ? " at " : "", name);
}

/* The most measured windows the run takes, for the progress line. */
static int64_t total_windows(const struct window *w)
{
    int64_t steps = w->plan.steps > 0 ? w->plan.steps : w->plan.max_steps;
    return (steps > 0 ? steps : 1) * w->plan.repeats;
}

/* After a measured window: the record, the checkpoint, the progress. */
static int after(const struct window_ops *ops, struct window *w,
                 const struct window_at *at)
{
    w->measured++;
    outcome(ops, w, "running", "the run had not finished when this was "
            "written");
    if (run_checkpoint(w->s, w->o))
        return -1;
    if (!w->plan.unit)
        return 0;
    char text[128] = "";
    if (ops->progress_text)
        ops->progress_text(w, at, text, sizeof text);
    int64_t now = now_ns();
    run_progress_count(w->s, "measure", w->plan.unit, w->measured,
                       total_windows(w), (double)(now - w->first_ns) / 1e9,
                       (double)(now - w->t0_ns) / 1e9,
                       text[0] ? text : NULL);
    return 0;
}

/* Take window (step, repeat); repeat -1 is the warm-up. 0, or -1 once
 * the run stopped. */
static int take(const struct window_ops *ops, struct window *w,
                int64_t step, int64_t repeat)
{
    struct window_at at = {
        .step = step,
        .repeat = repeat,
        .phase = repeat < 0 ? "warm-up" : "measure",
        .duration_ns = (int64_t)((repeat < 0 ? w->plan.warmup_s
                                             : w->plan.duration_s) * 1e9),
    };
    place(ops, w, &at);
    /* Between windows nothing waits on a server: an interrupt stops at
     * once (inside one, the kind's own waits see it). */
    if (*w->s->interrupted) {
        run_stop(w->o, STOP_INTERRUPTED, 130, "interrupted %s", at.when);
        return -1;
    }
    at.start_ns = now_ns();
    if (!w->first_ns)
        w->first_ns = at.start_ns;
    if (ops->window(w, &at))
        return -1;
    return repeat < 0 ? 0 : after(ops, w, &at);
}

/* Repeat r of every step, then r + 1. */
static int repeats_outside(const struct window_ops *ops, struct window *w)
{
    for (int64_t r = 0; r < w->plan.repeats; r++)
        for (int64_t step = 0; step < w->plan.steps; step++)
            if ((r == 0 && w->plan.warmup && take(ops, w, step, -1)) ||
                take(ops, w, step, r))
                return -1;
    for (int64_t step = 0; step < w->plan.steps && ops->step_end; step++)
        if (ops->step_end(w, step))
            return -1;
    return 0;
}

/* Each step's windows, then the next step's. Bounded: plan.steps, or
 * plan.max_steps when next_step decides. */
static int steps_outside(const struct window_ops *ops, struct window *w)
{
    int64_t bound = w->plan.steps > 0 ? w->plan.steps : w->plan.max_steps;
    for (int64_t step = 0; step < (bound > 0 ? bound : 1); step++) {
        if (w->plan.warmup && take(ops, w, step, -1))
            return -1;
        for (int64_t r = 0; r < w->plan.repeats; r++)
            if (take(ops, w, step, r))
                return -1;
        if (ops->step_end && ops->step_end(w, step))
            return -1;
        if (w->plan.steps <= 0 &&
            (!ops->next_step || !ops->next_step(w, step)))
            break;
    }
    return 0;
}

void window_run(const struct window_ops *ops, const struct window_plan *plan,
                void *kind, struct side *sides, struct run_outcome *o,
                size_t nsides)
{
    memset(o, 0, nsides * sizeof *o);
    struct window w = {.s = &sides[0], .o = &o[0], .plan = *plan,
                       .kind = kind, .t0_ns = now_ns()};
    if (ops->init(&w) == 0 &&
        (w.plan.order == WINDOW_REPEATS_OUTSIDE ? repeats_outside(ops, &w)
                                                : steps_outside(ops, &w)) ==
            0) {
        char detail[sizeof o->detail];
        if (ops->done_detail)
            ops->done_detail(&w, detail, sizeof detail);
        else
            snprintf(detail, sizeof detail, "%lld repeats of %g s",
                     (long long)w.plan.repeats, w.plan.duration_s);
        run_stop(w.o, STOP_DONE, 0, "%s", detail);
    }
    run_progress_end(w.s);
    outcome(ops, &w, w.o->stop_reason, w.o->detail);
    if (ops->cleanup)
        ops->cleanup(&w);
}

void window_progress(const struct window *w, const struct window_at *at,
                     const char *unit, int64_t done, int64_t total,
                     const char *extra)
{
    int64_t now = now_ns();
    run_progress_count(w->s, at->phase, unit, done, total,
                       (double)(now - at->start_ns) / 1e9,
                       (double)(now - w->t0_ns) / 1e9, extra);
}
