"""The host side of scripts/run-fleet: what run-fleet runs on every host
through pdsh, in the host's own orbbench tree. Each answer is a line
"orbbench-fleet {JSON}" on standard output (scripts/orbbench.fleet.py); people
need not run it by hand.

usage: scripts/fleet-host preflight --host H --suite DIR [--only GLOB]...
       scripts/fleet-host build --host H --run ID --timeout S [--stop-on-eof]
       scripts/fleet-host run --host H --run ID --suite DIR --timeout S
                          [--stop-on-eof] [--set KEY=VALUE]... [--only GLOB]...
                          [--repeat R]
       scripts/fleet-host collect --host H --run ID
       scripts/fleet-host stop --host H --run ID

  preflight  what this tree is: its sources' fingerprint, its git revision,
             the revision bin/orbbench was built from, the scenario files'
             hashes
  build      make, bounded by --timeout
  run        scripts/run-suite DIR into results/fleet/ID/H/, bounded by
             --timeout; its output is forwarded line by line
  collect    results/fleet/ID/H/ and the logs as a tar.gz, in base64 lines
  stop       stop what build or run started for ID, if it still runs

build and run start their command in a process group of its own and stop
that group (SIGINT, as Ctrl-C would, then SIGKILL after 10 s) on SIGINT,
SIGTERM or SIGHUP, at the timeout, and with --stop-on-eof when standard
input closes or standard output breaks (run-fleet, or its connection to
this host, went away): nothing they start outlives them. Their command
also gets SIGTERM if fleet-host dies in any way (PR_SET_PDEATHSIG), and
fleet-host itself if its parent (pdsh, the remote shell) does.
Exit: the command's exit status (build, run); 0 (preflight, collect,
stop); 2 usage error."""
import argparse
import base64
import hashlib
import io
import json
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import orbbench.fleet as orbfleet
import orbbench.procs as orbprocs

ROOT = Path(__file__).resolve().parents[3]

PROG = "fleet-host"
STOP_GRACE_S = 10.0
# pdsh starts its commands with SIGINT (and SIGCHLD, SIGTSTP) blocked:
# unblocked here, so that this process and every child it starts can be
# stopped with SIGINT as from a terminal.
BLOCKED_BY_PDSH = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
                   signal.SIGCHLD, signal.SIGTSTP}


def die(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


def host_name(text):
    if not orbfleet.HOST_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"bad host name {text!r}")
    return text


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("action", choices=("preflight", "build", "run", "collect",
                                      "stop"))
    p.add_argument("--host", required=True, type=host_name,
                   help="the host's name in the fleet (pdsh's %%h)")
    p.add_argument("--run", metavar="ID", type=host_name,
                   help="the fleet run's id")
    p.add_argument("--suite", metavar="DIR", help="scenario folder")
    p.add_argument("--only", action="append", default=[], metavar="GLOB")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--timeout", type=float, metavar="S")
    p.add_argument("--stop-on-eof", action="store_true")
    a = p.parse_args(argv)
    if a.action != "preflight" and not a.run:
        die(f"{a.action}: --run ID is needed")
    if a.action in ("preflight", "run") and not a.suite:
        die(f"{a.action}: --suite DIR is needed")
    if a.action in ("build", "run") and not (a.timeout and a.timeout > 0):
        die(f"{a.action}: --timeout S (seconds, > 0) is needed")
    return a


class Output:
    """Protocol lines on standard output; after it broke, ok is False and
    nothing more is written."""

    def __init__(self):
        self.ok = True

    def send(self, line):
        if not self.ok:
            return False
        try:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except OSError:
            self.ok = False
            # Python would flush stdout again at exit and complain.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return self.ok

    def emit(self, event, **fields):
        return self.send(orbfleet.message(event, host=ARGS.host, **fields))


OUT = Output()
ARGS = None


def run_paths(a, what):
    """(folder of the run's files on this host, results folder, log file,
    PID file) for what ("run" or "build")."""
    base = ROOT / orbfleet.HOST_RESULTS / a.run
    return (base, base / a.host, base / f"{a.host}.{what}.log",
            base / f"{a.host}.{what}.pid.json")


# ---- preflight --------------------------------------------------------------

def git_describe():
    """The tree's revision as the Makefile records it in the client (git
    describe --always --dirty), or None when it is not a git checkout."""
    if not (ROOT / ".git").exists():
        return None
    try:
        r = subprocess.run(["git", "-C", str(ROOT), "describe", "--always",
                            "--dirty"], capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() or None if r.returncode == 0 else None


def built_revision():
    """(bin/orbbench --version's line, the revision in its brackets), or
    (None, None) when it is not built or does not run."""
    exe = ROOT / "bin" / "orbbench"
    if not os.access(exe, os.X_OK):
        return None, None
    try:
        r = subprocess.run([str(exe), "--version"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    line = r.stdout.strip()
    m = re.fullmatch(r"orbbench \S+ \((.+)\)", line)
    return (line, m.group(1)) if r.returncode == 0 and m else (line or None,
                                                               None)


def preflight(a):
    hashes = orbfleet.source_hashes(ROOT)
    version, revision = built_revision()
    suite = ROOT / a.suite
    OUT.emit("preflight", tree=str(ROOT), sources=orbfleet.fingerprint(hashes),
             source_files=hashes, describe=git_describe(),
             orbbench=version, revision=revision,
             scenarios=orbfleet.scenario_hashes(suite, a.only)
             if suite.is_dir() else None,
             hostname=socket.gethostname())
    return 0


# ---- build and run: a command under supervision ----------------------------

group_members = orbprocs.group_members


def end_group(pgid, grace_s=STOP_GRACE_S):
    """SIGINT to the group, SIGKILL to what is left after grace_s; return
    True when something was running."""
    if not group_members(pgid):
        return False
    for sig, wait_s in ((signal.SIGINT, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + wait_s
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not group_members(pgid):
            return True
    return True


class Stop:
    """Why a supervised command is being stopped (None: it is not)."""

    def __init__(self):
        self.why = None

    def request(self, why):
        self.why = self.why or why


def supervise(argv, log_path, pid_path, timeout_s, stop_on_eof, forward):
    """Run argv (in ROOT) in a process group of its own, its output
    appended to log_path and each line given to forward(line), which
    returns False once it can no longer pass lines on. Stop the group on a
    signal, at timeout_s, and with stop_on_eof when standard input closes
    or forward fails. Return (exit status, why it was stopped or None)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, BLOCKED_BY_PDSH)
    stop = Stop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: stop.request(
            f"stopped by {signal.Signals(s).name}"))
    env = dict(os.environ)
    # The host's own client, never the caller's (it may be set around
    # pdsh's exec module, which passes its environment on).
    env.pop("ORBBENCH_BIN", None)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        # A session of its own is a process group of its own too; the
        # command dies with this supervisor (orbprocs), which dies with
        # its own parent (pdsh, or the remote shell).
        orbprocs.die_with_parent()
        proc = orbprocs.start(argv, session=True, cwd=ROOT,
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env)
        pid_path.write_text(json.dumps({"pid": os.getpid(),
                                        "pgid": proc.pid, "argv": argv}))
        try:
            rc = watch(proc, log, timeout_s, stop_on_eof, forward, stop)
        finally:
            # Whatever happened here, nothing of the group stays.
            end_group(proc.pid, grace_s=0)
            proc.wait()
            orbprocs.forget(proc)
            pid_path.unlink(missing_ok=True)
    return rc, stop.why


def watch(proc, log, timeout_s, stop_on_eof, forward, stop):
    """supervise's loop: pass the output on until the command has ended
    and its output closed, stopping it when asked."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    if stop_on_eof:
        sel.register(sys.stdin.fileno(), selectors.EVENT_READ, "in")
    deadline = time.monotonic() + timeout_s
    pending, out_open = b"", True
    stopped_at, killed = None, False
    while out_open or proc.poll() is None:
        now = time.monotonic()
        if now > deadline:
            stop.request(f"timed out after {timeout_s:g} s")
        if stop.why and stopped_at is None:
            stopped_at = now
            signal_group(proc.pid, signal.SIGINT)
        if stopped_at is not None and not killed and \
                now - stopped_at > STOP_GRACE_S:
            killed = True
            signal_group(proc.pid, signal.SIGKILL)
        if not out_open:
            time.sleep(0.1)
            continue
        for key, _ in sel.select(0.5):
            if key.data == "in":
                if not os.read(key.fd, 4096):
                    sel.unregister(key.fd)
                    stop.request("run-fleet went away (the connection "
                                 "closed)")
                continue
            chunk = os.read(key.fd, 65536)
            if not chunk:
                out_open = False
                sel.unregister(key.fd)
                chunk = b"\n" if pending else b""
            log.write(chunk)
            log.flush()
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                text = line.decode(errors="replace").rstrip("\r")
                if not forward(text) and stop_on_eof:
                    stop.request("run-fleet went away (its output broke)")
    sel.close()
    return proc.wait()


def signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def last_line(log_path, skip=None):
    """The last non-empty line of a log not matching skip, else the last
    non-empty one, else None."""
    try:
        lines = [l.strip() for l in log_path.read_text(
            errors="replace").splitlines() if l.strip()]
    except OSError:
        return None
    kept = [l for l in lines if not (skip and re.match(skip, l))]
    return (kept or lines or [None])[-1]


# make's own lines ("make: *** [...] Error 1"): the line before says why.
MAKE_LINE = r"make(\[\d+\])?: "


def build(a):
    _, _, log, pid = run_paths(a, "build")
    t0 = time.monotonic()
    OUT.emit("started", what="build")
    # make's output stays in the log: its last line is the reason.
    rc, why = supervise(["make"], log, pid, a.timeout, a.stop_on_eof,
                        lambda line: True)
    version, revision = built_revision()
    reason = why or (None if rc == 0 else
                     f"make failed (exit {rc}): "
                     f"{last_line(log, skip=MAKE_LINE)}")
    OUT.emit("end", what="build", rc=rc, reason=reason, orbbench=version,
             revision=revision, seconds=round(time.monotonic() - t0, 3))
    return rc if rc else (1 if why else 0)


def suite_reason(out_dir, rc, log):
    """Why a suite that exited rc failed: its failed scenarios (from
    summary.json), else its last line."""
    try:
        rows = json.loads((out_dir / "summary.json").read_text())["rows"]
    except (OSError, ValueError, KeyError, TypeError):
        rows = None
    if rows:
        failed = [r for r in rows if "failed" in r]
        if failed:
            return (f"{len(failed)} of {len(rows)} scenario runs failed; "
                    f"{failed[0]['scenario']}: {failed[0]['failed']}")
    return f"run-suite exit {rc}: {last_line(log) or 'no output'}"


def run(a):
    _, out_dir, log, pid = run_paths(a, "run")
    if out_dir.exists():
        die(f"{out_dir}: exists already (a run id used twice?)")
    # By its own #! (/usr/bin/python3, Debian's, which has the suite's
    # scipy), not this interpreter: pdsh starts fleet-host with the
    # "python3" of the host's PATH, which may be another (a pyenv one).
    argv = [str(ROOT / "scripts" / "run-suite"), a.suite,
            "--out", str(out_dir), "--repeat", str(a.repeat)]
    for s in a.set:
        argv += ["--set", s]
    for g in a.only:
        argv += ["--only", g]
    t0 = time.monotonic()
    OUT.emit("started", what="run", out=str(out_dir))
    rc, why = supervise(argv, log, pid, a.timeout, a.stop_on_eof,
                        lambda line: OUT.emit("log", line=line))
    reason = why or (None if rc == 0 else suite_reason(out_dir, rc, log))
    OUT.emit("end", what="run", rc=rc, reason=reason,
             seconds=round(time.monotonic() - t0, 3))
    return rc if rc else (1 if why else 0)


# ---- after a run ------------------------------------------------------------

def collect(a):
    """The run's results folder and logs as one tar.gz (results as HOST/,
    logs as HOST/fleet-*.log), in base64 lines, then a message with its
    size and hash for run-fleet to check."""
    base, out_dir, _, _ = run_paths(a, "run")
    if not out_dir.is_dir():
        OUT.emit("error", reason=f"no results folder {out_dir}")
        return 0
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(out_dir, arcname=a.host)
        for what in ("build", "run"):
            log = base / f"{a.host}.{what}.log"
            if log.is_file():
                tar.add(log, arcname=f"{a.host}/fleet-{what}.log")
    data = buf.getvalue()
    text = base64.b64encode(data).decode()
    for i in range(0, len(text), 76):
        if not OUT.send(f"{orbfleet.DATA} {text[i:i + 76]}"):
            return 0
    OUT.emit("collected", bytes=len(data),
             sha256=hashlib.sha256(data).hexdigest())
    return 0


def stop(a):
    """Make sure nothing of this id's build or run still runs: wait for
    its supervisor to stop it (it was told, or sees its connection
    close), then end what is left of its process group; say what had to
    be ended."""
    killed = []
    for what in ("build", "run"):
        _, _, _, pid_path = run_paths(a, what)
        try:
            info = json.loads(pid_path.read_text())
            pgid, sup = int(info["pgid"]), int(info["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        # The supervisor ends its group, then itself: let it.
        deadline = time.monotonic() + STOP_GRACE_S + 5
        while supervising(sup) and time.monotonic() < deadline:
            time.sleep(0.1)
        if end_group(pgid):
            killed.append(what)
        if supervising(sup):
            os.kill(sup, signal.SIGTERM)
            killed.append(f"{what} supervisor")
    OUT.emit("stopped", killed=", ".join(killed) or None)
    return 0


def supervising(pid):
    """True while pid is a fleet-host (a supervisor still at work)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"fleet-host" in f.read()
    except OSError:
        return False


def main(argv):
    global ARGS
    ARGS = a = parse_args(argv)
    return {"preflight": preflight, "build": build, "run": run,
            "collect": collect, "stop": stop}[a.action](a)

