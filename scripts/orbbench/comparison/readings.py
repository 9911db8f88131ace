"""How compare reads a metric's values off one scenario's runs, both
sides: one reader per way a Metric says it is read (orbbench.metric:
its "at"), and what the readers of a kind with steps share (each run's
measurements, the N its costs are read at, local fits, blocks, paired
runs' own pairs, the crossing). weigh() gives a scenario's metrics, in
its kind's order, for every kind alike."""
import math
from functools import cached_property

import orbbench.results as orbresults
import orbbench.stats as orbstats
import orbbench.validate as orbvalidate
from orbbench.comparison.shape import metric


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
    """The N at which every run's steps have a memory figure of measure
    mem (common_step_n)."""
    return common_step_n(
        docs, lambda s: orbresults.mem_per_server_kb(s, mem), near)


def mem_at(doc, n, mem):
    return step_value(doc, n, lambda s: orbresults.mem_per_server_kb(s, mem))


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


def nearest_value(doc, n, read):
    """read(measurement) at the measurement nearest n that has one (the
    larger N of two as near), or None."""
    got = [(abs(s["n"] - n), -s["n"], v) for s in measurements(doc)
           if (v := read(s)) is not None]
    return min(got)[2] if got and n is not None else None


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


def step_value(doc, n, read):
    """read(step) at a run's step of exactly n, or None."""
    s = orbresults.step_at(doc, n) if n is not None else None
    return read(s) if s else None


def common_step_n(docs, read, near=None):
    """The N at which every run's steps have read(step) (the sweep's grid
    is the same for every run of a scenario): the one nearest `near`
    (the costs' N; the larger of two as near) or, without it, the
    largest."""
    sets = [{s["n"] for s in d["steps"] if read(s) is not None}
            for d in docs]
    common = set.intersection(*sets) if sets else set()
    if not common:
        return None
    if near is None:
        return max(common)
    return min(common, key=lambda k: (abs(k - near), -k))


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


# ---- one scenario, both sides ---------------------------------------------

class Sides:
    """One scenario's runs as compare reads them: res_b (Results) in the
    order of the A runs they were paired with (pair_up), docs_a and
    docs_b their documents, docs both; at (--at) and mem (--mem)."""

    def __init__(self, res_a, res_b, at, mem):
        self.res_a = list(res_a)
        self.docs_a = [r.doc for r in self.res_a]
        self.docs_b, self.paired = pair_up(self.docs_a,
                                           [r.doc for r in res_b])
        by_doc = {id(r.doc): r for r in res_b}
        self.res_b = [by_doc[id(d)] for d in self.docs_b]
        self.docs = self.docs_a + self.docs_b
        self.at, self.mem = at, mem

    @cached_property
    def costs(self):
        """(N, window, note) at which the costs are read: --at, else
        cost_n's."""
        if self.at is not None:
            return self.at, orbstats.FIT_WINDOW, None
        return cost_n(self.docs)

    @cached_property
    def fixed(self):
        return fixed_n_blocks(self.docs_a, self.docs_b, self.paired)

    def each(self, value):
        """([value(A's doc)], [value(B's doc)])."""
        return [value(d) for d in self.docs_a], [value(d) for d in self.docs_b]


# ---- the readers, one per Metric.at ---------------------------------------

def read_run(m, s, kind):
    """Once per run: m.read(doc, mem), a finite number or None
    (orbbench.validate.metric_value). A kind without steps names the
    metric in its JSON too (label)."""
    def read(r):
        return orbvalidate.metric_value(r.path, m.key_for(s.mem),
                                        m.read(r.doc, s.mem))
    extra = {} if kind.stepped else {"label": m.label_for(s.mem)}
    return metric([read(r) for r in s.res_a], [read(r) for r in s.res_b],
                  m.higher, memory=m.memory, paired=s.paired,
                  missing=m.missing, **extra)


def read_crossing(m, s, kind):
    """Each run's crossing N (crossing_values); none where every run
    measured one N by design (the bench suite): its "crossing" is that
    N on every run, a test of a constant."""
    if all(d["steps"] and orbresults.is_fixed_n(d) for d in s.docs):
        return metric([None] * len(s.docs_a), [None] * len(s.docs_b),
                      m.higher, memory=m.memory,
                      missing="fixed N: the runs measured one N, no "
                              "crossing", source="fixed_n", paired=s.paired)
    va, vb, source, notes = crossing_values(s.docs_a, s.docs_b)
    out = metric(va, vb, m.higher, memory=m.memory, source=source,
                 paired=s.paired)
    out["notes"][:0] = notes
    return out


def read_fit(m, s, kind):
    """m.step (m.low when every measurement has it: cheapest_or) at the
    costs' N: in paired runs of one N in blocks, each block's value
    paired with the other side's (one run) or each run's blocks'
    geometric mean (repeats); else each run's local fit (fit_at),
    weighted by m.weight, with its paired runs' own pairs (within)."""
    read = cheapest_or(s.docs, m.low, m.step) if m.low else m.step
    says = orbresults.LOW_SAYS if read is m.low else m.says
    fixed = s.fixed
    runs = block_pairs(s.docs_a, s.docs_b, read) if fixed else None
    if runs and len(runs) == 1:
        # The fast gate's one run: a pair per block (the run-to-run
        # spread its blocks cannot see is added across the suite:
        # orbbench.stats.between_runs).
        (va, vb), = runs
        out = metric(va, vb, m.higher, memory=m.memory, at_n=fixed,
                     paired=True, pairs="blocks", runs=1)
        out["notes"].append(
            f"paired by block: {len(va)} blocks of 1 run at N={fixed}")
    elif runs:
        # Repeats: a pair per run, each side's blocks' geometric mean
        # (precise within its run; the runs give the spread between).
        out = metric([geomean(a) for a, _ in runs],
                     [geomean(b) for _, b in runs], m.higher,
                     memory=m.memory, at_n=fixed, paired=True,
                     pairs="runs", runs=len(runs))
        out["notes"].append(
            f"paired by run: each of {len(runs)} runs' blocks at "
            f"N={fixed}, their geometric mean")
        within = within_of(s.docs_a, s.docs_b, fixed, read, m.weight, 1.0)
        if within:
            out["within"] = within
    else:
        n, window, note = s.costs
        out = metric(*s.each(lambda d: fit_at(d, n, read, m.weight,
                                              window)),
                     m.higher, memory=m.memory, at_n=n, paired=s.paired,
                     at_window=window)
        within = within_of(s.docs_a, s.docs_b, n, read, m.weight,
                           window) if s.paired else None
        if within:
            out["within"] = within
        if note:
            out.setdefault("notes", []).append(note)
    out["per_measurement"] = says
    return out


def read_nearest(m, s, kind):
    """m.step at each run's measurement nearest the costs' N."""
    n = s.costs[0]
    return metric(*s.each(lambda d: nearest_value(d, n, m.step)), m.higher,
                  memory=m.memory, at_n=n, paired=s.paired)


def read_memory(m, s, kind):
    """m.step(step, mem) at --at, else at the N nearest the costs' N at
    which every run's steps have it."""
    def read(step):
        return m.step(step, s.mem)
    n = s.at if s.at is not None else common_step_n(s.docs, read,
                                                    near=s.costs[0])
    return metric(*s.each(lambda d: step_value(d, n, read)), m.higher,
                  memory=m.memory, at_n=n, paired=s.paired)


READERS = {"run": read_run, "crossing": read_crossing, "fit": read_fit,
           "nearest": read_nearest, "memory": read_memory}


def weigh(kind, s):
    """{metric key: metric dict} of one scenario of Kind kind (Sides s):
    each of its Metrics that applies (Metric.when), in its order."""
    return {m.key_for(s.mem): READERS[m.at](m, s, kind)
            for m in kind.metrics if m.when is None or m.when(s.docs)}
