"""End-to-end: scripts/plot, scripts/compare and scripts/report on the
result fixtures in tests/fixtures/ (see its README), their error paths, and
one real small run fed through plot."""
import csv
import io
import json
import re
import statistics
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS

SCRIPTS = ROOT / "scripts"
FIX = ROOT / "tests" / "fixtures"
A, B = FIX / "A", FIX / "B"
SCENARIO_NAMES = ["thread-per-call-tcp", "thread-per-call-unix",
                  "pool100-tcp", "pool100-unix", "pool5-unix", "sync-unix",
                  "event-tcp", "event-unix"]
WITH_FOOTPRINT = {"pool100-tcp", "pool5-unix", "sync-unix", "event-tcp",
                  "event-unix"}
# Pixel sizes of each kind of figure (figure inches × 100 dpi).
SIZE = {"latency": (1000, 700), "footprint": (1100, 800),
        "summary": (1000, 600), "box": (1000, 600)}


def script(name, *args, timeout=60):
    return subprocess.run([str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def png_size(path):
    """(width, height) from the PNG's IHDR chunk."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def check_png(path, kind):
    assert path.is_file() and path.stat().st_size > 5000, path
    assert png_size(path) == SIZE[kind], path
    svg = path.with_suffix(".svg")
    assert svg.is_file() and b"<svg" in svg.read_bytes()[:2000]


def load(path):
    return json.loads(Path(path).read_text())


def docs_of(folder):
    """{scenario name: [doc, …]} straight from the fixture files."""
    out = {}
    for f in sorted(Path(folder).glob("*.json")):
        if f.name != "summary.json":
            d = load(f)
            out.setdefault(d["scenario"]["name"], []).append(d)
    return out


# ---- plot -----------------------------------------------------------------

@pytest.fixture(scope="module")
def plotted(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots") / "A"
    r = script("plot", A, "--out", out)
    assert r.returncode == 0, r.stderr
    return out, r


def test_plot_writes_every_figure_at_its_size(plotted):
    out, _ = plotted
    for kind in ("latency", "footprint", "summary"):
        check_png(out / f"{kind}.png", kind)
    for name in SCENARIO_NAMES:
        check_png(out / f"box-{name}.png", "box")
    assert len(list(out.glob("*.png"))) == 3 + len(SCENARIO_NAMES)


def test_plot_labels_units_and_footer(plotted):
    out, _ = plotted
    doc = load(A / "sync-unix.json")
    footer = [doc["host"]["hostname"], "omniORB 4.2.5",
              doc["started_at"][:10]]
    labels = {"latency": ["Round time vs servers", "servers (N)",
                          "median round time (ms)", "per-call time (µs)",
                          "max_ms 2 ms", "sync-unix"],
              "footprint": ["PSS per server (KiB)", "USS per server (KiB)",
                            "threads per server"],
              "summary": ["Max servers per scenario", "thread-per-call-tcp"],
              "box-sync-unix": ["no quartiles", "round time (ms)", "p99"]}
    for stem, want in labels.items():
        svg = (out / f"{stem}.svg").read_text()
        for text in want + footer:
            assert text in svg, (stem, text)


def test_plot_names_results_left_out_of_footprint(plotted):
    _, r = plotted
    lines = [l for l in r.stderr.splitlines() if "footprint" in l]
    assert len(lines) == 1, r.stderr
    for name in set(SCENARIO_NAMES) - WITH_FOOTPRINT:
        assert name in lines[0]
    for name in WITH_FOOTPRINT:
        assert name not in lines[0]


def test_plot_skips_figure_whose_fields_are_missing(tmp_path):
    r = script("plot", A / "thread-per-call-tcp.json", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^plot: footprint: skipped, .*mem_per_server_kb",
                     r.stderr, re.M), r.stderr
    assert not (tmp_path / "footprint.png").exists()
    check_png(tmp_path / "latency.png", "latency")
    check_png(tmp_path / "summary.png", "summary")


def test_plot_result_without_steps(tmp_path):
    r = script("plot", FIX / "edge" / "server-died.json", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "latency: skipped, no result has any step" in r.stderr
    assert "Traceback" not in r.stderr
    check_png(tmp_path / "summary.png", "summary")


def test_plot_box_for_chosen_scenario(tmp_path):
    r = script("plot", A, "--box", "sync-unix", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp_path.glob("box-*.png")] == \
        ["box-sync-unix.png"]
    r = script("plot", A, "--box", "nosuch", "--out", tmp_path)
    assert r.returncode == 2 and "--box nosuch" in r.stderr


def test_real_small_run_through_plot(orbbench, tmp_path):
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=2",
                 "sweep.step=4", "sweep.max_n=10", "sweep.rounds=3")
    assert r.rc == 0, r.stderr
    result = next(tmp_path.glob("result-*.json"))
    out = tmp_path / "plots"
    p = script("plot", result, "--out", out)
    assert p.returncode == 0, p.stderr
    check_png(out / "latency.png", "latency")
    check_png(out / "summary.png", "summary")
    check_png(out / f"box-{result.stem}.png", "box")
    if any("mem_per_server_kb" in s for s in r.doc["steps"]):
        check_png(out / "footprint.png", "footprint")
    else:  # a client without the footprint fields
        assert "footprint: skipped" in p.stderr


def test_shared_ordering_and_grouping():
    import sys
    sys.path.insert(0, str(SCRIPTS))
    import orbresults as R
    assert R.seed_order(["event-tcp", "zz", "sync-unix",
                         "thread-per-call-tcp"]) == \
        ["thread-per-call-tcp", "sync-unix", "event-tcp", "zz"]
    res = R.load_results([A / "sync-unix.json", B / "sync-unix.json"])
    assert list(R.group_by_scenario(res)) == ["sync-unix"]
    assert list(R.group_by_scenario(res, split_orbs=True)) == \
        ["sync-unix [omniORB 4.2.5]", "sync-unix [omniORB 4.3.3]"]


# ---- compare --------------------------------------------------------------

def expected_row(da, db):
    """The comparison of one single-run scenario, computed here."""
    a, b = da[0], db[0]
    ma, mb = a["result"]["max_servers"], b["result"]["max_servers"]
    ns = sorted({s["n"] for s in a["steps"]} & {s["n"] for s in b["steps"]})
    n = ns[-1]
    sa = next(s for s in a["steps"] if s["n"] == n)
    sb = next(s for s in b["steps"] if s["n"] == n)
    pa = sa.get("mem_per_server_kb", {}).get("pss")
    pb = sb.get("mem_per_server_kb", {}).get("pss")
    return {"max_a": ma, "max_b": mb, "ratio": mb / ma if ma else None,
            "n": n, "round_ratio": sb["round_ms"]["median"] /
            sa["round_ms"]["median"],
            "mem_ratio": pb / pa if pa and pb else None}


def two(x):
    return "—" if x is None else f"{x:.2f}"


def test_compare_ratios_and_environment(tmp_path):
    r = script("compare", A, B)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    # the environment comes before the table, naming what differs
    table_at = out.index("scenario  ")
    env = out[:table_at]
    assert "ORB: omniORB 4.2.5 → omniORB 4.3.3" in env
    assert "cflags: -O2 → -O3" in env
    assert "revision 45eb733-dirty) → orbbench 0.1.0 (revision 7f46e50" \
        in env
    assert "servers on CPUs 0, client on CPUs 1" in env
    da, db = docs_of(A), docs_of(B)
    rows = {l.split()[0]: l for l in out[table_at:].splitlines()[1:9]}
    assert list(rows) == SCENARIO_NAMES  # the seed's order
    for name in SCENARIO_NAMES:
        e = expected_row(da[name], db[name])
        cells = rows[name].split()
        assert cells[1:3] == [str(e["max_a"]), str(e["max_b"])]
        assert cells[3] == two(e["ratio"])
        assert str(e["n"]) in cells and two(e["round_ratio"]) in cells
        assert cells[-1] == two(e["mem_ratio"])


def test_compare_json_md_csv():
    r = script("compare", A, B, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    da, db = docs_of(A), docs_of(B)
    assert [s["scenario"] for s in doc["scenarios"]] == SCENARIO_NAMES
    for s in doc["scenarios"]:
        e = expected_row(da[s["scenario"]], db[s["scenario"]])
        assert s["at_n"] == e["n"]
        for key in ("ratio", "round_ratio", "mem_ratio"):
            got = s[{"ratio": "max_servers_ratio",
                     "round_ratio": "round_ms_ratio",
                     "mem_ratio": "mem_ratio"}[key]]
            assert got == pytest.approx(e[key]) if e[key] else got is None
    fields = {d["field"] for d in doc["environment_differences"]}
    assert {"ORB", "ORB id", "tool", "cflags", "CPU placement"} <= fields
    md = script("compare", A, B, "--format", "md").stdout
    assert "| scenario | max A | max B | B/A |" in md
    assert md.index("ORB: omniORB 4.2.5") < md.index("| scenario |")
    c = script("compare", A, B, "--format", "csv", "--at", "2")
    rows = list(csv.reader(io.StringIO(c.stdout)))
    assert rows[0][:4] == ["scenario", "max A", "max B", "B/A"]
    assert [r[0] for r in rows[1:]] == SCENARIO_NAMES
    assert {r[5] for r in rows[1:]} == {"2"}
    assert "ORB: omniORB 4.2.5" in c.stderr  # environment kept off the CSV


def test_compare_repeats_spread_and_noise():
    r = script("compare", FIX / "repeat-A", FIX / "repeat-B",
               "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    da, db = docs_of(FIX / "repeat-A"), docs_of(FIX / "repeat-B")
    verdicts = set()
    for s in doc["scenarios"]:
        ma = [d["result"]["max_servers"] for d in da[s["scenario"]]]
        mb = [d["result"]["max_servers"] for d in db[s["scenario"]]]
        assert len(ma) == len(mb) == 3
        assert (s["a"]["max_servers_min"], s["a"]["max_servers_max"]) == \
            (min(ma), max(ma))
        assert s["b"]["max_servers"] == statistics.median(mb)
        spread = max(max(ma) - min(ma), max(mb) - min(mb))
        diff = abs(statistics.median(mb) - statistics.median(ma))
        want = ("same" if diff == 0 else
                "within noise" if diff < spread else "outside the spread")
        assert s["verdict"] == want
        verdicts.add(want)
    assert verdicts == {"within noise", "outside the spread"}
    text = script("compare", FIX / "repeat-A", FIX / "repeat-B").stdout
    assert "within noise" in text and "(3 runs)" not in text


def test_compare_overlay_plots(tmp_path):
    r = script("compare", FIX / "repeat-A", FIX / "repeat-B",
               "--plots", tmp_path)
    assert r.returncode == 0, r.stderr
    check_png(tmp_path / "compare-latency.png", "latency")
    check_png(tmp_path / "compare-footprint.png", "footprint")


# ---- report ---------------------------------------------------------------

def test_make_report_passes_results():
    r = subprocess.run(["make", "-n", "-C", str(ROOT), "report",
                        "RESULTS=some/folder"], capture_output=True,
                       text=True, timeout=30)
    assert "scripts/report --results some/folder" in r.stdout, r.stderr


def test_report_on_fixture_folder(tmp_path):
    # what `make report RESULTS=tests/fixtures/A` runs, with --out added
    r = script("report", "--results", A, "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "report.html").read_text()
    pngs = sorted(tmp_path.glob("*.png"))
    assert len(pngs) == 3 + len(SCENARIO_NAMES)
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
    assert "## How to reproduce" in md
    for d in docs_of(A).values():
        assert " ".join(d[0]["command"][1:]) in md


def test_report_names_suite_command(tmp_path):
    r = script("report", "--results", FIX / "repeat-A", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report.md").read_text()
    assert "scripts/run-suite tests/fixtures/repeat-scenarios --repeat 3" \
        in md
    assert "6 (4–6, 3 runs)" in md or "(3 runs)" in md


# ---- bad input ------------------------------------------------------------

def bad_inputs(tmp_path):
    """[(path given to plot and compare, folder given to report, the path
    each message must name)]."""
    notjson = tmp_path / "notjson" / "x.json"
    notjson.parent.mkdir()
    notjson.write_text("this is not JSON\n")
    schema = tmp_path / "schema" / "old.json"
    schema.parent.mkdir()
    doc = load(A / "sync-unix.json")
    doc["schema"] = "orbbench-result/0"
    schema.write_text(json.dumps(doc))
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = tmp_path / "missing.json"
    return [(notjson, notjson.parent, notjson),
            (schema, schema.parent, schema),
            (empty, empty, empty),
            (missing, missing, missing)]


def check_one_line(r, path):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(path) in lines[0] and "Traceback" not in r.stderr


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
    """With cpu_per_call_us in the steps, compare adds server CPU per call
    at the common N, A, B and B/A; without it, no such column."""
    plain = script("compare", FIX / "A", FIX / "B").stdout
    assert "server CPU" not in plain
    sides = {}
    for name, cpu in (("A", 20.0), ("B", 25.0)):
        d = tmp_path / name
        d.mkdir()
        for f in sorted((FIX / name).glob("*.json")):
            doc = json.loads(f.read_text())
            for step in doc["steps"]:
                step["cpu_per_call_us"] = {"server": cpu * step["n"] / 10}
            (d / f.name).write_text(json.dumps(doc))
        sides[name] = d
    r = script("compare", sides["A"], sides["B"], "--format", "json")
    assert r.returncode == 0, r.stderr
    for row in json.loads(r.stdout)["scenarios"]:
        n = row["at_n"]
        assert row["a"]["cpu_us_at_n"] == pytest.approx(20.0 * n / 10)
        assert row["b"]["cpu_us_at_n"] == pytest.approx(25.0 * n / 10)
        assert row["cpu_ratio"] == pytest.approx(1.25)
    text = script("compare", sides["A"], sides["B"]).stdout
    assert "server CPU µs/call A" in text and "1.25" in text
