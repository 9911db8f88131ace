"""The event channel figure and table (scenario kind "channel", issue 13):
what an event channel in the path adds to the time from push to logged,
per payload — pushed straight to the consumer against through the
omniEvents channel, median with p99 whiskers — and the seed's Table 8.3
(Miro, TAO 1.4: through the channel min, mean, max, std dev, median,
delta) beside ours.

channel_data returns exactly the numbers drawn and tabled: one row per
payload and transport, in the seed's payload order; runs of one payload,
transport and via (orbbench suite --repeat) are combined by the median of
each figure over the runs."""
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.results import fmt_num, is_num
from orbbench.miro import PAYLOADS  # the seed's payloads, in its order
from orbbench.plot import Skip

plt = orbplot.plt

# The seed's Table 8.3, µs, as printed (TAO 1.4, AMD K7 1 GHz, Linux
# 2.4): through the event channel min, mean, max, std dev, median, delta.
# Its delta is 8.3's mean minus 8.2's (the logging client alone:
# orbmiro.SEED_TABLE_8_2). Its "std. dev." exceeds its max in places
# (3230 against 1292): not µs, or not a standard deviation; it is shown as
# printed.
SEED_8_3 = {
    "None": (30, 33, 525, 67, 32, 30),
    "Octet1K": (32, 39, 565, 497, 34, 31),
    "Octet100K": (578, 681, 1292, 3230, 678, 86),
    "Odometry": (32, 37, 680, 284, 34, 31),
    "RangeSensor": (34, 44, 576, 699, 38, 34),
    "SharedBelief": (59, 73, 583, 935, 64, 33),
}

STATS = ("count", "min", "mean", "max", "stddev", "median", "p99")
VIAS = ("direct", "channel")


def _combine(docs):
    """The push-to-logged figures of runs of one payload, transport and
    via: each the median over the runs that measured an event; None when
    none did."""
    sums = [orbresults.get(d, "latency_us.push_to_logged") for d in docs]
    sums = [s for s in sums if isinstance(s, dict) and
            is_num(s.get("count")) and s["count"] > 0]
    if not sums:
        return None
    out = {k: orbresults.median(s.get(k) for s in sums if is_num(s.get(k)))
           for k in STATS}
    out["runs"] = len(sums)
    out["call_median"] = orbresults.median(
        orbresults.get(d, "latency_us.push_call.median") for d in docs
        if is_num(orbresults.get(d, "latency_us.push_call.median")))
    return out


def channel_data(docs):
    """{rows: [{payload, transport, direct, channel (each _combine's dict
    or None), delta_median, delta_mean (channel minus direct, None unless
    both were measured), seed (8.3's figures or None), cycle_period_ns
    (the channel runs')}], left_out: [(label, why)]}. A run that measured
    no event is left out (with its stop reason)."""
    groups, left_out = {}, []
    for d in docs:
        payload = orbresults.get(d, "channel.payload")
        via = orbresults.get(d, "channel.via")
        transport = orbresults.get(d, "channel.transport")
        label = f"{orbresults.get(d, 'scenario.name', '?')}"
        if via not in VIAS:
            left_out.append((label, f"via {via!r} is neither direct nor "
                             "channel"))
            continue
        count = orbresults.get(d, "latency_us.push_to_logged.count")
        if not is_num(count) or count == 0:
            left_out.append((label, "no event was measured (stop: "
                             f"{orbresults.get(d, 'result.stop_reason')})"))
            continue
        groups.setdefault((payload, transport), {}).setdefault(
            via, []).append(d)
    order = {p: i for i, p in enumerate(PAYLOADS)}
    rows = []
    for (payload, transport) in sorted(
            groups, key=lambda k: (order.get(k[0], len(order)), k[0],
                                   k[1])):
        g = groups[(payload, transport)]
        row = {"payload": payload, "transport": transport}
        for via in VIAS:
            row[via] = _combine(g.get(via, []))
        both = row["direct"] and row["channel"]
        row["delta_median"] = (row["channel"]["median"] -
                               row["direct"]["median"]) if both else None
        row["delta_mean"] = (row["channel"]["mean"] -
                             row["direct"]["mean"]) if both else None
        row["seed"] = SEED_8_3.get(payload)
        cycles = {orbresults.get(d, "channel.omnievents.cycle_period_ns")
                  for d in g.get("channel", [])}
        row["cycle_period_ns"] = sorted(c for c in cycles if is_num(c))
        rows.append(row)
    return {"rows": rows, "left_out": left_out}


def channel_table(data):
    """(head, rows) of the seed's Table 8.3 layout, ours beside TAO's: per
    payload and transport, through the channel min, mean, max, std dev,
    median, p99; direct median; delta of the medians and of the means
    (channel minus direct); the seed's min, mean, max, std dev, median,
    delta."""
    head = ["payload", "transport", "min", "mean", "max", "std dev",
            "median", "p99", "direct median", "Δ median", "Δ mean",
            "TAO min", "TAO mean", "TAO max", "TAO std dev", "TAO median",
            "TAO Δ"]
    rows = []
    for r in data["rows"]:
        ch, di = r["channel"] or {}, r["direct"] or {}
        seed = r["seed"] or (None,) * 6
        rows.append([r["payload"], r["transport"],
                     *(fmt_num(ch.get(k), 1) for k in (
                         "min", "mean", "max", "stddev", "median", "p99")),
                     fmt_num(di.get("median"), 1),
                     fmt_num(r["delta_median"], 1),
                     fmt_num(r["delta_mean"], 1),
                     *("—" if v is None else str(v) for v in seed)])
    return head, rows


def markdown_table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i < 2 else "---:"
                            for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def channel_caption(data):
    """The channel's added time per payload, in numbers."""
    parts = [f"{r['payload']} ({r['transport']}) "
             f"+{fmt_num(r['delta_median'], 1)} µs"
             for r in data["rows"] if r["delta_median"] is not None]
    if not parts:
        return ("No payload was measured both directly and through the "
                "channel.")
    cycles = sorted({c for r in data["rows"] for c in r["cycle_period_ns"]})
    text = ("What the omniEvents channel adds to the median time from push "
            "to logged: " + "; ".join(parts) + ".")
    if cycles:
        text += (" Its CyclePeriod_ns: " + ", ".join(f"{c:,}" for c in
                                                    cycles) + ".")
    return text + (" Whiskers reach the p99; one event in flight at a "
                   "time.")


def channel_figure(series, footer, title, data=None):
    """Per payload two points on a log µs axis, pushed directly and
    through the channel: the median, a whisker up to the p99; the added
    median above them."""
    rows = (data or {}).get("rows") or []
    if not rows:
        raise Skip("channel: skipped, no channel result measured an event")
    n = len(rows)
    fig, ax = plt.subplots(figsize=(max(7.0, 1.3 * n + 3), 5.2),
                           dpi=orbplot.DPI)
    orbplot.put_footer(fig, footer)
    offset = 0.16
    colors = {"direct": "tab:blue", "channel": "tab:orange"}
    names = {"direct": "pushed straight to the consumer",
             "channel": "through the omniEvents channel"}
    values = []
    for k, via in enumerate(VIAS):
        xs, med, up = [], [], []
        for i, r in enumerate(rows):
            s = r[via]
            if s and is_num(s["median"]) and is_num(s["p99"]):
                xs.append(i + (2 * k - 1) * offset)
                med.append(s["median"])
                up.append(max(0.0, s["p99"] - s["median"]))
                values += [s["median"], s["p99"]]
        ax.errorbar(xs, med, yerr=[[0] * len(up), up], fmt="o",
                    color=colors[via], ecolor=colors[via], capsize=4,
                    lw=1.4, ms=7, label=names[via] + " (median, p99)")
    for i, r in enumerate(rows):
        if r["delta_median"] is not None:
            top = max(r[v]["p99"] for v in VIAS)
            ax.text(i, top * 1.12, f"{r['delta_median']:+.0f} µs",
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(n))
    several = len({r["transport"] for r in rows}) > 1
    ax.set_xticklabels([r["payload"] + (f"\n{r['transport']}" if several
                                        else "") for r in rows])
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_yscale("log")
    lo, hi = min(values), max(values)
    ax.set_ylim(lo / 1.6, hi * 2.2)
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000,
                         5000, 10000, 20000, 50000, 100000)
             if lo / 1.6 <= t <= hi * 2.2]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_ylabel("push to logged (µs), log scale")
    ax.grid(axis="y", color="0.9")
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", fontsize=9, frameon=False)
    orbplot.finish(fig, title, left=0.1, right=0.98, top=0.9, bottom=0.16)
    return fig


TITLE = "What an event channel adds: push to logged, per payload"


def channel_figures(docs, outdir, log=None):
    """The channel figure of these results into outdir;
    [orbbench.plot.Figure]."""
    return orbplot.one_figure([("channel runs", list(docs))], outdir, log,
                        "channel", "channel", TITLE,
                        lambda series: channel_data(series[0][1]),
                        channel_figure, channel_caption)
