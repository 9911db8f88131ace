"""A comparison's JSON shape, in one place (docs/compare.md): what
compare --format json writes, gate reads back and every other format
renders. Each object is a TypedDict (a dict to json, typed here), built
by one function here in its order: metric (a metric of a scenario),
row (a scenario), comparison (one set against A), json_doc (the
document). The fields that the verdicts fill later (q_value, ci_level,
primary, the suite, ...) are named in their type with who sets them."""
from typing import Any, Dict, List, Optional, TypedDict

import orbbench.stats as orbstats

# Sets are called A (the baseline), B, C, … in the order given.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class MetricDoc(TypedDict, total=False):
    """One metric of one scenario: orbbench.stats.compare_metric's test
    (compare_paired's for paired runs) of the runs' values. In this order
    first, then the rest by name."""
    ratio: Optional[float]          # B/A, ratio of geometric means
    ci_low: Optional[float]         # its interval (ci_level, set by judge)
    ci_high: Optional[float]
    p_value: Optional[float]
    q_value: Optional[float]        # BH-adjusted by judge; None untested
    verdict: str                    # faster, slower, same, ..., "n/a"
    mde_pct: Optional[float]        # smallest detectable difference, %
    a_values: List[Optional[float]]  # each run's value (or block's)
    b_values: List[Optional[float]]
    at_n: int                       # the N it was read at, if one
    n_a: int                        # values used per side
    n_b: int
    # by name: at_window (a fit's ×window), ci95_low, ci95_high (the
    # unadjusted interval), ci_level, df, equivalence, higher_is_better,
    # label (a metric of a kind without steps), log_ratio, memory,
    # notes, paired, pairs and runs (paired by block or run),
    # per_measurement, primary, se_log, se_factor, source (of crossing
    # N), within (each paired run's own test); and what judge's steps
    # add: moderated, between_runs, within_runs, withheld
    notes: List[str]
    primary: bool


# A metric's fields in this order, then the rest by name.
METRIC_FIRST = ("ratio", "ci_low", "ci_high", "p_value", "q_value",
                "verdict", "mde_pct", "a_values", "b_values", "at_n", "n_a",
                "n_b")


def metric(va, vb, higher_is_better, memory=False, at_n=None,
           missing="not in these results", paired=False,
           **extra) -> MetricDoc:
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
    return {k: m[k] for k in METRIC_FIRST +
            tuple(sorted(set(m) - set(METRIC_FIRST))) if k in m}


class StepDoc(TypedDict):
    """Round time at one N that both sides reached."""
    n: int
    a: Optional[float]              # median over runs
    b: Optional[float]
    ratio: Optional[float]          # b / a


class CrossingRun(TypedDict):
    """One run's crossing, as the figures draw it."""
    file: str
    crossing_n: Optional[float]
    crossing_interval: Optional[List[float]]
    max_servers: int                # what it held (orbbench.results.held)


class RowDoc(TypedDict):
    """One scenario, both sides. A kind without steps has no N (at_n
    None), no crossing, no steps, and only the runs of its sides."""
    scenario: str
    kind: str
    verdict: str                    # set by judge, from primary metrics
    paired: bool
    interference: Optional[Dict[str, Any]]  # orbbench.interference
    runs_a: int
    runs_b: int
    at_n: Optional[int]             # the N its costs were read at
    metrics: Dict[str, MetricDoc]   # in its kind's Metric order
    crossing: Dict[str, List[CrossingRun]]  # {"a": [...], "b": [...]}
    a: Dict[str, Any]               # orbbench.results.summarize, or runs
    b: Dict[str, Any]
    steps: List[StepDoc]


def row(name, kind, paired, interference, runs, at_n, metrics, crossing,
        sides, steps) -> RowDoc:
    """A scenario's row, its verdict "n/a" until judge sets it. runs and
    sides: (A's, B's)."""
    return {"scenario": name, "kind": kind, "verdict": "n/a",
            "paired": paired, "interference": interference,
            "runs_a": runs[0], "runs_b": runs[1], "at_n": at_n,
            "metrics": metrics, "crossing": crossing,
            "a": sides[0], "b": sides[1], "steps": steps}


class MethodDoc(TypedDict, total=False):
    """How the verdicts were reached: the texts of method(), then what
    judge adds (within_runs, moderated, between_runs per metric key;
    tests, rejected, ci_level, suite_tests, suite_rejected,
    suite_ci_level, alpha, equivalence) and compare's alpha_from."""
    test: str
    tests: Optional[int]
    alpha: float


def method() -> MethodDoc:
    return {"test": "Student t, pooled variance, on the log of each run's "
                    "value; for paired runs (orbbench --paired), "
                    "one-sample t on each run's log ratio B/A",
            "ratio": "ratio of geometric means over runs, B/A",
            "primary": "crossing N (round ms at a fixed N), server CPU per "
                       "call, memory per server; a kind without steps: its "
                       "own metrics marked primary",
            "suite": "geometric mean of the scenarios' B/A; one-sample t "
                     "over their mean log ratios",
            "adjustment": "Benjamini-Hochberg",
            "families": "the scenarios' primary metrics; the suite rows "
                        "(each over every set)",
            "intervals": "tested metrics at their family's "
                         "false-coverage-rate level, 1 - max(R, 1) alpha "
                         "/ m (ci_level); unadjusted 95% as ci95_low, "
                         "ci95_high",
            "tests": None,
            "alpha": orbstats.ALPHA, "power": orbstats.POWER}


class ComparisonDoc(TypedDict, total=False):
    """One set (b) against the baseline (a); suite and suite_verdict are
    judge's (the suite rows: orbbench.stats.suite_metric per primary
    metric key)."""
    a: List[str]                    # the files of each side
    b: List[str]
    mem_kind: str                   # --mem
    method: MethodDoc
    mde_pct: Dict[str, Optional[float]]  # median over scenarios, judge's
    environment_differences: List[Dict[str, str]]  # field, a, b
    only_in_a: List[str]
    only_in_b: List[str]
    scenarios: List[RowDoc]
    suite: Dict[str, Dict[str, Any]]
    suite_verdict: str


def comparison(files, mem, diffs, only, rows) -> ComparisonDoc:
    """A comparison before judge: files and only ((A's, B's) each),
    diffs [(field, a, b)]."""
    return {"a": [str(p) for p in files[0]],
            "b": [str(p) for p in files[1]],
            "mem_kind": mem, "method": method(), "mde_pct": {},
            "environment_differences": [
                {"field": f, "a": a, "b": b} for f, a, b in diffs],
            "only_in_a": only[0], "only_in_b": only[1],
            "scenarios": rows}


class SetsDoc(TypedDict):
    """More than two sets: the sets by letter, the shared method, one
    comparison per set after A (with its "set")."""
    sets: List[Dict[str, Any]]      # {"set": letter, "files": [...]}
    method: MethodDoc
    comparisons: List[ComparisonDoc]


def json_doc(cmps):
    """Two sets: the comparison itself (docs/compare.md). More: the sets
    by letter, the shared method, and one comparison per set after A."""
    if len(cmps) == 1:
        return cmps[0]
    doc: SetsDoc = {
        "sets": [{"set": "A", "files": cmps[0]["a"]}] + [
            {"set": x, "files": cmp["b"]}
            for x, cmp in zip(LETTERS[1:], cmps)],
        "method": cmps[0]["method"],
        "comparisons": [dict(cmp, set=x)
                        for x, cmp in zip(LETTERS[1:], cmps)]}
    return doc
