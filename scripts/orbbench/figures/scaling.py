"""The ORB across cores (scenario kind "scaling", issue 14): per server
kind and placement, a box plot of the per-pair calls per second at each
k (every pair of every repeat of every run is one sample), and the sum
over the pairs (median of the repeats, min–max as a bar) on a second y
axis — after the box plots of requests per core in RTEMS ticket #2271.

scaling_data returns exactly the numbers drawn. A *series* is (label,
[result documents]): one scenario split by ORB and settings
(orbbench.plot.series_of)."""
import orbbench.escape as orbesc
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.plot import Skip

plt = orbplot.plt


def scaling_data(series):
    """One panel per series that has repeats: {label, kind (server
    kind), placement, transport, runs, ks [k...], per_pair {k: [calls/s of
    every pair of every repeat]}, sums {k: [sum_calls_per_s of every
    repeat]}, sum_median {k}, pair_median {k}, ratio (median sum at the
    largest k over that at the smallest)}; and left_out [(label, why)]."""
    panels, left_out = [], []
    for label, docs in orbplot.pairs(series):
        reps = [rep for d in docs for rep in d.get("repeats") or []]
        if not reps:
            left_out.append((label, "no repeat was measured"))
            continue
        ks = sorted({rep["k"] for rep in reps})
        per_pair = {k: [p["calls_per_s"] for rep in reps if rep["k"] == k
                        for p in rep["pairs"]] for k in ks}
        sums = {k: [rep["sum_calls_per_s"] for rep in reps
                    if rep["k"] == k] for k in ks}
        sum_median = {k: orbresults.median(v) for k, v in sums.items()}
        first, last = sum_median[ks[0]], sum_median[ks[-1]]
        d0 = docs[0]
        panels.append({
            "label": label,
            "kind": orbresults.get(d0, "scenario.server.kind"),
            "placement": orbresults.get(d0, "scaling.placement"),
            "transport": orbresults.get(d0, "scenario.transport"),
            "runs": len(docs), "ks": ks, "per_pair": per_pair,
            "sums": sums, "sum_median": sum_median,
            "pair_median": {k: orbresults.median(v)
                            for k, v in per_pair.items()},
            "ratio": last / first if first else None})
    return {"panels": panels, "left_out": left_out}


def khz(x):
    return f"{x / 1e3:.1f}"


def scaling_caption(data):
    """Per panel: the summed rate at the smallest and largest k, their
    ratio, and the per-pair median at both."""
    parts = []
    for p in data["panels"]:
        k0, k1 = p["ks"][0], p["ks"][-1]
        text = (f"{p['label']} ({p['placement']}): k={k0} "
                f"{khz(p['sum_median'][k0])} kHz")
        if k1 != k0:
            text += (f", k={k1} {khz(p['sum_median'][k1])} kHz summed "
                     f"({khz(p['pair_median'][k1])} kHz a pair), "
                     f"{p['ratio']:.2f}× the k={k0} sum")
        parts.append(text)
    return ("Calls per second across cores, medians of the repeats. "
            + "; ".join(parts) + ". A pair's count is its own client "
            "thread's calls over its own time; the sum adds the pairs of "
            "one repeat.")


def scaling_figure(series, footer, title, data=None):
    """One panel per series: boxes of per-pair calls/s (left axis), the
    sum on a second axis (right)."""
    data = data or scaling_data(series)
    panels = data["panels"]
    if not panels:
        raise Skip("scaling: skipped, no scaling result has a measured "
                   "repeat")
    n = len(panels)
    cols = min(n, 2)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 3.8 * rows),
                             dpi=orbplot.DPI, squeeze=False)
    orbplot.put_footer(fig, footer)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax, p in zip(axes.flat, panels):
        ks = p["ks"]
        ax.boxplot([[v / 1e3 for v in p["per_pair"][k]] for k in ks],
                   positions=ks, widths=0.35, showfliers=True)
        ax.set_xlabel("k pairs")
        ax.set_ylabel("calls/s a pair (kHz)")
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", color="0.9")
        ax.set_axisbelow(True)
        ax2 = ax.twinx()
        med = [p["sum_median"][k] / 1e3 for k in ks]
        lo = [m - min(p["sums"][k]) / 1e3 for m, k in zip(med, ks)]
        hi = [max(p["sums"][k]) / 1e3 - m for m, k in zip(med, ks)]
        ax2.errorbar(ks, med, yerr=[lo, hi], color="#2b6a99", marker="o",
                     capsize=3, lw=1.5, label="sum of the pairs")
        ax2.set_ylabel("sum over pairs (kHz)", color="#2b6a99")
        ax2.tick_params(axis="y", colors="#2b6a99")
        ax2.set_ylim(bottom=0, top=max(max(p["sums"][k]) for k in ks)
                     / 1e3 * 1.15)
        ax.set_xlim(ks[0] - 0.6, ks[-1] + 0.6)
        ax.set_xticks(ks)
        ax.set_title(f"{orbesc.figure_text(p['label'])}\n{p['kind']} over {p['transport']}, "
                     f"placement {p['placement']}", fontsize=10)
        ax2.legend(loc="lower right", fontsize=8, frameon=False)
    orbplot.suptitle(fig, title)
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    return fig


def scaling_table(series):
    """(head, rows) of the report's scaling table, from scaling_data."""
    data = scaling_data(series)
    head = ["configuration", "placement", "k", "calls/s a pair (median)",
            "calls/s summed (median)", "min–max of the sum",
            "sum / sum at first k"]
    rows = []
    for p in data["panels"]:
        first = p["sum_median"][p["ks"][0]]
        for k in p["ks"]:
            rows.append([p["label"], str(p["placement"]), str(k),
                         f"{p['pair_median'][k]:.0f}",
                         f"{p['sum_median'][k]:.0f}",
                         f"{min(p['sums'][k]):.0f}–"
                         f"{max(p['sums'][k]):.0f}",
                         f"{p['sum_median'][k] / first:.2f}"
                         if first else "—"])
    return head, rows


def scaling_figures(series, outdir, log=None):
    """The scaling figure of these series into outdir;
    [orbbench.plot.Figure]."""
    return orbplot.one_figure(
        series, outdir, log, "scaling", "scaling",
        "The ORB across cores: calls/s per pair (boxes) and summed",
        scaling_data, scaling_figure, scaling_caption)
