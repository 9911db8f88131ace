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


def regression_line(case, many):
    """One line naming a regression: set, scenario, metric, verdict, ratio
    and interval."""
    x, scenario, key, m = case
    who = f"{x}: " if many else ""
    return (f"{who}{scenario}: {key} {m['verdict']}, {x}/A "
            f"{ratio_text(m)}{drivers_text(m)}")


def drivers_text(m):
    """For a suite row, the scenarios that drive it: '; largest: sync-unix
    0.9, event-tcp 0.91'; else ''."""
    largest = (m.get("drivers") or {}).get("largest") or []
    if not largest:
        return ""
    return "; largest: " + ", ".join(f"{n} {num(r)}" for n, r in largest)


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
        suite = ET.SubElement(root, "testsuite", name=f"{x} against A")
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for scenario, key, m in rows:
            case = ET.SubElement(suite, "testcase", classname=scenario,
                                 name=key, time="0")
            status, msg = case_status(m, fail_on, threshold)
            counts["tests"] += 1
            if status == "failure":
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=msg,
                              type=m["verdict"]).text = msg
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
    return str(text).replace("|", "\\|")


def github(doc, fail_on, threshold):
    """A step summary (Markdown, for $GITHUB_STEP_SUMMARY): the gate's
    outcome, the regressions, then each scenario's verdict and metrics."""
    code, lines = report(doc, fail_on, threshold)
    many = len(comparisons(doc)) > 1
    out = ["## orbbench: " + ("regression" if code else "no regression"),
           "", lines[0][0].upper() + lines[0][1:], ""]
    out += [f"- :x: {md_cell(line.strip())}" for line in lines[1:]]
    out += ["", "| " + ("set | " if many else "") +
            "scenario | metric | verdict | B/A [interval] |",
            "|" + ("---|" if many else "") + "---|---|---|---:|"]
    for x, scenario, key, m in cases(doc):
        mark = " :x:" if is_regression(m, fail_on, threshold) else ""
        out.append("| " + (f"{x} | " if many else "") +
                   f"{md_cell(scenario)} | {key} | "
                   f"{m.get('verdict')}{mark} | {ratio_text(m)} |")
    return "\n".join(out) + "\n"


def annotations(doc, fail_on, threshold):
    """GitHub workflow commands, one ::error per regression."""
    many = len(comparisons(doc)) > 1
    return [f"::error title=orbbench regression::"
            f"{regression_line(c, many)}"
            for c in regressions(doc, fail_on, threshold)]


def render(doc, fmt, fail_on, threshold):
    """The document as fmt (one of FORMATS)."""
    if fmt == "junit":
        return junit(doc, fail_on, threshold)
    return github(doc, fail_on, threshold)
