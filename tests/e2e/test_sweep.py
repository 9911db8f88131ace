"""End-to-end: sweeps against real omniORB servers over TCP and Unix
sockets, their results, and the stop conditions."""
import pytest

from conftest import SCENARIOS

STATS = ("min", "mean", "median", "p90", "p99", "max", "stddev", "count")


def check_summary(s, count):
    assert set(STATS) <= set(s)
    assert s["count"] == count
    assert 0 < s["min"] <= s["median"] <= s["p90"] <= s["p99"] <= s["max"]
    assert s["min"] <= s["mean"] <= s["max"]
    assert s["stddev"] >= 0


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_sweep_to_max_n(orbbench, transport):
    r = orbbench(SCENARIOS / f"sync-{transport}.json", "sweep.start=1",
                 "sweep.step=5", "sweep.max_n=20", "sweep.rounds=5")
    assert r.rc == 0, r.stderr
    doc = r.doc
    assert doc["schema"] == "orbbench-result/1"
    assert doc["result"]["stop_reason"] == "max_n"
    assert doc["result"]["max_servers"] == 20
    # the same number as held, in its unit (max_servers: its earlier name)
    assert (doc["result"]["held"], doc["result"]["held_unit"]) == \
        (20, "servers")
    assert doc["orb"]["name"] == "omniORB"
    assert doc["orb"]["version"].startswith("4.")
    assert doc["scenario"]["transport"] == transport
    assert doc["scenario"]["sweep"]["max_n"] == 20
    ns = [s["n"] for s in doc["steps"]]
    assert ns == [1, 6, 11, 16, 20]
    for step in doc["steps"]:
        check_summary(step["round_ms"], 5)
        # every call of every timed round is kept and checked
        check_summary(step["call_us"], 5 * step["n"])
        assert step["calls"] == 5 * step["n"]
        assert step["mem_available_kb"] > 0
        # a round of n calls cannot be faster than its fastest call
        assert step["round_ms"]["min"] * 1000 >= step["call_us"]["min"]
    elapsed = [s["elapsed_s"] for s in doc["steps"]]
    assert elapsed == sorted(elapsed)
    pids = [s["pid"] for s in doc["servers"]]
    assert len(pids) == 20 and len(set(pids)) == 20
    assert "held 20 servers" in r.stdout


def test_geometric_sweep(orbbench):
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=2",
                 "sweep.growth=2", "sweep.max_n=12", "sweep.rounds=2")
    assert r.rc == 0, r.stderr
    assert [s["n"] for s in r.doc["steps"]] == [2, 4, 8, 12]


def test_tiny_max_ms_stops_on_latency(orbbench):
    r = orbbench(SCENARIOS / "sync-tcp.json", "sweep.start=2",
                 "sweep.max_ms=0.0001", "sweep.max_n=20")
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "latency"
    assert res["max_servers"] == 0
    assert len(r.doc["steps"]) == 1
    assert r.doc["steps"][0]["round_ms"]["median"] > 0.0001
    # Confirmed at N=2, then bisected down to N=1: still over.
    phases = [(p["phase"], p["n"], p["pooled"]["decision"])
              for p in r.doc["probes"]]
    assert phases == [("confirm", 2, "over"), ("bisect", 1, "over")]
    assert res["crossing_n"] is None and res["crossing_interval"] is None
    assert res["crossing"]["bracket"] == [0, 1]
    assert "exceeded max_ms 0.0001 even at N=1" in res["detail"]


def test_no_search_stops_at_the_first_step_over(orbbench):
    r = orbbench(SCENARIOS / "sync-tcp.json", "sweep.start=2",
                 "sweep.max_ms=0.0001", "sweep.max_n=20",
                 "sweep.resolution=0")
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] == "latency"
    assert r.doc["probes"] == []
    assert "crossing_n" not in res
    assert "exceeded max_ms" in res["detail"]


def test_overrides_are_recorded(orbbench):
    r = orbbench(SCENARIOS / "sync-tcp.json", "sweep.start=3",
                 "sweep.max_n=3", "call.payload_bytes=1000",
                 "server.args=-ORBtraceLevel 0")
    assert r.rc == 0, r.stderr
    sc = r.doc["scenario"]
    assert sc["call"]["payload_bytes"] == 1000
    assert sc["server"]["args"] == ["-ORBtraceLevel", "0"]
    assert sc["sweep"]["rounds"] == 10  # a default, filled in
    assert r.doc["steps"][0]["calls"] == 30


def test_version_names_the_revision_built():
    """The revision a result records is the one built: the Makefile
    rewrites it whenever `git describe` changes (it used to be a -D flag
    that stayed with whichever build last compiled result.c)."""
    import subprocess
    from conftest import ORBBENCH, ROOT
    rev = subprocess.run(["git", "describe", "--always", "--dirty"],
                         cwd=ROOT, capture_output=True, text=True)
    if rev.returncode != 0:
        pytest.skip("not a git checkout")
    out = subprocess.run([str(ORBBENCH), "--version"], capture_output=True,
                         text=True, timeout=10).stdout
    assert f"({rev.stdout.strip()})" in out, \
        f"{out.strip()}: built from another revision (run make)"
