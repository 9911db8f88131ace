"""B/A round time against N, one small panel per scenario, with A's own
run-to-run spread; ratio_data returns exactly the numbers drawn."""
import statistics

from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import (FixedLocator, FuncFormatter, MaxNLocator,
                               NullLocator)

import orbbench.escape as orbesc
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.layout import (finish_grid, grid_shape, plain_log_ticks,
                                     small_multiples, top_legend)
from orbbench.figures.sides import (docs_of, median_x, names_of,
                                    scenario_crossings, side_colors, side_docs,
                                    unit_of)


# B/A beyond these is drawn at the edge of the ratio panels (a triangle).
RATIO_CLIP = (1 / 2.5, 2.5)


# ---- 2. B/A round time against N ------------------------------------------

def step_medians(doc):
    """{N: median round ms} of a run's timed sweep steps (no probes)."""
    return {s["n"]: s["round_ms"]["median"] for s in doc["steps"]
            if orbresults.timed(s) and s["round_ms"]["median"] > 0}


def ratio_data(groups_a, groups_b):
    """What the B/A figure draws, per scenario that both sides ran (seed
    order): {"panels": [{"scenario", "n", "a", "b", "ratio", "band_low",
    "band_high", "runs_a", "runs_b", "crossing_a", "crossing_b"}],
    "y_range": [low, high], "band": True when some panel has a band,
    "left_out": [(scenario, why)] for scenarios it cannot draw}.
    At each N that steps of both sides reached: a and b the median over
    each side's runs of the step's median round time, ratio = b / a, and
    A's run-to-run spread: min and max over A's runs of run / a (None
    where fewer than two A runs have that N). crossing_a, crossing_b: the
    median of the runs' crossing N (max_servers as in capacity_data)."""
    ga, gb = side_docs(groups_a), side_docs(groups_b)
    panels, left_out = [], []
    for name in names_of(ga, gb):
        da, db = ga.get(name), gb.get(name)
        if not da or not db:
            left_out.append((name, f"only in {'A' if da else 'B'}"))
            continue
        ma = [step_medians(d) for d in da]
        mb = [step_medians(d) for d in db]
        ns = sorted({n for m in ma for n in m} & {n for m in mb for n in m})
        if not ns:
            left_out.append((name, "no N with timed steps on both sides"))
            continue
        p = {"scenario": name, "n": ns, "a": [], "b": [], "ratio": [],
             "band_low": [], "band_high": [], "runs_a": len(da),
             "runs_b": len(db)}
        for n in ns:
            va = [m[n] for m in ma if n in m]
            vb = [m[n] for m in mb if n in m]
            a, b = statistics.median(va), statistics.median(vb)
            p["a"].append(a)
            p["b"].append(b)
            p["ratio"].append(b / a)
            rel = [v / a for v in va]
            p["band_low"].append(min(rel) if len(va) > 1 else None)
            p["band_high"].append(max(rel) if len(va) > 1 else None)
        pa, pb, _ = scenario_crossings(da, db)
        p["crossing_a"], p["crossing_b"] = median_x(pa), median_x(pb)
        panels.append(p)
    vals = [v for p in panels for k in ("ratio", "band_low", "band_high")
            for v in p[k] if v is not None] + [1.0]
    lo = max(min(vals), RATIO_CLIP[0])
    hi = min(max(vals), RATIO_CLIP[1])
    # A little room, and at least ±10% so a flat 1.0 is not magnified.
    lo, hi = min(lo / 1.04, 1 / 1.1), max(hi * 1.04, 1.1)
    return {"panels": panels, "y_range": [lo, hi],
            "band": any(v is not None for p in panels
                        for v in p["band_low"]), "left_out": left_out}


def ratio_ticks(lo, hi):
    """Readable ticks for a log B/A axis between lo and hi: 5% steps
    near 1 on a narrow axis, coarser on a wide one."""
    if hi / lo < 1.6:
        cands = (0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.25)
    elif hi / lo < 3.5:
        cands = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.5, 2.0)
    else:
        cands = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5, 2.0, 2.5)
    return [t for t in cands if lo <= t <= hi]


def log_n_axis(docs):
    """True for geometric sweeps over a wide range (as
    orbbench.plot.use_log_x)."""
    ns = [s["n"] for d in docs for s in d["steps"]]
    return any(orbresults.setting(d, "growth", 1) > 1
               for d in docs) and orbplot.spans_decades(ns, 10)


def ratio_figure(groups_a, groups_b, labels=("A", "B"), colors=None,
                 footer="", title="B/A median round time against N"):
    """One panel per scenario: B/A of the median round time (median over
    runs) at every N both sides' steps share, 1.0 marked, A's run-to-run
    spread as a band around 1, the median crossing N of each side as a
    thin vertical line; shared axes. Skip when no scenario has such an N."""
    data = ratio_data(groups_a, groups_b)
    panels = data["panels"]
    if not panels:
        raise orbplot.Skip("B/A round time: skipped, no N that the steps of "
                     "both sides share (or no scenario in both)")
    ca, cb = side_colors(labels, colors)
    fig, axes, sizes = small_multiples(len(panels), footer)
    lo, hi = data["y_range"]
    docs = [d for g in (groups_a, groups_b) for v in g.values()
            for d in docs_of(v)]
    log_x = log_n_axis(docs)
    for ax, p in zip(axes, panels):
        ax.axhline(1.0, color="black", lw=0.9, zorder=2)
        pts = [(n, bl, bh) for n, bl, bh in
               zip(p["n"], p["band_low"], p["band_high"]) if bl is not None]
        if pts:
            n, bl, bh = zip(*pts)
            ax.fill_between(n, bl, bh, color=ca, alpha=0.22, lw=0,
                            zorder=1)
        clipped = [min(max(r, lo), hi) for r in p["ratio"]]
        ax.plot(p["n"], clipped, "-o", color=cb, ms=2.8, lw=1.3, zorder=4)
        for n, r, c in zip(p["n"], p["ratio"], clipped):
            if r != c:
                ax.plot(n, c, "^" if r > c else "v", color=cb, ms=7,
                        zorder=5, clip_on=False)
        for x, color in ((p["crossing_a"], ca), (p["crossing_b"], cb)):
            if x:
                ax.axvline(x, color=color, lw=1.0, ls="--", zorder=3)
        ax.set_title(orbesc.figure_text(p["scenario"]), fontsize=10, pad=4)
        ax.grid(True, which="major", alpha=0.3)
    ax0 = axes[0]
    ax0.set_yscale("log")
    ax0.set_ylim(lo, hi)
    ax0.yaxis.set_major_locator(FixedLocator(ratio_ticks(lo, hi)))
    ax0.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax0.yaxis.set_minor_locator(NullLocator())
    if log_x:
        ax0.set_xscale("log")
        ns = [n for p in panels for n in p["n"]]
        plain_log_ticks(ax0.xaxis, min(ns), max(ns))
        ax0.set_xlim(min(ns) / 1.08, max(ns) * 1.08)
    else:
        ax0.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    rows, cols = grid_shape(len(panels))
    for i, ax in enumerate(axes):
        if i % cols == 0:
            ax.set_ylabel(f"round time B/A\n(>1: {labels[1]} slower)",
                          fontsize=9)
        if i + cols >= len(panels):
            ax.set_xlabel(f"{unit_of(groups_a, groups_b)} (N)", fontsize=9)
    handles = [Line2D([], [], color=cb, marker="o", ms=3, lw=1.3,
                      label=f"{labels[1]} / {labels[0]}: median round time "
                            "(median of runs)")]
    if data["band"]:
        handles.append(Patch(color=ca, alpha=0.3,
                             label=f"{labels[0]} run-to-run spread "
                                   "(min–max of run / median)"))
    handles += [Line2D([], [], color=ca, ls="--", lw=1,
                       label=f"crossing N {labels[0]}"),
                Line2D([], [], color=cb, ls="--", lw=1,
                       label=f"crossing N {labels[1]}")]
    finish_grid(fig, title, sizes, rows)
    top_legend(fig, handles, 0, fig.bbox.width, gap_px=0.3 * fig.dpi,
               loc="upper center")
    return fig


def ratio_caption(data, labels):
    if data["band"]:
        band = ("the shaded band is how far A's own runs lie from their "
                "median at each N (min to max), the noise a real "
                "difference must stand out from")
        alone = [p["scenario"] for p in data["panels"]
                 if all(v is None for v in p["band_low"])]
        if alone:
            band += (f" (none in {', '.join(alone)}: one run of A, its "
                     "spread unknown)")
    else:
        band = ("no band: one run of A, so its run-to-run spread is "
                "unknown")
    clip = " (triangles: beyond the axis)" if any(
        not (data["y_range"][0] <= r <= data["y_range"][1])
        for p in data["panels"] for r in p["ratio"]) else ""
    return (f"Whether {labels[1]}'s rounds are slower than {labels[0]}'s "
            "at the same number of servers: B/A of the median round time "
            "(each run's step median, the median over runs) at every N of "
            f"both sides' sweeps, above 1 slower{clip}; {band}; dashed: "
            "each side's median crossing N.")
