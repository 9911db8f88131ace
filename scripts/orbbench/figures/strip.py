"""Every round of every step of a set of runs, one strip figure per
series; strip_data returns exactly the points drawn."""
import numpy as np

import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.layout import figure, margins, plain_log
from orbbench.plot import Skip

plt = orbplot.plt


NO_ROUNDS = ("these results keep no per-round times (rounds_ms: older "
             "results have only each step's summary)")


class NoRounds(Skip):
    """A series none of whose runs kept rounds_ms: the run_figures log
    names all such series in one line."""

    def __init__(self, label):
        super().__init__(f"rounds {label}: skipped, {NO_ROUNDS}")
        self.label = label


# ---- 3. every round of every step ------------------------------------------

# Colours of the runs in one strip figure: not tab10, so that nobody reads
# a run's colour as a scenario's. With both sides of paired runs, side A's
# runs are blues and side B's oranges: A against B is the question there.
RUN_COLORS = plt.get_cmap("Dark2").colors
SIDE_COLORS = {"a": ("#08519c", "#4292c6", "#9ecae1", "#2171b5"),
               "b": ("#a63603", "#f16913", "#fdae6b", "#d94801")}


def run_label(doc, i, docs):
    """(label, side, k): ('run 1', None, 1), or with both sides of paired
    runs among docs ('A run 1', 'a', 1) and ('B run 1
    (server.work_us=6)', 'b', 1); k counts the runs of that side."""
    sides = {orbresults.get(d, "paired.side") for d in docs}
    side = orbresults.get(doc, "paired.side")
    if len(sides) > 1 and side in SIDE_COLORS:
        same = [d for d in docs if orbresults.get(d, "paired.side") == side]
        k = next(j for j, d in enumerate(same, 1) if d is doc)
        text = f"{side.upper()} run {k}"
        versus = orbresults.get(doc, "paired.versus")
        if side == "b" and versus:
            text += f" ({', '.join(versus)})"
        return text, side, k
    return f"run {i}", None, i


def strip_data(series_item):
    """Every timed round of every step and probe of a series' runs: {label,
    runs: [{label, side, k, points: [(n, ms, phase)], medians: [(n, median
    ms of each timed sweep step)]}], max_ms: [...], log_x, lacking: [run
    labels without rounds_ms]}; phase is the step's or probe's (sweep,
    confirm, bracket, bisect). Skip when no run has any round time."""
    label, docs = orbplot.pairs([series_item])[0]
    runs, lacking, used = [], [], []
    for i, d in enumerate(docs, 1):
        name, side, k = run_label(d, i, docs)
        meas = [(s, s.get("phase", "sweep")) for s in d["steps"]] + \
            [(p, p.get("phase", "probe")) for p in d.get("probes") or []]
        if not any(isinstance(s.get("rounds_ms"), list) for s, _ in meas):
            lacking.append(name)
            continue
        points = [(s["n"], ms, phase) for s, phase in meas
                  for ms in s.get("rounds_ms") or []]
        medians = [(s["n"], s["round_ms"]["median"]) for s in d["steps"]
                   if orbresults.timed(s)]
        runs.append({"label": name, "side": side, "k": k,
                     "points": points, "medians": medians})
        used.append(d)
    if not runs:
        raise NoRounds(label)
    if not any(r["points"] for r in runs):
        raise Skip(f"rounds {label}: skipped, no timed rounds "
                   "(client.connect false)")
    ns = [p[0] for r in runs for p in r["points"]]
    log_x = any(orbresults.setting(d, "growth", 1) > 1
                for d in used) and orbplot.spans_decades(ns, 10)
    return {"label": label, "runs": runs, "lacking": lacking, "log_x": log_x,
            "max_ms": sorted({orbresults.setting(d, "max_ms")
                              for d in used})}


def jitter(ns, log_x, seed=0):
    """x positions near each N so that the rounds of one step do not sit on
    one line: ±3% of N on a log axis (the Grisby grid is 10% apart), else
    ±30% of the smallest gap between two N."""
    rng = np.random.default_rng(seed)
    ns = np.asarray(ns, dtype=float)
    u = rng.uniform(-1, 1, len(ns))
    if log_x:
        return ns * np.exp(0.03 * u)
    distinct = np.unique(ns)
    gap = np.min(np.diff(distinct)) if len(distinct) > 1 else \
        max(distinct[0] * 0.1, 1) if len(distinct) else 1
    return ns + 0.3 * gap * u


def run_color(run, k):
    """A run's colour: by side and its number there, else by order."""
    if run.get("side") in SIDE_COLORS:
        shades = SIDE_COLORS[run["side"]]
        return shades[(run["k"] - 1) % len(shades)]
    return RUN_COLORS[k % len(RUN_COLORS)]


def strip_caption(data):
    pts = sum(len(r["points"]) for r in data["runs"])
    probes = sum(1 for r in data["runs"] for p in r["points"]
                 if p[2] != "sweep")
    return (f"Each of the {pts} timed rounds of {data['label']} (one call "
            f"to every server; {probes} of them in the crossing search's "
            "probes, ×) drawn at its N with a little jitter, runs in their "
            "own colours and each step's median as a line, so the spread "
            "within a step and the drift between runs show beside the "
            "max_ms threshold.")


def strip_figure(series_item, footer, title, data=None):
    """Every round's time against N: small dots (sweep steps) and crosses
    (probes), a colour per run, each run's step medians as a line, the
    max_ms line."""
    data = data or strip_data(series_item)
    fig = figure(10, 6.2, footer)
    ax = fig.add_subplot(1, 1, 1)
    ys = []
    for k, run in enumerate(data["runs"]):
        color = run_color(run, k)
        pts = run["points"]
        if not pts:
            continue
        ns, ms, phases = map(np.asarray, zip(*pts))
        xs = jitter(ns, data["log_x"], seed=k)
        sweep = phases == "sweep"
        ax.scatter(xs[sweep], ms[sweep], s=5, color=color, alpha=0.45,
                   linewidths=0, label=run["label"])
        if (~sweep).any():
            ax.scatter(xs[~sweep], ms[~sweep], s=14, color=color,
                       alpha=0.7, marker="x", linewidths=0.8)
        if run["medians"]:
            ax.plot(*zip(*run["medians"]), "-", color=color, linewidth=1.2,
                    alpha=0.9)
        ys += list(ms)
    for ms in data["max_ms"]:
        ax.axhline(ms, color="crimson", linestyle="--", linewidth=1)
    if orbplot.spans_decades(ys + data["max_ms"]):
        ax.set_yscale("log")
        plain_log(ax.yaxis)
    if data["log_x"]:
        ax.set_xscale("log")
        plain_log(ax.xaxis)
    else:
        ax.xaxis.set_major_locator(orbplot.MaxNLocator(integer=True))
    handles, _ = ax.get_legend_handles_labels()
    for h in handles:
        h.set_sizes([20])
        h.set_alpha(0.9)
    handles += [
        orbplot.Line2D([], [], color="0.3", marker="o", markersize=3,
                 linestyle="", label="round of a sweep step"),
        orbplot.Line2D([], [], color="0.3", marker="x", markersize=5,
                 linestyle="", label="round of a crossing-search probe"),
        orbplot.Line2D([], [], color="0.3", linewidth=1.2,
                 label="median of each sweep step"),
        orbplot.Line2D([], [], color="crimson", linestyle="--",
                 label=" / ".join(f"max_ms {orbresults.fmt_num(m)}"
                                  for m in data["max_ms"]))]
    ax.legend(handles=handles, fontsize=8, loc="best")
    ax.set_xlabel("servers (N)" + (", log scale" if data["log_x"] else ""))
    ax.set_ylabel("round time (ms), every timed round")
    ax.grid(True, which="both", alpha=0.25)
    orbplot.suptitle(fig, title)
    margins(fig, left=0.8, right=0.25, top=0.55, bottom=0.8)
    return fig
