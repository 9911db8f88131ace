"""Hosts made as network namespaces on this machine, to run
scripts/run-fleet without other machines (its tests, scripts/netns-fleet):
each namespace has its own loopback, and pdsh's exec module reaches it
with `ip netns exec %h` instead of ssh. The namespaces share this
machine's file system, so each host gets its own copy of the tree, named
by --remote-dir DIR/%h. Creating and removing namespaces needs root.
Standard library only."""
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import orbbench.fleet as orbfleet

ROOT = Path(__file__).resolve().parents[2]
EXEC_PREFIX = "ip netns exec %h"
# A host's tree: what fleet-host checks and orbbench suite runs, and the build.
TREE_PARTS = orbfleet.SOURCES + ("scenarios",)
# How a host can be broken on purpose (break_tree).
BROKEN = {
    "revision": "its tree's sources differ (client/main.c changed): a "
                "tree at another revision, refused by the preflight",
    "missing": "no orbbench tree at its path",
    "run": "no bin/omniorb-echo-server: every omniORB run fails",
    "build": "bin/orbbench missing and make fails (build/ is a file)",
    "hang": "bin/orbbench says the right version, then hangs in every run",
    "unreachable": "no such namespace: pdsh cannot reach it",
}


def ip(*args, check=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True,
                       timeout=30)
    if check and r.returncode:
        raise RuntimeError(f"ip {' '.join(args)}: "
                           f"{r.stderr.strip() or f'exit {r.returncode}'}")
    return r


def add(name):
    """A new network namespace with its loopback up."""
    ip("netns", "add", name)
    try:
        ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
    except RuntimeError:
        ip("netns", "delete", name, check=False)
        raise


def exists(name):
    return Path("/run/netns", name).exists()


def pids(name):
    """The processes in namespace name ([] when there is no such
    namespace)."""
    if not exists(name):
        return []
    r = ip("netns", "pids", name, check=False)
    return [int(p) for p in r.stdout.split()]


def remove(name, wait_s=10.0):
    """Kill whatever still runs in namespace name, then delete it. Return
    the processes that were found running (the caller may complain: a
    fleet run should leave none)."""
    left = pids(name)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + wait_s
    while pids(name) and time.monotonic() < deadline:
        time.sleep(0.1)
    if exists(name):
        ip("netns", "delete", name, check=False)
    return left


def make_tree(dest, bin_dir=None):
    """A host's orbbench tree at dest: a copy of this tree's TREE_PARTS
    and of its built binaries (bin_dir, default ROOT/bin) as dest/bin."""
    dest = Path(dest)
    dest.mkdir(parents=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in TREE_PARTS:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=skip)
        elif src.exists():
            shutil.copy2(src, dest / part)
    shutil.copytree(bin_dir or ROOT / "bin", dest / "bin", ignore=skip)
    return dest


def hanging_client(dest):
    """Replace dest/bin/orbbench by a script that gives the real one's
    --version and sleeps in anything else."""
    exe = dest / "bin" / "orbbench"
    version = subprocess.run([str(exe), "--version"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
    exe.unlink()
    exe.write_text("#!/bin/sh\n"
                   f'[ "$1" = --version ] && {{ echo "{version}"; exit 0; }}\n'
                   "exec sleep 100000\n")
    exe.chmod(0o755)


def break_tree(dest, how):
    """Break the host tree at dest the way named in BROKEN."""
    dest = Path(dest)
    if how == "revision":
        with open(dest / "client" / "main.c", "a") as f:
            f.write("/* another revision */\n")
    elif how == "missing":
        shutil.rmtree(dest)
    elif how == "run":
        (dest / "bin" / "omniorb-echo-server").unlink()
    elif how == "build":
        (dest / "bin" / "orbbench").unlink()
        (dest / "build").write_text("not a folder\n")
    elif how == "hang":
        hanging_client(dest)
    elif how != "unreachable":
        raise ValueError(f"no way to break a host called {how!r} (have: "
                         f"{', '.join(BROKEN)})")


def fleet_args(trees):
    """run-fleet's options for hosts made here, their trees in trees/%h."""
    return ["-R", "exec", "--exec", EXEC_PREFIX, "--remote-dir",
            f"{trees}/%h"]
