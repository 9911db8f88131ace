"""Capacity: crossing N per scenario, every run and the verdict, B against
A (or one set alone); capacity_data returns exactly the numbers drawn."""
import math
import statistics

from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.layout import (footer_lines, new_figure, plain_log_ticks,
                                     top_legend, widest_px)
from orbbench.figures.sides import (median_x, names_of, pair_order,
                                    scenario_crossings, side_colors, side_docs,
                                    unit_of)


VERDICT_COLORS = {"slower": "#b2182b", "faster": "#1a7837",
                  "mixed": "#b35806", "same": "0.45", "n/a": "0.45"}


def geo_ratio(pa, pb):
    """B/A of the geometric means of the runs' values, or None."""
    va = [p["x"] for p in pa if p["x"] > 0]
    vb = [p["x"] for p in pb if p["x"] > 0]
    if not va or not vb:
        return None
    return math.exp(statistics.fmean(map(math.log, vb)) -
                    statistics.fmean(map(math.log, va)))


# ---- 1. capacity, A vs B --------------------------------------------------

def nice_floor(x, hi):
    """x rounded down to a tick of the axis [x, hi]."""
    ticks = MaxNLocator(nbins=20, steps=[1, 2, 2.5, 5, 10]).tick_values(x,
                                                                        hi)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else max(x, 1)
    return math.floor(x / step) * step


def capacity_axis(values):
    """How the capacity figure's x axis shows values: {"scale", "min",
    "max", "why"}. Log when they span more than 5×, so that a 10%
    difference is as wide at 50 servers as at 5000; else linear from 0
    when 0 costs less than a third of the width, else from a round number
    below the smallest value (a dot plot needs no zero, and a 10%
    difference then stays visible)."""
    vals = [v for v in values if v is not None]
    lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    if lo > 0 and hi / lo > 5:
        return {"scale": "log", "min": lo / 1.25, "max": hi * 1.25,
                "why": "the x axis is logarithmic (the scenarios span more "
                       "than 5×), so equal distances are equal ratios"}
    pad = max(0.06 * (hi - lo), 0.03 * hi, 0.5)
    top = hi + pad
    low = lo - pad
    if low <= top / 3:
        return {"scale": "linear", "min": 0.0, "max": top,
                "why": "the x axis starts at 0"}
    low = nice_floor(low, top)
    return {"scale": "linear", "min": low, "max": top,
            "why": f"the x axis starts at {orbresults.fmt_num(low)}, not 0, "
                   "so that a 10% difference stays visible"}


def capacity_data(groups_a, groups_b=None):
    """What the capacity figure draws, per scenario in seed order:
    {"rows": [{"scenario", "a": side, "b": side or None, "ratio",
    "fallback"}], "axis": capacity_axis(…), "sides": 1 or 2}, where a side
    is {"runs": [{"x", "interval", "source"}], "median"} (None when the
    scenario has no run on that side), ratio is B/A of the geometric means
    of the runs' x (None without both sides), fallback None, "no
    crossing_n" or "never crossed"."""
    ga, gb = side_docs(groups_a), side_docs(groups_b)
    rows, values = [], []
    for name in names_of(ga, gb):
        da = ga.get(name, [])
        pa, pb, why = scenario_crossings(da, pair_order(da,
                                                        gb.get(name, [])))
        row = {"scenario": name, "fallback": why,
               "ratio": geo_ratio(pa, pb) if pa and pb else None}
        for key, pts in (("a", pa), ("b", pb)):
            row[key] = {"runs": pts, "median": median_x(pts)} if pts \
                else None
            values += [p["x"] for p in pts]
            values += [v for p in pts for v in (p["interval"] or [])]
        rows.append(row)
    return {"rows": rows, "axis": capacity_axis(values),
            "sides": 2 if groups_b is not None else 1}


def ratio_text(v):
    """('0.89× [0.82–0.96]', verdict word, colour) of a verdict dict
    {"verdict", "ratio", "ci"}; '~' for same (benchstat's mark)."""
    r, ci, word = v.get("ratio"), v.get("ci"), v.get("verdict") or "n/a"
    if r is None:
        return "—", word if word != "n/a" else "no test", \
            VERDICT_COLORS["n/a"]
    d = 3 if ci and ci[0] is not None and ci[1] - ci[0] < 0.02 else 2
    text = f"{r:.{d}f}×"
    if ci and ci[0] is not None:
        text += f" [{ci[0]:.{d}f}–{ci[1]:.{d}f}]"
    shown = {"same": "~ same", "n/a": "no test"}.get(word, word)
    return text, shown, VERDICT_COLORS.get(word, "black")


def capacity_figure(groups_a, groups_b=None, labels=("A", "B"),
                    colors=None, verdicts=None, footer="",
                    title="Servers held per scenario"):
    """One row per scenario: each run's crossing N as a dot with its 95%
    interval as a whisker, the median of the runs as a black tick, A
    above and B below; at the right B/A of crossing N with its interval
    and the scenario's verdict (verdicts {scenario: {"verdict", "ratio",
    "ci"}}, e.g. from verdicts_from_compare; else the ratio of the
    geometric means, untested). One side: the median at the right. Skip
    without runs."""
    data = capacity_data(groups_a, groups_b)
    rows = data["rows"]
    if not rows:
        raise orbplot.Skip("capacity: skipped, no results")
    two = data["sides"] == 2
    cols = side_colors(labels, colors)
    nfoot = footer_lines(footer)
    runs = max(len(r[k]["runs"]) for r in rows for k in "ab" if r[k])
    row_in = 0.3 + (0.14 if two else 0.08) * runs
    width = 10.0
    height = max(3.0, row_in * len(rows) + 1.55 + 0.16 * nfoot)
    fig, axes = new_figure(width, height, footer)
    ax = axes[0][0]
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first scenario on top
    hollow_all = all(p["source"] != "crossing_n" for r in rows
                     for k in "ab" if r[k] for p in r[k]["runs"])
    for i, row in enumerate(rows):
        if i % 2:
            ax.axhspan(i - 0.5, i + 0.5, color="0.94", zorder=0, lw=0)
        bands = ((("a", -0.42, -0.04), ("b", 0.04, 0.42)) if two else
                 (("a", -0.36, 0.36),))
        for (key, lo, hi), color in zip(bands, cols):
            side = row[key]
            if not side:
                continue
            # Behind the dots, so that a run at the median stays visible.
            ax.vlines(side["median"], i + lo - 0.03, i + hi + 0.03,
                      color="black", lw=2, zorder=2)
            k = len(side["runs"])
            for j, p in enumerate(side["runs"]):
                y = i + lo + (j + 0.5) * (hi - lo) / k
                if p["interval"]:
                    ax.hlines(y, *p["interval"], color=color, lw=1.6,
                              zorder=3)
                hollow = p["source"] != "crossing_n"
                ax.plot(p["x"], y, "o", ms=6, mec=color, mew=1.6,
                        mfc="white" if hollow else color, zorder=4)
    ax.set_yticks(range(len(rows)), [r["scenario"] for r in rows],
                  fontsize=10)
    ax.tick_params(axis="y", length=0, pad=6)
    axis = data["axis"]
    if axis["scale"] == "log":
        ax.set_xscale("log")
        plain_log_ticks(ax.xaxis, axis["min"], axis["max"])
    ax.set_xlim(axis["min"], axis["max"])
    ax.grid(True, axis="x", alpha=0.35)
    ax.set_axisbelow(True)
    unit = unit_of(groups_a, groups_b)
    held = "max_servers" if unit == "servers" else "held"
    ax.set_xlabel(f"{unit}: {held} (the largest N within max_ms)"
                  if hollow_all else f"{unit} at the crossing (crossing "
                  "N: where the median round time reaches max_ms)")
    # The column(s) right of the axes: B/A and verdict, or the median.
    if two:
        vmap = verdicts or {}
        cells = []
        for row in rows:
            if row["scenario"] in vmap:
                cells.append(ratio_text(vmap[row["scenario"]]))
            elif row["ratio"] is not None:
                cells.append((f"{row['ratio']:.2f}×", "", "black"))
            else:
                cells.append(("—", "", "0.45"))
        what = held if hollow_all else "crossing N"
        heads = [f"B/A {what}{' [interval]' if vmap else ''}",
                 "verdict" if vmap else ""]
        columns = [[(c[0], "0.45" if c[1] in ("~ same", "no test") else
                     "black", "normal") for c in cells],
                   [(c[1], c[2], "normal" if c[1] in ("~ same", "no test")
                     else "bold") for c in cells]]
    else:
        heads = ["median"]
        columns = [[(orbresults.fmt_num(round(r["a"]["median"]))
                     if r["a"] else "—", "black", "normal") for r in rows]]
    r = fig.canvas.get_renderer()
    x_pt = 10
    for head, col in zip(heads, columns):
        texts = [ax.annotate(head, xy=(1, 1), xycoords="axes fraction",
                             xytext=(x_pt, 3), textcoords="offset points",
                             ha="left", va="bottom", fontsize=9,
                             weight="bold")]
        for i, (text, color, weight) in enumerate(col):
            texts.append(ax.annotate(
                text, xy=(1, i), xycoords=("axes fraction", "data"),
                xytext=(x_pt, 0), textcoords="offset points", ha="left",
                va="center", fontsize=9, color=color, weight=weight))
        x_pt += widest_px(texts, r) * 72 / fig.dpi + 12
    right_px = x_pt * fig.dpi / 72 + 8
    left_px = widest_px(ax.get_yticklabels(), r) + 24
    bottom_in = 0.62 + 0.16 * nfoot
    orbplot.finish(fig, title, left=left_px / fig.bbox.width,
             right=1 - right_px / fig.bbox.width, top=0.85,
             bottom=bottom_in / height)
    handles = []
    names = (f"A: {labels[0]}", f"B: {labels[1]}") if two else labels[:1]
    for lab, color in zip(names, cols):
        handles.append(Line2D([], [], marker="o", color=color, lw=1.6,
                              ms=6, mfc="white" if hollow_all else color,
                              mew=1.6, label=lab))
    handles.append(Line2D([], [], color="black", lw=0, marker="|", ms=12,
                          mew=2, label="median of the runs"))
    if not hollow_all and any(p["source"] != "crossing_n" for r_ in rows
                              for k in "ab" if r_[k]
                              for p in r_[k]["runs"]):
        handles.append(Line2D([], [], marker="o", color="0.3", lw=0,
                              mfc="white", ms=6,
                              label="hollow: max_servers, no interval"))
    box = ax.get_window_extent(r)
    top_legend(fig, handles, box.x0, box.x1, gap_px=22)
    return fig


def capacity_caption(data, labels, verdicts=None):
    """One sentence: what the figure answers, how, and its fallbacks."""
    rows = data["rows"]
    two = data["sides"] == 2
    fb = [r["scenario"] for r in rows if r["fallback"] == "no crossing_n"]
    never = [r["scenario"] for r in rows if r["fallback"] == "never crossed"]
    if len(fb) == len(rows):
        what = ("each dot is one run's max_servers (the largest N whose "
                "median round time stayed within max_ms; these results "
                "have no crossing_n, so no interval)")
    else:
        what = ("each dot is one run's crossing N (where the median round "
                "time passes max_ms), its bar the 95% interval")
        if fb:
            what += (f"; {', '.join(fb)}: max_servers, hollow, as some "
                     "results there have no crossing_n")
    if never:
        what += (f"; hollow dots in {', '.join(never)}: runs that never "
                 "crossed max_ms, at their max_servers")
    if two:
        lead = (f"How many servers {labels[1]} holds against {labels[0]}, "
                "scenario by scenario")
        tail = ("; on the right B/A of these values (ratio of geometric "
                "means) with the interval compare's table shows (at the "
                "level of its verdicts) and its verdict (~: no "
                "difference shown)" if verdicts is not None else
                "; on the right B/A of the runs' geometric means, untested")
    else:
        lead = "How many servers each scenario holds"
        tail = ""
    return (f"{lead}: {what}; the black tick is the median of the runs"
            f"{tail}; {data['axis']['why']}.")
