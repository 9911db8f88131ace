"""Shared helpers for the end-to-end tests: run the real orbbench binary
against real omniORB echo servers and check nothing is left running."""
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("ORBBENCH_BIN", ROOT / "bin"))
ORBBENCH = BIN / "orbbench"
SCENARIOS = ROOT / "scenarios"


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def group_members(pgid):
    """PIDs whose process group is pgid."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    out.append(int(d))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
    return out


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


def run_suite(*args, timeout=240, bin_dir=None, **kw):
    """scripts/run-suite with ORBBENCH_BIN set to the client under test
    (bin_dir, default the tests' BIN), so that a sanitized client runs the
    suite too."""
    env = dict(os.environ, ORBBENCH_BIN=str(bin_dir or BIN))
    return subprocess.run([str(ROOT / "scripts" / "run-suite"),
                           *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env, **kw)
