"""Issues 32 and 51: property-based tests (Debian's python3-hypothesis)
of what CI feeds the gate. Comparisons are generated well-formed by
construction, drawn by compare's own model from generated run values
(tests/e2e/forgekit.py: one to three sets, one to four scenarios of any
names, with control characters, GitHub command prefixes, Markdown,
HTML; paired or not; an interference bias or none), then maybe broken
by one corruption: a non-finite, negative, zero or boolean number, an
unknown verdict, a missing or empty scenario list, no tested metric,
deep nesting, a name of another type, an interval that does not hold
its ratio; or forged: a verdict, ratio, value, direction, primary flag
or alpha rewritten, a metric, a scenario's row or the suite rows left
out, a scenario of A missing, a run's value gone. For each, in every format:

  - exit 0 or 1 for a well-formed one, exactly as its regressions say
    (orbbench.gate.regressions), 2 for a broken or forged one, with
    one line on stderr and nothing on stdout; never a traceback;
  - the JUnit output parses;
  - no output line starts with :: unless it is an annotation the gate
    made (--format github, on stderr);
  - output bounded by the number of cases, whatever the names' length.

The same for result sets: a copy of tests/fixtures/repeat-A/-B (a
regression: compare --fail-on exits 1) with one result's fields given
generated values (a stop the client does not write, or a name over the
one bound, is refused; a run that did not end is left out).
tests/e2e/test_gate_forge.py forges whole result sets. The gate and compare run in process (their main()),
so that a few seconds test hundreds of documents.

Budget: ORBBENCH_FUZZ_SECONDS (default 4, what `make test` spends),
`make fuzz-gate` runs it for FUZZ_GATE_SECONDS (1200); the count of
examples is printed (pytest -s)."""
import json
import math
import os
import re
import shutil
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import hypothesis.configuration
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import forgekit
import orbbench.commands.compare as orbcompare
import orbbench.commands.gate as orbgatecmd
import orbbench.escape as orbesc
import orbbench.gate as orbgate
import orbbench.validate as orbvalidate
from conftest import ROOT

SECONDS = float(os.environ.get("ORBBENCH_FUZZ_SECONDS", "4"))
# hypothesis keeps a cache (its Unicode tables) in .hypothesis/ of the
# working folder: in build/ instead, which git ignores and make clean
# removes.
hypothesis.configuration.set_hypothesis_home_dir(
    str(ROOT / "build" / "hypothesis"))
OURS = "::error title=orbbench regression::"
FIXTURES = ROOT / "tests" / "fixtures"
LINE_BREAKS = ("\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c",
               "\x1c", "\x1d", "\x1e")

# Names: every kind of character, and the prefixes and specials that
# matter to a CI page, long ones too.
SPECIAL = ["::add-mask::", "::set-env name=X::", "::stop-commands::", "\n::",
           "\r\n::error::", "%0A::", "%25", "## ", "<img src=x>", "[a](b)",
           "|", "`", "\x1b[2J", "\x1b]0;t\x07", "\x00", "\u2028::", "]]>",
           "&amp;", "\ufffe", "\U0001f600"]
name_part = st.one_of(st.text(max_size=30), st.sampled_from(SPECIAL),
                      st.text(st.characters(max_codepoint=0x9f), max_size=20))
names = st.one_of(
    st.lists(name_part, min_size=1, max_size=6).map("".join),
    st.integers(50, 3000).map(lambda n: "::" + "x" * n + "\n::y"))
TESTED = ["slower", "faster", "same", "negligible", "larger", "smaller",
          "inconclusive", "interference"]


@st.composite
def run_values(draw, base, n, factor=1.0):
    """n runs' values about base x factor, each within +-10%."""
    return [base * factor * draw(st.floats(0.9, 1.1)) for _ in range(n)]


@st.composite
def good_row(draw, name):
    """One scenario as compare writes it (tests/e2e/forgekit.py): 2 to 4
    runs a side (paired or not), each metric B/A about 1 or an effect,
    maybe an interference bias measured."""
    paired = draw(st.booleans())
    na = draw(st.integers(2, 4))
    nb = na if paired else draw(st.integers(2, 4))
    effect = draw(st.sampled_from([0.5, 0.97, 1.0, 1.03, 1.5]))
    values = {}
    for key in forgekit.DIRECTIONS:
        base = draw(st.floats(0.5, 1e4))
        values[key] = (draw(run_values(base, na)), draw(run_values(
            base, nb, draw(st.sampled_from([1.0, effect])))))
    bias = draw(st.sampled_from([None, 0.05, -0.05, 0.7]))
    return forgekit.row(name, values, paired=paired, bias_log=bias)


@st.composite
def good_doc(draw):
    """A comparison of 1 to 3 sets after A, 1 to 4 scenarios each (their
    names any text, hostile ones too), drawn by compare's model: every
    verdict follows from its values."""
    sets = draw(st.integers(1, 3))
    rowsets = []
    for _ in range(sets):
        rows = draw(st.lists(names, min_size=1, max_size=4, unique=True))
        rowsets.append([draw(good_row(n)) for n in rows])
    return forgekit.comparisons(rowsets)


BAD_NUMBERS = [math.nan, math.inf, -math.inf, -1.0, 0.0, True, False, "1.2",
               [], {}]


def comparisons_of(doc):
    return doc["comparisons"] if "comparisons" in doc else [doc]


def metrics_of(doc):
    cmps = comparisons_of(doc)
    return [m for c in cmps for r in c["scenarios"]
            for m in r["metrics"].values()] + \
        [m for c in cmps for m in (c.get("suite") or {}).values()]


def decides(doc):
    """True when every scenario of every set has a tested primary metric
    of performance (not memory)."""
    return all(any(m.get("primary") and not m.get("memory") and
                   m.get("p_value") is not None
                   for m in r["metrics"].values())
               for c in comparisons_of(doc) for r in c["scenarios"])


def metrics_tested(doc):
    return [m for m in metrics_of(doc) if m["verdict"] not in ("n/a", None)]


@st.composite
def corrupt(draw, doc):
    """(doc, how) with one corruption that makes it unusable: broken (a
    number, a verdict, a type, the nesting) or forged (a verdict, ratio,
    value, direction or flag rewritten, a metric or the suite rows left
    out, a scenario of A missing)."""
    how = draw(st.sampled_from([
        "number", "verdict", "no-scenarios", "empty-scenarios", "untested",
        "deep", "name-type", "interval", "missing-ratio", "top-type",
        "metrics-type", "rewrite-verdict", "rewrite-ratio", "value",
        "primary", "direction", "drop-suite", "drop-metric", "only-in-a",
        "missing-value", "alpha", "drop-scenario"]))
    cmps = comparisons_of(doc)
    target = draw(st.sampled_from(metrics_tested(doc)))
    row = draw(st.sampled_from([r for c in cmps for r in c["scenarios"]]))
    if how == "number":
        key = draw(st.sampled_from(["ratio", "ci_low", "ci_high"]))
        target[key] = draw(st.sampled_from(BAD_NUMBERS))
    elif how == "verdict":
        target["verdict"] = draw(st.one_of(
            st.text(max_size=10).filter(lambda v: v not in TESTED + [
                "n/a"]), st.integers(), st.just([])))
    elif how == "no-scenarios":
        del draw(st.sampled_from(cmps))["scenarios"]
    elif how == "empty-scenarios":
        draw(st.sampled_from(cmps))["scenarios"] = []
    elif how == "untested":
        for m in metrics_of(doc):
            m.update(verdict="n/a", ratio=None, ci_low=None, ci_high=None)
    elif how == "deep":
        # written as text by dumps(): a Python structure this deep would
        # be too deep for json.dumps and for hypothesis' own printing
        target["notes"] = f"__DEEP_{draw(st.integers(65, 100_000))}__"
    elif how == "name-type":
        draw(st.sampled_from(cmps))["scenarios"][0]["scenario"] = \
            draw(st.sampled_from([1, None, [], {}, 2.5]))
    elif how == "interval":
        target["ci_low"] = target["ratio"] * 1.5
    elif how == "missing-ratio":
        del target["ratio"]
    elif how == "top-type":
        doc = draw(st.sampled_from([[], 1, "x", None]))
    elif how == "metrics-type":
        draw(st.sampled_from(cmps))["scenarios"][0]["metrics"] = []
    elif how == "rewrite-verdict":
        target["verdict"] = draw(st.sampled_from(
            [v for v in TESTED if v not in (target["verdict"],
                                            "interference")]))
        target.pop("withheld", None)
    elif how == "rewrite-ratio":
        f = draw(st.sampled_from([0.5, 0.9, 1.1, 2.0]))
        for k in ("ratio", "ci_low", "ci_high"):
            target[k] *= f
    elif how == "value":
        m = draw(st.sampled_from(list(row["metrics"].values())))
        side = draw(st.sampled_from(["a_values", "b_values"]))
        i = draw(st.integers(0, len(m[side]) - 1))
        m[side][i] *= draw(st.sampled_from([0.5, 2.0]))
    elif how == "primary":
        m = row["metrics"][draw(st.sampled_from(
            ["crossing_n", "server_cpu_us", "pss_kb", "round_ms"]))]
        m["primary"] = not m["primary"]
    elif how == "direction":
        m = draw(st.sampled_from(list(row["metrics"].values())))
        m["higher_is_better"] = not m["higher_is_better"]
    elif how == "drop-suite":
        del draw(st.sampled_from(cmps))["suite"]
    elif how == "drop-metric":
        del row["metrics"][draw(st.sampled_from(sorted(row["metrics"])))]
    elif how == "only-in-a":
        draw(st.sampled_from(cmps))["only_in_a"] = [draw(names)]
    elif how == "missing-value":
        m = row["metrics"][draw(st.sampled_from(
            ["crossing_n", "server_cpu_us"]))]
        m["b_values"][0] = None
    elif how == "drop-scenario":
        c = draw(st.sampled_from(cmps))
        del c["scenarios"][draw(st.integers(0, len(c["scenarios"]) - 1))]
    elif how == "alpha":
        for c in cmps:
            c["method"]["alpha"] = draw(st.sampled_from([0.01, 0.1]))
        if "method" in doc and "comparisons" in doc:
            doc["method"]["alpha"] = cmps[0]["method"]["alpha"]
    return doc, how


@st.composite
def cases(draw):
    doc = draw(good_doc())
    if draw(st.booleans()):
        return doc, None
    return draw(corrupt(doc))


def dumps(doc):
    """JSON text of doc (NaN and Infinity as Python writes them), a
    "__DEEP_N__" string as N nested lists."""
    text = json.dumps(doc, allow_nan=True)
    return re.sub(r'"__DEEP_(\d+)__"',
                  lambda m: "[" * int(m.group(1)) + "1" +
                  "]" * int(m.group(1)), text)


def lines(text):
    for b in LINE_BREAKS:
        text = text.replace(b, "\n")
    return text.split("\n")


def check_output(fmt, code, out, err, n_cases):
    for stream, text in (("stdout", out), ("stderr", err)):
        for line in lines(text):
            if line.lstrip().startswith("::"):
                assert fmt == "github" and stream == "stderr" and \
                    line.startswith(OURS), (stream, line[:200])
    assert len(out) + len(err) <= 4000 + 3000 * n_cases, len(out + err)
    if code in (0, 1) and fmt == "junit":
        ET.fromstring(out.encode("utf-8"))


COUNT = {"gate": 0, "compare": 0}


def run_for(seconds, batch, fn):
    deadline = time.monotonic() + seconds
    while True:
        fn()
        if time.monotonic() >= deadline:
            break


GATE_SETTINGS = settings(max_examples=25, deadline=None, database=None,
                         suppress_health_check=list(HealthCheck))


def test_gate_fails_closed_and_escapes_whatever_the_comparison(tmp_path):
    f = tmp_path / "c.json"

    @GATE_SETTINGS
    @given(cases(), st.sampled_from(["text", "junit", "github"]),
           st.sampled_from(["slower", "slower,larger", "faster"]))
    def one(case, fmt, fail_on):
        doc, how = case
        f.write_text(dumps(doc))
        code, out, err = forgekit.in_process(orbgatecmd.main, [
            str(f), "--fail-on", fail_on, "--format", fmt])
        COUNT["gate"] += 1
        n = len(metrics_of(doc)) if how is None else 0
        if how is None:
            # exactly the regressions the document's values give, when
            # every scenario has a tested performance metric (values all
            # alike give none: that scenario cannot decide, exit 2)
            want = 1 if orbgate.regressions(doc, frozenset(
                fail_on.split(",")), 0) else 0
            assert code == (want if decides(doc) else 2), (code, err[-500:])
        else:
            assert code == 2, (how, code, err[-500:])
            assert out == "" and err.count("\n") == 1, (how, err[-500:])
        assert "Traceback" not in err
        check_output(fmt, code, out, err, n)

    run_for(SECONDS, 25, one)
    print(f"\ngate: {COUNT['gate']} generated comparisons, 0 failures")


# ---- result sets -------------------------------------------------------------

FIELD_VALUES = {
    "result.crossing_n": st.one_of(st.floats(1, 1e6), st.sampled_from(
        [math.nan, math.inf, -1, 0, 1e308, True, "27", None, [1]])),
    "result.stop_reason": st.one_of(st.sampled_from(
        ["latency", "interrupted", "running", "write_failed", "server_died",
         7, None]), names),
    "scenario.name": names,
    "orb.name": names,
    "result.max_servers": st.sampled_from([26, -3, 2.5, True, "x", None]),
}


def well_formed(field, v):
    """Whether a result whose field holds v is still a usable repeat."""
    if field == "result.crossing_n":
        return v is None or (isinstance(v, float) and math.isfinite(v) and
                             1 <= v <= 1e9)
    if field == "result.stop_reason":
        # a stop the client writes; a run that did not end is left out
        # (the other runs still tell the regression)
        return v in orbvalidate.ENDED or v in orbvalidate.NOT_ENDED
    if field == "result.max_servers":
        return v == 26
    if field == "orb.name":     # another ORB on one side: refused
        return v == "omniORB"
    if field == "scenario.name":    # the one bound of a name
        return isinstance(v, str) and 0 < len(v) <= orbesc.LIMIT
    return isinstance(v, str)


def set_field(doc, dotted, v):
    *path, last = dotted.split(".")
    for p in path:
        doc = doc[p]
    doc[last] = v


def test_compare_fails_closed_on_forged_results():
    base = Path(tempfile.mkdtemp(prefix="gate-fuzz-"))
    try:
        a, b = base / "a", base / "b"
        shutil.copytree(FIXTURES / "repeat-A", a)
        shutil.copytree(FIXTURES / "repeat-B", b)
        target = sorted(b.glob("sync-unix.r*.json"))[0]
        original = target.read_text()
        originals = {f: f.read_text() for f in list(a.glob("*.json")) +
                     list(b.glob("*.json"))}

        @settings(max_examples=5, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.sampled_from(sorted(FIELD_VALUES)).flatmap(
            lambda k: st.tuples(st.just(k), FIELD_VALUES[k])),
            st.sampled_from(["text", "junit", "github", "md"]))
        def one(fv, fmt):
            field, v = fv
            for f, text in originals.items():     # each example from scratch
                f.write_text(text)
            doc = json.loads(original)
            set_field(doc, field, v)
            if field == "scenario.name":      # every run of the scenario
                for f in list(a.glob("sync-unix.r*.json")) + \
                        list(b.glob("sync-unix.r*.json")):
                    d = json.loads(f.read_text())
                    d["scenario"]["name"] = v
                    f.write_text(json.dumps(d))
                    if f == target:
                        doc = d
            target.write_text(json.dumps(doc, allow_nan=True))
            code, out, err = forgekit.in_process(orbcompare.main, [
                str(a), str(b), "--fail-on", "slower", "--format", fmt])
            COUNT["compare"] += 1
            ok = well_formed(field, v)
            if ok:
                # a run that did not end is left out: still a regression
                assert code == 1, (field, repr(v)[:80], err[-500:])
            else:
                assert code == 2, (field, repr(v)[:80], code, err[-500:])
                assert err.count("\n") == 1
            assert "Traceback" not in err
            check_output(fmt if fmt != "md" else "text", code, out, err, 40)

        run_for(SECONDS / 2, 5, one)
        print(f"\ncompare: {COUNT['compare']} forged result sets, 0 "
              "failures")
    finally:
        shutil.rmtree(base, ignore_errors=True)
