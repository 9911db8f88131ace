"""A comparison as CSV: one row per scenario and metric."""
import csv
import io
import sys

import orbbench.stats as orbstats
from orbbench.comparison.shape import LETTERS
from orbbench.comparison.parts import PROG, env_lines, unmatched_lines


CSV_HEAD = ("scenario", "metric", "at_n", "n_a", "n_b", "a_median",
            "b_median", "ratio", "ci_low", "ci_high", "p_value", "q_value",
            "verdict", "mde_pct", "scenario_verdict")


def render_csv(cmps):
    """One row per scenario and metric (and set, in a first column "set",
    when there are several), full precision."""
    for line in env_lines(cmps) + unmatched_lines(cmps):
        print(f"{PROG}: {line.strip()}", file=sys.stderr)
    many = len(cmps) > 1
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow((("set",) if many else ()) + CSV_HEAD)

    def cell(x):
        return "" if x is None else x
    for x, cmp in zip(LETTERS[1:], cmps):
        for c in cmp["scenarios"]:
            for key, m in c["metrics"].items():
                w.writerow(([x] if many else []) +
                           [c["scenario"], key, cell(m.get("at_n")),
                            m["n_a"], m["n_b"],
                            cell(orbstats.median_or_none(m["a_values"])),
                            cell(orbstats.median_or_none(m["b_values"]))] +
                           [cell(m[k]) for k in ("ratio", "ci_low",
                                                 "ci_high", "p_value",
                                                 "q_value")] +
                           [m["verdict"], cell(m["mde_pct"]),
                            c["verdict"]])
        for key, m in cmp["suite"].items():
            w.writerow(([x] if many else []) +
                       ["(suite)", key, "", m["n_scenarios"],
                        m["n_scenarios"], "", ""] +
                       [cell(m[k]) for k in ("ratio", "ci_low", "ci_high",
                                             "p_value", "q_value")] +
                       [m["verdict"], "", cmp["suite_verdict"]])
    return buf.getvalue()
