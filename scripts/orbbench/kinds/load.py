"""Latency at an offered load (scenario kind "load",
client/kinds/load.c): open-loop calls at offered rates stepping up until
a percentile passes its bound. Its results hold `load`: the settings,
steps (each offered rate: its windows, its merged latency percentiles,
its histogram in orbbench.hist's stored form, its verdict) and the
sustainable rate with its interval. compare weighs METRICS (the
sustainable rate, and the percentiles at the first offered rate, the
same in every run); a report shows its tables; its figures are
orbbench.figures.load's, and `orbbench plot` also writes each series'
histograms as HdrHistogram .hgrm files beside them."""
from pathlib import Path

import orbbench.hist as orbhist
import orbbench.metric as orbmetric
import orbbench.results as orbresults
from orbbench.results import get, is_num, median


def _step_ok(st):
    return (isinstance(st, dict) and is_num(st.get("offered_per_s")) and
            isinstance(st.get("repeats"), list) and
            ("histogram" not in st or orbhist.valid(st["histogram"])))


def check(doc, path):
    """Every step has its offered rate, its windows and, once decided, a
    histogram of the stored form."""
    ld = doc["load"]
    if not isinstance(ld, dict):
        raise ValueError(f"{path}: field 'load' is not an object")
    orbresults.check_list(path, "load.steps", ld.get("steps"), _step_ok,
                          "offered_per_s, repeats or histogram")


def first_step(doc):
    """The run's step at its first offered rate (load.rate), or None."""
    steps = get(doc, "load.steps") or []
    return steps[0] if steps and steps[0].get("verdict") else None


def _at_start(key):
    def read(doc, mem):
        v = get(first_step(doc) or {}, f"latency_us.{key}")
        return v if is_num(v) and v > 0 else None
    return read


def sustainable(doc, mem=None):
    """The highest offered rate held within the bound (calls/s), or None
    when none was (or the search did not end)."""
    if get(doc, "load.sustainable.end") in (None, "running", "none"):
        return None
    v = get(doc, "load.sustainable.per_s")
    return v if is_num(v) and v > 0 else None


# What compare weighs of a run: the sustainable rate, and the latency
# percentiles at the first offered rate (every run of a scenario steps
# through the same rates from load.rate); p99 is tested, the others shown.
METRICS = (
    orbmetric.Metric("sustainable_per_s", "sustainable calls/s",
                     sustainable, higher=True),
    orbmetric.Metric("p99_us", "p99 µs at load.rate", _at_start("p99")),
    orbmetric.Metric("p50_us", "p50 µs at load.rate", _at_start("p50"),
                     primary=False),
    orbmetric.Metric("p99.9_us", "p99.9 µs at load.rate",
                     _at_start("p99.9"), primary=False),
    orbmetric.Metric("p99.99_us", "p99.99 µs at load.rate",
                     _at_start("p99.99"), primary=False),
    orbmetric.Metric("max_us", "max µs at load.rate", _at_start("max"),
                     primary=False))


def _series(results):
    import orbbench.plot as orbplot
    return orbplot.series_of(results)


def write_hgrm(series, outdir):
    """Each series' histogram at each offered rate, its runs merged, as
    HdrHistogram .hgrm text: load-LABEL-RATE.hgrm in outdir (ms)."""
    import orbbench.figures.load as figs_load
    import orbbench.plot as orbplot
    written = []
    for label, docs in series:
        hists, _ = figs_load.steps_by_rate(docs)
        for rate, hs in sorted(hists.items()):
            name = orbplot.slug(f"load-{label}-{rate:.0f}", "load") + ".hgrm"
            (Path(outdir) / name).write_text(orbhist.hgrm(orbhist.merge(hs)))
            written.append(name)
    return written


def figures(results, outdir, run, rounds, log):
    import orbbench.figures.load as figs_load
    series = _series(results)
    figs = figs_load.load_figures(series, outdir, log=log)
    Path(outdir).mkdir(parents=True, exist_ok=True)
    write_hgrm(series, outdir)
    return figs


def _us(v):
    return "—" if v is None else f"{v / 1e3:.1f}"


def tables(results):
    """The sustainable rates and the percentile table, or nothing."""
    mine = orbresults.of_kind(results, "load")
    if not mine:
        return []
    import orbbench.figures.load as figs_load
    head = ["configuration", "runs", "bound", "sustainable calls/s",
            "interval", "limited by"]
    rows, prows = [], []
    for label, docs in _series(mine):
        sus = [get(d, "load.sustainable") for d in docs
               if isinstance(get(d, "load.sustainable"), dict)]
        b = figs_load.bound(docs)
        per = [s["per_s"] for s in sus if is_num(s.get("per_s"))]
        lows = [s["low"] for s in sus if is_num(s.get("low"))]
        highs = [s["high"] for s in sus if is_num(s.get("high"))]
        by = sorted({s.get("limited_by") or s.get("end") for s in sus})
        rows.append([label, str(len(docs)),
                     f"{b[0]} ≤ {b[1]:g} ms" if b else "—",
                     f"{median(per):.0f}" if per else "—",
                     f"{min(lows):.0f}–{max(highs):.0f}" if lows and highs
                     else (f"≥ {min(lows):.0f}" if lows else "—"),
                     ", ".join(str(x) for x in by)])
        hists, verdicts = figs_load.steps_by_rate(docs)
        for rate in sorted(hists):
            h = orbhist.merge(hists[rate])
            ach = [rep.get("achieved_per_s") for d in docs
                   for st in get(d, "load.steps") or []
                   if st.get("offered_per_s") == rate
                   for rep in st.get("repeats") or []]
            own = sum(get(st, "late.own") or 0 for d in docs
                      for st in get(d, "load.steps") or []
                      if st.get("offered_per_s") == rate)
            sched = sum(st.get("scheduled") or 0 for d in docs
                        for st in get(d, "load.steps") or []
                        if st.get("offered_per_s") == rate)
            prows.append([label, f"{rate:.0f}",
                          *(_us(orbhist.percentile(h, q))
                            for q in (50, 90, 99, 99.9, 99.99, 100)),
                          f"{median([a for a in ach if is_num(a)]) or 0:.0f}",
                          f"{100 * own / sched:.2f}" if sched else "—",
                          ", ".join(sorted(set(map(str, verdicts[rate]))))])
    return [("h2", "Latency at an offered load"),
            ("p", "Open-loop calls at offered rates stepping up until the "
                  "bound's percentile passes it, the rate achieved falls "
                  "short, the calls outstanding reach load.max_outstanding "
                  "(overloaded) or the client's own schedule slips "
                  "(slipped: its latencies are the client's). Sustainable: "
                  "the highest offered rate within the bound (median over "
                  "the runs); interval: up to the lowest rate found over."),
            ("table", head, rows, "lrlrrl"),
            ("h3", "Percentiles at each offered rate"),
            ("p", "Latency from each call's intended send time, µs, its "
                  "runs' histograms merged (within 0.8% above the exact "
                  "value); achieved: replies a second in the windows "
                  "(median); own late: the calls the client itself sent "
                  "more than load.late_us late, a share of those due."),
            ("table", ["configuration", "offered/s", "p50", "p90", "p99",
                       "p99.9", "p99.99", "max", "achieved/s", "own late %",
                       "verdicts"], prows, "lrrrrrrrrrl")]


def headline(doc):
    """'8000/s' (the sustainable rate) of a load run."""
    v = sustainable(doc)
    return f"{v:.0f}/s" if v else "—"


orbresults.register(orbresults.Kind(
    "load", "load", fields=[("load.percentile", str)], check=check,
    metrics=METRICS, figures=figures, tables=tables,
    headline=("load", "sustainable/s", headline)))
