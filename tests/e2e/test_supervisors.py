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


# start-servers' keeper is not the caller's child: a small subreaper
# starts it, so that its exit status can be seen; it prints each of its
# children's (the keeper's and any orphan's) ends.
SUBREAPER = """import ctypes, os, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
print("started", r.returncode, flush=True)
while True:
    try:
        pid, status = os.wait()
    except ChildProcessError:
        break
    print("exit", pid, os.waitstatus_to_exitcode(status), flush=True)
"""


@pytest.mark.parametrize("sig", SIGNALS, ids=["TERM", "KILL"])
def test_keeper_takes_its_servers_and_socket_folder(tmp_path, sig):
    iors = tmp_path / "iors.txt"
    reaper = subprocess.Popen(
        [sys.executable, "-c", SUBREAPER, str(START), "3", "--transport",
         "unix", "--out", str(iors)], stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, text=True, start_new_session=True)
    servers, sock_dir = [], None
    try:
        assert reaper.stdout.readline().split() == ["started", "0"]
        lines = iors.read_text().splitlines()
        keeper = int(next(l for l in lines if l.startswith("# keeper "))
                     .split()[2])
        sock_dir = next(l for l in lines if l.startswith("# socket-dir "))\
            .split(" ", 2)[2]
        servers = [int(l.split()[1]) for l in lines if l.startswith("IOR:")]
        assert len(servers) == 3 and all(map(alive, servers))
        assert os.path.isdir(sock_dir)
        os.kill(keeper, sig)
        out, _ = reaper.communicate(timeout=30)
        ends = dict(l.split()[1:] for l in out.splitlines()
                    if l.startswith("exit "))
        assert ends.get(str(keeper)) == str(expected_rc(sig)), out
        assert_all_gone(lambda: [p for p in servers if alive(p)] +
                        mentioning(sock_dir), timeout=10)
        assert not os.path.exists(sock_dir)
    finally:
        if reaper.poll() is None:
            reaper.kill()
            reaper.wait()
        if sock_dir:
            end_leftovers(sock_dir, servers)
            if os.path.basename(sock_dir).startswith("orbbench-ext-"):
                shutil.rmtree(sock_dir, ignore_errors=True)


@pytest.mark.parametrize("sig", SIGNALS, ids=["TERM", "KILL"])
def test_build_orb_takes_its_build(tmp_path, sig):
    """build-orb, copied into the test's own tree (so that orbs/ is made
    there), on a fake source whose make step sleeps; dpkg-query stubbed
    to say every build dependency is installed (nothing is installed)."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(BUILD_ORB, tree / "scripts")
    shutil.copy(BUILD_ORB.parent / "progress.sh", tree / "scripts")
    shutil.copytree(BUILD_ORB.parent / "build-orb.d",
                    tree / "scripts" / "build-orb.d")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "dpkg-query").write_text('#!/bin/sh\necho "install ok '
                                     'installed"\n')
    src = tmp_path / "src"
    src.mkdir()
    (src / "configure").write_text("#!/bin/sh\nexit 0\n")
    pidfile = tmp_path / "sleep.pid"
    (src / "Makefile").write_text(f"all:\n\techo $$$$ > {pidfile}; "
                                  "exec sleep 60\n")
    for f in (fake / "dpkg-query", src / "configure"):
        f.chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")
    sleeper = None
    proc = subprocess.Popen([str(tree / "scripts" / "build-orb"), "omniorb",
                             "0.0.1", "--source", str(src), "-j", "1"],
                            stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    try:
        assert wait_for(lambda: pidfile.exists() and
                        pidfile.read_text().strip(), timeout=60)
        sleeper = int(pidfile.read_text())
        assert alive(sleeper) and mentioning(str(tmp_path))
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == expected_rc(sig)
        assert_all_gone(lambda: mentioning(str(tmp_path)) +
                        ([sleeper] if alive(sleeper) else []), timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        end_leftovers(str(tmp_path), [sleeper] if sleeper else [])


# ---- start-servers --stop only stops what it started ----------------------

def stop(path):
    return subprocess.run([str(START), "--stop", str(path)],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def decoy():
    """A process that calls itself omniorb-echo-server (argv[0])."""
    p = subprocess.Popen(["bash", "-c", "exec -a omniorb-echo-server "
                          "sleep 30"], start_new_session=True)
    wait_for(lambda: cmdline(p.pid).startswith("omniorb-echo-server"),
             timeout=10)
    yield p
    p.kill()
    p.wait()


def stat_start(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


def test_stop_leaves_a_decoy_alone(tmp_path, decoy):
    """A forged list naming a process that merely calls itself the echo
    server: without a record, and with a record of another start time,
    it is left alone and named."""
    bare = tmp_path / "bare.txt"
    bare.write_text(f"IOR:00 {decoy.pid}\n")
    forged = tmp_path / "forged.txt"
    forged.write_text(f"IOR:00 {decoy.pid}\n# server {decoy.pid} start "
                      f"{stat_start(decoy.pid) + 1} group {decoy.pid} "
                      f"session {decoy.pid}\n")
    for f in (bare, forged):
        r = stop(f)
        time.sleep(0.3)
        assert decoy.poll() is None, f"{f.name}: the decoy was killed"
        assert r.returncode == 1, r.stderr
        assert f"pid {decoy.pid} left alone" in r.stderr, r.stderr
        assert "stopped 0 server(s)" in r.stderr


def test_stop_removes_only_its_own_socket_folder(tmp_path):
    """Forged socket-dir lines whose text starts with /tmp but that are
    not a folder start-servers made directly in it: none is removed."""
    outside = tempfile.mkdtemp(prefix="tmp_orbbench_test_", dir="/")
    try:
        victim = tmp_path / "var" / "x"
        victim.mkdir(parents=True)
        (victim / "keep").write_text("precious")
        for forged in (outside, "/tmp/.." + str(victim)):
            assert forged.startswith("/tmp")
            f = tmp_path / "forged.txt"
            f.write_text(f"IOR:00 999999999\n# socket-dir {forged}\n")
            r = stop(f)
            assert os.path.isdir(forged), f"{forged} was removed"
            assert r.returncode == 1, r.stderr
            assert "left in place" in r.stderr and \
                r.stderr.count("\n") == 2, r.stderr
        assert (victim / "keep").read_text() == "precious"
    finally:
        shutil.rmtree(outside, ignore_errors=True)


@pytest.mark.parametrize("text", [None, "IOR:00 not-a-pid\n",
                                  "# server 1 start x\nIOR:00 1\n"],
                         ids=["missing", "bad-line", "bad-record"])
def test_stop_bad_file_is_one_line(tmp_path, text):
    f = tmp_path / "list.txt"
    if text is not None:
        f.write_text(text)
    r = stop(f)
    assert r.returncode == 2
    assert r.stderr.startswith(f"start-servers: {f}: "), r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


def test_stop_stops_what_it_started(tmp_path):
    """The real list: every server stopped, the socket folder removed,
    the keeper gone, exit 0."""
    iors = tmp_path / "iors.txt"
    subprocess.run([str(START), "2", "--transport", "unix", "--out",
                    str(iors)], check=True, timeout=60, capture_output=True)
    lines = iors.read_text().splitlines()
    servers = [int(l.split()[1]) for l in lines if l.startswith("IOR:")]
    keeper = int(next(l for l in lines if l.startswith("# keeper "))
                 .split()[2])
    sock_dir = next(l for l in lines if l.startswith("# socket-dir "))\
        .split(" ", 2)[2]
    try:
        r = stop(iors)
        assert r.returncode == 0, r.stderr
        assert "stopped 2 server(s)" in r.stderr
        assert not any(map(alive, servers))
        assert not os.path.exists(sock_dir)
        assert wait_for(lambda: not alive(keeper), timeout=10)
    finally:
        end_leftovers(sock_dir, servers + [keeper])


def test_stop_leaves_alone_a_process_whose_record_matches_but_is_no_server(
        tmp_path):
    """Issue 32: a forged list whose record matches a `setsid sleep`
    exactly (start time, group, session) and names it, or the real echo
    server binary, as the server: its executable or its command line is
    not the echo server's, so it is named and left alone. Before, the
    sleep was killed."""
    p = subprocess.Popen(["setsid", "sleep", "300"])
    try:
        wait_for(lambda: cmdline(p.pid).startswith("sleep"), timeout=10)
        with open(f"/proc/{p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        rec = (f"# server {p.pid} start {fields[19]} group {fields[2]} "
               f"session {fields[3]}\n")
        server = os.path.realpath(START.parent.parent / "bin" /
                                  "omniorb-echo-server")
        sleep = os.path.realpath("/bin/sleep")
        for path, why in ((None, "names no server binary"),
                          (server, "not the listed server"),
                          (sleep, "is not the server's")):
            f = tmp_path / "forged.txt"
            f.write_text(f"IOR:00 {p.pid}\n" + rec +
                         (f"# server-path {path}\n" if path else ""))
            r = stop(f)
            time.sleep(0.2)
            assert p.poll() is None, f"{path}: the sleep was killed"
            assert r.returncode == 1, r.stderr
            assert f"pid {p.pid} left alone" in r.stderr and why in \
                r.stderr, r.stderr
    finally:
        p.kill()
        p.wait()


def test_stop_on_a_fifo_is_one_line_not_a_hang(tmp_path):
    f = tmp_path / "list.txt"
    os.mkfifo(f)
    r = stop(f)
    assert r.returncode == 2, r.stderr
    assert "not a regular file" in r.stderr and r.stderr.count("\n") == 1
