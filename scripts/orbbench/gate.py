"""The regression gate of `orbbench compare --fail-on`: which metrics of a
comparison count as regressions, and the comparison as a JUnit XML file
(one test case per scenario x metric) or a GitHub Actions step summary.

It reads compare's JSON document only (what `compare --format json`
prints: one comparison, or {"sets", "method", "comparisons"} for more
sets), so it works the same on a live comparison and on a saved one.
A metric is a regression when its verdict is in the fail-on set and its
ratio B/A, with its whole interval, lies beyond the threshold on the bad
side: ci_low > 1 + PCT/100 for a ratio above 1 (round time, CPU,
memory), ci_high < 1 / (1 + PCT/100) for a ratio below 1 (crossing N),
so that PCT means "at least PCT% worse" either way. A metric whose
"primary" is false is descriptive and never gates; a comparison's
"suite" metrics ({key: {"ratio", "ci_low", "ci_high", "verdict"}}, when
present) gate as the scenarios' do. Standard library only."""
import math
import xml.etree.ElementTree as ET

import orbbench.escape as orbesc
import orbbench.safeload as orbsafe

# What --fail-on may name: the metric verdicts that mean "B is worse" (or,
# for a gate on an expected change, "B is better").
VERDICTS = ("slower", "larger", "faster", "smaller")
FORMATS = ("junit", "github")
SUITE = "(suite)"   # the scenario name of a comparison's suite metrics


def add_arguments(p):
    """--fail-on and --threshold on an argparse parser."""
    p.add_argument("--fail-on", type=verdict_set, metavar="V[,V]",
                   help="exit 1 when a metric's verdict is one of these "
                   f"({', '.join(VERDICTS)}) beyond --threshold")
    p.add_argument("--threshold", type=threshold_pct, default=0.0,
                   metavar="PCT", help="a verdict counts only when the "
                   "ratio's whole interval is at least PCT%% worse "
                   "(default 0)")


def verdict_set(text):
    """'slower,larger' -> frozenset; ValueError (argparse's message)
    naming an unknown verdict."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    bad = [w for w in words if w not in VERDICTS]
    if bad or not words:
        raise ValueError(f"{text!r}")
    return frozenset(words)


verdict_set.__name__ = "verdict list (" + ",".join(VERDICTS) + ")"


def threshold_pct(text):
    v = float(text)
    if not math.isfinite(v) or v < 0:
        raise ValueError(text)
    return v


threshold_pct.__name__ = "percentage (0 or more)"


# Every verdict a metric of compare's JSON may carry; anything else is a
# metric the gate cannot read (exit 2), never a pass.
KNOWN_VERDICTS = VERDICTS + ("same", "negligible", "inconclusive",
                             "interference", "n/a", None)
UNTESTED = (None, "n/a")


def check(doc, path, require_tested=True):
    """The number of tested metrics of a compare JSON document, after
    checking every field the gate reads: scenarios a non-empty list of
    objects with a string name and a metrics object; each metric's verdict
    one of KNOWN_VERDICTS, its ratio and interval finite and > 0 (null
    only without a test), ci_low <= ratio <= ci_high, primary a bool.
    BadInput (orbbench.safeload) naming the field, or "nothing to gate"
    when no metric was tested (unless not require_tested: compare's own
    --fail-on on one run a side passes, as before): a gate fails
    closed."""
    if not isinstance(doc, dict):
        raise orbsafe.bad(path, None, "not a JSON object")
    if "comparisons" in doc:
        cl = doc["comparisons"]
        if not isinstance(cl, list) or not cl or \
                not all(isinstance(c, dict) for c in cl):
            raise orbsafe.bad(path, "comparisons", "not a non-empty list of "
                              "objects: nothing to gate")
        where = [(f"comparisons[{i}].", c) for i, c in enumerate(cl)]
    else:
        where = [("", doc)]
    tested = 0
    for pre, cmp in where:
        if "set" in cmp and not isinstance(cmp["set"], str):
            raise orbsafe.bad(path, pre + "set", "not a string")
        rows = cmp.get("scenarios")
        if not isinstance(rows, list) or not rows:
            raise orbsafe.bad(path, pre + "scenarios", "missing or empty: "
                              "nothing to gate")
        suite = cmp.get("suite") or {}
        if not isinstance(suite, dict):
            raise orbsafe.bad(path, pre + "suite", "not an object")
        for key, m in suite.items():
            tested += _check_metric(m, path, f"{pre}suite.{key}")
        for i, row in enumerate(rows):
            f = f"{pre}scenarios[{i}]"
            if not isinstance(row, dict) or \
                    not isinstance(row.get("scenario"), str) or \
                    not isinstance(row.get("metrics"), dict):
                raise orbsafe.bad(path, f, "not a scenario with a name and "
                                  "metrics")
            for key, m in row["metrics"].items():
                tested += _check_metric(m, path, f"{f}.metrics.{key}")
    if not tested and require_tested:
        raise orbsafe.bad(path, None, "no tested metric (every verdict "
                          "n/a: one run on a side?): nothing to gate")
    return tested


def _check_metric(m, path, field):
    """1 for a tested primary metric, 0 for one without a test or a
    descriptive one; BadInput for one the gate cannot read."""
    if not isinstance(m, dict):
        raise orbsafe.bad(path, field, "not an object")
    v = m.get("verdict")
    if v not in KNOWN_VERDICTS:
        raise orbsafe.bad(path, field + ".verdict",
                          f"{orbsafe.short(v)} is not a verdict "
                          f"({', '.join(x for x in KNOWN_VERDICTS if x)})")
    if "primary" in m and not isinstance(m["primary"], bool):
        raise orbsafe.bad(path, field + ".primary", "not true or false")
    if v == "interference" and m.get("withheld") not in VERDICTS:
        # What it would have said decides the gate (gated_verdict): a
        # withheld word the gate cannot read is no pass.
        raise orbsafe.bad(path, field + ".withheld",
                          f"{orbsafe.short(m.get('withheld'))} is not a "
                          f"verdict ({', '.join(VERDICTS)})")
    untested = v in UNTESTED
    vals = {}
    for k in ("ratio", "ci_low", "ci_high"):
        vals[k] = orbsafe.number(path, f"{field}.{k}", m.get(k), low=0,
                                 low_open=True, allow_none=True)
    if not untested and vals["ratio"] is None:
        raise orbsafe.bad(path, field + ".ratio", f"missing for verdict {v}")
    lo, r, hi = vals["ci_low"], vals["ratio"], vals["ci_high"]
    if r is not None and ((lo is not None and lo > r) or
                          (hi is not None and hi < r)):
        raise orbsafe.bad(path, field, f"interval [{lo}, {hi}] does not "
                          f"hold its ratio {r}")
    notes = m.get("notes")
    if notes is not None and (not isinstance(notes, list) or
                              not all(isinstance(n, str) for n in notes)):
        raise orbsafe.bad(path, field + ".notes", "not a list of strings")
    return 0 if untested or descriptive(m) else 1


def comparisons(doc):
    """[(set letter, comparison)] of a compare JSON document: ("B", doc)
    for two sets, one per set after A for more."""
    if "comparisons" in doc:
        return [(c.get("set", "?"), c) for c in doc["comparisons"]]
    return [("B", doc)]


def cases(doc):
    """Every (set, scenario, metric key, metric dict) of the document, the
    suite's metrics (scenario SUITE) first in each comparison."""
    out = []
    for x, cmp in comparisons(doc):
        for key, m in (cmp.get("suite") or {}).items():
            out.append((x, SUITE, key, m))
        for row in cmp["scenarios"]:
            for key, m in row["metrics"].items():
                out.append((x, row["scenario"], key, m))
    return out


def beyond(m, threshold):
    """True when the metric's ratio and its interval lie beyond threshold
    percent on the side the ratio is on; without an interval, the ratio
    alone."""
    r = m.get("ratio")
    if r is None or r == 1:
        return False
    limit = 1 + threshold / 100
    if r > 1:
        lo = m.get("ci_low")
        return (lo if lo is not None else r) > limit
    hi = m.get("ci_high")
    return (hi if hi is not None else r) < 1 / limit


def descriptive(m):
    """A metric marked "primary": false describes and never gates."""
    return m.get("primary", True) is False


def gated_verdict(m):
    """The verdict the gate acts on: a difference that compare did not
    call because the paired sides disturbed each other unequally
    ("interference", its word kept as "withheld") counts as that
    difference: the gate fails closed on what it cannot tell apart."""
    v = m.get("verdict")
    return m.get("withheld") if v == "interference" else v


def is_regression(m, fail_on, threshold):
    return (not descriptive(m) and gated_verdict(m) in fail_on and
            beyond(m, threshold))


def regressions(doc, fail_on, threshold):
    """[(set, scenario, key, metric)] of the regressions, in table order."""
    return [c for c in cases(doc) if is_regression(c[3], fail_on, threshold)]


def num(v, digits=3):
    return "—" if v is None else f"{v:.{digits}g}"


def ratio_text(m):
    """'1.12 [1.08, 1.16]'."""
    return (f"{num(m.get('ratio'))} [{num(m.get('ci_low'))}, "
            f"{num(m.get('ci_high'))}]")


def regression_line(case, many, esc=orbesc.terminal):
    """One line naming a regression: set, scenario, metric, verdict, ratio
    and interval; every name from the document passed through esc (the
    medium's escaping, which also cuts it)."""
    x, scenario, key, m = case
    who = f"{esc(x)}: " if many else ""
    return (f"{who}{esc(scenario)}: {esc(key)} {esc(m['verdict'])}, "
            f"{esc(x)}/A {ratio_text(m)}{drivers_text(m, esc)}")


def drivers_text(m, esc=orbesc.terminal):
    """For a suite row, the scenarios that drive it: '; largest: sync-unix
    0.9, event-tcp 0.91'; else '' (also for a list of another shape)."""
    d = m.get("drivers")
    largest = d.get("largest") if isinstance(d, dict) else None
    if not isinstance(largest, list):
        return ""
    # lists in a saved document, tuples in one compare made in memory
    pairs = [x for x in largest[:5] if isinstance(x, (list, tuple)) and
             len(x) == 2 and orbsafe.is_num(x[1])]
    if not pairs:
        return ""
    return "; largest: " + ", ".join(f"{esc(n)} {num(r)}" for n, r in pairs)


def report(doc, fail_on, threshold):
    """(exit code, lines): 1 and one line per regression, or 0 and a line
    saying none was found."""
    regs = regressions(doc, fail_on, threshold)
    many = len(comparisons(doc)) > 1
    rule = (f"verdict {'/'.join(sorted(fail_on))}, interval beyond "
            f"{threshold:g}%")
    if not regs:
        return 0, [f"no regression ({rule})"]
    return 1, [f"{len(regs)} regression(s) ({rule}):"] + [
        "  " + regression_line(c, many) for c in regs]


# ---- JUnit ---------------------------------------------------------------

def case_status(m, fail_on, threshold):
    """('failure'|'skipped'|'passed', message) of one metric."""
    v = m.get("verdict")
    if is_regression(m, fail_on, threshold):
        return "failure", f"{v}: B/A {ratio_text(m)}, beyond {threshold:g}%"
    if v in (None, "n/a"):
        notes = "; ".join(m.get("notes") or []) or "no test"
        return "skipped", notes
    why = ("descriptive metric, not gated" if descriptive(m) else
           f"within {threshold:g}%" if v in fail_on else
           "no regression")
    return "passed", f"{v}: B/A {ratio_text(m)} ({why})"


def junit(doc, fail_on, threshold):
    """The comparison as JUnit XML text: <testsuites>, a <testsuite> per
    compared set, a <testcase classname=SCENARIO name=METRIC> per scenario
    and metric, <failure> for a regression, <skipped> for a metric without
    a test (one run on a side, a missing value)."""
    root = ET.Element("testsuites", name="orbbench compare")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    by_set = {}
    for x, scenario, key, m in cases(doc):
        by_set.setdefault(x, []).append((scenario, key, m))
    for x, rows in by_set.items():
        suite = ET.SubElement(root, "testsuite",
                              name=orbesc.xml(f"{x} against A"))
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for scenario, key, m in rows:
            case = ET.SubElement(suite, "testcase",
                                 classname=orbesc.xml(scenario),
                                 name=orbesc.xml(key), time="0")
            status, msg = case_status(m, fail_on, threshold)
            msg = orbesc.xml(msg, limit=2000)
            counts["tests"] += 1
            if status == "failure":
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=msg,
                              type=orbesc.xml(m["verdict"])).text = msg
            elif status == "skipped":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=msg)
            else:
                ET.SubElement(case, "system-out").text = msg
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
        suite.set("errors", "0")
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("errors", "0")
    ET.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' +
            ET.tostring(root, encoding="unicode") + "\n")


# ---- GitHub Actions ------------------------------------------------------

def md_cell(text):
    """One table cell of the step summary: Markdown and HTML escaped."""
    return orbesc.md(text)


def github(doc, fail_on, threshold):
    """A step summary (Markdown, for $GITHUB_STEP_SUMMARY): the gate's
    outcome, the regressions, then each scenario's verdict and metrics."""
    code, lines = report(doc, fail_on, threshold)
    many = len(comparisons(doc)) > 1
    out = ["## orbbench: " + ("regression" if code else "no regression"),
           "", lines[0][0].upper() + lines[0][1:], ""]
    out += [f"- :x: {regression_line(c, many, md_cell)}"
            for c in regressions(doc, fail_on, threshold)]
    out += ["", "| " + ("set | " if many else "") +
            "scenario | metric | verdict | B/A [interval] |",
            "|" + ("---|" if many else "") + "---|---|---|---:|"]
    for x, scenario, key, m in cases(doc):
        mark = " :x:" if is_regression(m, fail_on, threshold) else ""
        out.append("| " + (f"{md_cell(x)} | " if many else "") +
                   f"{md_cell(scenario)} | {md_cell(key)} | "
                   f"{md_cell(m.get('verdict'))}{mark} | {ratio_text(m)} |")
    return "\n".join(out) + "\n"


def annotations(doc, fail_on, threshold):
    """GitHub workflow commands, one ::error per regression."""
    many = len(comparisons(doc)) > 1
    return [f"::error title={orbesc.gh_property('orbbench regression')}::"
            + orbesc.gh_message(regression_line(c, many, orbesc.cut),
                                limit=2000)
            for c in regressions(doc, fail_on, threshold)]


def render(doc, fmt, fail_on, threshold):
    """The document as fmt (one of FORMATS)."""
    if fmt == "junit":
        return junit(doc, fail_on, threshold)
    return github(doc, fail_on, threshold)
