"""End-to-end: server kind jacorb, the Java echo server of servers/jacorb
built against a JacORB that scripts/build-orb built
(bin/orbs/jacorb-*/echo-server, a launcher of the JDK's java), driven by
the unchanged client over IIOP (tcp): sweeps that record the ORB, its
build and the JVM's settings, --work-us, oneways and typed payloads,
JacORB's properties through server.args, the server.jvm.* keys on the
JVM's command line, orbbench ior on its IOR, loopback only, the parent's
death, nothing left running (no stray java). Every test that needs a
build skips, naming the build command, when none is built (CI builds
none); the refusals at the end need no build."""
import json
import os
import re
import select
import signal
import subprocess

import pytest

from conftest import (BIN, ORBBENCH, ROOT, SCENARIOS, alive,
                      assert_nothing_left, wait_for)

# One worker with test_callers_families (make test's -n 2): the checks for
# stray JVMs and callers of the ORB builds see every worker's.
pytestmark = pytest.mark.xdist_group("callers")

BUILD = ("no JacORB build: scripts/build-orb jacorb 3.4 --source "
         "JACORB_SOURCE (git archive RELEASE_3_4 of github:JacORB/JacORB, "
         "with git archive master rmi-stub in it), then make")
BUILDS = sorted((BIN / "orbs").glob("jacorb-*/echo-server"))


@pytest.fixture(scope="module")
def jacorb():
    """(id, echo server) of the newest JacORB build, or skip."""
    if not BUILDS:
        pytest.skip(BUILD)
    return BUILDS[-1].parent.name, BUILDS[-1]


def our_javas():
    """PIDs of the JVMs running a JacORB echo server of this BIN."""
    jars = str(BIN / "orbs")
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
        except OSError:
            continue
        if jars in cmd and "/echo-server.jar:" in cmd and alive(int(d)):
            out.append(int(d))
    return out


@pytest.fixture(scope="module", autouse=True)
def no_stray_java():
    """No JVM of ours runs before the module's tests nor after them."""
    assert our_javas() == []
    yield
    left = wait_for(lambda: our_javas() == [], timeout=10)
    assert left, f"java processes left: {our_javas()}"


def sets(jacorb, *more):
    return ("server.kind=jacorb", f"server.orb={jacorb[0]}") + more


def small(jacorb, *more):
    return sets(jacorb, "sweep.start=2", "sweep.step=1", "sweep.max_n=3",
                "sweep.rounds=3", *more)


def test_version_says_how_it_was_built(jacorb):
    r = subprocess.run([str(jacorb[1]), "--version"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    first, build = r.stdout.splitlines()
    assert first == "JacORB " + jacorb[0].removeprefix("jacorb-")
    assert build == (ROOT / "orbs" / jacorb[0] / "BUILD_INFO").read_text() \
        .strip()
    assert "OpenJDK " in build and "-source 8" in build
    assert "rmi-stub" in build and "boot class path" in build


def test_small_sweep_records_jacorb(orbbench, jacorb):
    r = orbbench(SCENARIOS / "sync-tcp.json", *small(jacorb))
    assert r.rc == 0, r.stderr
    orb = r.doc["orb"]
    assert orb["name"] == "JacORB" and orb["id"] == jacorb[0]
    assert orb["version"] == jacorb[0].removeprefix("jacorb-")
    assert "OpenJDK" in orb["build"] and "rmi-stub" in orb["build"]
    assert orb["library_path"].endswith(f"/orbs/{jacorb[0]}/lib/jacorb.jar")
    assert r.doc["scenario"]["server"]["jvm"] == {
        "heap_max_mb": 0, "heap_initial_mb": 0, "thread_stack_kb": 0,
        "gc": "default", "jit": "tiered", "cds": True}
    assert [s["n"] for s in r.doc["steps"]] == [2, 3]
    assert r.doc["result"]["stop_reason"] == "max_n"
    fp = r.doc["steps"][-1]["footprint"]
    assert fp["probed"] == 3 and fp["unreadable"] == 0
    # The JVM's own threads, JacORB's acceptor, a receptor for the one
    # connection and the RootPOA's request processors: far above the
    # C ORBs' one to four.
    assert min(s["threads"] for s in fp["servers"]) > 10


def test_jacorb_properties_pass_through_server_args(orbbench, jacorb):
    """JacORB's POA makes thread_pool_min request processors at the first
    request (5 by default): with 1 a server has fewer threads."""
    def threads(*args):
        r = orbbench(SCENARIOS / "sync-tcp.json", *small(
            jacorb, "sweep.max_n=2", "server.args=" + json.dumps(list(args))))
        assert r.rc == 0, r.stderr
        return max(s["threads"] for s in
                   r.doc["steps"][-1]["footprint"]["servers"])
    assert threads("-Djacorb.poa.thread_pool_min=1") < threads()


def live_run(tmp_path, jacorb, *more):
    """A bounded sweep of 2 then 3 servers, long enough (500 us of work a
    call, 3000 rounds) to look at its servers: (process, result path,
    first checkpoint). The caller ends it."""
    out = tmp_path / "live.json"
    args = [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json"),
            "--out", str(out)]
    for s in small(jacorb, "sweep.rounds=3000", "server.work_us=500",
                   *more):
        args += ["--set", s]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    doc = wait_for(lambda: out.exists() and json.loads(out.read_text()),
                   timeout=120)
    if not doc:
        proc.kill()
        proc.communicate(timeout=60)
        pytest.fail("no checkpoint written")
    return proc, out, doc


def end(proc, out):
    """Stop a live run and check its servers are gone."""
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=60)
    assert_nothing_left(json.loads(out.read_text()), timeout=10)


def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().decode().split("\0")[:-1]


def test_jvm_keys_reach_the_jvm(tmp_path, jacorb):
    proc, out, doc = live_run(
        tmp_path, jacorb, "server.jvm.heap_max_mb=64",
        "server.jvm.heap_initial_mb=16", "server.jvm.thread_stack_kb=512",
        "server.jvm.gc=serial", "server.jvm.jit=c1", "server.jvm.cds=false")
    try:
        for s in doc["servers"]:
            argv = cmdline(s["pid"])
            assert os.path.basename(argv[0]) == "java", argv
            jvm = argv[1:argv.index("EchoServer")]
            assert jvm[:6] == ["-Xmx64m", "-Xms16m", "-Xss512k",
                               "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                               "-Xshare:off"], jvm
            assert "--work-us" in argv and "-ORBListenEndpoints" in argv
        assert doc["scenario"]["server"]["jvm"]["gc"] == "serial"
    finally:
        end(proc, out)


def test_default_jvm_has_no_options_of_ours(tmp_path, jacorb):
    """At the keys' defaults the JVM chooses: no -X or -XX word."""
    proc, out, doc = live_run(tmp_path, jacorb)
    try:
        argv = cmdline(doc["servers"][0]["pid"])
        jvm = argv[1:argv.index("EchoServer")]
        assert [w for w in jvm if w.startswith("-X")] == [], jvm
    finally:
        end(proc, out)


def test_servers_die_with_the_spawner(tmp_path, jacorb):
    """A JVM cannot set PR_SET_PDEATHSIG: the launcher sets it before it
    execs java, and exec keeps it, so a SIGKILLed spawner takes its JVMs
    along."""
    proc, out, doc = live_run(tmp_path, jacorb)
    pids = [s["pid"] for s in doc["servers"]]
    assert pids and all(alive(p) for p in pids)
    # Stopped, the client cannot clean up after its spawner: only the
    # parent-death signal can end the servers.
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        os.kill(doc["process_group"], signal.SIGKILL)  # the spawner
        gone = wait_for(lambda: not any(alive(p) for p in pids), timeout=10)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    assert gone, [p for p in pids if alive(p)]
    proc.wait(timeout=60)
    assert proc.returncode == 1
    end(proc, out)


def test_the_launcher_dies_with_any_parent(jacorb, tmp_path):
    """Started by hand (a shell that is then killed), the JVM goes too."""
    pidfile = tmp_path / "pid"
    shell = subprocess.Popen(
        ["sh", "-c", f'"{jacorb[1]}" -ORBListenEndpoints iiop://127.0.0.1:0 '
         f'>/dev/null 2>&1 & echo $! > {pidfile}; wait'])
    try:
        pid = wait_for(lambda: pidfile.exists() and pidfile.read_text()
                       .strip() and int(pidfile.read_text()))
        assert pid and wait_for(lambda: os.path.basename(
            os.readlink(f"/proc/{pid}/exe")) == "java")
    finally:
        shell.kill()
        shell.wait(timeout=30)
    assert wait_for(lambda: not alive(pid), timeout=10), pid


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="needs root: servers' CPU from a cgroup")
def test_work_us_adds_about_its_cpu_to_each_call(orbbench, jacorb):
    # As test_work.py does for omniORB, loosely (half to three times 2000
    # us): the option reaches the call and is read in us. The loop was
    # compiled by the JIT during the server's calibration; the JVM's own
    # work (its compilers, its collector) is in both runs' figures.
    def per_call(work_us):
        r = orbbench(SCENARIOS / "sync-tcp.json", *sets(
            jacorb, "sweep.start=1", "sweep.max_n=1", "sweep.rounds=50",
            f"server.work_us={work_us}"))
        assert r.rc == 0, r.stderr
        return r.doc["steps"][0]["cpu_per_call_us"]["server"]
    base = per_call(0)
    assert 1000 <= per_call(2000) - base <= 6000


@pytest.mark.parametrize("args,why", [
    (["--work-us", "-1"], '--work-us: "-1" is not an integer in [0, 1000000]'),
    (["--work-ns", "x"], '--work-ns: "x" is not an integer in [0, '
                         '1000000000]'),
    (["--frobnicate"], 'unknown argument "--frobnicate"'),
    (["-ORBListenEndpoints", "iiop://0.0.0.0:0"],
     "-ORBListenEndpoints iiop://0.0.0.0:0: servers listen on loopback only"),
    (["-DOAIAddr=0.0.0.0"], "-DOAIAddr=0.0.0.0: the endpoint is "
                            "-ORBListenEndpoints"),
    (["-J-DOAIAddr=0.0.0.0"], "system property OAIAddr: the endpoint is "
                              "-ORBListenEndpoints"),
    (["-J-agentlib:jdwp=transport=dt_socket,server=y"],
     "the debugger's agent listens on a socket"),
    ([], "no -ORBListenEndpoints"),
])
def test_the_server_refuses_with_one_line(jacorb, args, why):
    r = subprocess.run([str(jacorb[1]), *args], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and why in r.stderr, r.stderr


def start_server(jacorb, *args, cwd=None):
    """The server with these arguments: (process, its first line or '')
    within 60 s. The caller kills it."""
    p = subprocess.Popen([str(jacorb[1]), *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=cwd)
    ready, _, _ = select.select([p.stdout], [], [], 60)
    return p, p.stdout.readline().strip() if ready else ""


def test_orb_options_take_their_value(jacorb):
    """-ORBName VALUE goes to ORB.init whole (the value is not an unknown
    argument of the server's)."""
    p, line = start_server(jacorb, "-ORBListenEndpoints",
                           "iiop://127.0.0.1:0", "-ORBInitRef",
                           "Foo=corbaloc::127.0.0.1:1/Foo")
    try:
        assert line.startswith("IOR:"), p.stderr
    finally:
        p.kill()
        p.communicate(timeout=30)


def listening(pid):
    """The local addresses ("0100007F:9C41") of pid's listening TCP
    sockets (tcp and tcp6: Java listens on a v6 socket)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        m = re.fullmatch(r"socket:\[(\d+)\]",
                         os.readlink(f"/proc/{pid}/fd/{fd}"))
        if m:
            inodes.add(m.group(1))
    out = []
    for table in ("tcp", "tcp6"):
        with open(f"/proc/net/{table}") as f:
            for line in list(f)[1:]:
                col = line.split()
                if col[3] == "0A" and col[9] in inodes:  # LISTEN
                    out.append(col[1])
    return out


def test_listens_on_loopback_only_whatever_a_file_says(jacorb, tmp_path):
    """A jacorb.properties in the working folder (JacORB reads one from
    there by default) asking for every interface and another published
    host is not read: the server's configuration folder is its own."""
    (tmp_path / "jacorb.properties").write_text(
        "OAIAddr=0.0.0.0\njacorb.ior_proxy_host=192.0.2.1\n")
    p, line = start_server(jacorb, "-ORBListenEndpoints",
                           "iiop://127.0.0.1:0", cwd=tmp_path)
    try:
        assert line.startswith("IOR:"), p.stderr
        r = subprocess.run([str(ORBBENCH), "ior", "--json", line],
                           capture_output=True, text=True, timeout=30)
        d = json.loads(r.stdout)[0]
        (iiop,) = d["profiles"]
        assert iiop["host"] == "127.0.0.1"
        assert iiop["components"][0]["vendor"] == "JacORB"
        assert d["connect"]["tcp"]["ok"] and d["connect"]["tcp"]["loopback"]
        addrs = listening(p.pid)
        # 127.0.0.1, as a v4 address or v4-mapped in a v6 socket
        assert len(addrs) == 1 and (
            addrs[0].startswith("0100007F:") or
            addrs[0].startswith("0000000000000000FFFF00000100007F:")), addrs
    finally:
        p.kill()
        p.communicate(timeout=30)


def test_typed_payloads_are_echoed(orbbench, jacorb):
    """The client checks every reply against what it sent."""
    for payload in ("None", "Octet1K", "Octet100K", "Odometry",
                    "RangeSensor", "SharedBelief"):
        r = orbbench(SCENARIOS / "miro" / "01-None-unix.json",
                     *sets(jacorb), "transport=tcp",
                     f"call.payload={payload}", "latency.calls=20",
                     "latency.warmup_calls=2")
        assert r.rc == 0, (payload, r.stderr)


def test_oneway_upcalls_are_counted(orbbench, jacorb):
    """A oneway flood fills the RootPOA's request queue: by default
    (jacorb.poa.queue_max 100, queue_wait off) JacORB then refuses
    requests with TRANSIENT, onewayCount too; with queue_wait on the
    receptor waits, and TCP holds the client back."""
    r = orbbench(SCENARIOS / "fifo" / "06-tpc-tcp-oneway.json",
                 *sets(jacorb), "rate.repeats=1", "rate.duration_s=0.2",
                 "rate.warmup_s=0", "call.timeout_ms=60000",
                 'server.args=["-Djacorb.poa.queue_wait=on"]')
    assert r.rc == 0, r.stderr
    assert r.doc["rate"]["upcalls_per_s"]["median"] > 0


def test_shipped_scenarios_run(orbbench, jacorb):
    files = sorted((SCENARIOS / "jacorb").glob("*.json"))
    assert files
    for f in files:
        r = orbbench(f, f"server.orb={jacorb[0]}", "sweep.start=2",
                     "sweep.max_n=2", "sweep.rounds=2")
        assert r.rc == 0, (f, r.stderr)


# ---- without a build --------------------------------------------------------

def refused_run(tmp_path, scenario, *sets):
    """`orbbench run SCENARIO --set ...` that must be exit 2 and write
    nothing; its stderr."""
    args = [str(ORBBENCH), "run", str(SCENARIOS / scenario), "--out",
            str(tmp_path / "r.json")]
    for x in sets:
        args += ["--set", x]
    r = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert not (tmp_path / "r.json").exists()
    return r.stderr


def test_unix_is_refused_with_one_line(tmp_path):
    err = refused_run(tmp_path, "sync-unix.json", "server.kind=jacorb",
                      "server.orb=jacorb-3.4")
    assert err.splitlines() == [
        f'orbbench: {SCENARIOS / "sync-unix.json"}: key "transport": server '
        'kind "jacorb" does not serve "unix" (it serves tcp)']


def test_jacorb_needs_a_build_named(tmp_path):
    err = refused_run(tmp_path, "sync-tcp.json", "server.kind=jacorb")
    assert ('key "server.orb": "omniorb-system" is not an installation of '
            'server kind "jacorb" (theirs are named jacorb-*; built here: '
            ) in err
    if not BUILDS:
        assert "scripts/build-orb jacorb VERSION --source PATH" in err


@pytest.mark.parametrize("key", [
    "server.jvm.heap_max_mb=64", "server.jvm.gc=serial",
    "server.jvm.jit=interpreter", "server.jvm.cds=false"])
def test_jvm_keys_on_a_kind_without_a_jvm_are_refused(tmp_path, key):
    err = refused_run(tmp_path, "sync-tcp.json", key)
    assert err.splitlines() == [
        f'orbbench: {SCENARIOS / "sync-tcp.json"}: key '
        f'"{key.split("=")[0]}": server kind "omniorb" runs no JVM']


@pytest.mark.parametrize("args", [
    "-DOAIAddr=0.0.0.0",
    "-J-DOAAddress=iiop://0.0.0.0:0",
    "-Djacorb.ior_proxy_host=192.0.2.1",
    "-Dcustom.props=/tmp/x.properties",
    "-J-agentlib:jdwp=transport=dt_socket,server=y,address=*:8000",
    "-ORBListenEndpoints iiop://0.0.0.0:0",
])
def test_jacorb_args_beyond_loopback_are_refused(tmp_path, args):
    err = refused_run(tmp_path, "sync-tcp.json", "server.kind=jacorb",
                      "server.args=" + json.dumps(args.split(" ")))
    assert 'key "server.args"' in err and args.split(" ")[0] in err
    assert "loopback only" in err


def test_bad_jvm_key_values_are_refused(tmp_path):
    err = refused_run(tmp_path, "sync-tcp.json", "server.kind=jacorb",
                      "server.jvm.gc=cms")
    assert err == ('orbbench: --set server.jvm.gc: "cms" is not one of: '
                   'default, serial, parallel, g1, z, shenandoah\n')
