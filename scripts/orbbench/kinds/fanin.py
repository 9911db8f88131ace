"""A sweep over connections (scenario kind "fanin", client/kinds/fanin.c):
k servers started once, N connections to them grown until the median
round time passes max_ms. Its results have the sweep's shape (steps,
probes, the crossing) with N counting connections, result.max_connections
for the largest N within max_ms, and steps[].per_connection: what a
connection added to the servers. compare weighs the sweep's METRICS, N
counting connections. Its figures and table are orbbench.figures.fanin's."""
import orbbench.kinds.sweep as sweep_kind
import orbbench.results as orbresults


def figures(results, outdir, run, rounds, log):
    import orbbench.figures.fanin as figs_fanin
    import orbbench.plot as orbplot
    return figs_fanin.fanin_figures(orbplot.series_of(results), outdir,
                                    log=log)


def tables(results):
    """The table of the sweeps over connections, or nothing."""
    mine = orbresults.of_kind(results, "fanin")
    if not mine:
        return []
    import orbbench.figures.fanin as figs_fanin
    import orbbench.plot as orbplot
    head, rows = figs_fanin.fanin_table(orbplot.series_of(mine))
    return [("h2", "Connections on one server"),
            ("p", "Connections held: the largest N (connections over "
                  "fanin.servers servers) whose median round time stayed "
                  "within max_ms (median over runs). What a connection "
                  "cost the servers at that N: threads, descriptors, PSS "
                  "and USS added since their baseline with no connection, "
                  "divided by N; the servers' CPU per call."),
            ("table", head, rows, "lrrrrrrrrrrl")]


orbresults.register(orbresults.Kind(
    "fanin", "steps",
    fields=[("scenario.name", str),
            ("scenario.fanin.max_ms", orbresults.is_num),
            ("scenario.fanin.servers", orbresults.is_num),
            ("result.max_connections", orbresults.is_num),
            ("result.stop_reason", str)],
    check=sweep_kind.check, metrics=sweep_kind.METRICS,
    figures=figures, tables=tables,
    headline=("connections", "max connections",
              orbresults.held),
    pairs=True, settings="fanin"))
