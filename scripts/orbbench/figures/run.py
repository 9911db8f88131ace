"""Figures of a set of runs, one question each (issue 10): what a server
costs (memory by part, CPU per call), fixed-N results, every round of every
step. Each figure has a pure data function beside it that returns exactly
the numbers drawn, so the tests check numbers, not pixels.

A *series* is (label, [result documents]): one scenario, or one scenario of
one side or setting; its documents are its runs (repeats). orbbench.plot.Series
(label, color, style, docs) is accepted too."""
import textwrap

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.results import is_num
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


# ---- helpers --------------------------------------------------------------

def _med(values):
    return orbresults.median([v for v in values if is_num(v)])


def _fmt(x):
    return orbresults.fmt_num(None if x is None else round(x))


def _spread(values):
    """'602' or '602–639' of the numbers (rounded)."""
    v = [round(x) for x in values if is_num(x)]
    if not v:
        return "—"
    lo, hi = min(v), max(v)
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def _all_docs(series):
    return [d for _, docs in series for d in docs]


def footer_of(docs):
    """The one-line footer (host, ORB, date) of the figures."""
    return orbresults.footer([orbresults.Result(None, d) for d in docs])


def _figure(width, height, footer):
    fig = plt.figure(figsize=(width, height), dpi=orbplot.DPI)
    orbplot.put_footer(fig, footer)
    return fig


def _margins(fig, left, right, top, bottom, **kw):
    """subplots_adjust with margins in inches (rows keep their height
    whatever the figure's)."""
    w, h = fig.get_size_inches()
    fig.subplots_adjust(left=left / w, right=1 - right / w, top=1 - top / h,
                        bottom=bottom / h, **kw)


def _with_cpu_panel(fig, cpu, main_ratio):
    """(main axes, CPU axes sharing its rows, main_ratio : 1 wide) when
    cpu, else (one axes, None)."""
    if not cpu:
        return fig.add_subplot(1, 1, 1), None
    gs = fig.add_gridspec(1, 2, width_ratios=[main_ratio, 1])
    ax = fig.add_subplot(gs[0, 0])
    return ax, fig.add_subplot(gs[0, 1], sharey=ax)


def _label_width_in(labels, fontsize=9):
    """A rough width in inches of the longest line of the tick labels."""
    longest = max((len(line) for lb in labels for line in lb.split("\n")),
                  default=8)
    return 0.2 + longest * fontsize * 0.0078


def plain_log(axis):
    """A log axis with plain numbers at 1, 2, 5 × 10^k (not 10^k
    exponents: a reader compares 30 µs with 1500 µs, not exponents)."""
    axis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: orbresults.fmt_num(v)))
    axis.set_minor_formatter(NullFormatter())


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
               "servers_on_machine": _med(r["servers_on_machine"]
                                          for r in runs)}
        for key in ("uss", "pss", "kernel_stack", "page_tables", "slab",
                    "mem_available", "cpu_server"):
            row[key] = _med(r[key] for r in runs)
        # The bar ends at the median PSS, as its label says.
        row["shared"] = row["pss"] - row["uss"]
        # Drawn: a kernel part that went down (noise) counts as 0.
        row["accounted"] = row["pss"] + sum(max(row[k] or 0, 0)
                                            for k in KERNEL_DELTA)
        # The CPU bar is the median total, split by the median user share
        # (medians of user and of sys need not add up to it).
        shares = [r["cpu_user"] / r["cpu_server"] for r in runs
                  if is_num(r["cpu_user"]) and r["cpu_server"]]
        row["cpu_user"] = row["cpu_server"] * _med(shares) \
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
    return (f"A server costs {_spread(r['pss'] for r in rows)} KiB of its "
            f"own memory (PSS) and {_spread(kern)} KiB in the kernel "
            f"(stacks, page tables, slab with the client's end of each "
            f"connection) against a MemAvailable drop of {_spread(avail)} "
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
    fig = _figure(width, top + rows_h + under + note_h, footer)
    ax, cax = _with_cpu_panel(fig, cpu, 3.2)
    left_in = _label_width_in(labels)
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
    fig.suptitle(title, fontsize=13)
    _margins(fig, left=left_in, right=0.25, top=top,
             bottom=under + note_h, wspace=0.04)
    return fig


def cost_row_label(row):
    """'sync-unix\nN=1094 · 3 runs · 2088 on the machine'."""
    parts = [f"N={row['n']}"]
    if row["runs"] > 1:
        parts.append(f"{row['runs']} runs")
    if row["servers_on_machine"] != row["n"]:
        parts.append(f"{_fmt(row['servers_on_machine'])} on the machine")
    return f"{row['label']}\n{' · '.join(parts)}"


def cost_text(row):
    """The two lines beside a cost bar: the parts' sum, the drop."""
    kern = row["accounted"] - row["pss"]
    text = (f"PSS {_fmt(row['pss'])} + kernel {_fmt(kern)} = "
            f"{_fmt(row['accounted'])}")
    if row["mem_available"] is not None:
        text += f"\nMemAvailable drop {_fmt(row['mem_available'])}"
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


# ---- 2. fixed-N results ---------------------------------------------------

def fixed_n_data(series):
    """Per series whose runs are all fixed-N: one entry per run with the
    median call time and its p99 (call_us, µs; None without calls) and the
    servers' CPU per call (µs; None when not recorded). Returns {"rows":
    [{label, n, runs: [{call_median, call_p99, cpu_server, cpu_user,
    cpu_sys}], note}], "left_out": [(label, why)]}."""
    rows, left_out = [], []
    for label, docs in orbplot.pairs(series):
        if not docs or not all(d["steps"] for d in docs):
            left_out.append((label, "a run has no step"))
            continue
        if not all(orbresults.is_fixed_n(d) for d in docs):
            ns = sorted({s["n"] for d in docs for s in d["steps"]})
            left_out.append((label, f"a sweep (N {ns[0]} to {ns[-1]})"))
            continue
        runs = []
        for d in docs:
            s = d["steps"][-1]
            call = s.get("call_us") if orbresults.timed(s) else None
            call = call if isinstance(call, dict) and call.get("count") \
                else {}
            cpu = s.get("cpu_per_call_us") if orbresults.timed(s) else None
            cpu = cpu if isinstance(cpu, dict) else {}
            runs.append({"n": s["n"], "call_median": call.get("median"),
                         "call_p99": call.get("p99"),
                         "cpu_server": cpu.get("server"),
                         "cpu_user": cpu.get("server_user"),
                         "cpu_sys": cpu.get("server_sys")})
        ns = sorted({r["n"] for r in runs})
        timed = any(orbresults.timed(d["steps"][-1]) for d in docs)
        note = None
        if not timed:
            note = "no calls (client.connect false)"
        elif all(r["cpu_server"] is None for r in runs):
            note = "CPU not recorded"
        rows.append({"label": label, "n": ns[0] if len(ns) == 1 else ns,
                     "runs": runs, "note": note, "timed": timed})
    return {"rows": rows, "left_out": left_out}


def fixed_n_caption(data, event=False):
    rows = [r for r in data["rows"] if r["timed"]]
    meds = [x["call_median"] for r in rows for x in r["runs"]]
    cpus = [x["cpu_server"] for r in rows for x in r["runs"]]
    text = (f"One call's median service time is {_spread(meds)} µs across "
            "these fixed-N scenarios" if meds else
            "No call was timed in these fixed-N results")
    if any(is_num(c) for c in cpus):
        text += f" and the servers' CPU per call {_spread(cpus)} µs"
    if event:
        text += (" (in event mode a call's time includes waiting behind "
                 "the others in flight)")
    return (text + "; one dot per run: call_us median, its p99 lighter "
            "and joined to it, server CPU from the CPU-accounting cgroup "
            "÷ calls; each row at the one N its runs measured, not a "
            "sweep, so no max_ms applies.")


def fixed_n_figure(series, footer, title, colors=None, data=None):
    """Dot plot, one row per fixed-N series and one dot per run: the median
    call time with its p99 (left), the servers' CPU per call (right; left
    out with a note when no run has it)."""
    data = data or fixed_n_data(series)
    rows = data["rows"]
    if not rows:
        why = "; ".join(f"{lb}: {w}" for lb, w in data["left_out"])
        raise Skip(f"fixed-n: skipped, no series has a single N ({why})")
    if not any(r["timed"] for r in rows):
        raise Skip("fixed-n: skipped, no call was timed in these fixed-N "
                   "results (client.connect false)")
    colors = colors or orbplot.palette([r["label"] for r in rows])
    labels = [f"{r['label']}\nN={r['n']}" for r in rows]
    cpu = any(is_num(x["cpu_server"]) for r in rows for x in r["runs"])
    fig = _figure(11, 0.5 * len(rows) + 1.8 + (0 if cpu else 0.25), footer)
    ax, cax = _with_cpu_panel(fig, cpu, 1.6)
    if not cpu:
        timed = any(r["timed"] for r in rows)
        fig.text(0.01, 0.3 / fig.get_size_inches()[1],
                 "Note: server CPU per call: " + (
                     "not recorded" if timed else "no calls") +
                 " in these results.", fontsize=8, color="0.25")
    calls, cpus = [], []
    for y, r in enumerate(rows):
        color = colors.get(r["label"], "tab:blue")
        k = len(r["runs"])
        for i, run in enumerate(r["runs"]):
            dy = (i - (k - 1) / 2) * min(0.18, 0.5 / k)
            med, p99 = run["call_median"], run["call_p99"]
            if is_num(med):
                if is_num(p99):
                    ax.plot([med, p99], [y + dy] * 2, "-", color=color,
                            alpha=0.35, linewidth=1.2)
                    ax.plot(p99, y + dy, "o", color=color, alpha=0.35,
                            markersize=5)
                    calls.append(p99)
                ax.plot(med, y + dy, "o", color=color, markersize=6)
                calls.append(med)
            if cpu and is_num(run["cpu_server"]):
                cax.plot(run["cpu_server"], y + dy, "o", color=color,
                         markersize=6)
                cpus.append(run["cpu_server"])
    for y, r in enumerate(rows):
        if not r["timed"]:
            ax.text(0.02, y, r["note"], transform=ax.get_yaxis_transform(),
                    va="center", fontsize=8, color="0.4", style="italic")
        if cpu and not any(is_num(x["cpu_server"]) for x in r["runs"]):
            cax.text(0.04, y, "no calls" if not r["timed"] else
                     "not recorded", transform=cax.get_yaxis_transform(),
                     va="center", fontsize=8, color="0.4", style="italic")
    if orbplot.spans_decades(calls, 10):
        ax.set_xscale("log")
        plain_log(ax.xaxis)
    elif calls:
        ax.set_xlim(0, max(calls) * 1.1)
    ax.set_yticks(range(len(rows)), labels, fontsize=9)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("time of one call (µs): median ●, p99 (lighter)")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    if cpu:
        cax.set_xlim(0, max(cpus) * 1.15)
        plt.setp(cax.get_yticklabels(), visible=False)
        cax.tick_params(axis="y", length=0)
        cax.set_xlabel("server CPU per call (µs)")
        cax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=13)
    _margins(fig, left=_label_width_in(labels), right=0.25, top=0.55,
             bottom=0.85 + (0 if cpu else 0.25), wspace=0.05)
    return fig


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
    fig = _figure(10, 6.2, footer)
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
    fig.suptitle(title, fontsize=13)
    _margins(fig, left=0.8, right=0.25, top=0.55, bottom=0.8)
    return fig


# ---- everything -----------------------------------------------------------

def run_figures(series, outdir, colors=None, log=None, strip_series=None,
                cost_at=None):
    """Write the cost figure, the fixed-N figure and one strip figure per
    swept series into outdir (PNG and SVG); return [orbbench.plot.Figure]. A
    figure the data cannot make is skipped and log(message) says why;
    series left out of a figure are logged too. strip_series, when given,
    are the series of the strip figures instead (a comparison draws both
    sides of a scenario in one); cost_at, {label: N}, the N of each
    series' cost (both sides of a scenario at one N)."""
    log = log or (lambda m: None)
    series = orbplot.pairs(series)
    colors = colors or orbplot.palette([lb for lb, _ in series])
    footer = footer_of(_all_docs(series))
    fixed = [(lb, docs) for lb, docs in series
             if docs and all(d["steps"] and orbresults.is_fixed_n(d)
                             for d in docs)]
    swept = [s for s in series if s not in fixed]
    jobs = []

    def cost():
        data = cost_data(series, cost_at)
        for lb, why in data["left_out"]:
            log(f"cost: left out {lb} ({why})")
        title = "What a server costs"
        return (cost_figure(series, footer, title, colors=colors,
                            data=data), title, cost_caption(data))

    def fixed_n():
        if not fixed:
            raise Skip("fixed-n: skipped, no series measured a single N "
                       "(all are sweeps)")
        data = fixed_n_data(fixed)
        title = "Fixed-N results: one call's time, the servers' CPU per call"
        return (fixed_n_figure(fixed, footer, title, colors=colors,
                               data=data), title,
                fixed_n_caption(data, event=any(
                    orbresults.get(d, "scenario.mode") == "event"
                    for _, docs in fixed for d in docs)))

    jobs += [("cost", cost), ("fixed-n", fixed_n)]
    if strip_series is not None:
        strip_series = orbplot.pairs(strip_series)
        swept = [(lb, docs) for lb, docs in strip_series
                 if not (docs and all(d["steps"] and orbresults.is_fixed_n(d)
                                      for d in docs))]
    for lb, docs in swept:
        def strip(item=(lb, docs)):
            data = strip_data(item)
            if data["lacking"]:
                log(f"rounds {item[0]}: left out "
                    f"{', '.join(data['lacking'])} (no rounds_ms: older "
                    "results)")
            title = f"Every round: {item[0]}"
            return (strip_figure(item, footer_of(item[1]), title,
                                 data=data), title, strip_caption(data))
        jobs.append((f"rounds-{orbplot.slug(lb, 'series')}", strip))
    if fixed and len(fixed) == len(series):
        log("rounds: not drawn, every series is fixed-N (see fixed-n)")
    elif fixed:
        log(f"rounds: not drawn for {len(fixed)} fixed-N series "
            f"({', '.join(lb for lb, _ in fixed)}; see fixed-n)")
    figures, no_rounds = [], []
    for stem, make in jobs:
        try:
            fig, title, caption = make()
        except NoRounds as e:
            no_rounds.append(e.label)
            continue
        except Skip as e:
            log(str(e))
            continue
        figures.append(orbplot.save(fig, outdir, stem, title, caption))
    if no_rounds and len(no_rounds) == len(swept):
        log(f"rounds: skipped, {NO_ROUNDS}")
    elif no_rounds:
        log(f"rounds: skipped for {', '.join(no_rounds)}: {NO_ROUNDS}")
    return figures
