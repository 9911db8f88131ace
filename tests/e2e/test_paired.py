"""End-to-end: paired runs (orbbench run --paired / --versus): two sets of
real omniORB servers on the machine at once, measured in alternate rounds,
one result file per side; their errors; run-suite --paired."""
import json
import statistics
import subprocess

import pytest

from conftest import (B_WORK_US, ROOT, SCENARIOS, ORBBENCH,
                      assert_nothing_left, run_suite, set_flags,
                      tiny_paired_suite)
from test_crossing import check_search, cpus

SMALL = ("server.work_us=1000", "sweep.start=3", "sweep.step=8",
         "sweep.max_ms=10", "sweep.max_n=60", "sweep.rounds=3",
         "sweep.near_rounds=5")


def run(tmp_path, *args, timeout=300):
    out = tmp_path / "a.json"
    proc = subprocess.run([str(ORBBENCH), "run", str(SCENARIOS /
                                                    "sync-unix.json"),
                           "--out", str(out), "--no-progress", *args],
                          capture_output=True, text=True, timeout=timeout)
    docs = [json.loads(p.read_text()) if p.exists() else None
            for p in (out, tmp_path / "a.versus.json")]
    for d in docs:
        if d:
            assert_nothing_left(d)
    return proc, docs


@pytest.mark.parametrize("mode", ["sync", "event"])
def test_versus_runs_both_sides_each_to_its_crossing(tmp_path, mode):
    # A's servers burn 1 ms a call, B's 1.5 ms: each side's largest N under
    # 10 ms is bounded by 10 ms × CPUs / its work.
    proc, (a, b) = run(tmp_path, *set_flags(*SMALL, f"mode={mode}"),
                       "--versus", "server.work_us=1500")
    assert proc.returncode == 0, proc.stderr
    assert a["paired"]["id"] == b["paired"]["id"]
    assert (a["paired"]["side"], b["paired"]["side"]) == ("a", "b")
    assert a["paired"]["other"].endswith("a.versus.json")
    assert b["paired"]["versus"] == ["server.work_us=1500"]
    assert a["scenario"]["server"]["work_us"] == 1000
    assert b["scenario"]["server"]["work_us"] == 1500
    cpu = {}
    for doc, work_ms in ((a, 1.0), (b, 1.5)):
        lo, _ = check_search(doc)
        assert 0 < lo < 10 * cpus() / work_ms
        # Each side's servers are counted in a CPU-accounting cgroup of
        # their own: each pays its own work (about: a count of loop steps
        # calibrated at each server's start), not the other's.
        for m in doc["steps"] + doc["probes"]:
            assert m["cpu_per_call_us"]["server"] >= work_ms * 1000 / 2
            assert m["machine"]["servers_on_machine"] > m["n"] \
                if "machine" in m else True
        cpu[work_ms] = statistics.median(
            m["cpu_per_call_us"]["server"] for m in doc["steps"])
    # B's calls cost about 1.5 times A's; had each side's cgroup counted
    # both sides' work, the two would be alike (2.5 ms each).
    assert 1.2 <= cpu[1.5] / cpu[1.0] <= 1.8, cpu
    assert a["machine"]["cpu_accounting_cgroup"] != \
        b["machine"]["cpu_accounting_cgroup"]
    # The sides' servers are told apart: no index is used twice.
    ia = {s["index"] for s in a["servers"]}
    ib = {s["index"] for s in b["servers"]}
    assert not ia & ib
    assert proc.stdout.count("round time crosses") == 2
    assert "[A] " in proc.stdout and "[B] " in proc.stdout


def test_paired_without_versus_is_an_a_a_run(tmp_path):
    proc, (a, b) = run(tmp_path, *set_flags(*SMALL), "--paired")
    assert proc.returncode == 0, proc.stderr
    assert a["scenario"] == b["scenario"]
    assert b["paired"]["versus"] == []


def test_failing_side_stops_its_partner(tmp_path):
    proc, (a, b) = run(tmp_path, *set_flags(*SMALL),
                       "--versus", "server.path=/bin/false")
    assert proc.returncode == 1
    assert b["result"]["stop_reason"] == "server_died"
    assert a["result"]["stop_reason"] == "partner_failed"
    assert "side B stopped" in a["result"]["detail"]
    assert "side B: server_died" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--versus", "sweep.max_n=5"],
     "--versus sweep.max_n=5: only server.* and caller.* keys may differ"),
    (["--out-versus", "/tmp/x.json"], "--out-versus: only in a paired run"),
    (["--paired", "--set", "machine.mem_limit_mb=100"],
     "machine.mem_limit_mb would be one limit for both sides"),
    (["--versus", "server.work_us=-2"], "server.work_us"),
])
def test_paired_usage_errors(tmp_path, args, message):
    proc, docs = run(tmp_path, *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert docs == [None, None]


def test_same_file_for_both_sides_is_refused(tmp_path):
    proc, _ = run(tmp_path, "--paired", "--out-versus",
                  str(tmp_path / "a.json"))
    assert proc.returncode == 2
    assert "the same file as --out" in proc.stderr


def test_check_prints_both_sides():
    proc = subprocess.run([str(ORBBENCH), "check",
                           str(SCENARIOS / "sync-unix.json"),
                           "--versus", "server.work_us=7"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["a"]["server"]["work_us"] == 0
    assert doc["b"]["server"]["work_us"] == 7


def test_run_suite_pairs_two_server_variants_by_default(tmp_path):
    out = tmp_path / "suite"
    proc = tiny_paired_suite(out, 2)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["paired"] is True
    assert summary["paired_scenarios"] == ["pool5-unix", "sync-unix"]
    for name in ("pool5-unix", "sync-unix"):
        for rep in (1, 2):
            a = json.loads((out / "a" / f"{name}.r{rep}.json").read_text())
            b = json.loads((out / "b" / f"{name}.r{rep}.json").read_text())
            assert a["paired"]["id"] == b["paired"]["id"]
            assert b["scenario"]["server"]["work_us"] == B_WORK_US
            # The paired opening: the file's warmup_rounds (1) kept, and
            # run-suite's 2 switch rounds for the key the file leaves out.
            for doc in (a, b):
                sweep = doc["scenario"]["sweep"]
                assert (sweep["warmup_rounds"], sweep["switch_rounds"]) == \
                    (1, 2)
                assert {len(m["untimed_ms"]) for m in
                        doc["steps"] + doc["probes"]} == {3}
    cmp = (out / "compare-a-vs-b.md").read_text()
    assert "paired run's log ratio" in cmp
    # One paired run per scenario and repeat: 2 scenarios x 2 repeats.
    assert proc.stderr.count("[a vs b]: ") == 4


def test_run_suite_solo_runs_the_variants_one_after_the_other(tmp_path):
    out = tmp_path / "suite"
    proc = tiny_paired_suite(out, 1, "--solo")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["paired"] is False and summary["paired_scenarios"] == []
    for name in ("pool5-unix", "sync-unix"):
        for side in ("a", "b"):
            doc = json.loads((out / side / f"{name}.json").read_text())
            assert "paired" not in doc or doc["paired"] is None
            # A solo run keeps the client's opening (run-suite's paired
            # one is for paired runs only).
            assert doc["scenario"]["sweep"]["switch_rounds"] == 3
    order = [l.split()[1:3] for l in proc.stderr.splitlines()
             if l.endswith("...")]
    assert order == [["pool5-unix", "[a]"], ["pool5-unix", "[b]"],
                     ["sync-unix", "[a]"], ["sync-unix", "[b]"]]


def test_run_suite_paired_blocks_open_with_three_and_two_untimed_rounds(
        tmp_path):
    """A scenario that leaves the opening to the defaults gets run-suite's
    paired one (warmup 3, switch 2), and --set still changes it."""
    src = tmp_path / "src"
    src.mkdir()
    doc = json.loads((ROOT / "tests" / "fixtures" / "repeat-scenarios" /
                      "sync-unix.json").read_text())
    del doc["sweep"]["warmup_rounds"]
    (src / "sync-unix.json").write_text(json.dumps(doc))
    out = tmp_path / "out"
    for switch, flags in ((2, []), (1, ["--set", "sweep.switch_rounds=1"])):
        proc = run_suite(src, "--paired", "--variant", "a", "--variant",
                         "b:server.work_us=50", "--out", out / str(switch),
                         "--set", "sweep.max_n=6", "--set", "sweep.start=2",
                         "--set", "sweep.step=2", "--set", "sweep.max_ms=3",
                         "--set", "sweep.rounds=2", "--set",
                         "sweep.near_rounds=2", *flags, timeout=300)
        assert proc.returncode == 0, proc.stderr
        for side in "ab":
            res = json.loads((out / str(switch) / side /
                              "sync-unix.json").read_text())
            sweep = res["scenario"]["sweep"]
            assert (sweep["warmup_rounds"], sweep["switch_rounds"]) == \
                (3, switch)
            assert {len(m["untimed_ms"]) for m in
                    res["steps"] + res["probes"]} == {3 + switch}


def test_run_suite_paired_and_solo_exclude_each_other(tmp_path):
    proc = run_suite(ROOT / "tests" / "fixtures" / "repeat-scenarios",
                     "--paired", "--solo", "--variant", "a", "--variant",
                     "b", "--out", tmp_path / "x", timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("--paired and --solo: give one")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("variants, message", [
    (["--variant", "a"], "needs exactly two variants"),
    (["--variant", "a:sweep.rounds=2", "--variant", "b:sweep.rounds=3"],
     "differ only in server.* and caller.* keys"),
    (["--variant", "a:server.work_us=5", "--variant", "b"],
     "must set server.work_us too"),
])
def test_run_suite_paired_errors(tmp_path, variants, message):
    proc = run_suite(
        ROOT / "tests" / "fixtures" / "repeat-scenarios", "--paired",
        *variants, "--out", tmp_path / "x", timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr
