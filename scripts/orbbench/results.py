"""Reading orbbench result files and summing them up: shared by orbbench suite,
plot, compare and report. Standard library only (no matplotlib here).

The measurement kinds (sweep, rate, ...) are not named here: each module
of orbbench.kinds registers its own (register, a Kind), and loading and
checking a result look its kind up in KINDS. A front end imports
orbbench.kinds once before it loads results."""
import json
import math
import shlex
import statistics
from collections import namedtuple
from pathlib import Path

import orbbench.escape as orbesc
import orbbench.safeload as orbsafe
import orbbench.validate as orbvalidate

SCHEMA = "orbbench-result/1"

# The rows of the seed's summary table (Grisby, 2002), in its order; other
# scenarios follow in the order their files came.
SEED_ORDER = ("thread-per-call-tcp", "thread-per-call-unix", "pool100-tcp",
              "pool100-unix", "pool5-unix", "sync-unix")

# orbbench suite writes this beside the results; it is not a result.
SUITE_SUMMARY = "summary.json"

# The memory measures (what --mem names: a measure, not a kind), by their
# name in step.mem_per_server_kb, with the footprint summary
# (step.footprint.<key>.mean) to fall back on.
MEM_MEASURES = {"pss": "pss_kb", "uss": "uss_kb", "mem_available": None}
MEM_LABELS = {"pss": "PSS", "uss": "USS",
              "mem_available": "MemAvailable drop / N"}

Result = namedtuple("Result", "path doc")

# No machine holds a billion servers or connections: a crossing N beyond
# it is a forged one.
MAX_N = 1e9


# ---- the measurement kinds -----------------------------------------------

class Kind:
    """What the shared code needs to know of one measurement kind (a
    scenario's "kind", client/kinds/*.c), registered by its module in
    orbbench.kinds:
      name     the kind's name as results record it
      body     the top-level field its results hold their measurements in
      fields   [(dotted key, type or predicate)] every result of it has,
               checked in this order after COMMON_FIELDS (a common
               field listed here is checked where it is listed instead)
      check    check(doc, path) for the rest of its shape, or None
      refusal  what a comparison says of it ("a clock result (kind
               clock)"), or None when compare weighs it (metrics)
      figures  figures(results, outdir, run, rounds, log) -> [Figure] of
               its results (matplotlib imported there), or None
      tables   tables(results) -> report blocks from all the results of a
               report (its own picked out), or None
      summary  summary(results) -> the report's Summary blocks of its
               results, or None
      headline (word, label, value(doc)): the one figure orbbench suite shows
               of a run, in its progress line ("rate 80.5 kHz") and in its
               summary's column ("upcalls/s"), or None
      pairs    True when its runs can be paired (orbbench --versus: the
               client's KIND_PAIRS); orbbench suite then pairs two variants
               by default
      settings the scenario's group of the sweep driver's keys (max_ms,
               growth, max_n, cost_n: "sweep", "fanin"), what setting()
               reads; None for a kind without them
      paired_opening (warmup, switch): the untimed rounds orbbench suite
               --paired opens each block with where the scenario file
               gives neither GROUP.warmup_rounds nor GROUP.switch_rounds
               (each one it leaves out), as measured for the kind; None:
               the client's defaults
      metrics  (orbbench.metric.Metric, ...): what compare weighs of its
               runs, in its row's order, each read once per run or from
               the steps (the sweep's crossing N, round time, CPU and
               memory at a common N); () for a kind with a refusal"""

    def __init__(self, name, body, fields=(), check=None, refusal=None,
                 figures=None, tables=None, summary=None, headline=None,
                 pairs=False, settings=None, metrics=(),
                 paired_opening=None):
        self.name, self.body, self.fields = name, body, list(fields)
        self.paired_opening = paired_opening
        self.check, self.refusal = check, refusal
        self.figures, self.tables, self.summary = figures, tables, summary
        self.headline, self.pairs, self.settings = headline, pairs, settings
        self.metrics = tuple(metrics)
        if refusal and self.metrics:
            raise ValueError(f"kind {name!r}: a refusal and metrics")

    @property
    def comparable(self):
        """True when compare weighs its results (no refusal)."""
        return self.refusal is None

    @property
    def stepped(self):
        """True for a kind compared by its steps (some metric read from
        them), as a sweep is."""
        return self.comparable and any(m.at != "run" for m in self.metrics)


# {name: Kind} in registration order (orbbench.kinds' order): the order of
# the figures of plot_all and of the tables of a report.
KINDS = {}

# The kind of a result that names none, or one not registered: a sweep,
# as the first results were.
DEFAULT_KIND = "sweep"

# What every result has, whatever its kind.
COMMON_FIELDS = [("scenario.name", str), ("result.stop_reason", str)]


def register(kind):
    """Add a Kind to KINDS (once per name); return it."""
    if kind.name in KINDS:
        raise ValueError(f"kind {kind.name!r} registered twice")
    KINDS[kind.name] = kind
    return kind


def kind_of(doc):
    """The registered name of a result's kind: its "kind" or its
    scenario's, DEFAULT_KIND when neither is registered."""
    if not KINDS:
        raise RuntimeError("no measurement kinds registered: import "
                           "orbbench.kinds before reading results")
    if isinstance(doc, dict):
        for name in KINDS:
            if name != DEFAULT_KIND and (
                    doc.get("kind") == name or
                    get(doc, "scenario.kind") == name):
                return name
    return DEFAULT_KIND


def kind(doc):
    """The Kind of a result."""
    return KINDS[kind_of(doc)]


def of_kind(results, name):
    """The Results of kind name, in the given order."""
    return [r for r in results if kind_of(r.doc) == name]


def load_result(path):
    """Load and check one result file; ValueError names the file."""
    path = Path(path)
    doc = orbsafe.load_json(path)       # regular, bounded, finite, UTF-8
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else None
        raise ValueError(f"{path}: schema {got!r}, expected {SCHEMA!r}")
    # A rate run has repeats where a sweep has steps: its kind says.
    for key in ("scenario", kind(doc).body, "result", "orb", "host"):
        if key not in doc:
            raise ValueError(f"{path}: no {key!r} field")
    check_values(doc, path)
    return doc


def check_values(doc, path):
    """The values compare and gate weigh, in their ranges (BadInput names
    the field): result.crossing_n a finite N >= 1 (or absent), its
    interval two of them, held (and its earlier names max_servers,
    max_connections) whole and >= 0 and one number, held_unit a unit,
    the stop reason one the client writes (orbbench.validate), the
    scenario's name 1 to orbbench.escape.LIMIT characters."""
    res = doc["result"]
    if not isinstance(res, dict):
        raise orbsafe.bad(path, "result", "not an object")
    orbsafe.number(path, "result.crossing_n", res.get("crossing_n"),
                   low=1, high=MAX_N, allow_none=True)
    iv = res.get("crossing_interval")
    if iv is not None:
        if not isinstance(iv, list) or len(iv) != 2:
            raise orbsafe.bad(path, "result.crossing_interval",
                              "not a pair of numbers")
        for i, v in enumerate(iv):
            # an interval may reach far past any N measured (an
            # extrapolation): finite and >= 0 is all it must be
            orbsafe.number(path, f"result.crossing_interval[{i}]", v, low=0)
    for key in ("held",) + tuple(HELD_BEFORE.values()):
        v = res.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                              or v < 0):
            raise orbsafe.bad(path, f"result.{key}", f"{orbsafe.short(v)}"
                              " is not a whole number >= 0")
    if "held" in res:
        unit = res.get("held_unit")
        if unit not in HELD_BEFORE:
            raise orbsafe.bad(path, "result.held_unit",
                              f"{orbsafe.short(unit)} is not one of "
                              f"{', '.join(HELD_BEFORE)}")
        before = res.get(HELD_BEFORE[unit])
        if before is not None and before != res["held"]:
            # one number under two names: a file edited by hand
            raise orbsafe.bad(path, f"result.{HELD_BEFORE[unit]}",
                              f"{before} is not result.held "
                              f"({res['held']})")
    if "stop_reason" in res:
        orbvalidate.check_stop(doc, path)
    name = get(doc, "scenario.name")
    if isinstance(name, str) and not 0 < len(name) <= orbesc.LIMIT:
        # The one bound of a name (orbbench.escape.LIMIT), above the
        # longest the client accepts: no client wrote this one.
        raise orbsafe.bad(path, "scenario.name", f"a name of {len(name)} "
                          f"characters (1 to {orbesc.LIMIT})")


def interrupted(doc):
    """True for a run stopped by a signal (stop: interrupted): what it
    measured is a fragment, never a repeat."""
    return get(doc, "result.stop_reason") == "interrupted"


def load_repeats(paths, note):
    """load_results, the repeats only (orbbench.validate.repeats): a run
    that did not end (killed, interrupted, its write failed) is named in
    note(line) and left out, a copy of a run counted once, two files of
    one run with different numbers refused; ValueError when none is
    left."""
    out = orbvalidate.repeats(load_results(paths), note)
    if not out:
        raise ValueError(f"{', '.join(map(str, paths))}: no complete run "
                         "(none of them ended)")
    return out


def refuse_uncomparable(results, what):
    """ValueError naming the first result of a kind `what` (compare)
    cannot set against another: one with a refusal (no steps and no
    metrics to weigh)."""
    for r in results:
        refusal = kind(r.doc).refusal
        if refusal:
            raise ValueError(f"{r.path}: {refusal}; {what} weighs the "
                             "kinds with steps or metrics only")


def setting(doc, key, default=None):
    """The sweep driver's setting `key` of a result (max_ms, growth,
    max_n, …) from its kind's own group (scenario.sweep.KEY,
    scenario.fanin.KEY), or default."""
    k = KINDS.get(kind_of(doc))
    group = k.settings if k else DEFAULT_KIND
    return get(doc, f"scenario.{group}.{key}", default) if group else default


def threshold_ms(sc):
    """A sweep's max_ms: sweep.max_ms, or fanin.max_ms for a sweep over
    connections; None for a kind without one."""
    return get(sc, f"{sc.get('kind', 'sweep')}.max_ms")


def crossing_ms(doc):
    """Median round ms of the first step over max_ms, else of the last."""
    steps = doc.get("steps") or []
    if not steps:
        return None
    max_ms = threshold_ms(doc["scenario"])
    if max_ms is None:
        return None
    for s in steps:
        if s["round_ms"]["median"] > max_ms:
            return s["round_ms"]["median"]
    return steps[-1]["round_ms"]["median"]


# ---- loading many ---------------------------------------------------------

def get(d, dotted, default=None):
    """d["a"]["b"]… for dotted "a.b…", or default when any part is missing."""
    for part in dotted.split("."):
        if not isinstance(d, dict) or part not in d:
            return default
        d = d[part]
    return d


def is_num(x):
    """True for an int or a float (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_fields(doc, path, fields):
    """ValueError naming the first of fields [(dotted key, type or
    predicate)] that doc lacks or has of another type."""
    for key, want in fields:
        v = get(doc, key)
        ok = isinstance(v, want) if isinstance(want, type) else want(v)
        if not ok:
            raise ValueError(f"{path}: field {key!r} missing or wrong type")


def check_list(path, key, value, item_ok, what):
    """ValueError unless value (the result's field key) is a list whose
    every item passes item_ok; the message names the first that does not
    ("repeats[2] has no WHAT")."""
    if not isinstance(value, list):
        raise ValueError(f"{path}: field {key!r} is not a list")
    for i, item in enumerate(value):
        if not item_ok(item):
            raise ValueError(f"{path}: {key}[{i}] has no {what}")


def check_shape(doc, path):
    """The fields every figure and table relies on; ValueError names the
    file and the field. Optional fields (footprint, …) are not checked.
    The fields common to every kind, then the kind's own."""
    k = kind(doc)
    listed = {key for key, _ in k.fields}
    check_fields(doc, path, [f for f in COMMON_FIELDS if f[0] not in listed]
                 + k.fields)
    if k.check:
        k.check(doc, path)


def result_files(paths):
    """Expand files and result folders (their *.json but the suite's
    summary.json) into file paths; ValueError names a missing path or an
    empty folder."""
    files = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.glob("*.json")
                           if f.name != SUITE_SUMMARY)
            if not found:
                subs = sorted(d.name for d in p.iterdir() if d.is_dir())
                hint = (f"; its sub-folders ({', '.join(subs)}) may hold "
                        "them (run-suite --variant or --orb): give one"
                        ) if subs else ""
                raise ValueError(f"{p}: no result files (*.json){hint}")
            files += found
        elif p.exists():
            files.append(p)
        else:
            raise ValueError(f"{p}: no such file or folder")
    return files


def load_results(paths):
    """[Result(path, doc)] for files and folders, every one checked."""
    out = []
    for f in result_files(paths):
        doc = load_result(f)
        check_shape(doc, f)
        orbvalidate.check_measurements(doc, f)
        out.append(Result(f, doc))
    return out


def run_name(paths):
    """The name of a run: a folder's name or a file's stem, joined by '+'
    when there are several."""
    names = []
    for p in map(Path, paths):
        p = p.resolve()
        names.append(p.name if p.is_dir() else p.stem)
    return "+".join(dict.fromkeys(names))


# ---- grouping -------------------------------------------------------------

def scenario_name(doc):
    return doc["scenario"]["name"]


def seed_order(names):
    """Names in the seed table's order, unknown ones after in the order
    they first came. A name may carry an ORB label ("sync-unix [omniORB
    4.3.3]"): the ORBs of one scenario stay together, in given order."""
    names = list(dict.fromkeys(names))
    bases = list(dict.fromkeys(n.split(" [")[0] for n in names))
    rank = {b: (SEED_ORDER.index(b) if b in SEED_ORDER else
                len(SEED_ORDER) + i) for i, b in enumerate(bases)}
    return sorted(names, key=lambda n: rank[n.split(" [")[0]])


def orb_label(doc):
    """The ORB a result ran, as its server reported it: name and version."""
    return f"{get(doc, 'orb.name', '?')} {get(doc, 'orb.version') or '?'}"


# The driver's keys a warm start sets per run (GROUP.KEY, orbbench.warm):
# they say where a run started, not what it measures, so runs that differ
# in them are still repeats of each other (compare, the figures' series).
WARM_KEYS = ("prior_n", "prior_half_width", "prior_from")


def run_keys(doc):
    """The flattened scenario keys (GROUP.prior_n, ...) a warm start sets
    in a result of doc's kind; empty for a kind without the driver."""
    k = KINDS.get(kind_of(doc))
    group = k.settings if k else None
    return {f"{group}.{k}" for k in WARM_KEYS} if group else set()


def scenario_settings(doc):
    """The run's resolved scenario as {dotted key: value as text}, without
    name, description and a warm start's prior (run_keys): what makes two
    runs repeats of each other."""
    def flat(d, prefix=""):
        for k, v in d.items():
            if isinstance(v, dict):
                yield from flat(v, f"{prefix}{k}.")
            else:
                yield f"{prefix}{k}", json.dumps(v, sort_keys=True)
    own = run_keys(doc)
    return {k: v for k, v in flat(doc.get("scenario") or {})
            if k not in ("name", "description") and k not in own}


TAG_KEYS = 3  # a series label names at most this many differing keys


def _setting_tags(group):
    """[(Result, "key=value, …")] for runs of one name that differ in
    settings: each run tagged with the keys that differ among them (at
    most TAG_KEYS, then "+N more"). A key some run lacks is not a
    difference: an older client's result did not record it."""
    flats = [scenario_settings(r.doc) for r in group]
    keys = sorted(k for k in set().union(*flats)
                  if all(k in f for f in flats) and
                  len({f[k] for f in flats}) > 1)
    def text(f, k):
        value = json.loads(f[k])
        return value if isinstance(value, str) else f[k]
    # The fewest leading keys that still tell every distinct setting
    # apart (the label is the group's key: it must not merge two).
    full = [tuple(f[k] for k in keys) for f in flats]
    m = next((m for m in range(min(TAG_KEYS, len(keys)), len(keys) + 1)
              if len({v[:m] for v in full}) == len(set(full))), len(keys))
    def tag(f):
        shown = [f"{k}={text(f, k)}" for k in keys[:m]]
        if len(keys) > m:
            shown.append(f"+{len(keys) - m} more")
        return ", ".join(shown)
    return [(r, tag(f)) for r, f in zip(group, flats)]


def group_by_scenario(results, split_orbs=False, split_settings=False):
    """{scenario name: [Result, …]} in seed order; repeats of a scenario
    (orbbench suite --repeat) share a name and keep their file order. With
    split_orbs and results of several ORBs, the key is "name [orb]" so
    that two ORBs are never taken for repeats. With split_settings, runs
    of one name whose resolved scenarios differ (idle and connected,
    pinned or not) are separate groups too, keyed "name [key=value]" by
    the keys that differ: what a figure draws as different series."""
    several = split_orbs and len({orb_label(r.doc) for r in results}) > 1
    by_name = {}
    for r in results:
        by_name.setdefault(scenario_name(r.doc), []).append(r)
    groups = {}
    for name, group in by_name.items():
        tagged = _setting_tags(group) if split_settings else \
            [(r, "") for r in group]
        for r, tag in tagged:
            tags = ([orb_label(r.doc)] if several else []) + \
                ([tag] if tag else [])
            key = f"{name} [{', '.join(tags)}]" if tags else name
            groups.setdefault(key, []).append(r)
    return {n: groups[n] for n in seed_order(groups)}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


# ---- per step -------------------------------------------------------------

def step_at(doc, n):
    """The step with exactly n servers, or None."""
    for s in doc["steps"]:
        if s["n"] == n:
            return s
    return None


def timed(step):
    """True when the step ran timed rounds (not so with client.connect
    false: round_ms then has count 0 and zeros)."""
    return step["round_ms"].get("count", 1) != 0


# result.held's names in results from before it (2026-12-03), by unit;
# the client still writes them beside it.
HELD_BEFORE = {"servers": "max_servers", "connections": "max_connections"}


def held(doc):
    """What a run held within max_ms (counted in held_unit): result.held,
    or in earlier results result.max_servers (a sweep) or
    result.max_connections (a sweep over connections, kind fanin)."""
    res = doc["result"]
    if "held" in res:
        return res["held"]
    return res["max_connections"] if "max_connections" in res \
        else res["max_servers"]


def held_unit(doc):
    """What held() counts: result.held_unit, else "connections" for an
    earlier fan-in's result and "servers" for a sweep's."""
    res = doc["result"]
    return res.get("held_unit") or (
        "connections" if "max_connections" in res else "servers")


def held_step(doc):
    """The step at max_servers (the largest N within max_ms), else the
    largest step below it (max_servers may be a probe's N, between the
    sweep's steps: the last step is then above the crossing), else None."""
    n = held(doc)
    below = [s for s in doc["steps"] if s["n"] <= n]
    return step_at(doc, n) or (max(below, key=lambda s: s["n"])
                                  if below else None)


def mem_per_server_kb(step, kind):
    """KiB per server of kind pss, uss or mem_available at a step (issue 4
    fields), or None when the step does not have it."""
    v = get(step, f"mem_per_server_kb.{kind}")
    if v is None and MEM_MEASURES.get(kind):
        v = get(step, f"footprint.{MEM_MEASURES[kind]}.mean")
    return v if is_num(v) else None


def server_cpu_per_call_us(step):
    """The servers' CPU per call at a step (µs), or None without it: its
    total over its calls, what the servers spent (tables and figures)."""
    v = get(step, "cpu_per_call_us.server")
    return v if is_num(v) else None


def server_cpu_low_us(step):
    """The servers' CPU per call at a step on its cheapest rounds
    (cpu_per_call_us.server_low, since 2026-12-05), or None: what compare
    tests (docs/compare.md, "The cheapest rounds")."""
    v = get(step, "cpu_per_call_us.server_low")
    return v if is_num(v) else None


# The share of a measurement's timed rounds compare reads its round time
# and server CPU from (the client's LOW_SHARE, LOW_MIN for server_low).
LOW_SHARE = 0.3
LOW_MIN = 5
# What a value of the cheapest rounds is (a metric's per_measurement).
LOW_SAYS = f"cheapest {LOW_SHARE:.0%} of rounds"


def round_ms_low(step):
    """The mean of a measurement's cheapest LOW_SHARE of timed rounds (ms),
    or None with fewer than LOW_MIN of them."""
    each = step.get("rounds_ms")
    if not isinstance(each, list) or len(each) < LOW_MIN or \
            not all(is_num(x) for x in each):
        return None
    k = max(1, math.ceil(LOW_SHARE * len(each) - 1e-9))
    return sum(sorted(each)[:k]) / k


def threads_per_server(step):
    v = get(step, "footprint.threads.mean")
    return v if is_num(v) else None


def has_memory(doc):
    """True when some step has a memory-per-server or threads figure."""
    return any(threads_per_server(s) is not None or
               any(mem_per_server_kb(s, k) is not None for k in MEM_MEASURES)
               for s in doc["steps"])


def value_at(docs, n, fn):
    """Median over runs of fn(step at n), skipping runs without it."""
    return median(fn(s) for s in (step_at(d, n) for d in docs) if s)


def round_ms_at(docs, n):
    return value_at(docs, n, lambda s: s["round_ms"]["median"])


def common_ns(docs_a, docs_b):
    """Every N that both sides reached (a step of some run on each side)."""
    ns = [{s["n"] for d in docs for s in d["steps"]} for docs in
          (docs_a, docs_b)]
    return sorted(ns[0] & ns[1])


# ---- summing up a scenario ------------------------------------------------

def summarize(docs):
    """One scenario's runs (repeats) summed up: max servers (median, min,
    max), runs, stop reasons, round ms at the crossing, memory per server
    and threads per server at the held step (medians over runs)."""
    maxes = [held(d) for d in docs]
    steps = [held_step(d) for d in docs]
    out = {"runs": len(docs), "max_servers": median(maxes),
           "max_servers_min": min(maxes), "max_servers_max": max(maxes),
           "stop_reasons": sorted({d["result"]["stop_reason"] for d in docs}),
           "crossing_ms": median(crossing_ms(d) for d in docs),
           "max_ms": threshold_ms(docs[0]["scenario"]),
           "threads_per_server": median(threads_per_server(s)
                                        for s in steps if s)}
    for k in MEM_MEASURES:
        out[f"{k}_kb_per_server"] = median(mem_per_server_kb(s, k)
                                    for s in steps if s)
    return out


def spread_text(summary):
    """'145' or '145 (140–150, 3 runs)'."""
    s = summary
    text = fmt_num(s["max_servers"])
    if s["runs"] > 1:
        text += (f" ({s['max_servers_min']}–{s['max_servers_max']}, "
                 f"{s['runs']} runs)")
    return text


# ---- environment ----------------------------------------------------------

def _placement(doc):
    """CPU placement: the top-level machine (what the client applied),
    else the scenario's machine keys."""
    m = doc.get("machine")
    if isinstance(m, dict) and "server_cpus" in m:
        servers, client = m.get("server_cpus"), m.get("client_cpus")
    elif isinstance(get(doc, "scenario.machine"), dict):
        m = doc["scenario"]["machine"]
        servers, client = m.get("cpus"), m.get("client_cpus")
    else:
        return "not recorded"
    if not servers and not client:
        return "not pinned"
    return (f"servers on CPUs {servers or 'any'}, "
            f"client on CPUs {client or 'any'}")


def _mem_limit(doc):
    """The memory cgroup limit, applied (machine) or asked (scenario)."""
    m, sm = doc.get("machine"), get(doc, "scenario.machine")
    if isinstance(m, dict) and "mem_limit_bytes" in m:
        mb = (m.get("mem_limit_bytes") or 0) / 1048576
        client = m.get("client_in_cgroup")
    elif isinstance(sm, dict):
        mb, client = sm.get("mem_limit_mb") or 0, sm.get("limit_client")
    else:
        return "not recorded"
    if not mb:
        return "none"
    who = "servers and client" if client else "servers"
    return f"{mb:g} MB ({who})"


def _tool(doc):
    t = doc.get("tool") or {}
    return (f"{t.get('name', 'orbbench')} {t.get('version', '?')} "
            f"(revision {t.get('git_revision', '?')})")


def _mem_total(doc):
    kb = get(doc, "host.mem_total_kb")
    return f"{kb / 1048576:.1f} GiB" if is_num(kb) else None


# (label, how to read it from a result): what can make two runs unlike.
ENVIRONMENT = (
    ("ORB", orb_label),
    ("ORB id", lambda d: get(d, "orb.id")),
    ("ORB library", lambda d: get(d, "orb.library_path")),
    ("server binary", lambda d: get(d, "orb.server_path")),
    ("host", lambda d: get(d, "host.hostname")),
    ("CPU", lambda d: get(d, "host.cpu_model")),
    ("CPUs online", lambda d: get(d, "host.cpus_online")),
    ("memory", _mem_total),
    ("kernel", lambda d: get(d, "host.kernel")),
    ("OS", lambda d: get(d, "host.os")),
    ("tool", _tool),
    ("compiler", lambda d: get(d, "tool.compiler")),
    ("cflags", lambda d: (get(d, "tool.cflags") or "").strip() or None),
    ("CPU placement", _placement),
    ("memory limit", _mem_limit),
)


def environment(results):
    """{label: "value" or "v1, v2"} over results; absent fields are
    'not recorded'."""
    env = {}
    for label, read in ENVIRONMENT:
        vals = [read(r.doc) for r in results]
        vals = [str(v) if v is not None else "not recorded" for v in vals]
        env[label] = ", ".join(dict.fromkeys(vals))
    return env


def environment_differences(env_a, env_b):
    """[(label, value in A, value in B)] where they differ."""
    return [(k, env_a[k], env_b[k]) for k in env_a if env_a[k] != env_b[k]]


def dates(results):
    """'2026-11-29' or '2026-11-29 to 2026-11-30' from started_at."""
    ds = sorted({str(r.doc.get("started_at", ""))[:10] for r in results} -
                {""})
    if not ds:
        return "date not recorded"
    return ds[0] if len(ds) == 1 else f"{ds[0]} to {ds[-1]}"


def footer(results):
    """One line: host, ORB name and version, date, from the results (each
    value escaped and cut: orbbench.escape.terminal)."""
    env = {k: orbesc.terminal(v) for k, v in environment(results).items()}
    return (f"host {env['host']} ({env['CPU']}, {env['CPUs online']} CPUs, "
            f"kernel {env['kernel']}) · {env['ORB']} · "
            f"{orbesc.terminal(dates(results))}")


def command_line(doc):
    """The client's argv as one shell line, or None."""
    cmd = doc.get("command")
    if isinstance(cmd, list) and all(isinstance(a, str) for a in cmd):
        return shlex.join(cmd)
    return None


# ---- formatting -----------------------------------------------------------

def is_fixed_n(doc):
    """True when the run measured one N by design: every step has the same
    n and the sweep could not grow past it (sweep.max_n ≤ that n), e.g.
    the bench suite or a single-N footprint run. A sweep that stopped at
    its first step is not fixed-N."""
    ns = {s["n"] for s in doc["steps"]}
    if len(ns) != 1:
        return False
    max_n = setting(doc, "max_n")
    return not is_num(max_n) or max_n <= next(iter(ns))


def fmt_num(x, digits=None):
    """'—' for None; integers as such; else 3 significant digits."""
    if x is None:
        return "—"
    if digits is not None:
        return f"{x:.{digits}f}"
    if float(x).is_integer() and abs(x) >= 1:
        return str(int(x))
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def ratio(b, a):
    """b / a, or None when either is missing or a is 0."""
    if a is None or b is None or a == 0:
        return None
    return b / a
