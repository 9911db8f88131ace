"""Issue 32, the client's side: nothing a server writes loses a result or
reaches the terminal raw. A server's stderr (its declared-limit reason,
its last line before dying) and its --version line may hold invalid
UTF-8 and escape sequences: the result file keeps its "result" and its
"orb", with the text escaped (\\xff, \\x1b); a declaration counts only at
the start of a line; an IOR's Unix path that is relative or empty is
refused, and one holding ESC is shown escaped."""
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ORBBENCH, SCENARIOS
from test_ior import Cdr
from test_safety import sanitized

FANIN = SCENARIOS / "fanin"
SMALL = ("fanin.start=4", "fanin.growth=1", "fanin.step=8",
         "fanin.max_n=24", "fanin.rounds=2")
REAL = os.path.join(os.path.dirname(str(ORBBENCH)), "giop-min-server")


def wrapper(tmp_path, stderr=b"", version=None, die=False):
    """giop-min behind a shell script that first writes the bytes stderr
    on its stderr (printf with octal escapes), answers --version with the
    bytes version when given, or dies at once after its stderr."""
    def octal(b):
        return "".join(f"\\{c:03o}" for c in b)
    lines = ["#!/bin/sh"]
    if version is not None:
        lines.append(f'if [ "$1" = --version ]; then printf \'{octal(version)}'
                     "'; exit 0; fi")
    lines.append(f"printf '{octal(stderr)}' >&2")
    lines.append("exit 3" if die else f'exec {REAL} "$@"')
    path = tmp_path / "hostile-server"
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o755)
    return f"server.path={path}"


def no_raw_escapes(r):
    for text in (r.stdout, r.stderr):
        assert "\x1b" not in text and "\x07" not in text


def test_invalid_utf8_and_escapes_in_a_declared_reason(orbbench, tmp_path):
    r = orbbench(FANIN / "07-giopmin-unix.json", *SMALL,
                 wrapper(tmp_path, b"orbbench-limit descriptors 12: bad "
                         b"\xff\xfe\x1b]0;pwned\x07\x1b[2J end\n"))
    assert r.doc is not None and "result" in r.doc and "orb" in r.doc, \
        r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "resource", res
    assert "bad \\xff\\xfe\\x1b]0;pwned\\x07\\x1b[2J end" in res["detail"]
    assert r.doc["declared_limits"][0]["why"] == \
        "bad \\xff\\xfe\\x1b]0;pwned\\x07\\x1b[2J end"
    no_raw_escapes(r)


def test_a_declaration_counts_only_at_the_start_of_a_line(orbbench,
                                                          tmp_path):
    """The declaration begins at byte 511 of a longer line: the client
    reads the log in 512-byte pieces, and the piece that starts there is
    no line's start. Before: taken, a `resource` stop at 12."""
    r = orbbench(FANIN / "07-giopmin-unix.json", *SMALL,
                 wrapper(tmp_path, b"x" * 511 + b"orbbench-limit descriptors"
                         b" 12: mid-line\n"))
    assert r.rc == 0, r.stderr
    assert "declared_limits" not in r.doc or not r.doc["declared_limits"]
    assert r.doc["result"]["stop_reason"] != "resource", r.doc["result"]


def test_invalid_utf8_in_the_version_line_keeps_orb(orbbench, tmp_path):
    r = orbbench(FANIN / "07-giopmin-unix.json", *SMALL,
                 wrapper(tmp_path, version=b"giop\xffmin 1.\x1b[31m0\n"
                         b"built \xc3\x28 here\n"))
    assert r.doc is not None and "orb" in r.doc and "result" in r.doc, \
        r.stderr
    assert r.doc["orb"]["name"] == "giop\\xffmin"
    assert r.doc["orb"]["version"] == "1.\\x1b[31m0"
    assert r.doc["orb"]["build"] == "built \\xc3( here"
    no_raw_escapes(r)


def test_a_dying_servers_last_line_is_recorded_escaped(orbbench, tmp_path):
    r = orbbench(FANIN / "07-giopmin-unix.json", *SMALL,
                 wrapper(tmp_path, b"boom \xff\x1b[2J\n", die=True))
    assert r.rc == 1, r.stderr
    assert r.doc is not None and "result" in r.doc and "orb" in r.doc
    assert "boom \\xff\\x1b[2J" in r.doc["result"]["detail"], \
        r.doc["result"]
    no_raw_escapes(r)


def uiop_ior(path):
    body = Cdr(True).octet(1).octet(2).octets(path + b"\0").octets(b"key")
    body.ulong(0)
    ior = Cdr(True).string("IDL:Bench/Echo:1.0").ulong(1)
    ior.ulong(0x54414f00).octets(bytes(body.b))
    return "IOR:" + ior.b.hex()


def ior_cmd(*args):
    return subprocess.run([str(ORBBENCH), "ior", *args], capture_output=True,
                          text=True, timeout=30)


def test_relative_and_empty_uiop_paths_are_refused(tmp_path):
    good = ior_cmd(uiop_ior(b"/tmp/orbbench-x/s0.sock"))
    assert "connect unix: /tmp/orbbench-x/s0.sock" in good.stdout, \
        good.stdout + good.stderr
    for path in (b"rel.sock", b"", b"../x.sock"):
        r = ior_cmd(uiop_ior(path))
        assert "connect unix: cannot: bad IOR: a Unix socket path" in \
            r.stdout and "not absolute" in r.stdout, r.stdout + r.stderr
        # and as a server list: exit 2, one line naming it
        lst = tmp_path / "iors.txt"
        lst.write_text(uiop_ior(path) + "\n")
        run = subprocess.run(
            [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"),
             "--set", "server.kind=external", "--set",
             f"server.iors={lst}", "--out", str(tmp_path / "r.json")],
            capture_output=True, text=True, timeout=60)
        assert run.returncode == 2, run.stderr
        lines = [l for l in run.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and "not absolute" in lines[0], run.stderr


def test_an_escape_in_a_uiop_path_is_shown_escaped():
    r = ior_cmd(uiop_ior(b"/tmp/\x1b]0;pwned\x07.sock"))
    assert "connect unix: /tmp/\\x1b]0;pwned\\x07.sock" in r.stdout, \
        r.stdout
    doc = json.loads(ior_cmd("--json", uiop_ior(b"/tmp/\x1b.sock")).stdout)
    assert doc is not None


# ---- a server that daemonizes ------------------------------------------------

def test_a_daemonizing_server_is_ended_with_its_cgroup(orbbench, tmp_path):
    """A server that forks a daemon (setsid, double fork: no parent-death
    signal reaches it) leaves it in the run's cgroup; the client kills
    what is left there, so the daemon is gone and the cgroup removed.
    Before: the daemon outlived the client, the cgroup stayed (EBUSY)."""
    pidfile = tmp_path / "daemon.pid"
    path = tmp_path / "daemonizing-server"
    path.write_text("#!/bin/sh\n"
                    'if [ "$1" = --version ]; then exec ' + REAL +
                    ' --version; fi\n'
                    f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' "
                    "</dev/null >/dev/null 2>&1 &\n"
                    f'exec {REAL} "$@"\n')
    path.chmod(0o755)
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=1",
                 "sweep.step=1", "sweep.max_n=1", "sweep.rounds=2",
                 "machine.mem_limit_mb=512", f"server.path={path}")
    assert r.doc is not None, r.stderr
    cgroup = r.doc["machine"].get("cgroup")
    assert cgroup, r.doc["machine"]
    acct = r.doc["machine"].get("cpu_accounting_cgroup")
    daemon = int(pidfile.read_text())
    gone = False
    for _ in range(50):
        try:
            with open(f"/proc/{daemon}/stat") as f:
                gone = f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except FileNotFoundError:
            gone = True
        if gone:
            break
        time.sleep(0.1)
    if not gone:
        os.kill(daemon, 9)
    assert gone, "the daemon outlived the client"
    left = [c for c in (cgroup, acct) if c and os.path.exists(c)]
    for c in left:                   # the daemon is gone now: tidy up
        os.rmdir(c)
    assert not left, left


# ---- without /proc -------------------------------------------------------------

def no_proc(cwd, argv):
    """argv run in a mount namespace of its own whose /proc is an empty
    tmpfs: /proc/self/exe cannot be read."""
    script = ("mount -t tmpfs none /proc && cd \"$1\" && shift && "
              "exec \"$@\"")
    return subprocess.run(["unshare", "--mount", "--propagation", "private",
                           "sh", "-c", script, "sh", str(cwd), *argv],
                          capture_output=True, text=True, timeout=60)


def test_without_proc_it_never_runs_from_the_working_folder(tmp_path):
    """No /proc: executed by a bare name (no path) from a folder holding
    a planted omniorb-echo-server, the client refuses with one line;
    before, it took the working folder for its own and ran the plant.
    Executed by a path (./orbbench, a link), it finds itself through it."""
    if os.geteuid() != 0:
        pytest.skip("needs root for a mount namespace")
    if sanitized():
        # ASan's and LSan's own start-up reads /proc/self/maps: a
        # sanitized client ends in the sanitizer (exit 1) before main.
        pytest.skip("a sanitized client cannot run without /proc")
    marker = tmp_path / "planted-ran"
    plant = tmp_path / "omniorb-echo-server"
    plant.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    plant.chmod(0o755)
    (tmp_path / "orbbench").symlink_to(ORBBENCH)
    bare = [sys.executable, "-c", "import os, sys; os.execv('orbbench', "
            "['orbbench'] + sys.argv[1:])", "run",
            str(SCENARIOS / "sync-unix.json"), "--out", str(tmp_path / "r")]
    r = no_proc(tmp_path, bare)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "cannot tell where this executable is" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert not marker.exists(), "the planted server ran"
    ok = no_proc(tmp_path, ["./orbbench", "compare", "--help"])
    assert ok.returncode == 0, ok.stderr
    assert "usage: orbbench compare" in ok.stdout
