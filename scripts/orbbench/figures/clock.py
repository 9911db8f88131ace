"""The clock figure (scenario kind "clock", issue 14), after the RTEMS
timekeeping study (#2271): one panel per time source, a box plot of the
calls per second each thread (each pinned to its own CPU) made, for each
number of threads k, and on a second y axis the sum over the threads
(median of the repeats, min–max as error bars). A source that scales
keeps its boxes level and its sum growing with k; one that serializes
(a shared lock, a trap to the hypervisor) shows boxes falling as k grows.

clock_data returns exactly the numbers drawn. A *series* is (label,
[result documents]): one scenario's runs on one host."""
import orbbench.escape as orbesc
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.plot import Skip

plt = orbplot.plt


def clock_data(docs):
    """Per source, in the order first met: {name, reads_hardware, call,
    skipped (why, or None), ks: [{k, per_core (calls/s of every thread
    of every repeat of every run), sums (each repeat's summed calls/s),
    per_core_median, sum_median, sum_min, sum_max}]}; and the clock
    sources the kernel used ({names})."""
    out, by = [], {}
    clocksources = set()
    for d in docs:
        cs = orbresults.get(d, "clock.clocksource")
        if cs:
            clocksources.add(cs)
        for s in d.get("sources") or []:
            src = by.get(s["name"])
            if src is None:
                src = {"name": s["name"], "call": s.get("call"),
                       "reads_hardware": s.get("reads_hardware"),
                       "skipped": s.get("skipped"), "ks": {}}
                by[s["name"]] = src
                out.append(src)
            for kj in s.get("ks") or []:
                row = src["ks"].setdefault(kj["k"], {"k": kj["k"],
                                                     "per_core": [],
                                                     "sums": []})
                for rep in kj.get("repeats") or []:
                    row["per_core"] += [t["calls_per_s"]
                                        for t in rep["threads"]]
                    row["sums"].append(rep["sum_calls_per_s"])
    for src in out:
        rows = [src["ks"][k] for k in sorted(src["ks"])
                if src["ks"][k]["sums"]]
        for row in rows:
            row["per_core_median"] = orbresults.median(row["per_core"])
            row["sum_median"] = orbresults.median(row["sums"])
            row["sum_min"] = min(row["sums"])
            row["sum_max"] = max(row["sums"])
        src["ks"] = rows
    return {"sources": out, "clocksources": sorted(clocksources)}


def mhz(x):
    return f"{x / 1e6:.1f}"


def clock_caption(data):
    """Per source the summed calls/s at the smallest and largest k and
    their ratio."""
    parts = []
    for s in data["sources"]:
        ks = s["ks"]
        if not ks:
            continue
        lo, hi = ks[0], ks[-1]
        text = (f"{s['name']} {mhz(lo['sum_median'])} M/s at k={lo['k']}")
        if hi is not lo:
            text += (f", {mhz(hi['sum_median'])} M/s at k={hi['k']} "
                     f"(×{hi['sum_median'] / lo['sum_median']:.2f})")
        parts.append(text)
    skipped = [f"{s['name']} ({s['skipped']})" for s in data["sources"]
               if s["skipped"]]
    text = ("Calls per second summed over the threads (median of the "
            "repeats): " + "; ".join(parts) + ".")
    if data["clocksources"]:
        text += f" Kernel clock source: {', '.join(data['clocksources'])}."
    if skipped:
        text += " Not measured: " + "; ".join(skipped) + "."
    return text


def clock_figure(data, footer, title):
    """One panel per measured source: boxes of per-core calls/s for each
    k (left axis), the sum's median with min–max (right axis)."""
    srcs = [s for s in data["sources"] if s["ks"]]
    if not srcs:
        raise Skip("clock: skipped, no source has a measured repeat")
    ncol = min(4, len(srcs))
    nrow = (len(srcs) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.6 * nrow),
                             dpi=orbplot.DPI, squeeze=False)
    orbplot.put_footer(fig, footer)
    for ax in axes.flat[len(srcs):]:
        ax.set_visible(False)
    for ax, s in zip(axes.flat, srcs):
        ks = [row["k"] for row in s["ks"]]
        ax.boxplot([[v / 1e6 for v in row["per_core"]] for row in s["ks"]],
                   positions=ks, widths=0.5, showfliers=True)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("threads k (each on its own CPU)")
        ax.set_ylabel("per-core calls/s (M)", fontsize=9)
        hw = "reads the clock" if s["reads_hardware"] else \
            "reads no hardware"
        ax.set_title(orbesc.figure_text(f"{s['name']} ({hw})"), fontsize=10)
        ax.grid(axis="y", color="0.9")
        ax2 = ax.twinx()
        med = [row["sum_median"] / 1e6 for row in s["ks"]]
        err = [[m - row["sum_min"] / 1e6 for m, row in zip(med, s["ks"])],
               [row["sum_max"] / 1e6 - m for m, row in zip(med, s["ks"])]]
        ax2.errorbar(ks, med, yerr=err, color="tab:red", marker="o",
                     capsize=3, lw=1.2, label="sum over threads")
        ax2.set_ylim(bottom=0, top=max(row["sum_max"] for row in s["ks"])
                     / 1e6 * 1.15)
        ax2.set_ylabel("sum calls/s (M)", color="tab:red", fontsize=9)
        ax2.tick_params(axis="y", colors="tab:red")
        ax.set_xlim(min(ks) - 0.6, max(ks) + 0.6)
    orbplot.finish(fig, title, left=0.06, right=0.94, top=0.9, bottom=0.14,
             hspace=0.5, wspace=0.45)
    return fig


def clock_figures(series, outdir, log=None):
    """The clock figure of each series (one per scenario) into outdir;
    [orbbench.plot.Figure]."""
    log = log or (lambda m: None)
    series = orbplot.pairs(series)
    figures = []
    for label, docs in series:
        data = clock_data(docs)
        for s in data["sources"]:
            if s["skipped"]:
                log(f"clock: {label}: {s['name']} not measured "
                    f"({s['skipped']})")
        footer = orbresults.footer([orbresults.Result(None, d) for d in docs])
        title = (f"Time-source calls per second by threads: {label}")
        stem = "clock" if len(series) == 1 else f"clock-{label}"
        fig = orbplot.attempt(stem, lambda: clock_figure(data, footer,
                                                         title), log)
        if fig is None:
            continue
        figures.append(orbplot.save(fig, outdir, stem, title,
                              clock_caption(data)))
    return figures
