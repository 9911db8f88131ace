"""orbbench.validate holds what the client writes: its stop reasons are
client/kinds/run.h's (and "running", every checkpoint's), split into the
runs that ended and those that did not; a repeat is a run once."""
import re
from collections import namedtuple

import pytest

import orbbench.safeload as orbsafe
import orbbench.validate as orbvalidate
from conftest import ROOT

Result = namedtuple("Result", "path doc")


def client_stops():
    """Every stop reason the client can write: run.h's STOP_* and the
    checkpoints' literal "running"."""
    stops = set(re.findall(r'#define STOP_\w+ "(\w+)"',
                           (ROOT / "client/kinds/run.h").read_text()))
    for f in (ROOT / "client/kinds").glob("*.c"):
        stops |= set(re.findall(r'outcome\(\s*[\w&>.-]+,\s*"(\w+)"',
                                f.read_text()))
    return stops


def test_the_stop_reasons_are_the_clients():
    stops = client_stops()
    assert "running" in stops and "latency" in stops
    assert stops == orbvalidate.ENDED | set(orbvalidate.NOT_ENDED)
    assert not orbvalidate.ENDED & set(orbvalidate.NOT_ENDED)


def test_the_list_check_can_fail(tmp_path):
    """The reading of run.h finds a stop added there."""
    h = (ROOT / "client/kinds/run.h").read_text()
    assert re.findall(r'#define STOP_\w+ "(\w+)"',
                      h + '\n#define STOP_NEW "brand_new"\n')[-1] == \
        "brand_new"


def run(name, stop="latency", **extra):
    doc = {"result": {"stop_reason": stop}, "process_group": 7,
           "started_at": "2026-12-06T00:00:00Z", "x": name}
    doc.update(extra)
    return Result(name, doc)


def test_repeats_leave_out_what_did_not_end_and_count_a_copy_once():
    notes = []
    a = run("a.json")
    copy = Result("copy.json", dict(a.doc))
    killed = run("k.json", "running", process_group=8)
    other = run("b.json", process_group=9)
    got = orbvalidate.repeats([a, copy, killed, other], notes.append)
    assert [r.path for r in got] == ["a.json", "b.json"]
    assert "copy.json: a copy of a.json (the same run): counted once" in \
        notes
    assert any(n.startswith("k.json: stop running: not counted") for n in
               notes)


def test_two_files_of_one_run_with_other_numbers_are_refused():
    a = run("a.json")
    edited = Result("e.json", dict(a.doc, x="edited"))
    with pytest.raises(orbsafe.BadInput, match="e.json.*an edited copy"):
        orbvalidate.repeats([a, edited], lambda m: None)


def test_a_set_holding_a_run_of_its_baseline_is_refused():
    a = run("a.json")
    with pytest.raises(orbsafe.BadInput, match="a copy of a.json"):
        orbvalidate.refuse_copies([[a], [Result("b.json", dict(a.doc))]],
                                  "AB")
    paired = run("p.json", paired={"id": "x", "side": "a"})
    forged = Result("q.json", dict(paired.doc, x="edited"))
    with pytest.raises(orbsafe.BadInput, match="the same run id"):
        orbvalidate.refuse_copies([[paired], [forged]], "AB")
    # the other side of the same paired run is no copy
    other = Result("q.json", dict(paired.doc, x="b-side",
                                  paired={"id": "x", "side": "b"}))
    orbvalidate.refuse_copies([[paired], [other]], "AB")


@pytest.mark.parametrize("field, value", [
    ("n", 0), ("n", 1.5), ("round_ms.median", 0.0), ("round_ms.count", -1),
    ("rounds_ms", [1.0, -1.0]), ("calls", True),
    ("cpu_per_call_us.server", -0.1), ("cpu_per_call_us.server_low", -1),
    ("mem_per_server_kb.pss", -1.0), ("block", -2),
    ("server_cpu_rounds_ms", [-1]), ("neighbour_cpu_ms", -0.5),
])
def test_a_number_a_metric_reads_out_of_range_is_refused(field, value):
    step = {"n": 4, "round_ms": {"count": 5, "median": 1.0},
            "rounds_ms": [1.0] * 5, "calls": 20,
            "cpu_per_call_us": {"server": 3.0},
            "mem_per_server_kb": {"pss": 400.0, "mem_available": -80.0}}
    orbvalidate.check_measurements({"steps": [step]}, "r.json")
    *path, last = field.split(".")
    d = step
    for p in path:
        d = d[p]
    d[last] = value
    with pytest.raises(orbsafe.BadInput, match=re.escape(
            f"r.json: field steps[0].{field}")):
        orbvalidate.check_measurements({"steps": [step]}, "r.json")


def test_a_partner_failed_run_without_its_partner_is_left_out():
    notes = []
    a = run("a.json", "running", paired={"id": "p1", "side": "a"})
    b = run("b.json", "partner_failed", paired={"id": "p1", "side": "b"})
    b2 = run("b2.json", "partner_failed", paired={"id": "p2", "side": "b"})
    a2 = run("a2.json", "server_died", paired={"id": "p2", "side": "a"})
    got = orbvalidate.drop_lone_partners([[a2], [b, b2]], notes.append)
    assert [[r.path for r in s] for s in got] == [["a2.json"], ["b2.json"]]
    assert notes and notes[0].startswith("b.json: stop partner_failed")
