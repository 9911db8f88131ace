/* The stepper's search decisions: what a side measured handed to its
 * search (core/crossing.h: a pure function of the measurements) and what
 * the search decides acted on: the next N, or the stop and its detail. */
#include <stdio.h>
#include <string.h>

#include "kinds/stepper_impl.h"

/* Side r reached its stop (latency, max_n): done, and while another side
 * still measures, it calls along. */
static void done(struct stepper_side *r)
{
    r->search.phase = CROSSING_DONE;
    r->companion = r->h.s->sc->client.connect && r->h.n > 0;
}

/* The search has ended: the bracket is narrow enough, or the probes ran
 * out. The crossing from what was measured, and the stop. */
static void finish_search(struct stepper_side *r)
{
    const struct scenario *sc = r->h.s->sc;
    const struct bracket *b = &r->search.b;
    int probes = r->search.probes;
    stepper_estimate(r, true, r->search.refines);
    done(r);
    if (b->lo == 0) {
        run_stop(r->h.o, STOP_LATENCY, 0,
             "the median round time exceeded max_ms %g even at N=%lld "
             "(%d measurements of the crossing search); no N was within it",
             stepper_opts(sc)->max_ms, (long long)b->hi, probes);
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
    if (probes >= stepper_opts(sc)->max_probes &&
        (wide || (!fitted && crossing_next_n(b, stepper_opts(sc)->resolution))))
        snprintf(cut, sizeof cut, " (%s.max_probes reached)", sc->kind);
    run_stop(r->h.o, STOP_LATENCY, 0,
         "the median round time crossed max_ms %g between N=%lld (under) and "
         "N=%lld (over), %.1f%% apart, after %d measurements of the crossing "
         "search%s%s; the largest N within it was %lld",
         stepper_opts(sc)->max_ms, (long long)b->lo, (long long)b->hi,
         b->lo > 0 ? 100.0 * (double)(b->hi - b->lo) / (double)b->lo : 100.0,
         probes, cut, est, (long long)b->lo);
}

/* Record what side r just measured, hand it to the search (core/
 * crossing.h) and act on what that decides: its next N, or its stop. */
void stepper_decide(struct stepper_side *r)
{
    const struct scenario *sc = r->h.s->sc;
    struct crossing_search *cs = &r->search;
    if (cs->phase == CROSSING_DONE)
        return;
    if (cs->phase == CROSSING_SWEEPING) {
        stepper_record_step(r);
        if (r->h.o->stop_reason) {
            cs->phase = CROSSING_DONE;
            return;
        }
        if (++r->block < stepper_opts(sc)->step_blocks) {
            stepper_checkpoint(r); /* the step's next block, at the same N */
            return;
        }
        r->block = 0;
    } else {
        stepper_record_probe(r, crossing_phase_name(cs->phase));
    }
    struct crossing_rules rules = stepper_rules(&r->grid);
    enum crossing_end end =
        crossing_search_next(cs, &rules, r->points, r->npoints);
    r->h.o->held = cs->held;
    switch (end) {
    case CROSSING_GOING:
        if (cs->phase == CROSSING_SWEEPING) {
            stepper_checkpoint(r); /* a step or a confirmation came out under */
        } else if (cs->phase == CROSSING_REFINING) {
            /* The estimate that sent it back to the bracket's ends, for
             * the result written meanwhile (before this refine). */
            stepper_estimate(r, false, cs->refines - 1);
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
void stepper_stopped(struct stepper_side *r)
{
    r->companion = false;
    if (crossing_search_stop(&r->search)) {
        r->h.o->held = r->search.held;
        stepper_estimate(r, false, r->search.refines);
    }
}
