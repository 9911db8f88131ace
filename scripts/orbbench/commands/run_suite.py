"""Run every scenario of a folder, one result file each, then print the
summary table (scenario, max servers, median round ms at the crossing) and
write it as summary.md beside the results.

usage: orbbench suite DIR [--set KEY=VALUE]... [--repeat R] [--out DIR]
                      [--variant NAME[:KEY=VALUE[,KEY=VALUE...]]]...
                      [--orb ID]... [--only GLOB]... [--paired]
                      [--at-n N] [--warm] [--prior DIR]
                      [--until-verdict [--max-repeat K] [--budget MINUTES]
                       [--equivalence PCT] [--scope SCOPE]]

--only GLOB (repeatable) runs only the scenarios whose file name, without
.json, matches one of the globs: the Grisby suite's TCP rows on a server
kind that has no Unix sockets, say:
  orbbench suite scenarios/grisby --only '*-tcp' --set server.kind=combat
  orbbench suite scenarios/grisby --only '*-tcp' \
      --variant omniorb --variant combat:server.kind=combat

With --variant (repeatable) the suite runs once per variant, interleaved
(repeat r: scenario s: variant 1, variant 2, ...) so machine noise falls
on all alike, into one sub-folder NAME per variant; a variant's KEY=VALUE
overrides come after the global --set ones. Then orbbench compare compares
each variant with the first and writes compare-FIRST-vs-OTHER.md beside
the results; with three variants or more, one comparison of them all
(every set against the first, the BH adjustment over all of its tests):
compare-all.md, its figures in plots-all/A-vs-X/. --orb ID is --variant
ID:server.orb=ID. Examples:
  --variant a --variant b                      A/A: same settings twice
  --variant base --variant work:server.work_us=8   A/B sensitivity check
  --orb omniorb-system --orb omniorb-4.3.3     two ORB installations
Variant names: letters, digits, '.', '_', '-'; each once.

Two variants that differ only in server.* and caller.* keys (the servers,
and the ORB client that calls them: docs/callers.md) are paired by default:
each scenario of a kind that pairs (sweep, fanin) runs once per repeat as
one paired run (orbbench run --versus): both variants' servers on the
machine at once, measured in alternating blocks with the other side's
servers stopped (sweep.pairing, sweep.hold_others), so that the host's
drift, tens of percent over seconds here, falls on both alike; compare
then tests the per-run ratio B/A. Its verdicts agree with interleaved
solo runs' (docs/measured/2026-12-01-one-answer.md). --solo runs the
variants one after the other instead (interleaved, as with other keys,
three variants or more, and the other kinds); --paired insists, and is
an error where the variants cannot pair. A/A: --variant a --variant b.
A paired sweep's blocks open with 3 + 2 untimed rounds (KIND.warmup_rounds,
KIND.switch_rounds; orbbench run's defaults are 5 + 3) where the scenario
file does not give them; --set changes them (docs/kinds/sweep.md).

With --paired --until-verdict the suite repeats until the comparison is
decided, and no longer: after repeat R (--repeat, at least 2; 3 if not
given) and after each repeat up to the plan's P it compares the two
variants, and stops once every primary metric of the suite rows (--scope
scenarios: of every scenario too) has an interval that excludes 1 or
lies within ±--equivalence PCT (default 3) of it; or at P repeats. P is
--max-repeat K (default 8), or with --budget MINUTES what fits: after
each repeat, the repeats done plus as many more as would end within the
budget at the slowest repeat's time so far; P only shrinks, and the
first look comes after P when P < R (none when P is 1). So no repeat is
started that would, at that pace, end past the budget; a repeat once
started runs to its end (a repeat slower than any before may overrun).
The looks spend the error rate: the look after r of P repeats brings it
to 0.05 × r / P (all of it at the last), testing at the increase, and
the final comparison at the stopping look's alpha, so stopping early
cannot inflate false alarms (orbbench.sequential; sequential.json in
the result folder records the plan, each look and why it stopped; the
progress lines show the plan).

--at-n N is the fast gate (docs/ci.md): every scenario measured at one
N, no sweep and no crossing search: KIND.start = KIND.max_n = N (its
cost_n too, and resolution 0), each paired run in KIND.step_blocks
blocks (default here 8, each opened by 2 + 2 untimed rounds:
KIND.warmup_rounds, KIND.switch_rounds; --set changes them), the
sides taking turns block by block with the other's servers stopped, as
in the sweep; compare then tests round time and server CPU per call at
N on the blocks' ratios B/A, and memory per server. It answers "did
B's servers get slower or larger at N", not how many B holds: for that,
the sweep. Only for kinds with N (sweep, fanin).

Warm starts (--warm; not the default): a repeat of a scenario (the same
variant's; in a paired run the pair's) starts where the one before
ended: its run gets that
run's crossing as KIND.prior_n (with prior_half_width, its interval, and
prior_from, its result file), so the crossing search measures there
first and the steps well below it take KIND.far_rounds timed rounds
(but the first and those within x1.5 of KIND.cost_n, where compare reads
the costs): docs/kinds/sweep.md#warm-starts. A paired run's prior is the
lower of its two sides' crossings (the sides share every sweep key, and
so are measured alike). --prior DIR gives the first repeat its priors
from a previous suite's output folder (the base branch's last CI
results, say), and implies --warm: each scenario's NAME.json, or its last repeat's
NAME.rR.json, in the variant's sub-folder of DIR when there is one, else
in DIR itself. A scenario with no crossing there (it reached max_n, or
has no result) runs cold, as does every run of --at-n; --set
KIND.prior_n=0 makes every run cold. A --prior folder that is missing,
holds none of the scenarios' results or has one that does not load is
exit 2, one line naming it. Each result's result.warm_start records the
prior, where it came from and what it did. Repeats are cold by default:
in seeded trials on a drifting host (tests/unit/test_search.c) a warm
start took about 6% less round time and its interval held the true
crossing in 74% of trials against 80% cold, so it is offered, not
imposed.

--out names a new or empty folder: files already there would be read as
repeats of this run (by compare, report and the summary), so a folder
with anything in it is refused (exit 2).

The client is bin/orbbench, or DIR/orbbench with ORBBENCH_BIN=DIR in the
environment (as make test and make check-sanitizers set it, so that a
sanitized client runs the suite).

A scenario that fails (exit 1 or 2) shows as failed with its reason and
the rest still run; an interrupt (Ctrl-C) stops the suite after writing
the summary of what ran. SIGTERM or SIGHUP ends the running orbbench (and
so its servers) and the suite at once, without a summary; if the suite
itself dies (even by SIGKILL), orbbench gets SIGTERM. Exit: 0 all ran to
a stop (and every comparison was made), 1 some failed or a comparison
failed, 2 usage error, 130 interrupted, 143 or 129 ended by SIGTERM or
SIGHUP."""
import argparse
import csv
import datetime
import fnmatch
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orbbench.atomic as orbatomic
import orbbench.cli as orbcli
import orbbench.escape as orbesc
import orbbench.kinds  # noqa: F401  (the kinds load_result checks)
import orbbench.outlock as orboutlock
import orbbench.paths as orbpaths
import orbbench.procs as orbprocs
import orbbench.progress as orbprogress
import orbbench.results as orbresults
import orbbench.sequential as orbseq
import orbbench.warm as orbwarm

PROG = orbcli.prog("run-suite")


EXAMPLES = [
    "orbbench suite scenarios/grisby",
    "orbbench suite scenarios/grisby --only '*-unix' --repeat 3",
    "orbbench suite scenarios/grisby --orb omniorb-system --orb "
    "omniorb-4.3.3",
    "orbbench suite scenarios/grisby --paired --until-verdict --variant a "
    "--variant b",
    "orbbench suite scenarios/grisby --paired --at-n 500 --variant base "
    "--variant work:server.work_us=1",
    "orbbench suite scenarios/grisby --orb omniorb-system --orb "
    "omniorb-4.3.3 --prior results/BASE"]


def die(msg, code=2):
    orbcli.fail(PROG, msg, code)


def default_orbbench():
    """$ORBBENCH_BIN/orbbench when set (a sanitized build's bin folder),
    else the repository's bin/orbbench."""
    return str(orbpaths.client())


def parse_args(argv):
    p = orbcli.parser("suite", __doc__, EXAMPLES, raw=True)
    p.add_argument("dir", help="folder of scenario .json files")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a key in every scenario")
    p.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="run each scenario R times (for the spread)")
    p.add_argument("--variant", action="append", dest="variants",
                   default=[], type=lambda v: ("variant", v),
                   metavar="NAME[:KEY=VALUE,...]",
                   help="run every scenario once per variant; repeat to "
                   "compare")
    p.add_argument("--orb", action="append", dest="variants", default=[],
                   type=lambda v: ("orb", v), metavar="ID",
                   help="ORB installation: --variant ID:server.orb=ID")
    p.add_argument("--only", action="append", default=[], metavar="GLOB",
                   help="only the scenarios whose file name (without "
                   ".json) matches GLOB; repeatable")
    p.add_argument("--paired", action="store_true",
                   help="two variants, each run as one paired run "
                   "(orbbench --versus; the default where they can be)")
    p.add_argument("--solo", action="store_true",
                   help="two variants as interleaved solo runs, not paired")
    p.add_argument("--until-verdict", action="store_true",
                   help="with --paired: repeat until decided (see above)")
    p.add_argument("--max-repeat", type=int, default=8, metavar="K",
                   help="--until-verdict: at most K repeats (default 8)")
    p.add_argument("--equivalence", type=float, default=3.0, metavar="PCT",
                   help="--until-verdict: an interval within ±PCT%% of 1 "
                   "is decided (default 3)")
    p.add_argument("--scope", choices=orbseq.SCOPES, default="suite",
                   help="--until-verdict: which metrics must be decided")
    p.add_argument("--budget", type=float, metavar="MINUTES",
                   help="--until-verdict: start no repeat that would end "
                   "past this")
    p.add_argument("--at-n", type=int, metavar="N",
                   help="the fast gate: measure every scenario at N in "
                   "blocks, no sweep (see above)")
    p.add_argument("--warm", action="store_true",
                   help="start each repeat of a scenario at the crossing the "
                   "one before found (see above)")
    p.add_argument("--prior", metavar="DIR",
                   help="start each scenario's first repeat at the crossing "
                   "a previous suite's results in DIR found; implies --warm")
    p.add_argument("--out", metavar="DIR",
                   help="result folder (default results/DATE-HOST-SUITE)")
    p.add_argument("--format", choices=("text", "md", "csv", "json"),
                   default="text",
                   help="the closing table on stdout (summary.md and "
                   "summary.json are written either way)")
    p.add_argument("--orbbench", default=default_orbbench(),
                   help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.repeat < 1 or a.repeat > 100:
        die("--repeat must be 1..100")
    if a.at_n is not None and not 1 <= a.at_n <= 1000000:
        die(f"--at-n {a.at_n}: give an N from 1 to 1000000")
    a.variants = parse_variants(a.variants)
    if a.paired and a.solo:
        die("--paired and --solo: give one")
    problem = pair_problem(a.variants)
    if a.paired and problem:
        die(f"--paired: {problem}")
    # Pair wherever the variants can be (the scenario's kind decides too).
    a.paired = not a.solo and problem is None
    a.plan = None
    if a.until_verdict:
        if not a.paired:
            die("--until-verdict: needs paired runs: two variants that "
                "differ only in server.* and caller.* keys, without --solo")
        if a.repeat == 1:
            a.repeat = 3
        if a.budget is not None and a.budget <= 0:
            die(f"--budget {a.budget}: give minutes > 0")
        try:
            a.plan = orbseq.Plan(a.repeat, a.max_repeat, a.equivalence,
                                 a.scope)
        except ValueError as e:
            die(f"--until-verdict: {e}")
    return a


# What the sides of a paired run may differ in (orbbench run --versus).
PAIRED_PREFIXES = ("server.", "caller.")


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
        for k in set_keys(v["set"]):
            if not k.startswith(PAIRED_PREFIXES):
                return (f"variant {v['name']!r} sets {k}: the sides of a "
                        "paired run differ only in server.* and caller.* "
                        "keys")
    missing = [k for k in set_keys(va["set"]) if k not in set_keys(vb["set"])]
    if missing:
        return (f"variant {vb['name']!r} must set {missing[0]} too (variant "
                f"{va['name']!r} does; side B starts from A's settings)")
    return None


def pairs(scenario):
    """True when the scenario file's kind pairs (orbbench.results.Kind);
    a file that does not parse is run alone, and its run says what is
    wrong with it."""
    k = orbresults.KINDS.get(scenario_kind(scenario))
    return bool(k and k.pairs)


VARIANT_NAME = re.compile(r"[A-Za-z0-9._-]+")
# A comma starts a new override only where KEY= follows, so that values
# with commas (machine.cpus=0,1 or a JSON list) stay whole.
OVERRIDE_SPLIT = re.compile(r",(?=[A-Za-z0-9_.]+=)")


def parse_variant(kind, spec):
    """{"name", "set": [KEY=VALUE…], "orb"} from --variant or --orb's
    argument; a bad one is exit 2 with one line."""
    opt = f"--{kind} {spec}"
    name, colon, rest = (spec, "", "") if kind == "orb" else \
        spec.partition(":")
    if not VARIANT_NAME.fullmatch(name) or set(name) == {"."}:
        die(f"{opt}: bad name {name!r}: use letters, digits, '.', '_', '-'")
    if name in ("summary.md", "summary.json"):
        die(f"{opt}: {name!r} is run-suite's own file: pick another name")
    if kind == "orb":
        return {"name": name, "set": [f"server.orb={name}"], "orb": name}
    if colon and not rest:
        die(f"{opt}: no KEY=VALUE after ':'")
    sets = OVERRIDE_SPLIT.split(rest) if rest else []
    for s in sets:
        if not re.fullmatch(r"[A-Za-z0-9_.]+=.*", s, re.S):
            die(f"{opt}: {s!r} is not KEY=VALUE")
    return {"name": name, "set": sets, "orb": None}


def parse_variants(given):
    """The variants in the order given; a name given twice is exit 2."""
    out = []
    for kind, spec in given:
        v = parse_variant(kind, spec)
        if any(o["name"] == v["name"] for o in out):
            die(f"--{kind} {spec}: variant {v['name']!r} given twice")
        out.append(v)
    return out


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


# --at-n's blocks per paired run unless --set gives KIND.step_blocks, and
# each block's untimed opening (KIND.warmup_rounds + KIND.switch_rounds):
# 8 pairs of blocks of 2 + 2 untimed and 10 timed rounds, 8 × 2 × 14
# rounds, half of the 12 × 2 × 18 of 2026-12-05 morning. Why fewer: on
# that day's fast gates (Grisby, N = 500, 384 blocks) a block's rounds ran
# 0.87, 0.60, 0.28, 0.23 (log) above its cheapest in its first four and
# 0.16-0.20 from the fifth on, so the fifth to eighth rounds the opening
# also skipped were already settled; and a block's server CPU, read on its
# cheapest rounds (compare.md, "Server CPU per call"), scattered by 13%
# against 21%, so 8 blocks tell what 12 did with room to spare.
AT_N_BLOCKS = 8
AT_N_WARMUP = 2
AT_N_SWITCH = 2


def scenario_doc(scenario):
    """A scenario file's JSON object, or None when it does not parse to
    one (its run then says what is wrong)."""
    try:
        doc = json.loads(scenario.read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def scenario_kind(scenario):
    """The kind a scenario file names (the default when it names none), or
    None when it does not parse (its run then says what is wrong)."""
    doc = scenario_doc(scenario)
    return None if doc is None else doc.get("kind", orbresults.DEFAULT_KIND)


def at_n_sets(a, scenario):
    """--at-n N's settings of one scenario, named by its kind (before the
    user's --set, which may change them): one N, in blocks, no search."""
    if a.at_n is None:
        return []
    k = scenario_kind(scenario) or orbresults.DEFAULT_KIND
    return [f"{k}.start={a.at_n}", f"{k}.max_n={a.at_n}",
            f"{k}.cost_n={a.at_n}", f"{k}.resolution=0",
            f"{k}.step_blocks={AT_N_BLOCKS}",
            f"{k}.warmup_rounds={AT_N_WARMUP}",
            f"{k}.switch_rounds={AT_N_SWITCH}"]


def paired_sets(a, scenario):
    """A paired run's opening (before the user's --set, which may change
    it): its kind's paired_opening (orbbench.results.Kind; the sweep's 3
    + 2, measured in docs/kinds/sweep.md) as KIND.warmup_rounds and
    KIND.switch_rounds, each unless the scenario file gives it; none with
    --at-n (at_n_sets gives its own) or for a kind without one."""
    doc = scenario_doc(scenario) if a.at_n is None else None
    if doc is None:
        return []
    k = orbresults.KINDS.get(doc.get("kind", orbresults.DEFAULT_KIND))
    if not (k and k.settings and k.paired_opening):
        return []
    given = doc.get(k.settings) or {}
    if not isinstance(given, dict):
        return []
    return [f"{k.settings}.{key}={value}" for key, value in
            zip(("warmup_rounds", "switch_rounds"), k.paired_opening)
            if key not in given]


def warm_sets(a, scenario, prior):
    """The warm start's settings of one scenario's run (before the
    user's --set, which may change them): the prior, named by the kind's
    driver group; none with --at-n (no search) or a kind without the
    driver."""
    if a.at_n is not None:
        return []
    k = orbresults.KINDS.get(scenario_kind(scenario))
    return orbwarm.prior_sets(k.settings if k else None, prior)


def run_one(a, scenario, out, progress, variant=None, prior=None):
    """Run one scenario (of one variant, or None), the next step of
    progress (orbbench.progress), warm-started from `prior` (or cold);
    return a row for the summary."""
    args = [a.orbbench, "run", str(scenario), "--out", str(out)]
    for s in (at_n_sets(a, scenario) + warm_sets(a, scenario, prior) +
              a.set + (variant["set"] if variant else [])):
        args += ["--set", s]
    # stderr is captured for the summary's failure reason: orbbench's live
    # line would not be seen, and would leave its escapes in the reason;
    # its progress comes as JSON lines on a pipe of its own instead.
    args.append("--no-progress")
    t0 = time.monotonic()
    label = f"{scenario.stem} [{variant['name']}]" if variant else \
        scenario.stem
    progress.start(label)
    proc = run_watched(args, progress)
    row = make_row(scenario, out, proc, time.monotonic() - t0, variant)
    progress.done(f"{label}: {status_text(row)} in "
                  f"{orbprogress.duration(row['seconds'])}")
    return row


def run_pair(a, scenario, outs, progress, variants, prior=None):
    """One paired run of a scenario: variant A's settings, and B's server.*
    and caller.* keys as --versus, both sides warm-started from `prior`
    (or cold); return a row per variant."""
    va, vb = variants
    args = [a.orbbench, "run", str(scenario), "--out", str(outs[0]),
            "--out-versus", str(outs[1]), "--paired"]
    for s in (at_n_sets(a, scenario) + paired_sets(a, scenario) +
              warm_sets(a, scenario, prior) + a.set + va["set"]):
        args += ["--set", s]
    for s in vb["set"]:
        args += ["--versus", s]
    # stderr is captured for the summary's failure reason: orbbench's live
    # line would not be seen, and would leave its escapes in the reason;
    # its progress comes as JSON lines on a pipe of its own instead.
    args.append("--no-progress")
    t0 = time.monotonic()
    label = f"{scenario.stem} [{va['name']} vs {vb['name']}]"
    progress.start(label)
    proc = run_watched(args, progress)
    dt = time.monotonic() - t0
    rows = [make_row(scenario, o, proc, dt, v)
            for o, v in zip(outs, variants)]
    progress.done(f"{label}: " + "; ".join(
        f"{v['name']} {status_text(r)}" for v, r in zip(variants, rows)) +
        f" in {orbprogress.duration(dt)}")
    return rows


def headline(kind_name, column=True):
    """How a kind's one figure is named: in the summary's column, or
    (column False) in a progress line."""
    kind = orbresults.KINDS.get(kind_name)
    if not (kind and kind.headline):
        return "max servers"
    return kind.headline[1 if column else 0]


def status_text(row):
    what = headline(row.get("kind", "sweep"), column=False)
    if "failed" not in row and row.get("blocks"):
        # --at-n: no N held to speak of, what was measured at the one N
        cpu = (row.get("costs") or {}).get("server_cpu") or {}
        return (f"{row['blocks']} blocks at N={row.get('held')}, "
                f"server CPU {num(cpu.get('us_per_call'), '{:.1f}')} "
                "us/call")
    return (f"failed: {row['failed']}" if "failed" in row else
            f"{what} {row.get('headline')} "
            f"({row.get('stop_reason')})")


def orb_text(orb):
    """'omniORB 4.2.5', or '—' for a run without servers (kind clock,
    marshal: its result's orb is null)."""
    if not orb:
        return "—"
    return f'{orb["name"]} {orb.get("version") or "?"}'


def row_prior(row, out):
    """The prior a finished run leaves its scenario's next repeat: its
    crossing (orbbench.warm), from the row, which holds what the result
    file does (make_row read it once); None when it found none, or
    failed."""
    if "failed" in row or row.get("crossing_n") is None:
        return None
    return orbwarm.prior_of(
        {"result": {k: row.get(k) for k in ("crossing_n",
                                             "crossing_interval")}}, out)


def make_row(scenario, out, proc, dt, variant):
    """The summary row of one result file written by proc."""
    row = {"scenario": scenario.stem, "file": out.name, "exit": proc.returncode,
           "seconds": dt}
    doc = None
    if out.exists():
        try:
            doc = orbresults.load_result(out)
        except ValueError as e:
            row["error"] = str(e)
    if doc:
        res = doc["result"]
        kind = orbresults.kind(doc)
        row.update(scenario=doc["scenario"]["name"],
                   description=doc["scenario"].get("description", ""),
                   # what a sweep driver's kind held (a number, in
                   # held_unit), and the kind's one figure as shown: N
                   # held, or a rate's upcalls/s
                   held=(orbresults.held(doc) if kind.stepped else None),
                   held_unit=(orbresults.held_unit(doc) if kind.stepped
                              else None),
                   headline=(kind.headline[2](doc) if kind.headline
                             else res.get("max_servers", "—")),
                   kind=doc.get("kind", "sweep"),
                   stop_reason=res["stop_reason"], detail=res["detail"],
                   crossing_ms=orbresults.crossing_ms(doc),
                   crossing_n=res.get("crossing_n"),
                   crossing_interval=res.get("crossing_interval"),
                   costs=res.get("costs"),
                   orb=orb_text(doc.get("orb")))
        if doc.get("caller"):
            row["caller"] = caller_text(doc["caller"])
        blocks = [s for s in doc.get("steps") or [] if "block" in s]
        if blocks:
            row["blocks"] = len(blocks)
    if proc.returncode not in (0, 130):
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        row["failed"] = lines[-1] if lines else f"exit {proc.returncode}"
    if variant:
        row["variant"] = variant["name"]
        if variant["orb"]:
            row["orb_id"] = variant["orb"]
    return row


def caller_text(caller):
    """'omniorb deferred (omniORB 4.2.5)': who made a run's calls
    (docs/callers.md)."""
    return (f"{caller.get('kind', '?')} {caller.get('mode', '?')} "
            f"({caller.get('name', '?')} {caller.get('version') or '?'})")


def crossing_text(r):
    """'1012 (1003–1021)': crossing_n and its 95% interval, or '—' when
    the run found none (it stopped for another reason first, or ran
    without the search)."""
    c, iv = r.get("crossing_n"), r.get("crossing_interval")
    if c is not None and iv:
        return f"{c:.0f} ({iv[0]:.0f}–{iv[1]:.0f})"
    return "—"


def num(x, fmt="{:.0f}"):
    return fmt.format(x) if orbresults.is_num(x) else "—"


def kb(x):
    """kB with three figures below 100 (a connection's 2.12), whole above
    (a server's 466)."""
    return num(x, "{:.3g}" if orbresults.is_num(x) and abs(x) < 100
               else "{:.0f}")


def at(value, n):
    """'58.1 @508': a cost and the N it was measured at."""
    return f"{value} @{n}" if value != "—" and n is not None else value


def cost_cells(r):
    """The closing table's cost columns of a row (result.costs): per
    server PSS, USS, threads, descriptors and the N they are at; server
    CPU per call @N; the first step's median call @N."""
    c = r.get("costs") or {}
    mem, cpu, call = c.get("memory") or {}, c.get("server_cpu") or {}, \
        c.get("call") or {}
    return (kb(mem.get("pss_kb")), kb(mem.get("uss_kb")),
            num(mem.get("threads"), "{:.4g}"), num(mem.get("fds"), "{:.4g}"),
            num(mem.get("n")),
            at(num(cpu.get("us_per_call"), "{:.1f}"), cpu.get("n")),
            at(num(call.get("median_us"), "{:.1f}"), call.get("n")))


COST_HEAD = ("PSS kB", "USS kB", "threads", "fds", "at N", "CPU us/call",
             "call us")
# The client's own row, beside the servers', when a caller made the calls
# (result.costs.caller, docs/callers.md).
CALLER_HEAD = ("caller", "client CPU us/call", "client threads",
               "client USS kB/server")
CALLER_NOTE = ("caller: the ORB client that made the calls (caller.kind, "
               "mode); client CPU us/call: its CPU per call at the "
               "measurement nearest sweep.cost_n (@N); client threads: at "
               "the largest step; client USS kB/server: the slope of its "
               "USS over N (its PSS falls as servers of the same ORB share "
               "its library's pages).")


def caller_cells(r):
    """The closing table's caller columns of a row (result.costs.caller),
    dashes for a row whose calls orbbench made itself."""
    c = (r.get("costs") or {}).get("caller") or {}
    cpu = (c.get("cpu_per_call_us") or {}).get("total")
    per = (c.get("memory_per_server_kb") or {}).get("uss_kb")
    return (r.get("caller", "—"), at(num(cpu, "{:.1f}"), c.get("n")),
            num((c.get("footprint") or {}).get("threads")),
            num(per, "{:.1f}"))
COST_NOTE = ("PSS, USS, threads, descriptors: per server at the largest "
             "step measured (at N). CPU us/call: the servers' CPU per call "
             "at the measurement nearest sweep.cost_n (@N, where compare "
             "reads it). call us: the first step's median call (@N).")



def table(rows):
    """The seed's layout: scenario, max servers; plus the crossing, and
    what each server cost (result.costs)."""
    kinds = {r.get("kind", "sweep") for r in rows if "failed" not in r}
    # The crossing and cost columns only where some row has them (a
    # suite of rate or connect rows has neither: a row of dashes).
    swept = any(r.get("costs") or r.get("crossing_n") is not None
                for r in rows)
    called = any((r.get("costs") or {}).get("caller") for r in rows)
    head = ("scenario", " / ".join(
        headline(k) for k in orbresults.KINDS
        if k in kinds and orbresults.KINDS[k].headline) or "max servers") + \
        (("crossing N (95%)",) + COST_HEAD if swept else ()) + \
        (CALLER_HEAD if called else ()) + ("stop",)
    body = []
    for r in rows:
        name = r["scenario"]
        if r.get("variant"):
            name += f" [{r['variant']}]"
        if r.get("repeat", 1) > 1 or any(x.get("repeat", 1) > 1 for x in rows):
            name += f" #{r['repeat']}"
        if "failed" in r:
            body.append((name, "failed") + ("",) * (len(head) - 3) +
                        (r["failed"],))
        else:
            body.append((name, str(r.get("headline", "?"))) +
                        ((crossing_text(r),) + cost_cells(r) if swept
                         else ()) + (caller_cells(r) if called else ()) +
                        (r.get("stop_reason", "?"),))
    return head, body


def text_table(head, body):
    """Columns: the first and the last left-aligned, the others right;
    every cell's non-printables escaped (orbbench.escape.text)."""
    head = [orbesc.text(c) for c in head]
    body = [[orbesc.text(c) for c in b] for b in body]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]

    def line(cells):
        out = [f"{c:<{w}}" if i in (0, len(cells) - 1) else f"{c:>{w}}"
               for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()
    return "\n".join([line(head)] + [line(b) for b in body])


def closing_table(fmt, head, body, rows, meta):
    """The suite's closing table in --format FMT."""
    if fmt == "md":
        return markdown(rows, head, body, meta).rstrip("\n")
    if fmt == "csv":
        return csv_table(head, body)
    if fmt == "json":
        return json.dumps({"columns": list(head), "rows": [
            {k: r.get(k) for k in ("scenario", "variant", "repeat", "orb",
                                   "caller",
                                   "held", "held_unit", "headline",
                                   "crossing_n",
                                   "crossing_interval", "costs",
                                   "stop_reason", "failed", "file")
             if k in r} for r in rows]}, indent=1)
    text = notes(rows, head)
    return text_table(head, body) + ("\n" + textwrap.fill(text, 78)
                                      if text else "")


def notes(rows, head):
    """The closing table's notes: what max servers and crossing N are,
    where each cost was read (when the table has the cost columns), and
    the memory columns' unit."""
    return " ".join(x for x in (
        legend(rows), COST_NOTE if COST_HEAD[0] in head else "",
        CALLER_NOTE if CALLER_HEAD[0] in head else "",
        unit_note(rows)) if x)


def unit_note(rows):
    """The memory columns' unit in rows whose N counts something else
    than servers (result.costs.memory.per, e.g. a fanin's connection)."""
    units = sorted({((r.get("costs") or {}).get("memory") or {}).get("per")
                    for r in rows} - {None, "server"})
    return " ".join(f"Where N counts each {u}: PSS, USS, threads and "
                    f"descriptors are what one {u} added to the servers at "
                    "N." for u in units)


def legend(rows):
    """What max servers and crossing N are, and why they differ; and a
    fast gate's rows."""
    held = [r for r in rows if "failed" not in r and
            headline(r.get("kind", "sweep")) == "max servers"]
    if not held:
        return ""
    text = ("Max servers: the largest N measured within the scenario's "
            "max_ms (the crossing search's bracket low end). Crossing N: "
            "where the median round time crosses max_ms, estimated from "
            "the measurements near it, with its 95% interval; it is read "
            "from those around the last N under and the first over, so it "
            "usually lies a little above max servers; — when the run found "
            "none.")
    if any(r.get("blocks") for r in rows):
        text += (" Rows measured at one N in blocks (--at-n): max servers "
                 "is that N, and there is no crossing.")
    return text


def csv_table(head, body):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    w.writerows(body)
    return buf.getvalue().rstrip("\n")


def markdown(rows, head, body, meta):
    """summary.md: every text escaped for Markdown (orbbench.escape): a
    result's ORB, detail or file name cannot forge a line or hold HTML."""
    md = orbesc.md_line
    out = [f"# {md(meta['suite'] + ': summary')}", ""]
    for k in ("host", "orb", "variants", "paired", "sequential", "started",
              "command"):
        if meta.get(k):
            out.append(f"- {k}: {orbesc.md_text(meta[k])}")
    out += ["", orbcli.md_table(head, body, "l" + "r" * (len(head) - 2) +
                                "l"), "", md(notes(rows, head)), ""]
    for r in rows:
        out.append(f"- {md(r['file'])}: "
                   f"{orbesc.md_text(r.get('detail') or r.get('failed', ''))}")
    return "\n".join(out) + "\n"


def paired_text(paired):
    """summary.md's paired line: which scenarios ran as paired runs."""
    yes = [sc.stem for sc, p in paired.items() if p]
    if not yes:
        return ""
    if len(yes) == len(paired):
        return "yes: each repeat one paired run (orbbench --paired)"
    return (f"{', '.join(yes)}: each repeat one paired run; the others "
            "solo (their kind does not pair)")


def variants_text(variants):
    """'base, work (server.work_us=8)' for summary.md."""
    return ", ".join(v["name"] + (f" ({', '.join(v['set'])})"
                                  if v["set"] else "") for v in variants)


class Sequential:
    """--until-verdict: the plan, the looks after the repeats
    (orbbench.sequential) and their record, sequential.json."""

    def __init__(self, a, out_dir):
        self.plan, self.out_dir, self.a = a.plan, out_dir, a
        self.budget_s = a.budget * 60 if a.budget is not None else None
        self.t0 = self.repeat_t0 = time.monotonic()
        self.looks, self.stopped = [], None
        self.look_s = 0.0       # the slowest look so far

    def start_repeat(self):
        self.repeat_t0 = time.monotonic()

    def look(self, rep, alpha):
        """The comparison of the two variants after repeat rep, at alpha:
        its open metrics."""
        import orbbench.comparison.model as orbcompare
        names = [v["name"] for v in self.a.variants]
        sets = [orbresults.load_repeats(
                    [self.out_dir / n],
                    lambda m: print(f"{PROG}: {m}", file=sys.stderr))
                for n in names]
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
                                      self.budget_s)
        if self.plan.planned_repeats < before:
            print(f"{PROG}: plan: {self.plan.text()}", flush=True)
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
            print(f"{PROG}: {self.stopped}", file=sys.stderr)
            return True
        finally:
            self.look_s = max(self.look_s, time.monotonic() - now)
        n = len(self.looks)
        self.stopped = self.plan.stop(rep, not opens)
        print(f"{PROG}: look {n} of {self.plan.looks} after repeat "
              f"{rep} (alpha {alpha:.4g}, {self.plan.spent:.4g} of "
              f"{self.plan.alpha:g} spent; {self.plan.text()}): " +
              ("every primary metric decided" if not opens else
               f"open: {orbseq.fmt_state(opens)}") +
              (f"; stopping ({self.stopped})" if self.stopped else ""),
              flush=True)
        if self.stopped == "budget":
            self.say_budget(rep, used)
        return self.stopped is not None

    def say_budget(self, rep, used):
        """The one line of a stop for the budget after repeat rep, used s
        into the run (with the coming look), with its numbers."""
        est = self.plan.repeat_s
        fits = orbseq.plan_repeats(rep, used, est, self.budget_s,
                                   self.plan.max_repeats) > rep
        why = (f"repeat {rep + 1} would end at {orbseq.span(used + est)} "
               f"({orbseq.span(used)} used, the slowest repeat "
               f"{orbseq.span(est)}), past the {self.a.budget:g} min budget"
               if not fits else
               f"its plan, {self.plan.planned_repeats} repeats (all the "
               f"budget allowed at the slowest repeat when it shrank), is "
               f"done")
        print(f"{PROG}: stopped: budget: {why}", flush=True)

    def as_json(self, interrupted):
        return {"plan": self.plan.as_json(),
                "variants": [v["name"] for v in self.a.variants],
                "looks": self.looks,
                "stopped": "interrupted" if interrupted else self.stopped,
                "budget_min": self.a.budget}

    def write(self, interrupted):
        doc = self.as_json(interrupted)
        try:
            doc["bound"] = orbseq.bind(
                self.out_dir, [v["name"] for v in self.a.variants])
        except ValueError as e:     # no result to bind to: compare ignores
            print(f"{PROG}: {orbseq.RECORD}: not bound ({e})",
                  file=sys.stderr)
        orbseq.write_record(self.out_dir / "sequential.json", doc)


def compare_variants(names, out_dir):
    """scripts/compare of every variant's results against the first's, in
    one comparison; return 1 when it failed (said in one line), else 0."""
    base, others = names[0], names[1:]
    stem = f"{base}-vs-{others[0]}" if len(others) == 1 else "all"
    cmd = [str(orbpaths.script("compare"))] + [str(out_dir / n)
                                                  for n in names]
    text = orbprocs.run(cmd, capture_output=True, text=True)
    md = orbprocs.run(cmd + ["--format", "md", "--plots",
                             str(out_dir / f"plots-{stem}")],
                      capture_output=True, text=True)
    if text.returncode or md.returncode:
        bad = text if text.returncode else md
        lines = [l for l in bad.stderr.splitlines() if l.strip()]
        print(f"{PROG}: compare {' '.join(names)} failed (exit "
              f"{bad.returncode}): {lines[-1] if lines else ''}",
              file=sys.stderr)
        return 1
    orbatomic.write_text(out_dir / f"compare-{stem}.md", md.stdout)
    print(f"\n== {', '.join(others)} against {base}\n{text.stdout}")
    return 0


# Set by the SIGINT handler: a Ctrl-C between two runs, or during a look,
# finds no client to pass it on to, and must not be lost.
INTERRUPTED = False


def interrupt(signum, frame):
    """SIGINT: remembered, and passed on to the running client (which stops
    and writes its result, exit 130)."""
    global INTERRUPTED
    INTERRUPTED = True
    orbprocs.forward(signum, frame)


def was_interrupted(row):
    """The client stopped on SIGINT (130), or died of it before its own
    handler was in place (-SIGINT), or a SIGINT came during the run."""
    return row["exit"] in (130, -signal.SIGINT) or INTERRUPTED


def write_whole(path, text):
    """Write text to path through a temporary file and a rename."""
    orbseq.write_record_text(path, text)


def main(argv):
    a = parse_args(argv)
    src = Path(a.dir)
    if not src.is_dir():
        die(f"{src}: not a folder")
    scenarios = sorted(src.glob("*.json"))
    if not scenarios:
        die(f"{src}: no scenario files (*.json)")
    if a.only:
        scenarios = [s for s in scenarios
                     if any(fnmatch.fnmatchcase(s.stem, g) for g in a.only)]
        if not scenarios:
            die(f"{src}: no scenario matches --only "
                f"{' --only '.join(a.only)}")
    if a.at_n is not None:
        # Only a kind with N has one to hold (the driver's: sweep, fanin).
        for sc in scenarios:
            k = orbresults.KINDS.get(scenario_kind(sc))
            if k and not k.pairs:
                die(f"--at-n: {sc}: kind {k.name} has no N to measure at "
                    "(sweep and fanin have); leave it out with --only")
    if not os.access(a.orbbench, os.X_OK):
        die(f"{a.orbbench}: not built (run make)")
    # The crossing each scenario's next run starts from, by (variant
    # name, scenario): --prior's, then each repeat's own.
    priors = {}
    a.warm = a.warm or a.prior is not None
    if a.prior is not None:
        try:
            priors = orbwarm.load_dir(
                a.prior, [sc.stem for sc in scenarios],
                [v["name"] if v else None for v in a.variants or [None]])
        except orbwarm.PriorError as e:
            die(str(e))
    host = socket.gethostname()
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = Path(a.out) if a.out else (
        orbpaths.output("results") / f"{stamp}-{host}-{src.resolve().name}")
    try:
        # New or empty, and ours alone until the suite ends: a second
        # suite given the same --out is refused (orbbench.outlock).
        orboutlock.claim_new(out_dir)
    except orboutlock.Busy as e:
        die(str(e))
    rows, interrupted = [], False
    # Every orbbench runs in a process group of its own and dies with the
    # suite (orbprocs). SIGTERM or SIGHUP ends it (it stops its servers),
    # then the suite: exit 128+signal. SIGINT (Ctrl-C) is passed on to it:
    # it stops and writes its result, exit 130; the suite then stops after
    # its summary.
    orbprocs.supervise(signals=(signal.SIGTERM, signal.SIGHUP))
    signal.signal(signal.SIGINT, interrupt)
    variants = a.variants or [None]
    for v in a.variants:
        (out_dir / v["name"]).mkdir(exist_ok=True)
    repeats = a.plan.max_repeats if a.plan else a.repeat
    many = repeats > 1
    # --until-verdict: the most it may run; it may stop earlier
    paired = {sc: a.paired and pairs(sc) for sc in scenarios}
    steps = sum(1 if paired[sc] else len(variants) for sc in scenarios)
    progress = orbprogress.Progress(repeats * steps)
    seq = Sequential(a, out_dir) if a.plan else None
    # Interleaved: every variant runs a scenario before the next scenario,
    # so that a burst of machine noise falls on all of them alike.
    per_repeat = len(scenarios) * (1 if a.paired else len(variants))
    for rep in range(1, repeats + 1):
        if a.plan:
            # The suite may stop at its next look: the estimate to there,
            # and to the most the plan (shrunk to the budget) runs.
            at = max(rep, a.plan.first_look)
            progress.total = a.plan.planned_repeats * steps
            progress.horizon = (at * per_repeat,
                                f"look {at - a.plan.first_look + 1} of "
                                f"{a.plan.looks} (after repeat {at})")
            seq.start_repeat()
        for sc in scenarios:
            if paired[sc]:
                name = sc.stem if not many else f"{sc.stem}.r{rep}"
                outs = [out_dir / v["name"] / f"{name}.json"
                        for v in variants]
                prior = orbwarm.pair_prior(
                    [priors.get((v["name"], sc.stem)) for v in variants])
                pair = run_pair(a, sc, outs, progress, variants, prior)
                for row, v, o in zip(pair, variants, outs):
                    row["repeat"] = rep
                    if a.warm:
                        priors[(v["name"], sc.stem)] = row_prior(row, o)
                rows += pair
                if was_interrupted(pair[0]):
                    interrupted = True
                    break
                continue
            for v in variants:
                name = sc.stem if not many else f"{sc.stem}.r{rep}"
                where = out_dir / v["name"] if v else out_dir
                key = (v["name"] if v else None, sc.stem)
                row = run_one(a, sc, where / f"{name}.json", progress, v,
                              priors.get(key))
                row["repeat"] = rep
                if a.warm:
                    priors[key] = row_prior(row, where / f"{name}.json")
                rows.append(row)
                if was_interrupted(row):
                    interrupted = True
                    break
            if interrupted:
                break
        # A SIGINT between two runs, or during a look, has no client to
        # reach: the flag keeps it, and the suite stops here.
        stop = seq.stop_after(rep) if seq and not (interrupted or
                                                   INTERRUPTED) else False
        if interrupted or INTERRUPTED or stop:
            interrupted = interrupted or INTERRUPTED
            break
    try:
        return finish(a, argv, src, host, stamp, out_dir, rows, paired, seq,
                      interrupted)
    except orbatomic.WriteError as e:
        # The runs' results are written; what could not be, is named.
        die(str(e))


def finish(a, argv, src, host, stamp, out_dir, rows, paired, seq,
           interrupted):
    """The suite's end: sequential.json, summary.md, summary.json, the
    closing table, compare of the variants; the exit status.
    orbbench.atomic.WriteError names a file that could not be written."""
    meta_seq = ""
    if seq:
        seq.write(interrupted)
        meta_seq = f"{a.plan.text()}; stopped: " + (
            "interrupted" if interrupted else seq.stopped or "?")
    head, body = table(rows)
    orbs = sorted({r["orb"] for r in rows if "orb" in r})
    meta = {"suite": src.resolve().name, "host": host,
            "paired": paired_text(paired),
            "orb": ", ".join(orbs), "started": stamp,
            "variants": variants_text(a.variants),
            "sequential": meta_seq,
            "command": " ".join(["scripts/run-suite"] + argv)}
    # Whole files, whatever signal comes: a temporary file, then a rename.
    write_whole(out_dir / "summary.md", markdown(rows, head, body, meta))
    write_whole(out_dir / "summary.json", json.dumps(
        {"suite": meta["suite"], "command": meta["command"],
         "variants": a.variants,
         "paired": bool(paired) and all(paired.values()),
         "paired_scenarios": [sc.stem for sc, p in paired.items() if p],
         "rows": rows,
         "sequential": seq.as_json(interrupted) if seq else None,
         "interrupted": interrupted},
        indent=1))
    print(closing_table(a.format, head, body, rows, meta))
    compare_failed = 0
    kinds = {r.get("kind") for r in rows if "kind" in r}
    compared = {k for k in kinds if k in orbresults.KINDS and
                orbresults.KINDS[k].comparable}
    if len(a.variants) > 1 and not interrupted and kinds and not compared:
        # compare weighs the kinds with steps or metrics (no refusal);
        # the others have their own tables
        print(f"{PROG}: nothing compare weighs among the results (kind "
              f"{', '.join(sorted(kinds))}): compare skipped")
    elif len(a.variants) > 1 and not interrupted:
        compare_failed = compare_variants([v["name"] for v in a.variants],
                                          out_dir)
    print(f"\nresults and summary.md in {out_dir}")
    if interrupted or INTERRUPTED:
        return 130
    return 1 if compare_failed or any("failed" in r for r in rows) else 0

