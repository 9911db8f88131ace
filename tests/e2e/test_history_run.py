"""End-to-end: scripts/history --run, a history of paired neighbours run
for real (run-suite --paired per step, the system omniORB's caller
against giop-min servers, scenarios/history-client's rows made small),
then drawn: the step folders, every step paired, the
client half's tables, figures and tests beside the server half's, and
--steps reading the folders again (and refusing them out of order). The
omniORB release builds under orbs/, where they exist, as the history the
docs name. About a minute, most of it the suites."""
import json
import re

import pytest

from conftest import BIN, ROOT
from reportkit import check_links, check_one_line, check_png, script

SUITE = ROOT / "scenarios" / "history-client"
NAMES = ["sync-giopmin-unix", "deferred-giopmin-unix"]
# Small sweeps: N 2, 6, 10, ... until a round of calls takes 1 ms (about
# N = 30-60 here), five timed rounds a step.
QUICK = [x for s in ("sweep.start=2", "sweep.growth=1", "sweep.step=4",
                     "sweep.max_n=120", "sweep.max_ms=1", "sweep.rounds=5",
                     "sweep.warmup_rounds=1")
         for x in ("--set", s)]
CLIENT_FIGURES = ["history-client_cpu_us", "history-client_uss_kb",
                  "history-client_threads"]
# One worker for the module (make test's -n 2): the history it runs
# (half a minute) is made once, not once a worker.
pytestmark = pytest.mark.xdist_group("test_history_run")
VERDICTS = {"slower", "faster", "same", "inconclusive", "interference",
            "larger", "smaller", "negligible"}


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """--run over three releases of the caller: a and b the system
    omniORB's static stubs (an A/A step), c its deferred calls, on both
    scenarios. (results folder,
    history.json, the run's process)."""
    top = tmp_path_factory.mktemp("history-run")
    res = top / "R"
    # Every release sets the same keys: a paired step's side B starts
    # from A's settings.
    r = script("history", "--run", SUITE,
               "--release", "a:caller.orb=system,caller.mode=sync",
               "--release", "b:caller.orb=system,caller.mode=sync",
               "--release", "c:caller.orb=system,caller.mode=deferred",
               "--repeat", "2", *QUICK, "--results", res, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return res, json.loads((res / "history" / "history.json").read_text()), r


def test_each_step_is_a_paired_suite(ran):
    res, doc, r = ran
    steps = sorted(p.name for p in res.iterdir() if p.name != "history")
    assert steps == ["01-a-to-b", "02-b-to-c"]
    for step, (a, b) in zip(steps, (("a", "b"), ("b", "c"))):
        summary = json.loads((res / step / "summary.json").read_text())
        assert [v["name"] for v in summary["variants"]] == [a, b]
        assert summary["paired"] is True
        for side in (a, b):
            assert len(list((res / step / side).glob("*.r*.json"))) == \
                2 * len(NAMES)
    # stdout is the history's alone: the suites' output went to stderr.
    assert r.stdout.strip() == str(res / "history" / "history.html")
    assert "step 2 of 2: " in r.stderr


def test_points_steps_and_pairing(ran):
    _, doc, _ = ran
    assert [p["label"] for p in doc["points"]] == ["a", "b", "c"]
    assert doc["order"] == "steps" and doc["method"]["neighbours_paired"]
    assert [(s["from"], s["to"]) for s in doc["steps"]] == [("a", "b"),
                                                            ("b", "c")]
    # b runs in both steps: its figures pool 2 x 2 runs a scenario.
    assert [len(p["files"]) for p in doc["points"]] == [4, 8, 4]
    for s in doc["steps"]:
        assert sorted(row["scenario"] for row in s["scenarios"]) == \
            sorted(NAMES)
        for row in s["scenarios"]:
            assert row["paired"], (s["from"], row["scenario"])
            assert (row["runs_a"], row["runs_b"]) == (2, 2)
    assert all(p["caller"] and p["caller"].startswith("omniORB ")
               for p in doc["points"])


def test_the_client_half_is_followed_and_tested(ran):
    _, doc, _ = ran
    assert doc["client"] is True
    fam = doc["method"]["client"]
    assert fam["tests"] >= 2 * len(NAMES)   # client CPU at least
    for s in doc["steps"]:
        for row in s["scenarios"]:
            ms = row["metrics"]
            cpu = ms["client_cpu_us"]
            assert cpu["client_tested"] and cpu["verdict"] in VERDICTS
            assert all(v and v > 0 for v in cpu["a_values"] + cpu["b_values"])
            assert ms["client_threads"]["verdict"] == "n/a"
    # The A/A step: the same caller both sides, ratios near 1.
    for row in doc["steps"][0]["scenarios"]:
        assert 0.5 < row["metrics"]["client_cpu_us"]["ratio"] < 2, row
    for key in ("client_cpu_us", "client_threads"):
        for name in NAMES:
            cells = doc["series"][key][name]
            assert len(cells) == 3 and all(cells), (key, name)
    # USS per server is a slope over N: a cell where the runs gave one.
    assert all(len(cells) == 3 for cells in
               doc["series"]["client_uss_kb"].values())
    # sync: one thread whatever N; deferred: the invoker's threads too.
    threads = doc["series"]["client_threads"]
    for name in NAMES:
        assert threads[name][2]["value"] > threads[name][0]["value"]


def test_documents_and_figures(ran):
    res, doc, _ = ran
    out = res / "history"
    for stem in ["history-crossing_n", "history-server_cpu_us"] + \
            CLIENT_FIGURES:
        check_png(out / f"{stem}.png")
    md = (out / "history.md").read_text()
    check_links(md, out)
    assert "## Steps: the client half" in md
    assert "## Values per point" in md
    head = next(line for line in md.splitlines()
                if line.startswith("| scenario | point |"))
    # the halves side by side: server columns, then the client's
    assert re.search(r"server CPU.*PSS.*threads.*client CPU.*client USS"
                     r".*client threads", head), head
    assert "Neighbours paired" in md and "client half" in md


def test_steps_read_again_and_refused_out_of_order(ran, tmp_path):
    res, doc, _ = ran
    r = script("history", "--steps", res / "01-a-to-b", res / "02-b-to-c",
               "--out", tmp_path / "again", timeout=120)
    assert r.returncode == 0, r.stderr
    again = json.loads((tmp_path / "again" / "history.json").read_text())
    assert [p["label"] for p in again["points"]] == ["a", "b", "c"]
    for s, t in zip(doc["steps"], again["steps"]):
        for x, y in zip(s["scenarios"], t["scenarios"]):
            assert x["metrics"]["client_cpu_us"]["ratio"] == \
                pytest.approx(y["metrics"]["client_cpu_us"]["ratio"])
    r = script("history", "--steps", res / "02-b-to-c", res / "01-a-to-b",
               "--out", tmp_path / "o", timeout=60)
    check_one_line(r, "step 2 goes from 'a' but step 1 ended at 'c'")
    assert not (tmp_path / "o").exists()


def test_run_into_a_used_folder_is_refused(tmp_path):
    used = tmp_path / "R"
    used.mkdir()
    (used / "x").write_text("")
    r = script("history", "--run", SUITE, "--release", "a", "--release",
               "b", "--results", used)
    check_one_line(r, used)
    assert "new or empty folder" in r.stderr
    assert sorted(p.name for p in used.iterdir()) == ["x"]


# The releases the docs' client history names, where they are built
# (make builds a caller beside each omniORB build under orbs/).
BUILT = sorted(p.parent.name for p in
               (BIN / "orbs").glob("omniorb-4.*/caller"))


@pytest.mark.skipif(not BUILT, reason="no omniORB release caller built: "
                    "scripts/build-orb omniorb 4.3.3 --debian trixie (and "
                    "4.0.7, 4.1.7 from their tags), then make "
                    "(docs/servers.md#old-omniorb-releases)")
def test_a_client_history_over_built_releases(tmp_path):
    """The system caller and the newest release built, giop-min's row:
    the points labelled as given, each run's caller that release's."""
    orb = BUILT[-1]
    version = orb.split("-", 1)[1]
    res = tmp_path / "R"
    r = script("history", "--run", SUITE, "--release",
               "4.2.5:caller.orb=system", "--release",
               f"{version}:caller.orb={orb}", "--repeat", "2",
               "--only", "01-*", *QUICK, "--results", res, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    doc = json.loads((res / "history" / "history.json").read_text())
    assert [p["caller"] for p in doc["points"]] == [
        "omniORB 4.2.5", f"omniORB {version}"]
    (step,) = doc["steps"]
    (row,) = step["scenarios"]
    assert row["paired"] and row["metrics"]["client_cpu_us"]["verdict"] in \
        VERDICTS
