"""End-to-end: the callers of JacORB, MICO and omniORBpy (callers/jacorb,
callers/mico, callers/omniorbpy; docs/callers.md), each ORB's own client
making a sweep's calls, against real servers: its own family's and the
ORB-less giop-min, over TCP and, where the ORB reads the server's IOR,
Unix sockets. Every mode of every build makes its calls and records its
costs; the threads each family holds per connection; failed calls name
the ORB's exception (JacORB's receptor pool, MICO's unreadable profile,
omniORB's MARSHAL); the shipped caller-floor rows run; the callers die
with their parent; caller.jvm.* reaches JacORB's JVM and is refused
elsewhere; nothing is left running (no stray java or python). Every test
that needs a build skips, naming its build command, when none is built;
the refusals need none."""
import os
import subprocess

import pytest

from conftest import BIN, ORBBENCH, SCENARIOS, alive, wait_for

# One worker with test_jacorb and test_objects (make test's -n 2):
# no_stray_callers looks for every caller of these builds on the
# machine, another worker's included.
pytestmark = pytest.mark.xdist_group("callers")

# Each family: its --version name, its modes (the default first), its
# echo server's kind and transports, the transports its caller reads
# giop-min's IORs over, and how to build one.
FAMILIES = {
    "jacorb": {
        "name": "JacORB", "modes": ["sync", "deferred", "ami-callback"],
        "own": ["tcp"], "giop_min": ["tcp"],
        "build": "no JacORB build: scripts/build-orb jacorb 3.4 --source "
                 "JACORB_SOURCE (git archive RELEASE_3_4 of "
                 "github:JacORB/JacORB, with git archive master rmi-stub in "
                 "it), then make"},
    "mico": {
        "name": "MICO", "modes": ["sync", "deferred"],
        "own": ["tcp", "unix"], "giop_min": ["tcp"],
        "build": "no MICO build: git --git-dir=MIRROR archive HEAD | tar -x "
                 "-C /tmp/mico (github:zebastian/mico), scripts/build-orb "
                 "mico 2.3.13 --source /tmp/mico, then make"},
    "omniorbpy": {
        "name": "omniORBpy", "modes": ["sync", "ami-poller", "ami-callback"],
        "own": ["tcp", "unix"], "giop_min": ["tcp", "unix"],
        "build": "no omniORBpy build: scripts/build-orb omniorbpy 4.2.6 "
                 "--source omniORBpy-4.2.6.tar.bz2 "
                 "(github:jeteve/jeteve-omniorb, vendor/), then make"},
}
# A short sweep: N = 2 then 4, three timed rounds a step.
SMALL = ("sweep.start=2", "sweep.step=2", "sweep.max_n=4",
         "sweep.rounds=3", "sweep.warmup_rounds=2")


def built(family):
    """The ids of this family's builds with a caller (bin/orbs/ID/caller)."""
    return sorted(p.parent.name for p in
                  (BIN / "orbs").glob(f"{family}-*/caller"))


def builds(family, *rest, name=None):
    """pytest params (family, id, *rest) for every build of the family, or
    one that skips naming the build command when there is none; their ids
    end in `name` (default: rest's words)."""
    tail = [name] if name else [str(x) for x in rest]
    ids = built(family)
    if not ids:
        return [pytest.param(family, None, *rest, marks=pytest.mark.skip(
            reason=FAMILIES[family]["build"]),
            id="-".join([family, "none", *tail]))]
    return [pytest.param(family, i, *rest, id="-".join([i, *tail]))
            for i in ids]


def each(make):
    """make(family) -> params, over every family."""
    return [p for family in FAMILIES for p in make(family)]


def our_callers():
    """PIDs of the callers of this BIN's builds still running: JacORB's
    JVM (its caller.jar), MICO's program, omniORBpy's Python script."""
    orbs = str(BIN / "orbs")
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                words = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if any(w.startswith(orbs) and (w.endswith("/caller") or
                                       "/caller.jar" in w)
               for w in words) and alive(int(d)):
            out.append(int(d))
    return out


@pytest.fixture(scope="module", autouse=True)
def no_stray_callers():
    """No caller of ours runs before the module's tests nor after them."""
    assert our_callers() == []
    yield
    left = wait_for(lambda: our_callers() == [], timeout=10)
    assert left, f"callers left: {our_callers()}"


def sweep(orbbench, family, orb, mode, server, transport, *more):
    """A small sweep of `server` servers (giop-min, or the family's own of
    the same build) called by the caller."""
    sets = [*SMALL, f"caller.kind={family}", f"caller.orb={orb}",
            f"caller.mode={mode}"]
    if server == "own":
        sets += [f"server.kind={family}", f"server.orb={orb}"]
    else:
        sets += [f"server.kind={server}"]
    return orbbench(SCENARIOS / f"sync-{transport}.json", *sets, *more,
                    timeout=300)


@pytest.mark.parametrize("family, orb", each(builds))
def test_version_and_modes(family, orb):
    """--version: the ORB's name and version, then how it was built;
    --modes: its modes, the default first."""
    exe = BIN / "orbs" / orb / "caller"
    v = subprocess.run([str(exe), "--version"], capture_output=True,
                       text=True, timeout=60)
    assert v.returncode == 0, v.stderr
    lines = v.stdout.splitlines()
    assert lines[0] == f"{FAMILIES[family]['name']} {orb.split('-', 1)[1]}"
    assert len(lines) == 2 and lines[1]
    m = subprocess.run([str(exe), "--modes"], capture_output=True,
                       text=True, timeout=60)
    assert m.stdout.split() == FAMILIES[family]["modes"]


def every_mode(family):
    return [p for mode in FAMILIES[family]["modes"]
            for p in builds(family, mode)]


@pytest.mark.parametrize("family, orb, mode", each(every_mode))
def test_every_mode_calls_giop_min(orbbench, family, orb, mode):
    """Each mode makes every call of a sweep against giop-min servers over
    TCP: the result names the caller and its mode, every step has the
    caller's costs, and the servers hold the caller's connection each
    (JacORB's DII closes its connection after each call: none held)."""
    r = sweep(orbbench, family, orb, mode, "giop-min", "tcp")
    assert r.rc == 0, r.stderr
    c = r.doc["caller"]
    assert (c["kind"], c["orb"], c["mode"]) == (family, orb, mode)
    assert c["name"] == FAMILIES[family]["name"]
    assert c["modes"] == FAMILIES[family]["modes"]
    assert r.doc["scenario"]["caller"]["mode"] == mode
    held = 1 if (family, mode) == ("jacorb", "deferred") else 2
    for s in r.doc["steps"]:
        cs = s["caller"]
        assert s["calls"] == 3 * s["n"]
        assert cs["cpu_per_call_us"]["total"] > 0
        assert cs["rss_kb"] > 0 and cs["uss_kb"] > 0
        assert cs["threads"] >= 1 and cs["fds"] > 0
        assert cs["server_sockets"]["held"] == held * s["n"]
    assert r.doc["result"]["costs"]["caller"]["footprint"]["n"] == 4


def own_and_unix(family):
    """The default mode against the family's own servers over each
    transport they serve, and against giop-min over Unix where the
    ORB reads its IOR."""
    f = FAMILIES[family]
    mode = f["modes"][0]
    return ([p for t in f["own"] for p in builds(family, mode, "own", t)] +
            [p for t in f["giop_min"] if t != "tcp"
             for p in builds(family, mode, "giop-min", t)])


@pytest.mark.parametrize("family, orb, mode, server, transport",
                         each(own_and_unix))
def test_its_own_servers_and_unix(orbbench, family, orb, mode, server,
                                  transport):
    r = sweep(orbbench, family, orb, mode, server, transport)
    assert r.rc == 0, r.stderr
    assert r.doc["caller"]["orb"] == orb
    for s in r.doc["steps"]:
        assert s["calls"] == 3 * s["n"]
        assert s["caller"]["cpu_per_call_us"]["total"] > 0


# The threads a caller adds per server it calls, sync: JacORB's receptor
# thread per connection, MICO's reader thread per connection (its
# threaded client), none for omniORB's core (the calling thread reads).
PER_CONNECTION = {"jacorb": 1, "mico": 1, "omniorbpy": 0}


@pytest.mark.parametrize("family, orb", each(builds))
def test_threads_per_connection(orbbench, family, orb):
    r = sweep(orbbench, family, orb, "sync", "giop-min", "tcp")
    assert r.rc == 0, r.stderr
    t = {s["n"]: s["caller"]["threads"] for s in r.doc["steps"]}
    assert t[4] - t[2] == 2 * PER_CONNECTION[family], t


def failing(family):
    """How each family's caller is made to fail, in its default mode and
    an asynchronous one: (mode, server kind, transport, sets, the
    exception's word, words of its message)."""
    if family == "jacorb":
        # The client's receptor pool at 3 threads: the 4th connection is
        # refused by the pool.
        limit = ['caller.args=["-Djacorb.connection.client.'
                 'max_receptor_threads=3"]']
        why = "maximum number of threads reached (3)"
        rows = [(m, "giop-min", "tcp", limit, "NO_RESOURCES", why)
                for m in FAMILIES[family]["modes"]]
    elif family == "mico":
        # giop-min's Unix IOR is omniORB's form: MICO reads only its own
        # Unix profile, and finds nothing to connect to. With GIOP 1.0
        # (MICO's default) giop-min never answers, and MICO has no call
        # timeout: the caller's watchdog fails the call.
        old_giop = ['caller.args=["-ORBGIOPVersion","1.0"]',
                    "call.timeout_ms=1000"]
        rows = [(m, "giop-min", "unix", [], "COMM_FAILURE", "completed no")
                for m in FAMILIES[family]["modes"]] + [
            (m, "giop-min", "tcp", old_giop, "TIMEOUT",
             "no reply in 1000 ms (the caller's watchdog)")
            for m in FAMILIES[family]["modes"]]
    else:
        # omniORB's servers refuse a message over 8 KiB: omniORB's core
        # under the Python client says MARSHAL.
        big = ['server.args=["-ORBgiopMaxMsgSize","8192"]',
               "call.payload_bytes=20000"]
        rows = [(m, "omniorb", "unix", big, "MARSHAL", "completed")
                for m in FAMILIES[family]["modes"]]
    return [p for row in rows
            for p in builds(family, *row, name=f"{row[0]}-{row[4]}")]


@pytest.mark.parametrize("family, orb, mode, server, transport, sets, "
                         "word, why", each(failing))
def test_a_failed_call_names_the_orbs_exception(orbbench, family, orb, mode,
                                                server, transport, sets,
                                                word, why):
    """The run stops (exit 1) naming the caller, the target and the ORB's
    exception with its message, its fail lines in
    result.caller_failure."""
    r = sweep(orbbench, family, orb, mode, server, transport, *sets)
    assert r.rc == 1, r.stderr
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith(f"orbbench: call_failed: caller {family} "
                           f"({FAMILIES[family]['name']} "), line
    assert f"): {word}: " in line and why in line, line
    failure = r.doc["result"]["caller_failure"]
    assert failure["fails"] and {f["word"] for f in failure["fails"]} == \
        {word}
    assert r.doc["result"]["stop_reason"] == "call_failed"


def floor_rows(family):
    files = sorted((SCENARIOS / "caller-floor").glob(f"{family}-*.json"))
    return [p for f in files
            for p in builds(family, f.stem)]


@pytest.mark.parametrize("family, orb, row", each(floor_rows))
def test_caller_floor_rows_run(orbbench, family, orb, row):
    """Each shipped row of scenarios/caller-floor/ for the family, cut to
    N = 2 and 4 (a limit row's crossing too), with the family's build."""
    r = orbbench(SCENARIOS / "caller-floor" / f"{row}.json", *SMALL,
                 "sweep.growth=1", "sweep.max_ms=10000",
                 f"caller.orb={orb}", timeout=300)
    assert r.rc == 0, r.stderr
    assert r.doc["caller"]["kind"] == family
    assert [s["n"] for s in r.doc["steps"]] == [2, 4]


def start_by_hand(exe, tmp_path, *args):
    """The caller started by a shell, its stdin a pipe the test holds (no
    EOF), once it is ready: (shell, its pid, the pipe's write end)."""
    pidfile, said = tmp_path / "pid", tmp_path / "stdout"
    rfd, wfd = os.pipe()
    words = " ".join(f'"{a}"' for a in (exe, *args))
    # The pipe through fd 3: a background command's stdin would be
    # /dev/null before its redirections.
    shell = subprocess.Popen(
        ["sh", "-c", f"exec 3<&0; {words} <&3 >{said} 2>{tmp_path}/stderr "
         f"3<&- & echo $! > {pidfile}; wait"], stdin=rfd)
    os.close(rfd)
    pid = wait_for(lambda: pidfile.exists() and pidfile.read_text()
                   .strip() and int(pidfile.read_text()))
    ready = wait_for(lambda: said.exists() and
                     said.read_text().startswith("ready "), timeout=60)
    if not (pid and ready and said.read_text().split()[1] == str(pid)):
        shell.kill()
        shell.wait(timeout=30)
        os.close(wfd)
        pytest.fail(f"not ready: {said.read_text()!r}")
    return shell, pid, wfd


@pytest.mark.parametrize("family, orb", each(builds))
def test_the_caller_dies_with_its_parent(family, orb, tmp_path):
    """Started by a shell that is then killed once the caller is ready
    (its ready line names its own pid), the caller goes too, its stdin
    still open: not an EOF, the parent-death signal."""
    shell, pid, wfd = start_by_hand(BIN / "orbs" / orb / "caller", tmp_path)
    shell.kill()
    shell.wait(timeout=30)
    try:
        assert wait_for(lambda: not alive(pid), timeout=10), pid
    finally:
        os.close(wfd)


def listening(pid):
    """The local addresses ("0100007F:9C41") of pid's listening TCP
    sockets (tcp and tcp6)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        link = os.readlink(f"/proc/{pid}/fd/{fd}")
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    out = []
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            for line in list(f)[1:]:
                col = line.split()
                if col[3] == "0A" and col[9] in inodes:  # LISTEN
                    out.append(col[1])
    return out


# 127.0.0.1, ::1 and ::ffff:127.0.0.1 (Java listens on a v6 socket).
LOOPBACK = ("0100007F:", "00000000000000000000000001000000:",
            "0000000000000000FFFF00000100007F:")


@pytest.mark.parametrize("family, orb, mode", each(every_mode))
def test_the_caller_listens_on_loopback_only(family, orb, mode, tmp_path):
    """JacORB's ami-callback mode listens (its reply handlers' RootPOA),
    on 127.0.0.1 alone; every other mode listens on nothing (MICO's
    ORB_init is told -ORBNoIIOPServer; omniORBpy calls its reply handlers
    in the process)."""
    shell, pid, wfd = start_by_hand(BIN / "orbs" / orb / "caller", tmp_path,
                                    "--mode", mode)
    try:
        where = listening(pid)
        if (family, mode) == ("jacorb", "ami-callback"):
            assert where and all(a.startswith(LOOPBACK) for a in where), \
                where
        else:
            assert where == []
    finally:
        shell.kill()
        shell.wait(timeout=30)
        os.close(wfd)
        assert wait_for(lambda: not alive(pid), timeout=10), pid


JACORB = built("jacorb")


@pytest.mark.skipif(not JACORB, reason=FAMILIES["jacorb"]["build"])
def test_caller_jvm_keys_reach_the_jvm(orbbench):
    """caller.jvm.heap_max_mb=1 becomes -Xmx1m: the JVM refuses to start,
    and the run says so with the JVM's words."""
    r = orbbench(SCENARIOS / "sync-tcp.json", *SMALL, "server.kind=giop-min",
                 "caller.kind=jacorb", f"caller.orb={JACORB[-1]}",
                 "caller.jvm.heap_max_mb=1")
    assert r.rc == 1
    line = r.stderr.strip().splitlines()[-1]
    assert "caller jacorb (JacORB " in line and " did not start: " in line
    assert "Too small maximum heap" in line, line
    assert r.doc["scenario"]["caller"]["jvm"]["heap_max_mb"] == 1


@pytest.mark.skipif(not JACORB, reason=FAMILIES["jacorb"]["build"])
def test_jacorb_caller_refuses_words_beyond_loopback(tmp_path):
    """A property that would move its POA's listener is refused before
    anything starts (exit 2), by orbbench and by the caller itself."""
    out = tmp_path / "r.json"
    r = subprocess.run(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json"), "--out",
         str(out), "--set", "server.kind=giop-min", "--set",
         "caller.kind=jacorb", "--set", f"caller.orb={JACORB[-1]}",
         "--set", 'caller.args=["-DOAIAddr=0.0.0.0"]'],
        capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert 'key "caller.args": "-DOAIAddr=0.0.0.0": callers listen on ' \
           'loopback only' in r.stderr
    exe = BIN / "orbs" / JACORB[-1] / "caller"
    p = subprocess.run([str(exe), "--mode", "ami-callback", "--",
                        "-ORBListenEndpoints", "iiop://0.0.0.0:0"],
                       capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and p.stdout == ""
    assert "callers listen on loopback only" in p.stderr


@pytest.mark.parametrize("sets, needle", [
    (["caller.kind=omniorb", "caller.jvm.gc=serial"],
     'key "caller.jvm.gc": caller omniorb runs no JVM'),
    (["caller.jvm.thread_stack_kb=256"],
     "--set caller.jvm.thread_stack_kb: needs caller.kind"),
    (["caller.kind=jacorb", "caller.jvm.gc=nope"],
     '--set caller.jvm.gc: "nope" is not one of'),
    (["caller.kind=mico", "caller.orb=omniorb-4.3.3"],
     '"omniorb-4.3.3" is not an installation of caller "mico" (theirs are '
     'named mico-*'),
])
def test_bad_caller_keys_exit_2(tmp_path, sets, needle):
    out = tmp_path / "r.json"
    args = [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"),
            "--out", str(out)]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert not out.exists()


def test_keys_list_the_callers():
    r = subprocess.run([str(ORBBENCH), "keys"], capture_output=True,
                       text=True, timeout=30)
    assert "|jacorb|mico|omniorbpy" in r.stdout
    for key in ("caller.jvm.heap_max_mb", "caller.jvm.thread_stack_kb",
                "caller.jvm.gc", "caller.jvm.jit", "caller.jvm.cds"):
        assert key in r.stdout
