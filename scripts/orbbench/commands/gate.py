"""The regression gate on a saved comparison: what `compare --fail-on`
does, on the JSON document `compare --format json` wrote, so that one
comparison gives the gate, the JUnit file and the step summary.

usage: orbbench gate COMPARE.json --fail-on V[,V] [--threshold PCT]
                     [--format FMT]

  --fail-on V[,V]  slower, larger, faster, smaller: a metric with one of
                   these verdicts whose whole interval lies beyond
                   --threshold is a regression (orbbench.gate)
  --threshold PCT  at least PCT% worse (default 0)
  --format text|junit|github  text: the regressions, one a line (the
                   default); junit: one test case per scenario and
                   metric; github: a step summary in Markdown (and
                   ::error annotations on stderr)
The decision is compare --fail-on's (orbbench.decision): every verdict
is drawn again from the values the comparison holds, and one that does
not follow from them is refused; a scenario of A missing from B, a
scenario whose runs gave no test, a run that measured nothing fail
closed.
Exit: 0 no regression, 1 a regression (each listed on stderr), 2 bad
input or usage, or a comparison that cannot decide (one line naming the
file)."""
import sys

import orbbench.cli as orbcli
import orbbench.decision as orbdecision
import orbbench.gate as orbgate
import orbbench.kinds  # noqa: F401  (the kinds a comparison's rows name)
import orbbench.safeload as orbsafe

PROG = orbcli.prog("gate")
EXAMPLES = [
    "orbbench compare results/A results/B --format json > compare.json",
    "orbbench gate compare.json --fail-on slower --threshold 5",
    "orbbench gate compare.json --fail-on slower --format junit > junit.xml",
    "orbbench gate compare.json --fail-on slower --format github "
    ">> \"$GITHUB_STEP_SUMMARY\""]


def parse_args(argv):
    p = orbcli.parser("gate", __doc__, EXAMPLES)
    p.add_argument("file", metavar="COMPARE.json")
    p.add_argument("--format", choices=("text",) + orbgate.FORMATS,
                   default="text")
    orbgate.add_arguments(p)
    a = p.parse_args(argv)
    if not a.fail_on:
        p.error("--fail-on: required (e.g. --fail-on slower)")
    return a


def main(argv):
    a = parse_args(argv)
    try:
        doc = orbsafe.load_object(a.file)
        # compare --fail-on's decision, on the saved document: re-derived
        # from its values, fails closed on what was not measured (exit 2)
        code, lines = orbdecision.decide(doc, a.fail_on, a.threshold,
                                         a.file)
        if a.format in orbgate.FORMATS:
            sys.stdout.write(orbgate.render(doc, a.format, a.fail_on,
                                            a.threshold))
        if a.format == "github":
            for line in orbgate.annotations(doc, a.fail_on, a.threshold):
                print(line, file=sys.stderr)
    except orbsafe.BadInput as e:      # names the file and the field
        orbcli.fail(PROG, e)
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, f"{a.file}: {e}")
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, f"{a.file}: not a document of compare --format "
                    f"json ({type(e).__name__}: {e})")
    out = sys.stdout if a.format == "text" else sys.stderr
    for line in lines:
        print(f"{PROG}: {line}", file=out)
    return code
