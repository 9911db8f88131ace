"""End-to-end: the fast gate (run-suite --at-n N; KIND.step_blocks): each
scenario measured at one N in paired blocks, with real omniORB servers,
and compare's verdict from the blocks' ratios B/A."""
import json
import math
import shutil
import subprocess

import orbbench.results as orbresults
from conftest import ROOT, SCENARIOS, assert_nothing_left, run_suite

FIXTURES = ROOT / "tests" / "fixtures" / "repeat-scenarios"
BLOCKS = 6


def gate_suite(out, *variants, n=4):
    """The two tiny scenarios at N=n, BLOCKS blocks of 3 rounds each."""
    return run_suite(FIXTURES, "--at-n", n, "--set",
                     f"sweep.step_blocks={BLOCKS}", "--set", "sweep.rounds=3",
                     *[x for v in variants for x in ("--variant", v)],
                     "--out", out, timeout=300)


def compare_json(a, b, *extra):
    return subprocess.run([str(ROOT / "scripts" / "compare"), str(a), str(b),
                           "--format", "json", *extra], capture_output=True,
                          text=True, timeout=120)


def test_at_n_measures_one_n_in_alternating_blocks_and_finds_b_slower(
        tmp_path):
    # B's servers burn 400 us more a call (a few us without).
    out = tmp_path / "s"
    r = gate_suite(out, "a", "b:server.work_us=400")
    assert r.returncode == 0, r.stderr
    for name in ("pool5-unix", "sync-unix"):
        a = json.loads((out / "a" / f"{name}.json").read_text())
        b = json.loads((out / "b" / f"{name}.json").read_text())
        assert a["paired"]["id"] == b["paired"]["id"]
        for doc in (a, b):
            assert_nothing_left(doc)
            sweep = doc["scenario"]["sweep"]
            assert (sweep["start"], sweep["max_n"], sweep["cost_n"],
                    sweep["step_blocks"], sweep["resolution"]) == \
                (4, 4, 4, BLOCKS, 0)
            # Every block opens with --at-n's 2 + 2 untimed rounds.
            assert (sweep["warmup_rounds"], sweep["switch_rounds"]) == (2, 2)
            steps = doc["steps"]
            assert [len(s["untimed_ms"]) for s in steps] == [4] * BLOCKS
            assert [s["n"] for s in steps] == [4] * BLOCKS
            assert [s["block"] for s in steps] == list(range(1, BLOCKS + 1))
            # The footprint is probed once: the same servers every block.
            assert ["footprint" in s for s in steps] == \
                [True] + [False] * (BLOCKS - 1)
            assert doc["probes"] == []
        # The order flips at every tick: A first, then B first, ...
        assert [s["place"] for s in a["steps"]] == [1, 2] * (BLOCKS // 2)
        assert [s["place"] for s in b["steps"]] == [2, 1] * (BLOCKS // 2)
        # Each B call spins a count of loop steps calibrated at start-up to
        # 400 us of its thread's CPU (about that: 348 once in CI, when the
        # count came from the median pass), so every B block holds at least
        # half of it; an A block's few us can be raised by a busy host (157
        # us once in CI), so the blocks' difference is read at their
        # median, which one stray block cannot move.
        cpu_a = [s["cpu_per_call_us"]["server"] for s in a["steps"]]
        cpu_b = [s["cpu_per_call_us"]["server"] for s in b["steps"]]
        assert min(cpu_b) > 200, cpu_b
        diff = sorted(y - x for x, y in zip(cpu_a, cpu_b))
        assert diff[len(diff) // 2] > 200, (cpu_a, cpu_b)
    c = compare_json(out / "a", out / "b")
    assert c.returncode == 0, c.stderr
    cmp = json.loads(c.stdout)
    for row in cmp["scenarios"]:
        cpu = row["metrics"]["server_cpu_us"]
        assert cpu["pairs"] == "blocks" and cpu["n_a"] == BLOCKS
        assert cpu["primary"] and cpu["verdict"] == "slower", cpu
        assert row["metrics"]["round_ms"]["primary"]
        assert row["metrics"]["crossing_n"]["verdict"] == "n/a"
    # Two scenarios are too few for the suite row's test (df 1), not for
    # its ratio.
    assert cmp["suite"]["server_cpu_us"]["ratio"] > 2
    # The gate fails on the scenarios' verdicts.
    g = compare_json(out / "a", out / "b", "--fail-on", "slower")
    assert g.returncode == 1, g.stderr
    # The closing table and the comparison say how it was measured.
    md = (out / "compare-a-vs-b.md").read_text()
    assert "paired by block: 6 blocks of 1 run at N=4" in md


def test_at_n_refuses_a_kind_without_n(tmp_path):
    src = tmp_path / "mixed"
    src.mkdir()
    shutil.copy(FIXTURES / "sync-unix.json", src)
    shutil.copy(SCENARIOS / "fifo" / "01-tpc-unix-sync.json", src)
    r = run_suite(src, "--at-n", 10, "--out", tmp_path / "o")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1, r.stderr
    assert "--at-n:" in r.stderr and "01-tpc-unix-sync.json" in r.stderr
    assert "has no N" in r.stderr
    assert not (tmp_path / "o").exists()


def test_at_n_must_be_a_positive_n(tmp_path):
    r = run_suite(FIXTURES, "--at-n", 0, "--out", tmp_path / "o")
    assert r.returncode == 2
    assert r.stderr == "run-suite: --at-n 0: give an N from 1 to 1000000\n"


def test_each_rounds_server_cpu_is_kept_and_the_cheapest_make_the_figure(
        orbbench):
    """The client reads the servers' CPU after every timed round: the
    rounds' figures add up to the measurement's total, and server_low is
    the mean of the cheapest 30% of them per call, which compare reads
    (orbbench.results.server_cpu_low_us)."""
    r = orbbench(FIXTURES / "sync-unix.json", "sweep.start=6",
                 "sweep.max_n=6", "sweep.rounds=7", "sweep.step_blocks=2",
                 "sweep.resolution=0", "server.work_us=300")
    assert r.rc == 0, r.stderr
    for step in r.doc["steps"]:
        each = step["server_cpu_rounds_ms"]
        assert len(each) == len(step["rounds_ms"]) == 7
        # Each round of 6 calls of about 300 us: no round read as nothing.
        assert all(x > 6 * 0.15 for x in each), each
        assert math.isclose(sum(each), step["server_cpu"]["total_s"] * 1e3,
                            rel_tol=1e-6, abs_tol=1e-3)
        cheapest = sorted(each)[:3]  # ceil(0.3 x 7)
        low = sum(cheapest) / 3 * 1e3 / (step["calls"] / 7)
        cpu = step["cpu_per_call_us"]
        assert math.isclose(cpu["server_low"], low, rel_tol=1e-6)
        assert cpu["server_low"] <= cpu["server"] * (1 + 1e-9)
        # What compare tests; a set's tables show the total.
        assert orbresults.server_cpu_low_us(step) == cpu["server_low"]
        assert orbresults.server_cpu_per_call_us(step) == cpu["server"]
    # Fewer than 5 timed rounds: no cheapest share, the total is read.
    r = orbbench(FIXTURES / "sync-unix.json", "sweep.start=3",
                 "sweep.max_n=3", "sweep.rounds=4", "sweep.resolution=0")
    assert r.rc == 0, r.stderr
    step = r.doc["steps"][0]
    assert len(step["server_cpu_rounds_ms"]) == 4
    assert "server_low" not in step["cpu_per_call_us"]
    assert orbresults.server_cpu_low_us(step) is None
