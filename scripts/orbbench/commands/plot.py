"""Draw the figures of orbbench results, PNG and SVG each.

usage: orbbench plot RESULTS... [--out DIR] [--rounds NAME]...

RESULTS are result files or result folders (a folder's *.json, but
the suite's summary.json). Runs of one scenario whose settings differ
(idle and connected, two ORBs) are separate series, named by the
difference. Figures go to plots/<run>/ (run: the folder's name or the
file's stem) unless --out says otherwise, one question each:
  capacity        how many servers each scenario held: every run's
                  crossing N with its 95% interval, the median marked
  latency-panels  round time against N, one panel per scenario, each
                  run's crossing on the max_ms line
  cost            what a server costs at a common N: memory by part
                  (private, shared, kernel stacks, page tables, slab)
                  against the MemAvailable drop, and server CPU per call
                  (user, kernel)
  fixed-n         fixed-N results (the bench suite): one dot per run
  rounds-NAME     every round of every step and probe of a scenario
                  (--rounds NAME picks scenarios; default: all)
orbbench compare A B --plots DIR draws the comparison's figures.
A figure whose data the results lack is skipped with a one-line message.
Exit: 0 written, 2 bad input or usage (one line naming the file)."""
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.kinds  # noqa: F401  (the kinds of results)
import orbbench.outlock as orboutlock
import orbbench.paths as orbpaths
import orbbench.results as orbresults


PROG = orbcli.prog("plot")
EXAMPLES = [
    "orbbench plot results/2026-12-01-host-grisby",
    "orbbench plot results/x.json --out /tmp/figures",
    "orbbench plot results/FOLDER --rounds 06-sync-unix"]


def parse_args(argv):
    p = orbcli.parser("plot", __doc__, EXAMPLES)
    p.add_argument("results", nargs="+", help="result files or folders")
    p.add_argument("--out", metavar="DIR", help="default plots/<run>/")
    p.add_argument("--rounds", action="append", metavar="NAME",
                   help="every-round figures for this scenario only")
    return p.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    try:
        results = orbresults.load_results(a.results)
        run = orbresults.run_name(a.results)
        out = Path(a.out) if a.out else orbpaths.output("plots") / run
        orboutlock.claim(out)   # one writer a folder
        import orbbench.plot as orbplot  # matplotlib: only once the input is known good
        figures = orbplot.plot_all(results, out, run, rounds=a.rounds,
                                   log=lambda m: orbcli.note(PROG, m))
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error(a.results, e))
    for f in figures:
        print(f.png)
    orbcli.note(PROG, f"{len(figures)} figure(s), PNG and SVG, in {out}")
    return 0

