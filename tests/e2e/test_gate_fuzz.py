"""Issue 32: property-based tests (Debian's python3-hypothesis) of what
CI feeds the gate. Comparisons are generated well-formed by construction
(any names, with control characters, GitHub command prefixes, Markdown,
HTML; finite ratios in order; extra keys; optional keys left out), then
maybe broken by one corruption (a non-finite, negative, zero or boolean
number, an unknown verdict, a missing or empty scenario list, no tested
metric, deep nesting, a name of another type, an interval that does not
hold its ratio). For each, in every format:

  - exit 0 or 1 exactly for a well-formed one, 2 for a broken one, with
    one line on stderr and nothing on stdout; never a traceback;
  - the JUnit output parses;
  - no output line starts with :: unless it is an annotation the gate
    made (--format github, on stderr);
  - output bounded by the number of cases, whatever the names' length.

The same for result sets: a copy of tests/fixtures/repeat-A/-B (a
regression: compare --fail-on exits 1) with one result's fields given
generated values. The gate and compare run in process (their main()),
so that a few seconds test hundreds of documents.

Budget: ORBBENCH_FUZZ_SECONDS (default 4, what `make test` spends),
`make fuzz-gate` runs it for FUZZ_GATE_SECONDS (1200); the count of
examples is printed (pytest -s)."""
import contextlib
import io
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

import orbbench.commands.compare as orbcompare
import orbbench.commands.gate as orbgatecmd
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
extra = st.dictionaries(st.text(max_size=8), st.one_of(
    st.none(), st.integers(), st.text(max_size=10)), max_size=2)


@st.composite
def good_metric(draw, tested=None):
    tested = draw(st.booleans()) if tested is None else tested
    m = dict(draw(extra))
    if tested:
        r = draw(st.floats(0.01, 100))
        lo = r * draw(st.floats(0.5, 1))
        hi = r * draw(st.floats(1, 2))
        m.update(ratio=r, ci_low=lo, ci_high=hi,
                 verdict=draw(st.sampled_from(TESTED)))
        if m["verdict"] == "interference":
            # a difference compare withheld: the gate reads its word
            m["withheld"] = draw(st.sampled_from(["slower", "faster"]))
        if draw(st.booleans()):
            m["primary"] = True
    else:
        m.update(ratio=None, ci_low=None, ci_high=None,
                 verdict=draw(st.sampled_from(["n/a", None])))
    if draw(st.booleans()):
        m["notes"] = draw(st.lists(names, max_size=2))
    if draw(st.booleans()):
        m["drivers"] = {"largest": [[draw(names), draw(st.floats(0.1, 9))]]}
    return m


@st.composite
def good_doc(draw):
    rows = []
    for _ in range(draw(st.integers(1, 4))):
        metrics = {draw(names): draw(good_metric())
                   for _ in range(draw(st.integers(0, 3)))}
        rows.append(dict(draw(extra), scenario=draw(names),
                         verdict=draw(st.sampled_from(TESTED + ["mixed"])),
                         metrics=metrics))
    # at least one tested primary metric somewhere
    rows[draw(st.integers(0, len(rows) - 1))]["metrics"][draw(names)] = \
        draw(good_metric(tested=True))
    doc = {"scenarios": rows}
    if draw(st.booleans()):
        doc["suite"] = {draw(names): draw(good_metric())}
    if draw(st.booleans()):
        doc = {"sets": [], "method": {}, "comparisons": [
            dict(doc, set=draw(names))] + [
            dict(draw(good_doc_flat()), set=draw(names))
            for _ in range(draw(st.integers(0, 2)))]}
    return doc


@st.composite
def good_doc_flat(draw):
    return {"scenarios": [{"scenario": draw(names), "metrics": {
        draw(names): draw(good_metric(tested=True))}}]}


BAD_NUMBERS = [math.nan, math.inf, -math.inf, -1.0, 0.0, True, False, "1.2",
               [], {}]


def metrics_of(doc):
    cmps = doc["comparisons"] if "comparisons" in doc else [doc]
    return [m for c in cmps for r in c["scenarios"]
            for m in r["metrics"].values()] + \
        [m for c in cmps for m in (c.get("suite") or {}).values()]


def metrics_tested(doc):
    return [m for m in metrics_of(doc) if m["verdict"] not in ("n/a", None)]


@st.composite
def corrupt(draw, doc):
    """(doc, how) with one corruption that makes it unusable."""
    how = draw(st.sampled_from(["number", "verdict", "no-scenarios",
                                "empty-scenarios", "untested", "deep",
                                "name-type", "interval", "missing-ratio",
                                "top-type", "metrics-type"]))
    cmps = doc["comparisons"] if "comparisons" in doc else [doc]
    target = draw(st.sampled_from(metrics_tested(doc)))
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


def in_process(main, argv):
    out, err = io.StringIO(), io.StringIO()
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


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
        code, out, err = in_process(orbgatecmd.main, [
            str(f), "--fail-on", fail_on, "--format", fmt])
        COUNT["gate"] += 1
        n = len(metrics_of(doc)) if how is None else 0
        if how is None:
            assert code in (0, 1), (code, err[-500:])
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
        ["latency", "interrupted", 7, None]), names),
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
        return isinstance(v, str)
    if field == "result.max_servers":
        return v == 26
    if field == "orb.name":     # another ORB on one side: refused
        return v == "omniORB"
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
            code, out, err = in_process(orbcompare.main, [
                str(a), str(b), "--fail-on", "slower", "--format", fmt])
            COUNT["compare"] += 1
            ok = well_formed(field, v)
            if ok:
                # an interrupted run is left out: still a regression
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
