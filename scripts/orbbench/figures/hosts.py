"""The host axis in figures (a fleet run, scripts/run-fleet): one figure
per scenario, a bar per host, asking how many servers each host held and
what each of them cost there — max servers (median, min–max over repeats)
beside memory per server at that N, each host's CPUs and memory under its
name.

host_figure_data returns exactly the numbers drawn, from
orbbench.hosts.hosts_data. Hosts are (label, [result doc or Result]) or the
dicts orbbench.hosts.load_hosts gives."""

import orbbench.hosts as orbhosts
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.plot import Skip

plt = orbplot.plt


def host_pairs(hosts):
    """[(label, [doc])] of hosts in either form."""
    out = []
    for h in hosts:
        label, items = (h["host"], h["results"]) if isinstance(h, dict) \
            else h
        out.append((label, [getattr(x, "doc", x) for x in items]))
    return out


def short_identity(docs):
    """'2 CPUs, 23.5 GiB' of a host's results, for its tick label."""
    ident = orbhosts.identity([orbresults.Result(None, d) for d in docs])
    return (f"{ident.get('cpus_online') or '?'} CPUs, "
            f"{orbhosts.mem_text(ident.get('mem_total_kb'))}")


def host_figure_data(hosts, scenario, mem="pss"):
    """What the figure of one scenario draws: {"scenario", "max_ms",
    "mem", "bars": [{"host", "identity" (CPUs and memory), "max_servers",
    "min", "max", "runs", "mem_kb"}] in the hosts' order, "missing":
    [hosts with sweeps but no run of this scenario], "no_sweeps": [(host,
    why)] (no sweep result at all), "left_out": [] (host_figures says once
    which hosts have no sweep, not once per figure)}."""
    pairs = host_pairs(hosts)
    data = orbhosts.hosts_data(pairs, mem)
    row = next((s for s in data["scenarios"] if s["scenario"] == scenario),
               None)
    docs = dict(pairs)
    bars, missing = [], []
    for label in data["hosts"]:
        c = row["cells"][label] if row else None
        if c is None:
            missing.append(label)
            continue
        bars.append({"host": label, "identity": short_identity(docs[label]),
                     "max_servers": c["max_servers"],
                     "min": c["max_servers_min"], "max": c["max_servers_max"],
                     "runs": c["runs"], "mem_kb": c["mem_kb"]})
    return {"scenario": scenario, "max_ms": row["max_ms"] if row else None,
            "mem": mem, "bars": bars, "missing": missing,
            "no_sweeps": data["left_out"], "left_out": []}


def host_caption(data):
    """Each host's numbers, largest first, and those without a result."""
    mem = orbresults.MEM_LABELS[data["mem"]]
    parts = [f"{b['host']} ({b['identity']}): "
             f"{orbresults.fmt_num(b['max_servers'])} servers" +
             (f" ({b['min']}–{b['max']}, {b['runs']} runs)"
              if b["runs"] > 1 else "") +
             (f", {orbresults.fmt_num(b['mem_kb'])} KiB {mem} each"
              if b["mem_kb"] is not None else "")
             for b in sorted(data["bars"], key=lambda b: -b["max_servers"])]
    text = (f"{data['scenario']}: the largest N within max_ms "
            f"({orbresults.fmt_num(data['max_ms'])} ms) on each host, and "
            f"the memory per server there. " + "; ".join(parts) + ".")
    gone = [f"{h}: no result" for h in data["missing"]] + \
        [f"{h}: {why}" for h, why in data["no_sweeps"]]
    if gone:
        text += " Not drawn: " + "; ".join(gone) + "."
    return text


def host_figure(series, footer, title, data=None):
    """Two panels sharing the host axis: max servers, memory per
    server."""
    bars = data["bars"]
    if not bars:
        raise Skip(f"hosts-{data['scenario']}: skipped, no host has a run "
                   "of it")
    colors = orbplot.palette([b["host"] for b in bars])
    xs = list(range(len(bars)))
    fig, (ax, axm) = plt.subplots(1, 2, figsize=(max(7, 1.6 * len(bars) +
                                                    3), 4.2), dpi=orbplot.DPI)
    orbplot.put_footer(fig, footer)
    cs = [colors[b["host"]] for b in bars]
    med = [b["max_servers"] for b in bars]
    err = [[m - b["min"] for m, b in zip(med, bars)],
           [b["max"] - m for m, b in zip(med, bars)]]
    ax.bar(xs, med, color=cs, yerr=err, width=0.6,
           error_kw=dict(ecolor="black", capsize=3, lw=1))
    for x, m in zip(xs, med):
        ax.text(x, m, f"{orbresults.fmt_num(m)}\n", ha="center", va="bottom",
                fontsize=8)
    ax.set_ylabel("max servers within max_ms (median, min–max)")
    mems = [b["mem_kb"] for b in bars]
    axm.bar([x for x, m in zip(xs, mems) if m is not None],
            [m for m in mems if m is not None],
            color=[c for c, m in zip(cs, mems) if m is not None], width=0.6)
    for x, m in zip(xs, mems):
        axm.text(x, m or 0, orbresults.fmt_num(m) if m is not None else
                 "not measured", ha="center", va="bottom", fontsize=8)
    axm.set_ylabel(f"{orbresults.MEM_LABELS[data['mem']]} per server (KiB)")
    for a in (ax, axm):
        a.set_xticks(xs)
        a.set_xticklabels([f"{b['host']}\n{b['identity']}" for b in bars],
                          fontsize=8)
        a.set_ylim(bottom=0, top=a.get_ylim()[1] * 1.12)
        a.grid(axis="y", color="0.9")
        a.set_axisbelow(True)
    gone = data["missing"] + [h for h, _ in data["no_sweeps"]]
    if gone:
        fig.text(0.99, 0.01, "no result: " + ", ".join(gone), fontsize=8,
                 color="0.35", ha="right", va="bottom")
    orbplot.finish(fig, title, left=0.09, right=0.98, top=0.88, bottom=0.2,
             wspace=0.28)
    return fig


def host_figures(hosts, outdir, log=None, mem="pss"):
    """One figure per scenario into outdir (hosts-SCENARIO.png/.svg);
    [orbbench.plot.Figure]."""
    pairs = host_pairs(hosts)
    data = orbhosts.hosts_data(pairs, mem)
    for label, why in data["left_out"]:
        (log or (lambda m: None))(f"hosts: left out {label} ({why})")
    names = [s["scenario"] for s in data["scenarios"]]
    figures = []
    for name in names:
        stem = f"hosts-{orbplot.slug(name, 'scenario')}"
        figures += orbplot.one_figure(
            pairs, outdir, log, stem, stem,
            f"{name}: servers each host held, and what each cost",
            lambda s, n=name: host_figure_data(s, n, mem), host_figure,
            host_caption)
    return figures
