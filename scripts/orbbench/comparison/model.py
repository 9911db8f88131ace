"""The comparison itself: what each run gives (its measurements, the N
a cost is read at, its crossing), then the tests, the verdicts and the
suite rows of two or more result sets (docs/compare.md)."""
import json
import math

import orbbench.interference as orbinterference
import orbbench.results as orbresults
import orbbench.stats as orbstats
import orbbench.validate as orbvalidate
from orbbench.comparison.shape import LETTERS, metric



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


def client_cpu_per_call_us(step):
    """The client's CPU per call: a caller's (its cgroup: the ORB's own
    client, docs/callers.md) when one made the calls, else orbbench's own
    (getrusage); None without either."""
    own = ((step.get("caller") or {}).get("cpu_per_call_us") or {})
    if orbresults.is_num(own.get("total")):
        return own["total"]
    cpu = step.get("cpu_per_call_us") or {}
    u, s = cpu.get("client_user"), cpu.get("client_sys")
    return u + s if orbresults.is_num(u) and orbresults.is_num(s) else None


def client_threads(step):
    """The client's threads after a measurement: the caller's, else
    orbbench's own."""
    t = (step.get("caller") or {}).get("threads")
    if orbresults.is_num(t):
        return t
    return (step.get("client") or {}).get("threads")


def has_caller(docs):
    """Did a caller make some run's calls (result.caller)?"""
    return any(d.get("caller") for d in docs)


# What a metric's value per measurement is (the metric's
# per_measurement in compare's JSON).
PER_MEASUREMENT = {
    round_ms: "median round",
    orbresults.round_ms_low: "cheapest 30% of rounds",
    orbresults.server_cpu_per_call_us: "total over the calls",
    orbresults.server_cpu_low_us: "cheapest 30% of rounds",
    client_cpu_per_call_us: "total over the calls",
}


def cheapest_or(docs, low, whole):
    """compare's reader of a cost per measurement over docs (both sides):
    `low`, a measurement's cheapest rounds, when every measurement of
    every run has it but a warm start's far steps (steps of fewer rounds
    than the run's fullest step: they give None then, and lie outside
    the cost window anyway); else `whole` for all, so that no comparison
    sets one estimate against the other: results from before 2026-12-05
    have no server_low, and measurements of fewer than LOW_MIN rounds no
    cheapest share. Why the cheapest: docs/compare.md, "The cheapest
    rounds"."""
    def rounds(s):
        return len(s.get("rounds_ms") or [])
    for d in docs:
        ms = measurements(d)
        full = max((rounds(s) for s in d["steps"] if orbresults.timed(s)),
                   default=0)
        kept = [s for s in ms
                if not (s.get("phase") == "sweep" and rounds(s) < full)]
        if not kept or any(low(s) is None for s in kept):
            return whole
    return low


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
           ("mem", None, False, True),
           # The client half (docs/callers.md), descriptive: only where a
           # caller made some run's calls.
           ("client_cpu_us", "client CPU", False, False),
           ("client_threads", "client threads", False, False),
           ("client_uss_kb", "client USS/server", False, True))


def metric_key(key, mem):
    return f"{mem}_kb" if key == "mem" else key


def metric_label(key, mem):
    """The table's name of a metric key ("round_ms", "pss_kb", a kind's
    own "per_s", …)."""
    if key == metric_key("mem", mem):
        return orbresults.MEM_LABELS[mem]
    own = orbresults.metric_kind(key)
    if own:
        return own[1].label
    return {k: label for k, label, _, _ in METRICS}[key]


def all_metrics(mem):
    """[(key, higher is better, memory)] of every metric a comparison may
    hold, in table order: the sweep's (METRICS), then every kind's own."""
    out = [(metric_key(k, mem), higher, memory)
           for k, _, higher, memory in METRICS]
    return out + [(m.key, m.higher, m.memory)
                  for k in orbresults.KINDS.values() for m in k.metrics]


def blocks_of(doc):
    """{block: step} of a run that measured its one N in several blocks
    (KIND.step_blocks > 1: each step has "block"), else None."""
    steps = [s for s in doc["steps"] if orbresults.timed(s)]
    if not steps or not all(isinstance(s.get("block"), int) for s in steps):
        return None
    return {s["block"]: s for s in steps}


def block_pairs(docs_a, docs_b, read):
    """[(A values, B values)] per run, one pair per block that both sides
    of a paired fixed-N run measured (docs_b[i] paired with docs_a[i]):
    the sides took turns block by block, the order flipping, so that the
    host's drift, which moves over seconds, falls on both blocks of a
    pair alike. None when some run has no blocks."""
    out = []
    for da, db in zip(docs_a, docs_b):
        ba, bb = blocks_of(da), blocks_of(db)
        if ba is None or bb is None:
            return None
        both = sorted(set(ba) & set(bb))
        out.append(([read(ba[k]) for k in both], [read(bb[k]) for k in both]))
    return out


def geomean(values):
    """The geometric mean of the positive values, or None."""
    xs = [math.log(v) for v in values if isinstance(v, (int, float)) and v > 0]
    return math.exp(sum(xs) / len(xs)) if xs else None


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
    docs = docs_a + docs_b
    fits = (("round_ms", cheapest_or(docs, orbresults.round_ms_low,
                                     round_ms),
             lambda s: s["round_ms"].get("count")),
            ("server_cpu_us", cheapest_or(docs, orbresults.server_cpu_low_us,
                                          orbresults.server_cpu_per_call_us),
             lambda s: s.get("calls")))
    if has_caller(docs):
        fits += (("client_cpu_us", client_cpu_per_call_us,
                  lambda s: s.get("calls")),)
    fixed = fixed_n_blocks(docs_a, docs_b, paired)
    for key, read, weight in fits:
        runs = block_pairs(docs_a, docs_b, read) if fixed else None
        if runs and len(runs) == 1:
            # The fast gate's one run: a pair per block (the run-to-run
            # spread its blocks cannot see is added across the suite:
            # orbbench.stats.between_runs).
            (va, vb), = runs
            out[key] = metric(va, vb, False, at_n=fixed, paired=True,
                              pairs="blocks", runs=1)
            out[key]["notes"].append(
                f"paired by block: {len(va)} blocks of 1 run at N={fixed}")
            continue
        if runs:
            # Repeats: a pair per run, each side's blocks' geometric mean
            # (precise within its run; the runs give the spread between).
            out[key] = metric([geomean(a) for a, _ in runs],
                              [geomean(b) for _, b in runs], False,
                              at_n=fixed, paired=True, pairs="runs",
                              runs=len(runs))
            out[key]["notes"].append(
                f"paired by run: each of {len(runs)} runs' blocks at "
                f"N={fixed}, their geometric mean")
            within = within_of(docs_a, docs_b, fixed, read, weight, 1.0)
            if within:
                out[key]["within"] = within
            continue
        out[key] = metric([fit_at(d, n, read, weight, window)
                           for d in docs_a],
                          [fit_at(d, n, read, weight, window)
                           for d in docs_b],
                          False, at_n=n, paired=paired, at_window=window)
        within = within_of(docs_a, docs_b, n, read, weight, window) \
            if paired else None
        if within:
            out[key]["within"] = within
        if note:
            out[key].setdefault("notes", []).append(note)
    for key, read, _ in fits:
        if key in out:
            out[key]["per_measurement"] = PER_MEASUREMENT[read]
    nm = at if at is not None else mem_common_n(docs_a + docs_b, mem,
                                                near=n)
    out[f"{mem}_kb"] = metric([mem_at(d, nm, mem) for d in docs_a],
                              [mem_at(d, nm, mem) for d in docs_b],
                              False, memory=True, at_n=nm, paired=paired)
    if has_caller(docs):
        out.update(client_metrics(docs_a, docs_b, n, paired))
    return out


def nearest_value(doc, n, read):
    """read(measurement) at the measurement nearest n that has one (the
    larger N of two as near), or None."""
    got = [(abs(s["n"] - n), -s["n"], v) for s in measurements(doc)
           if (v := read(s)) is not None]
    return min(got)[2] if got and n is not None else None


def client_metrics(docs_a, docs_b, n, paired):
    """The client half's descriptive metrics beside client_cpu_us (a
    fit, above): its threads at the measurement nearest n, and what each
    server cost it in memory (result.costs.caller's slope of USS over N;
    None for orbbench's own client, whose USS no step records)."""
    def uss(d):
        return orbresults.get(d, "result.costs.caller.memory_per_server_kb"
                                 ".uss_kb")
    return {
        "client_threads": metric([nearest_value(d, n, client_threads)
                                  for d in docs_a],
                                 [nearest_value(d, n, client_threads)
                                  for d in docs_b], False, at_n=n,
                                 paired=paired),
        "client_uss_kb": metric([uss(d) for d in docs_a],
                                [uss(d) for d in docs_b], False,
                                memory=True, paired=paired,
                                missing="orbbench's own client: no USS per "
                                        "server recorded")}


def paired_points(da, db, n, read, weight, window):
    """[(N, log(B/A), weight)]: one per measurement both sides of one
    paired run took at one N within ×window of n (a step, or a block of
    it: matched by N and block), for orbbench.stats.paired_fit. A side's
    several measurements at one N and block (a step and a probe) are
    pooled first (weighted geometric mean)."""
    def pooled(doc):
        got = {}
        for s in measurements(doc):
            v = read(s)
            if not (n / window <= s["n"] <= n * window) or not v or v <= 0:
                continue
            got.setdefault((s["n"], s.get("block")), []).append(
                (math.log(v), weight(s) or 1.0))
        return {k: (math.fsum(y * w for y, w in vs) /
                    math.fsum(w for _, w in vs), math.fsum(w for _, w in vs))
                for k, vs in got.items()}
    pa, pb = pooled(da), pooled(db)
    return [(k[0], pb[k][0] - pa[k][0], (pa[k][1] + pb[k][1]) / 2)
            for k in sorted(pa.keys() & pb.keys(),
                            key=lambda k: (k[0], k[1] or 0))]


def within_of(docs_a, docs_b, n, read, weight, window):
    """Each paired run's (log ratio, se, df) at n from its own pairs
    (orbbench.stats.paired_fit), for orbbench.stats.within_runs; None
    with fewer than 2 runs or when some run has too few pairs, or pairs
    without a spread."""
    if n is None or len(docs_a) < 2:
        return None
    out = [orbstats.paired_fit(paired_points(da, db, n, read, weight,
                                             window), n)
           for da, db in zip(docs_a, docs_b)]
    # A run whose pairs all gave one ratio has no error to weigh it by
    # (se 0): its values alone are tested, as for too few pairs.
    return None if any(w is None or not w[1] > 0 for w in out) else \
        [list(w) for w in out]


def fixed_n_blocks(docs_a, docs_b, paired):
    """The one N of paired fixed-N runs measured in blocks (the fast
    gate: KIND.step_blocks > 1, KIND.start = KIND.max_n), or None."""
    docs = docs_a + docs_b
    if not (paired and docs and all(d["steps"] and orbresults.is_fixed_n(d)
                                    and blocks_of(d) for d in docs)):
        return None
    ns = {s["n"] for d in docs for s in d["steps"]}
    return ns.pop() if len(ns) == 1 else None


def scenario_kind(name, res_a, res_b):
    """The Kind of one scenario's runs on both sides; ValueError (one
    line) when they are of two kinds."""
    names = list(dict.fromkeys(orbresults.kind_of(r.doc)
                               for r in list(res_a) + list(res_b)))
    if len(names) > 1:
        raise ValueError(f"{name}: runs of kinds {' and '.join(names)} "
                         "under one scenario name: compare sets like "
                         "against like")
    return orbresults.KINDS[names[0]]


def own_kind(row):
    """The Kind of a scenario row compared by its own metrics, else None
    (a sweep's row, or one of a comparison older than the row's "kind")."""
    kind = orbresults.KINDS.get(row.get("kind"))
    return kind if kind and kind.metrics else None


def kind_metrics(kind, res_a, res_b, paired, mem):
    """{metric key: metric dict} of a scenario of a kind without steps:
    each of its Metrics, one value per run (orbbench.results.Metric, a
    finite number or None: orbbench.validate.metric_value); res_b
    (Results) as pair_up ordered them."""
    out = {}
    for m in kind.metrics:
        def read(r, m=m):
            return orbvalidate.metric_value(r.path, m.key, m.read(r.doc, mem))
        out[m.key] = metric([read(r) for r in res_a],
                            [read(r) for r in res_b], m.higher,
                            memory=m.memory, paired=paired,
                            label=m.label)
    return out


def compare_kind_scenario(name, kind, res_a, res_b, mem):
    """compare_scenario for a kind compared by its metrics: the same row,
    with no N, no crossing and no steps."""
    docs_a, docs_b = [r.doc for r in res_a], [r.doc for r in res_b]
    paired_b, paired = pair_up(docs_a, docs_b)
    by_doc = {id(r.doc): r for r in res_b}
    return {"scenario": name, "kind": kind.name, "verdict": "n/a",
            "paired": paired,
            "interference": (orbinterference.of_pairs(docs_a, paired_b)
                             if paired else None),
            "runs_a": len(docs_a), "runs_b": len(docs_b), "at_n": None,
            "metrics": kind_metrics(kind, res_a,
                                    [by_doc[id(d)] for d in paired_b],
                                    paired, mem),
            "crossing": {"a": [], "b": []},
            "a": {"runs": len(docs_a)}, "b": {"runs": len(docs_b)},
            "steps": []}


def compare_scenario(name, res_a, res_b, at, mem):
    """One scenario, both sides: a dict (the JSON row). Its verdict is set
    by compare(), once every test of the comparison is known."""
    kind = scenario_kind(name, res_a, res_b)
    if kind.metrics:
        return compare_kind_scenario(name, kind, res_a, res_b, mem)
    docs_a, docs_b = [r.doc for r in res_a], [r.doc for r in res_b]
    ms = scenario_metrics(docs_a, docs_b, at, mem)
    paired_b, paired = pair_up(docs_a, docs_b)
    return {"scenario": name, "kind": kind.name, "verdict": "n/a",
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
        # Where a run started (a warm start's prior) is not a setting.
        own = orbresults.run_keys(ga[name][0].doc)
        for k in sorted(fa.keys() | fb.keys()):
            if k in ("name", "description") or k.startswith("machine.") \
                    or k in own or fa.get(k) == fb.get(k):
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
    name, description and a warm start's prior; the first such key is
    named)."""
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
        # A warm start's prior says where a run started, not what it
        # measured: repeats may differ in it (orbbench.results.WARM_KEYS).
        keys = sorted(set().union(*flats) - {"name", "description"} -
                      orbresults.run_keys(group[0].doc))
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


def row_primary_keys(row, mem):
    """primary_keys of a scenario row: a kind's own metrics marked
    primary, or the sweep's."""
    kind = own_kind(row)
    if kind:
        return tuple(m.key for m in kind.metrics if m.primary)
    return primary_keys(row["metrics"], mem)


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
    keys = row_primary_keys(row, mem)
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
    for k, higher, memory in all_metrics(mem):
        per = [(r["scenario"], r["metrics"][k]) for r in cmp["scenarios"]
               if k in r["metrics"] and r["metrics"][k]["primary"]]
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
    orbvalidate.refuse_copies(sets, LETTERS)
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
        keys = list(dict.fromkeys(k for r in c["scenarios"]
                                  for k, m in r["metrics"].items()
                                  if m["primary"]))
        # In this order: paired runs with repeats on every run's pairs
        # (their metrics then leave moderation's hands); the rest's
        # variances moderated; then, for one run's blocks, the run-to-run
        # spread they cannot see (on their moderated errors).
        for name, step in (("within_runs", orbstats.within_runs),
                           ("moderated", orbstats.moderate),
                           ("between_runs", orbstats.between_runs)):
            c["method"][name] = {
                key: step([r["metrics"][key] for r in c["scenarios"]
                           if key in r["metrics"] and
                           r["metrics"][key]["primary"]])
                for key in keys}
    tests, rejected, level = orbstats.adjust_family(
        [m for c in cmps for r in c["scenarios"]
         for m in r["metrics"].values() if m["primary"]], alpha, delta)
    for c in cmps:
        for r in c["scenarios"]:
            orbinterference.withhold(r)
    for c in cmps:
        c["mde_pct"] = {k: orbstats.median_or_none(
            r["metrics"][k].get("mde_pct") for r in c["scenarios"]
            if k in r["metrics"])
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
    keys = [k for k, _, _ in all_metrics(mem)
            if any(k in r["metrics"] for r in rows)]
    return {"a": [str(r.path) for r in res_a],
            "b": [str(r.path) for r in res_b],
            "mem_kind": mem,
            "method": {"test": "Student t, pooled variance, on the log of "
                               "each run's value; for paired runs "
                               "(orbbench --paired), one-sample t on each "
                               "run's log ratio B/A",
                       "ratio": "ratio of geometric means over runs, B/A",
                       "primary": "crossing N (round ms at a fixed N), "
                                  "server CPU per call, memory per server; "
                                  "a kind without steps: its own metrics "
                                  "marked primary",
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
                                            for r in rows
                                            if k in r["metrics"])
                        for k in keys},
            "environment_differences": [
                {"field": f, "a": a, "b": b} for f, a, b in diffs],
            "only_in_a": [n for n in ga if n not in gb],
            "only_in_b": [n for n in gb if n not in ga],
            "scenarios": rows}
