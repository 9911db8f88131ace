"""orbbench.figures.run: the numbers each figure draws (its data
function), checked against the result fields by hand, on constructed
results and on the real ones in results/examples/; and that every figure
is written as PNG and SVG."""
import statistics
import struct

import pytest

from conftest import ROOT

import orbbench.figures.cost as figs_cost
import orbbench.figures.fixed_n as figs_fixed_n
import orbbench.figures.run as figs_run
import orbbench.figures.strip as figs_strip
import orbbench.results as orbresults
from orbbench.plot import Skip

EX = ROOT / "results" / "examples"
PAIRED = EX / "resolution-2026-11-30" / "paired-base-vs-work6"
BENCH = EX / "bench-omniorb-4.2.5-vs-4.3.3" / "omniorb-system"
IDLE = EX / "idle-vs-connected"
GRISBY_OLD = EX / "grisby-omniorb-4.2.5-vs-4.3.3" / "omniorb-system"


# ---- constructed results --------------------------------------------------

def summary(value, count=10):
    return {"count": count, "min": value, "mean": value, "median": value,
            "p90": value, "p99": value, "max": value, "stddev": 0.0}


def step(n, round_ms=10.0, rounds=None, uss=400.0, pss=410.0,
         delta=None, servers_on_machine=None, cpu=(20.0, 30.0),
         call=(50.0, 200.0), phase="sweep", footprint=True, timed=True):
    """One step as the client writes it. delta: machine.delta (KiB, total);
    cpu: (user, sys) µs per call or None; call: (median, p99) µs."""
    rounds = list(rounds) if rounds is not None else \
        ([round_ms] * 10 if timed else [])
    s = {"phase": phase, "n": n,
         "round_ms": summary(statistics.median(rounds) if rounds else 0.0,
                             len(rounds)),
         "rounds_ms": rounds, "calls": n * len(rounds)}
    if timed:
        s["call_us"] = dict(summary(call[0], n * len(rounds)),
                            p99=call[1])
        if cpu is not None:
            s["cpu_per_call_us"] = {"server": cpu[0] + cpu[1],
                                    "server_user": cpu[0],
                                    "server_sys": cpu[1],
                                    "client_user": 1.0, "client_sys": 2.0}
    else:
        s["call_us"] = summary(0.0, 0)
    if footprint:
        s["footprint"] = {"of": n, "probed": n,
                          "uss_kb": {"mean": uss, "sum": uss * n},
                          "pss_kb": {"mean": pss, "sum": pss * n},
                          "threads": {"mean": 4.0}}
        s["mem_per_server_kb"] = {"uss": uss, "pss": pss}
        delta = delta or {}
        s["machine"] = {"delta": dict(delta)}
        if servers_on_machine is not None:
            s["machine"]["servers_on_machine"] = servers_on_machine
        if "mem_available_kb" in delta:
            s["mem_per_server_kb"]["mem_available"] = \
                -delta["mem_available_kb"] / (servers_on_machine or n)
    return s


def doc(steps, probes=(), name="sync-unix", growth=1.1, max_n=4000,
        max_ms=100.0, connect=True, paired=None):
    d = {"schema": "orbbench-result/1",
         "scenario": {"name": name, "mode": "sync",
                      "sweep": {"start": steps[0]["n"] if steps else 1,
                                "growth": growth, "max_n": max_n,
                                "max_ms": max_ms},
                      "client": {"connect": connect}},
         "steps": list(steps), "probes": list(probes),
         "result": {"max_servers": 0, "stop_reason": "latency"},
         "orb": {"name": "omniORB", "version": "4.2.5"},
         "host": {"hostname": "h"}, "started_at": "2026-12-01T00:00:00Z"}
    if paired:
        d["paired"] = paired
    return d


def delta(mem_available, stack, tables, slab):
    return {"mem_available_kb": -mem_available, "kernel_stack_kb": stack,
            "page_tables_kb": tables, "slab_kb": slab}


# ---- 1. what a server costs -----------------------------------------------

def test_cost_parts_are_the_fields_per_server_at_the_common_n():
    # run 1 reaches N=30, run 2 only 20: the common N is 20
    r1 = doc([step(10), step(20, uss=400, pss=412,
                            delta=delta(12000, 1280, 1500, 1700)),
              step(30)])
    r2 = doc([step(10), step(20, uss=402, pss=410,
                            delta=delta(13000, 1300, 1560, 1800),
                            cpu=(22.0, 34.0))])
    r3 = doc([step(10), step(20, uss=404, pss=420,
                            delta=delta(11000, 1320, 1520, 1760),
                            cpu=(24.0, 28.0)), step(30)])
    data = figs_cost.cost_data([("s", [r1, r2, r3])])
    assert data["left_out"] == []
    row, = data["rows"]
    assert (row["n"], row["runs"], row["servers_on_machine"]) == (20, 3, 20)
    assert row["uss"] == 402 and row["pss"] == 412
    assert row["shared"] == 412 - 402  # the bar ends at the median PSS
    assert row["kernel_stack"] == pytest.approx(1300 / 20)
    assert row["page_tables"] == pytest.approx(1520 / 20)
    assert row["slab"] == pytest.approx(1760 / 20)
    assert row["mem_available"] == pytest.approx(12000 / 20)
    assert row["mem_available_runs"] == pytest.approx(
        [12000 / 20, 13000 / 20, 11000 / 20])
    assert row["accounted"] == pytest.approx(
        412 + (1300 + 1520 + 1760) / 20)
    # CPU: the median total (of 50, 56, 52), split by the median user
    # share (of 20/50, 22/56, 24/52)
    assert row["cpu_server"] == 52.0
    assert row["cpu_user"] == pytest.approx(52 * 20 / 50)
    assert row["cpu_user"] + row["cpu_sys"] == pytest.approx(52)
    # 2 MiB of noise ÷ 20 servers is more than 10% of a 600 KiB drop
    assert row["cpu_note"] is None and row["flags"] == {"drop_noisy"}


def test_cost_divides_kernel_parts_by_servers_on_machine():
    # a paired run: 20 servers of this side, 50 on the machine
    d = doc([step(20, delta=delta(30000, 3200, 3750, 4500),
                  servers_on_machine=50)])
    row, = figs_cost.cost_data([("a", [d])])["rows"]
    assert row["servers_on_machine"] == 50
    assert row["kernel_stack"] == pytest.approx(3200 / 50)
    assert row["page_tables"] == pytest.approx(3750 / 50)
    assert row["slab"] == pytest.approx(4500 / 50)
    assert row["mem_available"] == pytest.approx(30000 / 50)
    # without the field, the step's n
    d["steps"][0]["machine"].pop("servers_on_machine")
    row, = figs_cost.cost_data([("a", [d])])["rows"]
    assert row["kernel_stack"] == pytest.approx(3200 / 20)
    assert row["mem_available"] == pytest.approx(30000 / 20)
    assert "2 on the machine" not in figs_cost.cost_row_label(row)


def test_cost_at_given_n_and_left_out():
    a = doc([step(10, uss=300, pss=350), step(20)])
    b = doc([step(20)])
    c = doc([step(10, footprint=False)])
    data = figs_cost.cost_data([("a", [a]), ("b", [b]), ("c", [c])], n=10)
    assert [r["label"] for r in data["rows"]] == ["a"]
    assert data["rows"][0]["uss"] == 300
    assert data["left_out"] == [("b", "no step with a footprint at N=10"),
                                ("c", "no step with a footprint at N=10")]
    data = figs_cost.cost_data([("c", [c])])
    assert data["left_out"] == [("c", "no step with a footprint (PSS, "
                                      "USS)")]
    with pytest.raises(Skip, match=r"^cost: skipped, no series has a "
                                   r"footprint \(c: no step"):
        figs_cost.cost_figure([("c", [c])], "f", "t")


def test_cost_flags_a_drop_that_is_not_positive_and_runs_that_differ():
    # MemAvailable rose at N=1 in one run: shown as measured, with a note
    low = doc([step(1, uss=2800, pss=3300, delta=delta(-300, 40, 60, 0))])
    high = doc([step(1, uss=2800, pss=3300, delta=delta(500, 40, 60, 8))])
    row, = figs_cost.cost_data([("n1", [low, high])])["rows"]
    assert row["mem_available_runs"] == [-300, 500]
    assert row["mem_available"] == 100
    assert {"drop_not_positive", "runs_differ", "few_servers"} <= \
        row["flags"]
    notes = " ".join(figs_cost.cost_notes([row]))
    assert "MemAvailable did not drop in some run of n1 (N=1)" in notes
    # a kernel part that went down is drawn as 0 and named
    d = doc([step(500, delta=delta(300000, 16000, 30000, -1000))])
    row, = figs_cost.cost_data([("s", [d])])["rows"]
    assert row["slab"] == pytest.approx(-2.0)
    assert "negative_slab" in row["flags"]
    assert "slab went down in s (N=500): drawn as 0." in figs_cost.cost_notes([row])
    assert figs_cost.cost_text(row).startswith(
        f"PSS 410 + kernel {round(16000 / 500 + 30000 / 500)} =")
    # 2 MiB of noise against 600 KiB × 20 servers: noted
    d = doc([step(20, delta=delta(12000, 1, 1, 1))])
    assert "drop_noisy" in figs_cost.cost_data([("s", [d])])["rows"][0]["flags"]


def test_cost_cpu_not_recorded_or_no_calls():
    idle = doc([step(500, timed=False, cpu=None,
                     delta=delta(1, 1, 1, 1))], connect=False)
    plain = doc([step(500, cpu=None, delta=delta(1, 1, 1, 1))])
    rows = figs_cost.cost_data([("idle", [idle]), ("plain", [plain])])["rows"]
    assert [(r["cpu_server"], r["cpu_note"]) for r in rows] == [
        (None, "no calls (client.connect false)"), (None, "not recorded")]
    assert not figs_cost.has_cpu(rows)


def load_series(folder):
    """[(scenario, [docs])] of a results folder; idle-vs-connected's files
    are all sync-unix: there the series are idle-* and connected-*."""
    results = orbresults.load_results([folder])
    if folder == IDLE:
        groups = {}
        for r in results:
            groups.setdefault(r.path.stem.split("-")[0], []).append(r)
    else:
        groups = orbresults.group_by_scenario(results)
    return [(k, [r.doc for r in v]) for k, v in groups.items()]


@pytest.fixture(scope="module")
def paired_base():
    return load_series(PAIRED / "base")


def test_cost_on_real_paired_runs(paired_base):
    data = figs_cost.cost_data(paired_base)
    assert len(data["rows"]) == 8 and not data["left_out"]
    for (label, docs), row in zip(paired_base, data["rows"]):
        n = min(max(s["n"] for s in d["steps"]) for d in docs)
        assert row["label"] == label and row["n"] == n
        steps = [orbresults.step_at(d, n) for d in docs]
        som = [s["machine"]["servers_on_machine"] for s in steps]
        assert all(k > n for k in som)  # both sides' servers
        for key, field in (("kernel_stack", "kernel_stack_kb"),
                           ("page_tables", "page_tables_kb"),
                           ("slab", "slab_kb")):
            assert row[key] == pytest.approx(statistics.median(
                s["machine"]["delta"][field] / k
                for s, k in zip(steps, som)))
        assert row["mem_available_runs"] == pytest.approx(
            [s["mem_per_server_kb"]["mem_available"] for s in steps])
        assert row["uss"] == statistics.median(
            s["mem_per_server_kb"]["uss"] for s in steps)
        assert row["cpu_server"] == statistics.median(
            s["cpu_per_call_us"]["server"] for s in steps)
        # the answer: ≈ 400 KiB PSS, ≈ 230 KiB in the kernel,
        # together about the MemAvailable drop
        assert 390 < row["pss"] < 410
        assert 200 < row["accounted"] - row["pss"] < 260
        assert 0.8 < row["mem_available"] / row["accounted"] < 1.2


# ---- 2. fixed-N -----------------------------------------------------------

def test_is_fixed_n():
    bench = orbresults.load_results([BENCH])
    assert bench and all(orbresults.is_fixed_n(r.doc) for r in bench)
    assert all(orbresults.is_fixed_n(r.doc) for r in orbresults.load_results([IDLE]))
    assert not any(orbresults.is_fixed_n(r.doc) for r in
                   orbresults.load_results([PAIRED / "base"]))
    # a sweep that stopped at its first step was not meant to be fixed
    assert not orbresults.is_fixed_n(doc([step(25)], max_n=4000))
    assert orbresults.is_fixed_n(doc([step(25)], max_n=25, growth=1.0))
    assert not orbresults.is_fixed_n(doc([], max_n=25))


def test_fixed_n_dots_are_the_call_medians_of_each_run():
    series = load_series(BENCH)
    data = figs_fixed_n.fixed_n_data(series)
    assert [r["label"] for r in data["rows"]] == [lb for lb, _ in series]
    assert data["left_out"] == []
    for (label, docs), row in zip(series, data["rows"]):
        steps = [d["steps"][0] for d in docs]
        assert row["n"] == steps[0]["n"] in (1, 100)
        assert [x["call_median"] for x in row["runs"]] == \
            [s["call_us"]["median"] for s in steps]
        assert [x["call_p99"] for x in row["runs"]] == \
            [s["call_us"]["p99"] for s in steps]
        assert [x["cpu_server"] for x in row["runs"]] == \
            [s["cpu_per_call_us"]["server"] for s in steps]


def test_fixed_n_leaves_out_sweeps_and_notes_idle_runs():
    sweep = doc([step(10), step(20)])
    idle = doc([step(500, timed=False, cpu=None)], max_n=500,
               connect=False)
    data = figs_fixed_n.fixed_n_data([("sweep", [sweep]), ("idle", [idle])])
    assert data["left_out"] == [("sweep", "a sweep (N 10 to 20)")]
    row, = data["rows"]
    assert row["note"] == "no calls (client.connect false)"
    assert row["runs"] == [{"n": 500, "call_median": None, "call_p99": None,
                            "cpu_server": None, "cpu_user": None,
                            "cpu_sys": None}]
    with pytest.raises(Skip, match="no call was timed"):
        figs_fixed_n.fixed_n_figure([("idle", [idle])], "f", "t")
    with pytest.raises(Skip, match=r"^fixed-n: skipped, no series has a "
                                   r"single N \(sweep: a sweep"):
        figs_fixed_n.fixed_n_figure([("sweep", [sweep])], "f", "t")


# ---- 3. every round -------------------------------------------------------

def test_strip_points_are_every_round_of_steps_and_probes(paired_base):
    label, docs = paired_base[5]
    assert label == "sync-unix" and len(docs) == 3
    data = figs_strip.strip_data((label, docs))
    assert [r["label"] for r in data["runs"]] == ["run 1", "run 2",
                                                  "run 3"]
    for d, run in zip(docs, data["runs"]):
        want = [(s["n"], ms, "sweep") for s in d["steps"]
                for ms in s["rounds_ms"]] + \
            [(p["n"], ms, p["phase"]) for p in d["probes"]
             for ms in p["rounds_ms"]]
        assert run["points"] == want
        assert len(want) == sum(s["round_ms"]["count"]
                                for s in d["steps"] + d["probes"])
        assert run["medians"] == [(s["n"], s["round_ms"]["median"])
                                  for s in d["steps"]]
    assert {p[2] for r in data["runs"] for p in r["points"]} >= \
        {"sweep", "confirm", "bracket", "bisect"}
    assert data["log_x"] and data["max_ms"] == [100.0]
    assert data["lacking"] == []


def test_strip_constructed_linear_sweep_and_two_sides():
    a = doc([step(10, rounds=[1, 2, 3]), step(20, rounds=[4, 5, 9])],
            probes=[step(25, rounds=[7, 8], phase="bisect",
                          footprint=False)],
            growth=1.0, paired={"side": "a"})
    b = doc([step(10, rounds=[2, 3, 4])], growth=1.0,
            paired={"side": "b", "versus": ["server.work_us=6"]})
    data = figs_strip.strip_data(("s", [a, b]))
    assert not data["log_x"]
    ra, rb = data["runs"]
    assert ra["points"] == [(10, 1, "sweep"), (10, 2, "sweep"),
                            (10, 3, "sweep"), (20, 4, "sweep"),
                            (20, 5, "sweep"), (20, 9, "sweep"),
                            (25, 7, "bisect"), (25, 8, "bisect")]
    assert ra["medians"] == [(10, 2), (20, 5)]
    assert (ra["label"], rb["label"]) == ("A run 1",
                                          "B run 1 (server.work_us=6)")
    assert figs_strip.run_color(ra, 0) in figs_strip.SIDE_COLORS["a"]
    assert figs_strip.run_color(rb, 1) in figs_strip.SIDE_COLORS["b"]
    # the jitter keeps each round beside its own N
    xs = figs_strip.jitter([10, 20, 20, 25], False)
    assert all(abs(x - n) <= 0.3 * 5 for x, n in zip(xs, [10, 20, 20, 25]))
    xs = figs_strip.jitter([100, 1000], True)
    assert all(abs(x / n - 1) < 0.031 for x, n in zip(xs, [100, 1000]))


def test_strip_skips_results_without_rounds():
    old = orbresults.load_results([GRISBY_OLD / "06-sync-unix.r1.json"])[0].doc
    with pytest.raises(Skip) as e:
        figs_strip.strip_data(("sync-unix", [old]))
    assert str(e.value) == ("rounds sync-unix: skipped, these results keep "
                            "no per-round times (rounds_ms: older results "
                            "have only each step's summary)")
    # a new run beside an old one: drawn, the old one named
    new = doc([step(10), step(20)])
    data = figs_strip.strip_data(("s", [old, new]))
    assert data["lacking"] == ["run 1"] and len(data["runs"]) == 1
    idle = doc([step(500, timed=False)], connect=False)
    with pytest.raises(Skip, match=r"no timed rounds \(client.connect "
                                   r"false\)"):
        figs_strip.strip_data(("idle", [idle]))


# ---- everything -----------------------------------------------------------

def png_size(path):
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def check_written(fig):
    assert fig.png.is_file() and fig.png.stat().st_size > 5000, fig.png
    w, h = png_size(fig.png)
    assert 900 <= w <= 1300 and 200 <= h <= 1400, (fig.png, w, h)
    assert b"<svg" in fig.svg.read_bytes()[:2000]
    assert fig.caption.endswith(".") and len(fig.caption) > 80


def test_run_figures_on_constructed_sweeps_and_fixed_n(tmp_path):
    sweep = [doc([step(n, rounds=[n / 10 + i for i in range(5)],
                       delta=delta(500 * n, 64 * n, 80 * n, 90 * n))
                  for n in (10, 20, 40, 80)]) for _ in range(2)]
    fixed = [doc([step(1, delta=delta(0, 50, 60, 0), uss=2800,
                       pss=3300)], name="n1", max_n=1, growth=1.0)]
    old = orbresults.load_results([GRISBY_OLD / "06-sync-unix.r1.json"])[0].doc
    log = []
    figs = figs_run.run_figures([("sweep [x]", sweep), ("n1", fixed),
                          ("old", [old])], tmp_path, log=log.append)
    assert [f.stem for f in figs] == ["cost", "fixed-n", "rounds-sweep-x"]
    for f in figs:
        check_written(f)
    assert "rounds: skipped for old: these results keep no per-round " \
        "times (rounds_ms: older results have only each step's summary)" \
        in log
    assert "rounds: not drawn for 1 fixed-N series (n1; see fixed-n)" in log
    svg = (tmp_path / "cost.svg").read_text()
    for text in ("memory per server (KiB)", "server CPU per call (µs)",
                 "MemAvailable drop per server (median)", "N=80",
                 "MemAvailable did not drop"):
        assert text in svg, text
    assert "max_ms 100" in (tmp_path / "rounds-sweep-x.svg").read_text()


@pytest.mark.parametrize("folder,stems", [
    (PAIRED / "base", ["cost"] + [f"rounds-{n}" for n in (
        "thread-per-call-tcp", "thread-per-call-unix", "pool100-tcp",
        "pool100-unix", "pool5-unix", "sync-unix", "event-tcp",
        "event-unix")]),
    (BENCH, ["cost", "fixed-n"]),
    (IDLE, ["cost", "fixed-n"]),
])
def test_run_figures_on_real_results(tmp_path, folder, stems):
    log = []
    figs = figs_run.run_figures(load_series(folder), tmp_path, log=log.append)
    assert [f.stem for f in figs] == stems, log
    for f in figs:
        check_written(f)
    if folder == BENCH:
        assert "N=1" in figs[0].caption or "each row's N" in \
            figs[0].caption
        assert "not a sweep" in figs[1].caption
