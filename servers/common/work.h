/* A call's work in every echo server that takes --work-us (omniORB's and
 * TAO's through echo_servant.hh, ORBit2's in C): a fixed count of steps of
 * one busy loop, calibrated once at start-up on the thread's CPU clock.
 * C and C++ alike; static inline, no state. */
#ifndef ORBBENCH_WORK_H
#define ORBBENCH_WORK_H

#include <time.h>

/* The thread's own CPU time in ns. */
static inline long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The busy loop's steps: a chain of dependent multiply-adds on a volatile,
 * so the compiler must keep every one. */
static inline void spin_steps(unsigned long long steps)
{
    volatile unsigned acc = 0;
    for (unsigned long long i = 0; i < steps; i++)
        acc = acc * 1664525u + 1013904223u;
}

/* The loop's steps per ns of this thread's CPU: the fastest of 5 passes of
 * 2^16 steps (about 0.2 ms each here), timed on the thread's CPU clock, so
 * that time spent preempted does not count. The fastest, not the median
 * (until 2026-12-05, 09:10 UTC): a server calibrates while its siblings start
 * beside it, and a pass slowed by a neighbour on the same core, or by a
 * cold cache, made the count too small: a call asked for 400 us spun 348
 * in a CI run. At the fastest pass a call spins at least about what it
 * asks whenever the loop runs no faster than it did at start-up. */
static inline double calibrate_steps_per_ns(void)
{
    const unsigned long long pass_steps = 1ull << 16;
    double best = 0;
    spin_steps(pass_steps); /* warm the loop and the clock */
    for (int p = 0; p < 5; p++) {
        long long t0 = thread_cpu_ns();
        spin_steps(pass_steps);
        long long dt = thread_cpu_ns() - t0;
        double rate = (double)pass_steps / (double)(dt > 0 ? dt : 1);
        if (rate > best)
            best = rate;
    }
    return best;
}

/* The steps that burn work_ns of CPU at the speed calibrated now (0 for
 * none; call once, at start-up). Why a count and not the thread's CPU
 * clock read in the call (as before 2026-12-05): that clock is a system
 * call here (about 0.5 us in this KVM guest), read once per pass of the
 * loop, so a call could not cost less than about 1.6 us of work, nor
 * anything between passes: +5% of a 45 us call could not be set
 * (docs/measured/2026-12-04-capacity-gate.md). A count has no floor and
 * no clock in the call; it is a fixed amount of code, like the server's
 * own, so it slows down and speeds up with the host as the rest of the
 * call does. */
static inline unsigned long long work_steps(long long work_ns)
{
    if (work_ns <= 0)
        return 0;
    double steps = (double)work_ns * calibrate_steps_per_ns() + 0.5;
    return steps < 1 ? 1 : (unsigned long long)steps;
}

#endif
