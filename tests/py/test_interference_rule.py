"""compare withholds a verdict that paired runs' unequal disturbance of
each other could have made alone, and the gate fails closed on it; the
place effect read from a blocks run's steps (orbbench.interference, on
constructed rows; real paired runs: tests/e2e/test_interference.py)."""
import math

import orbbench.gate as orbgate
import orbbench.interference as orbinterference


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
