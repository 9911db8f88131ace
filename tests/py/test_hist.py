"""orbbench.hist (kind load's stored histograms, read back) and the data
of orbbench.figures.load: the layout is the client's (core/hist.h), a
percentile is within the stated error of the exact one and never below
it, merging adds counts, the .hgrm text is HdrHistogram's; and the
figures draw the merged histograms of constructed results."""
import math
import random

import pytest

import orbbench.figures.load as figs_load
import orbbench.hist as orbhist


def stored(values):
    """The stored form of `values` (ns), bucketed as core/hist.c does."""
    counts = {}
    for v in values:
        if v < orbhist.LINEAR:
            low = v
        else:
            w = orbhist.width(v)
            low = v - v % w
        counts[low] = counts.get(low, 0) + 1
    return {"count": len(values), "min": min(values), "max": max(values),
            "clamped": 0,
            "buckets": [[low, counts[low]] for low in sorted(counts)]}


def exact(values, q):
    v = sorted(values)
    if q <= 0:
        return v[0]
    return v[max(1, math.ceil(q / 100 * len(v) - 1e-9)) - 1]


def test_buckets_tile_the_values():
    low = 0
    for _ in range(6000):
        w = orbhist.width(low)
        assert w == 1 or w <= low / orbhist.SUB
        low += w
    assert orbhist.width(255) == 1 and orbhist.width(256) == 2
    assert orbhist.width(1 << 20) == 1 << 13


@pytest.mark.parametrize("draw", [
    lambda r: int(r.expovariate(1 / 50000)),
    lambda r: int(math.exp(r.gauss(11, 2))),
    lambda r: 20000 + int(r.random() * 2000) if r.random() < 0.95
    else 50000000 + int(r.random() * 1e6),
])
def test_percentiles_within_the_stated_error(draw):
    rnd = random.Random(3)
    values = [draw(rnd) for _ in range(20000)]
    h = stored(values)
    assert orbhist.valid(h)
    for q in (0, 1, 50, 90, 99, 99.9, 99.99, 100):
        got, want = orbhist.percentile(h, q), exact(values, q)
        assert want <= got <= want * (1 + orbhist.RELATIVE_ERROR), q


def test_merge_and_curve():
    a, b = stored([100, 200, 300]), stored([1000, 100])
    m = orbhist.merge([a, b])
    assert m["count"] == 5 and m["min"] == 100 and m["max"] == 1000
    assert m["buckets"][0] == [100, 2]
    assert orbhist.percentile(m, 40) == 100
    assert orbhist.curve(m)[-1] == (100.0, 1000)
    assert orbhist.percentile(orbhist.merge([]), 50) is None
    assert not orbhist.valid({"count": 3, "buckets": [[1, 2]]})


def test_hgrm_is_hdrhistograms_text():
    h = stored([1000000, 2000000, 3000000, 4000000])
    lines = orbhist.hgrm(h).splitlines()
    assert lines[0].split() == ["Value", "Percentile", "TotalCount",
                                "1/(1-Percentile)"]
    rows = [ln.split() for ln in lines[2:] if not ln.startswith("#")]
    assert [float(r[1]) for r in rows] == [0.25, 0.5, 0.75, 1.0]
    assert float(rows[0][0]) == pytest.approx(1.0, rel=0.01)  # ms
    assert float(rows[0][3]) == pytest.approx(4 / 3, abs=0.005)
    assert len(rows[-1]) == 3  # 100%: no 1/(1-p)
    assert "Total count    =            4" in lines[-2]


def doc(label_rate_hists, p="p99", ms=1.0):
    """A load result with steps {rate: (values, verdict, phase)}."""
    steps = [{"offered_per_s": rate, "phase": phase, "verdict": verdict,
              "repeats": [], "histogram": stored(values)}
             for rate, (values, verdict, phase) in label_rate_hists.items()]
    return {"kind": "load", "load": {"percentile": p, "max_ms": ms,
                                     "steps": steps}}


def test_figure_data_merges_the_runs():
    a1 = doc({100: ([10000] * 99 + [5000000], "within", "step"),
              1000: ([20000] * 100, "over", "step")})
    a2 = doc({100: ([10000] * 100, "within", "step"),
              1000: ([20000] * 100, "over", "step"),
              550: ([15000] * 100, "within", "bisect")})
    b = doc({100: ([30000] * 100, "within", "step")})
    data = figs_load.percentile_data([("A", [a1, a2]), ("B", [b])])
    # the rate both series stepped through, A's two runs merged
    assert [p["rate"] for p in data["panels"]] == [100]
    lines = {ln["label"]: ln for ln in data["panels"][0]["lines"]}
    assert lines["A"]["count"] == 200 and lines["B"]["count"] == 100
    assert lines["A"]["points"][-1] == (100.0, 5.0)  # the max, in ms
    off = figs_load.offered_data([("A", [a1, a2])])
    (row,) = off["rows"]
    assert [p["rate"] for p in row["points"]] == [100, 550, 1000]
    assert row["bound"] == ("p99", 1.0)
    assert row["points"][0]["p50"] == pytest.approx(0.01, rel=0.01)
    assert row["points"][2]["verdicts"] == ["over", "over"]
    assert "A within its bound up to 550" in figs_load.offered_caption(off)


def test_percentile_figure_draws_the_tail_up_to_its_point():
    # 0.1% of the calls (the last bucket) at 50 ms, the rest at 30 us: an
    # HdrHistogram plot shows 50 ms from p99.9 on, inside the axis.
    d = doc({1000: ([30000] * 999 + [50000000], "within", "step")})
    fig = figs_load.percentile_figure([("A", [d])], "footer", "title")
    try:
        (line,) = fig.axes[0].get_lines()
        path = line.get_path().vertices  # the steps as drawn

        def drawn_at(p):
            x = figs_load.x_of(p)
            return [ya for (xa, ya), (xb, yb) in zip(path, path[1:])
                    if ya == yb and xa <= x <= xb]
        assert drawn_at(99.95) == [pytest.approx(50.0, rel=0.01)]
        assert drawn_at(99.99) == [pytest.approx(50.0, rel=0.01)]
        assert drawn_at(50) == [pytest.approx(0.03, rel=0.01)]
        assert drawn_at(99.8) == [pytest.approx(0.03, rel=0.01)]
    finally:
        figs_load.plt.close(fig)
