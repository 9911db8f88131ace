"""Children that die with their supervisor: what every Python supervisor
in scripts/ (run-suite, run-fleet, fleet-host, start-servers' keeper)
starts its commands with, and the signal handler that ends them.

start() runs a command in a process group of its own (or a session,
session=True) with PR_SET_PDEATHSIG set in the child, so that the child
gets a signal (SIGTERM) when the supervisor dies in any way, even by
SIGKILL. The kernel sends it when the *thread* that forked exits: start()
refuses to fork from any thread but the main one. The child's group is
remembered until forget() (or run(), which forgets it itself).

supervise() installs handlers for SIGTERM, SIGHUP and SIGINT (or the
signals given) that end every remembered group (SIGTERM, SIGKILL after a
grace), run the cleanups given, and exit with 128+signal; and an atexit
hook that ends the groups if the supervisor returns while one still
runs. forward() is a handler that only passes its signal on to the
groups (the suite's SIGINT: the client stops, writes its result, and the
suite goes on to its summary).

Standard library only: fleet-host runs it on every host, under their
own Python 3 (no process_group=, which is 3.11)."""
import atexit
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
# Loaded before any fork: the child only calls into it.
_LIBC = ctypes.CDLL(None, use_errno=True)
# {pid: Popen} of the children start() made and nobody forgot yet.
GROUPS = {}
GRACE_S = 10.0


def _prctl_pdeathsig(sig):
    return _LIBC.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)


def _child_setup(parent, session, group, pdeath):
    """The preexec_fn of start(): a group (or session) of its own, or
    group's, then the parent-death signal; if the parent died before
    prctl took effect, the signal is sent here at once."""
    def setup():
        if session:
            os.setsid()
        else:
            os.setpgid(0, group or 0)
        if _prctl_pdeathsig(pdeath) != 0 or os.getppid() != parent:
            os.kill(os.getpid(), pdeath)
    return setup


def die_with_parent(sig=signal.SIGTERM):
    """PR_SET_PDEATHSIG on this process itself: sig when its parent (the
    thread that forked it) ends; sent now if the parent is gone already
    (between reading it and the prctl)."""
    parent = os.getppid()
    if _prctl_pdeathsig(sig) != 0 or os.getppid() != parent:
        os.kill(os.getpid(), sig)


def start(argv, session=False, group=None, pdeath=signal.SIGTERM, **kw):
    """subprocess.Popen(argv, **kw) in a process group of its own (a
    session with session=True; or the existing group `group`, one an
    earlier start() made), its parent-death signal pdeath; remembered
    for end_groups() until forget(). The Popen's pgid is its group."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("procs.start: fork from the main thread (the "
                           "parent-death signal follows the forking thread)")
    if kw.get("preexec_fn") or kw.get("start_new_session") or \
            kw.get("process_group") is not None:
        raise ValueError("procs.start sets the child's group itself")
    p = subprocess.Popen(argv, preexec_fn=_child_setup(
        os.getpid(), session, None if session else group, pdeath), **kw)
    p.pgid = group if group and not session else p.pid
    GROUPS[p.pid] = p
    return p


def forget(proc):
    GROUPS.pop(proc.pid, None)


def run(argv, timeout=None, input=None, capture_output=False, check=False,
        started=None, **kw):
    """subprocess.run through start(): the same result; on a timeout or
    any exception the child's group is ended before it is raised on.
    started(proc), when given, is called once the child runs (before
    its output is awaited): orbbench suite starts its progress reader there."""
    if capture_output:
        kw.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if input is not None:
        kw["stdin"] = subprocess.PIPE
    p = start(argv, **kw)
    try:
        if started:
            started(p)
        out, err = p.communicate(input, timeout=timeout)
    except BaseException:
        end_group(p, grace_s=0)
        raise
    finally:
        forget(p)
    r = subprocess.CompletedProcess(argv, p.returncode, out, err)
    if check:
        r.check_returncode()
    return r


def group_members(pgid):
    """PIDs of the live processes (zombies left out) in group pgid."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(d))
    return out


def killpg(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def end_group(proc, grace_s=GRACE_S):
    end_groups([proc], grace_s)


def end_groups(procs=None, grace_s=GRACE_S):
    """SIGTERM the group of each of procs (default every remembered
    child), SIGKILL the groups still there after grace_s, and reap."""
    procs = list(GROUPS.values()) if procs is None else list(procs)
    groups = {p.pgid for p in procs}
    for g in groups:
        killpg(g, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while True:
        left = [g for g in groups if group_members(g)]
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    for g in left:
        killpg(g, signal.SIGKILL)
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        forget(p)


def forward(signum, _frame=None):
    """A signal handler: pass signum on to every remembered group."""
    for pgid in {p.pgid for p in list(GROUPS.values())}:
        killpg(pgid, signum)


def supervise(signals=(signal.SIGTERM, signal.SIGHUP, signal.SIGINT),
              cleanups=(), grace_s=GRACE_S):
    """On each of signals: end every remembered group, run cleanups (in
    order; their errors are ignored), exit 128+signal. At exit: end any
    group still remembered."""
    def handler(signum, _frame):
        for s in signals:
            signal.signal(s, signal.SIG_IGN)  # a second one waits its turn
        end_groups(grace_s=grace_s)
        for fn in cleanups:
            try:
                fn()
            except Exception:  # noqa: BLE001 (exiting anyway)
                pass
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except (OSError, ValueError):
                pass
        os._exit(128 + signum)
    for s in signals:
        signal.signal(s, handler)
    atexit.register(lambda: end_groups(grace_s=grace_s))


# The watcher of remove_on_end(): removes argv[1] on SIGTERM, SIGHUP or
# SIGINT (its parent-death signal among them), or at once if its parent
# (argv[2]) is gone already, and ends.
_WATCHER = """import os, shutil, signal, sys, time
def end(*_):
    for _ in range(40):  # a dying server may still unlink its socket
        shutil.rmtree(sys.argv[1], ignore_errors=True)
        if not os.path.lexists(sys.argv[1]):
            break
        time.sleep(0.05)
    os._exit(0)
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, end)
if os.getppid() != int(sys.argv[2]):
    end()
while True:
    signal.pause()
"""


def remove_on_end(path):
    """Start a small watcher child that removes the folder path when this
    process dies in any way (even by SIGKILL: its parent-death signal) or
    when end_groups() ends it; returns its Popen."""
    return start([sys.executable, "-c", _WATCHER, str(path),
                  str(os.getpid())], stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
