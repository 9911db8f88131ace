/* When the calls of an open loop are meant to go: see arrival.h. */
#include "core/arrival.h"

#include <math.h>

void arrival_start(struct arrival *a, int64_t t0_ns, double per_s,
                   bool poisson, uint64_t seed)
{
    *a = (struct arrival){.t0_ns = t0_ns, .per_s = per_s, .poisson = poisson,
                          .rng = seed * 0x9e3779b97f4a7c15ull + 1};
    if (!a->rng)
        a->rng = 1;
}

/* Uniform in (0, 1]: never 0, so that its logarithm is finite. */
static double uniform(struct arrival *a)
{
    a->rng ^= a->rng >> 12;
    a->rng ^= a->rng << 25;
    a->rng ^= a->rng >> 27;
    uint64_t x = (a->rng * 0x2545f4914f6cdd1dull) >> 11;
    return ((double)x + 1.0) / 9007199254740992.0;
}

int64_t arrival_next(struct arrival *a)
{
    if (!a->poisson)
        return a->t0_ns + (int64_t)((double)a->k++ * 1e9 / a->per_s);
    if (a->k++)
        a->t_ns += -log(uniform(a)) * 1e9 / a->per_s;
    return a->t0_ns + (int64_t)a->t_ns;
}
