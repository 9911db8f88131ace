"""End-to-end tries of a hostile or careless user (issue 23): the result
is written atomically and never through anything planted beside it,
nothing is overwritten that should not be, a failed write stops the run,
nothing is left behind after a killed spawner, servers listen on
loopback only, and input is bounded.

Each test names the try it covers; the table is in the issue."""
import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (BIN, ORBBENCH, SCENARIOS, alive, assert_nothing_left,
                      kill_quietly, wait_for, write_scenario)

IS_ROOT = os.geteuid() == 0
# A quick sweep: a few cheap ORB-less servers over Unix sockets.
QUICK = ["--set", "server.kind=giop-min", "--set", "sweep.start=1",
         "--set", "sweep.step=1", "--set", "sweep.max_n=2"]


def run_cli(*args, timeout=120, **kw):
    return subprocess.run([str(ORBBENCH), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          **kw)


def one_line(r):
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def leftovers(folder):
    """Temporary result files left in folder."""
    return [p.name for p in folder.iterdir() if ".tmp" in p.name]


def mount_tmpfs(where, *opts):
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(opts), "tmpfs",
                    str(where)], check=True)


def umount(where):
    subprocess.run(["umount", str(where)], check=False)


# ---- the result write path ----------------------------------------------

def test_symlinks_planted_at_temporary_names_are_not_followed(tmp_path):
    """The temporary file once was OUT.tmpPID: a symlink planted there for
    the next PIDs truncated and overwrote its target. Now the name is
    unpredictable and created with O_EXCL|O_NOFOLLOW."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "r.json"
    with open("/proc/sys/kernel/ns_last_pid") as f:
        last = int(f.read())
    for pid in range(last + 1, last + 400):
        os.symlink(victim, f"{out}.tmp{pid}")
    r = run_cli("run", SCENARIOS / "sync-unix.json", "--out", out, *QUICK)
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "precious\n"
    assert json.loads(out.read_text())["result"]["stop_reason"] == "max_n"
    assert not [p for p in leftovers(tmp_path) if not (
        tmp_path / p).is_symlink()]


@pytest.mark.parametrize("node", ["fifo", "device"])
def test_out_not_a_regular_file_is_refused_before_the_run(tmp_path, node):
    """--out /dev/full once replaced the device node with a regular file and
    exited 0. A node of the test's own stands for /dev/full (a FIFO
    without root)."""
    out = tmp_path / "node"
    if node == "device":
        if not IS_ROOT:
            pytest.skip("mknod of a character device needs root")
        os.mknod(out, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # /dev/full
    else:
        os.mkfifo(out)
    r = run_cli("run", SCENARIOS / "sync-unix.json", "--out", out, *QUICK,
                timeout=30)
    assert r.returncode == 2
    line = one_line(r)
    assert "--out" in line and "not a regular file" in line
    mode = os.lstat(out).st_mode
    assert stat.S_ISCHR(mode) if node == "device" else stat.S_ISFIFO(mode)
    assert "servers" not in r.stdout


def test_out_dev_full_itself_is_refused(tmp_path):
    """The real /dev/full: refused before anything is written (the test
    only runs against the fixed client: the old one replaced it)."""
    r = run_cli("run", SCENARIOS / "sync-unix.json", "--out", "/dev/full",
                *QUICK, timeout=30)
    assert r.returncode == 2
    assert "--out /dev/full: not a regular file (a device)" in one_line(r)
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_out_symlink_is_refused(tmp_path):
    """--out a symlink to a regular file: refused, not followed (rename
    would replace the link, and writing through it lets a planted link
    choose the file). The link and its target stay as they were."""
    target = tmp_path / "target.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    r = run_cli("run", SCENARIOS / "sync-unix.json", "--out", link, *QUICK,
                timeout=30)
    assert r.returncode == 2
    assert "a symbolic link" in one_line(r)
    assert link.is_symlink() and target.read_text() == "{}"


@pytest.mark.parametrize("how", ["same", "dot", "hardlink"])
def test_out_the_scenario_file_is_refused(tmp_path, how):
    sc = tmp_path / "s.json"
    sc.write_text((SCENARIOS / "sync-unix.json").read_text())
    before = sc.read_text()
    out = {"same": sc, "dot": tmp_path / "." / "s.json",
           "hardlink": tmp_path / "h.json"}[how]
    if how == "hardlink":
        os.link(sc, out)
    r = run_cli("run", sc, "--out", out, *QUICK, timeout=30)
    assert r.returncode == 2
    assert "the scenario file itself" in one_line(r)
    assert sc.read_text() == before


def test_out_the_ior_list_is_refused(tmp_path):
    """--out naming the external servers' IOR list overwrote it."""
    iors = tmp_path / "iors.txt"
    iors.write_text("IOR:00\n")
    r = run_cli("run", SCENARIOS / "sync-tcp.json", "--out", iors,
                "--set", "server.kind=external", "--set",
                f"server.iors={tmp_path}/./iors.txt", timeout=30)
    assert r.returncode == 2
    assert "--out %s: server.iors itself" % iors in one_line(r)
    assert iors.read_text() == "IOR:00\n"


def test_out_versus_the_same_file_spelled_twice_is_refused(tmp_path):
    """--out X --out-versus ./X once lost side A."""
    r = run_cli("run", SCENARIOS / "sync-unix.json", "--out", "x.json",
                "--out-versus", "./x.json", "--paired", *QUICK,
                cwd=tmp_path, timeout=30)
    assert r.returncode == 2
    assert "--out-versus ./x.json: the same file as --out x.json" in \
        one_line(r)
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("out,needle", [
    ("DIR", "--out {}: a folder"),
    ("", "--out: an empty path"),
    ("missing/r.json", "--out missing/r.json: cannot write there"),
])
def test_out_folder_empty_or_missing_folder_is_refused_at_once(
        tmp_path, out, needle):
    """--out DIR and --out '' once ran the whole sweep before failing."""
    if out == "DIR":
        out = str(tmp_path)
    t0 = time.monotonic()
    r = run_cli("run", SCENARIOS / "sync-unix.json", "--out", out,
                "--set", "server.kind=giop-min", cwd=tmp_path, timeout=60)
    assert r.returncode == 2
    assert needle.format(out) in one_line(r)
    assert "servers" not in r.stdout  # no sweep ran
    assert time.monotonic() - t0 < 20
    assert not leftovers(tmp_path)


def test_out_in_a_read_only_folder_is_refused(tmp_path):
    """Root writes through chmod 0555: a read-only tmpfs stands for it."""
    ro = tmp_path / "ro"
    if IS_ROOT:
        mount_tmpfs(ro, "ro", "size=64k")
    else:
        ro.mkdir()
        ro.chmod(0o555)
    try:
        r = run_cli("run", SCENARIOS / "sync-unix.json", "--out",
                    ro / "r.json", *QUICK, timeout=30)
    finally:
        if IS_ROOT:
            umount(ro)
        else:
            ro.chmod(0o755)
    assert r.returncode == 2
    assert "cannot write there" in one_line(r)


@pytest.mark.skipif(not IS_ROOT, reason="mounting a small tmpfs (a disk "
                    "that fills) needs root")
def test_a_full_disk_stops_the_run_at_once_keeping_the_last_result(
        tmp_path):
    """On a full disk the sweep once ran every remaining step with nothing
    saved, left its partial temporary file behind and said so only at the
    end. A tmpfs of the test's own, filled after the first checkpoint:
    (RLIMIT_FSIZE would do too, but would raise SIGXFSZ in the client and
    also limit every server's log.)"""
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "size=1m")
    proc = None
    try:
        out = disk / "r.json"
        proc = subprocess.Popen(
            [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"),
             "--out", str(out), "--set", "server.kind=giop-min",
             "--set", "sweep.start=1", "--set", "sweep.step=1",
             "--set", "sweep.max_n=60", "--set", "sweep.rounds=20"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = wait_for(lambda: out.exists() and json.loads(out.read_text()))
        assert first, "no checkpoint written"
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC
        finally:
            os.close(fd)
        _, err = proc.communicate(timeout=240)
        kept = json.loads(out.read_text())  # whole, parseable
        assert proc.returncode == 1, err
        assert "write_failed" in err
        assert "cannot write" in err
        assert not leftovers(disk)
        assert kept["result"]["stop_reason"] == "running"
        # stopped at once: at most the step under way when the disk filled
        assert len(kept["steps"]) < 60
        assert_nothing_left(kept)
    finally:
        if proc and proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=60)
        umount(disk)


# ---- debris and dead spawners -------------------------------------------

def run_folder_of(pid):
    """The run folder in server pid's command line (its Unix socket)."""
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        words = f.read().decode().split("\0")
    for w in words:
        if w.startswith("unix:/tmp/orbbench-"):
            return os.path.dirname(w[len("unix:"):])
    return None


def long_limited_run(out):
    """A sweep towards 2000 giop-min servers under a memory limit (so with
    both its cgroups), in the background, writing out."""
    return subprocess.Popen(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"),
         "--out", str(out), "--set", "server.kind=giop-min",
         "--set", "sweep.start=5", "--set", "sweep.step=5",
         "--set", "sweep.max_n=2000", "--set", "sweep.rounds=20",
         "--set", "machine.mem_limit_mb=512"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_killed_spawner_leaves_nothing_behind(tmp_path):
    """A SIGKILLed spawner once left its run folder under /tmp and its
    cpuacct and memory cgroups: the client, outliving it, removes them,
    and says the spawner died."""
    out = tmp_path / "r.json"
    proc = long_limited_run(out)
    try:
        doc = wait_for(lambda: out.exists() and json.loads(out.read_text()))
        assert doc, "no checkpoint written"
        spawner = doc["process_group"]
        with open(f"/proc/{spawner}/stat") as f:  # the client's child
            assert int(f.read().rsplit(")", 1)[1].split()[1]) == proc.pid
        folder = run_folder_of(doc["servers"][0]["pid"])
        assert folder and os.path.isdir(folder)
        cgroups = [doc["machine"].get("cgroup"),
                   doc["machine"].get("cpu_accounting_cgroup")]
        cgroups = [c for c in cgroups if c]
        assert all(os.path.isdir(c) for c in cgroups), cgroups
        os.kill(spawner, signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert f"the spawner (pid {spawner}) died: killed by signal 9" in err
    assert not os.path.exists(folder)
    left = [c for c in cgroups if os.path.exists(c)]
    assert not left, left
    assert_nothing_left(json.loads(out.read_text()))


@pytest.mark.skipif(not IS_ROOT, reason="the memory cgroup needs root")
@pytest.mark.serial        # any other run would clean the folder up first
def test_a_run_killed_with_its_spawner_is_cleaned_up_by_the_next(tmp_path):
    """Killed together (the client stopped first, so that it cannot clean
    up after its spawner), client and spawner leave their run folder and
    cgroups: nobody is left to remove them (a cpuacct cgroup and a run
    folder were once found so after a test run). The next run removes
    them, says so on stderr and in its result, and leaves alone a folder
    of the same shape whose PID is alive."""
    out = tmp_path / "r.json"
    proc = long_limited_run(out)
    decoy = Path(f"/tmp/orbbench-{os.getpid()}-decoy")
    folder, cgroups = None, []
    try:
        doc = wait_for(lambda: out.exists() and json.loads(out.read_text()))
        assert doc, "no checkpoint written"
        servers = [s["pid"] for s in doc["servers"]]
        folder = run_folder_of(servers[0])
        assert folder and os.path.basename(folder).startswith(
            f"orbbench-{proc.pid}-"), folder
        cgroups = [c for c in (doc["machine"].get("cgroup"),
                               doc["machine"].get("cpu_accounting_cgroup"))
                   if c]
        assert cgroups and all(os.path.isdir(c) for c in cgroups), cgroups
        os.kill(proc.pid, signal.SIGSTOP)
        os.kill(doc["process_group"], signal.SIGKILL)  # the spawner
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        assert wait_for(lambda: not any(alive(p) for p in servers),
                        timeout=10), "servers outlived their spawner"
        # what nobody removed
        assert os.path.isdir(folder)
        assert all(os.path.isdir(c) for c in cgroups)
        decoy.mkdir()
        nxt = tmp_path / "next.json"
        r = run_cli("run", SCENARIOS / "sync-unix.json", "--out", nxt,
                    *QUICK)
        assert r.returncode == 0, r.stderr
        assert not os.path.exists(folder)
        assert not [c for c in cgroups if os.path.exists(c)]
        assert decoy.is_dir()
        removed = json.loads(nxt.read_text())["leftovers_removed"]
        assert {folder, *cgroups} <= set(removed.split(";")), removed
        assert "left by earlier runs killed with their spawner" in r.stderr
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=60)
        if decoy.is_dir():
            decoy.rmdir()
        if folder and os.path.isdir(folder):
            shutil.rmtree(folder, ignore_errors=True)
        for c in cgroups:
            if os.path.isdir(c):
                os.rmdir(c)


# ---- servers listen on loopback only ------------------------------------

@pytest.mark.parametrize("args", [
    "-ORBendPoint giop:tcp:0.0.0.0:",
    "-ORBendPoint giop:tcp::",
    "-ORBendPoint giop:tcp:192.0.2.1:0",
    "-ORBendPoint giop:ssl:0.0.0.0:0",
    "-ORBendPoint giop:tcp:[::]:",
    "-ORBendPoint giop:tcp:127.0.0.1:,giop:tcp:0.0.0.0:",
    "-ORBendPointNoPublish giop:tcp:0.0.0.0:",
    "-ORBendPointPublish all(addr)",
    "-ORBendPoint=giop:tcp:0.0.0.0:",
    "-ORBconfigFile /etc/omniORB.cfg",
    "--endpoint tcp:0.0.0.0:0",
    "-ORBHostName 0.0.0.0",
    "-ORBListenEndpoints iiop://0.0.0.0:0",
    "-ORBEndpoint iiop://:0",
    "-ORBEndpoint iiop://127.0.0.1:0,192.0.2.1:0",
    "-ORBListenEndpoints uiop:///tmp/x;iiop://[::]:0",
    "-ORBListenEndpoints shmiop://",
    "-ORBIIOPAddr inet:0.0.0.0:0",
    "-ORBIIOPAddr inet-stream:192.0.2.1:0",
    "-ORBIIOPAddr bt-l2cap:00:00:00:00:00:00#1",
    "-ORBConfFile /etc/micorc",
])
@pytest.mark.parametrize("cmd", ["check", "run"])
def test_a_server_endpoint_beyond_loopback_is_refused(tmp_path, cmd, args):
    """-ORBendPoint giop:tcp:0.0.0.0: was accepted by check and run, and
    the server listened on every interface."""
    r = run_cli(cmd, SCENARIOS / "sync-tcp.json", "--set",
                "server.args=" + json.dumps(args.split(" ")),
                *(["--out", tmp_path / "r.json", "--set", "sweep.start=1",
                   "--set", "sweep.max_n=1"]
                  if cmd == "run" else []), timeout=60)
    assert r.returncode == 2, r.stdout
    line = one_line(r)
    assert 'key "server.args"' in line and args in line
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("args", [
    "-ORBendPoint giop:tcp:127.0.0.1:",
    "-ORBendPoint giop:tcp:127.1.2.3:0",
    "-ORBendPoint giop:tcp:localhost:",
    "-ORBendPoint giop:tcp:[::1]:",
    "-ORBendPoint giop:unix:/tmp/x.sock",
    "-ORBendPointPublish giop:tcp:127.0.0.1:1",
    "-ORBtraceLevel 0",
    "-ORBListenEndpoints iiop://127.0.0.1:0",
    "-ORBEndpoint iiop://1.2@[::1]:0,localhost/portspan=2",
    "-ORBListenEndpoints uiop:///tmp/x.sock;iiop://127.0.0.1:0",
    "-ORBIIOPAddr inet:127.0.0.1:0",
    "-ORBIIOPAddr unix:/tmp/x.sock",
    "-ORBThreadPerConnection -ORBConnLimit 1000",
])
def test_loopback_and_unix_endpoints_stay_allowed(args):
    r = run_cli("check", SCENARIOS / "sync-tcp.json", "--set",
                "server.args=" + json.dumps(args.split(" ")))
    assert r.returncode == 0, r.stderr


def listening_sockets():
    """{inode: address} of every listening socket: TCP (v4, v6) as
    (family, ip, port), Unix as ("unix", path)."""
    out = {}
    for name, fam in (("tcp", 4), ("tcp6", 6)):
        with open(f"/proc/net/{name}") as f:
            next(f)
            for line in f:
                w = line.split()
                if w[3] != "0A":  # LISTEN
                    continue
                ip, port = w[1].split(":")
                out[int(w[9])] = (fam, ip, int(port, 16))
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            w = line.split()
            if int(w[3], 16) & 0x10000:  # __SO_ACCEPTCON: listening
                out[int(w[6])] = ("unix", w[7] if len(w) > 7 else "")
    return out


def socket_inodes(pid):
    inodes = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.append(int(link[8:-1]))
    return inodes


def is_loopback(addr):
    fam = addr[0]
    if fam == "unix":
        return True
    ip = addr[1]
    if fam == 4:  # little-endian hex: the first octet is the last byte
        return int(ip, 16) & 0xFF == 127
    return ip == "00000000000000000000000001000000"  # ::1


@pytest.mark.parametrize("kind,transport", [
    ("omniorb", "tcp"), ("omniorb", "unix"), ("giop-min", "tcp"),
    ("giop-min", "unix"), ("raw", "tcp"), ("raw", "unix"), ("raw", "pipe"),
    ("combat", "tcp"), ("tao", "tcp"), ("tao", "unix"), ("orbit2", "tcp"),
    ("orbit2", "unix"), ("omniorbpy", "tcp"), ("omniorbpy", "unix"),
    ("mico", "tcp"), ("mico", "unix")])
def test_servers_listen_on_loopback_or_unix_only(tmp_path, kind, transport):
    out = tmp_path / "r.json"
    orb = []
    # builds only: the newest one, if any
    if kind in ("tao", "orbit2", "omniorbpy", "mico"):
        builds = sorted((BIN / "orbs").glob(f"{kind}-*/echo-server"))
        if not builds:
            pytest.skip(f"no {kind} build: scripts/build-orb {kind} "
                        "VERSION --source PATH, then make")
        orb = ["--set", f"server.orb={builds[-1].parent.name}"]
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), *orb,
         "--out", str(out), "--set", f"server.kind={kind}",
         "--set", f"transport={transport}", "--set", "sweep.start=2",
         "--set", "sweep.step=2", "--set", "sweep.max_n=200",
         "--set", "sweep.rounds=50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        doc = wait_for(lambda: out.exists() and json.loads(out.read_text()),
                       timeout=60)
        if not doc:
            proc.kill()
            _, err = proc.communicate(timeout=60)
            if "no ORB installation" in err or "run make" in err:
                pytest.skip(f"{kind} not built: {err.strip()}")
            raise AssertionError(f"no checkpoint: {err}")
        pids = [s["pid"] for s in doc["servers"]]
        assert pids
        listening = listening_sockets()
        seen = []
        for pid in pids:
            if not alive(pid):
                continue
            for ino in socket_inodes(pid):
                if ino in listening:
                    seen.append(listening[ino])
        assert all(is_loopback(a) for a in seen), seen
        if transport != "pipe":
            assert seen, "no listening socket found"
        if transport == "tcp":
            assert all(a[0] in (4, 6) for a in seen), seen
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate(timeout=60)
    assert_nothing_left(json.loads(out.read_text()))


def test_the_environment_cannot_move_a_server_off_loopback(tmp_path):
    """omniORB reads ORBendPoint (and a config file named by OMNIORB_CONFIG)
    from the environment: servers once listened on 0.0.0.0 so (the client
    then refused to call them). The spawner drops them, the client says
    so, and every server listens on loopback."""
    cfg = tmp_path / "omniORB.cfg"
    cfg.write_text("endPoint = giop:tcp:0.0.0.0:\n")
    env = dict(os.environ, ORBendPoint="giop:tcp:0.0.0.0:",
               OMNIORB_CONFIG=str(cfg), TAO_ORBENDPOINT="iiop://0.0.0.0:0",
               ORBIT_SOCKETDIR=str(tmp_path))
    out = tmp_path / "r.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json"),
         "--out", str(out), "--set", "sweep.start=2", "--set",
         "sweep.step=2", "--set", "sweep.max_n=200", "--set",
         "sweep.rounds=50"], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        doc = wait_for(lambda: out.exists() and json.loads(out.read_text()),
                       timeout=60)
        assert doc, "no checkpoint written"
        listening = listening_sockets()
        seen = [listening[ino] for s in doc["servers"] if alive(s["pid"])
                for ino in socket_inodes(s["pid"]) if ino in listening]
        assert seen, "no listening socket found"
        assert all(is_loopback(a) for a in seen), seen
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert ("not passed to the servers, which listen on loopback only: "
            in err), err
    assert "ORBendPoint" in err and "OMNIORB_CONFIG" in err
    assert "TAO_ORBENDPOINT" in err and "ORBIT_SOCKETDIR" in err
    assert_nothing_left(json.loads(out.read_text()))


# ---- bounded input --------------------------------------------------------

def sanitized():
    """Is the client under test built with ASan or TSan (make SANITIZE=)?"""
    data = Path(ORBBENCH).read_bytes()
    return b"libasan.so" in data or b"libtsan.so" in data


def limit_address_space(mb):
    """A preexec_fn that caps the address space at mb MiB. A sanitized
    client maps terabytes of shadow memory at start: the test skips."""
    import resource
    if sanitized():
        pytest.skip("an address-space limit leaves a sanitized client no "
                    "room for its shadow memory")

    def pre():
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return pre


def test_ior_stdin_reads_at_most_its_limit_per_line(tmp_path):
    """`orbbench ior -` on /dev/zero once read a whole line into memory
    (526 MB RSS) and, at an address-space limit, exited 0 silently."""
    with open("/dev/zero", "rb") as zero:
        r = subprocess.run([str(ORBBENCH), "ior", "-"], stdin=zero,
                           capture_output=True, text=True, timeout=60,
                           preexec_fn=limit_address_space(200))
    assert r.returncode == 2
    assert "line 1: longer than 1048576 bytes" in one_line(r)


def test_ior_stdin_a_long_line_is_one_message(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"IOR:" + b"0" * (2 << 20) + b"\nIOR:00\n")
    with open(big, "rb") as f:
        r = subprocess.run([str(ORBBENCH), "ior", "-"], stdin=f,
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "longer than" in one_line(r)


@pytest.mark.parametrize("what", ["fifo", "dir", "dev-zero", "link-to-zero"])
@pytest.mark.parametrize("cmd", ["run", "check"])
def test_a_scenario_must_be_a_regular_file(tmp_path, what, cmd):
    """A scenario that is a FIFO blocked forever; /dev/zero (or a link to
    it) was read without end."""
    p = tmp_path / "sc"
    if what == "fifo":
        os.mkfifo(p)
    elif what == "dir":
        p.mkdir()
    elif what == "dev-zero":
        p = "/dev/zero"
    else:
        p.symlink_to("/dev/zero")
    r = run_cli(cmd, p, timeout=10)
    assert r.returncode == 2
    line = one_line(r)
    assert ("not a regular file" in line or "Is a directory" in line), line


@pytest.mark.parametrize("what", ["fifo", "dir", "dev-zero"])
def test_an_ior_list_must_be_a_regular_file(tmp_path, what):
    p = tmp_path / "iors"
    if what == "fifo":
        os.mkfifo(p)
    elif what == "dir":
        p.mkdir()
    else:
        p = "/dev/zero"
    r = run_cli("run", SCENARIOS / "sync-tcp.json", "--out",
                tmp_path / "r.json", "--set", "server.kind=external",
                "--set", f"server.iors={p}", timeout=10)
    assert r.returncode == 2
    line = one_line(r)
    assert "server.iors" in line or str(p) in line
    assert "not a regular file" in line, line


def test_an_ior_list_of_a_million_lines_is_bounded(tmp_path):
    p = tmp_path / "iors"
    p.write_text("IOR:00\n" * 1_000_000)
    r = run_cli("run", SCENARIOS / "sync-tcp.json", "--out",
                tmp_path / "r.json", "--set", "server.kind=external",
                "--set", f"server.iors={p}", timeout=60,
                preexec_fn=limit_address_space(1024))
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("how", ["file", "set-words", "set-json"])
def test_a_server_args_word_over_the_limit_is_refused_not_cut(tmp_path,
                                                               how):
    """server.args words longer than 1,023 bytes were cut without a word."""
    word = "-ORBtraceFile=" + "x" * 2000
    sc = SCENARIOS / "sync-unix.json"
    sets = []
    if how == "file":
        sc = write_scenario(tmp_path / "s.json", server={"args": [word]})
    elif how == "set-words":
        sets = ["--set", f"server.args=-ORBtraceLevel {word}"]
    else:
        sets = ["--set", "server.args=" + json.dumps([word])]
    r = run_cli("check", sc, *sets)
    assert r.returncode == 2, r.stdout[:200]
    line = one_line(r)
    assert ('key "server.args"' in line or "--set server.args:" in line)
    assert "longer than 1023 bytes" in line


def test_string_keys_over_their_size_are_refused(tmp_path):
    r = run_cli("check", SCENARIOS / "sync-unix.json", "--set",
                "name=" + "n" * 100_000)
    assert r.returncode == 2
    assert "--set name: longer than" in one_line(r)
    r = run_cli("check", SCENARIOS / "sync-unix.json", "--set",
                "server.path=" + "/p" * 5000)
    assert r.returncode == 2
    assert "--set server.path: longer than" in one_line(r)
