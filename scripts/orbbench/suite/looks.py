"""--until-verdict's sequential test, beside its plan (orbbench.suite.
plan.UntilVerdict; the stopping rule is orbbench.sequential): after each
repeat from the plan's first look, compare the two variants at the
look's alpha, say what is open, and stop when all is decided, the plan
is done or the budget is spent; sequential.json records it all."""
import sys
import time

import orbbench.results as orbresults
import orbbench.sequential as orbseq


class Looks:
    """The looks of one suite: until (an UntilVerdict), the variants'
    names, the result folder out_dir, prog the head of its lines."""

    def __init__(self, until, names, out_dir, prog):
        self.until, self.names, self.out_dir = until, names, out_dir
        self.prog = prog
        self.plan = until.new_plan()
        self.t0 = self.repeat_t0 = time.monotonic()
        self.looks, self.stopped = [], None
        self.look_s = 0.0       # the slowest look so far

    def say(self, msg, err=False):
        print(f"{self.prog}: {msg}", file=sys.stderr if err else sys.stdout,
              flush=not err)

    def start_repeat(self):
        self.repeat_t0 = time.monotonic()

    def look(self, rep, alpha):
        """The comparison of the two variants after repeat rep, at alpha:
        its open metrics."""
        import orbbench.comparison.model as orbcompare
        sets = [orbresults.load_repeats([self.out_dir / n],
                                        lambda m: self.say(m, err=True))
                for n in self.names]
        cmps = orbcompare.compare_many(sets, None, "pss", alpha,
                                       self.plan.delta_pct / 100)
        opens = orbseq.open_metrics(cmps[0], self.plan)
        suite = {k: {"ratio": m["ratio"], "ci": [m["ci_low"], m["ci_high"]],
                     "verdict": m["verdict"]}
                 for k, m in cmps[0]["suite"].items()}
        self.looks.append({"repeats": rep,
                           "planned_repeats": self.plan.planned_repeats,
                           "alpha": alpha, "spent": self.plan.spent,
                           "open": [[w, k] for w, k, _ in opens],
                           "suite": suite,
                           "suite_verdict": cmps[0]["suite_verdict"],
                           "elapsed_s": round(time.monotonic() - self.t0,
                                              1)})
        return opens

    def stop_after(self, rep):
        """True when the suite stops after repeat rep: decided, at the
        plan's last repeat (its maximum, or the budget's), or out of
        budget before a look could be made (each said in one line). The
        plan is first shrunk to what the budget allows at the slowest
        repeat so far, counting the coming look as the slowest look."""
        now = time.monotonic()
        used = now - self.t0 + self.look_s
        before = self.plan.planned_repeats
        then = self.plan.after_repeat(rep, used, now - self.repeat_t0,
                                      self.until.budget_s)
        if self.plan.planned_repeats < before:
            self.say(f"plan: {self.plan.text()}")
        if then == "next":
            return False
        if then == "budget":
            self.stopped = "budget"
            self.say_budget(rep, used)
            return True
        alpha = self.plan.take_look(rep)
        try:
            opens = self.look(rep, alpha)
        except (ValueError, OSError) as e:
            self.stopped = f"the look after repeat {rep} failed: {e}"
            self.say(self.stopped, err=True)
            return True
        finally:
            self.look_s = max(self.look_s, time.monotonic() - now)
        self.stopped = self.plan.stop(rep, not opens)
        self.say(f"look {len(self.looks)} of {self.plan.looks} after repeat "
                 f"{rep} (alpha {alpha:.4g}, {self.plan.spent:.4g} of "
                 f"{self.plan.alpha:g} spent; {self.plan.text()}): " +
                 ("every primary metric decided" if not opens else
                  f"open: {orbseq.fmt_state(opens)}") +
                 (f"; stopping ({self.stopped})" if self.stopped else ""))
        if self.stopped == "budget":
            self.say_budget(rep, used)
        return self.stopped is not None

    def say_budget(self, rep, used):
        """The one line of a stop for the budget after repeat rep, used s
        into the run (with the coming look), with its numbers."""
        est = self.plan.repeat_s
        fits = orbseq.plan_repeats(rep, used, est, self.until.budget_s,
                                   self.plan.max_repeats) > rep
        why = (f"repeat {rep + 1} would end at {orbseq.span(used + est)} "
               f"({orbseq.span(used)} used, the slowest repeat "
               f"{orbseq.span(est)}), past the {self.until.budget_min:g} "
               "min budget" if not fits else
               f"its plan, {self.plan.planned_repeats} repeats (all the "
               f"budget allowed at the slowest repeat when it shrank), is "
               f"done")
        self.say(f"stopped: budget: {why}")

    def as_json(self, interrupted):
        return {"plan": self.plan.as_json(),
                "variants": list(self.names),
                "looks": self.looks,
                "stopped": "interrupted" if interrupted else self.stopped,
                "budget_min": self.until.budget_min}

    def text(self, interrupted):
        """summary.md's sequential line."""
        return f"{self.plan.text()}; stopped: " + (
            "interrupted" if interrupted else self.stopped or "?")

    def write(self, interrupted):
        """sequential.json, bound to the variants' results when there are
        any (orbbench.sequential.bind)."""
        doc = self.as_json(interrupted)
        try:
            doc["bound"] = orbseq.bind(self.out_dir, list(self.names))
        except ValueError as e:     # no result to bind to: compare ignores
            self.say(f"{orbseq.RECORD}: not bound ({e})", err=True)
        orbseq.write_record(self.out_dir / "sequential.json", doc)
