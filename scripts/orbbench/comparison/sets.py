"""A comparison of result sets named by their paths, as compare makes it
and as the suite calls it in-process: load each set (its repeats), drop
lone partners and refuse what cannot be compared, find the alpha, compare
(model.compare_many), and draw the figures. Errors are ValueError or
OSError (one line, naming the input) or orbbench.cli.SHAPE_ERRORS."""
from pathlib import Path

import orbbench.escape as orbesc
import orbbench.results as orbresults
import orbbench.sequential as orbseq
import orbbench.stats as orbstats
import orbbench.validate as orbvalidate
from orbbench.comparison.model import LETTERS, compare_many
from orbbench.comparison.render import render


def load_sets(paths, log):
    """Each path's runs (orbbench.results.load_repeats), lone partners
    dropped; ValueError when the runs cannot be compared."""
    sets = [orbresults.load_repeats([path], log) for path in paths]
    sets = orbvalidate.drop_lone_partners(sets, log)
    orbresults.refuse_uncomparable([r for res in sets for r in res],
                                   "compare")
    return sets


def alpha_of(alpha, paths, log):
    """(alpha, where it came from): alpha when given (--alpha), else the
    alpha per look that the sequential run (suite --until-verdict) which
    wrote these sets spent (its sequential.json, beside the sets'
    folders, when it is bound to exactly these sets: orbbench.
    sequential), else 0.05."""
    if alpha is not None:
        return alpha, "--alpha"
    return orbseq.alpha_from_record(paths, log, orbstats.ALPHA)


def compare_paths(paths, at, mem, alpha, equivalence_pct, log):
    """(sets, cmps): the runs of each path, and the comparison of every
    set after the first with the first (one per set, model.compare_many);
    ValueError when two sets have no scenario in common."""
    sets = load_sets(paths, log)
    alpha, why = alpha_of(alpha, paths, log)
    cmps = compare_many(sets, at, mem, alpha, equivalence_pct / 100)
    for c in cmps:
        c["method"]["alpha_from"] = why
    for path, cmp in zip(paths[1:], cmps):
        if not cmp["scenarios"]:
            raise ValueError(f"{paths[0]} and {path}: no scenario in "
                             "common")
    return sets, cmps


def rendered(cmps, fmt):
    """The comparison in fmt (text, md, csv, json), a tool's text guarded
    for a terminal or a CI page (orbbench.escape.guard_lines)."""
    text = render(cmps, fmt)
    return orbesc.guard_lines(text) if fmt in ("text", "md") else text


def side_labels(res_a, res_b, path_a, path_b, x="B"):
    """What to call A and B (set x) in the figures: the ORBs when they
    differ, else the folders' (or files') names, else "A" and x."""
    la = orbresults.orb_label(res_a[0].doc)
    lb = orbresults.orb_label(res_b[0].doc)
    if la != lb:
        return la, lb
    na, nb = Path(path_a).resolve().name, Path(path_b).resolve().name
    return (na, nb) if na != nb else ("A", x)


def write_figures(cmp, res_a, res_b, outdir, labels, log):
    """One comparison's figures (orbbench.figures.compare), with the
    verdicts on the capacity figure; each written file said to log."""
    import orbbench.figures.ab as figs_ab
    import orbbench.figures.compare as figs_compare
    written = figs_compare.compare_all(
        res_a, res_b, outdir, labels,
        verdicts=figs_ab.verdicts_from_compare(cmp), log=log, cmp=cmp)
    for f in written:
        log(f"wrote {f.png} and .svg")
    return written


def write_all_figures(sets, cmps, paths, plots, log):
    """The figures of every comparison into plots: the folder itself for
    one, else one folder A-vs-X per set X."""
    out = Path(plots)
    for x, path, res, cmp in zip(LETTERS[1:], paths[1:], sets[1:], cmps):
        write_figures(cmp, sets[0], res,
                      out if len(cmps) == 1 else out / f"A-vs-{x}",
                      side_labels(sets[0], res, paths[0], path, x), log)
