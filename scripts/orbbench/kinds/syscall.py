"""The cost of one system call (scenario kind "syscall",
client/kinds/syscall.c): syscall(SYS_getpid) as often as the client can,
in windows of syscall.duration_s. Its results hold repeats (one window
each: calls, elapsed_s, ns_per_call) and syscall (what each call is, and
ns per call over the windows: median, min, max). compare weighs its one
metric, ns per call, a floor under every call an ORB makes; a report
shows its table. The example of a kind written from the skeleton
(client/kinds/skeleton.c.example): this module, its C file, its page
and its test are all it has."""
import orbbench.metric as orbmetric
import orbbench.results as orbresults
from orbbench.results import get, is_num


def _repeat_ok(rep):
    return is_num(get(rep, "ns_per_call")) and is_num(get(rep, "calls"))


def check(doc, path):
    """Every window has its calls and its ns per call."""
    orbresults.check_list(path, "repeats", doc["repeats"], _repeat_ok,
                          "calls or ns_per_call")


def ns_per_call(doc, mem=None):
    """The run's median ns per call, or None."""
    return get(doc, "syscall.ns_per_call.median")


def tables(results):
    """One row per run: its label, windows and ns per call."""
    mine = orbresults.of_kind(results, "syscall")
    rows = []
    for r in mine:
        ns = get(r.doc, "syscall.ns_per_call")
        if not isinstance(ns, dict):
            continue
        rows.append([get(r.doc, "scenario.name"),
                     str(len(r.doc["repeats"])),
                     f"{ns['median']:.1f}",
                     f"{ns['min']:.1f}–{ns['max']:.1f}"])
    if not rows:
        return []
    return [("h2", "One system call"),
            ("p", "syscall(SYS_getpid), the cheapest call into the kernel "
                  "and back: ns per call, median and min–max over the "
                  "windows of each run. Every ORB call crosses into the "
                  "kernel a few times; this is one crossing's floor."),
            ("table", ["run", "windows", "ns/call", "min–max"], rows,
             "lrrr")]


def headline(doc):
    """'310.9 ns' of a syscall run."""
    m = ns_per_call(doc)
    return f"{m:.1f} ns" if is_num(m) else "—"


orbresults.register(orbresults.Kind(
    "syscall", "repeats", fields=[("syscall.call", str)], check=check,
    metrics=(orbmetric.Metric("ns_per_call", "ns per getpid",
                              ns_per_call),),
    tables=tables, headline=("syscall", "ns/call", headline)))
