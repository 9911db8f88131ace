"""The figures of orbbench results (matplotlib, Agg backend): shared by
plot, compare (A/B overlays) and report. Each figure is written as PNG and
SVG at a fixed pixel size (FIG_SIZES × DPI)."""
from collections import namedtuple
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
# Text stays text in the SVGs: searchable, editable, smaller.
matplotlib.rcParams["svg.fonttype"] = "none"
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

import orbresults as R  # noqa: E402

DPI = 100
# Inches; the PNG is this × DPI pixels. The summary grows past 10 rows.
FIG_SIZES = {"latency": (10, 7), "footprint": (11, 8), "summary": (10, 6),
             "box": (10, 6)}

# One line (or one set of repeats) on a figure: label, colour, line style,
# and the result documents it draws.
Series = namedtuple("Series", "label color style docs")

# A written figure: file stem, title, one-sentence caption, PNG and SVG.
Figure = namedtuple("Figure", "stem title caption png svg")


class Skip(Exception):
    """A figure whose data the results lack; the message says which."""


def palette(names):
    """{scenario name: colour}, stable for a given list of names."""
    cmap = plt.get_cmap("tab10")
    return {n: cmap(i % 10) for i, n in enumerate(names)}


def scenario_series(results, style="-", suffix="", colors=None):
    """One Series per scenario (repeats together), in seed order; colours
    from palette() unless given."""
    groups = R.group_by_scenario(results, split_orbs=True,
                                 split_settings=True)
    colors = colors or palette(list(groups))
    return [Series(name + suffix, colors[name], style,
                   [r.doc for r in rs]) for name, rs in groups.items()]


# ---- shared drawing -------------------------------------------------------

def new_figure(kind, footer, nrows=1, ncols=1, height=None, **kw):
    w, h = FIG_SIZES[kind]
    fig, axes = plt.subplots(nrows, ncols, figsize=(w, height or h),
                             dpi=DPI, squeeze=False, **kw)
    fig.text(0.01, 0.01, footer, fontsize=8, color="0.35", ha="left",
             va="bottom")
    return fig, axes


def finish(fig, title, **margins):
    """Title and fixed margins (tight_layout took a third of the time);
    the bottom leaves room for the footer line."""
    fig.suptitle(title, fontsize=13)
    m = dict(left=0.08, right=0.98, top=0.92, bottom=0.11, hspace=0.08,
             wspace=0.2)
    m.update(margins)
    fig.subplots_adjust(**m)


def save(fig, outdir, stem, title, caption):
    """Write stem.png and stem.svg into outdir; return a Figure."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    png, svg = outdir / f"{stem}.png", outdir / f"{stem}.svg"
    fig.savefig(png, dpi=DPI)
    fig.savefig(svg)
    plt.close(fig)
    return Figure(stem, title, caption, png, svg)


def spans_decades(values, factor=30):
    """True when the positive values span more than factor (log helps)."""
    v = [x for x in values if x and x > 0]
    return bool(v) and max(v) / min(v) > factor


def use_log_x(ax, docs):
    """Log N axis for geometric sweeps over a wide range; else whole N."""
    ns = [s["n"] for d in docs for s in d["steps"]]
    if any(R.get(d, "scenario.sweep.growth", 1) > 1 for d in docs) and \
            spans_decades(ns, 10):
        ax.set_xscale("log")
        return True
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return False


def draw_lines(ax, series, ystep, marker="o"):
    """Plot ystep(step) against N for every run of every series (repeats
    share a colour, the first carries the label). Return the y values."""
    ys = []
    for se in series:
        label = se.label + (f" ({len(se.docs)} runs)" if len(se.docs) > 1
                            else "")
        for doc in se.docs:
            pts = [(s["n"], ystep(s)) for s in doc["steps"]]
            pts = [(n, y) for n, y in pts if y is not None]
            if not pts:
                continue
            ax.plot(*zip(*pts), se.style, color=se.color, marker=marker,
                    markersize=3, linewidth=1.4, label=label)
            label = None
            ys += [y for _, y in pts]
    return ys


def draw_thresholds(ax, docs):
    """A dashed line at each distinct max_ms."""
    for ms in sorted({d["scenario"]["sweep"]["max_ms"] for d in docs}):
        ax.axhline(ms, color="crimson", linestyle="--", linewidth=1,
                   label=f"max_ms {R.fmt_num(ms)} ms")


def draw_crossings(ax, series):
    """Mark each run's first step over max_ms, with its N (the N labels
    only where few enough runs cross not to print over each other)."""
    label = "crossing: first step over max_ms"
    crossing = sum(R.crossing_step(d) is not None for se in series
                   for d in se.docs)
    for se in series:
        for doc in se.docs:
            s = R.crossing_step(doc)
            if s is None:
                continue
            ax.plot(s["n"], s["round_ms"]["median"], "X", color=se.color,
                    markeredgecolor="black", markersize=10, label=label,
                    zorder=5)
            if crossing <= 8:
                ax.annotate(f"N={s['n']}",
                            (s["n"], s["round_ms"]["median"]),
                            textcoords="offset points", xytext=(6, 6),
                            fontsize=8)
            label = None


def all_docs(series):
    return [d for se in series for d in se.docs]


def require_steps(series, what):
    steps = [s for d in all_docs(series) for s in d["steps"]]
    if not steps:
        raise Skip(f"{what}: skipped, no result has any step")
    if not any(R.timed(s) for s in steps):
        raise Skip(f"{what}: skipped, no step has timed rounds "
                   "(client.connect false)")


# ---- round latency vs N ---------------------------------------------------

def draw_call_band(ax, series):
    """Per-call p50 line and p50–p99 band (µs) where steps have call_us."""
    vals = []
    for se in series:
        for doc in se.docs:
            pts = [(s["n"], s["call_us"]["median"], s["call_us"]["p99"])
                   for s in doc["steps"]
                   if R.timed(s) and isinstance(s.get("call_us"), dict) and
                   {"median", "p99"} <= set(s["call_us"])]
            if not pts:
                continue
            n, p50, p99 = zip(*pts)
            # Many scenarios overlap: a faint band, its edges drawn.
            ax.fill_between(n, p50, p99, color=se.color, alpha=0.07,
                            linewidth=0)
            ax.plot(n, p50, se.style, color=se.color, linewidth=1.2)
            ax.plot(n, p99, ":", color=se.color, linewidth=1)
            vals += list(p50) + list(p99)
    return vals


def latency_figure(series, footer, title, calls=True):
    """Median round time vs N (threshold, crossings); below it, with calls,
    the per-call p50–p99 band when the results have call_us."""
    require_steps(series, "latency")
    docs = all_docs(series)
    has_calls = calls and any("call_us" in s for d in docs
                              for s in d["steps"])
    fig, axes = new_figure("latency", footer, 2 if has_calls else 1, 1,
                           sharex=True,
                           gridspec_kw={"height_ratios": [3, 2]}
                           if has_calls else None)
    ax = axes[0][0]
    ys = draw_lines(ax, series, lambda s: s["round_ms"]["median"]
                    if R.timed(s) else None)
    draw_thresholds(ax, docs)
    draw_crossings(ax, series)
    if spans_decades(ys + [d["scenario"]["sweep"]["max_ms"] for d in docs]):
        ax.set_yscale("log")
    use_log_x(ax, docs)
    ax.set_ylabel("median round time (ms)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2, loc="best")
    if has_calls:
        cax = axes[1][0]
        vals = draw_call_band(cax, series)
        if spans_decades(vals, 10):
            cax.set_yscale("log")
        cax.set_ylabel("per-call time (µs)")
        cax.grid(True, which="both", alpha=0.3)
        cax.legend(handles=[
            Line2D([], [], color="0.3", label="per-call p50"),
            Line2D([], [], color="0.3", linestyle=":", label="per-call p99"),
            Patch(color="0.6", alpha=0.3, label="p50–p99 band "
                                                "(colour = scenario)")],
            fontsize=8)
    axes[-1][0].set_xlabel("servers (N)")
    finish(fig, title)
    return fig


# ---- footprint vs N -------------------------------------------------------

FOOTPRINT_PANELS = (
    ("pss", "PSS per server (KiB)"),
    ("uss", "USS per server (KiB)"),
    ("mem_available", "MemAvailable drop / N (KiB)"),
    ("threads", "threads per server (mean)"),
)


def footprint_figure(series, footer, title, log=None):
    """Memory per server (PSS, USS, MemAvailable-based) and threads per
    server vs N, one panel each. Results without the fields are left out
    (log says which); Skip when none has them."""
    keep, lacking = [], []
    for se in series:
        docs = [d for d in se.docs if R.has_memory(d)]
        if len(docs) < len(se.docs):
            lacking.append(se.label)
        if docs:
            keep.append(se._replace(docs=docs))
    why = "no footprint or mem_per_server_kb fields"
    if not keep:
        raise Skip(f"footprint: skipped, {why} in any result")
    if lacking and log:
        log(f"footprint: left out {', '.join(lacking)} ({why})")
    fig, axes = new_figure("footprint", footer, 2, 2, sharex=True)
    for ax, (kind, label) in zip(axes.flat, FOOTPRINT_PANELS):
        fn = (R.threads_per_server if kind == "threads" else
              (lambda s, k=kind: R.mem_per_server_kb(s, k)))
        ys = draw_lines(ax, keep, fn)
        if not ys:
            ax.text(0.5, 0.5, "not in these results", ha="center",
                    va="center", transform=ax.transAxes, color="0.5")
        ax.set_ylabel(label)
        if min(ys, default=0) >= 0:  # MemAvailable drop can be < 0
            # Headroom, so a flat line (USS, threads) is not on the frame.
            ax.set_ylim(bottom=0, top=max(ys, default=1) * 1.15 or 1)
        use_log_x(ax, all_docs(keep))
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("servers (N)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if not handles:
        handles, labels = axes[1][1].get_legend_handles_labels()
    axes[0][1].legend(handles, labels, fontsize=8, loc="best")
    finish(fig, title, left=0.07, bottom=0.1)
    return fig


# ---- max servers per scenario ---------------------------------------------

def summary_figure(results, footer, title):
    """Horizontal bars of max servers per scenario in the seed's order:
    the median over repeats, min–max as an error bar; grey when the sweep
    stopped for another reason than latency."""
    groups = R.group_by_scenario(results, split_orbs=True,
                                 split_settings=True)
    names = list(groups)
    sums = [R.summarize([r.doc for r in groups[n]]) for n in names]
    height = max(FIG_SIZES["summary"][1], 0.45 * len(names) + 1.5)
    fig, axes = new_figure("summary", footer, height=height)
    ax = axes[0][0]
    ys = range(len(names))
    latency = ["latency" in s["stop_reasons"] and len(s["stop_reasons"]) == 1
               for s in sums]
    colors = ["tab:blue" if ok else "0.65" for ok in latency]
    vals = [s["max_servers"] for s in sums]
    err = [[v - s["max_servers_min"] for v, s in zip(vals, sums)],
           [s["max_servers_max"] - v for v, s in zip(vals, sums)]]
    repeats = any(s["runs"] > 1 for s in sums)
    ax.barh(ys, vals, color=colors, xerr=err if repeats else None,
            capsize=4, height=0.6)
    for y, v, s in zip(ys, vals, sums):
        why = "" if "latency" in s["stop_reasons"] else \
            f"  stopped: {', '.join(s['stop_reasons'])}"
        ax.text(v, y, f"  {R.spread_text(s)}{why}", va="center", fontsize=9)
    ax.set_yticks(list(ys), names)
    ax.invert_yaxis()
    ax.set_xlim(0, max(max(vals + [0]) * 1.35, 1))
    ax.set_xlabel("max servers (largest N whose median round time stayed "
                  "within max_ms)")
    handles = [Patch(color="tab:blue", label="stopped by latency (max_ms)"),
               Patch(color="0.65", label="stopped otherwise (not a "
                                         "latency limit)")]
    if repeats:
        handles.append(Line2D([], [], color="black", marker="|",
                              linestyle="-", label="min–max over repeats; "
                                                   "bar = median"))
    ax.legend(handles=handles, fontsize=8, loc="best")
    ax.grid(True, axis="x", alpha=0.3)
    longest = max(len(n) for n in names) if names else 10
    finish(fig, title, left=min(0.4, 0.03 + 0.0085 * longest),
           bottom=0.6 / height + 0.02)
    return fig


# ---- per-step distribution ------------------------------------------------

BOX_LABEL = ("round time (ms)\nbox median–p90, whiskers min–max, "
             "tick p99, dot mean (no quartiles are recorded)")


def box_widths(ns):
    """Half the gap to the nearest neighbouring N, for each N."""
    if len(ns) == 1:
        return [max(ns[0] * 0.3, 0.5)]
    gaps = [b - a for a, b in zip(ns, ns[1:])]
    near = [gaps[0]] + [min(a, b) for a, b in zip(gaps, gaps[1:])] + \
        [gaps[-1]]
    return [g * 0.4 for g in near]


def box_figure(doc, footer, title):
    """One glyph per step from the summary the result keeps: box from the
    median to p90, whiskers min–max, p99 tick, mean dot. These are not
    quartiles, and the axis label says so."""
    steps = [s for s in doc["steps"] if R.timed(s) and
             {"min", "median", "p90", "p99", "max", "mean"}
             <= set(s["round_ms"])]
    if not steps:
        raise Skip(f"box {R.scenario_name(doc)}: skipped, no step has "
                   "timed rounds with round_ms min/median/p90/p99/max/mean")
    fig, axes = new_figure("box", footer)
    ax = axes[0][0]
    ns = [s["n"] for s in steps]
    for s, w in zip(steps, box_widths(ns)):
        r, n = s["round_ms"], s["n"]
        ax.vlines(n, r["min"], r["max"], color="0.3", linewidth=1)
        ax.bar(n, r["p90"] - r["median"], width=w, bottom=r["median"],
               color="tab:blue", alpha=0.35, edgecolor="tab:blue")
        ax.hlines(r["median"], n - w / 2, n + w / 2, color="tab:blue",
                  linewidth=2)
        ax.hlines(r["p99"], n - w / 4, n + w / 4, color="black",
                  linewidth=1)
        ax.plot(n, r["mean"], "o", color="darkorange", markersize=4)
    draw_thresholds(ax, [doc])
    if spans_decades([s["round_ms"]["min"] for s in steps] +
                     [s["round_ms"]["max"] for s in steps] +
                     [doc["scenario"]["sweep"]["max_ms"]]):
        ax.set_yscale("log")
    use_log_x(ax, [doc])
    ax.set_xlabel("servers (N)")
    ax.set_ylabel(BOX_LABEL, fontsize=9)
    handles = [Patch(color="tab:blue", alpha=0.35, label="median to p90"),
               Line2D([], [], color="tab:blue", linewidth=2,
                      label="median"),
               Line2D([], [], color="0.3", label="min to max"),
               Line2D([], [], color="black", label="p99"),
               Line2D([], [], color="darkorange", marker="o",
                      linestyle="", label="mean")]
    handles += ax.get_legend_handles_labels()[0]
    ax.legend(handles=handles, fontsize=8, loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    finish(fig, title, left=0.1)
    return fig


# ---- everything for one set of results ------------------------------------

def box_choices(results, names):
    """Results to draw box figures for: all, or those whose scenario name
    or file stem is in names; ValueError for a name that matches none."""
    if not names:
        return results
    chosen = [r for r in results
              if R.scenario_name(r.doc) in names or r.path.stem in names]
    known = {R.scenario_name(r.doc) for r in results} | \
        {r.path.stem for r in results}
    for n in names:
        if n not in known:
            raise ValueError(f"--box {n}: no such scenario in the results "
                             f"(have: {', '.join(sorted(known))})")
    return chosen


def unique_stems(results):
    """{path: file stem}, with the folder's name in front when two results
    share a stem (sync-unix.json in A/ and in B/)."""
    stems = [r.path.stem for r in results]
    return {r.path: (f"{r.path.parent.name}-{r.path.stem}"
                     if stems.count(r.path.stem) > 1 else r.path.stem)
            for r in results}


def plot_all(results, outdir, run, box=None, log=None):
    """Write every figure of results into outdir; return [Figure]. Figures
    the results cannot make are skipped and log(message) says why."""
    log = log or (lambda m: None)
    foot = R.footer(results)
    series = scenario_series(results)
    jobs = [("latency", "Round time vs servers",
             "Median round time (one call to every server) per step, the "
             "max_ms threshold and each run's first step over it; below, "
             "the per-call p50–p99 band.",
             lambda t: latency_figure(series, foot, t)),
            ("footprint", "Footprint per server vs servers",
             "Memory per server (PSS, USS, MemAvailable drop divided by N) "
             "and threads per server at each step.",
             lambda t: footprint_figure(series, foot, t, log)),
            ("summary", "Max servers per scenario",
             "The largest N whose median round time stayed within max_ms, "
             "in the order of the seed's table.",
             lambda t: summary_figure(results, foot, t))]
    stems = unique_stems(results)
    for r in box_choices(results, box):
        jobs.append((f"box-{stems[r.path]}",
                     f"Round times per step: {stems[r.path]}",
                     "The round-time summary of each step drawn as a box: "
                     "median to p90, whiskers min to max, p99 and mean "
                     "marked (the results keep no quartiles).",
                     lambda t, d=r.doc: box_figure(d, R.footer(
                         [R.Result(None, d)]), t)))
    figures = []
    for stem, title, caption, make in jobs:
        full = f"{title} — {run}"
        try:
            fig = make(full)
        except Skip as e:
            log(str(e))
            continue
        figures.append(save(fig, outdir, stem, full, caption))
    return figures
