"""How much the two sides of a paired run disturb each other, from what
the run recorded, and the check that withholds a verdict the disturbance
could have made.

Each measurement of a paired side records its rounds in order
(rounds_ms), the untimed rounds before them (untimed_ms: in blocks,
warmup plus sweep.switch_rounds, every block alike) and the other
side's servers' CPU during its timed rounds (neighbour_cpu_ms). Per side,
over its measurements near the crossing (median round time at least
NEAR × max_ms, where the verdict is decided):
  share     the other side's servers' CPU during this side's timed rounds,
            as a fraction of those rounds' wall time: work they do while
            this side is measured (the tail of their own last round);
  residual  the median of the timed rounds' first half over that of their
            second half, minus 1: what is left, after the untimed rounds,
            of a disturbance that decays within the block;
  switch    the first untimed round over the timed median, minus 1: what
            a switch from the other side costs the round right after it.
and, over the sweep's steps of a blocks run whose rounds take at least
PLACE_FLOOR × max_ms (the block's place alternates step by step):
  place     how much slower the side's first-in-tick blocks ran than its
            second-in-tick ones at the same N, each step read against its
            neighbours (place_effect). It should be near 0 when every
            block opens alike; it is reported, not corrected (the order
            flips at every tick, so it falls on both sides' steps alike,
            and adds to their scatter).
The side's interference is share + max(residual, 0): how much slower its
timed rounds are than they would be with the other side's servers quiet
(docs/measured/2026-12-01-one-answer.md measures the two terms). The
bias it makes in B/A is ln(1 + i_B) - ln(1 + i_A) on the log of round
time (B's rounds the more inflated), the opposite for crossing N.
Standard library only."""
import math
import statistics

import orbbench.results as orbresults

NEAR = 0.5   # measurements at or above this fraction of max_ms count


def _median(xs):
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return statistics.median(xs) if xs else None


def _measurements(doc):
    """Every measurement with timed rounds: steps, then probes."""
    return [m for m in (doc.get("steps") or []) + (doc.get("probes") or [])
            if isinstance(m, dict) and m.get("rounds_ms")]


PLACE_MIN = 3   # steps of each place at least, for the place estimate
PLACE_FLOOR = 0.2   # of max_ms: steps with shorter rounds are left out


def place_effect(doc, floor_ms=None):
    """How much slower the run's first-in-tick steps ran than its
    second-in-tick ones, exp(c) - 1, or None with fewer than PLACE_MIN
    steps of either place. Each sweep step between two steps of the other
    place (the order flips at every tick) is read against the mean of its
    neighbours on the log scale: e = ln m_i - (ln m_i-1 + ln m_i+1) / 2 is
    the curve's local bend plus c for a first block and minus c for a
    second, so c = (mean e of the firsts - mean e of the seconds) / 2 and
    the bend cancels. Steps with a median round under floor_ms are left
    out (a round of microseconds is mostly noise)."""
    steps = [m for m in doc.get("steps") or [] if isinstance(m, dict)]
    e = {1: [], 2: []}
    for prev, m, nxt in zip(steps, steps[1:], steps[2:]):
        meds = [(x.get("round_ms") or {}).get("median") for x in
                (prev, m, nxt)]
        places = [x.get("place") for x in (prev, m, nxt)]
        if (places[1] not in (1, 2) or places[0] != places[2] or
                places[0] == places[1] or
                not all(isinstance(v, (int, float)) and v > 0 for v in meds)
                or (floor_ms and min(meds) < floor_ms)):
            continue
        e[places[1]].append(math.log(meds[1]) -
                            (math.log(meds[0]) + math.log(meds[2])) / 2)
    if len(e[1]) < PLACE_MIN or len(e[2]) < PLACE_MIN:
        return None
    return math.expm1((statistics.fmean(e[1]) - statistics.fmean(e[2])) / 2)


def of_run(doc):
    """{"share", "residual", "switch", "place", "interference",
    "measurements"}
    of one side of a paired run, with the run's pairing. A figure is None
    where its field was not recorded: results of clients before
    sweep.pairing have no neighbour_cpu_ms or untimed_ms, so their
    interference is the residual alone (it needs only rounds_ms)."""
    max_ms = orbresults.threshold_ms(doc.get("scenario") or {})
    ms = _measurements(doc)
    near = [m for m in ms if max_ms and
            (m.get("round_ms") or {}).get("median", 0) >= NEAR * max_ms]
    use = near or ms
    share, residual, switch = [], [], []
    for m in use:
        rounds = m["rounds_ms"]
        wall = math.fsum(rounds)
        med = statistics.median(rounds)
        if m.get("neighbour_cpu_ms") is not None and wall > 0:
            share.append(m["neighbour_cpu_ms"] / wall)
        if len(rounds) >= 4:
            h = len(rounds) // 2
            late = statistics.median(rounds[h:])
            if late > 0:
                residual.append(statistics.median(rounds[:h]) / late - 1)
        if m.get("untimed_ms") and med > 0:
            switch.append(m["untimed_ms"][0] / med - 1)
    sc = doc.get("scenario") or {}
    out = {"pairing": orbresults.get(sc, f"{sc.get('kind', 'sweep')}.pairing",
                                     "rounds"),
           "measurements": len(use), "share": _median(share),
           "residual": _median(residual), "switch": _median(switch)}
    out["place"] = place_effect(doc,
                                PLACE_FLOOR * max_ms if max_ms else None)
    known = [x for x in (out["share"], out["residual"]) if x is not None]
    out["interference"] = ((out["share"] or 0) + max(out["residual"] or 0, 0)
                           if known else None)
    return out


def of_pairs(docs_a, docs_b):
    """One scenario's paired runs (docs_b[i] measured with docs_a[i]):
    {"a": [of_run], "b": [of_run], "bias_log": the median over runs of
    ln(1 + i_B) - ln(1 + i_A), or None}."""
    a = [of_run(d) for d in docs_a]
    b = [of_run(d) for d in docs_b]
    bias = [math.log1p(y["interference"]) - math.log1p(x["interference"])
            for x, y in zip(a, b)
            if x["interference"] is not None and y["interference"] is not None
            and x["interference"] > -1 and y["interference"] > -1]
    return {"a": a, "b": b, "bias_log": _median(bias)}


def _spurious(m, bias_log):
    """The log ratio B/A that interference alone would give metric m:
    +bias for round time and CPU, -bias for crossing N (higher is
    better)."""
    return -bias_log if m.get("higher_is_better") else bias_log


def _withhold_metric(m, bias_log, where):
    lr = m.get("log_ratio")
    if (m.get("memory") or m.get("verdict") not in ("slower", "faster") or
            lr is None or bias_log is None):
        return False
    spurious = _spurious(m, bias_log)
    if spurious * lr > 0 and abs(spurious) >= abs(lr):
        m["withheld"] = m["verdict"]
        m["verdict"] = "interference"
        m.setdefault("notes", []).append(
            f"not called: {where}the sides disturbed each other unequally "
            f"(B's rounds {100 * math.expm1(bias_log):+.1f}% against A's), "
            f"as much as the {100 * math.expm1(abs(lr)):.1f}% it would "
            f"decide; was {m['withheld']}")
        return True
    return False


def withhold(row, keys=None):
    """A paired scenario row (compare's) after its verdicts: each
    performance metric whose slower/faster the measured interference
    could have made alone (same direction, at least as large) becomes
    'interference', its verdict kept as "withheld". keys: the metrics
    to weigh (the history's client half, tested apart from compare's),
    else the row's primary ones."""
    inter = row.get("interference") or {}
    bias = inter.get("bias_log")
    for k, m in row["metrics"].items():
        if (m.get("primary") if keys is None else k in keys):
            _withhold_metric(m, bias, "")


def withhold_suite(cmp):
    """The suite rows likewise, against the mean of the paired
    scenarios' biases."""
    biases = [r["interference"]["bias_log"] for r in cmp["scenarios"]
              if r.get("interference") and
              r["interference"].get("bias_log") is not None]
    if not biases:
        return
    cmp["interference_bias_log"] = math.fsum(biases) / len(biases)
    for m in cmp["suite"].values():
        _withhold_metric(m, cmp["interference_bias_log"],
                         "over the suite, ")
