/* The stepper's time estimate and progress line: each side's
 * measurements so far handed to the estimate (core/eta.h), the run's
 * longest reported with every side's live line (kinds/run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/eta.h"
#include "core/util.h"
#include "kinds/stepper_impl.h"

/* Side r's estimate of what is left (core/eta.h), from its measurements
 * so far, each timed from the end of the one before: in a paired run that
 * holds the other side's turns too. False before its first step. */
static bool side_eta(const struct stepper_side *r, struct eta *e)
{
    const struct scenario *sc = r->h.s->sc;
    const struct stepper_opts *so = stepper_opts(sc);
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
            .max_ms = so->max_ms, .max_n = so->max_n, .next_n = stepper_next_of,
            .next_ctx = &r->grid, .step_rounds =
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
static void report(struct stepper_side *r, double left_s)
{
    const struct stepper_opts *so = stepper_opts(r->h.s->sc);
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
void stepper_report_all(struct stepper_driver *d)
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
