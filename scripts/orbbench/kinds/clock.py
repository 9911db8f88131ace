"""The clock (scenario kind "clock", client/kinds/clock.c): what reading
each clock source costs, and calls/s against k. Its results hold sources;
its figure is orbbench.figures.clock's."""
import orbbench.results as orbresults


def figures(results, outdir, run, rounds, log):
    """Per source, calls/s against k."""
    import orbbench.figures.clock as figs_clock
    import orbbench.plot as orbplot
    return figs_clock.clock_figures(orbplot.series_of(results), outdir,
                                    log=log)


orbresults.register(orbresults.Kind(
    # Its measurements are per time source (results before 2026-12-01
    # also carried an empty list of steps, which only a sweep fills).
    "clock", "sources",
    refusal="a clock result (kind clock)", figures=figures))
