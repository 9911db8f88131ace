"""What makes a result file a repeat that counts: a run that ended, once,
with every number a metric reads in its range. The readers
(orbbench.results) call these on every result they load; compare, the
report of a comparison, history and the suite's looks take their repeats
through repeats(), and a comparison refuses a set that copies its
baseline (refuse_copies). In an ORB's CI the measured side can write
files beside its results: everything here is checked, never trusted.

Every refusal is an orbbench.safeload.BadInput (exit 2, one line naming
the file and the field). Standard library only."""
import hashlib
import json

import orbbench.safeload as orbsafe

# The stop reasons the client writes when a run ends (client/kinds/run.h,
# STOP_*; tests/py/test_validate.py holds the two lists together), and
# those of a run that did not end: such a file is a fragment, never a
# repeat. "running" is what every checkpoint writes before the end: a
# file that still says it was killed (SIGKILL, a power cut, the OOM
# killer). "interrupted": stopped by a signal it handled. "write_failed":
# its result could no longer be written whole (the file keeps the last
# checkpoint).
ENDED = frozenset({"done", "latency", "max_n", "resource", "memory",
                   "cost", "time_limit", "server_died", "call_failed",
                   "thread_failed", "not_delivered", "log_full",
                   "partner_failed"})
NOT_ENDED = {
    "running": "its last checkpoint: the run was killed, or could not "
               "write its end",
    "interrupted": "stopped by a signal before it ended",
    "write_failed": "its result could not be written whole",
}


def check_stop(doc, path):
    """BadInput unless result.stop_reason is one the client writes."""
    v = (doc.get("result") or {}).get("stop_reason")
    if v not in ENDED and v not in NOT_ENDED:
        raise orbsafe.bad(path, "result.stop_reason",
                          f"{orbsafe.short(v)} is not a stop the client "
                          "writes")


def ended(doc):
    """True for a run the client ended (its last write said how)."""
    return (doc.get("result") or {}).get("stop_reason") in ENDED


# ---- numbers in their ranges ------------------------------------------------

def _int(path, field, v, low):
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise orbsafe.bad(path, field, f"{orbsafe.short(v)} is not a whole "
                          f"number >= {low}")


def _num(path, field, v, low=None, low_open=False, allow_none=True):
    return orbsafe.number(path, field, v, low=low, low_open=low_open,
                          allow_none=allow_none)


def _list(path, field, v, low, low_open):
    if v is None:
        return
    if not isinstance(v, list):
        raise orbsafe.bad(path, field, "not a list of numbers")
    for i, x in enumerate(v):
        _num(path, f"{field}[{i}]", x, low, low_open, allow_none=False)


# What a comparison reads of a measurement (a step or a probe), by the
# range it must lie in: counts whole, N >= 1; times > 0 where rounds were
# timed; CPU, memory and counts >= 0. MemAvailable's drop per server may
# be negative (memory freed while the step ran).
_COSTS = ("server", "server_low", "server_user", "server_sys",
          "client_user", "client_sys")
_FOOTPRINT = ("threads", "pss_kb", "uss_kb", "rss_kb", "fds")


def check_measurement(m, path, field):
    """BadInput naming the first value of measurement m (a step or a
    probe, field "steps[3]") out of its range."""
    if not isinstance(m, dict):
        raise orbsafe.bad(path, field, "not an object")
    _int(path, f"{field}.n", m.get("n"), 1)
    rm = m.get("round_ms")
    if not isinstance(rm, dict):
        raise orbsafe.bad(path, f"{field}.round_ms", "not an object")
    count = rm.get("count", 1)
    _int(path, f"{field}.round_ms.count", count, 0)
    _num(path, f"{field}.round_ms.median", rm.get("median"), 0,
         low_open=count > 0, allow_none=False)
    _list(path, f"{field}.rounds_ms", m.get("rounds_ms"), 0, True)
    for key in ("calls", "block"):
        if m.get(key) is not None:
            _int(path, f"{field}.{key}", m[key], 0)
    cpu = m.get("cpu_per_call_us")
    if cpu is not None:
        if not isinstance(cpu, dict):
            raise orbsafe.bad(path, f"{field}.cpu_per_call_us",
                              "not an object")
        for k in _COSTS:
            _num(path, f"{field}.cpu_per_call_us.{k}", cpu.get(k), 0)
    _list(path, f"{field}.server_cpu_rounds_ms",
          m.get("server_cpu_rounds_ms"), 0, False)
    _list(path, f"{field}.untimed_ms", m.get("untimed_ms"), 0, False)
    _num(path, f"{field}.neighbour_cpu_ms", m.get("neighbour_cpu_ms"), 0)
    mem = m.get("mem_per_server_kb")
    if mem is not None:
        if not isinstance(mem, dict):
            raise orbsafe.bad(path, f"{field}.mem_per_server_kb",
                              "not an object")
        for k, v in mem.items():
            _num(path, f"{field}.mem_per_server_kb.{k}", v,
                 None if k == "mem_available" else 0)
    fp = m.get("footprint")
    if isinstance(fp, dict):
        for k in _FOOTPRINT:
            x = fp.get(k)
            if isinstance(x, dict):
                _num(path, f"{field}.footprint.{k}.mean", x.get("mean"), 0)


def check_measurements(doc, path):
    """Every step and probe of a result checked (check_measurement)."""
    for key in ("steps", "probes"):
        ms = doc.get(key)
        if ms is None:
            continue
        if not isinstance(ms, list):
            raise orbsafe.bad(path, key, "not a list")
        for i, m in enumerate(ms):
            check_measurement(m, path, f"{key}[{i}]")


def metric_value(path, key, v):
    """A kind's metric value as its Metric read it (orbbench.results):
    None or a finite number; BadInput naming the metric otherwise."""
    return _num(path, f"metric {key}", v)


# ---- one run, once ------------------------------------------------------------

def digest(doc):
    """sha256 of a result's content (its JSON with sorted keys): the same
    for a byte copy and for a copy written out again."""
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def run_id(doc):
    """What names one run: its paired.id (with its side), else the client
    process and second it started in (process_group, started_at); None
    for a result that records neither (an older client's)."""
    pid = (doc.get("paired") or {}).get("id") if isinstance(
        doc.get("paired"), dict) else None
    if isinstance(pid, str) and pid:
        return ("paired", pid, doc["paired"].get("side"))
    pg, at = doc.get("process_group"), doc.get("started_at")
    if isinstance(pg, int) and not isinstance(pg, bool) and \
            isinstance(at, str) and at:
        return ("process", pg, at)
    return None


def repeats(results, note):
    """The results that count as repeats, in their order: a run that did
    not end (NOT_ENDED) is named in note(line) and left out; a copy of a
    run already taken (the same content) is named and counted once; two
    different files of one run (the same run_id) are refused: one of them
    was edited. ValueError when nothing is left."""
    out, by_digest, by_id = [], {}, {}
    for r in results:
        stop = r.doc["result"]["stop_reason"]
        if stop in NOT_ENDED:
            note(f"{r.path}: stop {stop}: not counted as a repeat "
                 f"({NOT_ENDED[stop]}), left out")
            continue
        h = digest(r.doc)
        if h in by_digest:
            note(f"{r.path}: a copy of {by_digest[h].path} (the same run): "
                 "counted once")
            continue
        rid = run_id(r.doc)
        if rid is not None and rid in by_id:
            raise orbsafe.bad(r.path, "paired.id" if rid[0] == "paired"
                              else "process_group",
                              f"the run of {by_id[rid].path} (the same "
                              "id), with other numbers: an edited copy, "
                              "refused")
        by_digest[h] = r
        if rid is not None:
            by_id[rid] = r
        out.append(r)
    return out


def refuse_copies(sets, letters):
    """BadInput when a set after the first holds a run of the first (the
    baseline): the same content, or the same run id on the same side (a
    paired run's two files share an id, each with its own side). A head
    that is a copy of its base compares nothing."""
    base = sets[0]
    digests = {digest(r.doc): r for r in base}
    ids = {run_id(r.doc): r for r in base if run_id(r.doc) is not None}
    for x, res in zip(letters[1:], sets[1:]):
        for r in res:
            a = digests.get(digest(r.doc))
            if a is not None:
                raise orbsafe.bad(r.path, None, f"set {x} holds a copy of "
                                  f"{a.path}, a run of A: a copy of the "
                                  "baseline compares nothing, refused")
            rid = run_id(r.doc)
            if rid is not None and rid in ids:
                raise orbsafe.bad(r.path, None, f"set {x} holds the run of "
                                  f"{ids[rid].path} (A; the same run id "
                                  "and side), edited: refused")


def drop_lone_partners(sets, note):
    """The sets without each side of a paired run stopped by its partner
    (stop partner_failed) whose partner is in no other set given: its
    partner did not end (left out) or is missing, so its sweep was cut
    short by a failure it has no record of. Each is named in note."""
    ids = [{run_id(r.doc)[1] for r in res
            if (run_id(r.doc) or ("",))[0] == "paired"} for res in sets]
    out = []
    for i, res in enumerate(sets):
        others = set().union(*(ids[:i] + ids[i + 1:]))
        kept = []
        for r in res:
            rid = run_id(r.doc)
            if r.doc["result"]["stop_reason"] == "partner_failed" and \
                    rid and rid[0] == "paired" and rid[1] not in others:
                note(f"{r.path}: stop partner_failed, its paired run not "
                     "among the runs compared (it did not end, or is "
                     "missing): not counted as a repeat, left out")
                continue
            kept.append(r)
        out.append(kept)
    return out
