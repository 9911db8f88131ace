/* The stepper's grid: see stepper_grid.h. */
#include "kinds/stepper_grid.h"

#include <math.h>

struct stepper_grid stepper_grid_of(const struct scenario *sc)
{
    return (struct stepper_grid){.opts = stepper_opts(sc),
                                 .timed = sc->client.connect};
}

/* The plain grid's next N after n: n + step, or ceil(n × growth). */
static int64_t grid_next_n(const struct stepper_opts *so, int64_t n)
{
    if (so->growth > 1) {
        int64_t next = (int64_t)ceil((double)n * so->growth);
        return next > n ? next : n + 1;
    }
    return n + so->step;
}

static int64_t grid_next_of(const void *ctx, int64_t n)
{
    return grid_next_n(((const struct stepper_grid *)ctx)->opts, n);
}

bool stepper_near_cost(const struct stepper_opts *so, double n)
{
    return so->cost_n > 0 && n >= (double)so->cost_n / STEPPER_COST_SPAN &&
           n <= (double)so->cost_n * STEPPER_COST_SPAN;
}

double stepper_full_from(const struct stepper_grid *g)
{
    const struct stepper_opts *so = g->opts;
    if (so->prior_n <= 0 || so->far_rounds <= 0 ||
        so->far_rounds >= so->rounds || so->resolution <= 0 || !g->timed)
        return 0;
    /* The spread's step at the prior is the plain grid's: the prior is
     * never below the full rounds' first N. */
    struct crossing_rules rules = {.resolution = so->resolution,
                                   .next_n = grid_next_of, .next_ctx = g};
    double spread = crossing_prior_spread(so->prior_n, so->prior_half_width,
                                          &rules);
    return so->prior_n * (1 - spread) / CROSSING_FIT_SPAN;
}

/* Is n below the full rounds' first N `from` (0: nothing is) and away
 * from cost_n? */
static bool below_full(const struct stepper_opts *so, double from, int64_t n)
{
    return from > 0 && (double)n < from && !stepper_near_cost(so, (double)n);
}

int64_t stepper_next_n(const struct stepper_grid *g, int64_t n)
{
    const struct stepper_opts *so = g->opts;
    int64_t grid = grid_next_n(so, n);
    double from = stepper_full_from(g);
    /* From a step of far rounds (or the first, below them), by
     * far_growth: their rounds are no fit's, only the curve's. */
    if (so->far_growth <= 1 || !below_full(so, from, n))
        return grid;
    double next = ceil((double)n * so->far_growth);
    double cost_lo = (double)so->cost_n / STEPPER_COST_SPAN;
    if (so->cost_n > 0 && (double)n < cost_lo && next > cost_lo)
        next = ceil(cost_lo); /* the cost window's first N */
    if (next > from)
        next = ceil(from); /* the full rounds' first N */
    return next > (double)grid ? (int64_t)next : grid;
}

int64_t stepper_next_of(const void *ctx, int64_t n)
{
    return stepper_next_n(ctx, n);
}

int64_t stepper_step_rounds(const struct stepper_grid *g, double from,
                            int64_t n)
{
    const struct stepper_opts *so = g->opts;
    bool far = below_full(so, from, n) && n > so->start;
    return far ? so->far_rounds : so->rounds;
}

struct crossing_rules stepper_rules(const struct stepper_grid *g)
{
    const struct stepper_opts *so = g->opts;
    struct crossing_rules rules = {.max_ms = so->max_ms,
                                   .max_n = so->max_n,
                                   .resolution = so->resolution,
                                   .near_rounds = so->near_rounds,
                                   .max_probes = so->max_probes,
                                   .timed = g->timed,
                                   .next_n = stepper_next_of,
                                   .next_ctx = g,
                                   .prior_n = so->prior_n};
    if (so->prior_n > 0)
        rules.prior_spread = crossing_prior_spread(
            so->prior_n, so->prior_half_width, &rules);
    return rules;
}
