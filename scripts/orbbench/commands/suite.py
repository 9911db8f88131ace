"""Run every scenario of a folder, one result file each, then print the
summary table (scenario, max servers, median round ms at the crossing) and
write it as summary.md beside the results.

usage: orbbench suite DIR [--set KEY=VALUE]... [--repeat R] [--out DIR]
                      [--variant NAME[:KEY=VALUE[,KEY=VALUE...]]]...
                      [--orb ID]... [--only GLOB]... [--paired]
                      [--at-n N] [--warm] [--prior DIR]
                      [--until-verdict [--max-repeat K] [--budget MINUTES]
                       [--equivalence PCT] [--scope SCOPE]]

With --variant or --orb (repeatable) every scenario runs once per
variant, interleaved, into a sub-folder each, and the variants are
compared with the first (compare-FIRST-vs-OTHER.md, or compare-all.md
for three or more). Two variants that differ only in server.* and
caller.* keys run as paired runs (both sides' servers at once, measured
in turns) unless --solo. --until-verdict repeats until the comparison
is decided; --at-n N is the fast gate, one N in blocks; --warm and
--prior DIR start the crossing search where a run before found it.
--out names a new or empty folder. Ctrl-C stops the suite after the
summary of what ran. The whole story, with the measurements behind the
defaults: docs/suite.md.

Exit: 0 all ran to a stop (and every comparison was made), 1 some failed
or a comparison failed, 2 usage error, 130 interrupted, 143 or 129 ended
by SIGTERM or SIGHUP."""
import argparse

import orbbench.atomic as orbatomic
import orbbench.cli as orbcli
import orbbench.kinds  # noqa: F401  (the kinds the plan and rows look up)
import orbbench.paths as orbpaths
import orbbench.sequential as orbseq
import orbbench.suite.plan as suiteplan
import orbbench.suite.runner as suiterunner
import orbbench.suite.summary as suitesummary

PROG = orbcli.prog("run-suite")
SEE = "(docs/suite.md)"

EXAMPLES = [
    "orbbench suite scenarios/grisby",
    "orbbench suite scenarios/grisby --only '*-unix' --repeat 3",
    "orbbench suite scenarios/grisby --orb omniorb-system --orb "
    "omniorb-4.3.3",
    "orbbench suite scenarios/grisby --paired --until-verdict --variant a "
    "--variant b",
    "orbbench suite scenarios/grisby --paired --at-n 500 --variant base "
    "--variant work:server.work_us=1",
    "orbbench suite scenarios/grisby --orb omniorb-system --orb "
    "omniorb-4.3.3 --prior results/BASE"]


def add_variant_arguments(p):
    """--variant, --orb and --only: what runs."""
    p.add_argument("--variant", action="append", dest="variants",
                   default=[], type=lambda v: ("variant", v),
                   metavar="NAME[:KEY=VALUE,...]",
                   help="run every scenario once per variant; repeat to "
                   "compare")
    p.add_argument("--orb", action="append", dest="variants", default=[],
                   type=lambda v: ("orb", v), metavar="ID",
                   help="ORB installation: --variant ID:server.orb=ID")
    p.add_argument("--only", action="append", default=[], metavar="GLOB",
                   help="only the scenarios whose file name (without "
                   ".json) matches GLOB; repeatable")


def add_pairing_arguments(p):
    """--paired, --solo and --until-verdict's: how two variants run."""
    p.add_argument("--paired", action="store_true",
                   help="two variants, each run as one paired run "
                   "(orbbench --versus; the default where they can be)")
    p.add_argument("--solo", action="store_true",
                   help="two variants as interleaved solo runs, not paired")
    p.add_argument("--until-verdict", action="store_true",
                   help=f"with --paired: repeat until decided {SEE}")
    p.add_argument("--max-repeat", type=int, default=8, metavar="K",
                   help="--until-verdict: at most K repeats (default 8)")
    p.add_argument("--equivalence", type=float, default=3.0, metavar="PCT",
                   help="--until-verdict: an interval within ±PCT%% of 1 "
                   "is decided (default 3)")
    p.add_argument("--scope", choices=orbseq.SCOPES, default="suite",
                   help="--until-verdict: which metrics must be decided")
    p.add_argument("--budget", type=float, metavar="MINUTES",
                   help="--until-verdict: start no repeat that would end "
                   "past this")


def parse_args(argv):
    p = orbcli.parser("suite", __doc__, EXAMPLES, raw=True)
    p.add_argument("dir", help="folder of scenario .json files")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a key in every scenario")
    p.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="run each scenario R times (for the spread)")
    add_variant_arguments(p)
    add_pairing_arguments(p)
    p.add_argument("--at-n", type=int, metavar="N",
                   help="the fast gate: measure every scenario at N in "
                   f"blocks, no sweep {SEE}")
    p.add_argument("--warm", action="store_true",
                   help="start each repeat of a scenario at the crossing the "
                   f"one before found {SEE}")
    p.add_argument("--prior", metavar="DIR",
                   help="start each scenario's first repeat at the crossing "
                   "a previous suite's results in DIR found; implies --warm")
    p.add_argument("--out", metavar="DIR",
                   help="result folder (default results/DATE-HOST-SUITE)")
    p.add_argument("--format", choices=suitesummary.FORMATS,
                   default="text",
                   help="the closing table on stdout (summary.md and "
                   "summary.json are written either way)")
    # $ORBBENCH_BIN/orbbench when set (a sanitized build's bin folder),
    # else the repository's bin/orbbench.
    p.add_argument("--orbbench", default=str(orbpaths.client()),
                   help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    try:
        plan = suiteplan.build(a, argv)
        runner = suiterunner.Runner(plan, PROG)
    except suiteplan.PlanError as e:
        orbcli.fail(PROG, str(e))
    try:
        return runner.run()
    except orbatomic.WriteError as e:
        # The runs' results are written; what could not be, is named.
        orbcli.fail(PROG, str(e))
