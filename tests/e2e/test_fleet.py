"""End-to-end: scripts/run-fleet on hosts made as network namespaces on
this machine (orbbench.netns: each with its own loopback and its own
copy of the tree, reached by pdsh's exec module with `ip netns exec %h`,
or by its ssh module through a stand-in ssh), with broken hosts among
them. Every namespace is removed when its test ends, failed or not, and a
process left in one fails the test."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import BIN, ROOT, wait_for

import orbbench.hosts as orbhosts
import orbbench.netns as orbnetns
import orbbench.results as orbresults

RUN_FLEET = ROOT / "scripts" / "run-fleet"
# The Grisby suite's sync row, a few servers: a second or two a host.
TINY = ["scenarios/grisby", "--only", "*sync*", "--set", "sweep.start=2",
        "--set", "sweep.max_n=4"]
# The same row growing by 20 servers a step up to 2000: minutes.
LONG = ["scenarios/grisby", "--only", "*sync*", "--set", "sweep.start=20",
        "--set", "sweep.growth=1", "--set", "sweep.step=20"]

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not (os.path.exists("/usr/bin/pdsh")),
    reason="needs root (network namespaces) and pdsh (scripts/install-deps)")


def netns_pids(name):
    """The processes in a namespace, read without orbnetns (the check
    must not lean on the code it checks)."""
    r = subprocess.run(["ip", "netns", "pids", name], capture_output=True,
                       text=True, timeout=30)
    return [int(p) for p in r.stdout.split()]


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def runs_started(hosts):
    """Every host has a run's client going: an orbbench in its namespace
    that is not preflight's `orbbench --version` (which a slow, sanitized
    build keeps alive long enough to be mistaken for the run)."""
    return all(any(comm(p) == "orbbench" and b"--version" not in cmdline(p)
                   for p in netns_pids(h)) for h in hosts)


def assert_nothing_left(names, timeout=15.0):
    """No process in any of the namespaces (waiting a little: a host's
    fleet-host may still be exiting when pdsh has returned)."""
    left = {}

    def clear():
        left.clear()
        for n in names:
            pids = netns_pids(n)
            if pids:
                left[n] = [f"{p} {comm(p)}" for p in pids[:10]] + \
                    [f"{len(pids)} in all"]
        return not left
    if not wait_for(clear, timeout=timeout, step=0.1):
        raise AssertionError(f"processes left running: {left}")


class Fleet:
    """Hosts made for one test: namespaces and trees, and run-fleet on
    them."""

    def __init__(self, tmp_path):
        self.tag = f"ft{os.getpid() % 100000}"
        self.trees = tmp_path / "hosts"
        self.trees.mkdir()
        self.namespaces = []
        self.tmp = tmp_path

    def host(self, label, broken=None):
        """A host (its namespace and its tree), broken as orbnetns.BROKEN
        says; returns its name."""
        name = f"{self.tag}-{label}"
        if broken != "unreachable":
            orbnetns.add(name)
            self.namespaces.append(name)
            orbnetns.make_tree(self.trees / name, bin_dir=BIN)
        if broken:
            orbnetns.break_tree(self.trees / name, broken)
        return name

    def command(self, hosts, args, rcmd):
        """(run-fleet's command line on hosts, its output folder): pdsh's
        exec module into the namespaces, or its ssh module (rcmd
        "ssh")."""
        out = self.tmp / f"fleet-{time.monotonic_ns()}"
        argv = [str(RUN_FLEET), "-w", ",".join(hosts), "--out", str(out)]
        argv += (["-R", "ssh", "--remote-dir", f"{self.trees}/%h"]
                 if rcmd == "ssh" else orbnetns.fleet_args(self.trees))
        return argv + list(args), out

    def run(self, hosts, *args, timeout=180, rcmd=None, env=None):
        argv, out = self.command(hosts, args, rcmd)
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT, env=env), out

    def start(self, hosts, *args, rcmd=None, env=None):
        """run-fleet in the background: (process, output folder)."""
        argv, out = self.command(hosts, args, rcmd)
        return subprocess.Popen(argv, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                env=env), out

    def remove(self):
        """Remove every namespace; return what was found running in
        them."""
        left = {}
        for n in self.namespaces:
            pids = orbnetns.remove(n)
            if pids:
                left[n] = pids
        return left


@pytest.fixture
def fleet(tmp_path):
    f = Fleet(tmp_path)
    yield f
    # Whatever the test did, no namespace stays; a process that was still
    # in one is an error of the fleet run.
    left = f.remove()
    assert not left, "processes left in the namespaces: " + "; ".join(
        f"{n}: {len(p)}, e.g. {p[:5]}" for n, p in left.items())
    assert not any(orbnetns.exists(n) for n in f.namespaces)


def fleet_doc(out):
    return json.loads((out / "fleet.json").read_text())


def by_host(doc):
    return {h["host"]: h for h in doc["hosts"]}


def built_revision():
    line = subprocess.run([str(BIN / "orbbench"), "--version"],
                          capture_output=True, text=True).stdout
    return line.split("(")[1].split(")")[0]


@pytest.mark.long
def test_fleet_run_merges_hosts_and_marks_the_broken_ones(fleet, tmp_path):
    """Two good hosts and three broken ones: a tree at another revision
    (refused before anything runs), a host whose runs fail, a host that
    cannot be reached. The good ones complete; the tree is keyed by host
    with each host's identity as its results record it; each broken host
    has its reason; exit 1; nothing left running anywhere."""
    h1, h2 = fleet.host("a"), fleet.host("b")
    rev = fleet.host("rev", broken="revision")
    bad = fleet.host("run", broken="run")
    gone = fleet.host("gone", broken="unreachable")
    r, out = fleet.run([h1, h2, rev, bad, gone], *TINY)
    assert r.returncode == 1, r.stderr
    assert_nothing_left(fleet.namespaces)
    doc = fleet_doc(out)
    hosts = by_host(doc)
    assert [h["host"] for h in doc["hosts"]] == sorted(hosts)
    # the refused host, before anything ran anywhere
    assert hosts[rev]["status"] == "failed"
    assert hosts[rev]["stage"] == "preflight"
    assert "client/main.c changed" in hosts[rev]["reason"]
    err = r.stderr
    assert f"{rev}: preflight:" in err and "running " in err, err
    assert err.index(f"{rev}: preflight:") < err.index("running ")
    assert not (fleet.trees / rev / "results").exists()
    # the host that cannot be reached
    assert hosts[gone]["stage"] == "preflight"
    assert "Cannot open network namespace" in hosts[gone]["reason"]
    # the host whose run fails: its reason, and what it wrote
    assert hosts[bad]["stage"] == "run"
    assert "1 of 1 scenario runs failed" in hosts[bad]["reason"]
    assert "omniorb-echo-server" in hosts[bad]["reason"]
    bad_rows = json.loads((out / bad / "summary.json").read_text())["rows"]
    assert "failed" in bad_rows[0]
    # the good ones: their folders, keyed by host, and their identity
    for h in (h1, h2):
        e = hosts[h]
        assert e["status"] == "ok" and e["reason"] is None
        res = json.loads((out / h / "06-sync-unix.json").read_text())
        assert res["result"]["max_servers"] == 4
        ident = e["identity"]
        assert ident["kernel"] == res["host"]["kernel"]
        assert ident["mem_total_kb"] == res["host"]["mem_total_kb"]
        assert ident["cpus_online"] == res["host"]["cpus_online"]
        assert ident["revision"] == res["tool"]["git_revision"] == \
            built_revision()
        assert ident["orb"] == (f"{res['orb']['name']} "
                                f"{res['orb']['version']}")
        assert (out / h / "fleet-run.log").is_file()
        # every host ran its own tree's client and servers
        assert res["orb"]["server_path"] == \
            str(fleet.trees / h / "bin" / "omniorb-echo-server")
    # the summary says it all, on stdout and in summary.md
    md = (out / "summary.md").read_text()
    for text in (r.stdout, md):
        assert hosts[rev]["reason"] in text
        assert hosts[bad]["reason"] in text
    # the host axis over the tree: compare --hosts, report
    cmp = subprocess.run([str(ROOT / "scripts" / "compare"), "--hosts",
                          str(out), "--format", "json"], capture_output=True,
                         text=True, timeout=60)
    assert cmp.returncode == 0, cmp.stderr
    table = json.loads(cmp.stdout)
    assert table["hosts"] == [h1, h2]
    cells = table["scenarios"][0]["cells"]
    assert [cells[h]["max_servers"] for h in (h1, h2)] == [4, 4]
    assert {h for h, _ in table["left_out"]} == {rev, bad, gone}
    rep = subprocess.run([str(ROOT / "scripts" / "report"), "--results",
                          str(out), "--out", str(tmp_path / "report")],
                         capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    assert (tmp_path / "report" / "hosts-sync-unix.png").is_file()
    text = (tmp_path / "report" / "report.md").read_text()
    assert hosts[rev]["reason"] in text and h1 in text


@pytest.mark.long
def test_preflight_refuses_hosts_that_differ(fleet):
    """--check: a tree at another revision, a host whose copy of the
    scenario differs, one whose client is not built, one without a tree
    at all: each named with its reason, exit 1, nothing run."""
    ok = fleet.host("ok")
    rev = fleet.host("rev", broken="revision")
    scen = fleet.host("scen")
    path = fleet.trees / scen / "scenarios" / "grisby" / "06-sync-unix.json"
    path.write_text(path.read_text().replace('"max_ms": 100',
                                             '"max_ms": 50'))
    unbuilt = fleet.host("unbuilt")
    (fleet.trees / unbuilt / "bin" / "orbbench").unlink()
    missing = fleet.host("missing", broken="missing")
    r, _ = fleet.run([ok, rev, scen, unbuilt, missing], "--check", *TINY)
    assert r.returncode == 1
    lines = r.stderr.splitlines()

    def reason(host):
        return next((l for l in lines if l.startswith(f"run-fleet: {host}:")),
                    f"(no line for {host})")
    assert "client/main.c changed" in reason(rev)
    assert "scenario scenarios/grisby/06-sync-unix.json differs" in \
        reason(scen)
    assert "bin/orbbench not built (--build runs make there)" in \
        reason(unbuilt)
    assert f"no folder {fleet.trees / missing}" in reason(missing)
    assert not any(l.startswith(f"run-fleet: {ok}:") for l in lines)
    assert "1 of 5 hosts ready" in r.stderr
    for h in (ok, rev, scen, unbuilt):
        assert not (fleet.trees / h / "results").exists()
    assert_nothing_left(fleet.namespaces)


@pytest.mark.long
def test_failed_build_is_the_hosts_reason(fleet):
    """--build runs make where the client is not built; a make that fails
    marks that host failed with make's own words, and it does not run."""
    ok = fleet.host("ok")
    broken = fleet.host("build", broken="build")
    r, out = fleet.run([ok, broken], "--build", *TINY)
    assert r.returncode == 1, r.stderr
    hosts = by_host(fleet_doc(out))
    assert hosts[ok]["status"] == "ok"
    assert hosts[broken]["stage"] == "build"
    assert hosts[broken]["reason"].startswith("make failed (exit 2): ")
    assert "cannot create directory" in hosts[broken]["reason"]
    assert not (out / broken).exists()
    assert_nothing_left(fleet.namespaces)


@pytest.mark.long
def test_timeout_bounds_a_hanging_host(fleet):
    """A host whose client hangs is stopped at the fleet timeout and
    marked failed with it; the other host completes; nothing of the hung
    run is left in its namespace."""
    ok = fleet.host("ok")
    hang = fleet.host("hang", broken="hang")
    r, out = fleet.run([ok, hang], "--timeout", "10", *TINY)
    assert r.returncode == 1, r.stderr
    hosts = by_host(fleet_doc(out))
    assert hosts[ok]["status"] == "ok", r.stderr
    assert hosts[hang]["stage"] == "run"
    assert hosts[hang]["reason"] == "timed out after 10 s"
    assert_nothing_left(fleet.namespaces)


FAKE_SSH = """#!/bin/sh
# ssh as pdsh's ssh module calls it (options, HOST, the command line),
# reaching HOST as a network namespace. Like ssh it ignores SIGINT (pdsh
# starts it with SIGINT blocked) and runs the command as a child, so that
# the remote side learns of an interrupt only when its connection closes.
echo "$@" >> "$(dirname "$0")/calls"
while [ $# -gt 0 ]; do
  case "$1" in
    -o*|-2|-a|-x) shift ;;
    -l|-p) shift 2 ;;
    *) break ;;
  esac
done
host=$1; shift
trap '' INT
ip netns exec "$host" sh -c "$*"
"""


@pytest.mark.long
def test_ctrl_c_stops_every_host_over_ssh(fleet):
    """The real-cluster form (pdsh -R ssh, one tree per host by %h)
    through a stand-in ssh: SIGINT to run-fleet mid-run ends with exit
    130, every host's run stopped by its connection closing, what ran
    collected, nothing left running in any namespace."""
    hosts = [fleet.host("a"), fleet.host("b")]
    bindir = fleet.tmp / "fakebin"
    bindir.mkdir()
    (bindir / "ssh").write_text(FAKE_SSH)
    (bindir / "ssh").chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}")
    proc, out = fleet.start(hosts, *LONG, rcmd="ssh", env=env)
    try:
        # every host has its client running (and servers started)
        assert wait_for(lambda: runs_started(hosts), timeout=90), \
            "the hosts' runs did not start"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert_nothing_left(fleet.namespaces)
    # each host stopped its run itself, seeing its connection close: the
    # last pass (which would end a run left behind) found nothing to end
    assert "did not stop by itself" not in err, err
    assert (bindir / "calls").read_text().count(" -x ") >= 2 * 3
    doc = fleet_doc(out)
    assert doc["interrupted"] is True
    for h in hosts:
        e = by_host(doc)[h]
        assert e["status"] == "failed" and e["reason"] == "interrupted"
        res = json.loads((out / h / "06-sync-unix.json").read_text())
        assert res["result"]["stop_reason"] == "interrupted"


@pytest.mark.long
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL],
                         ids=["TERM", "KILL"])
def test_killed_run_fleet_leaves_nothing_on_the_hosts(fleet, sig):
    """SIGTERM (exit 143, after stopping every host) or SIGKILL (pdsh then
    gets its parent-death signal, and each host's fleet-host stops its run
    when pdsh goes) to run-fleet mid-run: within a bounded wait nothing of
    the run is left in any namespace."""
    hosts = [fleet.host("a")]
    proc, _ = fleet.start(hosts, *LONG)
    try:
        assert wait_for(lambda: runs_started(hosts), timeout=90), \
            "the hosts' runs did not start"
        proc.send_signal(sig)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == (143 if sig == signal.SIGTERM else -9)
    assert_nothing_left(fleet.namespaces, timeout=30)


# ---- the host axis on constructed results ---------------------------------

def sweep_doc(name, max_servers, pss, host="vm", kernel="6.1"):
    """A sweep result with steps up to max_servers, memory at each."""
    steps = [{"n": n, "round_ms": {"median": 1.0, "count": 10},
              "mem_per_server_kb": {"pss": pss, "uss": pss - 100}}
             for n in range(1, max_servers + 1)]
    return {"schema": "orbbench-result/1", "scenario": {
        "name": name, "sweep": {"max_ms": 100, "max_n": 10000}},
        "steps": steps, "probes": [],
        "result": {"max_servers": max_servers, "stop_reason": "latency"},
        "orb": {"name": "omniORB", "version": "4.2.5"},
        "host": {"hostname": host, "kernel": kernel, "cpus_online": 2,
                 "mem_total_kb": 1048576, "cpu_model": "ARM"},
        "tool": {"git_revision": "abc1234"}}


def test_hosts_data_by_hand():
    """hosts_data: per scenario each host's max servers (median and range
    over repeats) and memory per server at the held step; a scenario a
    host lacks is None; a host without sweeps is left out with its
    reason."""
    big = [sweep_doc("sync-unix", 100, 500.0), sweep_doc("sync-unix", 120,
                                                           520.0),
           sweep_doc("sync-unix", 110, 510.0), sweep_doc("pool5-unix", 30,
                                                           700.0)]
    small = [sweep_doc("sync-unix", 10, 900.0, host="arm", kernel="5.10")]
    hosts = [{"host": "big", "status": "ok", "results": big},
             {"host": "small", "status": "ok", "results": small},
             {"host": "dead", "status": "failed", "reason": "unreachable",
              "results": []}]
    data = orbhosts.hosts_data(hosts, "pss")
    assert data["hosts"] == ["big", "small"]
    assert data["left_out"] == [("dead", "unreachable")]
    # seed order: pool5-unix before sync-unix
    assert [s["scenario"] for s in data["scenarios"]] == ["pool5-unix",
                                                          "sync-unix"]
    pool, sync = data["scenarios"]
    assert pool["cells"]["small"] is None
    assert pool["cells"]["big"]["max_servers"] == 30
    b = sync["cells"]["big"]
    assert (b["max_servers"], b["max_servers_min"], b["max_servers_max"],
            b["runs"]) == (110, 100, 120, 3)
    assert b["mem_kb"] == 510.0
    assert sync["cells"]["small"]["max_servers"] == 10
    assert sync["cells"]["small"]["mem_kb"] == 900.0
    head, rows = orbhosts.hosts_table(data)
    assert head[1:] == ["big max servers", "big PSS KiB/server",
                        "small max servers", "small PSS KiB/server"]
    assert rows[1] == ["sync-unix", "110 (100–120, 3 runs)", "510", "10",
                       "900"]
    assert rows[0][3:] == ["—", "—"]
    ident = orbhosts.identity([orbresults.Result(None, d) for d in big + small])
    assert ident["kernel"] == "6.1, 5.10"
    assert ident["revision"] == "abc1234"


def test_host_figure_data():
    """One figure per scenario with a bar per host: the data it draws is
    hosts_data's, and a host without that scenario is said, not drawn as
    zero (the figure itself is drawn by the report in the fleet test)."""
    import orbbench.figures.hosts as figs_hosts
    hosts = [("big", [sweep_doc("sync-unix", 100, 500.0),
                      sweep_doc("pool5-unix", 30, 700.0)]),
             ("small", [sweep_doc("sync-unix", 10, 900.0)])]
    d = figs_hosts.host_figure_data(hosts, "pool5-unix")
    assert [b["host"] for b in d["bars"]] == ["big"]
    assert d["bars"][0]["max_servers"] == 30
    assert d["bars"][0]["mem_kb"] == 700.0
    assert d["bars"][0]["identity"] == "2 CPUs, 1.0 GiB"
    assert d["missing"] == ["small"]
    assert "small: no result" in figs_hosts.host_caption(d)
    d = figs_hosts.host_figure_data(hosts, "sync-unix")
    assert [(b["host"], b["max_servers"]) for b in d["bars"]] == \
        [("big", 100), ("small", 10)]
    assert d["missing"] == []
