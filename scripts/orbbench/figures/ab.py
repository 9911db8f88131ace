"""Figures that set results B against results A (the baseline), one
question each: capacity (crossing N per scenario, every run and the
verdict), B/A round time against N with A's own run-to-run spread, and
round time against N in one small panel per scenario.

Every figure has a pure *_data function beside it that returns exactly the
numbers the figure draws. Groups are {scenario name: [result doc or
orbbench.results.Result, …]}, as orbbench.results.group_by_scenario gives
them; side B is optional where the question allows (one set of
results)."""
import math
import statistics

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import (FixedLocator, FuncFormatter, MaxNLocator,
                               NullFormatter, NullLocator)
from matplotlib.transforms import offset_copy

import orbbench.plot as orbplot
import orbbench.results as orbresults

# The two sides' colours unless given (tab10's first two: told apart by
# most colour-blind readers too).
SIDE_COLORS = ("tab:blue", "tab:orange")
VERDICT_COLORS = {"slower": "#b2182b", "faster": "#1a7837",
                  "mixed": "#b35806", "same": "0.45", "n/a": "0.45"}
# B/A beyond these is drawn at the edge of the ratio panels (a triangle).
RATIO_CLIP = (1 / 2.5, 2.5)


def docs_of(items):
    """Result docs from a list of docs or orbbench.results.Result."""
    return [getattr(x, "doc", x) for x in items]


def side_docs(groups):
    """{name: [doc, …]} from {name: [doc or Result, …]} (None → {})."""
    return {k: docs_of(v) for k, v in (groups or {}).items() if v}


def names_of(ga, gb):
    """Scenario names of both sides in seed order."""
    return orbresults.seed_order(list(ga) + list(gb))


def side_colors(labels, colors=None):
    """(colour of A, colour of B) from colors {label: colour} or the
    defaults."""
    colors = colors or {}
    labels = tuple(labels) + ("A", "B")[len(labels):]
    return tuple(colors.get(lab, c) for lab, c in zip(labels, SIDE_COLORS))


def new_figure(width, height, footer, nrows=1, ncols=1, **kw):
    """A figure of width × height inches with the footer line(s) at the
    bottom left."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height),
                             dpi=orbplot.DPI, squeeze=False, **kw)
    orbplot.put_footer(fig, footer)
    return fig, axes


def footer_lines(footer):
    return footer.count("\n") + 1 if footer else 0


# ---- crossing N per run ---------------------------------------------------

def crossing_point(doc, use_crossing_n):
    """One run's crossing as drawn: {"x", "interval", "source"}. With
    use_crossing_n and a crossing_n, that and its 95% interval; else
    max_servers without an interval."""
    res = doc["result"]
    c = res.get("crossing_n") if use_crossing_n else None
    if c is not None:
        iv = res.get("crossing_interval")
        ok = (isinstance(iv, (list, tuple)) and len(iv) == 2 and
              all(isinstance(v, (int, float)) for v in iv))
        return {"x": float(c), "interval": [float(iv[0]), float(iv[1])]
                if ok else None, "source": "crossing_n"}
    return {"x": float(orbresults.held(doc)), "interval": None,
            "source": "max_servers"}


def pair_order(docs_a, docs_b):
    """docs_b in the order of the A runs they were paired with (paired.id,
    as scripts/compare matches them) when every run on both sides has a
    partner; else docs_b as given."""
    ids = [orbresults.get(d, "paired.id") for d in docs_a]
    by_id = {orbresults.get(d, "paired.id"): d for d in docs_b}
    if None in ids or len(set(ids)) != len(ids) or \
            len(by_id) != len(docs_b) or set(ids) != set(by_id):
        return docs_b
    return [by_id[i] for i in ids]


def scenario_crossings(docs_a, docs_b):
    """(A points, B points, why) of one scenario as scripts/compare takes
    them: crossing_n, unless some run is older than the crossing search
    (no "probes"): then max_servers for every run (like with like); a run
    without a crossing_n (it never crossed max_ms: the client leaves the
    field out, or null) gives its max_servers. why is None, or "no
    crossing_n" / "never crossed" for the fallbacks. B's points are in
    the order of docs_b: pass pair_order(docs_a, docs_b)."""
    docs = docs_a + docs_b
    use = all("probes" in d for d in docs)
    pa = [crossing_point(d, use) for d in docs_a]
    pb = [crossing_point(d, use) for d in docs_b]
    why = None
    if not use:
        why = "no crossing_n"
    elif any(p["source"] == "max_servers" for p in pa + pb):
        why = "never crossed"
    return pa, pb, why


def median_x(points):
    return statistics.median(p["x"] for p in points) if points else None


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


def widest_px(texts, renderer):
    """The widest of texts (matplotlib Text) in pixels, 0 for none."""
    return max((t.get_window_extent(renderer).width for t in texts
                if t.get_text()), default=0.0)


def top_legend(fig, handles, x0, x1, gap_px, loc="upper left"):
    """A frameless legend just under the title, between x0 and x1
    (figure pixels), in as few rows as fit; then the top of the subplots
    moves to gap_px below it. Returns the legend."""
    r = fig.canvas.get_renderer()
    height = fig.bbox.height
    title = fig._suptitle.get_window_extent(r).y0 if fig._suptitle \
        else height
    y = (title - 10) / height
    anchor = (x0 / fig.bbox.width if loc == "upper left" else
              (x0 + x1) / 2 / fig.bbox.width, y)
    for ncol in range(len(handles), 0, -1):
        leg = fig.legend(handles=handles, loc=loc, bbox_to_anchor=anchor,
                         ncol=ncol, fontsize=9, frameon=False,
                         borderaxespad=0, borderpad=0.2, handletextpad=0.4,
                         columnspacing=1.4)
        box = leg.get_window_extent(r)
        if box.width <= x1 - x0 or ncol == 1:
            break
        leg.remove()
    fig.subplots_adjust(top=(box.y0 - gap_px) / height)
    return leg


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
    ax.set_xlabel("servers: max_servers (the largest N within max_ms)"
                  if hollow_all else "servers at the crossing (crossing "
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
        what = "max_servers" if hollow_all else "crossing N"
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


def plain_log_ticks(axis, lo, hi):
    """Ticks at 1, 2, 5 × 10^k (more when few fall in range) in plain
    numbers on a log axis."""
    for mults in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), tuple(range(1, 10))):
        ticks = [m * 10 ** e for e in range(math.floor(math.log10(lo)),
                                            math.ceil(math.log10(hi)) + 1)
                 for m in mults if lo <= m * 10 ** e <= hi]
        if len(ticks) >= 3:
            break
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: orbresults.fmt_num(v)))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


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


def grid_shape(n):
    """(rows, columns) of n small panels: 1, 2 or 4 columns."""
    cols = 1 if n == 1 else 2 if n <= 4 else 4
    return math.ceil(n / cols), cols


def small_multiples(n, footer, panel_in=(3.6, 2.7), legend_rows=1,
                    **kw):
    """A figure of n panels on a grid sharing both axes; returns (fig,
    axes in order, sizes in inches (width, height, left, top, bottom))."""
    rows, cols = grid_shape(n)
    nfoot = footer_lines(footer)
    pw, ph = panel_in
    left, right = 0.85, 0.2
    top = 0.75 + 0.3 * legend_rows
    bottom = 0.7 + 0.16 * nfoot
    width = left + right + pw * cols + 0.25 * (cols - 1)
    height = top + bottom + ph * rows + 0.45 * (rows - 1)
    fig, axes = new_figure(width, height, footer, rows, cols, sharex=True,
                           sharey=True, **kw)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    # A bottom-row panel may be missing: label the x axis of the panel
    # above it instead.
    for i, ax in enumerate(flat[:n]):
        if i + cols >= n:
            ax.xaxis.set_tick_params(labelbottom=True)
    return fig, flat[:n], (width, height, left, right, top, bottom)


def finish_grid(fig, title, sizes, nrows, panel_w=3.6, gap_w=0.25,
                gap_h=0.45):
    """Title and margins of a small-multiples figure (sizes from
    small_multiples): gaps in inches as fractions of a panel."""
    width, height, left, right, top, bottom = sizes
    ph = (height - top - bottom - gap_h * (nrows - 1)) / nrows
    orbplot.finish(fig, title, left=left / width, right=1 - right / width,
             top=1 - top / height, bottom=bottom / height,
             hspace=gap_h / ph, wspace=gap_w / panel_w)


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
        ax.set_title(p["scenario"], fontsize=10, pad=4)
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
            ax.set_xlabel("servers (N)", fontsize=9)
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
        ax.set_title(p["scenario"], fontsize=10, pad=4)
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
            ax.set_xlabel("servers (N)", fontsize=9)
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


# ---- writing the figures --------------------------------------------------

def verdicts_from_compare(cmp):
    """{scenario: {"verdict", "ratio", "ci"}} from scripts/compare's JSON:
    the scenario's verdict with its crossing-N metric's ratio and the
    interval the table shows beside it (at the verdicts' level)."""
    out = {}
    for s in cmp.get("scenarios", []):
        m = s["metrics"]["crossing_n"]
        out[s["scenario"]] = {"verdict": s["verdict"], "ratio": m["ratio"],
                              "ci": [m["ci_low"], m["ci_high"]]
                              if m.get("ci_low") is not None else None}
    return out


def swept_only(sides, log, figures):
    """sides (a list of groups) without the scenarios whose every run is
    fixed-N (the bench suite): capacity and round time against N do not
    apply to one N; the fixed-n figure draws them. log(message) once, for
    figures, names what was left out; [] when nothing is left."""
    fixed = {name for g in sides for name, items in g.items()
             if items and all(d["steps"] and orbresults.is_fixed_n(d)
                              for d in docs_of(items))}
    out = [{k: v for k, v in g.items() if k not in fixed} for g in sides]
    if fixed and not any(out):
        log(f"{figures}: not drawn, every scenario is fixed-N (see "
            f"fixed-n)")
        return []
    if fixed:
        log(f"{figures}: {len(fixed)} fixed-N scenario(s) left out "
            f"({', '.join(orbresults.seed_order(list(fixed)))}; see fixed-n)")
    return out


def write_figures(jobs, outdir, log):
    """Run (stem, title, make, caption) jobs; save what they draw."""
    out = []
    for stem, title, make, caption in jobs:
        try:
            fig = make(title)
        except orbplot.Skip as e:
            log(str(e))
            continue
        out.append(orbplot.save(fig, outdir, stem, title, caption()))
    return out


def ab_figures(res_a, res_b, outdir, labels, verdicts=None, colors=None,
               log=None, run=None):
    """Write the A-against-B figures of two lists of orbbench.results.Result
    into outdir (PNG and SVG each): ab-capacity, ab-ratio, ab-latency.
    labels (A, B); verdicts as capacity_figure takes them (see
    verdicts_from_compare); colors {label: colour}; log(message) for
    skipped figures; run names the comparison in the titles. Returns
    [orbbench.plot.Figure] with captions."""
    log = log or (lambda m: None)
    labels = tuple(labels)
    sides = swept_only([orbresults.group_by_scenario(res_a, split_orbs=True),
                        orbresults.group_by_scenario(res_b, split_orbs=True)],
                       log, "ab-capacity, ab-ratio, ab-latency")
    if not sides:
        return []
    ga, gb = sides
    foot = (f"A = {labels[0]}: {orbresults.footer(res_a)}\n"
            f"B = {labels[1]}: {orbresults.footer(res_b)}")
    tail = f" — {run}" if run else ""
    vs = f"{labels[1]} against {labels[0]}"
    cap = capacity_data(ga, gb)
    for name, why in ratio_data(ga, gb)["left_out"]:
        log(f"B/A round time: {name} left out ({why})")
    jobs = [("ab-capacity", f"Servers held per scenario, {vs}{tail}",
             lambda t: capacity_figure(ga, gb, labels, colors, verdicts,
                                       foot, t),
             lambda: capacity_caption(cap, labels, verdicts)),
            ("ab-ratio", f"Round time {labels[1]}/{labels[0]} against "
                         f"servers{tail}",
             lambda t: ratio_figure(ga, gb, labels, colors, foot, t),
             lambda: ratio_caption(ratio_data(ga, gb), labels)),
            ("ab-latency", f"Round time against servers, {vs}{tail}",
             lambda t: latency_panels_figure(ga, gb, labels, colors, foot,
                                             t),
             lambda: latency_caption(latency_data(ga, gb), labels, True))]
    return write_figures(jobs, outdir, log)


def single_figures(results, outdir, label=None, colors=None, log=None,
                   run=None):
    """Write the figures of one set of results (capacity, round-time
    panels) into outdir as capacity and latency-panels (PNG and SVG);
    return [orbbench.plot.Figure] with captions."""
    log = log or (lambda m: None)
    label = label or (orbresults.orb_label(results[0].doc) if results else "A")
    labels = (label, "B")
    sides = swept_only([orbresults.group_by_scenario(results, split_orbs=True,
                                            split_settings=True)],
                       log, "capacity, latency-panels")
    if not sides:
        return []
    g = sides[0]
    foot = orbresults.footer(results) if results else ""
    tail = f" — {run}" if run else ""
    cap = capacity_data(g)
    jobs = [("capacity", f"Servers held per scenario{tail}",
             lambda t: capacity_figure(g, None, labels, colors, None, foot,
                                       t),
             lambda: capacity_caption(cap, labels)),
            ("latency-panels", f"Round time against servers{tail}",
             lambda t: latency_panels_figure(g, None, labels, colors, foot,
                                             t),
             lambda: latency_caption(latency_data(g), labels, False))]
    return write_figures(jobs, outdir, log)
