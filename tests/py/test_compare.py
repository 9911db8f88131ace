"""End-to-end: scripts/compare on the result fixtures in tests/fixtures/
and on results constructed here (verdicts worked by hand)."""
import csv
import io
import json
import re
import statistics

import pytest

from conftest import ROOT
from reportkit import (A, B, FIX, ORB_425, ORB_433, SCENARIO_NAMES, SYNTH,
                       check_png, crossing_only, crossing_value, docs_of,
                       fixture_pairs, md_rows, measured_ns, measurement, num,
                       ratio_of, result_doc, run_of, script, step_mem,
                       synth_sides, two, write_side)


def test_fixture_sides_differ():
    """What the tests of A against B rely on: B differs from A by
    server.work_us alone, and in every scenario the two crossing values
    differ, so that A's and B's columns swapped cannot pass."""
    for name, a, b in fixture_pairs():
        assert a["scenario"]["server"]["work_us"] == 0
        assert b["scenario"]["server"]["work_us"] > 0
        assert crossing_value(a) != crossing_value(b), name


def test_compare_text_table_holds_each_sides_values():
    r = script("compare", A, B)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    # the environment comes before the table: only the knob differs
    table_at = out.index("scenario  ")
    env = out[:table_at]
    work_b = docs_of(B)["sync-unix"][0]["scenario"]["server"]["work_us"]
    assert ("Environment differences (A → B):\n  scenario server.work_us "
            f"(all scenarios): 0 → {work_b}\n") in env
    assert sum(l.startswith("  ") for l in env.splitlines()) == 1
    lines = out[table_at:].splitlines()
    head = re.split(r"\s{2,}", lines[0].strip())
    rows = {l.split()[0]: dict(zip(head, l.split())) for l in lines[1:9]}
    assert list(rows) == SCENARIO_NAMES  # the seed's order
    for name, a, b in fixture_pairs():
        row = rows[name]
        ca, cb = crossing_value(a), crossing_value(b)
        # one run a side: each side's own value, a plain ratio, no verdict
        assert row["crossing N A"] == num(ca), name
        assert row["crossing N B"] == num(cb), name
        assert row["B/A [interval]"] == two(ratio_of(cb, ca)), name
        n = int(row["at N"])
        assert n in measured_ns(a) and n in measured_ns(b), name
        nm = int(row["PSS at N"])
        assert row["PSS B/A"] == two(step_mem(b, nm) / step_mem(a, nm))
        assert row["verdict"] == "—"
    assert "No verdicts: one run on a side; repeats are needed " \
        "(run-suite --repeat 3)." in out


def test_compare_json_holds_each_sides_values():
    r = script("compare", A, B, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [s["scenario"] for s in doc["scenarios"]] == SCENARIO_NAMES
    for s, (name, a, b) in zip(doc["scenarios"], fixture_pairs()):
        ms = s["metrics"]
        c = ms["crossing_n"]
        assert c["source"] == "crossing_n"
        assert (c["a_values"], c["b_values"]) == \
            ([crossing_value(a)], [crossing_value(b)])
        n = s["at_n"]
        assert ms["round_ms"]["at_n"] == ms["server_cpu_us"]["at_n"] == n
        assert n in measured_ns(a) and n in measured_ns(b)
        m = ms["pss_kb"]
        nm = m["at_n"]
        assert (m["a_values"], m["b_values"]) == \
            ([step_mem(a, nm)], [step_mem(b, nm)])
        assert m["ratio"] == pytest.approx(step_mem(b, nm) /
                                           step_mem(a, nm))
        for m in ms.values():
            assert m["verdict"] == "n/a" and m["p_value"] is None
        assert s["verdict"] == "n/a"
    assert doc["method"]["tests"] == 0
    work_b = docs_of(B)["sync-unix"][0]["scenario"]["server"]["work_us"]
    assert doc["environment_differences"] == [
        {"field": "scenario server.work_us (all scenarios)", "a": "0",
         "b": str(work_b)}]


def test_compare_md_holds_each_sides_values():
    md = script("compare", A, B, "--format", "md").stdout
    assert md.index("scenario server.work_us") < md.index("| scenario |")
    rows = md_rows(md, "scenario")
    assert list(rows) == SCENARIO_NAMES
    for name, a, b in fixture_pairs():
        row = rows[name]
        assert row["crossing N A"] == num(crossing_value(a)), name
        assert row["crossing N B"] == num(crossing_value(b)), name
        nm = int(row["PSS at N"])
        assert row["PSS B/A"] == two(step_mem(b, nm) / step_mem(a, nm))


def test_compare_csv_holds_each_sides_values():
    """--at 4, the first step of every fixture run: each side's median
    (one run: its value) in its own column; numeric columns hold numbers
    or nothing, text goes to the verdict columns."""
    for _, a, b in fixture_pairs():
        assert 4 in {s["n"] for s in a["steps"]} & {s["n"] for s in b["steps"]}
    c = script("compare", A, B, "--format", "csv", "--at", "4")
    assert c.returncode == 0, c.stderr
    rows = list(csv.DictReader(io.StringIO(c.stdout)))
    assert list(rows[0])[:3] == ["scenario", "metric", "at_n"]
    # the suite's rows come last, one per primary metric
    suite = [r for r in rows if r["scenario"] == "(suite)"]
    rows = [r for r in rows if r["scenario"] != "(suite)"]
    assert [r["metric"] for r in suite] == \
        ["crossing_n", "server_cpu_us", "pss_kb"]
    assert [r["scenario"] for r in rows[::4]] == SCENARIO_NAMES
    assert [r["metric"] for r in rows[:4]] == \
        ["crossing_n", "round_ms", "server_cpu_us", "pss_kb"]
    text = {"scenario", "metric", "verdict", "scenario_verdict"}
    for r in rows:
        for k, v in r.items():
            if k not in text and v != "":
                float(v)  # a number, or the cell is empty
        assert r["verdict"] == r["scenario_verdict"] == "n/a"
        assert r["at_n"] == ("" if r["metric"] == "crossing_n" else "4")
    by = {(r["scenario"], r["metric"]): r for r in rows}
    for name, a, b in fixture_pairs():
        cr = by[(name, "crossing_n")]
        assert (float(cr["a_median"]), float(cr["b_median"])) == \
            (crossing_value(a), crossing_value(b))
        pss = by[(name, "pss_kb")]
        assert (float(pss["a_median"]), float(pss["b_median"])) == \
            (step_mem(a, 4), step_mem(b, 4))
    assert "scenario server.work_us" in c.stderr  # environment off the CSV


@pytest.mark.parametrize("kind,label", [("pss", "PSS"), ("uss", "USS"),
                                        ("mem_available",
                                         "MemAvailable drop / N")])
def test_compare_mem_kinds_read_each_runs_own_figure(kind, label):
    """--mem: the memory per server of that kind, at a step every run
    has, each side's own figure from its own file."""
    r = script("compare", A, B, "--mem", kind, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["mem_kind"] == kind
    for s, (name, a, b) in zip(doc["scenarios"], fixture_pairs()):
        m = s["metrics"][f"{kind}_kb"]
        nm = m["at_n"]
        va, vb = step_mem(a, nm, kind), step_mem(b, nm, kind)
        assert (m["a_values"], m["b_values"]) == ([va], [vb]), name
        assert m["ratio"] == (pytest.approx(vb / va) if va > 0 and vb > 0
                              else None)
    text = script("compare", A, B, "--mem", kind).stdout
    assert f"{label} at N" in text and f"{label} B/A" in text


def test_compare_makes_no_crossing_test_of_fixed_n_runs():
    """The bench suite measures one N: its crossing would be that N on
    every run, so compare leaves the metric empty and says why, while
    round time and CPU per call are still tested."""
    bench = ROOT / "results" / "examples" / "bench-omniorb-4.2.5-vs-4.3.3"
    r = script("compare", bench / "omniorb-system", bench / "omniorb-4.3.3",
               "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["scenarios"]) == 8
    for s in doc["scenarios"]:
        m = s["metrics"]["crossing_n"]
        assert m["source"] == "fixed_n" and m["ratio"] is None
        assert m["verdict"] == "n/a"
        assert m["notes"] == ["fixed N: the runs measured one N, no crossing"]
        assert s["metrics"]["round_ms"]["p_value"] is not None


def test_compare_repeats_runs_and_tests():
    r = script("compare", FIX / "repeat-A", FIX / "repeat-B",
               "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    da, db = docs_of(FIX / "repeat-A"), docs_of(FIX / "repeat-B")
    assert [s["scenario"] for s in doc["scenarios"]] == \
        ["pool5-unix", "sync-unix"]
    text = script("compare", FIX / "repeat-A", FIX / "repeat-B").stdout
    for s in doc["scenarios"]:
        fa, fb = da[s["scenario"]], db[s["scenario"]]
        va = [crossing_value(d) for d in fa]
        vb = [crossing_value(d) for d in fb]
        assert len(va) == len(vb) == 3
        c = s["metrics"]["crossing_n"]
        assert (c["a_values"], c["b_values"]) == (va, vb)  # file order
        assert (c["n_a"], c["n_b"]) == (3, 3)
        ma = [d["result"]["max_servers"] for d in fa]
        assert (s["a"]["max_servers_min"], s["a"]["max_servers_max"]) == \
            (min(ma), max(ma))
        assert [x["max_servers"] for x in s["crossing"]["b"]] == \
            [d["result"]["max_servers"] for d in fb]
        # B's servers burn 100 µs more per call: every B run held far fewer
        # servers than every A run, and the test says so.
        assert max(vb) < min(va) / 2
        assert c["verdict"] == "slower" and s["verdict"] == "slower"
        # the text table: median (min–max) of each side's own runs
        row = next(l for l in text.splitlines()
                   if l.startswith(s["scenario"] + " "))
        for v in (va, vb):
            assert (f"{num(statistics.median(v))} "
                    f"({num(min(v))}–{num(max(v))})") in row, (row, v)
    assert "Smallest difference detectable" in text


def test_compare_figures(tmp_path):
    r = script("compare", FIX / "repeat-A", FIX / "repeat-B",
               "--plots", tmp_path)
    assert r.returncode == 0, r.stderr
    for stem in ("ab-capacity", "ab-ratio", "ab-latency", "cost"):
        check_png(tmp_path / f"{stem}.png")


def test_compare_json_on_constructed_results(synth_sides):
    a, b = synth_sides
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    rows = {s["scenario"]: s for s in doc["scenarios"]}
    assert set(rows) == set(SYNTH)
    # 3 scenarios × 3 primary metrics (round ms is descriptive), but
    # pool5-unix's PSS is the same in every run of both sides: nothing to
    # test there
    assert doc["method"]["tests"] == 8
    assert doc["method"]["adjustment"] == "Benjamini-Hochberg"
    for s in rows.values():
        for key in ("crossing_n", "round_ms", "server_cpu_us", "pss_kb"):
            m = s["metrics"][key]
            for field in ("ratio", "ci_low", "ci_high", "p_value",
                          "q_value", "verdict", "mde_pct", "a_values",
                          "b_values", "n_a", "n_b"):
                assert field in m, (key, field)
            assert (m["n_a"], m["n_b"]) == (3, 3)
            assert m["primary"] == (key != "round_ms")
            if m["q_value"] is not None:
                assert m["q_value"] >= m["p_value"]
                # the interval at the family's level: it excludes 1
                # exactly when there is a difference (not same, not
                # inconclusive)
                assert m["ci_level"] == doc["method"]["ci_level"]
                excludes = not m["ci_low"] <= 1 <= m["ci_high"]
                assert excludes == (m["verdict"] not in ("same",
                                                         "inconclusive"))
        assert s["metrics"]["crossing_n"]["source"] == "crossing_n"
        assert "at_n" not in s["metrics"]["crossing_n"]
        assert s["at_n"] == 48
    s = rows["sync-unix"]
    ms = s["metrics"]
    assert ms["crossing_n"]["a_values"] == [100, 101, 99]
    # geometric means: (110·111·109)^(1/3) / (100·101·99)^(1/3) = 1.100006
    assert ms["crossing_n"]["ratio"] == pytest.approx(1.100006, rel=1e-6)
    assert ms["crossing_n"]["verdict"] == "faster"
    # round ms at N = 48, the largest N of the run that measured least:
    # c (48/10)^2 = 23.04 c, from probes (no step reached 48)
    assert ms["round_ms"]["at_n"] == 48
    assert ms["round_ms"]["a_values"] == \
        pytest.approx([23.04, 23.2704, 22.8096])
    assert ms["round_ms"]["ratio"] == pytest.approx(0.8)
    # descriptive: its unadjusted 95% interval, no test, no verdict
    assert ms["round_ms"]["verdict"] == "n/a"
    assert ms["round_ms"]["q_value"] is None
    assert ms["round_ms"]["ci_level"] == 0.95
    assert ms["round_ms"]["ci_high"] < 1
    # CPU at 48: k 4.8 µs
    assert ms["server_cpu_us"]["b_values"] == \
        pytest.approx([48.96, 46.56, 48.48])
    assert ms["server_cpu_us"]["verdict"] == "inconclusive"
    # PSS at 40, the largest step of every run: m (400 + 75) KiB
    assert ms["pss_kb"]["at_n"] == 40
    assert ms["pss_kb"]["a_values"] == pytest.approx([475, 479.75, 470.25])
    assert ms["pss_kb"]["ratio"] == pytest.approx(1.08, rel=1e-3)
    assert ms["pss_kb"]["verdict"] == "larger"
    assert s["verdict"] == "faster"  # memory does not count
    assert s["crossing"]["a"][0] == {"file": "sync-unix.r1.json",
                                     "crossing_n": 100,
                                     "crossing_interval": [98, 102],
                                     "max_servers": 100}
    assert [c["crossing_n"] for c in s["crossing"]["b"]] == [110, 111, 109]
    p = rows["pool5-unix"]["metrics"]
    assert p["server_cpu_us"]["ratio"] == pytest.approx(1.2, rel=1e-3)
    assert p["server_cpu_us"]["verdict"] == "slower"
    assert p["pss_kb"]["verdict"] == "same"  # identical values, no test
    assert rows["pool5-unix"]["verdict"] == "mixed"
    assert {m["verdict"] for m in rows["event-tcp"]["metrics"].values()} \
        == {"inconclusive", "n/a"}
    assert rows["event-tcp"]["verdict"] == "inconclusive"
    assert set(doc["mde_pct"]) == {"crossing_n", "round_ms",
                                   "server_cpu_us", "pss_kb"}


def test_compare_pairs_runs_of_one_paired_run(tmp_path):
    """Results of paired runs (orbbench --paired: "paired.id" in both) are
    matched by id, whatever their file order, and tested as pairs: a 5%
    shift in every pair is found through a run-to-run drift of ±20% that
    hides it from a test of independent samples."""
    crossings = [(100, 95), (120, 114), (80, 76)]
    docs_a, docs_b = [], []
    for i, (ca, cb) in enumerate(crossings):
        for side, c, docs in (("a", ca, docs_a), ("b", cb, docs_b)):
            d = run_of("sync-unix", c, 1.0, 10, 1.0, 48 + i)
            d["paired"] = {"id": f"p{i}", "side": side, "versus": []}
            docs.append(d)
    a = write_side(tmp_path / "A", docs_a)
    b = write_side(tmp_path / "B", docs_b[::-1])  # B's files in other order
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["scenarios"][0]
    assert s["paired"] is True
    m = s["metrics"]["crossing_n"]
    assert m["paired"] is True
    assert m["a_values"] == [100, 120, 80]
    assert m["b_values"] == [95, 114, 76]  # aligned with A by paired.id
    assert m["ratio"] == pytest.approx(0.95)
    assert m["verdict"] == "slower"
    # The same files without their pairing: independent samples, which
    # cannot tell.
    for f in list(a.glob("*.json")) + list(b.glob("*.json")):
        d = json.loads(f.read_text())
        del d["paired"]
        f.write_text(json.dumps(d))
    r = script("compare", a, b, "--format", "json")
    m = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert m["verdict"] == "inconclusive" and "paired" not in m
    text = script("compare", a, b).stdout
    assert "paired" not in text.split("Verdicts:")[1].split("\n")[0]


def test_compare_text_on_constructed_results(synth_sides):
    a, b = synth_sides
    r = script("compare", a, b)
    assert r.returncode == 0, r.stderr
    table = r.stdout.split("Median round time at each N")[0]
    rows = {l.split()[0]: l for l in table.splitlines()
            if l.split() and l.split()[0] in SYNTH}
    assert "100 (99–101)" in rows["sync-unix"]
    assert "110 (109–111)" in rows["sync-unix"]
    assert "1.10 [" in rows["sync-unix"]
    assert rows["sync-unix"].rstrip().endswith("faster")
    assert rows["pool5-unix"].rstrip().endswith("mixed")
    assert rows["event-tcp"].rstrip().endswith("inconclusive")
    assert "Verdicts: Student t on log values per run, BH-adjusted over " \
        "8 tests of the primary metrics, q < 0.05" in r.stdout
    pct = r"±[0-9.]+%"
    assert re.search(rf"Smallest difference detectable .*crossing N {pct}, "
                     rf"round ms {pct}, server CPU {pct}, PSS {pct}",
                     r.stdout)
    assert "repeats are needed" not in r.stdout


def test_compare_verdicts_worked_by_hand(tmp_path):
    """Verdicts through compare, each p and q worked out by hand.

    Logs of crossing N / 100, three runs a side, each side spread ±0.1
    (sample variance 0.01, pooled 0.01, se = 0.1 sqrt(2/3) = 0.0816497,
    df 4; for 4 df, two-sided p = 1 - x(3 - x^2)/2 with x = t/sqrt(t^2 +
    4)):
      sync-unix   A 0, .1, .2  B .3, .4, .5    t = 3.674235, x^2 = 13.5/
                  17.5, p = 0.021312; B/A = e^0.3 = 1.349859
      pool5-unix  A 0, .1, .2  B .05, .15, .25 t = 0.612372, x^2 =
                  0.375/4.375, p = 0.573392
      event-tcp   A = B                        t = 0, p = 1
    Benjamini-Hochberg over the first two (m = 2): q = min(2p/1, 0.573392)
    = 0.042624 < 0.05 for sync-unix: B holds more servers, "faster".
    With event-tcp too the variances are moderated (three scenarios or
    more, orbbench.stats.moderate): all three have the same variance, so
    their scatter is no more than chance, and the prior holds the other
    scenarios' df (4 + 4 = 8, no more: it is estimated from them), so each
    scenario's variance is the pooled 0.01 on 12 df: p = 0.003182 for
    sync-unix (t 3.674235 on 12 df), 0.551719 for pool5-unix, 1 for
    event-tcp; BH (m = 3): q = 3 × 0.003182 = 0.009547, "faster", and
    min(3/2 × 0.551719, 1) = 0.827579 for pool5-unix."""
    runs = {"sync-unix": ((0, .1, .2), (.3, .4, .5)),
            "pool5-unix": ((0, .1, .2), (.05, .15, .25)),
            "event-tcp": ((0, .1, .2), (0, .1, .2))}

    def sides(names, where):
        a = write_side(where / "A", [d for n in names
                                     for d in crossing_only(n, runs[n][0],
                                                            "a")])
        b = write_side(where / "B", [d for n in names
                                     for d in crossing_only(n, runs[n][1],
                                                            "b")])
        r = script("compare", a, b, "--format", "json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        return doc, {s["scenario"]: s for s in doc["scenarios"]}

    doc, rows = sides(["sync-unix", "pool5-unix"], tmp_path / "two")
    assert doc["method"]["tests"] == 2  # nothing but crossing N measured
    c = rows["sync-unix"]["metrics"]["crossing_n"]
    assert c["ratio"] == pytest.approx(1.349859, rel=1e-6)
    assert c["p_value"] == pytest.approx(0.021312, abs=1e-6)
    assert c["q_value"] == pytest.approx(0.042624, abs=2e-6)
    assert c["verdict"] == "faster" and rows["sync-unix"]["verdict"] == \
        "faster"
    c = rows["pool5-unix"]["metrics"]["crossing_n"]
    assert c["p_value"] == pytest.approx(0.573392, abs=1e-6)
    assert c["q_value"] == pytest.approx(0.573392, abs=1e-6)
    assert c["verdict"] == "inconclusive" and \
        rows["pool5-unix"]["verdict"] == "inconclusive"
    for s in rows.values():
        for key in ("round_ms", "server_cpu_us", "pss_kb"):
            assert s["metrics"][key]["verdict"] == "n/a"

    doc, rows = sides(["sync-unix", "pool5-unix", "event-tcp"],
                      tmp_path / "three")
    assert doc["method"]["tests"] == 3
    c = rows["sync-unix"]["metrics"]["crossing_n"]
    assert c["moderated"]["own_df"] == 4 and c["df"] == 12
    assert c["p_value"] == pytest.approx(0.003182, rel=2e-3)
    assert c["q_value"] == pytest.approx(0.009547, rel=2e-3)
    assert c["verdict"] == "faster"
    assert rows["pool5-unix"]["metrics"]["crossing_n"]["q_value"] == \
        pytest.approx(0.827579, rel=1e-4)
    assert rows["event-tcp"]["metrics"]["crossing_n"]["p_value"] == \
        pytest.approx(1.0)
    assert {n: s["verdict"] for n, s in rows.items()} == {
        "sync-unix": "faster", "pool5-unix": "inconclusive",
        "event-tcp": "inconclusive"}
    # B below A by the same logs: the mirror verdict
    a = write_side(tmp_path / "mA", crossing_only("sync-unix", (.3, .4, .5),
                                                  "a"))
    b = write_side(tmp_path / "mB", crossing_only("sync-unix", (0, .1, .2),
                                                  "b"))
    r = script("compare", a, b, "--format", "json")
    s = json.loads(r.stdout)["scenarios"][0]
    assert s["metrics"]["crossing_n"]["verdict"] == "slower"
    assert s["verdict"] == "slower"


def test_compare_one_run_a_side_gives_no_verdict(tmp_path):
    a = write_side(tmp_path / "A", [run_of("sync-unix", 100, 1, 10, 1, 48)])
    b = write_side(tmp_path / "B", [run_of("sync-unix", 120, 1, 10, 1, 48),
                                    run_of("sync-unix", 121, 1, 10, 1, 48)])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["scenarios"][0]
    assert s["verdict"] == "n/a"
    assert {m["verdict"] for m in s["metrics"].values()} == {"n/a"}
    text = script("compare", a, b).stdout
    assert "No verdicts: one run on a side; repeats are needed " \
        "(run-suite --repeat 3)." in text
    assert not re.search(r"\b(faster|slower|same)\b", text)


def test_compare_old_results_fall_back_to_max_servers(tmp_path):
    def old(max_servers):
        d = run_of("sync-unix", None, 1, 10, 1, 40)
        d = result_doc("sync-unix", None, d["steps"], old=True,
                       max_servers=max_servers)
        return d
    a = write_side(tmp_path / "A", [old(40), old(44), old(42)])
    # B has crossing_n: like is compared with like, max_servers on both
    b = write_side(tmp_path / "B", [run_of("sync-unix", 50.5, 1, 10, 1, 48)
                                    for _ in range(3)])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "max_servers"
    assert c["a_values"] == [40, 44, 42] and c["b_values"] == [50, 50, 50]
    assert "max_servers (no crossing_n in these results)" in c["notes"]
    text = script("compare", a, b).stdout
    assert "max_servers (no crossing_n in these results)" in text


def test_compare_run_that_never_crossed_gives_max_servers(tmp_path):
    a = write_side(tmp_path / "A", [run_of("sync-unix", x, 1, 10, 1, 48)
                                    for x in (100.5, 101.5)])
    never = run_of("sync-unix", None, 1, 10, 1, 48)
    never["result"].update(max_servers=90, stop_reason="max_n")
    b = write_side(tmp_path / "B", [run_of("sync-unix", 99.5, 1, 10, 1, 48),
                                    never])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "crossing_n"
    assert c["b_values"] == [99.5, 90]
    assert any("never crossed" in n and "max_n" in n for n in c["notes"])


def test_compare_at_an_n_no_run_measured_is_exit_2(tmp_path):
    """--at N where no run has a step or probe: the values would be a fit
    far from any measurement (or "—" for memory), so compare refuses,
    naming N and the N there are. Steps at 10-40, probes at 44, 46 and
    48 (run_of)."""
    a = write_side(tmp_path / "A", [run_of("sync-unix", 100, 1, 10, 1, 48)
                                    for _ in range(2)])
    b = write_side(tmp_path / "B", [run_of("sync-unix", 110, 1, 10, 1, 48)
                                    for _ in range(2)])
    for at in ("45", "4000", "0"):
        r = script("compare", a, b, "--at", at)
        assert r.returncode == 2, (at, r.stdout)
        near = {"45": "44, 46", "4000": "48", "0": "10"}[at]
        assert r.stderr.splitlines() == [
            f"compare: --at {at}: no run measured N={at}; the runs measured "
            f"N = 10, 20, 30, 40, 44, 46, 48 (nearest {near})"]
        assert r.stdout == ""
    for at in ("46", "20"):  # a probe's N, a step's N
        r = script("compare", a, b, "--at", at, "--format", "json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["scenarios"][0]["at_n"] == int(at)


def test_compare_run_that_stopped_at_max_n_is_not_an_old_result(tmp_path):
    """The client leaves result.crossing_n out when the sweep stopped
    before crossing max_ms (at max_n here). That run is not an old
    result: the others keep their crossing_n, and it gives its
    max_servers. (compare took it for an old result and fell back to
    max_servers on both sides, 'no crossing_n in these results'.)"""
    a = write_side(tmp_path / "A", [run_of("sync-unix", x, 1, 10, 1, 48)
                                    for x in (100.5, 101.5)])
    stopped = run_of("sync-unix", None, 1, 10, 1, 48)
    stopped["result"] = {"max_servers": 120, "stop_reason": "max_n",
                         "detail": "reached max_n=120"}
    b = write_side(tmp_path / "B", [run_of("sync-unix", 99.5, 1, 10, 1, 48),
                                    stopped])
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["scenarios"][0]["metrics"]["crossing_n"]
    assert c["source"] == "crossing_n"
    assert (c["a_values"], c["b_values"]) == ([100.5, 101.5], [99.5, 120])
    assert c["notes"][0] == ("1 run(s) never crossed max_ms (stop: max_n): "
                             "their max_servers used")


def test_compare_refuses_two_orbs_on_one_side(tmp_path):
    a = write_side(tmp_path / "A", [
        run_of("sync-unix", 100, 1, 10, 1, 48),
        dict(run_of("sync-unix", 100, 1, 10, 1, 48), orb=ORB_433)])
    b = write_side(tmp_path / "B", [run_of("sync-unix", 100, 1, 10, 1, 48)])
    r = script("compare", a, b)
    assert r.returncode == 2
    assert r.stderr.strip() == ("compare: A: results of two ORBs (omniORB "
                                "4.2.5, omniORB 4.3.3) on one side: give "
                                "one folder per ORB")
    # same name and version, two installations (orb.id)
    other = dict(ORB_425, id="omniorb-patched")
    b = write_side(tmp_path / "B2", [
        run_of("sync-unix", 100, 1, 10, 1, 48),
        dict(run_of("sync-unix", 100, 1, 10, 1, 48), orb=other)])
    r = script("compare", tmp_path / "B", b)
    assert r.returncode == 2
    assert r.stderr.strip() == ("compare: B: results of two ORBs "
                                "(omniorb-system, omniorb-patched) on one "
                                "side: give one folder per ORB")


def test_compare_refuses_two_settings_of_one_scenario(tmp_path):
    def run(work_us, name="sync-unix"):
        d = run_of(name, 100, 1, 10, 1, 48)
        d["scenario"]["server"]["work_us"] = work_us
        return d
    a = write_side(tmp_path / "A", [run(0), run(0)])
    # another scenario may differ: only runs of one name must agree
    b = write_side(tmp_path / "B", [run(0), run(10), run(10, "pool5-unix")])
    r = script("compare", a, b)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert lines[0] == ("compare: B: sync-unix: runs differ in scenario "
                        "key server.work_us (0, 10): give one folder per "
                        "setting")
    # the same difference between the sides is a scenario setting compared
    b = write_side(tmp_path / "B2", [run(10), run(10)])
    r = script("compare", a, b)
    assert r.returncode == 0, r.stderr
    assert "scenario server.work_us (all scenarios): 0 → 10" in r.stdout


def test_paired_repeats_are_tested_on_every_pair_of_every_run(tmp_path):
    """Three paired runs of three scenarios, each with 9 steps in the cost
    window (N 340-740 around cost_n 500) where B spends 4% more server CPU
    a call than A at every step, times a step-to-step noise of ±2% that
    moves B alone, and a run-to-run drift of ±20% that moves both sides:
    each run's steps give its ratio on 7 df (orbbench.stats.within_runs),
    so each scenario is `slower`, where its three runs alone test on 2 df
    (plus what moderation borrows). Without the pairing (no paired.id)
    nothing is tested on the steps."""
    ns = [340, 374, 412, 453, 500, 550, 605, 666, 733]
    noise = [0.02, -0.02, 0.01, -0.01, 0.0, 0.015, -0.015, 0.005, -0.005]
    docs_a, docs_b = [], []
    for name in ("sync-unix", "pool5-unix", "event-tcp"):
        for i, drift in enumerate((1.0, 1.2, 0.8)):
            for side, docs in (("a", docs_a), ("b", docs_b)):
                steps = []
                for j, n in enumerate(ns):
                    cpu = 50 * drift * (n / 500) ** 0.3
                    if side == "b":
                        cpu *= 1.04 * (1 + noise[(j + 3 * i) % 9])
                    steps.append(measurement(n, 50 * drift * n / 500, cpu,
                                             400 + 3000 / n))
                d = result_doc(name, 1000 * drift, steps,
                               scenario={"sweep.cost_n": 500})
                d["scenario"]["kind"] = "sweep"
                d["paired"] = {"id": f"{name}-{i}", "side": side,
                               "versus": []}
                docs.append(d)
    a = write_side(tmp_path / "A", docs_a)
    b = write_side(tmp_path / "B", docs_b)
    r = script("compare", a, b, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    w = doc["method"]["within_runs"]["server_cpu_us"]
    assert w["metrics"] == 3 and w["df"] == 6
    for s in doc["scenarios"]:
        m = s["metrics"]["server_cpu_us"]
        assert len(m["within"]) == 3
        assert all(df == 7 for _, _, df in m["within"])
        assert m["within_runs"]["runs_df"] == 2
        assert m["within_runs"]["pairs_df"] == 21
        assert m["df"] > 6
        assert m["ratio"] == pytest.approx(1.04, rel=0.01)
        assert m["verdict"] == "slower", m
    text = script("compare", a, b).stdout
    assert "on every pair of every run" in text.split("Verdicts:")[1]
    # Unpaired, the same files: runs as independent samples, no pairs.
    for f in list(a.glob("*.json")) + list(b.glob("*.json")):
        d = json.loads(f.read_text())
        del d["paired"]
        f.write_text(json.dumps(d))
    r = script("compare", a, b, "--format", "json")
    doc = json.loads(r.stdout)
    assert not any(doc["method"]["within_runs"].values())
    assert all("within" not in s["metrics"]["server_cpu_us"]
               for s in doc["scenarios"])
