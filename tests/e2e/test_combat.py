"""End-to-end: server kind combat, the Tcl ORB's echo server
(servers/combat) driven by the unchanged client over TCP: sweeps that
record the ORB as Combat, the Grisby suite's TCP rows through run-suite,
its listener on loopback only, no Unix sockets, nothing left running."""
import json
import os
import re
import select
import signal
import subprocess

import pytest

from conftest import (BIN, SCENARIOS, alive, assert_nothing_left,
                      kill_quietly, run_suite, wait_for)

SERVER = BIN / "combat-echo-server"


def combat_version():
    """The installed tcl-combat's upstream version ("0.8.1"), from dpkg."""
    deb = subprocess.run(["dpkg-query", "-W", "-f", "${Version}",
                          "tcl-combat"], capture_output=True, text=True,
                         check=True).stdout
    return deb.rsplit("-", 1)[0]


def test_version_line():
    r = subprocess.run([str(SERVER), "--version"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"Combat {combat_version()}\n"


def test_small_sweep_records_combat(orbbench):
    r = orbbench(SCENARIOS / "sync-tcp.json", "server.kind=combat",
                 "sweep.start=2", "sweep.step=1", "sweep.max_n=3")
    assert r.rc == 0, r.stderr
    assert r.doc["orb"]["name"] == "Combat"
    assert r.doc["orb"]["version"] == combat_version()
    assert r.doc["orb"]["id"] == "combat"
    assert r.doc["orb"]["server_path"] == str(SERVER)
    assert [s["n"] for s in r.doc["steps"]] == [2, 3]
    assert r.doc["steps"][-1]["calls"] == 3 * r.doc["scenario"]["sweep"][
        "rounds"]
    assert "Combat" in r.stdout
    # footprint probes read tclsh processes like any other server
    fp = r.doc["steps"][-1]["footprint"]
    assert fp["probed"] == 3 and fp["unreadable"] == 0
    for s in fp["servers"]:
        assert s["pss_kb"] > 0 and s["threads"] >= 1 and s["fds"] >= 3


def test_oneway_upcalls_are_counted(orbbench):
    """sendOneway and onewayCount: the rate kind's oneway run asks the
    server for its count and fails unless it reaches what was sent.
    Combat reads every request off the socket into its own memory, so TCP
    does not hold the client back: the count waits until the server has
    worked through all that was sent (seconds on a busy machine), hence a
    short window and a generous bound."""
    r = orbbench(SCENARIOS / "fifo" / "06-tpc-tcp-oneway.json",
                 "server.kind=combat", "rate.repeats=1",
                 "rate.duration_s=0.05", "rate.warmup_s=0",
                 "call.timeout_ms=60000")
    assert r.rc == 0, r.stderr
    assert r.doc["orb"]["name"] == "Combat"
    assert r.doc["rate"]["upcalls_per_s"]["median"] > 0


def test_grisby_tcp_rows_through_run_suite(tmp_path):
    """The Grisby suite's TCP scenarios (thread per call, pool of 100, the
    event loop) on Combat, as the README says to run them, with few
    servers."""
    out = tmp_path / "out"
    r = run_suite(SCENARIOS / "grisby", "--only", "*-tcp", "--set",
                  "server.kind=combat", "--set", "sweep.start=2", "--set",
                  "sweep.max_n=3", "--out", out)
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(row["scenario"] for row in summary["rows"]) == \
        ["event-tcp", "pool100-tcp", "thread-per-call-tcp"]
    assert {row["orb"] for row in summary["rows"]} == \
        {f"Combat {combat_version()}"}
    for f in out.glob("0*.json"):
        doc = json.loads(f.read_text())
        assert doc["scenario"]["transport"] == "tcp"
        assert doc["result"]["stop_reason"] == "max_n", f
        assert_nothing_left(doc)
    assert f"- orb: Combat {combat_version()}" in \
        (out / "summary.md").read_text()


def test_unix_is_refused(tmp_path):
    r = subprocess.run([str(BIN / "orbbench"), "run",
                        str(SCENARIOS / "sync-unix.json"), "--set",
                        "server.kind=combat", "--out",
                        str(tmp_path / "r.json")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f'orbbench: {SCENARIOS / "sync-unix.json"}: key "transport": server '
        'kind "combat" does not serve "unix" (it serves tcp)']
    assert not (tmp_path / "r.json").exists()


def test_work_us_is_refused(tmp_path):
    r = subprocess.run([str(BIN / "orbbench"), "run",
                        str(SCENARIOS / "sync-tcp.json"), "--set",
                        "server.kind=combat", "--set", "server.work_us=5"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert r.stderr.strip().endswith(
        'key "server.work_us": server kind "combat" has no work option')


def listening(pid):
    """The local addresses ("0100007F:9C41") of pid's listening TCP
    sockets, from /proc/net/tcp and tcp6."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        m = re.fullmatch(r"socket:\[(\d+)\]",
                         os.readlink(f"/proc/{pid}/fd/{fd}"))
        if m:
            inodes.add(m.group(1))
    out = []
    for table in ("tcp", "tcp6"):
        with open(f"/proc/net/{table}") as f:
            for line in list(f)[1:]:
                col = line.split()
                if col[3] == "0A" and col[9] in inodes:  # LISTEN
                    out.append(col[1])
    return out


def start_server(*args):
    """The server with these arguments: (process, its first line or '')
    within 30 s. The caller kills it."""
    p = subprocess.Popen([str(SERVER), *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([p.stdout], [], [], 30)
    return p, p.stdout.readline() if ready else ""


def test_listens_on_loopback_only():
    """Combat itself listens on every interface; the server binds only the
    loopback host it is given, and refuses any other."""
    p, line = start_server("-ORBHostName", "127.0.0.1", "-ORBServerPort",
                           "0")
    try:
        assert line.startswith("IOR:"), p.stderr.read() if not line else line
        addrs = listening(p.pid)
        assert len(addrs) == 1 and addrs[0].startswith("0100007F:"), addrs
    finally:
        p.kill()
        p.communicate(timeout=30)
    p, line = start_server("-ORBHostName", "0.0.0.0", "-ORBServerPort", "0")
    try:
        _, err = p.communicate(timeout=30)
    finally:
        kill_quietly(p.pid)
    assert line == "" and p.returncode == 1
    assert err.strip() == ("combat-echo-server: -ORBHostName 0.0.0.0: not a "
                           "loopback address")


def tclsh_servers(doc):
    """The run's servers, each checked to be a live tclsh."""
    pids = [s["pid"] for s in doc["servers"]]
    assert pids and all(alive(p) for p in pids)
    for p in pids:
        assert os.path.basename(os.readlink(f"/proc/{p}/exe")).startswith(
            "tclsh"), p
    return pids


def test_killed_client_leaves_no_tclsh(live_sweep):
    proc, out, doc = live_sweep("server.kind=combat", "transport=tcp")
    pids = tclsh_servers(doc)
    proc.kill()
    proc.communicate(timeout=30)
    assert_nothing_left(json.loads(out.read_text()))
    assert not any(alive(p) for p in pids)


def test_servers_die_with_the_spawner(live_sweep):
    """PR_SET_PDEATHSIG, set by the spawner before exec, survives exec
    (of env, then tclsh): a SIGKILLed spawner takes its tclsh servers
    along, without any code of theirs."""
    proc, out, doc = live_sweep("server.kind=combat", "transport=tcp")
    pids = tclsh_servers(doc)
    # Stopped, the client cannot clean up after its spawner: only the
    # parent-death signal can end the servers.
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        os.kill(doc["process_group"], signal.SIGKILL)  # the spawner
        gone = wait_for(lambda: not any(alive(p) for p in pids), timeout=10)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    assert gone, [p for p in pids if alive(p)]
    proc.wait(timeout=60)  # the run fails without its spawner
    assert proc.returncode == 1
