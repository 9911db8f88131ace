"""One suite across versions (or commits): its points in order, each step
from one point to the next compared as orbbench compare compares two
sets, every step's tests adjusted together, the change points, and what
each point's figures draw (orbbench history, docs/usage.md#history).

A point is one result folder (a suite's, or a variant's sub-folder of an
interleaved suite) and its label. Standard library and the comparison
model only: the figures are in orbbench.figures.history."""
import datetime
import re
from collections import namedtuple
from pathlib import Path

import orbbench.comparison.model as orbcmp
import orbbench.results as orbresults
import orbbench.stats as orbstats

# One point of the history: its label, the folder as given, its results.
Point = namedtuple("Point", "label folder results")

ORDERS = ("version", "given", "date")

# (key, title, unit or None) of what the history follows per scenario,
# in the table's and the figures' order; the memory key is "<mem>_kb"
# (--mem).
# Threads per server is drawn and its ratio shown, untested: a count that
# is the same in every run has no spread for a test to weigh.
METRICS = (("crossing_n", "servers held (crossing N)", None),
           ("server_cpu_us", "server CPU per call", "µs"),
           ("mem", "memory per server", "KiB"),
           ("threads", "threads per server", "threads"))

# The verdicts that make a step a change point: a difference the data
# show (significant after the adjustment, beyond negligible), by which
# way it goes for the reader.
WORSE = ("slower", "larger")
BETTER = ("faster", "smaller")


def metric_key(key, mem):
    return orbcmp.metric_key(key, mem)


def metric_title(key, mem):
    """The figure's and the table's name of a history metric key (or of
    round_ms, which the table shows beside them)."""
    if key == metric_key("mem", mem):
        return f"{orbresults.MEM_LABELS[mem]} per server"
    if key == "round_ms":
        return "round ms"
    return {k: title for k, title, _ in METRICS}[key]


def metric_short(key, mem):
    """A table column's name of a history metric key ("crossing N",
    "server CPU", "PSS", "threads")."""
    return "threads" if key == "threads" else orbcmp.metric_label(key, mem)


# ---- the points -----------------------------------------------------------

def split_arg(arg):
    """(label or None, folder) of one argument: LABEL=DIR, or DIR (an
    existing folder whose name has '=' in it stays a folder)."""
    if "=" in arg and not Path(arg).is_dir():
        label, _, folder = arg.partition("=")
        if not label or not folder:
            raise ValueError(f"{arg}: give LABEL=DIR or DIR")
        return label, folder
    return None, arg


def usable(results, folder, note):
    """The results of kinds compared by their steps (the sweep and the
    kinds shaped like it); each other one named once in note(line).
    ValueError when none is left."""
    kept = []
    for r in results:
        kind = orbresults.kind(r.doc)
        if not kind.stepped:
            why = kind.refusal or (f"a {kind.name} result (compared by its "
                                   "own metrics)")
            note(f"{r.path}: {why}; left out (history follows "
                 "sweep-shaped results)")
        else:
            kept.append(r)
    if not kept:
        raise ValueError(f"{folder}: no sweep-shaped result to follow")
    return kept


def load_points(args, note):
    """[Point] of the arguments, in the order given: each folder's
    complete runs (interrupted ones named in note and left out), labelled
    (default_labels). ValueError (one line naming the folder) for a
    missing or empty folder, a bad result, two points of one label."""
    given = [split_arg(a) for a in args]
    loaded = []
    for label, folder in given:
        if not Path(folder).is_dir():
            raise ValueError(f"{folder}: not a result folder")
        res = orbresults.load_repeats([folder], note)
        loaded.append((label, folder, usable(res, folder, note)))
    labels = default_labels(loaded)
    seen = {}
    for label, (_, folder, _) in zip(labels, loaded):
        if label in seen:
            raise ValueError(f"{folder}: label {label!r} is also "
                             f"{seen[label]}'s: give LABEL=DIR")
        seen[label] = folder
    return [Point(label, folder, res)
            for label, (_, folder, res) in zip(labels, loaded)]


def default_labels(loaded):
    """The points' labels: the one given (LABEL=DIR), else the ORB its
    server recorded (name and version), else, when the ORB is not
    recorded or another unlabelled point has the same one (a history over
    commits of one ORB), the folder's name."""
    orbs = [None if label else orbresults.orb_label(res[0].doc)
            for label, _, res in loaded]
    out = []
    for (label, folder, _), orb in zip(loaded, orbs):
        if label:
            out.append(label)
        elif "?" in orb.split() or orbs.count(orb) > 1:
            out.append(Path(folder).resolve().name)
        else:
            out.append(orb)
    return out


def version_key(label):
    """The version numbers in a label as a tuple of ints ("omniORB
    4.2.5" -> (4, 2, 5); "4.10.0" sorts after "4.9"), or None without
    any: the first run of digits joined by dots."""
    m = re.search(r"\d+(?:\.\d+)*", label)
    return tuple(int(x) for x in m.group().split(".")) if m else None


def started(point):
    """When a point's first run started (its results' started_at), or
    None when none records it."""
    stamps = []
    for r in point.results:
        s = r.doc.get("started_at")
        if isinstance(s, str):
            try:
                t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
            except ValueError:
                continue
            # A time without a zone is UTC, as the client writes them: an
            # aware and a naive time cannot be compared.
            stamps.append(t if t.tzinfo else
                          t.replace(tzinfo=datetime.timezone.utc))
    return min(stamps) if stamps else None


def ordered(points, order):
    """The points in order: version (by version_key), given, or date (by
    started, whole seconds); ties in given order. ValueError naming the
    point without a version or a start time."""
    if order == "given":
        return list(points)
    if order == "version":
        for p in points:
            if version_key(p.label) is None:
                raise ValueError(
                    f"{p.folder}: label {p.label!r} has no version number "
                    "to order by: give LABEL=DIR, or --order given|date")
        return sorted(points, key=lambda p: version_key(p.label))
    for p in points:
        if started(p) is None:
            raise ValueError(f"{p.folder}: no result records started_at: "
                             "give --order given|version")
    return sorted(points, key=started)


# ---- the steps ------------------------------------------------------------

def threads_at(doc, n):
    """A run's threads per server at its step of n servers, or None."""
    s = orbresults.step_at(doc, n) if n is not None else None
    return orbresults.threads_per_server(s) if s else None


def threads_metric(docs_a, docs_b, n):
    """Threads per server at n (the memory's N) on each side, as a
    descriptive metric (judge marks it untested)."""
    docs_b, paired = orbcmp.pair_up(docs_a, docs_b)
    return orbcmp.metric([threads_at(d, n) for d in docs_a],
                         [threads_at(d, n) for d in docs_b], False, at_n=n,
                         paired=paired)


def step(pa, pb, mem):
    """One step, point pa to point pb: compare's comparison of the two
    (orbbench.comparison.model.compare_pair, pb against pa), each
    scenario with threads per server too; not yet judged."""
    cmp = orbcmp.compare_pair(pa.results, pb.results, None, mem)
    ga = orbresults.group_by_scenario(pa.results)
    gb = orbresults.group_by_scenario(pb.results)
    for row in cmp["scenarios"]:
        name = row["scenario"]
        n = row["metrics"][metric_key("mem", mem)].get("at_n")
        row["metrics"]["threads"] = threads_metric(
            [r.doc for r in ga[name]], [r.doc for r in gb[name]], n)
    cmp["from"], cmp["to"] = pa.label, pb.label
    return cmp


def history(points, mem="pss", alpha=orbstats.ALPHA,
            delta=orbstats.EQUIVALENCE):
    """The history of points (in order, at least two): {"points", "steps"
    (one comparison per step, judged together: one BH family over every
    step's primary tests, as compare adjusts over every set), "change
    points", "series", "method"}. ValueError for fewer than two points,
    a point mixing ORBs or settings, or a step without a scenario in
    common."""
    if len(points) < 2:
        raise ValueError("give at least two result folders (points), not "
                         f"{len(points)}")
    for p in points:
        orbcmp.check_side(p.results, p.folder)
    steps = [step(a, b, mem) for a, b in zip(points, points[1:])]
    for s, (a, b) in zip(steps, zip(points, points[1:])):
        if not s["scenarios"]:
            raise ValueError(f"{a.folder} and {b.folder}: no scenario in "
                             "common")
    orbcmp.judge(steps, mem, alpha, delta)
    return {"points": [point_doc(p) for p in points],
            "mem_kind": mem,
            "method": dict({k: v for k, v in steps[0]["method"].items()
                            if k not in PER_STEP}, steps=len(steps),
                           history="each step compared as orbbench compare "
                           "compares B with A; one BH family over every "
                           "step's primary tests"),
            "steps": [step_doc(s) for s in steps],
            "change_points": change_points(steps, mem),
            "series": series(points, mem)}


def point_doc(p):
    when = started(p)
    return {"label": p.label, "folder": str(p.folder),
            "files": [str(r.path) for r in p.results],
            "orb": orbresults.orb_label(p.results[0].doc),
            "started_at": when.isoformat() if when else None}


# What judge() works out for each comparison alone (the moderated
# variances, the spread between runs): a step's own, not the history's.
PER_STEP = ("moderated", "between_runs")


def step_doc(cmp):
    """A step as the JSON has it: from, to, and per scenario its verdict
    and metrics (compare's metric dicts)."""
    return {"from": cmp["from"], "to": cmp["to"],
            "method": {k: cmp["method"][k] for k in PER_STEP
                       if k in cmp["method"]},
            "mde_pct": cmp["mde_pct"],
            "environment_differences": cmp["environment_differences"],
            "only_in_from": cmp["only_in_a"], "only_in_to": cmp["only_in_b"],
            "suite": cmp["suite"], "suite_verdict": cmp["suite_verdict"],
            "scenarios": [{k: row[k] for k in
                           ("scenario", "verdict", "paired", "runs_a",
                            "runs_b", "metrics")}
                          for row in cmp["scenarios"]]}


def change_points(steps, mem):
    """[{"scenario", "metric", "from", "to", "ratio", "verdict",
    "q_value", "direction"}]: every tested metric of a step whose verdict
    is a difference (WORSE or BETTER), in step order (round ms among
    them where it is tested: a fixed-N scenario's, which has no
    crossing)."""
    keys = [metric_key(k, mem) for k, _, _ in METRICS] + ["round_ms"]
    out = []
    for s in steps:
        for row in s["scenarios"]:
            for key in keys:
                m = row["metrics"].get(key)
                if m and m["verdict"] in WORSE + BETTER:
                    out.append({"scenario": row["scenario"], "metric": key,
                                "from": s["from"], "to": s["to"],
                                "ratio": m["ratio"], "verdict": m["verdict"],
                                "q_value": m["q_value"],
                                "direction": "worse" if m["verdict"] in
                                WORSE else "better"})
    return out


# ---- what each point's figures draw ---------------------------------------

def reading_ns(docs, mem):
    """(N, window, memory's N) at which a scenario's costs are read over
    docs, as compare reads them (orbbench.comparison.model): server CPU
    per call at the scenario's cost_n (else the largest N every run
    measured), memory and threads per server at the N nearest it with a
    memory figure in every run."""
    n, window, _ = orbcmp.cost_n(docs)
    return n, window, orbcmp.mem_common_n(docs, mem, near=n)


def values(docs, mem, ns):
    """{history metric key: [each run's value]} of one scenario at one
    point: crossing N, and the costs at ns (reading_ns)."""
    # One N by design (the bench suite) has no crossing, as in compare.
    fixed = all(d["steps"] and orbresults.is_fixed_n(d) for d in docs)
    crossing = [] if fixed else orbcmp.crossing_values(docs, [])[0]
    n, window, nm = ns
    cpu = [orbcmp.fit_at(d, n, orbresults.server_cpu_per_call_us,
                         lambda s: s.get("calls"), window) for d in docs]
    return {"crossing_n": crossing, "server_cpu_us": cpu,
            metric_key("mem", mem): [orbcmp.mem_at(d, nm, mem)
                                     for d in docs],
            "threads": [threads_at(d, nm) for d in docs]}


def crossing_span(docs):
    """(low, high) over the runs' crossing intervals (the lowest low and
    the highest high), or None when no run records one."""
    ivs = [orbresults.get(d, "result.crossing_interval") for d in docs]
    ivs = [iv for iv in ivs if iv]
    if not ivs:
        return None
    return min(lo for lo, _ in ivs), max(hi for _, hi in ivs)


def series(points, mem):
    """{metric key: {scenario: [{"value", "low", "high", "runs"} or None,
    one per point]}, "at_n": {scenario: {"cost", "memory"}}}: the costs
    of a scenario read at one N for every point (reading_ns over all
    their runs); the value is the runs' geometric mean (what a
    step's ratio divides); low–high the crossing intervals' span for
    crossing N, else the runs' min–max (either way reaching every run's
    value). None where the point has no run
    of the scenario, or no value."""
    names = orbresults.seed_order([orbresults.scenario_name(r.doc)
                                   for p in points for r in p.results])
    keys = [metric_key(k, mem) for k, _, _ in METRICS]
    out = {k: {name: [] for name in names} for k in keys}
    # One N per scenario for every point, read over all their runs, so
    # that a line moves with the ORB and not with how far each point got
    # (memory per server falls with N as the shared pages spread).
    ns = {}
    for name in names:
        docs = [r.doc for p in points for r in p.results
                if orbresults.scenario_name(r.doc) == name]
        ns[name] = reading_ns(docs, mem)
        out.setdefault("at_n", {})[name] = {"cost": ns[name][0],
                                            "memory": ns[name][2]}
    for p in points:
        groups = orbresults.group_by_scenario(p.results)
        for name in names:
            docs = [r.doc for r in groups.get(name, [])]
            vals = values(docs, mem, ns[name]) if docs else {}
            for k in keys:
                out[k][name].append(cell(vals.get(k) or [], docs,
                                         k == "crossing_n"))
    return out


def cell(vals, docs, crossing):
    xs = [v for v in vals if orbresults.is_num(v) and v > 0]
    if not xs:
        return None
    value = orbcmp.geomean(xs)
    span = crossing_span(docs) if crossing else None
    low, high = span if span else (min(xs), max(xs))
    # A run without an interval (it never crossed: its max_servers) can
    # lie outside the others' intervals; the bar reaches it.
    return {"value": value, "low": min(low, value, *xs),
            "high": max(high, value, *xs), "runs": len(xs)}
