/* The stepper's loop over the sides: see stepper.h.
 *
 * Each side has its search (struct crossing_search, core/crossing.h: a
 * pure function of what the side measured); at every tick each side
 * still running sets its N (through its axis) to the search's next
 * target, then all of them are measured together, in turn
 * (stepper_measure.c), and each side hands what it measured to its
 * search (stepper_search.c), which names the next N or the end. */
#include "kinds/stepper.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "host/source.h"
#include "kinds/stepper_impl.h"

/* A warm start's N from which every step takes its full rounds
 * (stepper_full_from). In a paired run, the lowest of the sides' (they
 * share every sweep key, so one prior: run-suite gives the pair's lower
 * crossing): both sides' steps are measured alike. 0: no warm start on
 * some side, every step full. */
double stepper_full_rounds_from(const struct stepper_driver *d)
{
    double from = 0;
    for (size_t i = 0; i < d->nsides; i++) {
        double at = stepper_full_from(&d->sides[i].grid);
        if (at <= 0)
            return 0;
        if (i == 0 || at < from)
            from = at;
    }
    return from;
}

/* Side r ready to sweep. Its memory baseline is `base` when given (the
 * first side's: one machine, one baseline), else taken now. */
static void init_side(struct stepper_driver *d, struct stepper_side *r,
                      struct side *s, struct run_outcome *o,
                      const struct footprint *base)
{
    const struct scenario *sc = s->sc;
    char why[700] = "";
    struct callmode_config mcfg = {
        .timeout_ms = sc->call.timeout_ms,
        .pool_size = sc->client.pool_size,
        .thread_stack_kb = sc->client.thread_stack_kb,
        .interrupted = s->interrupted,
        .ext = s->mode_ext,
        .why = why,
        .why_len = sizeof why,
    };
    memset(o, 0, sizeof *o);
    *r = (struct stepper_side){.h = {.s = s, .o = o,
                                     .next_index = &d->next_index},
                               .grid = stepper_grid_of(sc),
                               .d = d, .t0_ns = d->t0_ns};
    crossing_search_start(&r->search, stepper_opts(sc)->start);
    r->h.conns = calloc((size_t)stepper_opts(sc)->max_n, sizeof *r->h.conns);
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
    if (mrc && why[0]) {
        /* The mode said why: a caller that did not come up. */
        if (mrc == -EINTR && *s->interrupted)
            run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted starting "
                     "the %s", s->mode->name);
        else
            run_stop(r->h.o, STOP_CALL_FAILED, 1, "%s", why);
        r->search.phase = CROSSING_DONE;
    } else if (mrc) {
        run_stop(r->h.o, STOP_RESOURCE, 0, "cannot start call mode %s: %s",
             s->mode->name, strerror(-mrc));
        r->search.phase = CROSSING_DONE;
    } else if (d->axis->begin && !d->axis->begin(&r->h)) {
        r->search.phase = CROSSING_DONE;
    }
}

static void free_side(struct stepper_side *r)
{
    run_progress_end(r->h.s);
    stepper_outcome(r, r->h.o->stop_reason, r->h.o->detail);
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
    json_decref(r->mode_costs);
    json_decref(r->mode_failure);
}

/* A side failed (exit 1) or was interrupted: a paired run is one
 * experiment, so the other sides stop too. */
static void stop_partners(struct stepper_driver *d)
{
    const struct stepper_side *bad = NULL;
    for (size_t i = 0; i < d->nsides && !bad; i++)
        if (d->sides[i].h.o->exit_code != 0)
            bad = &d->sides[i];
    if (!bad)
        return;
    for (size_t i = 0; i < d->nsides; i++) {
        struct stepper_side *r = &d->sides[i];
        if (r->search.phase == CROSSING_DONE || r == bad)
            continue;
        if (bad->h.o->exit_code == 130)
            run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted at N=%zu",
                     r->h.n);
        else
            run_stop(r->h.o, STOP_PARTNER, 1, "side %s stopped at N=%zu: %s",
                     bad->h.s->label ? bad->h.s->label : "?", bad->h.n,
                     bad->h.o->detail);
        stepper_stopped(r);
    }
}

/* Side r sets its N to its search's target for the measurement to come,
 * unless it stopped, was interrupted or its time ran out. True when it
 * is to be measured; a step of idle servers (no rounds) is decided
 * here. */
static bool set_up(struct stepper_driver *d, struct stepper_side *r)
{
    const struct scenario *sc = r->h.s->sc;
    const struct stepper_opts *so = r->grid.opts;
    double elapsed = (double)(now_ns() - d->t0_ns) / 1e9;
    bool stepping = r->search.phase == CROSSING_SWEEPING;
    if (r->h.o->stop_reason) {
        /* stopped by its checkpoint: write_failed */
    } else if (*r->h.s->interrupted) {
        run_stop(r->h.o, STOP_INTERRUPTED, 130, "interrupted at N=%zu",
                 r->h.n);
    } else if (elapsed > so->max_seconds) {
        run_stop(r->h.o, STOP_TIME, 0,
                 "%s.max_seconds (%g s) ran out at N=%zu%s", sc->kind,
                 so->max_seconds, r->h.n,
                 stepping ? "" : " during the crossing search");
    } else if (d->axis->set_n(&r->h, (size_t)r->search.target)) {
        stepper_record_library(r);
        r->timed = stepping ? stepper_step_rounds(&r->grid,
                                                  stepper_full_rounds_from(d),
                                                  r->search.target)
                            : so->near_rounds;
        if (stepping && r->timed < so->rounds)
            r->far_steps++;
        if (sc->client.connect || !stepping)
            return true;
        /* Idle servers: a step without rounds. */
        stepper_measure_begin(r);
        stepper_decide(r);
        return false;
    }
    stepper_record_library(r);
    stepper_stopped(r);
    return false;
}

void stepper_drive(const struct stepper_axis *axis, struct side *sides,
                   struct run_outcome *o, size_t nsides)
{
    struct stepper_driver d = {.nsides = nsides, .t0_ns = now_ns(),
                               .axis = axis};
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
        struct stepper_side *who[RUN_MAX_SIDES];
        size_t k = 0;
        for (size_t i = 0; i < nsides; i++)
            if (d.sides[i].search.phase != CROSSING_DONE)
                who[k++] = &d.sides[i];
        if (k == 0)
            break;
        /* Each side sets its N for this measurement. */
        size_t ready = 0;
        for (size_t i = 0; i < k; i++)
            if (set_up(&d, who[i]))
                who[ready++] = who[i];
        stop_partners(&d);
        if (ready == 0) {
            stepper_report_all(&d); /* idle steps (no rounds) were decided */
            continue;
        }
        /* Finished sides that stopped normally call along (see
         * companion_round, stepper_measure.c). */
        struct stepper_side *pals[RUN_MAX_SIDES];
        size_t npals = 0;
        for (size_t i = 0; i < nsides; i++)
            if (d.sides[i].search.phase == CROSSING_DONE &&
                d.sides[i].companion)
                pals[npals++] = &d.sides[i];
        stepper_measure(who, ready, pals, npals);
        for (size_t i = 0; i < ready; i++) {
            if (who[i]->h.o->stop_reason)
                stepper_stopped(who[i]);
            else
                stepper_decide(who[i]);
        }
        stop_partners(&d);
        stepper_report_all(&d);
    }
    for (size_t i = 0; i < nsides; i++)
        free_side(&d.sides[i]);
}
