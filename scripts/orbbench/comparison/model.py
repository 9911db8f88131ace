"""The comparison itself: each scenario's row, every kind's alike (its
kind's metrics, read by orbbench.comparison.readings), then the tests,
the verdicts and the suite rows of two or more result sets
(docs/compare.md). The JSON's shape is orbbench.comparison.shape's."""
import json

import orbbench.comparison.readings as orbreadings
import orbbench.comparison.shape as orbshape
import orbbench.interference as orbinterference
import orbbench.metric as orbmetric
import orbbench.results as orbresults
import orbbench.stats as orbstats
import orbbench.validate as orbvalidate
# What orbbench.history reads here (and, of them, the model uses LETTERS
# and pair_up): the shape's and the readings' own, by their old address.
from orbbench.comparison.readings import (  # noqa: F401
    cost_n, crossing_values, fit_at, geomean, mem_at, mem_common_n,
    pair_up)
from orbbench.comparison.shape import LETTERS, metric  # noqa: F401


# ---- the metrics every kind declares --------------------------------------

def declared(mem):
    """[Metric] of every kind, in KINDS' order, each key once (kind
    fanin's are the sweep's)."""
    out = {}
    for kind in orbresults.KINDS.values():
        for m in kind.metrics:
            out.setdefault(m.key_for(mem), m)
    return list(out.values())


def all_metrics(mem):
    """[(key, higher is better, memory)] of every metric a comparison may
    hold, in table order."""
    return [(m.key_for(mem), m.higher, m.memory) for m in declared(mem)]


def metric_key(key, mem):
    """The key of a metric in a comparison of memory measure mem: the
    key, or for "mem" (the memory per server of a kind with steps, as
    orbbench.history and the main table name it) "<mem>_kb"."""
    return f"{mem}_kb" if key == "mem" else key


def metric_label(key, mem):
    """The table's name of a metric key ("round_ms", "pss_kb", a kind's
    own "per_s", …): its Metric's label. KeyError for a key no kind
    declares."""
    for m in declared(mem):
        if m.key_for(mem) == key:
            return m.label_for(mem)
    raise KeyError(key)


# ---- one scenario ---------------------------------------------------------

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


def row_kind(row):
    """The Kind of a scenario row: its "kind", else (a comparison older
    than the row's "kind", or a kind no longer known) the default
    kind's."""
    return (orbresults.KINDS.get(row.get("kind")) or
            orbresults.KINDS[orbresults.DEFAULT_KIND])


def own_kind(row):
    """The Kind of a scenario row of a kind without steps (a table of its
    own), else None."""
    kind = row_kind(row)
    return None if kind.stepped or not kind.metrics else kind


def compare_scenario(name, res_a, res_b, at, mem):
    """One scenario, both sides: a dict (the JSON row, shape.RowDoc), its
    metrics its kind's (orbbench.comparison.readings.weigh). A kind with
    steps gives its N, its runs' crossings and summaries and the round
    time at each N both sides reached; its costs' N is its first fitted
    metric's. The verdict is set by compare(), once every test of the
    comparison is known."""
    kind = scenario_kind(name, res_a, res_b)
    sides = orbreadings.Sides(res_a, res_b, at, mem)
    ms = orbreadings.weigh(kind, sides)
    docs_a, docs_b = sides.docs_a, [r.doc for r in res_b]
    fits = [m.key_for(mem) for m in kind.metrics if m.at == "fit"]
    at_n = next((ms[k].get("at_n") for k in fits if k in ms), None)
    if kind.stepped:
        crossing = {"a": [orbreadings.crossing_run(r) for r in res_a],
                    "b": [orbreadings.crossing_run(r) for r in res_b]}
        summaries = (orbresults.summarize(docs_a),
                     orbresults.summarize(docs_b))
        steps = [{"n": k, "a": orbresults.round_ms_at(docs_a, k),
                  "b": orbresults.round_ms_at(docs_b, k),
                  "ratio": orbresults.ratio(orbresults.round_ms_at(docs_b, k),
                                            orbresults.round_ms_at(docs_a, k))}
                 for k in orbresults.common_ns(docs_a, docs_b)]
    else:
        crossing, steps = {"a": [], "b": []}, []
        summaries = ({"runs": len(docs_a)}, {"runs": len(docs_b)})
    return orbshape.row(
        name, kind.name, sides.paired,
        (orbinterference.of_pairs(docs_a, sides.docs_b)
         if sides.paired else None),
        (len(docs_a), len(docs_b)), at_n, ms, crossing, summaries, steps)


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
    ns = {s["n"] for r in results for s in orbreadings.measurements(r.doc)}
    if at in ns:
        return
    if not ns:
        raise ValueError(f"--at {at}: no run has a measured step")
    raise ValueError(f"--at {at}: no run measured N={at}; the runs "
                     f"measured N = {ns_text(ns, at)}")


def compare(res_a, res_b, at, mem):
    """The whole comparison as a dict (what --format json prints)."""
    return compare_many([res_a, res_b], at, mem)[0]


def one_n(row):
    """True when a row's runs measured one N by design: a metric's source
    says so (crossing N's "fixed_n")."""
    return any(m.get("source") == "fixed_n" for m in row["metrics"].values())


def primary_keys(row, mem):
    """The metrics a scenario's verdict is tested on: those its kind's
    Metrics mark primary (orbbench.metric: ONE_N and MANY_N by one_n).
    A sweep's: its crossing N (its round time at the one N of a fixed-N
    scenario, which has no crossing), the servers' CPU per call at a
    common N, and memory per server (a verdict of its own,
    larger/smaller); round time at a common N is the same question as
    crossing N asked at one point: shown, with its unadjusted 95%
    interval and no verdict, not tested twice."""
    fixed = one_n(row)
    return tuple(m.key_for(mem) for m in row_kind(row).metrics
                 if m.primary is True or
                 (m.primary == orbmetric.ONE_N and fixed) or
                 (m.primary == orbmetric.MANY_N and not fixed))


def mark_primary(row, mem):
    """Flag each metric of a scenario row primary or descriptive; a
    descriptive one keeps its unadjusted 95% interval and has no verdict."""
    keys = primary_keys(row, mem)
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
    ga = orbresults.group_by_scenario(res_a)
    gb = orbresults.group_by_scenario(res_b)
    diffs = orbresults.environment_differences(orbresults.environment(res_a),
                                               orbresults.environment(res_b))
    diffs += scenario_differences(ga, gb)
    both = [n for n in orbresults.seed_order(list(ga) + list(gb))
            if n in ga and n in gb]
    rows = [compare_scenario(n, ga[n], gb[n], at, mem) for n in both]
    return orbshape.comparison(
        ([r.path for r in res_a], [r.path for r in res_b]), mem, diffs,
        ([n for n in ga if n not in gb], [n for n in gb if n not in ga]),
        rows)
