/* The sweep's options, for what reuses them (a sweep of another axis:
 * kind fanin) and for the fuzzer's checks of a loaded sweep scenario. The
 * sweep itself is kinds/sweep.c's row, kind_sweep, over the driver in
 * kinds/sweeper.h. */
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
    /* A paired run: how the sides take turns ("blocks": each side's whole
     * measurement, then the other's; "rounds": A, B, A, B), and how many
     * untimed rounds, beside warmup_rounds, open every block. */
    char pairing[16];
    int64_t switch_rounds;
    /* Pairing blocks: the other sides' servers stopped (SIGSTOP) during
     * a side's block, continued after it. */
    bool hold_others;
};

/* The choices of PREFIX.pairing. */
extern const char *const sweep_pairings[];

/* A sweep scenario's options (sc->kind "sweep"), or those of a kind
 * whose options struct holds struct sweep_opts first (fanin). */
const struct sweep_opts *sweep_opts(const struct scenario *sc);

/* The key rows of struct sweep_opts, named PREFIX.start, PREFIX.step...
 * (the kind's name), for a kind whose options struct holds it first;
 * NOUN is what N counts, in the help ("servers"). */
#define SWEEP_OFF(f) SCENARIO_KIND_OFF(struct sweep_opts, f)
#define SWEEP_KEY_ROWS(PREFIX, NOUN)                                         \
    {PREFIX ".start", SCENARIO_INT, SWEEP_OFF(start), 0, 1, 1000000, NULL,    \
     NULL, 1, NOUN " in the first step"},                                    \
    {PREFIX ".step", SCENARIO_INT, SWEEP_OFF(step), 0, 1, 1000000, NULL,      \
     NULL, 10, NOUN " added per step (linear sweep; unused when growth > 1)"}, \
    {PREFIX ".growth", SCENARIO_NUM, SWEEP_OFF(growth), 0, 1, 100, NULL,      \
     NULL, 1, "factor per step; > 1 makes the sweep geometric"},             \
    {PREFIX ".max_n", SCENARIO_INT, SWEEP_OFF(max_n), 0, 1, 1000000, NULL,    \
     NULL, 1000, "never run more " NOUN " than this"},                       \
    {PREFIX ".max_ms", SCENARIO_NUM, SWEEP_OFF(max_ms), 0, 1e-6, 1e7, NULL,   \
     NULL, 100, "stop when a step's median round time exceeds this (ms)"},   \
    {PREFIX ".rounds", SCENARIO_INT, SWEEP_OFF(rounds), 0, 1, 100000, NULL,   \
     NULL, 10, "timed rounds per step"},                                     \
    {PREFIX ".warmup_rounds", SCENARIO_INT, SWEEP_OFF(warmup_rounds), 0, 0,  \
     1000, NULL, NULL, 5, "untimed rounds before the timed ones (a step's " \
     "first rounds after new servers start run slow for about 5)"},           \
    {PREFIX ".max_seconds", SCENARIO_NUM, SWEEP_OFF(max_seconds), 0, 1,      \
     86400, NULL, NULL, 3600, "stop the sweep after this long (s)"},         \
    {PREFIX ".resolution", SCENARIO_NUM, SWEEP_OFF(resolution), 0, 0, 0.5,   \
     NULL, NULL, 0.02, "after a step over max_ms is confirmed, bisect until " \
     "the bracket is within this fraction of N (0: stop at the first step "  \
     "over)"},                                                               \
    {PREFIX ".near_rounds", SCENARIO_INT, SWEEP_OFF(near_rounds), 0, 1,      \
     100000, NULL, NULL, 20, "timed rounds of each measurement of the "      \
     "crossing search (confirmation, bracket check, bisection)"},            \
    {PREFIX ".max_probes", SCENARIO_INT, SWEEP_OFF(max_probes), 0, 1, 100,   \
     NULL, NULL, 12, "at most this many measurements in the crossing search"}, \
    {PREFIX ".pairing", SCENARIO_ENUM, SWEEP_OFF(pairing),                   \
     SCENARIO_KIND_SZ(struct sweep_opts, pairing), 0, 0, sweep_pairings,     \
     "blocks", 0, "a paired run's turns: blocks (each side measures a whole " \
     "step or probe, then the other) or rounds (A, B, A, B; kept for "       \
     "reference: it measures each side after the other's round)"},           \
    {PREFIX ".switch_rounds", SCENARIO_INT, SWEEP_OFF(switch_rounds), 0, 0,  \
     1000, NULL, NULL, 3, "a paired run with pairing blocks: untimed rounds " \
     "that open every block, beside warmup_rounds (after the other side's "  \
     "rounds or both sides' new servers)"},                                  \
    {PREFIX ".hold_others", SCENARIO_BOOL, SWEEP_OFF(hold_others), 0, 0, 0,  \
     NULL, NULL, 1, "a paired run with pairing blocks: stop the other "      \
     "side's servers (SIGSTOP) during a side's block and continue them "    \
     "after it, so that nothing of theirs runs while it is measured"}

/* The rule every such kind has: PREFIX.start is no higher than
 * PREFIX.max_n. 0, or scenario_fail's -EINVAL. */
int sweep_check_start(const struct scenario_ctx *c, const struct scenario *sc,
                      const char *prefix);

/* The next N of the sweep after `n` servers (the caller clamps to
 * max_n). */
int64_t sweep_next_n(const struct scenario *sc, int64_t n);

#endif
