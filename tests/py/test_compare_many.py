"""scripts/compare and scripts/report with more than two result sets
(each against the first, the baseline), on results constructed here and
on the fixtures in tests/fixtures/ (run-suite's three variants:
tests/e2e/test_compare_many_suite.py)."""
import csv
import io
import json
import re

import pytest

from reportkit import (FIX, ORB_425, ORB_433, check_links, crossing_only,
                       md_rows, script, write_side)

# Logs of crossing N / 100, three runs a side, each side spread ±0.1:
# the numbers of test_report's test_compare_verdicts_worked_by_hand, here
# as sets instead of scenarios. Against A: B's t = 3.674235 (4 df), p =
# 0.021312; C's t = 0.612372, p = 0.573392; D (= A) t = 0, p = 1.
LOGS = {"A": (0, .1, .2), "B": (.3, .4, .5), "C": (.05, .15, .25),
        "D": (0, .1, .2)}


def sets_of(tmp_path, letters, name="sync-unix"):
    """One folder per set, each run of one scenario with only a crossing
    N; set A on omniORB 4.2.5, the others on 4.3.3."""
    return [write_side(tmp_path / x, crossing_only(name, LOGS[x],
                                                   "a" if x == "A" else "b"))
            for x in letters]


def compare_json(*args):
    r = script("compare", *args, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def crossing(cmp):
    return cmp["scenarios"][0]["metrics"]["crossing_n"]


def test_bh_runs_over_every_set(tmp_path):
    """Benjamini-Hochberg over the tests of all sets, worked by hand.
    B alone against A: q = p = 0.021312, faster. With C (m = 2): q_B =
    min(2 p_B, p_C) = 0.042624, still faster; C's q = 0.573392,
    inconclusive (its interval is far wider than ±5%).
    With D too (m = 3): q_B = min(3 p_B, 3/2 p_C, 1) = 0.063936: no longer
    faster although p_B < 0.05, inconclusive. A per-set adjustment would
    keep B faster."""
    a, b, c, d = sets_of(tmp_path, "ABCD")
    m = crossing(compare_json(a, b))
    assert m["q_value"] == pytest.approx(0.021312, abs=1e-6)
    assert m["verdict"] == "faster"

    doc = compare_json(a, b, c)
    assert [s["set"] for s in doc["sets"]] == ["A", "B", "C"]
    assert doc["sets"][0]["files"] == [str(p) for p in
                                       sorted(a.glob("*.json"))]
    assert [x["set"] for x in doc["comparisons"]] == ["B", "C"]
    assert doc["method"]["tests"] == 2
    assert doc["method"]["adjustment"] == "Benjamini-Hochberg"
    mb, mc = (crossing(x) for x in doc["comparisons"])
    assert mb["ratio"] == pytest.approx(1.349859, rel=1e-6)
    assert mb["p_value"] == pytest.approx(0.021312, abs=1e-6)
    assert mb["q_value"] == pytest.approx(0.042624, abs=2e-6)
    assert mb["verdict"] == "faster"
    assert doc["comparisons"][0]["scenarios"][0]["verdict"] == "faster"
    assert mc["p_value"] == pytest.approx(0.573392, abs=1e-6)
    assert mc["q_value"] == pytest.approx(0.573392, abs=1e-6)
    assert mc["verdict"] == "inconclusive"

    doc = compare_json(a, b, c, d)
    assert doc["method"]["tests"] == 3
    mb, mc, md = (crossing(x) for x in doc["comparisons"])
    assert mb["q_value"] == pytest.approx(0.063936, abs=3e-6)
    assert mb["verdict"] == "inconclusive"
    assert mc["q_value"] == pytest.approx(0.860088, abs=2e-6)
    assert md["p_value"] == pytest.approx(1.0)
    assert {x["scenarios"][0]["verdict"] for x in doc["comparisons"]} == \
        {"inconclusive"}


def test_each_set_gets_what_a_pair_gets_but_the_q_value():
    """Set C is compared with A exactly as `compare A C` would: ratios,
    unadjusted intervals, p-values and values; only q (BH over more
    tests) may grow, and the adjusted interval is at the larger family's
    level."""
    a, b = FIX / "repeat-A", FIX / "repeat-B"
    many = compare_json(a, b, b)    # (a copy of A is no set: refused)
    for x, other in zip("BC", (b, b)):
        pair = compare_json(a, other)
        got = next(c for c in many["comparisons"] if c["set"] == x)
        assert [s["scenario"] for s in got["scenarios"]] == \
            [s["scenario"] for s in pair["scenarios"]]
        for sg, sp in zip(got["scenarios"], pair["scenarios"]):
            for key, mp in sp["metrics"].items():
                mg = sg["metrics"][key]
                for field in ("ratio", "ci95_low", "ci95_high", "p_value",
                              "a_values", "b_values", "mde_pct"):
                    assert mg.get(field) == mp.get(field), (x, key, field)
                if mp["q_value"] is not None:
                    assert mg["q_value"] >= mp["q_value"]
                    # the adjusted interval at the larger family's
                    # level, which agrees with its verdict
                    assert mg["ci_level"] == many["method"]["ci_level"]
                    assert (not mg["ci_low"] <= 1 <= mg["ci_high"]) == \
                        (mg["verdict"] not in ("same", "inconclusive"))
    assert many["method"]["tests"] == 2 * compare_json(a, b)["method"][
        "tests"]


def test_one_table_a_column_group_per_set(tmp_path):
    """Text and markdown: one table, A's crossing N once, then per set its
    crossing N, ratio to A and verdict; a scenario a set lacks is '—'
    there and named under 'Only in A (not in C)'."""
    # pool5-unix: one run a side, no test (m stays 2, B stays faster)
    a = write_side(tmp_path / "A",
                   crossing_only("sync-unix", LOGS["A"], "a") +
                   crossing_only("pool5-unix", (0,), "a"))
    b = write_side(tmp_path / "B",
                   crossing_only("sync-unix", LOGS["B"], "b") +
                   crossing_only("pool5-unix", (0.1,), "b"))
    c = write_side(tmp_path / "C", crossing_only("sync-unix", LOGS["C"],
                                                 "b"))
    r = script("compare", a, b, c, "--format", "md")
    assert r.returncode == 0, r.stderr
    rows = md_rows(r.stdout, "scenario")
    assert list(rows) == ["pool5-unix", "sync-unix"]  # the seed's order
    s = rows["sync-unix"]
    assert s["crossing N A"] == "111 (100–122)"  # 100 e^0.1 = 110.5
    assert s["crossing N B"] == "149 (135–165)"
    assert s["B/A [interval]"].startswith("1.35 [") and \
        s["B/A [interval]"].endswith("faster")
    assert s["verdict (B)"] == "faster"
    assert s["crossing N C"] == "116 (105–128)"
    assert s["C/A [interval]"].endswith("inconclusive")
    assert s["verdict (C)"] == "inconclusive"
    p = rows["pool5-unix"]
    assert p["B/A [interval]"] == "1.11" and p["verdict (B)"] == "—"
    assert p["crossing N C"] == p["C/A [interval]"] == p["verdict (C)"] == "—"
    assert "- Only in A (not in C): pool5-unix" in r.stdout
    assert "- A: " in r.stdout and "- C: " in r.stdout
    assert "BH-adjusted over 2 tests (every set's together)" in r.stdout
    text = script("compare", a, b, c).stdout
    head = next(line for line in text.splitlines()
                if line.startswith("scenario"))
    assert head.split("  ")[0] == "scenario"
    for col in ("crossing N A", "crossing N B", "B/A [interval]",
                "verdict (B)", "crossing N C", "C/A [interval]",
                "verdict (C)"):
        assert col in head, col
    assert head.index("verdict (B)") < head.index("crossing N C")
    assert "Environment differences (A → B):" in text
    assert "Environment differences (A → C):" in text


def test_csv_has_a_set_column(tmp_path):
    a, b, c = sets_of(tmp_path, "ABC")
    r = script("compare", a, b, c, "--format", "csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0])[:2] == ["set", "scenario"]
    got = {(x["set"], x["metric"]): x for x in rows
           if x["scenario"] != "(suite)"}
    assert got[("B", "crossing_n")]["verdict"] == "faster"
    assert got[("C", "crossing_n")]["verdict"] == "inconclusive"
    assert float(got[("B", "crossing_n")]["q_value"]) == \
        pytest.approx(0.042624, abs=2e-6)
    # two sets: the CSV of before, no set column
    two = script("compare", a, b, "--format", "csv").stdout
    assert two.splitlines()[0].startswith("scenario,metric,")


def test_a_set_mixing_two_orbs_is_named_by_its_letter(tmp_path):
    a, b = sets_of(tmp_path, "AB")
    c = write_side(tmp_path / "C",
                   crossing_only("sync-unix", LOGS["C"][:2], "b") +
                   crossing_only("sync-unix", LOGS["C"][2:], "a"))
    r = script("compare", a, b, c)
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "compare: C: results of two ORBs (omniORB 4.3.3, omniORB 4.2.5) on "
        "one side: give one folder per ORB")
    assert r.stdout == ""
    assert ORB_425 != ORB_433


def test_fewer_than_two_sets_is_a_usage_error(tmp_path):
    (a,) = sets_of(tmp_path, "A")
    r = script("compare", a)
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "orbbench: compare: give 2 to 26 result sets (A, the baseline, then "
        "those compared with it), not 1")


def test_plots_of_each_set_in_its_own_folder(tmp_path):
    a, b = FIX / "repeat-A", FIX / "repeat-B"
    out = tmp_path / "plots"
    r = script("compare", a, b, b, "--plots", out, timeout=300)
    assert r.returncode == 0, r.stderr
    for x in "BC":
        assert (out / f"A-vs-{x}" / "ab-capacity.png").is_file(), x
    assert not (out / "ab-capacity.png").exists()


def test_report_of_three_sets(tmp_path):
    """--versus twice: the verdict table with a group per set, then each
    set's figures against A from its own folder, every link shipped, an
    environment column per set."""
    a, b = FIX / "repeat-A", FIX / "repeat-B"
    r = script("report", "--results", a, "--versus", b, "--versus", FIX /
               "A", "--out", tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report.md").read_text()
    assert md.startswith("# orbbench report: repeat-B, A against repeat-A")
    verdicts = md.split("## Verdicts")[1].split("## Figures")[0]
    rows = md_rows(verdicts, "scenario")
    assert rows["sync-unix"]["verdict (B)"] == "slower"
    assert rows["sync-unix"]["verdict (C)"] == "—"  # one run in tests/A
    assert "Environment differences (A → C):" in verdicts
    figs_b = md.index("## Figures, B against A: repeat-B against repeat-A")
    figs_c = md.index("## Figures, C against A: A against repeat-A")
    assert figs_b < figs_c < md.index("## Environment")
    assert "](A-vs-B/ab-capacity.png)" in md[figs_b:figs_c]
    assert "](A-vs-C/ab-capacity.png)" in md[figs_c:]
    check_links(md, tmp_path)
    env = md_rows(md.split("## Environment")[1], "field")
    assert {"A: repeat-A", "B: repeat-B", "C: A"} <= set(
        next(iter(env.values())))
    # Each set repeats its figure headings: their anchors must still be
    # unique, and every contents link must lead to one.
    page = (tmp_path / "report.html").read_text()
    ids = re.findall(r'<h[23] id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), sorted(
        i for i in ids if ids.count(i) > 1)
    hrefs = re.findall(r'<li><a href="#([^"]+)"', page)
    assert hrefs and set(hrefs) <= set(ids)
    md_links = re.findall(r"^ *- \[[^]]*\]\(#([^)]+)\)", md, re.M)
    assert len(md_links) == len(set(md_links)) == len(ids)


def test_fixed_n_suite_row_reads_round_time_lower_is_better():
    """Fixed-N scenarios (the bench suite) are judged on round time: B's
    rounds 10% longer in each of four scenarios is a suite row round_ms
    'slower', not 'faster' (round time is lower-is-better, unlike the
    crossing N it stands in for)."""
    import orbbench.comparison.model as orbcompare
    import orbbench.stats as orbstats
    rows = []
    for i, noise in enumerate((0.01, -0.01, 0.02, 0.0)):
        a = [1.0, 1.1, 0.9]
        b = [x * 1.10 * (1 + noise + 0.005 * j) for j, x in enumerate(a)]
        crossing = orbstats.compare_paired([None] * 3, [None] * 3, True)
        crossing["source"] = "fixed_n"
        rows.append({"scenario": f"s{i}", "metrics": {
            "crossing_n": crossing,
            "round_ms": orbstats.compare_paired(a, b, False),
            "server_cpu_us": orbstats.compare_paired([1] * 3, [1] * 3,
                                                     False),
            "pss_kb": orbstats.compare_paired([1] * 3, [1] * 3, False,
                                              True)}})
    cmp = orbcompare.judge([{"scenarios": rows, "method": {}}], "pss")[0]
    assert list(cmp["suite"])[0] == "round_ms"
    assert cmp["suite"]["round_ms"]["ratio"] == pytest.approx(1.105, abs=0.01)
    assert cmp["suite"]["round_ms"]["verdict"] == "slower"
    assert cmp["suite_verdict"] == "slower"


@pytest.mark.parametrize("level,text", [
    (0.5, "50%"), (0.8, "80%"), (0.95, "95%"), (0.98333, "98.3%"), (0.994, "99.4%"),
    (0.99965, "99.965%"), (0.999999, "99.9999%"), (1.0, "100%"),
    (None, "—")])
def test_a_level_below_one_never_reads_100(level, text):
    """An interval level of 1 - alpha/m with a small alpha per look and 24
    tests (0.99965) was printed as "100%"."""
    import orbbench.comparison.parts as orbcompare
    assert orbcompare.pct_level(level) == text
