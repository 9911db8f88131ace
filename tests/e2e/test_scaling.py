"""End-to-end: the ORB across cores (scenario kind "scaling"): k pinned
client/server pairs of omniORB and raw servers, the CPU placement, the
key rules, and the figure's numbers against the result file."""
import os
import subprocess

import pytest

from conftest import (ORBBENCH, SCENARIOS, interrupt_mid_run,
                      kill_a_server_mid_run, start_repeating_run)


SCALING = SCENARIOS / "scaling"
SHORT = ("scaling.duration_s=0.1", "scaling.warmup_s=0.05",
         "scaling.repeats=2")
NCPU = len(os.sched_getaffinity(0))


def check_scaling_doc(doc, placement):
    """What every scaling result must hold, as correctness bounds."""
    assert doc["kind"] == "scaling"
    assert doc["result"]["stop_reason"] == "done"
    assert "rate" not in doc["scenario"] and "sweep" not in doc["scenario"]
    sc = doc["scenario"]["scaling"]
    sg = doc["scaling"]
    assert sg["placement"] == placement
    assert sg["k"] == list(range(1, NCPU + 1))
    cpus = sg["cpus"]
    assert len(cpus) == NCPU
    # every server runs on exactly its pair's CPU, inside the allowed set
    assert len(sg["pairs"]) == NCPU == len(doc["servers"])
    for p in sg["pairs"]:
        assert p["server_affinity"] == [p["server_cpu"]]
        assert p["client_cpu"] in cpus and p["server_cpu"] in cpus
        if placement == "same":
            assert p["client_cpu"] == p["server_cpu"]
        else:
            assert p["client_cpu"] != p["server_cpu"]
    reps = doc["repeats"]
    assert len(reps) == sc["repeats"] * NCPU
    for rep in reps:
        assert len(rep["pairs"]) == rep["k"]
        for p in rep["pairs"]:
            assert p["calls"] > 0
            # the client thread never left its CPU
            assert p["ran_on_cpu"] == p["client_cpu"]
            assert abs(p["calls_per_s"] * p["elapsed_s"] - p["calls"]) \
                < 1e-6 * p["calls"] + 1e-3
        assert rep["sum_calls"] == sum(p["calls"] for p in rep["pairs"])
        assert rep["sum_calls_per_s"] == pytest.approx(
            sum(p["calls_per_s"] for p in rep["pairs"]))
        assert rep["elapsed_s"] >= sc["duration_s"]
        assert rep["server_cpu"]["total_s"] > 0
    for st in sg["steps"]:
        sums = sorted(r["sum_calls_per_s"] for r in reps
                      if r["k"] == st["k"])
        assert st["sum_calls_per_s"]["min"] == sums[0]
        assert st["sum_calls_per_s"]["max"] == sums[-1]


@pytest.mark.parametrize("name,placement", [
    ("omniorb-unix-same", "same"), ("raw-unix-same", "same"),
    pytest.param("omniorb-unix-spread", "spread",
                 marks=pytest.mark.skipif(NCPU < 2, reason="one CPU")),
    pytest.param("raw-unix-spread", "spread",
                 marks=pytest.mark.skipif(NCPU < 2, reason="one CPU"))])
def test_each_kind_end_to_end(orbbench, name, placement):
    r = orbbench(SCALING / f"{name}.json", *SHORT)
    assert r.rc == 0, r.stderr
    check_scaling_doc(r.doc, placement)
    assert "kHz summed" in r.stdout


def test_giop_min_and_a_k_list(orbbench):
    r = orbbench(SCALING / "giopmin-unix-same.json", *SHORT, "scaling.k=[1]")
    assert r.rc == 0, r.stderr
    assert r.doc["scaling"]["k"] == [1]
    assert [rep["k"] for rep in r.doc["repeats"]] == [1, 1]
    assert r.doc["orb"]["name"] == "giop-min"


def run_bad(tmp_path, *sets):
    args = [str(ORBBENCH), "run", str(SCALING / "raw-unix-same.json"),
            "--out", str(tmp_path / "r.json")]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def test_cpus_outside_the_allowed_set_is_exit_2(tmp_path):
    r = run_bad(tmp_path, f"machine.cpus={max(os.sched_getaffinity(0)) + 1}")
    assert r.returncode == 2, r.stderr
    assert "machine.cpus" in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


def test_more_pairs_than_cpus_is_exit_2(tmp_path):
    r = run_bad(tmp_path, f"scaling.k={NCPU + 1}")
    assert r.returncode == 2, r.stderr
    assert "scaling.k" in r.stderr and r.stderr.count("\n") == 1


def test_client_cpus_is_refused(tmp_path):
    r = run_bad(tmp_path, "machine.client_cpus=0")
    assert r.returncode == 2, r.stderr
    assert "machine.client_cpus" in r.stderr


def test_machine_cpus_limits_the_pairs(orbbench):
    """machine.cpus names the CPUs used: one CPU, so k = 1 on it."""
    cpu = max(os.sched_getaffinity(0))
    r = orbbench(SCALING / "raw-unix-same.json", *SHORT,
                 f"machine.cpus={cpu}")
    assert r.rc == 0, r.stderr
    sg = r.doc["scaling"]
    assert sg["cpus"] == [cpu] and sg["k"] == [1]
    assert sg["pairs"][0]["server_affinity"] == [cpu]
    assert {p["ran_on_cpu"] for rep in r.doc["repeats"]
            for p in rep["pairs"]} == {cpu}


def test_figure_data_equals_the_result(orbbench):
    import orbbench.figures.scaling as figs_scaling
    r = orbbench(SCALING / "raw-unix-same.json", *SHORT)
    assert r.rc == 0, r.stderr
    doc = r.doc
    data = figs_scaling.scaling_data([("raw", [doc])])
    assert not data["left_out"]
    (p,) = data["panels"]
    assert p["ks"] == doc["scaling"]["k"]
    for k in p["ks"]:
        reps = [rep for rep in doc["repeats"] if rep["k"] == k]
        assert sorted(p["per_pair"][k]) == sorted(
            q["calls_per_s"] for rep in reps for q in rep["pairs"])
        assert p["sums"][k] == [rep["sum_calls_per_s"] for rep in reps]
        st = next(s for s in doc["scaling"]["steps"] if s["k"] == k)
        assert p["sum_median"][k] == pytest.approx(
            st["sum_calls_per_s"]["median"])
        assert p["pair_median"][k] == pytest.approx(
            st["pair_calls_per_s"]["median"])
    assert figs_scaling.scaling_caption(data).count("kHz") >= 1


def start_scaling(tmp_path):
    """A long scaling run in the background: (process, result path, the
    first result written after a repeat)."""
    out = tmp_path / "scaling.json"
    proc, doc = start_repeating_run(
        SCALING / "raw-unix-same.json", out, "scaling.duration_s=0.2",
        "scaling.warmup_s=0.05", "scaling.repeats=200")
    return proc, out, doc


def test_server_dying_mid_scaling_run(tmp_path):
    """A pair's server killed: server_died naming it, exit 1, the repeats
    so far kept."""
    _, doc, victim = kill_a_server_mid_run(*start_scaling(tmp_path))
    assert f"pid {victim}" in doc["result"]["detail"]


def test_ctrl_c_mid_scaling_run(tmp_path):
    """SIGINT: exit 130, interrupted, the repeats so far kept."""
    proc, out, _ = start_scaling(tmp_path)
    interrupt_mid_run(proc, out)
