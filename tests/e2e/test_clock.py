"""End-to-end: the clock benchmark (scenario kind "clock"): a short run of
every source, its exact sums, the scenario's errors, the figure's numbers
against the result, and the kernel's clock source in every kind's
result."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ORBBENCH, ROOT, SCENARIOS
from reportkit import script


CLOCK = SCENARIOS / "clock" / "clock.json"
SHORT = ("clock.duration_s=0.05", "clock.repeats=2")
SOURCES = ("monotonic", "monotonic_raw", "realtime", "boottime",
           "monotonic_coarse", "realtime_coarse", "tsc",
           "monotonic_syscall")


def usable_cpus():
    return sorted(os.sched_getaffinity(0))


def kernel_clocksource():
    try:
        with open("/sys/devices/system/clocksource/clocksource0/"
                  "current_clocksource") as f:
            return f.read().strip()
    except OSError:
        return ""


def check_clock_doc(doc, ks):
    """What every clock result must hold: exact counts and sums."""
    assert doc["kind"] == "clock"
    assert doc["scenario"]["kind"] == "clock"
    assert "sweep" not in doc["scenario"] and "rate" not in doc["scenario"]
    assert doc["result"]["stop_reason"] == "done"
    assert doc["clock"]["clocksource"] == kernel_clocksource()
    repeats = doc["scenario"]["clock"]["repeats"]
    cpus = doc["cpus"]
    assert set(cpus) <= set(usable_cpus())
    measured = 0
    for src in doc["sources"]:
        assert src["name"] in SOURCES
        if not src["available"]:
            # skipped with its reason, never silently
            assert src["skipped"] and src["ks"] == []
            continue
        measured += 1
        assert [kj["k"] for kj in src["ks"]] == list(ks)
        for kj in src["ks"]:
            k = kj["k"]
            assert kj["cpus"] == cpus[:k]  # distinct CPUs, one a thread
            assert len(kj["repeats"]) == repeats
            for rep in kj["repeats"]:
                th = rep["threads"]
                assert len(th) == k
                assert [t["cpu"] for t in th] == cpus[:k]
                for t in th:
                    assert t["calls"] > 0
                    # counted exactly, in whole batches of 1024
                    assert t["calls"] % 1024 == 0
                    assert t["elapsed_s"] > 0
                    assert t["calls_per_s"] == pytest.approx(
                        t["calls"] / t["elapsed_s"], rel=1e-6)
                    # pinned: it ran on the CPU it was given
                    assert t["cpu_seen"] == t["cpu"]
                assert rep["sum_calls"] == sum(t["calls"] for t in th)
                assert rep["sum_calls_per_s"] == pytest.approx(
                    sum(t["calls_per_s"] for t in th), rel=1e-6)
            sums = sorted(r["sum_calls_per_s"] for r in kj["repeats"])
            assert kj["sum_calls_per_s"]["min"] == sums[0]
            assert kj["sum_calls_per_s"]["max"] == sums[-1]
            per = [t["calls_per_s"] for r in kj["repeats"]
                   for t in r["threads"]]
            assert kj["per_core_calls_per_s"]["count"] == len(per)
            assert min(per) <= kj["per_core_calls_per_s"]["median"] \
                <= max(per)
    assert measured >= 1


def test_every_source_short_run(orbbench):
    r = orbbench(CLOCK, *SHORT)
    assert r.rc == 0, r.stderr
    ks = range(1, len(usable_cpus()) + 1)
    check_clock_doc(r.doc, ks)
    assert [s["name"] for s in r.doc["sources"]] == list(SOURCES)
    assert "M/s at k=1" in r.stdout
    assert r.doc["orb"] is None and r.doc["servers"] == []


def test_chosen_sources_and_k(orbbench):
    r = orbbench(CLOCK, *SHORT, "clock.sources=monotonic_coarse "
                 "monotonic_syscall", "clock.k=1")
    assert r.rc == 0, r.stderr
    check_clock_doc(r.doc, [1])
    assert [s["name"] for s in r.doc["sources"]] == [
        "monotonic_coarse", "monotonic_syscall"]
    assert r.doc["scenario"]["clock"]["sources"] == [
        "monotonic_coarse", "monotonic_syscall"]


def test_machine_cpus_limits_the_cpus(orbbench):
    last = usable_cpus()[-1]
    r = orbbench(CLOCK, *SHORT, "clock.sources=monotonic",
                 f"machine.cpus={last}")
    assert r.rc == 0, r.stderr
    check_clock_doc(r.doc, [1])
    assert r.doc["cpus"] == [last]


def run_check(*sets, cmd="run"):
    args = [str(ORBBENCH), cmd, str(CLOCK), "--out", "/dev/null/x.json"]
    if cmd == "check":
        args = args[:3]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("cmd", ["check", "run"])
def test_cpu_outside_the_allowed_set_is_exit_2(cmd):
    r = run_check("machine.cpus=999", cmd=cmd)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == ("orbbench: --set machine.cpus: CPU 999 is "
                                "not on this machine (%d CPUs usable here)"
                                % len(usable_cpus()))


@pytest.mark.parametrize("kind_file", ["sync-unix.json",
                                       "fifo/01-tpc-unix-sync.json"])
def test_cpu_outside_the_allowed_set_other_kinds(kind_file):
    """Every kind: a CPU list outside the allowed set is exit 2 naming
    the key, before anything starts."""
    r = subprocess.run([str(ORBBENCH), "run", str(SCENARIOS / kind_file),
                        "--set", "machine.cpus=999", "--out",
                        "/dev/null/x.json"], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 2, r.stderr
    assert "machine.cpus" in r.stderr and "999" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_bad_source_is_exit_2():
    r = run_check("clock.sources=monotonic hpet", cmd="check")
    assert r.returncode == 2
    assert r.stderr.strip() == (
        'orbbench: --set clock.sources: "hpet" is not one of: ' +
        ", ".join(SOURCES))


def test_too_many_threads_is_exit_2():
    n = len(usable_cpus())
    r = run_check(f"clock.k=1-{n + 1}", cmd="check")
    assert r.returncode == 2
    assert r.stderr.strip() == (f"orbbench: --set clock.k: {n + 1} threads, "
                                f"but only {n} CPU(s) are usable")
    r = run_check("clock.k=0", cmd="check")
    assert r.returncode == 2 and "clock.k" in r.stderr


def test_clock_keys_only_in_clock_scenarios(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"transport": "unix",
                             "clock": {"repeats": 2}}))
    r = subprocess.run([str(ORBBENCH), "check", str(p)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert 'key "clock.repeats": only for "kind": "clock" scenarios' \
        in r.stderr
    r = run_check("sweep.max_n=5", cmd="check")
    assert r.returncode == 2 and "sweep.max_n" in r.stderr


def test_clock_cannot_run_paired():
    r = subprocess.run([str(ORBBENCH), "run", str(CLOCK), "--paired",
                        "--out", "/dev/null/x.json"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 2
    assert "cannot run paired" in r.stderr


def test_figure_data_equals_the_result(orbbench, tmp_path):
    import orbbench.figures.clock as figs_clock
    import orbbench.plot as orbplot
    import orbbench.results as orbresults
    r = orbbench(CLOCK, *SHORT)
    assert r.rc == 0, r.stderr
    results = orbresults.load_results([tmp_path])
    data = figs_clock.clock_data([x.doc for x in results])
    by = {s["name"]: s for s in data["sources"]}
    for src in r.doc["sources"]:
        got = by[src["name"]]
        assert got["skipped"] == src["skipped"]
        assert [row["k"] for row in got["ks"]] == \
            [kj["k"] for kj in src["ks"]]
        for row, kj in zip(got["ks"], src["ks"]):
            assert row["sums"] == [rep["sum_calls_per_s"]
                                   for rep in kj["repeats"]]
            assert row["per_core"] == [t["calls_per_s"]
                                       for rep in kj["repeats"]
                                       for t in rep["threads"]]
            assert row["sum_median"] == pytest.approx(
                kj["sum_calls_per_s"]["median"])
            assert row["per_core_median"] == pytest.approx(
                kj["per_core_calls_per_s"]["median"])
            assert row["sum_min"] == kj["sum_calls_per_s"]["min"]
            assert row["sum_max"] == kj["sum_calls_per_s"]["max"]
    assert data["clocksources"] == [r.doc["clock"]["clocksource"]]
    figs = orbplot.plot_all(results, tmp_path / "plots", "t")
    assert [f.stem for f in figs] == ["clock"]
    assert "M/s at k=1" in figs[0].caption
    assert figs[0].png.exists() and figs[0].svg.exists()
    # the report draws it too, and compare refuses a clock result
    rep = subprocess.run([sys.executable, str(ROOT / "scripts" / "report"),
                          "--results", str(tmp_path), "--out",
                          str(tmp_path / "report")], capture_output=True,
                         text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    assert "clock.png" in md and "M/s at k=1" in md
    cmp = script("compare", tmp_path, tmp_path)
    assert cmp.returncode == 2
    assert "a clock result" in cmp.stderr
    assert len(cmp.stderr.strip().splitlines()) == 1


def test_sweep_and_rate_results_record_the_clocksource(orbbench):
    cs = kernel_clocksource()
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.max_n=2",
                 "sweep.start=2", "sweep.rounds=2")
    assert r.rc == 0, r.stderr
    assert r.doc["clock"]["clocksource"] == cs
    assert r.doc["clock"]["cost_ns"] > 0  # next to the measured cost
    r = orbbench(SCENARIOS / "fifo" / "13-raw-pipe-sync.json",
                 "rate.duration_s=0.05", "rate.warmup_s=0",
                 "rate.repeats=1")
    assert r.rc == 0, r.stderr
    assert r.doc["clock"]["clocksource"] == cs
