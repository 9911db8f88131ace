"""The variants' comparison at the suite's end, in-process (orbbench.
comparison.sets, what compare runs): every variant against the first in
one comparison, its text on stdout, compare-STEM.md and the figures in
plots-STEM/ beside the results. A failure is one line, as compare's own
exit would have been: "compare A B failed (exit 2): compare: why"."""
import sys
import warnings

import orbbench.atomic as orbatomic
import orbbench.cli as orbcli
import orbbench.comparison.sets as orbsets
import orbbench.escape as orbesc
import orbbench.outlock as orboutlock
import orbbench.stats as orbstats

# compare's own head, in the failure's reason (its exit status: 2 for
# bad input, 1 for anything else, as the command's).
COMPARE = "compare"


def quiet(_msg):
    """compare's notes (what it skipped, the figures written) are not the
    suite's: only a failure is said."""


def stem(names):
    """'base-vs-work' for two variants, 'all' for three or more."""
    others = names[1:]
    return f"{names[0]}-vs-{others[0]}" if len(others) == 1 else "all"


def compare(paths, plots):
    """(text, md) of the comparison of paths (the first the baseline), its
    figures written into plots; raises as orbbench.comparison.sets."""
    sets, cmps = orbsets.compare_paths(paths, None, "pss", None,
                                       100 * orbstats.EQUIVALENCE, quiet)
    text, md = orbsets.rendered(cmps, "text"), orbsets.rendered(cmps, "md")
    orboutlock.claim(plots)     # one writer a folder
    with warnings.catch_warnings():
        # as compare's own stderr was, when it ran as a command
        warnings.simplefilter("ignore")
        orbsets.write_all_figures(sets, cmps, paths, plots, quiet)
    return text, md


def failure(paths, e):
    """(exit status, reason) of an exception from compare(), as compare
    would have ended: its one line (exit 2), else the exception's."""
    if isinstance(e, (ValueError, OSError)):
        return 2, f"{COMPARE}: {orbesc.terminal(e, orbcli.MESSAGE_LIMIT)}"
    if isinstance(e, orbcli.SHAPE_ERRORS):
        msg = orbcli.shape_error(paths, e)
        return 2, f"{COMPARE}: {orbesc.terminal(msg, orbcli.MESSAGE_LIMIT)}"
    return 1, f"{type(e).__name__}: {e}"


def compare_variants(names, out_dir, prog):
    """Every variant's results (out_dir/NAME) against the first's, in one
    comparison; 1 when it failed (said in one line headed prog), else 0."""
    paths = [str(out_dir / n) for n in names]
    name = stem(names)
    try:
        text, md = compare(paths, out_dir / f"plots-{name}")
    except Exception as e:  # noqa: BLE001 (said in one line, exit 1)
        code, why = failure(paths, e)
        print(f"{prog}: compare {' '.join(names)} failed (exit {code}): "
              f"{why}", file=sys.stderr)
        return 1
    orbatomic.write_text(out_dir / f"compare-{name}.md", md)
    print(f"\n== {', '.join(names[1:])} against {names[0]}\n{text}")
    return 0
