"""Start N omniORB echo servers on loopback endpoints for orbbench's
server.kind external, write one "IOR PID" line each, and say how to stop
them; or stop exactly the servers a file lists (--stop FILE).

  scripts/start-servers 4 --out /tmp/iors.txt
  bin/orbbench run scenarios/x.json --set server.kind=external \\
      --set server.iors=/tmp/iors.txt
  scripts/start-servers --stop /tmp/iors.txt

The servers die with their parent (PR_SET_PDEATHSIG), so their parent is a
small keeper process in a session of its own that only waits for them and
ends when the last one has; the script itself returns once they are
ready. The keeper's PID is in a comment line of the list.
"""
import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SERVER_NAME = "omniorb-echo-server"


def start(n, transport, server, timeout_s):
    """Start n servers, all in one new process group (the first one's),
    each printing its IOR; returns (the list's text, the group)."""
    sock_dir = tempfile.mkdtemp(prefix="orbbench-ext-") \
        if transport == "unix" else None
    lines = [f"# started by scripts/start-servers: {n} {SERVER_NAME} over "
             f"{transport}", f"# keeper {os.getpid()}"]
    if sock_dir:
        lines.append(f"# socket-dir {sock_dir}")
    pgid = 0
    procs = []
    try:
        for i in range(n):
            ep = (f"giop:unix:{sock_dir}/s{i}.sock" if sock_dir
                  else "giop:tcp:127.0.0.1:")
            log = open(os.devnull, "wb")
            p = subprocess.Popen([str(server), "-ORBendPoint", ep],
                                 stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=log,
                                 process_group=pgid)
            log.close()
            pgid = pgid or p.pid
            procs.append(p)
            ready, _, _ = select.select([p.stdout], [], [], timeout_s)
            ior = p.stdout.readline().decode().strip() if ready else ""
            p.stdout.close()
            if not ior.startswith("IOR:"):
                raise RuntimeError(f"server {i} (pid {p.pid}) printed no "
                                   f"IOR within {timeout_s} s")
            lines.append(f"{ior} {p.pid}")
    except BaseException:
        for p in procs:
            p.kill()
            p.wait()
        if sock_dir:
            shutil.rmtree(sock_dir, ignore_errors=True)
        raise
    return "\n".join(lines) + "\n", pgid


def keeper(n, transport, out, server, timeout_s, report):
    """In the forked keeper: start the servers, write the list, tell the
    script through `report` (the list for --out -, or an error), then
    reap the servers until none is left. Never returns."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    code = 0
    try:
        text, pgid = start(n, transport, server, timeout_s)
        if out != "-":
            Path(out).write_text(text)
        msg = f"ok {pgid}\n" + (text if out == "-" else "")
    except (OSError, RuntimeError) as e:
        msg, code = f"error {e}\n", 1
    os.write(report, msg.encode())
    os.close(report)
    while code == 0:
        try:
            os.wait()
        except ChildProcessError:
            break
    os._exit(code)


def ours(pid):
    """True when pid runs the echo server (not a reused pid)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False
    return os.path.basename(cmd.decode(errors="replace")) == SERVER_NAME


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop(path, grace_s=5.0):
    """SIGTERM the servers path lists (those still running the echo
    server), SIGKILL any left after grace_s; remove the socket folder."""
    pids, sock_dir = [], None
    for line in Path(path).read_text().splitlines():
        if line.startswith("# socket-dir "):
            sock_dir = line.split(" ", 2)[2]
        words = line.split("#", 1)[0].split()
        if len(words) == 2:
            pids.append(int(words[1]))
    targets = [p for p in pids if ours(p)]
    for p in targets:
        os.kill(p, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(alive(p) for p in targets):
        time.sleep(0.05)
    for p in targets:
        if alive(p):
            os.kill(p, signal.SIGKILL)
    if sock_dir and sock_dir.startswith(tempfile.gettempdir()):
        shutil.rmtree(sock_dir, ignore_errors=True)
    return len(targets)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, help="servers to start")
    ap.add_argument("--transport", choices=("tcp", "unix"), default="tcp")
    ap.add_argument("--out", default="-", help="IOR list (default stdout)")
    ap.add_argument("--server", default=str(ROOT / "bin" / SERVER_NAME))
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds for each server to print its IOR")
    ap.add_argument("--stop", metavar="FILE",
                    help="stop exactly the servers FILE lists")
    a = ap.parse_args(argv)
    if a.stop:
        print(f"start-servers: stopped {stop(a.stop)} server(s)",
              file=sys.stderr)
        return 0
    if not a.n or a.n < 1 or a.n > 10000:
        ap.error("give N, 1..10000")
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        keeper(a.n, a.transport, a.out, a.server, a.timeout, w)
    os.close(w)
    with os.fdopen(r) as f:
        head, _, rest = f.read().partition("\n")
    if not head.startswith("ok "):
        print(f"start-servers: {head[6:] or 'the keeper failed'}",
              file=sys.stderr)
        return 1
    pgid = int(head.split()[1])
    sys.stdout.write(rest)
    where = a.out if a.out != "-" else "FILE (the lines above, saved)"
    print(f"start-servers: {a.n} server(s) in process group {pgid}; stop "
          f"them with: {sys.argv[0]} --stop {where}", file=sys.stderr)
    return 0

