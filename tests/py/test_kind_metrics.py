"""compare on a kind weighed by its own metrics (orbbench.metric.Metric:
kind connect's), alone and in one comparison with sweeps: its metrics
tested as declared, a descriptive one not tested, its own table and
suite rows, and the sweep's rows as before. Synthetic connect runs (their
values chosen here), real sweep results from results/examples."""
import copy
from pathlib import Path

import orbbench.comparison.model as orbcmp
import orbbench.comparison.parts as parts
import orbbench.comparison.render as render
import orbbench.metric as orbmetric
import orbbench.results as orbresults

from conftest import ROOT

SWEEPS = ROOT / "results" / "examples" / "grisby-omniorb-4.2.5-vs-4.3.3"


def connect_run(like, per_s, total_us, kb, i):
    """A connect result with these values, on like's ORB and host."""
    doc = {"schema": orbresults.SCHEMA, "kind": "connect",
           "scenario": {"name": "connect-omniorb-unix", "kind": "connect"},
           "connect": {"connections": 600,
                       "blocks": [{"connections": 100, "per_s": per_s}] * 6,
                       "per_s": {"median": per_s, "low": per_s * 0.9,
                                 "high": per_s * 1.1},
                       "total_us": {"median": total_us},
                       "per_connection": {"pss_kb": kb, "uss_kb": kb}},
           "result": {"stop_reason": "done"},
           "orb": copy.deepcopy(like["orb"]),
           "host": copy.deepcopy(like["host"])}
    return orbresults.Result(Path(f"connect.r{i}.json"), doc)


def side(folder, rates, kb=18.0):
    sweeps = orbresults.load_results(sorted(
        (SWEEPS / folder).glob("08-*.json")))
    like = sweeps[0].doc
    return sweeps + [connect_run(like, r, 1e6 / r, kb, i)
                     for i, r in enumerate(rates)]


def test_a_kind_with_metrics_is_weighed_by_them_beside_sweeps():
    a = side("omniorb-system", [5000, 5100, 4950, 5050])
    b = side("omniorb-4.3.3", [2500, 2530, 2480, 2510], kb=18.01)
    cmp, = orbcmp.compare_many([a, b], None, "pss")
    rows = {r["scenario"]: r for r in cmp["scenarios"]}
    c = rows["connect-omniorb-unix"]
    assert c["kind"] == "connect"
    assert sorted(c["metrics"]) == ["per_connection_kb", "per_s",
                                    "total_us"]
    per_s = c["metrics"]["per_s"]
    assert per_s["primary"] and per_s["verdict"] == "slower"
    assert abs(per_s["ratio"] - 0.5) < 0.01
    assert per_s["a_values"] == [5000, 5100, 4950, 5050]
    # Asked again per connection: an interval, no test.
    total = c["metrics"]["total_us"]
    assert total["primary"] is False and total["verdict"] == "n/a"
    assert total["q_value"] is None and total["ci_low"] < 2 < total["ci_high"]
    assert c["metrics"]["per_connection_kb"]["memory"] is True
    assert c["verdict"] == "slower"
    # The sweep's scenario keeps the sweep's metrics.
    sweep = next(r for r in cmp["scenarios"] if r["kind"] == "sweep")
    assert "crossing_n" in sweep["metrics"] and "per_s" not in \
        sweep["metrics"]
    # Suite rows of both, each over its own scenarios.
    assert cmp["suite"]["per_s"]["n_scenarios"] == 1
    assert cmp["suite"]["crossing_n"]["n_scenarios"] == 1
    # Tables: the sweep in the main one, connect in its own.
    head, main = parts.main_table([cmp])
    assert [r[0] for r in main] == [sweep["scenario"]]
    (title, khead, krows), = parts.kind_tables([cmp])
    assert title == "Per scenario, kind connect"
    assert khead[:2] == ("scenario", "connections/s A")
    assert krows[0][0] == "connect-omniorb-unix"
    assert "slower" in krows[0][khead.index("connections/s B/A")]
    text = render.render(cmp and [cmp], "text")
    assert "Per scenario, kind connect:" in text
    assert "Per scenario of a kind without steps (connect)" in text
    csv = render.render([cmp], "csv")
    assert "connect-omniorb-unix,per_s," in csv


def test_alone_it_has_no_sweep_table_and_equal_sides_are_same():
    a = [r for r in side("omniorb-system", [5000, 5010, 4990, 5005])
         if r.doc.get("kind") == "connect"]
    b = [r for r in side("omniorb-system", [5002, 5008, 4995, 5001])
         if r.doc.get("kind") == "connect"]
    cmp, = orbcmp.compare_many([a, b], None, "pss")
    assert cmp["scenarios"][0]["metrics"]["per_s"]["verdict"] == "same"
    _, main = parts.main_table([cmp])
    assert main == []
    assert "Per scenario:" not in render.render([cmp], "text")
    # MemAvailable is not a connect measure: no value, no test.
    cmp, = orbcmp.compare_many([a, b], None, "mem_available")
    m = cmp["scenarios"][0]["metrics"]["per_connection_kb"]
    assert m["verdict"] == "n/a" and m["ratio"] is None


def test_a_kind_cannot_both_refuse_and_declare_metrics():
    m = orbmetric.Metric("x", "x", lambda d, mem: 1)
    try:
        orbresults.Kind("bogus", "bogus", refusal="no", metrics=[m])
    except ValueError as e:
        assert "refusal and metrics" in str(e)
    else:
        raise AssertionError("a kind with a refusal and metrics was made")


def test_sweep_and_fanin_declare_their_metrics_as_data():
    """The sweep's metrics are rows of its kind (read off its steps), not
    compare's; fanin, a sweep over connections, has the same; compare
    names and tests them from the rows."""
    sweep = orbresults.KINDS["sweep"]
    keys = [m.key_for("uss") for m in sweep.metrics]
    assert keys == ["crossing_n", "round_ms", "server_cpu_us",
                    "client_cpu_us", "uss_kb", "client_threads",
                    "client_uss_kb"]
    assert orbresults.KINDS["fanin"].metrics == sweep.metrics
    assert sweep.stepped and orbresults.KINDS["fanin"].stepped
    assert not orbresults.KINDS["connect"].stepped
    assert orbcmp.metric_label("uss_kb", "uss") == "USS"
    assert orbcmp.metric_label("server_cpu_us", "pss") == "server CPU"
    assert orbcmp.metric_label("per_s", "pss") == "connections/s"
    # Crossing N is tested where the runs grew N, round time where they
    # measured one N by design; the client half never.
    grown = {"kind": "sweep", "metrics": {"crossing_n": {}}}
    fixed = {"kind": "fanin", "metrics": {"crossing_n": {
        "source": "fixed_n"}}}
    assert orbcmp.primary_keys(grown, "pss") == (
        "crossing_n", "server_cpu_us", "pss_kb")
    assert orbcmp.primary_keys(fixed, "pss") == (
        "round_ms", "server_cpu_us", "pss_kb")
    # A row without a kind (an older comparison) is a sweep's.
    assert orbcmp.primary_keys({"metrics": {}}, "pss")[0] == "crossing_n"


def test_a_metric_read_once_per_run_has_a_reader_and_no_other():
    for bad in (dict(at="run"), dict(read=lambda d, mem: 1, at="fit"),
                dict(read=lambda d, mem: 1, at="somewhere")):
        try:
            orbmetric.Metric("x", "x", **bad)
        except ValueError as e:
            assert "metric 'x'" in str(e)
        else:
            raise AssertionError(f"a metric {bad} was made")


# ---- result.held: one number, its unit, its earlier names still read ------

def held_doc(**res):
    return {"result": dict({"stop_reason": "latency"}, **res)}


def test_held_reads_the_new_field_and_the_earlier_names():
    assert orbresults.held(held_doc(held=7, held_unit="servers",
                                    max_servers=7)) == 7
    assert orbresults.held(held_doc(max_servers=5)) == 5
    assert orbresults.held(held_doc(max_connections=9)) == 9
    assert orbresults.held_unit(held_doc(max_connections=9)) == \
        "connections"
    assert orbresults.held_unit(held_doc(max_servers=5)) == "servers"
    assert orbresults.held_unit(held_doc(held=3, held_unit="connections")) \
        == "connections"


def test_held_and_its_earlier_name_must_agree():
    import pytest
    import orbbench.safeload as orbsafe
    for res, field in (({"held": 7, "held_unit": "servers",
                         "max_servers": 8}, "result.max_servers"),
                       ({"held": 7, "held_unit": "boxes"},
                        "result.held_unit"),
                       ({"held": -1, "held_unit": "servers"}, "result.held"),
                       ({"held": 2.5, "held_unit": "servers"},
                        "result.held")):
        with pytest.raises(orbsafe.BadInput) as e:
            orbresults.check_values(held_doc(**res), "f.json")
        assert field in str(e.value), (res, str(e.value))
    orbresults.check_values(held_doc(held=7, held_unit="servers",
                                     max_servers=7), "f.json")
