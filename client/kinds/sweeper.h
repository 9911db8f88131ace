/* The sweep's driver, over any axis: N grows step by step, rounds of
 * calls over conns[0..N-1] are timed at each step; when a step's median
 * round time exceeds max_ms it is confirmed and the crossing narrowed down
 * (the search in core/crossing.h, a function of what was measured); it
 * stops at max_n, max_seconds, a resource limit, a failure or an
 * interrupt. Paired runs (kinds/run.h) have one search per side, measured
 * in turns (GROUP.pairing: blocks, or rounds).
 *
 * What N counts is the axis's: servers, each with its connection (kind
 * sweep, kinds/sweep.c), or connections spread over k servers started
 * once (kind fanin, kinds/fanin.c). The axis opens and closes the conns,
 * and probes the servers' footprint; the driver does everything else and
 * writes the same result shape for both (steps, probes, result). The
 * driver's settings are its own, struct sweeper_opts and its key rows
 * below, which a kind's options struct holds first and whose keys it
 * names by its own group (GROUP, the kind's name: sweep.max_ms,
 * fanin.max_ms); every message of the driver names them so. */
#ifndef ORBBENCH_SWEEPER_H
#define ORBBENCH_SWEEPER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scenario.h"
#include "core/stats.h"
#include "host/footprint.h"
#include "kinds/run.h"
#include "modes/callmode.h"
#include "net/conn.h"

/* The driver's settings (GROUP.*, GROUP the kind's name). */
struct sweeper_opts {
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
     * SWEEPER_COST_SPAN of cost_n) and the first. prior_from says where
     * it came from, for the result's warm_start. */
    double prior_n;
    double prior_half_width;
    int64_t far_rounds;
    /* A warm start: the growth of the steps of far_rounds (none within
     * SWEEPER_COST_SPAN of cost_n, none past the full rounds' first N,
     * which each such step stops at); 1: growth's. */
    double far_growth;
    char prior_from[512];
};

/* Where compare reads a cost: the measurements within this factor of
 * cost_n (COST_WINDOW, scripts/orbbench/comparison/model.py); a warm
 * start keeps their rounds whole. */
#define SWEEPER_COST_SPAN 1.5

/* The choices of GROUP.pairing. */
extern const char *const sweeper_pairings[];

/* The driver's settings of a scenario whose kind's options struct holds
 * struct sweeper_opts first (kind sweep, kind fanin). */
const struct sweeper_opts *sweeper_opts(const struct scenario *sc);

/* The key rows of struct sweeper_opts, named PREFIX.start,
 * PREFIX.step..., for a kind whose options struct holds it first. PREFIX
 * is the kind's name (the driver names the keys by sc->kind in its
 * messages); NOUN is what N counts, in the help ("servers"). */
#define SWEEPER_OFF(f) SCENARIO_KIND_OFF(struct sweeper_opts, f)
#define SWEEPER_KEY_ROWS(PREFIX, NOUN)                                        \
    {.key = PREFIX ".start", .type = SCENARIO_INT,                            \
     .off = SWEEPER_OFF(start), .min = 1, .max = 1000000, .def_num = 1,       \
     .help = NOUN " in the first step"},                                      \
    {.key = PREFIX ".step", .type = SCENARIO_INT, .off = SWEEPER_OFF(step),   \
     .min = 1, .max = 1000000, .def_num = 10,                                 \
     .help = NOUN " added per step (linear sweep; unused when growth > 1)"},  \
    {.key = PREFIX ".growth", .type = SCENARIO_NUM,                           \
     .off = SWEEPER_OFF(growth), .min = 1, .max = 100, .def_num = 1,          \
     .help = "factor per step; > 1 makes the sweep geometric"},               \
    {.key = PREFIX ".max_n", .type = SCENARIO_INT,                            \
     .off = SWEEPER_OFF(max_n), .min = 1, .max = 1000000, .def_num = 1000,    \
     .help = "never run more " NOUN " than this"},                            \
    {.key = PREFIX ".max_ms", .type = SCENARIO_NUM,                           \
     .off = SWEEPER_OFF(max_ms), .min = 1e-6, .max = 1e7, .def_num = 100,     \
     .help = "stop when a step's median round time exceeds this (ms)"},       \
    {.key = PREFIX ".rounds", .type = SCENARIO_INT,                           \
     .off = SWEEPER_OFF(rounds), .min = 1, .max = 100000, .def_num = 10,      \
     .help = "timed rounds per step"},                                        \
    {.key = PREFIX ".warmup_rounds", .type = SCENARIO_INT,                    \
     .off = SWEEPER_OFF(warmup_rounds), .max = 1000, .def_num = 5,            \
     .help = "untimed rounds before the timed ones (a step's first rounds "   \
     "after new servers start run slow for about 5)"},                        \
    {.key = PREFIX ".max_seconds", .type = SCENARIO_NUM,                      \
     .off = SWEEPER_OFF(max_seconds), .min = 1, .max = 86400,                 \
     .def_num = 3600,                                                         \
     .help = "stop the sweep after this long (s)"},                           \
    {.key = PREFIX ".resolution", .type = SCENARIO_NUM,                       \
     .off = SWEEPER_OFF(resolution), .max = 0.5, .def_num = 0.02,             \
     .help = "after a step over max_ms is confirmed, measure near the "       \
     "crossing until its interval is within twice this fraction of N (0: "    \
     "stop at the first step over)"},                                         \
    {.key = PREFIX ".near_rounds", .type = SCENARIO_INT,                      \
     .off = SWEEPER_OFF(near_rounds), .min = 1, .max = 100000, .def_num = 20, \
     .help = "timed rounds of each measurement of the crossing search "       \
     "(confirmation, bracket check, bisection)"},                             \
    {.key = PREFIX ".max_probes", .type = SCENARIO_INT,                       \
     .off = SWEEPER_OFF(max_probes), .min = 1, .max = 100, .def_num = 12,     \
     .help = "at most this many measurements in the crossing search"},        \
    {.key = PREFIX ".step_blocks", .type = SCENARIO_INT,                      \
     .off = SWEEPER_OFF(step_blocks), .min = 1, .max = 1000, .def_num = 1,    \
     .help = "measure each step this many times at its N, each a block of "   \
     "rounds (a paired run: the sides in turn, the order flipping), and "     \
     "decide on them pooled; compare pairs a paired run's blocks one by one " \
     "(the fast gate: " PREFIX ".start = " PREFIX ".max_n)"},                 \
    {.key = PREFIX ".pairing", .type = SCENARIO_ENUM,                         \
     .off = SWEEPER_OFF(pairing),                                             \
     .size = SCENARIO_KIND_SZ(struct sweeper_opts, pairing),                  \
     .choices = sweeper_pairings, .def_str = "blocks",                        \
     .help = "a paired run's turns: blocks (each side measures a whole step " \
     "or probe, then the other) or rounds (A, B, A, B; kept for reference: "  \
     "it measures each side after the other's round)"},                       \
    {.key = PREFIX ".switch_rounds", .type = SCENARIO_INT,                    \
     .off = SWEEPER_OFF(switch_rounds), .max = 1000, .def_num = 3,            \
     .help = "a paired run with pairing blocks: untimed rounds that open "    \
     "every block, beside warmup_rounds (after the other side's rounds or "   \
     "both sides' new servers)"},                                             \
    {.key = PREFIX ".hold_others", .type = SCENARIO_BOOL,                     \
     .off = SWEEPER_OFF(hold_others), .def_num = 1,                           \
     .help = "a paired run with pairing blocks: stop the other side's "       \
     "servers (SIGSTOP) during a side's block and continue them after it, "   \
     "so that nothing of theirs runs while it is measured"},                  \
    {.key = PREFIX ".cost_n", .type = SCENARIO_INT,                           \
     .off = SWEEPER_OFF(cost_n), .max = 1000000, .def_num = 500,              \
     .help = "compare reads each cost (round time, CPU per call, memory per " \
     "server) at this N, the same for every run and method, from the "        \
     "measurements within x1.5 of it (0: at the largest N every run "         \
     "measured, which moves with the runs' reach)"},                          \
    {.key = PREFIX ".prior_n", .type = SCENARIO_NUM,                          \
     .off = SWEEPER_OFF(prior_n), .max = 1e6,                                 \
     .help = "a warm start: the crossing N a run of this scenario found "     \
     "before (0: none); the search measures at it and at its interval's end " \
     "first, and the steps well below it take " PREFIX ".far_rounds"},        \
    {.key = PREFIX ".prior_half_width", .type = SCENARIO_NUM,                 \
     .off = SWEEPER_OFF(prior_half_width), .max = 1,                          \
     .help = "a warm start: the prior's interval half-width, a fraction of "  \
     PREFIX ".prior_n, where the second measurement goes (kept within 2 x "   \
     PREFIX ".resolution and one step; 0: 2 x resolution)"},                  \
    {.key = PREFIX ".far_rounds", .type = SCENARIO_INT,                       \
     .off = SWEEPER_OFF(far_rounds), .max = 100000, .def_num = 3,             \
     .help = "a warm start: timed rounds of the steps below " PREFIX          \
     ".prior_n by more than the local fit's window (x1.5), but the first "    \
     "step and those within x1.5 of " PREFIX ".cost_n (0: " PREFIX            \
     ".rounds)"},                                                             \
    {.key = PREFIX ".far_growth", .type = SCENARIO_NUM,                       \
     .off = SWEEPER_OFF(far_growth), .min = 1, .max = 100, .def_num = 1.5,    \
     .help = "a warm start: the factor between the steps of " PREFIX          \
     ".far_rounds, which no fit reads (each stops at the first N within "     \
     "x1.5 of " PREFIX ".cost_n, and at the first of full rounds); 1: "       \
     PREFIX ".growth's"},                                                     \
    {.key = PREFIX ".prior_from", .type = SCENARIO_STRING,                    \
     .off = SWEEPER_OFF(prior_from),                                          \
     .size = SCENARIO_KIND_SZ(struct sweeper_opts, prior_from),               \
     .def_str = "",                                                           \
     .help = "a warm start: where " PREFIX ".prior_n came from (a result "    \
     "file), for the result's warm_start"}

/* The rule every such kind has: GROUP.start is no higher than
 * GROUP.max_n. 0, or scenario_fail's -EINVAL naming the kind's key. */
int sweeper_check_start(const struct scenario_ctx *c,
                        const struct scenario *sc);

/* The stepping rule: the next N of the sweep after `n` (n + step, or
 * ceil(n × growth) and at least n + 1; a warm start's steps of far_rounds
 * by far_growth, up to the cost window's first N and the full rounds'
 * first); the caller clamps it to max_n. */
int64_t sweeper_next_n(const struct scenario *sc, int64_t n);

/* What an axis sees of one side. */
struct sweeper_hand {
    struct run *s;
    struct run_outcome *o;
    struct conn *conns;    /* sweeper_opts(sc)->max_n of them; conns[0..n-1]
                            * are called once each round */
    size_t n;              /* N */
    struct callmode *mode; /* the side's call mode (its forget, when
                            * conns close) */
    size_t servers;        /* this side's server processes (the machine's
                            * memory is divided among every side's) */
    unsigned *next_index;  /* number of the next server started, any side */
    int64_t oom_kills;     /* in the memory cgroup, at the start */
    struct samples starts; /* this step's server start times */
    struct footprint fp;   /* the machine's baseline */
    void *axis;            /* the axis's own state */
};

struct sweeper_axis {
    const char *noun;     /* what N counts, in messages and as
                           * result.held_unit: "servers" */
    const char *held_key; /* result.held's name in earlier results of the
                           * schema (max_servers), still written */
    /* Before the side's first step (fanin: start its servers). True, or
     * false when it stopped (h->o). Optional. */
    bool (*begin)(struct sweeper_hand *h);
    /* Once every side has begun, before the first step: a baseline that
     * the other side's servers starting would have moved (the ORB's
     * library pages turn from private to shared). Optional. */
    void (*baseline)(struct sweeper_hand *h);
    /* Make N exactly `target`: open or close conns (and start or stop
     * their servers). True, or false when the side stopped (h->o). */
    bool (*set_n)(struct sweeper_hand *h, size_t target);
    /* A step's footprint into `step`: the servers of every side number
     * on_machine. */
    void (*footprint)(struct sweeper_hand *h, json_t *step, size_t on_machine);
    /* Free the axis's state, once the driver closed conns[0..n-1].
     * Optional. */
    void (*end)(struct sweeper_hand *h);
    /* What one unit of N (`unit`: "server") cost in memory at a step of
     * the result: a new object (pss_kb, uss_kb, threads, fds, …), or NULL
     * when the step lacks it. Optional. The driver reads it at the last
     * step that has it, for result.costs.memory (adding "per", the unit,
     * and "n", the step's N), and adds the servers' CPU per call and the
     * first call. */
    const char *unit;
    json_t *(*step_cost)(json_t *step);
};

/* Run the sides (1, or 2 paired) of a sweep along `axis`: a kind's run. */
void sweeper_drive(const struct sweeper_axis *axis, struct run *sides,
                   struct run_outcome *o, size_t nsides);

/* A call or connect on conns[i] failed with err (-errno) and `why`: stop
 * the side, saying whether its server died, was OOM-killed or is at a
 * limit (resource), or interrupted. */
void sweeper_call_failure(struct sweeper_hand *h, size_t i, int err,
                          const char *why);

/* The footprint of servers srv[0..k-1] (their pid and index; those of a
 * server list with no known pid are counted apart) into `step`
 * (footprint_step). */
void sweeper_probe_servers(struct sweeper_hand *h, const struct conn *srv,
                           size_t k, size_t on_machine, json_t *step);

/* A sweep's closing block, in pieces around the kind's own lines: the
 * head ("NAME: ORB VERSION over T, M calls, max_ms X", then "  <held>"
 * and the crossing on the next line), and the end (the first step's
 * median call, the stop and its detail, the steps and where the result
 * is). Every line ends in a newline. */
void sweeper_summary_head(const struct scenario *sc, json_t *doc,
                          const char *held);
void sweeper_summary_end(const struct scenario *sc, json_t *doc,
                         const struct run_outcome *o, const char *out);

#endif
