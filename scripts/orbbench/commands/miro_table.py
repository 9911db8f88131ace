"""The Miro tables from a folder of latency and marshal results.

usage: orbbench miro-table RESULTS_DIR [--json]

Reads every result in RESULTS_DIR (orbbench suite scenarios/miro, say) and
prints, in markdown: per ORB and transport the seed's Table 8.2 layout
(payload, min, mean, max, std dev, median, and p99, in µs) beside the
seed's own TAO 1.4 figures, with omniORB's marshaling time per payload
when marshal results are in the folder; the sizes per payload (value,
request, reply, and the event any: Table 8.4 asks what storing an event
costs); and marshaling alone (our C codec and omniORB's C++). Results of
other kinds are passed over. --json prints the same figures as JSON.
Exit: 0 printed, 2 bad input (no such folder, no latency or marshal
result, a file that is not a result), one line naming it."""
import json
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.kinds  # noqa: F401  (the kinds of results)
import orbbench.miro as orbmiro
import orbbench.results as orbresults

ROOT = Path(__file__).resolve().parents[3]

PROG = orbcli.prog("miro-table")
EXAMPLES = [
    "orbbench suite scenarios/miro --out results/miro",
    "orbbench miro-table results/miro",
    "orbbench miro-table results/miro --json"]


def parse_args(argv):
    p = orbcli.parser("miro-table", __doc__, EXAMPLES)
    p.add_argument("results", help="a folder of result files")
    p.add_argument("--json", action="store_true",
                   help="the figures as JSON instead of markdown")
    return p.parse_args(argv)


def to_markdown(blocks):
    out = []
    for b in blocks:
        if b[0] in ("h2", "h3"):
            out += ["#" * int(b[0][1]) + " " + b[1], ""]
        elif b[0] == "p":
            out += [b[1], ""]
        elif b[0] == "table":
            out += [orbcli.md_table(b[1], b[2], b[3]), ""]
    return "\n".join(out)


def main(argv):
    a = parse_args(argv)
    folder = Path(a.results)
    try:
        if not folder.is_dir():
            raise ValueError(f"{folder}: not a result folder")
        results = [r for r in orbresults.load_results([folder])
                   if orbresults.kind_of(r.doc) in ("latency", "marshal")]
        if not results:
            raise ValueError(f"{folder}: no latency or marshal results "
                             "(run-suite scenarios/miro makes them)")
        data = orbmiro.table_data(results)
    except ValueError as e:
        orbcli.fail(PROG, e)
    except orbcli.SHAPE_ERRORS as e:
        orbcli.fail(PROG, orbcli.shape_error([folder], e))
    if a.json:
        print(json.dumps(data, indent=2))
    else:
        print(to_markdown(orbmiro.markdown_blocks(data)), end="")
    return 0

