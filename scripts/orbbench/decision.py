"""The gate's one decision: `compare --fail-on` and `gate` both call
decide() on compare's JSON document (what `compare --format json`
prints), the one made in memory or a saved one, so that they agree on
every input.

Exit 0 (no regression) or 1 (regressions, orbbench.gate's rule) only
when the verdicts follow from the runs; everything else is a BadInput
(exit 2, one line naming the file or the comparison), in this order:
  - the document's shape, types and numbers (orbbench.gate.check), and
    a tested metric somewhere (nothing_tested: which runs gave none);
  - its verdicts re-derived (rederive): each metric's test is drawn
    again from the values it holds (a_values, b_values: each run's
    value; a paired run's own pairs, "within"), with compare's own
    code, both families adjusted again at the document's alpha, and
    every verdict, ratio, interval, p- and q-value, each scenario's
    and the suite's verdict must be the ones compare gave; a metric,
    direction or suite row that compare would not have written is
    refused too. A verdict rewritten to "same" beside numbers that say
    slower cannot pass;
  - what could not be measured (measured): a scenario of A missing from
    a set, a scenario none of whose performance metrics could be tested
    (its runs failed, one run on a side, none that ended), a
    performance metric that some run gave and another run did not (a
    run that measured nothing).
The limit: a document whose values were rewritten along with every
number drawn from them is a forged measurement; the gate reads the
comparison, not the runs (docs/ci.md)."""
import math

import orbbench.comparison.model as orbmodel
import orbbench.comparison.shape as orbshape
import orbbench.gate as orbgate
import orbbench.results as orbresults
import orbbench.safeload as orbsafe
import orbbench.stats as orbstats


def decide(doc, fail_on, threshold, path):
    """(exit code, lines) of the gate on compare's JSON document doc
    (orbbench.gate.report: 1 and a line per regression, or 0); BadInput
    naming path when the comparison cannot decide."""
    orbgate.check(doc, path, require_tested=False)
    nothing_tested(doc, path)
    rederive(doc, path)
    measured(doc, path)
    return orbgate.report(doc, fail_on, threshold)


# ---- the verdicts again, from the values --------------------------------------

# What a re-derived metric must agree on with the saved one.
NUMBERS = ("ratio", "ci_low", "ci_high", "p_value", "q_value", "log_ratio",
           "se_log", "df")
WORDS = ("verdict", "withheld", "primary")


def expected_metrics(row, mem, path, where):
    """({key: (higher is better, memory)} of the metrics compare writes for
    every scenario of the row's kind, {the same} of those it writes only
    where they apply (Metric.when: a sweep's client half, when a caller
    made the calls)): its Metrics (orbbench.metric)."""
    kind = row.get("kind")
    if kind is not None and (kind not in orbresults.KINDS or
                             not orbresults.KINDS[kind].comparable):
        raise orbsafe.bad(path, f"{where}.kind", f"{orbsafe.short(kind)} "
                          "is not a kind compare weighs")
    metrics = orbmodel.row_kind(row).metrics
    return ({m.key_for(mem): (m.higher, m.memory)
             for m in metrics if m.when is None},
            {m.key_for(mem): (m.higher, m.memory)
             for m in metrics if m.when is not None})


def _values(path, field, v):
    if not isinstance(v, list):
        raise orbsafe.bad(path, field, "not a list of the runs' values")
    for i, x in enumerate(v):
        orbsafe.number(path, f"{field}[{i}]", x, allow_none=True)
    return list(v)


def _within(path, field, v):
    """A paired metric's runs' own (log ratio, se, df), or None."""
    if v is None:
        return None
    if not isinstance(v, list) or not all(
            isinstance(w, list) and len(w) == 3 for w in v):
        raise orbsafe.bad(path, field, "not a list of [log ratio, se, df]")
    for i, (y, se, df) in enumerate(v):
        orbsafe.number(path, f"{field}[{i}][0]", y)
        orbsafe.number(path, f"{field}[{i}][1]", se, low=0, low_open=True)
        orbsafe.number(path, f"{field}[{i}][2]", df, low=0, low_open=True)
    return [list(w) for w in v]


def rebuild_metric(m, want, path, field):
    """The metric as compare builds it from the values it holds, before
    the adjustment (orbbench.comparison.shape.metric)."""
    higher, memory = want
    if m.get("higher_is_better") is not higher or \
            m.get("memory") is not memory:
        raise orbsafe.bad(path, field, "its direction (higher_is_better, "
                          "memory) is not the one compare gives it")
    va = _values(path, f"{field}.a_values", m.get("a_values"))
    vb = _values(path, f"{field}.b_values", m.get("b_values"))
    paired = m.get("paired") is True
    if paired and len(va) != len(vb):
        raise orbsafe.bad(path, field, "paired, with more values on one "
                          "side than on the other")
    extra = {}
    pairs, runs = m.get("pairs"), m.get("runs")
    if pairs is not None:
        if pairs not in ("blocks", "runs") or not paired:
            raise orbsafe.bad(path, f"{field}.pairs", f"{orbsafe.short(pairs)}"
                              " is not how compare pairs")
        if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
            raise orbsafe.bad(path, f"{field}.runs", "not a count of runs")
        extra.update(pairs=pairs, runs=runs)
    source = m.get("source")
    if source is not None:
        if not isinstance(source, str):
            raise orbsafe.bad(path, f"{field}.source", "not a string")
        if source == "fixed_n" and any(v is not None for v in va + vb):
            raise orbsafe.bad(path, f"{field}.source", "fixed_n (no "
                              "crossing), beside crossing values")
        extra["source"] = source
    out = orbshape.metric(va, vb, higher, memory, paired=paired, **extra)
    within = _within(path, f"{field}.within", m.get("within"))
    if within:
        out["within"] = within
    return out


def rebuild(doc, path):
    """(comparisons rebuilt from their values, mem, alpha, delta)."""
    cmps = orbgate.comparisons(doc)
    first = cmps[0][1]
    method = first.get("method")
    if not isinstance(method, dict):
        raise orbsafe.bad(path, "method", "missing: the comparison's alpha "
                          "and equivalence are not known")
    alpha = orbsafe.number(path, "method.alpha", method.get("alpha"), low=0,
                           low_open=True, high=0.5)
    delta = method.get("equivalence", orbstats.EQUIVALENCE)
    delta = orbsafe.number(path, "method.equivalence", delta, low=0,
                           low_open=True, high=1)
    mem = first.get("mem_kind", "pss")
    out = []
    for i, (x, cmp) in enumerate(cmps):
        pre = prefix(doc, i)
        if cmp.get("mem_kind", "pss") != mem or mem not in \
                orbresults.MEM_MEASURES:
            raise orbsafe.bad(path, pre + "mem_kind",
                              f"{orbsafe.short(cmp.get('mem_kind'))}: not "
                              "one memory measure of every set")
        m2 = cmp.get("method")
        if isinstance(m2, dict) and (m2.get("alpha", alpha) != alpha or
                                     m2.get("equivalence", delta) != delta):
            raise orbsafe.bad(path, pre + "method", "another alpha or "
                              "equivalence than the first comparison's")
        rows = []
        for i, row in enumerate(cmp["scenarios"]):
            where = f"{pre}scenarios[{i}]"
            always, where_apply = expected_metrics(row, mem, path, where)
            extra = set(row["metrics"]) - set(always)
            if not set(always) <= set(row["metrics"]) or \
                    extra not in (set(), set(where_apply)):
                raise orbsafe.bad(path, f"{where}.metrics", "not the "
                                  "metrics compare writes for its kind ("
                                  f"{', '.join(sorted(always))}"
                                  + (f"; with a caller also "
                                     f"{', '.join(sorted(where_apply))}"
                                     if where_apply else "") + ")")
            want = {**always, **where_apply}
            inter = row.get("interference")
            bias = inter.get("bias_log") if isinstance(inter, dict) else None
            orbsafe.number(path, f"{where}.interference.bias_log", bias,
                           allow_none=True)
            rows.append({
                "scenario": row["scenario"], "kind": row.get("kind"),
                "interference": None if bias is None else {"bias_log": bias},
                "metrics": {k: rebuild_metric(m, want[k], path,
                                              f"{where}.metrics.{k}")
                            for k, m in row["metrics"].items()}})
        out.append({"scenarios": rows, "method": {}, "mem_kind": mem})
    return out, mem, alpha, delta


def _same(a, b):
    if a is None or b is None or isinstance(a, (str, bool)) or \
            isinstance(b, (str, bool)):
        return a == b
    if not (orbsafe.is_num(a) and orbsafe.is_num(b)):
        return False
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _agree(saved, new, path, field, keys):
    for k in keys:
        a, b = saved.get(k), new.get(k)
        if not _same(a, b):
            raise orbsafe.bad(path, f"{field}.{k}", f"{orbsafe.short(a)} "
                              "does not follow from the comparison's own "
                              f"values (re-derived: {orbsafe.short(b)}): "
                              "a rewritten comparison is refused")


def rederive(doc, path):
    """BadInput unless every verdict of doc follows from its values as
    compare draws it (module docstring)."""
    cmps, mem, alpha, delta = rebuild(doc, path)
    orbmodel.judge(cmps, mem, alpha, delta)
    for i, ((x, saved), new) in enumerate(zip(orbgate.comparisons(doc),
                                              cmps)):
        pre = prefix(doc, i)
        suite = saved.get("suite")
        if not isinstance(suite, dict) or set(suite) != set(new["suite"]):
            raise orbsafe.bad(path, pre + "suite", "not the suite rows its "
                              f"scenarios give ({', '.join(new['suite'])})")
        for k, m in new["suite"].items():
            _agree(suite[k], m, path, f"{pre}suite.{k}",
                   NUMBERS + WORDS + ("n_scenarios",))
        _agree(saved, new, path, pre.rstrip(".") or "(top)",
               ("suite_verdict",))
        for i, (row, nrow) in enumerate(zip(saved["scenarios"],
                                            new["scenarios"])):
            where = f"{pre}scenarios[{i}]"
            for k, m in nrow["metrics"].items():
                _agree(row["metrics"][k], m, path, f"{where}.metrics.{k}",
                       NUMBERS + WORDS)
            _agree(row, nrow, path, where, ("verdict",))


def prefix(doc, i):
    """The field names' start of comparison i: "comparisons[i]." in a
    document of more sets, "" in one of two."""
    return f"comparisons[{i}]." if "comparisons" in doc else ""


# ---- what could not be measured -------------------------------------------------

def usable(v):
    return orbsafe.is_num(v) and v > 0


def _runs_text(row):
    """'runs A 3, B 3; stop A partner_failed, B server_died', from the
    row's sides as compare sums them up."""
    parts = [f"runs A {row.get('runs_a', '?')}, B {row.get('runs_b', '?')}"]
    stops = [f"{s} {', '.join(map(str, row[k]['stop_reasons']))}"
             for s, k in (("A", "a"), ("B", "b"))
             if isinstance(row.get(k), dict) and
             isinstance(row[k].get("stop_reasons"), list)]
    if stops:
        parts.append("stop " + ", ".join(stops))
    return "; ".join(parts)


def nothing_tested(doc, path):
    """BadInput when no metric of any scenario of any set was tested,
    naming the runs and their stops (the head's servers died, one run on
    a side)."""
    rows = [r for _, cmp in orbgate.comparisons(doc) for r in
            cmp["scenarios"]]
    if not any(m.get("p_value") is not None and
               m.get("primary") is not False
               for r in rows for m in r["metrics"].values()):
        raise orbsafe.bad(path, None, "no tested metric in any scenario ("
                          f"{_runs_text(rows[0])}): nothing to gate, the "
                          "comparison cannot decide (fails closed)")


def problems(doc):
    """[text] of what the comparison could not measure (module
    docstring), in the document's order."""
    out = []
    for x, cmp in orbgate.comparisons(doc):
        tag = f"{x}: " if "comparisons" in doc else ""
        missing = cmp.get("only_in_a") or []
        if missing:
            out.append(f"{tag}{len(missing)} scenario(s) of A missing from "
                       f"{x}: {', '.join(map(str, missing))}")
        for row in cmp["scenarios"]:
            name = row["scenario"]
            perf = {k: m for k, m in row["metrics"].items()
                    if m.get("primary") is not False and not m.get("memory")}
            if not any(m.get("p_value") is not None for m in perf.values()):
                out.append(f"{tag}{name}: no performance metric could be "
                           f"tested ({_runs_text(row)})")
                continue
            for k, m in perf.items():
                va, vb = (v if isinstance(v, list) else [] for v in
                          (m.get("a_values"), m.get("b_values")))
                for side, vals in (("A", va), (x, vb)):
                    bad = [i + 1 for i, v in enumerate(vals) if not usable(v)]
                    others = [v for v in va + vb if usable(v)]
                    if bad and others:
                        out.append(f"{tag}{name}: {k}: {len(bad)} of "
                                   f"{len(vals)} value(s) of {side} "
                                   f"missing (run or block "
                                   f"{', '.join(map(str, bad[:5]))}: "
                                   f"{_why_missing(row, k, side, bad)})")
    return out


def _why_missing(row, k, side, bad):
    """What the runs (1-based, bad) whose value of metric k is missing
    did: a sweep whose first step already crossed max_ms held no servers,
    and its crossing lies below its start, unmeasured."""
    runs = (row.get("crossing") or {}).get("a" if side == "A" else "b")
    if k == "crossing_n" and isinstance(runs, list) and all(
            i <= len(runs) and isinstance(runs[i - 1], dict) and
            runs[i - 1].get("max_servers") == 0 for i in bad):
        files = ", ".join(str(runs[i - 1].get("file")) for i in bad[:5])
        return (f"{files} crossed max_ms at its first step, so its "
                "crossing is below sweep.start, unmeasured")
    return "it measured nothing"


def measured(doc, path):
    """BadInput naming the first of problems(doc), and how many more."""
    found = problems(doc)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise orbsafe.bad(path, None, f"{found[0]}{more}: could not be "
                          "measured, the comparison cannot decide (fails "
                          "closed)")
