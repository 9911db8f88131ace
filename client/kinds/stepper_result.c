/* The stepper's result fields (result.*): the outcome and what the run
 * held, the crossing and its interval from what was measured, the warm
 * start, and the costs compare reads (result.costs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/result.h"
#include "core/util.h"
#include "kinds/stepper_impl.h"

/* result.warm_start: the prior the run started from, where it came from,
 * what it did (the seeds, the steps of fewer rounds); NULL on a cold
 * run. */
static json_t *warm_start_json(const struct stepper_side *r)
{
    const struct stepper_opts *so = r->grid.opts;
    if (so->prior_n <= 0)
        return NULL;
    const struct crossing_search *cs = &r->search;
    struct crossing_rules rules = stepper_rules(&r->grid);
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
        stepper_full_rounds_from(r->d), "far_rounds",
        (json_int_t)so->far_rounds, "far_steps", (json_int_t)r->far_steps,
        "cost_n", (json_int_t)so->cost_n, "seeds", (json_int_t)cs->seeds,
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

/* The measurement (step or probe) whose `block` (a mode's costs, e.g.
 * "caller") has a CPU per call, with its N nearest `want` (the larger of
 * two as near), or NULL. */
static json_t *nearest_block(json_t *doc, const char *block, int64_t want)
{
    static const char *const lists[] = {"steps", "probes"};
    json_t *best = NULL;
    int64_t best_n = 0;
    for (size_t l = 0; l < ARRAY_LEN(lists); l++) {
        size_t i;
        json_t *m;
        json_array_foreach(json_object_get(doc, lists[l]), i, m) {
            json_t *b = json_object_get(m, block);
            int64_t n = json_integer_value(json_object_get(m, "n"));
            if (!json_object_get(b, "cpu_per_call_us"))
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

/* The slope (kB per unit of N) of `field` of every step's `block` over
 * N, least squares: what each server costs the process that calls them.
 * NULL with fewer than two distinct N. */
static json_t *slope_json(json_t *steps, const char *block,
                          const char *field)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, lo = 0, hi = 0;
    size_t k = 0, i;
    json_t *st;
    json_array_foreach(steps, i, st) {
        json_t *v = json_object_get(json_object_get(st, block), field);
        if (!json_is_integer(v))
            continue;
        double x = (double)json_integer_value(json_object_get(st, "n"));
        double y = (double)json_integer_value(v);
        lo = k == 0 || x < lo ? x : lo;
        hi = k == 0 || x > hi ? x : hi;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        k++;
    }
    double den = (double)k * sxx - sx * sx;
    if (k < 2 || hi <= lo || den <= 0)
        return NULL;
    return json_real(((double)k * sxy - sx * sy) / den);
}

/* result.costs.caller: what the calls cost the process that made them
 * (a caller: docs/callers.md), from each measurement's `block`: its CPU
 * per call at the measurement nearest cost_n, its footprint at the
 * largest step, and its memory per server (the slope over N). NULL when
 * no measurement has the block. */
static json_t *block_costs(json_t *doc, const char *block, int64_t cost_n)
{
    json_t *steps = json_object_get(doc, "steps");
    json_t *m = nearest_block(doc, block, cost_n ? cost_n : INT64_MAX);
    if (!m)
        return NULL;
    json_t *b = json_object_get(m, block);
    json_t *c = json_pack("{s:O, s:O, s:I}", "n", json_object_get(m, "n"),
                          "cpu_per_call_us",
                          json_object_get(b, "cpu_per_call_us"), "cost_n",
                          (json_int_t)cost_n);
    static const char *const fields[] = {"rss_kb", "pss_kb", "uss_kb",
                                         "threads", "fds"};
    json_t *last = NULL;
    for (size_t i = json_array_size(steps); i-- > 0 && !last;)
        if (json_object_get(json_object_get(json_array_get(steps, i), block),
                            "rss_kb"))
            last = json_array_get(steps, i);
    if (last) {
        json_t *fp = json_pack("{s:O}", "n", json_object_get(last, "n"));
        for (size_t i = 0; i < ARRAY_LEN(fields); i++)
            json_object_set(fp, fields[i],
                            json_object_get(json_object_get(last, block),
                                            fields[i]));
        json_object_set_new(c, "footprint", fp);
    }
    json_t *per = json_object();
    for (size_t i = 0; i < 3; i++) {
        json_t *v = slope_json(steps, block, fields[i]);
        if (v)
            json_object_set_new(per, fields[i], v);
    }
    if (json_object_size(per)) {
        json_object_set_new(per, "method", json_string(
            "least-squares slope over every step's N"));
        json_object_set_new(c, "memory_per_server_kb", per);
    } else {
        json_decref(per);
    }
    return c;
}

/* result.costs: the axis's memory per unit of N; the servers' CPU per
 * call at the measurement nearest KIND.cost_n (it moves with N, and
 * compare reads it there: docs/compare.md), or the largest N measured
 * with cost_n 0; the first step's median call; each with the N it is
 * at. A new object, or NULL when there is none of them. */
static json_t *result_costs(const struct stepper_axis *axis,
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
    int64_t cost_n = stepper_opts(sc)->cost_n;
    int64_t want = cost_n ? cost_n : INT64_MAX;
    json_t *m = nearest_cpu(doc, want);
    if (m)
        json_object_set_new(
            costs, "server_cpu",
            json_pack("{s:O, s:O, s:I}", "n", json_object_get(m, "n"),
                      "us_per_call",
                      json_object_get(json_object_get(m, "cpu_per_call_us"),
                                      "server"),
                      "cost_n", (json_int_t)cost_n));
    json_t *caller = block_costs(doc, "caller", cost_n);
    if (caller)
        json_object_set_new(costs, "caller", caller);
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
void stepper_outcome(struct stepper_side *r, const char *reason,
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
    /* The measurement whose calls failed: the caller's costs so far and
     * its words for the failures (its fail lines). */
    if (r->mode_failure)
        json_object_set(res, "caller_failure", r->mode_failure);
}

/* How a found crossing was estimated, into `how`: the method, the slope,
 * the probes' spread or the local fit's figures. */
static void method_json(json_t *how, const struct crossing_estimate *e)
{
    json_object_set_new(how, "method", json_string(e->method));
    json_object_set_new(how, "level", json_real(0.95));
    json_object_set_new(
        how, "slope",
        json_pack("{s:f, s:f, s:b, s:I, s:[f, f]}", "value", e->slope,
                  "se", e->slope_se, "assumed", e->slope_assumed, "points",
                  (json_int_t)e->slope_points, "n_range", e->slope_min_n,
                  e->slope_max_n));
    json_object_set_new(how, "implied_by",
                        json_integer((json_int_t)e->probes));
    if (strcmp(e->method, CROSSING_PROBES) == 0) {
        json_object_set_new(how, "sd_ln", json_real(e->sd_ln));
        json_object_set_new(how, "df", json_integer(e->df));
    }
    const struct crossing_fit *f = &e->fit;
    if (strcmp(e->method, CROSSING_FIT) == 0) {
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
                      e->reference.method, "crossing_n", e->reference.n,
                      "interval", e->reference.low, e->reference.high));
    }
}

/* The crossing's interval against its target (2 × GROUP.resolution),
 * into `how`, and why it is wider when it is (`refines`: the refining
 * measurements taken). */
static void width_json(json_t *how, const struct crossing_estimate *e,
                       const struct stepper_side *r, int refines)
{
    const struct scenario *sc = r->h.s->sc;
    const char *group = sc->kind;
    if (e->why[0])
        json_object_set_new(how, "note", json_string(e->why));
    json_object_set_new(how, "outside_bracket", json_boolean(e->outside));
    double hw = crossing_half_width(e),
           want = crossing_target_half_width(stepper_opts(sc)->resolution);
    bool narrow = hw <= want;
    char why[200] = "", cut[64] = "the search was cut short";
    if (r->search.probes >= stepper_opts(sc)->max_probes)
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

/* The crossing from what was measured within the search's bracket:
 * result.crossing_n, its interval and how they were found (r->crossing).
 * `refines`: the refining measurements taken so far. */
void stepper_estimate(struct stepper_side *r, bool complete, int refines)
{
    const struct scenario *sc = r->h.s->sc;
    const struct bracket *b = &r->search.b;
    struct crossing_estimate e;
    size_t count;
    if (crossing_estimate_of(r->points, r->npoints, stepper_opts(sc)->max_ms,
                             b, &e) != 0)
        return;
    double lo_ms = b->lo > 0 ? crossing_pooled_ms(r->points, r->npoints,
                                                  b->lo, &count)
                             : 0;
    double hi_ms = crossing_pooled_ms(r->points, r->npoints, b->hi, &count);
    json_t *how = json_pack(
        "{s:[I, I], s:f, s:f, s:I, s:b, s:f}", "bracket", (json_int_t)b->lo,
        (json_int_t)b->hi, "bracket_lo_ms", lo_ms, "bracket_hi_ms", hi_ms,
        "probes", (json_int_t)r->search.probes, "complete", complete,
        "bracket_width_pct",
        b->lo > 0 ? 100.0 * (double)(b->hi - b->lo) / (double)b->lo : 100.0);
    if (e.found) {
        method_json(how, &e);
        width_json(how, &e, r, refines);
    }
    json_decref(r->crossing);
    r->crossing = json_pack("{s:o, s:o, s:o}", "crossing_n",
                            e.found ? json_real(e.n) : json_null(),
                            "crossing_interval",
                            e.found ? json_pack("[f, f]", e.low, e.high)
                                    : json_null(),
                            "crossing", how);
}
