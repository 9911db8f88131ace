/* The stepper's settings (kinds/stepper.h): struct stepper_opts, which a
 * kind's options struct holds first, and its key rows, which the kind
 * names by its own group (GROUP, the kind's name: sweep.max_ms,
 * fanin.max_ms). Every message of the stepper names the keys so. */
#ifndef ORBBENCH_STEPPER_KEYS_H
#define ORBBENCH_STEPPER_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/scenario.h"

/* The stepper's settings (GROUP.*, GROUP the kind's name). */
struct stepper_opts {
    int64_t start;
    int64_t step;
    double growth; /* 1 = linear (add step), > 1 = geometric */
    int64_t max_n;
    double max_ms;
    int64_t rounds;
    int64_t warmup_rounds;
    double max_seconds;
    /* The crossing search: measure until the crossing's interval is
     * within ±2 × resolution (the local fit's; without one, bisect until
     * the bracket is within resolution × N first). 0: stop at the first
     * step over, unconfirmed. */
    double resolution;
    int64_t near_rounds; /* timed rounds of each confirmation/probe */
    int64_t max_probes;  /* bound on the search's measurements */
    /* Each step measured this many times at its N (a paired run: in as
     * many ticks, each side a block of `rounds` in turn, the order
     * flipping) before the sweep decides on every round pooled: many
     * paired blocks at one N, the fast gate's reading (docs/ci.md). */
    int64_t step_blocks;
    /* A paired run: how the sides take turns ("blocks": each side's whole
     * measurement, then the other's; "rounds": A, B, A, B), and how many
     * untimed rounds, beside warmup_rounds, open every block. */
    char pairing[16];
    int64_t switch_rounds;
    /* Pairing blocks: the other sides' servers stopped (SIGSTOP) during
     * a side's block, continued after it. */
    bool hold_others;
    /* The N at which compare and the closing table read each cost (round
     * time, CPU per call, memory): one N for every run and method. */
    int64_t cost_n;
    /* A warm start: a crossing known before this run (another run's of
     * the same scenario: run-suite's previous repeat, or --prior), 0:
     * none. The search's first measurements go to it and to its
     * interval's end (prior_half_width of it, within [2 × resolution,
     * one step]); the steps below it by more than the fit's window take
     * far_rounds timed rounds, but those compare reads a cost at (within
     * STEPPER_COST_SPAN of cost_n) and the first. prior_from says where
     * it came from, for the result's warm_start. */
    double prior_n;
    double prior_half_width;
    int64_t far_rounds;
    /* A warm start: the growth of the steps of far_rounds (none within
     * STEPPER_COST_SPAN of cost_n, none past the full rounds' first N,
     * which each such step stops at); 1: growth's. */
    double far_growth;
    char prior_from[512];
};

/* The choices of GROUP.pairing. */
extern const char *const stepper_pairings[];

/* The stepper's settings of a scenario whose kind's options struct holds
 * struct stepper_opts first (kind sweep, kind fanin). */
const struct stepper_opts *stepper_opts(const struct scenario *sc);

/* The key rows of struct stepper_opts, named PREFIX.start,
 * PREFIX.step..., for a kind whose options struct holds it first. PREFIX
 * is the kind's name (the stepper names the keys by sc->kind in its
 * messages); NOUN is what N counts, in the help ("servers"). */
#define STEPPER_OFF(f) SCENARIO_KIND_OFF(struct stepper_opts, f)
#define STEPPER_KEY_ROWS(PREFIX, NOUN)                                        \
    {.key = PREFIX ".start", .type = SCENARIO_INT,                            \
     .off = STEPPER_OFF(start), .min = 1, .max = 1000000, .def_num = 1,       \
     .help = NOUN " in the first step"},                                      \
    {.key = PREFIX ".step", .type = SCENARIO_INT, .off = STEPPER_OFF(step),   \
     .min = 1, .max = 1000000, .def_num = 10,                                 \
     .help = NOUN " added per step (linear sweep; unused when growth > 1)"},  \
    {.key = PREFIX ".growth", .type = SCENARIO_NUM,                           \
     .off = STEPPER_OFF(growth), .min = 1, .max = 100, .def_num = 1,          \
     .help = "factor per step; > 1 makes the sweep geometric"},               \
    {.key = PREFIX ".max_n", .type = SCENARIO_INT,                            \
     .off = STEPPER_OFF(max_n), .min = 1, .max = 1000000, .def_num = 1000,    \
     .help = "never run more " NOUN " than this"},                            \
    {.key = PREFIX ".max_ms", .type = SCENARIO_NUM,                           \
     .off = STEPPER_OFF(max_ms), .min = 1e-6, .max = 1e7, .def_num = 100,     \
     .help = "stop when a step's median round time exceeds this (ms)"},       \
    {.key = PREFIX ".rounds", .type = SCENARIO_INT,                           \
     .off = STEPPER_OFF(rounds), .min = 1, .max = 100000, .def_num = 10,      \
     .help = "timed rounds per step"},                                        \
    {.key = PREFIX ".warmup_rounds", .type = SCENARIO_INT,                    \
     .off = STEPPER_OFF(warmup_rounds), .max = 1000, .def_num = 5,            \
     .help = "untimed rounds before the timed ones (a step's first rounds "   \
     "after new servers start run slow for about 5)"},                        \
    {.key = PREFIX ".max_seconds", .type = SCENARIO_NUM,                      \
     .off = STEPPER_OFF(max_seconds), .min = 1, .max = 86400,                 \
     .def_num = 3600,                                                         \
     .help = "stop the sweep after this long (s)"},                           \
    {.key = PREFIX ".resolution", .type = SCENARIO_NUM,                       \
     .off = STEPPER_OFF(resolution), .max = 0.5, .def_num = 0.02,             \
     .help = "after a step over max_ms is confirmed, measure near the "       \
     "crossing until its interval is within twice this fraction of N (0: "    \
     "stop at the first step over)"},                                         \
    {.key = PREFIX ".near_rounds", .type = SCENARIO_INT,                      \
     .off = STEPPER_OFF(near_rounds), .min = 1, .max = 100000, .def_num = 20, \
     .help = "timed rounds of each measurement of the crossing search "       \
     "(confirmation, bracket check, bisection)"},                             \
    {.key = PREFIX ".max_probes", .type = SCENARIO_INT,                       \
     .off = STEPPER_OFF(max_probes), .min = 1, .max = 100, .def_num = 12,     \
     .help = "at most this many measurements in the crossing search"},        \
    {.key = PREFIX ".step_blocks", .type = SCENARIO_INT,                      \
     .off = STEPPER_OFF(step_blocks), .min = 1, .max = 1000, .def_num = 1,    \
     .help = "measure each step this many times at its N, each a block of "   \
     "rounds (a paired run: the sides in turn, the order flipping), and "     \
     "decide on them pooled; compare pairs a paired run's blocks one by one " \
     "(the fast gate: " PREFIX ".start = " PREFIX ".max_n)"},                 \
    {.key = PREFIX ".pairing", .type = SCENARIO_ENUM,                         \
     .off = STEPPER_OFF(pairing),                                             \
     .size = SCENARIO_KIND_SZ(struct stepper_opts, pairing),                  \
     .choices = stepper_pairings, .def_str = "blocks",                        \
     .help = "a paired run's turns: blocks (each side measures a whole step " \
     "or probe, then the other) or rounds (A, B, A, B; kept for reference: "  \
     "it measures each side after the other's round)"},                       \
    {.key = PREFIX ".switch_rounds", .type = SCENARIO_INT,                    \
     .off = STEPPER_OFF(switch_rounds), .max = 1000, .def_num = 3,            \
     .help = "a paired run with pairing blocks: untimed rounds that open "    \
     "every block, beside warmup_rounds (after the other side's rounds or "   \
     "both sides' new servers)"},                                             \
    {.key = PREFIX ".hold_others", .type = SCENARIO_BOOL,                     \
     .off = STEPPER_OFF(hold_others), .def_num = 1,                           \
     .help = "a paired run with pairing blocks: stop the other side's "       \
     "servers (SIGSTOP) during a side's block and continue them after it, "   \
     "so that nothing of theirs runs while it is measured"},                  \
    {.key = PREFIX ".cost_n", .type = SCENARIO_INT,                           \
     .off = STEPPER_OFF(cost_n), .max = 1000000, .def_num = 500,              \
     .help = "compare reads each cost (round time, CPU per call, memory per " \
     "server) at this N, the same for every run and method, from the "        \
     "measurements within x1.5 of it (0: at the largest N every run "         \
     "measured, which moves with the runs' reach)"},                          \
    {.key = PREFIX ".prior_n", .type = SCENARIO_NUM,                          \
     .off = STEPPER_OFF(prior_n), .max = 1e6,                                 \
     .help = "a warm start: the crossing N a run of this scenario found "     \
     "before (0: none); the search measures at it and at its interval's end " \
     "first, and the steps well below it take " PREFIX ".far_rounds"},        \
    {.key = PREFIX ".prior_half_width", .type = SCENARIO_NUM,                 \
     .off = STEPPER_OFF(prior_half_width), .max = 1,                          \
     .help = "a warm start: the prior's interval half-width, a fraction of "  \
     PREFIX ".prior_n, where the second measurement goes (kept within 2 x "   \
     PREFIX ".resolution and one step; 0: 2 x resolution)"},                  \
    {.key = PREFIX ".far_rounds", .type = SCENARIO_INT,                       \
     .off = STEPPER_OFF(far_rounds), .max = 100000, .def_num = 3,             \
     .help = "a warm start: timed rounds of the steps below " PREFIX          \
     ".prior_n by more than the local fit's window (x1.5), but the first "    \
     "step and those within x1.5 of " PREFIX ".cost_n (0: " PREFIX            \
     ".rounds)"},                                                             \
    {.key = PREFIX ".far_growth", .type = SCENARIO_NUM,                       \
     .off = STEPPER_OFF(far_growth), .min = 1, .max = 100, .def_num = 1.5,    \
     .help = "a warm start: the factor between the steps of " PREFIX          \
     ".far_rounds, which no fit reads (each stops at the first N within "     \
     "x1.5 of " PREFIX ".cost_n, and at the first of full rounds); 1: "       \
     PREFIX ".growth's"},                                                     \
    {.key = PREFIX ".prior_from", .type = SCENARIO_STRING,                    \
     .off = STEPPER_OFF(prior_from),                                          \
     .size = SCENARIO_KIND_SZ(struct stepper_opts, prior_from),               \
     .def_str = "",                                                           \
     .help = "a warm start: where " PREFIX ".prior_n came from (a result "    \
     "file), for the result's warm_start"}

/* The rule every such kind has: GROUP.start is no higher than
 * GROUP.max_n. 0, or scenario_fail's -EINVAL naming the kind's key. */
int stepper_check_start(const struct scenario_ctx *c,
                        const struct scenario *sc);

#endif
