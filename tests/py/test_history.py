"""orbbench.history's pure parts: the version order of labels, LABEL=DIR,
the default labels, the order by version, given and date, and the change
points picked from judged steps. No client, no servers."""
import pytest

import orbbench.history as orbhistory
from orbbench.results import Result


def point(label, folder="f", started=None, orb=("omniORB", "4.2.5")):
    doc = {"orb": {"name": orb[0], "version": orb[1]}}
    if started:
        doc["started_at"] = started
    return orbhistory.Point(label, folder, [Result(None, doc)])


def test_version_key_orders_releases_numerically():
    labels = ["omniORB 4.10.0", "4.2.5", "omniORB 4.0.7", "4.1.7", "4.9"]
    assert sorted(labels, key=orbhistory.version_key) == [
        "omniORB 4.0.7", "4.1.7", "4.2.5", "4.9", "omniORB 4.10.0"]
    assert orbhistory.version_key("omniORB 4.3.3") == (4, 3, 3)
    assert orbhistory.version_key("main") is None


def test_split_arg(tmp_path):
    assert orbhistory.split_arg("4.2.5=results/x") == ("4.2.5", "results/x")
    assert orbhistory.split_arg("results/x") == (None, "results/x")
    odd = tmp_path / "a=b"
    odd.mkdir()
    assert orbhistory.split_arg(str(odd)) == (None, str(odd))
    with pytest.raises(ValueError, match="LABEL=DIR"):
        orbhistory.split_arg("=results/x")


def test_default_labels_orb_then_folder():
    def loaded(label, folder, version):
        return (label, folder, point(None, orb=("omniORB", version)).results)
    # Distinct ORBs: the ORBs; a given label wins.
    assert orbhistory.default_labels([
        loaded(None, "/r/x", "4.2.5"), loaded(None, "/r/y", "4.3.3"),
        loaded("mine", "/r/z", "4.3.3")]) == [
        "omniORB 4.2.5", "omniORB 4.3.3", "mine"]
    # One ORB twice (commits of one ORB), or none recorded: folders.
    assert orbhistory.default_labels([
        loaded(None, "/r/abc123", "4.2.5"),
        loaded(None, "/r/def456", "4.2.5"),
        loaded(None, "/r/ghi789", None)]) == ["abc123", "def456", "ghi789"]


def test_order_version_given_date():
    pts = [point("4.10.0", started="2026-12-01T10:00:00Z"),
           point("4.2.5", started="2026-12-03T10:00:00Z"),
           point("4.9", started="2026-12-02T10:00:00Z")]
    label = [p.label for p in orbhistory.ordered(pts, "version")]
    assert label == ["4.2.5", "4.9", "4.10.0"]
    assert [p.label for p in orbhistory.ordered(pts, "given")] == [
        "4.10.0", "4.2.5", "4.9"]
    assert [p.label for p in orbhistory.ordered(pts, "date")] == [
        "4.10.0", "4.9", "4.2.5"]
    # A time without a zone is UTC beside one with it.
    pts.append(point("5.0", started="2026-12-01T09:00:00"))
    assert orbhistory.ordered(pts, "date")[0].label == "5.0"


def test_order_needs_what_it_sorts_by():
    with pytest.raises(ValueError, match="^f2: label 'main' has no version"):
        orbhistory.ordered([point("4.2.5"), point("main", "f2")], "version")
    with pytest.raises(ValueError, match="^f1: no result records started"):
        orbhistory.ordered([point("x", "f1"), point("y", "f2", "2026-12-01")],
                           "date")


def test_history_needs_two_points():
    with pytest.raises(ValueError, match="at least two"):
        orbhistory.history([point("4.2.5")])


def metric(verdict, ratio=1.0, q=0.5):
    return {"verdict": verdict, "ratio": ratio, "q_value": q}


def test_change_points_are_the_differences_only():
    steps = [{"from": "1", "to": "2", "scenarios": [
                 {"scenario": "s", "metrics": {
                     "crossing_n": metric("inconclusive"),
                     "server_cpu_us": metric("same"),
                     "pss_kb": metric("negligible", 1.001, 0.01),
                     "threads": metric("n/a")}}]},
             {"from": "2", "to": "3", "scenarios": [
                 {"scenario": "s", "metrics": {
                     "crossing_n": metric("slower", 0.5, 0.001),
                     "server_cpu_us": metric("faster", 0.8, 0.01),
                     "pss_kb": metric("smaller", 0.9, 0.02),
                     "threads": metric("n/a")}}]}]
    cps = orbhistory.change_points(steps, "pss")
    assert [(c["from"], c["to"], c["metric"], c["direction"])
            for c in cps] == [("2", "3", "crossing_n", "worse"),
                              ("2", "3", "server_cpu_us", "better"),
                              ("2", "3", "pss_kb", "better")]
