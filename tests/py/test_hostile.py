"""Issue 32: the gate fails closed. What a measured side writes (result
files, a sequential.json beside them, scenario names, a saved
comparison) is hostile input to compare, gate and the CI page: each try
here must end in exit 2 with one line naming the file (never 0, never
1, never a traceback or a hang), or be escaped for its medium. The
regression set is tests/fixtures/repeat-A against repeat-B (B's servers
burn 100 us a call: the gate exits 1 on it)."""
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import junitparser
import pytest

import forgekit
import orbbench.escape as orbesc
import orbbench.gate as orbgate
import orbbench.sequential as orbseq
from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
COMPARE = ROOT / "scripts" / "compare"
GATE = ROOT / "scripts" / "gate"
OURS = "::error title=orbbench regression::"


def run(cmd, *args, timeout=60):
    return subprocess.run([str(cmd), *map(str, args)], capture_output=True,
                          text=True, errors="replace", timeout=timeout)


def assert_refused(r, *words):
    """Exit 2, one line on stderr naming what was refused, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, r.stderr[-2000:]
    for w in words:
        assert w in lines[0], lines[0]


@pytest.fixture
def sets(tmp_path):
    """(a, b): copies of the regression sets in one suite folder."""
    suite = tmp_path / "suite"
    suite.mkdir()
    a, b = suite / "a", suite / "b"
    shutil.copytree(FIXTURES / "repeat-A", a)
    shutil.copytree(FIXTURES / "repeat-B", b)
    return a, b


def edit(path, fn):
    d = json.loads(path.read_text())
    fn(d)
    path.write_text(json.dumps(d))


def test_the_regression_sets_fail_the_gate(sets):
    r = run(COMPARE, *sets, "--fail-on", "slower")
    assert r.returncode == 1, r.stderr


# ---- sequential.json ------------------------------------------------------

@pytest.mark.parametrize("per", [0, -1, 1e-300, 5])
def test_an_unbound_sequential_record_cannot_switch_the_gate_off(sets, per):
    a, b = sets
    (a.parent / "sequential.json").write_text(json.dumps(
        {"plan": {"alpha_per_look": per, "looks": 1}}))
    r = run(COMPARE, a, b, "--fail-on", "slower")
    assert r.returncode == 1, r.stderr
    assert "sequential.json: ignored (it names no result sets" in r.stderr


def bound_record(a, b, **plan):
    doc = {"plan": dict({"alpha": 0.05, "looks": 2,
                         "alpha_per_look": 0.025}, **plan),
           "bound": orbseq.bind(a.parent, [a.name, b.name])}
    (a.parent / "sequential.json").write_text(json.dumps(doc))


def test_a_bound_record_is_used_and_a_changed_file_unbinds_it(sets):
    a, b = sets
    bound_record(a, b)
    r = run(COMPARE, a, b, "--fail-on", "slower", "--format", "md")
    assert r.returncode == 1, r.stderr
    assert "alpha 0.025 from" in r.stdout and "ignored" not in r.stderr
    # one byte of one result changed: the record no longer binds
    f = sorted(b.glob("*.r1.json"))[0]
    f.write_text(f.read_text() + " ")
    r = run(COMPARE, a, b, "--fail-on", "slower")
    assert r.returncode == 1
    assert "ignored (the files of b are not those it was written for" \
        in r.stderr


@pytest.mark.parametrize("plan, field", [
    ({"alpha_per_look": 0.0}, "plan.alpha_per_look"),
    ({"alpha_per_look": 1e-300}, "plan.alpha_per_look"),   # not alpha/looks
    ({"alpha": 0.9, "alpha_per_look": 0.45}, "plan.alpha"),
    ({"looks": 0}, "plan.looks"),
    ({"looks": True}, "plan.looks"),
])
def test_a_bound_record_with_a_bad_plan_exits_2(sets, plan, field):
    a, b = sets
    bound_record(a, b, **plan)
    assert_refused(run(COMPARE, a, b, "--fail-on", "slower"), field)


def test_a_suite_binds_the_record_it_writes(tmp_path, sets):
    a, b = sets
    doc = orbseq.bind(a.parent, ["a", "b"])
    assert doc["sets"]["a"]["files"] == sorted(
        p.name for p in a.glob("*.r*.json"))
    assert re.fullmatch("[0-9a-f]{64}", doc["sets"]["b"]["sha256"])


# ---- result values ---------------------------------------------------------

@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "-1", "0",
                                   "1e308", "1e999", "true", '"27"'])
def test_a_forged_crossing_n_exits_2(sets, value):
    a, b = sets
    f = sorted(b.glob("*.r2.json"))[0]
    text = f.read_text()
    text, n = re.subn(r'"crossing_n": [0-9.e+-]+', f'"crossing_n": {value}',
                      text, count=1)
    assert n == 1
    f.write_text(text)
    r = run(COMPARE, a, b, "--fail-on", "slower", "--format", "json")
    assert_refused(r, f.name)
    assert "crossing_n" in r.stderr or "JSON" in r.stderr


def test_deep_nesting_exits_2_without_a_traceback(sets, tmp_path):
    a, b = sets
    deep = "[" * 100_000 + "]" * 100_000
    (b / "deep.json").write_text(deep)
    assert_refused(run(COMPARE, a, b, "--fail-on", "slower"), "deep.json",
                   "nested deeper")
    g = tmp_path / "deep-compare.json"
    g.write_text('{"scenarios": ' + deep + "}")
    assert_refused(run(GATE, g, "--fail-on", "slower"), "nested deeper")
    # 100 deep: parses, but deeper than the reader's limit
    g.write_text('{"scenarios": ' + "[" * 100 + "]" * 100 + "}")
    assert_refused(run(GATE, g, "--fail-on", "slower"), "nested deeper")


def test_a_fifo_or_a_device_among_the_results_is_refused_not_read(sets,
                                                                  tmp_path):
    a, b = sets
    os.mkfifo(b / "zz-fifo.json")
    assert_refused(run(COMPARE, a, b, "--fail-on", "slower", timeout=20),
                   "zz-fifo.json", "not a regular file")
    os.unlink(b / "zz-fifo.json")
    os.symlink("/dev/zero", b / "zz-zero.json")
    assert_refused(run(COMPARE, a, b, "--fail-on", "slower", timeout=20),
                   "zz-zero.json", "not a regular file")
    r = run(ROOT / "scripts" / "report", "--results", b, "--out",
            tmp_path / "rep",
            timeout=60)
    assert r.returncode == 2 and "not a regular file" in r.stderr, r.stderr
    fifo = tmp_path / "compare.json"
    os.mkfifo(fifo)
    assert_refused(run(GATE, fifo, "--fail-on", "slower", timeout=20),
                   "not a regular file")


def test_invalid_utf8_and_lone_surrogates_exit_2(sets):
    a, b = sets
    f = sorted(b.glob("*.r1.json"))[0]
    f.write_bytes(f.read_bytes().replace(b'"orb": {', b'"x\xff": 1, "orb": {',
                                         1))
    assert_refused(run(COMPARE, a, b, "--fail-on", "slower"), "UTF-8")
    f.write_bytes(f.read_bytes().replace(b'"x\xff"', b'"x\\ud800"', 1))
    assert_refused(run(COMPARE, a, b, "--fail-on", "slower"), "surrogate")


def test_a_huge_name_is_refused(sets):
    a, b = sets
    f = sorted(b.glob("*.r1.json"))[0]
    edit(f, lambda d: d["scenario"].update(name="x" * (1 << 20)))
    assert_refused(run(COMPARE, a, b, "--fail-on", "slower"),
                   "scenario.name", "over the limit")


def test_interrupted_runs_are_named_and_not_counted(sets):
    a, b = sets
    f = sorted(b.glob("sync-unix.r3.json"))[0]
    edit(f, lambda d: d["result"].update(stop_reason="interrupted"))
    r = run(COMPARE, a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    assert f"{f.name}: stop interrupted: not counted as a repeat" in r.stderr
    doc = json.loads(r.stdout)
    row = next(s for s in doc["scenarios"] if s["scenario"] == "sync-unix")
    assert row["runs_b"] == 2 and row["runs_a"] == 3


# ---- gate on a saved comparison ----------------------------------------------

def saved(tmp_path, text):
    f = tmp_path / "c.json"
    f.write_text(text if isinstance(text, str) else json.dumps(text))
    return f


def metric(**kw):
    return dict({"ratio": 1.5, "ci_low": 1.2, "ci_high": 1.8,
                 "verdict": "slower", "notes": []}, **kw)


@pytest.mark.parametrize("text, words", [
    ({"scenarios": []}, ["scenarios", "nothing to gate"]),
    ({}, ["scenarios", "nothing to gate"]),
    ({"comparisons": []}, ["nothing to gate"]),
    ([1, 2], ["not an object"]),
    ({"scenarios": [{"scenario": "s", "metrics": {
        "round_ms": metric(verdict="n/a", ratio=None, ci_low=None,
                           ci_high=None)}}]}, ["no tested metric"]),
    ('{"scenarios": [{"scenario": "s", "metrics": {"m": {"verdict": '
     '"slower", "ratio": NaN}}}]}', ["NaN"]),
    ({"scenarios": [{"scenario": "s", "metrics": {"m": metric(ratio=True)}}]},
     ["scenarios[0].metrics.m.ratio"]),
    ({"scenarios": [{"scenario": "s", "metrics": {"m": metric(ratio=-2)}}]},
     ["ratio"]),
    ({"scenarios": [{"scenario": "s", "metrics": {"m": metric(ratio=None)}}]},
     ["ratio", "missing"]),
    ({"scenarios": [{"scenario": "s", "metrics": {"m": metric(ci_low=2)}}]},
     ["does not hold its ratio"]),
    ({"scenarios": [{"scenario": "s", "metrics": {
        "m": metric(verdict="fine")}}]}, ["not a verdict"]),
    ({"scenarios": [{"scenario": 7, "metrics": {}}]}, ["scenarios[0]"]),
    ({"scenarios": [{"scenario": "s", "metrics": {
        "m": metric(primary="no")}}]}, ["primary"]),
    ('{"scenarios": 1e999}', ["overflows"]),
    ("", ["not valid JSON"]),
])
def test_gate_fails_closed_on_what_it_cannot_read(tmp_path, text, words):
    r = run(GATE, saved(tmp_path, text), "--fail-on", "slower",
            "--format", "github")
    assert_refused(r, "c.json", *words)
    assert r.stdout == ""


def test_gate_on_a_real_comparison_still_gates(tmp_path, sets):
    c = run(COMPARE, *sets, "--format", "json")
    assert c.returncode == 0
    f = saved(tmp_path, c.stdout)
    assert run(GATE, f, "--fail-on", "slower").returncode == 1
    assert run(GATE, f, "--fail-on", "faster").returncode == 0


# ---- escaping at the edge ------------------------------------------------------

HOSTILE = ["s\n::add-mask::x", "s\r\n::set-env name=A::b",
           "::stop-commands::tok", "%0A::error::forged", "\u2028::warning::x",
           "## orbbench: no regression", "<img src=x onerror=alert(1)>",
           "[link](http://x)", "a|b", "ctl\x00\x01\x08\x0b\x1b[2J\x7f\x85",
           "\x1b]0;pwned\x07", "ok-" + "y" * 5000]


def hostile_doc():
    """A comparison as compare writes it (its verdicts follow from its
    values: orbbench.decision re-derives them), every scenario named by a
    hostile name and slower; the suite rows name them as their drivers."""
    return forgekit.hostile_comparison(HOSTILE)


def regressions_of(doc):
    return len(orbgate.regressions(doc, frozenset({"slower"}), 0))


def cases_of(doc):
    return len(orbgate.cases(doc))


def lines_of(*texts):
    return [l for t in texts for l in re.split(r"\r\n|\r|\n|\u2028|\u2029|"
                                               r"\x85|\x0b|\x0c", t)]


def test_no_forged_workflow_command_reaches_a_github_log(tmp_path):
    f = saved(tmp_path, hostile_doc())
    for fmt in ("github", "text", "junit"):
        r = run(GATE, f, "--fail-on", "slower", "--format", fmt)
        assert r.returncode == 1, r.stderr
        for line in lines_of(r.stdout, r.stderr):
            if line.lstrip().startswith("::"):
                assert fmt == "github" and line.startswith(OURS), line
        # bounded: 12 names of up to 5 kB each in, a few kB a name out
        assert len(r.stdout) + len(r.stderr) < 200_000
        assert "\x1b" not in r.stdout + r.stderr
        assert "\x00" not in r.stdout + r.stderr
    r = run(GATE, f, "--fail-on", "slower", "--format", "github")
    ann = [l for l in r.stderr.splitlines() if l.startswith(OURS)]
    assert len(ann) == regressions_of(hostile_doc()) >= 2 * len(HOSTILE)
    assert any("%250A::error::forged" in l for l in ann)
    assert any("s%0A::add-mask::x" in l for l in ann)


def test_the_step_summary_escapes_markdown_and_html(tmp_path):
    r = run(GATE, saved(tmp_path, hostile_doc()), "--fail-on", "slower",
            "--format", "github")
    md = r.stdout
    assert md.count("\n## ") == 0 and md.startswith("## orbbench: regression")
    assert "<img" not in md and "&lt;img src=x onerror=alert\\(1\\)\\>" in md
    assert "[link](" not in md and "\\[link\\]\\(http" in md
    assert "a\\|b" in md
    rows = [l for l in md.splitlines() if l.startswith("| ")]
    assert len(rows) == 1 + cases_of(hostile_doc())  # head, one per case
    assert all(l.endswith("|") for l in rows)
    assert "more characters cut" in md


def test_junit_of_hostile_names_is_well_formed(tmp_path):
    r = run(GATE, saved(tmp_path, hostile_doc()), "--fail-on", "slower",
            "--format", "junit")
    assert r.returncode == 1
    root = ET.fromstring(r.stdout.encode())
    names = [c.get("classname") for c in root.iter("testcase")]
    assert len(names) == cases_of(hostile_doc())
    assert all(len(n) < 300 for n in names)
    x = tmp_path / "junit.xml"
    x.write_text(r.stdout)
    assert sum(1 for s in junitparser.JUnitXml.fromfile(str(x)) for _ in s) \
        == cases_of(hostile_doc())


def test_compare_text_guards_names_at_a_line_start(sets):
    a, b = sets
    for f in list(a.glob("sync-unix.r*.json")) + list(b.glob("sync-unix.r*"
                                                             ".json")):
        edit(f, lambda d: d["scenario"].update(
            name="::add-mask::x\n::set-env \x1b[2J"))
    r = run(COMPARE, a, b, "--fail-on", "slower")
    assert r.returncode == 1, r.stderr
    for line in lines_of(r.stdout, r.stderr):
        assert not line.lstrip().startswith("::"), line
    assert "\x1b" not in r.stdout + r.stderr


@pytest.mark.parametrize("s, want", [
    ("a%b\r\nc", "a%25b%0D%0Ac"), ("\x1b[0m", "\\x1b[0m"),
    ("x" * 300, "x" * 200 + "…[100 more characters cut]"),
])
def test_gh_message_escaping(s, want):
    assert orbesc.gh_message(s) == want


def test_xml_replaces_what_xml_forbids():
    assert orbesc.xml("a\x00b\x1f\ufffe\ud800c\td") == \
        "a\\x00b\\x1f\\ufffe\\ud800c\td"
    assert orbesc.terminal("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert orbesc.guard_lines("ok\n  ::x\n:a") == "ok\n\\  ::x\n:a"


def test_report_never_reads_a_fifo_named_like_a_suite_summary(sets, tmp_path):
    """summary.json and summary.md of a suite folder are read through the
    same reader: as FIFOs they are refused (and the report goes on
    without them), never waited on. Before: report hung."""
    a, _ = sets
    for name in ("summary.json", "summary.md"):
        (a / name).unlink()
        os.mkfifo(a / name)
    r = run(ROOT / "scripts" / "report", "--results", a, "--out",
            tmp_path / "rep", timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rep" / "report.md").is_file()


def test_compare_fail_on_refuses_a_nan_of_its_own():
    """compare --fail-on gates the comparison it made in memory: should
    its statistics ever give a NaN ratio, that is exit 2, not a pass
    (a NaN is neither above nor below the threshold)."""
    import argparse
    import orbbench.commands.compare as orbcompare
    import orbbench.safeload as orbsafe
    cmp = {"scenarios": [{"scenario": "s", "metrics": {"crossing_n": metric(
        ratio=float("nan"), ci_low=0.5, ci_high=0.6)}}]}
    a = argparse.Namespace(fail_on=frozenset({"slower"}), threshold=0.0,
                           format="text")
    with pytest.raises(orbsafe.BadInput, match="crossing_n.ratio"):
        orbcompare.gate_and_write([cmp], a)
