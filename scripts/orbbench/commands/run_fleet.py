"""Run the same scenarios on many hosts at once with pdsh: every host runs
orbbench suite in its own orbbench tree (its servers on its own
loopback), then each host's results folder is copied back into one tree
keyed by host name, beside a fleet summary.

usage: orbbench fleet -w HOSTS [-x HOSTS] [-R ssh|exec] [--exec PREFIX]
                      [--remote-dir DIR] [--build] [--timeout S] [--check]
                      [--out DIR] SUITE [--set KEY=VALUE]... [--only GLOB]...
                      [--repeat R]

  -w HOSTS         pdsh's host list: host1,host2, host[1-8], ^FILE
  -x HOSTS         hosts to leave out (pdsh's -x)
  -R ssh|exec      pdsh's remote command module (default ssh). exec runs
                   --exec PREFIX on this machine for each host, e.g.
                   'ip netns exec %h' (hosts as network namespaces)
  --remote-dir DIR the orbbench tree on every host (default: this tree's
                   path); %h is the host's name (pdsh's), for one tree per
                   host on a shared file system
  --build          run make on a host whose tree has these sources but
                   whose bin/orbbench is missing or of another revision
  --timeout S      bounds each host's build and each host's run (default
                   14400); a host still running then is stopped
  --check          the preflight (and --build) only: is every host ready?
  --out DIR        the merged tree (default results/DATE-fleet-SUITE)
  SUITE, --set, --only, --repeat  as orbbench suite takes them; SUITE
                   is a path in this tree (the same path in each host's
                   tree) or an absolute path that is the same on every host

Before anything runs, a preflight asks every host what its tree is: a host
whose orbbench sources (Makefile, client, servers, idl, scripts) differ
from this tree's, that lacks a selected scenario file or has another
version of one, or whose bin/orbbench was not built from its tree (without
--build) is reported, and marked failed; the other hosts run. A host that
cannot be reached, fails to build or whose run fails is marked failed with
its reason and the others complete. Ctrl-C (SIGINT, SIGTERM) stops every
host's run: orbbench fleet passes the interrupt through pdsh, each host's
fleet-host stops its run, a last pdsh pass confirms nothing of the run is
left on any host, and what ran is collected.

The tree: DIR/HOST/ is the host's orbbench suite folder (results, summary.md,
summary.json, fleet-run.log); DIR/fleet.json and DIR/summary.md hold each
host's status, reason and identity (as its results record it: CPU,
memory, kernel, ORB, orbbench revision) and every scenario's max servers
and memory per server, host by host (orbbench compare --hosts DIR).
Exit: 0 every host ran every scenario, 1 some host failed (or --check
found a host not ready), 2 usage error, 128+signal interrupted (130
SIGINT, 143 SIGTERM, 129 SIGHUP). If orbbench fleet dies otherwise (SIGKILL),
pdsh gets SIGTERM, and each host's fleet-host stops its run when pdsh or
its connection goes."""
import base64
import datetime
import hashlib
import io
import json
import os
import queue
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.escape as orbescape
import orbbench.fleet as orbfleet
import orbbench.hosts as orbhosts
import orbbench.kinds  # noqa: F401  (the kinds of the hosts' results)
import orbbench.procs as orbprocs
import orbbench.progress as orbprogress
import orbbench.results as orbresults

ROOT = Path(__file__).resolve().parents[3]

PROG = orbcli.prog("run-fleet")
DEFAULT_TIMEOUT_S = 14400
# Preflight, stop and collect are quick on a host that answers at all.
QUICK_TIMEOUT_S = 60
COLLECT_TIMEOUT_S = 600
# fleet-host stops its command within 10 s of being asked; pdsh is asked
# to stop this long after a phase's timeout, and killed 10 s later.
GRACE_S = 20


def die(msg, code=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


# The fleet's phases (preflight, build, run, collect) as steps of
# orbbench.progress, set by main(); notes go through it, so that on a
# terminal they stay above its live line.
PROGRESS = None
PHASES = 4


def note(msg):
    if PROGRESS:
        PROGRESS.note(f"{PROG}: {msg}")
    else:
        print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def phase(name, run, *args):
    """run(*args) as the next step of PROGRESS, named name; its value."""
    PROGRESS.start(name)
    value = run(*args)
    PROGRESS.done(f"{name}: done")
    return value


EXAMPLES = [
    "orbbench fleet -w 'host[1-4]' --check scenarios/grisby",
    "orbbench fleet -w host1,host2 --build scenarios/grisby --only '*sync*'",
    "orbbench compare --hosts results/DATE-fleet-grisby"]


def parse_args(argv):
    p = orbcli.parser("fleet", __doc__, EXAMPLES, raw=True)
    p.add_argument("suite", help="scenario folder")
    p.add_argument("-w", dest="hosts", required=True, metavar="HOSTS")
    p.add_argument("-x", dest="exclude", metavar="HOSTS")
    p.add_argument("-R", dest="rcmd", choices=("ssh", "exec"),
                   default="ssh")
    p.add_argument("--exec", dest="exec_prefix", default="",
                   metavar="PREFIX")
    p.add_argument("--remote-dir", default=str(ROOT), metavar="DIR")
    p.add_argument("--build", action="store_true")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                   metavar="S")
    p.add_argument("--check", action="store_true")
    p.add_argument("--out", metavar="DIR")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--only", action="append", default=[], metavar="GLOB")
    p.add_argument("--repeat", type=int, default=1, metavar="R")
    a = p.parse_args(argv)
    if a.exec_prefix and a.rcmd != "exec":
        die("--exec PREFIX goes with -R exec")
    if not a.timeout > 0:
        die("--timeout must be more than 0 seconds")
    if not 1 <= a.repeat <= 100:
        die("--repeat must be 1..100")
    for s in a.set:
        if not re.fullmatch(r"[A-Za-z0-9_.]+=.*", s, re.S):
            die(f"--set {s!r}: not KEY=VALUE")
    return a


# ---- talking to the hosts through pdsh ----------------------------------

def pdsh_base(a, hosts):
    """pdsh and its options for these hosts: batch mode (one SIGINT stops
    it and is passed on to every host's command), every host at once."""
    return ["pdsh", "-b", "-R", a.rcmd, "-f", str(max(len(hosts), 1)),
            "-w", ",".join(hosts)]


def remote_words(a, words):
    """pdsh's command for a host: in ssh mode one shell command line (the
    remote shell reads it); in exec mode the --exec prefix then sh -c.
    pdsh replaces %h with the host's name in either: every other % in the
    words is doubled so that it stays itself."""
    def word(w):
        return w if w == "%h" else shlex.quote(w).replace("%", "%%")
    line = (f"cd {shlex.quote(a.remote_dir)} 2>/dev/null || "
            f"exit {orbfleet.EXIT_NO_TREE}; test -f scripts/fleet-host || "
            f"exit {orbfleet.EXIT_NO_HELPER}; exec " + " ".join(map(word, words)))
    if a.rcmd == "exec":
        return shlex.split(a.exec_prefix) + ["sh", "-c", line]
    return [line]


def fleet_host(action, *args):
    """The words of fleet-host ACTION on a host, naming it by pdsh's %h."""
    return ["python3", "scripts/fleet-host", action, "--host", "%h", *args]


def expand_hosts(a):
    """The host names pdsh makes of -w and -x (its own host list syntax),
    each checked, in natural order (h2 before h10)."""
    argv = ["pdsh", "-R", "exec", "-N", "-w", a.hosts]
    if a.exclude:
        argv += ["-x", a.exclude]
    try:
        r = subprocess.run(argv + ["echo", "%h"], capture_output=True,
                           text=True, timeout=60)
    except FileNotFoundError:
        die("pdsh: not found (Debian package pdsh; scripts/install-deps "
            "installs it)")
    names = sorted(set(r.stdout.split()), key=natural_key)
    if r.returncode != 0 or not names:
        lines = [l for l in r.stderr.splitlines() if l.strip()] or \
            ["pdsh: empty host list"]
        die(f"-w {a.hosts}: no hosts ({lines[-1]})")
    for n in names:
        if not orbfleet.HOST_NAME.fullmatch(n):
            die(f"-w {a.hosts}: host name {n!r}: letters, digits, '.', "
                "'_', '-' only (it names the host's folder)")
    return names


def natural_key(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


class Answer:
    """What one host said during one pdsh pass."""

    def __init__(self):
        self.messages = []   # protocol messages (dicts), in order
        self.data = []       # archive lines (collect)
        self.stderr = []     # the host's own stderr lines
        self.pdsh = []       # pdsh's lines about the host
        self.exit = None     # the remote command's exit code, if pdsh said

    def last(self, event):
        return next((m for m in reversed(self.messages)
                     if m["event"] == event), None)


class Fleet:
    """The state of a fleet run: interrupts and timeouts of its passes."""

    def __init__(self, a):
        self.a = a
        self.interrupted = 0
        self.signum = None

    def on_signal(self, signum, _frame):
        self.interrupted += 1
        self.signum = self.signum or signum
        if self.interrupted == 1:
            note(f"{signal.Signals(signum).name}: stopping every host")

    def phase(self, hosts, words, timeout_s, show=None):
        """fleet-host WORDS on every host, through one pdsh, bounded by
        timeout_s and by an interrupt that comes after it started (then
        pdsh is interrupted, as by Ctrl-C, and killed if it does not
        end). Return ({host: Answer}, "timeout", "interrupt" or None)."""
        answers = {h: Answer() for h in hosts}
        interrupts = self.interrupted
        if not hosts:
            return answers, None
        argv = pdsh_base(self.a, hosts) + remote_words(self.a, words)
        # A session of its own: a terminal's Ctrl-C reaches run-fleet,
        # which passes it on once, not pdsh twice. pdsh gets SIGTERM if
        # run-fleet dies (orbprocs), and its hosts' commands then see
        # their connection close.
        proc = orbprocs.start(argv, session=True, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              errors="replace")
        lines = queue.Queue()
        readers = [threading.Thread(target=pump, args=(s, name, lines),
                                    daemon=True)
                   for s, name in ((proc.stdout, "out"),
                                   (proc.stderr, "err"))]
        for t in readers:
            t.start()
        deadline = time.monotonic() + timeout_s + GRACE_S
        ended, why, asked_at = 0, None, None
        while ended < 2:
            now = time.monotonic()
            more = self.interrupted > interrupts
            if asked_at is None and (more or now > deadline):
                why = "interrupt" if more else "timeout"
                asked_at = now
                signal_proc(proc, signal.SIGINT)
            if asked_at is not None and now - asked_at > 10:
                signal_proc(proc, signal.SIGKILL)
            try:
                stream, line = lines.get(timeout=0.25)
            except queue.Empty:
                if PROGRESS:
                    PROGRESS.tick()  # a terminal's elapsed time moves
                continue
            if line is None:
                ended += 1
            else:
                take_line(answers, stream, line, show)
        proc.wait()
        orbprocs.forget(proc)
        return answers, why


def pump(stream, name, lines):
    for line in stream:
        lines.put((name, line.rstrip("\n")))
    lines.put((name, None))


def signal_proc(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


PDSH_LINE = re.compile(r"pdsh@[^:]*: ([^:]+): (.*)")
EXIT_CODE = re.compile(r"exited with exit code (\d+)")


def take_line(answers, stream, line, show):
    """File one line of pdsh's output under its host."""
    m = PDSH_LINE.match(line)
    if stream == "err" and m:
        ans = answers.get(m.group(1))
        if ans:
            ans.pdsh.append(m.group(2))
            code = EXIT_CODE.search(m.group(2))
            if code:
                ans.exit = int(code.group(1))
        return
    host, sep, text = line.partition(": ")
    ans = answers.get(host)
    if not sep or ans is None:
        return  # pdsh's own notes ("sending signal 2 to ...")
    if stream == "err":
        ans.stderr.append(text)
    elif text.startswith(orbfleet.DATA + " "):
        ans.data.append(text[len(orbfleet.DATA) + 1:])
    else:
        msg = orbfleet.parse_message(text)
        if msg:
            ans.messages.append(msg)
            if show:
                show(host, msg)


def host_dir(a, host):
    return a.remote_dir.replace("%h", host)


def no_answer(a, host, ans, why, timeout_s):
    """Why a host gave no final answer in a pass."""
    if ans.exit == orbfleet.EXIT_NO_TREE:
        return f"no folder {host_dir(a, host)} (no orbbench tree there)"
    if ans.exit == orbfleet.EXIT_NO_HELPER:
        return (f"{host_dir(a, host)} has no scripts/fleet-host (not an "
                "orbbench tree, or one older than run-fleet)")
    if why == "interrupt":
        return "interrupted"
    if why == "timeout":
        return f"no answer within the fleet timeout ({timeout_s:g} s)"
    for lines in (ans.stderr, ans.pdsh):
        if lines:
            return lines[-1]
    return "no answer"


# ---- the preflight ---------------------------------------------------------

def suite_arg(suite):
    """SUITE as the hosts take it: relative to the tree when it is in this
    tree, else the absolute path (the same on every host)."""
    p = Path(suite).resolve()
    try:
        return p.relative_to(ROOT).as_posix()
    except ValueError:
        return str(p)


def local_preflight(a, suite):
    """What fleet-host says of this tree: the reference."""
    argv = [sys.executable, str(ROOT / "scripts" / "fleet-host"),
            "preflight", "--host", "here", "--suite", suite]
    for g in a.only:
        argv += ["--only", g]
    r = orbprocs.run(argv, capture_output=True, text=True, timeout=120)
    msgs = [m for m in map(orbfleet.parse_message, r.stdout.splitlines()) if m]
    if r.returncode or not msgs:
        die(f"preflight of this tree failed: {r.stderr.strip()}", 1)
    return msgs[-1]


def preflight_problem(ref, got, suite):
    """(None | "build" | "refused", reason) of one host's preflight
    answer against this tree's."""
    if got.get("sources") != ref["sources"]:
        theirs = got.get("source_files")
        if isinstance(theirs, dict):
            diff = orbfleet.differing_files(ref["source_files"], theirs)
            shown = ", ".join(f"{p} {how}" for p, how in diff[:3])
            if len(diff) > 3:
                shown += f" and {len(diff) - 3} more"
        else:  # a fleet-host of another revision, answering otherwise
            shown = "scripts/fleet-host answers in another form"
        return "refused", (
            f"its orbbench sources differ from this tree's: {shown} "
            f"(host: {got.get('describe') or 'not a git checkout'}; here: "
            f"{ref.get('describe') or 'not a git checkout'})")
    want, have = ref["scenarios"] or {}, got.get("scenarios")
    if not isinstance(have, dict):
        return "refused", f"no scenario folder {suite} in its tree"
    for name in sorted(want):
        if name not in have:
            return "refused", f"scenario {suite}/{name} missing"
        if have[name] != want[name]:
            return "refused", f"scenario {suite}/{name} differs from this " \
                "tree's"
    extra = sorted(set(have) - set(want))
    if extra:
        return "refused", (f"scenario {suite}/{extra[0]} is not in this "
                           "tree (the host would run it too)")
    expect = got.get("describe") or ref.get("describe") or "unknown"
    if got.get("revision") is None:
        return "build", "bin/orbbench not built"
    if got["revision"] != expect:
        return "build", (f"bin/orbbench built from {got['revision']}, the "
                         f"tree is at {expect}")
    return None, None


class Host:
    """One host's fate in the fleet run."""

    def __init__(self, name):
        self.name = name
        self.status = "ok"
        self.stage = None
        self.reason = None
        self.seconds = None
        self.started = False     # build or run was started there
        self.clean_end = False   # ... and fleet-host said how it ended
        self.collected = False

    def fail(self, stage, reason):
        self.status, self.stage, self.reason = "failed", stage, reason

    def to_json(self):
        return {"host": self.name, "status": self.status, "stage": self.stage,
                "reason": self.reason, "seconds": self.seconds,
                "results": self.name if self.collected else None}


def run_preflight(fleet, hosts, suite, ref):
    """Ask every host; return the hosts whose trees need make, failing
    those refused (reported now, before anything runs)."""
    a = fleet.a
    words = fleet_host("preflight", "--suite", suite)
    for g in a.only:
        words += ["--only", g]
    answers, why = fleet.phase([h.name for h in hosts], words,
                               QUICK_TIMEOUT_S)
    need_build = []
    for h in hosts:
        ans = answers[h.name]
        got = ans.last("preflight")
        if got is None:
            h.fail("preflight", no_answer(a, h.name, ans, why,
                                          QUICK_TIMEOUT_S))
            continue
        verdict, reason = preflight_problem(ref, got, suite)
        if verdict == "build" and a.build:
            need_build.append(h)
        elif verdict:
            if verdict == "build":
                reason += " (--build runs make there)"
            h.fail("preflight", reason)
    return need_build


def run_build(fleet, hosts, run_id):
    """make on these hosts; fail those whose make fails or still leaves
    bin/orbbench of another revision."""
    words = fleet_host("build", "--run", run_id, "--timeout",
                       f"{fleet.a.timeout:g}", "--stop-on-eof")
    for h in hosts:
        note(f"{h.name}: building (make)")
    answers, why = fleet.phase([h.name for h in hosts], words,
                               fleet.a.timeout)
    for h in hosts:
        end = answers[h.name].last("end")
        if end is None:
            h.fail("build", no_answer(fleet.a, h.name, answers[h.name], why,
                                      fleet.a.timeout))
            h.started = True  # make may be running: the stop pass looks
        elif end.get("reason"):
            h.fail("build", end["reason"])
        else:
            note(f"{h.name}: built {end.get('orbbench')}")
    return why


def show_progress(host, msg):
    """A host's orbbench suite progress lines ("[2/8] sync-unix: ..."): a
    scenario's own line ("[2/8] sync-unix | N=313 sweep, ...", at most
    one every few seconds from each host) is the run phase's live line on
    a terminal; every other line stays, as a note."""
    line = msg.get("line", "") if msg["event"] == "log" else ""
    if not line.startswith("["):
        return
    text = f"{host}: {orbescape.terminal(line)}"
    if " | " in line and PROGRESS.tty:
        PROGRESS.sub(text=text)
    else:
        PROGRESS.note(text)


def run_suites(fleet, hosts, suite, run_id):
    a = fleet.a
    words = fleet_host("run", "--run", run_id, "--suite", suite,
                       "--timeout", f"{a.timeout:g}", "--stop-on-eof",
                       "--repeat", str(a.repeat))
    for s in a.set:
        words += ["--set", s]
    for g in a.only:
        words += ["--only", g]
    for h in hosts:
        h.started = True
    answers, why = fleet.phase([h.name for h in hosts], words, a.timeout,
                               show=show_progress)
    for h in hosts:
        end = answers[h.name].last("end")
        if end is None:
            h.fail("run", no_answer(a, h.name, answers[h.name], why,
                                    a.timeout))
            continue
        h.seconds = end.get("seconds")
        h.clean_end = True
        if end.get("reason"):
            h.fail("run", end["reason"])
    return why


def stop_pass(fleet, hosts, run_id):
    """After an interrupt or a timeout: stop what still runs of this run
    on each host (fleet-host stop), and say what was found."""
    words = fleet_host("stop", "--run", run_id)
    answers, why = fleet.phase([h.name for h in hosts], words,
                               QUICK_TIMEOUT_S)
    for h in hosts:
        got = answers[h.name].last("stopped")
        if got is None:
            note(f"{h.name}: could not confirm that its run stopped: "
                 f"{no_answer(fleet.a, h.name, answers[h.name], why, 0)}")
        elif got.get("killed"):
            note(f"{h.name}: its run did not stop by itself: killed "
                 f"{got['killed']}")


def collect(fleet, hosts, run_id, out):
    """Copy each host's results folder into out/HOST/."""
    words = fleet_host("collect", "--run", run_id)
    answers, why = fleet.phase([h.name for h in hosts], words,
                               COLLECT_TIMEOUT_S)
    for h in hosts:
        ans = answers[h.name]
        done = ans.last("collected")
        err = ans.last("error")
        if done is None:
            reason = err["reason"] if err else no_answer(
                fleet.a, h.name, ans, why, COLLECT_TIMEOUT_S)
            note(f"{h.name}: results not collected: {reason}")
            if h.status == "ok":
                h.fail("collect", reason)
            continue
        try:
            unpack(h.name, ans.data, done, out)
            h.collected = True
        except ValueError as e:
            note(f"{h.name}: results not collected: {e}")
            if h.status == "ok":
                h.fail("collect", str(e))


def unpack(host, lines, done, out):
    """The archive of a host's folder, checked against its size and hash,
    unpacked into out (only HOST/ and what is under it)."""
    data = base64.b64decode("".join(lines), validate=True)
    if len(data) != done["bytes"] or \
            hashlib.sha256(data).hexdigest() != done["sha256"]:
        raise ValueError(f"the archive arrived damaged ({len(data)} bytes "
                         f"of {done['bytes']})")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = tar.getmembers()
        for m in members:
            parts = Path(m.name).parts
            if (not parts or parts[0] != host or ".." in parts or
                    Path(m.name).is_absolute() or
                    not (m.isfile() or m.isdir())):
                raise ValueError(f"the archive holds {m.name!r}, not only "
                                 f"{host}/")
        tar.extractall(out, members=members)


# ---- the summary -----------------------------------------------------------

def host_rows(out, h):
    """The suite's summary rows of a collected host, or []."""
    try:
        doc = json.loads((out / h.name / orbresults.SUITE_SUMMARY).read_text())
        return doc.get("rows") or []
    except (OSError, ValueError, AttributeError):
        return []


def write_summary(a, out, hosts, meta):
    """fleet.json and summary.md in out; the text summary on stdout."""
    entries = []
    for h in hosts:
        e = h.to_json()
        results = orbhosts.host_results(out / h.name) if h.collected else []
        e["identity"] = orbhosts.identity(results) if results else None
        e["rows"] = host_rows(out, h)
        entries.append(e)
    doc = dict(meta, schema=orbhosts.FLEET_SCHEMA, hosts=entries)
    (out / orbhosts.FLEET_FILE).write_text(json.dumps(doc, indent=1))
    fleet = orbhosts.load_fleet(out)
    (out / "summary.md").write_text(orbhosts.fleet_markdown(fleet, meta))
    print(orbhosts.fleet_text(fleet))


def main(argv):
    a = parse_args(argv)
    fleet = Fleet(a)
    src = Path(a.suite)
    if not src.is_dir():
        die(f"{src}: not a folder")
    if not orbfleet.select_scenarios(src, a.only):
        die(f"{src}: no scenario files (*.json)" + (
            f" match --only {' --only '.join(a.only)}" if a.only else ""))
    if a.rcmd == "exec" and "%h" not in a.exec_prefix + a.remote_dir:
        note("-R exec without %h in --exec or --remote-dir: every host "
             "runs in this machine's tree, on its loopback")
    if not shutil.which("pdsh"):
        die("pdsh: not found (Debian package pdsh; scripts/install-deps "
            "installs it)")
    names = expand_hosts(a)
    suite = suite_arg(src)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    run_id = f"{stamp}-{secrets.token_hex(3)}"
    out = Path(a.out) if a.out else (
        ROOT / "results" / f"{stamp}-fleet-{src.resolve().name}")
    if not a.check:
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            die(f"{out}: not an empty folder: give a new one with --out")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, fleet.on_signal)
    t0 = time.monotonic()
    global PROGRESS
    PROGRESS = orbprogress.Progress(PHASES - bool(a.check) * 2)
    ref = local_preflight(a, suite)
    hosts = [Host(n) for n in names]
    note(f"{orbhosts.plural(len(hosts), 'host')}: {', '.join(names)}; preflight "
         f"against this "
         f"tree ({ref.get('describe') or 'no git revision'})")
    need_build = phase("preflight", run_preflight, fleet, hosts, suite, ref)
    if need_build and not fleet.interrupted:
        phase("build", run_build, fleet, need_build, run_id)
    else:
        PROGRESS.start("build")
        PROGRESS.done("build: nothing to build")
    for h in hosts:
        if h.status != "ok":
            note(f"{h.name}: {h.stage}: {h.reason}")
    ready = [h for h in hosts if h.status == "ok"]
    if a.check:
        if fleet.interrupted:
            stop_pass(fleet, [h for h in hosts if h.started], run_id)
            return 128 + fleet.signum
        note(f"{len(ready)} of {len(hosts)} hosts ready")
        return 0 if len(ready) == len(hosts) else 1
    out.mkdir(parents=True, exist_ok=True)
    if ready and not fleet.interrupted:
        note(f"running {suite} on {', '.join(h.name for h in ready)}")
        phase("run", run_suites, fleet, ready, suite, run_id)
    for h in ready:
        if not h.started:
            h.fail("run", "interrupted before its run started")
    # A host whose fleet-host did not say how its run ended may still be
    # running it: stop and check.
    unsure = [h for h in hosts if h.started and not h.clean_end]
    if unsure:
        stop_pass(fleet, unsure, run_id)
    if fleet.interrupted < 2:
        phase("collect", collect, fleet, [h for h in ready if h.started],
              run_id, out)
    meta = {"suite": src.resolve().name, "run_id": run_id,
            "command": shlex.join(["scripts/run-fleet"] + argv),
            "started": stamp, "seconds": round(time.monotonic() - t0, 3),
            "interrupted": bool(fleet.interrupted),
            "pdsh": {"rcmd": a.rcmd, "exec": a.exec_prefix or None,
                     "remote_dir": a.remote_dir},
            "reference": {"sources": ref["sources"],
                          "describe": ref.get("describe")}}
    write_summary(a, out, hosts, meta)
    print(f"\nmerged tree and summary.md in {out}")
    if fleet.interrupted:
        return 128 + fleet.signum
    return 0 if all(h.status == "ok" for h in hosts) else 1

