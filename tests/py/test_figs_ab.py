"""The A-against-B figures (orbbench.figures.ab): what their data
functions return, checked by hand on constructed results and against the
result files of the real examples; that the figures draw that data; that
no text of a figure runs into another; that PNG and SVG are written."""
import json
import statistics
import subprocess

import pytest

from conftest import ROOT
from reportkit import ORB_425, ORB_433, measurement, result_doc

import orbbench.figures.ab as figs_ab
import orbbench.figures.capacity as figs_capacity
import orbbench.figures.latency as figs_latency
import orbbench.figures.ratio as figs_ratio
import orbbench.plot as orbplot
import orbbench.results as orbresults

EXAMPLES = ROOT / "results" / "examples"
PAIRED = EXAMPLES / "resolution-2026-11-30" / "paired-base-vs-work6"
GRISBY = EXAMPLES / "grisby-omniorb-4.2.5-vs-4.3.3"
NAMES = ["thread-per-call-tcp", "thread-per-call-unix", "pool100-tcp",
         "pool100-unix", "pool5-unix", "sync-unix", "event-tcp",
         "event-unix"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


def groups(folder):
    return orbresults.group_by_scenario(orbresults.load_results([folder]), split_orbs=True)


@pytest.fixture(scope="module")
def paired():
    return groups(PAIRED / "base"), groups(PAIRED / "work6")


@pytest.fixture(scope="module")
def grisby():
    return groups(GRISBY / "omniorb-system"), groups(GRISBY / "omniorb-4.3.3")


# ---- constructed results --------------------------------------------------

GRID = [25, 35, 50, 70, 100, 140, 200, 280, 400, 560, 800, 1120, 1600]


def curve_run(name, crossing, orb=ORB_425, pair=None, side="a", wobble=1.0):
    """A run whose median round time is 100 (n / crossing)^1.3 ms (so it
    crosses max_ms 100 at crossing) × wobble, on GRID up to the first step
    over, with probes at crossing ± 2%; interval ±5%."""
    def ms(n):
        return 100 * (n / crossing) ** 1.3 * wobble
    steps = []
    for n in GRID:
        steps.append(measurement(n, ms(n)))
        if ms(n) > 100:
            break
    probes = [measurement(round(crossing * f), ms(round(crossing * f)),
                          phase=ph, rounds=20)
              for f, ph in ((1.02, "confirm"), (0.98, "bisect"))]
    d = result_doc(name, crossing, steps, probes, orb=orb,
                   max_servers=int(crossing * 0.98))
    d["result"]["crossing_interval"] = [crossing * 0.95, crossing * 1.05]
    if pair:
        d["paired"] = {"id": pair, "side": side, "versus": []}
    return d


def suite(sides=2, runs=3):
    """8 scenarios × sides × runs, paired; B holds 10% fewer servers."""
    ga, gb = {}, {}
    for k, name in enumerate(NAMES):
        for j in range(runs):
            c = 300 + 150 * k + 40 * j
            pid = f"{name}-{j}"
            ga.setdefault(name, []).append(
                curve_run(name, c, pair=pid, wobble=1 + 0.03 * j))
            if sides == 2:
                gb.setdefault(name, []).append(
                    curve_run(name, c * 0.9, ORB_433, pid, "b",
                              wobble=1.1 - 0.03 * j))
    return ga, (gb if sides == 2 else None)


VERDICTS = {
    "thread-per-call-tcp": {"verdict": "slower", "ratio": 0.8912,
                            "ci": [0.8213, 0.9634]},
    "thread-per-call-unix": {"verdict": "same", "ratio": 0.97,
                             "ci": [0.9, 1.05]},
    "pool100-tcp": {"verdict": "faster", "ratio": 1.101,
                    "ci": [1.02, 1.19]},
    "pool100-unix": {"verdict": "mixed", "ratio": 0.95, "ci": [0.9, 1.0]},
    "pool5-unix": {"verdict": "n/a", "ratio": 0.9, "ci": None},
    "sync-unix": {"verdict": "same", "ratio": 1.0021,
                  "ci": [0.9991, 1.0051]},
    "event-tcp": {"verdict": "slower", "ratio": 0.9, "ci": [0.85, 0.95]},
    "event-unix": {"verdict": "slower", "ratio": 0.9, "ci": [0.85, 0.95]},
}


# ---- reading what a figure drew -------------------------------------------

def drawn_texts(fig):
    """Every visible, non-empty text the figure draws: titles, labels,
    annotations, legends, and the tick labels inside the axis range."""
    texts = list(fig.texts)
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    for leg in fig.legends:
        texts += leg.get_texts()
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += [ax.title, ax._left_title, ax._right_title,
                  ax.xaxis.label, ax.yaxis.label] + list(ax.texts)
        if ax.get_legend():
            texts += ax.get_legend().get_texts()
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()),
                               (ax.yaxis, ax.get_ylim())):
            lo, hi = min(lo, hi), max(lo, hi)
            locs = axis.get_majorticklocs()
            for loc, t in zip(locs, axis.get_majorticklabels()):
                if lo - 1e-9 * abs(hi) <= loc <= hi + 1e-9 * abs(hi):
                    texts.append(t)
    unique = list({id(t): t for t in texts}.values())  # suptitle twice
    return [t for t in unique if t.get_visible() and t.get_text().strip()]


def overlaps(a, b, slack=0.5):
    return (a.x0 + slack < b.x1 and b.x0 + slack < a.x1 and
            a.y0 + slack < b.y1 and b.y0 + slack < a.y1)


def layout_problems(fig):
    """Pairs of texts that overlap, texts outside the figure or over a
    plotting area, legends over a plotting area; [] when none."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    texts = drawn_texts(fig)
    boxes = [(t.get_text(), t.get_window_extent(r)) for t in texts]
    areas = [ax.get_window_extent(r) for ax in fig.axes if ax.get_visible()]
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes
                                   if ax.get_legend()]
    out = []
    for i, (ta, a) in enumerate(boxes):
        for tb, b in boxes[i + 1:]:
            if overlaps(a, b):
                out.append(f"{ta!r} overlaps {tb!r}")
        if a.x0 < -0.5 or a.y0 < -0.5 or a.x1 > fig.bbox.width + 0.5 or \
                a.y1 > fig.bbox.height + 0.5:
            out.append(f"{ta!r} is cut off by the figure's edge")
        if any(overlaps(a, area, 1) for area in areas):
            out.append(f"{ta!r} is over a plotting area")
    for leg in legends:
        box = leg.get_window_extent(r)
        if any(overlaps(box, area, 1) for area in areas):
            out.append("a legend is over a plotting area")
    return out


def lines_with_marker(ax, marker):
    return [line for line in ax.get_lines() if line.get_marker() == marker]


# ---- capacity -------------------------------------------------------------

def test_capacity_points_are_the_results_crossings(paired):
    ga, gb = paired
    data = figs_capacity.capacity_data(ga, gb)
    assert [r["scenario"] for r in data["rows"]] == NAMES
    for row in data["rows"]:
        docs_a = [x.doc for x in ga[row["scenario"]]]
        docs_b = [x.doc for x in gb[row["scenario"]]]
        # B's runs in the order of their A partners (paired.id)
        ids = [d["paired"]["id"] for d in docs_a]
        docs_b = sorted(docs_b, key=lambda d: ids.index(d["paired"]["id"]))
        for key, docs in (("a", docs_a), ("b", docs_b)):
            side = row[key]
            assert [p["x"] for p in side["runs"]] == \
                [d["result"]["crossing_n"] for d in docs]
            assert [p["interval"] for p in side["runs"]] == \
                [d["result"]["crossing_interval"] for d in docs]
            assert side["median"] == statistics.median(
                d["result"]["crossing_n"] for d in docs)
        assert row["fallback"] is None
        va = [d["result"]["crossing_n"] for d in docs_a]
        vb = [d["result"]["crossing_n"] for d in docs_b]
        geo = statistics.geometric_mean
        assert row["ratio"] == pytest.approx(geo(vb) / geo(va))


def test_capacity_figure_draws_its_data():
    ga, gb = suite()
    data = figs_capacity.capacity_data(ga, gb)
    fig = figs_capacity.capacity_figure(ga, gb, ("base", "work6"), verdicts=VERDICTS)
    ax = fig.axes[0]
    dots = sorted(float(line.get_xdata()[0])
                  for line in lines_with_marker(ax, "o"))
    want = sorted(p["x"] for r in data["rows"] for k in "ab"
                  for p in r[k]["runs"])
    assert dots == pytest.approx(want)
    # whiskers: one horizontal segment per run from low to high
    segs = sorted(tuple(sorted((s[0][0], s[1][0])))
                  for c in ax.collections for s in c.get_segments()
                  if s[0][1] == s[1][1])
    assert segs == pytest.approx(sorted(tuple(p["interval"])
                                        for r in data["rows"]
                                        for k in "ab"
                                        for p in r[k]["runs"]))
    ticks = sorted(s[0][0] for c in ax.collections
                   for s in c.get_segments() if s[0][0] == s[1][0])
    assert ticks == pytest.approx(sorted(r[k]["median"]
                                         for r in data["rows"]
                                         for k in "ab"))
    assert [t.get_text() for t in ax.get_yticklabels()] == NAMES
    texts = [t.get_text() for t in ax.texts]
    assert "0.89× [0.82–0.96]" in texts and "slower" in texts
    assert "~ same" in texts and "faster" in texts and "no test" in texts
    # a ratio whose interval is narrower than 0.02 gets three decimals
    assert "1.002× [0.999–1.005]" in texts


def test_capacity_axis_keeps_ten_percent_visible(paired):
    ga, gb = paired
    fig = figs_capacity.capacity_figure(ga, gb, ("base", "work6"))
    ax = fig.axes[0]
    fig.canvas.draw()
    data = figs_capacity.capacity_data(ga, gb)
    m = min(r[k]["median"] for r in data["rows"] for k in "ab")
    px = ax.transData.transform([(m, 0), (1.1 * m, 0)])
    assert px[1][0] - px[0][0] >= 25, "a 10% difference is too narrow"
    assert data["axis"]["scale"] == "linear"
    assert data["axis"]["min"] > 0
    assert ax.get_xlim()[0] == data["axis"]["min"]
    cap = figs_capacity.capacity_caption(data, ("base", "work6"))
    assert f"starts at {orbresults.fmt_num(data['axis']['min'])}, not 0" in cap
    # scenarios 50 to 5000 servers apart: a log axis
    wide = {"a": [curve_run("a", 50)], "b": [curve_run("b", 5000)]}
    axis = figs_capacity.capacity_data(wide)["axis"]
    assert axis["scale"] == "log"
    assert "logarithmic" in figs_capacity.capacity_caption(figs_capacity.capacity_data(wide),
                                               ("A", "B"))


def test_capacity_old_results_fall_back_to_max_servers(grisby):
    ga, gb = grisby
    data = figs_capacity.capacity_data(ga, gb)
    for row in data["rows"]:
        assert row["fallback"] == "no crossing_n"
        for key, g in (("a", ga), ("b", gb)):
            docs = [x.doc for x in g[row["scenario"]]]
            assert [p["x"] for p in row[key]["runs"]] == \
                [d["result"]["max_servers"] for d in docs]
            assert all(p["interval"] is None and p["source"] ==
                       "max_servers" for p in row[key]["runs"])
    cap = figs_capacity.capacity_caption(data, ("omniORB 4.2.5", "omniORB 4.3.3"))
    assert "max_servers" in cap and "no crossing_n" in cap
    fig = figs_capacity.capacity_figure(ga, gb, ("omniORB 4.2.5", "omniORB 4.3.3"))
    ax = fig.axes[0]
    assert all(line.get_markerfacecolor() == "white"
               for line in lines_with_marker(ax, "o"))
    assert "max_servers" in ax.get_xlabel()
    assert not [c for c in ax.collections for s in c.get_segments()
                if s[0][1] == s[1][1]], "no whiskers without intervals"


def test_capacity_one_old_side_takes_max_servers_on_both():
    """Like with like, as compare does: one result without crossing_n
    puts every run of the scenario on max_servers."""
    old = curve_run("sync-unix", 500)
    # a client older than the crossing search: no crossing, no probes
    del old["result"]["crossing_n"], old["result"]["crossing_interval"]
    del old["probes"]
    new = curve_run("sync-unix", 600)
    row = figs_capacity.capacity_data({"sync-unix": [old]},
                          {"sync-unix": [new]})["rows"][0]
    assert row["fallback"] == "no crossing_n"
    assert row["b"]["runs"][0] == {"x": 588.0, "interval": None,
                                   "source": "max_servers"}


def test_capacity_puts_paired_runs_in_the_same_place():
    """The j-th dot of B is the partner of the j-th dot of A (paired.id),
    whatever the order of B's files; unpaired runs keep their order."""
    ga = {"sync-unix": [curve_run("sync-unix", c, pair=f"p{c}")
                        for c in (500, 600, 700)]}
    gb = {"sync-unix": [curve_run("sync-unix", c - 10, ORB_433, f"p{c}",
                                  "b") for c in (700, 500, 600)]}
    row = figs_capacity.capacity_data(ga, gb)["rows"][0]
    assert [p["x"] for p in row["b"]["runs"]] == [490, 590, 690]
    del gb["sync-unix"][0]["paired"]
    row = figs_capacity.capacity_data(ga, gb)["rows"][0]
    assert [p["x"] for p in row["b"]["runs"]] == [690, 490, 590]


def test_capacity_run_without_crossing_n_is_not_an_old_result():
    """The client leaves crossing_n out of a sweep that stopped before
    crossing max_ms: that run gives its max_servers, the others keep
    their crossing_n (they used to fall back to max_servers too)."""
    stopped = curve_run("sync-unix", 500)
    del stopped["result"]["crossing_n"], stopped["result"]["crossing_interval"]
    stopped["result"].update(max_servers=4000, stop_reason="max_n")
    row = figs_capacity.capacity_data({"sync-unix": [stopped]},
                          {"sync-unix": [curve_run("sync-unix", 600)]}
                          )["rows"][0]
    assert row["fallback"] == "never crossed"
    assert row["a"]["runs"][0] == {"x": 4000.0, "interval": None,
                                   "source": "max_servers"}
    assert row["b"]["runs"][0]["x"] == 600
    assert row["b"]["runs"][0]["source"] == "crossing_n"


def test_capacity_run_that_never_crossed():
    never = curve_run("sync-unix", 500)
    never["result"].update(crossing_n=None, crossing_interval=None,
                           max_servers=4000, stop_reason="max_n")
    data = figs_capacity.capacity_data({"sync-unix": [never, curve_run("sync-unix",
                                                           510)]})
    runs = data["rows"][0]["a"]["runs"]
    assert runs[0] == {"x": 4000.0, "interval": None,
                       "source": "max_servers"}
    assert runs[1]["x"] == 510 and runs[1]["interval"] == [484.5, 535.5]
    assert data["rows"][0]["a"]["median"] == (4000 + 510) / 2
    assert "never crossed" in figs_capacity.capacity_caption(data, ("A", "B"))
    assert data["sides"] == 1 and data["rows"][0]["b"] is None


# ---- B/A against N --------------------------------------------------------

def ratio_docs(a_runs, b_runs, probes_at=25):
    """Docs whose steps have the given {N: median ms}; a probe at
    probes_at on every run (which the ratio must ignore)."""
    def doc(ms, orb):
        steps = [measurement(n, v) for n, v in sorted(ms.items())]
        return result_doc("sync-unix", 40.0, steps,
                          [measurement(probes_at, 999.0, phase="bisect")],
                          orb=orb)
    return ({"sync-unix": [doc(m, ORB_425) for m in a_runs]},
            {"sync-unix": [doc(m, ORB_433) for m in b_runs]})


def test_ratio_data_by_hand():
    a_runs = [{10: 1.0, 20: 2.0, 30: 3.0}, {10: 1.2, 20: 2.2},
              {10: 0.9, 20: 1.8, 30: 3.3}]
    b_runs = [{10: 1.1, 20: 2.4, 30: 3.6, 40: 5.0}, {10: 1.3, 20: 2.6},
              {10: 1.0, 20: 2.0, 30: 3.0, 40: 4.0}]
    ga, gb = ratio_docs(a_runs, b_runs)
    p = figs_ratio.ratio_data(ga, gb)["panels"][0]
    assert p["n"] == [10, 20, 30]  # 40 only in B, 25 only a probe
    # N=10: A median(1.0, 1.2, 0.9) = 1.0, B median(1.1, 1.3, 1.0) = 1.1
    # N=30: A median(3.0, 3.3) = 3.15, B median(3.6, 3.0) = 3.3
    assert p["a"] == pytest.approx([1.0, 2.0, 3.15])
    assert p["b"] == pytest.approx([1.1, 2.4, 3.3])
    assert p["ratio"] == pytest.approx([1.1, 1.2, 3.3 / 3.15])
    # A's runs around their median: min and max of run / median
    assert p["band_low"] == pytest.approx([0.9, 0.9, 3.0 / 3.15])
    assert p["band_high"] == pytest.approx([1.2, 1.1, 3.3 / 3.15])
    assert p["crossing_a"] == p["crossing_b"] == 40.0


def test_ratio_one_a_run_has_no_band():
    ga, gb = ratio_docs([{10: 1.0, 20: 2.0}], [{10: 1.5, 20: 2.5},
                                               {10: 1.7, 20: 2.7}])
    data = figs_ratio.ratio_data(ga, gb)
    p = data["panels"][0]
    assert p["ratio"] == pytest.approx([1.6, 2.6 / 2.0])
    assert p["band_low"] == [None, None] and not data["band"]
    assert "no band: one run of A" in figs_ratio.ratio_caption(data, ("A", "B"))
    fig = figs_ratio.ratio_figure(ga, gb)
    assert not fig.axes[0].collections  # no band drawn


def test_ratio_matches_compare_steps(paired):
    """Against compare's own table of median round times at shared N."""
    r = subprocess.run([str(ROOT / "scripts" / "compare"), PAIRED / "base",
                        PAIRED / "work6", "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmp = json.loads(r.stdout)
    data = figs_ratio.ratio_data(*paired)
    assert [p["scenario"] for p in data["panels"]] == \
        [s["scenario"] for s in cmp["scenarios"]]
    for p, s in zip(data["panels"], cmp["scenarios"]):
        assert p["n"] == [x["n"] for x in s["steps"]]
        assert p["ratio"] == pytest.approx([x["ratio"] for x in s["steps"]])
    v = figs_ab.verdicts_from_compare(cmp)
    assert v["sync-unix"]["verdict"] == "slower"
    m = cmp["scenarios"][5]["metrics"]["crossing_n"]
    assert v["sync-unix"]["ci"] == [m["ci_low"], m["ci_high"]]


def test_ratio_figure_draws_its_data():
    ga, gb = suite()
    data = figs_ratio.ratio_data(ga, gb)
    fig = figs_ratio.ratio_figure(ga, gb, ("base", "work6"))
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == NAMES
    lo, hi = data["y_range"]
    for ax, p in zip(axes, data["panels"]):
        line = lines_with_marker(ax, "o")[0]
        assert list(line.get_xdata()) == p["n"]
        assert list(line.get_ydata()) == pytest.approx(
            [min(max(r, lo), hi) for r in p["ratio"]])
        assert ax.get_ylim() == pytest.approx((lo, hi))  # shared
        verticals = sorted(line.get_xdata()[0] for line in ax.get_lines()
                           if line.get_linestyle() == "--")
        assert verticals == sorted([p["crossing_a"], p["crossing_b"]])


def test_ratio_beyond_the_axis_is_a_triangle_at_its_edge():
    ga, gb = ratio_docs([{10: 1.0, 20: 1.0}, {10: 1.0, 20: 1.0}],
                        [{10: 4.0, 20: 1.1}])
    data = figs_ratio.ratio_data(ga, gb)
    lo, hi = data["y_range"]
    assert hi == pytest.approx(2.5 * 1.04) and lo == pytest.approx(1 / 1.1)
    ax = figs_ratio.ratio_figure(ga, gb).axes[0]
    (tri,) = lines_with_marker(ax, "^")
    assert (tri.get_xdata()[0], tri.get_ydata()[0]) == (10, hi)
    assert "triangles" in figs_ratio.ratio_caption(data, ("A", "B"))


def test_ratio_skips_without_shared_n(tmp_path):
    ga, gb = ratio_docs([{10: 1.0}], [{20: 1.0}])
    with pytest.raises(orbplot.Skip, match="no N that the steps of both sides"):
        figs_ratio.ratio_figure(ga, gb)
    msgs = []
    res_a = [orbresults.Result(tmp_path / "a.json", d) for d in ga["sync-unix"]]
    res_b = [orbresults.Result(tmp_path / "b.json", d) for d in gb["sync-unix"]]
    figs = figs_ab.ab_figures(res_a, res_b, tmp_path, ("A", "B"), log=msgs.append)
    assert [f.stem for f in figs] == ["ab-capacity", "ab-latency"]
    assert any(m.startswith("B/A round time: skipped") for m in msgs)


# ---- round time panels ----------------------------------------------------

def test_latency_data_is_each_runs_steps_and_probes(paired):
    ga, gb = paired
    data = figs_latency.latency_data(ga, gb)
    p = data["panels"][5]
    assert p["scenario"] == "sync-unix" and p["max_ms"] == 100.0
    docs = [x.doc for x in ga["sync-unix"]]
    for run, d in zip(p["a"], docs):
        assert run["steps"] == [(s["n"], s["round_ms"]["median"])
                                for s in d["steps"]]
        assert run["probes"] == sorted((s["n"], s["round_ms"]["median"])
                                       for s in d["probes"])
        assert run["crossing"] == d["result"]["crossing_n"]
        assert run["interval"] == d["result"]["crossing_interval"]


def test_latency_figure_marks_each_crossing_on_max_ms():
    ga, gb = suite()
    fig = figs_latency.latency_panels_figure(ga, gb, ("base", "work6"))
    for ax, name in zip(fig.axes, NAMES):
        assert ax.get_title() == name
        marks = sorted(line.get_xdata()[0]
                       for line in lines_with_marker(ax, "D"))
        want = sorted(d["result"]["crossing_n"] for d in ga[name] + gb[name])
        assert marks == pytest.approx(want)
        assert all(line.get_ydata()[0] == 100.0
                   for line in lines_with_marker(ax, "D"))
        assert not ax.texts  # no labels inside the panels


# ---- layout ---------------------------------------------------------------

def test_layout_check_finds_overlaps():
    """The check below can fail: two texts at one place are found."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.set_title("a title")
    fig.text(0.5, 0.9, "one text", ha="center")
    fig.text(0.5, 0.9, "another text", ha="center")
    fig.text(0.99, 0.5, "far too long to fit at the right edge")
    problems = layout_problems(fig)
    plt.close(fig)
    assert "'one text' overlaps 'another text'" in problems
    assert any("cut off" in p for p in problems)


@pytest.mark.parametrize("make", ["capacity", "ratio", "latency"])
def test_no_text_collides_8_scenarios_2_sides_3_runs(make):
    ga, gb = suite()
    labels = ("omniORB 4.2.5", "omniORB 4.3.3")
    fig = {"capacity": lambda: figs_capacity.capacity_figure(
               ga, gb, labels, verdicts=VERDICTS, footer="A: x\nB: y",
               title="Servers held per scenario"),
           "ratio": lambda: figs_ratio.ratio_figure(ga, gb, labels,
                                           footer="A: x\nB: y",
                                           title="Round time B/A"),
           "latency": lambda: figs_latency.latency_panels_figure(
               ga, gb, labels, footer="A: x\nB: y",
               title="Round time")}[make]()
    assert layout_problems(fig) == []


@pytest.mark.parametrize("which", ["paired", "grisby"])
def test_no_text_collides_on_real_examples(which, paired, grisby):
    ga, gb = {"paired": paired, "grisby": grisby}[which]
    labels = ("omniORB 4.2.5 (system)", "omniORB 4.3.3")
    for fig in (figs_capacity.capacity_figure(ga, gb, labels, verdicts=VERDICTS),
                figs_ratio.ratio_figure(ga, gb, labels),
                figs_latency.latency_panels_figure(ga, gb, labels)):
        assert layout_problems(fig) == []


def test_one_side_figures_have_no_collisions():
    ga, _ = suite(sides=1)
    for fig in (figs_capacity.capacity_figure(ga, None, ("omniORB 4.2.5",)),
                figs_latency.latency_panels_figure(ga, None, ("omniORB 4.2.5",))):
        assert layout_problems(fig) == []


# ---- writing --------------------------------------------------------------

def check_written(figs, stems):
    assert [f.stem for f in figs] == stems
    for f in figs:
        assert f.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f.png
        assert b"<svg" in f.svg.read_bytes()[:2000], f.svg
        assert f.caption.endswith(".") and f.caption.count(". ") == 0, \
            f.caption
        assert f.title


def test_ab_figures_write_png_and_svg(tmp_path, paired):
    res_a = orbresults.load_results([PAIRED / "base"])
    res_b = orbresults.load_results([PAIRED / "work6"])
    figs = figs_ab.ab_figures(res_a, res_b, tmp_path, ("base", "work6"),
                        verdicts=VERDICTS,
                        colors={"base": "tab:green"}, run="test")
    check_written(figs, ["ab-capacity", "ab-ratio", "ab-latency"])
    cap = figs[0].caption
    assert "each dot is one run's crossing N" in cap
    assert "95% interval" in cap and "median of the runs" in cap
    svg = figs[0].svg.read_text()
    assert "A: base" in svg and "B: work6" in svg and "sync-unix" in svg
    assert "band" in figs[1].caption
    assert "max_ms" in figs[2].caption


def test_single_figures_write_png_and_svg(tmp_path):
    res = orbresults.load_results([GRISBY / "omniorb-system"])
    figs = figs_ab.single_figures(res, tmp_path)
    check_written(figs, ["capacity", "latency-panels"])
    assert "max_servers" in figs[0].caption
    assert "no crossing_n" in figs[1].caption


BENCH = EXAMPLES / "bench-omniorb-4.2.5-vs-4.3.3"


def test_fixed_n_scenarios_are_not_drawn_as_sweeps(tmp_path, paired):
    """The bench suite measures one N per scenario: no capacity or round
    time against N for it (the fixed-n figure draws it), and a fixed-N
    scenario mixed into swept ones is left out of their figures by name."""
    said = []
    bench_a = orbresults.load_results([BENCH / "omniorb-system"])
    bench_b = orbresults.load_results([BENCH / "omniorb-4.3.3"])
    assert bench_a and bench_b
    assert figs_ab.ab_figures(bench_a, bench_b, tmp_path, ("A", "B"),
                        log=said.append) == []
    assert any("every scenario is fixed-N" in m for m in said)
    assert figs_ab.single_figures(bench_a, tmp_path, log=said.append) == []
    assert not list(tmp_path.iterdir())

    said.clear()
    swept = orbresults.load_results([PAIRED / "base"])
    one = [r for r in bench_a if r.doc["scenario"]["name"] == "n1-tcp"]
    assert one
    figs = figs_ab.single_figures(swept + one, tmp_path, log=said.append)
    check_written(figs, ["capacity", "latency-panels"])
    assert any("1 fixed-N scenario(s) left out (n1-tcp" in m for m in said)
    svg = figs[0].svg.read_text()
    assert "sync-unix" in svg and "n1-tcp" not in svg
