#!/usr/bin/python3 -Es
"""omniORBpy's own Python client as a caller (docs/callers.md): each
round's calls made by omniORBpy on orbbench's command, so that the client
half of omniORBpy is measured the way its servers are.

  caller [--mode MODE] [--payload-bytes B] [--timeout-ms T] [-- ORB-ARGS...]

Modes (--modes lists them, the default first):
  sync          static stubs, one echoString after another
  ami-poller    AMI (omniidl -bpython -Wbami): sendp_echoString to every
                target, then each poller's echoString(T)
  ami-callback  AMI: sendc_echoString with a reply handler per target (a
                Python object, called by omniORB on the thread that
                completed the call); the round ends when every handler has
                been called
omniORBpy has no DII ("There is no support for DII and DSI", its release
notes): no deferred mode. Its AMI calls run on omniORB's async invoker,
one invoker thread per outstanding call (-ORBmaxClientThreadPoolSize,
100 by default), each taking Python's global interpreter lock to deliver
its reply. ORB-ARGS go to ORB_init unchanged; T is omniORB's client call
timeout (omniORB.setClientCallTimeout). The commands come on stdin, the
answers go to stdout, one line each; errors to stderr.

make installs this file as bin/orbs/omniorbpy-VERSION/caller with the
three names below filled in, as the echo server; Python runs with -E -s,
as the server's does (docs/servers.md#omniorbpy)."""
import ctypes
import os
import signal
import sys
import threading
import time

# Filled in by make (the Makefile's omniORBpy caller rule): this build's
# omniORBpy modules, the stubs with AMI its omniidl back end made of
# idl/echo.idl, and the build's identity (orbs/omniorbpy-VERSION/BUILD_INFO).
OMNIPY_PATH = "@OMNIPY_PATH@"
STUBS_PATH = "@STUBS_PATH@"
BUILD_INFO = "@BUILD_INFO@"

PROG = "omniorbpy-caller"
MODES = ("sync", "ami-poller", "ami-callback")
LINE_MAX = 64 * 1024     # CALLER_LINE_MAX
TIMES_PER_LINE = 1024    # CALLER_TIMES_PER_LINE
FAILS_LISTED = 16        # CALLER_FAILS_LISTED


def die(code, what):
    sys.stderr.write(f"{PROG}: {what}\n")
    sys.stderr.flush()
    os._exit(code)


def reply(s):
    """Write the answer whole; exit when the harness is gone."""
    b = s.encode("ascii")
    while b:
        try:
            n = os.write(1, b)
        except InterruptedError:
            continue
        except OSError:
            os._exit(1)
        b = b[n:]


def clean(s, top=300):
    """One line of a message: printable ASCII only, bounded."""
    return "".join(c if " " <= c <= "~" else "?" for c in str(s)[:top])


def die_with_parent():
    """SIGKILL when the parent dies (prctl PR_SET_PDEATHSIG, as the echo
    server of servers/omniorbpy sets it). False when the parent is
    already gone."""
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    if libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    return os.getppid() == parent


def number_arg(opt, v, low, top):
    if v is None or not (v.isascii() and v.isdigit()) or \
            not low <= int(v) <= top:
        die(2, f"{opt}: expected a number from {low} to {top}")
    return int(v)


class Round:
    """What one round did, call by call (ns; got 0: not completed). The
    AMI reply handlers write into it from omniORB's threads: under
    lock."""

    def __init__(self):
        self.lock = threading.Condition()
        self.start(0, 0)

    def start(self, seq, n):
        self.seq, self.n = seq, n
        self.sent = [0] * n
        self.got = [0] * n
        self.fails = []
        self.failed = 0
        self.answers = 0
        self.t0 = time.monotonic_ns()

    def fail(self, i, word, msg):
        self.failed += 1
        if len(self.fails) < FAILS_LISTED:
            self.fails.append(f"fail {self.seq} {i} {word} {msg}\n")

    def answer(self, record):
        """times (when recorded), fail lines, done."""
        pairs = [(g - s, g - self.t0)
                 for s, g in zip(self.sent, self.got) if g]
        out = []
        if record:
            for k in range(0, len(pairs), TIMES_PER_LINE):
                out.append(f"times {self.seq} " + " ".join(
                    f"{a} {b}" for a, b in pairs[k:k + TIMES_PER_LINE]) +
                    "\n")
        out += self.fails
        out.append(f"done {self.seq} {len(pairs)} {self.n - len(pairs)} "
                   f"{time.monotonic_ns() - self.t0}\n")
        return "".join(out)


def exception_words(CORBA, ex):
    """The protocol's WORD and MESSAGE of an exception: a CORBA system
    exception by its name (TRANSIENT, TIMEOUT, COMM_FAILURE) with its
    minor code and completion status; anything else by its type's name."""
    if isinstance(ex, CORBA.SystemException):
        done = {CORBA.COMPLETED_YES: "yes", CORBA.COMPLETED_NO: "no"}.get(
            ex.completed, "maybe")
        return (clean(type(ex).__name__),
                f"minor 0x{ex.minor:x}, completed {done}")
    return clean(type(ex).__name__), clean(ex) or "(no message)"


class Caller:
    def __init__(self, mode, payload, timeout_ms):
        self.mode, self.payload, self.timeout_ms = mode, payload, timeout_ms
        self.targets = []
        self.handlers = []
        self.r = Round()

    def init(self, argv):
        from omniORB import CORBA
        import omniORB
        import Bench
        self.CORBA, self.Bench = CORBA, Bench
        self.orb = CORBA.ORB_init(argv, CORBA.ORB_ID)
        if len(argv) > 1:
            die(2, f"ORB_init did not take {clean(argv[1])}")
        omniORB.setClientCallTimeout(self.timeout_ms)

    def fail(self, i, ex):
        self.r.fail(i, *exception_words(self.CORBA, ex))

    def reply_of(self, i, ret, at):
        """An answer to call i: its reply (checked) at `at`."""
        if ret == self.payload:
            self.r.got[i] = at
        else:
            self.r.fail(i, "BAD_REPLY", "the echo differs from the argument")

    def add_target(self, ior):
        CORBA = self.CORBA
        try:
            obj = self.orb.string_to_object(ior)
            # No remote call: the first echoString connects.
            e = obj._unchecked_narrow(self.Bench.Echo) if obj else None
        except CORBA.SystemException as ex:
            reply("error %s: %s\n" % exception_words(CORBA, ex))
            return
        if e is None:
            reply("error BAD_PARAM: a nil reference\n")
            return
        self.targets.append(e)
        if self.mode == "ami-callback":
            self.handlers.append(Handler(self, len(self.targets) - 1))
        reply(f"ok {len(self.targets)}\n")

    def drop(self, k):
        del self.targets[k:]
        del self.handlers[k:]
        reply(f"ok {len(self.targets)}\n")

    def sync_round(self):
        r = self.r
        for i in range(r.n):
            r.sent[i] = time.monotonic_ns()
            try:
                ret = self.targets[i].echoString(self.payload)
                self.reply_of(i, ret, time.monotonic_ns())
            except Exception as ex:  # CORBA's, or Python's own
                self.fail(i, ex)

    def poller_round(self):
        r = self.r
        polls = [None] * r.n
        for i in range(r.n):
            r.sent[i] = time.monotonic_ns()
            try:
                polls[i] = self.targets[i].sendp_echoString(self.payload)
            except Exception as ex:
                self.fail(i, ex)
        for i, p in enumerate(polls):
            if p is None:
                continue
            try:
                ret = p.echoString(self.timeout_ms)
                self.reply_of(i, ret, time.monotonic_ns())
            except Exception as ex:
                self.fail(i, ex)

    def callback_round(self):
        r = self.r
        sent_ok = 0
        for i in range(r.n):
            r.sent[i] = time.monotonic_ns()
            try:
                self.targets[i].sendc_echoString(self.handlers[i],
                                                 self.payload)
                sent_ok += 1
            except Exception as ex:
                with r.lock:
                    self.fail(i, ex)
        # Every handler answers, with a reply or an exception (TIMEOUT at
        # the latest); a wait beyond that is bounded all the same.
        deadline = time.monotonic() + self.timeout_ms / 1000 + 5
        with r.lock:
            while r.answers < sent_ok:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                r.lock.wait(left)
            for i in range(r.n):
                if r.answers >= sent_ok:
                    break
                if r.sent[i] and not r.got[i]:
                    r.fail(i, "TIMEOUT", "no reply handler call in time")
            r.answers = -(1 << 62)  # late answers are no longer counted

    def round(self, seq, n, record):
        if n > len(self.targets):
            die(3, f"a round of {n} calls with {len(self.targets)} targets")
        self.r.start(seq, n)
        {"sync": self.sync_round, "ami-poller": self.poller_round,
         "ami-callback": self.callback_round}[self.mode]()
        with self.r.lock:
            reply(self.r.answer(record))

    def command(self, line):
        """One command; False on quit."""
        w = line.split(" ")
        num = [x.isascii() and x.isdigit() and len(x) <= 19 for x in w]
        if line.startswith("target "):
            self.add_target(line[7:])
        elif len(w) == 2 and w[0] == "drop" and num[1]:
            self.drop(int(w[1]))
        elif len(w) == 4 and w[0] == "round" and all(num[1:]) and \
                int(w[2]) > 0 and w[3] in ("0", "1"):
            self.round(int(w[1]), int(w[2]), w[3] == "1")
        elif line == "quit":
            return False
        else:
            die(2, f'not a command of the protocol: "{clean(line)[:60]}"')
        return True

    def serve(self):
        """Read commands until quit or EOF (as quit)."""
        buf = b""
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                if len(buf) >= LINE_MAX:
                    die(2, "a command line over 64 KiB")
                try:
                    got = os.read(0, LINE_MAX - len(buf))
                except InterruptedError:
                    continue
                if not got:
                    return
                buf += got
                continue
            line, buf = buf[:nl].decode("latin-1"), buf[nl + 1:]
            if not self.command(line):
                return


class Handler:
    """The reply handler of one target: its answers go into the round
    under way, by the target's position. A plain object: omniORBpy calls
    a local handler directly (no POA, nothing listens)."""

    def __init__(self, caller, i):
        self.c, self.i = caller, i

    def echoString(self, ret):
        at = time.monotonic_ns()
        r = self.c.r
        with r.lock:
            self.c.reply_of(self.i, ret, at)
            r.answers += 1
            r.lock.notify()

    def echoString_excep(self, holder):
        r = self.c.r
        with r.lock:
            try:
                holder.raise_exception()
                r.fail(self.i, "UNKNOWN", "raise_exception raised nothing")
            except Exception as ex:
                self.c.fail(self.i, ex)
            r.answers += 1
            r.lock.notify()


def main():
    argv = sys.argv[:]
    mode, payload_bytes, timeout_ms = "sync", 16, 5000
    i = 1
    while i < len(argv):
        a = argv[i]
        v = argv[i + 1] if i + 1 < len(argv) else None
        if a == "--version":
            sys.path[:0] = [OMNIPY_PATH]
            import omniORB
            flags = "".join(f for f, on in (
                ("E", sys.flags.ignore_environment),
                ("s", sys.flags.no_user_site)) if on)
            reply(f"omniORBpy {omniORB.__version__}\n{clean(BUILD_INFO, 4096)}"
                  f"; the caller runs {os.path.basename(sys.executable)} "
                  f"{'-' + flags if flags else 'without -E -s'}\n")
            return 0
        if a == "--modes":
            reply("".join(m + "\n" for m in MODES))
            return 0
        if a == "--mode" and v is not None:
            mode = v
        elif a == "--payload-bytes":
            payload_bytes = number_arg(a, v, 0, 1048576)
        elif a == "--timeout-ms":
            timeout_ms = number_arg(a, v, 1, 600000)
        elif a == "--":
            i += 1
            break
        else:
            die(2, f"unknown argument {clean(a)}")
        i += 2
    if mode not in MODES:
        die(2, f"no mode {clean(mode)} in omniORBpy's caller (see --modes)")
    if not die_with_parent():
        return 3
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    sys.path[:0] = [OMNIPY_PATH, STUBS_PATH]
    c = Caller(mode, "x" * payload_bytes, timeout_ms)
    try:
        # ORB_init gets argv[0] and what came after "--".
        c.init([argv[0]] + argv[i:])
        reply(f"ready {os.getpid()} {mode}\n")
        c.serve()
        c.targets.clear()
        c.handlers.clear()
        c.orb.destroy()
    except Exception as e:  # CORBA.SystemException, a bad option, ...
        die(1, f"{type(e).__name__}: {clean(e)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
