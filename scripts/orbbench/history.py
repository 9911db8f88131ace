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
import orbbench.comparison.readings as orbread
import orbbench.interference as orbinterference
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

# The client half (docs/callers.md), followed only where a caller made
# some run's calls: the caller's CPU per call (at the cost N, as the
# server's), what each server costs it in memory (its USS slope over N)
# and its threads (at the measurement nearest the cost N).
CLIENT_METRICS = (("client_cpu_us", "client CPU per call", "µs"),
                  ("client_uss_kb", "client USS per server", "KiB"),
                  ("client_threads", "client threads", "threads"))

# The client half's tests: compare shows them descriptive; the history
# tests them in a family of their own (client_family), so that the
# server half's family is the one compare adjusts. Threads are shown,
# not tested, as the servers' are.
CLIENT_TESTED = ("client_cpu_us", "client_uss_kb")

# The verdicts that make a step a change point: a difference the data
# show (significant after the adjustment, beyond negligible), by which
# way it goes for the reader.
WORSE = ("slower", "larger")
BETTER = ("faster", "smaller")



def sweep_metric(key):
    """The sweep kind's Metric of key, from the registry (a core looks a
    kind up; orbbench.kinds registers it): the client half's readers."""
    return next(m for m in orbresults.KINDS["sweep"].metrics if m.key == key)

def metric_key(key, mem):
    return orbcmp.metric_key(key, mem)


def metric_rows(client):
    """[(key, title, unit)] the history follows: the server half
    (METRICS), then with client the client half (CLIENT_METRICS)."""
    return METRICS + (CLIENT_METRICS if client else ())


def metric_keys(mem, client):
    return [metric_key(k, mem) for k, _, _ in metric_rows(client)]


def metric_unit(key, mem):
    return {metric_key(k, mem): u for k, _, u in metric_rows(True)}[key]


def metric_title(key, mem):
    """The figure's and the table's name of a history metric key (or of
    round_ms, which the table shows beside them)."""
    if key == metric_key("mem", mem):
        return f"{orbresults.MEM_LABELS[mem]} per server"
    if key == "round_ms":
        return "round ms"
    return {k: title for k, title, _ in metric_rows(True)}[key]


def metric_short(key, mem):
    """A table column's name of a history metric key ("crossing N",
    "server CPU", "PSS", "threads", "client CPU")."""
    if key == "threads":
        return "threads"
    if key == "client_uss_kb":
        return "client USS"
    return orbcmp.metric_label(key, mem)


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
    commits of one ORB), the folder's name. Where every point's server is
    one ORB and each point's caller another (the client half's history),
    the callers' ORBs."""
    orbs = [None if label else orbresults.orb_label(res[0].doc)
            for label, _, res in loaded]
    # One server ORB at every point but a caller's ORB that moves: the
    # history of the client half, labelled by the callers.
    callers = [None if label else caller_label(res[0].doc)
               for label, _, res in loaded]
    if len(set(orbs) - {None}) == 1 and None not in callers and \
            len(set(callers)) == len(callers):
        orbs = callers
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
    docs_b, paired = orbread.pair_up(docs_a, docs_b)
    return orbcmp.metric([threads_at(d, n) for d in docs_a],
                         [threads_at(d, n) for d in docs_b], False, at_n=n,
                         paired=paired)


def step(pa, pb, mem, sides=None):
    """One step, point pa to point pb: compare's comparison of the two
    (orbbench.comparison.model.compare_pair, pb against pa), each
    scenario with threads per server too; not yet judged. sides: the
    step's own (A results, B results) when the step was measured on its
    own (a paired suite of the two neighbours: history_pairs), else the
    points' results."""
    res_a, res_b = sides or (pa.results, pb.results)
    cmp = orbcmp.compare_pair(res_a, res_b, None, mem)
    ga = orbresults.group_by_scenario(res_a)
    gb = orbresults.group_by_scenario(res_b)
    for row in cmp["scenarios"]:
        name = row["scenario"]
        n = row["metrics"][metric_key("mem", mem)].get("at_n")
        row["metrics"]["threads"] = threads_metric(
            [r.doc for r in ga[name]], [r.doc for r in gb[name]], n)
    cmp["from"], cmp["to"] = pa.label, pb.label
    return cmp


def history(points, mem="pss", alpha=orbstats.ALPHA,
            delta=orbstats.EQUIVALENCE, sides=None):
    """The history of points (in order, at least two): {"points", "steps"
    (one comparison per step, judged together: one BH family over every
    step's primary tests, as compare adjusts over every set), "change
    points", "series", "method", "client"}. sides: per step, its own (A
    results, B results) (neighbours paired: orbbench.history_pairs), else
    each step compares the points' results. When some run had a caller
    (client), the client half is followed too, its tests a family of
    their own (client_family). ValueError for fewer than two points, a
    point mixing ORBs or settings, or a step without a scenario in
    common."""
    if len(points) < 2:
        raise ValueError("give at least two result folders (points), not "
                         f"{len(points)}")
    for p in points:
        orbcmp.check_side(p.results, p.folder)
    sides = sides or [None] * (len(points) - 1)
    steps = [step(a, b, mem, sd)
             for a, b, sd in zip(points, points[1:], sides)]
    for s, (a, b) in zip(steps, zip(points, points[1:])):
        if not s["scenarios"]:
            raise ValueError(f"{a.folder} and {b.folder}: no scenario in "
                             "common")
    orbcmp.judge(steps, mem, alpha, delta)
    has_caller = sweep_metric("client_cpu_us").when
    client = has_caller([r.doc for p in points for r in p.results])
    method = dict({k: v for k, v in steps[0]["method"].items()
                   if k not in PER_STEP}, steps=len(steps),
                  history="each step compared as orbbench compare "
                  "compares B with A; one BH family over every "
                  "step's primary tests",
                  neighbours_paired=all(sd is not None for sd in sides))
    if client:
        method["client"] = client_family(steps, alpha, delta)
    return {"points": [point_doc(p) for p in points],
            "mem_kind": mem,
            "client": client,
            "method": method,
            "steps": [step_doc(s) for s in steps],
            "change_points": change_points(steps, mem),
            "series": series(points, mem, client)}


def client_family(steps, alpha=orbstats.ALPHA, delta=orbstats.EQUIVALENCE):
    """Test the client half's metrics (CLIENT_TESTED) of every step as one
    BH family of their own, after judge() left them descriptive: paired
    runs on every run's pairs first (orbbench.stats.within_runs, as
    judge does for the primary ones), then the adjustment and the
    verdicts (slower, faster, same, inconclusive; larger, smaller for
    memory), and interference where compare would withhold one
    (orbbench.interference.withhold). Each tested metric is flagged
    "client_tested". Returns the
    family's {"tests", "rejected", "ci_level", "within_runs",
    "metrics"}."""
    ms = [row["metrics"][k] for s in steps for row in s["scenarios"]
          for k in CLIENT_TESTED if k in row["metrics"] and
          row["metrics"][k].get("p_value") is not None]
    within = {k: orbstats.within_runs(
        [row["metrics"][k] for s in steps for row in s["scenarios"]
         if k in row["metrics"] and
         row["metrics"][k].get("p_value") is not None])
        for k in CLIENT_TESTED}
    tests, rejected, level = orbstats.adjust_family(ms, alpha, delta)
    for m in ms:
        m["client_tested"] = True
    # A paired step's client verdicts as compare's own: one the sides'
    # unequal disturbance could have made alone is not called.
    for s in steps:
        for row in s["scenarios"]:
            orbinterference.withhold(row, CLIENT_TESTED)
    return {"tests": tests, "rejected": rejected, "ci_level": level,
            "within_runs": within, "metrics": list(CLIENT_TESTED),
            "family": "the client half's tests of every step, apart from "
                      "the server half's (compare shows them "
                      "descriptive)"}


def caller_label(doc):
    """The ORB of a run's caller, "omniORB 4.0.7" (its --version), or None
    when orbbench's own client made the calls."""
    c = doc.get("caller") or {}
    words = [str(c[k]) for k in ("name", "version") if c.get(k)]
    return " ".join(words) or None


def point_doc(p):
    when = started(p)
    return {"label": p.label, "folder": str(p.folder),
            "files": [str(r.path) for r in p.results],
            "orb": orbresults.orb_label(p.results[0].doc),
            "caller": caller_label(p.results[0].doc),
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
    crossing; the client half's, client_family's)."""
    keys = metric_keys(mem, True) + ["round_ms"]
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
    n, window, _ = orbread.cost_n(docs)
    return n, window, orbread.mem_common_n(docs, mem, near=n)


def client_uss(doc):
    """What each server cost a run's caller in USS (result.costs.caller's
    slope over N, as compare reads it), or None."""
    return orbresults.get(doc, "result.costs.caller.memory_per_server_kb"
                               ".uss_kb")


def client_values(docs, ns):
    """{client metric key: [each run's value]}: the caller's CPU per call
    at the cost N (a fit, as the server's), its USS per server, its
    threads at the measurement nearest the cost N."""
    n, window, _ = ns
    cpu = sweep_metric("client_cpu_us").step
    threads = sweep_metric("client_threads").step
    return {"client_cpu_us": [orbread.fit_at(d, n, cpu,
                                            lambda s: s.get("calls"), window)
                              for d in docs],
            "client_uss_kb": [client_uss(d) for d in docs],
            "client_threads": [orbread.nearest_value(d, n, threads)
                               if n is not None else None for d in docs]}


def values(docs, mem, ns, client=False):
    """{history metric key: [each run's value]} of one scenario at one
    point: crossing N, and the costs at ns (reading_ns); with client the
    client half's too (client_values)."""
    # One N by design (the bench suite) has no crossing, as in compare.
    fixed = all(d["steps"] and orbresults.is_fixed_n(d) for d in docs)
    crossing = [] if fixed else orbread.crossing_values(docs, [])[0]
    n, window, nm = ns
    cpu = [orbread.fit_at(d, n, orbresults.server_cpu_per_call_us,
                         lambda s: s.get("calls"), window) for d in docs]
    out = {"crossing_n": crossing, "server_cpu_us": cpu,
           metric_key("mem", mem): [orbread.mem_at(d, nm, mem)
                                    for d in docs],
           "threads": [threads_at(d, nm) for d in docs]}
    if client:
        out.update(client_values(docs, ns))
    return out


def crossing_span(docs):
    """(low, high) over the runs' crossing intervals (the lowest low and
    the highest high), or None when no run records one."""
    ivs = [orbresults.get(d, "result.crossing_interval") for d in docs]
    ivs = [iv for iv in ivs if iv]
    if not ivs:
        return None
    return min(lo for lo, _ in ivs), max(hi for _, hi in ivs)


def measured_span(docs):
    """(smallest, largest) N the runs measured (steps and probes), or
    None."""
    ns = [s["n"] for d in docs for s in orbread.measurements(d)]
    return (min(ns), max(ns)) if ns else None


def clip_span(low, high, measured):
    """(low, high, open_low, open_high): an interval cut to the N the runs
    measured. A crossing interval's bound beyond every measurement is the
    search's extrapolation (a run that stopped before its rounds grew
    past max_ms has an upper bound of hundreds of thousands of servers,
    none of them started): the data support it only up to the largest N
    measured, so it ends there, open (open_high: the figure draws an
    arrow, not a cap). measured None: nothing cut."""
    if not measured:
        return low, high, False, False
    lo_n, hi_n = measured
    open_low, open_high = low < lo_n, high > hi_n
    return (max(low, lo_n), min(high, hi_n), open_low, open_high)


def series(points, mem, client=False):
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
    keys = metric_keys(mem, client)
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
            vals = values(docs, mem, ns[name], client) if docs else {}
            for k in keys:
                out[k][name].append(cell(vals.get(k) or [], docs,
                                         k == "crossing_n"))
    return out


def cell(vals, docs, crossing):
    xs = [v for v in vals if orbresults.is_num(v) and v > 0]
    if not xs:
        return None
    value = orbread.geomean(xs)
    span = crossing_span(docs) if crossing else None
    low, high = span if span else (min(xs), max(xs))
    # A run without an interval (it never crossed: its max_servers) can
    # lie outside the others' intervals; the bar reaches it.
    low, high = min(low, value, *xs), max(high, value, *xs)
    out = {"value": value, "low": low, "high": high, "runs": len(xs)}
    if span:
        out["interval"] = [low, high]
        # A run's value is a measured N (its crossing's fit or its
        # max_servers): the cut never leaves one outside the bar.
        lo_n, hi_n = measured_span(docs) or (low, high)
        out["low"], out["high"], out["open_low"], out["open_high"] = \
            clip_span(low, high, (min(lo_n, value, *xs),
                                  max(hi_n, value, *xs)))
    return out
