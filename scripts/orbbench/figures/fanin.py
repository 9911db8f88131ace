"""The figures of a sweep over connections (scenario kind "fanin", issue
25), one question each: how does the round time grow with the
connections one server holds (per server model)? How many threads does
a connection cost the server? How much memory (PSS and USS) does it
cost? Every line is one series (a scenario: a server model over a
transport), its steps in order; N is the connections over all of the
run's servers (fanin.servers).

fanin_data returns exactly the numbers drawn. A *series* is (label,
[result documents]): one scenario split by ORB and settings
(orbbench.plot.series_of)."""
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.layout import new_figure
from orbbench.plot import Skip

plt = orbplot.plt

# What a connection costs the servers: step.per_connection's fields.
PER_CONN = ("threads", "fds", "rss_kb", "pss_kb", "uss_kb")


def _held(doc):
    """The step at result.held (the largest N within max_ms),
    else the largest step below it, else None."""
    held = orbresults.held(doc)
    below = [s for s in doc.get("steps") or []
             if orbresults.is_num(held) and s["n"] <= held]
    return max(below, key=lambda s: s["n"]) if below else None


def fanin_data(series):
    """Per series with steps: {label, servers, transport, max_ms, runs,
    ns [N], round_ms {N: median over runs}, per_conn {field: {N: median
    over runs}}, held (median max_connections), crossing (median
    crossing_n or None), at_held {field: median over runs at each run's
    held step}, cpu_us (server CPU per call at the held step), stops};
    and left_out [(label, why)]."""
    out, left_out = [], []
    for label, docs in orbplot.pairs(series):
        docs = [d for d in docs if d.get("steps")]
        if not docs:
            left_out.append((label, "no step was measured"))
            continue
        ns = sorted({s["n"] for d in docs for s in d["steps"]})

        def at(fn, n):
            return orbresults.median(
                v for v in (fn(s) for d in docs for s in d["steps"]
                            if s["n"] == n) if orbresults.is_num(v))

        held = [_held(d) for d in docs]
        cross = [orbresults.get(d, "result.crossing_n") for d in docs]
        d0 = docs[0]
        out.append({
            "label": label,
            "servers": orbresults.get(d0, "scenario.fanin.servers"),
            "transport": orbresults.get(d0, "scenario.transport"),
            "max_ms": orbresults.get(d0, "scenario.fanin.max_ms"),
            "runs": len(docs), "ns": ns,
            "round_ms": {n: at(lambda s: s["round_ms"]["median"], n)
                         for n in ns},
            "per_conn": {f: {n: at(lambda s, f=f: orbresults.get(
                s, f"per_connection.{f}"), n) for n in ns}
                for f in PER_CONN},
            "held": orbresults.median(
                orbresults.held(d) for d in docs),
            "crossing": orbresults.median(c for c in cross
                                          if orbresults.is_num(c)),
            "at_held": {f: orbresults.median(
                orbresults.get(s, f"per_connection.{f}")
                for s in held if s and orbresults.is_num(
                    orbresults.get(s, f"per_connection.{f}")))
                for f in PER_CONN},
            "cpu_us": orbresults.median(
                orbresults.server_cpu_per_call_us(s) for s in held if s),
            "stops": sorted({orbresults.get(d, "result.stop_reason")
                             for d in docs})})
    return {"series": out, "left_out": left_out}


def _lines(ax, data, values_of, colors):
    """One line per series: values_of(series) -> {N: value or None}."""
    for s in data["series"]:
        pts = [(n, v) for n, v in values_of(s).items() if v is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", ms=3, lw=1.2,
                    color=colors[s["label"]], label=s["label"])
    if any(max(s["ns"]) / max(min(s["ns"]), 1) > 10 for s in data["series"]):
        ax.set_xscale("log")
    ax.set_xlabel("connections (N, over all of a run's servers)")
    ax.grid(color="0.9")
    ax.set_axisbelow(True)
    ax.legend(fontsize=8, frameon=False)


def _figure(footer, title):
    fig, axes = new_figure(10, 6, footer)
    orbplot.finish(fig, title)
    return fig, axes[0][0]


def _drawer(ylabel, values_of, log_y=False):
    def draw(series, footer, title, data=None):
        data = data or fanin_data(series)
        if not any(v is not None for s in data["series"]
                   for v in values_of(s).values()):
            raise Skip(f"fanin: skipped {title!r}, no step has it")
        colors = orbplot.palette([s["label"] for s in data["series"]])
        fig, ax = _figure(footer, title)
        _lines(ax, data, values_of, colors)
        if log_y:
            ax.set_yscale("log")
            for s in data["series"][:1]:
                if s["max_ms"]:
                    ax.axhline(s["max_ms"], color="0.4", lw=0.8, ls="--")
        ax.set_ylabel(ylabel)
        return fig
    return draw


def round_caption(data):
    parts = [f"{s['label']} held {orbresults.fmt_num(s['held'])}"
             + (f" (crossing {s['crossing']:.0f})" if s["crossing"] else "")
             for s in data["series"]]
    return ("Median round time (one call over every connection) against "
            "the connections, dashed: max_ms. Connections held within "
            "max_ms: " + "; ".join(parts) + ".")


def threads_caption(data):
    parts = [f"{s['label']} {s['at_held']['threads']:.2f}"
             for s in data["series"] if s["at_held"]["threads"] is not None]
    return ("Server threads added per connection since the servers' "
            "baseline with no connection (steps[].per_connection.threads): "
            "1 for a thread per connection, falling towards 0 for a pool "
            "or an event loop. At the largest N within max_ms: "
            + "; ".join(parts) + ".")


def memory_caption(data):
    parts = [f"{s['label']} {s['at_held']['pss_kb']:.1f} kB PSS, "
             f"{s['at_held']['uss_kb']:.1f} kB USS"
             for s in data["series"] if s["at_held"]["pss_kb"] is not None]
    return ("Server memory added per connection since the baseline with no "
            "connection (PSS solid, USS dashed). At the largest N within "
            "max_ms: " + "; ".join(parts) + ".")


def memory_figure(series, footer, title, data=None):
    """PSS (solid) and USS (dashed) per connection, one colour a series."""
    data = data or fanin_data(series)
    if not any(v is not None for s in data["series"]
               for v in s["per_conn"]["pss_kb"].values()):
        raise Skip("fanin: skipped the memory figure, no step has it")
    colors = orbplot.palette([s["label"] for s in data["series"]])
    fig, ax = _figure(footer, title)
    _lines(ax, data, lambda s: s["per_conn"]["pss_kb"], colors)
    for s in data["series"]:
        pts = [(n, v) for n, v in s["per_conn"]["uss_kb"].items()
               if v is not None]
        if pts:
            ax.plot(*zip(*pts), ls="--", lw=1, color=colors[s["label"]])
    ax.set_ylabel("server kB per connection (PSS solid, USS dashed)")
    return fig


def fanin_table(series):
    """(head, rows): per series the connections held within max_ms, the
    crossing, and what a connection cost the servers at the held N."""
    data = fanin_data(series)
    head = ["scenario", "servers", "runs", "connections held",
            "crossing N", "threads/conn", "fds/conn", "RSS kB/conn",
            "PSS kB/conn",
            "USS kB/conn", "server CPU µs/call", "stop"]

    def f(x, d=2):
        return "—" if x is None else f"{x:.{d}f}"

    rows = [[s["label"], str(s["servers"]), str(s["runs"]),
             orbresults.fmt_num(s["held"]), f(s["crossing"], 0),
             f(s["at_held"]["threads"]), f(s["at_held"]["fds"]),
             f(s["at_held"]["rss_kb"], 1),
             f(s["at_held"]["pss_kb"], 1), f(s["at_held"]["uss_kb"], 1),
             f(s["cpu_us"], 1), ", ".join(s["stops"])]
            for s in data["series"]]
    return head, rows


def fanin_figures(series, outdir, log=None):
    """The three figures of these series into outdir; [Figure]."""
    out = orbplot.one_figure(
        series, outdir, log, "fanin", "fanin-round",
        "Connections on one server: round time against connections",
        fanin_data, _drawer("median round time (ms)",
                            lambda s: s["round_ms"], log_y=True),
        round_caption)
    out += orbplot.one_figure(
        series, outdir, log, "fanin", "fanin-threads",
        "Connections on one server: server threads per connection",
        fanin_data, _drawer("server threads added per connection",
                            lambda s: s["per_conn"]["threads"]),
        threads_caption)
    return out + orbplot.one_figure(
        series, outdir, log, "fanin", "fanin-memory",
        "Connections on one server: server memory per connection",
        fanin_data, memory_figure, memory_caption)
