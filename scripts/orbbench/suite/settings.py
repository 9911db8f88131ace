"""What the suite adds to a scenario's run, by the scenario's kind (its
row in orbbench.results.KINDS, never its name): --at-n's one N in
blocks, a paired run's untimed opening, a warm start's prior. Each is a
list of KIND.key=VALUE settings that go before the user's --set, which
may change them."""
import json

import orbbench.results as orbresults
import orbbench.warm as orbwarm

# --at-n's blocks per paired run unless --set gives KIND.step_blocks, and
# each block's untimed opening (KIND.warmup_rounds + KIND.switch_rounds):
# 8 pairs of blocks of 2 + 2 untimed and 10 timed rounds, 8 × 2 × 14
# rounds, half of the 12 × 2 × 18 of 2026-12-05 morning. Why fewer: on
# that day's fast gates (Grisby, N = 500, 384 blocks) a block's rounds ran
# 0.87, 0.60, 0.28, 0.23 (log) above its cheapest in its first four and
# 0.16-0.20 from the fifth on, so the fifth to eighth rounds the opening
# also skipped were already settled; and a block's server CPU, read on its
# cheapest rounds (compare.md, "Server CPU per call"), scattered by 13%
# against 21%, so 8 blocks tell what 12 did with room to spare.
AT_N_BLOCKS = 8
AT_N_WARMUP = 2
AT_N_SWITCH = 2


def scenario_doc(scenario):
    """A scenario file's JSON object, or None when it does not parse to
    one (its run then says what is wrong)."""
    try:
        doc = json.loads(scenario.read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def scenario_kind(scenario):
    """The kind a scenario file names (the default when it names none), or
    None when it does not parse (its run then says what is wrong)."""
    doc = scenario_doc(scenario)
    return None if doc is None else doc.get("kind", orbresults.DEFAULT_KIND)


def pairs(scenario):
    """True when the scenario file's kind pairs (orbbench.results.Kind);
    a file that does not parse is run alone, and its run says what is
    wrong with it."""
    k = orbresults.KINDS.get(scenario_kind(scenario))
    return bool(k and k.pairs)


def at_n_sets(at_n, scenario):
    """--at-n N's settings of one scenario (none when at_n is None),
    named by its kind: one N, in blocks, no search."""
    if at_n is None:
        return []
    k = scenario_kind(scenario) or orbresults.DEFAULT_KIND
    return [f"{k}.start={at_n}", f"{k}.max_n={at_n}",
            f"{k}.cost_n={at_n}", f"{k}.resolution=0",
            f"{k}.step_blocks={AT_N_BLOCKS}",
            f"{k}.warmup_rounds={AT_N_WARMUP}",
            f"{k}.switch_rounds={AT_N_SWITCH}"]


def paired_sets(at_n, scenario):
    """A paired run's opening: its kind's paired_opening (orbbench.results.
    Kind; the sweep's 3 + 2, measured in docs/kinds/sweep.md) as
    KIND.warmup_rounds and KIND.switch_rounds, each unless the scenario
    file gives it; none with --at-n (at_n_sets gives its own) or for a
    kind without one."""
    doc = scenario_doc(scenario) if at_n is None else None
    if doc is None:
        return []
    k = orbresults.KINDS.get(doc.get("kind", orbresults.DEFAULT_KIND))
    if not (k and k.settings and k.paired_opening):
        return []
    given = doc.get(k.settings) or {}
    if not isinstance(given, dict):
        return []
    return [f"{k.settings}.{key}={value}" for key, value in
            zip(("warmup_rounds", "switch_rounds"), k.paired_opening)
            if key not in given]


def warm_sets(at_n, scenario, prior):
    """The warm start's settings of one scenario's run: the prior, named
    by the kind's driver group; none with --at-n (no search) or a kind
    without the driver."""
    if at_n is not None:
        return []
    k = orbresults.KINDS.get(scenario_kind(scenario))
    return orbwarm.prior_sets(k.settings if k else None, prior)
