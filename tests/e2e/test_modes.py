"""End-to-end: every call mode over every transport against real omniORB
servers; the pool's bound on calls in flight; threads per round; and
scripts/run-suite on a small folder."""
import json
import os
import pty
import subprocess
from pathlib import Path

import pytest

from conftest import (BIN, ROOT, SCENARIOS, ORBBENCH, run_suite,
                      write_scenario)

MODES = ["sync", "thread-per-call", "pool", "event"]


@pytest.mark.parametrize("transport", ["tcp", "unix"])
@pytest.mark.parametrize("mode", MODES)
def test_mode_sweep_to_10(orbbench, mode, transport):
    r = orbbench(SCENARIOS / f"sync-{transport}.json", f"mode={mode}",
                 "sweep.start=5", "sweep.step=5", "sweep.max_n=10",
                 "sweep.rounds=4", "client.pool_size=3")
    assert r.rc == 0, r.stderr
    assert r.doc["scenario"]["mode"] == mode
    assert r.doc["result"]["stop_reason"] == "max_n"
    assert [s["n"] for s in r.doc["steps"]] == [5, 10]
    for step in r.doc["steps"]:
        n = step["n"]
        # every call of every timed round was answered with the right echo
        # (a wrong id or echo fails the run) and every latency was kept
        assert step["calls"] == 4 * n
        c = step["call_us"]
        assert c["count"] == 4 * n
        assert 0 < c["min"] <= c["median"] <= c["p90"] <= c["p99"] <= c["max"]
        cl = step["client"]
        assert cl["cpu_user_s"] >= 0 and cl["cpu_sys_s"] >= 0
        if mode == "thread-per-call":
            assert cl["threads_started"] == 4 * n
            assert cl["threads_started_per_round"] == n
            assert 2 <= cl["threads_peak"] <= n + 1
            assert 1 <= step["max_in_flight"] <= n
        else:
            assert cl["threads_started"] == 0
        if mode == "sync":
            assert step["max_in_flight"] == 1 and cl["threads_peak"] == 1
        if mode == "event":
            # every request is out before any reply is awaited
            assert step["max_in_flight"] == n and cl["threads_peak"] == 1
        if mode == "pool":
            assert step["max_in_flight"] <= 3
            assert cl["threads_peak"] == 4


def test_pool_never_exceeds_k(orbbench):
    k = 3
    r = orbbench(SCENARIOS / "sync-unix.json", "mode=pool",
                 f"client.pool_size={k}", "sweep.start=20", "sweep.max_n=20",
                 "sweep.rounds=10")
    assert r.rc == 0, r.stderr
    step = r.doc["steps"][0]
    # counted inside the client: never above k, and reached when N > k
    assert step["max_in_flight"] == k
    assert step["client"]["threads_peak"] == k + 1


def test_pool_larger_than_n(orbbench):
    r = orbbench(SCENARIOS / "sync-tcp.json", "mode=pool",
                 "client.pool_size=50", "sweep.start=4", "sweep.max_n=4",
                 "sweep.rounds=3")
    assert r.rc == 0, r.stderr
    assert r.doc["steps"][0]["max_in_flight"] <= 4
    assert r.doc["steps"][0]["calls"] == 12


def test_server_thread_pool_model(orbbench):
    r = orbbench(ROOT / "scenarios/server-models/sync-unix-server-pool5.json",
                 "sweep.start=4", "sweep.max_n=4", "sweep.rounds=3")
    assert r.rc == 0, r.stderr
    assert "-ORBthreadPerConnectionPolicy" in r.doc["scenario"]["server"]["args"]


def test_bad_mode_and_stack(tmp_path):
    for sets, needle in [(["mode=fast"], '"fast" is not one of'),
                         (["client.thread_stack_kb=1"], "out of range"),
                         (["client.pool_size=0"], "out of range")]:
        args = [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json")]
        for s in sets:
            args += ["--set", s]
        r = subprocess.run(args, capture_output=True, text=True)
        assert r.returncode == 2 and needle in r.stderr


def test_run_suite_two_scenarios_and_a_broken_one(tmp_path):
    src = tmp_path / "suite"
    src.mkdir()
    small = {"start": 2, "step": 2, "max_n": 4, "rounds": 2}
    write_scenario(src / "a-sync.json", name="a-sync", transport="unix",
                   sweep=small)
    write_scenario(src / "b-event.json", name="b-event", transport="tcp",
                   mode="event", sweep=small)
    (src / "c-broken.json").write_text('{"sweep": {"max_n": "x"}}')
    out = tmp_path / "out"
    r = run_suite(src, "--out", out)
    assert r.returncode == 1, r.stderr  # one scenario failed
    assert (out / "a-sync.json").exists() and (out / "b-event.json").exists()
    for name in ("a-sync", "b-event"):
        doc = json.loads((out / f"{name}.json").read_text())
        assert doc["result"]["stop_reason"] == "max_n"
        assert doc["result"]["max_servers"] == 4
    md = (out / "summary.md").read_text()
    rows = [l for l in md.splitlines() if l.startswith("| ")][1:]
    assert len(rows) == 3
    assert any(l.startswith("| a-sync | 4 |") for l in rows)
    assert any(l.startswith("| b-event | 4 |") for l in rows)
    broken = [l for l in rows if l.startswith("| c-broken |")]
    assert broken and "failed" in broken[0] and "sweep.max_n" in broken[0]
    # the same table on stdout
    assert "c-broken" in r.stdout and "failed" in r.stdout
    assert "a-sync" in r.stdout


def test_run_suite_runs_the_client_in_orbbench_bin(tmp_path):
    """ORBBENCH_BIN names the client under test (make check-sanitizers sets
    it to a sanitized build): run-suite must run that one, not bin/'s."""
    other = tmp_path / "other-bin"
    other.mkdir()
    (other / "orbbench").symlink_to(ORBBENCH)
    src = tmp_path / "suite"
    src.mkdir()
    write_scenario(src / "a.json", name="a", transport="unix",
                   sweep={"start": 2, "max_n": 2, "rounds": 2})
    out = tmp_path / "out"
    r = run_suite(src, "--out", out, bin_dir=other)
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "a.json").read_text())
    assert doc["command"][0] == str(other / "orbbench")


def test_run_suite_summary_has_no_terminal_escapes(tmp_path):
    """Run from a terminal, run-suite used to ask orbbench for its live
    line while capturing its stderr: the failure reason in summary.md and
    summary.json kept the line's carriage return and escape (ESC [K)."""
    src = tmp_path / "suite"
    src.mkdir()
    write_scenario(src / "dies.json", name="dies", transport="unix",
                   server={"path": "/bin/false"},
                   sweep={"start": 2, "max_n": 2, "rounds": 2})
    out = tmp_path / "out"
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(ROOT / "scripts" / "run-suite"), str(src), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
        env=dict(os.environ, ORBBENCH_BIN=str(BIN)))
    os.close(slave)
    seen = b""
    try:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every writer of the terminal is gone
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
        proc.stdout.read()
        proc.wait(timeout=120)
    assert proc.returncode == 1, seen
    for name in ("summary.md", "summary.json"):
        data = (out / name).read_bytes()
        assert b"\x1b" not in data and b"\r" not in data, (name, data)
    row = json.loads((out / "summary.json").read_text())["rows"][0]
    assert row["failed"].startswith("orbbench: server_died: "), row


def test_run_suite_usage_errors(tmp_path):
    assert run_suite(tmp_path / "nope").returncode == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_suite(empty)
    assert r.returncode == 2 and "no scenario files" in r.stderr


def test_cpu_per_call_both_sides(orbbench):
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=10",
                 "sweep.max_n=10", "sweep.rounds=20")
    assert r.rc == 0, r.stderr
    acct = r.doc["machine"].get("cpu_accounting")
    if not acct and os.geteuid() != 0:
        pytest.skip("needs root for a CPU-accounting cgroup: "
                    + r.doc["machine"]["cpu_accounting_unavailable"])
    # As root the client makes one on cgroup v1 (cpuacct) and v2 alike.
    assert acct, r.doc["machine"].get("cpu_accounting_unavailable")
    step = r.doc["steps"][0]
    cpu, per = step["server_cpu"], step["cpu_per_call_us"]
    # 200 calls cannot cost the servers nothing
    assert cpu["total_s"] > 0
    assert cpu["user_s"] + cpu["sys_s"] == pytest.approx(cpu["total_s"])
    assert per["server"] == pytest.approx(cpu["total_s"] * 1e6 / 200)
    assert per["server_user"] + per["server_sys"] == pytest.approx(
        per["server"])
    cl = step["client"]
    assert per["client_user"] == pytest.approx(cl["cpu_user_s"] * 1e6 / 200)
    assert per["client_sys"] == pytest.approx(cl["cpu_sys_s"] * 1e6 / 200)


@pytest.mark.parametrize("transport", ["tcp", "unix"])
@pytest.mark.parametrize("mode", ["sync", "event"])
def test_large_payload_fragmented_replies(orbbench, mode, transport):
    """omniORB splits replies over its buffer size (about 8 KiB) into GIOP
    1.2 fragments; the client joins them and still checks every echo."""
    r = orbbench(SCENARIOS / f"sync-{transport}.json", f"mode={mode}",
                 "sweep.start=3", "sweep.max_n=3", "sweep.rounds=3",
                 "call.payload_bytes=100000")
    assert r.rc == 0, r.stderr
    assert r.doc["steps"][0]["calls"] == 9


def test_run_suite_refuses_a_folder_with_results_in_it(tmp_path):
    """Results left in --out by an earlier run would be read as repeats of
    this one (by the summary, compare and report): refused, exit 2, one
    line, before anything runs."""
    src = tmp_path / "suite"
    src.mkdir()
    write_scenario(src / "a.json", name="a", transport="unix",
                   sweep={"start": 2, "max_n": 2, "rounds": 2})
    out = tmp_path / "out"
    out.mkdir()
    stale = out / "a.r9.json"
    stale.write_text("{}")
    r = run_suite(src, "--out", out)
    assert r.returncode == 2
    assert r.stderr.strip() == (f"run-suite: {out}: not empty: its files "
                                "would be taken for this run's results; "
                                "give a new folder with --out")
    assert sorted(p.name for p in out.iterdir()) == ["a.r9.json"]
    # an empty folder is a new folder
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    r = run_suite(src, "--out", fresh)
    assert r.returncode == 0, r.stderr
    assert (fresh / "a.json").exists()
