/* When the calls of an open loop are meant to go: an offered rate of R
 * calls a second, as a constant schedule (every 1/R s) or as Poisson
 * arrivals (independent gaps, exponential with mean 1/R, from a seeded
 * generator: the same seed gives the same schedule). Times are absolute
 * CLOCK_MONOTONIC ns; a call's latency is measured from its time here.
 * Pure: no clock, no allocation. */
#ifndef ORBBENCH_ARRIVAL_H
#define ORBBENCH_ARRIVAL_H

#include <stdbool.h>
#include <stdint.h>

struct arrival {
    int64_t t0_ns;
    double per_s;
    bool poisson;
    uint64_t rng;   /* xorshift64* state, never 0 */
    uint64_t k;     /* arrivals given so far */
    double t_ns;    /* Poisson: the last arrival, from t0 */
};

/* A schedule from t0_ns at per_s (> 0) calls a second. */
void arrival_start(struct arrival *a, int64_t t0_ns, double per_s,
                   bool poisson, uint64_t seed);

/* The next call's intended time: constant, t0 + k / per_s (k = 0, 1,
 * ...: no drift, whatever k); Poisson, the last one plus an exponential
 * gap. */
int64_t arrival_next(struct arrival *a);

#endif
