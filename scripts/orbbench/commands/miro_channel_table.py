"""The seed's Table 8.3 for our ORB: what an event channel in the path
costs, per payload, from the results of scenarios/miro-channel (kind
channel), beside Miro's TAO 1.4 figures; and its figure.

usage: orbbench miro-channel-table RESULTS_DIR [--out DIR]

Prints the table (Markdown): per payload and transport, through the
channel min, mean, max, std dev, median and p99 of the time from push to
logged (µs), the direct push's median, the delta channel minus direct
(of the medians, and of the means as the seed's), and the seed's own
min, mean, max, std dev, median, delta. Writes it with its notes to
DIR/miro-channel.md and the figure (per payload, direct against through
the channel: median with p99 whiskers) to DIR/channel.png and .svg; DIR
is RESULTS_DIR unless --out says otherwise. Runs of one payload,
transport and via (orbbench suite --repeat) combine by the median over the
runs. Results of other kinds in the folder are skipped.
Exit: 0 written, 2 bad input or usage (one line naming the folder)."""
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.kinds  # noqa: F401  (the kinds of results)
import orbbench.results as orbresults

ROOT = Path(__file__).resolve().parents[3]

PROG = orbcli.prog("miro-channel-table")
EXAMPLES = [
    "orbbench suite scenarios/miro-channel --out results/channel",
    "orbbench miro-channel-table results/channel --out /tmp/table"]

NOTES = """\
µs, time from push to logged: the client stamps CLOCK_MONOTONIC into the
event just before its push; the consumer stamps it again once the event
is in its memory-mapped log (same machine, same clock). One event in
flight at a time. Δ: through the channel minus pushed straight to the
consumer over the same transport (the consumer logs alike in both). The
seed's Δ is its Table 8.3's mean minus its Table 8.2's, the logging
client alone with no network hop: ours includes no logging-only base,
theirs includes the hop to the channel. The seed's std. dev. is shown
as printed; it exceeds its max in places. omniEvents moves events from
suppliers to consumers once per CyclePeriod_ns (its channel thread then
sleeps): the channel's share of the time depends on it (the result
records it under channel.omnievents.cycle_period_ns)."""


def parse_args(argv):
    p = orbcli.parser("miro-channel-table", __doc__, EXAMPLES)
    p.add_argument("results", metavar="RESULTS_DIR",
                   help="a folder of channel results")
    p.add_argument("--out", metavar="DIR", help="default RESULTS_DIR")
    return p.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    folder = Path(a.results)
    if not folder.is_dir():
        orbcli.fail(PROG, f"{folder}: not a folder")
    try:
        docs = []
        for f in orbresults.result_files([folder]):
            doc = orbresults.load_result(f) if _is_channel_file(f) else None
            if doc is not None:
                orbresults.check_shape(doc, f)
                docs.append(doc)
        if not docs:
            raise ValueError(f"{folder}: no channel results (kind channel)")
        import orbbench.figures.channel as figs_channel  # matplotlib: once the input is good
        data = figs_channel.channel_data(docs)
        if not data["rows"]:
            raise ValueError(f"{folder}: no channel result measured an "
                             "event")
        table = figs_channel.markdown_table(*figs_channel.channel_table(data))
        out = Path(a.out) if a.out else folder
        figures = figs_channel.channel_figures(docs, out,
                                    log=lambda m: orbcli.note(PROG, m))
        out.mkdir(parents=True, exist_ok=True)
        left = "".join(f"\nLeft out: {label} ({why})."
                       for label, why in data["left_out"])
        (out / "miro-channel.md").write_text(
            "# An event channel in the path (the seed's Table 8.3)\n\n"
            f"{table}\n\n{NOTES}{left}\n\n{figs_channel.channel_caption(data)}\n")
    except (ValueError, OSError) as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error([folder], e))
    print(table)
    for f in figures:
        orbcli.note(PROG, f"figure {f.png}")
    orbcli.note(PROG, f"table and notes in {out / 'miro-channel.md'}")
    return 0


def _is_channel_file(path):
    """True when the file is a channel result (others are skipped)."""
    import orbbench.safeload as orbsafe
    try:
        return orbresults.kind_of(orbsafe.load_json(path)) == "channel"
    except (OSError, ValueError):
        return True  # load_result names what is wrong with it

