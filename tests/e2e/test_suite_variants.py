"""End-to-end: run-suite --variant: its errors, two variants interleaved
and compared, and a failing comparison failing the suite."""
import json

import pytest

from conftest import run_suite
from reportkit import FIX, load, summary


@pytest.mark.parametrize("args,needle", [
    (["--variant", "a/b"], "--variant a/b: bad name 'a/b'"),
    (["--variant", ".."], "bad name '..'"),
    (["--variant", "a", "--variant", "a:sweep.rounds=3"],
     "--variant a:sweep.rounds=3: variant 'a' given twice"),
    (["--orb", "omniorb-system", "--variant", "omniorb-system"],
     "variant 'omniorb-system' given twice"),
    (["--variant", "a:"], "no KEY=VALUE after ':'"),
    (["--variant", "a:rounds"], "'rounds' is not KEY=VALUE"),
    (["--orb", "x y"], "--orb x y: bad name 'x y'"),
])
def test_run_suite_variant_errors(tmp_path, args, needle):
    out = tmp_path / "out"
    r = run_suite(FIX / "repeat-scenarios", "--out", out, *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("run-suite: "), r.stderr
    assert needle in lines[0]
    assert not out.exists()  # nothing ran


def test_run_suite_two_variants_interleaved_and_compared(tmp_path):
    out = tmp_path / "out"
    r = run_suite(FIX / "repeat-scenarios", "--set", "sweep.max_n=4",
                  "--repeat", "2", "--variant", "a", "--variant",
                  "b:sweep.rounds=6,sweep.warmup_rounds=2", "--out", out)
    assert r.returncode == 0, r.stderr
    order = [l.split()[1:3] for l in r.stderr.splitlines()
             if l.endswith("...")]
    assert order == [["pool5-unix", "[a]"], ["pool5-unix", "[b]"],
                     ["sync-unix", "[a]"], ["sync-unix", "[b]"]] * 2
    for variant, rounds, warmup in (("a", 5, 1), ("b", 6, 2)):
        files = sorted(p.name for p in (out / variant).glob("*.json"))
        assert files == ["pool5-unix.r1.json", "pool5-unix.r2.json",
                         "sync-unix.r1.json", "sync-unix.r2.json"]
        for f in files:
            sweep = load(out / variant / f)["scenario"]["sweep"]
            # the global --set and the variant's own, after it
            assert sweep["max_n"] == 4
            assert (sweep["rounds"], sweep["warmup_rounds"]) == \
                (rounds, warmup)
    summary = load(out / "summary.json")
    assert summary["variants"] == [
        {"name": "a", "set": [], "orb": None},
        {"name": "b", "set": ["sweep.rounds=6", "sweep.warmup_rounds=2"],
         "orb": None}]
    assert {row["variant"] for row in summary["rows"]} == {"a", "b"}
    md = (out / "compare-a-vs-b.md").read_text()
    assert "| scenario | crossing N A | crossing N B | B/A [interval] |" in md
    assert "scenario sweep.rounds (all scenarios): 5 → 6" in md
    assert "BH-adjusted over" in md  # two runs a side: tested
    assert "== b against a" in r.stdout
    assert "- variants: a, b (sweep.rounds=6, sweep.warmup_rounds=2)" in \
        (out / "summary.md").read_text()


def test_run_suite_fails_when_its_comparison_fails(tmp_path):
    """Every run of the suite succeeds, but compare refuses the sides (two
    files of one scenario name with different settings, which it will not
    take for repeats): run-suite must say so in one line and exit 1, not
    0 as if the comparison had been made."""
    src = tmp_path / "suite"
    src.mkdir()
    for f, rounds in (("x1", 2), ("x2", 3)):
        (src / f"{f}.json").write_text(json.dumps(
            {"name": "same-name", "transport": "unix",
             "sweep": {"start": 2, "max_n": 2, "rounds": rounds}}))
    out = tmp_path / "out"
    r = run_suite(src, "--variant", "a", "--variant", "b", "--out", out)
    assert r.returncode == 1, r.stderr
    summary = load(out / "summary.json")
    assert len(summary["rows"]) == 4
    assert not any("failed" in row for row in summary["rows"])
    failed = [l for l in r.stderr.splitlines() if "compare a b failed" in l]
    assert failed == ["run-suite: compare a b failed (exit 2): compare: A: "
                      "same-name: runs differ in scenario key sweep.rounds "
                      "(2, 3): give one folder per setting"], r.stderr
    assert not (out / "compare-a-vs-b.md").exists()
