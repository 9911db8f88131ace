"""End-to-end error paths: bad scenarios, bad servers, dying servers,
interrupts and killed clients. Each checks the exit code, the one-line
message, that results gathered so far are written, and that no server is
left running."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import (E2E, ORBBENCH, SCENARIOS, alive, assert_nothing_left,
                      fake_server, kill_quietly, wait_for, write_scenario)


def run_cli(*args, timeout=60):
    return subprocess.run([str(ORBBENCH), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("content,needle", [
    ('{"thred": 1}', 'unknown key "thred"'),
    ('{"sweep": {"max_nn": 1}}', 'unknown key "sweep.max_nn"'),
    ('{"sweep": {"max_n": "many"}}', 'key "sweep.max_n": expected an integer'),
    ('{"sweep": {"max_n": 0}}', 'key "sweep.max_n": 0 is out of range'),
    ('{"transport": "udp"}', 'key "transport": "udp" is not one of'),
    ('{"sweep": 3}', 'key "sweep": expected an object'),
    ('{"server": {"args": [1]}}', 'key "server.args": entry 0'),
    ('{"sweep": {"start": 9, "max_n": 5}}', 'key "sweep.start"'),
    ('{"sweep": {"max_n": 5,', ":1:"),
    ('[1, 2]', "expected a JSON object"),
])
def test_bad_scenario_exits_2_naming_file_and_key(tmp_path, content, needle):
    p = tmp_path / "bad.json"
    p.write_text(content)
    r = run_cli("run", p)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"orbbench: {p}")
    assert needle in lines[0]
    assert r.stdout == ""


def test_folder_instead_of_scenario_file():
    r = run_cli("run", SCENARIOS)
    assert r.returncode == 2
    assert "Is a directory" in r.stderr and "run-suite" in r.stderr


def test_missing_scenario_file():
    r = run_cli("run", "no/such/scenario.json")
    assert r.returncode == 2
    assert r.stderr.strip() == ("orbbench: no/such/scenario.json: "
                                "No such file or directory")


@pytest.mark.parametrize("sets,needle", [
    (["sweep.bogus=1"], '--set sweep.bogus=1: unknown key "sweep.bogus"'),
    (["sweep.max_n=lots"], '--set sweep.max_n: "lots" is not an integer'),
    (["sweep.max_n=0"], "--set sweep.max_n: 0 is out of range"),
    (["nokey"], "--set nokey: expected key=value"),
])
def test_bad_set_exits_2(sets, needle):
    args = ["run", SCENARIOS / "sync-tcp.json"]
    for s in sets:
        args += ["--set", s]
    r = run_cli(*args)
    assert r.returncode == 2
    assert needle in r.stderr


def test_usage_errors():
    assert run_cli().returncode == 2
    assert run_cli("frobnicate").returncode == 2
    assert run_cli("run").returncode == 2
    assert run_cli("run", "--bogus-option", "x.json").returncode == 2
    h = run_cli("--help")
    assert h.returncode == 0 and "usage: orbbench SUBCOMMAND" in h.stdout
    h = run_cli("run", "--help")
    assert h.returncode == 0 and h.stdout.startswith("usage: orbbench run")
    v = run_cli("--version")
    assert v.returncode == 0 and v.stdout.startswith("orbbench ")


def test_set_text_that_is_not_utf8_is_refused():
    """json_string refuses invalid UTF-8: the message says so (it said
    "is not a number"), and a server argument is not silently dropped."""
    for key, value in (("server.orb", b"\xff"), ("server.args", b"a \xff")):
        r = subprocess.run([str(ORBBENCH), "check",
                            str(SCENARIOS / "sync-tcp.json"), "--set",
                            key.encode() + b"=" + value],
                           capture_output=True, timeout=60)
        assert r.returncode == 2, r.stdout
        line = r.stderr.decode(errors="replace").strip()
        assert line.count("\n") == 0
        assert f"--set {key}:" in line and "is not valid UTF-8 text" in line


def test_suffixed_numbers_in_set(tmp_path):
    r = run_cli("check", SCENARIOS / "sync-tcp.json", "--set",
                "sweep.max_n=2k")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["sweep"]["max_n"] == 2000


def test_server_that_exits_at_once(orbbench, tmp_path):
    srv = fake_server(tmp_path, 'echo "no ORB here" >&2; exit 3')
    r = orbbench(SCENARIOS / "sync-tcp.json", f"server.path={srv}")
    assert r.rc == 1
    res = r.doc["result"]
    assert res["stop_reason"] == "server_died"
    assert "exited with status 3" in res["detail"]
    assert "no ORB here" in res["detail"]
    assert "(pid " in res["detail"]
    msg = [l for l in r.stderr.splitlines() if "server_died" in l]
    assert msg and "exited with status 3" in msg[0]


def test_server_that_never_gets_ready(orbbench, tmp_path):
    srv = fake_server(tmp_path, "exec sleep 30")
    t0 = time.monotonic()
    r = orbbench(SCENARIOS / "sync-unix.json", f"server.path={srv}",
                 "server.start_timeout_ms=300", "sweep.start=2")
    assert time.monotonic() - t0 < 20
    assert r.rc == 1
    assert r.doc["result"]["stop_reason"] == "server_died"
    assert "no ready line within 300 ms" in r.doc["result"]["detail"]


def test_bad_ior_is_a_clear_error(orbbench, tmp_path):
    srv = fake_server(tmp_path, "echo IOR:0102zz; exec sleep 30")
    r = orbbench(SCENARIOS / "sync-tcp.json", f"server.path={srv}")
    assert r.rc == 1
    assert r.doc["result"]["stop_reason"] == "call_failed"
    assert "bad IOR" in r.doc["result"]["detail"]


def test_non_loopback_ior_is_refused(orbbench, tmp_path):
    # An IOR naming 10.1.2.3: the client must refuse before any traffic.
    ior = ("IOR:010000001300000049444c3a42656e63682f4563686f3a312e3000000100"
           "0000000000002c000000010102000a00000031302e312e322e330000b5b20e"
           "000000fe0a9c0c6b00000d190000000000000000000000")
    srv = fake_server(tmp_path, f"echo {ior}; exec sleep 30")
    r = orbbench(SCENARIOS / "sync-tcp.json", f"server.path={srv}")
    assert r.rc == 1
    assert "not a loopback address" in r.doc["result"]["detail"]
    assert "10.1.2.3" in r.doc["result"]["detail"]


def test_server_killed_mid_run(live_sweep):
    proc, out, doc = live_sweep()
    victim = doc["servers"][0]["pid"]
    os.kill(victim, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1
    final = json.loads(out.read_text())
    res = final["result"]
    assert res["stop_reason"] == "server_died"
    assert f"pid {victim}" in res["detail"]
    assert "killed by signal 9" in res["detail"]
    assert final["steps"], "steps measured before the death are kept"
    assert_nothing_left(final)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_writes_results_and_stops_servers(live_sweep, sig):
    proc, out, _ = live_sweep()
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    final = json.loads(out.read_text())
    assert final["result"]["stop_reason"] == "interrupted"
    assert final["steps"]
    assert final["result"]["max_servers"] == final["steps"][-1]["n"]
    assert_nothing_left(final)


FAILING_TEST = """
import json, sys
sys.path.insert(0, {e2e!r})
from conftest import live_sweep  # noqa: F401 (the fixture under test)

def test_fails_mid_sweep(live_sweep):
    proc, out, doc = live_sweep()
    with open({record!r}, "w") as f:
        json.dump({{"pid": proc.pid, "out": str(out)}}, f)
    assert False, "deliberate failure while a sweep runs"
"""


def test_failed_assertion_leaves_no_sweep_running(tmp_path):
    """A test that fails while its sweep towards 2000 servers runs must not
    leave the client and its servers running: run such a test in a pytest
    of its own, then look for them."""
    record = tmp_path / "started.json"
    test = tmp_path / "test_deliberate.py"
    test.write_text(FAILING_TEST.format(e2e=str(E2E), record=str(record)))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p",
                        "no:cacheprovider", "--rootdir", str(tmp_path),
                        str(test)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "deliberate failure while a sweep runs" in r.stdout
    started = json.loads(record.read_text())
    doc = json.loads(open(started["out"]).read())
    try:
        assert not alive(started["pid"]), "the client is still running"
        assert_nothing_left(doc)
    finally:
        kill_quietly(started["pid"])  # if not, stop it now


def test_killed_client_takes_its_servers(live_sweep):
    proc, out, doc = live_sweep()
    pids = [s["pid"] for s in doc["servers"]]
    assert all(alive(p) for p in pids)
    proc.kill()
    proc.communicate(timeout=30)
    # the checkpoint names the servers and their process group
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "running"
    assert_nothing_left(doc)
    assert not any(alive(p) for p in pids)
    # the spawner also removes the client's cgroups (CPU accounting)
    mine = f"orbbench-{proc.pid}"
    gone = wait_for(lambda: not any(
        mine in dirs for _, dirs, _ in os.walk("/sys/fs/cgroup")), timeout=10)
    assert gone, f"cgroup {mine} left behind"


def test_unwritable_out_is_refused_before_the_run(tmp_path):
    """A result that could not be written at the end would lose the run:
    the path is checked first, and nothing is started."""
    out = tmp_path / "no" / "such" / "dir" / "r.json"
    r = run_cli("run", SCENARIOS / "sync-tcp.json", "--out", out)
    assert r.returncode == 2
    assert r.stderr.strip() == (f"orbbench: --out {out}: cannot write "
                                "there: No such file or directory")
    assert r.stdout == ""
