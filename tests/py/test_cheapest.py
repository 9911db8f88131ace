"""compare reads round time and server CPU per measurement on its cheapest
30% of rounds (docs/compare.md, "The cheapest rounds"), and only when
every measurement of both sides has them: no comparison sets one estimate
against the other. On the fixtures' real sweeps (tests/fixtures/A, B:
omniORB, B with 100 us of work a call), with server_low added or left out
here."""
import copy

import orbbench.comparison.model as orbcmp
import orbbench.comparison.readings as orbreadings
import orbbench.results as orbresults

from conftest import ROOT

FIX = ROOT / "tests" / "fixtures"


def load(side):
    return orbresults.load_results([FIX / side / "sync-unix.json"])


def with_low(results, value):
    """Copies of results whose every measurement has server_low = value."""
    out = []
    for r in results:
        doc = copy.deepcopy(r.doc)
        for s in orbreadings.measurements(doc):
            s["cpu_per_call_us"]["server_low"] = value
        out.append(orbresults.Result(r.path, doc))
    return out


def cpu(a, b):
    cmp, = orbcmp.compare_many([a, b], None, "pss")
    row, = cmp["scenarios"]
    return row["metrics"]["server_cpu_us"], row["metrics"]["round_ms"]


def test_round_ms_low_is_the_cheapest_share():
    step = {"rounds_ms": [9.0, 3.0, 30.0, 4.0, 5.0, 8.0, 6.0, 7.0, 20.0,
                          10.0]}
    assert orbresults.round_ms_low(step) == (3.0 + 4.0 + 5.0) / 3
    # 7 rounds: ceil(2.1) = 3 cheapest.
    assert orbresults.round_ms_low({"rounds_ms": [7, 1, 6, 2, 5, 3, 4]}) \
        == 2.0
    # Fewer than 5 rounds: none, the median is read instead.
    assert orbresults.round_ms_low({"rounds_ms": [1, 2, 3, 4]}) is None


def test_server_cpu_is_read_on_the_cheapest_rounds_when_every_run_has_them():
    a, b = load("A"), load("B")
    # The fixtures predate server_low: the totals, as before.
    m, rounds = cpu(a, b)
    assert m["per_measurement"] == "total over the calls"
    totals = m["ratio"]
    assert totals > 2  # 100 us of work on a call of a few us
    # Every measurement with its cheapest rounds: those are read.
    m, _ = cpu(with_low(a, 50.0), with_low(b, 60.0))
    assert m["per_measurement"] == "cheapest 30% of rounds"
    assert abs(m["ratio"] - 1.2) < 1e-6, m["ratio"]
    # A measurement of fewer than 5 rounds (a warm start's far step) has
    # no cheapest share: it is left out, the others still read so.
    short = with_low(b, 60.0)
    step = orbreadings.measurements(short[0].doc)[0]
    step["rounds_ms"] = step["rounds_ms"][:3]
    del step["cpu_per_call_us"]["server_low"]
    m, _ = cpu(with_low(a, 50.0), short)
    assert m["per_measurement"] == "cheapest 30% of rounds"
    assert abs(m["ratio"] - 1.2) < 1e-6, m["ratio"]
    # One side from before 2026-12-05 (no server_low): totals on both.
    m, _ = cpu(a, with_low(b, 60.0))
    assert m["per_measurement"] == "total over the calls"
    assert abs(m["ratio"] - totals) < 1e-9
    # Round time: every fixture measurement has 5 rounds or more.
    assert rounds["per_measurement"] == "cheapest 30% of rounds"
