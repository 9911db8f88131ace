"""The stopping rule of run-suite --until-verdict (orbbench.sequential):
its error rates by simulation from this machine's measured noise, the
plan's arithmetic, and a real sequential suite end to end."""
import json
import math
import random
import subprocess

import pytest

import orbbench.comparison.model as orbcompare
import orbbench.sequential as orbseq
import orbbench.stats as orbstats
from conftest import ROOT as REPO, SCENARIOS

# The sd of the per-run log ratio B/A in the paired A/A Grisby suite of
# 2026-11-30 (results/examples/resolution-2026-11-30/paired-a-vs-a), per
# scenario in the suite's order: crossing N, server CPU per call, PSS.
NOISE = {
    "crossing_n": [0.0139, 0.0042, 0.0222, 0.0351, 0.0060, 0.0093, 0.0089,
                   0.0301],
    "server_cpu_us": [0.0093, 0.0433, 0.0166, 0.0335, 0.0230, 0.0043,
                      0.0051, 0.0499],
    "pss_kb": [0.0002, 0.0003, 0.0001, 0.0001, 0.0002, 0.0001, 0.0002,
               0.0001],
}
HIGHER = {"crossing_n": True, "server_cpu_us": False, "pss_kb": False}


def simulated_comparison(logs):
    """A compare_pair()-shaped dict from per-scenario, per-metric lists of
    per-run log ratios (A's values drift, as the host does)."""
    rnd = random.Random(len(logs))
    rows = []
    for s, per in enumerate(logs):
        metrics = {}
        for key, d in per.items():
            a = [1000 * math.exp(rnd.gauss(0, 0.1)) for _ in d]
            b = [x * math.exp(y) for x, y in zip(a, d)]
            metrics[key] = orbstats.compare_paired(a, b, HIGHER[key],
                                                   key == "pss_kb")
        metrics["round_ms"] = orbstats.compare_paired([1, 1], [1, 1], False)
        rows.append({"scenario": f"s{s}", "metrics": metrics})
    return {"scenarios": rows, "method": {}}


def run_sequential(plan, rnd, effect=None, alpha_of=None):
    """One simulated sequential suite: repeats until decided or the
    plan's last. effect: {metric: log ratio} added to every run; alpha_of:
    the alpha of the look after a repeat (the plan's spending if None).
    Returns the comparison judged at the stopping look and the repeats it
    took."""
    effect = effect or {}
    logs = [{k: [] for k in NOISE} for _ in NOISE["crossing_n"]]
    for rep in range(1, plan.planned_repeats + 1):
        for s, per in enumerate(logs):
            for k in NOISE:
                per[k].append(effect.get(k, 0) + rnd.gauss(0, NOISE[k][s]))
        if not plan.look_due(rep):
            continue
        alpha = plan.take_look(rep) if alpha_of is None else alpha_of(rep)
        cmp = orbcompare.judge([simulated_comparison(logs)], "pss",
                               alpha)[0]
        if orbseq.decided([cmp], plan):
            break
    return cmp, rep


def alarms(cmp):
    """(a suite row says a difference, some scenario's metric does)."""
    diff = {"slower", "faster", "larger", "smaller"}
    return (any(m["verdict"] in diff for m in cmp["suite"].values()),
            any(m["verdict"] in diff for r in cmp["scenarios"]
                for m in r["metrics"].values() if m["primary"]))


TRIALS = 300


def test_false_alarm_rate_is_held_despite_stopping_early():
    """A/A, the measured noise: in each family (suite rows, scenarios'
    metrics) the chance of any false verdict at the stopping look is at
    most alpha = 0.05 (plus 2 standard errors of a 300-trial estimate);
    looking at 0.05 every time, without the spending, is worse."""
    rnd = random.Random(20261201)
    spent = [alarms(run_sequential(orbseq.Plan(3, 8), rnd)[0])
             for _ in range(TRIALS)]
    margin = 2 * math.sqrt(0.05 * 0.95 / TRIALS)
    suite_rate = sum(s for s, _ in spent) / TRIALS
    scen_rate = sum(c for _, c in spent) / TRIALS
    assert suite_rate <= 0.05 + margin, suite_rate
    assert scen_rate <= 0.05 + margin, scen_rate

    rnd = random.Random(20261201)
    unspent = [alarms(run_sequential(orbseq.Plan(3, 8), rnd,
                                     alpha_of=lambda rep: 0.05)[0])
               for _ in range(TRIALS)]
    assert sum(s or c for s, c in unspent) > sum(s or c for s, c in spent)


def test_five_percent_more_cpu_is_found_by_the_suite():
    """B's servers 5% dearer per call, so crossing N about 5% lower: with
    the measured noise the suite rows say slower in nearly every
    simulated suite, and it stops before the maximum most of the time."""
    rnd = random.Random(5)
    effect = {"crossing_n": math.log(0.95), "server_cpu_us": math.log(1.05)}
    runs = [run_sequential(orbseq.Plan(3, 8), rnd, effect)
            for _ in range(60)]
    plan = orbseq.Plan(3, 8)
    found = sum(c["suite"]["crossing_n"]["verdict"] == "slower" and
                c["suite"]["server_cpu_us"]["verdict"] == "slower"
                for c, _ in runs)
    assert found >= 0.9 * len(runs)
    assert sum(rep < plan.max_repeats for _, rep in runs) >= len(runs) / 2
    # and never the wrong way
    assert not any(c["suite_verdict"] == "faster" for c, _ in runs)


def test_state_of_an_interval():
    def m(lo, hi):
        return {"ci_low": lo, "ci_high": hi, "q_value": 0.5}
    assert orbseq.state(m(1.01, 1.2), 3) == "differs"
    assert orbseq.state(m(0.98, 1.02), 3) == "equivalent"
    assert orbseq.state(m(0.9, 1.02), 3) == "open"
    assert orbseq.state({"ci_low": None, "ci_high": None,
                         "q_value": None}, 3) is None


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
