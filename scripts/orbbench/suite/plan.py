"""The suite's plan: its settings parsed and checked once, then frozen
(SuitePlan, Variant, UntilVerdict), so that the runner, the summary and
the looks read one value that nothing changes. build() makes it from
the command line's namespace; a bad setting is PlanError, one line."""
import dataclasses
import fnmatch
import os
import re
from pathlib import Path

import orbbench.results as orbresults
import orbbench.sequential as orbseq
import orbbench.suite.settings as suitesettings

# What the sides of a paired run may differ in (orbbench run --versus).
PAIRED_PREFIXES = ("server.", "caller.")
VARIANT_NAME = re.compile(r"[A-Za-z0-9._-]+")
# A comma starts a new override only where KEY= follows, so that values
# with commas (machine.cpus=0,1 or a JSON list) stay whole.
OVERRIDE_SPLIT = re.compile(r",(?=[A-Za-z0-9_.]+=)")
# The suite's own files beside the variants' sub-folders.
OWN_FILES = ("summary.md", "summary.json")
REPEATS = (1, 100)
AT_N = (1, 1000000)


class PlanError(ValueError):
    """A setting the suite cannot run with: its message is the one line
    the command prints (exit 2)."""


@dataclasses.dataclass(frozen=True)
class Variant:
    """One --variant (or --orb): its name, its KEY=VALUE overrides (after
    the global --set ones) and, for --orb, the ORB installation."""
    name: str
    sets: tuple = ()
    orb: str = None

    def as_json(self):
        """summary.json's shape: {"name", "set", "orb"}."""
        return {"name": self.name, "set": list(self.sets), "orb": self.orb}


@dataclasses.dataclass(frozen=True)
class UntilVerdict:
    """--until-verdict's settings: at least min_repeats (--repeat), at
    most max_repeats, the equivalence margin in %, the scope and the
    budget in minutes (None: none)."""
    min_repeats: int
    max_repeats: int
    equivalence_pct: float
    scope: str
    budget_min: float = None

    def new_plan(self):
        """A fresh orbbench.sequential.Plan (it keeps the looks made)."""
        return orbseq.Plan(self.min_repeats, self.max_repeats,
                           self.equivalence_pct, self.scope)

    @property
    def budget_s(self):
        return self.budget_min * 60 if self.budget_min is not None else None


@dataclasses.dataclass(frozen=True)
class SuitePlan:
    """Everything a suite runs with. scenarios: the scenario files, sorted;
    paired: pair two variants where the scenario's kind pairs; until:
    --until-verdict's settings or None; at_n: the fast gate's N or None;
    warm: warm starts (--warm, or --prior DIR); out: --out or None;
    argv: the command line as given (summary.json's command)."""
    src: Path
    scenarios: tuple
    sets: tuple
    repeat: int
    variants: tuple
    paired: bool
    until: UntilVerdict
    at_n: int
    warm: bool
    prior: str
    out: str
    format: str
    orbbench: str
    argv: tuple

    @property
    def repeats(self):
        """The most repeats the suite runs (--until-verdict may stop
        sooner)."""
        return self.until.max_repeats if self.until else self.repeat

    def pairs(self, scenario):
        """True when this scenario runs as one paired run per repeat."""
        return self.paired and suitesettings.pairs(scenario)


def set_keys(sets):
    return [s.split("=", 1)[0] for s in sets]


def pair_problem(variants):
    """Why the variants cannot run as paired runs (two variants; B sets
    every key A sets; only server.* and caller.*: each side its own
    servers and its own caller), or None."""
    if len(variants) != 2:
        return f"needs exactly two variants (got {len(variants)})"
    va, vb = variants
    for v in variants:
        for k in set_keys(v.sets):
            if not k.startswith(PAIRED_PREFIXES):
                return (f"variant {v.name!r} sets {k}: the sides of a "
                        "paired run differ only in server.* and caller.* "
                        "keys")
    missing = [k for k in set_keys(va.sets) if k not in set_keys(vb.sets)]
    if missing:
        return (f"variant {vb.name!r} must set {missing[0]} too (variant "
                f"{va.name!r} does; side B starts from A's settings)")
    return None


def parse_variant(kind, spec):
    """The Variant of --variant's (kind "variant") or --orb's (kind
    "orb") argument; PlanError for a bad one."""
    opt = f"--{kind} {spec}"
    name, colon, rest = (spec, "", "") if kind == "orb" else \
        spec.partition(":")
    if not VARIANT_NAME.fullmatch(name) or set(name) == {"."}:
        raise PlanError(f"{opt}: bad name {name!r}: use letters, digits, "
                        "'.', '_', '-'")
    if name in OWN_FILES:
        raise PlanError(f"{opt}: {name!r} is run-suite's own file: pick "
                        "another name")
    if kind == "orb":
        return Variant(name, (f"server.orb={name}",), name)
    if colon and not rest:
        raise PlanError(f"{opt}: no KEY=VALUE after ':'")
    sets = OVERRIDE_SPLIT.split(rest) if rest else []
    for s in sets:
        if not re.fullmatch(r"[A-Za-z0-9_.]+=.*", s, re.S):
            raise PlanError(f"{opt}: {s!r} is not KEY=VALUE")
    return Variant(name, tuple(sets))


def parse_variants(given):
    """The Variants of [(kind, spec)] in the order given; a name given
    twice is PlanError."""
    out = []
    for kind, spec in given:
        v = parse_variant(kind, spec)
        if any(o.name == v.name for o in out):
            raise PlanError(f"--{kind} {spec}: variant {v.name!r} given "
                            "twice")
        out.append(v)
    return tuple(out)


def until_verdict(a, paired):
    """UntilVerdict of the namespace a, or None without --until-verdict;
    its repeats' minimum is --repeat, 3 when not given."""
    if not a.until_verdict:
        return None
    if not paired:
        raise PlanError("--until-verdict: needs paired runs: two variants "
                        "that differ only in server.* and caller.* keys, "
                        "without --solo")
    until = UntilVerdict(3 if a.repeat == 1 else a.repeat, a.max_repeat,
                         a.equivalence, a.scope, a.budget)
    if a.budget is not None and a.budget <= 0:
        raise PlanError(f"--budget {a.budget}: give minutes > 0")
    try:
        until.new_plan()
    except ValueError as e:
        raise PlanError(f"--until-verdict: {e}") from None
    return until


def scenario_files(src, only, at_n):
    """The scenario files of folder src that --only keeps, sorted;
    PlanError when there is none, or when --at-n meets a kind without N."""
    if not src.is_dir():
        raise PlanError(f"{src}: not a folder")
    scenarios = sorted(src.glob("*.json"))
    if not scenarios:
        raise PlanError(f"{src}: no scenario files (*.json)")
    if only:
        scenarios = [s for s in scenarios
                     if any(fnmatch.fnmatchcase(s.stem, g) for g in only)]
        if not scenarios:
            raise PlanError(f"{src}: no scenario matches --only "
                            f"{' --only '.join(only)}")
    if at_n is not None:
        # Only a kind with N has one to hold (the driver's: sweep, fanin).
        for sc in scenarios:
            k = orbresults.KINDS.get(suitesettings.scenario_kind(sc))
            if k and not k.pairs:
                raise PlanError(f"--at-n: {sc}: kind {k.name} has no N to "
                                "measure at (sweep and fanin have); leave "
                                "it out with --only")
    return tuple(scenarios)


def build(a, argv):
    """The SuitePlan of the command line's namespace a (orbbench.commands.
    suite's parser) and its argv; PlanError names the first bad setting,
    in the order the options are checked."""
    if not REPEATS[0] <= a.repeat <= REPEATS[1]:
        raise PlanError("--repeat must be 1..100")
    if a.at_n is not None and not AT_N[0] <= a.at_n <= AT_N[1]:
        raise PlanError(f"--at-n {a.at_n}: give an N from 1 to 1000000")
    variants = parse_variants(a.variants)
    if a.paired and a.solo:
        raise PlanError("--paired and --solo: give one")
    problem = pair_problem(variants)
    if a.paired and problem:
        raise PlanError(f"--paired: {problem}")
    # Pair wherever the variants can be (the scenario's kind decides too).
    paired = not a.solo and problem is None
    until = until_verdict(a, paired)
    src = Path(a.dir)
    scenarios = scenario_files(src, a.only, a.at_n)
    if not os.access(a.orbbench, os.X_OK):
        raise PlanError(f"{a.orbbench}: not built (run make)")
    return SuitePlan(
        src=src, scenarios=scenarios, sets=tuple(a.set),
        repeat=until.min_repeats if until else a.repeat, variants=variants,
        paired=paired, until=until, at_n=a.at_n,
        warm=a.warm or a.prior is not None, prior=a.prior, out=a.out,
        format=a.format, orbbench=a.orbbench, argv=tuple(argv))
