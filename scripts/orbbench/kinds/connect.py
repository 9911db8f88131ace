"""The cost of a new connection (scenario kind "connect",
client/kinds/connect.c): one server, one client opening a connection,
calling once over it and closing it, connect.count times in
connect.blocks blocks. Its results hold `connect`: the blocks' rates and
their median with a 95% interval (per_s), the times of each connection
(connect_us, first_call_us, total_us), the server's footprint at four
points (started, idle, churned, held, released) and what each held
connection added (per_connection). Its figure and table are drawn here.

A *series* is (label, [result documents]): one scenario, split by ORB
and settings as orbbench.plot.series_of does; its documents are its
runs. compare weighs its METRICS, one value per run; a report shows the
table and the figure."""
import orbbench.metric as orbmetric
import orbbench.results as orbresults
from orbbench.results import fmt_num, get, is_num, median


def _block_ok(block):
    return isinstance(block, dict) and is_num(block.get("per_s")) and \
        is_num(block.get("connections"))


def check(doc, path):
    """Every block has its rate and its count; the summary, when there is
    one, its median and interval."""
    c = doc["connect"]
    if not isinstance(c, dict):
        raise ValueError(f"{path}: field 'connect' is not an object")
    orbresults.check_list(path, "connect.blocks", c.get("blocks"), _block_ok,
                          "per_s or connections")
    rate = c.get("per_s")
    if rate is not None and not (isinstance(rate, dict) and all(
            is_num(rate.get(k)) for k in ("median", "low", "high"))):
        raise ValueError(f"{path}: field 'connect.per_s' missing or wrong "
                         "type")


# What a held connection added to the server, as per_connection names it:
# (key, the table's column, digits).
PER_CONNECTION = (("threads", "threads", 2), ("fds", "descriptors", 2),
                  ("pss_kb", "kB PSS", 1), ("uss_kb", "kB USS", 1))


def connect_data(series):
    """One row per series with a measured block: {label, runs, blocks,
    rate (connections/s: the runs' median of their medians), low, high
    (one run: its 95% interval; several: the lowest low to the highest
    high), total_us, total_p99_us (connect and first reply: medians over
    the runs), per {key of PER_CONNECTION: median over the runs, None
    without}, idle_uss_kb, released_uss_kb}; and left_out [(label,
    why)]."""
    rows, left_out = [], []
    import orbbench.plot as orbplot
    for label, docs in orbplot.pairs(series):
        runs = [d["connect"] for d in docs
                if isinstance(get(d, "connect.per_s"), dict)]
        if not runs:
            left_out.append((label, "no block was measured"))
            continue

        def med(dotted):
            return median(get(c, dotted) for c in runs
                          if is_num(get(c, dotted)))

        rows.append({
            "label": label, "runs": len(runs),
            "blocks": sum(len(c["blocks"]) for c in runs),
            "connections": sum(c.get("connections") or 0 for c in runs),
            "rate": med("per_s.median"),
            "low": min(c["per_s"]["low"] for c in runs),
            "high": max(c["per_s"]["high"] for c in runs),
            "total_us": med("total_us.median"),
            "total_p99_us": med("total_us.p99"),
            "per": {k: med(f"per_connection.{k}")
                    for k, _, _ in PER_CONNECTION},
            "hold": med("hold"),
            "idle_uss_kb": med("footprint.idle.uss_kb"),
            "released_uss_kb": med("footprint.released.uss_kb")})
    return {"rows": rows, "left_out": left_out}


def connect_caption(data):
    """The conclusion in numbers: the fastest and slowest to accept, and
    the range of memory a held connection costs."""
    rows = data["rows"]
    if not rows:
        return "No configuration has a measured block."
    hi = max(rows, key=lambda r: r["rate"])
    lo = min(rows, key=lambda r: r["rate"])
    text = (f"Fastest to accept: {hi['label']}, {hi['rate']:.0f} "
            f"connections/s (95% interval {hi['low']:.0f}–"
            f"{hi['high']:.0f})")
    if hi is not lo:
        text += (f", {hi['rate'] / lo['rate']:.1f}× the slowest, "
                 f"{lo['label']} at {lo['rate']:.0f}/s")
    text += "."
    costed = [r for r in rows if r["per"]["uss_kb"] is not None]
    if costed:
        cheap = min(costed, key=lambda r: r["per"]["uss_kb"])
        dear = max(costed, key=lambda r: r["per"]["uss_kb"])
        text += (f" Each held connection added {cheap['per']['uss_kb']:.1f} "
                 f"kB USS ({cheap['label']}) to {dear['per']['uss_kb']:.1f} "
                 f"kB ({dear['label']}) to the server.")
    return text


def connect_figure(series, footer, title, data=None):
    """Three panels, a row per configuration: connections/s (median, 95%
    interval), connect and first reply (median, p99) and kB USS per held
    connection."""
    import orbbench.plot as orbplot
    plt = orbplot.plt
    data = data or connect_data(series)
    rows = data["rows"]
    if not rows:
        raise orbplot.Skip("connect: skipped, no connect result has a "
                           "measured block")
    height = 1.7 + 0.5 * len(rows)
    fig = plt.figure(figsize=(13, height), dpi=orbplot.DPI)
    orbplot.put_footer(fig, footer)
    fig.subplots_adjust(left=2.6 / 13, right=0.98, top=1 - 0.9 / height,
                        bottom=0.8 / height, wspace=0.1)
    axes = fig.subplots(1, 3, sharey=True)
    ys = list(range(len(rows)))[::-1]  # the first row on top
    rate = [r["rate"] for r in rows]
    axes[0].barh(ys, rate, color="#2b6a99", height=0.6, xerr=[
        [m - r["low"] for m, r in zip(rate, rows)],
        [r["high"] - m for m, r in zip(rate, rows)]],
        error_kw=dict(ecolor="black", capsize=3, lw=1))
    axes[0].set_xlabel("connections per second: median of the blocks, "
                       "95% interval")
    us = [r["total_us"] or 0 for r in rows]
    axes[1].barh(ys, us, color="0.55", height=0.6, label="median")
    axes[1].plot([r["total_p99_us"] or 0 for r in rows], ys, "k|",
                 markersize=12, label="p99")
    axes[1].set_xlabel("connect and first reply (µs)")
    axes[1].legend(loc="lower right", fontsize=8, frameon=False)
    kb = [r["per"]["uss_kb"] or 0 for r in rows]
    axes[2].barh(ys, kb, color="#d95f02", height=0.6)
    for y, r, x in zip(ys, rows, kb):
        axes[2].text(x, y, f" {fmt_num(r['per']['threads'], 2)} thr, "
                     f"{fmt_num(r['per']['fds'], 2)} fd", va="center",
                     fontsize=8)
    axes[2].set_xlabel("kB USS per held connection (connect.hold open)")
    axes[2].set_xlim(0, max(kb) * 1.6 or 1)
    axes[0].set_yticks(ys)
    axes[0].set_yticklabels([r["label"] for r in rows], fontsize=9)
    for ax in axes:
        ax.grid(axis="x", color="0.9")
        ax.set_axisbelow(True)
    orbplot.suptitle(fig, title)
    return fig


def connect_table(series):
    """(head, rows) of the report's table, from connect_data."""
    data = connect_data(series)
    head = ["configuration", "runs", "connections/s (median)",
            "95% interval", "connect + first reply µs (median, p99)",
            *(f"{name} / held connection" for _, name, _ in PER_CONNECTION),
            "server USS kB idle → after"]
    rows = [[r["label"], str(r["runs"]), f"{r['rate']:.0f}",
             f"{r['low']:.0f}–{r['high']:.0f}",
             f"{fmt_num(r['total_us'], 1)}, "
             f"{fmt_num(r['total_p99_us'], 1)}",
             *(fmt_num(r["per"][k], d) for k, _, d in PER_CONNECTION),
             f"{fmt_num(r['idle_uss_kb'], 0)} → "
             f"{fmt_num(r['released_uss_kb'], 0)}"]
            for r in data["rows"]]
    return head, rows


def figures(results, outdir, run, rounds, log):
    import orbbench.plot as orbplot
    return orbplot.one_figure(
        orbplot.series_of(results), outdir, log, "connect", "connect",
        "New connections: connections/s, connect and first reply, memory "
        "per held connection", connect_data, connect_figure,
        connect_caption)


def tables(results):
    """The table of the connect results, or nothing."""
    mine = orbresults.of_kind(results, "connect")
    if not mine:
        return []
    import orbbench.plot as orbplot
    head, rows = connect_table(orbplot.series_of(mine))
    return [("h2", "New connections"),
            ("p", "One client opens a connection, calls once over it and "
                  "closes it, connect.count times in connect.blocks "
                  "blocks: connections per second is the median of the "
                  "blocks' rates (median over runs), with its 95% interval; "
                  "connect and first reply, each connection's time from "
                  "connect(2) to the reply. Per held connection: what "
                  "connect.hold connections open at once added to the "
                  "server's threads, descriptors, PSS and USS, divided by "
                  "connect.hold. The server's USS idle (after the warm-up) "
                  "and once every connection was closed again."),
            ("table", head, rows, "lrrrrrrrrr")]


def connections_per_s(doc):
    """'12771/s' (median connections/s) of a connect run."""
    m = get(doc, "connect.per_s.median")
    return f"{m:.0f}/s" if is_num(m) else "—"


def _per_connection(doc, mem):
    """kB of memory measure mem (pss, uss) a held connection added to the
    server; None for MemAvailable, which the kind does not read."""
    return get(doc, f"connect.per_connection.{mem}_kb") \
        if mem in ("pss", "uss") else None


# What compare weighs of a run: its connections per second (the median of
# its blocks' rates), each connection's connect and first reply (the same
# question asked per connection: shown, not tested) and what a held
# connection costs the server.
METRICS = (
    orbmetric.Metric("per_s", "connections/s",
                     lambda d, mem: get(d, "connect.per_s.median"),
                     higher=True),
    orbmetric.Metric("total_us", "connect + first reply µs",
                     lambda d, mem: get(d, "connect.total_us.median"),
                     primary=False),
    orbmetric.Metric("per_connection_kb", "kB per held connection",
                     _per_connection, memory=True))


orbresults.register(orbresults.Kind(
    "connect", "connect",
    fields=[("connect.connections", is_num)],
    check=check, metrics=METRICS,
    figures=figures, tables=tables,
    headline=("connect", "connections/s", connections_per_s)))
