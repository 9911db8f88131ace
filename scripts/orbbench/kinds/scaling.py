"""The ORB across cores (scenario kind "scaling", client/kinds/scaling.c):
k pinned client/server pairs ping-ponging at once. Its results hold
repeats (each k's pairs and their sum); its figure is
orbbench.figures.scaling's; a report shows its table."""
import orbbench.results as orbresults


def _repeat_ok(rep):
    return (orbresults.is_num(orbresults.get(rep, "k")) and
            orbresults.is_num(orbresults.get(rep, "sum_calls_per_s")) and
            isinstance(orbresults.get(rep, "pairs"), list))


def check(doc, path):
    """Every repeat has its k, its pairs and their sum."""
    orbresults.check_list(path, "repeats", doc["repeats"], _repeat_ok,
                          "k, pairs or sum_calls_per_s")


def figures(results, outdir, run, rounds, log):
    import orbbench.figures.scaling as figs_scaling
    import orbbench.plot as orbplot
    return figs_scaling.scaling_figures(orbplot.series_of(results), outdir,
                                        log=log)


def tables(results):
    """The table of the runs across cores, or nothing."""
    scalings = orbresults.of_kind(results, "scaling")
    if not scalings:
        return []
    import orbbench.figures.scaling as figs_scaling
    import orbbench.plot as orbplot
    head, rows = figs_scaling.scaling_table(orbplot.series_of(scalings))
    return [("h2", "Across cores"),
            ("p", "k client/server pairs, each pinned (scaling.placement), "
                  "ping-pong for scaling.duration_s: per-pair and summed "
                  "calls per second, medians over the repeats."),
            ("table", head, rows, "llrrrrr")]


orbresults.register(orbresults.Kind(
    "scaling", "repeats", fields=[("scaling.placement", str)], check=check,
    refusal="a result across cores (kind scaling)",
    figures=figures, tables=tables))
