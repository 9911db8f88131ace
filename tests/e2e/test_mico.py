"""End-to-end: server kind mico, the echo server of servers/mico (C++)
built against a MICO that scripts/build-orb built
(bin/orbs/mico-*/echo-server), driven by the unchanged client over IIOP
(tcp) and MICO's Unix sockets (unix): sweeps that record the ORB and its
build, the server models, the select() limit it declares, --work-us,
oneways and typed payloads, orbbench ior on its IORs, loopback only,
nothing left running. Every test skips, naming the build command, when
no MICO is built (CI builds none); the refusals at the end need no
build."""
import json
import os
import subprocess

import pytest

from conftest import BIN, ORBBENCH, SCENARIOS

BUILD = ("no MICO build: git --git-dir=MIRROR archive HEAD | tar -x -C "
         "/tmp/mico (github:zebastian/mico), scripts/build-orb mico 2.3.13 "
         "--source /tmp/mico, then make")
BUILDS = sorted((BIN / "orbs").glob("mico-*/echo-server"))


@pytest.fixture(scope="module")
def mico():
    """(id, echo server) of the newest MICO build, or skip."""
    if not BUILDS:
        pytest.skip(BUILD)
    return BUILDS[-1].parent.name, BUILDS[-1]


def sets(mico, *more):
    return ("server.kind=mico", f"server.orb={mico[0]}") + more


def small(mico, *more):
    return sets(mico, "sweep.start=2", "sweep.step=1", "sweep.max_n=3",
                "sweep.rounds=3", *more)


def test_version_says_how_it_was_built(mico):
    r = subprocess.run([str(mico[1]), "--version"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    first, build = r.stdout.splitlines()
    assert first == "MICO " + mico[0].removeprefix("mico-")
    assert build.startswith("g++ ") and "configure --disable-static" in build
    assert "no source patch" in build


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_small_sweep_records_mico(orbbench, mico, transport):
    r = orbbench(SCENARIOS / f"sync-{transport}.json", *small(mico))
    assert r.rc == 0, r.stderr
    orb = r.doc["orb"]
    assert orb["name"] == "MICO" and orb["id"] == mico[0]
    assert orb["version"] == mico[0].removeprefix("mico-")
    assert "configure --disable-static" in orb["build"]
    assert f"/orbs/{mico[0]}/lib/libmico" in orb["library_path"]
    assert [s["n"] for s in r.doc["steps"]] == [2, 3]
    assert r.doc["result"]["stop_reason"] == "max_n"
    fp = r.doc["steps"][-1]["footprint"]
    assert fp["probed"] == 3 and fp["unreadable"] == 0


@pytest.mark.parametrize("args,least", [
    ([], 2),                              # the dispatcher, a pool thread
    (["-ORBThreadPerConnection"], 3),     # + a thread for our connection
])
def test_server_models(orbbench, mico, args, least):
    r = orbbench(SCENARIOS / "sync-unix.json",
                 *small(mico, "server.args=" + json.dumps(args)))
    assert r.rc == 0, r.stderr
    threads = [s["threads"] for s in r.doc["steps"][-1]["footprint"]
               ["servers"]]
    assert min(threads) >= least, threads


def test_shipped_scenarios_run(orbbench, mico):
    files = sorted((SCENARIOS / "mico").glob("*.json"))
    assert files, "no scenarios/mico/*.json"
    for f in files:
        r = orbbench(f, f"server.orb={mico[0]}", "sweep.start=2",
                     "sweep.max_n=2", "sweep.rounds=2")
        assert r.rc == 0, (f, r.stderr)


def test_select_limit_is_a_named_resource_stop(orbbench, mico):
    """MICO's thread pool reads its connections in a select() dispatcher:
    the server declares FD_SETSIZE (orbbench-limit), so a fan-in past it
    stops as `resource` quoting the declaration (undeclared, it ended as
    call_failed at 1,058 connections). -ORBUsePoll and thread per
    connection declare nothing."""
    grow = ("fanin.start=960", "fanin.growth=1", "fanin.step=40",
            "fanin.max_n=1200", "fanin.rounds=2", "fanin.warmup_rounds=0")
    fanin = SCENARIOS / "fanin" / "11-tao-reactive-unix.json"
    r = orbbench(fanin, *sets(mico, "server.args=[]", *grow))
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "resource", res
    assert "serves at most 1024 descriptors, as it declared (MICO's " \
        "thread pool (its dispatcher's select()" in res["detail"], res
    assert [d["descriptors"] for d in r.doc["declared_limits"]] == [1024]
    for args in (["-ORBUsePoll"], ["-ORBThreadPerConnection"]):
        r = orbbench(fanin, *sets(mico, "server.args=" + json.dumps(args),
                                  "fanin.start=4", "fanin.growth=1",
                                  "fanin.step=4", "fanin.max_n=8",
                                  "fanin.rounds=2"))
        assert r.rc == 0, (args, r.stderr)
        assert r.doc["declared_limits"] == [], args


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_oneway_upcalls_are_counted(orbbench, mico, transport):
    r = orbbench(SCENARIOS / "fifo" / f"0{3 if transport == 'unix' else 6}"
                 f"-tpc-{transport}-oneway.json", *sets(mico),
                 "rate.repeats=1", "rate.duration_s=0.05", "rate.warmup_s=0")
    assert r.rc == 0, r.stderr
    assert r.doc["rate"]["upcalls_per_s"]["median"] > 0


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_typed_payloads_are_echoed(orbbench, mico, transport):
    """The client checks every reply against what it sent."""
    for payload in ("None", "Octet1K", "Octet100K", "Odometry",
                    "RangeSensor", "SharedBelief"):
        r = orbbench(SCENARIOS / "miro" / "01-None-unix.json", *sets(mico),
                     f"transport={transport}", f"call.payload={payload}",
                     "latency.calls=20", "latency.warmup_calls=2")
        assert r.rc == 0, (payload, r.stderr)


def test_work_us(orbbench, mico):
    r = orbbench(SCENARIOS / "sync-unix.json",
                 *small(mico, "server.work_us=200", "server.work_ns=500"))
    assert r.rc == 0, r.stderr
    for bad, name, top in (("-1", "--work-us", 1000000),
                           ("1x", "--work-ns", 1000000000)):
        p = subprocess.run([str(mico[1]), name, bad], capture_output=True,
                           text=True, timeout=30)
        assert p.returncode == 2
        assert p.stderr == (f'echo-server: {name}: "{bad}" is not an '
                            f'integer in [0, {top}]\n')


def test_unknown_arguments_are_refused(mico):
    """MICO leaves an option it does not know in argv: a typo would
    otherwise be measured as the default model."""
    bad = subprocess.run([str(mico[1]), "-ORBThreadPerConection"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2
    assert bad.stderr == ('echo-server: unknown argument '
                          '"-ORBThreadPerConection"\n')


def test_an_rc_file_cannot_move_the_listener(orbbench, mico, tmp_path):
    """MICO reads options from ~/.micorc (or $MICORC) before its command
    line, and listens on 0.0.0.0 when no -ORBIIOPAddr is given: the
    server gives MICO -ORBConfFile /dev/null, and the spawner drops
    MICORC. Here an rc file in HOME asks for every interface."""
    (tmp_path / ".micorc").write_text("-ORBIIOPAddr inet:0.0.0.0:0\n")
    env = dict(os.environ, HOME=str(tmp_path))
    p = subprocess.Popen([str(mico[1]), "-ORBNoResolve", "-ORBIIOPAddr",
                          "inet:127.0.0.1:0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline().strip()
    finally:
        p.kill()
        p.communicate(timeout=30)
    d = ior_json(line)
    hosts = [q["host"] for q in d["profiles"] if q["tag"] == 0]
    assert hosts == ["127.0.0.1"], d


def live_ior(mico, tmp_path, *args):
    """The IOR a MICO echo server prints with these arguments (DIR: the
    test's folder); the server is killed before this returns."""
    argv = [str(mico[1])] + [a.replace("DIR", str(tmp_path)) for a in args]
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


def test_ior_of_a_live_server_over_both(mico, tmp_path):
    d = ior_json(live_ior(mico, tmp_path, "-ORBNoResolve", "-ORBIIOPAddr",
                          "inet:127.0.0.1:0", "-ORBIIOPAddr",
                          "unix:DIR/s.sock"))
    assert [p["tag"] for p in d["profiles"]] == [0, 1, 20002], d
    iiop, mc, uiop = d["profiles"]
    assert iiop["iiop_version"] == "1.2" and iiop["host"] == "127.0.0.1"
    assert uiop["name"] == "TAG_UNIX_IOP (MICO)" and uiop["decoded"]
    assert uiop["path"] == str(tmp_path / "s.sock")
    assert uiop["object_key_hex"] == iiop["object_key_hex"]
    # MICO writes no TAG_ORB_TYPE; its code sets have a profile of their
    # own.
    assert [c["name"] for c in mc["components"]] == ["TAG_CODE_SETS"]
    assert not iiop["components"] and not uiop["components"]
    assert d["connect"]["tcp"]["ok"] and d["connect"]["tcp"]["port"] > 0
    assert d["connect"]["unix"] == {"ok": True,
                                    "path": str(tmp_path / "s.sock")}


def test_ior_of_a_unix_only_server(mico, tmp_path):
    d = ior_json(live_ior(mico, tmp_path, "-ORBIIOPAddr",
                          "unix:DIR/u.sock"))
    assert [p["tag"] for p in d["profiles"]] == [1, 20002]
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


def test_mico_needs_a_build_named(tmp_path):
    err = refused_run(tmp_path, "server.kind=mico")
    assert ('key "server.orb": "omniorb-system" is not an installation of '
            'server kind "mico" (theirs are named mico-*; built here: ') \
        in err
    if not BUILDS:
        assert "scripts/build-orb mico VERSION --source PATH" in err


@pytest.mark.parametrize("args", [
    ["-ORBIIOPAddr", "inet:0.0.0.0:0"],
    ["-ORBConfFile", "/etc/micorc"],
])
def test_mico_options_off_loopback_are_refused(tmp_path, args):
    err = refused_run(tmp_path, "server.kind=mico",
                      "server.args=" + json.dumps(args))
    assert 'key "server.args"' in err and "loopback only" in err
