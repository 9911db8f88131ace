"""Start N omniORB echo servers on loopback endpoints for orbbench's
server.kind external, write one "IOR PID" line each, and say how to stop
them; or stop exactly the servers a file lists (--stop FILE).

usage: orbbench start-servers N [--transport tcp|unix] [--out FILE]
                              [--timeout S] [--server PATH]
       orbbench start-servers --stop FILE

The servers die with their parent (PR_SET_PDEATHSIG), so their parent is a
small keeper process in a session of its own that only waits for them and
ends when the last one has; the script itself returns once they are
ready. The keeper's PID is in a comment line of the list. SIGTERM, SIGHUP
or SIGINT to the keeper stops the servers and removes the socket folder
(exit 128+signal); its death in any other way (SIGKILL) too, by the
parent-death signal of the servers and of a watcher of the folder.

--stop FILE stops only what start-servers recorded in FILE: a listed PID
whose start time, process group or session differ from the record (the
PID was reused, or the list was edited), whose executable (/proc/PID/exe)
is not the server binary the list names, or whose command line is not
that binary's with one loopback -ORBendPoint, is left alone and named; the
socket folder is removed only if it is a folder orbbench-ext-* directly
in the system temp folder, of this user, holding only sockets.
Exit: 0 started (or stopped); 1 when a server did not start, or when
something listed was left alone; 2 usage error, or FILE is missing or is not
such a list.
"""
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.paths as orbpaths
import orbbench.procs as orbprocs
import orbbench.safeload as orbsafe

PROG = orbcli.prog("start-servers")


SERVER_NAME = "omniorb-echo-server"
EXAMPLES = [
    "orbbench start-servers 4 --out /tmp/iors.txt",
    "orbbench run scenarios/sync-tcp.json --set server.kind=external "
    "--set server.iors=/tmp/iors.txt",
    "orbbench start-servers --stop /tmp/iors.txt"]
SOCK_PREFIX = "orbbench-ext-"


def proc_ids(pid):
    """(start time, process group, session) of pid from /proc/PID/stat
    (fields 22, 5, 6), or None when it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19]), int(fields[2]), int(fields[3])


def start(n, transport, server, timeout_s):
    """Start n servers, all in one new process group (the first one's),
    each printing its IOR, each dying with this process (orbprocs);
    returns (the list's text, the group, their Popens, the socket folder
    or None). Each server is recorded by its start time, group and
    session, the socket folder by its real path: --stop checks them."""
    sock_dir = os.path.realpath(tempfile.mkdtemp(prefix=SOCK_PREFIX)) \
        if transport == "unix" else None
    lines = [f"# started by scripts/start-servers: {n} {SERVER_NAME} over "
             f"{transport}", f"# keeper {os.getpid()}",
             f"# server-path {os.path.realpath(server)}"]
    records = []
    pgid = None
    procs = []
    try:
        if sock_dir:
            lines.append(f"# socket-dir {sock_dir}")
            # removes the folder when the keeper dies, even by SIGKILL
            procs.append(orbprocs.remove_on_end(sock_dir))
        for i in range(n):
            ep = (f"giop:unix:{sock_dir}/s{i}.sock" if sock_dir
                  else "giop:tcp:127.0.0.1:")
            log = open(os.devnull, "wb")
            p = orbprocs.start([os.path.realpath(server), "-ORBendPoint",
                                ep],
                               group=pgid, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=log)
            log.close()
            pgid = pgid or p.pid
            procs.append(p)
            ready, _, _ = select.select([p.stdout], [], [], timeout_s)
            ior = p.stdout.readline().decode().strip() if ready else ""
            p.stdout.close()
            if not ior.startswith("IOR:"):
                raise RuntimeError(f"server {i} (pid {p.pid}) printed no "
                                   f"IOR within {timeout_s} s")
            ids = proc_ids(p.pid)
            if ids is None:
                raise RuntimeError(f"server {i} (pid {p.pid}) ended")
            lines.append(f"{ior} {p.pid}")
            records.append(f"# server {p.pid} start {ids[0]} group {ids[1]} "
                           f"session {ids[2]}")
    except BaseException:
        orbprocs.end_groups(procs, grace_s=0)
        if sock_dir:
            shutil.rmtree(sock_dir, ignore_errors=True)
        raise
    return "\n".join(lines + records) + "\n", pgid, procs, sock_dir


def keeper(n, transport, out, server, timeout_s, report):
    """In the forked keeper: start the servers, write the list, tell the
    script through `report` (the list for --out -, or an error), then
    reap the servers until none is left, and remove the socket folder.
    SIGTERM, SIGHUP or SIGINT ends the servers and the folder, then the
    keeper (exit 128+signal). Never returns."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    code, sock_dir = 0, []
    orbprocs.supervise(cleanups=[lambda: [shutil.rmtree(d, True)
                                          for d in sock_dir]])
    try:
        text, pgid, procs, folder = start(n, transport, server, timeout_s)
        sock_dir += [folder] if folder else []
        if out != "-":
            Path(out).write_text(text)
        msg = f"ok {pgid}\n" + (text if out == "-" else "")
    except (OSError, RuntimeError) as e:
        msg, code, procs = f"error {e}\n", 1, []
    os.write(report, msg.encode())
    os.close(report)
    servers = [p for p in procs if p.pgid == pgid] if code == 0 else []
    for p in servers:
        p.wait()
    orbprocs.end_groups(grace_s=1.0)  # the folder's watcher
    for d in sock_dir:
        shutil.rmtree(d, ignore_errors=True)
    os._exit(code)


class BadList(Exception):
    pass


def read_list(path):
    """(listed PIDs, {pid: (start, group, session)}, socket folder or
    None, server binary or None) of a list start-servers wrote; BadList
    says what is wrong."""
    try:     # a regular file only (a FIFO would hang --stop), bounded
        text = orbsafe.read_bytes(path, 16 << 20).decode("utf-8")
    except orbsafe.BadInput as e:
        raise BadList(str(e).split(": ", 1)[-1]) from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadList(e.strerror if isinstance(e, OSError) and e.strerror
                      else str(e)) from None
    pids, records, sock_dir, server = [], {}, None, None
    for no, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if line.startswith("# socket-dir "):
            sock_dir = line.split(" ", 2)[2]
        elif line.startswith("# server-path "):
            server = line.split(" ", 2)[2]
        elif line.startswith("# server "):
            if len(words) != 9 or words[3::2] != ["start", "group",
                                                  "session"] or \
                    not all(w.isdigit() for w in words[2::2]):
                raise BadList(f"line {no}: not a server record")
            records[int(words[2])] = tuple(int(w) for w in words[4::2])
        elif words and not line.startswith("#"):
            if len(words) != 2 or not words[0].startswith("IOR:") or \
                    not words[1].isdigit():
                raise BadList(f"line {no}: not 'IOR PID'")
            pids.append(int(words[1]))
    if not pids:
        raise BadList("no server listed")
    return pids, records, sock_dir, server


def alive(pid):
    return proc_ids(pid) is not None


def exe_and_cmdline(pid):
    """(/proc/PID/exe's target, [argv]) of pid, or (None, None)."""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")[:-1]
    except OSError:
        return None, None
    return exe, [a.decode("utf-8", "replace") for a in argv]


def not_the_server(pid, server, sock_dir):
    """Why pid is not the echo server start-servers started from server
    (its executable and its command line), or None when it is."""
    if not server:
        return "the list names no server binary (# server-path)"
    exe, argv = exe_and_cmdline(pid)
    if exe is None:
        return "its executable cannot be read (/proc/PID/exe)"
    if exe != server:
        return f"runs {exe!r}, not the listed server {server!r}"
    ep = argv[2] if len(argv) == 3 else ""
    loopback = ep.startswith("giop:tcp:127.0.0.1:") or (
        sock_dir is not None and ep.startswith(f"giop:unix:{sock_dir}/"))
    if argv[:2] != [server, "-ORBendPoint"] or not loopback:
        return (f"its command line {' '.join(argv)[:200]!r} is not the "
                "server's with one -ORBendPoint start-servers gives")
    return None


def check_pids(path, pids, records, server=None, sock_dir=None):
    """The listed PIDs that are the servers start-servers recorded (same
    start time, group and session, the listed server binary, its command
    line); every other live one named."""
    targets = []
    for pid in pids:
        now = proc_ids(pid)
        if now is None:
            continue
        rec = records.get(pid)
        if rec is None:
            why = "no record of it in the list"
        elif now[0] != rec[0]:
            why = f"started at {now[0]}, not {rec[0]} (another process)"
        elif now[1:] != rec[1:]:
            why = (f"in group {now[1]}, session {now[2]}, not the recorded "
                   f"{rec[1]}, {rec[2]}")
        elif (why := not_the_server(pid, server, sock_dir)):
            pass
        else:
            targets.append(pid)
            continue
        print(f"{PROG}: {path}: pid {pid} left alone: {why}",
              file=sys.stderr)
    return targets


def own_sock_dir(sock_dir):
    """Why the recorded socket folder is not one start-servers made and
    may not be removed, or None when it may be."""
    tmp = os.path.realpath(tempfile.gettempdir())
    real = os.path.realpath(sock_dir)
    if real != sock_dir:
        return f"resolves to {real}"
    if os.path.dirname(real) != tmp or \
            not os.path.basename(real).startswith(SOCK_PREFIX):
        return f"not a {SOCK_PREFIX}* folder directly in {tmp}"
    try:
        st = os.lstat(real)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            return "not a folder of this user"
        for e in os.scandir(real):
            if not stat.S_ISSOCK(e.stat(follow_symlinks=False).st_mode):
                return f"holds {e.name}, not a socket"
    except FileNotFoundError:
        return "gone"
    return None


def stop(path, grace_s=5.0):
    """SIGTERM the servers path lists that are the ones start-servers
    started (its records), SIGKILL any left after grace_s; remove the
    socket folder it recorded if it is one start-servers made. Returns
    (servers stopped, something was left alone)."""
    pids, records, sock_dir, server = read_list(path)
    targets = check_pids(path, pids, records, server, sock_dir)
    left_alone = len(targets) < sum(1 for p in pids if alive(p))
    for p in targets:
        os.kill(p, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(alive(p) for p in targets):
        time.sleep(0.05)
    for p in targets:
        if alive(p):
            os.kill(p, signal.SIGKILL)
    if sock_dir:
        why = own_sock_dir(sock_dir)
        if why is None:
            shutil.rmtree(sock_dir, ignore_errors=True)
        elif why != "gone":
            left_alone = True
            print(f"{PROG}: {path}: socket folder {sock_dir} left "
                  f"in place: {why}", file=sys.stderr)
    return len(targets), left_alone


def main(argv=None):
    ap = orbcli.parser("start-servers", __doc__, EXAMPLES)
    ap.add_argument("n", nargs="?", type=int, help="servers to start")
    ap.add_argument("--transport", choices=("tcp", "unix"), default="tcp")
    ap.add_argument("--out", default="-", help="IOR list (default stdout)")
    ap.add_argument("--server", default=str(orbpaths.servers() / SERVER_NAME))
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds for each server to print its IOR")
    ap.add_argument("--stop", metavar="FILE",
                    help="stop exactly the servers FILE lists")
    a = ap.parse_args(argv)
    if a.stop:
        try:
            n, left_alone = stop(a.stop)
        except BadList as e:
            print(f"{PROG}: {a.stop}: {e}", file=sys.stderr)
            return 2
        print(f"{PROG}: stopped {n} server(s)", file=sys.stderr)
        return 1 if left_alone else 0
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
        print(f"{PROG}: {head[6:] or 'the keeper failed'}",
              file=sys.stderr)
        return 1
    pgid = int(head.split()[1])
    sys.stdout.write(rest)
    where = a.out if a.out != "-" else "FILE (the lines above, saved)"
    print(f"{PROG}: {a.n} server(s) in process group {pgid}; stop "
          f"them with: {sys.argv[0]} --stop {where}", file=sys.stderr)
    return 0

