"""Enough repeats, no more: the stopping rule of suite --until-verdict.

A paired suite is repeated until every primary metric is decided, or a
fixed maximum of repeats (or a time budget) is reached. Decided means its
interval, drawn at the level the verdicts use, either excludes 1 (a
difference: the verdict is not same) or lies within ±delta of 1
(equivalence: whatever difference there is, it is smaller than delta).

Looking at the results after every repeat and stopping at the first
verdict would inflate false alarms: each look is one more chance for
noise to cross the line. So the looks are planned and the error rate is
spent over them. The plan: looks after repeat min_repeats and each repeat
after, up to planned_repeats, which starts at max_repeats and, with a
budget, shrinks to the repeats that fit (plan_repeats: the slowest repeat
so far, from the time used). The spending (spend): the look after r of
P planned repeats brings the error spent to alpha × min(1, r / P), the
linear spending function at information fraction r / P; a look tests at
the increase. The plan only shrinks, so r / P only grows, no alpha is
spent twice, and the last planned look spends what is left. By the union
bound the chance that any look of an A/A suite gives a false verdict is
at most alpha, whatever the stopping rule does (the plan follows the
clock, never the comparisons); the final comparison is made at the
stopping look's alpha (compare --alpha), and sequential.json records it.
tests/py/test_sequential_rule.py checks the false-alarm rate by simulation
from this machine's measured noise, tests/py/test_plan.py the plan."""
import json
import math
from pathlib import Path

import orbbench.atomic as orbatomic

ALPHA = 0.05

SCOPES = ("suite", "scenarios")

# The name of the spending function in sequential.json (plan.spending).
SPENDING = "linear"


def spent_at(alpha, repeats, planned):
    """The error spent once the look after `repeats` of `planned` repeats
    is made: alpha × min(1, repeats / planned)."""
    return alpha * min(1.0, repeats / planned)


def spend(alpha, marks):
    """[alpha of each look] for looks made at marks, [(repeats, planned
    repeats then)]: each look the increase of spent_at over the looks
    before it, never below 0 (a plan that grew spends nothing more until
    it catches up), so that their sum is at most alpha."""
    out, spent = [], 0.0
    for repeats, planned in marks:
        now = max(spent, spent_at(alpha, repeats, planned))
        out.append(now - spent)
        spent = now
    return out


def repeat_estimate(times_s):
    """The time the next repeat is taken to need, in s: the slowest repeat
    so far (repeats vary by ±20% here; about half of the next repeats
    would be slower than the mean), None before any."""
    return max(times_s) if times_s else None


def plan_repeats(done, elapsed_s, repeat_s, budget_s, planned):
    """How many repeats the run plans in all after `done` of them, at
    elapsed_s into the run: `planned` (the plan so far), or fewer when the
    budget allows fewer: done, plus as many more repeats of repeat_s as
    end within budget_s. Never more than planned (the plan only shrinks),
    never fewer than done. budget_s or repeat_s None: planned."""
    if budget_s is None or repeat_s is None:
        return planned
    more = math.floor((budget_s - elapsed_s) / repeat_s) \
        if repeat_s > 0 else planned
    return max(done, min(planned, done + max(0, more)))


class Plan:
    """The planned looks: after repeat first_look, and each repeat after,
    up to planned_repeats (max_repeats, or fewer once the budget is known
    to allow fewer: replan); delta_pct the equivalence margin (3: ±3%);
    scope "suite" (the suite rows) or "scenarios" (every scenario's
    primary metrics too). It keeps the looks made (marks) and the time
    per repeat measured (times_s)."""

    def __init__(self, min_repeats, max_repeats, delta_pct=3.0,
                 scope="suite", alpha=ALPHA):
        if not 2 <= min_repeats <= max_repeats:
            raise ValueError(f"repeats: need 2 <= min ({min_repeats}) <= "
                             f"max ({max_repeats})")
        if not 0 < delta_pct < 100:
            raise ValueError(f"equivalence margin {delta_pct}%: give 0-100")
        if scope not in SCOPES:
            raise ValueError(f"scope {scope!r}: one of {', '.join(SCOPES)}")
        if max_repeats > MAX_LOOKS:
            raise ValueError(f"repeats: max ({max_repeats}) above "
                             f"{MAX_LOOKS}")
        self.min_repeats, self.max_repeats = min_repeats, max_repeats
        self.delta_pct, self.scope, self.alpha = delta_pct, scope, alpha
        self.planned_repeats = max_repeats
        self.marks, self.times_s = [], []
        self.budget_s, self.repeat_s = None, None

    @property
    def first_look(self):
        """The repeat the first look comes after: min_repeats, or the last
        repeat the budget allows when that is sooner (a look needs 2)."""
        return max(2, min(self.min_repeats, self.planned_repeats))

    @property
    def looks(self):
        """How many looks the plan has (made and still to come), at least
        1."""
        return max(1, self.planned_repeats - self.first_look + 1)

    @property
    def spent(self):
        return sum(spend(self.alpha, self.marks))

    def replan(self, done, elapsed_s, repeat_s, budget_s):
        """After repeat `done`, which took repeat_s, at elapsed_s into the
        run (with what the coming look will take): the plan shrunk to what
        budget_s allows at the slowest repeat so far. Returns
        planned_repeats."""
        self.times_s.append(repeat_s)
        self.budget_s = budget_s
        self.repeat_s = repeat_estimate(self.times_s)
        self.planned_repeats = plan_repeats(done, elapsed_s, self.repeat_s,
                                            budget_s, self.planned_repeats)
        return self.planned_repeats

    def after_repeat(self, done, elapsed_s, repeat_s, budget_s):
        """What the run does after repeat `done` (replan first): "look" (a
        look is due: take_look, then stop), "next" (no look yet: the next
        repeat) or "budget" (the budget allows fewer than the 2 repeats a
        look needs: stop without one)."""
        self.replan(done, elapsed_s, repeat_s, budget_s)
        if self.look_due(done):
            return "look"
        return "budget" if self.last(done) else "next"

    def stop(self, done, decided):
        """Why the run stops after the look after repeat `done` ("decided",
        "max repeats", "budget"), or None: it goes on."""
        if decided:
            return "decided"
        if self.last(done):
            return "max repeats" if done >= self.max_repeats else "budget"
        return None

    def look_due(self, done):
        return done >= self.first_look

    def last(self, done):
        """True when no repeat after `done` is planned."""
        return done >= self.planned_repeats

    def take_look(self, done):
        """The alpha of the look after repeat `done`, now marked as made."""
        self.marks.append((done, self.planned_repeats))
        return spend(self.alpha, self.marks)[-1]

    @property
    def final_alpha(self):
        """The alpha of the final comparison: the last look's, or before
        any look the first planned look's."""
        marks = self.marks or [(self.first_look, self.planned_repeats)]
        return spend(self.alpha, marks)[-1]

    def as_json(self):
        return {"min_repeats": self.min_repeats,
                "max_repeats": self.max_repeats,
                "planned_repeats": self.planned_repeats,
                "first_look": self.first_look, "looks": self.looks,
                "alpha": self.alpha, "spending": SPENDING,
                "spent": self.spent, "final_alpha": self.final_alpha,
                "budget_s": self.budget_s,
                "repeat_s": None if self.repeat_s is None else
                round(self.repeat_s, 1), "repeat_times_s":
                [round(t, 1) for t in self.times_s],
                "equivalence_pct": self.delta_pct, "scope": self.scope,
                "rule": "stop when every primary metric's interval (at the "
                        "verdicts' level) excludes 1 or lies within "
                        "±equivalence of 1, at planned_repeats, or before a "
                        "repeat that would end past the budget at the "
                        "slowest repeat's time; the look after r of P "
                        "planned repeats spends up to alpha*min(1, r/P) in "
                        "all, P only shrinking"}

    def text(self):
        """'8 repeats planned (looks after 3-8)', with the slowest repeat
        and the budget when there is one: for the progress lines."""
        p = self.planned_repeats
        looks = ("no look: a look needs 2" if p < self.first_look else
                 f"look after {p}" if p == self.first_look else
                 f"looks after {self.first_look}-{p}")
        out = f"{p} repeat{'s' if p > 1 else ''} planned ({looks})"
        if self.budget_s is not None and self.repeat_s is not None:
            out += (f", slowest repeat {span(self.repeat_s)}, budget "
                    f"{self.budget_s / 60:g} min")
        return out


def span(s):
    """'16.2 min', or '8.4 s' under a minute: a time in the plan's lines."""
    return f"{s / 60:.1f} min" if s >= 60 else f"{s:.1f} s"


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
    """Write text to path atomically (orbbench.atomic: a temporary file,
    then a rename; WriteError naming path when it fails)."""
    orbatomic.write_text(path, text)


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
    """(alpha of the final comparison, planned looks) of a record's plan,
    checked: alpha in (0, 0.5], looks a whole number in 1..MAX_LOOKS, and
    the final alpha the one the record's spending gives: with spending
    "linear" (SPENDING), spend() over its looks (each a whole number of
    repeats of planned_repeats; none: the first planned look), equal to
    plan.final_alpha; a record without spending (before planning from the
    budget) tests every look at alpha_per_look = alpha / looks. BadInput
    naming the field otherwise."""
    import orbbench.safeload as orbsafe
    plan = doc.get("plan")
    if not isinstance(plan, dict):
        raise orbsafe.bad(path, "plan", "missing or not an object")
    alpha = orbsafe.number(path, "plan.alpha", plan.get("alpha"), low=0,
                           low_open=True, high=0.5)
    looks = whole(path, "plan.looks", plan.get("looks"))
    spending = plan.get("spending")
    if spending is None:
        per = orbsafe.number(path, "plan.alpha_per_look",
                             plan.get("alpha_per_look"), low=0,
                             low_open=True, high=0.5)
        if abs(per - alpha / looks) > 1e-12 * alpha:
            raise orbsafe.bad(path, "plan.alpha_per_look", f"{per!r} is "
                              f"not plan.alpha / plan.looks "
                              f"({alpha / looks:.6g})")
        return per, looks
    if spending != SPENDING:
        raise orbsafe.bad(path, "plan.spending", f"{orbsafe.short(spending)}"
                          f" is not {SPENDING!r}")
    made = doc.get("looks")
    if not isinstance(made, list) or len(made) > MAX_LOOKS:
        raise orbsafe.bad(path, "looks", f"not a list of at most "
                          f"{MAX_LOOKS} looks")
    marks = []
    for i, m in enumerate(made):
        if not isinstance(m, dict):
            raise orbsafe.bad(path, f"looks[{i}]", "not an object")
        marks.append((whole(path, f"looks[{i}].repeats", m.get("repeats")),
                      whole(path, f"looks[{i}].planned_repeats",
                            m.get("planned_repeats"))))
    if not marks:
        marks = [(whole(path, "plan.first_look", plan.get("first_look")),
                  whole(path, "plan.planned_repeats",
                        plan.get("planned_repeats")))]
    want = spend(alpha, marks)[-1]
    final = orbsafe.number(path, "plan.final_alpha", plan.get("final_alpha"),
                           low=0, low_open=True, high=0.5)
    if abs(final - want) > 1e-12 * alpha:
        raise orbsafe.bad(path, "plan.final_alpha", f"{final!r} is not what "
                          f"its looks spend last ({want:.6g})")
    return final, looks


def whole(path, field, v):
    """v, checked: a whole number (not a bool) in 1..MAX_LOOKS."""
    import orbbench.safeload as orbsafe
    if isinstance(v, bool) or not isinstance(v, int) or \
            not 1 <= v <= MAX_LOOKS:
        raise orbsafe.bad(path, field, f"{orbsafe.short(v)} is not a whole "
                          f"number in 1..{MAX_LOOKS}")
    return v


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
