"""The latency histograms kind load stores in its results
(client/core/hist.h), read back: their percentiles, merged, and written
out in HdrHistogram's percentile-distribution format (.hgrm), which
HdrHistogram's own plotter and other tools read. Standard library only.

The stored form, result.load.steps[].histogram (docs/kinds/load.md):
  {"count": N, "min": ns, "max": ns, "clamped": n,
   "buckets": [[lowest value in ns, count], ...]}
every non-empty bucket in increasing order. A value below 256 ns has a
bucket of its own; above, each power of two [2^e, 2^(e+1)) is cut into
128 buckets of width 2^(e-7), so a bucket's width follows from its
lowest value (`width`). A percentile read as its bucket's highest value
(clamped to min and max) is never below the exact sample at that rank
and less than RELATIVE_ERROR above it. To load one into HdrHistogram:
recordValueWithCount(lowest, count) for each bucket, into a histogram of
2 significant digits or more."""

import math

LINEAR = 256
SUB = 128
RELATIVE_ERROR = 1 / SUB

# The percentiles a figure's x axis marks, as HdrHistogram's plots do.
TICKS = (0, 90, 99, 99.9, 99.99, 99.999)


def width(low):
    """The width (ns) of the bucket whose lowest value is `low`."""
    return 1 if low < LINEAR else 1 << (low.bit_length() - 8)


def valid(h):
    """True for a stored histogram of the form above."""
    if not isinstance(h, dict):
        return False
    b = h.get("buckets")
    return (isinstance(h.get("count"), int) and isinstance(b, list) and
            all(isinstance(x, list) and len(x) == 2 and
                all(isinstance(v, int) and v >= 0 for v in x) for x in b) and
            sum(c for _, c in b) == h["count"])


def merge(hists):
    """One histogram of every count of `hists` (stored form)."""
    counts = {}
    for h in hists:
        for low, c in h["buckets"]:
            counts[low] = counts.get(low, 0) + c
    full = [h for h in hists if h["count"]]
    return {"count": sum(h["count"] for h in hists),
            "min": min((h["min"] for h in full), default=0),
            "max": max((h["max"] for h in full), default=0),
            "clamped": sum(h.get("clamped", 0) for h in hists),
            "buckets": [[low, counts[low]] for low in sorted(counts)]}


def percentile(h, q):
    """The value (ns) at percentile q (0..100) by nearest rank, as the C
    side reads it (core/hist.c); None when empty."""
    n = h["count"]
    if not n:
        return None
    if q <= 0:
        return h["min"]
    if q >= 100:
        return h["max"]
    rank = max(1, math.ceil(q / 100 * n - 1e-9))
    seen = 0
    for low, c in h["buckets"]:
        seen += c
        if seen >= rank:
            return min(max(low + width(low) - 1, h["min"]), h["max"])
    return h["max"]


def curve(h):
    """[(percentile, value ns)] at every bucket's end: the latency-by-
    percentile line of an HdrHistogram plot (the last point at 100)."""
    n, seen, out = h["count"], 0, []
    for low, c in h["buckets"]:
        seen += c
        out.append((100 * seen / n,
                    min(max(low + width(low) - 1, h["min"]), h["max"])))
    return out


def mean(h):
    """The mean from the buckets' midpoints (within the buckets' error)."""
    n = h["count"]
    return sum((low + (width(low) - 1) / 2) * c
               for low, c in h["buckets"]) / n if n else None


def hgrm(h, scale=1e6):
    """HdrHistogram's percentile-distribution text of a stored histogram,
    values divided by `scale` (1e6: ms, the HdrHistogram plotter's
    default unit): a line per bucket (value, percentile as a fraction,
    count so far, 1/(1-percentile)), then the summary lines."""
    lines = [f"{'Value':>12} {'Percentile':>14} {'TotalCount':>10} "
             f"{'1/(1-Percentile)':>14}", ""]
    n, seen = h["count"], 0
    for low, c in h["buckets"]:
        seen += c
        v = min(max(low + width(low) - 1, h["min"]), h["max"]) / scale
        p = seen / n
        if seen < n:
            lines.append(f"{v:12.3f} {p:14.12f} {seen:10d} "
                         f"{1 / (1 - p):14.2f}")
        else:
            lines.append(f"{v:12.3f} {p:14.12f} {seen:10d}")
    m = mean(h) or 0
    sd = (sum(((low + (width(low) - 1) / 2) - m) ** 2 * c
              for low, c in h["buckets"]) / n) ** 0.5 if n else 0
    lines += [f"#[Mean    = {m / scale:12.3f}, StdDeviation   = "
              f"{sd / scale:12.3f}]",
              f"#[Max     = {h['max'] / scale:12.3f}, Total count    = "
              f"{n:12d}]",
              f"#[Buckets = {len(h['buckets']):12d}, SubBuckets     = "
              f"{SUB:12d}]"]
    return "\n".join(lines) + "\n"
