"""Every supervisor takes its children with it: SIGTERM, or SIGKILL, to
scripts/run-suite, start-servers' keeper or build-orb while its children
run leaves no process of the run, no run folder and no cgroup; SIGTERM is
exit 143. And start-servers --stop stops only what it started. Each test
starts its supervisor in a session of its own and, whatever happens, ends
what is left of the run (found by the test's unique temp path)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import (BIN, ROOT, SCENARIOS, alive, children, group_members,
                      wait_for)

RUN_SUITE = ROOT / "scripts" / "run-suite"
START = ROOT / "scripts" / "start-servers"
BUILD_ORB = ROOT / "scripts" / "build-orb"
LONG = ["--set", "sweep.start=10", "--set", "sweep.step=10",
        "--set", "sweep.max_n=2000", "--set", "sweep.rounds=20"]
SIGNALS = [signal.SIGTERM, signal.SIGKILL]


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def mentioning(text):
    """Live processes (not this one) whose command line holds text."""
    return [int(d) for d in os.listdir("/proc") if d.isdigit() and
            int(d) != os.getpid() and text in cmdline(d) and alive(int(d))]


def cgroups_of(pid):
    """cgroup folders orbbench-PID* (the client's, by its PID)."""
    base = Path("/sys/fs/cgroup")
    return [p for pat in ("", "*/", "*/*/")
            for p in base.glob(f"{pat}orbbench-{pid}*")]


def expected_rc(sig):
    return 128 + sig if sig == signal.SIGTERM else -sig


def end_leftovers(text, pids=()):
    """After a test: SIGTERM, then SIGKILL, whatever of its run is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        left = set(mentioning(text)) | {p for p in pids if alive(p)}
        for p in left:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        wait_for(lambda: not mentioning(text) and
                 not any(alive(p) for p in pids), timeout=10)


def assert_all_gone(what, timeout=30.0):
    """what() returns what is left (a list); it must become empty."""
    left = wait_for(lambda: not what() or None, timeout=timeout)
    assert left, f"left behind: {what()}"


@pytest.mark.parametrize("sig", SIGNALS, ids=["TERM", "KILL"])
def test_run_suite_takes_its_client_and_servers(tmp_path, sig):
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(SCENARIOS / "sync-unix.json", suite)
    out = tmp_path / "out"
    env = dict(os.environ, ORBBENCH_BIN=str(BIN))
    servers, run_dir, groups = [], None, []
    with open(tmp_path / "stderr", "wb") as err:
        proc = subprocess.Popen([str(RUN_SUITE), str(suite), "--out",
                                 str(out), *LONG], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err,
                                env=env, start_new_session=True)
    try:
        def checkpoint():
            try:
                doc = json.loads((out / "sync-unix.json").read_text())
            except (OSError, ValueError):
                return None
            return doc if doc.get("servers") else None
        doc = wait_for(checkpoint, timeout=60)
        assert doc, "run-suite's orbbench wrote no checkpoint"
        servers = [s["pid"] for s in doc["servers"]]
        groups = [doc["process_group"]] if doc.get("process_group") else []
        client = [p for p in children(proc.pid)
                  if cmdline(p).startswith(str(BIN / "orbbench"))]
        assert len(client) == 1
        words = cmdline(servers[0]).split("/tmp/orbbench-", 1)
        assert len(words) == 2, cmdline(servers[0])
        run_dir = Path("/tmp/orbbench-" + words[1].split("/")[0])
        assert run_dir.is_dir()
        cgroups = cgroups_of(client[0])
        proc.send_signal(sig)
        assert proc.wait(timeout=60) == expected_rc(sig)
        assert_all_gone(lambda: mentioning(str(tmp_path)) +
                        [p for p in servers + client if alive(p)] +
                        [g for g in groups if group_members(g)])
        assert_all_gone(lambda: [d for d in [run_dir] + cgroups
                                 if d.exists()], timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        end_leftovers(str(tmp_path), servers)
