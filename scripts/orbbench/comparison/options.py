"""The options that set how a comparison decides, --alpha and
--equivalence, for the commands that judge result sets (compare,
history): one spelling, one range check."""
import math

import orbbench.stats as orbstats


def add_arguments(p, alpha_default=orbstats.ALPHA, alpha_help=None):
    """--alpha A (default alpha_default; alpha_help says more when the
    default is not a number) and --equivalence PCT on parser p."""
    p.add_argument("--alpha", type=float, metavar="A", default=alpha_default,
                   help=alpha_help or "significance level of the verdicts "
                   "(default %(default)g)")
    p.add_argument("--equivalence", type=float, metavar="PCT", default=100 *
                   orbstats.EQUIVALENCE,
                   help="'same' only when the interval lies within ±PCT%% "
                   "(an equivalence test; default %(default)g)")


def check(p, a):
    """p.error (exit 2, one line) for an --equivalence outside (0, 100)
    or an --alpha (when given) outside (0, 0.5)."""
    if not 0 < a.equivalence < 100 or not math.isfinite(a.equivalence):
        p.error(f"--equivalence {a.equivalence}: give a percentage between "
                "0 and 100")
    if a.alpha is not None and not 0 < a.alpha < 0.5:
        p.error(f"--alpha {a.alpha}: give a level between 0 and 0.5")
