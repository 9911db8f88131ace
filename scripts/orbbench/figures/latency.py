"""Round time against N, one small panel per scenario, for one set or
two; latency_data returns exactly the numbers drawn."""
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import offset_copy

import orbbench.escape as orbesc
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.layout import (finish_grid, grid_shape, small_multiples,
                                     top_legend)
from orbbench.figures.sides import (names_of, pair_order, scenario_crossings,
                                    side_colors, side_docs, unit_of)


# ---- 3. round time against N, one panel per scenario -----------------------

def latency_data(groups_a, groups_b=None):
    """What the round-time panels draw, per scenario in seed order:
    {"panels": [{"scenario", "max_ms", "a": [run], "b": [run]}]}, a run
    being {"steps": [(N, median round ms)], "probes": [(N, ms)] sorted by
    N, "crossing": x, "interval": [lo, hi] or None, "source"} (crossing as
    in capacity_data)."""
    ga, gb = side_docs(groups_a), side_docs(groups_b)
    panels = []
    for name in names_of(ga, gb):
        da = ga.get(name, [])
        db = pair_order(da, gb.get(name, []))
        pa, pb, _ = scenario_crossings(da, db)
        p = {"scenario": name, "max_ms": None, "a": [], "b": []}
        for key, docs, pts in (("a", da, pa), ("b", db, pb)):
            for d, c in zip(docs, pts):
                p["max_ms"] = p["max_ms"] or orbresults.setting(d, "max_ms")
                p[key].append({
                    "steps": [(s["n"], s["round_ms"]["median"])
                              for s in d["steps"] if orbresults.timed(s)],
                    "probes": sorted((s["n"], s["round_ms"]["median"])
                                     for s in d.get("probes") or []
                                     if orbresults.timed(s)),
                    "crossing": c["x"], "interval": c["interval"],
                    "source": c["source"]})
        panels.append(p)
    return {"panels": panels}


def latency_panels_figure(groups_a, groups_b=None, labels=("A", "B"),
                          colors=None, footer="",
                          title="Round time against servers"):
    """One panel per scenario: each run's steps as a thin line (A's colour,
    B's), its probes as small markers, max_ms dashed, each run's crossing
    N as a marker just above (A) or below (B) the max_ms line with its
    interval as a short bar; no text in the panels. Skip without steps."""
    data = latency_data(groups_a, groups_b)
    panels = [p for p in data["panels"]
              if any(r["steps"] for k in "ab" for r in p[k])]
    if not panels:
        raise orbplot.Skip("round time panels: skipped, no result has a step "
                     "with timed rounds")
    two = groups_b is not None
    cols = side_colors(labels, colors)
    fig, axes, sizes = small_multiples(len(panels), footer)
    ys, ns = [], []
    for ax, p in zip(axes, panels):
        ax.axhline(p["max_ms"], color="crimson", ls="--", lw=0.9, zorder=2)
        for key, color, sign in (("a", cols[0], 1), ("b", cols[1], -1)):
            for j, run in enumerate(p[key]):
                if run["steps"]:
                    ax.plot(*zip(*run["steps"]), "-", color=color, lw=0.9,
                            alpha=0.8, zorder=3)
                if run["probes"]:
                    ax.plot(*zip(*run["probes"]), "o", color=color, ms=2.5,
                            mfc="none", mew=0.8, zorder=4)
                ys += [y for _, y in run["steps"] + run["probes"]]
                ns += [n for n, _ in run["steps"] + run["probes"]]
                # Each run a few points off the line, A above, B below,
                # so that intervals of several runs do not hide each other.
                off = offset_copy(ax.transData, fig=fig, x=0,
                                  y=sign * (3 + 3 * j), units="points")
                if run["interval"]:
                    ax.plot(run["interval"], [p["max_ms"]] * 2, "-",
                            color=color, lw=1.6, transform=off, zorder=5,
                            solid_capstyle="butt")
                if run["source"] == "crossing_n":
                    ax.plot(run["crossing"], p["max_ms"], "D", color=color,
                            ms=4, mec="black", mew=0.5, transform=off,
                            zorder=6)
                else:
                    ax.plot(run["crossing"], p["max_ms"], "D", ms=4.5,
                            mec=color, mew=1.3, mfc="white", transform=off,
                            zorder=6)
        ax.set_title(orbesc.figure_text(p["scenario"]), fontsize=10, pad=4)
        ax.grid(True, which="major", alpha=0.3)
    # Linear axes: the question is where each run reaches max_ms, and
    # there a log-log plot squeezes the last 10% of N into a few pixels.
    # Rounds far above max_ms say nothing more and are cut off.
    ax0 = axes[0]
    top = max(p["max_ms"] for p in panels) * 1.5
    ax0.set_ylim(0, min(max(ys, default=1), top) * 1.04 or 1)
    ax0.set_xlim(0, max(ns, default=1) * 1.04)
    ax0.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    rows, ncol = grid_shape(len(panels))
    for i, ax in enumerate(axes):
        if i % ncol == 0:
            ax.set_ylabel("median round time (ms)", fontsize=9)
        if i + ncol >= len(panels):
            ax.set_xlabel(f"{unit_of(groups_a, groups_b)} (N)", fontsize=9)
    handles = [Line2D([], [], color=c, lw=1, label=f"{lab}: one line per "
                      "run")
               for lab, c in zip(labels[:2] if two else labels[:1], cols)]
    if any(r["probes"] for p in panels for k in "ab" for r in p[k]):
        handles.append(Line2D([], [], color="0.3", marker="o", ms=3,
                              mfc="none", lw=0,
                              label="crossing-search probes"))
    runs = [r for p in panels for k in "ab" for r in p[k]]
    handles.append(Line2D([], [], color="crimson", ls="--", lw=0.9,
                          label="max_ms"))
    if any(r["source"] == "crossing_n" for r in runs):
        handles.append(Line2D([], [], color="0.3", marker="D", ms=4, lw=1.6,
                              mec="black", mew=0.5,
                              label="each run's crossing N, 95% interval"))
    if any(r["source"] != "crossing_n" for r in runs):
        handles.append(Line2D([], [], color="0.3", marker="D", ms=4.5,
                              lw=0, mfc="white", mew=1.3,
                              label="each run's max_servers (no "
                                    "crossing_n)"))
    finish_grid(fig, title, sizes, rows)
    top_legend(fig, handles, 0, fig.bbox.width, gap_px=0.3 * fig.dpi,
               loc="upper center")
    return fig


def latency_caption(data, labels, two):
    runs = [r for p in data["panels"] for k in "ab" for r in p[k]]
    fb = all(r["source"] != "crossing_n" for r in runs)
    where = ("each run's max_servers marked at the max_ms line (no "
             "crossing_n in these results, no interval)") if fb else \
        ("each run's crossing N marked at the max_ms line with its 95% "
         "interval")
    where += (" — the markers sit a few points off the line, A's above "
              "and B's below, one row per run, so that none hides another"
              if two else " — the markers sit a few points above the line, "
              "one row per run, so that none hides another")
    who = (f"{labels[0]} and {labels[1]}'s runs" if two else "the runs")
    probes = ("" if not any(r["probes"] for r in runs) else
              ", circles the crossing search's extra measurements")
    return (f"How round time grows with the number of servers and where "
            f"{who} reach max_ms: one line per run (the median round time "
            f"of each sweep step){probes}, {where}.")
