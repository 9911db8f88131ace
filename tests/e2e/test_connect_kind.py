"""Kind connect (client/kinds/connect.c): one server, a client that opens
a connection, calls once and closes it, in blocks, then holds some open
at once. Real servers (omniORB, giop-min), real sockets: the rate and
its interval, every connection counted, the footprint's points, what a
held connection costs (a descriptor each; a thread each for omniORB's
thread per connection, none for giop-min's one epoll thread); the
bounds in time; its errors; a server killed mid-run, an OOM kill and an
interrupt; and its report, plot, suite and compare with no edit to
shared code.

(tests/e2e/test_connect.py is about something else: a connect(2) that
never completes.)"""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import (ORBBENCH, SCENARIOS, assert_nothing_left, finish,
                      run_suite)

CONNECT = SCENARIOS / "connect"
SMALL = ("connect.count=600", "connect.blocks=6", "connect.warmup=10",
         "connect.hold=20")
POINTS = ("started", "idle", "churned", "held", "released")


def check_run(r, count=600, blocks=6, hold=20):
    """A connect run that ran to its end, as asked."""
    assert (r.rc, r.doc["result"]["stop_reason"]) == (0, "done"), r.stderr
    c = r.doc["connect"]
    assert c["connections"] == count
    assert [b["connections"] for b in c["blocks"]] == [count // blocks] * \
        blocks
    assert all(b["whole"] and b["per_s"] > 0 for b in c["blocks"])
    rate = c["per_s"]
    assert rate["blocks"] == blocks
    assert rate["min"] <= rate["median"] <= rate["max"]
    assert rate["low"] <= rate["median"] <= rate["high"]
    for part in ("connect_us", "first_call_us", "total_us"):
        assert c[part]["count"] == count, part
        assert 0 < c[part]["min"] <= c[part]["median"] <= c[part]["max"]
    assert sorted(c["footprint"]) == sorted(POINTS)
    fp = c["footprint"]
    # Every connection closed again: the server is back to its
    # descriptors with none; with `hold` open it had one more each.
    assert fp["released"]["fds"] == fp["started"]["fds"], fp
    assert fp["held"]["fds"] - fp["churned"]["fds"] == hold, fp
    assert c["per_connection"]["fds"] == 1.0
    assert c["per_connection"]["uss_kb"] > 0
    assert len(r.doc["servers"]) == 1
    return c


def test_omniorb_starts_a_thread_for_each_held_connection(orbbench):
    r = orbbench(CONNECT / "01-omniorb-unix.json", *SMALL)
    c = check_run(r)
    # Its default is a thread per connection; an idle one left over by the
    # churn may be reused, not all of them.
    assert c["per_connection"]["threads"] > 0.5, c["footprint"]
    assert "connections/s (median of 6 blocks, 95% interval" in r.stdout
    assert "each held connection added" in r.stdout


def test_giopmin_serves_every_connection_on_one_thread(orbbench):
    r = orbbench(CONNECT / "05-giopmin-tcp.json", *SMALL)
    c = check_run(r)
    fp = c["footprint"]
    assert c["per_connection"]["threads"] == 0
    assert fp["held"]["threads"] == fp["started"]["threads"] == 1


def test_no_hold_reads_no_cost_per_connection(orbbench):
    r = orbbench(CONNECT / "04-giopmin-unix.json", *SMALL[:3],
                 "connect.hold=0")
    assert (r.rc, r.doc["result"]["stop_reason"]) == (0, "done"), r.stderr
    c = r.doc["connect"]
    assert c["per_connection"] is None and "held" not in c["footprint"]
    assert "each held connection" not in r.stdout


def test_the_run_is_bounded_in_time(orbbench):
    r = orbbench(CONNECT / "04-giopmin-unix.json", "connect.count=1000000",
                 "connect.blocks=1000", "connect.max_seconds=1")
    assert (r.rc, r.doc["result"]["stop_reason"]) == (0, "time_limit"), \
        r.stderr
    c = r.doc["connect"]
    assert 0 < c["connections"] < 1000000
    assert c["connections"] == sum(b["connections"] for b in c["blocks"])
    assert "connect.max_seconds (1 s) reached in block" in \
        r.doc["result"]["detail"]
    # Stopped by time, it held no connections: no footprint with them.
    assert "held" not in c["footprint"]


@pytest.mark.parametrize("sets, key, message", [
    (("transport=pipe",), "transport", "kind connect needs"),
    (("connect.count=5", "connect.blocks=6"), "connect.blocks",
     "at most one block a connection"),
    (("connect.hold=10001",), "connect.hold", ""),
    (("mode=event",), "mode", ""),
])
def test_bad_scenarios_are_refused_naming_the_key(orbbench, sets, key,
                                                  message):
    r = orbbench(CONNECT / "01-omniorb-unix.json", *sets)
    assert r.rc == 2 and r.doc is None, r.stderr
    assert key in r.stderr and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_server_that_hangs_up_is_a_failed_call(orbbench, tmp_path):
    """A server that closes every connection as it accepts it: the
    classifier of every kind says call_failed, exit 1; the result is
    written."""
    from test_misbehave import run_fake
    r = run_fake(tmp_path, "unix", *SMALL, args=["--behave", "close-at-once"],
                 scenario=CONNECT / "01-omniorb-unix.json")
    assert (r.rc, r.doc["result"]["stop_reason"]) == (1, "call_failed"), \
        r.stderr
    assert "during the warm-up" in r.doc["result"]["detail"]
    assert r.doc["connect"]["connections"] == 0


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="needs root: makes a memory cgroup")
def test_an_oom_kill_is_a_memory_stop_as_in_every_kind(tmp_path):
    """A server that takes memory on its first call, until the run's 64 MB
    memory cgroup's OOM killer ends it: `memory`, exit 0, as
    test_oom_stops.py has it for the other kinds."""
    from test_misbehave import run_fake
    r = run_fake(tmp_path, "unix", "machine.mem_limit_mb=64", *SMALL,
                 args=["--behave", "balloon,after=0"],
                 scenario=CONNECT / "01-omniorb-unix.json")
    assert r.doc is not None, r.stderr
    assert (r.doc["result"]["stop_reason"], r.rc) == ("memory", 0), \
        (r.doc["result"], r.stderr)
    assert "was killed by the OOM killer in the 64 MB memory cgroup" in \
        r.doc["result"]["detail"]


def start_long_run(tmp_path):
    """A connect run in the background that will not end on its own for a
    while: (process, out, its first checkpoint with a block)."""
    out = tmp_path / "long.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(CONNECT / "04-giopmin-unix.json"),
         "--out", str(out), "--set", "connect.count=1000000", "--set",
         "connect.blocks=1000", "--set", "connect.max_seconds=120"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    doc = None
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            doc = json.loads(out.read_text())
            if doc.get("connect", {}).get("blocks"):
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    assert doc and doc["connect"]["blocks"], "no block written"
    return proc, out, doc


def test_a_server_killed_mid_run_is_server_died(tmp_path):
    proc, out, doc = start_long_run(tmp_path)
    os.kill(doc["servers"][0]["pid"], signal.SIGKILL)
    _, err = finish(proc)
    assert proc.returncode == 1, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "server_died", doc["result"]
    assert doc["connect"]["blocks"]


def test_an_interrupt_ends_the_run_and_its_server(tmp_path):
    proc, out, doc = start_long_run(tmp_path)
    proc.send_signal(signal.SIGINT)
    _, err = finish(proc)
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "interrupted"
    assert doc["connect"]["connections"] > 0
    assert_nothing_left(doc)


# ---- the shared Python, unchanged, on its results ----------------------------

@pytest.fixture
def two_results(orbbench, tmp_path):
    """A folder with an omniORB and a giop-min connect result."""
    folder = tmp_path / "results"
    folder.mkdir()
    for i, name in enumerate(("01-omniorb-unix", "04-giopmin-unix")):
        r = orbbench(CONNECT / f"{name}.json", *SMALL)
        assert r.rc == 0, r.stderr
        (folder / f"{name}.json").write_text(json.dumps(r.doc))
    return folder


def test_report_and_plot_show_its_table_and_figure(two_results, tmp_path):
    rep = subprocess.run([str(ORBBENCH), "report", "--results",
                          str(two_results), "--out", str(tmp_path / "rep")],
                         capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## New connections" in md
    rows = [line for line in md.splitlines()
            if line.startswith("| connect-")]
    assert len(rows) == 2 and any("omniORB" in x for x in rows) and \
        any("giop-min" in x for x in rows), rows
    assert "connect.png" in md
    plot = subprocess.run([str(ORBBENCH), "plot", str(two_results),
                           "--out", str(tmp_path / "plots")],
                          capture_output=True, text=True, timeout=120)
    assert plot.returncode == 0, plot.stderr
    assert (tmp_path / "plots" / "connect.png").stat().st_size > 0
    assert (tmp_path / "plots" / "connect.svg").stat().st_size > 0


def test_compare_refuses_two_orbs_on_one_side_in_one_line(two_results,
                                                          tmp_path):
    """The folder holds an omniORB and a giop-min result: as for sweeps,
    not repeats of one ORB."""
    r = subprocess.run([str(ORBBENCH), "compare", str(two_results),
                        str(two_results)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2, r.stderr
    assert "results of two ORBs" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.long
def test_a_suite_compares_it_with_its_own_metrics(tmp_path):
    """Two variants, B's server spending 2 ms in each call (one call a
    connection: about ten times a connection's own cost): the suite runs
    compare, which weighs the kind's own metrics (kinds/connect.py's
    METRICS) and finds B slower; compare --plots, --format json and a
    comparison report of the same folders work on it unchanged."""
    out = tmp_path / "suite"
    r = run_suite(CONNECT, "--only", "0[12]-*", "--repeat", "3",
                  "--variant", "a", "--variant", "b:server.work_us=2000",
                  "--set", "connect.count=600", "--set", "connect.blocks=6",
                  "--set", "connect.hold=10", "--out", out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "connections/s" in r.stdout
    assert "compare skipped" not in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["rows"]) == 12
    assert all(row["kind"] == "connect" for row in summary["rows"])
    for sub in ("a", "b"):
        assert len(list((out / sub).glob("*.json"))) == 6
    md = (out / "compare-a-vs-b.md").read_text()
    assert "## Per scenario, kind connect" in md
    assert (out / "plots-a-vs-b" / "compare-connect.png").stat().st_size > 0

    cmp = subprocess.run([str(ORBBENCH), "compare", str(out / "a"),
                          str(out / "b"), "--format", "json", "--plots",
                          str(tmp_path / "cmp")], capture_output=True,
                         text=True, timeout=120)
    assert cmp.returncode == 0, cmp.stderr
    doc = json.loads(cmp.stdout)
    rows = {row["scenario"]: row for row in doc["scenarios"]}
    assert sorted(rows) == ["connect-omniorb-tcp", "connect-omniorb-unix"]
    for row in rows.values():
        assert row["kind"] == "connect" and row["steps"] == []
        ms = row["metrics"]
        assert sorted(ms) == ["per_connection_kb", "per_s", "total_us"]
        assert ms["per_s"]["verdict"] == "slower", ms["per_s"]
        assert ms["per_s"]["ratio"] < 0.5 and ms["per_s"]["primary"]
        # the same question per connection: shown, not tested
        assert ms["total_us"]["primary"] is False
        assert ms["total_us"]["verdict"] == "n/a"
        assert ms["total_us"]["ratio"] > 2
        assert len(ms["per_s"]["a_values"]) == 3
        assert row["verdict"] == "slower"
    assert doc["suite"]["per_s"]["ratio"] < 0.5
    assert "per_connection_kb" in doc["suite"]
    assert (tmp_path / "cmp" / "compare-connect.svg").stat().st_size > 0
    gate = subprocess.run([str(ORBBENCH), "compare", str(out / "a"),
                           str(out / "b"), "--fail-on", "slower"],
                          capture_output=True, text=True, timeout=120)
    assert gate.returncode == 1, gate.stderr
    assert "connect-omniorb-unix" in gate.stderr

    rep = subprocess.run([str(ORBBENCH), "report", "--results", str(out),
                          "--out", str(tmp_path / "rep")],
                         capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "### Per scenario, kind connect" in md
    assert "compare-connect.png" in md
    assert "scenarios: 2 slower" in md
