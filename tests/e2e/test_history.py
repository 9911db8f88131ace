"""End-to-end: scripts/history on three points made by real suites (the
system omniORB): a and b, the two variants of one paired A/A suite (the
same settings twice, paired so that the host's drift over seconds falls
on both alike), and slow, a suite of servers that burn 100 µs of CPU per
call; given out of order. The order, the steps' verdicts, the pairing,
the change points, the figures and the three documents, and the bad
inputs in one line naming the folder. About 30 seconds, most of it the
suites."""
import json
import shutil

import pytest

from conftest import ROOT, run_suite
from reportkit import check_links, check_one_line, check_png, script

# One worker for the module (make test's -n 2): its module-scoped runs are
# made once, not once a worker.
pytestmark = [pytest.mark.xdist_group("test_history"),
              pytest.mark.long]

SCENARIOS = ROOT / "tests" / "fixtures" / "repeat-scenarios"
NAMES = ["pool5-unix", "sync-unix"]
FIGURES = ["history-crossing_n", "history-server_cpu_us", "history-pss_kb",
           "history-threads"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """{point: folder} of the three points: a and b (one paired suite's
    variants' sub-folders), slow; three repeats each."""
    top = tmp_path_factory.mktemp("history")
    # max_ms 1 and max_n 120, not the fixtures' 0.5 and 40: every run
    # crosses well inside its range on a quiet host as on a busy one (at
    # 0.5 the servers without work sometimes stayed under it up to N = 40,
    # and at 0.3 the slow ones crossed below N = 2; seen 2026-12-03):
    # about N = 30-60 without work, 6-10 with 100 µs a call.
    quick = ("--set", "sweep.max_ms=1", "--set", "sweep.max_n=120")
    r = run_suite(SCENARIOS, "--repeat", "3", "--variant", "a",
                  "--variant", "b", *quick, "--out", top / "aa",
                  timeout=300)
    assert r.returncode == 0, r.stderr
    r = run_suite(SCENARIOS, "--repeat", "3", "--set", "server.work_us=100",
                  *quick, "--out", top / "slow", timeout=300)
    assert r.returncode == 0, r.stderr
    # A variant's sub-folder is a point as it is.
    return {"a": top / "aa" / "a", "b": top / "aa" / "b",
            "slow": top / "slow"}


@pytest.fixture(scope="module")
def written(suite, tmp_path_factory):
    """history over the three, labelled, given in another order than
    their versions': (out folder, history.json)."""
    out = tmp_path_factory.mktemp("history-out")
    r = script("history", f"4.10.0={suite['slow']}", f"4.2.5={suite['a']}",
               f"4.9={suite['b']}", "--out", out, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out / "history.html")
    return out, json.loads((out / "history.json").read_text())


def verdicts(step, key):
    return {row["scenario"]: row["metrics"][key]["verdict"]
            for row in step["scenarios"]}


def test_points_in_version_order(written):
    _, doc = written
    assert [p["label"] for p in doc["points"]] == ["4.2.5", "4.9", "4.10.0"]
    assert [(s["from"], s["to"]) for s in doc["steps"]] == [
        ("4.2.5", "4.9"), ("4.9", "4.10.0")]
    assert [p["folder"].rsplit("/", 1)[1] for p in doc["points"]] == [
        "a", "b", "slow"]


def test_the_slow_step_is_slower_the_aa_step_is_not(written):
    _, doc = written
    aa, slow = doc["steps"]
    # The A/A step: paired, but a paired A/A on this host is not free of
    # false alarms (the place effect, docs/measured/2026-12-02-aa-held-
    # eight.md): in about 1 of 8 runs on 2026-12-03 one of its 12 tests
    # said slower. What must hold is that its ratios stay near 1, far from
    # the slow step's.
    # (server CPU is read at the few servers every run reached, where one
    # run's reading can be 2x another's).
    for row in aa["scenarios"]:
        for key, low, high in (("crossing_n", 0.75, 1.33),
                               ("server_cpu_us", 0.5, 2)):
            assert low < row["metrics"][key]["ratio"] < high, (row, key)
    # Crossing N falls and server CPU per call grows: slower
    # where the data tell, never same or faster. Not slower on every
    # metric: the step is unpaired (a paired suite's variant against a
    # solo one), 3 runs a side, and these small sweeps stop so early that
    # server CPU is read at N = 2 to 6, where one run's reading is 4x
    # another's; on 2026-12-03 both scenarios' server CPU (x1.4 to x5.5)
    # came out inconclusive after the table's BH adjustment.
    got = [v for key in ("server_cpu_us", "crossing_n")
           for v in verdicts(slow, key).values()]
    assert "slower" in got, got
    assert set(got) <= {"slower", "inconclusive"}, got
    for row in slow["scenarios"]:
        assert row["verdict"] in ("slower", "inconclusive"), row["verdict"]
        # the direction only: x0.75 and x1.4 were the smallest seen
        assert row["metrics"]["crossing_n"]["ratio"] < 0.9
        assert row["metrics"]["server_cpu_us"]["ratio"] > 1.1
    # The A/A step is one paired suite's: paired; the next is not.
    assert all(row["paired"] for row in aa["scenarios"])
    assert not any(row["paired"] for row in slow["scenarios"])
    # One BH family over the whole table: the method counts both steps'
    # tests, three primary metrics per scenario and step.
    assert doc["method"]["tests"] == 2 * len(NAMES) * 3
    # Threads per server: shown, not tested.
    assert all(row["metrics"]["threads"]["verdict"] == "n/a"
               for s in doc["steps"] for row in s["scenarios"])
    # The slow step's change points are worse ones, and exactly its
    # verdicts that say a difference.
    cps = [c for c in doc["change_points"] if c["to"] == "4.10.0"]
    assert cps and all((c["from"], c["direction"]) == ("4.9", "worse")
                       for c in cps)
    said = {(row["scenario"], key) for row in slow["scenarios"]
            for key, m in row["metrics"].items()
            if m.get("verdict") in ("slower", "faster", "larger", "smaller")}
    assert {(c["scenario"], c["metric"]) for c in cps} == said


def test_series_one_value_per_point(written):
    _, doc = written
    cross = doc["series"]["crossing_n"]
    assert sorted(cross) == NAMES
    for name in NAMES:
        cells = cross[name]
        assert len(cells) == 3 and all(cells)
        assert all(c["low"] <= c["value"] <= c["high"] for c in cells)
        assert cells[2]["value"] < cells[1]["value"]


def test_figures_and_documents_written(written):
    out, doc = written
    for stem in FIGURES:
        check_png(out / f"{stem}.png")
    md = (out / "history.md").read_text()
    check_links(md, out)
    assert md.startswith("# orbbench history: 4.2.5 → 4.9 → 4.10.0\n")
    rows = [line for line in md.splitlines()
            if line.startswith("| 4.9 → 4.10.0 |")]
    assert len(rows) == len(NAMES) and all("◆" in r for r in rows)
    # the A/A step's rows marked exactly where it has change points (it
    # can have a false alarm: test_the_slow_step_is_slower_the_aa_step_is_not)
    aa_marked = {line.split("|")[2].strip() for line in md.splitlines()
                 if line.startswith("| 4.2.5 → 4.9 |") and "◆" in line}
    assert aa_marked == {c["scenario"] for c in doc["change_points"]
                         if c["to"] == "4.9"}
    html = (out / "history.html").read_text()
    assert html.count("data:image/png;base64,") == len(FIGURES)
    assert "<table>" in html and "4.9 → 4.10.0" in html
    # The figures name the change points, and the one N their costs are
    # read at, in their captions.
    assert "4.9 → 4.10.0 slower" in md
    at = doc["series"]["at_n"]
    assert sorted(at) == NAMES and all(at[n]["cost"] for n in NAMES)
    assert f"{NAMES[0]} N={at[NAMES[0]]['cost']}" in md


def test_order_given_and_date_and_folder_labels(suite, tmp_path):
    r = script("history", suite["slow"], suite["a"], suite["b"],
               "--order", "given", "--out", tmp_path / "given")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "given" / "history.json").read_text())
    # One ORB at every point: the folders' names are the labels.
    assert [p["label"] for p in doc["points"]] == ["slow", "a", "b"]
    # a and b ran as pairs, slow after them; the stamps are whole seconds,
    # and points that started within one keep the given order.
    given = ["slow", "b", "a"]
    r = script("history", *(suite[x] for x in given), "--order", "date",
               "--out", tmp_path / "date")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "date" / "history.json").read_text())

    def first(x):
        return min(json.loads(f.read_text())["started_at"]
                   for f in suite[x].glob("*.r*.json"))
    assert [p["label"] for p in doc["points"]] == sorted(given, key=first)
    assert first("a") <= first("slow") and first("b") <= first("slow")
    assert doc["order"] == "date"


def test_version_order_without_versions_is_one_line(suite, tmp_path):
    r = script("history", suite["a"], suite["b"], "--out", tmp_path)
    check_one_line(r, suite["a"])
    assert "no version number" in r.stderr


def test_bad_folder_is_one_line(suite, tmp_path):
    missing = tmp_path / "no-such-folder"
    r = script("history", suite["a"], missing, "--out", tmp_path / "o")
    check_one_line(r, missing)
    empty = tmp_path / "empty"
    empty.mkdir()
    r = script("history", suite["a"], f"4.1={empty}", "--out",
               tmp_path / "o")
    check_one_line(r, empty)
    assert not (tmp_path / "o").exists()


def test_one_point_is_a_usage_error(suite):
    r = script("history", suite["a"])
    assert r.returncode == 2
    assert "at least two" in r.stderr and r.stderr.count("\n") == 1


def test_other_kinds_are_left_out_with_a_note(suite, tmp_path):
    """A clock result among a point's sweeps: named, left out, the rest
    followed."""
    point = tmp_path / "a-and-clock"
    shutil.copytree(suite["a"], point)
    shutil.copy(ROOT / "results" / "examples" / "clock-2026-11-30" /
                "clock.json", point / "clock.json")
    r = script("history", f"1.0={point}", f"2.0={suite['b']}", "--out",
               tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert "clock.json" in r.stderr and "left out" in r.stderr

