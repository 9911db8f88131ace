"""Shared helpers for the end-to-end tests: run the real orbbench binary
against real omniORB echo servers and check nothing is left running."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parent
ROOT = E2E.parents[1]
BIN = Path(os.environ.get("ORBBENCH_BIN", ROOT / "bin"))
ORBBENCH = BIN / "orbbench"
SCENARIOS = ROOT / "scenarios"
# The fault-injection shim (tests/faults/fail_after.c), built by `make
# test-e2e` and named by it; else the release build's, when there is one.
FAIL_AFTER = Path(os.environ.get(
    "ORBBENCH_FAIL_AFTER", ROOT / "build" / "release" / "faults" /
    "libfailafter.so"))

# The Python side is the package scripts/orbbench: tests import it as
# orbbench.* from here on, its measurement kinds registered (what loading
# results looks up). Bound as orbkinds: `orbbench` is a fixture below.
sys.path.insert(0, str(ROOT / "scripts"))
import orbbench.kinds as orbkinds  # noqa: E402,F401
# tests/kit: the helpers these tests share with tests/py (reportkit,
# forgekit).
sys.path.insert(0, str(ROOT / "tests" / "kit"))


def alive(pid):
    """True while pid exists and is not a zombie. A process reaped between
    the open and the read is gone too: the read fails with ESRCH
    (ProcessLookupError), seen once in a fresh clone's make test."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _pids_where(field, value):
    """PIDs, zombies left out, whose /proc/PID/stat field (0: the state,
    1: the parent, 2: the process group) is value."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[field]) == value and fields[0] != "Z":
                    out.append(int(d))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
    return out


def group_members(pgid):
    """PIDs whose process group is pgid."""
    return _pids_where(2, pgid)


def children(pid):
    """PIDs whose parent is pid."""
    return _pids_where(1, pid)


def assert_nothing_left(doc, timeout=5.0):
    """Every server the result names, and its process group, are gone."""
    pids = [s["pid"] for s in doc.get("servers", [])]
    pgid = doc.get("process_group")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if pgid:
            left += group_members(pgid)
        if not left:
            return
        time.sleep(0.05)
    raise AssertionError(f"processes left running: {sorted(set(left))[:10]}")


class Run:
    def __init__(self, proc, out):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.doc = json.loads(out.read_text()) if out.exists() else None


@pytest.fixture
def orbbench(tmp_path):
    """Run `orbbench run SCENARIO --set ...`, return a Run, and check after
    the run that no server is left."""
    runs = []

    def run(scenario, *sets, timeout=240, extra=()):
        out = tmp_path / f"result-{len(runs)}.json"
        args = [str(ORBBENCH), "run", str(scenario), "--out", str(out)]
        for s in sets:
            args += ["--set", s]
        args += list(extra)
        proc = subprocess.run(args, capture_output=True, text=True,
                              timeout=timeout)
        r = Run(proc, out)
        runs.append(r)
        if r.doc:
            assert_nothing_left(r.doc)
        return r

    return run


def _live_runs(tmp_path, scenario, base_sets):
    """What live_sweep and live_fanin share: start(*sets) runs scenario
    with base_sets then sets in the background and returns (proc, result
    path, first checkpoint); at the end a client still running is killed
    and its servers are waited for (a generator: the fixture's body)."""
    started = []

    def start(*sets):
        out = tmp_path / f"live-{len(started)}.json"
        args = [str(ORBBENCH), "run", str(scenario), "--out", str(out)]
        for s in (*base_sets, *sets):
            args += ["--set", s]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        started.append((proc, out))
        # the first checkpoint: a step is done and servers exist
        doc = wait_for(lambda: out.exists() and json.loads(out.read_text()))
        assert doc, "no checkpoint written"
        return proc, out, doc

    yield start
    for proc, out in started:
        if proc.poll() is None:
            proc.kill()  # its spawner then stops every server
        proc.communicate(timeout=60)
        try:
            doc = json.loads(out.read_text())
        except (OSError, ValueError):
            continue
        try:
            assert_nothing_left(doc, timeout=10)
        except AssertionError:
            # the spawner did not clean up: do it here, then fail loudly
            if doc.get("process_group"):
                kill_quietly(-doc["process_group"])
            for s in doc.get("servers", []):
                kill_quietly(s["pid"])
            raise


@pytest.fixture
def live_sweep(tmp_path):
    """Start a long sweep (sync over Unix, towards 2000 servers) in the
    background: start(*sets) returns (proc, result path, first
    checkpoint). Whatever the test does, a client still running at the
    end is killed and its servers are waited for, so a failed assertion
    leaves no 2000-server run behind."""
    yield from _live_runs(tmp_path, SCENARIOS / "sync-unix.json",
                          ("sweep.start=10", "sweep.step=10",
                           "sweep.max_n=2000", "sweep.rounds=20"))


@pytest.fixture
def live_fanin(tmp_path):
    """The same for a long sweep over connections: 2 omniORB servers
    (a thread per connection), towards 4000 connections over Unix."""
    yield from _live_runs(tmp_path,
                          SCENARIOS / "fanin" / "01-omniorb-tpc-unix.json",
                          ("fanin.servers=2", "fanin.start=10",
                           "fanin.growth=1", "fanin.step=10",
                           "fanin.max_n=4000", "fanin.rounds=20",
                           "mode=sync"))


def write_scenario(path, **top):
    """Write a scenario file from keyword groups, e.g.
    write_scenario(p, transport="unix", sweep={"max_n": 5})."""
    path.write_text(json.dumps(top))
    return path


def fake_server(tmp_path, body, name="fake-server"):
    """A shell script standing in for a server: says a version, then runs
    `body`."""
    p = tmp_path / name
    p.write_text("#!/bin/sh\n"
                 'if [ "$1" = --version ]; then echo "fake 0.1"; exit 0; fi\n'
                 + body + "\n")
    p.chmod(0o755)
    return p


def wait_for(pred, timeout=30.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return None


def kill_quietly(pid, sig=signal.SIGKILL):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


# The tests' smallest sweep: steps 2, 7, 12, medians of 3 rounds, max_ms
# 10. A side at 0 us a call never crosses; one at B_WORK_US crosses
# between its steps. With 2 rounds and max_ms 3, a loaded make test
# (three busy loops beside it) made 1 of 48 runs cross at its first step,
# N = 2, where the crossing cannot be measured, and the gate refused.
# With these settings none of 48 did, under the same load.
TINY_SWEEP = ("sweep.max_n=12", "sweep.start=2", "sweep.step=5",
              "sweep.max_ms=10", "sweep.rounds=3", "sweep.near_rounds=3")
B_WORK_US = 1000


def set_flags(*sets):
    """["--set", s, ...] of run-suite's (and orbbench run's) flags."""
    return [x for s in sets for x in ("--set", s)]


# A paired A/B suite over tests/fixtures/repeat-scenarios small enough
# for a test: B's servers burn B_WORK_US more a call.
def tiny_paired_suite(out, repeat, *flags):
    """Two variants that differ in server.work_us only: paired by default
    (flags: --paired, --solo)."""
    return run_suite(
        ROOT / "tests" / "fixtures" / "repeat-scenarios", *flags,
        "--repeat", str(repeat), "--variant", "a", "--variant",
        f"b:server.work_us={B_WORK_US}", "--out", out,
        *set_flags(*TINY_SWEEP), timeout=300)


def run_suite(*args, timeout=240, bin_dir=None, **kw):
    """scripts/run-suite with ORBBENCH_BIN set to the client under test
    (bin_dir, default the tests' BIN), so that a sanitized client runs the
    suite too."""
    env = dict(os.environ, ORBBENCH_BIN=str(bin_dir or BIN))
    return subprocess.run([str(ROOT / "scripts" / "run-suite"),
                           *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env, **kw)


def start_repeating_run(scenario, out, *sets):
    """orbbench on a kind that writes its result after every repeat (rate,
    scaling), in the background: (process, the first result that holds a
    repeat). The caller ends it, e.g. with finish()."""
    args = [str(ORBBENCH), "run", str(scenario), "--out", str(out)]
    for s in sets:
        args += ["--set", s]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    doc = None
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            doc = json.loads(out.read_text())
            if doc.get("repeats"):
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    assert doc and doc.get("repeats"), "no repeat written"
    return proc, doc


def kill_a_server_mid_run(proc, out, doc):
    """SIGKILL the first server of a run started by start_repeating_run
    (doc: its first result with a repeat) and let the run end: it must
    fail with exit 1 and server_died, the repeats so far kept. (stderr,
    the final result, the killed server's pid)."""
    victim = doc["servers"][0]["pid"]
    os.kill(victim, signal.SIGKILL)
    _, err = finish(proc)
    assert proc.returncode == 1, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "server_died"
    assert len(doc["repeats"]) >= 1
    return err, doc, victim


def interrupt_mid_run(proc, out):
    """SIGINT to a run started by start_repeating_run: it must end with
    exit 130 and stop_reason interrupted, the repeats so far kept. The
    final result."""
    proc.send_signal(signal.SIGINT)
    _, err = finish(proc)
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "interrupted"
    assert len(doc["repeats"]) >= 1
    return doc


def finish(proc, timeout=30):
    """Wait for proc (stdout, stderr); kill it if it has not ended."""
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# Modules whose tests read what another process beside them would change:
# a round's time or a crossing against a bound (paired, crossing,
# interference, misbehave, load, warm_start), PSS shared with other
# servers of one ORB (objects, footprint, fanin), or every stale run
# folder on the machine (supervisors; one test of safety, marked
# itself). `make test` runs them on
# their own, after the rest has run on two workers
# (pytest -m serial; docs/architecture.md, "The Python package").
SERIAL = {"test_paired", "test_crossing", "test_interference",
          "test_misbehave", "test_load", "test_warm_start", "test_objects",
          "test_footprint", "test_fanin", "test_supervisors"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__ in SERIAL:
            item.add_marker(pytest.mark.serial)
