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
    write_record_text(path, json.dumps(doc, indent=1) + "\n")


def write_record_text(path, text):
    """Write text to path atomically (a temporary file, then a rename)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# ---- sequential.json, bound to the result sets it is about ------------------
#
# compare spends the record's alpha per look only when the record is the
# one the suite wrote for exactly the sets it is given: the suite writes
# each variant's files, their run ids (paired.id) and a sha256 of their
# names and bytes into "bound"; compare recomputes them. A record lying
# beside other results (copied, forged without the digest, or from an
# earlier suite) is named and ignored: compare then uses its own alpha.

RECORD = "sequential.json"
MAX_LOOKS = 100


def bind(out_dir, names):
    """{"sets": {name: {"files", "runs", "sha256"}}} of the variants'
    result folders under out_dir, for the record."""
    import orbbench.results as orbresults
    import orbbench.safeload as orbsafe
    sets = {}
    for n in names:
        files = orbresults.result_files([Path(out_dir) / n])
        runs = []
        for f in files:
            try:
                runs.append(orbresults.get(orbsafe.load_json(f), "paired.id"))
            except ValueError:
                runs.append(None)
        sets[n] = {"files": [f.name for f in files], "runs": runs,
                   "sha256": orbsafe.digest_files(files)}
    return {"sets": sets}


def check_plan(doc, path):
    """(alpha per look, looks) of a record's plan, checked: alpha in
    (0, 0.5], looks a whole number in 1..MAX_LOOKS, alpha_per_look equal
    to alpha / looks; BadInput naming the field otherwise."""
    import orbbench.safeload as orbsafe
    plan = doc.get("plan")
    if not isinstance(plan, dict):
        raise orbsafe.bad(path, "plan", "missing or not an object")
    alpha = orbsafe.number(path, "plan.alpha", plan.get("alpha"), low=0,
                           low_open=True, high=0.5)
    looks = plan.get("looks")
    if isinstance(looks, bool) or not isinstance(looks, int) or \
            not 1 <= looks <= MAX_LOOKS:
        raise orbsafe.bad(path, "plan.looks", f"{orbsafe.short(looks)} is "
                          f"not a whole number in 1..{MAX_LOOKS}")
    per = orbsafe.number(path, "plan.alpha_per_look",
                         plan.get("alpha_per_look"), low=0, low_open=True,
                         high=0.5)
    if abs(per - alpha / looks) > 1e-12 * alpha:
        raise orbsafe.bad(path, "plan.alpha_per_look", f"{per!r} is not "
                          f"plan.alpha / plan.looks ({alpha / looks:.6g})")
    return per, looks


def bound_to(doc, sets):
    """None when the record's "bound" matches the folders sets (paths)
    exactly, else why not (a phrase)."""
    import orbbench.results as orbresults
    import orbbench.safeload as orbsafe
    bound = doc.get("bound")
    if not isinstance(bound, dict) or not isinstance(bound.get("sets"),
                                                     dict):
        return "it names no result sets (no \"bound\")"
    want = bound["sets"]
    got = {Path(s).resolve().name: Path(s) for s in sets}
    if set(want) != set(got):
        return (f"it is about the sets {orbsafe.short(sorted(want), 80)}, "
                f"not {sorted(got)}")
    for name, folder in got.items():
        entry = want[name]
        if not isinstance(entry, dict):
            return f"its entry for {name} is not an object"
        files = orbresults.result_files([folder])
        if entry.get("files") != [f.name for f in files]:
            return f"the files of {name} are not those it names"
        if entry.get("sha256") != orbsafe.digest_files(files):
            return f"the files of {name} are not those it was written for " \
                   "(sha256 differs)"
    return None


def alpha_from_record(sets, note, default=ALPHA):
    """(alpha, where it came from) for compare: the record's alpha per look
    when one sequential.json beside the sets' folders is bound to exactly
    these sets (and its plan checks out: BadInput otherwise), else default,
    after a note saying which record was ignored and why."""
    import orbbench.safeload as orbsafe
    seen = set()
    for s in sets:
        p = Path(s)
        if not p.is_dir():
            continue
        seq = p.resolve().parent / RECORD
        if seq in seen or not (seq.exists() or seq.is_symlink()):
            continue
        seen.add(seq)
        doc = orbsafe.load_object(seq, max_bytes=4 << 20)
        why = bound_to(doc, sets)
        if why:
            note(f"{seq}: ignored ({why}); alpha {default:g}")
            continue
        per, looks = check_plan(doc, seq)
        return per, f"{seq} ({looks} planned looks)"
    return default, "default"
