"""orbbench.suite without a client: the plan built from a command line
(frozen, its errors one line), what the suite adds to a run by kind, and
the closing tables on orbbench.cli's text and Markdown tables."""
import argparse
import dataclasses
import json

import pytest

import orbbench.cli as orbcli
import orbbench.suite.plan as suiteplan
import orbbench.suite.settings as suitesettings
import orbbench.suite.summary as suitesummary
from conftest import ROOT

FIX = ROOT / "tests" / "fixtures" / "repeat-scenarios"


def namespace(**kw):
    """The namespace orbbench.commands.suite's parser makes, its defaults
    changed by kw."""
    a = dict(dir=str(FIX), set=[], repeat=1, variants=[], only=[],
             paired=False, solo=False, until_verdict=False, max_repeat=8,
             equivalence=3.0, scope="suite", budget=None, at_n=None,
             warm=False, prior=None, out=None, format="text",
             orbbench="/bin/sh")
    a.update(kw)
    return argparse.Namespace(**a)


def test_the_plan_is_frozen_and_pairs_two_server_variants():
    plan = suiteplan.build(namespace(variants=[
        ("variant", "a"), ("variant", "b:server.work_us=1")]), ["x"])
    assert plan.paired and plan.until is None and plan.repeats == 1
    assert plan.variants[1] == suiteplan.Variant("b", ("server.work_us=1",))
    assert plan.variants[1].as_json() == {
        "name": "b", "set": ["server.work_us=1"], "orb": None}
    assert [s.name for s in plan.scenarios] == sorted(
        s.name for s in FIX.glob("*.json"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.repeat = 2


def test_until_verdict_takes_three_repeats_at_least_and_the_budget():
    plan = suiteplan.build(namespace(
        until_verdict=True, budget=30.0, max_repeat=5,
        variants=[("orb", "x"), ("orb", "y")]), [])
    assert plan.repeat == 3 and plan.repeats == 5
    assert plan.until.budget_s == 1800 and plan.until.new_plan().looks >= 1


@pytest.mark.parametrize("kw, message", [
    (dict(repeat=0), "--repeat must be 1..100"),
    (dict(at_n=0), "--at-n 0: give an N from 1 to 1000000"),
    (dict(variants=[("variant", "a"), ("variant", "a")]),
     "--variant a: variant 'a' given twice"),
    (dict(variants=[("variant", "summary.md")]),
     "--variant summary.md: 'summary.md' is run-suite's own file: pick "
     "another name"),
    (dict(variants=[("variant", "a:")]), "--variant a:: no KEY=VALUE "
     "after ':'"),
    (dict(paired=True, solo=True), "--paired and --solo: give one"),
    (dict(paired=True), "--paired: needs exactly two variants (got 0)"),
    (dict(until_verdict=True), "--until-verdict: needs paired runs: two "
     "variants that differ only in server.* and caller.* keys, without "
     "--solo"),
    (dict(only=["nothing-*"]), f"{FIX}: no scenario matches --only "
     "nothing-*"),
    (dict(orbbench="/nonexistent/orbbench"),
     "/nonexistent/orbbench: not built (run make)")])
def test_a_bad_setting_is_one_line(kw, message):
    with pytest.raises(suiteplan.PlanError) as e:
        suiteplan.build(namespace(**kw), [])
    assert str(e.value) == message


def test_variants_that_cannot_pair():
    a = suiteplan.Variant("a", ("sweep.rounds=5",))
    b = suiteplan.Variant("b", ("server.work_us=1",))
    assert "sets sweep.rounds" in suiteplan.pair_problem((a, b))
    a = suiteplan.Variant("a", ("server.orb=x",))
    assert "must set server.orb too" in suiteplan.pair_problem((a, b))


def test_at_n_and_the_paired_opening_are_named_by_the_kind(tmp_path):
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps({"name": "s", "sweep": {"switch_rounds": 4}}))
    assert suitesettings.at_n_sets(500, sc)[:2] == [
        "sweep.start=500", "sweep.max_n=500"]
    assert suitesettings.at_n_sets(None, sc) == []
    assert suitesettings.paired_sets(None, sc) == ["sweep.warmup_rounds=3"]
    assert suitesettings.paired_sets(500, sc) == []


ROWS = [{"scenario": "sync-unix", "variant": "a", "repeat": 1, "kind":
         "sweep", "headline": 12, "crossing_n": 12.4,
         "crossing_interval": [11.9, 13.0], "stop_reason": "max_ms",
         "file": "sync-unix.json", "detail": "d"},
        {"scenario": "event-unix", "variant": "b", "repeat": 2,
         "failed": "orbbench: boom", "file": "event-unix.json"}]


def test_the_closing_table_is_clis_with_the_stop_left_aligned():
    head, body = suitesummary.table(ROWS)
    assert body[0][0] == "sync-unix [a] #1" and body[1][1] == "failed"
    text = suitesummary.closing_table("text", ROWS, {})
    table = orbcli.text_table(head, body, "l" + "r" * (len(head) - 2) + "l")
    assert text.startswith(table + "\n")
    lines = text.splitlines()
    # the stop column, left-aligned as the scenario's
    assert lines[1].index("max_ms") == lines[2].index("orbbench: boom")
    assert "Max servers: the largest N" in text


def test_summary_md_escapes_and_json_keeps_the_row_fields():
    meta = {"suite": "s", "host": "h<b>", "command": "scripts/run-suite s"}
    head, body = suitesummary.table(ROWS)
    md = suitesummary.markdown(ROWS, head, body, meta)
    assert md.startswith("# s: summary\n\n- host: h") and "<b>" not in md
    assert "|---|" + "---:|" * (len(head) - 2) + "---|" in md
    doc = json.loads(suitesummary.closing_table("json", ROWS, meta))
    assert doc["columns"] == list(head)
    assert doc["rows"][1] == {"scenario": "event-unix", "variant": "b",
                              "repeat": 2, "failed": "orbbench: boom",
                              "file": "event-unix.json"}
