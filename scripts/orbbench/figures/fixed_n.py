"""Fixed-N results (sweep.max_ms high enough that no step crosses): round
time and CPU per call at each N, per scenario; fixed_n_data returns exactly
the numbers drawn."""
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.layout import (figure, label_width_in, margins, med,
                                     plain_log, spread, with_cpu_panel)
from orbbench.plot import Skip
from orbbench.results import is_num

plt = orbplot.plt


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
    text = (f"One call's median service time is {spread(meds)} µs across "
            "these fixed-N scenarios" if meds else
            "No call was timed in these fixed-N results")
    if any(is_num(c) for c in cpus):
        text += f" and the servers' CPU per call {spread(cpus)} µs"
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
    fig = figure(11, 0.5 * len(rows) + 1.8 + (0 if cpu else 0.25), footer)
    ax, cax = with_cpu_panel(fig, cpu, 1.6)
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
    orbplot.suptitle(fig, title)
    margins(fig, left=label_width_in(labels), right=0.25, top=0.55,
             bottom=0.85 + (0 if cpu else 0.25), wspace=0.05)
    return fig
