"""compare reads the costs (round time, CPU per call, memory per server)
at the scenario's sweep.cost_n, one N whatever the runs reached, from a
power law through each run's measurements within x1.5 of it; a run that
stopped below it moves the reading to the largest N every run measured,
and compare says so."""
import json
import math
import subprocess

from conftest import ORBBENCH, set_flags
from test_interference import paired as paired_run
from test_paired import SMALL


# 200 µs a call, one call after another: a round of 38 servers takes
# about 8 ms of work, so both sides sweep 2, 6, …, 38 to max_n under
# max_ms 25. (Under SMALL's 10 ms, a make test that ran tests/py beside
# it stopped a side at N = 20 or below, short of the cost_n it reads.)
REACH = (*SMALL, "server.work_us=200", "sweep.start=2", "sweep.step=4",
         "sweep.max_n=40", "sweep.max_ms=25")


def paired(tmp_path, cost_n):
    """A paired A/A run (test_interference's) swept as REACH with cost_n,
    and compare's metrics of it."""
    docs = paired_run(tmp_path, *set_flags(*REACH, f"sweep.cost_n={cost_n}"))
    for d in docs:
        assert d["scenario"]["sweep"]["cost_n"] == cost_n
    proc = subprocess.run(
        [str(ORBBENCH), "compare", str(tmp_path / "a.json"),
         str(tmp_path / "a.versus.json"), "--format", "json"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (sc,) = json.loads(proc.stdout)["scenarios"]
    return docs, sc["metrics"]


def measured(doc):
    return [m for m in doc["steps"] + doc["probes"] if m.get("rounds_ms")]


def cheapest(rounds):
    """The mean of the cheapest 30% of a measurement's rounds (at least
    one), None with fewer than 5: compare's "cheapest 30% of rounds"."""
    if len(rounds) < 5:
        return None
    k = max(1, math.ceil(0.3 * len(rounds) - 1e-9))
    return sum(sorted(rounds)[:k]) / k


def power_law_at(doc, n0, window, per="median round"):
    """The run's round time at n0: weighted least squares of log round
    time on log N over its measurements within x window (by rounds); a
    measurement's round time its median, or with per "cheapest 30% of
    rounds" the mean of its cheapest 30% (those of fewer than 5 rounds
    left out)."""
    def value(m):
        if per == "median round":
            return m["round_ms"]["median"]
        return cheapest(m["rounds_ms"])
    pts = [(math.log(m["n"]), math.log(value(m)), m["round_ms"]["count"])
           for m in measured(doc)
           if n0 / window <= m["n"] <= n0 * window and value(m)]
    assert len({p[0] for p in pts}) >= 2
    sw = sum(w for *_, w in pts)
    xb = sum(w * x for x, _, w in pts) / sw
    yb = sum(w * y for _, y, w in pts) / sw
    sxy = sum(w * (x - xb) * (y - yb) for x, y, w in pts)
    sxx = sum(w * (x - xb) ** 2 for x, _, w in pts)
    return math.exp(yb + sxy / sxx * (math.log(n0) - xb))


def test_costs_are_read_at_cost_n_through_its_neighbourhood(tmp_path):
    (a, b), ms = paired(tmp_path, 20)
    # Both sides swept past 20 (REACH).
    assert all(max(m["n"] for m in measured(d)) > 20 for d in (a, b))
    for key in ("round_ms", "server_cpu_us"):
        assert ms[key]["at_n"] == 20, key
        assert ms[key]["at_window"] == 1.5
        assert not any("cost_n" in n for n in ms[key].get("notes", []))
    per = ms["round_ms"]["per_measurement"]
    # Steps of 3 rounds (SMALL) have no cheapest share: medians, on both.
    assert per == "median round"
    for doc, got in ((a, ms["round_ms"]["a_values"][0]),
                     (b, ms["round_ms"]["b_values"][0])):
        assert math.isclose(got, power_law_at(doc, 20, 1.5, per),
                            rel_tol=1e-9)
    # Memory at the measured step nearest it (18 and 22: the larger).
    assert ms["pss_kb"]["at_n"] == 22


def test_a_run_below_cost_n_moves_the_reading_and_says_so(tmp_path):
    (a, b), ms = paired(tmp_path, 5000)
    reach = min(max(m["n"] for m in measured(d)) for d in (a, b))
    assert reach < 5000
    for key in ("round_ms", "server_cpu_us"):
        assert ms[key]["at_n"] == reach, key
        assert any("below sweep.cost_n=5000" in n and
                   f"N={reach}" in n for n in ms[key]["notes"]), \
            ms[key]["notes"]
