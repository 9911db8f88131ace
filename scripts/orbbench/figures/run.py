"""The figures of a set of runs, one question each (issue 10), written to a
folder: what a server costs (orbbench.figures.cost: memory by part, CPU
per call), fixed-N results (fixed_n), every round of every step (strip).
Each figure's module has a pure data function beside it that returns
exactly the numbers drawn, so the tests check numbers, not pixels.

A *series* is (label, [result documents]): one scenario, or one scenario of
one side or setting; its documents are its runs (repeats). orbbench.plot.Series
(label, color, style, docs) is accepted too."""
import orbbench.escape as orbesc
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.cost import cost_caption, cost_data, cost_figure
from orbbench.figures.fixed_n import (fixed_n_caption, fixed_n_data,
                                      fixed_n_figure)
from orbbench.figures.strip import (NO_ROUNDS, NoRounds, strip_caption,
                                    strip_data, strip_figure)
from orbbench.plot import Skip


def _all_docs(series):
    return [d for _, docs in series for d in docs]


def footer_of(docs):
    """The one-line footer (host, ORB, date) of the figures."""
    return orbresults.footer([orbresults.Result(None, d) for d in docs])


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
        except NoRounds as e:       # said once for them all, below
            no_rounds.append(e.label)
            continue
        except Skip as e:
            log(str(e))
            continue
        except ValueError as e:     # as orbbench.plot.attempt says it
            log(f"{stem}: not drawn ({orbesc.terminal(e)})")
            continue
        figures.append(orbplot.save(fig, outdir, stem, title, caption))
    if no_rounds and len(no_rounds) == len(swept):
        log(f"rounds: skipped, {NO_ROUNDS}")
    elif no_rounds:
        log(f"rounds: skipped for {', '.join(no_rounds)}: {NO_ROUNDS}")
    return figures
