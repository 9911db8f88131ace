"""The upcall-rate figure (scenario kind "rate", issue 12): per
configuration the CPU time per upcall as one horizontal stacked bar
(client user, client kernel, server user, server kernel) with the rate in
the row label, and beside it the rates themselves (median and min–max of
the repeats).

Why stacked bars and not the seed's pies: a pie shows only shares, so two
configurations whose totals differ threefold look alike; bars on one µs
axis show the total and its split at once, and the rows line up for
comparison. rate_data returns exactly the numbers drawn.

A *series* is (label, [result documents]): one scenario (split by ORB and
settings as orbbench.plot.series_of does); its documents are its runs."""
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.results import is_num
from orbbench.plot import Skip

plt = orbplot.plt

# The four parts of a bar, left to right: (key in cpu_per_upcall_us,
# legend, colour). Client in blues, server in oranges; user dark, kernel
# light.
CPU_PARTS = (
    ("client_user", "client user", "#2b6a99"),
    ("client_sys", "client kernel", "#9ecae1"),
    ("server_user", "server user", "#d95f02"),
    ("server_sys", "server kernel", "#fdbe85"),
)


def rate_data(series):
    """One row per series that has repeats: {label, runs, repeats,
    rate_median, rate_min, rate_max (upcalls/s over every repeat of every
    run), cpu {part: median µs per upcall over the repeats, None when no
    repeat has it}, cpu_total, kernel_share (of cpu_total), ctx {client,
    server}: median context switches per upcall}; and left_out [(label,
    why)]. With one run the medians are the run's own `rate` summary."""
    rows, left_out = [], []
    for label, docs in orbplot.pairs(series):
        reps = [rep for d in docs for rep in d.get("repeats") or []]
        rates = [rep["upcalls_per_s"] for rep in reps
                 if is_num(rep.get("upcalls_per_s"))]
        if not rates:
            left_out.append((label, "no repeat was measured"))
            continue
        cpu = {}
        for key, _, _ in CPU_PARTS:
            cpu[key] = orbresults.median(
                orbresults.get(rep, f"cpu_per_upcall_us.{key}") for rep in reps
                if is_num(orbresults.get(rep, f"cpu_per_upcall_us.{key}")))
        parts = [v for v in cpu.values() if v is not None]
        total = sum(parts) if parts else None
        kernel = sum(cpu[k] or 0 for k in ("client_sys", "server_sys"))
        ctx = {side: orbresults.median(
            orbresults.get(rep, f"ctx_switches_per_upcall.{side}")
            for rep in reps
            if is_num(orbresults.get(rep, f"ctx_switches_per_upcall.{side}")))
            for side in ("client", "server")}
        rows.append({"label": label, "runs": len(docs),
                     "repeats": len(rates),
                     "rate_median": orbresults.median(rates),
                     "rate_min": min(rates), "rate_max": max(rates),
                     "cpu": cpu, "cpu_total": total,
                     "kernel_share": kernel / total if total else None,
                     "ctx": ctx,
                     "oneway": any(orbresults.get(d, "scenario.rate.oneway")
                                   for d in docs)})
    return {"rows": rows, "left_out": left_out}


def khz(x):
    return f"{x / 1e3:.1f}"


def row_label(row):
    """'name\\n80.5 kHz (78.3–82.7)'."""
    return (f"{row['label']}\n{khz(row['rate_median'])} kHz "
            f"({khz(row['rate_min'])}–{khz(row['rate_max'])})")


def rate_caption(data):
    """The conclusion in numbers: fastest and slowest configuration, the
    range of CPU per upcall and of its kernel share."""
    rows = data["rows"]
    if not rows:
        return "No configuration has a measured repeat."
    hi = max(rows, key=lambda r: r["rate_median"])
    lo = min(rows, key=lambda r: r["rate_median"])
    text = (f"Highest upcall rate: {hi['label']}, {khz(hi['rate_median'])} "
            f"kHz (median of {hi['repeats']} repeats)")
    if hi is not lo:
        text += (f", {hi['rate_median'] / lo['rate_median']:.1f}× the "
                 f"lowest, {lo['label']} at {khz(lo['rate_median'])} kHz")
    text += "."
    costed = [r for r in rows if r["cpu_total"]]
    if costed:
        cheap = min(costed, key=lambda r: r["cpu_total"])
        dear = max(costed, key=lambda r: r["cpu_total"])
        ks = [r["kernel_share"] for r in costed
              if r["kernel_share"] is not None]
        text += (f" CPU per upcall, client and server together: "
                 f"{cheap['cpu_total']:.1f} µs ({cheap['label']}) to "
                 f"{dear['cpu_total']:.1f} µs ({dear['label']}); the "
                 f"kernel's share {100 * min(ks):.0f}–{100 * max(ks):.0f}%.")
    text += (" User/kernel split by the kernel's tick sampling: read it to "
             "a few percent of the bar.")
    return text


def rate_figure(series, footer, title, data=None):
    """The two panels: CPU per upcall (stacked), and the rates."""
    data = data or rate_data(series)
    rows = data["rows"]
    if not rows:
        raise Skip("rate: skipped, no rate result has a measured repeat")
    n = len(rows)
    height = 1.6 + 0.55 * n
    fig = plt.figure(figsize=(12, height), dpi=orbplot.DPI)
    orbplot.put_footer(fig, footer)
    left_in = 3.1
    fig.subplots_adjust(left=left_in / 12, right=0.98, top=1 - 0.9 / height,
                        bottom=0.75 / height, wspace=0.08)
    gs = fig.add_gridspec(1, 2, width_ratios=[3, 2])
    ax = fig.add_subplot(gs[0, 0])
    axr = fig.add_subplot(gs[0, 1], sharey=ax)
    ys = list(range(n))[::-1]  # the first row on top
    for key, name, color in CPU_PARTS:
        left = [sum(r["cpu"][k] or 0 for k, _, _ in
                    CPU_PARTS[:[p[0] for p in CPU_PARTS].index(key)])
                for r in rows]
        widths = [r["cpu"][key] or 0 for r in rows]
        ax.barh(ys, widths, left=left, color=color, height=0.6, label=name,
                edgecolor="white", linewidth=0.5)
    for y, r in zip(ys, rows):
        if r["cpu_total"]:
            ax.text(r["cpu_total"], y, f" {r['cpu_total']:.1f}",
                    va="center", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([row_label(r) for r in rows], fontsize=9)
    ax.set_xlabel("CPU time per upcall (µs), medians of the repeats")
    ax.set_xlim(0, max((r["cpu_total"] or 0) for r in rows) * 1.15 or 1)
    ax.legend(loc="lower right", fontsize=8, ncol=2, frameon=False,
              bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="x", color="0.9")
    ax.set_axisbelow(True)
    med = [r["rate_median"] / 1e3 for r in rows]
    err = [[m - r["rate_min"] / 1e3 for m, r in zip(med, rows)],
           [r["rate_max"] / 1e3 - m for m, r in zip(med, rows)]]
    axr.barh(ys, med, xerr=err, color="0.55", height=0.6,
             error_kw=dict(ecolor="black", capsize=3, lw=1))
    axr.set_xlabel("upcalls per second (kHz): median, min–max of repeats")
    axr.tick_params(labelleft=False)
    axr.grid(axis="x", color="0.9")
    axr.set_axisbelow(True)
    orbplot.suptitle(fig, title)
    return fig


def rate_table(series):
    """(head, rows) of the report's rate table, from rate_data."""
    data = rate_data(series)
    head = ["configuration", "runs", "upcalls/s (median)", "min–max",
            "client user µs", "client kernel µs", "server user µs",
            "server kernel µs", "ctx sw./upcall (client, server)"]

    def f(x, d=2):
        return "—" if x is None else f"{x:.{d}f}"

    rows = [[r["label"], str(r["runs"]), f"{r['rate_median']:.0f}",
             f"{r['rate_min']:.0f}–{r['rate_max']:.0f}",
             *(f(r["cpu"][k]) for k, _, _ in CPU_PARTS),
             f"{f(r['ctx']['client'])}, {f(r['ctx']['server'])}"]
            for r in data["rows"]]
    return head, rows


def rate_figures(series, outdir, log=None):
    """The rate figure of these series into outdir; [orbbench.plot.Figure]."""
    return orbplot.one_figure(
        series, outdir, log, "rate", "rate",
        "Upcall rate: CPU per upcall (user, kernel) and upcalls/s",
        rate_data, rate_figure, rate_caption)
