"""The upcall rate (scenario kind "rate", client/kinds/rate.c): how many
upcalls a second the servers take, and the CPU and context switches each
costs. Its results hold repeats (a window of rate.duration_s each); its
figure is orbbench.figures.rate's; a report shows its table."""
import orbbench.results as orbresults


def _repeat_ok(rep):
    return (orbresults.is_num(orbresults.get(rep, "upcalls_per_s")) and
            orbresults.is_num(orbresults.get(rep, "calls")))


def check(doc, path):
    """Every repeat has its rate and its calls."""
    orbresults.check_list(path, "repeats", doc["repeats"], _repeat_ok,
                          "upcalls_per_s or calls")


def figures(results, outdir, run, rounds, log):
    import orbbench.figures.rate as figs_rate
    import orbbench.plot as orbplot
    return figs_rate.rate_figures(orbplot.series_of(results), outdir,
                                  log=log)


def tables(results):
    """The upcall-rate table of the rate results, or nothing."""
    rates = orbresults.of_kind(results, "rate")
    if not rates:
        return []
    import orbbench.figures.rate as figs_rate
    import orbbench.plot as orbplot
    head, rows = figs_rate.rate_table(orbplot.series_of(rates))
    return [("h2", "Upcall rate"),
            ("p", "Upcalls per second: median and min–max over every "
                  "repeat of every run (each repeat a window of "
                  "rate.duration_s). CPU per upcall: medians over the "
                  "repeats; the total of each side is exact, its "
                  "user/kernel split is the kernel's tick sampling "
                  "(docs/results.md). Context switches per upcall: "
                  "client and servers."),
            ("table", head, rows, "lrrrrrrrr")]


def upcall_rate(doc):
    """'80.5 kHz' (median upcalls/s) of a rate run."""
    m = (doc.get("rate") or {}).get("upcalls_per_s", {}).get("median")
    return f"{m / 1e3:.1f} kHz" if isinstance(m, (int, float)) else "—"


orbresults.register(orbresults.Kind(
    "rate", "repeats", check=check,
    refusal="an upcall-rate result (kind rate)",
    figures=figures, tables=tables, headline=("rate", "upcalls/s", upcall_rate)))
