"""Enough repeats, no more: the stopping rule of run-suite --until-verdict.

A paired suite is repeated until every primary metric is decided, or a
fixed maximum of repeats (or a time budget) is reached. Decided means its
interval, drawn at the level the verdicts use, either excludes 1 (a
difference: the verdict is not same) or lies within ±delta of 1
(equivalence: whatever difference there is, it is smaller than delta).

Looking at the results after every repeat and stopping at the first
verdict would inflate false alarms: each look is one more chance for
noise to cross the line. So the looks are planned (repeats min..max: at
most max - min + 1 of them) and the error rate is spent over them
(Bonferroni alpha spending): every look tests at alpha / looks. By the
union bound the chance that any look of an A/A suite gives a false
verdict is at most alpha, whatever the stopping rule does; the final
comparison is made at that same alpha / looks (compare --alpha), and
sequential.json records it. tests/e2e/test_sequential.py checks the
false-alarm rate by simulation from this machine's measured noise."""
import json
import os
from pathlib import Path

ALPHA = 0.05

SCOPES = ("suite", "scenarios")


class Plan:
    """The planned looks: after repeat min_repeats, and each repeat after,
    up to max_repeats; delta_pct the equivalence margin (3: ±3%); scope
    "suite" (the suite rows) or "scenarios" (every scenario's primary
    metrics too)."""

    def __init__(self, min_repeats, max_repeats, delta_pct=3.0,
                 scope="suite", alpha=ALPHA):
        if not 2 <= min_repeats <= max_repeats:
            raise ValueError(f"repeats: need 2 <= min ({min_repeats}) <= "
                             f"max ({max_repeats})")
        if not 0 < delta_pct < 100:
            raise ValueError(f"equivalence margin {delta_pct}%: give 0-100")
        if scope not in SCOPES:
            raise ValueError(f"scope {scope!r}: one of {', '.join(SCOPES)}")
        self.min_repeats, self.max_repeats = min_repeats, max_repeats
        self.delta_pct, self.scope, self.alpha = delta_pct, scope, alpha

    @property
    def looks(self):
        return self.max_repeats - self.min_repeats + 1

    @property
    def alpha_per_look(self):
        return self.alpha / self.looks

    def as_json(self):
        return {"min_repeats": self.min_repeats,
                "max_repeats": self.max_repeats, "looks": self.looks,
                "alpha": self.alpha, "alpha_per_look": self.alpha_per_look,
                "equivalence_pct": self.delta_pct, "scope": self.scope,
                "rule": "stop when every primary metric's interval (at the "
                        "verdicts' level) excludes 1 or lies within "
                        "±equivalence of 1; Bonferroni alpha spending over "
                        "the planned looks"}


def state(m, delta_pct):
    """'differs' (its interval excludes 1), 'equivalent' (within ±delta),
    'open', or None for a metric without a test."""
    lo, hi = m.get("ci_low"), m.get("ci_high")
    if m.get("q_value") is None or lo is None or hi is None:
        return None
    if not lo <= 1 <= hi:
        return "differs"
    d = delta_pct / 100
    if lo >= 1 / (1 + d) and hi <= 1 + d:
        return "equivalent"
    return "open"


def open_metrics(cmp, plan):
    """[(where, metric key, state)] of the primary metrics not yet decided
    in one comparison (compare_many()'s dict): where is "suite" or a
    scenario's name."""
    items = [("suite", k, m) for k, m in cmp.get("suite", {}).items()]
    if plan.scope == "scenarios":
        items += [(r["scenario"], k, m) for r in cmp["scenarios"]
                  for k, m in r["metrics"].items() if m.get("primary")]
    return [(w, k, s) for w, k, m in items
            if (s := state(m, plan.delta_pct)) == "open"]


def decided(cmps, plan):
    """True when no comparison has an open primary metric."""
    return not any(open_metrics(c, plan) for c in cmps)


def budget_left(elapsed_s, repeat_s, budget_s):
    """True when another repeat, as long as the mean so far, fits in the
    budget (None: no budget)."""
    return budget_s is None or elapsed_s + repeat_s <= budget_s


def fmt_state(opens):
    """'crossing_n (suite), server_cpu_us (sync-unix)' …"""
    return ", ".join(f"{k} ({w})" for w, k, _ in opens[:6]) + (
        f" and {len(opens) - 6} more" if len(opens) > 6 else "")


def write_record(path, doc):
    """Write the record (sequential.json) atomically: a temporary file
    beside it, then a rename, so a killed suite leaves the old one or
    the new one, never half of one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
