"""The Miro tables from latency and marshal results (scenarios/miro):
the seed's Table 8.2 layout (payload, min, mean, max, std dev, median,
and p99) beside the seed's own TAO figures, the sizes (Table 8.4 asks
what storing an event costs), and marshaling alone. Pure functions over
loaded results: table_data gives the figures, markdown_blocks the
tables; scripts/miro-table and scripts/report print them."""
import math

import orbbench.results as orbresults

# The seed's Table 8.2 (Miro, TAO 1.4 on an AMD K7 1 GHz, Linux 2.4, the
# round-robin real-time scheduler): µs for the logging client to write
# one event to a memory-mapped log file, 10,000 events (1,000 for
# Octet100K): min, mean, max, std dev, median.
SEED_TABLE_8_2 = {
    "None": (2, 3, 319, 30, 3),
    "Octet1K": (3, 8, 351, 439, 4),
    "Octet100K": (505, 595, 979, 2621, 580),
    "Odometry": (3, 6, 398, 223, 4),
    "RangeSensor": (4, 12, 357, 646, 6),
    "SharedBelief": (28, 40, 349, 872, 32),
}
SEED_COLUMNS = ("min", "mean", "max", "stddev", "median")
PAYLOADS = list(SEED_TABLE_8_2)
TRANSPORT_NAMES = {"tcp": "TCP", "unix": "Unix sockets", "pipe": "pipes"}

SEED_CAPTION = (
    "Ours: the time of one synchronous call that echoes the payload "
    "(request sent to reply read and checked), µs. The seed's (Miro, TAO "
    "1.4 on a 1 GHz AMD K7, Linux 2.4): the time for its logging client "
    "to write one event to a memory-mapped log file, no round trip. The "
    "layout is the seed's; the quantity is not the same.")


def quantile(sorted_values, q):
    """The q-quantile (0..1) of sorted values, linear interpolation
    between the two nearest ranks (numpy's default, as the client's)."""
    if not sorted_values:
        return None
    at = q * (len(sorted_values) - 1)
    lo = math.floor(at)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (
        at - lo)


def call_stats(samples_ns):
    """min, mean, max, std dev (population), median, p99 in µs."""
    us = sorted(ns / 1e3 for ns in samples_ns)
    if not us:
        return None
    mean = sum(us) / len(us)
    return {"count": len(us), "min": us[0], "mean": mean, "max": us[-1],
            "stddev": math.sqrt(sum((u - mean) ** 2 for u in us) / len(us)),
            "median": quantile(us, 0.5), "p99": quantile(us, 0.99)}


def _payload_rank(name):
    return (PAYLOADS.index(name) if name in PAYLOADS else len(PAYLOADS),
            name)


def latency_rows(results):
    """One row per (ORB, transport, payload): every call of every run of
    it pooled (runs of orbbench suite --repeat are more calls of the same
    row), the sizes of its first run, and the seed's figures."""
    groups = {}
    for r in results:
        if orbresults.kind_of(r.doc) != "latency":
            continue
        lat = r.doc["latency"]
        key = (orbresults.orb_label(r.doc), r.doc["scenario"]["transport"],
               lat["payload"])
        groups.setdefault(key, []).append(r)
    rows = []
    for (orb, transport, payload), runs in groups.items():
        # Thinned example results keep per-run summaries, not every call:
        # their row has no pooled figures ("-").
        samples = [ns for r in runs
                   for ns in r.doc["latency"].get("samples_ns", [])]
        first = runs[0].doc["latency"]
        seed = SEED_TABLE_8_2.get(payload)
        rows.append({
            "orb": orb, "transport": transport, "payload": payload,
            "runs": len(runs), "calls_us": call_stats(samples),
            "stops": sorted({r.doc["result"]["stop_reason"] for r in runs}),
            "value_bytes": first.get("value_bytes"),
            "request_bytes": first.get("request_bytes"),
            "reply_bytes": first.get("reply_bytes"),
            "event_bytes": first.get("event_bytes"),
            "seed_us": dict(zip(SEED_COLUMNS, seed)) if seed else None})
    rows.sort(key=lambda x: (x["orb"], x["transport"],
                             _payload_rank(x["payload"])))
    return rows


def marshal_rows(results):
    """One row per payload of the marshal results: the median over every
    repeat of every run, per codec (ns per encode)."""
    by_name = {}
    for r in results:
        if orbresults.kind_of(r.doc) != "marshal":
            continue
        for p in r.doc["marshal"]["payloads"]:
            row = by_name.setdefault(p["name"], {
                "payload": p["name"], "value_bytes": p["value_bytes"],
                "c": [], "omniorb": [],
                "omniorb_version": orbresults.get(
                    r.doc, "marshal.omniorb.version")})
            for codec in ("c", "omniorb"):
                row[codec] += orbresults.get(p, f"{codec}.repeats_ns", [])
    rows = []
    for name, row in by_name.items():
        rows.append({
            "payload": name, "value_bytes": row["value_bytes"],
            "omniorb_version": row["omniorb_version"],
            "c_ns": quantile(sorted(row["c"]), 0.5),
            "omniorb_ns": quantile(sorted(row["omniorb"]), 0.5),
            "repeats": len(row["c"])})
    rows.sort(key=lambda x: _payload_rank(x["payload"]))
    return rows


def table_data(results):
    """Everything the tables show, as plain data (the --json output)."""
    return {"latency": latency_rows(results),
            "marshal": marshal_rows(results),
            "seed_table_8_2_us": {p: dict(zip(SEED_COLUMNS, v))
                                  for p, v in SEED_TABLE_8_2.items()}}


def latency_table(rows, marshal):
    """(head, body) of one ORB and transport's Table 8.2, with omniORB's
    marshal µs when marshal rows are given."""
    by_name = {m["payload"]: m for m in marshal}
    head = ["payload", "min", "mean", "max", "std dev", "median", "p99",
            "calls"]
    if marshal:
        head += ["marshal ns (omniORB)"]
    head += ["seed: min", "mean", "max", "std dev", "median"]
    body = []
    for x in rows:
        s = x["calls_us"] or {}
        line = [x["payload"]] + [orbresults.fmt_num(s.get(k)) for k in
                                 ("min", "mean", "max", "stddev", "median",
                                  "p99")]
        line.append(str(s.get("count", 0)))
        if marshal:
            line.append(orbresults.fmt_num(by_name.get(x["payload"], {}).get(
                "omniorb_ns")))
        seed = x["seed_us"] or {}
        line += [orbresults.fmt_num(seed.get(k)) for k in SEED_COLUMNS]
        body.append(line)
    return head, body


def size_table(rows):
    """(head, body): bytes per payload, from the first transport that has
    each."""
    seen, body = set(), []
    for x in sorted(rows, key=lambda x: _payload_rank(x["payload"])):
        if x["payload"] in seen:
            continue
        seen.add(x["payload"])
        body.append([x["payload"]] + [orbresults.fmt_num(x[k]) for k in (
            "value_bytes", "request_bytes", "reply_bytes", "event_bytes")])
    return (["payload", "value", "request", "reply", "event (any)"], body)


def marshal_table(marshal):
    head = ["payload", "bytes", "C codec ns", "omniORB ns", "C / omniORB"]
    body = [[m["payload"], orbresults.fmt_num(m["value_bytes"]), orbresults.fmt_num(m["c_ns"]),
             orbresults.fmt_num(m["omniorb_ns"]),
             orbresults.fmt_num(orbresults.ratio(m["c_ns"], m["omniorb_ns"]))]
            for m in marshal]
    return head, body


def markdown_blocks(data):
    """The report's blocks (h2/h3/p/table tuples, as scripts/report
    writes them): a Table 8.2 per ORB and transport, the sizes, the
    marshaling."""
    out = []
    lat, mar = data["latency"], data["marshal"]
    if lat:
        out += [("h2", "The Miro latency table (seed Table 8.2 layout)"),
                ("p", SEED_CAPTION + " Ours pool every call of every run "
                 "of a row; p99 is ours only.")]
        tables = {}
        for x in lat:
            tables.setdefault((x["orb"], x["transport"]), []).append(x)
        for (orb, transport), rows in tables.items():
            head, body = latency_table(rows, mar)
            out += [("h3", f"{orb} over "
                           f"{TRANSPORT_NAMES.get(transport, transport)}"),
                    ("table", head, body, "l" + "r" * (len(head) - 1))]
            odd = [f"{x['payload']}: {', '.join(x['stops'])}" for x in rows
                   if x["stops"] != ["done"]]
            if odd:
                out += [("p", "Runs that did not finish: " + "; ".join(odd)
                         + ".")]
        head, body = size_table(lat)
        out += [("h2", "Sizes (seed Table 8.4 asks what storing an event "
                       "costs)"),
                ("p", "Bytes: the payload's value in CDR; the GIOP request "
                      "and reply of its echo (header, object key and "
                      "operation name included); the event that would "
                      "store it, Bench::<Name>Event as a CORBA any "
                      "(TypeCode, CLOCK_MONOTONIC stamp, value). The "
                      "seed's log record of an empty event took about 48 "
                      "bytes."),
                ("table", head, body, "lrrrr")]
    if mar:
        head, body = marshal_table(mar)
        version = next((m["omniorb_version"] for m in mar
                        if m["omniorb_version"]), "omniORB")
        out += [("h2", "Marshaling alone"),
                ("p", "ns per encode, median over every repeat: orbbench's "
                      "C codec (walking the payload's description and "
                      "making each value from its seed, into a reused "
                      f"buffer) and {version}'s C++ marshaling of the same "
                      "bytes into a cdrMemoryStream (the value held in its "
                      "C++ type). The seed's minimum, it says, is the raw "
                      "marshaling overhead."),
                ("table", head, body, "lrrrr")]
    return out
