"""Running a history whose neighbours are paired (orbbench history
--run): for each two neighbouring releases, one paired suite (orbbench
suite SUITE --paired --variant FROM --variant TO), into a step folder of
its own, which orbbench.history_pairs then reads. The plan is a pure
function (steps_plan); run_steps runs it, one suite at a time."""
import re
import signal
import sys
from pathlib import Path

import orbbench.paths as orbpaths
import orbbench.procs as orbprocs

# A release is a run-suite variant: NAME[:KEY=VALUE[,KEY=VALUE...]], its
# name (the point's label and the variant's sub-folder) as run-suite
# takes one.
RELEASE_NAME = re.compile(r"[A-Za-z0-9._-]+")


def release_name(spec):
    """The name of a release spec NAME[:KEY=VALUE,...]; ValueError (one
    line) for a name run-suite would refuse."""
    name = spec.partition(":")[0]
    if not RELEASE_NAME.fullmatch(name):
        raise ValueError(f"--release {spec}: a name of letters, digits, "
                         "'.', '_', '-' before the ':'")
    return name


# A spec's overrides are split where a comma begins the next KEY=, as
# run-suite splits them (a value may hold commas).
OVERRIDE_SPLIT = re.compile(r",(?=[A-Za-z0-9_.]+=)")


def release_keys(spec):
    """The keys a release spec NAME[:KEY=VALUE,...] sets."""
    _, _, rest = spec.partition(":")
    return {o.partition("=")[0] for o in OVERRIDE_SPLIT.split(rest) if o}


def step_folder(results, i, a, b):
    """The folder of step i (from 0), release a to b: RESULTS/NN-A-to-B."""
    return Path(results) / f"{i + 1:02d}-{a}-to-{b}"


def steps_plan(suite, releases, results, repeat=3, sets=(), only=()):
    """[(step folder, run-suite argv)] for the releases in order (at
    least two, names distinct, each setting the same keys): each
    neighbouring pair one paired suite of the scenarios of suite, repeat
    repeats, the global --set and --only passed on. ValueError (one
    line) for fewer than two releases, a name given twice, or releases
    that set different keys."""
    names = [release_name(r) for r in releases]
    if len(names) < 2:
        raise ValueError(f"--run: give at least two --release, not "
                         f"{len(names)}")
    for n in names:
        if names.count(n) > 1:
            raise ValueError(f"--release {n}: given twice")
    # A paired suite's side B starts from A's settings: every release must
    # set the same keys (run-suite refuses a step otherwise, after the
    # steps before it have run).
    def keys_text(spec):
        return ", ".join(sorted(release_keys(spec))) or "no key"
    for r in releases[1:]:
        if release_keys(r) != release_keys(releases[0]):
            raise ValueError(
                f"--release {r}: sets {keys_text(r)}, --release "
                f"{releases[0]} sets {keys_text(releases[0])}: every "
                "release sets the same keys (a paired step's side B "
                "starts from A's settings)")
    plan = []
    for i, (a, b) in enumerate(zip(releases, releases[1:])):
        out = step_folder(results, i, names[i], names[i + 1])
        argv = [str(orbpaths.script("run-suite")), str(suite), "--paired",
                "--variant", a, "--variant", b, "--repeat", str(repeat),
                "--out", str(out)]
        for s in sets:
            argv += ["--set", s]
        for g in only:
            argv += ["--only", g]
        plan.append((out, argv))
    return plan


def check_results(results):
    """ValueError unless results is a new or empty folder: a step folder
    already there would be read as repeats of this run."""
    p = Path(results)
    if p.exists() and (not p.is_dir() or any(p.iterdir())):
        raise ValueError(f"{p}: --results names a new or empty folder")


def run_steps(plan, note):
    """Run each step's suite in turn, its output on stderr (stdout is the
    history's); [(step folder, exit code)] of the steps run. A suite
    that fails to start (exit 2) or is interrupted (130, or ended by a
    signal) ends the run there; one whose runs partly failed (exit 1) is
    noted and the next step runs. SIGTERM and SIGHUP end the running
    suite (and so its servers) and this process; Ctrl-C reaches the
    suite, which writes what it ran."""
    orbprocs.supervise(signals=(signal.SIGTERM, signal.SIGHUP))
    old = signal.signal(signal.SIGINT, orbprocs.forward)
    done = []
    try:
        for i, (out, argv) in enumerate(plan):
            note(f"step {i + 1} of {len(plan)}: {' '.join(argv)}")
            rc = orbprocs.run(argv, stdout=sys.stderr.fileno()).returncode
            done.append((out, rc))
            if rc == 1:
                note(f"{out}: the step's suite ended with exit 1 (a run, or "
                     "its comparison, failed); going on")
            elif rc != 0:
                break
    finally:
        signal.signal(signal.SIGINT, old)
    return done
