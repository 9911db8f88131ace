"""End-to-end: scripts/report on the result fixtures and a comparison, and
the bad inputs plot, compare and report each answer in one line naming
the file."""
import json
import re
import shutil
import statistics
import subprocess

import pytest

from conftest import ROOT
from reportkit import (A, B, FIX, OLD, PAIRED, SCENARIO_NAMES, bad_inputs,
                       check_links, check_one_line, check_png, docs_of, load,
                       md_rows, num, script)


def test_make_report_passes_results():
    r = subprocess.run(["make", "-n", "-C", str(ROOT), "report",
                        "RESULTS=some/folder"], capture_output=True,
                       text=True, timeout=30)
    assert "scripts/report --results 'some/folder'" in r.stdout, r.stderr


def test_report_on_fixture_folder(tmp_path):
    # what `make report RESULTS=tests/fixtures/A` runs, with --out added
    r = script("report", "--results", A, "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "report.html").read_text()
    pngs = sorted(tmp_path.glob("*.png"))
    assert [p.stem for p in pngs] == sorted(
        ["capacity", "cost", "latency-panels"] +
        [f"rounds-{name}" for name in SCENARIO_NAMES])
    imgs = re.findall(r'<img [^>]*src="data:image/png;base64,'
                      r'([A-Za-z0-9+/=]+)"', html)
    assert len(imgs) == len(pngs)
    assert not re.search(r'src="(?!data:)', html)  # nothing fetched
    for name in SCENARIO_NAMES:
        assert f"<td>{name}</td>" in html
    assert "<th>max servers</th>" in html.replace(' class="r"', "")
    assert "omniORB 4.2.5" in html
    md = (tmp_path / "report.md").read_text()
    for p in pngs:
        assert f"]({p.name})" in md
    check_links(md, tmp_path)
    # the summary: each scenario's own crossing N and max servers
    rows = md_rows(md, "scenario")
    assert list(rows) == SCENARIO_NAMES
    for name, docs in docs_of(A).items():
        res = docs[0]["result"]
        assert rows[name]["crossing N"] == num(res.get("crossing_n")), name
        assert rows[name]["max servers"] == str(res["max_servers"]), name
        assert rows[name]["stop"] == res["stop_reason"]
    assert "## How to reproduce" in md
    for d in docs_of(A).values():
        assert " ".join(d[0]["command"][1:]) in md
    # Contents first, then the summary, figures, environment last.
    order = [md.index(h) for h in ("Contents:", "## Summary", "## Figures",
                                   "## Environment", "## How to reproduce")]
    assert order == sorted(order)


def test_report_of_a_comparison(tmp_path):
    """A run-suite folder of two variants (paired runs, B with 6 µs more
    server CPU per call): the verdict table first, then the figures A
    against B, every link shipped, the environment's difference named."""
    r = script("report", "--results", PAIRED, "--out", tmp_path,
               timeout=300)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report.md").read_text()
    assert md.startswith("# orbbench report: work6 against base")
    # The suite's answer first: both performance rows slower, +10% CPU
    suite = md.split("## The suite")[1].split("## Verdicts")[0]
    assert "Suite verdict: slower" in suite
    assert sum(l.startswith("| crossing N") or l.startswith("| server CPU")
               for l in suite.splitlines() if "slower" in l) == 2
    order = [md.index(h) for h in ("Contents:", "## The suite", "## Verdicts",
                                   "## Figures", "## Environment",
                                   "## How to reproduce")]
    assert order == sorted(order)
    verdicts = md.split("## Verdicts")[1].split("## Figures")[0]
    rows = [l for l in verdicts.splitlines() if l.startswith("| ")][1:]
    assert len(rows) == 8
    assert sum(l.rstrip(" |").endswith("slower") for l in rows) == 8
    assert "server.work_us" in verdicts
    for stem in ("ab-capacity", "ab-ratio", "ab-latency", "cost",
                 "rounds-sync-unix"):
        assert f"]({stem}.png)" in md
        check_png(tmp_path / f"{stem}.png")
    check_links(md, tmp_path)
    assert ".svg)" not in md
    assert "A: base" in md and "B: work6" in md


def test_report_names_suite_command(tmp_path):
    r = script("report", "--results", FIX / "repeat-A", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report.md").read_text()
    assert "scripts/run-suite tests/fixtures/repeat-scenarios --repeat 3" \
        in md
    # max servers: median (min–max, runs) of each scenario's own runs
    rows = md_rows(md, "scenario")
    for name, docs in docs_of(FIX / "repeat-A").items():
        ms = [d["result"]["max_servers"] for d in docs]
        assert len(ms) == 3 and min(ms) < max(ms)  # a spread to show
        assert rows[name]["max servers"] == \
            f"{num(statistics.median(ms))} ({min(ms)}–{max(ms)}, 3 runs)"


def test_report_reads_the_suite_command_from_summary_json(tmp_path):
    """The suite's command comes from run-suite's summary.json, else from
    the '- command:' line of its summary.md."""
    folder = tmp_path / "suite"
    shutil.copytree(FIX / "repeat-A", folder)
    doc = load(folder / "summary.json")
    doc["command"] = "scripts/run-suite from-summary-json"
    (folder / "summary.json").write_text(json.dumps(doc))
    r = script("report", "--results", folder, "--out", tmp_path / "r1")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "r1" / "report.md").read_text()
    assert "\nscripts/run-suite from-summary-json\n" in md
    (folder / "summary.json").unlink()
    r = script("report", "--results", folder, "--out", tmp_path / "r2")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "r2" / "report.md").read_text()
    assert "from-summary-json" not in md
    assert "\nscripts/run-suite tests/fixtures/repeat-scenarios --repeat 3 " \
        "--out tests/fixtures/repeat-A\n" in md


def test_old_format_result_is_still_read(tmp_path):
    """A result of a client older than the crossing search and the
    footprint fields: plot, compare and report read it. compare sets it
    against a current result of the same scenario on max_servers, both
    sides, and says so."""
    old = load(OLD)
    assert "probes" not in old and "crossing_n" not in old["result"]
    assert not any("footprint" in s or "rounds_ms" in s
                   for s in old["steps"])
    r = script("plot", OLD, "--out", tmp_path / "plot")
    assert r.returncode == 0, r.stderr
    check_png(tmp_path / "plot" / "capacity.png")
    new = A / "thread-per-call-tcp.json"
    r = script("compare", OLD, new, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "max_servers"
    assert (c["a_values"], c["b_values"]) == (
        [old["result"]["max_servers"]], [load(new)["result"]["max_servers"]])
    assert "max_servers (no crossing_n in these results)" in c["notes"]
    r = script("report", "--results", OLD.parent, "--out", tmp_path / "rep")
    assert r.returncode == 0, r.stderr
    row = md_rows((tmp_path / "rep" / "report.md").read_text(),
                  "scenario")["thread-per-call-tcp"]
    assert row["crossing N"] == "—"
    assert row["max servers"] == str(old["result"]["max_servers"])


def test_bad_input_one_line_naming_the_file(tmp_path):
    out = tmp_path / "out"
    for arg, folder, named in bad_inputs(tmp_path):
        check_one_line(script("plot", arg, "--out", out), named)
        check_one_line(script("compare", arg, B), named)
        check_one_line(script("compare", A, arg), named)
        check_one_line(script("report", "--results", folder, "--out", out),
                       named)
    assert not out.exists()


def test_compare_server_cpu_per_call(tmp_path):
    """With cpu_per_call_us in the steps, compare adds the servers' CPU per
    call at the common N, A, B and B/A; without it, no such column. The
    fixtures' own figures are replaced by a law known by hand (k n / 10
    µs, which the local fit follows exactly), then removed."""
    def rewrite(name, cpu):
        d = tmp_path / f"{name}-{cpu}"
        d.mkdir()
        for f in sorted((FIX / name).glob("*.json")):
            doc = json.loads(f.read_text())
            for m in doc["steps"] + doc["probes"]:
                m.pop("cpu_per_call_us", None)
                if cpu is not None:
                    m["cpu_per_call_us"] = {"server": cpu * m["n"] / 10}
            (d / f.name).write_text(json.dumps(doc))
        return d
    plain = script("compare", rewrite("A", None), rewrite("B", None))
    assert plain.returncode == 0, plain.stderr
    assert "server CPU B/A" not in plain.stdout
    sides = {"A": rewrite("A", 20.0), "B": rewrite("B", 25.0)}
    r = script("compare", sides["A"], sides["B"], "--format", "json")
    assert r.returncode == 0, r.stderr
    for row in json.loads(r.stdout)["scenarios"]:
        m = row["metrics"]["server_cpu_us"]
        n = m["at_n"]
        assert n == row["at_n"]
        assert m["a_values"] == [pytest.approx(20.0 * n / 10)]
        assert m["b_values"] == [pytest.approx(25.0 * n / 10)]
        assert m["ratio"] == pytest.approx(1.25)
    text = script("compare", sides["A"], sides["B"]).stdout
    assert "server CPU B/A" in text and "1.25" in text
