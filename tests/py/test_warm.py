"""orbbench.warm: the prior a result gives the next run of its scenario
(the suite's repeats and --prior), read from recorded results."""
import copy
import json

import pytest

import orbbench.results as orbresults
import orbbench.warm as orbwarm
from conftest import ROOT

# A recorded sweep: its crossing 227.9 (218.3-237.8).
EXAMPLE = (ROOT / "results" / "examples" / "families-2026-11-30" /
           "combat" / "07-event-tcp.r1.json")


@pytest.fixture(scope="module")
def doc():
    return orbresults.load_result(EXAMPLE)


def with_crossing(doc, n, interval):
    d = copy.deepcopy(doc)
    d["result"]["crossing_n"], d["result"]["crossing_interval"] = \
        n, interval
    return d


def test_a_result_gives_its_crossing_and_half_width(doc):
    p = orbwarm.prior_of(doc, EXAMPLE)
    assert p["n"] == pytest.approx(227.852856)
    # The larger half: 237.79 - 227.85 over 227.85.
    assert p["half_width"] == pytest.approx((237.792216 - 227.852856) /
                                            227.852856)
    assert p["from"] == str(EXAMPLE)


def test_no_crossing_no_prior(doc):
    assert orbwarm.prior_of(with_crossing(doc, None, None), EXAMPLE) is None
    # A crossing without a usable interval: the driver's default spread.
    p = orbwarm.prior_of(with_crossing(doc, 100.0, None), EXAMPLE)
    assert p["half_width"] == 0


def test_a_pair_takes_the_lower_crossing():
    a = {"n": 500.0, "half_width": 0.1, "from": "a"}
    b = {"n": 450.0, "half_width": 0.2, "from": "b"}
    assert orbwarm.pair_prior([a, b]) is b
    assert orbwarm.pair_prior([None, a]) is a
    assert orbwarm.pair_prior([None, None]) is None


def test_the_sets_name_the_kinds_group():
    p = {"n": 1638.4567, "half_width": 0.11, "from": "x/y.json"}
    assert orbwarm.prior_sets("fanin", p) == [
        "fanin.prior_n=1638.46", "fanin.prior_half_width=0.11",
        "fanin.prior_from=x/y.json"]
    assert orbwarm.prior_sets(None, p) == []
    assert orbwarm.prior_sets("sweep", None) == []
    # The half-width within the key's range; a long path keeps its tail.
    long = dict(p, half_width=3.0, **{"from": "d/" * 400 + "end.json"})
    sets = orbwarm.prior_sets("sweep", long)
    assert sets[1] == "sweep.prior_half_width=1"
    where = sets[2].split("=", 1)[1]
    assert len(where) <= orbwarm.FROM_MAX and where.endswith("end.json")


def write(path, doc):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def test_the_last_repeat_is_the_prior(tmp_path, doc):
    for rep, n in ((2, 200.0), (10, 210.0), (9, 190.0)):
        write(tmp_path / f"s.r{rep}.json", with_crossing(doc, n, None))
    # Another scenario whose name starts alike is not a repeat of s.
    write(tmp_path / "s.x.r11.json", with_crossing(doc, 999.0, None))
    assert orbwarm.result_file(tmp_path, "s") == tmp_path / "s.r10.json"
    write(tmp_path / "s.json", with_crossing(doc, 1.5, None))
    assert orbwarm.result_file(tmp_path, "s") == tmp_path / "s.json"
    assert orbwarm.result_file(tmp_path, "t") is None


def test_a_folder_by_variant_or_its_own(tmp_path, doc):
    write(tmp_path / "base" / "s.json", with_crossing(doc, 300.0, None))
    write(tmp_path / "s.json", with_crossing(doc, 100.0, None))
    write(tmp_path / "t.json", with_crossing(doc, None, None))
    got = orbwarm.load_dir(tmp_path, ["s", "t", "u"], ["base", "work"])
    assert got[("base", "s")]["n"] == 300.0    # its own sub-folder
    assert got[("work", "s")]["n"] == 100.0    # none: the folder's own
    assert got[("base", "t")] is None          # no crossing: cold
    assert got[("work", "u")] is None          # no result: cold
    assert orbwarm.load_dir(tmp_path, ["s"], [None])[(None, "s")]["n"] == \
        100.0


def test_a_bad_folder_is_one_line_naming_it(tmp_path, doc):
    with pytest.raises(orbwarm.PriorError, match="not a folder"):
        orbwarm.load_dir(tmp_path / "nowhere", ["s"], [None])
    with pytest.raises(orbwarm.PriorError, match="holds no result"):
        orbwarm.load_dir(tmp_path, ["s"], [None])
    (tmp_path / "s.json").write_text("{broken")
    with pytest.raises(orbwarm.PriorError) as e:
        orbwarm.load_dir(tmp_path, ["s"], [None])
    assert str(tmp_path / "s.json") in str(e.value)
    assert "\n" not in str(e.value)


def test_runs_that_differ_in_their_prior_are_repeats(doc):
    # Where a run started is not a setting: the figures' series and
    # compare's repeats take them together.
    a, b = copy.deepcopy(doc), copy.deepcopy(doc)
    group = orbresults.kind(doc).settings
    a["scenario"][group].update(prior_n=0, prior_from="")
    b["scenario"][group].update(prior_n=227.9, prior_from="x.r1.json",
                                prior_half_width=0.04)
    assert orbresults.scenario_settings(a) == \
        orbresults.scenario_settings(b)
    assert orbresults.run_keys(a) == {f"{group}.prior_n",
                                      f"{group}.prior_half_width",
                                      f"{group}.prior_from"}
    b["scenario"][group]["max_ms"] = 50
    assert orbresults.scenario_settings(a) != \
        orbresults.scenario_settings(b)
