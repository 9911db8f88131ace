"""The figures of a comparison of sweeps (scripts/compare --plots, a
comparison report): orbbench.figures.ab's against each other, and
orbbench.figures.run's of both sides."""
import orbbench.escape as orbesc
import orbbench.figures.ab as figs_ab
import orbbench.figures.cost as figs_cost
import orbbench.figures.run as figs_run
import orbbench.plot as orbplot
import orbbench.results as orbresults


def side_copy(doc, side):
    """doc marked as side 'a' or 'b' of a comparison (for the every-round
    figure, which colours paired runs' sides), when it is not already."""
    if orbresults.get(doc, "paired.side") in ("a", "b"):
        return doc
    return dict(doc, paired={"side": side, "id": None, "versus": []})


SIDE_COLORS = ("tab:blue", "tab:orange")


def compare_all(res_a, res_b, outdir, labels, verdicts=None, log=None,
                cmp=None):
    """The figures of a comparison (A the baseline) into outdir; return
    [Figure]: capacity A against B with the verdicts, B/A against N, the
    round-time panels (orbbench.figures.ab); what a server costs on each
    side, the fixed-N dots, and every round of both sides per scenario
    (orbbench.figures.run). Side A is blue and B orange in every
    figure. The results of kinds compared by their own metrics get, with
    cmp (the comparison), one figure per kind (orbbench.figures.metrics)
    instead."""
    log = log or (lambda m: None)
    orbresults.refuse_uncomparable(list(res_a) + list(res_b),
                                   "a comparison")
    # Names from the results (ORB labels, folders): one line each, cut
    labels = tuple(orbesc.figure_text(x) for x in labels)
    figures = []
    if cmp is not None:
        import orbbench.figures.metrics as figs_metrics
        figures = figs_metrics.kind_figures(cmp, res_a, res_b, outdir,
                                            labels, log)
    res_a, res_b = ([r for r in res if orbresults.kind(r.doc).stepped]
                    for res in (res_a, res_b))
    if not res_a and not res_b:
        return figures
    return figures + stepped_figures(res_a, res_b, outdir, labels,
                                     verdicts, log)


def stepped_figures(res_a, res_b, outdir, labels, verdicts, log):
    """compare_all's figures of the kinds with steps."""
    # Their titles name both sides already ("B against A").
    figures = figs_ab.ab_figures(
        res_a, res_b, outdir, labels, verdicts=verdicts,
        colors=dict(zip(labels, SIDE_COLORS)), log=log)
    sa, sb = dict(orbplot.series_of(res_a)), dict(
        orbplot.series_of(res_b))
    names = orbresults.seed_order(list(sa) + list(sb))
    series, colors, strips, cost_at = [], {}, [], {}
    for name in names:
        both = []
        # Both sides' cost at one N: the largest every run of both has.
        at = figs_cost.cost_n(sa.get(name, []) + sb.get(name, []))
        for side, (label, got) in enumerate(((labels[0], sa),
                                             (labels[1], sb))):
            if name in got:
                key = f"{name} [{label}]"
                series.append((key, got[name]))
                colors[key] = SIDE_COLORS[side]
                if at is not None:
                    cost_at[key] = at
                both += [side_copy(d, "ab"[side]) for d in got[name]]
        strips.append((name, both))
    return figures + figs_run.run_figures(
        series, outdir, colors=colors, log=log, strip_series=strips,
        cost_at=cost_at or None)
