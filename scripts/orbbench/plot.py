"""The plotting core of orbbench results (matplotlib, Agg backend): the
shared drawing pieces (styles, palette, Skip, saving a figure as PNG and
SVG, one_figure), the series of a set of results, and which figures a
set gets (plot_all: each kind's, as orbbench.kinds registers them). The
figures themselves are in orbbench.figures; a comparison's in
orbbench.figures.compare."""
from collections import namedtuple
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
# Text stays text in the SVGs: searchable, editable, smaller.
matplotlib.rcParams["svg.fonttype"] = "none"
# Names on a figure are data: a "$" in one is a dollar, never mathtext
# (which a name could make fail to draw, or draw what it was not).
matplotlib.rcParams["text.parse_math"] = False
# plt, Line2D and Patch are the figure modules' too (orbplot.plt, ...).
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402,F401
from matplotlib.patches import Patch  # noqa: E402,F401
from matplotlib import ticker  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

import orbbench.atomic as orbatomic
import orbbench.escape as orbesc
import orbbench.results as orbresults

DPI = 100

# One line (or one set of repeats) on a figure: label, colour, line style,
# and the result documents it draws.
Series = namedtuple("Series", "label color style docs")

# A written figure: file stem, title, one-sentence caption, PNG and SVG.
Figure = namedtuple("Figure", "stem title caption png svg")


class Skip(Exception):
    """A figure whose data the results lack; the message says which."""


def put_footer(fig, footer):
    """The footer line(s) (host, ORB, date: orbresults.footer) at the
    figure's bottom left; nothing without one."""
    if footer:
        fig.text(0.01, 0.01, orbesc.figure_text(footer, 2 * orbesc.LIMIT),
                 fontsize=8, color="0.35", ha="left", va="bottom")


def slug(text, empty):
    """text as a file name's stem (orbbench.escape.filename): runs of
    other characters than letters, digits, '.', '_' and '-' become '-',
    a long one cut with a digest; `empty` when nothing is left."""
    return orbesc.filename(text, empty)


def attempt(name, make, log):
    """make() -> a figure, or None when it cannot be drawn, logged: its
    Skip (the data are not there), or matplotlib's refusal to lay it out
    (a ValueError: labels from the results too large for the figure),
    named. A figure is not a verdict: the rest of a report goes on."""
    try:
        return make()
    except Skip as e:
        log(str(e))
    except ValueError as e:
        log(f"{name}: not drawn ({orbesc.terminal(e)})")
    return None


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


def suptitle(fig, title):
    """The figure's title, escaped and cut (orbbench.escape.figure_text):
    a title may hold names."""
    fig.suptitle(orbesc.figure_text(title, 2 * orbesc.LIMIT), fontsize=13)


def finish(fig, title, **margins):
    """Title and fixed margins (tight_layout took a third of the time);
    the bottom leaves room for the footer line. The title is escaped and
    cut (orbbench.escape.figure_text): it may hold names."""
    suptitle(fig, title)
    m = dict(left=0.08, right=0.98, top=0.92, bottom=0.11, hspace=0.08,
             wspace=0.2)
    m.update(margins)
    fig.subplots_adjust(**m)


def plain_log_ticks(fig):
    """Give every log axis of fig tick labels without mathtext.
    matplotlib's default log formatter writes $\\mathdefault{10^{k}}$,
    which text.parse_math off (above) would print as it stands; a
    formatter a figure set itself (fixed labels) is kept."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() != "log":
                continue
            if isinstance(axis.get_major_formatter(),
                          ticker.LogFormatterSciNotation):
                axis.set_major_formatter(
                    ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            if isinstance(axis.get_minor_formatter(),
                          ticker.LogFormatterSciNotation):
                axis.set_minor_formatter(
                    ticker.LogFormatter(labelOnlyBase=False))


def save(fig, outdir, stem, title, caption):
    """Write stem.png and stem.svg into outdir, each whole or not at all
    (orbbench.atomic: WriteError naming the file); return a Figure. Log
    axes get plain tick labels first (plain_log_ticks)."""
    plain_log_ticks(fig)
    outdir = Path(outdir)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        plt.close(fig)
        raise orbatomic.WriteError(f"{outdir}: cannot create the folder "
                                   f"({e.strerror})") from None
    png, svg = outdir / f"{stem}.png", outdir / f"{stem}.svg"
    try:
        orbatomic.save_figure(fig, png, dpi=DPI)
        orbatomic.save_figure(fig, svg)
    finally:
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
    footer = orbresults.footer([orbresults.Result(None, d)
                                for _, docs in series for d in docs])
    fig = attempt(stem, lambda: draw(series, footer, title, data=data),
                  log)
    if fig is None:
        return []
    return [save(fig, outdir, stem, title, caption_of(data))]


def spans_decades(values, factor=30):
    """True when the positive values span more than factor (log helps)."""
    v = [x for x in values if x and x > 0]
    return bool(v) and max(v) / min(v) > factor


def use_log_x(ax, docs):
    """Log N axis for geometric sweeps over a wide range; else whole N."""
    ns = [s["n"] for d in docs for s in d["steps"]]
    if any(orbresults.setting(d, "growth", 1) > 1
           for d in docs) and spans_decades(ns, 10):
        ax.set_xscale("log")
        return True
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return False


# ---- which figures ----------------------------------------------------------

def series_of(results):
    """[(label, [docs])]: one series per scenario, split by ORB and by the
    settings that differ (orbbench.results.group_by_scenario), seed order."""
    groups = orbresults.group_by_scenario(results, split_orbs=True,
                                 split_settings=True)
    return [(orbesc.figure_text(name), [r.doc for r in rs])
            for name, rs in groups.items()]


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
    each kind's (orbbench.kinds: a sweep's capacity, round-time panels,
    cost, fixed-N dots and every round, rounds naming the scenarios to
    draw every round of, default all; a rate run's, ...), in the kinds'
    order. Figures the results cannot make are skipped and log(message)
    says why."""
    log = log or (lambda m: None)
    figures = []
    for kind in orbresults.KINDS.values():
        mine = orbresults.of_kind(results, kind.name)
        if mine and kind.figures:
            figures += kind.figures(mine, outdir, run, rounds, log)
    return figures
