"""End-to-end: scripts/run-suite with three variants, one comparison of
all (compare and report on more than two result sets alone are
tests/py/test_compare_many.py)."""
import pytest

from conftest import run_suite
from reportkit import FIX, load, md_rows


@pytest.mark.long
def test_run_suite_three_variants_one_comparison(tmp_path):
    """Three variants: one comparison of all (compare-all.md, figures in
    plots-all/A-vs-X/), not a comparison per pair."""
    out = tmp_path / "out"
    r = run_suite(FIX / "repeat-scenarios", "--only", "sync-*", "--set",
                  "sweep.max_n=4", "--variant", "a", "--variant", "b",
                  "--variant", "c:sweep.rounds=6", "--out", out)
    assert r.returncode == 0, r.stderr
    md = (out / "compare-all.md").read_text()
    rows = md_rows(md, "scenario")
    assert list(rows) == ["sync-unix"]
    assert {"verdict (B)", "verdict (C)"} <= set(rows["sync-unix"])
    assert "scenario sweep.rounds (all scenarios): 5 → 6" in md
    assert "== b, c against a" in r.stdout
    assert (out / "plots-all" / "A-vs-C" / "ab-latency.png").is_file()
    assert not list(out.glob("compare-a-vs-*.md"))
    summary = load(out / "summary.json")
    assert {row["scenario"] for row in summary["rows"]} == {"sync-unix"}
