"""The suite's summary: the table of its rows (orbbench.suite.rows) and its
formats, summary.md and the closing table on stdout (text, md, csv,
json). The text and Markdown tables are orbbench.cli's; this module only
says what goes in them."""
import csv
import io
import json
import textwrap

import orbbench.cli as orbcli
import orbbench.escape as orbesc
import orbbench.results as orbresults
from orbbench.suite.rows import headline, num

FORMATS = ("text", "md", "csv", "json")
COST_HEAD = ("PSS kB", "USS kB", "threads", "fds", "at N", "CPU us/call",
             "call us")
# The client's own row, beside the servers', when a caller made the calls
# (result.costs.caller, docs/callers.md).
CALLER_HEAD = ("caller", "client CPU us/call", "client threads",
               "client USS kB/server")
CALLER_NOTE = ("caller: the ORB client that made the calls (caller.kind, "
               "mode); client CPU us/call: its CPU per call at the "
               "measurement nearest sweep.cost_n (@N); client threads: at "
               "the largest step; client USS kB/server: the slope of its "
               "USS over N (its PSS falls as servers of the same ORB share "
               "its library's pages).")
COST_NOTE = ("PSS, USS, threads, descriptors: per server at the largest "
             "step measured (at N). CPU us/call: the servers' CPU per call "
             "at the measurement nearest sweep.cost_n (@N, where compare "
             "reads it). call us: the first step's median call (@N).")
# The row fields of --format json's rows, in this order.
JSON_FIELDS = ("scenario", "variant", "repeat", "orb", "caller", "held",
               "held_unit", "headline", "crossing_n", "crossing_interval",
               "costs", "stop_reason", "failed", "file")
# summary.md's heading lines, in this order, each when the meta has it.
META_LINES = ("host", "orb", "variants", "paired", "sequential", "started",
              "command")


def crossing_text(r):
    """'1012 (1003–1021)': crossing_n and its 95% interval, or '—' when
    the run found none (it stopped for another reason first, or ran
    without the search)."""
    c, iv = r.get("crossing_n"), r.get("crossing_interval")
    if c is not None and iv:
        return f"{c:.0f} ({iv[0]:.0f}–{iv[1]:.0f})"
    return "—"


def kb(x):
    """kB with three figures below 100 (a connection's 2.12), whole above
    (a server's 466)."""
    return num(x, "{:.3g}" if orbresults.is_num(x) and abs(x) < 100
               else "{:.0f}")


def at(value, n):
    """'58.1 @508': a cost and the N it was measured at."""
    return f"{value} @{n}" if value != "—" and n is not None else value


def cost_cells(r):
    """The closing table's cost columns of a row (result.costs): per
    server PSS, USS, threads, descriptors and the N they are at; server
    CPU per call @N; the first step's median call @N."""
    c = r.get("costs") or {}
    mem, cpu, call = c.get("memory") or {}, c.get("server_cpu") or {}, \
        c.get("call") or {}
    return (kb(mem.get("pss_kb")), kb(mem.get("uss_kb")),
            num(mem.get("threads"), "{:.4g}"), num(mem.get("fds"), "{:.4g}"),
            num(mem.get("n")),
            at(num(cpu.get("us_per_call"), "{:.1f}"), cpu.get("n")),
            at(num(call.get("median_us"), "{:.1f}"), call.get("n")))


def caller_cells(r):
    """The closing table's caller columns of a row (result.costs.caller),
    dashes for a row whose calls orbbench made itself."""
    c = (r.get("costs") or {}).get("caller") or {}
    cpu = (c.get("cpu_per_call_us") or {}).get("total")
    per = (c.get("memory_per_server_kb") or {}).get("uss_kb")
    return (r.get("caller", "—"), at(num(cpu, "{:.1f}"), c.get("n")),
            num((c.get("footprint") or {}).get("threads")),
            num(per, "{:.1f}"))


def row_name(r, repeated):
    """'sync-unix [b] #2': a row's scenario, variant and (when some row
    is a repeat) repeat."""
    name = r["scenario"]
    if r.get("variant"):
        name += f" [{r['variant']}]"
    if repeated:
        name += f" #{r['repeat']}"
    return name


def table(rows):
    """(head, body): the seed's layout, scenario and max servers; plus the
    crossing and what each server cost (result.costs) where some row has
    them, the caller's columns where a caller made calls, and the stop."""
    kinds = {r.get("kind", "sweep") for r in rows if "failed" not in r}
    # The crossing and cost columns only where some row has them (a
    # suite of rate or connect rows has neither: a row of dashes).
    swept = any(r.get("costs") or r.get("crossing_n") is not None
                for r in rows)
    called = any((r.get("costs") or {}).get("caller") for r in rows)
    head = ("scenario", " / ".join(
        headline(k) for k in orbresults.KINDS
        if k in kinds and orbresults.KINDS[k].headline) or "max servers") + \
        (("crossing N (95%)",) + COST_HEAD if swept else ()) + \
        (CALLER_HEAD if called else ()) + ("stop",)
    repeated = any(r.get("repeat", 1) > 1 for r in rows)
    body = []
    for r in rows:
        name = row_name(r, repeated)
        if "failed" in r:
            body.append((name, "failed") + ("",) * (len(head) - 3) +
                        (r["failed"],))
        else:
            body.append((name, str(r.get("headline", "?"))) +
                        ((crossing_text(r),) + cost_cells(r) if swept
                         else ()) + (caller_cells(r) if called else ()) +
                        (r.get("stop_reason", "?"),))
    return head, body


def align(head):
    """The first and the last column left, the numbers between right."""
    return "l" + "r" * (len(head) - 2) + "l"


def unit_note(rows):
    """The memory columns' unit in rows whose N counts something else
    than servers (result.costs.memory.per, e.g. a fanin's connection)."""
    units = sorted({((r.get("costs") or {}).get("memory") or {}).get("per")
                    for r in rows} - {None, "server"})
    return " ".join(f"Where N counts each {u}: PSS, USS, threads and "
                    f"descriptors are what one {u} added to the servers at "
                    "N." for u in units)


def legend(rows):
    """What max servers and crossing N are, and why they differ; and a
    fast gate's rows."""
    held = [r for r in rows if "failed" not in r and
            headline(r.get("kind", "sweep")) == "max servers"]
    if not held:
        return ""
    text = ("Max servers: the largest N measured within the scenario's "
            "max_ms (the crossing search's bracket low end). Crossing N: "
            "where the median round time crosses max_ms, estimated from "
            "the measurements near it, with its 95% interval; it is read "
            "from those around the last N under and the first over, so it "
            "usually lies a little above max servers; — when the run found "
            "none.")
    if any(r.get("blocks") for r in rows):
        text += (" Rows measured at one N in blocks (--at-n): max servers "
                 "is that N, and there is no crossing.")
    return text


def notes(rows, head):
    """The closing table's notes: what max servers and crossing N are,
    where each cost was read (when the table has the cost columns), and
    the memory columns' unit."""
    return " ".join(x for x in (
        legend(rows), COST_NOTE if COST_HEAD[0] in head else "",
        CALLER_NOTE if CALLER_HEAD[0] in head else "",
        unit_note(rows)) if x)


def csv_table(head, body):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    w.writerows(body)
    return buf.getvalue().rstrip("\n")


def json_table(head, rows):
    """--format json: the columns, and each row's fields (JSON_FIELDS)."""
    return json.dumps({"columns": list(head), "rows": [
        {k: r.get(k) for k in JSON_FIELDS if k in r} for r in rows]},
        indent=1)


def markdown(rows, head, body, meta):
    """summary.md: every text escaped for Markdown (orbbench.escape): a
    result's ORB, detail or file name cannot forge a line or hold HTML."""
    md = orbesc.md_line
    out = [f"# {md(meta['suite'] + ': summary')}", ""]
    out += [f"- {k}: {orbesc.md_text(meta[k])}" for k in META_LINES
            if meta.get(k)]
    out += ["", orbcli.md_table(head, body, align(head)), "",
            md(notes(rows, head)), ""]
    for r in rows:
        out.append(f"- {md(r['file'])}: "
                   f"{orbesc.md_text(r.get('detail') or r.get('failed', ''))}")
    return "\n".join(out) + "\n"


def closing_table(fmt, rows, meta):
    """The suite's closing table of rows in --format fmt (FORMATS)."""
    head, body = table(rows)
    if fmt == "md":
        return markdown(rows, head, body, meta).rstrip("\n")
    if fmt == "csv":
        return csv_table(head, body)
    if fmt == "json":
        return json_table(head, rows)
    text = notes(rows, head)
    return orbcli.text_table(head, body, align(head)) + (
        "\n" + textwrap.fill(text, 78) if text else "")


def paired_text(paired):
    """summary.md's paired line: which scenarios ran as paired runs, of
    {scenario file: paired}."""
    yes = [sc.stem for sc, p in paired.items() if p]
    if not yes:
        return ""
    if len(yes) == len(paired):
        return "yes: each repeat one paired run (orbbench --paired)"
    return (f"{', '.join(yes)}: each repeat one paired run; the others "
            "solo (their kind does not pair)")


def variants_text(variants):
    """'base, work (server.work_us=8)' for summary.md."""
    return ", ".join(v.name + (f" ({', '.join(v.sets)})" if v.sets else "")
                     for v in variants)
