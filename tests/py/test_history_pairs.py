"""orbbench history's neighbours paired, client half and cut spans, on
fixture data (no client, no servers): step folders chained into points,
a ~10% client step that paired runs tell and the same runs unpaired do
not, the client half's family, crossing spans cut at the N measured (and
the figure's data naming them), --run's plan and the command's refusals.

The runs are tests/fixtures/repeat-A's real sweeps (omniORB 4.2.5), each
given a caller: its CPU per call is BASE x the run's factor (a place
effect shared by the pair's two sides, 0.6 to 1.5, as the host's drift
between runs) x the release's cost x a small jitter per step."""
import copy
import json
import math
import random

import pytest

from conftest import ROOT
import orbbench.history as orbhistory
import orbbench.history_pairs as orbpairs
import orbbench.history_run as orbrun
import orbbench.interference as orbinterference

FIXTURE = ROOT / "tests" / "fixtures" / "repeat-A"
NAMES = ("pool5-unix", "sync-unix")
BASE_US = 50.0
RUN_FACTORS = (0.6, 1.0, 1.5)


def fixture_doc(name, r):
    return json.loads((FIXTURE / f"{name}.r{r}.json").read_text())


def with_caller(doc, cost, factor, rng, version="4.2.5"):
    """doc with a caller's rows: CPU per call BASE x factor x cost, each
    measurement jittered by ±0.2%; 3 threads; USS 40 KiB a server x
    factor x cost, jittered alike."""
    doc = copy.deepcopy(doc)
    doc["caller"] = {"kind": "omniorb", "name": "omniORB",
                     "version": version, "mode": "sync"}
    for s in doc["steps"] + list(doc.get("probes") or []):
        cpu = BASE_US * factor * cost * (1 + rng.uniform(-0.002, 0.002))
        s["caller"] = {"cpu_per_call_us": {"total": cpu}, "threads": 3}
    doc["result"].setdefault("costs", {})["caller"] = {
        "memory_per_server_kb": {"uss_kb": 40.0 * cost * factor *
                                 (1 + rng.uniform(-0.002, 0.002))}}
    return doc


def write_side(folder, docs):
    folder.mkdir(parents=True)
    for name, r, doc in docs:
        (folder / f"{name}.r{r}.json").write_text(json.dumps(doc))


def make_steps(top, costs, paired=True, seed=7):
    """Step folders top/NN-A-to-B/{A,B}/ of releases costs ({label: the
    client's cost factor}, in order): every step 3 runs a scenario, the
    pair's two sides sharing the run's factor; with paired, each run's
    two files carry one paired.id. [step folder]."""
    rng = random.Random(seed)
    labels = list(costs)
    steps = []
    for i, (a, b) in enumerate(zip(labels, labels[1:])):
        step = top / f"{i + 1:02d}-{a}-to-{b}"
        sides = {a: [], b: []}
        for name in NAMES:
            for r, factor in enumerate(RUN_FACTORS, 1):
                pid = f"step{i}-{name}-{r}"
                for side, (label, src) in enumerate(((a, r),
                                                     (b, r % 3 + 1))):
                    doc = with_caller(fixture_doc(name, src), costs[label],
                                      factor, rng)
                    # Each file is its own run: distinct content.
                    doc["started_at"] = f"2026-12-06T1{i}:0{r}:0{side}Z"
                    if paired:
                        doc["paired"] = {"id": pid, "side": "AB"[side]}
                    sides[label].append((name, r, doc))
        for label in (a, b):
            write_side(step / label, sides[label])
        (step / "summary.json").write_text(json.dumps(
            {"variants": [{"name": a}, {"name": b}]}))
        steps.append(step)
    return steps


def notes():
    said = []
    return said, said.append


def metric_of(doc, step, name, key):
    row = next(r for r in doc["steps"][step]["scenarios"]
               if r["scenario"] == name)
    return row["metrics"][key]


# ---- the chain of steps ---------------------------------------------------

def test_steps_chain_into_points(tmp_path):
    steps = make_steps(tmp_path, {"x": 1.0, "y": 1.1, "z": 1.1})
    said, note = notes()
    points, sides = orbpairs.load_steps(steps, note)
    assert [p.label for p in points] == ["x", "y", "z"]
    # The middle release pools its runs of both steps; the ends one's.
    assert [len(p.results) for p in points] == [6, 12, 6]
    assert len(sides) == 2
    assert [len(a) for a, _ in sides] == [6, 6]
    assert {r.path.parent.name for r in sides[1][0]} == {"y"}
    assert said == []


def test_broken_chain_and_loop_are_refused(tmp_path):
    a = make_steps(tmp_path / "a", {"x": 1.0, "y": 1.0})
    b = make_steps(tmp_path / "b", {"z": 1.0, "w": 1.0})
    with pytest.raises(ValueError, match="step 2 goes from 'z' but step 1 "
                                         "ended at 'y'"):
        orbpairs.load_steps(a + b, print)
    c = make_steps(tmp_path / "c", {"y": 1.0, "x": 1.0})
    with pytest.raises(ValueError, match="'x' is already a point"):
        orbpairs.load_steps(a + c, print)


def test_step_sides_needs_two_variants(tmp_path):
    three = tmp_path / "three"
    three.mkdir()
    (three / "summary.json").write_text(json.dumps(
        {"variants": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}))
    for v in "abc":
        (three / v).mkdir()
    with pytest.raises(ValueError, match="^.*three: a step is a suite of "
                                         "two variants .* not 3"):
        orbpairs.step_sides(three)
    # No summary: its two sub-folders holding results, sorted.
    bare = tmp_path / "bare"
    for v in ("to", "from"):
        (bare / v).mkdir(parents=True)
        (bare / v / "r.json").write_text("{}")
    assert [n for n, _ in orbpairs.step_sides(bare)] == ["from", "to"]
    with pytest.raises(ValueError, match="not a result folder"):
        orbpairs.step_sides(tmp_path / "missing")


# ---- pairing tells a 10% step ---------------------------------------------

def test_paired_neighbours_tell_a_ten_percent_client_step(tmp_path):
    steps = make_steps(tmp_path, {"x": 1.0, "y": 1.1, "z": 1.1})
    points, sides = orbpairs.load_steps(steps, print)
    doc = orbhistory.history(points, sides=sides)
    assert doc["client"] and doc["method"]["neighbours_paired"]
    for name in NAMES:
        up = metric_of(doc, 0, name, "client_cpu_us")
        flat = metric_of(doc, 1, name, "client_cpu_us")
        assert up["client_tested"]
        assert up["verdict"] == "slower", up
        assert 1.08 < up["ratio"] < 1.12
        # y to z: the same cost, within the equivalence margin.
        assert flat["verdict"] == "same", flat
        # USS per server grew by 10% too: larger.
        assert metric_of(doc, 0, name, "client_uss_kb")["verdict"] == \
            "larger"
        # Threads: shown, not tested.
        assert metric_of(doc, 0, name, "client_threads")["verdict"] == "n/a"
    fam = doc["method"]["client"]
    assert fam["tests"] == 2 * len(NAMES) * len(orbhistory.CLIENT_TESTED)
    assert all(row["paired"] for s in doc["steps"] for row in s["scenarios"])
    cps = {(c["from"], c["to"], c["metric"]) for c in doc["change_points"]}
    assert ("x", "y", "client_cpu_us") in cps
    assert not any(c["from"] == "y" and c["metric"] == "client_cpu_us"
                   for c in doc["change_points"])


def test_a_client_step_the_interference_could_make_is_not_called(
        tmp_path, monkeypatch):
    """The 10% client step again, its paired sides disturbed 15% more on
    B's side than on A's (of_pairs made to say so): the bias alone could
    make it, so it is not called (compare's rule, interference.withhold),
    nor is it a change point; the same step against a bias of 5% is."""
    steps = make_steps(tmp_path, {"x": 1.0, "y": 1.1})
    points, sides = orbpairs.load_steps(steps, print)
    for bias, called in ((1.15, False), (1.05, True)):
        monkeypatch.setattr(orbinterference, "of_pairs",
                            lambda a, b, bias=bias: {
                                "a": [], "b": [], "bias_log": math.log(bias)})
        doc = orbhistory.history(points, sides=sides)
        for name in NAMES:
            up = metric_of(doc, 0, name, "client_cpu_us")
            assert up["client_tested"]
            if called:
                assert up["verdict"] == "slower", up
            else:
                assert up["verdict"] == "interference", up
                assert up["withheld"] == "slower"
                assert any("not called" in n for n in up["notes"])
            # Memory is not disturbed by turns: USS per server stands.
            assert metric_of(doc, 0, name, "client_uss_kb")["verdict"] == \
                "larger"
        cps = {(c["from"], c["metric"]) for c in doc["change_points"]}
        assert (("x", "client_cpu_us") in cps) == called


def test_the_same_runs_unpaired_cannot_tell_it(tmp_path):
    """Without the pairing (no paired.id: points compared as independent
    samples) the run-to-run factor swamps the 10%: inconclusive."""
    steps = make_steps(tmp_path, {"x": 1.0, "y": 1.1}, paired=False)
    (step,) = steps
    points = orbhistory.load_points([f"1={step / 'x'}", f"2={step / 'y'}"],
                                    print)
    doc = orbhistory.history(points)
    assert not doc["method"]["neighbours_paired"]
    for name in NAMES:
        m = metric_of(doc, 0, name, "client_cpu_us")
        assert 1.0 < m["ratio"] < 1.2
        assert m["verdict"] == "inconclusive", m


def test_series_and_tables_carry_the_client_half(tmp_path):
    steps = make_steps(tmp_path, {"x": 1.0, "y": 1.1, "z": 1.1})
    points, sides = orbpairs.load_steps(steps, print)
    doc = orbhistory.history(points, sides=sides)
    keys = orbhistory.metric_keys("pss", True)
    assert set(keys) <= set(doc["series"])
    cpu = doc["series"]["client_cpu_us"]["sync-unix"]
    # the runs' geometric mean: BASE x the factors' mean x the cost
    gm = math.exp(sum(map(math.log, RUN_FACTORS)) / 3)
    assert cpu[0]["value"] == pytest.approx(BASE_US * gm, rel=0.02)
    assert cpu[1]["value"] == pytest.approx(BASE_US * gm * 1.1, rel=0.02)
    assert doc["series"]["client_threads"]["sync-unix"][2]["value"] == \
        pytest.approx(3)
    # The points are labelled by their labels, the caller recorded.
    assert [p["caller"] for p in doc["points"]] == ["omniORB 4.2.5"] * 3


def test_without_a_caller_no_client_half(tmp_path):
    points = orbhistory.load_points(
        [f"1={FIXTURE}", f"2={ROOT / 'tests' / 'fixtures' / 'repeat-B'}"],
        print)
    doc = orbhistory.history(points)
    assert doc["client"] is False and "client" not in doc["method"]
    assert "client_cpu_us" not in doc["series"]


# ---- crossing spans cut at the N measured ---------------------------------

def test_clip_span():
    assert orbhistory.clip_span(20, 440000, (2, 30)) == (20, 30, False,
                                                         True)
    assert orbhistory.clip_span(1, 25, (2, 30)) == (2, 25, True, False)
    assert orbhistory.clip_span(20, 28, (2, 30)) == (20, 28, False, False)
    assert orbhistory.clip_span(20, 440000, None) == (20, 440000, False,
                                                      False)


def test_an_extrapolated_interval_is_cut_and_named(tmp_path):
    docs = [fixture_doc("sync-unix", r) for r in (1, 2, 3)]
    largest = max(s["n"] for d in docs for s in d["steps"] +
                  list(d.get("probes") or []))
    docs[1]["result"]["crossing_interval"] = [23.0, 440000.0]
    values = [d["result"]["crossing_n"] for d in docs]
    c = orbhistory.cell(values, docs, True)
    assert c["open_high"] and not c["open_low"]
    # cut at the largest N measured (or a run's crossing, when its fit
    # lies past the last step: a value is never left outside its bar)
    assert c["high"] == max(largest, *values)
    assert c["interval"][1] == 440000.0
    assert c["low"] <= c["value"] <= c["high"]
    # Not cut: a span inside the N measured.
    for d in docs:
        d["result"]["crossing_interval"] = [20.0, 25.0]
    c = orbhistory.cell(values, docs, True)
    assert not c["open_high"] and not c["open_low"]
    assert c["high"] == c["interval"][1] == max(25.0, *values)


def test_the_figure_data_names_the_cut_bars(tmp_path):
    import orbbench.figures.history as figs
    steps = make_steps(tmp_path, {"x": 1.0, "y": 1.1})
    wide = next((steps[0] / "y").glob("sync-unix.r2.json"))
    d = json.loads(wide.read_text())
    d["result"]["crossing_interval"] = [23.0, 440000.0]
    wide.write_text(json.dumps(d))
    points, sides = orbpairs.load_steps(steps, print)
    doc = orbhistory.history(points, sides=sides)
    data = figs.history_data(doc, "crossing_n")
    # the one made wide; the fixture's own spans may pass their last
    # step by a little (a crossing between the last two steps) and are
    # cut there too
    assert ("sync-unix", 1, "high") in data["open_ends"]
    cell = data["lines"]["sync-unix"][1]
    assert cell["interval"][1] == 440000.0 and cell["high"] < 100
    # The axis stops at what was measured, not at 440,000.
    assert data["axis"]["max"] < 1000
    assert "cut at the largest (or smallest) N" in figs.history_caption(data)
    out = tmp_path / "figs"
    out.mkdir()
    figs.history_figures(
        doc, [(p.label, [r.doc for r in p.results]) for p in points], out)
    for key in ("crossing_n", "client_cpu_us", "client_uss_kb",
                "client_threads"):
        assert (out / f"history-{key}.png").is_file(), key


# ---- --run's plan and the command's refusals ------------------------------

def test_steps_plan():
    plan = orbrun.steps_plan("scen", ["4.0.7:caller.orb=omniorb-4.0.7",
                                      "4.2.5:caller.orb=system",
                                      "4.3.3:caller.orb=omniorb-4.3.3"],
                             "R", repeat=4, sets=["sweep.max_n=100"],
                             only=["01-*"])
    assert [str(out) for out, _ in plan] == ["R/01-4.0.7-to-4.2.5",
                                             "R/02-4.2.5-to-4.3.3"]
    argv = plan[1][1]
    assert argv[0].endswith("run-suite") and argv[1] == "scen"
    assert argv[2:] == ["--paired", "--variant", "4.2.5:caller.orb=system",
                        "--variant", "4.3.3:caller.orb=omniorb-4.3.3",
                        "--repeat", "4", "--out", "R/02-4.2.5-to-4.3.3",
                        "--set", "sweep.max_n=100", "--only", "01-*"]
    with pytest.raises(ValueError, match="at least two --release"):
        orbrun.steps_plan("scen", ["a"], "R")
    with pytest.raises(ValueError, match="--release a: given twice"):
        orbrun.steps_plan("scen", ["a", "b:x=1", "a:y=2"], "R")
    with pytest.raises(ValueError, match="a name of letters"):
        orbrun.steps_plan("scen", ["a b", "c"], "R")
    # run-suite pairs only variants that set the same keys: refused
    # before any step runs, naming both.
    with pytest.raises(ValueError, match=r"^--release c:caller.mode=deferred"
                                         r": sets caller.mode, --release "
                                         r"a:caller.orb=system sets "
                                         r"caller.orb: every release"):
        orbrun.steps_plan("scen", ["a:caller.orb=system",
                                   "c:caller.mode=deferred"], "R")
    assert orbrun.release_keys("a:x.y=1,2,z=[3,4]") == {"x.y", "z"}
    assert orbrun.release_keys("a") == set()


def test_check_results(tmp_path):
    orbrun.check_results(tmp_path / "new")
    orbrun.check_results(tmp_path)
    (tmp_path / "x").write_text("")
    with pytest.raises(ValueError, match="new or empty folder"):
        orbrun.check_results(tmp_path)


@pytest.mark.parametrize("argv, said", [
    (["--steps", "a", "--order", "given"], "--order: the steps give"),
    (["a", "b", "--release", "x"], "--release goes with --run"),
    (["--run", "s", "--release", "a", "--results", "r"],
     "at least two --release"),
    (["--run", "s", "--release", "a", "--release", "b"],
     "--run takes --results"),
    (["--run", "s", "--release", "a", "--release", "b", "--results", "r",
      "--repeat", "1"], "--repeat 1: at least 2"),
    (["a", "--steps", "b"], "not DIR and --steps"),
])
def test_usage_errors_are_one_line(argv, said, capsys):
    import orbbench.commands.history as cmd
    with pytest.raises(SystemExit) as e:
        cmd.parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err


def test_a_client_history_is_labelled_by_its_callers():
    """One server ORB at every point and a caller's ORB that moves: the
    callers label the points; without callers, the folders do."""
    from orbbench.results import Result

    def loaded(folder, caller):
        doc = {"orb": {"name": "giop-min", "version": "0.1.0"}}
        if caller:
            doc["caller"] = {"name": "omniORB", "version": caller}
        return (None, folder, [Result(None, doc)])
    assert orbhistory.default_labels([
        loaded("/r/x", "4.0.7"), loaded("/r/y", "4.3.3")]) == [
        "omniORB 4.0.7", "omniORB 4.3.3"]
    assert orbhistory.default_labels([
        loaded("/r/x", None), loaded("/r/y", None)]) == ["x", "y"]
    # one caller twice: not a label of its own
    assert orbhistory.default_labels([
        loaded("/r/x", "4.2.5"), loaded("/r/y", "4.2.5")]) == ["x", "y"]
