"""Layout helpers every figure of the kinds with steps shares: a figure
with its footer, margins in inches, a CPU panel beside the main one, label
widths, plain log axes and ticks, a legend above the panels, a grid of
small multiples; and the small formatting of their numbers."""
import math

from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator,
                               NullFormatter, NullLocator)

import orbbench.plot as orbplot
import orbbench.results as orbresults
from orbbench.results import is_num

plt = orbplot.plt


# ---- helpers --------------------------------------------------------------

def med(values):
    return orbresults.median([v for v in values if is_num(v)])


def fmt(x):
    return orbresults.fmt_num(None if x is None else round(x))


def spread(values):
    """'602' or '602–639' of the numbers (rounded)."""
    v = [round(x) for x in values if is_num(x)]
    if not v:
        return "—"
    lo, hi = min(v), max(v)
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def figure(width, height, footer):
    fig = plt.figure(figsize=(width, height), dpi=orbplot.DPI)
    orbplot.put_footer(fig, footer)
    return fig


def margins(fig, left, right, top, bottom, **kw):
    """subplots_adjust with margins in inches (rows keep their height
    whatever the figure's)."""
    w, h = fig.get_size_inches()
    fig.subplots_adjust(left=left / w, right=1 - right / w, top=1 - top / h,
                        bottom=bottom / h, **kw)


def with_cpu_panel(fig, cpu, main_ratio):
    """(main axes, CPU axes sharing its rows, main_ratio : 1 wide) when
    cpu, else (one axes, None)."""
    if not cpu:
        return fig.add_subplot(1, 1, 1), None
    gs = fig.add_gridspec(1, 2, width_ratios=[main_ratio, 1])
    ax = fig.add_subplot(gs[0, 0])
    return ax, fig.add_subplot(gs[0, 1], sharey=ax)


def label_width_in(labels, fontsize=9):
    """A rough width in inches of the longest line of the tick labels."""
    longest = max((len(line) for lb in labels for line in lb.split("\n")),
                  default=8)
    return 0.2 + longest * fontsize * 0.0078


def plain_log(axis):
    """A log axis with plain numbers at 1, 2, 5 × 10^k (not 10^k
    exponents: a reader compares 30 µs with 1500 µs, not exponents)."""
    axis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: orbresults.fmt_num(v)))
    axis.set_minor_formatter(NullFormatter())


def new_figure(width, height, footer, nrows=1, ncols=1, **kw):
    """A figure of width × height inches with the footer line(s) at the
    bottom left."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height),
                             dpi=orbplot.DPI, squeeze=False, **kw)
    orbplot.put_footer(fig, footer)
    return fig, axes


def footer_lines(footer):
    return footer.count("\n") + 1 if footer else 0


def widest_px(texts, renderer):
    """The widest of texts (matplotlib Text) in pixels, 0 for none."""
    return max((t.get_window_extent(renderer).width for t in texts
                if t.get_text()), default=0.0)


def top_legend(fig, handles, x0, x1, gap_px, loc="upper left"):
    """A frameless legend just under the title, between x0 and x1
    (figure pixels), in as few rows as fit; then the top of the subplots
    moves to gap_px below it. Returns the legend."""
    r = fig.canvas.get_renderer()
    height = fig.bbox.height
    title = fig._suptitle.get_window_extent(r).y0 if fig._suptitle \
        else height
    y = (title - 10) / height
    anchor = (x0 / fig.bbox.width if loc == "upper left" else
              (x0 + x1) / 2 / fig.bbox.width, y)
    for ncol in range(len(handles), 0, -1):
        leg = fig.legend(handles=handles, loc=loc, bbox_to_anchor=anchor,
                         ncol=ncol, fontsize=9, frameon=False,
                         borderaxespad=0, borderpad=0.2, handletextpad=0.4,
                         columnspacing=1.4)
        box = leg.get_window_extent(r)
        if box.width <= x1 - x0 or ncol == 1:
            break
        leg.remove()
    fig.subplots_adjust(top=(box.y0 - gap_px) / height)
    return leg


def plain_log_ticks(axis, lo, hi):
    """Ticks at 1, 2, 5 × 10^k (more when few fall in range) in plain
    numbers on a log axis. Floats: an int of 10^19 or more beside small
    ones makes numpy an array of objects, whose log it cannot take (an
    extrapolated crossing interval can reach that far)."""
    for mults in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), tuple(range(1, 10))):
        ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)),
                                              math.ceil(math.log10(hi)) + 1)
                 for m in mults if lo <= m * 10.0 ** e <= hi]
        if len(ticks) >= 3:
            break
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: orbresults.fmt_num(v)))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def grid_shape(n):
    """(rows, columns) of n small panels: 1, 2 or 4 columns."""
    cols = 1 if n == 1 else 2 if n <= 4 else 4
    return math.ceil(n / cols), cols


def small_multiples(n, footer, panel_in=(3.6, 2.7), legend_rows=1,
                    **kw):
    """A figure of n panels on a grid sharing both axes; returns (fig,
    axes in order, sizes in inches (width, height, left, top, bottom))."""
    rows, cols = grid_shape(n)
    nfoot = footer_lines(footer)
    pw, ph = panel_in
    left, right = 0.85, 0.2
    top = 0.75 + 0.3 * legend_rows
    bottom = 0.7 + 0.16 * nfoot
    width = left + right + pw * cols + 0.25 * (cols - 1)
    height = top + bottom + ph * rows + 0.45 * (rows - 1)
    fig, axes = new_figure(width, height, footer, rows, cols, sharex=True,
                           sharey=True, **kw)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    # A bottom-row panel may be missing: label the x axis of the panel
    # above it instead.
    for i, ax in enumerate(flat[:n]):
        if i + cols >= n:
            ax.xaxis.set_tick_params(labelbottom=True)
    return fig, flat[:n], (width, height, left, right, top, bottom)


def finish_grid(fig, title, sizes, nrows, panel_w=3.6, gap_w=0.25,
                gap_h=0.45):
    """Title and margins of a small-multiples figure (sizes from
    small_multiples): gaps in inches as fractions of a panel."""
    width, height, left, right, top, bottom = sizes
    ph = (height - top - bottom - gap_h * (nrows - 1)) / nrows
    orbplot.finish(fig, title, left=left / width, right=1 - right / width,
             top=1 - top / height, bottom=bottom / height,
             hspace=gap_h / ph, wspace=gap_w / panel_w)
