"""One suite across ORB versions (or commits): a figure per metric against
version and a table of each step's change, with the change points marked.

usage: orbbench history [LABEL=]DIR [LABEL=]DIR ... [--order ORDER]
                        [--out DIR] [--mem KIND] [--alpha A]
                        [--equivalence PCT]
       orbbench history --steps STEP_DIR [STEP_DIR ...] [--out DIR] ...
       orbbench history --run SUITE --release NAME[:KEY=VALUE,...]
                        --release NAME[:KEY=VALUE,...] ... --results DIR
                        [--repeat R] [--set KEY=VALUE]... [--only GLOB]...
                        [--out DIR] ...

Each DIR is one point: a folder of results of one suite (orbbench suite's
NAME.rR.json repeats), or one variant's sub-folder DIR/VARIANT/ of an
interleaved orbbench suite --variant run. Its label is LABEL, else the
ORB its results' server recorded (name and version, "omniORB 4.2.5"),
else (not recorded, or two points of one ORB) the folder's name.
Per metric, one figure with the points along x in order and every
scenario a line: servers held (crossing N, with the span of the runs'
crossing intervals, cut at the N they measured: an arrow where the span
recorded reaches beyond), server CPU per call, memory per server (PSS, or
--mem), threads per server. Then the table: each step, from one point to
the next, compared as orbbench compare compares B with A (paired runs
paired), its ratio, interval and verdict per metric (faster, slower,
same; larger, smaller for memory; inconclusive: the data cannot tell),
the Benjamini-Hochberg adjustment over every step's tests at once. A
step whose verdict is a difference is a change point: shaded in the
figures, marked in the table and listed. Threads per server is shown,
not tested.
Order (--order): version (default: by the version numbers in the labels,
4.0.7 < 4.1.7 < 4.2.5 < 4.10.0; a label without one is an error), given
(as listed), date (by when each point's first run started, to the
second, ties in given order: a CI history).
Neighbours paired (--run, --steps): points that ran apart are compared
as independent samples, and with 3 runs a side a step of 10% ends
inconclusive. --run SUITE runs each two neighbouring releases (--release,
in order, each a run-suite variant NAME[:KEY=VALUE,...]: the name is the
point's label) as one paired suite, orbbench suite SUITE --paired
--variant FROM --variant TO --repeat R (default 3), into
--results DIR/NN-FROM-to-TO/: both releases' servers (or callers) on the
machine at once, measured in alternating blocks as orbbench run --versus
does, so that each step is tested on its runs' ratios B/A; then draws the
history of those steps. --steps reads such step folders (in order, each
from the release the one before went to) again. A point's figures pool
its runs of both steps it is in.
When a caller made the calls (docs/callers.md), the client half is
followed too: client CPU per call, client USS per server (tested, a BH
family of their own) and client threads, in a table beside the server
half's and a figure each.
A CI history over commits: keep one result folder per commit (the
suite's --out, named by the commit), then
  orbbench history results/ci/* --order date --out plots/ci-history
(or LABEL=DIR with the commit as LABEL and --order given).
Writes into --out (default plots/history/; with --run, the --results
folder's history/): history.md, history.html (one
self-contained file, figures embedded), history.json (the points, each
step's comparison, the change points, what the figures draw), and
history-METRIC.png and .svg, each whole or not at all; one history
writes into a folder at a time (a second one is refused).
Exit: 0 written, 1 (--run) written but some runs of a step failed, 2
bad input or usage (one line naming the folder or file: fewer than two
points, a folder without results, a point mixing ORBs or settings, two
points of one label, steps that do not chain), or a step's suite refused
to start, 130 interrupted."""
import json
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.comparison.readings as orbread
import orbbench.comparison.options as orbopts
import orbbench.history as orbhistory
import orbbench.history_pairs as orbhistory_pairs
import orbbench.history_run as orbhistory_run
import orbbench.kinds  # noqa: F401  (the kinds of results)
import orbbench.outlock as orboutlock
import orbbench.paths as orbpaths
import orbbench.results as orbresults
import orbbench.sequential as orbseq
from orbbench.comparison.parts import pct_level, ratio_cell
from orbbench.reportblocks import figure_blocks, to_html, to_markdown

PROG = orbcli.prog("history")
EXAMPLES = [
    "orbbench history 4.2.5=results/omni425 4.3.3=results/omni433",
    "orbbench history --run scenarios/history-client "
    "--release 4.2.5:caller.orb=system "
    "--release 4.3.3:caller.orb=omniorb-4.3.3 --results results/hc",
    "orbbench history --steps results/hc/01-* results/hc/02-*",
    "orbbench history results/suite/omniorb-4.1.7 results/suite/omniorb-4.3.3",
    "orbbench history results/ci/* --order date --out plots/ci-history"]


def parse_args(argv):
    p = orbcli.parser("history", __doc__, EXAMPLES, raw=True)
    p.add_argument("points", nargs="*", metavar="[LABEL=]DIR",
                   help="result folders, one per point")
    p.add_argument("--order", choices=orbhistory.ORDERS,
                   help="the points' order (default version)")
    p.add_argument("--steps", nargs="+", metavar="STEP_DIR",
                   help="paired suites of neighbouring releases, in order")
    p.add_argument("--run", metavar="SUITE",
                   help="run each two neighbouring --release as a paired "
                   "suite of SUITE's scenarios, then draw")
    p.add_argument("--release", action="append", default=[],
                   metavar="NAME[:KEY=VALUE,...]",
                   help="with --run: a release, in order (a run-suite "
                   "variant)")
    p.add_argument("--results", metavar="DIR",
                   help="with --run: a new folder for the step suites")
    p.add_argument("--repeat", type=int, default=3, metavar="R",
                   help="with --run: repeats per step (default 3)")
    p.add_argument("--set", action="append", default=[], dest="sets",
                   metavar="KEY=VALUE", help="with --run: for every run")
    p.add_argument("--only", action="append", default=[], metavar="GLOB",
                   help="with --run: only these scenarios")
    p.add_argument("--out", metavar="DIR", help="default plots/history/")
    p.add_argument("--mem", choices=list(orbresults.MEM_MEASURES), default="pss",
                   help="memory per server to follow (default pss)")
    orbopts.add_arguments(p)
    a = p.parse_args(argv)
    modes = [m for m, on in (("DIR", a.points), ("--steps", a.steps),
                             ("--run", a.run)) if on]
    if len(modes) > 1:
        p.error(f"give one of result folders, --steps, --run, not "
                f"{' and '.join(modes)}")
    run_only = [o for o, on in (("--release", a.release),
                                ("--results", a.results),
                                ("--set", a.sets), ("--only", a.only))
                if on]
    if not a.run and run_only:
        p.error(f"{run_only[0]} goes with --run")
    if a.run:
        if len(a.release) < 2 or not a.results:
            p.error("--run takes --results DIR and at least two --release, "
                    "in order")
        if a.repeat < 2:
            p.error(f"--repeat {a.repeat}: at least 2 (a paired step is "
                    "tested on its runs' ratios)")
    if (a.run or a.steps) and a.order:
        p.error("--order: the steps give the order (each from the release "
                "the one before went to)")
    if not (a.run or a.steps) and len(a.points) < 2:
        p.error(f"give at least two result folders (points), not "
                f"{len(a.points)}")
    orbopts.check(p, a)
    return a


# ---- the report's blocks (orbbench.reportblocks renders them) -------------

# round ms as compare shows it: descriptive beside a crossing, tested at
# a fixed N (the bench suite), where there is no crossing.
TABLE_KEYS = ("crossing_n", "round_ms", "server_cpu_us", "mem", "threads")
# The client half's table (a caller made the calls: docs/callers.md).
CLIENT_KEYS = tuple(k for k, _, _ in orbhistory.CLIENT_METRICS)


def step_table(doc, table_keys=TABLE_KEYS):
    """(head, rows, align): a row per step and scenario, its runs on
    each side (paired when they were: compare's paired test), each
    metric's ratio to the point before with its interval and verdict,
    and the change points of that row; table_keys: the server half's
    columns (TABLE_KEYS) or the client half's (CLIENT_KEYS)."""
    mem = doc["mem_kind"]
    keys = [orbhistory.metric_key(k, mem) for k in table_keys]
    head = ["step", "scenario", "runs", "crossing N"] + [
        f"{orbhistory.metric_short(k, mem)} ×" for k in keys] + [
        "verdict", "change point"]
    rows = []
    for s in doc["steps"]:
        for row in s["scenarios"]:
            ms = row["metrics"]
            marks = [f"◆ {orbhistory.metric_short(k, mem)} "
                     f"{ms[k]['verdict']}" for k in keys if k in ms and
                     ms[k]["verdict"] in orbhistory.WORSE +
                     orbhistory.BETTER]
            runs = f"{row['runs_a']} → {row['runs_b']}" + (
                " paired" if row["paired"] else "")
            rows.append([f"{s['from']} → {s['to']}", row["scenario"], runs,
                         crossing_text(ms["crossing_n"])] +
                        [ratio_cell(ms[k]) if k in ms else "—"
                         for k in keys] +
                        ["—" if row["verdict"] == "n/a" else row["verdict"],
                         "; ".join(marks)])
    return head, rows, "ll" + "r" * (len(keys) + 2) + "ll"


def crossing_text(m):
    """'16.5 → 3.74': the two points' crossing N (geometric means of
    their runs)."""
    ga = orbresults.fmt_num(orbread.geomean(m["a_values"]))
    gb = orbresults.fmt_num(orbread.geomean(m["b_values"]))
    return f"{ga} → {gb}"


def value_table(doc):
    """(head, rows, align): each scenario at each point, what its figures
    draw (the runs' geometric mean): the server half, then with a caller
    the client half beside it."""
    mem = doc["mem_kind"]
    keys = orbhistory.metric_keys(mem, doc.get("client"))
    head = ["scenario", "point"] + [column(k, mem) for k in keys]
    rows = []
    for name in doc["series"]["crossing_n"]:
        for i, p in enumerate(doc["points"]):
            cells = [doc["series"][k][name][i] for k in keys]
            rows.append([name, p["label"]] + [value_text(c) for c in cells])
    return head, rows, "ll" + "r" * len(keys)


def column(key, mem):
    """'server CPU (µs)', 'threads': a value column's name and unit."""
    short, unit = orbhistory.metric_short(key, mem), \
        orbhistory.metric_unit(key, mem)
    return f"{short} ({unit})" if unit and unit not in short else short


def value_text(cell):
    """'812', '812 (cut ↑)' for a crossing span cut at the N measured,
    '—' without a value."""
    if not cell:
        return "—"
    cut = " (cut ↑)" if cell.get("open_high") else ""
    return orbresults.fmt_num(cell["value"]) + cut


def point_rows(doc):
    return [[str(i + 1), p["label"], p["folder"], p["orb"] + (
             f" (caller {p['caller']})" if p.get("caller") else ""),
             p["started_at"] or "not recorded", str(len(p["files"]))]
            for i, p in enumerate(doc["points"])]


def change_lines(doc):
    mem = doc["mem_kind"]
    return [f"{c['from']} → {c['to']}: {c['scenario']}, "
            f"{orbhistory.metric_title(c['metric'], mem)} {c['verdict']} "
            f"(×{c['ratio']:.3g}, q = {c['q_value']:.2g})"
            for c in doc["change_points"]]


def method_lines(doc):
    m = doc["method"]
    return [
        "Each step compares a point (B) with the one before it (A) as "
        "orbbench compare does: one value per run and metric, B/A the "
        "ratio of geometric means, Student's t on the runs' logs (paired "
        "runs: the one-sample t on each pair's log ratio).",
        f"Benjamini-Hochberg over the {m['tests']} primary tests of every "
        f"step at once ({m['steps']} step(s); alpha {m['alpha']:g}); "
        f"intervals at the family's false-coverage-rate level, "
        f"{pct_level(m['ci_level'])}. Same needs the interval within "
        f"±{100 * m['equivalence']:g}%; inconclusive: the data cannot "
        "tell.",
        "Server CPU per call at the scenario's cost_n, memory and threads "
        "per server at the nearest N with a memory figure in every run of "
        "both points; threads per server is not tested (its 95% interval "
        "shown)."] + neighbour_lines(doc) + client_lines(doc)


def neighbour_lines(doc):
    if not doc["method"].get("neighbours_paired"):
        return []
    return ["Neighbours paired: each step is its own paired suite of the "
            "two releases (orbbench suite --paired: both sides' servers "
            "at once, measured in alternating blocks), so the step's test "
            "is the per-run ratio B/A; a point's figures pool its runs of "
            "both steps it takes part in."]


def client_lines(doc):
    fam = doc["method"].get("client")
    if not fam:
        return []
    return [f"The client half (a caller made the calls): client CPU per "
            f"call at the cost_n and client USS per server tested in a "
            f"family of their own, Benjamini-Hochberg over its "
            f"{fam['tests']} tests (intervals at "
            f"{pct_level(fam['ci_level'])}); client threads shown, not "
            "tested."]


def difference_lines(doc):
    out = []
    for s in doc["steps"]:
        for d in s["environment_differences"]:
            out.append(f"{s['from']} → {s['to']}: {d['field']}: {d['a']} → "
                       f"{d['b']}")
        for side, names in (("only in " + s["from"], s["only_in_from"]),
                            ("only in " + s["to"], s["only_in_to"])):
            if names:
                out.append(f"{s['from']} → {s['to']}: {side}: "
                           f"{', '.join(names)}")
    return out or ["none: every step's environment and settings agree"]


def blocks(doc, figures, skipped):
    labels = [p["label"] for p in doc["points"]]
    head, rows, align = step_table(doc)
    ncp = len(doc["change_points"])
    out = [("h1", f"orbbench history: {' → '.join(labels)}"),
           ("p", f"{len(labels)} points, {len(doc['steps'])} steps; "
                 f"{ncp} change point(s)."),
           ("toc",),
           ("h2", "Points"),
           ("table", ["#", "label", "folder", "ORB", "first run started",
                      "results"], point_rows(doc), "rllllr"),
           ("h2", "Steps"),
           ("p", "Each cell: the ratio to the point before [its interval] "
                 "and verdict; ◆ marks a change point."),
           ("table", head, rows, align)]
    if doc.get("client"):
        chead, crows, calign = step_table(doc, CLIENT_KEYS)
        out += [("h2", "Steps: the client half"),
                ("p", "The ORB's own client (the caller) made the calls: "
                      "its costs per step, as above."),
                ("table", chead, crows, calign)]
    vhead, vrows, valign = value_table(doc)
    out += [("h2", "Values per point"),
            ("p", "What the figures draw: each point's runs' geometric "
                  "mean" + (", the server half and the client half side "
                            "by side" if doc.get("client") else "") + "."),
            ("table", vhead, vrows, valign),
            ("list", method_lines(doc)),
            ("h2", "Change points"),
            ("list", change_lines(doc) or ["none: no step's verdict is a "
                                           "difference"]),
            ("h2", "Figures")]
    out += figure_blocks(figures, skipped)
    out += [("h2", "What differs between points"),
            ("list", difference_lines(doc))]
    return out


# ---- writing --------------------------------------------------------------

def write(out, doc, figures, skipped):
    """history.md, .html and .json into out, each whole or not at all."""
    report = blocks(doc, figures, skipped)
    orbseq.write_record_text(out / "history.md", to_markdown(report, out))
    orbseq.write_record_text(out / "history.html", to_html(report))
    orbseq.write_record_text(out / "history.json", json.dumps(
        doc, indent=1, allow_nan=False) + "\n")


def run_steps(a):
    """--run: each step's paired suite; (step folders, exit code so far:
    0, 1 when some step's runs failed). ValueError for a bad plan or a
    step that could not run."""
    plan = orbhistory_run.steps_plan(a.run, a.release, a.results, a.repeat,
                                     a.sets, a.only)
    if not Path(a.run).is_dir():
        raise ValueError(f"{a.run}: no such scenario folder")
    orbhistory_run.check_results(a.results)
    done = orbhistory_run.run_steps(plan, lambda m: orbcli.note(PROG, m))
    for out, rc in done:
        if rc not in (0, 1):
            raise StepFailed(out, rc)
    return [out for out, _ in done], int(any(rc for _, rc in done))


class StepFailed(Exception):
    def __init__(self, out, rc):
        super().__init__(f"{out}: the step's suite ended with exit {rc}")
        self.rc = rc


def main(argv):
    a = parse_args(argv)
    rc = 0
    try:
        def note(m):
            orbcli.note(PROG, m)
        if a.run:
            steps, rc = run_steps(a)
        else:
            steps = a.steps
        if steps:
            points, sides = orbhistory_pairs.load_steps(steps, note)
            order = "steps"
        else:
            sides = None
            points = orbhistory.load_points(a.points, note)
            order = a.order or "version"
            points = orbhistory.ordered(points, order)
        doc = orbhistory.history(points, a.mem, a.alpha, a.equivalence / 100,
                                 sides)
        doc["order"] = order
        if steps:
            doc["step_folders"] = [str(s) for s in steps]
        out = Path(a.out) if a.out else (
            Path(a.results) / "history" if a.run else
            orbpaths.output("plots") / "history")
        orboutlock.claim(out)   # one writer: a second history is refused
        skipped = []

        def log(msg):
            skipped.append(msg)
            orbcli.note(PROG, msg)

        # matplotlib: only once the input is known good
        import orbbench.figures.history as figs_history
        figures = figs_history.history_figures(
            doc, [(p.label, [r.doc for r in p.results]) for p in points],
            out, log)
        write(out, doc, figures, skipped)
    except StepFailed as e:
        orbcli.note(PROG, str(e))
        return 130 if e.rc in (130, 129, 143) or e.rc < 0 else 2
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error(
            a.points or a.steps or [a.results], e))
    print(out / "history.html")
    orbcli.note(PROG, f"history.md, history.html, history.json and "
                f"{len(figures)} figure(s) in {out}")
    return rc
