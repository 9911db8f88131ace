"""End-to-end: scripts/plot on one real small run (the plots of the
result fixtures are tests/py/test_plot.py)."""
from conftest import SCENARIOS
from reportkit import check_png, script


def test_real_small_run_through_plot(orbbench, tmp_path):
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=2",
                 "sweep.step=4", "sweep.max_n=10", "sweep.rounds=3")
    assert r.rc == 0, r.stderr
    result = next(tmp_path.glob("result-*.json"))
    out = tmp_path / "plots"
    p = script("plot", result, "--out", out)
    assert p.returncode == 0, p.stderr
    for stem in ("capacity", "latency-panels", "cost", "rounds-sync-unix"):
        check_png(out / f"{stem}.png")
