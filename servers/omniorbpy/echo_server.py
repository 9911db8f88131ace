#!/usr/bin/python3 -Es
"""omniORBpy echo server for orbbench: activates one Bench::Echo object in
the RootPOA, prints its stringified IOR as one line on stdout, and serves
until killed. The same contract as the C++ servers (docs/servers.md):
  --version     "omniORBpy VERSION" and, on a second line, how the build
                was made (its BUILD_INFO)
  --work-us N   each call burns N µs of CPU, in Python, before replying
  --work-ns N   N ns more
Every other argument is omniORB's (-ORBendPoint giop:tcp:127.0.0.1:,
giop:unix:PATH, -ORBthreadPerConnectionPolicy 0, ...): omniORBpy is
omniORB's C++ core under a Python mapping, so its server model is
omniORB's (a thread per connection, a pool past
-ORBthreadPerConnectionUpperLimit connections), every upcall taking
Python's global interpreter lock.

make installs this file as bin/orbs/omniorbpy-VERSION/echo-server with
the three names below filled in. Python runs with -E -s: the caller's
PYTHON* variables (PYTHONMALLOC, PYTHONPATH, ...) and user site-packages
do not reach a server, whose interpreter settings are then the same in
every run (docs/servers.md#omniorbpy: none of them moved the footprint
by more than 5%)."""
import ctypes
import os
import signal
import sys
import threading
import time

# Filled in by make (the Makefile's omniORBpy rule): this build's
# omniORBpy modules, the stubs its omniidl back end made of idl/echo.idl,
# and the build's identity (orbs/omniorbpy-VERSION/BUILD_INFO).
OMNIPY_PATH = "@OMNIPY_PATH@"
STUBS_PATH = "@STUBS_PATH@"
BUILD_INFO = "@BUILD_INFO@"

PROG = "echo-server"
MAX_WORK_US = 1000000
MAX_WORK_NS = 1000000000


def die_with_parent():
    """SIGKILL when the parent dies (prctl PR_SET_PDEATHSIG, as the C++
    servers set it; the spawner's survives exec too). False when the
    parent is already gone."""
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    if libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return os.getppid() == parent


def take_int_option(argv, name, top):
    """Take every `NAME N` / `NAME=N` out of argv (omniORB must never see
    it); the last N, 0 when absent. N: digits only, at most top; else a
    one-line error and exit 2."""
    value, out, i = 0, [argv[0]], 1
    while i < len(argv):
        a = argv[i]
        if a == name:
            v = argv[i + 1] if i + 1 < len(argv) else ""
            i += 2
        elif a.startswith(name + "="):
            v = a[len(name) + 1:]
            i += 1
        else:
            out.append(a)
            i += 1
            continue
        if not (v.isascii() and v.isdigit()) or int(v) > top:
            sys.stderr.write(f'{PROG}: {name}: "{v}" is not an integer in '
                             f'[0, {top}]\n')
            sys.exit(2)
        value = int(v)
    argv[:] = out
    return value


def spin_steps(steps):
    """The busy loop, in Python: a chain of dependent multiply-adds, as
    servers/common/work.h's in C (here each step is bytecode, tens of ns,
    not one ns)."""
    acc = 0
    for _ in range(steps):
        acc = (acc * 1664525 + 1013904223) & 0xFFFFFFFF
    return acc


def calibrate_steps_per_ns():
    """The loop's steps per ns of this thread's CPU: the fastest of 5
    passes of 2^14 steps (about 1 ms each), timed on the thread's CPU
    clock (time.thread_time_ns: CLOCK_THREAD_CPUTIME_ID), the fastest for
    the reason work.h gives (a server calibrates while its siblings
    start)."""
    pass_steps = 1 << 14
    spin_steps(pass_steps)  # warm the loop
    best = 0.0
    for _ in range(5):
        t0 = time.thread_time_ns()
        spin_steps(pass_steps)
        dt = time.thread_time_ns() - t0
        best = max(best, pass_steps / max(dt, 1))
    return best


def work_steps(work_ns):
    """Steps that burn work_ns of CPU at the speed measured now (0: none);
    a fixed count, no clock read in the call (servers/common/work.h)."""
    if work_ns <= 0:
        return 0
    return max(1, round(work_ns * calibrate_steps_per_ns()))


class Objects:
    """idl/echo.idl's makeObjects (docs/kinds/objects.md), as the C++
    servers make them (servers/common/objects.hh): one child POA of the
    RootPOA, "objects", made at the first call under the RootPOA's
    manager, with USER_ID, RETAIN and USE_ACTIVE_OBJECT_MAP_ONLY (a
    servant each) or USER_ID, NON_RETAIN, USE_DEFAULT_SERVANT and
    MULTIPLE_ID (one default servant); object i's ObjectId is i as 8
    decimal digits. Calls are serialized (omniORB may run several at
    once)."""
    MAX_PER_CALL = 1 << 20
    MAX = 99999999

    def __init__(self, root, servant_class, portable_server, corba):
        self.root, self.servant_class = root, servant_class
        self.ps, self.corba = portable_server, corba
        self.poa, self.shared, self.made = None, False, 0
        self.lock = threading.Lock()

    def start(self, shared):
        ps, root = self.ps, self.root
        policies = [root.create_id_assignment_policy(ps.USER_ID)]
        if shared:
            policies += [root.create_servant_retention_policy(ps.NON_RETAIN),
                         root.create_request_processing_policy(
                             ps.USE_DEFAULT_SERVANT),
                         root.create_id_uniqueness_policy(ps.MULTIPLE_ID)]
        else:
            policies += [root.create_servant_retention_policy(ps.RETAIN),
                         root.create_request_processing_policy(
                             ps.USE_ACTIVE_OBJECT_MAP_ONLY)]
        poa = root.create_POA("objects", root._get_the_POAManager(),
                              policies)
        for p in policies:
            p.destroy()
        if shared:
            poa.set_servant(self.servant_class())
        self.poa, self.shared = poa, shared

    def make(self, count, shared):
        """(ns spent, first reference, last reference, the POA's
        policies as words)."""
        with self.lock:
            if not 0 < count <= self.MAX_PER_CALL or \
                    count > self.MAX - self.made:
                raise self.corba.BAD_PARAM(0, self.corba.COMPLETED_NO)
            if self.poa is None:
                self.start(shared)
            elif shared != self.shared:
                raise self.corba.BAD_INV_ORDER(0, self.corba.COMPLETED_NO)
            poa, cls = self.poa, self.servant_class
            first = last = None
            t0 = time.monotonic_ns()
            for k in range(count):
                oid = b"%08d" % (self.made + k)
                if shared:
                    ref = poa.create_reference_with_id(oid,
                                                       "IDL:Bench/Echo:1.0")
                else:
                    poa.activate_object_with_id(oid, cls())
                    ref = poa.id_to_reference(oid)
                if k == 0:
                    first = ref
                last = ref
            ns = time.monotonic_ns() - t0
            self.made += count
            return ns, first, last, (
                "USER_ID NON_RETAIN USE_DEFAULT_SERVANT MULTIPLE_ID" if shared
                else "USER_ID RETAIN USE_ACTIVE_OBJECT_MAP_ONLY")


def serve(argv, work_ns):
    sys.path[:0] = [OMNIPY_PATH, STUBS_PATH]
    from omniORB import CORBA, PortableServer
    import Bench__POA

    steps = work_steps(work_ns)

    class Echo(Bench__POA.Echo):
        """echoString and the typed payloads' operations return their
        argument; oneway sendOneway calls are counted, onewayCount returns
        the count as decimal text."""

        def __init__(self):
            self.oneways = 0
            self.lock = threading.Lock()

        def echoString(self, mesg):
            if steps:
                spin_steps(steps)
            return mesg

        def sendOneway(self, mesg):
            if steps:
                spin_steps(steps)
            with self.lock:  # upcalls may run on several omniORB threads
                self.oneways += 1

        def onewayCount(self):
            with self.lock:
                return str(self.oneways)

        def echoNone(self):
            if steps:
                spin_steps(steps)

        def echo(self, v):
            if steps:
                spin_steps(steps)
            return v

        echoOctet1K = echoOctet100K = echoOdometry = echo
        echoRangeSensor = echoSharedBelief = echo

        def makeObjects(self, count, defaultServant):
            return objects.make(count, defaultServant)

    orb = CORBA.ORB_init(argv, CORBA.ORB_ID)
    poa = orb.resolve_initial_references("RootPOA")
    objects = Objects(poa, Echo, PortableServer, CORBA)
    ref = poa.servant_to_reference(Echo())
    poa._get_the_POAManager().activate()
    sys.stdout.write(orb.object_to_string(ref) + "\n")
    sys.stdout.flush()
    orb.run()


def main():
    argv = sys.argv[:]
    if len(argv) > 1 and argv[1] == "--version":
        sys.path[:0] = [OMNIPY_PATH]
        import omniORB
        flags = "".join(f for f, on in (("E", sys.flags.ignore_environment),
                                        ("s", sys.flags.no_user_site)) if on)
        print(f"omniORBpy {omniORB.__version__}\n{BUILD_INFO}; the server "
              f"runs {os.path.basename(sys.executable)} "
              f"{'-' + flags if flags else 'without -E -s'}")
        return 0
    work_us = take_int_option(argv, "--work-us", MAX_WORK_US)
    work_ns = take_int_option(argv, "--work-ns", MAX_WORK_NS)
    if not die_with_parent():
        return 3
    try:
        serve(argv, work_us * 1000 + work_ns)
    except Exception as e:  # CORBA.SystemException, a bad option, ...
        sys.stderr.write(f"{PROG}: {type(e).__name__}: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
