"""The figures of orbbench results (matplotlib, Agg backend): the shared
drawing pieces, and which figures a set of results (plot_all) or a
comparison of two (compare_all) gets. The figures themselves live in
orbfigs_ab (capacity, B/A against N, round-time panels) and orbfigs_run
(what a server costs, fixed-N dots, every round) and orbfigs_rate (the
upcall rate); each is written as PNG and SVG."""
from collections import namedtuple
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
# Text stays text in the SVGs: searchable, editable, smaller.
matplotlib.rcParams["svg.fonttype"] = "none"
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

import orbresults as R  # noqa: E402

DPI = 100

# One line (or one set of repeats) on a figure: label, colour, line style,
# and the result documents it draws.
Series = namedtuple("Series", "label color style docs")

# A written figure: file stem, title, one-sentence caption, PNG and SVG.
Figure = namedtuple("Figure", "stem title caption png svg")


class Skip(Exception):
    """A figure whose data the results lack; the message says which."""


def palette(names):
    """{name: colour}, stable for a given list of names, all different:
    tab10, tab20 past 10 names, evenly spaced hues past 20."""
    n = len(names)
    if n <= 10:
        cmap, k = plt.get_cmap("tab10"), 10
    elif n <= 20:
        cmap, k = plt.get_cmap("tab20"), 20
    else:
        cmap, k = plt.get_cmap("hsv"), n + 1
    return {name: cmap(i % k if k <= 20 else i / k)
            for i, name in enumerate(names)}


def finish(fig, title, **margins):
    """Title and fixed margins (tight_layout took a third of the time);
    the bottom leaves room for the footer line."""
    fig.suptitle(title, fontsize=13)
    m = dict(left=0.08, right=0.98, top=0.92, bottom=0.11, hspace=0.08,
             wspace=0.2)
    m.update(margins)
    fig.subplots_adjust(**m)


def save(fig, outdir, stem, title, caption):
    """Write stem.png and stem.svg into outdir; return a Figure."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    png, svg = outdir / f"{stem}.png", outdir / f"{stem}.svg"
    fig.savefig(png, dpi=DPI)
    fig.savefig(svg)
    plt.close(fig)
    return Figure(stem, title, caption, png, svg)


def pairs(series):
    """[(label, [docs])] from (label, docs) pairs or objects with .label
    and .docs: what every figure module's functions take."""
    return [(se.label, list(se.docs)) if hasattr(se, "docs")
            else (se[0], list(se[1])) for se in series]


def one_figure(series, outdir, log, name, stem, title, data_of, draw,
               caption_of):
    """The usual shape of a figure of a kind: its data from the series
    (series left out logged as "name: left out LABEL (why)"), drawn with
    draw(series, footer, title, data=data) unless it raises Skip (logged),
    saved as stem; [Figure] or []."""
    log = log or (lambda m: None)
    series = pairs(series)
    data = data_of(series)
    for label, why in data["left_out"]:
        log(f"{name}: left out {label} ({why})")
    footer = R.footer([R.Result(None, d) for _, docs in series
                       for d in docs])
    try:
        fig = draw(series, footer, title, data=data)
    except Skip as e:
        log(str(e))
        return []
    return [save(fig, outdir, stem, title, caption_of(data))]


def spans_decades(values, factor=30):
    """True when the positive values span more than factor (log helps)."""
    v = [x for x in values if x and x > 0]
    return bool(v) and max(v) / min(v) > factor


def use_log_x(ax, docs):
    """Log N axis for geometric sweeps over a wide range; else whole N."""
    ns = [s["n"] for d in docs for s in d["steps"]]
    if any(R.get(d, "scenario.sweep.growth", 1) > 1 for d in docs) and \
            spans_decades(ns, 10):
        ax.set_xscale("log")
        return True
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return False


# ---- which figures ----------------------------------------------------------

def series_of(results):
    """[(label, [docs])]: one series per scenario, split by ORB and by the
    settings that differ (orbresults.group_by_scenario), seed order."""
    groups = R.group_by_scenario(results, split_orbs=True,
                                 split_settings=True)
    return [(name, [r.doc for r in rs]) for name, rs in groups.items()]


def rounds_choice(series, names):
    """The series to draw every round of: all, or those whose label or
    scenario name is in names; ValueError for a name that matches none."""
    if not names:
        return series
    chosen = [s for s in series
              if s[0] in names or s[0].split(" [")[0] in names]
    known = {s[0] for s in series} | {s[0].split(" [")[0] for s in series}
    for n in names:
        if n not in known:
            raise ValueError(f"--rounds {n}: no such scenario in the "
                             f"results (have: {', '.join(sorted(known))})")
    return chosen


def plot_all(results, outdir, run, rounds=None, log=None):
    """Every figure of one set of results into outdir; return [Figure]:
    capacity and round-time panels (orbfigs_ab), what a server costs, the
    fixed-N dots and every round per scenario (orbfigs_run; rounds names
    the scenarios to draw every round of, default all). Colours are fixed
    per series across the figures. Figures the results cannot make are
    skipped and log(message) says why."""
    import orbfigs_ab
    import orbfigs_channel
    import orbfigs_clock
    import orbfigs_rate
    import orbfigs_run
    import orbfigs_scaling
    log = log or (lambda m: None)
    results, scalings = R.split_scaling(results)
    channels = [r for r in results if R.is_channel(r.doc)]
    clocks = orbfigs_clock.clock_results(results)
    results, rates = R.split_kinds(results)
    figures = []
    if results:
        series = series_of(results)
        colors = palette([lb for lb, _ in series])
        figures = orbfigs_ab.single_figures(results, outdir, colors=colors,
                                            log=log, run=run)
        figures += orbfigs_run.run_figures(
            series, outdir, colors=colors, log=log,
            strip_series=rounds_choice(series, rounds))
    if rates:
        # Upcall-rate runs (kind rate): their own figure.
        figures += orbfigs_rate.rate_figures(series_of(rates), outdir,
                                             log=log)
    if scalings:
        # Runs across cores (kind scaling): their own figure.
        figures += orbfigs_scaling.scaling_figures(series_of(scalings),
                                                   outdir, log=log)
    if clocks:
        # Clock runs (kind clock): per source, calls/s against k.
        figures += orbfigs_clock.clock_figures(series_of(clocks), outdir,
                                               log=log)
    if channels:
        # Event channel runs (kind channel): direct against channel.
        figures += orbfigs_channel.channel_figures(
            [r.doc for r in channels], outdir, log=log)
    return figures


def side_copy(doc, side):
    """doc marked as side 'a' or 'b' of a comparison (for the every-round
    figure, which colours paired runs' sides), when it is not already."""
    if R.get(doc, "paired.side") in ("a", "b"):
        return doc
    return dict(doc, paired={"side": side, "id": None, "versus": []})


SIDE_COLORS = ("tab:blue", "tab:orange")


def compare_all(res_a, res_b, outdir, labels, verdicts=None, log=None):
    """The figures of a comparison (A the baseline) into outdir; return
    [Figure]: capacity A against B with the verdicts, B/A against N, the
    round-time panels (orbfigs_ab); what a server costs on each side, the
    fixed-N dots, and every round of both sides per scenario
    (orbfigs_run). Side A is blue and B orange in every figure."""
    import orbfigs_ab
    import orbfigs_run
    log = log or (lambda m: None)
    R.refuse_rate(list(res_a) + list(res_b), "a comparison")
    labels = tuple(labels)
    # Their titles name both sides already ("B against A").
    figures = orbfigs_ab.ab_figures(
        res_a, res_b, outdir, labels, verdicts=verdicts,
        colors=dict(zip(labels, SIDE_COLORS)), log=log)
    sa, sb = dict(series_of(res_a)), dict(series_of(res_b))
    names = R.seed_order(list(sa) + list(sb))
    series, colors, strips, cost_at = [], {}, [], {}
    for name in names:
        both = []
        # Both sides' cost at one N: the largest every run of both has.
        at = orbfigs_run.cost_n(sa.get(name, []) + sb.get(name, []))
        for side, (label, got) in enumerate(((labels[0], sa),
                                             (labels[1], sb))):
            if name in got:
                key = f"{name} [{label}]"
                series.append((key, got[name]))
                colors[key] = SIDE_COLORS[side]
                if at is not None:
                    cost_at[key] = at
                both += [side_copy(d, "ab"[side]) for d in got[name]]
        strips.append((name, both))
    return figures + orbfigs_run.run_figures(
        series, outdir, colors=colors, log=log, strip_series=strips,
        cost_at=cost_at or None)
