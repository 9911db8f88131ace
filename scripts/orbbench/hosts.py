"""The host axis: a fleet run's tree (scripts/run-fleet: fleet.json and
one results folder per host), each host's identity as its results record
it, and per scenario the max servers and memory per server of every host
side by side, as scripts/compare --hosts and scripts/report print them and
orbbench.figures.hosts draws them. Standard library only (no matplotlib
here)."""
import csv
import io
import json
from pathlib import Path

import orbbench.cli as orbcli
import orbbench.results as orbresults
import orbbench.safeload as orbsafe

FLEET_FILE = "fleet.json"
FLEET_SCHEMA = "orbbench-fleet/1"

# A host's identity: (key, how to read it from one result).
IDENTITY = (
    ("hostname", lambda d: orbresults.get(d, "host.hostname")),
    ("cpu_model", lambda d: orbresults.get(d, "host.cpu_model")),
    ("cpus_online", lambda d: orbresults.get(d, "host.cpus_online")),
    ("mem_total_kb", lambda d: orbresults.get(d, "host.mem_total_kb")),
    ("kernel", lambda d: orbresults.get(d, "host.kernel")),
    ("arch", lambda d: orbresults.get(d, "host.arch")),
    ("os", lambda d: orbresults.get(d, "host.os")),
    ("orb", orbresults.orb_label),
    ("orb_id", lambda d: orbresults.get(d, "orb.id")),
    ("revision", lambda d: orbresults.get(d, "tool.git_revision")),
    ("compiler", lambda d: orbresults.get(d, "tool.compiler")),
)


def host_results(folder):
    """The checked results of one host's folder ([] when it has none)."""
    try:
        return orbresults.load_results([folder])
    except ValueError:
        return []


def identity(results):
    """{key: value} of IDENTITY over a host's results: the one value they
    all record, or the values joined by ", " when they differ (a host
    whose kernel changed mid-run says so), None when none records it."""
    out = {}
    for key, read in IDENTITY:
        vals = list(dict.fromkeys(read(r.doc) for r in results
                                  if read(r.doc) is not None))
        out[key] = (vals[0] if len(vals) == 1 else
                    ", ".join(map(str, vals)) if vals else None)
    return out


def mem_text(kb):
    return f"{kb / 1048576:.1f} GiB" if isinstance(kb, (int, float)) \
        else "?"


def identity_text(ident):
    """'AMD EPYC, 2 CPUs, 23.5 GiB, x86_64, kernel 6.18.44, Debian 12;
    omniORB 4.2.5; orbbench 132dd62' (— without results)."""
    if not ident:
        return "—"
    return (f"{ident.get('cpu_model') or '?'}, "
            f"{ident.get('cpus_online') or '?'} CPUs, "
            f"{mem_text(ident.get('mem_total_kb'))}, "
            f"{ident.get('arch') or '?'}, kernel {ident.get('kernel') or '?'}"
            f", {ident.get('os') or '?'}; {ident.get('orb') or '?'}; "
            f"orbbench {ident.get('revision') or '?'}")


# ---- reading fleet trees ----------------------------------------------------

def read_fleet(folder):
    """fleet.json of a fleet tree, or None when folder is not one;
    ValueError names a fleet.json that cannot be read."""
    path = Path(folder) / FLEET_FILE
    if not path.is_file():
        return None
    try:
        doc = orbsafe.load_json(path)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a readable fleet summary ({e})") \
            from e
    if not isinstance(doc, dict) or doc.get("schema") != FLEET_SCHEMA or \
            not isinstance(doc.get("hosts"), list):
        raise ValueError(f"{path}: not a fleet summary (schema "
                         f"{FLEET_SCHEMA!r} with a list of hosts)")
    return doc


def load_fleet(folder):
    """A fleet tree as {"meta": fleet.json without hosts, "hosts":
    [host]}, where a host is {"host", "status", "stage", "reason",
    "seconds", "identity", "results": [Result]} in fleet.json's order."""
    doc = read_fleet(folder)
    if doc is None:
        raise ValueError(f"{folder}: no {FLEET_FILE}: not a fleet tree "
                         "(scripts/run-fleet writes one)")
    hosts = []
    for e in doc["hosts"]:
        sub = e.get("results")
        results = host_results(Path(folder) / sub) if sub else []
        hosts.append({"host": e.get("host"), "status": e.get("status"),
                      "stage": e.get("stage"), "reason": e.get("reason"),
                      "seconds": e.get("seconds"),
                      "identity": e.get("identity") or
                      (identity(results) if results else None),
                      "results": results})
    meta = {k: v for k, v in doc.items() if k != "hosts"}
    return {"meta": meta, "hosts": hosts}


def load_hosts(paths):
    """[host] (as load_fleet gives them) from fleet trees (each of their
    hosts) and result folders (one host each, named by the folder); a
    label given twice is exit-worthy: ValueError."""
    hosts = []
    for p in map(Path, paths):
        if read_fleet(p) is not None:
            hosts += load_fleet(p)["hosts"]
            continue
        results = orbresults.load_results([p])
        hosts.append({"host": p.resolve().name, "status": "ok",
                      "stage": None, "reason": None, "seconds": None,
                      "identity": identity(results), "results": results})
    seen = set()
    for h in hosts:
        if h["host"] in seen:
            raise ValueError(f"host {h['host']!r} given twice (rename a "
                             "result folder to tell them apart)")
        seen.add(h["host"])
    return hosts


# ---- the host axis ----------------------------------------------------------

def sweeps(results):
    """The sweep results among a host's (rate, scaling and clock runs are
    not on the host axis)."""
    return orbresults.of_kind(results, "sweep")


def hosts_data(hosts, mem="pss"):
    """Per scenario (seed order), every host's sweep numbers: {"hosts":
    [labels of hosts with sweep results], "mem": mem, "scenarios":
    [{"scenario", "max_ms", "cells": {label: cell or None (no run of it
    there)}}], "left_out": [(label, why)]}. A cell is {"runs",
    "max_servers" (median over runs), "max_servers_min", "max_servers_max",
    "stop_reasons", "mem_kb" (memory per server of kind mem at the held
    step, median over runs; None when not measured), "threads_per_server"}.
    hosts: [(label, [Result or doc])] or load_hosts' dicts."""
    per_host, left_out = {}, []
    for h in hosts:
        label, items = (h["host"], h["results"]) if isinstance(h, dict) \
            else h
        results = [x if isinstance(x, orbresults.Result)
                   else orbresults.Result(None, x)
                   for x in items]
        found = sweeps(results)
        if not found:
            why = "no sweep result" if results else (
                h.get("reason") if isinstance(h, dict) and h.get("reason")
                else "no results")
            left_out.append((label, why))
            continue
        per_host[label] = orbresults.group_by_scenario(found,
                                                       split_settings=True)
    labels = list(per_host)
    names = orbresults.seed_order([n for g in per_host.values() for n in g])
    scenarios = []
    for name in names:
        cells, max_ms = {}, None
        for label in labels:
            docs = [r.doc for r in per_host[label].get(name, [])]
            if not docs:
                cells[label] = None
                continue
            s = orbresults.summarize(docs)
            max_ms = max_ms or s["max_ms"]
            cells[label] = {
                "runs": s["runs"], "max_servers": s["max_servers"],
                "max_servers_min": s["max_servers_min"],
                "max_servers_max": s["max_servers_max"],
                "stop_reasons": s["stop_reasons"],
                "mem_kb": s[f"{mem}_kb_per_server"],
                "threads_per_server": s["threads_per_server"]}
        scenarios.append({"scenario": name, "max_ms": max_ms,
                          "cells": cells})
    return {"hosts": labels, "mem": mem, "scenarios": scenarios,
            "left_out": left_out}


def max_text(cell):
    """'145' or '145 (140–150, 3 runs)'; '—' without a run."""
    if cell is None:
        return "—"
    return orbresults.spread_text({"max_servers": cell["max_servers"],
                          "max_servers_min": cell["max_servers_min"],
                          "max_servers_max": cell["max_servers_max"],
                          "runs": cell["runs"]})


def hosts_table(data):
    """(head, rows): per scenario, each host's max servers and memory per
    server side by side."""
    mem = orbresults.MEM_LABELS[data["mem"]]
    head = ["scenario"]
    for label in data["hosts"]:
        head += [f"{label} max servers", f"{label} {mem} KiB/server"]
    rows = []
    for s in data["scenarios"]:
        row = [s["scenario"]]
        for label in data["hosts"]:
            c = s["cells"][label]
            row += [max_text(c), orbresults.fmt_num(c["mem_kb"]) if c else "—"]
        rows.append(row)
    return head, rows


def status_text(h):
    if h["status"] == "ok":
        return "ok"
    return f"failed ({h.get('stage') or '?'}): {h.get('reason') or '?'}"


def host_lines(hosts):
    """One line per host: its status and identity."""
    return [f"{h['host']}: {status_text(h)}; " +
            (identity_text(h["identity"]) if h["identity"] else
             "no results") for h in hosts]


def hosts_text(hosts, mem="pss"):
    """What compare --hosts prints: each host, then the table."""
    data = hosts_data(hosts, mem)
    lines = ["Hosts (identity as their results record it):"]
    lines += [f"  {line}" for line in host_lines(hosts)]
    if data["scenarios"]:
        head, rows = hosts_table(data)
        lines += ["", orbcli.text_table(head, rows)]
    lines += ["", TABLE_NOTE]
    return "\n".join(lines) + "\n"


def hosts_markdown(hosts, mem="pss", title="Hosts"):
    data = hosts_data(hosts, mem)
    out = [f"# {title}", "", "## Hosts", "",
           orbcli.md_table(*identity_table(hosts), "l" * 10), ""]
    if data["scenarios"]:
        head, rows = hosts_table(data)
        out += ["## Max servers and memory per server, host by host", "",
                orbcli.md_table(head, rows), ""]
    out += [TABLE_NOTE, ""]
    return "\n".join(out)


TABLE_NOTE = ("Max servers: the largest N whose median round time stayed "
              "within the scenario's max_ms (median over runs, min–max "
              "when repeated). Memory per server at that N (median over "
              "runs). Each host measured on its own loopback: its figures "
              "are its own.")


def identity_table(hosts):
    """(head, rows) of the hosts' status and identity."""
    head = ["host", "status", "CPU", "CPUs", "memory", "kernel", "OS", "ORB",
            "orbbench", "run time"]
    rows = []
    for h in hosts:
        i = h["identity"] or {}
        secs = h.get("seconds")
        rows.append([h["host"], status_text(h), i.get("cpu_model") or "—",
                     str(i.get("cpus_online") or "—"),
                     mem_text(i.get("mem_total_kb")) if i else "—",
                     i.get("kernel") or "—", i.get("os") or "—",
                     i.get("orb") or "—", i.get("revision") or "—",
                     f"{secs:.1f} s" if isinstance(secs, (int, float))
                     else "—"])
    return head, rows


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def fleet_heading(fleet):
    meta, hosts = fleet["meta"], fleet["hosts"]
    ok = sum(h["status"] == "ok" for h in hosts)
    secs = meta.get("seconds")
    took = f", {secs:.1f} s in all" if isinstance(secs, (int, float)) \
        else ""
    stop = "; interrupted" if meta.get("interrupted") else ""
    return (f"{meta.get('suite', '?')} on {plural(len(hosts), 'host')}: "
            f"{ok} ok, "
            f"{len(hosts) - ok} failed{took}{stop}")


def fleet_text(fleet, mem="pss"):
    """run-fleet's closing summary."""
    return fleet_heading(fleet) + "\n" + hosts_text(fleet["hosts"], mem)


def fleet_markdown(fleet, meta, mem="pss"):
    """summary.md of a fleet tree."""
    text = hosts_markdown(fleet["hosts"], mem,
                          title=f"Fleet: {fleet_heading(fleet)}")
    head = [f"- {k}: {meta[k]}" for k in ("command", "started", "run_id")
            if meta.get(k)]
    first, rest = text.split("\n", 1)
    return "\n".join([first, ""] + head) + "\n" + rest


def render_hosts(hosts, mem="pss", fmt="text"):
    """compare --hosts' output: text, md, csv (one row per host and
    scenario) or json ({"hosts", "mem", "scenarios", "left_out"} of
    hosts_data, and "host_status": each host's status, reason and
    identity). ValueError when no host has a sweep result."""
    data = hosts_data(hosts, mem)
    if not data["scenarios"]:
        why = "; ".join(f"{h}: {w}" for h, w in data["left_out"])
        raise ValueError(f"no host has a sweep result ({why})")
    if fmt == "json":
        doc = dict(data, host_status=[
            {k: h.get(k) for k in ("host", "status", "stage", "reason",
                                   "seconds", "identity")} for h in hosts])
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["scenario", "host", "runs", "max_servers",
                    "max_servers_min", "max_servers_max", f"{mem}_kb",
                    "stop_reasons"])
        for s in data["scenarios"]:
            for label in data["hosts"]:
                c = s["cells"][label]
                if c:
                    w.writerow([s["scenario"], label, c["runs"],
                                c["max_servers"], c["max_servers_min"],
                                c["max_servers_max"],
                                "" if c["mem_kb"] is None else c["mem_kb"],
                                " ".join(c["stop_reasons"])])
        return buf.getvalue()
    if fmt == "md":
        return hosts_markdown(hosts, mem)
    return hosts_text(hosts, mem)
