"""End-to-end: the TAO and ORBit2 callers (callers/tao, callers/orbit2:
each ORB's own client speaking the caller protocol, docs/callers.md),
driven by tests/e2e/caller_driver.py against real servers: its own ORB's
echo servers over tcp and unix, and giop-min's over tcp (giop-min's Unix
IOR names the socket in omniORB's own component, which neither TAO nor
ORBit2 reads). Each caller in each mode: the ready line, --version,
--modes, rounds with every call checked, times, a killed server's
exception, a stopped server's TIMEOUT, drop, quit and EOF leaving nothing
running, the parent-death signal, and no listener (TAO's ami-callback: on
loopback only). Every test skips, naming the build command, when the ORB
is not built (CI builds neither)."""
import os
import signal
import subprocess
import time

import pytest

from caller_driver import BIN, Caller, ProtocolError, Servers
from conftest import ROOT, alive, children, wait_for

TAO_BUILD = ("scripts/build-orb tao 2.2.1 --source ACE+TAO-src-6.2.1.tar.gz "
             "(a DOCGroup ACE+TAO release; it adds the callers' libraries "
             "to a build made without them), then make")
ORBIT2_BUILD = ("scripts/build-orb orbit2 2.14.19 --source ORBIT2_SOURCE "
                "(an ORBit2 release tree or tarball, e.g. "
                "github:Distrotech/ORBit2), then make")
FAMILIES = {
    "tao": {"name": "TAO", "modes": ["sync", "deferred", "ami-callback"],
            "build": TAO_BUILD},
    "orbit2": {"name": "ORBit2", "modes": ["sync", "async"],
               "build": ORBIT2_BUILD},
}
# What a call to a server that is gone fails with (ORBit2: COMM_FAILURE
# for a refused connection too; TAO: TRANSIENT to connect, COMM_FAILURE
# on a connection that closed).
GONE = {"COMM_FAILURE", "TRANSIENT"}


def newest(family):
    """(build id, caller) of the family's newest build, or skip naming the
    build command."""
    callers = sorted((BIN / "orbs").glob(f"{family}-*/caller"))
    if not callers:
        pytest.skip(f"no {FAMILIES[family]['name']} caller: "
                    f"{FAMILIES[family]['build']}")
    return callers[-1].parent.name, callers[-1]


def each_mode():
    return [pytest.param(f, m, id=f"{f}-{m}")
            for f, info in FAMILIES.items() for m in info["modes"]]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_version_and_modes(family):
    """--version: "NAME VERSION" and how the build was made (its
    BUILD_INFO); --modes: the modes, the default first."""
    orb, caller = newest(family)
    info = FAMILIES[family]
    r = subprocess.run([str(caller), "--version"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    first, build = r.stdout.splitlines()
    assert first == f"{info['name']} {orb.split('-', 1)[1]}"
    assert build == (ROOT / "orbs" / orb / "BUILD_INFO").read_text().strip()
    r = subprocess.run([str(caller), "--modes"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.split() == info["modes"]


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("args,needle", [
    (["--mode", "poller"], 'mode "poller" is not one of'),
    (["--payload-bytes", "1x"], "--payload-bytes"),
    (["--timeout-ms", "0"], "--timeout-ms"),
    (["--frob"], 'unknown argument "--frob"'),
])
def test_usage_errors_exit_2(family, args, needle):
    _, caller = newest(family)
    r = subprocess.run([str(caller), *args], capture_output=True, text=True,
                       timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr and r.stdout == ""
    if "poller" in args:  # the message lists the modes it has
        assert ", ".join(FAMILIES[family]["modes"]) in r.stderr


def threads(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(line.split()[1] for line in f
                        if line.startswith("Threads:")))


def check_round(r, n):
    """Every call of a RECORD round completed, with sane times."""
    assert (r.calls, r.failed, r.fails) == (n, 0, [])
    assert len(r.times) == n
    for service_ns, completion_ns in r.times:
        assert 0 < service_ns <= completion_ns <= r.round_ns


@pytest.mark.parametrize("family,mode", each_mode())
@pytest.mark.parametrize("servers,transport", [
    ("own", "tcp"), ("own", "unix"), ("giop-min", "tcp")])
def test_rounds(family, mode, servers, transport):
    """Rounds over 3 servers: done with every call checked, times with
    RECORD 1, drop, quit; the caller forks nothing and leaves nothing."""
    orb, path = newest(family)
    kind = family if servers == "own" else "giop-min"
    with Servers(kind, 3, transport, orb) as srv, \
            Caller(path, mode) as caller:
        assert caller.mode == mode
        assert [caller.target(ior) for ior in srv.iors] == [1, 2, 3]
        r = caller.round(1, 3)
        assert (r.calls, r.failed, r.times) == (3, 0, None)
        check_round(caller.round(2, 3, record=True), 3)
        check_round(caller.round(3, 2, record=True), 2)  # N < K
        caller.drop(2)
        check_round(caller.round(4, 2, record=True), 2)
        assert caller.target(srv.iors[2]) == 3   # added again
        check_round(caller.round(5, 3, record=True), 3)
        assert children(caller.proc.pid) == []
        # no thread per outstanding call, in any mode: one in all
        assert threads(caller.proc.pid) == 1
        pid = caller.proc.pid
        assert caller.quit() == 0
        assert not alive(pid)


@pytest.mark.parametrize("family,mode", each_mode())
def test_times_in_lines_of_1024_pairs(family, mode):
    """1,100 targets (one server's IOR, 1,100 times): the times of a
    round come in two lines, 1,024 pairs and 76, every line under
    64 KiB."""
    orb, path = newest(family)
    with Servers(family, 1, "tcp", orb) as srv, \
            Caller(path, mode) as caller:
        for _ in range(1100):
            caller.target(srv.iors[0])
        check_round(caller.round(1, 1100, record=True), 1100)
        assert caller.quit() == 0


@pytest.mark.parametrize("family,mode", each_mode())
def test_payload_bytes(family, mode):
    orb, path = newest(family)
    with Servers(family, 2, "tcp", orb) as srv, \
            Caller(path, mode, payload_bytes=100000) as caller:
        for ior in srv.iors:
            caller.target(ior)
        check_round(caller.round(1, 2, record=True), 2)
        assert caller.quit() == 0


@pytest.mark.parametrize("family,mode", each_mode())
def test_killed_server_fails_naming_the_exception(family, mode):
    """A server killed between rounds: its call fails with the ORB's
    exception name, the others complete; it stays failed next round.
    (TAO's deferred mode: TAO 2.2.1 drops the COMM_FAILURE of the closed
    connection, and SYSTEM_EXCEPTION is all the caller can say.)"""
    orb, path = newest(family)
    gone = {"SYSTEM_EXCEPTION"} | GONE if mode == "deferred" else GONE
    # the failure ends the round, not the call timeout (60 s): the round
    # is given 30 s
    with Servers(family, 3, "tcp", orb) as srv, \
            Caller(path, mode, timeout_ms=60000) as caller:
        for ior in srv.iors:
            caller.target(ior)
        check_round(caller.round(1, 3, record=True), 3)
        srv.kill(1)
        for seq in (2, 3):
            r = caller.round(seq, 3, record=True, bound_s=30)
            assert (r.calls, r.failed) == (2, 1), r.fails
            (index, word, message), = r.fails
            assert index == 1 and word in gone, r.fails
            assert message
            assert len(r.times) == 2
        assert caller.quit() == 0


@pytest.mark.parametrize("family,mode", each_mode())
def test_stopped_server_times_out(family, mode):
    """A server that does not answer (SIGSTOP): its call is a TIMEOUT
    within the round's bound, the others complete; once it runs again the
    next round completes every call."""
    orb, path = newest(family)
    with Servers(family, 3, "tcp", orb) as srv, \
            Caller(path, mode, timeout_ms=1000) as caller:
        for ior in srv.iors:
            caller.target(ior)
        check_round(caller.round(1, 3, record=True), 3)
        srv.kill(1, signal.SIGSTOP)
        r = caller.round(2, 3)
        assert (r.calls, r.failed) == (2, 1)
        assert r.fails[0][:2] == (1, "TIMEOUT"), r.fails
        srv.kill(1, signal.SIGCONT)
        # its late reply (if any) is not taken for the next round's
        time.sleep(0.2)
        r = caller.round(3, 3, record=True)
        check_round(r, 3)
        assert caller.quit() == 0


@pytest.mark.parametrize("family,mode", each_mode())
@pytest.mark.parametrize("behave,word", [
    ("wrong-echo", "BAD_REPLY"),          # a reply that is not the payload
    ("system-exception", "TRANSIENT"),    # the server raises one
])
def test_wrong_echo_and_raised_exception(family, mode, behave, word):
    """A reply that is not the payload sent is a BAD_REPLY; a system
    exception the server raises is named (TAO's deferred mode: TAO 2.2.1
    drops it, docs/callers.md, and the caller says SYSTEM_EXCEPTION)."""
    orb, path = newest(family)
    if (family, mode, behave) == ("tao", "deferred", "system-exception"):
        word = "SYSTEM_EXCEPTION"
    with Servers(family, 1, "tcp", orb) as good, \
            Servers("fake", 1, "tcp", extra=["--behave", behave]) as bad, \
            Caller(path, mode, timeout_ms=5000) as caller:
        caller.target(good.iors[0])
        caller.target(bad.iors[0])
        for seq in (1, 2):
            r = caller.round(seq, 2, record=True)
            assert (r.calls, r.failed, len(r.times)) == (1, 1, 1)
            assert r.fails[0][:2] == (1, word), r.fails
        assert caller.quit() == 0


@pytest.mark.parametrize("family", list(FAMILIES))
def test_target_error_and_protocol_errors(family):
    """A bad IOR is an `error` line and adds nothing; a command that
    breaks the protocol ends the caller with exit 2 and one line on
    stderr."""
    orb, path = newest(family)
    with Servers(family, 1, "tcp", orb) as srv:
        with Caller(path) as caller:
            with pytest.raises(ValueError, match="string_to_object"):
                caller.target("IOR:0102zz")
            assert caller.target(srv.iors[0]) == 1
            caller.send("round 1 2 0")   # N > targets held
            with pytest.raises(ProtocolError, match="ended"):
                caller.line(30)
            assert caller.proc.wait(timeout=30) == 2
            assert "round" in caller.last_stderr()
        for bad in ("drop 2", "frobnicate", "round 1 1 2"):
            with Caller(path) as caller:
                caller.target(srv.iors[0])
                caller.send(bad)
                assert caller.proc.wait(timeout=30) == 2, bad
                assert len(caller.last_stderr().splitlines()) == 1


@pytest.mark.parametrize("family", list(FAMILIES))
def test_eof_is_quit(family):
    orb, path = newest(family)
    with Servers(family, 1, "tcp", orb) as srv, Caller(path) as caller:
        caller.target(srv.iors[0])
        caller.round(1, 1)
        caller.proc.stdin.close()
        assert caller.proc.wait(timeout=30) == 0


@pytest.mark.parametrize("family", list(FAMILIES))
def test_dies_with_its_parent(family):
    """The caller's parent killed with SIGKILL: the caller ends too."""
    _, path = newest(family)
    sh = subprocess.Popen(["/bin/sh", "-c", '"$0" & echo $!; wait',
                           str(path)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    try:
        pid = int(sh.stdout.readline())
        assert wait_for(lambda: alive(pid), timeout=10)
        # the ready line shows it is past ORB_init
        assert sh.stdout.readline().startswith("ready ")
        sh.kill()
        sh.wait(timeout=10)
        assert wait_for(lambda: not alive(pid), timeout=10), \
            f"caller {pid} outlived its parent"
    finally:
        if sh.poll() is None:
            sh.kill()
        sh.wait(timeout=10)


def listeners(pid):
    """(protocol, address) of the listening sockets pid holds."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for proto in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{proto}") as f:
            for line in f.readlines()[1:]:
                w = line.split()
                if w[3] == "0A" and w[9] in inodes:   # TCP_LISTEN
                    addr, port = w[1].split(":")
                    if proto == "tcp":
                        addr = ".".join(str(int(addr[i:i + 2], 16))
                                        for i in (6, 4, 2, 0))
                    found.append((proto, addr))
    with open(f"/proc/{pid}/net/unix") as f:
        for line in f.readlines()[1:]:
            w = line.split()
            if int(w[3], 16) & 0x10000 and w[6] in inodes:  # accepting
                found.append(("unix", w[7] if len(w) > 7 else ""))
    return found


@pytest.mark.parametrize("family,mode", each_mode())
def test_listens_on_nothing(family, mode):
    """No listener, but TAO's ami-callback: its reply handlers' POA opens
    an acceptor, on loopback only."""
    orb, path = newest(family)
    with Servers(family, 1, "tcp", orb) as srv, \
            Caller(path, mode) as caller:
        caller.target(srv.iors[0])
        caller.round(1, 1)
        found = listeners(caller.proc.pid)
        if (family, mode) == ("tao", "ami-callback"):
            assert found == [("tcp", "127.0.0.1")], found
        else:
            assert found == [], found
        assert caller.quit() == 0


def sockets(pid):
    return sum(os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
               for fd in os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.parametrize("mode", FAMILIES["tao"]["modes"])
def test_tao_factory_options_reach_tao(mode):
    """TAO's client and resource factory options pass through (gathered
    into -ORBSvcConfDirective): a cache of 4 connections with 6 servers
    is TAO 2.2.1's hard limit (its purge of 20% of 4 rounds to none:
    TRANSIENT past it), with a 50% purge it reconnects instead (sync; a
    deferred or AMI call's connection cannot be purged while its reply
    is out: past 4 such calls may fail, TRANSIENT, as the replies come);
    the wait and mux strategies are taken."""
    orb, path = newest("tao")
    cases = [
        (["-ORBConnectionCacheMax", "4"], 4),
        (["-ORBConnectionCacheMax", "4",
          "-ORBConnectionCachePurgePercentage", "50"],
         6 if mode == "sync" else range(4, 7)),
        (["-ORBWaitStrategy", "rw", "-ORBTransportMuxStrategy",
          "exclusive", "-ORBReactorType", "dev_poll"], 6),
    ]
    with Servers("giop-min", 6, "tcp") as srv:
        for args, calls in cases:
            with Caller(path, mode, orb_args=args) as caller:
                for ior in srv.iors:
                    caller.target(ior)
                for seq in (1, 2):
                    r = caller.round(seq, 6)
                    assert r.calls in (calls if isinstance(calls, range)
                                       else [calls]), (args, r.fails)
                    assert {w for _, w, _ in r.fails} <= {"TRANSIENT"}
                if "-ORBConnectionCachePurgePercentage" in args and \
                        mode == "sync":  # at most 4 held (+ 2:
                    # the reactor's notification pipe is a socket pair)
                    assert sockets(caller.proc.pid) <= 4 + 2
                assert caller.quit() == 0


@pytest.mark.parametrize("args,rc,needle", [
    (["-ORBFrobnicate", "1"], 1, "ORB_init: BAD_PARAM"),
    (["-ORBWaitStrategy"], 2, "-ORBWaitStrategy needs a value"),
    (["extra"], 2, 'unknown ORB argument "extra"'),
])
def test_tao_bad_orb_options(args, rc, needle):
    _, path = newest("tao")
    r = subprocess.run([str(path), "--", *args], capture_output=True,
                       text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode == rc and needle in r.stderr, r.stderr
