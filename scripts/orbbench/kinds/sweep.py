"""The sweep (scenario kind "sweep", client/kinds/sweep.c): N servers,
grown until the median round time passes max_ms. Its results hold steps
(and probes near the crossing); its figures are orbbench.figures.ab's and
orbbench.figures.run's; a report sums it up in its Summary, a row per
series. It is the kind of a result that names none. compare weighs its
METRICS, read from its steps (kind fanin's are the same)."""
import orbbench.metric as orbmetric
import orbbench.results as orbresults


def _step_ok(step):
    return (orbresults.is_num(orbresults.get(step, "n")) and
            orbresults.is_num(orbresults.get(step, "round_ms.median")))


def check(doc, path):
    """Every step and probe has n and a median round time; the crossing,
    when there is one, is a number."""
    orbresults.check_list(path, "steps", doc["steps"], _step_ok,
                          "n or round_ms")
    # Newer results: probes near the crossing, and the crossing itself.
    orbresults.check_list(path, "probes", doc.get("probes", []), _step_ok,
                          "n or round_ms")
    c = orbresults.get(doc, "result.crossing_n")
    if c is not None and not orbresults.is_num(c):
        raise ValueError(f"{path}: field 'result.crossing_n' is not a "
                         "number or null")


def figures(results, outdir, run, rounds, log):
    """Capacity and round-time panels (orbbench.figures.ab), what a server
    costs, the fixed-N dots and every round per scenario
    (orbbench.figures.run; rounds names the scenarios to draw every round
    of, default all). Colours are fixed per series across the figures."""
    import orbbench.figures.ab as figs_ab
    import orbbench.figures.run as figs_run
    import orbbench.plot as orbplot
    series = orbplot.series_of(results)
    colors = orbplot.palette([lb for lb, _ in series])
    out = figs_ab.single_figures(results, outdir, colors=colors, log=log,
                                 run=run)
    return out + figs_run.run_figures(
        series, outdir, colors=colors, log=log,
        strip_series=orbplot.rounds_choice(series, rounds))


def summary_rows(results):
    """The summary table of one set: one row per series, seed order."""
    groups = orbresults.group_by_scenario(results, split_orbs=True,
                                          split_settings=True)
    head = ["scenario", "runs", "crossing N", "95% intervals", "max servers",
            "stop", "PSS KiB/server", "server CPU µs/call"]
    rows = []
    for n, rs in groups.items():
        docs = [r.doc for r in rs]
        s = orbresults.summarize(docs)
        cross = [orbresults.get(d, "result.crossing_n") for d in docs]
        cross = [c for c in cross if isinstance(c, (int, float))]
        ivs = [orbresults.get(d, "result.crossing_interval") for d in docs]
        iv_text = ", ".join(f"{a:.0f}–{b:.0f}" for a, b in
                            (iv for iv in ivs if iv)) or "—"
        held = [orbresults.held_step(d) for d in docs]
        cpu = orbresults.median(orbresults.server_cpu_per_call_us(h)
                                for h in held if h)
        rows.append([n, str(len(docs)),
                     orbresults.fmt_num(orbresults.median(cross))
                     if cross else "—", iv_text,
                     orbresults.spread_text(s), ", ".join(s["stop_reasons"]),
                     orbresults.fmt_num(s["pss_kb_per_server"]),
                     orbresults.fmt_num(cpu)])
    return head, rows


def summary(results):
    """The report's Summary of the sweeps: crossing N, max servers, PSS and
    server CPU per call, a row per series."""
    head, rows = summary_rows(results)
    return [
        ("h2", "Summary"),
        ("p", "Crossing N: where the median round time reaches the "
              "scenario's max_ms (median over runs; each run's 95% "
              "interval beside it; — for results older than the "
              "crossing search). Max servers: the largest N measured "
              "within max_ms (median, min–max, runs). PSS and server "
              "CPU per call at that N. Runs of one scenario whose "
              "settings differ are separate rows, named by the "
              "difference."),
        ("table", head, rows, "lrrlrlrr")]


# ---- what compare weighs ---------------------------------------------------

def round_ms(step):
    return step["round_ms"]["median"]


def rounds(step):
    """A measurement's timed rounds: a round time's weight in a fit."""
    return step["round_ms"].get("count")


def calls(step):
    """A measurement's calls: a cost per call's weight in a fit."""
    return step.get("calls")


def client_cpu_per_call_us(step):
    """The client's CPU per call: a caller's (its cgroup: the ORB's own
    client, docs/callers.md) when one made the calls, else orbbench's own
    (getrusage); None without either."""
    own = ((step.get("caller") or {}).get("cpu_per_call_us") or {})
    if orbresults.is_num(own.get("total")):
        return own["total"]
    cpu = step.get("cpu_per_call_us") or {}
    u, s = cpu.get("client_user"), cpu.get("client_sys")
    return u + s if orbresults.is_num(u) and orbresults.is_num(s) else None


def client_threads(step):
    """The client's threads after a measurement: the caller's, else
    orbbench's own."""
    t = (step.get("caller") or {}).get("threads")
    if orbresults.is_num(t):
        return t
    return (step.get("client") or {}).get("threads")


def client_uss_kb(doc, mem):
    """What each server cost the caller in memory: result.costs.caller's
    slope of USS over N (None for orbbench's own client, whose USS no
    step records)."""
    return orbresults.get(doc, "result.costs.caller.memory_per_server_kb"
                               ".uss_kb")


def has_caller(docs):
    """Did a caller make some run's calls (result.caller)?"""
    return any(d.get("caller") for d in docs)


# What compare weighs of a run, in its row's order: its crossing N (a
# fixed-N run's round time instead: one N by design has no crossing), the
# servers' CPU per call and memory per server at the N the costs are
# read at; round time there asks the crossing's question again at one
# point (shown, not tested). The client half (docs/callers.md) is
# descriptive, and there only where a caller made some run's calls.
Metric = orbmetric.Metric
METRICS = (
    Metric("crossing_n", "crossing N", higher=True, at="crossing",
           primary=orbmetric.MANY_N),
    Metric("round_ms", "round ms", at="fit", step=round_ms,
           low=orbresults.round_ms_low, weight=rounds, says="median round",
           primary=orbmetric.ONE_N),
    Metric("server_cpu_us", "server CPU", at="fit",
           step=orbresults.server_cpu_per_call_us,
           low=orbresults.server_cpu_low_us, weight=calls,
           says="total over the calls"),
    Metric("client_cpu_us", "client CPU", at="fit",
           step=client_cpu_per_call_us, weight=calls,
           says="total over the calls", when=has_caller, primary=False),
    Metric("{mem}_kb", "{mem}", memory=True, at="memory",
           step=orbresults.mem_per_server_kb),
    Metric("client_threads", "client threads", at="nearest",
           step=client_threads, when=has_caller, primary=False),
    Metric("client_uss_kb", "client USS/server", client_uss_kb,
           memory=True, when=has_caller, primary=False,
           missing="orbbench's own client: no USS per server recorded"))


orbresults.register(orbresults.Kind(
    "sweep", "steps",
    # The sweep's own order: max_ms and max_servers before the stop.
    fields=[("scenario.name", str),
            ("scenario.sweep.max_ms", orbresults.is_num),
            ("result.max_servers", orbresults.is_num),
            ("result.stop_reason", str)],
    check=check, metrics=METRICS, figures=figures, summary=summary,
    headline=("max servers", "max servers",
              orbresults.held),
    pairs=True, settings="sweep",
    # 3 + 2 untimed rounds a paired block: measured on 553 paired steps,
    # docs/kinds/sweep.md "What a step does".
    paired_opening=(3, 2)))
