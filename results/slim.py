#!/usr/bin/python3
"""Thin orbbench result files to what the tools in scripts/ read, so that
example results stay small in the tree (see results/README.md).

usage: results/slim.py [--compare-only] [--no-samples] PATH...

Each PATH is a result file or a folder searched for *.json; files that
are not orbbench results (summary.json, compare-*.json, fleet.json) are
left alone. In each result: the per-server list `servers` goes; the
small sections (tool, host, clock, limits, command, orb, scenario,
result, machine, paired, …) stay whole; of the bulky ones (steps,
probes, latency, repeats, sources, marshal) only the fields in KEEP
stay: those that scripts/compare, report, plot, miro-table and
miro-channel-table read (found by running each of them over every
example with the result documents instrumented to record each key read).
--compare-only keeps of steps and probes only what scripts/compare
reads (for a folder whose only output is a compare table);
--no-samples drops latency.samples_ns (every call's time, which only
scripts/miro-table's pooled table reads). Values are not touched: the
file is rewritten as compact JSON, one top-level key a line, and read
back to check it holds exactly the kept values. Running it again on a
thinned file changes nothing."""
import argparse
import json
import sys
from pathlib import Path

SCHEMA_PREFIX = "orbbench-result/"
BULK = ("steps", "probes", "latency", "repeats", "sources", "marshal")
DROP = ("servers",)

# Paths ([] for every element of a list) that the tools read; a path with
# nothing listed under it is kept whole.
KEEP = """
steps[].n steps[].phase steps[].calls
steps[].round_ms.count steps[].round_ms.median steps[].rounds_ms
steps[].call_us.count steps[].call_us.median steps[].call_us.p99
steps[].cpu_per_call_us.server steps[].cpu_per_call_us.server_user
steps[].cpu_per_call_us.server_sys
steps[].mem_per_server_kb.pss steps[].mem_per_server_kb.uss
steps[].mem_per_server_kb.mem_available
steps[].footprint.threads.mean
steps[].machine.servers_on_machine
steps[].machine.delta.mem_available_kb steps[].machine.delta.kernel_stack_kb
steps[].machine.delta.page_tables_kb steps[].machine.delta.slab_kb
steps[].untimed_ms steps[].neighbour_cpu_ms steps[].place
probes[].n probes[].phase probes[].calls
probes[].round_ms.count probes[].round_ms.median probes[].rounds_ms
probes[].cpu_per_call_us.server
probes[].untimed_ms probes[].neighbour_cpu_ms probes[].place
latency.payload latency.call_us latency.samples_ns latency.value_bytes
latency.request_bytes latency.reply_bytes latency.event_bytes
repeats[].k repeats[].calls repeats[].upcalls_per_s
repeats[].sum_calls_per_s repeats[].pairs[].calls_per_s
repeats[].cpu_per_upcall_us.server_user repeats[].cpu_per_upcall_us.server_sys
repeats[].cpu_per_upcall_us.client_user repeats[].cpu_per_upcall_us.client_sys
repeats[].ctx_switches_per_upcall.server
repeats[].ctx_switches_per_upcall.client
sources[].name sources[].call sources[].reads_hardware sources[].skipped
sources[].ks[].k sources[].ks[].repeats[].sum_calls_per_s
sources[].ks[].repeats[].threads[].calls_per_s
marshal.omniorb.version marshal.payloads[].name
marshal.payloads[].value_bytes marshal.payloads[].c.repeats_ns
marshal.payloads[].omniorb.repeats_ns
""".split()

# What scripts/compare alone reads of steps and probes.
KEEP_COMPARE = """
steps[].n steps[].calls steps[].round_ms.count steps[].round_ms.median
steps[].cpu_per_call_us.server
steps[].mem_per_server_kb.pss steps[].mem_per_server_kb.uss
steps[].mem_per_server_kb.mem_available
steps[].footprint.threads.mean
probes[].n probes[].calls probes[].round_ms.count probes[].round_ms.median
probes[].cpu_per_call_us.server
steps[].rounds_ms steps[].untimed_ms steps[].neighbour_cpu_ms steps[].place
probes[].rounds_ms probes[].untimed_ms probes[].neighbour_cpu_ms probes[].place
""".split()   # the last two lines: a paired run's interference check


def prefixes(paths):
    """Every path and each of its parents."""
    out = set()
    for p in paths:
        parts = p.split(".")
        for i in range(1, len(parts) + 1):
            out.add(".".join(parts[:i]))
    return out


def thin(value, path, keep, inner):
    """value with only the kept paths under path."""
    if isinstance(value, list):
        return [thin(x, path + "[]", keep, inner) for x in value]
    if not isinstance(value, dict) or path not in inner:
        return value
    out = {}
    for k, x in value.items():
        q = f"{path}.{k}"
        if q in keep or q + "[]" in keep:
            out[k] = thin(x, q, keep, inner)
    return out


def slim_doc(doc, keep_paths, no_samples):
    keep = prefixes(keep_paths)
    # the paths something is listed under: thinned, not kept whole
    inner = {p for p in keep if any(k != p and (k.startswith(p + ".") or
                                                k.startswith(p + "[]"))
                                    for k in keep_paths)}
    inner |= {p + "[]" for p in inner}
    out = {}
    for k, v in doc.items():
        if k in DROP:
            continue
        if k in BULK:
            v = thin(v, k, keep, inner) if k in inner or \
                k + "[]" in inner else v
            if k == "latency" and no_samples and isinstance(v, dict):
                v.pop("samples_ns", None)
        out[k] = v
    return out


def dumps(doc):
    lines = [f"{json.dumps(k, ensure_ascii=False)}:"
             f"{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
             for k, v in doc.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def files(paths):
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(p.rglob("*.json"))
        else:
            yield p


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--compare-only", action="store_true")
    p.add_argument("--no-samples", action="store_true")
    a = p.parse_args(argv)
    keep = [k for k in KEEP if not k.split(".")[0].startswith(
        ("steps", "probes"))] + KEEP_COMPARE if a.compare_only else KEEP
    before = after = 0
    for f in files(a.paths):
        text = f.read_text()
        doc = json.loads(text)
        if not (isinstance(doc, dict) and
                str(doc.get("schema", "")).startswith(SCHEMA_PREFIX)):
            continue
        new = slim_doc(doc, keep, a.no_samples)
        out = dumps(new)
        if json.loads(out) != new:
            sys.exit(f"{f}: the rewritten file does not read back the same")
        before += len(text.encode())
        after += len(out.encode())
        if out != text:
            f.write_text(out)
    print(f"{before} bytes -> {after} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
