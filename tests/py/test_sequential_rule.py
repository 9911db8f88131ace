"""The stopping rule of run-suite --until-verdict (orbbench.sequential)
without a run: its error rates by simulation from this machine's
measured noise, and the plan's arithmetic (a real sequential suite end
to end: tests/e2e/test_sequential.py)."""
import math
import random

import pytest

import orbbench.comparison.model as orbcompare
import orbbench.sequential as orbseq
import orbbench.stats as orbstats

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


@pytest.mark.long
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
