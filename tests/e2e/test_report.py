"""End-to-end: scripts/plot, scripts/compare and scripts/report on the
result fixtures in tests/fixtures/ (see its README), their error paths, and
one real small run fed through plot."""
import csv
import io
import json
import math
import re
import shutil
import statistics
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS, run_suite

SCRIPTS = ROOT / "scripts"
FIX = ROOT / "tests" / "fixtures"
A, B = FIX / "A", FIX / "B"
# A result of a client older than the crossing search and the footprint
# (no crossing_n, probes, rounds_ms or footprint): still read.
OLD = FIX / "old-format" / "thread-per-call-tcp.json"
SCENARIO_NAMES = ["thread-per-call-tcp", "thread-per-call-unix",
                  "pool100-tcp", "pool100-unix", "pool5-unix", "sync-unix",
                  "event-tcp", "event-unix"]
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


def num(x):
    """A number as compare and report print it (README): '—' for none,
    integers as such, else three significant digits."""
    if x is None:
        return "—"
    if float(x).is_integer() and abs(x) >= 1:
        return str(int(x))
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def crossing_value(doc):
    """A run's crossing N as the README defines it: result.crossing_n, or
    max_servers for a run that never crossed max_ms."""
    c = doc["result"].get("crossing_n")
    return c if c is not None else doc["result"]["max_servers"]


def measured_ns(doc):
    """Every N a run measured (steps and probes)."""
    return {s["n"] for s in doc["steps"] + doc.get("probes", [])}


def step_mem(doc, n, kind="pss"):
    """A run's memory per server of kind at its step of n servers."""
    step = next(s for s in doc["steps"] if s["n"] == n)
    return step["mem_per_server_kb"][kind]


def md_rows(md, first_head):
    """{first cell: {header: cell}} of the markdown table whose header
    starts with first_head."""
    lines = md.splitlines()
    at = next(i for i, l in enumerate(lines)
              if l.startswith(f"| {first_head} |"))
    head = [c.strip() for c in lines[at].strip("|").split("|")]
    rows = {}
    for line in lines[at + 2:]:
        if not line.startswith("| "):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(head, cells))
    return rows


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
    # Results of the current client: crossing N, every round kept
    # (rounds_ms), a footprint in every step; sweeps only (no fixed-N).
    out, r = plotted
    want = ["capacity", "cost", "latency-panels"] + [
        f"rounds-{name}" for name in SCENARIO_NAMES]
    assert sorted(p.stem for p in out.glob("*.png")) == sorted(want)
    for stem in want:
        check_png(out / f"{stem}.png")
    assert "fixed-n: skipped" in r.stderr
    assert "rounds: skipped" not in r.stderr and "left out" not in r.stderr


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


def test_plot_names_results_left_out_of_cost(tmp_path):
    """A result without a footprint (the old-format one) is left out of
    the cost figure by name, beside one that has it."""
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for f in (A / "sync-unix.json", OLD):
        shutil.copy(f, mixed)
    out = tmp_path / "out"
    r = script("plot", mixed, "--out", out)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("plot: cost")]
    assert lines == ["plot: cost: left out thread-per-call-tcp (no step "
                     "with a footprint (PSS, USS))"]
    check_png(out / "cost.png")
    assert "sync-unix" in (out / "cost.svg").read_text()


def test_plot_skips_figure_whose_fields_are_missing(tmp_path):
    r = script("plot", OLD, "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^plot: cost: skipped", r.stderr, re.M), r.stderr
    assert re.search(r"^plot: rounds: skipped, these results keep no "
                     r"per-round times \(rounds_ms", r.stderr, re.M), r.stderr
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


def test_plot_labels_a_few_differences_not_every_key(tmp_path):
    """A new run beside an old-format one of the same scenario: keys the
    old client did not record are no difference; of the rest, the label
    names the fewest that tell the series apart, then "+N more" (it named
    every key, and the figure's margins did not fit: plot exited 2)."""
    import orbbench.results as orbresults
    res = orbresults.load_results([FIX / "A", FIX / "old-format"])
    groups = orbresults.group_by_scenario(res, split_settings=True)
    tpc = [k for k in groups if k.startswith("thread-per-call-tcp")]
    assert len(tpc) == 2, list(groups)
    for k in tpc:
        assert "absent" not in k and k.count("=") <= orbresults.TAG_KEYS, k
    r = script("plot", FIX / "A", FIX / "old-format", "--out", tmp_path)
    assert r.returncode == 0, r.stderr


def test_held_step_is_never_above_max_servers():
    """max_servers may be a crossing probe's N, between the sweep's steps:
    the memory and threads of a scenario come from the largest step at or
    below it, not from the last step (which is over max_ms)."""
    import orbbench.results as orbresults
    doc = {"result": {"max_servers": 30},
           "steps": [{"n": 10}, {"n": 20}, {"n": 40}]}
    assert orbresults.held_step(doc)["n"] == 20
    doc["result"]["max_servers"] = 40
    assert orbresults.held_step(doc)["n"] == 40
    doc["result"]["max_servers"] = 5
    assert orbresults.held_step(doc) is None


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
    import orbbench.results as orbresults
    assert orbresults.seed_order(["event-tcp", "zz", "sync-unix",
                         "thread-per-call-tcp"]) == \
        ["thread-per-call-tcp", "sync-unix", "event-tcp", "zz"]
    res = orbresults.load_results([A / "sync-unix.json", B / "sync-unix.json"])
    assert list(orbresults.group_by_scenario(res)) == ["sync-unix"]
    # one ORB on both sides: not split by ORB; split by the setting
    assert list(orbresults.group_by_scenario(res, split_orbs=True)) == ["sync-unix"]
    work = [r.doc["scenario"]["server"]["work_us"] for r in res]
    assert work[0] != work[1]
    assert list(orbresults.group_by_scenario(res, split_settings=True)) == [
        f"sync-unix [server.work_us={w}]" for w in work]


def test_grouping_splits_runs_by_the_settings_that_differ():
    """Idle and connected runs of one scenario are two series, named by
    the setting that differs; repeats stay together; compare's grouping
    (no split) still sees one scenario, so it can refuse the mix."""
    import orbbench.results as orbresults
    res = orbresults.load_results([ROOT / "results" / "examples" /
                          "idle-vs-connected"])
    groups = orbresults.group_by_scenario(res, split_orbs=True, split_settings=True)
    assert {k: [r.path.name for r in v] for k, v in groups.items()} == {
        "sync-unix [client.connect=true]": ["connected-1.json",
                                            "connected-2.json"],
        "sync-unix [client.connect=false]": ["idle-1.json", "idle-2.json"]}
    assert list(orbresults.group_by_scenario(res)) == ["sync-unix"]
    # Two ORBs and a setting: both in one bracket.
    docs = [result_doc("sync-unix", 100), result_doc("sync-unix", 100),
            result_doc("sync-unix", 100,
                       scenario={"server.work_us": 6}, orb=ORB_433)]
    rs = [orbresults.Result(Path(f"r{i}.json"), d) for i, d in enumerate(docs)]
    assert list(orbresults.group_by_scenario(rs, split_orbs=True,
                                    split_settings=True)) == [
        "sync-unix [omniORB 4.2.5, server.work_us=0]",
        "sync-unix [omniORB 4.3.3, server.work_us=6]"]


# ---- compare on the fixtures -----------------------------------------------

def two(x):
    return "—" if x is None else f"{x:.2f}"


def ratio_of(b, a):
    return b / a if a and b and a > 0 and b > 0 else None


def fixture_pairs():
    """[(name, A's run, B's run)] of the single-run fixtures, in the seed
    order; B's servers burn server.work_us more per call than A's."""
    da, db = docs_of(A), docs_of(B)
    return [(n, da[n][0], db[n][0]) for n in SCENARIO_NAMES]


def test_fixture_sides_differ():
    """What the tests of A against B rely on: B differs from A by
    server.work_us alone, and in every scenario the two crossing values
    differ, so that A's and B's columns swapped cannot pass."""
    for name, a, b in fixture_pairs():
        assert a["scenario"]["server"]["work_us"] == 0
        assert b["scenario"]["server"]["work_us"] > 0
        assert crossing_value(a) != crossing_value(b), name


def test_compare_text_table_holds_each_sides_values():
    r = script("compare", A, B)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    # the environment comes before the table: only the knob differs
    table_at = out.index("scenario  ")
    env = out[:table_at]
    work_b = docs_of(B)["sync-unix"][0]["scenario"]["server"]["work_us"]
    assert ("Environment differences (A → B):\n  scenario server.work_us "
            f"(all scenarios): 0 → {work_b}\n") in env
    assert sum(l.startswith("  ") for l in env.splitlines()) == 1
    lines = out[table_at:].splitlines()
    head = re.split(r"\s{2,}", lines[0].strip())
    rows = {l.split()[0]: dict(zip(head, l.split())) for l in lines[1:9]}
    assert list(rows) == SCENARIO_NAMES  # the seed's order
    for name, a, b in fixture_pairs():
        row = rows[name]
        ca, cb = crossing_value(a), crossing_value(b)
        # one run a side: each side's own value, a plain ratio, no verdict
        assert row["crossing N A"] == num(ca), name
        assert row["crossing N B"] == num(cb), name
        assert row["B/A [interval]"] == two(ratio_of(cb, ca)), name
        n = int(row["at N"])
        assert n in measured_ns(a) and n in measured_ns(b), name
        nm = int(row["PSS at N"])
        assert row["PSS B/A"] == two(step_mem(b, nm) / step_mem(a, nm))
        assert row["verdict"] == "—"
    assert "No verdicts: one run on a side; repeats are needed " \
        "(run-suite --repeat 3)." in out


def test_compare_json_holds_each_sides_values():
    r = script("compare", A, B, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [s["scenario"] for s in doc["scenarios"]] == SCENARIO_NAMES
    for s, (name, a, b) in zip(doc["scenarios"], fixture_pairs()):
        ms = s["metrics"]
        c = ms["crossing_n"]
        assert c["source"] == "crossing_n"
        assert (c["a_values"], c["b_values"]) == \
            ([crossing_value(a)], [crossing_value(b)])
        n = s["at_n"]
        assert ms["round_ms"]["at_n"] == ms["server_cpu_us"]["at_n"] == n
        assert n in measured_ns(a) and n in measured_ns(b)
        m = ms["pss_kb"]
        nm = m["at_n"]
        assert (m["a_values"], m["b_values"]) == \
            ([step_mem(a, nm)], [step_mem(b, nm)])
        assert m["ratio"] == pytest.approx(step_mem(b, nm) /
                                           step_mem(a, nm))
        for m in ms.values():
            assert m["verdict"] == "n/a" and m["p_value"] is None
        assert s["verdict"] == "n/a"
    assert doc["method"]["tests"] == 0
    work_b = docs_of(B)["sync-unix"][0]["scenario"]["server"]["work_us"]
    assert doc["environment_differences"] == [
        {"field": "scenario server.work_us (all scenarios)", "a": "0",
         "b": str(work_b)}]


def test_compare_md_holds_each_sides_values():
    md = script("compare", A, B, "--format", "md").stdout
    assert md.index("scenario server.work_us") < md.index("| scenario |")
    rows = md_rows(md, "scenario")
    assert list(rows) == SCENARIO_NAMES
    for name, a, b in fixture_pairs():
        row = rows[name]
        assert row["crossing N A"] == num(crossing_value(a)), name
        assert row["crossing N B"] == num(crossing_value(b)), name
        nm = int(row["PSS at N"])
        assert row["PSS B/A"] == two(step_mem(b, nm) / step_mem(a, nm))


def test_compare_csv_holds_each_sides_values():
    """--at 4, the first step of every fixture run: each side's median
    (one run: its value) in its own column; numeric columns hold numbers
    or nothing, text goes to the verdict columns."""
    for _, a, b in fixture_pairs():
        assert 4 in {s["n"] for s in a["steps"]} & {s["n"] for s in b["steps"]}
    c = script("compare", A, B, "--format", "csv", "--at", "4")
    assert c.returncode == 0, c.stderr
    rows = list(csv.DictReader(io.StringIO(c.stdout)))
    assert list(rows[0])[:3] == ["scenario", "metric", "at_n"]
    # the suite's rows come last, one per primary metric
    suite = [r for r in rows if r["scenario"] == "(suite)"]
    rows = [r for r in rows if r["scenario"] != "(suite)"]
    assert [r["metric"] for r in suite] == \
        ["crossing_n", "server_cpu_us", "pss_kb"]
    assert [r["scenario"] for r in rows[::4]] == SCENARIO_NAMES
    assert [r["metric"] for r in rows[:4]] == \
        ["crossing_n", "round_ms", "server_cpu_us", "pss_kb"]
    text = {"scenario", "metric", "verdict", "scenario_verdict"}
    for r in rows:
        for k, v in r.items():
            if k not in text and v != "":
                float(v)  # a number, or the cell is empty
        assert r["verdict"] == r["scenario_verdict"] == "n/a"
        assert r["at_n"] == ("" if r["metric"] == "crossing_n" else "4")
    by = {(r["scenario"], r["metric"]): r for r in rows}
    for name, a, b in fixture_pairs():
        cr = by[(name, "crossing_n")]
        assert (float(cr["a_median"]), float(cr["b_median"])) == \
            (crossing_value(a), crossing_value(b))
        pss = by[(name, "pss_kb")]
        assert (float(pss["a_median"]), float(pss["b_median"])) == \
            (step_mem(a, 4), step_mem(b, 4))
    assert "scenario server.work_us" in c.stderr  # environment off the CSV


@pytest.mark.parametrize("kind,label", [("pss", "PSS"), ("uss", "USS"),
                                        ("mem_available",
                                         "MemAvailable drop / N")])
def test_compare_mem_kinds_read_each_runs_own_figure(kind, label):
    """--mem: the memory per server of that kind, at a step every run
    has, each side's own figure from its own file."""
    r = script("compare", A, B, "--mem", kind, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["mem_kind"] == kind
    for s, (name, a, b) in zip(doc["scenarios"], fixture_pairs()):
        m = s["metrics"][f"{kind}_kb"]
        nm = m["at_n"]
        va, vb = step_mem(a, nm, kind), step_mem(b, nm, kind)
        assert (m["a_values"], m["b_values"]) == ([va], [vb]), name
        assert m["ratio"] == (pytest.approx(vb / va) if va > 0 and vb > 0
                              else None)
    text = script("compare", A, B, "--mem", kind).stdout
    assert f"{label} at N" in text and f"{label} B/A" in text


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
    assert [s["scenario"] for s in doc["scenarios"]] == \
        ["pool5-unix", "sync-unix"]
    text = script("compare", FIX / "repeat-A", FIX / "repeat-B").stdout
    for s in doc["scenarios"]:
        fa, fb = da[s["scenario"]], db[s["scenario"]]
        va = [crossing_value(d) for d in fa]
        vb = [crossing_value(d) for d in fb]
        assert len(va) == len(vb) == 3
        c = s["metrics"]["crossing_n"]
        assert (c["a_values"], c["b_values"]) == (va, vb)  # file order
        assert (c["n_a"], c["n_b"]) == (3, 3)
        ma = [d["result"]["max_servers"] for d in fa]
        assert (s["a"]["max_servers_min"], s["a"]["max_servers_max"]) == \
            (min(ma), max(ma))
        assert [x["max_servers"] for x in s["crossing"]["b"]] == \
            [d["result"]["max_servers"] for d in fb]
        # B's servers burn 100 µs more per call: every B run held far fewer
        # servers than every A run, and the test says so.
        assert max(vb) < min(va) / 2
        assert c["verdict"] == "slower" and s["verdict"] == "slower"
        # the text table: median (min–max) of each side's own runs
        row = next(l for l in text.splitlines()
                   if l.startswith(s["scenario"] + " "))
        for v in (va, vb):
            assert (f"{num(statistics.median(v))} "
                    f"({num(min(v))}–{num(max(v))})") in row, (row, v)
    assert "Smallest difference detectable" in text


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
    # 3 scenarios × 3 primary metrics (round ms is descriptive), but
    # pool5-unix's PSS is the same in every run of both sides: nothing to
    # test there
    assert doc["method"]["tests"] == 8
    assert doc["method"]["adjustment"] == "Benjamini-Hochberg"
    for s in rows.values():
        for key in ("crossing_n", "round_ms", "server_cpu_us", "pss_kb"):
            m = s["metrics"][key]
            for field in ("ratio", "ci_low", "ci_high", "p_value",
                          "q_value", "verdict", "mde_pct", "a_values",
                          "b_values", "n_a", "n_b"):
                assert field in m, (key, field)
            assert (m["n_a"], m["n_b"]) == (3, 3)
            assert m["primary"] == (key != "round_ms")
            if m["q_value"] is not None:
                assert m["q_value"] >= m["p_value"]
                # the interval at the family's level: it excludes 1
                # exactly when there is a difference (not same, not
                # inconclusive)
                assert m["ci_level"] == doc["method"]["ci_level"]
                excludes = not m["ci_low"] <= 1 <= m["ci_high"]
                assert excludes == (m["verdict"] not in ("same",
                                                         "inconclusive"))
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
    # descriptive: its unadjusted 95% interval, no test, no verdict
    assert ms["round_ms"]["verdict"] == "n/a"
    assert ms["round_ms"]["q_value"] is None
    assert ms["round_ms"]["ci_level"] == 0.95
    assert ms["round_ms"]["ci_high"] < 1
    # CPU at 48: k 4.8 µs
    assert ms["server_cpu_us"]["b_values"] == \
        pytest.approx([48.96, 46.56, 48.48])
    assert ms["server_cpu_us"]["verdict"] == "inconclusive"
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
        == {"inconclusive", "n/a"}
    assert rows["event-tcp"]["verdict"] == "inconclusive"
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
    # The same files without their pairing: independent samples, which
    # cannot tell.
    for f in list(a.glob("*.json")) + list(b.glob("*.json")):
        d = json.loads(f.read_text())
        del d["paired"]
        f.write_text(json.dumps(d))
    r = script("compare", a, b, "--format", "json")
    m = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert m["verdict"] == "inconclusive" and "paired" not in m
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
    assert rows["event-tcp"].rstrip().endswith("inconclusive")
    assert "Verdicts: Student t on log values per run, BH-adjusted over " \
        "8 tests of the primary metrics, q < 0.05" in r.stdout
    pct = r"±[0-9.]+%"
    assert re.search(rf"Smallest difference detectable .*crossing N {pct}, "
                     rf"round ms {pct}, server CPU {pct}, PSS {pct}",
                     r.stdout)
    assert "repeats are needed" not in r.stdout


def crossing_only(name, logs, side):
    """Runs of name whose crossing N is 100 e^x for x in logs, and nothing
    else measured (no steps): crossing N is the scenario's only test."""
    return [result_doc(name, 100 * math.exp(x), orb=ORB_433 if side == "b"
                       else ORB_425) for x in logs]


def test_compare_verdicts_worked_by_hand(tmp_path):
    """Verdicts through compare, each p and q worked out by hand.

    Logs of crossing N / 100, three runs a side, each side spread ±0.1
    (sample variance 0.01, pooled 0.01, se = 0.1 sqrt(2/3) = 0.0816497,
    df 4; for 4 df, two-sided p = 1 - x(3 - x^2)/2 with x = t/sqrt(t^2 +
    4)):
      sync-unix   A 0, .1, .2  B .3, .4, .5    t = 3.674235, x^2 = 13.5/
                  17.5, p = 0.021312; B/A = e^0.3 = 1.349859
      pool5-unix  A 0, .1, .2  B .05, .15, .25 t = 0.612372, x^2 =
                  0.375/4.375, p = 0.573392
      event-tcp   A = B                        t = 0, p = 1
    Benjamini-Hochberg over the first two (m = 2): q = min(2p/1, 0.573392)
    = 0.042624 < 0.05 for sync-unix: B holds more servers, "faster".
    With event-tcp too the variances are moderated (three scenarios or
    more, orbbench.stats.moderate): all three have the same variance, so
    their scatter is no more than chance, and the prior holds the other
    scenarios' df (4 + 4 = 8, no more: it is estimated from them), so each
    scenario's variance is the pooled 0.01 on 12 df: p = 0.003182 for
    sync-unix (t 3.674235 on 12 df), 0.551719 for pool5-unix, 1 for
    event-tcp; BH (m = 3): q = 3 × 0.003182 = 0.009547, "faster", and
    min(3/2 × 0.551719, 1) = 0.827579 for pool5-unix."""
    runs = {"sync-unix": ((0, .1, .2), (.3, .4, .5)),
            "pool5-unix": ((0, .1, .2), (.05, .15, .25)),
            "event-tcp": ((0, .1, .2), (0, .1, .2))}

    def sides(names, where):
        a = write_side(where / "A", [d for n in names
                                     for d in crossing_only(n, runs[n][0],
                                                            "a")])
        b = write_side(where / "B", [d for n in names
                                     for d in crossing_only(n, runs[n][1],
                                                            "b")])
        r = script("compare", a, b, "--format", "json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        return doc, {s["scenario"]: s for s in doc["scenarios"]}

    doc, rows = sides(["sync-unix", "pool5-unix"], tmp_path / "two")
    assert doc["method"]["tests"] == 2  # nothing but crossing N measured
    c = rows["sync-unix"]["metrics"]["crossing_n"]
    assert c["ratio"] == pytest.approx(1.349859, rel=1e-6)
    assert c["p_value"] == pytest.approx(0.021312, abs=1e-6)
    assert c["q_value"] == pytest.approx(0.042624, abs=2e-6)
    assert c["verdict"] == "faster" and rows["sync-unix"]["verdict"] == \
        "faster"
    c = rows["pool5-unix"]["metrics"]["crossing_n"]
    assert c["p_value"] == pytest.approx(0.573392, abs=1e-6)
    assert c["q_value"] == pytest.approx(0.573392, abs=1e-6)
    assert c["verdict"] == "inconclusive" and \
        rows["pool5-unix"]["verdict"] == "inconclusive"
    for s in rows.values():
        for key in ("round_ms", "server_cpu_us", "pss_kb"):
            assert s["metrics"][key]["verdict"] == "n/a"

    doc, rows = sides(["sync-unix", "pool5-unix", "event-tcp"],
                      tmp_path / "three")
    assert doc["method"]["tests"] == 3
    c = rows["sync-unix"]["metrics"]["crossing_n"]
    assert c["moderated"]["own_df"] == 4 and c["df"] == 12
    assert c["p_value"] == pytest.approx(0.003182, rel=2e-3)
    assert c["q_value"] == pytest.approx(0.009547, rel=2e-3)
    assert c["verdict"] == "faster"
    assert rows["pool5-unix"]["metrics"]["crossing_n"]["q_value"] == \
        pytest.approx(0.827579, rel=1e-4)
    assert rows["event-tcp"]["metrics"]["crossing_n"]["p_value"] == \
        pytest.approx(1.0)
    assert {n: s["verdict"] for n, s in rows.items()} == {
        "sync-unix": "faster", "pool5-unix": "inconclusive",
        "event-tcp": "inconclusive"}
    # B below A by the same logs: the mirror verdict
    a = write_side(tmp_path / "mA", crossing_only("sync-unix", (.3, .4, .5),
                                                  "a"))
    b = write_side(tmp_path / "mB", crossing_only("sync-unix", (0, .1, .2),
                                                  "b"))
    r = script("compare", a, b, "--format", "json")
    s = json.loads(r.stdout)["scenarios"][0]
    assert s["metrics"]["crossing_n"]["verdict"] == "slower"
    assert s["verdict"] == "slower"


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
    assert [p.stem for p in pngs] == sorted(
        ["capacity", "cost", "latency-panels"] +
        [f"rounds-{name}" for name in SCENARIO_NAMES])
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
    # the summary: each scenario's own crossing N and max servers
    rows = md_rows(md, "scenario")
    assert list(rows) == SCENARIO_NAMES
    for name, docs in docs_of(A).items():
        res = docs[0]["result"]
        assert rows[name]["crossing N"] == num(res.get("crossing_n")), name
        assert rows[name]["max servers"] == str(res["max_servers"]), name
        assert rows[name]["stop"] == res["stop_reason"]
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
    heads, seen = set(), {}
    for h in re.findall(r"^#+ (.+)$", md, re.M):
        a = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
        # GitHub suffixes a repeated heading's anchor -1, -2, ...
        heads.add(a if a not in seen else f"{a}-{seen[a]}")
        seen[a] = seen.get(a, 0) + 1
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
    # The suite's answer first: both performance rows slower, +10% CPU
    suite = md.split("## The suite")[1].split("## Verdicts")[0]
    assert "Suite verdict: slower" in suite
    assert sum(l.startswith("| crossing N") or l.startswith("| server CPU")
               for l in suite.splitlines() if "slower" in l) == 2
    order = [md.index(h) for h in ("Contents:", "## The suite", "## Verdicts",
                                   "## Figures", "## Environment",
                                   "## How to reproduce")]
    assert order == sorted(order)
    verdicts = md.split("## Verdicts")[1].split("## Figures")[0]
    rows = [l for l in verdicts.splitlines() if l.startswith("| ")][1:]
    assert len(rows) == 8
    assert sum(l.rstrip(" |").endswith("slower") for l in rows) == 8
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
    # max servers: median (min–max, runs) of each scenario's own runs
    rows = md_rows(md, "scenario")
    for name, docs in docs_of(FIX / "repeat-A").items():
        ms = [d["result"]["max_servers"] for d in docs]
        assert len(ms) == 3 and min(ms) < max(ms)  # a spread to show
        assert rows[name]["max servers"] == \
            f"{num(statistics.median(ms))} ({min(ms)}–{max(ms)}, 3 runs)"


def test_report_reads_the_suite_command_from_summary_json(tmp_path):
    """The suite's command comes from run-suite's summary.json, else from
    the '- command:' line of its summary.md."""
    folder = tmp_path / "suite"
    shutil.copytree(FIX / "repeat-A", folder)
    doc = load(folder / "summary.json")
    doc["command"] = "scripts/run-suite from-summary-json"
    (folder / "summary.json").write_text(json.dumps(doc))
    r = script("report", "--results", folder, "--out", tmp_path / "r1")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "r1" / "report.md").read_text()
    assert "\nscripts/run-suite from-summary-json\n" in md
    (folder / "summary.json").unlink()
    r = script("report", "--results", folder, "--out", tmp_path / "r2")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "r2" / "report.md").read_text()
    assert "from-summary-json" not in md
    assert "\nscripts/run-suite tests/fixtures/repeat-scenarios --repeat 3 " \
        "--out tests/fixtures/repeat-A\n" in md


def test_old_format_result_is_still_read(tmp_path):
    """A result of a client older than the crossing search and the
    footprint fields: plot, compare and report read it. compare sets it
    against a current result of the same scenario on max_servers, both
    sides, and says so."""
    old = load(OLD)
    assert "probes" not in old and "crossing_n" not in old["result"]
    assert not any("footprint" in s or "rounds_ms" in s
                   for s in old["steps"])
    r = script("plot", OLD, "--out", tmp_path / "plot")
    assert r.returncode == 0, r.stderr
    check_png(tmp_path / "plot" / "capacity.png")
    new = A / "thread-per-call-tcp.json"
    r = script("compare", OLD, new, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "max_servers"
    assert (c["a_values"], c["b_values"]) == (
        [old["result"]["max_servers"]], [load(new)["result"]["max_servers"]])
    assert "max_servers (no crossing_n in these results)" in c["notes"]
    r = script("report", "--results", OLD.parent, "--out", tmp_path / "rep")
    assert r.returncode == 0, r.stderr
    row = md_rows((tmp_path / "rep" / "report.md").read_text(),
                  "scenario")["thread-per-call-tcp"]
    assert row["crossing N"] == "—"
    assert row["max servers"] == str(old["result"]["max_servers"])


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
    call at the common N, A, B and B/A; without it, no such column. The
    fixtures' own figures are replaced by a law known by hand (k n / 10
    µs, which the local fit follows exactly), then removed."""
    def rewrite(name, cpu):
        d = tmp_path / f"{name}-{cpu}"
        d.mkdir()
        for f in sorted((FIX / name).glob("*.json")):
            doc = json.loads(f.read_text())
            for m in doc["steps"] + doc["probes"]:
                m.pop("cpu_per_call_us", None)
                if cpu is not None:
                    m["cpu_per_call_us"] = {"server": cpu * m["n"] / 10}
            (d / f.name).write_text(json.dumps(doc))
        return d
    plain = script("compare", rewrite("A", None), rewrite("B", None))
    assert plain.returncode == 0, plain.stderr
    assert "server CPU B/A" not in plain.stdout
    sides = {"A": rewrite("A", 20.0), "B": rewrite("B", 25.0)}
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
    assert "| scenario | crossing N A | crossing N B | B/A [interval] |" in md
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
