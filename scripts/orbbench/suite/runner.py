"""The suite's runs: every scenario of the plan, once per variant or as one
paired run, repeat after repeat (interleaved: a burst of machine noise
falls on every variant alike), with warm starts, --until-verdict's looks
and the signals; then its files (summary.md, summary.json,
sequential.json) and the variants' comparison; the exit status.

Signals: every orbbench runs in a process group of its own and dies with
the suite (orbbench.procs). SIGTERM or SIGHUP ends it (it stops its
servers), then the suite: exit 128+signal, no summary. SIGINT (Ctrl-C) is
passed on to it: it stops and writes its result, exit 130; the suite then
stops after its summary, exit 130."""
import datetime
import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import orbbench.outlock as orboutlock
import orbbench.paths as orbpaths
import orbbench.procs as orbprocs
import orbbench.progress as orbprogress
import orbbench.results as orbresults
import orbbench.sequential as orbseq
import orbbench.suite.compare as suitecompare
import orbbench.suite.settings as suitesettings
import orbbench.suite.summary as suitesummary
import orbbench.warm as orbwarm
from orbbench.suite.looks import Looks
from orbbench.suite.plan import PlanError
from orbbench.suite.rows import make_row, row_prior, status_text

# How the suite's command line is recorded (summary.json's command; a
# report reads it back).
COMMAND = "scripts/run-suite"


class Interrupts:
    """SIGINT, remembered and passed on to the running client (which
    stops and writes its result, exit 130): a Ctrl-C between two runs, or
    during a look, finds no client to pass it on to, and must not be
    lost."""

    def __init__(self):
        self.seen = False

    def handle(self, signum, frame):
        self.seen = True
        orbprocs.forward(signum, frame)

    def install(self):
        signal.signal(signal.SIGINT, self.handle)

    def stopped(self, row):
        """The client stopped on SIGINT (130), or died of it before its own
        handler was in place (-SIGINT), or a SIGINT came during the run."""
        return row["exit"] in (130, -signal.SIGINT) or self.seen


def run_watched(args, progress):
    """orbbench run with args, its output captured, its progress lines
    (--progress-fd) shown as the step's own line of progress."""
    child = orbprogress.ChildProgress(progress)
    try:
        return orbprocs.run(args + child.args(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            pass_fds=child.pass_fds(), started=child.started)
    finally:
        child.close()


def set_args(opt, sets):
    return [x for s in sets for x in (opt, s)]


class Runner:
    """One suite of plan (an orbbench.suite.plan.SuitePlan); prog heads its
    lines. Made before anything runs: the --prior folder is read and the
    output folder claimed (PlanError, one line, when either cannot be)."""

    def __init__(self, plan, prog):
        self.plan, self.prog = plan, prog
        self.variants = plan.variants or (None,)
        # The crossing each scenario's next run starts from, by (variant
        # name, scenario): --prior's, then each repeat's own.
        self.priors = {}
        if plan.prior is not None:
            try:
                self.priors = orbwarm.load_dir(
                    plan.prior, [sc.stem for sc in plan.scenarios],
                    [v.name if v else None for v in self.variants])
            except orbwarm.PriorError as e:
                raise PlanError(str(e)) from None
        self.host = socket.gethostname()
        self.stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.out_dir = Path(plan.out) if plan.out else (
            orbpaths.output("results") /
            f"{self.stamp}-{self.host}-{plan.src.resolve().name}")
        try:
            # New or empty, and ours alone until the suite ends: a second
            # suite given the same --out is refused (orbbench.outlock).
            orboutlock.claim_new(self.out_dir)
        except orboutlock.Busy as e:
            raise PlanError(str(e)) from None
        self.interrupts = Interrupts()
        self.rows = []
        self.paired = {sc: plan.pairs(sc) for sc in plan.scenarios}
        self.progress = self.looks = None

    # ---- one run ---------------------------------------------------------

    def run_one(self, scenario, out, variant, prior):
        """Run one scenario (of one variant, or None), the next step of
        progress, warm-started from prior (or cold); its summary row."""
        sets = (suitesettings.at_n_sets(self.plan.at_n, scenario) +
                suitesettings.warm_sets(self.plan.at_n, scenario, prior) +
                list(self.plan.sets) + (list(variant.sets) if variant
                                        else []))
        # stderr is captured for the summary's failure reason: orbbench's
        # live line would not be seen, and would leave its escapes in the
        # reason; its progress comes as JSON lines on a pipe of its own.
        args = [self.plan.orbbench, "run", str(scenario), "--out",
                str(out)] + set_args("--set", sets) + ["--no-progress"]
        t0 = time.monotonic()
        label = f"{scenario.stem} [{variant.name}]" if variant else \
            scenario.stem
        self.progress.start(label)
        proc = run_watched(args, self.progress)
        row = make_row(scenario, out, proc, time.monotonic() - t0, variant)
        self.progress.done(f"{label}: {status_text(row)} in "
                           f"{orbprogress.duration(row['seconds'])}")
        return row

    def run_pair(self, scenario, outs, prior):
        """One paired run of a scenario: variant A's settings, and B's
        server.* and caller.* keys as --versus, both sides warm-started
        from prior (or cold); a row per variant."""
        va, vb = self.variants
        sets = (suitesettings.at_n_sets(self.plan.at_n, scenario) +
                suitesettings.paired_sets(self.plan.at_n, scenario) +
                suitesettings.warm_sets(self.plan.at_n, scenario, prior) +
                list(self.plan.sets) + list(va.sets))
        args = ([self.plan.orbbench, "run", str(scenario), "--out",
                 str(outs[0]), "--out-versus", str(outs[1]), "--paired"] +
                set_args("--set", sets) + set_args("--versus", vb.sets) +
                ["--no-progress"])  # as run_one's
        t0 = time.monotonic()
        label = f"{scenario.stem} [{va.name} vs {vb.name}]"
        self.progress.start(label)
        proc = run_watched(args, self.progress)
        dt = time.monotonic() - t0
        rows = [make_row(scenario, o, proc, dt, v)
                for o, v in zip(outs, self.variants)]
        self.progress.done(f"{label}: " + "; ".join(
            f"{v.name} {status_text(r)}" for v, r in
            zip(self.variants, rows)) + f" in {orbprogress.duration(dt)}")
        return rows

    # ---- a scenario, a repeat, the suite ----------------------------------

    def file_name(self, sc, rep):
        return sc.stem if self.plan.repeats == 1 else f"{sc.stem}.r{rep}"

    def scenario_rows(self, sc, rep):
        """Run scenario sc's repeat rep: one paired run, or one run per
        variant until one is interrupted; its rows."""
        name = self.file_name(sc, rep)
        if self.paired[sc]:
            outs = [self.out_dir / v.name / f"{name}.json"
                    for v in self.variants]
            prior = orbwarm.pair_prior(
                [self.priors.get((v.name, sc.stem)) for v in self.variants])
            rows = self.run_pair(sc, outs, prior)
            for row, v, o in zip(rows, self.variants, outs):
                row["repeat"] = rep
                if self.plan.warm:
                    self.priors[(v.name, sc.stem)] = row_prior(row, o)
            return rows
        rows = []
        for v in self.variants:
            where = self.out_dir / v.name if v else self.out_dir
            key = (v.name if v else None, sc.stem)
            row = self.run_one(sc, where / f"{name}.json", v,
                               self.priors.get(key))
            row["repeat"] = rep
            if self.plan.warm:
                self.priors[key] = row_prior(row, where / f"{name}.json")
            rows.append(row)
            if self.interrupts.stopped(row):
                break
        return rows

    def start_repeat(self, rep, steps):
        """--until-verdict: the suite may stop at its next look: the
        estimate to there, and to the most the plan (shrunk to the
        budget) runs."""
        plan = self.looks.plan
        per_repeat = len(self.plan.scenarios) * (
            1 if self.plan.paired else len(self.variants))
        at = max(rep, plan.first_look)
        self.progress.total = plan.planned_repeats * steps
        self.progress.horizon = (at * per_repeat,
                                 f"look {at - plan.first_look + 1} of "
                                 f"{plan.looks} (after repeat {at})")
        self.looks.start_repeat()

    def run_repeat(self, rep):
        """Every scenario's repeat rep; True when it was interrupted."""
        for sc in self.plan.scenarios:
            rows = self.scenario_rows(sc, rep)
            self.rows += rows
            # a paired run's rows share its exit; a solo run's last row
            # is the one that was interrupted
            if self.interrupts.stopped(rows[-1]):
                return True
        return False

    def run(self):
        """Run the suite and write its files; the exit status.
        orbbench.atomic.WriteError names a file that could not be
        written."""
        orbprocs.supervise(signals=(signal.SIGTERM, signal.SIGHUP))
        self.interrupts.install()
        for v in self.plan.variants:
            (self.out_dir / v.name).mkdir(exist_ok=True)
        steps = sum(1 if self.paired[sc] else len(self.variants)
                    for sc in self.plan.scenarios)
        self.progress = orbprogress.Progress(self.plan.repeats * steps)
        if self.plan.until:
            self.looks = Looks(self.plan.until,
                               [v.name for v in self.plan.variants],
                               self.out_dir, self.prog)
        interrupted = False
        for rep in range(1, self.plan.repeats + 1):
            if self.looks:
                self.start_repeat(rep, steps)
            interrupted = self.run_repeat(rep) or self.interrupts.seen
            stop = not interrupted and self.looks and \
                self.looks.stop_after(rep)
            # A SIGINT between two runs, or during a look, has no client
            # to reach: the flag keeps it, and the suite stops here.
            interrupted = interrupted or self.interrupts.seen
            if interrupted or stop:
                break
        return self.finish(interrupted)

    # ---- the end ------------------------------------------------------------

    def meta(self):
        """summary.md's heading lines, and summary.json's suite and
        command."""
        orbs = sorted({r["orb"] for r in self.rows if "orb" in r})
        return {"suite": self.plan.src.resolve().name, "host": self.host,
                "paired": suitesummary.paired_text(self.paired),
                "orb": ", ".join(orbs), "started": self.stamp,
                "variants": suitesummary.variants_text(self.plan.variants),
                "sequential": "",
                "command": " ".join([COMMAND] + list(self.plan.argv))}

    def summary_json(self, meta, interrupted):
        return json.dumps(
            {"suite": meta["suite"], "command": meta["command"],
             "variants": [v.as_json() for v in self.plan.variants],
             "paired": bool(self.paired) and all(self.paired.values()),
             "paired_scenarios": [sc.stem for sc, p in self.paired.items()
                                  if p],
             "rows": self.rows,
             "sequential": (self.looks.as_json(interrupted) if self.looks
                            else None),
             "interrupted": interrupted}, indent=1)

    def compare(self):
        """The variants' comparison (two or more, not interrupted): 1 when
        it failed, else 0; skipped (said) when compare weighs none of the
        rows' kinds."""
        kinds = {r.get("kind") for r in self.rows if "kind" in r}
        compared = {k for k in kinds if k in orbresults.KINDS and
                    orbresults.KINDS[k].comparable}
        if kinds and not compared:
            # compare weighs the kinds with steps or metrics (no
            # refusal); the others have their own tables
            print(f"{self.prog}: nothing compare weighs among the results "
                  f"(kind {', '.join(sorted(kinds))}): compare skipped")
            return 0
        return suitecompare.compare_variants(
            [v.name for v in self.plan.variants], self.out_dir, self.prog)

    def finish(self, interrupted):
        """The suite's end: sequential.json, summary.md, summary.json, the
        closing table, compare of the variants; the exit status."""
        meta = self.meta()
        if self.looks:
            self.looks.write(interrupted)
            meta["sequential"] = self.looks.text(interrupted)
        head, body = suitesummary.table(self.rows)
        # Whole files, whatever signal comes: a temporary file, then a
        # rename.
        orbseq.write_record_text(self.out_dir / "summary.md",
                                 suitesummary.markdown(self.rows, head, body,
                                                       meta))
        orbseq.write_record_text(self.out_dir / "summary.json",
                                 self.summary_json(meta, interrupted))
        print(suitesummary.closing_table(self.plan.format, self.rows, meta))
        compare_failed = 0
        if len(self.plan.variants) > 1 and not interrupted:
            compare_failed = self.compare()
        print(f"\nresults and summary.md in {self.out_dir}")
        if interrupted or self.interrupts.seen:
            return 130
        return 1 if compare_failed or any("failed" in r
                                          for r in self.rows) else 0
