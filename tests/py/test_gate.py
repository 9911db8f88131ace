"""The regression gate (orbbench.gate, compare --fail-on/--threshold,
--format junit|github) on constructed compare documents; on a small
real paired suite: tests/e2e/test_gate_suite.py."""
import subprocess
import xml.etree.ElementTree as ET

import junitparser
import pytest

import orbbench.gate as orbgate
from conftest import ROOT

COMPARE = ROOT / "scripts" / "compare"


def metric(verdict, ratio, lo, hi, **extra):
    return dict(ratio=ratio, ci_low=lo, ci_high=hi, verdict=verdict,
                notes=[], **extra)


def doc(**rows):
    """A two-set compare document: scenario -> {key: metric}."""
    return {"scenarios": [{"scenario": name, "verdict": "n/a",
                           "metrics": ms} for name, ms in rows.items()]}


SLOWER_12 = metric("slower", 1.12, 1.08, 1.16)          # round ms +12%
FEWER_20 = metric("slower", 0.80, 0.75, 0.86)           # crossing N -20%
LARGER_3 = metric("larger", 1.03, 1.02, 1.04, memory=True)
SAME = metric("same", 1.01, 0.97, 1.05)
UNTESTED = dict(metric("n/a", None, None, None), notes=["one run on a side"])


@pytest.mark.parametrize("fail_on, threshold, expect", [
    ({"slower"}, 0, [("s1", "round_ms"), ("s1", "crossing_n")]),
    ({"slower"}, 10, [("s1", "crossing_n")]),      # 1.08 < 1.10: not beyond
    ({"slower"}, 16, [("s1", "crossing_n")]),      # 1/0.86 = 1.163 > 1.16
    ({"slower"}, 17, []),
    ({"slower", "larger"}, 0, [("s1", "round_ms"), ("s1", "crossing_n"),
                               ("s2", "pss_kb")]),
    ({"larger"}, 5, []),
    ({"faster"}, 0, []),
])
def test_regressions_need_the_verdict_and_the_whole_interval(
        fail_on, threshold, expect):
    d = doc(s1={"round_ms": SLOWER_12, "crossing_n": FEWER_20},
            s2={"round_ms": SAME, "pss_kb": LARGER_3,
                "server_cpu_us": UNTESTED})
    got = orbgate.regressions(d, frozenset(fail_on), threshold)
    assert [(s, k) for _, s, k, _ in got] == expect
    code, lines = orbgate.report(d, frozenset(fail_on), threshold)
    assert code == (1 if expect else 0)
    for (s, k), line in zip(expect, lines[1:]):
        assert line.strip().startswith(f"{s}: {k} ")


def test_descriptive_metrics_never_gate_and_suite_metrics_do():
    d = doc(s1={"round_ms": dict(SLOWER_12, primary=False),
                "crossing_n": dict(FEWER_20, primary=True)})
    d["suite"] = {"round_ms": metric("slower", 1.2, 1.1, 1.3)}
    got = orbgate.regressions(d, frozenset({"slower"}), 5)
    assert [(s, k) for _, s, k, _ in got] == [
        (orbgate.SUITE, "round_ms"), ("s1", "crossing_n")]


def test_many_sets_name_the_set():
    many = {"sets": [], "method": {}, "comparisons": [
        dict(doc(s1={"round_ms": SAME}), set="B"),
        dict(doc(s1={"round_ms": SLOWER_12}), set="C")]}
    code, lines = orbgate.report(many, frozenset({"slower"}), 0)
    assert code == 1 and len(lines) == 2
    assert lines[1].strip() == "C: s1: round_ms slower, C/A 1.12 [1.08, 1.16]"


def test_junit_is_valid_and_holds_one_case_per_scenario_and_metric(tmp_path):
    d = doc(s1={"round_ms": SLOWER_12, "crossing_n": FEWER_20},
            s2={"round_ms": SAME, "pss_kb": LARGER_3,
                "server_cpu_us": UNTESTED})
    text = orbgate.junit(d, frozenset({"slower"}), 10)
    f = tmp_path / "junit.xml"
    f.write_text(text)
    xml = junitparser.JUnitXml.fromfile(str(f))
    cases = {(c.classname, c.name): c for s in xml for c in s}
    assert set(cases) == {("s1", "round_ms"), ("s1", "crossing_n"),
                          ("s2", "round_ms"), ("s2", "pss_kb"),
                          ("s2", "server_cpu_us")}
    def kinds(c):
        return [type(r).__name__ for r in c.result]
    assert kinds(cases[("s1", "crossing_n")]) == ["Failure"]
    assert kinds(cases[("s1", "round_ms")]) == []     # within 10%
    assert kinds(cases[("s2", "server_cpu_us")]) == ["Skipped"]
    assert cases[("s1", "crossing_n")].result[0].type == "slower"
    # The counts in the attributes agree with the cases (junitparser reads
    # them as written; a viewer trusts them).
    suite = next(iter(xml))
    assert (suite.tests, suite.failures, suite.skipped, suite.errors) == \
        (5, 1, 1, 0)
    root = ET.fromstring(text)
    assert root.tag == "testsuites" and root.get("failures") == "1"


def test_github_summary_marks_the_regressions():
    d = doc(s1={"round_ms": SLOWER_12}, s2={"round_ms": SAME})
    md = orbgate.github(d, frozenset({"slower"}), 0)
    assert md.startswith("## orbbench: regression\n")
    assert "| s1 | round_ms | slower :x: | 1.12 [1.08, 1.16] |" in md
    assert "| s2 | round_ms | same | 1.01 [0.97, 1.05] |" in md
    assert orbgate.annotations(d, frozenset({"slower"}), 0) == [
        "::error title=orbbench regression::s1: round_ms slower, "
        "B/A 1.12 [1.08, 1.16]"]


@pytest.mark.parametrize("args, message", [
    (["--fail-on", "worse"], "--fail-on: invalid verdict list"),
    (["--fail-on", "slower", "--threshold", "-1"],
     "--threshold: invalid percentage"),
    (["--format", "junit", "--hosts"], "not with --hosts"),
])
def test_bad_gate_options_exit_2(args, message):
    fixtures = ROOT / "tests" / "fixtures"
    r = subprocess.run([str(COMPARE), str(fixtures / "repeat-A"),
                        str(fixtures / "repeat-B"), *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.splitlines()) == 1


def caller_set(src, out, factor):
    """A copy of a repeat fixture whose runs a caller made (docs/callers.md):
    the client half's fields as the client writes them, the caller's CPU
    per call scaled by factor."""
    import json
    out.mkdir()
    for i, f in enumerate(sorted(src.glob("*.json"))):
        d = json.loads(f.read_text())
        if f.name != "summary.json":
            d["caller"] = {"name": "omniorb-caller"}
            for j, s in enumerate(d["steps"] + (d.get("probes") or [])):
                s["caller"] = {"cpu_per_call_us": {
                    "total": 7.0 * factor * (1 + 0.01 * i)},
                    "threads": 3 + j % 2}
            d["result"].setdefault("costs", {})["caller"] = {
                "memory_per_server_kb": {"uss_kb": 20.0 * factor + i}}
        (out / f.name).write_text(json.dumps(d))
    return out


def test_gate_takes_a_comparison_with_the_client_half(tmp_path):
    """A comparison of runs a caller made holds the client half's rows
    (client CPU, threads, USS per server): gate reads it and decides as
    compare --fail-on does, and still refuses such a row without one of
    its client metrics."""
    import json
    fix = ROOT / "tests" / "fixtures"
    a = caller_set(fix / "repeat-A", tmp_path / "a", 1.0)
    b = caller_set(fix / "repeat-B", tmp_path / "b", 1.3)
    saved = subprocess.run([str(COMPARE), a, b, "--format", "json"],
                           capture_output=True, text=True, timeout=120)
    assert saved.returncode == 0, saved.stderr
    doc = json.loads(saved.stdout)
    assert "client_cpu_us" in doc["scenarios"][0]["metrics"]
    f = tmp_path / "compare.json"
    f.write_text(saved.stdout)
    gate = ROOT / "scripts" / "gate"
    g = subprocess.run([str(gate), f, "--fail-on", "slower"],
                       capture_output=True, text=True, timeout=120)
    c = subprocess.run([str(COMPARE), a, b, "--fail-on", "slower"],
                       capture_output=True, text=True, timeout=120)
    assert g.returncode == c.returncode == 1, (g.stderr, c.stderr)
    del doc["scenarios"][0]["metrics"]["client_threads"]
    f.write_text(json.dumps(doc))
    g = subprocess.run([str(gate), f, "--fail-on", "slower"],
                       capture_output=True, text=True, timeout=120)
    assert g.returncode == 2 and "with a caller also" in g.stderr, g.stderr


def _crossing_row(b_values, b_held):
    """A compare row of a sweep: crossing_n tested on A's three runs and
    B's (b_values, with max_servers b_held per run)."""
    return {"scenario": "sync-unix", "metrics": {"crossing_n": {
        "primary": True, "p_value": 0.01, "a_values": [12, 12, 12],
        "b_values": b_values}},
        "crossing": {"b": [{"file": f"sync-unix.r{i + 1}.json",
                            "max_servers": h} for i, h in enumerate(b_held)]}}


def test_a_run_that_crossed_at_its_first_step_is_named_as_such():
    """A run whose first step crossed max_ms held no servers, and has no
    crossing: the gate's refusal says so and names its file, where a value
    missing for another reason says the run measured nothing."""
    import orbbench.decision as orbdecision
    first = orbdecision.problems({"scenarios": [
        _crossing_row([4.8, 4.4, 0], [4, 4, 0])]})
    assert len(first) == 1
    assert "run or block 3: sync-unix.r3.json crossed max_ms at its first " \
           "step" in first[0] and "below sweep.start" in first[0]
    other = orbdecision.problems({"scenarios": [
        _crossing_row([4.8, 4.4, None], [4, 4, 5])]})
    assert len(other) == 1 and "it measured nothing" in other[0]
    assert orbdecision.problems({"scenarios": [
        _crossing_row([4.8, 4.4, 4.1], [4, 4, 4])]}) == []
