"""A suite across versions (orbbench history): one figure per metric, the
points along x in their order, every scenario a line (each point its
runs' geometric mean, with the crossing intervals' span for crossing N,
else the runs' min–max), and the change points (a step whose verdict is
a difference) marked: the step's band shaded, the verdict and ratio at
the line's step. history_data returns exactly what a figure draws, from
orbbench.history's document."""
import orbbench.history as orbhistory
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.capacity import VERDICT_COLORS, capacity_axis
from orbbench.figures.layout import (label_width_in, new_figure,
                                     plain_log_ticks)

DIRECTION_COLORS = {"worse": VERDICT_COLORS["slower"],
                    "better": VERDICT_COLORS["faster"]}


def history_data(doc, key):
    """What the figure of metric key draws: {"key", "title", "unit",
    "labels" (the points, in order), "lines": {scenario: [cell or None
    per point]}, "changes": [change point of this metric, with "step"
    (its index: point step to step + 1)], "axis" (capacity_axis of every
    value and bound), "at_n": {scenario: the N a cost is read at, one
    for every point}, "left_out": [(scenario, why)]}."""
    mem = doc["mem_kind"]
    labels = [p["label"] for p in doc["points"]]
    unit = orbhistory.metric_unit(key, mem)
    lines, left_out = {}, []
    for name, cells in doc["series"][key].items():
        if any(cells):
            lines[name] = cells
        else:
            left_out.append((name, "no value at any point"))
    if not lines:
        left_out = []   # history_figure's skip says it once
    step_of = {(s["from"], s["to"]): i for i, s in enumerate(doc["steps"])}
    changes = [dict(c, step=step_of[(c["from"], c["to"])])
               for c in doc["change_points"] if c["metric"] == key
               and c["scenario"] in lines]
    bounds = [v for cells in lines.values() for c in cells if c
              for v in (c["value"], c["low"], c["high"])]
    # The capacity figure's choice of scale, made here for the y axis.
    axis = capacity_axis(bounds)
    axis["why"] = axis["why"].replace("x axis", "y axis")
    # Where each metric is read: the cost N (CPU per call, the caller's
    # threads), the memory's N (per server), or none (crossing N, the
    # caller's USS slope over every step).
    which = {"server_cpu_us": "cost", "client_cpu_us": "cost",
             "client_threads": "cost", "threads": "memory",
             orbhistory.metric_key("mem", mem): "memory"}.get(key)
    at_n = {name: doc["series"]["at_n"][name][which] for name in lines} \
        if which else {}
    return {"key": key, "title": orbhistory.metric_title(key, mem),
            "unit": unit, "labels": labels, "lines": lines,
            "changes": changes, "axis": axis, "at_n": at_n,
            "open_ends": open_ends(lines), "left_out": left_out}


def open_ends(lines):
    """[(scenario, point index, "high" or "low")] of every bar cut to the
    N its runs measured (orbbench.history.clip_span): drawn as an arrow
    at that end, not a cap, and named in the legend and caption."""
    return [(name, i, end) for name, cells in lines.items()
            for i, c in enumerate(cells) if c
            for end in ("low", "high") if c.get(f"open_{end}")]


def with_unit(data):
    return data["title"] + (f" ({data['unit']})" if data["unit"] else "")


def history_caption(data):
    """What the figure shows, and each change point in words."""
    text = (f"{with_unit(data)} at each point, in order "
            f"({' → '.join(data['labels'])}): every scenario a line, each "
            "point the runs' geometric mean with " +
            ("the span of the runs' crossing intervals" if
             data["key"] == "crossing_n" else "the runs' min–max") +
            f"; {data['axis']['why']}.")
    if data["open_ends"]:
        text += (" A bar that ends in an arrow was cut at the largest (or "
                 "smallest) N its runs measured: the crossing interval "
                 "recorded reaches beyond it, where nothing was measured (" +
                 ", ".join(f"{name} at {data['labels'][i]}"
                           for name, i, _ in data["open_ends"]) + ").")
    if data["at_n"]:
        text += " Read at one N per scenario for every point: " + ", ".join(
            f"{name} N={orbresults.fmt_num(n)}"
            for name, n in data["at_n"].items()) + "."
    if data["changes"]:
        text += " Change points (shaded; a verdict after the BH adjustment "\
            "over the whole table): " + "; ".join(
                f"{c['scenario']} {c['from']} → {c['to']} {c['verdict']} "
                f"×{c['ratio']:.2f}" for c in data["changes"]) + "."
    else:
        text += " No step is a change point."
    return text


def is_open(cell):
    return bool(cell.get("open_low") or cell.get("open_high"))


def history_figure(series, footer, title, data=None):
    """The points along x (labels as ticks), a line per scenario."""
    if not data["lines"]:
        raise orbplot.Skip(f"history-{data['key']}: skipped, no scenario "
                           "has a value at any point")
    labels = data["labels"]
    # The legend right of the panel: eight scenarios' lines fill it.
    legend_w = label_width_in(list(data["lines"]) + [
        "change point (worse)"] + (["interval cut at the smallest N "
                                    "measured"] if data["open_ends"] else []),
        8) + 0.5
    width = max(6.5, 1.3 * len(labels) + 3.5) + legend_w
    fig, axes = new_figure(width, 4.8, footer)
    ax = axes[0][0]
    colors = orbplot.palette(list(data["lines"]))
    xs = list(range(len(labels)))
    for c in data["changes"]:
        ax.axvspan(c["step"] + 0.1, c["step"] + 0.9, alpha=0.08, lw=0,
                   color=DIRECTION_COLORS[c["direction"]])
    # Several scenarios may change at one step: their words stacked, not
    # printed over each other.
    stacked = {}
    for name, cells in data["lines"].items():
        color = colors[name]
        pts = [(x, c) for x, c in zip(xs, cells) if c]
        ys = [c["value"] if c else float("nan") for c in cells]
        ax.plot(xs, ys, "-", color=color, lw=1.5, label=name)
        # A bar cut at the N measured has no cap (it is not a bound):
        # an arrow at that end instead, below.
        for group, caps in (([p for p in pts if not is_open(p[1])], 3),
                            ([p for p in pts if is_open(p[1])], 0)):
            if group:
                ax.errorbar([x for x, _ in group],
                            [c["value"] for _, c in group],
                            yerr=[[c["value"] - c["low"] for _, c in group],
                                  [c["high"] - c["value"]
                                   for _, c in group]],
                            fmt="o", color=color, ms=5, capsize=caps, lw=1)
        for x, c in pts:
            for end, marker in (("high", "^"), ("low", "v")):
                if c.get(f"open_{end}"):
                    ax.plot([x], [c[end]], marker=marker, color=color,
                            ms=7, ls="none")
        for ch in data["changes"]:
            if ch["scenario"] != name:
                continue
            a, b = cells[ch["step"]], cells[ch["step"] + 1]
            if not a or not b:
                continue
            ax.plot([ch["step"], ch["step"] + 1], [a["value"], b["value"]],
                    "-", color=color, lw=3.5, alpha=0.6)
            k = stacked[ch["step"]] = stacked.get(ch["step"], -1) + 1
            ax.annotate(f"{ch['verdict']} ×{ch['ratio']:.2f}",
                        (ch["step"] + 0.5, (a["value"] * b["value"]) ** 0.5
                         if data["axis"]["scale"] == "log" else
                         (a["value"] + b["value"]) / 2),
                        fontsize=8, ha="left", va="bottom", color=color,
                        xytext=(6, 4 + 11 * k), textcoords="offset points")
    axis = data["axis"]
    if axis["scale"] == "log":
        ax.set_yscale("log")
        ax.set_ylim(axis["min"], axis["max"])
        plain_log_ticks(ax.yaxis, axis["min"], axis["max"])
    else:
        ax.set_ylim(axis["min"], axis["max"])
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, fontsize=9)
    ax.set_xlim(-0.4, len(labels) - 0.6)
    ax.set_ylabel(with_unit(data))
    ax.grid(axis="y", color="0.9")
    ax.set_axisbelow(True)
    handles = ax.get_legend_handles_labels()[0]
    for end, marker, word in (("high", "^", "largest"),
                              ("low", "v", "smallest")):
        if any(e == end for _, _, e in data["open_ends"]):
            handles.append(orbplot.Line2D(
                [], [], color="0.3", marker=marker, ls="none", ms=7,
                label=f"interval cut at the {word} N measured"))
    for direction in dict.fromkeys(c["direction"] for c in data["changes"]):
        handles.append(orbplot.Patch(color=DIRECTION_COLORS[direction],
                                     alpha=0.25,
                                     label=f"change point ({direction})"))
    ax.legend(handles=handles, fontsize=8, frameon=False, loc="upper left",
              bbox_to_anchor=(1.01, 1), borderaxespad=0)
    orbplot.finish(fig, title, left=0.8 / width,
                   right=1 - (legend_w + 0.1) / width, top=0.9, bottom=0.17)
    return fig


def history_figures(doc, points, outdir, log=None):
    """One figure per metric of the history document doc (orbbench.history)
    into outdir, history-KEY.png and .svg; points ([(label, [doc])]) give
    the footer. [orbbench.plot.Figure]; a metric no scenario has is
    skipped, log(message) says so."""
    figures = []
    mem = doc["mem_kind"]
    for key in orbhistory.metric_keys(mem, doc.get("client")):
        stem = f"history-{orbplot.slug(key, 'metric')}"
        figures += orbplot.one_figure(
            points, outdir, log, stem, stem,
            f"{orbhistory.metric_title(key, mem)} across "
            f"{len(doc['points'])} points",
            lambda _, key=key: history_data(doc, key), history_figure,
            history_caption)
    return figures

