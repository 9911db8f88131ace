"""Compare two or more sets of orbbench results, scenario by scenario; A
is the baseline.

usage: orbbench compare A B [C ...] [--at N] [--mem KIND] [--alpha A]
                        [--equivalence PCT] [--format FMT] [--plots DIR]
                        [--fail-on V[,V]] [--threshold PCT]
       orbbench compare --hosts FLEET|FOLDER ... [--mem KIND] [--format FMT]
                        [--plots DIR]

A and B are result files or result folders, each side of one ORB and one
setting per scenario; repeats (orbbench suite --repeat R) are its runs. First
what differs between the two environments (ORB, host, CPUs, kernel, tool,
compiler flags, CPU placement, scenario settings), then one row per
scenario: B/A per metric with its 95% confidence interval and a verdict.
  crossing N  the N at which the median round time crosses max_ms
              (result.crossing_n; result.max_servers in older results);
              for a sweep over connections (kind fanin) connections, and
              result.max_connections
  round ms    median round time at the largest N every run reached
  server CPU  the servers' CPU per call at that N
  PSS         memory per server at the largest N in every run's steps
A kind without steps that declares its own metrics (kind connect:
connections/s, connect + first reply, kB per held connection) is weighed
by them, in a table of its own; --plots draws compare-KIND.png.
Each run gives one value per metric; B/A is the ratio of geometric means,
tested by Student's t on the logs of the runs' values (paired runs: the
one-sample t on each run's log ratio). First the suite's answer: per
primary metric the geometric mean over scenarios with the one-sample t
over the scenarios' mean log ratios. Only the primary metrics are tested
(crossing N, or round ms at a fixed N; server CPU; memory); round ms at a
common N is descriptive. Two families, each BH-adjusted (the scenarios'
metrics; the suite rows). A difference (faster/slower, larger/smaller for
memory; negligible within 0.5%) needs q < alpha (0.05), and every tested
interval is drawn at its family's false-coverage-rate level, so it
excludes 1 exactly when there is a difference; same needs the interval
within ±3% (--equivalence), else inconclusive: the data cannot tell. A
paired difference that the sides' measured interference could make alone
is not called (interference). One run on a side gives no scenario
verdict.
More sets (C, D, …): each is compared with A as B is, the BH adjustment
runs over every test of every set, and the table has a column group per
set (--format json: {"sets", "method", "comparisons"}, one comparison
per set after A; --plots DIR: one folder A-vs-X per set).
  --equivalence PCT  same only when the interval lies within ±PCT%
             (default 3)
  --alpha A  the verdicts' level (a sequential run's sequential.json
             beside the sets' folders sets its alpha per look)
  --at N     round time, CPU and memory at this N instead (an N that
             some run measured; another is exit 2 naming those there are)
  --format text|md|csv|json  (csv: one row per scenario and metric; the
             environment differences go to stderr)
  --mem pss|uss|mem_available  memory per server to compare (default pss)
  --hosts    the host axis instead: each host's max servers and memory
             per server side by side, per scenario, and each host's
             identity (a fleet tree of orbbench fleet gives its hosts
             and their status; a result folder is one host, named by it);
             --plots DIR: one figure per scenario, a bar per host
  --plots DIR  the comparison's figures: capacity A against B with the
               verdicts, B/A round time against N, round-time panels,
               what a server costs on each side, every round per scenario
The regression gate (orbbench.gate, docs/ci.md):
  --fail-on V[,V]  exit 1, listing each regression on stderr, when a
             metric's verdict is one of slower, larger (faster, smaller)
             and its whole interval lies beyond --threshold
  --threshold PCT  at least PCT% worse (default 0)
  --format junit   JUnit XML, one test case per scenario and metric
  --format github  a GitHub Actions step summary (Markdown); ::error
             annotations on stderr
  (junit and github mark --fail-on's regressions, slower without it)
With --fail-on the decision is gate's (orbbench.decision): a scenario of
A missing from B, a scenario whose runs gave no test (they failed, one
run on a side), a run that measured nothing fail closed (exit 2).
Runs that did not end (stop running, interrupted, write_failed) are
named and left out, a copy of a run is counted once, and a set that
copies a run of A is refused.
Exit: 0 compared (no regression), 1 a regression (--fail-on), 2 bad
input or usage (one line naming the file), a comparison that cannot
decide (with --fail-on: above), or a side mixing two ORBs or two
settings of one scenario (one line)."""
import sys
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.comparison.options as orbopts
import orbbench.comparison.sets as orbsets
import orbbench.decision as orbdecision
import orbbench.gate as orbgate
import orbbench.kinds  # noqa: F401  (the kinds of results)
import orbbench.outlock as orboutlock
import orbbench.results as orbresults
from orbbench.comparison.shape import LETTERS, json_doc

ROOT = Path(__file__).resolve().parents[3]

PROG = orbcli.prog("compare")
EXAMPLES = [
    "orbbench compare results/A results/B",
    "orbbench compare results/A results/B --fail-on slower --threshold 5",
    "orbbench compare results/A results/B --format junit > junit.xml",
    "orbbench compare results/A results/B results/C --plots plots/ABC",
    "orbbench compare --hosts results/DATE-fleet-grisby"]


def parse_args(argv):
    p = orbcli.parser("compare", __doc__, EXAMPLES)
    p.add_argument("sets", nargs="+", metavar="A B [C ...]",
                   help="result files or folders; the first is the "
                   "baseline")
    p.add_argument("--at", type=int, metavar="N",
                   help="round time, CPU and memory at this N")
    p.add_argument("--mem", choices=list(orbresults.MEM_MEASURES), default="pss")
    p.add_argument("--format", choices=("text", "md", "csv", "json") +
                   orbgate.FORMATS, default="text")
    orbgate.add_arguments(p)
    p.add_argument("--plots", metavar="DIR",
                   help="write the comparison's figures")
    orbopts.add_arguments(
        p, None, "significance level of the verdicts (default 0.05; a "
        "sequential run's sequential.json sets its own)")
    p.add_argument("--hosts", action="store_true",
                   help="the host axis: hosts side by side")
    a = p.parse_args(argv)
    orbopts.check(p, a)
    if a.hosts and (a.fail_on or a.format in orbgate.FORMATS):
        p.error("--fail-on, --format junit|github: not with --hosts")
    if a.hosts:
        if a.at is not None:
            p.error("--at: not with --hosts (each host at its own max "
                    "servers)")
        return a
    if not 2 <= len(a.sets) <= len(LETTERS):
        p.error(f"give 2 to {len(LETTERS)} result sets (A, the baseline, "
                f"then those compared with it), not {len(a.sets)}")
    return a


def hosts_main(a):
    """--hosts: every host's numbers side by side (orbhosts)."""
    import orbbench.hosts as orbhosts
    try:
        hosts = orbhosts.load_hosts(a.sets)
        sys.stdout.write(orbhosts.render_hosts(hosts, a.mem, a.format))
        if a.plots:
            import orbbench.figures.hosts as figs_hosts
            for f in figs_hosts.host_figures(
                    hosts, Path(a.plots), log=lambda m: orbcli.note(PROG, m),
                    mem=a.mem):
                orbcli.note(PROG, f"wrote {f.png} and .svg")
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error(a.sets, e))
    return 0


def log(msg):
    orbcli.note(PROG, msg)


def main(argv):
    a = parse_args(argv)
    if a.hosts:
        return hosts_main(a)
    try:
        sets, cmps = orbsets.compare_paths(a.sets, a.at, a.mem, a.alpha,
                                           a.equivalence, log)
        if a.plots:
            orboutlock.claim(a.plots)   # one writer a folder
        code = gate_and_write(cmps, a)
        if a.plots:
            orbsets.write_all_figures(sets, cmps, a.sets, a.plots, log)
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error(a.sets, e))
    return code


# ---- the regression gate (orbbench.gate) ----------------------------------

def gate_and_write(cmps, a):
    """Write the comparison in a.format (junit and github by orbbench.gate,
    on the JSON document); with --fail-on, first decide as gate does on
    the same document (orbbench.decision: BadInput, exit 2, when the
    comparison cannot decide, and nothing written), then write it, list
    the regressions on stderr and return 1 if there are any, else 0."""
    doc = json_doc(cmps)
    if a.fail_on:
        sets = getattr(a, "sets", None) or []
        code, lines = orbdecision.decide(
            doc, a.fail_on, a.threshold, "the comparison" + (
                f" of {', '.join(map(str, sets))}" if sets else ""))
    fail_on = a.fail_on or frozenset({"slower"})
    if a.format in orbgate.FORMATS:
        sys.stdout.write(orbgate.render(doc, a.format, fail_on,
                                        a.threshold))
        if a.format == "github":
            for line in orbgate.annotations(doc, fail_on, a.threshold):
                print(line, file=sys.stderr)
    else:
        sys.stdout.write(orbsets.rendered(cmps, a.format))
    if not a.fail_on:
        return 0
    for line in lines:
        orbcli.note(PROG, line)
    return code

