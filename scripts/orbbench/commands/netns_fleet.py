"""orbbench fleet on hosts made as network namespaces on this machine:
a fleet without other machines, to try it or to see what it does. Needs
root (ip netns) and pdsh.

usage: orbbench netns-fleet [--hosts N] [--broken KIND]... [--alone]
                            [--out DIR] [--keep-trees] SUITE
                            [-- FLEET-OPTION...]

Builds this tree (make), then makes N hosts (default 3), each a network
namespace with its loopback up and its own copy of the tree (sources,
scenarios, bin/) in a temporary folder, plus one more host per --broken
KIND:
  revision     its sources differ (client/main.c changed): a tree at
               another revision, refused by the preflight
  missing      no orbbench tree at its path
  run          no bin/omniorb-echo-server: every omniORB run fails
  build        bin/orbbench missing and make fails (with --build)
  hang         its client hangs in every run (bounded by --timeout)
  unreachable  no such namespace: pdsh cannot reach it
and runs
  orbbench fleet -R exec --exec 'ip netns exec %h' --remote-dir TMP/%h
      -w HOSTS --out DIR/fleet SUITE FLEET-OPTION...
With --alone it then runs the same on the first host alone (DIR/alone)
and prints both times. The namespaces and the trees are removed at the
end, whatever happened (Ctrl-C too); a process still running in a
namespace then is named and makes the exit 1. DIR defaults to
results/DATE-netns-fleet-SUITE.

The acceptance run of issue 16 (the Grisby suite's sync rows on three
hosts and a broken one, timed against one host alone):
  orbbench netns-fleet --hosts 3 --broken revision --alone scenarios/grisby \\
      -- --only '*sync*'
Exit: orbbench fleet's (of the fleet run), 1 when something was left running,
2 usage error."""
import datetime
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.hosts as orbhosts
import orbbench.netns as orbnetns

ROOT = Path(__file__).resolve().parents[3]

PROG = orbcli.prog("netns-fleet")
EXAMPLES = [
    "orbbench netns-fleet --hosts 3 --broken revision --alone "
    "scenarios/grisby -- --only '*sync*'",
    "orbbench netns-fleet --hosts 2 scenarios/bench"]


def die(msg, code=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_args(argv):
    own, rest = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) \
        if "--" in argv else (argv, [])
    p = orbcli.parser("netns-fleet", __doc__, EXAMPLES, raw=True)
    p.add_argument("suite")
    p.add_argument("--hosts", type=int, default=3, metavar="N")
    p.add_argument("--broken", action="append", default=[],
                   choices=sorted(orbnetns.BROKEN), metavar="KIND")
    p.add_argument("--alone", action="store_true")
    p.add_argument("--out", metavar="DIR")
    p.add_argument("--keep-trees", action="store_true",
                   help="leave the hosts' trees (for a look), not the "
                   "namespaces")
    a = p.parse_args(own)
    a.fleet_args = rest
    if not 1 <= a.hosts <= 16:
        die("--hosts must be 1..16")
    if len(set(a.broken)) < len(a.broken):
        die("--broken: each kind once")
    if os.geteuid() != 0:
        die("network namespaces need root")
    return a


def run_fleet(hosts, trees, a, out):
    """run-fleet on hosts; (exit status, seconds)."""
    argv = [str(ROOT / "scripts" / "run-fleet"), "-w", ",".join(hosts),
            *orbnetns.fleet_args(trees), "--out", str(out), a.suite, *a.fleet_args]
    print(f"{PROG}: {shlex.join(argv)}", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    rc = subprocess.run(argv).returncode
    return rc, time.monotonic() - t0


def main(argv):
    a = parse_args(argv)
    if not Path(a.suite).is_dir():
        die(f"{a.suite}: not a folder")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(a.out) if a.out else (
        ROOT / "results" /
        f"{stamp}-netns-fleet-{Path(a.suite).resolve().name}")
    if out.exists() and any(out.iterdir()):
        die(f"{out}: not empty: give a new folder with --out")
    if subprocess.run(["make", "-C", str(ROOT), "-s"]).returncode:
        die("make failed", 1)
    tag = f"nf{os.getpid()}"
    good = [f"{tag}-{i}" for i in range(1, a.hosts + 1)]
    broken = {f"{tag}-{k}": k for k in a.broken}
    trees = Path(tempfile.mkdtemp(prefix="orbbench-netns-"))
    made, left, rc = [], {}, 1
    # Ctrl-C reaches run-fleet too (one process group): it stops every
    # host; this script then removes the hosts.
    signal.signal(signal.SIGINT, lambda *_: None)
    try:
        for name in good + list(broken):
            if broken.get(name) != "unreachable":
                orbnetns.add(name)
                made.append(name)
                orbnetns.make_tree(trees / name)
            if name in broken:
                orbnetns.break_tree(trees / name, broken[name])
                print(f"{PROG}: {name}: {orbnetns.BROKEN[broken[name]]}",
                      file=sys.stderr)
        rc, took = run_fleet(good + list(broken), trees, a, out / "fleet")
        lines = [f"fleet of {orbhosts.plural(len(good), 'host')} and "
                 f"{len(broken)} broken: {took:.1f} s (exit {rc})"]
        if a.alone and rc != 130:
            rc1, took1 = run_fleet(good[:1], trees, a, out / "alone")
            lines.append(f"one host alone ({good[0]}): {took1:.1f} s "
                         f"(exit {rc1})")
        out.mkdir(parents=True, exist_ok=True)
        (out / "timing.txt").write_text("\n".join(lines) + "\n")
        print("\n" + "\n".join(lines) + f"\n(in {out / 'timing.txt'})")
    finally:
        for name in made:
            pids = orbnetns.remove(name)
            if pids:
                left[name] = pids
        if not a.keep_trees:
            shutil.rmtree(trees, ignore_errors=True)
        else:
            print(f"{PROG}: the hosts' trees are in {trees}",
                  file=sys.stderr)
    if left:
        print(f"{PROG}: processes were left running (killed): {left}",
              file=sys.stderr)
        return 1
    return rc

