"""orbbench.stats, the statistics behind compare's verdicts, on
constructed inputs. Expected numbers are worked out by hand (the working
is in the comments) or are structural facts; none is recomputed here with
the code under test's own formulas."""
import math
import random
import statistics

import pytest
from scipy import stats

import orbbench.stats as orbstats

E = math.e


# ---- compare_metric ---------------------------------------------------------

def test_identical_samples_ratio_one_p_one_same():
    for hib in (True, False):
        m = orbstats.compare_metric([100, 101, 99], [100, 101, 99], hib)
        assert m["ratio"] == pytest.approx(1.0)
        assert m["p_value"] == pytest.approx(1.0)
        assert m["verdict"] == "same"
        assert m["ci_low"] < 1 < m["ci_high"]


def test_t_test_worked_by_hand_three_runs_a_side():
    # logs A = 0, 1, 2 and B = 1, 2, 3: mean difference 1, each sample
    # variance 1, so the pooled variance is 1 and se = sqrt(1/3 + 1/3)
    # = 0.816497; t = 1.224745 with df = 4. For 4 df the t distribution
    # has a closed form: two-sided p = 1 - x(3 - x^2)/2 with
    # x = t / sqrt(t^2 + 4) = sqrt(1.5/5.5) = 0.522233, so p = 0.287864.
    # Table quantiles for 4 df: t_0.975 = 2.776445, t_0.80 = 0.940965.
    # CI: exp(1 -/+ 2.776445 * 0.816497) = 0.281687 .. 26.2314.
    # MDE: exp((2.776445 + 0.940965) * 0.816497) - 1 = 19.8062 -> 1980.6%.
    m = orbstats.compare_metric([1, E, E ** 2], [E, E ** 2, E ** 3], True)
    assert m["ratio"] == pytest.approx(E)
    assert m["p_value"] == pytest.approx(0.287864, abs=1e-6)
    assert m["ci_low"] == pytest.approx(0.281687, rel=1e-5)
    assert m["ci_high"] == pytest.approx(26.2314, rel=1e-5)
    assert m["mde_pct"] == pytest.approx(1980.6, rel=1e-4)
    assert (m["n_a"], m["n_b"]) == (3, 3)
    assert m["verdict"] == "inconclusive"


def test_t_test_worked_by_hand_two_runs_a_side():
    # logs A = 0, 2 and B = 1, 3: difference 1, each variance 2, pooled 2,
    # se = sqrt(2 * (1/2 + 1/2)) = sqrt(2), t = 1/sqrt(2), df = 2. For 2
    # df, two-sided p = 1 - t / sqrt(2 + t^2) = 1 - 1/sqrt(5) = 0.552786.
    m = orbstats.compare_metric([1, E ** 2], [E, E ** 3], False)
    assert m["ratio"] == pytest.approx(E)
    assert m["p_value"] == pytest.approx(0.552786, abs=1e-6)


def test_pooled_variance_not_welch():
    # logs A = 0, 1, 2 (variance 1) and B = 1, 3, 5 (variance 4): pooled
    # variance (2*1 + 2*4)/4 = 2.5, se = sqrt(2.5 * 2/3) = 1.290994,
    # t = 2/se = 1.549193 on 4 df: x = sqrt(2.4/6.4) = 0.612372, p = 1 -
    # x(3 - x^2)/2 = 0.196262. (Welch would take about 2.94 df and give a
    # larger p.)
    m = orbstats.compare_metric([1, E, E ** 2], [E, E ** 3, E ** 5], True)
    assert m["ratio"] == pytest.approx(E ** 2)
    assert m["p_value"] == pytest.approx(0.196262, abs=1e-6)


def test_well_separated_direction_per_metric_kind():
    # B about 10% above A with about 1% noise: t about 11.6 on 4 df,
    # p about 3e-4 (well below 0.05), and B/A close to 1.10.
    a, b = [100, 101, 99], [110, 111, 109]
    cpu = orbstats.compare_metric(a, b, higher_is_better=False)
    assert cpu["ratio"] == pytest.approx(1.10, abs=0.001)
    assert cpu["p_value"] < 0.001
    assert cpu["ci_low"] > 1.0
    assert cpu["verdict"] == "slower"        # more CPU per call
    assert orbstats.compare_metric(a, b, higher_is_better=True)["verdict"] == \
        "faster"                              # more servers held
    assert orbstats.compare_metric(a, b, False, memory=True)["verdict"] == "larger"
    # and the mirror: B below A
    assert orbstats.compare_metric(b, a, False)["verdict"] == "faster"
    assert orbstats.compare_metric(b, a, True)["verdict"] == "slower"
    assert orbstats.compare_metric(b, a, False, memory=True)["verdict"] == \
        "smaller"


def test_shift_inside_the_noise_is_inconclusive():
    # B = A + 5 with runs spread over ±20: t about 0.3, p about 0.77.
    m = orbstats.compare_metric([100, 120, 80], [105, 125, 85], False)
    assert m["verdict"] == "inconclusive"
    assert m["p_value"] > 0.5
    assert m["ci_low"] < 1 < m["ci_high"]


def test_one_run_a_side_no_test():
    m = orbstats.compare_metric([100], [110, 111], False)
    assert m["verdict"] == "n/a"
    assert m["p_value"] is None and m["ci_low"] is None
    assert m["mde_pct"] is None
    # the ratio of geometric means is still given: sqrt(110*111)/100
    assert m["ratio"] == pytest.approx(1.104989, rel=1e-6)
    assert any("--repeat 3" in n for n in m["notes"])


def test_no_spread_on_either_side():
    same = orbstats.compare_metric([5, 5, 5], [5, 5, 5], False)
    assert same["verdict"] == "same" and same["ratio"] == 1.0
    assert same["p_value"] is None      # no test made: nothing to adjust
    differ = orbstats.compare_metric([2, 2], [3, 3], False)
    assert differ["ratio"] == pytest.approx(1.5)
    assert differ["p_value"] == 0.0 and differ["verdict"] == "slower"


def test_values_not_positive_are_dropped_with_a_note():
    m = orbstats.compare_metric([0, None, 100, 101, -3], [110, 111], False)
    assert m["n_a"] == 2 and m["n_b"] == 2
    assert any("3 of 5" in n for n in m["notes"])
    none = orbstats.compare_metric([None, None], [1, 2], True)
    assert none["ratio"] is None and none["verdict"] == "n/a"


def test_rank_test_cannot_reach_five_percent_with_three_runs():
    # Why compare uses a t-test: 3 vs 3 has 20 orderings, and the most
    # extreme one gives exact two-sided p = 2/20 = 0.1.
    p = stats.mannwhitneyu([1, 2, 3], [4, 5, 6], method="exact").pvalue
    assert p == pytest.approx(0.1)


# ---- verdicts -------------------------------------------------------------

@pytest.mark.parametrize("ratio,q,hib,memory,want", [
    (1.1, 0.01, True, False, "faster"),    # crossing N up
    (0.9, 0.01, True, False, "slower"),    # crossing N down
    (1.1, 0.01, False, False, "slower"),   # round time / CPU up
    (0.9, 0.01, False, False, "faster"),
    (1.1, 0.05, False, False, "inconclusive"),  # q must be below 0.05
    (1.1, 0.049, False, False, "slower"),
    (1.1, 0.01, False, True, "larger"),
    (0.9, 0.01, False, True, "smaller"),
    (1.1, 0.20, False, True, "inconclusive"),
    (1.1, None, False, False, "n/a"),
])
def test_metric_verdict(ratio, q, hib, memory, want):
    assert orbstats.metric_verdict(ratio, q, hib, memory) == want


# "same" is an equivalence claim: the interval within ±delta (5% unless
# told), whatever q says of a difference from 1.
@pytest.mark.parametrize("ci,delta,want", [
    ((0.98, 1.02), 0.03, "same"),
    ((0.97, 1.04), 0.05, "same"),
    ((1 / 1.05, 1.05), 0.05, "same"),          # the bounds themselves
    ((0.94, 1.04), 0.05, "inconclusive"),      # below 1/1.05
    ((0.97, 1.06), 0.05, "inconclusive"),
    ((0.94, 1.06), 0.10, "same"),              # a wider bound
    ((None, None), 0.05, "inconclusive"),      # no interval: cannot tell
])
def test_same_only_within_the_equivalence_bound(ci, delta, want):
    assert orbstats.metric_verdict(1.0, 0.5, False, ci=ci,
                                   delta=delta) == want


def test_too_wide_an_interval_is_too_few_runs():
    assert orbstats.too_wide({"ratio": 0.44, "ci_low": 0.0,
                              "ci_high": 2.5e15})
    assert orbstats.too_wide({"ratio": 1.0, "ci_low": 0.09, "ci_high": 2})
    assert not orbstats.too_wide({"ratio": 1.0, "ci_low": 0.5,
                                  "ci_high": 2})
    assert not orbstats.too_wide({"ratio": 1.0, "ci_low": None,
                                  "ci_high": None})


@pytest.mark.parametrize("verdicts,want", [
    (["slower", "same", "n/a"], "slower"),
    (["faster", "same"], "faster"),
    (["slower", "faster", "same"], "mixed"),
    (["same", "n/a"], "same"),
    (["same", "inconclusive"], "inconclusive"),
    (["inconclusive", "slower"], "slower"),
    (["interference", "inconclusive", "same"], "interference"),
    (["n/a", "n/a"], "n/a"),
    ([], "n/a"),
])
def test_scenario_verdict(verdicts, want):
    assert orbstats.scenario_verdict(verdicts) == want


# ---- Benjamini-Hochberg ---------------------------------------------------

def test_bh_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 (m = 4): p*m/rank = 0.02, 0.02,
    # 0.04, 0.04; running minimum from the top changes nothing.
    assert orbstats.adjust([0.01, 0.04, 0.03, 0.005]) == \
        pytest.approx([0.02, 0.04, 0.04, 0.02])
    # sorted 0.01, 0.04, 0.045 (m = 3): 0.03, 0.06, 0.045; the running
    # minimum from the top brings 0.06 down to 0.045.
    assert orbstats.adjust([0.04, 0.045, 0.01]) == \
        pytest.approx([0.045, 0.045, 0.03])
    # capped at 1: sorted 0.8, 0.9 (m = 2): 1.6, 0.9 -> 0.9, 0.9
    assert orbstats.adjust([0.9, 0.8]) == pytest.approx([0.9, 0.9])


def test_bh_skips_untested():
    # None is no test: m = 2, sorted 0.01, 0.04 -> 0.02, 0.04
    q = orbstats.adjust([0.01, None, 0.04])
    assert q[1] is None
    assert [q[0], q[2]] == pytest.approx([0.02, 0.04])
    assert orbstats.adjust([0.03]) == pytest.approx([0.03])
    assert orbstats.adjust([]) == []


def fake_metric(p, ratio=1.2):
    return {"p_value": p, "q_value": p, "ratio": ratio, "verdict": "slower",
            "higher_is_better": False, "memory": False}


def test_adjust_metrics_turns_lone_hits_into_inconclusive():
    # one p of 0.03 among two tests: q = 0.06, no longer significant
    ms = [fake_metric(0.03), fake_metric(0.9)]
    assert orbstats.adjust_metrics(ms) == 2
    assert ms[0]["q_value"] == pytest.approx(0.06)
    assert ms[0]["verdict"] == "inconclusive"
    # two of 0.03 and 0.04: q = 0.04 each, both stay slower
    ms = [fake_metric(0.03), fake_metric(0.04)]
    orbstats.adjust_metrics(ms)
    assert [m["verdict"] for m in ms] == ["slower", "slower"]
    # a metric without a test is left alone and not counted
    ms = [fake_metric(0.01), dict(fake_metric(None), verdict="n/a")]
    assert orbstats.adjust_metrics(ms) == 1
    assert ms[1]["verdict"] == "n/a" and ms[1]["q_value"] is None


# ---- local fit ------------------------------------------------------------

def test_local_fit_on_a_power_law_is_exact():
    # v = 2 n^1.5: at 10, 2 * 31.6228 = 63.2456
    pts = [(n, 2 * n ** 1.5, w) for n, w in ((9, 10), (10, 5), (11, 1))]
    assert orbstats.local_fit(pts, 10) == pytest.approx(63.2456, rel=1e-5)
    # between measurements (9.5 and 10.5 only): still on the law
    pts = [(n, 2 * n ** 1.5, 7) for n in (9.5, 10.5)]
    assert orbstats.local_fit(pts, 10) == pytest.approx(63.2456, rel=1e-5)


def test_local_fit_ignores_points_outside_the_window():
    # 20 is outside 10 × 1.15 and its wild value must not count
    pts = [(9, 2 * 9 ** 1.5, 1), (11, 2 * 11 ** 1.5, 1), (20, 1e6, 100)]
    assert orbstats.local_fit(pts, 10) == pytest.approx(63.2456, rel=1e-5)


def test_local_fit_falls_back_to_the_nearest_measurement():
    # nothing within 10/1.15 .. 11.5: the nearest n (2 is 8 away, 20 is
    # 10 away)
    assert orbstats.local_fit([(2, 3.0, 1), (20, 7.0, 1)], 10) == \
        pytest.approx(3.0)
    # one n in the window, measured twice (weights 3 and 1): the weighted
    # geometric mean, exp((3 ln 4 + ln 16) / 4) = 2^2.5 = 5.656854
    assert orbstats.local_fit([(10, 4.0, 3), (10, 16.0, 1), (30, 1.0, 1)], 10) \
        == pytest.approx(5.656854, rel=1e-6)
    assert orbstats.local_fit([], 10) is None
    assert orbstats.local_fit([(10, 0.0, 1)], 10) is None


# ---- compare_paired -----------------------------------------------------------

def test_paired_t_worked_by_hand():
    # log ratios B/A of three paired runs: 0.1, 0.2, 0.3. Mean 0.2, sd 0.1,
    # se = 0.1/sqrt(3) = 0.057735, t = 3.464102 with df = 2; for 2 df the
    # two-sided p is 1 - t/sqrt(2 + t^2) = 1 - 3.464102/3.741657 = 0.074180.
    # t_0.975 with 2 df = 4.302653: CI exp(0.2 -/+ 4.302653 * 0.057735) =
    # 0.952739 .. 1.565826.
    a = [1, E, E ** 2]
    b = [E ** 0.1, E ** 1.2, E ** 2.3]
    m = orbstats.compare_paired(a, b, False)
    assert m["paired"] is True
    assert m["ratio"] == pytest.approx(math.exp(0.2))
    assert m["p_value"] == pytest.approx(0.074180, abs=1e-6)
    assert m["ci_low"] == pytest.approx(0.952739, rel=1e-5)
    assert m["ci_high"] == pytest.approx(1.565826, rel=1e-5)
    assert (m["n_a"], m["n_b"]) == (3, 3)
    assert m["verdict"] == "inconclusive"


def test_paired_sees_a_shift_that_drift_hides():
    # Runs that drift together (A spread over a factor e^2) with B 11-12%
    # above A in each: log ratios 0.10, 0.11, 0.12, mean 0.11, sd 0.01,
    # t = 0.11 / (0.01/sqrt 3) = 19.05256, t^2 = 363.0, df 2: p = 1 -
    # t/sqrt(2 + t^2) = 1 - 19.05256/19.10497 = 0.002743. Independent
    # samples would drown it in the drift.
    a = [1, E, E ** 2]
    b = [E ** 0.10, E ** 1.11, E ** 2.12]
    paired = orbstats.compare_paired(a, b, False)
    assert paired["p_value"] == pytest.approx(0.002743, abs=2e-6)
    assert paired["verdict"] == "slower"
    assert orbstats.compare_paired(a, b, True)["verdict"] == "faster"
    assert orbstats.compare_metric(a, b, False)["verdict"] == "inconclusive"


def test_paired_one_pair_or_missing_values_no_test():
    m = orbstats.compare_paired([100], [110], False)
    assert m["verdict"] == "n/a" and m["p_value"] is None
    assert m["ratio"] == pytest.approx(1.1)
    # A pair with a missing value is dropped as a pair.
    m = orbstats.compare_paired([100, None, 100], [110, 120, 110], False)
    assert (m["n_a"], m["n_b"]) == (2, 2)
    assert any("pair(s)" in n for n in m["notes"])


def test_negligible_difference_is_negligible_not_same():
    # PSS of two sets of the same servers: 400.0 and 400.8 KiB in every
    # run (0.2% apart), no spread at all: significant, its interval
    # excludes 1, so not "same" beside it, but "negligible", which a
    # scenario's verdict counts as same.
    m = orbstats.compare_metric([400.0] * 3, [400.8] * 3, False, memory=True)
    assert m["p_value"] == 0.0
    assert m["verdict"] == "negligible"
    assert m["ci_low"] > 1
    # 1% is not negligible.
    m = orbstats.compare_metric([400.0] * 3, [404.0] * 3, False, memory=True)
    assert m["verdict"] == "larger"
    assert orbstats.metric_verdict(1.004, 0.001, False) == "negligible"
    assert orbstats.metric_verdict(1.004, 0.2, False) == "inconclusive"
    assert orbstats.metric_verdict(1.006, 0.001, False) == "slower"
    assert orbstats.scenario_verdict(["negligible", "same"]) == "same"
    assert orbstats.scenario_verdict(["negligible", "slower"]) == "slower"


# ---- the suite's answer and intervals that agree with verdicts ------------

def paired_scenarios(effect, noise, runs=3, scenarios=8, seed=7):
    """[(name, compare_paired())]: scenarios whose paired runs have B/A =
    effect × e^(noise · z) for standard normal z (a fixed seed), A's
    values drifting as the host does."""
    rnd = random.Random(seed)
    out = []
    for s in range(scenarios):
        a = [1000 * math.exp(rnd.gauss(0, 0.08)) for _ in range(runs)]
        b = [x * effect * math.exp(rnd.gauss(0, noise)) for x in a]
        out.append((f"s{s}", orbstats.compare_paired(a, b, True)))
    return out


def test_suite_metric_is_the_t_over_the_scenarios_log_ratios():
    per = paired_scenarios(0.95, 0.02)
    m = orbstats.suite_metric(per, True)
    d = [math.log(x["ratio"]) for _, x in per]
    mean = statistics.fmean(d)
    se = statistics.stdev(d) / math.sqrt(len(d))
    assert m["ratio"] == pytest.approx(math.exp(mean))
    assert m["df"] == 7 and m["n_scenarios"] == 8
    t = stats.t
    assert m["p_value"] == pytest.approx(2 * t.sf(abs(mean / se), 7))
    assert m["ci_low"] == pytest.approx(math.exp(mean - t.ppf(0.975, 7) * se))
    assert m["verdict"] == "slower"
    # The case: each scenario alone says same after BH over the
    # family of 8, yet together they are clearly slower.
    fam = [x for _, x in per]
    orbstats.adjust_family(fam)
    assert sum(x["verdict"] == "slower" for x in fam) < 8
    assert m["p_value"] < 0.001


def test_suite_of_one_scenario_has_no_test():
    m = orbstats.suite_metric(paired_scenarios(0.9, 0.01, scenarios=1), True)
    assert m["verdict"] == "n/a" and m["p_value"] is None
    assert "one scenario" in m["notes"][0]
    assert orbstats.suite_metric([], True)["verdict"] == "n/a"


def test_fcr_intervals_exclude_one_exactly_when_bh_rejects():
    rnd = random.Random(3)
    for trial in range(200):
        ms = []
        for _ in range(rnd.randint(1, 30)):
            shift = rnd.choice([0, 0, 0.05, -0.08])
            a = [100 * math.exp(rnd.gauss(0, 0.05)) for _ in range(3)]
            b = [x * math.exp(shift + rnd.gauss(0, 0.03)) for x in a]
            ms.append(orbstats.compare_paired(a, b, False))
        tests, rejected, level = orbstats.adjust_family(ms)
        assert tests == len(ms)
        assert rejected == sum(m["q_value"] < 0.05 for m in ms)
        assert level == pytest.approx(1 - max(rejected, 1) * 0.05 / tests)
        for m in ms:
            excludes = not m["ci_low"] <= 1 <= m["ci_high"]
            assert excludes == (m["verdict"] not in ("same", "inconclusive")), (trial, m)
            assert m["ci_low"] <= m["ci95_low"] and \
                m["ci95_high"] <= m["ci_high"]


def test_drivers_name_the_scenarios_a_verdict_rests_on():
    def suite(ratios):
        per = [(f"s{i}", {"log_ratio": math.log(x)})
               for i, x in enumerate(ratios)]
        m = orbstats.suite_metric(per, True)
        return m, orbstats.suite_drivers(m, 0.95)
    # One scenario 20% slower, seven unchanged: the t over scenarios sees
    # one outlier, not a suite that got slower (p 0.26, by the t over the
    # eight logs), and names it first.
    m, d = suite([1.004, 0.997, 1.002, 0.996, 1.001, 1.003, 0.998, 0.80])
    assert m["verdict"] == "inconclusive" and d["decisive"] is None
    assert d["largest"][0][0] == "s7"
    # Slower, but without s0 (or s2) the other four no longer exclude 1 at
    # 95%: it rests on them.
    m, d = suite([0.97, 0.975, 0.96, 0.99, 0.94])
    assert m["verdict"] == "slower"
    assert d["decisive"] == ["s0", "s2"]
    assert [n for n, _ in d["largest"]] == ["s4", "s2", "s0"]
    # Eight alike at about 0.90: it holds without any one.
    m, d = suite([0.90, 0.91, 0.89, 0.90, 0.92, 0.88, 0.90, 0.91])
    assert m["verdict"] == "slower" and d["decisive"] == []


def test_moderated_variances_borrow_from_alike_scenarios():
    # Eight scenarios with 3 paired runs each whose per-run log ratios
    # have the same spread: the variances' scatter is no more than chance
    # (d0 very large), so each scenario's SD becomes the pooled one and
    # its df that of all of them.
    d = [0.01, -0.01, 0.0]      # sd 0.01 in every scenario
    ms = [orbstats.compare_paired([100] * 3,
                                  [100 * math.exp(0.02 + x) for x in d],
                                  False) for _ in range(8)]
    before = [m["p_value"] for m in ms]
    prior = orbstats.moderate(ms)
    # The prior holds the other seven scenarios' 14 df, no more.
    assert prior["d0"] == 14 and prior["s0"] == pytest.approx(0.01, rel=1e-6)
    for m, p in zip(ms, before):
        assert m["df"] == 16
        assert m["moderated"]["own_df"] == 2
        # the same SD, far more degrees of freedom: a smaller p-value
        assert m["se_log"] == pytest.approx(0.01 / math.sqrt(3), rel=1e-6)
        assert m["p_value"] < p
        assert m["ci_low"] <= m["ratio"] <= m["ci_high"]


def test_moderated_variance_lies_between_its_own_and_the_prior():
    rnd = random.Random(11)
    ms = []
    for sd in (0.002, 0.005, 0.01, 0.02, 0.04, 0.08):
        a = [100.0] * 3
        b = [100 * math.exp(rnd.gauss(0, sd)) for _ in a]
        ms.append(orbstats.compare_paired(a, b, True))
    own = [(m["se_log"] / m["se_factor"]) ** 2 for m in ms]
    prior = orbstats.moderate(ms)
    s0sq = prior["s0"] ** 2
    for m, s2 in zip(ms, own):
        post = (m["se_log"] / m["se_factor"]) ** 2
        assert min(s2, s0sq) - 1e-15 <= post <= max(s2, s0sq) + 1e-15
        assert m["df"] == pytest.approx(2 + prior["d0"])
    # fewer than three scenarios: nothing to estimate a prior from
    two = [orbstats.compare_paired([1, 2, 3], [1.1, 2.3, 3.2], True)
           for _ in range(2)]
    assert orbstats.moderate(two) is None and two[0]["df"] == 2


def test_the_default_margin_is_the_sequential_rules():
    """One margin: compare's "same" and run-suite --until-verdict's
    "decided as equivalent" are the same claim."""
    import orbbench.sequential as orbseq
    assert 100 * orbstats.EQUIVALENCE == orbseq.Plan(2, 3).delta_pct


def _one_run_blocks(shift, spread=0.01, blocks=12, seed=0):
    """A block-paired metric of one run: blocks log ratios shift + noise."""
    rnd = random.Random(seed)
    b = [100 * math.exp(shift + rnd.gauss(0, spread)) for _ in range(blocks)]
    m = orbstats.compare_paired([100.0] * blocks, b, False)
    m.update(pairs="blocks", runs=1)
    return m


def test_between_runs_widens_scenarios_whose_runs_scatter_beyond_their_blocks():
    # Eight scenarios, one run each: each run's blocks agree closely
    # (sd 1%), but the runs' offsets scatter by ±5%, a spread the blocks
    # cannot see. Alone each block test calls its offset slower or
    # faster; with the run-to-run spread none of them can tell.
    shifts = [0.05, -0.05, 0.04, -0.04, 0.06, -0.06, 0.03, -0.03]
    ms = [_one_run_blocks(s, seed=i) for i, s in enumerate(shifts)]
    assert {m["verdict"] for m in ms} == {"slower", "faster"}
    out = orbstats.between_runs(ms)
    assert out["k"] == 8 and 0.03 < out["tau"] < 0.07
    for m in ms:
        assert m["verdict"] == "inconclusive", m
        assert m["between_runs"]["tau"] == out["tau"]
        assert m["se_log"] > m["between_runs"]["own_se"]
        assert m["ci_low"] < 1 < m["ci_high"]


def test_between_runs_leaves_a_shift_every_scenario_shows_alike():
    # Every run 6% slower, with no more scatter between the runs than
    # their blocks' noise: tau is (about) 0 and the verdicts stand.
    ms = [_one_run_blocks(0.06, seed=i) for i in range(8)]
    before = [(m["ci_low"], m["ci_high"]) for m in ms]
    out = orbstats.between_runs(ms)
    assert out["tau"] < 0.005
    for m, (lo, hi) in zip(ms, before):
        assert m["verdict"] == "slower"
        assert m["ci_low"] <= lo * 1.01 and m["ci_high"] >= hi / 1.01


def test_between_runs_needs_three_one_run_block_metrics():
    two = [_one_run_blocks(0.05, seed=1), _one_run_blocks(-0.05, seed=2)]
    assert orbstats.between_runs(two) is None
    assert "between_runs" not in two[0]
    # runs paired run by run, or block metrics of several runs: untouched
    runs = [orbstats.compare_paired([1, 2, 3], [1.1, 2.3, 3.2], True)
            for _ in range(4)]
    several = [dict(_one_run_blocks(0.05 * (-1) ** i, seed=i), runs=2)
               for i in range(4)]
    assert orbstats.between_runs(runs) is None
    assert orbstats.between_runs(several) is None


# ---- paired_fit and within_runs: every pair of several paired runs --------

def test_paired_fit_at_one_n_is_the_mean_and_its_se_worked_by_hand():
    # Four blocks at one N, log ratios 0.01, 0.03, 0.02, 0.04, equal
    # weights: mean 0.025, sample variance (0.015² + 0.005² + 0.005² +
    # 0.015²) / 3 = 0.0005 / 3, se = sqrt(0.0005 / 12), df 3.
    y, se, df = orbstats.paired_fit(
        [(500, d, 10) for d in (0.01, 0.03, 0.02, 0.04)], 500)
    assert y == pytest.approx(0.025)
    assert se == pytest.approx(math.sqrt(0.0005 / 12))
    assert df == 3


def test_paired_fit_along_n_reads_the_line_at_n0():
    # Log ratios exactly 0.05 + 0.1 (ln n - ln 500) at five N: the line
    # at n0 = 500 is 0.05, with no residual (se 0), df 5 - 2.
    ns = [340, 400, 500, 600, 720]
    y, se, df = orbstats.paired_fit(
        [(n, 0.05 + 0.1 * math.log(n / 500), 1) for n in ns], 500)
    assert y == pytest.approx(0.05)
    assert se == pytest.approx(0.0, abs=1e-12)
    assert df == 3
    # one N off the line: the residuals now give an se above 0
    pts = [(n, 0.05 + 0.1 * math.log(n / 500) + (0.02 if n == 600 else 0),
            1) for n in ns]
    assert orbstats.paired_fit(pts, 500)[1] > 0


def test_paired_fit_needs_two_degrees_of_freedom():
    assert orbstats.paired_fit([(500, 0.01, 1), (500, 0.02, 1)], 500) is None
    assert orbstats.paired_fit([(400, 0.01, 1), (500, 0.02, 1),
                                (600, 0.0, 1)], 500) is None
    assert orbstats.paired_fit([(500, 0.01, 1)] * 3, 500)[2] == 2


def _runs_metric(shift, run_offsets, sd=0.03, pairs=9, seed=0):
    """A paired metric of len(run_offsets) runs, each with `pairs` pairs
    at one N scattering by sd about shift + its run's offset: its
    runs-only test (compare_paired on the runs' means) and "within"."""
    rng = random.Random(seed)
    within, va, vb = [], [], []
    for off in run_offsets:
        ds = [shift + off + rng.gauss(0, sd) for _ in range(pairs)]
        within.append(list(orbstats.paired_fit([(500, d, 1) for d in ds],
                                               500)))
        va.append(100.0)
        vb.append(100.0 * math.exp(statistics.fmean(ds)))
    m = orbstats.compare_paired(va, vb, False)
    m["within"] = within
    return m


def test_within_runs_tells_what_the_runs_alone_cannot():
    # Eight scenarios, 3 runs each, B 4% slower; a run's 9 pairs scatter
    # by 5% (its mean by 1.7%), the runs differ by no more than that. On
    # the runs alone (2 df, t 4.3) half the scenarios' 95% intervals
    # still hold 1 (seeded: 4 of 8 slower); on every pair (8 df a run,
    # 24 in all) every one excludes it, on more df and a narrower
    # interval.
    ms = [_runs_metric(0.04, [0, 0, 0], sd=0.05, seed=i) for i in range(8)]
    runs_only = [(m["ci_high"] / m["ci_low"], m["df"]) for m in ms]
    assert sum(m["verdict"] == "slower" for m in ms) <= 4
    out = orbstats.within_runs(ms)
    assert out["metrics"] == 8 and out["df"] == 16
    for m, (width, runs_df) in zip(ms, runs_only):
        assert m["verdict"] == "slower", m
        assert m["ci_low"] > 1
        assert m["df"] > runs_df and m["ci_high"] / m["ci_low"] < width
        assert "se_factor" not in m  # moderation leaves it alone
        assert m["within_runs"]["runs"] == 3
        assert m["within_runs"]["pairs_df"] == 24


def test_within_runs_widens_when_the_runs_scatter_beyond_their_pairs():
    # No difference, but every run carries an offset of its own (sd 5%,
    # seeded) that its 9 pairs (se 1% a run) cannot see. On the pairs
    # alone several scenarios' mean offset would be called (|mean| over
    # 3 se: 3 of 8 here); with the runs' scatter pooled over the eight
    # (tau about 5%) each interval is more than twice as wide.
    rng = random.Random(7)
    ms = [_runs_metric(0.0, [rng.gauss(0, 0.05) for _ in range(3)],
                       seed=20 + i) for i in range(8)]
    alone = [abs(statistics.fmean(y for y, _, _ in m["within"])) /
             (math.sqrt(math.fsum(se ** 2 for _, se, _ in m["within"])) / 3)
             for m in ms]
    assert sum(z > 3 for z in alone) >= 3
    pairs_se = [math.sqrt(math.fsum(se ** 2 for _, se, _ in m["within"]))
                / 3 for m in ms]
    out = orbstats.within_runs(ms)
    assert 0.025 < out["tau"] < 0.1
    for m, se in zip(ms, pairs_se):
        assert m["se_log"] > 2 * se
    # Unadjusted 95% tests of eight nulls: 0.4 false calls expected, two
    # here (seeded; over 150 such suites 5.7% of them were called), not
    # the 3 the pairs alone make at |z| > 3 (5 at 95%).
    assert sum(m["verdict"] != "inconclusive" for m in ms) <= 2


def test_within_runs_leaves_metrics_without_pairs_alone():
    plain = orbstats.compare_paired([1, 2, 3], [1.1, 2.3, 3.2], True)
    before = dict(plain)
    assert orbstats.within_runs([plain]) is None
    assert plain == before
    one = _runs_metric(0.05, [0.0], seed=3)  # one run: nothing to pool
    assert orbstats.within_runs([one]) is None
