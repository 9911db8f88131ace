"""End-to-end: a limit of the machine ends every kind the same way. A
resource errno (ENFILE, ENOSPC, ENOBUFS...) while starting or connecting
to servers is a `resource` stop, exit 0, whose detail names the limit,
in a sweep as in rate, latency, scaling and channel (they used to treat
all but EAGAIN, ENOMEM and EMFILE as a failure, exit 1).

The system's file table cannot be filled on a shared machine, so the
errno is injected: the fault shim (tests/faults/fail_after.c, LD_PRELOAD)
makes the Nth socket() or pipe() fail, in the real orbbench against real
servers. N is found by a first run that only counts the calls. Two real
limits are hit too: RLIMIT_NOFILE in a rate run, RLIMIT_NPROC for the
spawner's forks in a sweep."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import (FAIL_AFTER, ORBBENCH, SCENARIOS, assert_nothing_left,
                      write_scenario)
from test_channel import small as channel_scenario

needs_shim = pytest.mark.skipif(
    not FAIL_AFTER.exists(),
    reason=f"no fault shim at {FAIL_AFTER} (make test-e2e builds it)")

# What each injected errno's detail must say: strerror, then the limit.
ERRNO_TEXT = {
    "ENFILE": ("Too many open files in system",
               r"the system file table: \d+ files open of fs\.file-max \d+"),
    "ENOSPC": ("No space left on device", r"no space: a disk"),
    "ENOBUFS": ("No buffer space available", r"socket buffers"),
}


def run(args, env=None, timeout=120):
    return subprocess.run(args, capture_output=True, text=True,
                          timeout=timeout, env=env)


def shim_env(**fail):
    env = dict(os.environ, LD_PRELOAD=str(FAIL_AFTER))
    # A sanitized client: its runtime need not come first.
    env["ASAN_OPTIONS"] = ":".join(
        filter(None, [os.environ.get("ASAN_OPTIONS"),
                      "verify_asan_link_order=0"]))
    env.update({f"FAIL_{k.upper()}": str(v) for k, v in fail.items()})
    return env


def last_call(args, call, in_spawner):
    """The number of the last `call` the client (or, in_spawner, the
    spawner it forked) makes in a run of args with nothing failing."""
    r = run(args, shim_env(call=call, after=10**9, log=1))
    assert r.returncode == 0, r.stderr
    seen = [(int(p), int(k)) for p, k in re.findall(
        rf"fail_after: pid (\d+) {call} #(\d+)", r.stderr)]
    assert seen, r.stderr
    client = seen[0][0]  # the client makes the first call of each kind
    mine = [k for p, k in seen if p == client]
    other = [k for p, k in seen if p != client]
    if not in_spawner:
        return mine[-1]
    assert other and other[-1] > mine[-1], seen  # only the spawner gets there
    return other[-1]


def fault_run(tmp_path, scenario, sets, call, errno, in_spawner=False):
    """orbbench with the last `call` failing with `errno`: the run's
    result document, after checking it is a resource stop naming it."""
    out = tmp_path / f"{call}-{errno}.json"
    args = [str(ORBBENCH), "run", str(scenario), "--out", str(out)]
    for s in sets:
        args += ["--set", s]
    n = last_call(args, call, in_spawner)
    r = run(args, shim_env(call=call, after=n, errno=errno))
    doc = json.loads(out.read_text())
    res = doc["result"]
    assert (r.returncode, res["stop_reason"]) == (0, "resource"), \
        (r.returncode, res, r.stderr)
    text, limit = ERRNO_TEXT[errno]
    assert text in res["detail"], res["detail"]
    assert re.search(limit, res["detail"]), res["detail"]
    assert_nothing_left(doc)
    return doc


# ---- one injected errno, every kind ------------------------------------
# (socket, in the client: a connect; pipe, in the spawner: a server's
# start)

FAULTS = [("socket", "ENFILE", False), ("pipe", "ENFILE", True),
          ("socket", "ENOBUFS", False), ("pipe", "ENOSPC", True)]
IDS = [f"{c}-{e}" for c, e, _ in FAULTS]


@needs_shim
@pytest.mark.parametrize("call,errno,in_spawner", FAULTS, ids=IDS)
def test_sweep(tmp_path, call, errno, in_spawner):
    fault_run(tmp_path, SCENARIOS / "sync-unix.json",
              ["sweep.start=2", "sweep.step=2", "sweep.max_n=6",
               "sweep.rounds=2", "sweep.max_ms=100000"],
              call, errno, in_spawner)


@needs_shim
@pytest.mark.parametrize("call,errno,in_spawner", FAULTS, ids=IDS)
def test_rate(tmp_path, call, errno, in_spawner):
    fault_run(tmp_path, SCENARIOS / "fifo" / "05-tpc-tcp-pipe16.json",
              ["rate.servers=2", "rate.duration_s=0.2", "rate.warmup_s=0.1",
               "rate.repeats=1"], call, errno, in_spawner)


@needs_shim
@pytest.mark.parametrize("call,errno,in_spawner", FAULTS, ids=IDS)
def test_latency(tmp_path, call, errno, in_spawner):
    sc = write_scenario(tmp_path / "lat.json", kind="latency",
                        transport="unix", call={"payload": "SharedBelief"},
                        latency={"calls": 40, "warmup_calls": 5,
                                 "servers": 2})
    fault_run(tmp_path, sc, [], call, errno, in_spawner)


@needs_shim
@pytest.mark.parametrize("call,errno,in_spawner", FAULTS, ids=IDS)
def test_scaling(tmp_path, call, errno, in_spawner):
    fault_run(tmp_path, SCENARIOS / "scaling" / "omniorb-unix-same.json",
              ["scaling.duration_s=0.1", "scaling.warmup_s=0.05",
               "scaling.repeats=1"], call, errno, in_spawner)


@needs_shim
@pytest.mark.parametrize("call,errno,in_spawner", FAULTS, ids=IDS)
def test_channel(tmp_path, call, errno, in_spawner):
    fault_run(tmp_path, channel_scenario(tmp_path, "SharedBelief",
                                         via="direct"),
              [], call, errno, in_spawner)


# ---- real limits -------------------------------------------------------

def test_descriptor_limit_in_a_rate_run(tmp_path):
    """A hard RLIMIT_NOFILE of 40 and 60 servers over TCP: the rate run
    stops as `resource` naming RLIMIT_NOFILE and its value (it used to
    say only "Too many open files", or fail the run)."""
    out = tmp_path / "r.json"
    r = run(["prlimit", "--nofile=40:40", str(ORBBENCH), "run",
             str(SCENARIOS / "fifo" / "05-tpc-tcp-pipe16.json"), "--out",
             str(out), "--set", "rate.servers=60", "--set",
             "rate.duration_s=0.2", "--set", "rate.warmup_s=0.1", "--set",
             "rate.repeats=1"])
    doc = json.loads(out.read_text())
    res = doc["result"]
    assert (r.returncode, res["stop_reason"]) == (0, "resource"), \
        (res, r.stderr)
    assert re.search(r"RLIMIT_NOFILE 40\b", res["detail"]), res["detail"]
    assert_nothing_left(doc)


def _user_tasks(uid):
    n = 0
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/status") as f:
                st = dict(line.split(":", 1) for line in f if ":" in line)
            if int(st["Uid"].split()[0]) == uid:
                n += int(st["Threads"])
        except (OSError, ValueError, KeyError):
            pass
    return n


def test_task_limit_of_the_user_is_named(tmp_path):
    """RLIMIT_NPROC (ulimit -u) a few dozen tasks above what the user
    runs: the spawner's fork fails with EAGAIN and the sweep's resource
    stop names RLIMIT_NPROC with its value, not pid_max (which it
    blamed). Root is exempt from RLIMIT_NPROC, so as root the run is made
    as an otherwise unused uid (setpriv)."""
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("as root, needs setpriv to run as another uid")
        uid = 60000 + os.getpid() % 5000
        prefix = ["setpriv", f"--reuid={uid}", f"--regid={uid}",
                  "--clear-groups"]
    else:
        uid = os.getuid()
        prefix = []
    limit = _user_tasks(uid) + 30
    # the run's user must be able to write its result
    work = tempfile.mkdtemp(prefix="orbbench-nproc-")
    try:
        os.chmod(work, 0o777)
        out = os.path.join(work, "r.json")
        r = run(["prlimit", f"--nproc={limit}:{limit}", *prefix,
                 str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"),
                 "--out", out, "--set", "server.kind=giop-min", "--set",
                 "sweep.start=5", "--set", "sweep.step=5", "--set",
                 "sweep.max_n=200", "--set", "sweep.rounds=2", "--set",
                 "sweep.max_ms=100000"])
        with open(out) as f:
            doc = json.load(f)
        res = doc["result"]
        assert (r.returncode, res["stop_reason"]) == (0, "resource"), \
            (res, r.stderr)
        assert f"RLIMIT_NPROC {limit}" in res["detail"], res["detail"]
        assert "pid_max" not in res["detail"], res["detail"]
        assert 0 < res["max_servers"] < 200
        assert_nothing_left(doc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
