"""The stopping rule of run-suite --until-verdict (orbbench.sequential):
a real sequential suite end to end (its error rates by simulation and
the plan's arithmetic: tests/py/test_sequential_rule.py)."""
import json
import subprocess

import pytest

import orbbench.sequential as orbseq
from conftest import ROOT as REPO, SCENARIOS


def small_suite(tmp_path):
    """Two tiny scenarios (sync and event loop) in tmp_path/sc."""
    sc = tmp_path / "sc"
    sc.mkdir()
    base = json.loads((SCENARIOS / "sync-unix.json").read_text())
    for mode in ("sync", "event"):
        d = dict(base, name=f"{mode}-small", mode=mode)
        d["sweep"] = dict(base["sweep"], start=4, step=4, max_ms=2,
                          rounds=3, max_n=200)
        (sc / f"{mode}.json").write_text(json.dumps(d))
    return sc


@pytest.mark.long
def test_until_verdict_runs_paired_repeats_and_records_its_looks(tmp_path):
    """A real sequential suite: two tiny scenarios, A/B with far dearer
    servers, at most 3 repeats. Every look is recorded, the suite stops
    when decided or at the maximum, and the final comparison uses the
    stopping look's alpha (from sequential.json)."""
    sc = small_suite(tmp_path)
    out = tmp_path / "out"
    r = subprocess.run(
        [str(REPO / "scripts" / "run-suite"), str(sc), "--paired",
         "--until-verdict", "--repeat", "2", "--max-repeat", "3",
         "--variant", "a", "--variant", "b:server.work_us=200",
         "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    seq = json.loads((out / "sequential.json").read_text())
    assert seq["plan"]["looks"] == 2 and seq["plan"]["budget_s"] is None
    # no budget: the looks after 2 and 3 of 3 repeats spend 2/3 and 1/3
    assert [x["alpha"] for x in seq["looks"]] == \
        pytest.approx([0.05 * 2 / 3, 0.05 / 3][:len(seq["looks"])])
    assert seq["stopped"] in ("decided", "max repeats")
    assert [x["repeats"] for x in seq["looks"]] == \
        list(range(2, 2 + len(seq["looks"])))
    assert (seq["stopped"] == "decided") == (seq["looks"][-1]["open"] == [])
    runs = sorted(p.name for p in (out / "a").glob("*.json"))
    assert len(runs) == 2 * seq["looks"][-1]["repeats"]
    assert len(seq["plan"]["repeat_times_s"]) == seq["looks"][-1]["repeats"]
    assert "look 1 of 2 after repeat 2 (alpha 0.03333, 0.03333 of 0.05 " \
        "spent; 3 repeats planned (looks after 2-3)): " in r.stdout
    # The final comparison: at the stopping look's alpha, said in its
    # method line.
    final = seq["looks"][-1]["alpha"]
    assert seq["plan"]["final_alpha"] == final
    md = (out / "compare-a-vs-b.md").read_text()
    assert f"alpha {final:.4g} from" in md and "sequential.json" in md
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sequential"]["plan"] == seq["plan"]
    # 200 µs of server work per call: the event-loop scenario's crossing
    # is far lower, never higher
    assert seq["looks"][-1]["suite_verdict"] != "faster"


@pytest.mark.long
def test_budget_stops_before_a_repeat_that_cannot_end_in_time(tmp_path):
    """A client that takes at least 4 s a run (it sleeps, then runs the
    real one): the first repeat of the two paired scenarios takes 8 s or
    more, so in a budget of 0.2 min (12 s) a second one cannot end in
    time at the slowest repeat's pace. The run stops after repeat 1,
    before the look --repeat 2 would have made after 2, and says so in
    one line. Only lower bounds on time decide it: a slower machine
    stops there too."""
    from conftest import ORBBENCH
    client = tmp_path / "orbbench"
    client.write_text(f'#!/bin/sh\nsleep 4\nexec "{ORBBENCH}" "$@"\n')
    client.chmod(0o755)
    out = tmp_path / "out"
    r = subprocess.run(
        [str(REPO / "scripts" / "run-suite"), str(small_suite(tmp_path)),
         "--paired", "--until-verdict", "--repeat", "2", "--max-repeat", "4",
         "--budget", "0.2", "--variant", "a", "--variant",
         "b:server.work_us=200", "--orbbench", str(client), "--out",
         str(out)], capture_output=True, text=True, timeout=600)
    seq = json.loads((out / "sequential.json").read_text())
    assert seq["stopped"] == "budget" and seq["looks"] == [], r.stderr
    plan = seq["plan"]
    [t] = plan["repeat_times_s"]
    assert t >= 8 and plan["repeat_s"] == pytest.approx(t, abs=0.1)
    assert plan["planned_repeats"] == 1 and plan["budget_s"] == 12
    # the decision, from the time recorded
    assert orbseq.plan_repeats(1, t, t, 12, 4) == 1
    assert sorted(p.name for p in (out / "a").glob("*.json")) == \
        ["event.r1.json", "sync.r1.json"]
    line = [x for x in r.stdout.splitlines() if "stopped: budget" in x]
    assert len(line) == 1 and line[0].startswith(
        "run-suite: stopped: budget: repeat 2 would end at "), r.stdout
    assert line[0].endswith("past the 0.2 min budget")
    assert "run-suite: plan: 1 repeat planned (no look: a look needs 2)" \
        in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sequential"]["stopped"] == "budget"


@pytest.mark.parametrize("args", [
    ["--solo", "--variant", "a", "--variant", "b"],
    ["--variant", "a", "--variant", "b:sweep.rounds=3"],
    ["--variant", "a"]])
def test_until_verdict_needs_paired(tmp_path, args):
    r = subprocess.run(
        [str(REPO / "scripts" / "run-suite"), str(SCENARIOS / "grisby"),
         "--until-verdict", *args, "--out", str(tmp_path / "o")],
        capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip() == \
        "run-suite: --until-verdict: needs paired runs: two variants " \
        "that differ only in server.* and caller.* keys, without --solo"
    assert not (tmp_path / "o").exists()
