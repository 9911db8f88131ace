"""Paired runs take turns in blocks by default (sweep.pairing), record
what each side's neighbour did during its rounds, and compare withholds
a verdict that the sides' unequal disturbance of each other could have
made alone; the gate fails closed on it."""
import json
import math
import os
import subprocess
import time

import forgekit
from conftest import ORBBENCH, SCENARIOS, assert_nothing_left
from test_paired import SMALL, sets

import orbbench.gate as orbgate
import orbbench.interference as orbinterference

SWITCH = 3


def paired(tmp_path, *args):
    out = tmp_path / "a.json"
    proc = subprocess.run(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), "--out",
         str(out), "--no-progress", "--paired",
         *sets(*SMALL, f"sweep.switch_rounds={SWITCH}"), *args],
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


def row(verdict, ratio, bias_log, higher_is_better=False, memory=False):
    m = {"verdict": verdict, "ratio": ratio, "log_ratio": math.log(ratio),
         "ci_low": ratio * 0.98, "ci_high": ratio * 1.02,
         "higher_is_better": higher_is_better, "memory": memory,
         "primary": True, "notes": []}
    return {"scenario": "s", "metrics": {"k": m},
            "interference": {"bias_log": bias_log}}, m


def test_a_verdict_the_bias_could_make_is_not_called():
    # B's round time +5%, and B's rounds disturbed 8% more than A's:
    # interference alone could make it.
    r, m = row("slower", 1.05, math.log(1.08))
    orbinterference.withhold(r)
    assert m["verdict"] == "interference" and m["withheld"] == "slower"
    assert any("not called" in n for n in m["notes"])
    # Crossing N (higher is better) 5% lower: the same bias lowers B's N.
    r, m = row("slower", 0.95, math.log(1.08), higher_is_better=True)
    orbinterference.withhold(r)
    assert m["verdict"] == "interference"


def test_a_verdict_beyond_or_against_the_bias_stands():
    for ratio, bias in ((1.10, math.log(1.05)),     # larger than the bias
                        (1.05, math.log(1 / 1.08)),  # against it
                        (1.05, None)):               # not measured
        r, m = row("slower", ratio, bias)
        orbinterference.withhold(r)
        assert m["verdict"] == "slower", (ratio, bias)
    r, m = row("larger", 1.05, math.log(1.08), memory=True)
    orbinterference.withhold(r)
    assert m["verdict"] == "larger"     # memory is not disturbed by turns


def test_the_gate_fails_closed_on_a_withheld_regression():
    r, m = row("slower", 1.05, math.log(1.08))
    orbinterference.withhold(r)
    doc = {"scenarios": [r]}
    code, lines = orbgate.report(doc, frozenset({"slower"}), 0)
    assert code == 1 and "interference" in lines[1]


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


def _alt(effect, steps=24, start=20, growth=1.1):
    """A side's sweep steps as a blocks run makes them: its place
    alternates 1, 2, 1, 2 (the order flips at every tick), its round time
    grows as N^1.3 and bends (a quadratic term on the log scale), and its
    first-in-tick blocks run `effect` slower."""
    out, n = [], float(start)
    for i in range(steps):
        place = 1 + i % 2
        x = math.log(n)
        ms = math.exp(1.3 * x + 0.08 * x * x - 6)
        if place == 1:
            ms *= 1 + effect
        out.append({"n": int(n), "place": place, "round_ms": {"median": ms}})
        n *= growth
    return {"steps": out}


def test_the_place_effect_is_read_against_the_neighbours():
    for effect in (0.0, 0.08, -0.05):
        got = orbinterference.place_effect(_alt(effect))
        assert got is not None
        # The curve's bend cancels: what is left is the effect.
        assert abs(got - effect) < 0.005, (effect, got)
    # Too few steps of a place, or all under the floor: none.
    assert orbinterference.place_effect(_alt(0.1, steps=5)) is None
    assert orbinterference.place_effect(_alt(0.1), floor_ms=1e9) is None
    # A run without places (solo, or pairing rounds) has none.
    doc = _alt(0.1)
    for m in doc["steps"]:
        del m["place"]
    assert orbinterference.place_effect(doc) is None


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
         *sets(*SMALL, "sweep.hold_others=true", "sweep.rounds=40")],
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
