"""End-to-end: the cost of one system call (scenario kind "syscall", the
example kind written from client/kinds/skeleton.c.example): a short run,
its sums, its keys refused where they do not belong, and compare and
report reading it through its module alone (kinds/syscall.py)."""
import json
import statistics
import subprocess

import pytest

from conftest import ORBBENCH, SCENARIOS

GETPID = SCENARIOS / "syscall" / "getpid.json"
SHORT = ("syscall.duration_s=0.05", "syscall.warmup_s=0.01",
         "syscall.repeats=3")


def test_a_short_run_gives_ns_per_call(orbbench):
    r = orbbench(GETPID, *SHORT)
    assert r.rc == 0, r.stderr
    doc = r.doc
    assert doc["kind"] == "syscall" and doc["servers"] == []
    assert doc["result"]["stop_reason"] == "done"
    reps = doc["repeats"]
    assert [rep["repeat"] for rep in reps] == [0, 1, 2]
    for rep in reps:
        # calls in whole batches; the window no shorter than asked
        assert rep["calls"] > 0 and rep["calls"] % 256 == 0
        assert rep["elapsed_s"] >= 0.05
        assert rep["ns_per_call"] == pytest.approx(
            rep["elapsed_s"] * 1e9 / rep["calls"])
    s = doc["syscall"]
    assert s["call"] == "syscall(SYS_getpid)" and s["repeats"] == 3
    per = [rep["ns_per_call"] for rep in reps]
    assert s["ns_per_call"]["median"] == pytest.approx(
        statistics.median(per))
    assert s["ns_per_call"]["min"] == min(per)
    assert s["ns_per_call"]["max"] == max(per)
    assert "syscall(SYS_getpid) takes" in r.stdout


@pytest.mark.parametrize("sets, key", [
    (("syscall.repeats=0",), "syscall.repeats"),
    (("syscall.duration_s=0",), "syscall.duration_s"),
    (("rate.repeats=2",), "rate.repeats"),
])
def test_bad_keys_are_refused_naming_the_key(orbbench, sets, key):
    r = orbbench(GETPID, *sets)
    assert r.rc == 2, r.stderr
    assert key in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_compare_and_report_read_its_metric(orbbench, tmp_path):
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        for i in range(3):
            r = orbbench(GETPID, *SHORT)
            assert r.rc == 0, r.stderr
            (tmp_path / side / f"getpid-{i}.json").write_text(
                json.dumps(r.doc))
    cmp = subprocess.run([str(ORBBENCH), "compare", str(tmp_path / "a"),
                          str(tmp_path / "b"), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    assert cmp.returncode == 0, cmp.stderr
    rows = json.loads(cmp.stdout)["scenarios"]
    assert [row["kind"] for row in rows] == ["syscall"]
    ms = rows[0]["metrics"]
    assert list(ms) == ["ns_per_call"]
    assert len(ms["ns_per_call"]["a_values"]) == 3
    rep = subprocess.run([str(ORBBENCH), "report", "--results",
                          str(tmp_path / "a"), "--out", str(tmp_path / "r")],
                         capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## One system call" in md
    assert md.count("| syscall-getpid |") == 3
