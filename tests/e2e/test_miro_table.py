"""End-to-end: scripts/miro-table on a small real run of the Miro
scenarios (a few calls, real omniORB servers), and its input errors."""
import json
import shutil
import subprocess
import sys

import pytest

from conftest import ORBBENCH, ROOT, SCENARIOS, assert_nothing_left

import orbbench.miro as orbmiro

# One worker for the module (make test's -n 2): its module-scoped runs are
# made once, not once a worker.
pytestmark = pytest.mark.xdist_group("test_miro_table")

TABLE = ROOT / "scripts" / "miro-table"


def table(*args):
    return subprocess.run([sys.executable, str(TABLE), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Two payloads over both transports, a marshal run and a sweep: few
    calls each."""
    d = tmp_path_factory.mktemp("miro")
    for f in ["01-None-unix", "01-None-tcp", "06-SharedBelief-unix",
              "06-SharedBelief-tcp"]:
        subprocess.run([str(ORBBENCH), "run", str(SCENARIOS / "miro" /
                                                   f"{f}.json"),
                        "--set", "latency.calls=20", "--set",
                        "latency.warmup_calls=2", "--out", str(d / f"{f}.json")],
                       check=True, capture_output=True, timeout=60)
    subprocess.run([str(ORBBENCH), "run",
                    str(SCENARIOS / "miro" / "00-marshal.json"), "--set",
                    "marshal.encodes=20", "--set", "marshal.repeats=3",
                    "--out", str(d / "marshal.json")],
                   check=True, capture_output=True, timeout=60)
    subprocess.run([str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"),
                    "--set", "sweep.start=1", "--set", "sweep.max_n=1",
                    "--set", "sweep.rounds=2",
                    "--out", str(d / "sweep.json")],
                   check=True, capture_output=True, timeout=60)
    for f in d.glob("*.json"):
        assert_nothing_left(json.loads(f.read_text()))
    return d


def test_markdown(results):
    r = table(results)
    assert r.returncode == 0, r.stderr
    md = r.stdout
    assert "### omniORB 4.2.5 over TCP" in md
    assert "### omniORB 4.2.5 over Unix sockets" in md
    assert ("| payload | min | mean | max | std dev | median | p99 | calls | "
            "marshal ns (omniORB) | seed: min | mean | max | std dev | "
            "median |") in md
    rows = [line for line in md.splitlines()
            if line.startswith("| SharedBelief |")]
    # two latency rows (TCP, Unix), the size row, the marshal row
    assert len(rows) == 4
    # the seed's own figures beside ours
    assert rows[0].endswith("| 28 | 40 | 349 | 872 | 32 |")
    assert "| 20 |" in rows[0]  # calls
    assert "| SharedBelief | 1260 | 1332 | 1284 | 1636 |" in md  # sizes
    assert "## Marshaling alone" in md
    assert "sweep" not in md.lower().split("## marshaling alone")[0]


def test_json_is_the_samples(results):
    r = table(results, "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    rows = {(x["transport"], x["payload"]): x for x in data["latency"]}
    assert set(rows) == {(t, p) for t in ("tcp", "unix")
                         for p in ("None", "SharedBelief")}
    doc = json.loads((results / "06-SharedBelief-unix.json").read_text())
    us = sorted(ns / 1e3 for ns in doc["latency"]["samples_ns"])
    got = rows[("unix", "SharedBelief")]["calls_us"]
    assert got["count"] == 20
    assert got["min"] == pytest.approx(us[0])
    assert got["max"] == pytest.approx(us[-1])
    # the client's summary and the script's agree
    for k in ("mean", "median", "p99", "stddev"):
        assert got[k] == pytest.approx(doc["latency"]["call_us"][k],
                                       rel=1e-6)
    assert rows[("unix", "None")]["seed_us"] == {
        "min": 2, "mean": 3, "max": 319, "stddev": 30, "median": 3}
    names = [m["payload"] for m in data["marshal"]]
    assert names == orbmiro.PAYLOADS
    assert all(m["c_ns"] > 0 and m["omniorb_ns"] > 0 for m in data["marshal"])


def test_repeats_pool_their_calls(results, tmp_path):
    d = tmp_path / "two"
    d.mkdir()
    src = results / "06-SharedBelief-unix.json"
    shutil.copy(src, d / "a.json")
    shutil.copy(src, d / "b.json")
    r = table(d, "--json")
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)["latency"]
    assert row["runs"] == 2 and row["calls_us"]["count"] == 40
    assert json.loads(r.stdout)["marshal"] == []
    assert "marshal ns" not in table(d).stdout  # no column without them


@pytest.mark.parametrize("setup,message", [
    ("missing", "not a result folder"),
    ("sweep-only", "no latency or marshal results"),
    ("broken", "not valid JSON"),
])
def test_bad_input_is_exit_2(results, tmp_path, setup, message):
    d = tmp_path / setup
    if setup != "missing":
        d.mkdir()
        shutil.copy(results / "sweep.json", d / "sweep.json")
    if setup == "broken":
        (d / "x.json").write_text("{")
    r = table(d)
    assert r.returncode == 2
    assert r.stderr.startswith("miro-table: ") and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_quantile_and_stats():
    assert orbmiro.quantile([1, 2, 3, 4], 0.5) == 2.5
    assert orbmiro.quantile([5], 0.99) == 5
    assert orbmiro.quantile([], 0.5) is None
    s = orbmiro.call_stats([1000, 2000, 3000, 4000])
    assert (s["min"], s["mean"], s["max"], s["median"]) == (1, 2.5, 4, 2.5)
    assert s["p99"] == pytest.approx(3.97)
    assert s["stddev"] == pytest.approx(1.118034, rel=1e-6)
