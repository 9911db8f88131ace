"""End-to-end: scripts/plot, scripts/compare and scripts/report on the
result fixtures in tests/fixtures/ (see its README), their error paths, and
one real small run fed through plot."""
import csv
import io
import json
import re
import statistics
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS, run_suite

SCRIPTS = ROOT / "scripts"
FIX = ROOT / "tests" / "fixtures"
A, B = FIX / "A", FIX / "B"
SCENARIO_NAMES = ["thread-per-call-tcp", "thread-per-call-unix",
                  "pool100-tcp", "pool100-unix", "pool5-unix", "sync-unix",
                  "event-tcp", "event-unix"]
WITH_FOOTPRINT = {"pool100-tcp", "pool5-unix", "sync-unix", "event-tcp",
                  "event-unix"}
PAIRED = ROOT / "results" / "examples" / "resolution-2026-11-30" / \
    "paired-base-vs-work6"


def script(name, *args, timeout=60):
    return subprocess.run([str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def png_size(path):
    """(width, height) from the PNG's IHDR chunk."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def check_png(path):
    """A PNG of some size, and its SVG beside it."""
    assert path.is_file() and path.stat().st_size > 5000, path
    w, h = png_size(path)
    assert w >= 400 and h >= 300, (path, w, h)
    svg = path.with_suffix(".svg")
    assert svg.is_file() and b"<svg" in svg.read_bytes()[:2000]


def load(path):
    return json.loads(Path(path).read_text())


def docs_of(folder):
    """{scenario name: [doc, …]} straight from the fixture files."""
    out = {}
    for f in sorted(Path(folder).glob("*.json")):
        if f.name != "summary.json":
            d = load(f)
            out.setdefault(d["scenario"]["name"], []).append(d)
    return out


# ---- plot -----------------------------------------------------------------

@pytest.fixture(scope="module")
def plotted(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots") / "A"
    r = script("plot", A, "--out", out)
    assert r.returncode == 0, r.stderr
    return out, r


def test_plot_writes_a_figure_per_question(plotted):
    # The fixtures are older results: no crossing_n (capacity falls back
    # to max servers), no per-round times (no every-round figure), a
    # footprint in five scenarios (the cost figure has those).
    out, r = plotted
    for stem in ("capacity", "latency-panels", "cost"):
        check_png(out / f"{stem}.png")
    assert sorted(p.stem for p in out.glob("*.png")) == \
        ["capacity", "cost", "latency-panels"]
    assert "fixed-n: skipped" in r.stderr
    # said once for all of them: every scenario lacks rounds_ms
    assert re.search(r"^plot: rounds: skipped, these results keep no "
                     r"per-round times \(rounds_ms", r.stderr, re.M), r.stderr


def test_plot_labels_units_and_footer(plotted):
    out, _ = plotted
    doc = load(A / "sync-unix.json")
    footer = [doc["host"]["hostname"], "omniORB 4.2.5",
              doc["started_at"][:10]]
    labels = {"capacity": ["servers", "max_servers"] + SCENARIO_NAMES,
              "latency-panels": ["servers (N)", "median round time (ms)",
                                 "max_ms"] + SCENARIO_NAMES,
              "cost": ["memory per server (KiB)", "MemAvailable drop"]}
    for stem, want in labels.items():
        svg = (out / f"{stem}.svg").read_text()
        for text in want + footer:
            assert text in svg, (stem, text)


def test_plot_names_results_left_out_of_cost(plotted):
    _, r = plotted
    lines = [l for l in r.stderr.splitlines() if l.startswith("plot: cost")]
    text = "\n".join(lines)
    for name in set(SCENARIO_NAMES) - WITH_FOOTPRINT:
        assert f"left out {name} " in text, (name, text)
    for name in WITH_FOOTPRINT:
        assert f"left out {name} " not in text, (name, text)


def test_plot_skips_figure_whose_fields_are_missing(tmp_path):
    r = script("plot", A / "thread-per-call-tcp.json", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^plot: cost: skipped", r.stderr, re.M), r.stderr
    assert not (tmp_path / "cost.png").exists()
    check_png(tmp_path / "latency-panels.png")
    check_png(tmp_path / "capacity.png")


def test_plot_result_without_steps(tmp_path):
    r = script("plot", FIX / "edge" / "server-died.json", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert re.search(r"^plot: .*skipped", r.stderr, re.M), r.stderr


def test_plot_rounds_for_chosen_scenario(tmp_path):
    r = script("plot", PAIRED / "base", "--rounds", "sync-unix", "--out",
               tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp_path.glob("rounds-*.png")] == \
        ["rounds-sync-unix.png"]
    r = script("plot", PAIRED / "base", "--rounds", "nosuch", "--out",
               tmp_path)
    assert r.returncode == 2 and "--rounds nosuch" in r.stderr


def test_plot_splits_runs_whose_settings_differ(tmp_path):
    """Idle and connected runs of one scenario: two rows of the cost
    figure, named by the setting."""
    r = script("plot", ROOT / "results" / "examples" / "idle-vs-connected",
               "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    svg = (tmp_path / "cost.svg").read_text()
    assert "client.connect=false" in svg and "client.connect=true" in svg


def test_real_small_run_through_plot(orbbench, tmp_path):
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=2",
                 "sweep.step=4", "sweep.max_n=10", "sweep.rounds=3")
    assert r.rc == 0, r.stderr
    result = next(tmp_path.glob("result-*.json"))
    out = tmp_path / "plots"
    p = script("plot", result, "--out", out)
    assert p.returncode == 0, p.stderr
    for stem in ("capacity", "latency-panels", "cost", "rounds-sync-unix"):
        check_png(out / f"{stem}.png")


def test_shared_ordering_and_grouping():
    import sys
    sys.path.insert(0, str(SCRIPTS))
    import orbresults as R
    assert R.seed_order(["event-tcp", "zz", "sync-unix",
                         "thread-per-call-tcp"]) == \
        ["thread-per-call-tcp", "sync-unix", "event-tcp", "zz"]
    res = R.load_results([A / "sync-unix.json", B / "sync-unix.json"])
    assert list(R.group_by_scenario(res)) == ["sync-unix"]
    assert list(R.group_by_scenario(res, split_orbs=True)) == \
        ["sync-unix [omniORB 4.2.5]", "sync-unix [omniORB 4.3.3]"]


def test_grouping_splits_runs_by_the_settings_that_differ():
    """Idle and connected runs of one scenario are two series, named by
    the setting that differs; repeats stay together; compare's grouping
    (no split) still sees one scenario, so it can refuse the mix."""
    import sys
    sys.path.insert(0, str(SCRIPTS))
    import orbresults as R
    res = R.load_results([ROOT / "results" / "examples" /
                          "idle-vs-connected"])
    groups = R.group_by_scenario(res, split_orbs=True, split_settings=True)
    assert {k: [r.path.name for r in v] for k, v in groups.items()} == {
        "sync-unix [client.connect=true]": ["connected-1.json",
                                            "connected-2.json"],
        "sync-unix [client.connect=false]": ["idle-1.json", "idle-2.json"]}
    assert list(R.group_by_scenario(res)) == ["sync-unix"]
    # Two ORBs and a setting: both in one bracket.
    docs = [result_doc("sync-unix", 100), result_doc("sync-unix", 100),
            result_doc("sync-unix", 100,
                       scenario={"server.work_us": 6}, orb=ORB_433)]
    rs = [R.Result(Path(f"r{i}.json"), d) for i, d in enumerate(docs)]
    assert list(R.group_by_scenario(rs, split_orbs=True,
                                    split_settings=True)) == [
        "sync-unix [omniORB 4.2.5, server.work_us=0]",
        "sync-unix [omniORB 4.3.3, server.work_us=6]"]


# ---- compare on the fixtures -----------------------------------------------

def expected_row(da, db):
    """What compare must show of one single-run scenario of the fixtures:
    their steps share one grid, 4 apart, so the round time at the largest
    N both reached is that step's (no other measurement within ±15%)."""
    a, b = da[0], db[0]
    ma, mb = a["result"]["max_servers"], b["result"]["max_servers"]
    n = min(a["steps"][-1]["n"], b["steps"][-1]["n"])
    sa = next(s for s in a["steps"] if s["n"] == n)
    sb = next(s for s in b["steps"] if s["n"] == n)
    pa = sa.get("mem_per_server_kb", {}).get("pss")
    pb = sb.get("mem_per_server_kb", {}).get("pss")
    return {"max_a": ma, "max_b": mb, "ratio": mb / ma if ma else None,
            "n": n, "round_ratio": sb["round_ms"]["median"] /
            sa["round_ms"]["median"],
            "mem_ratio": pb / pa if pa and pb else None}


def two(x):
    return "—" if x is None else f"{x:.2f}"


def test_compare_ratios_and_environment(tmp_path):
    r = script("compare", A, B)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    # the environment comes before the table, naming what differs
    table_at = out.index("scenario  ")
    env = out[:table_at]
    assert "ORB: omniORB 4.2.5 → omniORB 4.3.3" in env
    assert "cflags: -O2 → -O3" in env
    assert "revision 45eb733-dirty) → orbbench 0.1.0 (revision 7f46e50" \
        in env
    assert "servers on CPUs 0, client on CPUs 1" in env
    da, db = docs_of(A), docs_of(B)
    rows = {l.split()[0]: l for l in out[table_at:].splitlines()[1:9]}
    assert list(rows) == SCENARIO_NAMES  # the seed's order
    for name in SCENARIO_NAMES:
        e = expected_row(da[name], db[name])
        # scenario, crossing N A, B, B/A, at N, round ms B/A, PSS at N,
        # PSS B/A, verdict: one run a side, so plain ratios, no verdict
        cells = rows[name].split()
        assert cells[1:3] == [str(e["max_a"]), str(e["max_b"])]
        assert cells[3] == two(e["ratio"])
        assert cells[4] == str(e["n"]) and cells[5] == two(e["round_ratio"])
        assert cells[7] == two(e["mem_ratio"])
        assert cells[8] == "—"
    assert "No verdicts: one run on a side; repeats are needed " \
        "(run-suite --repeat 3)." in out
    assert "crossing N (all scenarios): max_servers (no crossing_n in " \
        "these results)" in out


def test_compare_json_md_csv():
    r = script("compare", A, B, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    da, db = docs_of(A), docs_of(B)
    assert [s["scenario"] for s in doc["scenarios"]] == SCENARIO_NAMES
    for s in doc["scenarios"]:
        e = expected_row(da[s["scenario"]], db[s["scenario"]])
        ms = s["metrics"]
        assert s["at_n"] == ms["round_ms"]["at_n"] == e["n"]
        assert ms["crossing_n"]["source"] == "max_servers"
        for key, want in (("crossing_n", e["ratio"]),
                          ("round_ms", e["round_ratio"]),
                          ("pss_kb", e["mem_ratio"])):
            got = ms[key]["ratio"]
            assert got == pytest.approx(want) if want else got is None
            assert ms[key]["verdict"] == "n/a"
            assert ms[key]["p_value"] is None
        assert s["verdict"] == "n/a"
    assert doc["method"]["tests"] == 0
    fields = {d["field"] for d in doc["environment_differences"]}
    assert {"ORB", "ORB id", "tool", "cflags", "CPU placement"} <= fields
    md = script("compare", A, B, "--format", "md").stdout
    assert "| scenario | crossing N A | crossing N B | B/A [95% CI] |" in md
    assert md.index("ORB: omniORB 4.2.5") < md.index("| scenario |")
    c = script("compare", A, B, "--format", "csv", "--at", "2")
    rows = list(csv.DictReader(io.StringIO(c.stdout)))
    assert list(rows[0])[:3] == ["scenario", "metric", "at_n"]
    assert [r["scenario"] for r in rows[::4]] == SCENARIO_NAMES
    assert [r["metric"] for r in rows[:4]] == \
        ["crossing_n", "round_ms", "server_cpu_us", "pss_kb"]
    assert {r["at_n"] for r in rows if r["metric"] != "crossing_n"} == {"2"}
    assert "ORB: omniORB 4.2.5" in c.stderr  # environment kept off the CSV


def test_compare_makes_no_crossing_test_of_fixed_n_runs():
    """The bench suite measures one N: its crossing would be that N on
    every run, so compare leaves the metric empty and says why, while
    round time and CPU per call are still tested."""
    bench = ROOT / "results" / "examples" / "bench-omniorb-4.2.5-vs-4.3.3"
    r = script("compare", bench / "omniorb-system", bench / "omniorb-4.3.3",
               "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["scenarios"]) == 8
    for s in doc["scenarios"]:
        m = s["metrics"]["crossing_n"]
        assert m["source"] == "fixed_n" and m["ratio"] is None
        assert m["verdict"] == "n/a"
        assert m["notes"] == ["fixed N: the runs measured one N, no crossing"]
        assert s["metrics"]["round_ms"]["p_value"] is not None


def test_compare_repeats_runs_and_tests():
    r = script("compare", FIX / "repeat-A", FIX / "repeat-B",
               "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    da, db = docs_of(FIX / "repeat-A"), docs_of(FIX / "repeat-B")
    tested = 0
    for s in doc["scenarios"]:
        ma = [d["result"]["max_servers"] for d in da[s["scenario"]]]
        mb = [d["result"]["max_servers"] for d in db[s["scenario"]]]
        assert len(ma) == len(mb) == 3
        c = s["metrics"]["crossing_n"]
        assert (c["a_values"], c["b_values"]) == (ma, mb)  # file order
        assert (c["n_a"], c["n_b"]) == (3, 3)
        assert (s["a"]["max_servers_min"], s["a"]["max_servers_max"]) == \
            (min(ma), max(ma))
        assert [x["max_servers"] for x in s["crossing"]["b"]] == mb
        for m in s["metrics"].values():
            if m["p_value"] is not None:
                tested += 1
                assert m["q_value"] >= m["p_value"]
                assert m["ci_low"] <= m["ratio"] <= m["ci_high"]
    assert doc["method"]["tests"] == tested > 0
    text = script("compare", FIX / "repeat-A", FIX / "repeat-B").stdout
    assert f"BH-adjusted over {tested} tests, q < 0.05" in text
    assert "Smallest difference detectable" in text
    assert "6 (4–6)" in text  # pool5-unix in A: median (min–max)


def test_compare_figures(tmp_path):
    r = script("compare", FIX / "repeat-A", FIX / "repeat-B",
               "--plots", tmp_path)
    assert r.returncode == 0, r.stderr
    for stem in ("ab-capacity", "ab-ratio", "ab-latency", "cost"):
        check_png(tmp_path / f"{stem}.png")


# ---- compare on constructed results ---------------------------------------

ORB_425 = {"name": "omniORB", "version": "4.2.5", "id": "omniorb-system"}
ORB_433 = {"name": "omniORB", "version": "4.3.3", "id": "omniorb-4.3.3"}


def summary(value, count=10):
    return {"count": count, "min": value, "mean": value, "median": value,
            "p90": value, "p99": value, "max": value, "stddev": 0.0}


def measurement(n, round_ms, cpu_us=None, pss_kb=None, phase="sweep",
                rounds=10):
    """One step or probe as the client writes it."""
    m = {"n": n, "round_ms": summary(round_ms, rounds),
         "rounds_ms": [round_ms] * rounds, "calls": n * rounds,
         "phase": phase}
    if cpu_us is not None:
        m["cpu_per_call_us"] = {"server": cpu_us, "server_user": cpu_us / 2,
                                "server_sys": cpu_us / 2, "client_user": 1.0,
                                "client_sys": 1.0}
    if pss_kb is not None:
        m["mem_per_server_kb"] = {"pss": pss_kb, "uss": pss_kb - 50,
                                  "mem_available": pss_kb + 200}
    return m


def result_doc(name="sync-unix", crossing=100.0, steps=(), probes=(),
               orb=None, scenario=None, old=False, max_servers=None):
    """A small result of schema orbbench-result/1; old=True leaves out
    what older clients did not write (crossing_n, probes, phase)."""
    res = {"max_servers": max_servers if max_servers is not None else
           int(crossing or 0), "stop_reason": "latency", "detail": ""}
    sc = {"name": name, "description": "", "transport": "unix",
          "mode": "sync", "server": {"kind": "omniorb", "work_us": 0},
          "sweep": {"max_ms": 100.0, "max_n": 4000}}
    for key, value in (scenario or {}).items():
        group, _, leaf = key.partition(".")
        sc[group][leaf] = value
    doc = {"schema": "orbbench-result/1", "scenario": sc,
           "steps": list(steps), "result": res, "orb": dict(orb or ORB_425),
           "host": {"hostname": "h"}}
    if old:
        for s in doc["steps"]:
            s.pop("phase", None)
            s.pop("rounds_ms", None)
    else:
        res["crossing_n"] = crossing
        res["crossing_interval"] = None if crossing is None else \
            [crossing - 2, crossing + 2]
        doc["probes"] = list(probes)
    return doc


def write_side(folder, docs):
    """Write docs as NAME.rK.json into folder; return folder."""
    folder.mkdir(parents=True, exist_ok=True)
    counts = {}
    for d in docs:
        name = d["scenario"]["name"]
        counts[name] = counts.get(name, 0) + 1
        (folder / f"{name}.r{counts[name]}.json").write_text(json.dumps(d))
    return folder


def run_of(name, crossing, c_round, k_cpu, m_pss, last_probe):
    """A run whose median round time is c_round (n/10)^2 ms, server CPU
    k_cpu n/10 µs per call and PSS m_pss (400 + 3000/n) KiB: steps at 10,
    20, 30, 40, probes at 44, 46 (twice) and last_probe."""
    def at(n, phase, mem=True):
        return measurement(n, c_round * (n / 10) ** 2, k_cpu * n / 10,
                           m_pss * (400 + 3000 / n) if mem else None, phase)
    steps = [at(n, "sweep") for n in (10, 20, 30, 40)]
    probes = [at(44, "confirm", False), at(46, "bracket", False),
              at(46, "bisect", False), at(last_probe, "bisect", False)]
    return result_doc(name, crossing, steps, probes)


# Per scenario and side: crossing_n, round-time factor, CPU factor and PSS
# factor of three runs. The last probes are at 48, 50, 52 in A and 49, 51,
# 53 in B, so the largest N every run measured is 48 (a probe).
SYNTH = {
    # B holds 10% more servers with 20% shorter rounds, same CPU: faster
    "sync-unix": {"a": ([100, 101, 99], [1.0, 1.01, 0.99],
                        [10, 10.5, 9.5], [1.0, 1.01, 0.99]),
                  "b": ([110, 111, 109], [0.8, 0.808, 0.792],
                        [10.2, 9.7, 10.1], [1.08, 1.09, 1.07])},
    # B holds more servers but spends 20% more CPU per call: mixed
    "pool5-unix": {"a": ([100, 101, 99], [1.0, 1.01, 0.99],
                         [10, 10.1, 9.9], [1.0, 1.0, 1.0]),
                   "b": ([110, 111, 109], [1.0, 1.01, 0.99],
                         [12, 12.1, 11.9], [1.0, 1.0, 1.0])},
    # every difference inside the noise: same
    "event-tcp": {"a": ([100, 120, 80], [1.0, 1.2, 0.8],
                        [10, 12, 8], [1.0, 1.05, 0.95]),
                  "b": ([105, 125, 85], [1.05, 1.25, 0.85],
                        [10.5, 12.5, 8.5], [1.0, 0.95, 1.05])},
}


@pytest.fixture
def synth_sides(tmp_path):
    sides = {}
    for side, first in (("a", 48), ("b", 49)):
        docs = []
        for name, runs in SYNTH.items():
            cross, rnd, cpu, pss = runs[side]
            for i in range(3):
                docs.append(run_of(name, cross[i], rnd[i], cpu[i], pss[i],
                                   first + 2 * i))
                if side == "b":
                    docs[-1]["orb"] = dict(ORB_433)
        sides[side] = write_side(tmp_path / side.upper(), docs)
    return sides["a"], sides["b"]


def test_compare_json_on_constructed_results(synth_sides):
    a, b = synth_sides
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    rows = {s["scenario"]: s for s in doc["scenarios"]}
    assert set(rows) == set(SYNTH)
    # 3 scenarios × 4 metrics, but pool5-unix's PSS is the same in every
    # run of both sides: nothing to test there
    assert doc["method"]["tests"] == 11
    assert doc["method"]["adjustment"] == "Benjamini-Hochberg"
    for s in rows.values():
        for key in ("crossing_n", "round_ms", "server_cpu_us", "pss_kb"):
            m = s["metrics"][key]
            for field in ("ratio", "ci_low", "ci_high", "p_value",
                          "q_value", "verdict", "mde_pct", "a_values",
                          "b_values", "n_a", "n_b"):
                assert field in m, (key, field)
            assert (m["n_a"], m["n_b"]) == (3, 3)
            if m["p_value"] is not None:
                assert m["q_value"] >= m["p_value"]
        assert s["metrics"]["crossing_n"]["source"] == "crossing_n"
        assert "at_n" not in s["metrics"]["crossing_n"]
        assert s["at_n"] == 48
    s = rows["sync-unix"]
    ms = s["metrics"]
    assert ms["crossing_n"]["a_values"] == [100, 101, 99]
    # geometric means: (110·111·109)^(1/3) / (100·101·99)^(1/3) = 1.100006
    assert ms["crossing_n"]["ratio"] == pytest.approx(1.100006, rel=1e-6)
    assert ms["crossing_n"]["verdict"] == "faster"
    # round ms at N = 48, the largest N of the run that measured least:
    # c (48/10)^2 = 23.04 c, from probes (no step reached 48)
    assert ms["round_ms"]["at_n"] == 48
    assert ms["round_ms"]["a_values"] == \
        pytest.approx([23.04, 23.2704, 22.8096])
    assert ms["round_ms"]["ratio"] == pytest.approx(0.8)
    assert ms["round_ms"]["verdict"] == "faster"
    # CPU at 48: k 4.8 µs
    assert ms["server_cpu_us"]["b_values"] == \
        pytest.approx([48.96, 46.56, 48.48])
    assert ms["server_cpu_us"]["verdict"] == "same"
    # PSS at 40, the largest step of every run: m (400 + 75) KiB
    assert ms["pss_kb"]["at_n"] == 40
    assert ms["pss_kb"]["a_values"] == pytest.approx([475, 479.75, 470.25])
    assert ms["pss_kb"]["ratio"] == pytest.approx(1.08, rel=1e-3)
    assert ms["pss_kb"]["verdict"] == "larger"
    assert s["verdict"] == "faster"  # memory does not count
    assert s["crossing"]["a"][0] == {"file": "sync-unix.r1.json",
                                     "crossing_n": 100,
                                     "crossing_interval": [98, 102],
                                     "max_servers": 100}
    assert [c["crossing_n"] for c in s["crossing"]["b"]] == [110, 111, 109]
    p = rows["pool5-unix"]["metrics"]
    assert p["server_cpu_us"]["ratio"] == pytest.approx(1.2, rel=1e-3)
    assert p["server_cpu_us"]["verdict"] == "slower"
    assert p["pss_kb"]["verdict"] == "same"  # identical values, no test
    assert rows["pool5-unix"]["verdict"] == "mixed"
    assert {m["verdict"] for m in rows["event-tcp"]["metrics"].values()} \
        == {"same"}
    assert rows["event-tcp"]["verdict"] == "same"
    assert set(doc["mde_pct"]) == {"crossing_n", "round_ms",
                                   "server_cpu_us", "pss_kb"}


def test_compare_pairs_runs_of_one_paired_run(tmp_path):
    """Results of paired runs (orbbench --paired: "paired.id" in both) are
    matched by id, whatever their file order, and tested as pairs: a 5%
    shift in every pair is found through a run-to-run drift of ±20% that
    hides it from a test of independent samples."""
    crossings = [(100, 95), (120, 114), (80, 76)]
    docs_a, docs_b = [], []
    for i, (ca, cb) in enumerate(crossings):
        for side, c, docs in (("a", ca, docs_a), ("b", cb, docs_b)):
            d = run_of("sync-unix", c, 1.0, 10, 1.0, 48 + i)
            d["paired"] = {"id": f"p{i}", "side": side, "versus": []}
            docs.append(d)
    a = write_side(tmp_path / "A", docs_a)
    b = write_side(tmp_path / "B", docs_b[::-1])  # B's files in other order
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["scenarios"][0]
    assert s["paired"] is True
    m = s["metrics"]["crossing_n"]
    assert m["paired"] is True
    assert m["a_values"] == [100, 120, 80]
    assert m["b_values"] == [95, 114, 76]  # aligned with A by paired.id
    assert m["ratio"] == pytest.approx(0.95)
    assert m["verdict"] == "slower"
    # The same files without their pairing: independent samples, "same".
    for f in list(a.glob("*.json")) + list(b.glob("*.json")):
        d = json.loads(f.read_text())
        del d["paired"]
        f.write_text(json.dumps(d))
    r = script("compare", a, b, "--format", "json")
    m = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert m["verdict"] == "same" and "paired" not in m
    text = script("compare", a, b).stdout
    assert "paired" not in text.split("Verdicts:")[1].split("\n")[0]


def test_compare_text_on_constructed_results(synth_sides):
    a, b = synth_sides
    r = script("compare", a, b)
    assert r.returncode == 0, r.stderr
    table = r.stdout.split("Median round time at each N")[0]
    rows = {l.split()[0]: l for l in table.splitlines()
            if l.split() and l.split()[0] in SYNTH}
    assert "100 (99–101)" in rows["sync-unix"]
    assert "110 (109–111)" in rows["sync-unix"]
    assert "1.10 [" in rows["sync-unix"]
    assert rows["sync-unix"].rstrip().endswith("faster")
    assert rows["pool5-unix"].rstrip().endswith("mixed")
    assert rows["event-tcp"].rstrip().endswith("same")
    assert "Verdicts: Student t on log values per run, BH-adjusted over " \
        "11 tests, q < 0.05" in r.stdout
    pct = r"±[0-9.]+%"
    assert re.search(rf"Smallest difference detectable .*crossing N {pct}, "
                     rf"round ms {pct}, server CPU {pct}, PSS {pct}",
                     r.stdout)
    assert "repeats are needed" not in r.stdout


def test_compare_one_run_a_side_gives_no_verdict(tmp_path):
    a = write_side(tmp_path / "A", [run_of("sync-unix", 100, 1, 10, 1, 48)])
    b = write_side(tmp_path / "B", [run_of("sync-unix", 120, 1, 10, 1, 48),
                                    run_of("sync-unix", 121, 1, 10, 1, 48)])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["scenarios"][0]
    assert s["verdict"] == "n/a"
    assert {m["verdict"] for m in s["metrics"].values()} == {"n/a"}
    text = script("compare", a, b).stdout
    assert "No verdicts: one run on a side; repeats are needed " \
        "(run-suite --repeat 3)." in text
    assert not re.search(r"\b(faster|slower|same)\b", text)


def test_compare_old_results_fall_back_to_max_servers(tmp_path):
    def old(max_servers):
        d = run_of("sync-unix", None, 1, 10, 1, 40)
        d = result_doc("sync-unix", None, d["steps"], old=True,
                       max_servers=max_servers)
        return d
    a = write_side(tmp_path / "A", [old(40), old(44), old(42)])
    # B has crossing_n: like is compared with like, max_servers on both
    b = write_side(tmp_path / "B", [run_of("sync-unix", 50.5, 1, 10, 1, 48)
                                    for _ in range(3)])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "max_servers"
    assert c["a_values"] == [40, 44, 42] and c["b_values"] == [50, 50, 50]
    assert "max_servers (no crossing_n in these results)" in c["notes"]
    text = script("compare", a, b).stdout
    assert "max_servers (no crossing_n in these results)" in text


def test_compare_run_that_never_crossed_gives_max_servers(tmp_path):
    a = write_side(tmp_path / "A", [run_of("sync-unix", x, 1, 10, 1, 48)
                                    for x in (100.5, 101.5)])
    never = run_of("sync-unix", None, 1, 10, 1, 48)
    never["result"].update(max_servers=90, stop_reason="max_n")
    b = write_side(tmp_path / "B", [run_of("sync-unix", 99.5, 1, 10, 1, 48),
                                    never])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "crossing_n"
    assert c["b_values"] == [99.5, 90]
    assert any("never crossed" in n and "max_n" in n for n in c["notes"])


def test_compare_at_an_n_no_run_measured_is_exit_2(tmp_path):
    """--at N where no run has a step or probe: the values would be a fit
    far from any measurement (or "—" for memory), so compare refuses,
    naming N and the N there are. Steps at 10-40, probes at 44, 46 and
    48 (run_of)."""
    a = write_side(tmp_path / "A", [run_of("sync-unix", 100, 1, 10, 1, 48)
                                    for _ in range(2)])
    b = write_side(tmp_path / "B", [run_of("sync-unix", 110, 1, 10, 1, 48)
                                    for _ in range(2)])
    for at in ("45", "4000", "0"):
        r = script("compare", a, b, "--at", at)
        assert r.returncode == 2, (at, r.stdout)
        near = {"45": "44, 46", "4000": "48", "0": "10"}[at]
        assert r.stderr.splitlines() == [
            f"compare: --at {at}: no run measured N={at}; the runs measured "
            f"N = 10, 20, 30, 40, 44, 46, 48 (nearest {near})"]
        assert r.stdout == ""
    for at in ("46", "20"):  # a probe's N, a step's N
        r = script("compare", a, b, "--at", at, "--format", "json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["scenarios"][0]["at_n"] == int(at)


def test_compare_run_that_stopped_at_max_n_is_not_an_old_result(tmp_path):
    """The client leaves result.crossing_n out when the sweep stopped
    before crossing max_ms (at max_n here). That run is not an old
    result: the others keep their crossing_n, and it gives its
    max_servers. (compare took it for an old result and fell back to
    max_servers on both sides, 'no crossing_n in these results'.)"""
    a = write_side(tmp_path / "A", [run_of("sync-unix", x, 1, 10, 1, 48)
                                    for x in (100.5, 101.5)])
    stopped = run_of("sync-unix", None, 1, 10, 1, 48)
    stopped["result"] = {"max_servers": 120, "stop_reason": "max_n",
                         "detail": "reached max_n=120"}
    b = write_side(tmp_path / "B", [run_of("sync-unix", 99.5, 1, 10, 1, 48),
                                    stopped])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "crossing_n"
    assert (c["a_values"], c["b_values"]) == ([100.5, 101.5], [99.5, 120])
    assert c["notes"][0] == ("1 run(s) never crossed max_ms (stop: max_n): "
                             "their max_servers used")


def test_compare_refuses_two_orbs_on_one_side(tmp_path):
    a = write_side(tmp_path / "A", [
        run_of("sync-unix", 100, 1, 10, 1, 48),
        dict(run_of("sync-unix", 100, 1, 10, 1, 48), orb=ORB_433)])
    b = write_side(tmp_path / "B", [run_of("sync-unix", 100, 1, 10, 1, 48)])
    r = script("compare", a, b)
    assert r.returncode == 2
    assert r.stderr.strip() == ("compare: A: results of two ORBs (omniORB "
                                "4.2.5, omniORB 4.3.3) on one side: give "
                                "one folder per ORB")
    # same name and version, two installations (orb.id)
    other = dict(ORB_425, id="omniorb-patched")
    b = write_side(tmp_path / "B2", [
        run_of("sync-unix", 100, 1, 10, 1, 48),
        dict(run_of("sync-unix", 100, 1, 10, 1, 48), orb=other)])
    r = script("compare", tmp_path / "B", b)
    assert r.returncode == 2
    assert r.stderr.strip() == ("compare: B: results of two ORBs "
                                "(omniorb-system, omniorb-patched) on one "
                                "side: give one folder per ORB")


def test_compare_refuses_two_settings_of_one_scenario(tmp_path):
    def run(work_us, name="sync-unix"):
        d = run_of(name, 100, 1, 10, 1, 48)
        d["scenario"]["server"]["work_us"] = work_us
        return d
    a = write_side(tmp_path / "A", [run(0), run(0)])
    # another scenario may differ: only runs of one name must agree
    b = write_side(tmp_path / "B", [run(0), run(10), run(10, "pool5-unix")])
    r = script("compare", a, b)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert lines[0] == ("compare: B: sync-unix: runs differ in scenario "
                        "key server.work_us (0, 10): give one folder per "
                        "setting")
    # the same difference between the sides is a scenario setting compared
    b = write_side(tmp_path / "B2", [run(10), run(10)])
    r = script("compare", a, b)
    assert r.returncode == 0, r.stderr
    assert "scenario server.work_us (all scenarios): 0 → 10" in r.stdout


# ---- report ---------------------------------------------------------------

def test_make_report_passes_results():
    r = subprocess.run(["make", "-n", "-C", str(ROOT), "report",
                        "RESULTS=some/folder"], capture_output=True,
                       text=True, timeout=30)
    assert "scripts/report --results some/folder" in r.stdout, r.stderr


def test_report_on_fixture_folder(tmp_path):
    # what `make report RESULTS=tests/fixtures/A` runs, with --out added
    r = script("report", "--results", A, "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "report.html").read_text()
    pngs = sorted(tmp_path.glob("*.png"))
    assert [p.stem for p in pngs] == ["capacity", "cost", "latency-panels"]
    imgs = re.findall(r'<img [^>]*src="data:image/png;base64,'
                      r'([A-Za-z0-9+/=]+)"', html)
    assert len(imgs) == len(pngs)
    assert not re.search(r'src="(?!data:)', html)  # nothing fetched
    for name in SCENARIO_NAMES:
        assert f"<td>{name}</td>" in html
    assert "<th>max servers</th>" in html.replace(' class="r"', "")
    assert "omniORB 4.2.5" in html
    md = (tmp_path / "report.md").read_text()
    for p in pngs:
        assert f"]({p.name})" in md
    check_links(md, tmp_path)
    assert "## How to reproduce" in md
    for d in docs_of(A).values():
        assert " ".join(d[0]["command"][1:]) in md
    # Contents first, then the summary, figures, environment last.
    order = [md.index(h) for h in ("Contents:", "## Summary", "## Figures",
                                   "## Environment", "## How to reproduce")]
    assert order == sorted(order)


def check_links(md, folder):
    """Every link of report.md points at a file written beside it, or at
    one of its own headings."""
    heads = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
             for h in re.findall(r"^#+ (.+)$", md, re.M)}
    for target in re.findall(r"\]\(([^)]+)\)", md):
        if target.startswith("#"):
            assert target[1:] in heads, target
        else:
            assert (folder / target).is_file(), target


def test_report_of_a_comparison(tmp_path):
    """A run-suite folder of two variants (paired runs, B with 6 µs more
    server CPU per call): the verdict table first, then the figures A
    against B, every link shipped, the environment's difference named."""
    r = script("report", "--results", PAIRED, "--out", tmp_path,
               timeout=300)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report.md").read_text()
    assert md.startswith("# orbbench report: work6 against base")
    order = [md.index(h) for h in ("Contents:", "## Verdicts",
                                   "## Figures", "## Environment",
                                   "## How to reproduce")]
    assert order == sorted(order)
    verdicts = md.split("## Verdicts")[1].split("## Figures")[0]
    rows = [l for l in verdicts.splitlines() if l.startswith("| ")][1:]
    assert len(rows) == 8
    assert sum(l.rstrip(" |").endswith("slower") for l in rows) == 7
    assert "server.work_us" in verdicts
    for stem in ("ab-capacity", "ab-ratio", "ab-latency", "cost",
                 "rounds-sync-unix"):
        assert f"]({stem}.png)" in md
        check_png(tmp_path / f"{stem}.png")
    check_links(md, tmp_path)
    assert ".svg)" not in md
    assert "A: base" in md and "B: work6" in md


def test_report_names_suite_command(tmp_path):
    r = script("report", "--results", FIX / "repeat-A", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report.md").read_text()
    assert "scripts/run-suite tests/fixtures/repeat-scenarios --repeat 3" \
        in md
    assert "6 (4–6, 3 runs)" in md or "(3 runs)" in md


# ---- bad input ------------------------------------------------------------

def bad_inputs(tmp_path):
    """[(path given to plot and compare, folder given to report, the path
    each message must name)]."""
    notjson = tmp_path / "notjson" / "x.json"
    notjson.parent.mkdir()
    notjson.write_text("this is not JSON\n")
    schema = tmp_path / "schema" / "old.json"
    schema.parent.mkdir()
    doc = load(A / "sync-unix.json")
    doc["schema"] = "orbbench-result/0"
    schema.write_text(json.dumps(doc))
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = tmp_path / "missing.json"
    return [(notjson, notjson.parent, notjson),
            (schema, schema.parent, schema),
            (empty, empty, empty),
            (missing, missing, missing)]


def check_one_line(r, path):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(path) in lines[0] and "Traceback" not in r.stderr


def test_bad_input_one_line_naming_the_file(tmp_path):
    out = tmp_path / "out"
    for arg, folder, named in bad_inputs(tmp_path):
        check_one_line(script("plot", arg, "--out", out), named)
        check_one_line(script("compare", arg, B), named)
        check_one_line(script("compare", A, arg), named)
        check_one_line(script("report", "--results", folder, "--out", out),
                       named)
    assert not out.exists()


def test_compare_server_cpu_per_call(tmp_path):
    """With cpu_per_call_us in the steps, compare adds the servers' CPU per
    call at the common N, A, B and B/A; without it, no such column."""
    plain = script("compare", FIX / "A", FIX / "B").stdout
    assert "server CPU B/A" not in plain
    sides = {}
    for name, cpu in (("A", 20.0), ("B", 25.0)):
        d = tmp_path / name
        d.mkdir()
        for f in sorted((FIX / name).glob("*.json")):
            doc = json.loads(f.read_text())
            for step in doc["steps"]:
                step["cpu_per_call_us"] = {"server": cpu * step["n"] / 10}
            (d / f.name).write_text(json.dumps(doc))
        sides[name] = d
    r = script("compare", sides["A"], sides["B"], "--format", "json")
    assert r.returncode == 0, r.stderr
    for row in json.loads(r.stdout)["scenarios"]:
        m = row["metrics"]["server_cpu_us"]
        n = m["at_n"]
        assert n == row["at_n"]
        assert m["a_values"] == [pytest.approx(20.0 * n / 10)]
        assert m["b_values"] == [pytest.approx(25.0 * n / 10)]
        assert m["ratio"] == pytest.approx(1.25)
    text = script("compare", sides["A"], sides["B"]).stdout
    assert "server CPU B/A" in text and "1.25" in text


# ---- run-suite --variant --------------------------------------------------

@pytest.mark.parametrize("args,needle", [
    (["--variant", "a/b"], "--variant a/b: bad name 'a/b'"),
    (["--variant", ".."], "bad name '..'"),
    (["--variant", "a", "--variant", "a:sweep.rounds=3"],
     "--variant a:sweep.rounds=3: variant 'a' given twice"),
    (["--orb", "omniorb-system", "--variant", "omniorb-system"],
     "variant 'omniorb-system' given twice"),
    (["--variant", "a:"], "no KEY=VALUE after ':'"),
    (["--variant", "a:rounds"], "'rounds' is not KEY=VALUE"),
    (["--orb", "x y"], "--orb x y: bad name 'x y'"),
])
def test_run_suite_variant_errors(tmp_path, args, needle):
    out = tmp_path / "out"
    r = run_suite(FIX / "repeat-scenarios", "--out", out, *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("run-suite: "), r.stderr
    assert needle in lines[0]
    assert not out.exists()  # nothing ran


def test_run_suite_two_variants_interleaved_and_compared(tmp_path):
    out = tmp_path / "out"
    r = run_suite(FIX / "repeat-scenarios", "--set", "sweep.max_n=4",
                  "--repeat", "2", "--variant", "a", "--variant",
                  "b:sweep.rounds=6,sweep.warmup_rounds=2", "--out", out)
    assert r.returncode == 0, r.stderr
    order = [l.split()[1:3] for l in r.stderr.splitlines()
             if l.endswith("...")]
    assert order == [["pool5-unix", "[a]"], ["pool5-unix", "[b]"],
                     ["sync-unix", "[a]"], ["sync-unix", "[b]"]] * 2
    for variant, rounds, warmup in (("a", 5, 1), ("b", 6, 2)):
        files = sorted(p.name for p in (out / variant).glob("*.json"))
        assert files == ["pool5-unix.r1.json", "pool5-unix.r2.json",
                         "sync-unix.r1.json", "sync-unix.r2.json"]
        for f in files:
            sweep = load(out / variant / f)["scenario"]["sweep"]
            # the global --set and the variant's own, after it
            assert sweep["max_n"] == 4
            assert (sweep["rounds"], sweep["warmup_rounds"]) == \
                (rounds, warmup)
    summary = load(out / "summary.json")
    assert summary["variants"] == [
        {"name": "a", "set": [], "orb": None},
        {"name": "b", "set": ["sweep.rounds=6", "sweep.warmup_rounds=2"],
         "orb": None}]
    assert {row["variant"] for row in summary["rows"]} == {"a", "b"}
    md = (out / "compare-a-vs-b.md").read_text()
    assert "| scenario | crossing N A | crossing N B | B/A [95% CI] |" in md
    assert "scenario sweep.rounds (all scenarios): 5 → 6" in md
    assert "BH-adjusted over" in md  # two runs a side: tested
    assert "== b against a" in r.stdout
    assert "- variants: a, b (sweep.rounds=6, sweep.warmup_rounds=2)" in \
        (out / "summary.md").read_text()


def test_run_suite_fails_when_its_comparison_fails(tmp_path):
    """Every run of the suite succeeds, but compare refuses the sides (two
    files of one scenario name with different settings, which it will not
    take for repeats): run-suite must say so in one line and exit 1, not
    0 as if the comparison had been made."""
    src = tmp_path / "suite"
    src.mkdir()
    for f, rounds in (("x1", 2), ("x2", 3)):
        (src / f"{f}.json").write_text(json.dumps(
            {"name": "same-name", "transport": "unix",
             "sweep": {"start": 2, "max_n": 2, "rounds": rounds}}))
    out = tmp_path / "out"
    r = run_suite(src, "--variant", "a", "--variant", "b", "--out", out)
    assert r.returncode == 1, r.stderr
    summary = load(out / "summary.json")
    assert len(summary["rows"]) == 4
    assert not any("failed" in row for row in summary["rows"])
    failed = [l for l in r.stderr.splitlines() if "compare a b failed" in l]
    assert failed == ["run-suite: compare a b failed (exit 2): compare: A: "
                      "same-name: runs differ in scenario key sweep.rounds "
                      "(2, 3): give one folder per setting"], r.stderr
    assert not (out / "compare-a-vs-b.md").exists()
