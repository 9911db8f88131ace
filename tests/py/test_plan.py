"""The plan of orbbench suite --until-verdict (orbbench.sequential): how many
repeats the budget allows at the slowest repeat measured, when the run
stops, and the alpha each look spends, from given times (no clock, no
client): the plan only shrinks and no alpha is spent twice."""
import random

import pytest

import orbbench.safeload as orbsafe
import orbbench.sequential as orbseq

MIN = 60.0


def drive(plan, times_s, budget_s, decided_at=None):
    """Run the plan as the suite does over repeats that take times_s (a
    look takes no time here): [(repeat, alpha)] of its looks, why it
    stopped, and the time used at the stop. decided_at: the repeat whose
    look finds every metric decided."""
    used, looks = 0.0, []
    for rep, t in enumerate(times_s, 1):
        used += t
        then = plan.after_repeat(rep, used, t, budget_s)
        if then == "budget":
            return looks, "budget", used
        if then == "look":
            looks.append((rep, plan.take_look(rep)))
            why = plan.stop(rep, rep == decided_at)
            if why:
                return looks, why, used
    return looks, "ran out of times", used


def test_the_budget_plans_the_looks_grisby_at_16_min():
    """Repeats of about 16 min (the Grisby suite here), 60 min: after the
    first repeat 3 fit in all, so the one look after 3 spends all of
    alpha, not a sixth of it as a plan of 3..8 over --max-repeat would."""
    plan = orbseq.Plan(3, 8)
    looks, why, used = drive(plan, [16 * MIN, 17 * MIN, 15 * MIN,
                                    16 * MIN], 60 * MIN)
    assert plan.planned_repeats == 3 and plan.looks == 1
    assert looks == [(3, pytest.approx(0.05))] and why == "budget"
    assert used <= 60 * MIN
    assert plan.repeat_s == 17 * MIN                  # the slowest
    assert plan.times_s == [16 * MIN, 17 * MIN, 15 * MIN]


def test_without_a_budget_the_plan_is_max_repeat():
    """No budget: looks after 3..8, the error spent in step with the
    repeats: 3/8 of alpha at the first, 1/8 at each after, all at 8."""
    plan = orbseq.Plan(3, 8)
    looks, why, _ = drive(plan, [MIN] * 8, None)
    assert why == "max repeats" and plan.looks == 6
    assert [r for r, _ in looks] == [3, 4, 5, 6, 7, 8]
    assert [x for _, x in looks] == pytest.approx(
        [0.05 * 3 / 8] + [0.05 / 8] * 5)
    assert plan.spent == pytest.approx(0.05)


def test_a_decided_look_stops_the_run():
    plan = orbseq.Plan(3, 8)
    looks, why, _ = drive(plan, [MIN] * 8, None, decided_at=4)
    assert why == "decided" and [r for r, _ in looks] == [3, 4]
    assert plan.final_alpha == pytest.approx(0.05 / 8)


def test_repeats_before_the_first_look_are_budgeted():
    """--repeat 3 with 30 min and 16-min repeats: the second repeat would
    end at 32 min, so the run stops after the first, without a look (one
    repeat has no test); with 12-min repeats two fit, and the first look
    comes after 2, spending all of alpha."""
    plan = orbseq.Plan(3, 8)
    looks, why, used = drive(plan, [16 * MIN] * 3, 30 * MIN)
    assert (looks, why, used) == ([], "budget", 16 * MIN)
    assert plan.planned_repeats == 1
    plan = orbseq.Plan(3, 8)
    looks, why, used = drive(plan, [12 * MIN] * 3, 30 * MIN)
    assert looks == [(2, pytest.approx(0.05))] and why == "budget"
    assert plan.first_look == 2 and used == 24 * MIN


def test_plan_repeats_arithmetic():
    # 1 done at 16 min, 16 min each: 2 more end at 48 <= 50; a third at 64
    assert orbseq.plan_repeats(1, 16 * MIN, 16 * MIN, 50 * MIN, 8) == 3
    # one that ends exactly at the budget fits
    assert orbseq.plan_repeats(2, 100, 30, 160, 8) == 4
    assert orbseq.plan_repeats(2, 100, 31, 160, 8) == 3
    # never more than the plan so far, never fewer than done
    assert orbseq.plan_repeats(1, 0, 1, 1000, 5) == 5
    assert orbseq.plan_repeats(4, 500, 100, 300, 8) == 4
    # no budget, or nothing measured: the plan stands
    assert orbseq.plan_repeats(3, 1e9, 1, None, 8) == 8
    assert orbseq.plan_repeats(0, 0, None, 60, 8) == 8
    assert orbseq.repeat_estimate([900, 1100, 1000]) == 1100
    assert orbseq.repeat_estimate([]) is None


def test_a_plan_that_shrinks_mid_run_spends_no_alpha_twice():
    """100 min: two 10-min repeats plan 8 (9 would fit); the third takes
    30, so the slowest is 30 and 4 in all fit. The looks spend alpha ×
    r/P in all: 2/8, then 3/4, then 4/4 (what is left), never more."""
    plan = orbseq.Plan(2, 8)
    looks, why, used = drive(plan, [10 * MIN, 10 * MIN, 30 * MIN,
                                    10 * MIN, 10 * MIN], 100 * MIN)
    assert [r for r, _ in looks] == [2, 3, 4] and why == "budget"
    assert [x for _, x in looks] == pytest.approx(
        [0.05 * 2 / 8, 0.05 * (3 / 4 - 2 / 8), 0.05 * (1 - 3 / 4)])
    assert plan.spent == pytest.approx(0.05)
    # faster repeats later (10 min again: 5 would fit) do not grow it
    assert plan.planned_repeats == 4 and used == 60 * MIN


def test_spend_never_exceeds_alpha_on_any_path():
    """Random repeat times (0.5-1.5 times the first) and budgets, random
    decisions: every look spends > 0, the spent total only grows and
    never passes alpha, the plan only shrinks, and a run whose repeats are
    no slower than the slowest before them ends within its budget."""
    rnd = random.Random(34)
    calm = shrunk = 0
    for _ in range(500):
        lo, hi = sorted(rnd.sample(range(2, 11), 2))
        plan = orbseq.Plan(lo, hi)
        budget = rnd.uniform(1, 12) * 60
        first = rnd.uniform(40, 80)
        top = rnd.choice((1.0, 1.5))      # 1.0: the first is the slowest
        times = [first] + [first * rnd.uniform(0.5, top) for _ in range(hi)]
        plans, used, spent = [plan.planned_repeats], 0.0, 0.0
        for rep, t in enumerate(times[:hi], 1):
            used += t
            then = plan.after_repeat(rep, used, t, budget)
            plans.append(plan.planned_repeats)
            if then == "budget":
                break
            if then == "look":
                x = plan.take_look(rep)
                assert x > 0
                spent += x
                assert spent <= plan.alpha * (1 + 1e-12)
                if plan.stop(rep, rnd.random() < 0.2):
                    break
        assert plans == sorted(plans, reverse=True)
        assert plan.spent == pytest.approx(spent)
        # repeat 1 always runs; after it, no repeat passes the budget
        # unless it is slower than the slowest before it
        if times[0] <= budget and all(t <= max(times[:i])
                                      for i, t in enumerate(times) if i):
            calm += 1
            assert used <= budget + 1e-9
        shrunk += plans[-1] < hi
    assert calm > 20 and shrunk > 100


def test_spend_is_the_linear_function_and_never_negative():
    assert orbseq.spend(0.05, []) == []
    assert orbseq.spend(0.05, [(3, 8), (4, 8)]) == pytest.approx(
        [0.05 * 3 / 8, 0.05 / 8])
    # a plan that grew (never by run-suite) spends nothing until it
    # catches up
    assert orbseq.spend(0.05, [(2, 4), (3, 8), (6, 8)]) == pytest.approx(
        [0.025, 0.0, 0.0125])
    assert sum(orbseq.spend(0.05, [(2, 2), (3, 3)])) == pytest.approx(0.05)


def test_plan_bounds():
    assert orbseq.Plan(2, 2).looks == 1
    for bad in ((1, 4), (5, 4), (2, orbseq.MAX_LOOKS + 1)):
        with pytest.raises(ValueError):
            orbseq.Plan(*bad)
    with pytest.raises(ValueError):
        orbseq.Plan(3, 8, delta_pct=0)


def record(plan, looks):
    return {"plan": plan.as_json(),
            "looks": [{"repeats": r, "planned_repeats": p}
                      for r, p in looks]}


def test_compare_takes_the_final_alpha_the_looks_spent():
    """check_plan recomputes the spending from the record's looks: the
    final comparison tests at the last look's alpha, and a record whose
    final_alpha is not that is refused, naming the field."""
    plan = orbseq.Plan(2, 8)
    drive(plan, [10 * MIN, 10 * MIN, 30 * MIN, 10 * MIN], 100 * MIN)
    doc = record(plan, plan.marks)
    per, looks = orbseq.check_plan(doc, "s.json")
    assert per == pytest.approx(0.05 / 4) and looks == 3
    doc["plan"]["final_alpha"] = 0.05
    with pytest.raises(orbsafe.BadInput, match="plan.final_alpha"):
        orbseq.check_plan(doc, "s.json")
    doc = record(plan, [(2, 8), (3, True)])
    with pytest.raises(orbsafe.BadInput, match=r"looks\[1\].planned"):
        orbseq.check_plan(doc, "s.json")
    doc = record(plan, plan.marks)
    doc["plan"]["spending"] = "pocock"
    with pytest.raises(orbsafe.BadInput, match="plan.spending"):
        orbseq.check_plan(doc, "s.json")


def test_a_record_without_looks_gives_the_first_looks_alpha():
    """Stopped (interrupted) before its first look: the alpha the first
    planned look would have spent."""
    plan = orbseq.Plan(3, 8)
    plan.after_repeat(1, 60, 60, None)
    per, _ = orbseq.check_plan(record(plan, []), "s.json")
    assert per == pytest.approx(0.05 * 3 / 8) == plan.final_alpha


def test_an_older_record_spends_alpha_over_looks():
    """A record from before the plan followed the budget (no spending):
    every look at alpha / looks, as it was."""
    doc = {"plan": {"alpha": 0.05, "looks": 6, "alpha_per_look": 0.05 / 6}}
    assert orbseq.check_plan(doc, "s.json") == (pytest.approx(0.05 / 6), 6)
    doc["plan"]["alpha_per_look"] = 0.05
    with pytest.raises(orbsafe.BadInput, match="plan.alpha_per_look"):
        orbseq.check_plan(doc, "s.json")
