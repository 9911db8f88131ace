"""Paired runs take turns in blocks by default (sweep.pairing), record
what each side's neighbour did during its rounds, and compare withholds
a verdict that the sides' unequal disturbance of each other could have
made alone; the gate fails closed on it (the rule on constructed rows:
tests/py/test_interference_rule.py)."""
import json
import math
import os
import subprocess
import time

import forgekit
from conftest import ORBBENCH, SCENARIOS, assert_nothing_left, set_flags
from test_paired import SMALL

import orbbench.interference as orbinterference

SWITCH = 3


def paired(tmp_path, *args):
    out = tmp_path / "a.json"
    proc = subprocess.run(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), "--out",
         str(out), "--no-progress", "--paired",
         *set_flags(*SMALL, f"sweep.switch_rounds={SWITCH}"), *args],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    docs = [json.loads(p.read_text())
            for p in (out, tmp_path / "a.versus.json")]
    for d in docs:
        assert_nothing_left(d)
    return docs


def measurements(doc):
    return doc["steps"] + doc["probes"]


def test_blocks_are_the_default_and_every_block_opens_alike(tmp_path):
    a, b = paired(tmp_path)
    warm = a["scenario"]["sweep"]["warmup_rounds"]
    for doc in (a, b):
        assert doc["scenario"]["sweep"]["pairing"] == "blocks"
        assert doc["scenario"]["sweep"]["hold_others"] is True
        # Every block, first or second in its tick, after the other
        # side's rounds or after both sides' new servers, opens with the
        # warmup and the switch rounds: an opening that depended on the
        # block's place made the first block of each tick the slower.
        lens = [len(m["untimed_ms"]) for m in measurements(doc)]
        assert set(lens) == {warm + SWITCH}, lens
        for m in measurements(doc):
            assert m["neighbour_cpu_ms"] >= 0
            assert len(m["rounds_ms"]) == m["round_ms"]["count"]
        # Its place in the tick: each side goes first and second in turn.
        places = [m["place"] for m in measurements(doc)]
        assert set(places) == {1, 2}, places
    # At every step both sides measured, one of them first.
    for sa, sb in zip(a["steps"], b["steps"]):
        assert {sa["place"], sb["place"]} == {1, 2}, (sa["n"], sb["n"])


def test_rounds_alternate_as_before_when_asked(tmp_path):
    a, b = paired(tmp_path, "--set", "sweep.pairing=rounds")
    warm = a["scenario"]["sweep"]["warmup_rounds"]
    for doc in (a, b):
        assert doc["scenario"]["sweep"]["pairing"] == "rounds"
        assert {len(m["untimed_ms"]) for m in measurements(doc)} == {warm}
        # Alternate rounds have no blocks: no place, nothing held.
        assert not any("place" in m or "held_servers" in m
                       for m in measurements(doc))
        assert all("neighbour_cpu_ms" in m for m in measurements(doc))


def test_compare_reports_the_interference_of_paired_runs(tmp_path):
    a, b = paired(tmp_path)
    inter = orbinterference.of_pairs([a], [b])
    for side in inter["a"] + inter["b"]:
        assert side["pairing"] == "blocks" and side["measurements"] > 0
        assert side["share"] is not None and side["share"] >= 0
        assert side["interference"] >= side["share"]
    assert inter["bias_log"] == math.log1p(inter["b"][0]["interference"]) - \
        math.log1p(inter["a"][0]["interference"])
    proc = subprocess.run(
        [str(ORBBENCH), "compare", str(tmp_path / "a.json"),
         str(tmp_path / "a.versus.json")], capture_output=True, text=True,
        timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines()
                if x.startswith("Interference measured"))
    assert "sync-unix (blocks) A " in line and "bias " in line


def test_a_saved_withheld_regression_fails_the_gate_or_is_refused(tmp_path):
    """orbbench gate on a saved comparison: an interference metric gates
    by the word it withheld (exit 1 on slower), and one whose withheld
    word is missing or unknown cannot pass (exit 2), never 0."""
    # A comparison as compare writes it (orbbench.decision re-derives its
    # verdicts): server CPU +5%, clearly, with a bias of 8% measured.
    values = dict(forgekit.SAME, server_cpu_us=(
        [10, 10.01, 10.02], [10.5, 10.51, 10.52]))
    doc = forgekit.comparison([forgekit.row("s", values,
                                            bias_log=math.log(1.08))])
    m = doc["scenarios"][0]["metrics"]["server_cpu_us"]
    assert m["verdict"] == "interference" and m["withheld"] == "slower"
    f = tmp_path / "c.json"
    for withheld, want in (("slower", 1), (None, 2), ("same", 2)):
        m.pop("withheld", None)
        if withheld:
            m["withheld"] = withheld
        f.write_text(json.dumps(doc))
        proc = subprocess.run([str(ORBBENCH), "gate", str(f), "--fail-on",
                               "slower"], capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == want, (withheld, proc.stderr)
        if want == 2:
            assert "withheld" in proc.stderr and \
                proc.stderr.count("\n") == 1, proc.stderr


def _descendants_states(root):
    """{pid: state letter} of root's descendants, from /proc."""
    parent, state = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()
        state[int(d)], parent[int(d)] = rest[0], int(rest[1])
    out, todo = {}, [root]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in out:
                out[c] = state[c]
                todo.append(c)
    return out


def test_hold_others_stops_the_other_side_during_a_block(tmp_path):
    out = tmp_path / "a.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), "--out",
         str(out), "--no-progress", "--paired",
         *set_flags(*SMALL, "sweep.hold_others=true", "sweep.rounds=40")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stopped_seen = running_seen = 0
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        states = _descendants_states(proc.pid)
        stopped = sum(1 for s in states.values() if s == "T")
        if stopped:
            stopped_seen += 1
            # The side being measured runs: not everything is stopped.
            running_seen += stopped < len(states)
        time.sleep(0.02)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert stopped_seen > 0 and running_seen == stopped_seen
    docs = [json.loads(p.read_text())
            for p in (out, tmp_path / "a.versus.json")]
    for doc in docs:
        assert doc["scenario"]["sweep"]["hold_others"] is True
        assert_nothing_left(doc)
    # Each block stopped the other side's servers, all of them: the other
    # side's N at that tick (the steps go in step).
    for mine, other in ((docs[0], docs[1]), (docs[1], docs[0])):
        for sm, so in zip(mine["steps"], other["steps"]):
            assert sm["held_servers"] == so["n"], (sm["n"], so["n"])
