"""What the tests of plot, compare and report share: running the
scripts, reading their output, the result fixtures, and results
constructed in the tests (tests/py/test_plot.py, test_compare.py,
test_report.py, tests/e2e/test_history.py and others)."""
import json
import math
import re
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPTS = ROOT / "scripts"
FIX = ROOT / "tests" / "fixtures"
A, B = FIX / "A", FIX / "B"
# A result of a client older than the crossing search and the footprint
# (no crossing_n, probes, rounds_ms or footprint): still read.
OLD = FIX / "old-format" / "thread-per-call-tcp.json"
SCENARIO_NAMES = ["thread-per-call-tcp", "thread-per-call-unix",
                  "pool100-tcp", "pool100-unix", "pool5-unix", "sync-unix",
                  "event-tcp", "event-unix"]
PAIRED = ROOT / "results" / "examples" / "resolution-2026-11-30" / \
    "paired-base-vs-work6"


def script(name, *args, timeout=60):
    return subprocess.run([str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def png_size(path):
    """(width, height) from the PNG's IHDR chunk."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def check_png(path):
    """A PNG of some size, and its SVG beside it."""
    assert path.is_file() and path.stat().st_size > 5000, path
    w, h = png_size(path)
    assert w >= 400 and h >= 300, (path, w, h)
    svg = path.with_suffix(".svg")
    assert svg.is_file() and b"<svg" in svg.read_bytes()[:2000]


def load(path):
    return json.loads(Path(path).read_text())


def num(x):
    """A number as compare and report print it (README): '—' for none,
    integers as such, else three significant digits."""
    if x is None:
        return "—"
    if float(x).is_integer() and abs(x) >= 1:
        return str(int(x))
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def crossing_value(doc):
    """A run's crossing N as the README defines it: result.crossing_n, or
    max_servers for a run that never crossed max_ms."""
    c = doc["result"].get("crossing_n")
    return c if c is not None else doc["result"]["max_servers"]


def measured_ns(doc):
    """Every N a run measured (steps and probes)."""
    return {s["n"] for s in doc["steps"] + doc.get("probes", [])}


def step_mem(doc, n, kind="pss"):
    """A run's memory per server of kind at its step of n servers."""
    step = next(s for s in doc["steps"] if s["n"] == n)
    return step["mem_per_server_kb"][kind]


def md_rows(md, first_head):
    """{first cell: {header: cell}} of the markdown table whose header
    starts with first_head."""
    lines = md.splitlines()
    at = next(i for i, l in enumerate(lines)
              if l.startswith(f"| {first_head} |"))
    head = [c.strip() for c in lines[at].strip("|").split("|")]
    rows = {}
    for line in lines[at + 2:]:
        if not line.startswith("| "):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(head, cells))
    return rows


def docs_of(folder):
    """{scenario name: [doc, …]} straight from the fixture files."""
    out = {}
    for f in sorted(Path(folder).glob("*.json")):
        if f.name != "summary.json":
            d = load(f)
            out.setdefault(d["scenario"]["name"], []).append(d)
    return out


@pytest.fixture(scope="module")
def plotted(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots") / "A"
    r = script("plot", A, "--out", out)
    assert r.returncode == 0, r.stderr
    return out, r


def two(x):
    return "—" if x is None else f"{x:.2f}"


def ratio_of(b, a):
    return b / a if a and b and a > 0 and b > 0 else None


def fixture_pairs():
    """[(name, A's run, B's run)] of the single-run fixtures, in the seed
    order; B's servers burn server.work_us more per call than A's."""
    da, db = docs_of(A), docs_of(B)
    return [(n, da[n][0], db[n][0]) for n in SCENARIO_NAMES]


ORB_425 = {"name": "omniORB", "version": "4.2.5", "id": "omniorb-system"}
ORB_433 = {"name": "omniORB", "version": "4.3.3", "id": "omniorb-4.3.3"}


def summary(value, count=10):
    return {"count": count, "min": value, "mean": value, "median": value,
            "p90": value, "p99": value, "max": value, "stddev": 0.0}


def measurement(n, round_ms, cpu_us=None, pss_kb=None, phase="sweep",
                rounds=10):
    """One step or probe as the client writes it."""
    m = {"n": n, "round_ms": summary(round_ms, rounds),
         "rounds_ms": [round_ms] * rounds, "calls": n * rounds,
         "phase": phase}
    if cpu_us is not None:
        m["cpu_per_call_us"] = {"server": cpu_us, "server_user": cpu_us / 2,
                                "server_sys": cpu_us / 2, "client_user": 1.0,
                                "client_sys": 1.0}
    if pss_kb is not None:
        m["mem_per_server_kb"] = {"pss": pss_kb, "uss": pss_kb - 50,
                                  "mem_available": pss_kb + 200}
    return m


def result_doc(name="sync-unix", crossing=100.0, steps=(), probes=(),
               orb=None, scenario=None, old=False, max_servers=None):
    """A small result of schema orbbench-result/1; old=True leaves out
    what older clients did not write (crossing_n, probes, phase)."""
    res = {"max_servers": max_servers if max_servers is not None else
           int(crossing or 0), "stop_reason": "latency", "detail": ""}
    sc = {"name": name, "description": "", "transport": "unix",
          "mode": "sync", "server": {"kind": "omniorb", "work_us": 0},
          "sweep": {"max_ms": 100.0, "max_n": 4000}}
    for key, value in (scenario or {}).items():
        group, _, leaf = key.partition(".")
        sc[group][leaf] = value
    doc = {"schema": "orbbench-result/1", "scenario": sc,
           "steps": list(steps), "result": res, "orb": dict(orb or ORB_425),
           "host": {"hostname": "h"}}
    if old:
        for s in doc["steps"]:
            s.pop("phase", None)
            s.pop("rounds_ms", None)
    else:
        res["crossing_n"] = crossing
        res["crossing_interval"] = None if crossing is None else \
            [crossing - 2, crossing + 2]
        doc["probes"] = list(probes)
    return doc


def write_side(folder, docs):
    """Write docs as NAME.rK.json into folder; return folder. Each file
    records the command that wrote it, as a real run does (its own
    --out): two runs are never one file's copies (a copy is counted once,
    orbbench.validate)."""
    folder.mkdir(parents=True, exist_ok=True)
    counts = {}
    for d in docs:
        name = d["scenario"]["name"]
        counts[name] = counts.get(name, 0) + 1
        f = folder / f"{name}.r{counts[name]}.json"
        d = dict(d)
        d.setdefault("command", ["orbbench", "run", f"{name}.json",
                                 "--out", str(f)])
        f.write_text(json.dumps(d))
    return folder


def run_of(name, crossing, c_round, k_cpu, m_pss, last_probe):
    """A run whose median round time is c_round (n/10)^2 ms, server CPU
    k_cpu n/10 µs per call and PSS m_pss (400 + 3000/n) KiB: steps at 10,
    20, 30, 40, probes at 44, 46 (twice) and last_probe."""
    def at(n, phase, mem=True):
        return measurement(n, c_round * (n / 10) ** 2, k_cpu * n / 10,
                           m_pss * (400 + 3000 / n) if mem else None, phase)
    steps = [at(n, "sweep") for n in (10, 20, 30, 40)]
    probes = [at(44, "confirm", False), at(46, "bracket", False),
              at(46, "bisect", False), at(last_probe, "bisect", False)]
    return result_doc(name, crossing, steps, probes)


# Per scenario and side: crossing_n, round-time factor, CPU factor and PSS
# factor of three runs. The last probes are at 48, 50, 52 in A and 49, 51,
# 53 in B, so the largest N every run measured is 48 (a probe).
SYNTH = {
    # B holds 10% more servers with 20% shorter rounds, same CPU: faster
    "sync-unix": {"a": ([100, 101, 99], [1.0, 1.01, 0.99],
                        [10, 10.5, 9.5], [1.0, 1.01, 0.99]),
                  "b": ([110, 111, 109], [0.8, 0.808, 0.792],
                        [10.2, 9.7, 10.1], [1.08, 1.09, 1.07])},
    # B holds more servers but spends 20% more CPU per call: mixed
    "pool5-unix": {"a": ([100, 101, 99], [1.0, 1.01, 0.99],
                         [10, 10.1, 9.9], [1.0, 1.0, 1.0]),
                   "b": ([110, 111, 109], [1.0, 1.01, 0.99],
                         [12, 12.1, 11.9], [1.0, 1.0, 1.0])},
    # every difference inside the noise: same
    "event-tcp": {"a": ([100, 120, 80], [1.0, 1.2, 0.8],
                        [10, 12, 8], [1.0, 1.05, 0.95]),
                  "b": ([105, 125, 85], [1.05, 1.25, 0.85],
                        [10.5, 12.5, 8.5], [1.0, 0.95, 1.05])},
}


@pytest.fixture
def synth_sides(tmp_path):
    sides = {}
    for side, first in (("a", 48), ("b", 49)):
        docs = []
        for name, runs in SYNTH.items():
            cross, rnd, cpu, pss = runs[side]
            for i in range(3):
                docs.append(run_of(name, cross[i], rnd[i], cpu[i], pss[i],
                                   first + 2 * i))
                if side == "b":
                    docs[-1]["orb"] = dict(ORB_433)
        sides[side] = write_side(tmp_path / side.upper(), docs)
    return sides["a"], sides["b"]


def crossing_only(name, logs, side):
    """Runs of name whose crossing N is 100 e^x for x in logs, and nothing
    else measured (no steps): crossing N is the scenario's only test."""
    return [result_doc(name, 100 * math.exp(x), orb=ORB_433 if side == "b"
                       else ORB_425) for x in logs]


def check_links(md, folder):
    """Every link of report.md points at a file written beside it, or at
    one of its own headings."""
    heads, seen = set(), {}
    for h in re.findall(r"^#+ (.+)$", md, re.M):
        a = re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
        # GitHub suffixes a repeated heading's anchor -1, -2, ...
        heads.add(a if a not in seen else f"{a}-{seen[a]}")
        seen[a] = seen.get(a, 0) + 1
    for target in re.findall(r"\]\(([^)]+)\)", md):
        if target.startswith("#"):
            assert target[1:] in heads, target
        else:
            assert (folder / target).is_file(), target


def bad_inputs(tmp_path):
    """[(path given to plot and compare, folder given to report, the path
    each message must name)]."""
    notjson = tmp_path / "notjson" / "x.json"
    notjson.parent.mkdir()
    notjson.write_text("this is not JSON\n")
    schema = tmp_path / "schema" / "old.json"
    schema.parent.mkdir()
    doc = load(A / "sync-unix.json")
    doc["schema"] = "orbbench-result/0"
    schema.write_text(json.dumps(doc))
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = tmp_path / "missing.json"
    return [(notjson, notjson.parent, notjson),
            (schema, schema.parent, schema),
            (empty, empty, empty),
            (missing, missing, missing)]


def check_one_line(r, path):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(path) in lines[0] and "Traceback" not in r.stderr
