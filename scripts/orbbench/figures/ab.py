"""The figures that set results B against results A (the baseline), one
question each, written to a folder: capacity (orbbench.figures.capacity:
crossing N per scenario, every run and the verdict), B/A round time
against N with A's own run-to-run spread (ratio), and round time against
N in one small panel per scenario (latency); of one set alone, capacity
and latency.

Every figure's module has a pure *_data function beside it that returns
exactly the numbers the figure draws. Groups are {scenario name: [result
doc or orbbench.results.Result, …]}, as orbbench.results.group_by_scenario
gives them; side B is optional where the question allows (one set of
results)."""
import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.figures.capacity import (capacity_caption, capacity_data,
                                       capacity_figure)
from orbbench.figures.latency import (latency_caption, latency_data,
                                      latency_panels_figure)
from orbbench.figures.ratio import ratio_caption, ratio_data, ratio_figure
from orbbench.figures.sides import docs_of, unit_of


# ---- writing the figures --------------------------------------------------

def verdicts_from_compare(cmp):
    """{scenario: {"verdict", "ratio", "ci"}} from scripts/compare's JSON:
    the scenario's verdict with its crossing-N metric's ratio and the
    interval the table shows beside it (at the verdicts' level)."""
    out = {}
    for s in cmp.get("scenarios", []):
        if "crossing_n" not in s["metrics"]:
            continue        # a kind compared by its own metrics
        m = s["metrics"]["crossing_n"]
        out[s["scenario"]] = {"verdict": s["verdict"], "ratio": m["ratio"],
                              "ci": [m["ci_low"], m["ci_high"]]
                              if m.get("ci_low") is not None else None}
    return out


def swept_only(sides, log, figures):
    """sides (a list of groups) without the scenarios whose every run is
    fixed-N (the bench suite): capacity and round time against N do not
    apply to one N; the fixed-n figure draws them. log(message) once, for
    figures, names what was left out; [] when nothing is left."""
    fixed = {name for g in sides for name, items in g.items()
             if items and all(d["steps"] and orbresults.is_fixed_n(d)
                              for d in docs_of(items))}
    out = [{k: v for k, v in g.items() if k not in fixed} for g in sides]
    if fixed and not any(out):
        log(f"{figures}: not drawn, every scenario is fixed-N (see "
            f"fixed-n)")
        return []
    if fixed:
        log(f"{figures}: {len(fixed)} fixed-N scenario(s) left out "
            f"({', '.join(orbresults.seed_order(list(fixed)))}; see fixed-n)")
    return out


def write_figures(jobs, outdir, log):
    """Run (stem, title, make, caption) jobs; save what they draw."""
    out = []
    for stem, title, make, caption in jobs:
        fig = orbplot.attempt(stem, lambda: make(title), log)
        if fig is None:
            continue
        out.append(orbplot.save(fig, outdir, stem, title, caption()))
    return out


def ab_figures(res_a, res_b, outdir, labels, verdicts=None, colors=None,
               log=None, run=None):
    """Write the A-against-B figures of two lists of orbbench.results.Result
    into outdir (PNG and SVG each): ab-capacity, ab-ratio, ab-latency.
    labels (A, B); verdicts as capacity_figure takes them (see
    verdicts_from_compare); colors {label: colour}; log(message) for
    skipped figures; run names the comparison in the titles. Returns
    [orbbench.plot.Figure] with captions."""
    log = log or (lambda m: None)
    labels = tuple(labels)
    sides = swept_only([orbresults.group_by_scenario(res_a, split_orbs=True),
                        orbresults.group_by_scenario(res_b, split_orbs=True)],
                       log, "ab-capacity, ab-ratio, ab-latency")
    if not sides:
        return []
    ga, gb = sides
    foot = (f"A = {labels[0]}: {orbresults.footer(res_a)}\n"
            f"B = {labels[1]}: {orbresults.footer(res_b)}")
    tail = f" — {run}" if run else ""
    vs = f"{labels[1]} against {labels[0]}"
    cap = capacity_data(ga, gb)
    for name, why in ratio_data(ga, gb)["left_out"]:
        log(f"B/A round time: {name} left out ({why})")
    unit = unit_of(ga, gb)
    jobs = [("ab-capacity", f"{unit.capitalize()} held per scenario, "
                            f"{vs}{tail}",
             lambda t: capacity_figure(ga, gb, labels, colors, verdicts,
                                       foot, t),
             lambda: capacity_caption(cap, labels, verdicts)),
            ("ab-ratio", f"Round time {labels[1]}/{labels[0]} against "
                         f"{unit}{tail}",
             lambda t: ratio_figure(ga, gb, labels, colors, foot, t),
             lambda: ratio_caption(ratio_data(ga, gb), labels)),
            ("ab-latency", f"Round time against {unit}, {vs}{tail}",
             lambda t: latency_panels_figure(ga, gb, labels, colors, foot,
                                             t),
             lambda: latency_caption(latency_data(ga, gb), labels, True))]
    return write_figures(jobs, outdir, log)


def single_figures(results, outdir, label=None, colors=None, log=None,
                   run=None):
    """Write the figures of one set of results (capacity, round-time
    panels) into outdir as capacity and latency-panels (PNG and SVG);
    return [orbbench.plot.Figure] with captions."""
    log = log or (lambda m: None)
    label = label or (orbresults.orb_label(results[0].doc) if results else "A")
    labels = (label, "B")
    sides = swept_only([orbresults.group_by_scenario(results, split_orbs=True,
                                            split_settings=True)],
                       log, "capacity, latency-panels")
    if not sides:
        return []
    g = sides[0]
    foot = orbresults.footer(results) if results else ""
    tail = f" — {run}" if run else ""
    cap = capacity_data(g)
    unit = unit_of(g)
    jobs = [("capacity", f"{unit.capitalize()} held per scenario{tail}",
             lambda t: capacity_figure(g, None, labels, colors, None, foot,
                                       t),
             lambda: capacity_caption(cap, labels)),
            ("latency-panels", f"Round time against {unit}{tail}",
             lambda t: latency_panels_figure(g, None, labels, colors, foot,
                                             t),
             lambda: latency_caption(latency_data(g), labels, False))]
    return write_figures(jobs, outdir, log)
