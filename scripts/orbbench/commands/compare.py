"""Compare two or more sets of orbbench results, scenario by scenario; A
is the baseline.

usage: orbbench compare A B [C ...] [--at N] [--mem KIND] [--alpha A]
                        [--equivalence PCT] [--format FMT] [--plots DIR]
                        [--fail-on V[,V]] [--threshold PCT]
       orbbench compare --hosts FLEET|FOLDER ... [--mem KIND] [--format FMT]
                        [--plots DIR]

A and B are result files or result folders, each side of one ORB and one
setting per scenario; repeats (run-suite --repeat R) are its runs. First
what differs between the two environments (ORB, host, CPUs, kernel, tool,
compiler flags, CPU placement, scenario settings), then one row per
scenario: B/A per metric with its 95% confidence interval and a verdict.
  crossing N  the N at which the median round time crosses max_ms
              (result.crossing_n; result.max_servers in older results);
              for a sweep over connections (kind fanin) connections, and
              result.max_connections
  round ms    median round time at the largest N every run reached
  server CPU  the servers' CPU per call at that N
  PSS         memory per server at the largest N in every run's steps
Each run gives one value per metric; B/A is the ratio of geometric means,
tested by Student's t on the logs of the runs' values (paired runs: the
one-sample t on each run's log ratio). First the suite's answer: per
primary metric the geometric mean over scenarios with the one-sample t
over the scenarios' mean log ratios. Only the primary metrics are tested
(crossing N, or round ms at a fixed N; server CPU; memory); round ms at a
common N is descriptive. Two families, each BH-adjusted (the scenarios'
metrics; the suite rows). A difference (faster/slower, larger/smaller for
memory; negligible within 0.5%) needs q < alpha (0.05), and every tested
interval is drawn at its family's false-coverage-rate level, so it
excludes 1 exactly when there is a difference; same needs the interval
within ±3% (--equivalence), else inconclusive: the data cannot tell. A
paired difference that the sides' measured interference could make alone
is not called (interference). One run on a side gives no scenario
verdict.
More sets (C, D, …): each is compared with A as B is, the BH adjustment
runs over every test of every set, and the table has a column group per
set (--format json: {"sets", "method", "comparisons"}, one comparison
per set after A; --plots DIR: one folder A-vs-X per set).
  --equivalence PCT  same only when the interval lies within ±PCT%
             (default 3)
  --alpha A  the verdicts' level (a sequential run's sequential.json
             beside the sets' folders sets its alpha per look)
  --at N     round time, CPU and memory at this N instead (an N that
             some run measured; another is exit 2 naming those there are)
  --format text|md|csv|json  (csv: one row per scenario and metric; the
             environment differences go to stderr)
  --mem pss|uss|mem_available  memory per server to compare (default pss)
  --hosts    the host axis instead: each host's max servers and memory
             per server side by side, per scenario, and each host's
             identity (a fleet tree of orbbench fleet gives its hosts
             and their status; a result folder is one host, named by it);
             --plots DIR: one figure per scenario, a bar per host
  --plots DIR  the comparison's figures: capacity A against B with the
               verdicts, B/A round time against N, round-time panels,
               what a server costs on each side, every round per scenario
The regression gate (orbbench.gate, docs/ci.md):
  --fail-on V[,V]  exit 1, listing each regression on stderr, when a
             metric's verdict is one of slower, larger (faster, smaller)
             and its whole interval lies beyond --threshold
  --threshold PCT  at least PCT% worse (default 0)
  --format junit   JUnit XML, one test case per scenario and metric
  --format github  a GitHub Actions step summary (Markdown); ::error
             annotations on stderr
  (junit and github mark --fail-on's regressions, slower without it)
Exit: 0 compared (no regression), 1 a regression (--fail-on), 2 bad
input or usage (one line naming the file), or a side mixing two ORBs or
two settings of one scenario (one line)."""
import csv
import io
import json
import math
import sys
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.escape as orbesc
import orbbench.gate as orbgate
import orbbench.interference as orbinterference
import orbbench.kinds  # noqa: F401  (the kinds of results)
import orbbench.results as orbresults
import orbbench.sequential as orbseq
import orbbench.stats as orbstats

ROOT = Path(__file__).resolve().parents[3]

PROG = "compare"
EXAMPLES = [
    "orbbench compare results/A results/B",
    "orbbench compare results/A results/B --fail-on slower --threshold 5",
    "orbbench compare results/A results/B --format junit > junit.xml",
    "orbbench compare results/A results/B results/C --plots plots/ABC",
    "orbbench compare --hosts results/DATE-fleet-grisby"]


def parse_args(argv):
    p = orbcli.parser("compare", __doc__, EXAMPLES)
    p.add_argument("sets", nargs="+", metavar="A B [C ...]",
                   help="result files or folders; the first is the "
                   "baseline")
    p.add_argument("--at", type=int, metavar="N",
                   help="round time, CPU and memory at this N")
    p.add_argument("--mem", choices=list(orbresults.MEM_KINDS), default="pss")
    p.add_argument("--format", choices=("text", "md", "csv", "json") +
                   orbgate.FORMATS, default="text")
    orbgate.add_arguments(p)
    p.add_argument("--plots", metavar="DIR",
                   help="write the comparison's figures")
    p.add_argument("--alpha", type=float, metavar="A",
                   help="significance level of the verdicts (default 0.05; "
                   "a sequential run's sequential.json sets its own)")
    p.add_argument("--equivalence", type=float, metavar="PCT", default=100 *
                   orbstats.EQUIVALENCE,
                   help="'same' only when the interval lies within ±PCT%% "
                   "(an equivalence test; default %(default)g)")
    p.add_argument("--hosts", action="store_true",
                   help="the host axis: hosts side by side")
    a = p.parse_args(argv)
    if not 0 < a.equivalence < 100 or not math.isfinite(a.equivalence):
        p.error(f"--equivalence {a.equivalence}: give a percentage between "
                "0 and 100")
    if a.hosts and (a.fail_on or a.format in orbgate.FORMATS):
        p.error("--fail-on, --format junit|github: not with --hosts")
    if a.hosts:
        if a.at is not None:
            p.error("--at: not with --hosts (each host at its own max "
                    "servers)")
        return a
    if a.alpha is not None and not 0 < a.alpha < 0.5:
        p.error(f"--alpha {a.alpha}: give a level between 0 and 0.5")
    if not 2 <= len(a.sets) <= len(LETTERS):
        p.error(f"give 2 to {len(LETTERS)} result sets (A, the baseline, "
                f"then those compared with it), not {len(a.sets)}")
    return a


# Sets are called A (the baseline), B, C, … in the order given.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# ---- what one run gives ---------------------------------------------------

def measurements(doc):
    """A run's measurements with timed rounds: its steps (the sweep), then
    its probes (extra measurements near the crossing, any order)."""
    return [s for s in doc["steps"] + list(doc.get("probes") or [])
            if orbresults.timed(s)]


def largest_n(doc):
    ns = [s["n"] for s in measurements(doc)]
    return max(ns) if ns else None


def common_n(docs):
    """The largest N every run measured: the smallest of the runs' largest
    N (runs without any measurement do not count)."""
    ns = [n for n in map(largest_n, docs) if n is not None]
    return min(ns) if ns else None


def round_ms(step):
    return step["round_ms"]["median"]


def fit_at(doc, n, read, weight, window=orbstats.FIT_WINDOW):
    """One run's value of read(step) at n servers: a local power-law fit
    through its steps and probes within ×window of n
    (orbbench.stats.local_fit), each weighted by weight(step). None
    without any value."""
    if n is None:
        return None
    pts = [(s["n"], read(s), weight(s)) for s in measurements(doc)]
    return orbstats.local_fit([p for p in pts if p[1] is not None], n,
                              window)


# The costs at the scenario's cost_n are read from the measurements within
# ×1.5 of it (about 9 steps of a ×1.1 sweep, every run's): one step's CPU
# per call moves ±20% from its neighbours, and a fit through 3 of them
# (FIT_WINDOW) gave a solo and a paired run of the same ORBs intervals
# that missed each other at some N (docs/measured/2026-12-01-one-answer.md,
# "Where a cost is read").
COST_WINDOW = 1.5


def cost_n(docs):
    """(N, window, note) at which the scenario's costs are read without
    --at: the scenarios' KIND.cost_n (a sweep's; one N whatever the runs
    reached, so that every method reads the same N), or, when some run
    stopped below it, the largest N every run measured, with a note; runs
    that predate the key (or set it to 0): the largest N every run
    measured, which moves with how far the runs got."""
    reach = common_n(docs)
    want = {orbresults.get(d, f"scenario.{orbresults.get(d, 'scenario.kind')}"
                              ".cost_n") for d in docs}
    if len(want) != 1 or not all(isinstance(w, int) and w > 0 for w in want):
        return reach, orbstats.FIT_WINDOW, None
    (n,) = want
    kind = orbresults.get(docs[0], "scenario.kind")
    if reach is not None and reach < n:
        if all(orbresults.is_fixed_n(d) for d in docs if d["steps"]):
            return reach, orbstats.FIT_WINDOW, None  # one N by design
        return reach, COST_WINDOW, (
            f"costs read at N={orbresults.fmt_num(reach)}, the largest N "
            f"every run measured: some run stopped below {kind}.cost_n="
            f"{n} (a reading that moves with the runs' reach)")
    return n, COST_WINDOW, None


def mem_common_n(docs, mem, near=None):
    """The N at which every run's steps have a memory figure (the sweep's
    grid is the same for every run of a scenario): the one nearest `near`
    (the costs' N; the larger of two as near) or, without it, the
    largest."""
    sets = [{s["n"] for s in d["steps"]
             if orbresults.mem_per_server_kb(s, mem) is not None} for d in docs]
    common = set.intersection(*sets) if sets else set()
    if not common:
        return None
    if near is None:
        return max(common)
    return min(common, key=lambda k: (abs(k - near), -k))


def mem_at(doc, n, mem):
    s = orbresults.step_at(doc, n) if n is not None else None
    return orbresults.mem_per_server_kb(s, mem) if s else None


def crossing_run(result):
    """One run's crossing as the figures draw it."""
    res = result.doc["result"]
    return {"file": result.path.name, "crossing_n": res.get("crossing_n"),
            "crossing_interval": res.get("crossing_interval"),
            "max_servers": orbresults.held(result.doc)}


def older_than_the_search(doc):
    """True for a result of a client older than the crossing search: it
    has no "probes" (newer clients write the list, empty or not, and
    leave result.crossing_n out when the sweep never crossed max_ms)."""
    return "probes" not in doc


def crossing_values(docs_a, docs_b):
    """(A values, B values, source, notes) for crossing_n: each run's
    result.crossing_n; when some run is older than the crossing search,
    max_servers for every run of both sides, so that like is compared
    with like; a run without a crossing_n (it never crossed max_ms, or ran
    without the search) gives its max_servers."""
    docs = docs_a + docs_b
    if any(older_than_the_search(d) for d in docs):
        def read(d):
            return orbresults.held(d)
        return ([read(d) for d in docs_a], [read(d) for d in docs_b],
                "max_servers", ["max_servers (no crossing_n in these "
                                "results)"])

    def value(d):
        c = d["result"].get("crossing_n")
        return c if c is not None else orbresults.held(d)
    nulls = [d for d in docs if d["result"].get("crossing_n") is None]
    notes = []
    if nulls:
        why = ", ".join(sorted({d["result"]["stop_reason"] for d in nulls}))
        notes.append(f"{len(nulls)} run(s) never crossed max_ms (stop: "
                     f"{why}): their max_servers used")
    return ([value(d) for d in docs_a], [value(d) for d in docs_b],
            "crossing_n", notes)


# ---- the comparison -------------------------------------------------------

# (key, label, higher is better, memory) of every metric, in table order;
# the memory metric's key is "<kind>_kb" (--mem).
METRICS = (("crossing_n", "crossing N", True, False),
           ("round_ms", "round ms", False, False),
           ("server_cpu_us", "server CPU", False, False),
           ("mem", None, False, True))


def metric_key(key, mem):
    return f"{mem}_kb" if key == "mem" else key


def metric_label(key, mem):
    """The table's name of a metric key ("round_ms", "pss_kb", …)."""
    if key == metric_key("mem", mem):
        return orbresults.MEM_LABELS[mem]
    return {k: label for k, label, _, _ in METRICS}[key]


def metric(va, vb, higher_is_better, memory=False, at_n=None,
           missing="not in these results", paired=False, **extra):
    """compare_metric() (compare_paired() for paired runs, va[i] and vb[i]
    from one run) of the runs' values, with the values, the N they are at
    and a note instead of the drop notes when no run has any."""
    test = orbstats.compare_paired if paired else orbstats.compare_metric
    m = test(va, vb, higher_is_better, memory)
    if all(v is None for v in va + vb):
        m["notes"] = [missing]
    m.update(a_values=va, b_values=vb, **extra)
    if at_n is not None:
        m["at_n"] = at_n
    first = ("ratio", "ci_low", "ci_high", "p_value", "q_value", "verdict",
             "mde_pct", "a_values", "b_values", "at_n", "n_a", "n_b")
    return {k: m[k] for k in first + tuple(sorted(set(m) - set(first)))
            if k in m}


def pair_up(docs_a, docs_b):
    """(docs_b in the order of the docs_a they were paired with, True) when
    every run on both sides comes from a paired run (orbbench --paired or
    --versus: "paired.id") and the ids match one to one; else (docs_b,
    False): the runs are then compared as independent samples."""
    ids_a = [orbresults.get(d, "paired.id") for d in docs_a]
    by_id = {orbresults.get(d, "paired.id"): d for d in docs_b}
    if (None in ids_a or len(set(ids_a)) != len(ids_a) or
            len(by_id) != len(docs_b) or set(ids_a) != set(by_id)):
        return docs_b, False
    return [by_id[i] for i in ids_a], True


def scenario_metrics(docs_a, docs_b, at, mem):
    """{metric key: metric dict} of one scenario."""
    docs_b, paired = pair_up(docs_a, docs_b)
    if all(d["steps"] and orbresults.is_fixed_n(d) for d in docs_a + docs_b):
        # One N by design (the bench suite): its "crossing" is that N on
        # every run, a test of a constant, so none is made.
        out = {"crossing_n": metric(
            [None] * len(docs_a), [None] * len(docs_b), True,
            missing="fixed N: the runs measured one N, no crossing",
            source="fixed_n", paired=paired)}
    else:
        va, vb, source, notes = crossing_values(docs_a, docs_b)
        out = {"crossing_n": metric(va, vb, True, source=source,
                                    paired=paired)}
        out["crossing_n"]["notes"][:0] = notes
    if at is not None:
        n, window, note = at, orbstats.FIT_WINDOW, None
    else:
        n, window, note = cost_n(docs_a + docs_b)
    fits = (("round_ms", round_ms, lambda s: s["round_ms"].get("count")),
            ("server_cpu_us", orbresults.server_cpu_per_call_us,
             lambda s: s.get("calls")))
    for key, read, weight in fits:
        out[key] = metric([fit_at(d, n, read, weight, window)
                           for d in docs_a],
                          [fit_at(d, n, read, weight, window)
                           for d in docs_b],
                          False, at_n=n, paired=paired, at_window=window)
        if note:
            out[key].setdefault("notes", []).append(note)
    nm = at if at is not None else mem_common_n(docs_a + docs_b, mem,
                                                near=n)
    out[f"{mem}_kb"] = metric([mem_at(d, nm, mem) for d in docs_a],
                              [mem_at(d, nm, mem) for d in docs_b],
                              False, memory=True, at_n=nm, paired=paired)
    return out


def compare_scenario(name, res_a, res_b, at, mem):
    """One scenario, both sides: a dict (the JSON row). Its verdict is set
    by compare(), once every test of the comparison is known."""
    docs_a, docs_b = [r.doc for r in res_a], [r.doc for r in res_b]
    ms = scenario_metrics(docs_a, docs_b, at, mem)
    paired_b, paired = pair_up(docs_a, docs_b)
    return {"scenario": name, "verdict": "n/a",
            "paired": paired,
            "interference": (orbinterference.of_pairs(docs_a, paired_b)
                             if paired else None),
            "runs_a": len(docs_a), "runs_b": len(docs_b),
            "at_n": ms["round_ms"].get("at_n"),
            "metrics": ms,
            "crossing": {"a": [crossing_run(r) for r in res_a],
                         "b": [crossing_run(r) for r in res_b]},
            "a": orbresults.summarize(docs_a), "b": orbresults.summarize(docs_b),
            "steps": [{"n": k, "a": orbresults.round_ms_at(docs_a, k),
                       "b": orbresults.round_ms_at(docs_b, k),
                       "ratio": orbresults.ratio(orbresults.round_ms_at(docs_b, k),
                                        orbresults.round_ms_at(docs_a, k))}
                      for k in orbresults.common_ns(docs_a, docs_b)]}


def scenario_differences(ga, gb):
    """[(label, a, b)] for resolved scenario keys that differ between the
    two sides of matched scenarios, one line per key and pair of values
    naming the scenarios. machine.* is left to the environment lines."""
    seen = {}
    matched = [n for n in ga if n in gb]
    for name in matched:
        fa = flatten(ga[name][0].doc["scenario"])
        fb = flatten(gb[name][0].doc["scenario"])
        for k in sorted(fa.keys() | fb.keys()):
            if k in ("name", "description") or k.startswith("machine.") \
                    or fa.get(k) == fb.get(k):
                continue
            pair = (k, str(fa.get(k, "absent")), str(fb.get(k, "absent")))
            seen.setdefault(pair, []).append(name)
    out = []
    for (k, a, b), names in sorted(seen.items()):
        where = "all scenarios" if len(names) == len(matched) else \
            ", ".join(names)
        out.append((f"scenario {k} ({where})", a, b))
    return out


def flatten(d, prefix=""):
    """{"a.b": value} for a nested dict."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def setting_text(v):
    return "absent" if v is None else (
        json.dumps(v) if isinstance(v, (list, dict, bool)) else str(v))


def check_side(results, side):
    """ValueError (one line) when one side mixes what must not be taken
    for repeats: results of two ORBs (by name and version, or by orb.id),
    or runs of one scenario whose resolved settings differ (any key but
    name and description; the first such key is named)."""
    def refuse(kinds):
        count = "two" if len(kinds) == 2 else str(len(kinds))
        raise ValueError(f"{side}: results of {count} ORBs "
                         f"({', '.join(kinds)}) on one side: give one "
                         "folder per ORB")
    labels = list(dict.fromkeys(orbresults.orb_label(r.doc) for r in results))
    if len(labels) > 1:
        refuse(labels)
    ids = list(dict.fromkeys(orbresults.get(r.doc, "orb.id") for r in results
                             if orbresults.get(r.doc, "orb.id")))
    if len(ids) > 1:
        refuse(ids)
    for name, group in orbresults.group_by_scenario(results).items():
        flats = [flatten(r.doc["scenario"]) for r in group]
        keys = sorted(set().union(*flats) - {"name", "description"})
        for k in keys:
            vals = list(dict.fromkeys(setting_text(f.get(k))
                                      for f in flats))
            if len(vals) > 1:
                raise ValueError(
                    f"{side}: {name}: runs differ in scenario key {k} "
                    f"({', '.join(vals)}): give one folder per setting")


def ns_text(ns, nearest_to):
    """'2, 6, 10 (nearest 10)', or for many N '2–40, 33 values (nearest
    38, 40)'."""
    ns = sorted(ns)
    d = min(abs(n - nearest_to) for n in ns)
    near = ", ".join(orbresults.fmt_num(n) for n in ns if abs(n - nearest_to) == d)
    listed = (", ".join(orbresults.fmt_num(n) for n in ns) if len(ns) <= 12 else
              f"{orbresults.fmt_num(ns[0])}–{orbresults.fmt_num(ns[-1])}, {len(ns)} values")
    return f"{listed} (nearest {near})"


def check_at(results, at):
    """ValueError (one line) when no run of either side measured N = at:
    its values would be a fit far from any measurement, or none at all."""
    ns = {s["n"] for r in results for s in measurements(r.doc)}
    if at in ns:
        return
    if not ns:
        raise ValueError(f"--at {at}: no run has a measured step")
    raise ValueError(f"--at {at}: no run measured N={at}; the runs "
                     f"measured N = {ns_text(ns, at)}")


def compare(res_a, res_b, at, mem):
    """The whole comparison as a dict (what --format json prints)."""
    return compare_many([res_a, res_b], at, mem)[0]


def primary_keys(metrics, mem):
    """The metrics a scenario's verdict is tested on: its crossing N (its
    round time at the one N of a fixed-N scenario, which has no crossing),
    the servers' CPU per call at a common N, and memory per server (a
    verdict of its own, larger/smaller). Round time at a common N is the
    same question as crossing N asked at one point: it is shown, with its
    unadjusted 95% interval and no verdict, not tested twice."""
    first = ("round_ms" if metrics["crossing_n"].get("source") == "fixed_n"
             else "crossing_n")
    return (first, "server_cpu_us", metric_key("mem", mem))


def mark_primary(row, mem):
    """Flag each metric of a scenario row primary or descriptive; a
    descriptive one keeps its unadjusted 95% interval and has no verdict."""
    keys = primary_keys(row["metrics"], mem)
    for key, m in row["metrics"].items():
        m["primary"] = key in keys
        if not m["primary"]:
            m["q_value"] = None
            m["verdict"] = "n/a"
            m["ci_level"] = 0.95 if m["ci_low"] is not None else None


def suite_rows(cmp, mem):
    """{metric key: suite_metric()} of one comparison, in table order: per
    primary metric, the geometric mean of B/A over the scenarios where it
    is primary (round ms only over fixed-N scenarios)."""
    out = {}
    for key, _, higher, memory in METRICS:
        k = metric_key(key, mem)
        per = [(r["scenario"], r["metrics"][k]) for r in cmp["scenarios"]
               if r["metrics"][k]["primary"]]
        if per:
            out[k] = orbstats.suite_metric(per, higher, memory)
    return out


def compare_many(sets, at, mem, alpha=orbstats.ALPHA,
                 delta=orbstats.EQUIVALENCE):
    """Each set after the first compared with the first (the baseline):
    one comparison dict each, as compare() gives for two sets. Two
    families of tests, each adjusted over every set's tests (a family as
    large as the question asked): the scenarios' primary metrics
    (primary_keys), and the suite-level geometric means (suite_rows).
    Every tested metric's interval is drawn at its family's FCR level, so
    that it excludes 1 exactly when its verdict is not same."""
    for letter, res in zip(LETTERS, sets):
        check_side(res, letter)
    if at is not None:
        check_at([r for res in sets for r in res], at)
    cmps = [compare_pair(sets[0], res, at, mem) for res in sets[1:]]
    return judge(cmps, mem, alpha, delta)


def judge(cmps, mem, alpha=orbstats.ALPHA, delta=orbstats.EQUIVALENCE):
    """The verdicts of comparisons whose metrics are measured (compare_pair
    dicts, or any {"scenarios": [{"scenario", "metrics"}], "method"}):
    primary metrics flagged, both families adjusted at alpha, the suite
    rows and every verdict set. Returns cmps."""
    for c in cmps:
        for r in c["scenarios"]:
            mark_primary(r, mem)
        c["method"]["moderated"] = {
            key: orbstats.moderate([r["metrics"][key] for r in c["scenarios"]
                                    if r["metrics"][key]["primary"]])
            for key in dict.fromkeys(k for r in c["scenarios"]
                                     for k, m in r["metrics"].items()
                                     if m["primary"])}
    tests, rejected, level = orbstats.adjust_family(
        [m for c in cmps for r in c["scenarios"]
         for m in r["metrics"].values() if m["primary"]], alpha, delta)
    for c in cmps:
        for r in c["scenarios"]:
            orbinterference.withhold(r)
    for c in cmps:
        c["mde_pct"] = {k: orbstats.median_or_none(
            r["metrics"][k].get("mde_pct") for r in c["scenarios"])
            for k in dict.fromkeys(k for r in c["scenarios"]
                                   for k in r["metrics"])}
        c["suite"] = suite_rows(c, mem)
    stests, srejected, slevel = orbstats.adjust_family(
        [m for c in cmps for m in c["suite"].values()], alpha, delta)
    for c in cmps:
        orbinterference.withhold_suite(c)
    for c in cmps:
        c["method"].update(tests=tests, rejected=rejected, ci_level=level,
                           suite_tests=stests, suite_rejected=srejected,
                           suite_ci_level=slevel, alpha=alpha,
                           equivalence=delta)
        for m in c["suite"].values():
            m["drivers"] = orbstats.suite_drivers(m, slevel or 0.95)
        c["suite_verdict"] = orbstats.scenario_verdict(
            m["verdict"] for m in c["suite"].values() if not m["memory"])
        for r in c["scenarios"]:
            r["verdict"] = orbstats.scenario_verdict(
                m["verdict"] for m in r["metrics"].values()
                if m["primary"] and not m["memory"])
    return cmps


def compare_pair(res_a, res_b, at, mem):
    """One set against the baseline, its p-values not yet adjusted and its
    scenario verdicts not yet set (compare_many does both)."""
    ga, gb = orbresults.group_by_scenario(res_a), orbresults.group_by_scenario(res_b)
    diffs = orbresults.environment_differences(orbresults.environment(res_a),
                                      orbresults.environment(res_b))
    diffs += scenario_differences(ga, gb)
    both = [n for n in orbresults.seed_order(list(ga) + list(gb))
            if n in ga and n in gb]
    rows = [compare_scenario(n, ga[n], gb[n], at, mem) for n in both]
    keys = [metric_key(k, mem) for k, _, _, _ in METRICS]
    return {"a": [str(r.path) for r in res_a],
            "b": [str(r.path) for r in res_b],
            "mem_kind": mem,
            "method": {"test": "Student t, pooled variance, on the log of "
                               "each run's value; for paired runs "
                               "(orbbench --paired), one-sample t on each "
                               "run's log ratio B/A",
                       "ratio": "ratio of geometric means over runs, B/A",
                       "primary": "crossing N (round ms at a fixed N), "
                                  "server CPU per call, memory per server",
                       "suite": "geometric mean of the scenarios' B/A; "
                                "one-sample t over their mean log ratios",
                       "adjustment": "Benjamini-Hochberg",
                       "families": "the scenarios' primary metrics; the "
                                   "suite rows (each over every set)",
                       "intervals": "tested metrics at their family's "
                                    "false-coverage-rate level, 1 - "
                                    "max(R, 1) alpha / m (ci_level); "
                                    "unadjusted 95% as ci95_low, ci95_high",
                       "tests": None,
                       "alpha": orbstats.ALPHA, "power": orbstats.POWER},
            "mde_pct": {k: orbstats.median_or_none(r["metrics"][k]["mde_pct"]
                                            for r in rows) for k in keys},
            "environment_differences": [
                {"field": f, "a": a, "b": b} for f, a, b in diffs],
            "only_in_a": [n for n in ga if n not in gb],
            "only_in_b": [n for n in gb if n not in ga],
            "scenarios": rows}


# ---- output ---------------------------------------------------------------
# Every renderer takes the list of comparisons (one per set after A): for
# two sets, one comparison, and the output is the two-set one.

def ratio_cell(m):
    """'1.07 [1.02–1.12] slower', '1.07' without a test, '—' without a
    ratio. Three decimals when the interval is narrower than 0.02, so that
    a significant 0.3% does not read '1.00 [1.00–1.00] larger'."""
    if m["ratio"] is None:
        return "—"
    lo, hi = m["ci_low"], m["ci_high"]
    d = 3 if lo is not None and hi - lo < 0.02 else 2
    text = f"{m['ratio']:.{d}f}"
    if orbstats.too_wide(m):
        text += " [too few runs]"
    elif lo is not None:
        text += f" [{lo:.{d}f}–{hi:.{d}f}]"
    if m["verdict"] != "n/a":
        text += f" {m['verdict']}"
    return text


def runs_cell(values):
    """'10.4 (9.8–11.0)': median (min–max) of the runs' values; '10.4'
    for one run."""
    vals = [v for v in values if v is not None]
    if not vals:
        return "—"
    text = orbresults.fmt_num(orbstats.median_or_none(vals))
    if len(vals) > 1:
        text += f" ({orbresults.fmt_num(min(vals))}–{orbresults.fmt_num(max(vals))})"
    return text


def has_values(cmps, key):
    return any(v is not None for cmp in cmps for c in cmp["scenarios"]
               for v in c["metrics"][key]["a_values"] +
               c["metrics"][key]["b_values"])


def shown_metrics(cmps):
    """The metric keys the table shows: crossing N and round time always,
    CPU and memory when some result has them."""
    mem = metric_key("mem", cmps[0]["mem_kind"])
    return ["crossing_n", "round_ms"] + [
        k for k in ("server_cpu_us", mem) if has_values(cmps, k)]


def group_head(x, mem, shown, many):
    """The columns of set x against A; with many sets, those that do not
    name x carry it in brackets."""
    tag = f" ({x})" if many else ""
    label = orbresults.MEM_LABELS[mem]
    head = [f"crossing N {x}", f"{x}/A [interval]", f"at N{tag}",
            f"round ms {x}/A"]
    if "server_cpu_us" in shown:
        head.append(f"server CPU {x}/A")
    if metric_key("mem", mem) in shown:
        head += [f"{label} at N{tag}", f"{label} {x}/A"]
    return head + [f"verdict{tag}"]


def group_cells(c, mem, shown):
    """One scenario's cells of one comparison (group_head's columns)."""
    ms = c["metrics"]
    row = [runs_cell(ms["crossing_n"]["b_values"]),
           ratio_cell(ms["crossing_n"]), orbresults.fmt_num(c["at_n"]),
           ratio_cell(ms["round_ms"])]
    if "server_cpu_us" in shown:
        row.append(ratio_cell(ms["server_cpu_us"]))
    if metric_key("mem", mem) in shown:
        m = ms[metric_key("mem", mem)]
        row += [orbresults.fmt_num(m.get("at_n")), ratio_cell(m)]
    return row + ["—" if c["verdict"] == "n/a" else c["verdict"]]


def main_table(cmps):
    """The verdict table: scenario, A's crossing N, then a column group
    per set compared with A ('—' where that set lacks the scenario)."""
    mem = cmps[0]["mem_kind"]
    shown = shown_metrics(cmps)
    many = len(cmps) > 1
    head = ["scenario", "crossing N A"]
    for x in LETTERS[1:len(cmps) + 1]:
        head += group_head(x, mem, shown, many)
    width = len(group_head("B", mem, shown, many))
    names = orbresults.seed_order([c["scenario"] for cmp in cmps
                          for c in cmp["scenarios"]])
    rows = []
    for name in names:
        per = [next((c for c in cmp["scenarios"] if c["scenario"] == name),
                    None) for cmp in cmps]
        first = next(c for c in per if c)
        row = [name, runs_cell(first["metrics"]["crossing_n"]["a_values"])]
        for c in per:
            row += group_cells(c, mem, shown) if c else ["—"] * width
        rows.append(tuple(row))
    return tuple(head), rows


def pct_level(level):
    """'98.3%' for 0.98333, '99.965%' for 0.99965: the level with two
    significant digits of what it leaves out, so that a level below 1
    never reads as 100%."""
    if level is None:
        return "—"
    miss = 100 * (1 - level)
    if miss <= 0:
        return "100%"
    decimals = max(0, 1 - math.floor(math.log10(miss)))
    text = f"{100 * level:.{decimals}f}"
    if decimals:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def drivers_text(m):
    """'event-tcp 0.88, sync-unix 0.88; holds without any one' or, when
    some scenario decides it, '…; rests on X'."""
    d = m.get("drivers") or {}
    text = ", ".join(f"{n} {r:.2f}" for n, r in d.get("largest", []))
    if d.get("decisive") == []:
        text += "; holds without any one"
    elif d.get("decisive"):
        text += f"; rests on {', '.join(d['decisive'])}"
    return text or "—"


def suite_table(cmps):
    """The suite's answer: per set and primary metric, the geometric mean
    of B/A over the scenarios with its interval, verdict, and the
    scenarios that drive it."""
    head = (("set",) if len(cmps) > 1 else ()) + (
        "metric", "B/A (geomean)", "scenarios", "verdict", "largest effects")
    rows = []
    for x, cmp in zip(LETTERS[1:], cmps):
        for key, m in cmp["suite"].items():
            rows.append(((x,) if len(cmps) > 1 else ()) + (
                metric_label(key, cmp["mem_kind"]),
                ratio_cell(dict(m, verdict="n/a")), str(m["n_scenarios"]),
                m["verdict"] if m["verdict"] != "n/a" else "—",
                drivers_text(m)))
    return head, rows


def suite_lines(cmps):
    """The suite's verdict per set, and how it was reached."""
    m = cmps[0]["method"]
    verdicts = per_set(cmps, [c["suite_verdict"] + flagged_text(c)
                              for c in cmps])
    return [f"Suite verdict: {verdicts} (from its crossing N and server "
            "CPU rows; memory has its own).",
            "Suite rows: geometric mean over scenarios of each scenario's "
            "B/A, one-sample t over the scenarios' mean log ratios "
            f"(df = scenarios - 1); BH over the {m['suite_tests']} suite "
            f"tests, intervals at their {pct_level(m['suite_ci_level'])} "
            "false-coverage-rate level."]


def flagged(cmp):
    """[(scenario, metric label, metric dict)] of the scenarios' primary
    metrics with a difference (slower, faster, larger, smaller): what the
    gate reads beside the suite rows."""
    return [(r["scenario"], metric_label(k, cmp["mem_kind"]), m)
            for r in cmp["scenarios"] for k, m in r["metrics"].items()
            if m.get("primary") and m["verdict"] in orbgate.VERDICTS]


def flagged_text(cmp):
    """'; in scenarios: pool5-unix server CPU slower 1.12 [1.03–1.22]',
    or '' when none: the suite's headline names what the gate would."""
    rows = flagged(cmp)
    if not rows:
        return ""
    return "; in scenarios: " + ", ".join(
        f"{name} {label} {ratio_cell(m)}" for name, label, m in rows)


def steps_table(cmp, x="B"):
    head = ("scenario", "N", "round ms A", f"round ms {x}", f"{x}/A")
    rows = [(c["scenario"], s["n"], orbresults.fmt_num(s["a"]), orbresults.fmt_num(s["b"]),
             orbresults.fmt_num(s["ratio"], 2) if s["ratio"] is not None else "—")
            for c in cmp["scenarios"] for s in c["steps"]]
    return head, rows


def single_run(c):
    return c["runs_a"] < 2 or c["runs_b"] < 2


def per_set(cmps, parts):
    """'X' for one set; 'B: X; C: Y' for several (parts: one text per
    set, empty ones left out)."""
    if len(cmps) == 1:
        return parts[0]
    return "; ".join(f"{x}: {p}" for x, p in zip(LETTERS[1:], parts) if p)


def method_lines(cmps):
    """How the verdicts were reached, the smallest differences the noise
    lets the test detect, and where repeats are missing."""
    tests = cmps[0]["method"]["tests"]
    ratios = ", ".join(f"{x}/A" for x in LETTERS[1:len(cmps) + 1])
    crossings = ", ".join(LETTERS[:len(cmps) + 1])
    single = [[c["scenario"] for c in cmp["scenarios"] if single_run(c)]
              for cmp in cmps]
    level = cmps[0]["method"].get("ci_level")
    out = [f"Crossing N {crossings}: median (min–max) over runs. {ratios}: "
           "ratio of geometric means over runs, [interval]: for the tested "
           f"(primary) metrics at the {pct_level(level)} "
           "false-coverage-rate level that goes with the verdicts, so it "
           "excludes 1 exactly when a difference is found; round ms at a "
           "common N is descriptive (95%, not tested, no verdict). Round ms "
           "and server CPU per call at N: each run's local fit over its "
           "steps and probes within ±15% of N."]
    if not tests:
        out.append("No verdicts: one run on a side; repeats are needed "
                   "(run-suite --repeat 3).")
        return out
    scenarios = [c for cmp in cmps for c in cmp["scenarios"]]
    paired = [c for c in scenarios if c.get("paired")]
    pair_ratio = ratios if len(cmps) == 1 else "X/A"
    how = (f"one-sample t on each paired run's log ratio {pair_ratio}" if
           len(paired) == len(scenarios) else
           "Student t on log values per run" + (
               " (paired runs: one-sample t on each run's log ratio "
               f"{pair_ratio})" if paired else ""))
    every = "" if len(cmps) == 1 else " (every set's together)"
    alpha = cmps[0]["method"].get("alpha", orbstats.ALPHA)
    src = cmps[0]["method"].get("alpha_from", "default")
    spent = "" if src == "default" else f", alpha {alpha:.4g} from {src}"
    delta = cmps[0]["method"].get("equivalence", orbstats.EQUIVALENCE)
    out.append(f"Verdicts: {how}, BH-adjusted over {tests} tests{every} "
               f"of the primary metrics, q < {alpha:.4g}{spent}: "
               "slower/faster (memory: larger/smaller, not counted in a "
               "scenario's verdict) when the interval excludes 1; "
               f"same only when it lies within ±{100 * delta:.3g}% "
               "(--equivalence); inconclusive otherwise (the data cannot "
               "tell); negligible: significant but within 0.5% of 1, "
               "counted as same; interference: a difference no larger than "
               "what the sides' unequal disturbance of each other would "
               "make, not called.")
    shown = shown_metrics(cmps)
    mde = per_set(cmps, [", ".join(
        f"{metric_label(k, cmp['mem_kind'])} {mde_text(cmp['mde_pct'][k])}"
        for k in shown if cmp["mde_pct"].get(k) is not None)
        for cmp in cmps])
    if mde:
        out.append("Smallest difference detectable (80% power, median "
                   f"over scenarios): {mde}.")
    if any(single):
        out.append(f"No verdict for "
                   f"{per_set(cmps, [', '.join(s) for s in single])}: one "
                   "run on a side; repeats are needed (run-suite --repeat "
                   "3).")
    return out


def mde_text(pct):
    """'±4.2%', or 'too few runs' when the detectable difference is over
    a factor TOO_WIDE."""
    if pct is None or pct > 100 * (orbstats.TOO_WIDE - 1):
        return "too few runs"
    return f"±{pct:.1f}%"


def interference_lines(cmps):
    """What each paired scenario's runs measured of the sides' disturbance
    of each other (orbbench.interference), one line per set: the median
    over runs of each side's interference and the bias it would make in
    B/A's round time."""
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        parts = []
        for r in cmp["scenarios"]:
            inter = r.get("interference")
            if not inter or inter.get("bias_log") is None:
                continue
            ia = orbstats.median_or_none(s["interference"]
                                         for s in inter["a"])
            ib = orbstats.median_or_none(s["interference"]
                                         for s in inter["b"])
            pairing = inter["a"][0]["pairing"] if inter["a"] else "?"
            text = (f"{r['scenario']} ({pairing}) A {100 * ia:.1f}%, "
                    f"{x} {100 * ib:.1f}%, bias "
                    f"{100 * math.expm1(inter['bias_log']):+.1f}%")
            pa = orbstats.median_or_none(s.get("place") for s in inter["a"])
            pb = orbstats.median_or_none(s.get("place") for s in inter["b"])
            if pa is not None and pb is not None:
                text += (f", first block of a tick A {100 * pa:+.1f}%, "
                         f"{x} {100 * pb:+.1f}%")
            parts.append(text)
        if parts:
            out.append(f"Interference measured in the paired runs (each "
                       "side's timed rounds slowed by the other side's "
                       "servers, median over runs; a verdict the bias "
                       "could make alone is not called; in blocks, how much "
                       "slower a side's first block of a tick ran than its "
                       f"second at the same N): {'; '.join(parts)}.")
    return out


def note_lines(cmps):
    """The metrics' notes (fallbacks, dropped runs), one line per metric
    and note, naming the scenarios (and, with several sets, the set); not
    the one-run notes (method_lines says it) nor those of metrics the
    table leaves out."""
    shown = shown_metrics(cmps)
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        seen = {}
        for c in cmp["scenarios"]:
            for k in shown:
                for note in c["metrics"][k]["notes"]:
                    if note.startswith("one run on a side"):
                        continue
                    seen.setdefault((k, note), []).append(c["scenario"])
        tag = f"{x}: " if len(cmps) > 1 else ""
        for (k, note), names in seen.items():
            where = "all scenarios" if len(names) == len(cmp["scenarios"]) \
                else ", ".join(names)
            out.append(f"{tag}{metric_label(k, cmp['mem_kind'])} "
                       f"({where}): {note}")
    return out


def env_lines(cmps):
    """What differs between A's environment and each other set's."""
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        d = cmp["environment_differences"]
        if not d:
            out.append(("Environment: no difference" if len(cmps) == 1 else
                        f"Environment A → {x}: no difference") +
                       " in ORB, host, CPUs, kernel, tool, compiler flags, "
                       "CPU placement or scenario settings.")
            continue
        out += [f"Environment differences (A → {x}):"] + [
            f"  {e['field']}: {change_text(e['a'], e['b'])}" for e in d]
    return out


def change_text(a, b):
    """'a → b'; for long flag lists only the words that differ."""
    ta, tb = a.split(), b.split()
    if len(ta) > 4 and len(tb) > 4:
        gone = " ".join(t for t in ta if t not in tb) or "(nothing)"
        new = " ".join(t for t in tb if t not in ta) or "(nothing)"
        return f"{gone} → {new} (the rest alike)"
    return f"{a} → {b}"


def sources(paths):
    """The input files, shortened to "FOLDER/ (N files)" per folder."""
    by_dir = {}
    for p in paths:
        by_dir.setdefault(str(Path(p).parent), []).append(Path(p).name)
    return ", ".join(f"{d}/{names[0]}" if len(names) == 1 else
                     f"{d}/ ({len(names)} files)"
                     for d, names in by_dir.items())


def set_lines(cmps):
    """'A: files', 'B: files', … one per set."""
    return [f"A: {sources(cmps[0]['a'])}"] + [
        f"{x}: {sources(cmp['b'])}" for x, cmp in zip(LETTERS[1:], cmps)]


def unmatched_lines(cmps):
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        for key, side_name in (("only_in_a", "A"), ("only_in_b", x)):
            if cmp[key]:
                vs = f" (not in {x})" if key == "only_in_a" and \
                    len(cmps) > 1 else ""
                out.append(f"Only in {side_name}{vs}: {', '.join(cmp[key])}")
    return out


def steps_blocks(cmps):
    """[(title, head, rows)]: the round time at each N A and a set both
    reached, one table per set."""
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        head, rows = steps_table(cmp, x)
        if rows:
            out.append(("Median round time at each N both reached" +
                        ("" if len(cmps) == 1 else f", {x} against A"),
                        head, rows))
    return out


def render_text(cmps):
    lines = set_lines(cmps) + [""]
    lines += env_lines(cmps) + unmatched_lines(cmps)
    shead, srows = suite_table(cmps)
    if srows:
        lines += ["", "The suite:", "", orbcli.text_table(shead, srows), ""]
        lines += suite_lines(cmps)
    head, rows = main_table(cmps)
    lines += ["", "Per scenario:", "", orbcli.text_table(head, rows), ""]
    lines += method_lines(cmps) + interference_lines(cmps)
    notes = note_lines(cmps)
    if notes:
        lines += ["Notes:"] + [f"  {n}" for n in notes]
    for title, shead, srows in steps_blocks(cmps):
        lines += ["", f"{title} (median over runs):", "",
                  orbcli.text_table(shead, srows)]
    return "\n".join(lines) + "\n"


def render_md(cmps):
    env = env_lines(cmps)
    lines = ["# Comparison (A is the baseline)", ""]
    lines += [f"- {x}" for x in set_lines(cmps)]
    lines += ["", f"**{env[0]}**", ""]
    lines += [f"- {x.strip()}" if not x.startswith("Environment") else
              f"\n**{x}**\n" for x in env[1:] + unmatched_lines(cmps)]
    shead, srows = suite_table(cmps)
    if srows:
        lines += ["", "## The suite", "", orbcli.md_table(shead, srows), ""]
        lines += [f"- {x}" for x in suite_lines(cmps)]
    head, rows = main_table(cmps)
    lines += ["", "## Per scenario", "",
              orbcli.md_table(head, rows, "l" + "r" * (len(head) - 2) + "l"),
              ""]
    lines += [f"- {x}" for x in method_lines(cmps) +
              interference_lines(cmps) + note_lines(cmps)]
    for title, shead, srows in steps_blocks(cmps):
        lines += ["", f"## {title}", "", orbcli.md_table(shead, srows)]
    return "\n".join(lines) + "\n"


CSV_HEAD = ("scenario", "metric", "at_n", "n_a", "n_b", "a_median",
            "b_median", "ratio", "ci_low", "ci_high", "p_value", "q_value",
            "verdict", "mde_pct", "scenario_verdict")


def render_csv(cmps):
    """One row per scenario and metric (and set, in a first column "set",
    when there are several), full precision."""
    for line in env_lines(cmps) + unmatched_lines(cmps):
        print(f"{PROG}: {line.strip()}", file=sys.stderr)
    many = len(cmps) > 1
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow((("set",) if many else ()) + CSV_HEAD)

    def cell(x):
        return "" if x is None else x
    for x, cmp in zip(LETTERS[1:], cmps):
        for c in cmp["scenarios"]:
            for key, m in c["metrics"].items():
                w.writerow(([x] if many else []) +
                           [c["scenario"], key, cell(m.get("at_n")),
                            m["n_a"], m["n_b"],
                            cell(orbstats.median_or_none(m["a_values"])),
                            cell(orbstats.median_or_none(m["b_values"]))] +
                           [cell(m[k]) for k in ("ratio", "ci_low",
                                                 "ci_high", "p_value",
                                                 "q_value")] +
                           [m["verdict"], cell(m["mde_pct"]),
                            c["verdict"]])
        for key, m in cmp["suite"].items():
            w.writerow(([x] if many else []) +
                       ["(suite)", key, "", m["n_scenarios"],
                        m["n_scenarios"], "", ""] +
                       [cell(m[k]) for k in ("ratio", "ci_low", "ci_high",
                                             "p_value", "q_value")] +
                       [m["verdict"], "", cmp["suite_verdict"]])
    return buf.getvalue()


def json_doc(cmps):
    """Two sets: the comparison itself (docs/compare.md). More: the sets
    by letter, the shared method, and one comparison per set after A."""
    if len(cmps) == 1:
        return cmps[0]
    return {"sets": [{"set": "A", "files": cmps[0]["a"]}] + [
                {"set": x, "files": cmp["b"]}
                for x, cmp in zip(LETTERS[1:], cmps)],
            "method": cmps[0]["method"],
            "comparisons": [dict(cmp, set=x)
                            for x, cmp in zip(LETTERS[1:], cmps)]}


def render(cmps, fmt):
    if fmt == "json":
        return json.dumps(json_doc(cmps), indent=1,
                          ensure_ascii=False) + "\n"
    if fmt == "csv":
        return render_csv(cmps)
    if fmt == "md":
        return render_md(cmps)
    return render_text(cmps)


# ---- overlay figures ------------------------------------------------------

def side_labels(res_a, res_b, path_a, path_b, x="B"):
    """What to call A and B (set x) in the figures: the ORBs when they
    differ, else the folders' (or files') names, else "A" and x."""
    la, lb = orbresults.orb_label(res_a[0].doc), orbresults.orb_label(res_b[0].doc)
    if la != lb:
        return la, lb
    na, nb = Path(path_a).resolve().name, Path(path_b).resolve().name
    return (na, nb) if na != nb else ("A", x)


def write_figures(cmp, res_a, res_b, outdir, labels):
    """The comparison's figures (orbbench.figures.compare), with the
    verdicts on the capacity figure."""
    import orbbench.figures.ab as figs_ab
    import orbbench.figures.compare as figs_compare
    written = figs_compare.compare_all(
        res_a, res_b, outdir, labels,
        verdicts=figs_ab.verdicts_from_compare(cmp),
        log=lambda m: orbcli.note(PROG, m))
    for f in written:
        orbcli.note(PROG, f"wrote {f.png} and .svg")
    return written


def alpha_of(a):
    """(alpha, where it came from): --alpha, else the alpha per look that
    the sequential run (run-suite --until-verdict) which wrote these sets
    spent (its sequential.json, beside the sets' folders, when it is bound
    to exactly these sets: orbbench.sequential), else 0.05."""
    if a.alpha is not None:
        return a.alpha, "--alpha"
    return orbseq.alpha_from_record(a.sets, lambda m: orbcli.note(PROG, m),
                                    orbstats.ALPHA)


def hosts_main(a):
    """--hosts: every host's numbers side by side (orbhosts)."""
    import orbbench.hosts as orbhosts
    try:
        hosts = orbhosts.load_hosts(a.sets)
        sys.stdout.write(orbhosts.render_hosts(hosts, a.mem, a.format))
        if a.plots:
            import orbbench.figures.hosts as figs_hosts
            for f in figs_hosts.host_figures(
                    hosts, Path(a.plots), log=lambda m: orbcli.note(PROG, m),
                    mem=a.mem):
                orbcli.note(PROG, f"wrote {f.png} and .svg")
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error(a.sets, e))
    return 0


def main(argv):
    a = parse_args(argv)
    if a.hosts:
        return hosts_main(a)
    try:
        sets = [orbresults.load_repeats([path], lambda m: orbcli.note(PROG, m))
                for path in a.sets]
        orbresults.refuse_uncomparable([r for res in sets for r in res], "compare")
        alpha, why = alpha_of(a)
        cmps = compare_many(sets, a.at, a.mem, alpha, a.equivalence / 100)
        for c in cmps:
            c["method"]["alpha_from"] = why
        for path, cmp in zip(a.sets[1:], cmps):
            if not cmp["scenarios"]:
                raise ValueError(f"{a.sets[0]} and {path}: no scenario in "
                                 "common")
        code = gate_and_write(cmps, a)
        for x, path, res, cmp in zip(LETTERS[1:], a.sets[1:], sets[1:],
                                     cmps if a.plots else []):
            out = Path(a.plots)
            write_figures(cmp, sets[0], res,
                          out if len(cmps) == 1 else out / f"A-vs-{x}",
                          side_labels(sets[0], res, a.sets[0], path, x))
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error(a.sets, e))
    return code


# ---- the regression gate (orbbench.gate) ----------------------------------

def gate_and_write(cmps, a):
    """Write the comparison in a.format (junit and github by orbbench.gate,
    on the JSON document); with --fail-on, list the regressions on stderr
    and return 1 if there are any, else 0."""
    doc = json_doc(cmps)
    if a.fail_on:   # a NaN ratio must fail the gate, not pass it
        orbgate.check(doc, "the comparison", require_tested=False)
    fail_on = a.fail_on or frozenset({"slower"})
    if a.format in orbgate.FORMATS:
        sys.stdout.write(orbgate.render(doc, a.format, fail_on,
                                        a.threshold))
        if a.format == "github":
            for line in orbgate.annotations(doc, fail_on, a.threshold):
                print(line, file=sys.stderr)
    else:
        text = render(cmps, a.format)
        sys.stdout.write(orbesc.guard_lines(text)
                         if a.format in ("text", "md") else text)
    if not a.fail_on:
        return 0
    code, lines = orbgate.report(doc, a.fail_on, a.threshold)
    for line in lines:
        orbcli.note(PROG, line)
    return code

