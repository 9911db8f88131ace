"""scripts/plot on the result fixtures in tests/fixtures/ (see its
README); on one real small run: tests/e2e/test_plot_run.py."""
import re
import shutil
from pathlib import Path

import orbbench.plot as orbplot
from conftest import ROOT
from reportkit import (A, B, FIX, OLD, ORB_433, PAIRED, SCENARIO_NAMES,
                       check_png, load, plotted, result_doc, script)


def test_plot_writes_a_figure_per_question(plotted):
    # Results of the current client: crossing N, every round kept
    # (rounds_ms), a footprint in every step; sweeps only (no fixed-N).
    out, r = plotted
    want = ["capacity", "cost", "latency-panels"] + [
        f"rounds-{name}" for name in SCENARIO_NAMES]
    assert sorted(p.stem for p in out.glob("*.png")) == sorted(want)
    for stem in want:
        check_png(out / f"{stem}.png")
    assert "fixed-n: skipped" in r.stderr
    assert "rounds: skipped" not in r.stderr and "left out" not in r.stderr


def test_plot_labels_units_and_footer(plotted):
    out, _ = plotted
    doc = load(A / "sync-unix.json")
    footer = [doc["host"]["hostname"], "omniORB 4.2.5",
              doc["started_at"][:10]]
    labels = {"capacity": ["servers", "max_servers"] + SCENARIO_NAMES,
              "latency-panels": ["servers (N)", "median round time (ms)",
                                 "max_ms"] + SCENARIO_NAMES,
              "cost": ["memory per server (KiB)", "MemAvailable drop"]}
    for stem, want in labels.items():
        svg = (out / f"{stem}.svg").read_text()
        for text in want + footer:
            assert text in svg, (stem, text)


def test_plot_names_results_left_out_of_cost(tmp_path):
    """A result without a footprint (the old-format one) is left out of
    the cost figure by name, beside one that has it."""
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for f in (A / "sync-unix.json", OLD):
        shutil.copy(f, mixed)
    out = tmp_path / "out"
    r = script("plot", mixed, "--out", out)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("plot: cost")]
    assert lines == ["plot: cost: left out thread-per-call-tcp (no step "
                     "with a footprint (PSS, USS))"]
    check_png(out / "cost.png")
    assert "sync-unix" in (out / "cost.svg").read_text()


def test_plot_skips_figure_whose_fields_are_missing(tmp_path):
    r = script("plot", OLD, "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^plot: cost: skipped", r.stderr, re.M), r.stderr
    assert re.search(r"^plot: rounds: skipped, these results keep no "
                     r"per-round times \(rounds_ms", r.stderr, re.M), r.stderr
    assert not (tmp_path / "cost.png").exists()
    check_png(tmp_path / "latency-panels.png")
    check_png(tmp_path / "capacity.png")


def test_plot_result_without_steps(tmp_path):
    r = script("plot", FIX / "edge" / "server-died.json", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert re.search(r"^plot: .*skipped", r.stderr, re.M), r.stderr


def test_plot_rounds_for_chosen_scenario(tmp_path):
    r = script("plot", PAIRED / "base", "--rounds", "sync-unix", "--out",
               tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp_path.glob("rounds-*.png")] == \
        ["rounds-sync-unix.png"]
    r = script("plot", PAIRED / "base", "--rounds", "nosuch", "--out",
               tmp_path)
    assert r.returncode == 2 and "--rounds nosuch" in r.stderr


def test_plot_splits_runs_whose_settings_differ(tmp_path):
    """Idle and connected runs of one scenario: two rows of the cost
    figure, named by the setting."""
    r = script("plot", ROOT / "results" / "examples" / "idle-vs-connected",
               "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    svg = (tmp_path / "cost.svg").read_text()
    assert "client.connect=false" in svg and "client.connect=true" in svg


def test_plot_labels_a_few_differences_not_every_key(tmp_path):
    """A new run beside an old-format one of the same scenario: keys the
    old client did not record are no difference; of the rest, the label
    names the fewest that tell the series apart, then "+N more" (it named
    every key, and the figure's margins did not fit: plot exited 2)."""
    import orbbench.results as orbresults
    res = orbresults.load_results([FIX / "A", FIX / "old-format"])
    groups = orbresults.group_by_scenario(res, split_settings=True)
    tpc = [k for k in groups if k.startswith("thread-per-call-tcp")]
    assert len(tpc) == 2, list(groups)
    for k in tpc:
        assert "absent" not in k and k.count("=") <= orbresults.TAG_KEYS, k
    r = script("plot", FIX / "A", FIX / "old-format", "--out", tmp_path)
    assert r.returncode == 0, r.stderr


def test_held_step_is_never_above_max_servers():
    """max_servers may be a crossing probe's N, between the sweep's steps:
    the memory and threads of a scenario come from the largest step at or
    below it, not from the last step (which is over max_ms)."""
    import orbbench.results as orbresults
    doc = {"result": {"max_servers": 30},
           "steps": [{"n": 10}, {"n": 20}, {"n": 40}]}
    assert orbresults.held_step(doc)["n"] == 20
    doc["result"]["max_servers"] = 40
    assert orbresults.held_step(doc)["n"] == 40
    doc["result"]["max_servers"] = 5
    assert orbresults.held_step(doc) is None


def test_shared_ordering_and_grouping():
    import orbbench.results as orbresults
    assert orbresults.seed_order(["event-tcp", "zz", "sync-unix",
                         "thread-per-call-tcp"]) == \
        ["thread-per-call-tcp", "sync-unix", "event-tcp", "zz"]
    res = orbresults.load_results([A / "sync-unix.json", B / "sync-unix.json"])
    assert list(orbresults.group_by_scenario(res)) == ["sync-unix"]
    # one ORB on both sides: not split by ORB; split by the setting
    assert list(orbresults.group_by_scenario(res, split_orbs=True)) == ["sync-unix"]
    work = [r.doc["scenario"]["server"]["work_us"] for r in res]
    assert work[0] != work[1]
    assert list(orbresults.group_by_scenario(res, split_settings=True)) == [
        f"sync-unix [server.work_us={w}]" for w in work]


def test_grouping_splits_runs_by_the_settings_that_differ():
    """Idle and connected runs of one scenario are two series, named by
    the setting that differs; repeats stay together; compare's grouping
    (no split) still sees one scenario, so it can refuse the mix."""
    import orbbench.results as orbresults
    res = orbresults.load_results([ROOT / "results" / "examples" /
                          "idle-vs-connected"])
    groups = orbresults.group_by_scenario(res, split_orbs=True, split_settings=True)
    assert {k: [r.path.name for r in v] for k, v in groups.items()} == {
        "sync-unix [client.connect=true]": ["connected-1.json",
                                            "connected-2.json"],
        "sync-unix [client.connect=false]": ["idle-1.json", "idle-2.json"]}
    assert list(orbresults.group_by_scenario(res)) == ["sync-unix"]
    # Two ORBs and a setting: both in one bracket.
    docs = [result_doc("sync-unix", 100), result_doc("sync-unix", 100),
            result_doc("sync-unix", 100,
                       scenario={"server.work_us": 6}, orb=ORB_433)]
    rs = [orbresults.Result(Path(f"r{i}.json"), d) for i, d in enumerate(docs)]
    assert list(orbresults.group_by_scenario(rs, split_orbs=True,
                                    split_settings=True)) == [
        "sync-unix [omniORB 4.2.5, server.work_us=0]",
        "sync-unix [omniORB 4.3.3, server.work_us=6]"]


def test_log_axes_label_their_ticks_without_mathtext(tmp_path):
    # text.parse_math is off (names are data), so matplotlib's default log
    # labels ($\\mathdefault{10^{k}}$) would print as they stand.
    fig, ax = orbplot.plt.subplots()
    ax.plot([1, 10, 1000, 1e6], [1e-5, 0.3, 2, 40])
    ax.set_xscale("log")
    ax.set_yscale("log")
    orbplot.save(fig, tmp_path, "f", "t", "c")
    labels = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    assert "1000" in labels and any(labels)
    assert not [t for t in labels if "$" in t or "mathdefault" in t]
