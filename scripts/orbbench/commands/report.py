"""Write the report of a result folder: report.md and report.html (one
self-contained file, figures embedded, opens offline) beside its figures.

usage: orbbench report [--results FOLDER] [--versus FOLDER]... [--out DIR]
                       [--suite DIR]

Without --results it first runs the default suite (orbbench suite
scenarios/grisby, or --suite DIR) into results/<date>-<host>-<suite>/ and
reports on that. A folder whose results are in two or more sub-folders
(what orbbench suite --variant, --orb or --paired writes), or --results A
--versus B [--versus C ...], makes a comparison report: the verdict table
first (orbbench compare's, a column group per set after A), then the
figures of each set against A (with more than two sets, those of set X in
A-vs-X/). A fleet tree (orbbench fleet: fleet.json and a folder per
host) makes a report across hosts: each host's status and identity, its
max servers and memory per server side by side, one figure per scenario
with a bar per host. The report goes to plots/<run>/ (run: the
result folder's name) unless --out says otherwise: a table of contents,
the summary or verdicts, every figure with what it tells, the
environment, how to reproduce. `make report` runs this; `make report
RESULTS=FOLDER` adds --results. One report writes into a folder at a
time (a second one is refused); every file is written whole or not at
all.
Exit: 0 written (1 when the suite it ran had failed scenarios, 130 when it
was interrupted), 2 bad input or usage (one line naming the file)."""
import datetime
import re
import socket
import subprocess
from pathlib import Path

import orbbench.atomic as orbatomic
import orbbench.cli as orbcli
import orbbench.outlock as orboutlock
import orbbench.safeload as orbsafe
import orbbench.kinds  # noqa: F401  (the kinds of results)
import orbbench.paths as orbpaths
import orbbench.results as orbresults
import orbbench.validate as orbvalidate
from orbbench.reportblocks import figure_blocks, to_html, to_markdown


PROG = orbcli.prog("report")
EXAMPLES = [
    "orbbench report",
    "orbbench report --results results/2026-12-01-host-grisby",
    "orbbench report --results results/A --versus results/B --out /tmp/ab"]
DEFAULT_SUITE = orbpaths.scenarios() / "grisby"


def parse_args(argv):
    p = orbcli.parser("report", __doc__, EXAMPLES)
    p.add_argument("--results", metavar="FOLDER",
                   help="report on this result folder (no suite run)")
    p.add_argument("--versus", metavar="FOLDER", action="append",
                   default=[], help="compare --results (A, the baseline) "
                   "with this; repeatable")
    p.add_argument("--out", metavar="DIR", help="default plots/<run>/")
    p.add_argument("--suite", metavar="DIR", default=str(DEFAULT_SUITE),
                   help="scenario folder to run when --results is absent")
    return p.parse_args(argv)


# ---- running the suite ----------------------------------------------------

def suite_results(suite):
    """Run the suite (scripts/run-suite: orbbench suite) on suite; return
    (result folder, exit code, the command as typed)."""
    suite = Path(suite)
    if not suite.is_dir():
        raise ValueError(f"{suite}: no such scenario folder (give "
                         "--results FOLDER to report on existing results)")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = orbpaths.output("results") / \
        f"{stamp}-{socket.gethostname()}-{suite.name}"
    cmd = [str(orbpaths.script("run-suite")), str(suite), "--out", str(out)]
    orbcli.note(PROG, f"running the suite: {' '.join(cmd)}")
    rc = subprocess.run(cmd).returncode
    if rc == 2 or not out.is_dir():
        raise ValueError(f"{suite}: run-suite failed (exit {rc})")
    return out, rc, cmd


def suite_command(folder):
    """The suite command that made a folder, if it says: summary.json's
    "command", else the "- command:" line of summary.md."""
    try:
        doc = orbsafe.load_json(folder / orbresults.SUITE_SUMMARY)
        if isinstance(doc, dict) and isinstance(doc.get("command"), str):
            return doc["command"]
    except (OSError, ValueError):
        pass
    try:
        text = orbsafe.read_bytes(folder / "summary.md").decode(
            "utf-8", "replace")
        m = re.search(r"^- command: (.+)$", text, re.M)
        return m.group(1) if m else None
    except (OSError, ValueError):
        return None


# ---- what is being reported ---------------------------------------------

def comparison_sides(folder):
    """[(label, sub-folder)] when folder holds the results of two variants
    or more in sub-folders (orbbench suite --variant/--orb/--paired: its
    summary.json names them, in order; else the sub-folders of results,
    sorted, and no results at the top), else None: a folder of
    results."""
    subs = []
    try:
        doc = orbsafe.load_json(folder / orbresults.SUITE_SUMMARY)
        # The variants in the order given (the first is the baseline);
        # summaries older than --variant have only the rows' orb_id.
        names = [v["name"] for v in doc.get("variants") or []] or \
            list(dict.fromkeys(r.get("variant") or r.get("orb_id")
                               for r in doc.get("rows") or []
                               if r.get("variant") or r.get("orb_id")))
        subs = [folder / n for n in names if (folder / n).is_dir()]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    if not subs:
        if any(f.name != orbresults.SUITE_SUMMARY for f in folder.glob("*.json")):
            return None
        subs = sorted(d for d in folder.iterdir()
                      if d.is_dir() and any(d.glob("*.json")))
    if len(subs) < 2:
        return None
    return [(d.name, d) for d in subs]


# ---- the report as blocks (orbbench.reportblocks renders them) -----------

def reproduce_lines(results, folders, suite_cmd):
    """The commands: build, the suite, each run, this report."""
    revs = sorted({str(orbresults.get(r.doc, "tool.git_revision", "?"))
                   for r in results})
    lines = [f"# orbbench revision {', '.join(revs)} (-dirty: built with "
             "uncommitted changes)", "make"]
    if suite_cmd:
        lines += ["", "# the suite", suite_cmd]
    lines += ["", "# each run, as the client recorded it (from the results'"
              " command field)"]
    lines += list(dict.fromkeys(
        orbresults.command_line(r.doc) or f"# {r.path.name}: no command recorded"
        for r in results))
    lines += ["", "# this report",
              "scripts/report --results " + " --versus ".join(
                  str(f) for f in folders)]
    return "\n".join(lines)


def environment_blocks(envs, labels=None):
    """The environment table: one column for one set, else a column per
    set (A, B, …) with what differs from A marked."""
    env_a = envs[0]
    if len(envs) == 1:
        return [("table", ["field", "value"],
                 [[k, v] for k, v in env_a.items()], "ll")]
    rows = [[k] + [e[k] for e in envs] +
            ["differs" if any(e[k] != env_a[k] for e in envs) else ""]
            for k in env_a]
    head = ["field"] + [f"{x}: {label}" for x, label in
                        zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", labels)] + [""]
    return [("table", head, rows, "l" * len(head))]


def fleet_blocks(fleet, folder, figures, skipped):
    """The report of a fleet tree (scripts/run-fleet): the hosts, their
    numbers side by side, a figure per scenario with a bar per host."""
    import orbbench.hosts as orbhosts
    hosts = fleet["hosts"]
    results = [r for h in hosts for r in h["results"]]
    head, rows = orbhosts.hosts_table(orbhosts.hosts_data(hosts))
    ihead, irows = orbhosts.identity_table(hosts)
    cmd = fleet["meta"].get("command")
    return [("h1", f"orbbench report: {orbhosts.fleet_heading(fleet)}"),
            ("p", f"{len(hosts)} hosts in the fleet tree {folder}, "
                  f"measured {orbresults.dates(results)}; report written "
                  f"{datetime.datetime.now():%Y-%m-%d %H:%M}."),
            ("toc",),
            ("h2", "Hosts"),
            ("p", "Each host's status (and why it failed) and its identity "
                  "as its results record it."),
            ("table", ihead, irows, "l" * len(ihead)),
            ("h2", "Max servers and memory per server, host by host"),
            ("p", orbhosts.TABLE_NOTE),
            ("table", head, rows, "l" + "r" * (len(head) - 1)),
            ("h2", "Figures")] + figure_blocks(figures, skipped) + [
            ("h2", "How to reproduce"),
            ("p", "From the repository's top folder, on the revision the "
                  "results name:"),
            ("code", "\n".join(([cmd] if cmd else []) + [
                f"scripts/report --results {folder}"]))]


def single_blocks(results, folder, figures, skipped, suite_cmd):
    """The report of one set: each kind's tables (orbbench.kinds: a rate
    run's, the Miro tables, ...), the summary of the kinds that have one
    (the sweeps'), every result's stop, the figures."""
    run = folder.name
    out = [("h1", f"orbbench report: {run}"),
           ("p", f"{len(results)} result files from {folder}, measured "
                 f"{orbresults.dates(results)}; report written "
                 f"{datetime.datetime.now():%Y-%m-%d %H:%M}."),
           ("toc",)]
    kinds = orbresults.KINDS.values()
    for kind in kinds:
        if kind.tables:
            out += kind.tables(results)
    for kind in kinds:
        mine = orbresults.of_kind(results, kind.name)
        if kind.summary and mine:
            out += kind.summary(mine)
    out += [("list", [f"{r.path.name}: {r.doc['result']['stop_reason']}: "
                      f"{r.doc['result'].get('detail', '')}"
                      for r in results]),
            ("h2", "Figures")]
    out += figure_blocks(figures, skipped)
    out += [("h2", "Environment")] + environment_blocks(
        [orbresults.environment(results)])
    out += [("h2", "How to reproduce"),
            ("p", "From the repository's top folder, on the revision the "
                  "results name:"),
            ("code", reproduce_lines(results, [folder], suite_cmd))]
    return out


def compare_blocks(parts, cmps, sides, res, figures, skipped,
                   suite_cmd):
    """A comparison report: sides [(label, folder)] (A first), res their
    results, cmps compare_many's comparisons, figures one list per set
    after A."""
    letters = parts.LETTERS
    labels = [label for label, _ in sides]
    head, rows = parts.main_table(cmps)
    verdicts = [c["verdict"] for cmp in cmps for c in cmp["scenarios"]]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in
                       ("slower", "faster", "mixed", "interference",
                        "inconclusive", "same", "n/a")
                       if verdicts.count(v))
    given = "; ".join(
        [f"A (the baseline) = {labels[0]}: {len(res[0])} result files in "
         f"{sides[0][1]}"] +
        [f"{x} = {label}: {len(r)} in {folder}" for x, (label, folder), r
         in zip(letters[1:], sides[1:], res[1:])])
    out = [("h1", f"orbbench report: {', '.join(labels[1:])} against "
                  f"{labels[0]}"),
           ("p", f"{given}; measured "
                 f"{orbresults.dates([x for r in res for x in r])}; report written "
                 f"{datetime.datetime.now():%Y-%m-%d %H:%M}. "
                 f"Suite: {', '.join(c['suite_verdict'] for c in cmps)}; "
                 f"scenarios: {counts}."),
           ("toc",)]
    shead, srows = parts.suite_table(cmps)
    if srows:
        out += [("h2", "The suite"),
                ("table", shead, srows, "l" * (len(shead) - 4) + "rrll"),
                ("list", parts.suite_lines(cmps))]
    out.append(("h2", "Verdicts"))
    if rows:
        out.append(("table", head, rows, "l" + "r" * (len(head) - 2) + "l"))
    for title, khead, krows in parts.kind_tables(cmps):
        out += [("h3", title),
                ("table", khead, krows, "l" + "r" * (len(khead) - 2) + "l")]
    out += [("list", [line.strip() for line in parts.method_lines(cmps) +
                      parts.note_lines(cmps)])]
    for line in parts.env_lines(cmps):  # a heading line per set
        if not line.startswith(" "):
            out.append(("p", line))
        elif out[-1][0] == "list":
            out[-1][1].append(line.strip())
        else:
            out.append(("list", [line.strip()]))
    if len(figures) == 1:
        out += [("h2", "Figures")] + figure_blocks(figures[0], skipped)
    else:
        for x, label, figs in zip(letters[1:], labels[1:], figures):
            names = "" if label == x else f": {label} against {labels[0]}"
            out += [("h2", f"Figures, {x} against A{names}")] + \
                figure_blocks(figs, [])
        if skipped:
            out += [("p", "Not drawn:"), ("list", skipped)]
    out += [("h2", "Environment")] + environment_blocks(
        [orbresults.environment(r) for r in res], labels)
    out += [("h2", "How to reproduce"),
            ("p", "From the repository's top folder, on the revision the "
                  "results name:"),
            ("code", reproduce_lines([x for r in res for x in r],
                                     [folder for _, folder in sides],
                                     suite_cmd))]
    return out


def main(argv):
    a = parse_args(argv)
    rc, suite_cmd = 0, None
    try:
        if a.results:
            folder = Path(a.results)
            if not folder.is_dir():
                raise ValueError(f"{folder}: not a result folder")
            suite_cmd = suite_command(folder)
        else:
            folder, rc, cmd = suite_results(a.suite)
            suite_cmd = " ".join(cmd)
        fleet = None
        if a.versus:
            for v in a.versus:
                if not Path(v).is_dir():
                    raise ValueError(f"{v}: not a result folder")
            folders = [folder] + [Path(v) for v in a.versus]
            names = [f.resolve().name for f in folders]
            if len(set(names)) < len(names):
                names = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:len(folders)]
            sides = list(zip(names, folders))
        else:
            # A fleet tree (scripts/run-fleet) has a folder per host: the
            # host axis, not variants to compare.
            import orbbench.hosts as orbhosts
            fleet = orbhosts.read_fleet(folder) and \
                orbhosts.load_fleet(folder)
            sides = None if fleet else comparison_sides(folder)
        out = Path(a.out) if a.out else orbpaths.output("plots") / folder.resolve().name
        skipped = []

        def log(msg):
            skipped.append(msg)
            orbcli.note(PROG, msg)

        if fleet:
            # One writer: another report into out is refused, not
            # overwritten (once the input is known good, as below).
            orboutlock.claim(out)
            import orbbench.figures.hosts as figs_hosts  # matplotlib
            figures = figs_hosts.host_figures(fleet["hosts"], out,
                                                 log=log)
            report = fleet_blocks(fleet, folder, figures, skipped)
        elif sides:
            # interrupted runs are no repeats: named, left out
            res = [orbresults.load_repeats([f], log) for _, f in sides]
            res = orbvalidate.drop_lone_partners(res, log)
            orbresults.refuse_uncomparable([x for r in res for x in r], "a comparison report")
            import orbbench.comparison.model as orbcmp  # scipy
            import orbbench.comparison.parts as cmp_parts
            cmps = orbcmp.compare_many(res, None, "pss")
            orboutlock.claim(out)
            # matplotlib: only once the input is known good
            import orbbench.figures.ab as figs_ab
            import orbbench.figures.compare as figs_compare
            # The ORBs when they all differ, else the variants' names.
            orbs = [orbresults.orb_label(r[0].doc) for r in res]
            labels = orbs if len(set(orbs)) == len(orbs) else \
                [name for name, _ in sides]
            sides = list(zip(labels, [f for _, f in sides]))
            figures = [figs_compare.compare_all(
                res[0], r, out if len(cmps) == 1 else out / f"A-vs-{x}",
                (labels[0], label),
                verdicts=figs_ab.verdicts_from_compare(cmp), log=log,
                cmp=cmp)
                for x, label, r, cmp in zip(orbcmp.LETTERS[1:], labels[1:],
                                            res[1:], cmps)]
            report = compare_blocks(cmp_parts, cmps, sides, res, figures,
                                    skipped, suite_cmd)
            figures = [f for figs in figures for f in figs]
        else:
            results = orbresults.load_results([folder])
            orboutlock.claim(out)
            # matplotlib: only once the input is known good
            import orbbench.plot as orbplot
            figures = orbplot.plot_all(results, out, folder.resolve().name,
                                       log=log)
            report = single_blocks(results, folder, figures, skipped,
                                   suite_cmd)
        # Each whole or absent (orbbench.atomic).
        orbatomic.write_text(out / "report.md", to_markdown(report, out))
        orbatomic.write_text(out / "report.html", to_html(report))
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error([a.results or a.suite], e))
    print(out / "report.html")
    orbcli.note(PROG, f"report.md, report.html and {len(figures)} figure(s) in "
           f"{out}")
    return rc

