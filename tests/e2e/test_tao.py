"""End-to-end: server kind tao, the echo server of servers/tao built
against a TAO that scripts/build-orb built (bin/orbs/tao-*/echo-server),
driven by the unchanged client over IIOP (tcp) and TAO's UIOP (unix):
sweeps that record the ORB and its build, the server models, oneways and
typed payloads, orbbench ior on its IORs, nothing left running. Every
test skips, naming the build command, when no TAO is built (CI builds
none); the refusals at the end need no build."""
import json
import subprocess

import pytest

from conftest import BIN, ORBBENCH, SCENARIOS

BUILD = ("no TAO build: scripts/build-orb tao 2.2.1 --source "
         "ACE+TAO-src-6.2.1.tar.gz (a DOCGroup ACE+TAO release), then make")
BUILDS = sorted((BIN / "orbs").glob("tao-*/echo-server"))


@pytest.fixture(scope="module")
def tao():
    """(id, echo server) of the newest TAO build, or skip."""
    if not BUILDS:
        pytest.skip(BUILD)
    return BUILDS[-1].parent.name, BUILDS[-1]


def sets(tao, *more):
    return ("server.kind=tao", f"server.orb={tao[0]}") + more


def small(tao, *more):
    return sets(tao, "sweep.start=2", "sweep.step=1", "sweep.max_n=3",
                "sweep.rounds=3", *more)


def test_version_says_how_it_was_built(tao):
    r = subprocess.run([str(tao[1]), "--version"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    first, build = r.stdout.splitlines()
    assert first == "TAO " + tao[0].removeprefix("tao-")
    assert "TAO_HAS_INTERCEPTORS=0" in build and "-std=" in build


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_small_sweep_records_tao(orbbench, tao, transport):
    r = orbbench(SCENARIOS / f"sync-{transport}.json", *small(tao))
    assert r.rc == 0, r.stderr
    orb = r.doc["orb"]
    assert orb["name"] == "TAO" and orb["id"] == tao[0]
    assert orb["version"] == tao[0].removeprefix("tao-")
    assert "TAO_HAS_INTERCEPTORS=0" in orb["build"]
    assert f"/orbs/{tao[0]}/lib/libTAO.so" in orb["library_path"]
    assert [s["n"] for s in r.doc["steps"]] == [2, 3]
    assert r.doc["result"]["stop_reason"] == "max_n"
    fp = r.doc["steps"][-1]["footprint"]
    assert fp["probed"] == 3 and fp["unreadable"] == 0


@pytest.mark.parametrize("args,least", [
    ([], 1),                            # reactive: one thread does all
    (["--threads", "4"], 4),            # ORB::run from 4 threads
    (["--thread-per-connection"], 2),   # + a thread for our connection
])
def test_server_models(orbbench, tao, args, least):
    r = orbbench(SCENARIOS / "sync-unix.json",
                 *small(tao, "server.args=" + json.dumps(args)))
    assert r.rc == 0, r.stderr
    threads = [s["threads"] for s in r.doc["steps"][-1]["footprint"]
               ["servers"]]
    assert min(threads) >= least, threads
    if not args:
        assert max(threads) == 1, threads


def test_shipped_server_model_scenarios_run(orbbench, tao):
    files = sorted((SCENARIOS / "tao").glob("*.json"))
    assert files, "no scenarios/tao/*.json"
    for f in files:
        r = orbbench(f, f"server.orb={tao[0]}", "sweep.start=2",
                     "sweep.max_n=2", "sweep.rounds=2")
        assert r.rc == 0, (f, r.stderr)


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_oneway_upcalls_are_counted(orbbench, tao, transport):
    r = orbbench(SCENARIOS / "fifo" / f"0{3 if transport == 'unix' else 6}"
                 f"-tpc-{transport}-oneway.json", *sets(tao),
                 "rate.repeats=1", "rate.duration_s=0.05", "rate.warmup_s=0")
    assert r.rc == 0, r.stderr
    assert r.doc["rate"]["upcalls_per_s"]["median"] > 0


def test_typed_payloads_are_echoed(orbbench, tao):
    """The client checks every reply against what it sent."""
    for payload in ("None", "Octet1K", "SharedBelief"):
        r = orbbench(SCENARIOS / "miro" / "01-None-unix.json", *sets(tao),
                     f"call.payload={payload}", "latency.calls=20",
                     "latency.warmup_calls=2")
        assert r.rc == 0, (payload, r.stderr)


def test_work_us(tao):
    bad = subprocess.run([str(tao[1]), "--work-us", "-1"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2
    assert bad.stderr == ('echo-server: --work-us: "-1" is not an integer '
                          'in [0, 1000000]\n')


def live_ior(tao, tmp_path, *endpoints):
    """The IOR a TAO echo server prints with these endpoints; the server
    is killed before this returns."""
    args = [str(tao[1]), "-ORBDottedDecimalAddresses", "1"]
    for e in endpoints:
        args += ["-ORBListenEndpoints",
                 e.replace("DIR", str(tmp_path))]
    p = subprocess.Popen(args, stdout=subprocess.PIPE,
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


def test_reactor_limit_is_a_named_resource_stop(orbbench, tao):
    """TAO's default reactor selects on descriptors below FD_SETSIZE: the
    server declares it (orbbench-limit), so a fan-in past it stops as
    `resource` quoting the declaration, where it once ended as
    call_failed at 1,141 connections. Thread per connection serves its
    connections outside the reactor and declares nothing."""
    fanin = SCENARIOS / "fanin"
    grow = ("fanin.start=960", "fanin.growth=1", "fanin.step=40",
            "fanin.max_n=1200", "fanin.rounds=2", "fanin.warmup_rounds=0")
    r = orbbench(fanin / "11-tao-reactive-unix.json",
                 *sets(tao, *grow))
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "resource", res
    assert "serves at most 1024 descriptors, as it declared (TAO's " \
        "reactor (select()" in res["detail"], res
    assert [d["descriptors"] for d in r.doc["declared_limits"]] == [1024]
    assert 960 <= res["max_connections"] < 1024
    tpc = orbbench(fanin / "12-tao-tpc-unix.json",
                   *sets(tao, "fanin.start=4", "fanin.growth=1",
                         "fanin.step=4", "fanin.max_n=8", "fanin.rounds=2"))
    assert tpc.rc == 0, tpc.stderr
    assert tpc.doc["declared_limits"] == []


def test_ior_of_a_live_server_over_both(tao, tmp_path):
    d = ior_json(live_ior(tao, tmp_path, "iiop://127.0.0.1:0",
                          "uiop://DIR/s.sock"))
    tags = [p["tag"] for p in d["profiles"]]
    assert tags == [0, 0x54414f00], d
    iiop, uiop = d["profiles"]
    assert uiop["name"] == "TAO_TAG_UIOP_PROFILE" and uiop["decoded"]
    assert uiop["path"] == str(tmp_path / "s.sock")
    assert uiop["object_key_hex"] == iiop["object_key_hex"]
    assert d["connect"]["tcp"]["ok"] and d["connect"]["tcp"]["port"] > 0
    assert d["connect"]["unix"] == {"ok": True,
                                    "path": str(tmp_path / "s.sock")}


def test_ior_of_a_unix_only_server(tao, tmp_path):
    d = ior_json(live_ior(tao, tmp_path, "uiop://DIR/u.sock"))
    assert [p["tag"] for p in d["profiles"]] == [0x54414f00]
    assert d["connect"]["unix"]["path"] == str(tmp_path / "u.sock")
    assert d["connect"]["tcp"] == {"ok": False,
                                   "why": "no IIOP profile (no TCP endpoint)"}


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


def test_tao_needs_a_build_named(tmp_path):
    """There is no system TAO: the default server.orb is omniORB's, and
    the message says what to set or build."""
    err = refused_run(tmp_path, "server.kind=tao")
    assert ('key "server.orb": "omniorb-system" is not an installation of '
            'server kind "tao" (theirs are named tao-*; built here: ') in err
    if not BUILDS:
        assert "scripts/build-orb tao VERSION --source PATH" in err
    err = refused_run(tmp_path, "server.kind=tao", "server.orb=tao-system")
    assert 'server kind "tao" has no system installation' in err


def test_an_omniorb_kind_never_runs_a_tao_build(tmp_path):
    err = refused_run(tmp_path, "server.orb=tao-2.2.1")
    assert '"tao-2.2.1" is not an installation of server kind "omniorb"' \
        in err
