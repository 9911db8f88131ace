"""End-to-end: the upcall rate (scenario kind "rate") against real omniORB
servers: ping-pong, pipelined and oneway calls, the scenario's kind rules,
and the rate figure's numbers against the result files."""
import json
import subprocess

import pytest

from conftest import (ORBBENCH, SCENARIOS, alive, interrupt_mid_run,
                      kill_a_server_mid_run, start_repeating_run, wait_for,
                      write_scenario)
from reportkit import script


FIFO = SCENARIOS / "fifo"
SHORT = ("rate.duration_s=0.3", "rate.warmup_s=0.1", "rate.repeats=3")
CPU_KEYS = ("client_user", "client_sys", "server_user", "server_sys",
            "server")


def check_rate_doc(doc, window, servers=1):
    """What every rate result must hold, as correctness bounds."""
    assert doc["kind"] == "rate"
    assert doc["scenario"]["kind"] == "rate"
    assert "sweep" not in doc["scenario"]
    assert doc["result"]["stop_reason"] == "done"
    sc = doc["scenario"]["rate"]
    reps = doc["repeats"]
    assert len(reps) == sc["repeats"]
    for rep in reps:
        # The window is timed from its start to the reading at its end: it
        # cannot be shorter than asked. (The bound above it is loose on
        # purpose: the loop ends a window at the first wake-up after its
        # end, and its waits never run past that end; a second more would
        # mean it did not stop, not that the host was slow.)
        assert rep["elapsed_s"] >= sc["duration_s"]
        assert rep["elapsed_s"] < sc["duration_s"] + 1.0
        # rate × elapsed is the calls counted, to rounding
        assert rep["calls"] >= 0
        assert abs(rep["upcalls_per_s"] * rep["elapsed_s"] - rep["calls"]) \
            < 1e-6 * rep["calls"] + 1e-3
        if not sc["oneway"]:
            # requests written in a window and replies taken in it differ
            # by at most what can be in flight at its two edges
            assert abs(rep["sent"] - rep["calls"]) <= window * servers
        else:
            # every oneway sent was counted by its server in the window
            assert rep["sent"] == rep["calls"]
        cpu = rep["cpu_per_upcall_us"]
        for k in CPU_KEYS:
            assert cpu[k] >= 0, k
        if rep["calls"] == 0:
            # a server that stalled for the whole window (seen once in a
            # CI run under ASan: omniORB's pool, 8 requests pipelined, a
            # 0.3 s window) has no per-call figures; the run still
            # stands, and the median below must not be such a window
            continue
        assert cpu["server"] > 0 and cpu["client_user"] + cpu["client_sys"] > 0
        assert abs(cpu["server_user"] + cpu["server_sys"] - cpu["server"]) \
            < 1e-6 * cpu["server"] + 1e-9
        assert rep["server_cpu"]["total_s"] >= 0
        ctx = rep["ctx_switches_per_upcall"]
        assert ctx["client"] >= 0 and ctx["server"] >= 0
    rates = sorted(r["upcalls_per_s"] for r in reps)
    assert rates[len(rates) // 2] > 0
    s = doc["rate"]["upcalls_per_s"]
    assert s["min"] == rates[0] and s["max"] == rates[-1]
    assert s["median"] == pytest.approx(rates[len(rates) // 2])
    for k in CPU_KEYS:
        vals = sorted(r["cpu_per_upcall_us"][k] for r in reps)
        assert doc["rate"]["cpu_per_upcall_us"][k] == \
            pytest.approx(vals[len(vals) // 2])
    assert len(doc["servers"]) == servers


def test_sync_ping_pong(orbbench):
    r = orbbench(FIFO / "01-tpc-unix-sync.json", *SHORT)
    assert r.rc == 0, r.stderr
    assert r.doc["scenario"]["call"]["payload_bytes"] == 10
    check_rate_doc(r.doc, window=1)
    assert "kHz upcalls" in r.stdout


def test_pipelined_thread_pool(orbbench):
    # omniORB's thread pool may answer out of order: every reply is still
    # matched by id and its echo checked (a wrong one fails the run).
    r = orbbench(FIFO / "08-pool-unix-pipe16.json", *SHORT,
                 "rate.window=8")
    assert r.rc == 0, r.stderr
    check_rate_doc(r.doc, window=8)


def test_oneway_tcp(orbbench):
    r = orbbench(FIFO / "06-tpc-tcp-oneway.json", *SHORT)
    assert r.rc == 0, r.stderr
    check_rate_doc(r.doc, window=1)


def test_two_servers_pipelined(orbbench):
    r = orbbench(FIFO / "05-tpc-tcp-pipe16.json", *SHORT, "rate.servers=2",
                 "rate.window=4")
    assert r.rc == 0, r.stderr
    check_rate_doc(r.doc, window=4, servers=2)


@pytest.mark.parametrize("kind,transport,window", [
    ("raw", "pipe", 1), ("raw", "pipe", 8), ("raw", "unix", 1),
    ("giop-min", "tcp", 8)])
def test_orb_less_servers(orbbench, kind, transport, window):
    """The rate of the floor under the ORBs: the same client and checks on
    a raw echo server (over a pipe pair, too) and on giop-min."""
    r = orbbench(FIFO / "01-tpc-unix-sync.json", *SHORT,
                 f"server.kind={kind}", f"transport={transport}",
                 f"rate.window={window}")
    assert r.rc == 0, r.stderr
    check_rate_doc(r.doc, window=window)
    assert r.doc["orb"]["name"] == kind


def test_oneway_on_giop_min(orbbench):
    r = orbbench(FIFO / "03-tpc-unix-oneway.json", *SHORT,
                 "server.kind=giop-min")
    assert r.rc == 0, r.stderr
    check_rate_doc(r.doc, window=1)


def test_oneway_needs_a_wire_that_has_it(tmp_path):
    """The raw wire has no oneway: exit 2 naming the key, before any
    server starts."""
    r = subprocess.run([str(ORBBENCH), "run",
                        str(FIFO / "03-tpc-unix-oneway.json"), "--out",
                        str(tmp_path / "r.json"), "--set", "server.kind=raw"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "rate.oneway" in r.stderr and r.stderr.count("\n") == 1


def check(tmp_path, *sets, **scenario):
    p = write_scenario(tmp_path / "s.json", **scenario)
    args = [str(ORBBENCH), "check", str(p)]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=30)


def test_bad_kind_is_exit_2(tmp_path):
    r = check(tmp_path, kind="ratee")
    assert r.returncode == 2
    # The kinds listed begin so; more follow (latency, marshal, channel).
    assert 'key "kind": "ratee" is not one of: sweep, rate, scaling, ' \
        'clock' in r.stderr and "channel" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_rate_key_in_sweep_refused(tmp_path):
    # documented: a key of the other kind would go unused, so it is refused
    r = check(tmp_path, transport="unix", rate={"window": 4})
    assert r.returncode == 2
    assert 'key "rate.window": only for "kind": "rate" scenarios (this ' \
           'one is "sweep")' in r.stderr
    r = check(tmp_path, "sweep.max_n=5", kind="rate")
    assert r.returncode == 2
    assert r.stderr.strip() == ('orbbench: --set sweep.max_n: only for '
                                '"kind": "sweep" scenarios (this one is '
                                '"rate")')
    r = check(tmp_path, kind="rate", rate={"window": 0})
    assert r.returncode == 2
    assert 'key "rate.window": 0 is out of range [1, 1024]' in r.stderr


def test_sweep_resolved_has_kind_not_rate(tmp_path):
    r = check(tmp_path, transport="unix")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["kind"] == "sweep" and "rate" not in doc
    assert "sweep" in doc


def test_rate_cannot_run_paired(tmp_path):
    r = subprocess.run([str(ORBBENCH), "run", str(FIFO / "01-tpc-unix-sync"
                                                  ".json"), "--paired",
                        "--out", str(tmp_path / "x.json")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "cannot run paired" in r.stderr


def test_figure_data_equals_results(orbbench, tmp_path):
    import orbbench.figures.rate as figs_rate
    import orbbench.plot as orbplot
    import orbbench.results as orbresults
    a = orbbench(FIFO / "01-tpc-unix-sync.json", *SHORT)
    b = orbbench(FIFO / "03-tpc-unix-oneway.json", *SHORT)
    assert a.rc == 0 and b.rc == 0, a.stderr + b.stderr
    results = orbresults.load_results([tmp_path])
    data = figs_rate.rate_data(orbplot.series_of(results))
    by = {row["label"]: row for row in data["rows"]}
    for run in (a, b):
        doc = run.doc
        row = by[doc["scenario"]["name"]]
        s = doc["rate"]
        assert row["rate_median"] == pytest.approx(
            s["upcalls_per_s"]["median"])
        assert row["rate_min"] == s["upcalls_per_s"]["min"]
        assert row["rate_max"] == s["upcalls_per_s"]["max"]
        for k, _, _ in figs_rate.CPU_PARTS:
            assert row["cpu"][k] == pytest.approx(s["cpu_per_upcall_us"][k])
        assert row["repeats"] == len(doc["repeats"])
    figs = orbplot.plot_all(results, tmp_path / "plots", "t")
    assert [f.stem for f in figs] == ["rate"]
    assert "kHz" in figs[0].caption
    # compare refuses rate results with one line rather than crashing
    cmp = script("compare", tmp_path, tmp_path)
    assert cmp.returncode == 2
    assert "weighs the kinds with steps or metrics only" in cmp.stderr
    assert len(cmp.stderr.strip().splitlines()) == 1


def start_rate(tmp_path):
    """A long rate run in the background: (process, result path, the
    first result written after a repeat)."""
    out = tmp_path / "rate.json"
    proc, doc = start_repeating_run(
        FIFO / "01-tpc-unix-sync.json", out, "rate.duration_s=0.3",
        "rate.warmup_s=0.1", "rate.repeats=200")
    return proc, out, doc


def test_server_dying_mid_rate_run(tmp_path):
    """The server killed between repeats: server_died naming it, exit 1,
    the repeats measured so far kept in the result."""
    err, doc, victim = kill_a_server_mid_run(*start_rate(tmp_path))
    assert f"(pid {victim})" in doc["result"]["detail"]
    assert err.strip().splitlines()[-1].startswith("orbbench: server_died:")


def test_ctrl_c_mid_rate_run(tmp_path):
    """SIGINT during a rate run: exit 130, interrupted, repeats kept, and
    the server gone."""
    proc, out, doc = start_rate(tmp_path)
    pid = doc["servers"][0]["pid"]
    interrupt_mid_run(proc, out)
    assert wait_for(lambda: not alive(pid), timeout=5), \
        f"server {pid} still running"


def test_run_suite_summary_names_the_rate(tmp_path):
    """run-suite over rate scenarios: the summary's column is upcalls/s
    (it said "max servers" over a rate), and the progress line too."""
    import shutil
    from conftest import run_suite
    src = tmp_path / "suite"
    src.mkdir()
    shutil.copy(FIFO / "13-raw-pipe-sync.json", src)
    out = tmp_path / "out"
    r = run_suite(src, "--out", out, "--set", "rate.duration_s=0.2",
                  "--set", "rate.warmup_s=0.1", "--set", "rate.repeats=2")
    assert r.returncode == 0, r.stderr
    md = (out / "summary.md").read_text()
    assert "| scenario | upcalls/s | stop |" in md and "max servers" not in md
    assert "kHz" in md
    # No crossing or sweep cost columns, which a rate never fills.
    assert "crossing N" not in md and "PSS kB" not in md
    assert "crossing N" not in r.stdout and "PSS" not in r.stdout
    assert ": rate " in r.stderr and "max servers" not in r.stderr
