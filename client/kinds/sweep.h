/* The sweep's options, for what reuses them (a sweep of another axis) and
 * for the fuzzer's checks of a loaded sweep scenario. The sweep itself is
 * kinds/sweep.c's row, kind_sweep. */
#ifndef ORBBENCH_SWEEP_H
#define ORBBENCH_SWEEP_H

#include <stdint.h>

#include "core/scenario.h"
#include "kinds/kind.h"

/* The sweep's keys (sweep.*). */
struct sweep_opts {
    int64_t start;
    int64_t step;
    double growth; /* 1 = linear (add step), > 1 = geometric */
    int64_t max_n;
    double max_ms;
    int64_t rounds;
    int64_t warmup_rounds;
    double max_seconds;
    /* The crossing search: bisect until the bracket is within
     * resolution × N (0: stop at the first step over, unconfirmed). */
    double resolution;
    int64_t near_rounds; /* timed rounds of each confirmation/probe */
    int64_t max_probes;  /* bound on the search's measurements */
};

/* A sweep scenario's options (sc->kind "sweep"). */
const struct sweep_opts *sweep_opts(const struct scenario *sc);

/* The next N of the sweep after `n` servers (the caller clamps to
 * max_n). */
int64_t sweep_next_n(const struct scenario *sc, int64_t n);

#endif
