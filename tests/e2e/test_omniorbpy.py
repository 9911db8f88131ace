"""End-to-end: server kind omniorbpy, the Python echo server of
servers/omniorbpy over an omniORBpy that scripts/build-orb built
(bin/orbs/omniorbpy-*/echo-server), driven by the unchanged client over
IIOP (tcp) and omniORB's Unix sockets (unix): sweeps that record the ORB
and its build, --work-us, oneways and typed payloads, orbbench ior on its
IORs, its end with its parent, nothing left running. Every test skips,
naming the build command, when no omniORBpy is built (CI builds none);
the refusals at the end need no build."""
import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import BIN, ORBBENCH, SCENARIOS, alive, wait_for

BUILD = ("no omniORBpy build: scripts/build-orb omniorbpy 4.2.6 --source "
         "omniORBpy-4.2.6.tar.bz2 (github:jeteve/jeteve-omniorb, vendor/), "
         "then make")
BUILDS = sorted((BIN / "orbs").glob("omniorbpy-*/echo-server"))


@pytest.fixture(scope="module")
def omnipy():
    """(id, echo server) of the newest omniORBpy build, or skip."""
    if not BUILDS:
        pytest.skip(BUILD)
    return BUILDS[-1].parent.name, BUILDS[-1]


def sets(omnipy, *more):
    return ("server.kind=omniorbpy", f"server.orb={omnipy[0]}") + more


def small(omnipy, *more):
    return sets(omnipy, "sweep.start=2", "sweep.step=1", "sweep.max_n=3",
                "sweep.rounds=3", *more)


def test_version_says_how_it_was_built(omnipy):
    r = subprocess.run([str(omnipy[1]), "--version"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    first, build = r.stdout.splitlines()
    assert first == "omniORBpy " + omnipy[0].removeprefix("omniorbpy-")
    assert build.startswith("omniORB ") and "Python 3." in build
    assert "configure --with-omniorb=" in build
    # Python's settings are the server's, not the caller's environment's.
    assert build.endswith("; the server runs python3 -Es")


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_small_sweep_records_omniorbpy(orbbench, omnipy, transport):
    r = orbbench(SCENARIOS / f"sync-{transport}.json", *small(omnipy))
    assert r.rc == 0, r.stderr
    orb = r.doc["orb"]
    assert orb["name"] == "omniORBpy" and orb["id"] == omnipy[0]
    assert orb["version"] == omnipy[0].removeprefix("omniorbpy-")
    assert "Python 3." in orb["build"]
    # The module of this build, not some other omniORBpy on the path.
    assert f"/orbs/{omnipy[0]}/" in orb["library_path"]
    assert "/_omnipy." in orb["library_path"]
    assert [s["n"] for s in r.doc["steps"]] == [2, 3]
    assert r.doc["result"]["stop_reason"] == "max_n"
    fp = r.doc["steps"][-1]["footprint"]
    assert fp["probed"] == 3 and fp["unreadable"] == 0
    # omniORB's model under Python: a thread for our connection beside
    # omniORB's own (its scavenger, the main thread in orb.run()).
    threads = [s["threads"] for s in fp["servers"]]
    assert min(threads) >= 2, threads


def test_work_us_is_passed_and_checked(orbbench, omnipy):
    r = orbbench(SCENARIOS / "sync-unix.json",
                 *small(omnipy, "server.work_us=200", "server.work_ns=500"))
    assert r.rc == 0, r.stderr
    assert r.doc["scenario"]["server"]["work_us"] == 200
    for bad, name, top in (("-1", "--work-us", 1000000),
                           ("1x", "--work-ns", 1000000000)):
        p = subprocess.run([str(omnipy[1]), name, bad], capture_output=True,
                           text=True, timeout=30)
        assert p.returncode == 2
        assert p.stderr == (f'echo-server: {name}: "{bad}" is not an '
                            f'integer in [0, {top}]\n')


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_oneway_upcalls_are_counted(orbbench, omnipy, transport):
    r = orbbench(SCENARIOS / "fifo" / f"0{3 if transport == 'unix' else 6}"
                 f"-tpc-{transport}-oneway.json", *sets(omnipy),
                 "rate.repeats=1", "rate.duration_s=0.05", "rate.warmup_s=0")
    assert r.rc == 0, r.stderr
    assert r.doc["rate"]["upcalls_per_s"]["median"] > 0


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_typed_payloads_are_echoed(orbbench, omnipy, transport):
    """The client checks every reply against what it sent."""
    for payload in ("None", "Octet1K", "Octet100K", "Odometry",
                    "RangeSensor", "SharedBelief"):
        r = orbbench(SCENARIOS / "miro" / "01-None-unix.json",
                     *sets(omnipy), f"transport={transport}",
                     f"call.payload={payload}", "latency.calls=20",
                     "latency.warmup_calls=2")
        assert r.rc == 0, (payload, r.stderr)


def test_shipped_scenarios_run(orbbench, omnipy):
    files = sorted((SCENARIOS / "omniorbpy").glob("*.json"))
    assert files, "no scenarios/omniorbpy/*.json"
    for f in files:
        r = orbbench(f, f"server.orb={omnipy[0]}", "sweep.start=2",
                     "sweep.max_n=2", "sweep.rounds=2")
        assert r.rc == 0, (f, r.stderr)


@pytest.mark.parametrize("server", BUILDS or [None],
                         ids=[b.parent.name for b in BUILDS] or ["none"])
def test_it_maps_the_omniorb_it_was_built_against(server):
    """omniORBpy X.Y runs on omniORB X.Y only: a build against a build of
    orbs/ loads that build's libomniORB4 (its modules' RPATH), one against
    Debian's the system's. Every build, not only the newest."""
    if server is None:
        pytest.skip(BUILD)
    build = subprocess.run([str(server), "--version"], capture_output=True,
                           text=True, timeout=30).stdout.splitlines()[1]
    p = subprocess.Popen([str(server), "-ORBendPoint", "giop:tcp:127.0.0.1:"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline().startswith("IOR:"), p.stderr
        with open(f"/proc/{p.pid}/maps") as f:
            libs = {line.split()[-1] for line in f
                    if "/libomniORB4.so" in line}
    finally:
        p.kill()
        p.communicate(timeout=30)
    assert len(libs) == 1, libs
    [lib] = libs
    if "(Debian " in build:
        assert lib.startswith(("/usr/lib/", "/lib/")), lib
    else:
        omni = build.split("(", 1)[1].split(")", 1)[0]
        assert lib.startswith(omni + "/lib/"), (lib, build)


def test_ior_names_omniorb(omnipy, tmp_path):
    """omniORB's core writes omniORBpy's IOR: orbbench ior names the ORB
    omniORB, and finds both endpoints."""
    sock = tmp_path / "s.sock"
    p = subprocess.Popen([str(omnipy[1]), "-ORBendPoint",
                          "giop:tcp:127.0.0.1:", "-ORBendPoint",
                          f"giop:unix:{sock}"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline().strip()
    finally:
        p.kill()
        p.communicate(timeout=30)
    assert line.startswith("IOR:"), p.stderr
    r = subprocess.run([str(ORBBENCH), "ior", "--json", line],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    [d] = json.loads(r.stdout)
    comps = d["profiles"][0]["components"]
    assert comps[0]["name"] == "TAG_ORB_TYPE"
    assert comps[0]["vendor"] == "omniORB"
    assert d["connect"]["tcp"]["ok"] and d["connect"]["tcp"]["loopback"]
    assert d["connect"]["unix"] == {"ok": True, "path": str(sock)}


def test_it_ends_with_its_parent(omnipy):
    """A parent that sets no parent-death signal (unlike orbbench's
    spawner) dies by SIGKILL: the server's own prctl ends it."""
    parent = subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys, time\n"
         "p = subprocess.Popen([sys.argv[1], '-ORBendPoint', "
         "'giop:tcp:127.0.0.1:'], stdout=subprocess.PIPE)\n"
         "p.stdout.readline()\n"
         "print(p.pid, flush=True)\n"
         "time.sleep(120)\n", str(omnipy[1])],
        stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        assert alive(pid)
    finally:
        parent.kill()
        parent.wait(timeout=30)
    gone = wait_for(lambda: not alive(pid), timeout=10)
    if not gone:
        os.kill(pid, signal.SIGKILL)  # leave nothing running, then fail
    assert gone, f"server {pid} outlived its parent"


# ---- without a build --------------------------------------------------------

def test_omniorbpy_needs_a_build_named(tmp_path):
    """There is no system omniORBpy (Debian 12 has none): the message
    says what to set or build."""
    args = [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json"), "--out",
            str(tmp_path / "r.json"), "--set", "server.kind=omniorbpy"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert not (tmp_path / "r.json").exists()
    assert ('key "server.orb": "omniorb-system" is not an installation of '
            'server kind "omniorbpy" (theirs are named omniorbpy-*; built '
            'here: ') in r.stderr
    if not BUILDS:
        assert "scripts/build-orb omniorbpy VERSION --source PATH" \
            in r.stderr
