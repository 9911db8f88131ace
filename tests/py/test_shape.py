"""tests/tools/result_shape.py: the shape of a result and the diff of
two, on small hand-made documents (no build)."""
import json
import subprocess
import sys

import result_shape as shape
from conftest import ROOT

A = {"kind": "sweep", "steps": [{"n": 1, "ms": 0.5}, {"n": 2, "ms": 1}],
     "machine": {"cpus": None}, "stop": {"reason": "max_n"},
     "per_n": {"1": {"ms": 0.5}, "2": {"ms": 1.0}}, "notes": []}


def d(a, b):
    return shape.diff(shape.shape(a), shape.shape(b))


def test_same_shape_other_values_and_lengths():
    b = json.loads(json.dumps(A))
    b["steps"] = [{"n": 7, "ms": 3.25}]  # one step, a float where an int was
    b["per_n"] = {"4": {"ms": 2}}
    r = d(A, b)
    assert not (r["removed"] or r["added"] or r["changed"])
    assert r["collapsed"] == ["per_n"]


def test_removed_added_and_changed():
    b = json.loads(json.dumps(A))
    del b["stop"]["reason"]
    b["stop"]["why"] = "max_n"
    b["steps"][0]["n"] = "1"      # number -> string
    b["machine"]["cpus"] = "0-1"  # null -> string: a note, not a change
    r = d(A, b)
    assert [p for p, _ in r["removed"]] == ["stop.reason"]
    assert [p for p, _ in r["added"]] == ["stop.why"]
    assert [(p, ta, tb) for p, ta, tb in r["changed"]] == [
        ("steps[].n", {"number"}, {"number", "string"})]
    assert [p for p, _, _ in r["null"]] == ["machine.cpus"]


def test_empty_list_hides_rather_than_removes():
    b = json.loads(json.dumps(A))
    b["steps"] = []
    r = d(A, b)
    assert not r["removed"]
    assert sorted(p for p, _ in r["unseen"]) == ["steps[]", "steps[].ms",
                                                 "steps[].n"]


def test_cli_exit_codes(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(A))
    c = json.loads(json.dumps(A))
    c["extra"] = {"x": 1}
    b.write_text(json.dumps(c))
    tool = str(ROOT / "tests" / "tools" / "result_shape.py")
    ok = subprocess.run([sys.executable, tool, str(a), str(b)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout
    assert "extra.x  number" in ok.stdout
    bad = subprocess.run([sys.executable, tool, str(b), str(a)],
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert "only in A (removed): 2" in bad.stdout
