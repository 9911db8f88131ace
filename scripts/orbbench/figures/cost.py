"""What a server costs (issue 10): memory by part at one N, and CPU per
call, per scenario of a set of runs, a bar each. cost_data returns exactly
the numbers drawn, so the tests check numbers, not pixels.

A *series* is (label, [result documents]) or orbbench.plot.Series, as in
orbbench.figures.run."""
import textwrap

import numpy as np

import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.layout import (figure, fmt, label_width_in, margins, med,
                                     spread, with_cpu_panel)
from orbbench.plot import Skip
from orbbench.results import is_num

plt = orbplot.plt


# Memory per server, left to right in the cost bar: (key, legend, colour).
# The process's own memory in purples, the kernel's in teals: neither is
# a side's colour (blue, orange), which label the rows of a comparison.
COST_PARTS = (
    ("uss", "private (USS)", "#54278f"),
    ("shared", "share of shared pages (PSS − USS)", "#bcbddc"),
    ("kernel_stack", "kernel stacks", "#01665e"),
    ("page_tables", "page tables", "#5ab4ac"),
    ("slab", "slab (socket buffers, other kernel objects)", "#c7eae5"),
)
# machine.delta key of each kernel part.
KERNEL_DELTA = {"kernel_stack": "kernel_stack_kb",
                "page_tables": "page_tables_kb", "slab": "slab_kb"}
CPU_PARTS = (("cpu_user", "user", "#2ca02c"),
             ("cpu_sys", "kernel (sys)", "#98df8a"))
# MemAvailable is read as settled when two readings 200 ms apart are within
# 2 MiB (docs/results.md, baseline): the drop is known to about that much.
MEM_AVAILABLE_NOISE_KB = 2048
# A series with fewer servers than this: the ORB's library pages count as
# the servers' own (nobody else maps them), so USS is large.
FEW_SERVERS = 10


# ---- 1. what a server costs ----------------------------------------------

def has_footprint(step):
    return orbresults.mem_per_server_kb(step, "pss") is not None and \
        orbresults.mem_per_server_kb(step, "uss") is not None


def cost_n(docs):
    """The largest N at which every run has a step with a footprint, or
    None."""
    sets = [{s["n"] for s in d["steps"] if has_footprint(s)} for d in docs]
    common = set.intersection(*sets) if sets else set()
    return max(common) if common else None


def servers_on_machine(step):
    """Servers on the machine at a step: machine.servers_on_machine (both
    sides of a paired run), else the step's n."""
    v = orbresults.get(step, "machine.servers_on_machine")
    return v if is_num(v) and v > 0 else step["n"]


def run_cost(step):
    """One run's cost per server at a step (KiB, µs): the parts of the
    cost bar, the MemAvailable drop, the servers' CPU per call."""
    servers = servers_on_machine(step)
    uss = orbresults.mem_per_server_kb(step, "uss")
    pss = orbresults.mem_per_server_kb(step, "pss")
    out = {"n": step["n"], "servers_on_machine": servers, "uss": uss,
           "pss": pss, "shared": pss - uss}
    delta = orbresults.get(step, "machine.delta") or {}
    for part, key in KERNEL_DELTA.items():
        v = delta.get(key)
        out[part] = v / servers if is_num(v) else None
    v = delta.get("mem_available_kb")
    # The drop is -delta; results without delta have the per-server
    # figure only (older ones divided by n).
    out["mem_available"] = -v / servers if is_num(v) else \
        orbresults.mem_per_server_kb(step, "mem_available")
    cpu = step.get("cpu_per_call_us") if orbresults.timed(step) else None
    cpu = cpu if isinstance(cpu, dict) else {}
    for key, field in (("cpu_user", "server_user"), ("cpu_sys", "server_sys"),
                       ("cpu_server", "server")):
        out[key] = cpu.get(field) if is_num(cpu.get(field)) else None
    return out


def cost_data(series, n=None):
    """Per series, at a common N (the largest N at which every run has a
    step with a footprint, or n): medians over runs of the memory per
    server by part, in KiB — uss, shared (median PSS − median USS, so that
    the bar ends at the median PSS), kernel_stack, page_tables, slab
    (machine.delta ÷ servers on the machine) — their sum as drawn
    `accounted` (a kernel part below 0 counts 0), the MemAvailable drop
    per server (`mem_available`, and `mem_available_runs` one per run),
    and the servers' CPU per call in µs (cpu_server, the median, split
    into cpu_user and cpu_sys by the median user share; None when not
    recorded, cpu_note says why). `flags` name what the figure must note.
    n may be a dict {label: N} (a comparison puts both sides of a scenario
    at one N). Returns {"rows": [...], "left_out": [(label, why)]}: series
    without a footprint, or without a step at n, are left out."""
    rows, left_out = [], []
    for label, docs in orbplot.pairs(series):
        want = n.get(label) if isinstance(n, dict) else n
        if want is None:
            at = cost_n(docs)
            if at is None:
                why = ("no step with a footprint (PSS, USS)" if not any(
                    has_footprint(s) for d in docs for s in d["steps"])
                    else "its runs share no N with a footprint")
                left_out.append((label, why))
                continue
            use = docs
        else:
            at = want
            use = [d for d in docs if any(
                s["n"] == at and has_footprint(s) for s in d["steps"])]
            if not use:
                left_out.append((label, f"no step with a footprint at "
                                        f"N={at}"))
                continue
        runs = [run_cost(next(s for s in d["steps"]
                              if s["n"] == at and has_footprint(s)))
                for d in use]
        row = {"label": label, "n": at, "runs": len(runs),
               "servers_on_machine": med(r["servers_on_machine"]
                                          for r in runs)}
        for key in ("uss", "pss", "kernel_stack", "page_tables", "slab",
                    "mem_available", "cpu_server"):
            row[key] = med(r[key] for r in runs)
        # The bar ends at the median PSS, as its label says.
        row["shared"] = row["pss"] - row["uss"]
        # Drawn: a kernel part that went down (noise) counts as 0.
        row["accounted"] = row["pss"] + sum(max(row[k] or 0, 0)
                                            for k in KERNEL_DELTA)
        # The CPU bar is the median total, split by the median user share
        # (medians of user and of sys need not add up to it).
        shares = [r["cpu_user"] / r["cpu_server"] for r in runs
                  if is_num(r["cpu_user"]) and r["cpu_server"]]
        row["cpu_user"] = row["cpu_server"] * med(shares) \
            if shares and row["cpu_server"] is not None else None
        row["cpu_sys"] = row["cpu_server"] - row["cpu_user"] \
            if row["cpu_user"] is not None else None
        row["mem_available_runs"] = [r["mem_available"] for r in runs
                                     if r["mem_available"] is not None]
        timed = any(orbresults.timed(s) for d in use for s in d["steps"]
                    if s["n"] == at)
        row["cpu_note"] = None if row["cpu_server"] is not None else (
            "no calls (client.connect false)" if not timed
            else "not recorded")
        row["flags"] = cost_flags(row)
        rows.append(row)
    return {"rows": rows, "left_out": left_out}


def cost_flags(row):
    """What the cost figure must say about a row: the MemAvailable drop is
    not positive, or small against its noise, or differs between runs; a
    kernel part went down (drawn as 0); few servers."""
    flags = set()
    avail, runs = row["mem_available"], row["mem_available_runs"]
    if avail is None:
        flags.add("no_mem_available")
    else:
        if avail <= 0 or any(v <= 0 for v in runs):
            flags.add("drop_not_positive")
        elif MEM_AVAILABLE_NOISE_KB / row["servers_on_machine"] > \
                0.1 * avail:
            flags.add("drop_noisy")
        if len(runs) > 1 and max(runs) - min(runs) > 0.2 * abs(avail):
            flags.add("runs_differ")
    for key in KERNEL_DELTA:
        if row[key] is not None and row[key] < 0:
            flags.add(f"negative_{key}")
    if row["n"] < FEW_SERVERS:
        flags.add("few_servers")
    return flags


def cost_notes(rows):
    """The notes under the cost figure, one line each, naming the rows."""
    def who(flag):
        return [r for r in rows if flag in r["flags"]]

    def names(rs):
        return ", ".join(f"{r['label']} (N={r['n']})" for r in rs)
    notes = []
    rs = who("drop_not_positive")
    if rs:
        notes.append(f"MemAvailable did not drop in some run of "
                     f"{names(rs)}: the drop is below the noise there, "
                     "drawn as measured.")
    rs = who("drop_noisy")
    if rs:
        notes.append(f"MemAvailable is known to about 2 MiB (its baseline "
                     f"counts as settled within that): per server, that is "
                     f"large against the drop at {names(rs)}.")
    rs = who("runs_differ")
    if rs:
        notes.append(f"The runs' MemAvailable drops differ by more than "
                     f"20% in {names(rs)} (hollow circles: each run): "
                     "memory freed by an earlier run can still be "
                     "coming back.")
    for key, _, _ in COST_PARTS[2:]:
        rs = who(f"negative_{key}")
        if rs:
            notes.append(f"{key.replace('_', ' ')} went down in {names(rs)}"
                         ": drawn as 0.")
    rs = who("few_servers")
    if rs:
        notes.append(f"With few servers ({names(rs)}) the ORB's library "
                     "pages are private to them and count in USS; they "
                     "are shared once many servers run.")
    rs = who("no_mem_available")
    if rs:
        notes.append(f"No MemAvailable figure in {names(rs)}.")
    return notes


def cost_caption(data):
    rows = data["rows"]
    ns = sorted({r["n"] for r in rows})
    at = f"N={ns[0]}" if len(ns) == 1 else \
        "each row's N (the largest every run of it reached)"
    kern = [sum(r[k] or 0 for k in KERNEL_DELTA) for r in rows]
    avail = [r["mem_available"] for r in rows]
    cpu = ("; right, the servers' CPU per call (user and kernel split by "
           "tick sampling)" if any(r["cpu_server"] is not None
                                   for r in rows) else "")
    return (f"A server costs {spread(r['pss'] for r in rows)} KiB of its "
            f"own memory (PSS) and {spread(kern)} KiB in the kernel "
            f"(stacks, page tables, slab with the client's end of each "
            f"connection) against a MemAvailable drop of {spread(avail)} "
            f"KiB per server (diamond): medians over runs at {at}, kernel "
            "parts from /proc/meminfo's change since the start divided by "
            "the servers on the machine (both sides' in a paired run); a "
            "gap between the sum and the drop is what the parts miss (page "
            "cache, the client, other processes) or count twice (shared "
            f"pages already cached, reclaimable slab){cpu}.")


def has_cpu(rows):
    return any(r["cpu_server"] is not None for r in rows)


def cost_figure(series, footer, title, n=None, colors=None, data=None):
    """Horizontal stacked bars of memory per server by part, the
    MemAvailable drop per server as a marker on the same axis; beside it
    the servers' CPU per call, user and kernel (left out, with a note,
    when no row has it). One row per series."""
    data = data or cost_data(series, n)
    rows = data["rows"]
    if not rows:
        why = "; ".join(f"{lb}: {w}" for lb, w in data["left_out"])
        raise Skip(f"cost: skipped, no series has a footprint ({why})")
    cpu = has_cpu(rows)
    notes = cost_notes(rows)
    if not cpu:
        why = ("no calls (client.connect false)" if all(
            r["cpu_note"].startswith("no calls") for r in rows)
            else "not recorded")
        notes.append(f"Server CPU per call: {why} in these results.")
    width = 12.0
    notes = [line for n_ in notes for line in
             textwrap.wrap("Note: " + n_, 195, subsequent_indent="  ")]
    labels = [cost_row_label(r) for r in rows]
    rows_h = 0.55 * len(rows) + 0.3
    top, under, note_h = 0.6, 1.35, 0.16 * len(notes) + 0.3
    fig = figure(width, top + rows_h + under + note_h, footer)
    ax, cax = with_cpu_panel(fig, cpu, 3.2)
    left_in = label_width_in(labels)
    ax_w = (width - left_in - 0.25) * (3.2 / 4.2 if cpu else 1)
    ys = np.arange(len(rows))
    draw_cost_bars(ax, rows, ys, ax_w)
    ax.set_yticks(ys, labels, fontsize=9)
    if colors:
        for tick, r in zip(ax.get_yticklabels(), rows):
            tick.set_color(colors.get(r["label"], "black"))
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("memory per server (KiB)")
    below = (0.5, -0.55 / rows_h)
    handles = [orbplot.Patch(color=c, label=lb) for _, lb, c in COST_PARTS] + [
        orbplot.Line2D([], [], color="black", marker="D", linestyle="",
                       label="MemAvailable drop per server (median)"),
        orbplot.Line2D([], [], color="black", marker="o",
                       markerfacecolor="none", linestyle="", markersize=5,
                       label="MemAvailable drop, each run")]
    # Two columns: the legend stays under its own panel (three ran into
    # the CPU panel's legend on a 12-inch figure).
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=below,
              ncol=2, fontsize=8, frameon=False)
    if cpu:
        draw_cpu_bars(cax, rows, ys)
        plt.setp(cax.get_yticklabels(), visible=False)
        cax.tick_params(axis="y", length=0)
        cax.set_xlabel("server CPU per call (µs)")
        cax.legend(handles=[orbplot.Patch(color=c, label=f"CPU {lb}")
                            for _, lb, c in CPU_PARTS],
                   loc="upper center", bbox_to_anchor=below, ncol=1,
                   fontsize=8, frameon=False)
    h = fig.get_size_inches()[1]
    for i, line in enumerate(notes):
        fig.text(0.01, (0.3 + 0.16 * (len(notes) - 1 - i)) / h, line,
                 fontsize=8, color="0.25", ha="left", va="bottom")
    orbplot.suptitle(fig, title)
    margins(fig, left=left_in, right=0.25, top=top,
             bottom=under + note_h, wspace=0.04)
    return fig


def cost_row_label(row):
    """'sync-unix\nN=1094 · 3 runs · 2088 on the machine'."""
    parts = [f"N={row['n']}"]
    if row["runs"] > 1:
        parts.append(f"{row['runs']} runs")
    if row["servers_on_machine"] != row["n"]:
        parts.append(f"{fmt(row['servers_on_machine'])} on the machine")
    return f"{row['label']}\n{' · '.join(parts)}"


def cost_text(row):
    """The two lines beside a cost bar: the parts' sum, the drop."""
    kern = row["accounted"] - row["pss"]
    text = (f"PSS {fmt(row['pss'])} + kernel {fmt(kern)} = "
            f"{fmt(row['accounted'])}")
    if row["mem_available"] is not None:
        text += f"\nMemAvailable drop {fmt(row['mem_available'])}"
    return text


def draw_cost_bars(ax, rows, ys, ax_w):
    """The stacked memory bars (negative parts drawn as 0), the
    MemAvailable drop marker and each run's, and beside each bar its sum
    and the drop as text; ax_w is the axes' width in inches (to leave
    room for that text)."""
    left = np.zeros(len(rows))
    for key, label, color in COST_PARTS:
        vals = np.array([max(r[key] or 0, 0) for r in rows])
        ax.barh(ys, vals, left=left, color=color, height=0.6,
                edgecolor="white", linewidth=0.5)
        left += vals
    for y, r in zip(ys, rows):
        runs = r["mem_available_runs"]
        if runs:
            ax.plot(runs, [y] * len(runs), "o", markerfacecolor="none",
                    markeredgecolor="black", markersize=5, zorder=4)
        if r["mem_available"] is not None:
            ax.plot(r["mem_available"], y, "D", color="black", markersize=7,
                    zorder=5)
    ends = [max([e] + r["mem_available_runs"]) for e, r in zip(left, rows)]
    xmax = max(ends + [1])
    xmin = min([1] + [v for r in rows for v in r["mem_available_runs"]])
    texts = [cost_text(r) for r in rows]
    # Room for the text: its longest line at about 0.066 in a character.
    text_in = 0.25 + 0.066 * max(len(line) for t in texts
                                 for line in t.split("\n"))
    span = (xmax - min(xmin, 0)) / max(1 - text_in / ax_w, 0.3)
    for y, t, end in zip(ys, texts, ends):
        ax.text(end + span * 0.012, y, t, va="center", fontsize=8,
                linespacing=1.3)
    # A drop of 0 or less is drawn off the frame, where it can be seen.
    lo = xmin - 0.03 * span if xmin <= 0 and any(
        r["mem_available_runs"] for r in rows) else 0
    ax.set_xlim(lo, lo + span)
    if lo < 0:
        ax.axvline(0, color="0.3", linewidth=0.8)
    ax.grid(True, axis="x", alpha=0.3)


def draw_cpu_bars(ax, rows, ys):
    """User and kernel CPU per call, stacked; a note where there is none."""
    left = np.zeros(len(rows))
    for key, _, color in CPU_PARTS:
        vals = np.array([r[key] if r[key] is not None else 0 for r in rows])
        ax.barh(ys, vals, left=left, color=color, height=0.6,
                edgecolor="white", linewidth=0.5)
        left += vals
    xmax = max([r["cpu_server"] or 0 for r in rows] + [1])
    for y, r, end in zip(ys, rows, left):
        if r["cpu_server"] is None:
            ax.text(xmax * 0.03, y, r["cpu_note"], va="center", fontsize=8,
                    color="0.4", style="italic")
        else:
            if end == 0:  # total without the user/sys split
                ax.barh(y, r["cpu_server"], color="0.6", height=0.6)
            ax.text(r["cpu_server"] + xmax * 0.03, y,
                    f"{r['cpu_server']:.3g}", va="center", fontsize=8)
    ax.set_xlim(0, xmax * 1.25)
    ax.grid(True, axis="x", alpha=0.3)
