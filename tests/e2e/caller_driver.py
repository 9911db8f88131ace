"""A small harness side of the caller protocol (docs/callers.md), for
tests and for trying a caller by hand before orbbench drives one: start
echo servers of a kind (an ORB build's echo-server, giop-min), start a
caller, speak target/drop/round/quit and check every answer's form.

By hand, e.g. 4 ORBit2 servers over Unix, 3 rounds in mode async:

    python3 tests/e2e/caller_driver.py bin/orbs/orbit2-2.14.19/caller \\
        --servers orbit2 --transport unix -n 4 --rounds 3 --mode async

Every process it starts is ended when the driver is done (and dies with
it: the servers and callers set PR_SET_PDEATHSIG themselves)."""
import argparse
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("ORBBENCH_BIN", ROOT / "bin"))
MAX_LINE = 65536
TIMES_PER_LINE = 1024   # pairs in a `times` line at most

# The words that tell each server kind its loopback endpoint, as
# client/host/server_kind.c has them ({dir}: a private folder, {index}:
# the server's number).
ENDPOINTS = {
    "tao": {"tcp": ["-ORBDottedDecimalAddresses", "1",
                    "-ORBListenEndpoints", "iiop://127.0.0.1:0"],
            "unix": ["-ORBListenEndpoints", "uiop://{dir}/s{index}.sock"]},
    "orbit2": {"tcp": ["--socket-dir", "{dir}", "-ORBIIOPIPv4=1",
                       "-ORBIIOPUSock=0", "-ORBIIOPIPName=127.0.0.1"],
               "unix": ["--socket-dir", "{dir}", "-ORBIIOPIPv4=0",
                        "-ORBIIOPUSock=1",
                        "-ORBIIOPIPSock={dir}/s{index}.sock"]},
    "giop-min": {"tcp": ["--endpoint", "tcp:127.0.0.1:0"],
                 "unix": ["--endpoint", "unix:{dir}/s{index}.sock"]},
    # tests/fake_giop_server.py: a server that misbehaves as told
    # (extra words: --behave SPEC)
    "fake": {"tcp": ["-ORBendPoint", "giop:tcp:127.0.0.1:"],
             "unix": ["-ORBendPoint", "giop:unix:{dir}/s{index}.sock"]},
}


class ProtocolError(AssertionError):
    """The caller broke the protocol (or did not answer in time)."""


def server_binary(kind, orb=None):
    """The echo server of kind (tao, orbit2: the build `orb`, e.g.
    orbit2-2.14.19; giop-min, fake: none)."""
    if kind == "giop-min":
        return BIN / "giop-min-server"
    if kind == "fake":
        return ROOT / "tests" / "fake_giop_server.py"
    return BIN / "orbs" / orb / "echo-server"


class Servers:
    """n echo servers of one kind on loopback (tcp) or in a private folder
    (unix), `extra` words after the endpoint's; .iors in order. close()
    ends them."""

    def __init__(self, kind, n, transport="tcp", orb=None, timeout_s=20,
                 extra=()):
        self.kind, self.procs, self.iors = kind, [], []
        self.dir = tempfile.mkdtemp(prefix="orbbench-callers-")
        os.chmod(self.dir, 0o700)
        binary = server_binary(kind, orb)
        try:
            for i in range(n):
                words = [w.format(dir=self.dir, index=i)
                         for w in ENDPOINTS[kind][transport]]
                p = subprocess.Popen([str(binary), *words, *extra],
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
                self.procs.append(p)
                ready, _, _ = select.select([p.stdout], [], [], timeout_s)
                line = p.stdout.readline().decode() if ready else ""
                p.stdout.close()
                if not line.startswith("IOR:"):
                    raise RuntimeError(f"{binary} {i} printed no IOR within "
                                       f"{timeout_s} s")
                self.iors.append(line.strip())
        except BaseException:
            self.close()
            raise

    def kill(self, i, sig=signal.SIGKILL):
        """Signal server i (SIGKILL: and reap it)."""
        self.procs[i].send_signal(sig)
        if sig == signal.SIGKILL:
            self.procs[i].wait(timeout=10)

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
            p.wait(timeout=10)
        for f in Path(self.dir).iterdir():
            f.unlink()
        os.rmdir(self.dir)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Round:
    """A round's answer: times [(service ns, completion ns)] of the
    completed calls (None unless recorded), fails [(index, word,
    message)], calls, failed, round_ns."""

    def __init__(self, times, fails, calls, failed, round_ns):
        self.times, self.fails = times, fails
        self.calls, self.failed, self.round_ns = calls, failed, round_ns


class Caller:
    """A caller speaking the protocol on its stdin and stdout; every answer
    is checked for its form (ProtocolError otherwise)."""

    def __init__(self, path, mode=None, payload_bytes=None, timeout_ms=None,
                 orb_args=(), ready_s=30):
        args = [str(path)]
        if mode:
            args += ["--mode", mode]
        if payload_bytes is not None:
            args += ["--payload-bytes", str(payload_bytes)]
        if timeout_ms is not None:
            args += ["--timeout-ms", str(timeout_ms)]
        if orb_args:
            args += ["--", *orb_args]
        self.timeout_ms = timeout_ms or 5000
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=self.stderr)
        self.buf = b""
        self.held = 0
        line = self.line(ready_s)
        words = line.split()
        if len(words) != 3 or words[0] != "ready" or \
                words[1] != str(self.proc.pid):
            raise ProtocolError(f"not a ready line: {line!r}")
        self.mode = words[2]

    def last_stderr(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace").strip()

    def line(self, timeout_s):
        """The next line of stdout within timeout_s."""
        deadline = time.monotonic() + timeout_s
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            if len(self.buf) > MAX_LINE:
                raise ProtocolError("a line over 64 KiB")
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                raise ProtocolError(f"no answer within {timeout_s} s "
                                    f"(stderr: {self.last_stderr()!r})")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise ProtocolError(f"the caller ended (stderr: "
                                    f"{self.last_stderr()!r})")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        if len(line) > MAX_LINE:
            raise ProtocolError("a line over 64 KiB")
        return line.decode("ascii")

    def send(self, text):
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def target(self, ior, timeout_s=30):
        """Add a target: its count K, or raise ValueError(the caller's
        error message)."""
        self.send(f"target {ior}")
        line = self.line(timeout_s)
        if line.startswith("error "):
            raise ValueError(line[6:])
        if line != f"ok {self.held + 1}":
            raise ProtocolError(f"target: {line!r}, want 'ok "
                                f"{self.held + 1}'")
        self.held += 1
        return self.held

    def drop(self, keep, timeout_s=30):
        self.send(f"drop {keep}")
        line = self.line(timeout_s)
        if line != f"ok {keep}":
            raise ProtocolError(f"drop: {line!r}, want 'ok {keep}'")
        self.held = keep

    def round(self, seq, n, record=False, bound_s=None):
        """One round over targets 0..n-1: a Round, its form checked.
        bound_s: the round's bound (default: orbbench's, n x timeout for
        sync, the timeout otherwise, plus the timeout and 2 s)."""
        if bound_s is None:
            t = self.timeout_ms / 1000
            bound_s = (n * t if self.mode == "sync" else t) + t + 2
        self.send(f"round {seq} {n} {1 if record else 0}")
        times, fails, lines = [], [], 0
        while True:
            line = self.line(bound_s)
            words = line.split(" ")
            if words[0] == "times" and record and not fails and \
                    words[1] == str(seq) and len(times) % TIMES_PER_LINE == 0:
                nums = [int(w) for w in words[2:]]
                if not nums or len(nums) % 2 or \
                        len(nums) > 2 * TIMES_PER_LINE:
                    raise ProtocolError(f"times: {len(nums)} numbers")
                times += list(zip(nums[::2], nums[1::2]))
                lines += 1
            elif words[0] == "fail" and len(words) >= 4 and \
                    words[1] == str(seq):
                fails.append((int(words[2]), words[3],
                              " ".join(words[4:])))
            elif words[0] == "done" and len(words) == 5 and \
                    words[1] == str(seq):
                calls, failed, round_ns = map(int, words[2:])
                break
            else:
                raise ProtocolError(f"round {seq}: unexpected {line!r}")
        if record and lines != -(-calls // TIMES_PER_LINE):
            raise ProtocolError(f"round {seq}: {lines} times lines for "
                                f"{calls} calls")
        if calls + failed != n:
            raise ProtocolError(f"round {seq}: {calls} + {failed} != {n}")
        if len(fails) != min(failed, 16):
            raise ProtocolError(f"round {seq}: {len(fails)} fail lines for "
                                f"{failed} failed calls")
        if record and len(times) != calls:
            raise ProtocolError(f"round {seq}: {len(times)} times for "
                                f"{calls} calls")
        return Round(times if record else None, fails, calls, failed,
                     round_ns)

    def quit(self, timeout_s=30):
        """Say quit; the exit code."""
        self.send("quit")
        self.proc.stdin.close()
        return self.proc.wait(timeout=timeout_s)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except (BrokenPipeError, OSError):
                pass
        self.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("caller")
    ap.add_argument("--servers", choices=sorted(ENDPOINTS), required=True)
    ap.add_argument("--orb", help="the server's build (default: the "
                    "caller's folder, e.g. orbit2-2.14.19)")
    ap.add_argument("--transport", choices=["tcp", "unix"], default="tcp")
    ap.add_argument("-n", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mode")
    ap.add_argument("--timeout-ms", type=int)
    ap.add_argument("orb_args", nargs="*", help="after --: ORB options")
    a = ap.parse_args(argv)
    orb = a.orb or Path(a.caller).resolve().parent.name
    with Servers(a.servers, a.n, a.transport, orb) as servers, \
            Caller(a.caller, a.mode, timeout_ms=a.timeout_ms,
                   orb_args=a.orb_args) as caller:
        print(f"ready: pid {caller.proc.pid}, mode {caller.mode}")
        for ior in servers.iors:
            caller.target(ior)
        for seq in range(1, a.rounds + 1):
            r = caller.round(seq, a.n, record=True)
            print(f"round {seq}: {r.calls} calls, {r.failed} failed, "
                  f"{r.round_ns / 1e6:.3f} ms" +
                  "".join(f"\n  fail {i} {w} {m}" for i, w, m in r.fails))
        rc = caller.quit()
        print(f"quit: exit {rc}")
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
