"""Many objects in one server (scenario kind "objects",
client/kinds/objects.c): one server whose objects grow from M = 1 by a
factor a step; at each step the server makes the new ones (a servant
each, or one default servant), K echoString calls go to objects picked
uniformly among the M, and the server's footprint is read. Its results
hold `objects`: the steps (m, make, call_us, call_ratio against M = 1,
footprint, kb_per_object since M = 1), the reference's sizes, the POA's
policies as the server set them, where the keys hold the number
(key_form), and the time to make an object over the run.

A *series* is (label, [result documents]): one scenario, split by ORB
and settings as orbbench.plot.series_of does; its documents are its
runs. compare weighs its METRICS, one value per run; a report shows the
table and three figures, one question each, on log axes: memory per
object, a call's time and the time to make an object, each against M."""
import orbbench.metric as orbmetric
import orbbench.results as orbresults
from orbbench.results import fmt_num, get, is_num, median


def _step_ok(step):
    return isinstance(step, dict) and is_num(step.get("m")) and \
        is_num(get(step, "call_us.median"))


def check(doc, path):
    """Every step has its M and its calls' median."""
    o = doc["objects"]
    if not isinstance(o, dict):
        raise ValueError(f"{path}: field 'objects' is not an object")
    orbresults.check_list(path, "objects.steps", o.get("steps"), _step_ok,
                          "m or call_us.median")


def steps(doc):
    """The run's steps, in order."""
    return get(doc, "objects.steps") or []


def largest(doc):
    """The step at the largest M the run measured, or None."""
    s = steps(doc)
    return s[-1] if s else None


def _at_max_m(doc):
    """The step at the scenario's objects.max_m, or None when the run did
    not reach it."""
    top = largest(doc)
    want = get(doc, "scenario.objects.max_m")
    return top if top and is_num(want) and top["m"] == want else None


def kb_per_object(doc, mem):
    """kB of memory measure mem (pss, uss) an object added to the server
    since M = 1, at the largest M; None for MemAvailable (not read here)
    and for a cost within a page's noise (at or below 0: a default
    servant's), which no ratio can weigh."""
    top = largest(doc)
    v = get(top, f"kb_per_object.{mem}") if top and mem in ("pss", "uss") \
        else None
    return v if is_num(v) and v > 0 else None


def call_us_at_max(doc):
    """A call's median (µs) at M = objects.max_m, or None."""
    top = _at_max_m(doc)
    return get(top, "call_us.median") if top else None


def call_growth_at_max(doc):
    """A call's median at M = objects.max_m over its median at M = 1."""
    top = _at_max_m(doc)
    v = get(top, "call_ratio.median") if top else None
    return v if is_num(v) and v > 0 else None


# What compare weighs of a run: the memory an object costs the server
# (its verdict larger/smaller), the time the server takes to make one,
# and a call's median at the scenario's max_m against M = 1 (the
# demultiplexing's cost; the call's time itself shown beside it, not
# tested: the same question with the transport in it).
METRICS = (
    orbmetric.Metric("kb_per_object", "kB per object",
                     kb_per_object, memory=True),
    orbmetric.Metric("create_us", "µs to make an object",
                     lambda d, mem: get(
                          d, "objects.create_us_per_object.server")),
    orbmetric.Metric("call_growth", "call at max_m / at M=1",
                     lambda d, mem: call_growth_at_max(d)),
    orbmetric.Metric("call_us", "call µs at max_m",
                     lambda d, mem: call_us_at_max(d), primary=False))


def _kb(v):
    """kB an object to 3 decimals; a cost that rounds to 0 is 0.000 (no
    sign: a page less is as much noise as a page more)."""
    if not is_num(v):
        return "—"
    return f"{0.0 if abs(v) < 0.0005 else v:.3f}"


def _median_at(docs, m, dotted):
    return median(get(s, dotted) for d in docs for s in steps(d)
                  if s["m"] == m and is_num(get(s, dotted)))


def objects_data(series):
    """Per series with a step: {label, runs, servants, policies, ms [M],
    at {field: {M: median over runs}}, largest (median of the runs'
    largest M), stops, pss_kb, uss_kb (per object at each run's largest
    M, median), create_server_us, create_client_us (over the run),
    m1_us, top_us (call medians at M = 1 and at the largest M), ratio,
    p99_ratio (at the largest M), ior_bytes, key_bytes, index (the key
    holds an index of the ORB's)}; and left_out [(label, why)]."""
    fields = {"pss": "kb_per_object.pss", "uss": "kb_per_object.uss",
              "median_us": "call_us.median", "p99_us": "call_us.p99",
              "make_server_us": "make.server_us_per_object",
              "make_client_us": "make.client_us_per_object"}
    out, left_out = [], []
    import orbbench.plot as orbplot
    for label, docs in orbplot.pairs(series):
        docs = [d for d in docs if steps(d)]
        if not docs:
            left_out.append((label, "no step was measured"))
            continue
        ms = sorted({s["m"] for d in docs for s in steps(d)})
        tops = [largest(d) for d in docs]

        def top(dotted):
            return median(get(t, dotted) for t in tops
                          if is_num(get(t, dotted)))

        d0 = docs[0]
        policies = get(d0, "objects.policies")
        out.append({
            "label": label, "runs": len(docs),
            "servants": get(d0, "objects.servants"),
            "policies": " ".join(policies) if isinstance(policies, list)
            else "—",
            "ms": ms,
            "at": {f: {m: _median_at(docs, m, dotted) for m in ms}
                   for f, dotted in fields.items()},
            "largest": median(t["m"] for t in tops),
            "stops": sorted({get(d, "result.stop_reason") for d in docs}),
            "pss_kb": top("kb_per_object.pss"),
            "uss_kb": top("kb_per_object.uss"),
            "create_server_us": median(
                get(d, "objects.create_us_per_object.server") for d in docs
                if is_num(get(d, "objects.create_us_per_object.server"))),
            "create_client_us": median(
                get(d, "objects.create_us_per_object.client") for d in docs
                if is_num(get(d, "objects.create_us_per_object.client"))),
            "m1_us": median(get(steps(d)[0], "call_us.median")
                            for d in docs),
            "top_us": top("call_us.median"),
            "ratio": top("call_ratio.median"),
            "p99_ratio": top("call_ratio.p99"),
            "ior_bytes": get(d0, "objects.reference.ior_bytes"),
            "key_bytes": get(d0, "objects.reference.key_bytes"),
            "index": isinstance(get(d0, "objects.key_form.index"), dict)})
    return {"series": out, "left_out": left_out}


def _points(s, field):
    """(M, value) of a series' at[field] that a log axis can hold."""
    return [(m, v) for m, v in s["at"][field].items() if is_num(v) and v > 0]


def _page_line(ax, data):
    """One 4 kB page over M − 1 objects, dotted: the least growth since
    M = 1 the footprint can tell (a smaller cost reads as a page or 0)."""
    ms = [m for s in data["series"] for m in s["ms"] if m > 1]
    if ms:
        xs = sorted(set(ms))
        ax.plot(xs, [4.0 / (m - 1) for m in xs], ls=":", lw=1, color="0.5",
                label="one 4 kB page / (M − 1)")


def _drawer(solid, dashed, ylabel, what, extra=None):
    """A figure of at[solid] (and at[dashed], dashed) against M, log-log,
    a colour a series; extra(ax, data) draws more."""
    def draw(series, footer, title, data=None):
        import orbbench.plot as orbplot
        from orbbench.figures.layout import new_figure
        data = data or objects_data(series)
        if not any(_points(s, solid) for s in data["series"]):
            raise orbplot.Skip(f"objects: skipped {what}, no step has it "
                               "above 0")
        colors = orbplot.palette([s["label"] for s in data["series"]])
        fig, axes = new_figure(10, 6, footer)
        orbplot.finish(fig, title)
        ax = axes[0][0]
        for s in data["series"]:
            for field, style in ((solid, dict(lw=1.4, label=s["label"])),
                                 (dashed, dict(lw=0.9, ls="--"))):
                pts = _points(s, field)
                if pts:
                    ax.plot(*zip(*pts), marker="o", ms=3,
                            color=colors[s["label"]], **style)
        if extra:
            extra(ax, data)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("objects in the server (M)")
        ax.set_ylabel(ylabel)
        ax.grid(color="0.9", which="both")
        ax.set_axisbelow(True)
        ax.legend(fontsize=8, frameon=False)
        return fig
    return draw


def memory_caption(data):
    parts = [f"{s['label']} {_kb(s['pss_kb'])} kB PSS at M="
             f"{fmt_num(s['largest'])}" for s in data["series"]]
    return ("Memory an object added to the server since M = 1 (PSS solid, "
            "USS dashed; a point at or below 0 is left off the log axis). "
            "Dotted: one 4 kB page over M − 1, the least the footprint "
            "tells; a line on it grew by a page, no more. At the largest "
            "M: "
            + "; ".join(parts) + ".")


def call_caption(data):
    parts = [f"{s['label']} {fmt_num(s['top_us'], 1)} µs at M="
             f"{fmt_num(s['largest'])}, {fmt_num(s['ratio'], 2)}× M = 1"
             for s in data["series"]]
    return ("A call's median (solid) and p99 (dashed) over K calls spread "
            "uniformly over the M objects: " + "; ".join(parts) + ".")


def create_caption(data):
    parts = [f"{s['label']} {fmt_num(s['create_server_us'], 2)} µs"
             for s in data["series"]]
    return ("Time to make an object and its reference, per step's new "
            "objects: the server's clock (solid), the client's view of "
            "makeObjects (dashed). Over every object made: "
            + "; ".join(parts) + ".")


def figures(results, outdir, run, rounds, log):
    import orbbench.plot as orbplot
    series = orbplot.series_of(results)
    out = orbplot.one_figure(
        series, outdir, log, "objects", "objects-memory",
        "Many objects in one server: memory per object against M",
        objects_data, _drawer("pss", "uss", "server kB per object since "
                              "M = 1 (PSS solid, USS dashed)",
                              "the memory figure", _page_line),
        memory_caption)
    out += orbplot.one_figure(
        series, outdir, log, "objects", "objects-call",
        "Many objects in one server: a call's time against M",
        objects_data, _drawer("median_us", "p99_us", "echoString µs "
                              "(median solid, p99 dashed)",
                              "the call figure"), call_caption)
    return out + orbplot.one_figure(
        series, outdir, log, "objects", "objects-create",
        "Many objects in one server: time to make an object against M",
        objects_data, _drawer("make_server_us", "make_client_us",
                              "µs to make an object (server solid, client "
                              "dashed)", "the creation figure"),
        create_caption)


def objects_table(series):
    """(head, rows) of the report's table, from objects_data."""
    data = objects_data(series)
    head = ["configuration", "runs", "servants", "largest M", "stop",
            "PSS kB/object", "USS kB/object", "make µs/object (server, "
            "client)", "call µs at M=1", "call µs at largest M",
            "median ×", "p99 ×", "IOR bytes", "key bytes"]
    rows = [[s["label"], str(s["runs"]),
             f"{s['servants']} ({s['policies']})", fmt_num(s["largest"]),
             ", ".join(s["stops"]), _kb(s["pss_kb"]), _kb(s["uss_kb"]),
             f"{fmt_num(s['create_server_us'], 2)}, "
             f"{fmt_num(s['create_client_us'], 2)}",
             fmt_num(s["m1_us"], 1), fmt_num(s["top_us"], 1),
             fmt_num(s["ratio"], 2), fmt_num(s["p99_ratio"], 2),
             fmt_num(s["ior_bytes"]),
             fmt_num(s["key_bytes"]) + (" (with an index)" if s["index"]
                                        else "")]
            for s in data["series"]]
    return head, rows


def tables(results):
    """The table of the objects results, or nothing."""
    mine = orbresults.of_kind(results, "objects")
    if not mine:
        return []
    import orbbench.plot as orbplot
    head, rows = objects_table(orbplot.series_of(mine))
    return [("h2", "Many objects in one server"),
            ("p", "One server makes M objects, M from 1 by objects.growth "
                  "a step: a servant each, or one default servant (the "
                  "POA's policies as the server set them). Per object: "
                  "what it added to the server's PSS and USS since M = 1 "
                  "at the largest M reached, and the time to make it and "
                  "its reference (the server's clock, the client's view "
                  "of makeObjects) over every object made. A call's "
                  "median over K calls spread uniformly over the M, at "
                  "M = 1 and at the largest M, and how many times M = 1's "
                  "that median and p99 are (medians over runs). The IOR "
                  "and its object key, in bytes."),
            ("table", head, rows, "lrlrlrrrrrrrrr")]


def headline(doc):
    """'0.352 kB/object at M=1000000' of an objects run."""
    top = largest(doc)
    v = get(top, "kb_per_object.pss") if top else None
    if not top:
        return "—"
    return (f"{_kb(v)} kB/object at M={top['m']}" if is_num(v)
            else f"M={top['m']}")


orbresults.register(orbresults.Kind(
    "objects", "objects",
    fields=[("objects.made", is_num)],
    check=check, metrics=METRICS,
    figures=figures, tables=tables,
    headline=("objects", "PSS per object", headline)))
