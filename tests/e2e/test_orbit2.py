"""End-to-end: server kind orbit2, the echo server of servers/orbit2 (C)
built against an ORBit2 that scripts/build-orb built
(bin/orbs/orbit2-*/echo-server), driven by the unchanged client over IIOP
(tcp) and ORBit2's Unix sockets (unix): sweeps that record the ORB and its
build, the server models, oneways and typed payloads, orbbench ior on its
IORs, loopback only, nothing left running. Every test skips, naming the
build command, when no ORBit2 is built (CI builds none); the refusals at
the end need no build."""
import json
import os
import subprocess

import pytest

from conftest import BIN, ORBBENCH, SCENARIOS

BUILD = ("no ORBit2 build: scripts/build-orb orbit2 2.14.19 --source "
         "ORBIT2_SOURCE (an ORBit2 release tree or tarball, e.g. "
         "github:Distrotech/ORBit2), then make")
BUILDS = sorted((BIN / "orbs").glob("orbit2-*/echo-server"))


@pytest.fixture(scope="module")
def orbit2():
    """(id, echo server) of the newest ORBit2 build, or skip."""
    if not BUILDS:
        pytest.skip(BUILD)
    return BUILDS[-1].parent.name, BUILDS[-1]


def sets(orbit2, *more):
    return ("server.kind=orbit2", f"server.orb={orbit2[0]}") + more


def small(orbit2, *more):
    return sets(orbit2, "sweep.start=2", "sweep.step=1", "sweep.max_n=3",
                "sweep.rounds=3", *more)


def test_version_says_how_it_was_built(orbit2):
    r = subprocess.run([str(orbit2[1]), "--version"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    first, build = r.stdout.splitlines()
    assert first == "ORBit2 " + orbit2[0].removeprefix("orbit2-")
    assert "glib " in build and "libIDL " in build
    assert "no source patch" in build


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_small_sweep_records_orbit2(orbbench, orbit2, transport):
    r = orbbench(SCENARIOS / f"sync-{transport}.json", *small(orbit2))
    assert r.rc == 0, r.stderr
    orb = r.doc["orb"]
    assert orb["name"] == "ORBit2" and orb["id"] == orbit2[0]
    assert orb["version"] == orbit2[0].removeprefix("orbit2-")
    assert "libIDL" in orb["build"]
    assert f"/orbs/{orbit2[0]}/lib/libORBit-2.so" in orb["library_path"]
    assert [s["n"] for s in r.doc["steps"]] == [2, 3]
    assert r.doc["result"]["stop_reason"] == "max_n"
    fp = r.doc["steps"][-1]["footprint"]
    assert fp["probed"] == 3 and fp["unreadable"] == 0


@pytest.mark.parametrize("args,least,most", [
    ([], 1, 1),                              # the GMainLoop: one thread
    (["--thread-per-request"], 2, 64),       # + I/O thread, glib's pool
    (["--thread-per-connection"], 2, 64),
])
def test_server_models(orbbench, orbit2, args, least, most):
    r = orbbench(SCENARIOS / "sync-unix.json",
                 *small(orbit2, "server.args=" + json.dumps(args)))
    assert r.rc == 0, r.stderr
    threads = [s["threads"] for s in r.doc["steps"][-1]["footprint"]
               ["servers"]]
    assert least <= min(threads) and max(threads) <= most, threads


@pytest.mark.parametrize("args", [["--thread-per-request"],
                                  ["--thread-per-connection"]])
def test_threaded_models_serve_pipelined_calls(orbbench, orbit2, args):
    """16 calls in flight on one connection, handed from the I/O thread
    to glib's pool and answered in any order the client accepts."""
    r = orbbench(SCENARIOS / "fifo" / "02-tpc-unix-pipe16.json",
                 *sets(orbit2, "server.args=" + json.dumps(args),
                       "server.work_us=100", "rate.repeats=1",
                       "rate.duration_s=0.2", "rate.warmup_s=0.05"))
    assert r.rc == 0, r.stderr
    assert r.doc["rate"]["upcalls_per_s"]["median"] > 0


def test_shipped_scenarios_run(orbbench, orbit2):
    for f in sorted((SCENARIOS / "orbit2").glob("*.json")):
        r = orbbench(f, f"server.orb={orbit2[0]}", "sweep.start=2",
                     "sweep.max_n=2", "sweep.rounds=2")
        assert r.rc == 0, (f, r.stderr)


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_oneway_upcalls_are_counted(orbbench, orbit2, transport):
    r = orbbench(SCENARIOS / "fifo" / f"0{3 if transport == 'unix' else 6}"
                 f"-tpc-{transport}-oneway.json", *sets(orbit2),
                 "rate.repeats=1", "rate.duration_s=0.05", "rate.warmup_s=0")
    assert r.rc == 0, r.stderr
    assert r.doc["rate"]["upcalls_per_s"]["median"] > 0


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_typed_payloads_are_echoed(orbbench, orbit2, transport):
    """The client checks every reply against what it sent."""
    for payload in ("None", "Octet1K", "Octet100K", "Odometry",
                    "RangeSensor", "SharedBelief"):
        r = orbbench(SCENARIOS / "miro" / "01-None-unix.json",
                     *sets(orbit2), f"transport={transport}",
                     f"call.payload={payload}", "latency.calls=20",
                     "latency.warmup_calls=2")
        assert r.rc == 0, (payload, r.stderr)


def test_work_us(orbit2):
    bad = subprocess.run([str(orbit2[1]), "--work-us", "-1"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2
    assert bad.stderr == ('echo-server: --work-us: "-1" is not an integer '
                          'in [0, 1000000]\n')


def test_unknown_arguments_are_refused(orbit2, tmp_path):
    bad = subprocess.run([str(orbit2[1]), "--socket-dir", str(tmp_path),
                          "--frobnicate"], capture_output=True, text=True,
                         timeout=30)
    assert bad.returncode == 2
    assert 'unknown argument "--frobnicate"' in bad.stderr


def test_an_unsafe_socket_dir_is_refused(orbit2, tmp_path):
    """ORBit2 would ignore a socket folder others may use and fall back
    to /tmp/orbit-$USER without a word."""
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o755)
    bad = subprocess.run([str(orbit2[1]), "--socket-dir", str(open_dir)],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2
    assert "--socket-dir" in bad.stderr and "ORBit2 would ignore" in \
        bad.stderr


def live_ior(orbit2, tmp_path, *args):
    """The IOR an ORBit2 echo server prints with these options (DIR: the
    test's folder, its socket folder too); the server is killed before
    this returns."""
    argv = [str(orbit2[1]), "--socket-dir", str(tmp_path)]
    argv += [a.replace("DIR", str(tmp_path)) for a in args]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline().strip()
    finally:
        p.kill()
        p.communicate(timeout=30)
    assert line.startswith("IOR:"), p.stderr
    return line


def ior_json(ior):
    r = subprocess.run([str(ORBBENCH), "ior", "--json", ior],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)[0]


def test_ior_of_a_live_server_over_both(orbit2, tmp_path):
    d = ior_json(live_ior(orbit2, tmp_path, "-ORBIIOPIPv4=1",
                          "-ORBIIOPUSock=1", "-ORBIIOPIPName=127.0.0.1",
                          "-ORBIIOPIPSock=DIR/s.sock"))
    tags = [p["tag"] for p in d["profiles"]]
    assert tags == [0x4f425400, 0, 0xbadfaeca, 1], d
    generic, iiop, own, _ = d["profiles"]
    assert generic["decoded"] and generic["protocol"] == "UNIX"
    assert generic["service"] == str(tmp_path / "s.sock")
    assert own["name"] == "TAG_ORBIT_SPECIFIC" and own["decoded"]
    assert own["path"] == str(tmp_path / "s.sock")
    assert own["object_key_hex"] == iiop["object_key_hex"]
    assert iiop["host"] == "127.0.0.1"
    assert d["connect"]["tcp"]["ok"] and d["connect"]["tcp"]["port"] > 0
    assert d["connect"]["unix"] == {"ok": True,
                                    "path": str(tmp_path / "s.sock")}


def test_ior_of_a_unix_only_server(orbit2, tmp_path):
    d = ior_json(live_ior(orbit2, tmp_path, "-ORBIIOPIPv4=0",
                          "-ORBIIOPUSock=1", "-ORBIIOPIPSock=DIR/u.sock"))
    assert [p["tag"] for p in d["profiles"]] == [0x4f425400, 0xbadfaeca, 1]
    assert d["connect"]["unix"]["path"] == str(tmp_path / "u.sock")
    assert d["connect"]["tcp"] == {"ok": False,
                                   "why": "no IIOP profile (no TCP endpoint)"}


def listening_addresses(pid):
    """The local addresses (hex, as /proc/net/tcp* shows them) of the
    TCP sockets `pid` listens on, per file ("tcp", "tcp6")."""
    ours = {os.readlink(f"/proc/{pid}/fd/{fd}")
            for fd in os.listdir(f"/proc/{pid}/fd")}
    out = {}
    for name in ("tcp", "tcp6"):
        with open(f"/proc/net/{name}") as f:
            next(f)
            out[name] = [w[1] for w in (ln.split() for ln in f)
                         if w[3] == "0A" and f"socket:[{w[9]}]" in ours]
    return out


def test_orbitrc_cannot_move_the_listener(orbit2, tmp_path):
    """~/.orbitrc asking for IPv6, no local-only check and 0.0.0.0 is not
    read: the server turns the rc files off (it once did so with
    -ORBNoUserRC alone, which ORBit2 2.14 ignores without a word after
    it, and the server listened on 0.0.0.0)."""
    (tmp_path / ".orbitrc").write_text("ORBIIOPIPv6=1\nORBLocalOnly=0\n"
                                       "ORBIIOPIPName=0.0.0.0\n")
    env = dict(os.environ, HOME=str(tmp_path))
    p = subprocess.Popen([str(orbit2[1]), "--socket-dir", str(tmp_path),
                          "-ORBIIOPIPv4=1", "-ORBIIOPUSock=0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    try:
        line = p.stdout.readline().strip()
        assert line.startswith("IOR:"), p.stderr
        d = ior_json(line)
        assert [x["tag"] for x in d["profiles"]] == [0, 1]
        assert d["profiles"][0]["host"] != "0.0.0.0"
        addrs = listening_addresses(p.pid)
        assert addrs["tcp6"] == []
        # 127.0.0.1 little-endian: 0100007F
        assert [a.split(":")[0] for a in addrs["tcp"]] == ["0100007F"]
    finally:
        p.kill()
        p.communicate(timeout=30)


# ---- without a build --------------------------------------------------------

def refused_run(tmp_path, *sets):
    """`orbbench run sync-tcp.json --set ...` that must be exit 2 and
    write nothing; its stderr."""
    args = [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json"), "--out",
            str(tmp_path / "r.json")]
    for x in sets:
        args += ["--set", x]
    r = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert not (tmp_path / "r.json").exists()
    return r.stderr


def test_orbit2_needs_a_build_named(tmp_path):
    """There is no system ORBit2 (Debian 12 has none): the message says
    what to set or build."""
    err = refused_run(tmp_path, "server.kind=orbit2")
    assert ('key "server.orb": "omniorb-system" is not an installation of '
            'server kind "orbit2" (theirs are named orbit2-*; built here: '
            ) in err
    if not BUILDS:
        assert "scripts/build-orb orbit2 VERSION --source PATH" in err
    err = refused_run(tmp_path, "server.kind=orbit2",
                      "server.orb=orbit2-system")
    assert 'server kind "orbit2" has no system installation' in err


@pytest.mark.parametrize("args", [
    "-ORBIIOPIPName=0.0.0.0",
    "-ORBIIOPIPName 192.0.2.1",
    "--ORBIIOPIPv6=1",
    "-ORBIIOPIPv6 1",
    "-ORBLocalOnly=0",
    "-ORBNetID=fqdn",
    "-ORBIIOPSSL=1",
])
def test_orbit2_options_beyond_loopback_are_refused(tmp_path, args):
    err = refused_run(tmp_path, "server.kind=orbit2",
                      "server.args=" + json.dumps(args.split(" ")))
    assert 'key "server.args"' in err and args in err
    assert "loopback only" in err


@pytest.mark.parametrize("args", [
    "-ORBIIOPIPName=127.0.0.1",
    "-ORBIIOPIPv6=0",
    "-ORBNetID=local",
    "-ORBNoUserRC",
    "-ORBIIOPIPSock=/tmp/x.sock",
])
def test_orbit2_loopback_options_stay_allowed(args):
    r = subprocess.run([str(ORBBENCH), "check",
                        str(SCENARIOS / "sync-tcp.json"), "--set",
                        "server.args=" + json.dumps(args.split(" "))],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
