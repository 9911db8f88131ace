"""Kind fanin: N connections over k servers started once (issue 25).
The server side is what these tests check: a thread-per-connection
omniORB server's threads grow with the connections, its thread pool's do
not; a descriptor limit on either side is a `resource` stop naming it
before the step that would pass it; nothing is left running after a run,
an interrupt or a killed server."""
import json
import os
import signal

import pytest

from conftest import (ORBBENCH, SCENARIOS, assert_nothing_left, finish,
                      run_suite)
from reportkit import script

FANIN = SCENARIOS / "fanin"
# Small and quick: 4, 20, 36 connections, two timed rounds each.
SMALL = ("fanin.start=4", "fanin.growth=1", "fanin.step=16",
         "fanin.max_n=36", "fanin.rounds=2")


def threads(step):
    return step["servers_total"]["threads"]


def test_thread_per_connection_grows_the_pool_does_not(orbbench):
    """Every call of a round in flight at once (mode event): omniORB's
    default server starts a thread per connection, so its threads follow
    the connections; its pool of 3 keeps them bounded. Each run ends at
    max_n with every step's footprint taken from the server's /proc."""
    tpc = orbbench(FANIN / "01-omniorb-tpc-unix.json", *SMALL)
    pool = orbbench(FANIN / "03-omniorb-pool-unix.json", *SMALL,
                    'server.args=["-ORBthreadPerConnectionPolicy", "0", '
                    '"-ORBmaxServerThreadPoolSize", "3"]')
    for r in (tpc, pool):
        assert r.rc == 0, r.stderr
        assert r.doc["kind"] == "fanin"
        assert r.doc["result"]["stop_reason"] == "max_n"
        assert r.doc["result"]["max_connections"] == 36
        assert (r.doc["result"]["held"], r.doc["result"]["held_unit"]) == \
            (36, "connections")
        assert [s["n"] for s in r.doc["steps"]] == [4, 20, 36]
        # one server held them all: the same pid at every step
        assert len(r.doc["servers"]) == 1
        assert all(s["footprint"]["of"] == 1 for s in r.doc["steps"])
        assert r.doc["servers_baseline"]["threads"]["sum"] >= 1
    first, last = tpc.doc["steps"][0], tpc.doc["steps"][-1]
    # 32 more connections, at least 0.9 of a thread each
    assert threads(last) - threads(first) >= 0.9 * 32, tpc.doc["steps"]
    assert last["per_connection"]["threads"] >= 0.9
    assert 0.9 <= last["per_connection"]["fds"] <= 1.1
    first, last = pool.doc["steps"][0], pool.doc["steps"][-1]
    base = pool.doc["servers_baseline"]["threads"]["sum"]
    assert threads(last) <= base + 3 + 2, pool.doc["steps"]
    assert threads(last) - threads(first) <= 3
    assert last["per_connection"]["threads"] < 0.3
    assert "connections" in tpc.stdout and "held 36" in tpc.stdout
    # result.costs: what a connection cost, read at the last step.
    for r in (tpc, pool):
        mem = r.doc["result"]["costs"]["memory"]
        per = r.doc["steps"][-1]["per_connection"]
        assert mem["per"] == "connection" and mem["n"] == 36
        assert (mem["threads"], mem["fds"], mem["pss_kb"]) == \
            (per["threads"], per["fds"], per["pss_kb"])
        assert r.doc["result"]["costs"]["server_cpu"]["n"] == 36


def test_the_suite_table_gives_what_a_connection_costs(tmp_path):
    """run-suite's closing table over fanin rows: the cost columns are a
    connection's, and its note says so."""
    src = tmp_path / "src"
    src.mkdir()
    doc = json.loads((FANIN / "01-omniorb-tpc-unix.json").read_text())
    doc["fanin"].update(start=4, growth=1, step=16, max_n=36, rounds=2)
    (src / "tpc.json").write_text(json.dumps(doc))
    r = run_suite(src, "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    [line] = [x for x in r.stdout.splitlines()
              if x.startswith("fanin-omniorb-tpc-unix")]
    cells = line.split()
    # max connections, crossing, PSS, USS, threads (about 1), fds (1), at N
    assert cells[1] == "36" and cells[7] == "36", line
    assert 0.9 <= float(cells[5]) <= 1.1 and cells[6] == "1", line
    assert "what one connection added to the servers" in \
        " ".join(r.stdout.split())


def test_client_descriptor_limit_is_a_named_resource_stop(orbbench):
    """fanin.client_nofile caps the client's RLIMIT_NOFILE: the step that
    would pass it is not tried, the run stops as `resource` (exit 0)
    naming the limit, every step before it kept."""
    r = orbbench(FANIN / "02-omniorb-tpc-tcp.json", "fanin.start=8",
                 "fanin.growth=1", "fanin.step=8", "fanin.max_n=400",
                 "fanin.rounds=2", "fanin.client_nofile=60", "mode=sync")
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "resource", res
    assert "the client's RLIMIT_NOFILE 60" in res["detail"]
    held = res["max_connections"]
    assert 8 <= held < 60
    assert r.doc["steps"][-1]["n"] == held
    assert r.doc["steps"][-1]["client"]["fds"] <= 60


def test_server_descriptor_limit_is_a_named_resource_stop(orbbench):
    """fanin.server_nofile sets each server's RLIMIT_NOFILE once it is
    up: the step that would have one hold more descriptors stops the run
    as `resource`, naming that server, before it is tried; no server
    ever held more."""
    r = orbbench(FANIN / "07-giopmin-unix.json", "fanin.servers=2",
                 "fanin.start=8", "fanin.growth=1", "fanin.step=8",
                 "fanin.max_n=400", "fanin.rounds=2",
                 "fanin.server_nofile=40")
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "resource", res
    assert "'s (pid " in res["detail"] and "RLIMIT_NOFILE 40" in \
        res["detail"]
    assert all(s["footprint"]["fds"]["max"] <= 40 for s in r.doc["steps"])
    # two servers shared them: about half each
    assert 40 <= res["max_connections"] <= 2 * 40


def declaring_server(tmp_path, line):
    """giop-min behind a wrapper that first writes `line` on its stderr,
    as a server with a limit of its own declares it
    (docs/servers.md#declared-limits)."""
    real = os.path.join(os.path.dirname(str(ORBBENCH)), "giop-min-server")
    path = tmp_path / "declaring-server"
    path.write_text(f"#!/bin/sh\necho '{line}' >&2\nexec {real} \"$@\"\n")
    path.chmod(0o755)
    return f"server.path={path}"


def test_declared_descriptor_limit_is_a_named_resource_stop(orbbench,
                                                            tmp_path):
    """A server that declares on stderr that it serves at most 30
    descriptors (as TAO's select() reactor does at FD_SETSIZE) is never
    given more: the step that would pass it is a `resource` stop quoting
    the declaration, and the result records it. giop-min itself has no
    such limit, so without the declaration this run goes to max_n."""
    r = orbbench(FANIN / "07-giopmin-unix.json", "fanin.start=8",
                 "fanin.growth=1", "fanin.step=8", "fanin.max_n=200",
                 "fanin.rounds=2",
                 declaring_server(tmp_path, "orbbench-limit descriptors 30: "
                                  "a select() loop, FD_SETSIZE 30"))
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "resource", res
    assert "serves at most 30 descriptors, as it declared (a select() " \
        "loop, FD_SETSIZE 30)" in res["detail"], res
    assert r.doc["declared_limits"] == [
        {"server": 0, "descriptors": 30,
         "why": "a select() loop, FD_SETSIZE 30"}]
    assert all(s["footprint"]["fds"]["max"] <= 30 for s in r.doc["steps"])
    assert 8 <= res["max_connections"] < 30


def test_malformed_declaration_names_the_server(orbbench, tmp_path):
    r = orbbench(FANIN / "07-giopmin-unix.json", *SMALL,
                 declaring_server(tmp_path, "orbbench-limit descriptors "
                                  "many: no number"))
    assert r.rc == 1, r.stderr
    assert "server 0 declared \"orbbench-limit descriptors many: no " \
        "number\"" in r.doc["result"]["detail"]


# long (make test-long): 8 s, two suites of paired fanin runs; the
# kind's own results stay in make test above.
@pytest.mark.long
def test_compare_reads_connections_held(orbbench, tmp_path):
    """compare takes fan-in results like sweeps: two runs a side of a
    omniORB pool fan-in that ends at max_n (no crossing), so crossing N falls
    back to each run's max_connections; server CPU and memory per server
    at a common N of connections."""
    sides = {}
    for side, work in (("a", 0), ("b", 400)):
        folder = tmp_path / "suite" / side
        folder.mkdir(parents=True)
        for k in range(2):
            r = orbbench(FANIN / "03-omniorb-pool-unix.json", *SMALL,
                         f"server.work_us={work}")
            assert r.rc == 0, r.stderr
            (folder / f"03-omniorb-pool-unix-r{k + 1}.json").write_text(
                json.dumps(r.doc))
        sides[side] = folder
    cmp = script("compare", sides["a"], sides["b"], "--format", "json")
    assert cmp.returncode == 0, cmp.stderr
    row, = json.loads(cmp.stdout)["scenarios"]
    m = row["metrics"]
    assert m["crossing_n"]["a_values"] == [36, 36]
    assert m["crossing_n"]["b_values"] == [36, 36]
    assert row["a"]["max_servers"] == 36 and row["a"]["runs"] == 2
    assert row["at_n"] == 36
    # 400 µs of work a call: B's servers cost more per call, measured.
    # A's own cost per call moves with the host over so few calls (2
    # rounds of 36): 51 and 84 µs in one CI run, where B's 40 µs of work
    # read only 1.46x; 400 µs stands clear of that.
    assert m["server_cpu_us"]["ratio"] > 1.5, m["server_cpu_us"]
    assert m["pss_kb"]["a_values"] and m["pss_kb"]["b_values"]
    # The figures, a plot of one side and a report of both read the
    # fan-in's own settings (fanin.max_ms, fanin.growth), not a sweep's.
    plots = tmp_path / "plots"
    r = script("compare", sides["a"], sides["b"], "--plots", plots,
               timeout=180)
    assert r.returncode == 0, r.stderr
    assert list(plots.glob("*.png")), r.stdout
    r = script("plot", sides["a"], "--out", tmp_path / "plot", timeout=180)
    assert r.returncode == 0, r.stderr
    assert list((tmp_path / "plot").glob("*.png"))
    r = script("report", "--results", tmp_path / "suite", "--out",
               tmp_path / "report", timeout=300)
    assert r.returncode == 0, r.stderr
    assert "fanin-omniorb-pool-unix" in (tmp_path / "report" /
                                      "report.md").read_text()


def test_crossing_search_names_the_fanin_keys(orbbench):
    """The sweep's driver names its settings by the kind's own group: a
    fanin whose crossing search runs out of probes says fanin.max_probes
    (it said sweep.max_probes). Every call burns 1 ms of server CPU, so a
    round of 31 calls takes at least 15.5 ms on 2 CPUs: over max_ms 10;
    the first step, one call, is under it unless the host is ten times
    slower (a first step of 4 calls was over on a busy CI host)."""
    r = orbbench(FANIN / "03-omniorb-pool-unix.json", "fanin.start=1",
                 "fanin.growth=1", "fanin.step=30", "fanin.max_n=61",
                 "fanin.rounds=3", "fanin.near_rounds=4", "fanin.max_ms=10",
                 "fanin.max_probes=1", "server.work_us=1000", timeout=300)
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "latency", res
    assert {p["phase"] for p in r.doc["probes"]} == {"confirm"}
    assert "fanin.max_probes reached" in res["detail"], res["detail"]
    assert "sweep." not in res["detail"]


def test_bad_fanin_scenarios_exit_2(orbbench):
    for sets, needle in [
            (("transport=pipe",), "transport: \"pipe\" is one connection"),
            (("client.connect=false",), "client.connect: kind fanin"),
            (("fanin.start=50", "fanin.max_n=10"),
             "fanin.start: 50 is above fanin.max_n (10)"),
            (("sweep.max_n=10",), "sweep.max_n: only for")]:
        r = orbbench(FANIN / "09-raw-unix.json", *sets)
        assert r.rc == 2, (sets, r.stderr)
        assert needle in r.stderr, (sets, r.stderr)


def test_interrupt_stops_the_run_and_its_servers(live_fanin):
    proc, out, _ = live_fanin()
    proc.send_signal(signal.SIGINT)
    _, err = finish(proc, 60)
    assert proc.returncode == 130, err
    final = json.loads(out.read_text())
    assert final["result"]["stop_reason"] == "interrupted"
    assert final["steps"]
    assert final["result"]["max_connections"] == final["steps"][-1]["n"]
    assert_nothing_left(final)


def test_killed_server_is_server_died(live_fanin):
    """SIGKILL one of the two servers: the round's call on one of its
    connections fails, the run says which server died."""
    proc, out, doc = live_fanin()
    victim = doc["servers"][1]["pid"]
    os.kill(victim, signal.SIGKILL)
    _, err = finish(proc, 60)
    assert proc.returncode == 1, err
    final = json.loads(out.read_text())
    res = final["result"]
    assert res["stop_reason"] == "server_died", res
    assert f"pid {victim}" in res["detail"]
    assert "killed by signal 9" in res["detail"]
    assert final["steps"]
    assert_nothing_left(final)
