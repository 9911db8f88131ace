"""The figures of kind load (latency at an offered load), from the
histograms its results store (orbbench.hist):

  load-percentiles  latency by percentile, the HdrHistogram way: the
                    percentile on a log axis of 1/(1 - p), so that 90%,
                    99%, 99.9% and 99.99% are evenly spaced, latency on a
                    log axis; a panel per offered rate that every series
                    stepped through (up to four), a line per series (a
                    side), each its runs' histograms merged;
  load-offered      the percentiles against the offered rate: p50, p99
                    and p99.9 of each series at each rate it measured
                    (histograms merged over its runs), the bound as a
                    line, the steps not within it marked.

The *_data functions return exactly the numbers drawn. A *series* is
(label, [result documents]): one scenario's runs, split by ORB and
settings (orbbench.plot.series_of)."""
import orbbench.hist as orbhist
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.plot import Skip

plt = orbplot.plt

# The percentiles of the figure against offered load: (key, q, style).
LINES = (("p50", 50, ":"), ("p99", 99, "-"), ("p99.9", 99.9, "--"))
MAX_PANELS = 4


def steps_by_rate(docs):
    """{offered rate: [stored histogram, ...]} over the runs' steps,
    and {rate: [verdict, ...]}."""
    hists, verdicts = {}, {}
    for d in docs:
        for st in orbresults.get(d, "load.steps") or []:
            h = st.get("histogram")
            rate = st.get("offered_per_s")
            if not orbhist.valid(h) or not orbresults.is_num(rate):
                continue
            hists.setdefault(rate, []).append(h)
            verdicts.setdefault(rate, []).append(st.get("verdict"))
    return hists, verdicts


def bound(docs):
    """(percentile name, max_ms) the runs were held against, or None."""
    for d in docs:
        p, ms = orbresults.get(d, "load.percentile"), \
            orbresults.get(d, "load.max_ms")
        if p and orbresults.is_num(ms):
            return p, ms
    return None


def stepped_rates(docs):
    """The offered rates of the search's steps (not its bisection), in
    the runs' order: the rates every run of a scenario measures."""
    rates = []
    for d in docs:
        for st in orbresults.get(d, "load.steps") or []:
            if st.get("phase") == "step" and \
                    st.get("offered_per_s") not in rates and \
                    orbhist.valid(st.get("histogram")):
                rates.append(st["offered_per_s"])
    return rates


def percentile_data(series):
    """{panels: [{rate, lines: [{label, count, points: [(percentile,
    latency ms)]}]}], left_out}: the rates stepped by every series that
    has one (the first MAX_PANELS), each series' histograms at that rate
    merged."""
    rows, left_out = [], []
    for label, docs in orbplot.pairs(series):
        hists, _ = steps_by_rate(docs)
        if not hists:
            left_out.append((label, "no step was measured"))
            continue
        rows.append((label, hists, stepped_rates(docs)))
    common = None
    for _, _, rates in rows:
        common = [r for r in (common if common is not None else rates)
                  if r in rates]
    panels = []
    for rate in (common or [])[:MAX_PANELS]:
        lines = []
        for label, hists, _ in rows:
            h = orbhist.merge(hists[rate])
            if h["count"]:
                lines.append({"label": label, "count": h["count"],
                              "points": [(p, v / 1e6)
                                         for p, v in orbhist.curve(h)]})
        panels.append({"rate": rate, "lines": lines})
    return {"panels": panels, "left_out": left_out}


def x_of(p):
    """The HdrHistogram axis: 1 / (1 - p), p a percentile (< 100)."""
    return 1 / (1 - min(p, 99.9999) / 100)


def percentile_caption(data):
    panels = data["panels"]
    if not panels:
        return "No offered rate was measured by every configuration."
    last = panels[-1]
    worst = max(last["lines"], key=lambda ln: ln["points"][-1][1])
    return (f"Latency by percentile at {len(panels)} offered rate(s); at "
            f"{last['rate']:.0f} calls/s the highest maximum is "
            f"{worst['label']}'s, {worst['points'][-1][1]:.2f} ms. Each "
            "latency runs from the call's intended send time (coordinated "
            "omission corrected), within 0.8% above the exact value.")


def percentile_figure(series, footer, title, data=None):
    data = data or percentile_data(series)
    panels = data["panels"]
    if not panels:
        raise Skip("load-percentiles: skipped, no offered rate common to "
                   "every series has a histogram")
    labels = sorted({ln["label"] for p in panels for ln in p["lines"]})
    colors = orbplot.palette(labels)
    fig, axes = plt.subplots(1, len(panels), figsize=(4 + 3.5 * len(panels),
                                                      5), dpi=orbplot.DPI,
                             sharey=True, squeeze=False)
    orbplot.put_footer(fig, footer)
    for ax, panel in zip(axes[0], panels):
        for ln in panel["lines"]:
            # A point (p, v) ends a bucket: the calls from the point
            # before up to p took v, so each step is drawn up to its
            # point ("pre"), from p = 0 at the first value. Drawn after
            # its point ("post"), the last bucket, the max, would fall
            # past the axis.
            pts = [(0.0, ln["points"][0][1])] + ln["points"]
            xs = [x_of(p) for p, _ in pts]
            ys = [max(v, 1e-6) for _, v in pts]
            ax.step(xs, ys, where="pre", color=colors[ln["label"]],
                    label=f"{ln['label']} ({ln['count']} calls)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([x_of(t) for t in orbhist.TICKS])
        ax.set_xticklabels([f"{t:g}%" for t in orbhist.TICKS], fontsize=8)
        ax.set_xlim(1, x_of(orbhist.TICKS[-1]))
        ax.set_title(f"{panel['rate']:.0f} calls/s offered", fontsize=10)
        ax.set_xlabel("percentile")
        ax.grid(True, which="major", color="0.9")
    axes[0][0].set_ylabel("latency from the intended send (ms)")
    axes[0][0].legend(fontsize=7, loc="upper left", frameon=False)
    orbplot.finish(fig, title, bottom=0.16, left=0.09, top=0.86)
    return fig


def offered_data(series):
    """{rows: [{label, bound (name, ms) or None, points: [{rate, p50, p99,
    p99.9 (ms), verdicts, count}]}], left_out}: per series, every rate it
    measured, its runs' histograms merged."""
    rows, left_out = [], []
    for label, docs in orbplot.pairs(series):
        hists, verdicts = steps_by_rate(docs)
        if not hists:
            left_out.append((label, "no step was measured"))
            continue
        points = []
        for rate in sorted(hists):
            h = orbhist.merge(hists[rate])
            pt = {"rate": rate, "count": h["count"],
                  "verdicts": verdicts[rate]}
            for key, q, _ in LINES:
                v = orbhist.percentile(h, q)
                pt[key] = None if v is None else v / 1e6
            points.append(pt)
        rows.append({"label": label, "bound": bound(docs),
                     "points": points})
    return {"rows": rows, "left_out": left_out}


def offered_caption(data):
    rows = data["rows"]
    if not rows:
        return "No configuration has a measured step."
    parts = []
    for r in rows:
        ok = [p["rate"] for p in r["points"]
              if all(v == "within" for v in p["verdicts"])]
        parts.append(f"{r['label']} within its bound up to "
                     f"{max(ok):.0f} calls/s" if ok else
                     f"{r['label']} over its bound at every rate")
    return "; ".join(parts) + "."


def offered_figure(series, footer, title, data=None):
    data = data or offered_data(series)
    rows = data["rows"]
    if not rows:
        raise Skip("load-offered: skipped, no load result has a step")
    colors = orbplot.palette([r["label"] for r in rows])
    fig, ax = plt.subplots(figsize=(10, 6), dpi=orbplot.DPI)
    orbplot.put_footer(fig, footer)
    for r in rows:
        xs = [p["rate"] for p in r["points"]]
        for key, _, style in LINES:
            ax.plot(xs, [p[key] for p in r["points"]], style, marker="o",
                    markersize=3, color=colors[r["label"]],
                    label=f"{r['label']} {key}")
        bad = [p for p in r["points"]
               if any(v != "within" for v in p["verdicts"])]
        ax.plot([p["rate"] for p in bad], [p["p99"] for p in bad], "x",
                color=colors[r["label"]], markersize=9)
    bounds = {r["bound"] for r in rows if r["bound"]}
    for name, ms in bounds:
        ax.axhline(ms, color="0.4", lw=0.8, ls="-.")
        ax.text(ax.get_xlim()[0], ms, f" bound: {name} {ms:g} ms",
                fontsize=8, va="bottom", color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("offered rate (calls/s); x: a step not within its bound")
    ax.set_ylabel("latency from the intended send (ms)")
    ax.grid(True, which="major", color="0.9")
    ax.legend(fontsize=7, ncol=2, frameon=False)
    orbplot.finish(fig, title, bottom=0.12)
    return fig


def load_figures(series, outdir, log=None):
    """Both figures of these series into outdir; [orbbench.plot.Figure]."""
    return orbplot.one_figure(
        series, outdir, log, "load-percentiles", "load-percentiles",
        "Latency by percentile at an offered load",
        percentile_data, percentile_figure, percentile_caption) + \
        orbplot.one_figure(
            series, outdir, log, "load-offered", "load-offered",
            "Latency percentiles against the offered rate",
            offered_data, offered_figure, offered_caption)
