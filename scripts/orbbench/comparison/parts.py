"""What every rendering of a comparison shares: cells, the tables, and
the lines of method, notes, interference and environment."""
import math
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.gate as orbgate
import orbbench.results as orbresults
import orbbench.stats as orbstats
from orbbench.comparison.model import metric_key, metric_label, own_kind
from orbbench.comparison.shape import LETTERS


PROG = orbcli.prog("compare")


# Every renderer takes the list of comparisons (one per set after A): for
# two sets, one comparison, and the output is the two-set one.

def ratio_cell(m):
    """'1.07 [1.02–1.12] slower', '1.07' without a test, '—' without a
    ratio. Three decimals when the interval is narrower than 0.02, so that
    a significant 0.3% does not read '1.00 [1.00–1.00] larger'."""
    if m["ratio"] is None:
        return "—"
    lo, hi = m["ci_low"], m["ci_high"]
    d = 3 if lo is not None and hi - lo < 0.02 else 2
    text = f"{m['ratio']:.{d}f}"
    if orbstats.too_wide(m):
        text += " [too few runs]"
    elif lo is not None:
        text += f" [{lo:.{d}f}–{hi:.{d}f}]"
    if m["verdict"] != "n/a":
        text += f" {m['verdict']}"
    return text


def runs_cell(values):
    """'10.4 (9.8–11.0)': median (min–max) of the runs' values; '10.4'
    for one run."""
    vals = [v for v in values if v is not None]
    if not vals:
        return "—"
    text = orbresults.fmt_num(orbstats.median_or_none(vals))
    if len(vals) > 1:
        text += f" ({orbresults.fmt_num(min(vals))}–{orbresults.fmt_num(max(vals))})"
    return text


def has_values(cmps, key):
    return any(v is not None for cmp in cmps for c in cmp["scenarios"]
               if key in c["metrics"]
               for v in c["metrics"][key]["a_values"] +
               c["metrics"][key]["b_values"])


def swept(cmps):
    """The comparisons with only their stepped scenarios (those the main
    table shows); the rows of kinds without steps are
    kind_tables'."""
    return [dict(cmp, scenarios=[c for c in cmp["scenarios"]
                                 if not own_kind(c)]) for cmp in cmps]


# The client half's metrics (kinds/sweep.py's METRICS, docs/callers.md), in
# the client table's order.
CLIENT_KEYS = ("client_cpu_us", "client_threads", "client_uss_kb")


def client_table(cmps):
    """The client half, where a caller made some run's calls: scenario,
    then per client metric A's value (median (min–max) over runs) and each
    set's X/A (descriptive: 95% intervals, no verdict). (head, rows);
    rows empty without a caller."""
    names = orbresults.seed_order(list(dict.fromkeys(
        c["scenario"] for cmp in cmps for c in cmp["scenarios"]
        if "client_cpu_us" in c["metrics"])))
    mem = cmps[0]["mem_kind"] if cmps else None
    head = ["scenario"]
    for key in CLIENT_KEYS:
        head.append(f"{metric_label(key, mem)} A")
        head += [f"{metric_label(key, mem)} {x}/A"
                 for x in LETTERS[1:len(cmps) + 1]]
    rows = []
    for name in names:
        per = [next((c for c in cmp["scenarios"] if c["scenario"] == name),
                    None) for cmp in cmps]
        first = next(c for c in per if c)
        row = [name]
        for key in CLIENT_KEYS:
            m = first["metrics"].get(key)
            row.append(runs_cell(m["a_values"]) if m else "—")
            row += [ratio_cell(c["metrics"][key])
                    if c and key in c["metrics"] else "—" for c in per]
        rows.append(tuple(row))
    return tuple(head), rows


def kind_tables(cmps):
    """[(title, head, rows)]: per kind without steps that some
    scenario is of, one table: scenario, each metric's A (median (min–max)
    over runs), then per set each metric's X/A [interval] and the
    verdict."""
    out = []
    many = len(cmps) > 1
    for kind in orbresults.KINDS.values():
        names = orbresults.seed_order(list(dict.fromkeys(
            c["scenario"] for cmp in cmps for c in cmp["scenarios"]
            if own_kind(c) is kind)))
        if not names:
            continue
        head = ["scenario"] + [f"{m.label} A" for m in kind.metrics]
        for x in LETTERS[1:len(cmps) + 1]:
            tag = f" ({x})" if many else ""
            head += [f"{m.label} {x}/A" for m in kind.metrics]
            head.append(f"verdict{tag}")
        rows = []
        for name in names:
            per = [next((c for c in cmp["scenarios"]
                         if c["scenario"] == name), None) for cmp in cmps]
            first = next(c for c in per if c)
            row = [name] + [runs_cell(first["metrics"][m.key]["a_values"])
                            for m in kind.metrics]
            for c in per:
                if c is None:
                    row += ["—"] * (len(kind.metrics) + 1)
                    continue
                row += [ratio_cell(c["metrics"][m.key])
                        for m in kind.metrics]
                row.append("—" if c["verdict"] == "n/a" else c["verdict"])
            rows.append(tuple(row))
        out.append((f"Per scenario, kind {kind.name}", tuple(head), rows))
    return out


def shown_metrics(cmps):
    """The metric keys the table shows: crossing N and round time always,
    CPU and memory when some result has them."""
    mem = metric_key("mem", cmps[0]["mem_kind"])
    return ["crossing_n", "round_ms"] + [
        k for k in ("server_cpu_us", mem) if has_values(cmps, k)]


def group_head(x, mem, shown, many):
    """The columns of set x against A; with many sets, those that do not
    name x carry it in brackets."""
    tag = f" ({x})" if many else ""
    label = orbresults.MEM_LABELS[mem]
    head = [f"crossing N {x}", f"{x}/A [interval]", f"at N{tag}",
            f"round ms {x}/A"]
    if "server_cpu_us" in shown:
        head.append(f"server CPU {x}/A")
    if metric_key("mem", mem) in shown:
        head += [f"{label} at N{tag}", f"{label} {x}/A"]
    return head + [f"verdict{tag}"]


def group_cells(c, mem, shown):
    """One scenario's cells of one comparison (group_head's columns)."""
    ms = c["metrics"]
    row = [runs_cell(ms["crossing_n"]["b_values"]),
           ratio_cell(ms["crossing_n"]), orbresults.fmt_num(c["at_n"]),
           ratio_cell(ms["round_ms"])]
    if "server_cpu_us" in shown:
        row.append(ratio_cell(ms["server_cpu_us"]))
    if metric_key("mem", mem) in shown:
        m = ms[metric_key("mem", mem)]
        row += [orbresults.fmt_num(m.get("at_n")), ratio_cell(m)]
    return row + ["—" if c["verdict"] == "n/a" else c["verdict"]]


def main_table(cmps):
    """The verdict table: scenario, A's crossing N, then a column group
    per set compared with A ('—' where that set lacks the scenario)."""
    mem = cmps[0]["mem_kind"]
    cmps = swept(cmps)
    shown = shown_metrics(cmps)
    many = len(cmps) > 1
    head = ["scenario", "crossing N A"]
    for x in LETTERS[1:len(cmps) + 1]:
        head += group_head(x, mem, shown, many)
    width = len(group_head("B", mem, shown, many))
    names = orbresults.seed_order([c["scenario"] for cmp in cmps
                          for c in cmp["scenarios"]])
    rows = []
    for name in names:
        per = [next((c for c in cmp["scenarios"] if c["scenario"] == name),
                    None) for cmp in cmps]
        first = next(c for c in per if c)
        row = [name, runs_cell(first["metrics"]["crossing_n"]["a_values"])]
        for c in per:
            row += group_cells(c, mem, shown) if c else ["—"] * width
        rows.append(tuple(row))
    return tuple(head), rows


def pct_level(level):
    """'98.3%' for 0.98333, '99.965%' for 0.99965: the level with two
    significant digits of what it leaves out, so that a level below 1
    never reads as 100%."""
    if level is None:
        return "—"
    miss = 100 * (1 - level)
    if miss <= 0:
        return "100%"
    decimals = max(0, 1 - math.floor(math.log10(miss)))
    text = f"{100 * level:.{decimals}f}"
    if decimals:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def drivers_text(m):
    """'event-tcp 0.88, sync-unix 0.88; holds without any one' or, when
    some scenario decides it, '…; rests on X'."""
    d = m.get("drivers") or {}
    text = ", ".join(f"{n} {r:.2f}" for n, r in d.get("largest", []))
    if d.get("decisive") == []:
        text += "; holds without any one"
    elif d.get("decisive"):
        text += f"; rests on {', '.join(d['decisive'])}"
    return text or "—"


def suite_table(cmps):
    """The suite's answer: per set and primary metric, the geometric mean
    of B/A over the scenarios with its interval, verdict, and the
    scenarios that drive it."""
    head = (("set",) if len(cmps) > 1 else ()) + (
        "metric", "B/A (geomean)", "scenarios", "verdict", "largest effects")
    rows = []
    for x, cmp in zip(LETTERS[1:], cmps):
        for key, m in cmp["suite"].items():
            rows.append(((x,) if len(cmps) > 1 else ()) + (
                metric_label(key, cmp["mem_kind"]),
                ratio_cell(dict(m, verdict="n/a")), str(m["n_scenarios"]),
                m["verdict"] if m["verdict"] != "n/a" else "—",
                drivers_text(m)))
    return head, rows


def suite_lines(cmps):
    """The suite's verdict per set, and how it was reached."""
    m = cmps[0]["method"]
    verdicts = per_set(cmps, [c["suite_verdict"] + flagged_text(c)
                              for c in cmps])
    rows = list(dict.fromkeys(
        metric_label(k, c["mem_kind"]) for c in cmps
        for k, sm in c["suite"].items() if not sm["memory"])) or \
        ["crossing N", "server CPU"]
    return [f"Suite verdict: {verdicts}. It is read from the suite's "
            f"{' and '.join(rows)} rows; memory has its own.",
            "Suite rows: geometric mean over scenarios of each scenario's "
            "B/A, one-sample t over the scenarios' mean log ratios "
            f"(df = scenarios - 1); BH over the {m['suite_tests']} suite "
            f"tests, intervals at their {pct_level(m['suite_ci_level'])} "
            "false-coverage-rate level."]


def flagged(cmp):
    """[(scenario, metric label, metric dict)] of the scenarios' primary
    metrics with a difference (slower, faster, larger, smaller): what the
    gate reads beside the suite rows."""
    return [(r["scenario"], metric_label(k, cmp["mem_kind"]), m)
            for r in cmp["scenarios"] for k, m in r["metrics"].items()
            if m.get("primary") and m["verdict"] in orbgate.VERDICTS]


def flagged_text(cmp):
    """'; in scenarios: pool5-unix server CPU slower 1.12 [1.03–1.22]',
    or '' when none: the suite's headline names what the gate would."""
    rows = flagged(cmp)
    if not rows:
        return ""
    return "; in scenarios: " + ", ".join(
        f"{name} {label} {ratio_cell(m)}" for name, label, m in rows)


def steps_table(cmp, x="B"):
    head = ("scenario", "N", "round ms A", f"round ms {x}", f"{x}/A")
    rows = [(c["scenario"], s["n"], orbresults.fmt_num(s["a"]), orbresults.fmt_num(s["b"]),
             orbresults.fmt_num(s["ratio"], 2) if s["ratio"] is not None else "—")
            for c in cmp["scenarios"] for s in c["steps"]]
    return head, rows


def by_block(c):
    """True when a scenario's runs were paired block by block (the fast
    gate: fixed-N runs in KIND.step_blocks blocks)."""
    return any(m.get("pairs") in ("blocks", "runs")
               for m in c["metrics"].values())


def single_run(c):
    return (c["runs_a"] < 2 or c["runs_b"] < 2) and not by_block(c)


def per_set(cmps, parts):
    """'X' for one set; 'B: X; C: Y' for several (parts: one text per
    set, empty ones left out)."""
    if len(cmps) == 1:
        return parts[0]
    return "; ".join(f"{x}: {p}" for x, p in zip(LETTERS[1:], parts) if p)


def fit_windows(cmps):
    """'within ×1.5 of N' (or ±15%, or both): the windows of the local fits
    the costs were read with (a scenario's cost_n reads the wider)."""
    windows = sorted({m["at_window"] for cmp in cmps
                      for c in cmp["scenarios"]
                      for m in c["metrics"].values()
                      if isinstance(m.get("at_window"), (int, float))})
    words = [f"±{round((w - 1) * 100)}%" if w < 1.3 else f"×{w:g}"
             for w in windows or [orbstats.FIT_WINDOW]]
    return "within " + " or ".join(words) + " of N"


def within_line(cmps):
    """", where repeats of paired runs carry pairs of their own: …" for
    the metrics orbbench.stats.within_runs tested on every pair of every
    run, or ""."""
    done = {}
    for cmp in cmps:
        for key, w in (cmp["method"].get("within_runs") or {}).items():
            if w:
                done.setdefault(metric_label(key, cmp["mem_kind"]), w)
    if not done:
        return ""
    words = "; ".join(
        f"{label}: run-to-run sd {100 * w['tau']:.1f}% over {w['df']} df"
        for label, w in done.items())
    return (" (with repeats, for " + ", ".join(done) + ": on every pair "
            "of every run, each run's pairs near N (a sweep's steps in the "
            "cost window, or its blocks) giving its log ratio and error, "
            "widened by the runs' scatter beyond those errors, pooled over "
            f"the scenarios; {words})")


def method_lines(cmps):
    """How the verdicts were reached, the smallest differences the noise
    lets the test detect, and where repeats are missing."""
    tests = cmps[0]["method"]["tests"]
    ratios = ", ".join(f"{x}/A" for x in LETTERS[1:len(cmps) + 1])
    crossings = ", ".join(LETTERS[:len(cmps) + 1])
    single = [[c["scenario"] for c in cmp["scenarios"] if single_run(c)]
              for cmp in cmps]
    level = cmps[0]["method"].get("ci_level")
    out = []
    if any(c for cmp in swept(cmps) for c in cmp["scenarios"]):
        out.append(
           f"Crossing N {crossings}: median (min–max) over runs. {ratios}: "
           "ratio of geometric means over runs, [interval]: for the tested "
           f"(primary) metrics at the {pct_level(level)} "
           "false-coverage-rate level that goes with the verdicts, so it "
           "excludes 1 exactly when a difference is found; round ms at a "
           "common N is descriptive (95%, not tested, no verdict). Round ms "
           "and server CPU per call at N: each run's local fit over its "
           f"steps and probes {fit_windows(cmps)}" + (
               "; in runs of one N in blocks (KIND.step_blocks), each "
               "block's own value, B's paired with A's block by block "
               "(one run a scenario: widened by the run-to-run spread "
               "across the scenarios, DerSimonian-Laird), or with repeats "
               "each run's blocks' geometric mean, paired by run"
               if any(by_block(c) for cmp in cmps for c in cmp["scenarios"])
               else "") + ".")
    if any(own_kind(c) for cmp in cmps for c in cmp["scenarios"]):
        out.append(kind_method_line(cmps, ratios, level))
    if not tests:
        if all(single_run(c) for cmp in cmps for c in cmp["scenarios"]):
            out.append("No verdicts: one run on a side; repeats are "
                       "needed (run-suite --repeat 3).")
        else:
            out.append("No verdicts: no metric could be tested (the runs "
                       "gave no values to test: see the notes).")
        return out
    scenarios = [c for cmp in cmps for c in cmp["scenarios"]]
    paired = [c for c in scenarios if c.get("paired")]
    pair_ratio = ratios if len(cmps) == 1 else "X/A"
    unit = ("block" if all(by_block(c) and c["runs_a"] == 1
                           for c in scenarios) else
            "run (or block)" if any(by_block(c) for c in scenarios) else
            "run")
    how = (f"one-sample t on each paired {unit}'s log ratio {pair_ratio}" if
           len(paired) == len(scenarios) else
           "Student t on log values per run" + (
               " (paired runs: one-sample t on each run's log ratio "
               f"{pair_ratio})" if paired else ""))
    within = within_line(cmps)
    if within:
        how += within
    every = "" if len(cmps) == 1 else " (every set's together)"
    alpha = cmps[0]["method"].get("alpha", orbstats.ALPHA)
    src = cmps[0]["method"].get("alpha_from", "default")
    spent = "" if src == "default" else f", alpha {alpha:.4g} from {src}"
    delta = cmps[0]["method"].get("equivalence", orbstats.EQUIVALENCE)
    out.append(f"Verdicts: {how}, BH-adjusted over {tests} tests{every} "
               f"of the primary metrics, q < {alpha:.4g}{spent}: "
               "slower/faster (memory: larger/smaller, not counted in a "
               "scenario's verdict) when the interval excludes 1; "
               f"same only when it lies within ±{100 * delta:.3g}% "
               "(--equivalence); inconclusive otherwise (the data cannot "
               "tell); negligible: significant but within 0.5% of 1, "
               "counted as same; interference: a difference no larger than "
               "what the sides' unequal disturbance of each other would "
               "make, not called.")
    shown = shown_metrics(swept(cmps)) + list(dict.fromkeys(
        m.key for cmp in cmps for c in cmp["scenarios"] if own_kind(c)
        for m in own_kind(c).metrics if m.primary))
    mde = per_set(cmps, [", ".join(
        f"{metric_label(k, cmp['mem_kind'])} {mde_text(cmp['mde_pct'][k])}"
        for k in shown if cmp["mde_pct"].get(k) is not None)
        for cmp in cmps])
    if mde:
        out.append("Smallest difference detectable (80% power, median "
                   f"over scenarios): {mde}.")
    if any(single):
        out.append(f"No verdict for "
                   f"{per_set(cmps, [', '.join(s) for s in single])}: one "
                   "run on a side; repeats are needed (run-suite --repeat "
                   "3).")
    return out


def kind_method_line(cmps, ratios, level):
    """How the scenarios of kinds without steps were weighed."""
    kinds = list(dict.fromkeys(own_kind(c).name for cmp in cmps
                               for c in cmp["scenarios"] if own_kind(c)))
    said = [f"{m.label}" + ("" if m.primary else " (descriptive)")
            for k in kinds for m in orbresults.KINDS[k].metrics]
    return (f"Per scenario of a kind without steps ({', '.join(kinds)}): "
            f"its own metrics, one value per run ({', '.join(said)}); "
            f"A: median (min–max) over runs; {ratios}: ratio of geometric "
            "means over runs, [interval] at the "
            f"{pct_level(level)} false-coverage-rate level for the tested "
            "ones, 95% for the descriptive ones.")


def mde_text(pct):
    """'±4.2%', or 'too few runs' when the detectable difference is over
    a factor TOO_WIDE."""
    if pct is None or pct > 100 * (orbstats.TOO_WIDE - 1):
        return "too few runs"
    return f"±{pct:.1f}%"


def interference_lines(cmps):
    """What each paired scenario's runs measured of the sides' disturbance
    of each other (orbbench.interference), one line per set: the median
    over runs of each side's interference and the bias it would make in
    B/A's round time."""
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        parts = []
        for r in cmp["scenarios"]:
            inter = r.get("interference")
            if not inter or inter.get("bias_log") is None:
                continue
            ia = orbstats.median_or_none(s["interference"]
                                         for s in inter["a"])
            ib = orbstats.median_or_none(s["interference"]
                                         for s in inter["b"])
            pairing = inter["a"][0]["pairing"] if inter["a"] else "?"
            text = (f"{r['scenario']} ({pairing}) A {100 * ia:.1f}%, "
                    f"{x} {100 * ib:.1f}%, bias "
                    f"{100 * math.expm1(inter['bias_log']):+.1f}%")
            pa = orbstats.median_or_none(s.get("place") for s in inter["a"])
            pb = orbstats.median_or_none(s.get("place") for s in inter["b"])
            if pa is not None and pb is not None:
                text += (f", first block of a tick A {100 * pa:+.1f}%, "
                         f"{x} {100 * pb:+.1f}%")
            parts.append(text)
        if parts:
            out.append(f"Interference measured in the paired runs (each "
                       "side's timed rounds slowed by the other side's "
                       "servers, median over runs; a verdict the bias "
                       "could make alone is not called; in blocks, how much "
                       "slower a side's first block of a tick ran than its "
                       f"second at the same N): {'; '.join(parts)}.")
    return out


def note_lines(cmps):
    """The metrics' notes (fallbacks, dropped runs), one line per metric
    and note, naming the scenarios (and, with several sets, the set); not
    the one-run notes (method_lines says it) nor those of metrics the
    table leaves out."""
    shown = shown_metrics(cmps)
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        seen = {}
        for c in cmp["scenarios"]:
            kind = own_kind(c)
            for k in [m.key for m in kind.metrics] if kind else shown:
                for note in c["metrics"][k]["notes"]:
                    if note.startswith("one run on a side"):
                        continue
                    seen.setdefault((k, note), []).append(c["scenario"])
        tag = f"{x}: " if len(cmps) > 1 else ""
        for (k, note), names in seen.items():
            where = "all scenarios" if len(names) == len(cmp["scenarios"]) \
                else ", ".join(names)
            out.append(f"{tag}{metric_label(k, cmp['mem_kind'])} "
                       f"({where}): {note}")
    return out


def env_lines(cmps):
    """What differs between A's environment and each other set's."""
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        d = cmp["environment_differences"]
        if not d:
            out.append(("Environment: no difference" if len(cmps) == 1 else
                        f"Environment A → {x}: no difference") +
                       " in ORB, host, CPUs, kernel, tool, compiler flags, "
                       "CPU placement or scenario settings.")
            continue
        out += [f"Environment differences (A → {x}):"] + [
            f"  {e['field']}: {change_text(e['a'], e['b'])}" for e in d]
    return out


def change_text(a, b):
    """'a → b'; for long flag lists only the words that differ."""
    ta, tb = a.split(), b.split()
    if len(ta) > 4 and len(tb) > 4:
        gone = " ".join(t for t in ta if t not in tb) or "(nothing)"
        new = " ".join(t for t in tb if t not in ta) or "(nothing)"
        return f"{gone} → {new} (the rest alike)"
    return f"{a} → {b}"


def sources(paths):
    """The input files, shortened to "FOLDER/ (N files)" per folder."""
    by_dir = {}
    for p in paths:
        by_dir.setdefault(str(Path(p).parent), []).append(Path(p).name)
    return ", ".join(f"{d}/{names[0]}" if len(names) == 1 else
                     f"{d}/ ({len(names)} files)"
                     for d, names in by_dir.items())


def set_lines(cmps):
    """'A: files', 'B: files', … one per set."""
    return [f"A: {sources(cmps[0]['a'])}"] + [
        f"{x}: {sources(cmp['b'])}" for x, cmp in zip(LETTERS[1:], cmps)]


def unmatched_lines(cmps):
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        for key, side_name in (("only_in_a", "A"), ("only_in_b", x)):
            if cmp[key]:
                vs = f" (not in {x})" if key == "only_in_a" and \
                    len(cmps) > 1 else ""
                out.append(f"Only in {side_name}{vs}: {', '.join(cmp[key])}")
    return out


def steps_blocks(cmps):
    """[(title, head, rows)]: the round time at each N A and a set both
    reached, one table per set."""
    out = []
    for x, cmp in zip(LETTERS[1:], cmps):
        head, rows = steps_table(cmp, x)
        if rows:
            out.append(("Median round time at each N both reached" +
                        ("" if len(cmps) == 1 else f", {x} against A"),
                        head, rows))
    return out
