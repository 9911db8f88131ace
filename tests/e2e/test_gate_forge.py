"""Issue 51: a property test (Debian's python3-hypothesis) of what a pull
request can forge, beside test_gate_fuzz.py's malformed input. The
material is real runs: tests/fixtures/repeat-A/-B (unpaired, 3 repeats,
B's servers 100 us a call slower) and a tiny paired suite run here (B
1,000 us a call slower). Each example copies one pair of sets and forges
them semantically:

  copy       a run copied beside itself (byte for byte, or written out
             again): counted once, the verdict of the honest sets;
  edited     a run's copy with a number changed (the same run id):
             refused;
  killed     a run that did not end (stop running, interrupted,
             write_failed; its last checkpoint cut short): left out,
             the verdict of the sets without it;
  missing    every run of one scenario gone from B: refused;
  base       a run of A copied into B, or B a copy of A: refused;
  range      a number a metric reads out of its range: refused;
  names      hostile names (scenario, ORB, kernel, host, library) on
             every run: the verdict of the honest sets, escaped;
  failed     B's runs of a scenario that measured nothing: refused;
  saved      compare's saved JSON of the honest sets with a verdict,
             ratio or value rewritten: refused by gate.

For each it asserts: exit 0 or 1 only when it is the exit of the honest
sets (the runs' own verdict), 2 otherwise; gate on compare's saved JSON
exits as compare --fail-on does; every format (text, md, junit, github)
stays well formed and escaped (no line the tool did not mean starts
with :: or #, no raw HTML, no control character, JUnit parses); and,
for some examples, a report written into a folder with a file size
limit leaves every file whole or absent (no temporary file, every PNG,
SVG, report.md and report.html complete).

Budget: ORBBENCH_FUZZ_SECONDS (default 4, what `make test` spends),
`make fuzz-gate` runs it for FUZZ_GATE_SECONDS (1200); the count of
examples is printed (pytest -s)."""
import json
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import hypothesis.configuration
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import forgekit
import orbbench.commands.compare as orbcompare
import orbbench.commands.gate as orbgatecmd
import orbbench.validate as orbvalidate
from conftest import ROOT, tiny_paired_suite

# One worker for the module (make test's -n 2): its module-scoped runs are
# made once, not once a worker.
pytestmark = pytest.mark.xdist_group("test_gate_forge")

SECONDS = float(os.environ.get("ORBBENCH_FUZZ_SECONDS", "4"))
hypothesis.configuration.set_hypothesis_home_dir(
    str(ROOT / "build" / "hypothesis"))
FIXTURES = ROOT / "tests" / "fixtures"
OURS = "::error title=orbbench regression::"
LINE_BREAKS = ("\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c",
               "\x1c", "\x1d", "\x1e")
# Headings compare --format md writes itself.
OWN_HEADINGS = re.compile(r"^(# Comparison \(A is the baseline\)|## The suite"
                          r"|## Per scenario|## Median round time at each N"
                          r" both reached)")
HOSTILE = ["x\n::error::forged", "y\r\n## heading", "<img src=x onerror=1>",
           "[a](http://x)", "a|b", "\x1b[2J\x1b]0;t\x07", "%0A::warning::w",
           "\u2028::notice::n", "`code` *em* $math$", "::add-mask::s",
           "#!/bin/sh", "</svg><script>", "1. item", "- item", "& &amp;"]
COUNT = {"sets": 0, "saved": 0, "reports": 0}


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    """{name: (A folder, B folder)} of real runs."""
    out = tmp_path_factory.mktemp("forge") / "suite"
    proc = tiny_paired_suite(out, 3)
    assert proc.returncode == 0, proc.stderr
    return {"unpaired": (FIXTURES / "repeat-A", FIXTURES / "repeat-B"),
            "paired": (out / "a", out / "b")}


# ---- running compare and gate in process ----------------------------------

def compare(a, b, *args):
    return forgekit.in_process(orbcompare.main,
                               [str(a), str(b), *map(str, args)])


def lines(text):
    for brk in LINE_BREAKS:
        text = text.replace(brk, "\n")
    return text.split("\n")


def check_output(fmt, code, out, err):
    """Well formed and escaped for its medium, whatever the names."""
    assert "Traceback" not in err
    for stream, text in (("stdout", out), ("stderr", err)):
        assert "\x1b" not in text and "\x00" not in text, stream
        for line in lines(text):
            if line.lstrip().startswith("::"):
                assert fmt == "github" and stream == "stderr" and \
                    line.startswith(OURS), (stream, line[:200])
    if code == 2:
        # one line, after the notes on runs left out or counted once
        said = [x for x in err.splitlines() if x.strip()]
        assert out == "" and said and all(
            "counted once" in x or "not counted as a repeat" in x
            for x in said[:-1]), err[-500:]
        return
    if fmt == "junit":
        ET.fromstring(out.encode("utf-8"))
    if fmt in ("md", "github"):
        assert "<img" not in out and "<script" not in out
        assert "](http://x)" not in out
        for line in out.splitlines():
            if line.startswith("#"):
                assert OWN_HEADINGS.match(line) or \
                    line.startswith("## orbbench: "), line[:200]


# ---- forging ---------------------------------------------------------------

def runs(folder):
    return sorted(f for f in folder.glob("*.json")
                  if f.name != "summary.json")


def load(f):
    return json.loads(f.read_text())


def save(f, doc, indent=None):
    f.write_text(json.dumps(doc, indent=indent))


def scenario_of(f):
    return load(f)["scenario"]["name"]


def forge_copy(draw, a, b):
    side = draw(st.sampled_from([a, b]))
    f = draw(st.sampled_from(runs(side)))
    again = draw(st.booleans())
    copy = side / f"zz-copy-{f.name}"
    if again:
        save(copy, load(f), indent=2)       # the same run, written again
    else:
        shutil.copy(f, copy)
    return "honest", None


def forge_edited(draw, a, b):
    side = draw(st.sampled_from([a, b]))
    f = draw(st.sampled_from(runs(side)))
    d = load(f)
    s = draw(st.sampled_from(d["steps"]))
    s["round_ms"]["median"] *= draw(st.sampled_from([0.5, 1.5]))
    save(side / f"zz-edited-{f.name}", d)
    return "refused", "edited copy"


def forge_killed(draw, a, b):
    side = draw(st.sampled_from([a, b]))
    f = draw(st.sampled_from(runs(side)))
    d = load(f)
    d["result"]["stop_reason"] = draw(st.sampled_from(
        sorted(orbvalidate.NOT_ENDED)))
    if draw(st.booleans()):            # its last checkpoint, cut short
        k = draw(st.integers(1, len(d["steps"])))
        d["steps"] = d["steps"][:k]
        d["probes"] = []
        d["result"].pop("crossing_n", None)
        d["result"].pop("crossing_interval", None)
    save(f, d)
    name = f.name
    return "honest", lambda a2, b2: (a2 if side == a else b2).joinpath(
        name).unlink()


def forge_missing(draw, a, b):
    name = draw(st.sampled_from(sorted({scenario_of(f) for f in runs(b)})))
    for f in runs(b):
        if scenario_of(f) == name:
            f.unlink()
    return "refused", "missing scenario"


def forge_base(draw, a, b):
    if draw(st.booleans()):
        f = draw(st.sampled_from(runs(a)))
        target = draw(st.sampled_from(runs(b) + [b / "zz-from-a.json"]))
        shutil.copy(f, target)
    else:
        for f in runs(b):
            f.unlink()
        for f in runs(a):
            shutil.copy(f, b / f.name)
    return "refused", "copy of the baseline"


OUT_OF_RANGE = [
    ("steps", "cpu_per_call_us.server", -1.0),
    ("steps", "round_ms.median", 0.0),
    ("steps", "round_ms.median", -2.5),
    ("steps", "n", 0),
    ("steps", "calls", -1),
    ("steps", "mem_per_server_kb.pss", -5.0),
    ("steps", "rounds_ms", [0.1, -0.2]),
    ("result", "crossing_n", 0.5),
    ("result", "max_servers", -3),
]


def set_dotted(d, dotted, v):
    *path, last = dotted.split(".")
    for p in path:
        d = d.setdefault(p, {})
    d[last] = v


def forge_range(draw, a, b):
    side = draw(st.sampled_from([a, b]))
    f = draw(st.sampled_from(runs(side)))
    d = load(f)
    where, field, v = draw(st.sampled_from(OUT_OF_RANGE))
    if where == "steps":
        set_dotted(draw(st.sampled_from(d["steps"])), field, v)
    else:
        set_dotted(d["result"], field, v)
        if field == "max_servers":
            d["result"].pop("held", None)
    save(f, d)
    return "refused", "out of range"


NAME_FIELDS = ["scenario.name", "orb.version", "host.kernel",
               "host.hostname", "orb.library_path"]


def forge_names(draw, a, b):
    """A hostile value for one name field on every run that has it (a
    scenario's name on both sides' runs of it)."""
    field = draw(st.sampled_from(NAME_FIELDS))
    value = draw(st.lists(st.sampled_from(HOSTILE), min_size=1,
                          max_size=4).map("".join))
    if field == "scenario.name":
        value = value[:200]
        name = draw(st.sampled_from(sorted({scenario_of(f)
                                            for f in runs(a)})))
    for f in runs(a) + runs(b):
        d = load(f)
        if field == "scenario.name" and d["scenario"]["name"] != name:
            continue
        set_dotted(d, field, value)
        save(f, d)

    def honest(a2, b2):
        pass
    return "names", honest


def forge_failed(draw, a, b):
    name = draw(st.sampled_from(sorted({scenario_of(f) for f in runs(b)})))
    mine = [f for f in runs(b) if scenario_of(f) == name]
    for f in draw(st.lists(st.sampled_from(mine), min_size=1,
                           unique=True)):
        d = load(f)
        d["steps"], d["probes"] = [], []
        for k in ("crossing_n", "crossing_interval", "crossing"):
            d["result"].pop(k, None)
        d["result"].update(stop_reason=draw(st.sampled_from(
            ["server_died", "call_failed", "partner_failed"])),
            max_servers=0)
        if "held" in d["result"]:
            d["result"]["held"] = 0
        save(f, d)
    return "refused", "measured nothing"


FORGERIES = {"copy": forge_copy, "edited": forge_edited,
             "killed": forge_killed, "missing": forge_missing,
             "base": forge_base, "range": forge_range, "names": forge_names,
             "failed": forge_failed}

HONEST = {}
# What a reader refuses (not only the gate's decision): a report of
# such sets is refused too. A report of sets that cannot decide (a
# missing scenario, runs that measured nothing) is written: it says so.
REFUSED_AT_LOAD = ("edited copy", "copy of the baseline", "out of range")


def honest_code(material, kind, fix, work):
    """compare --fail-on slower's exit on the honest sets: the material
    itself, or a copy of it with fix(a, b) applied."""
    if fix is None:
        if kind not in HONEST:
            HONEST[kind] = compare(*material[kind], "--fail-on",
                                   "slower")[0]
        return HONEST[kind]
    a2, b2 = work / "honest-a", work / "honest-b"
    shutil.copytree(material[kind][0], a2)
    shutil.copytree(material[kind][1], b2)
    fix(a2, b2)
    return compare(a2, b2, "--fail-on", "slower")[0]


# ---- whole or absent -----------------------------------------------------------

def whole(f):
    """True when f is a complete file of its kind."""
    data = f.read_bytes()
    if f.suffix == ".png":
        return data.startswith(b"\x89PNG\r\n\x1a\n") and \
            data[-12:-4] == b"\x00\x00\x00\x00IEND"
    if f.suffix == ".svg":
        return data.rstrip().endswith(b"</svg>")
    if f.suffix == ".html":
        return data.rstrip().endswith(b"</html>")
    if f.suffix == ".md":
        return data.endswith(b"\n") or not data
    return True


def limited(limit):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return set_limit


def check_report(a, b, out, limit):
    """report --results A --versus B into out, under a file size limit:
    exit 0 with every file whole, or 2 with one line; never a temporary
    file left, never a partial one."""
    proc = subprocess.run(
        [str(ROOT / "scripts" / "report"), "--results", str(a), "--versus",
         str(b), "--out", str(out)], capture_output=True, text=True,
        errors="replace", timeout=600,
        preexec_fn=limited(limit) if limit else None)
    assert proc.returncode in (0, 2), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    if proc.returncode == 2:
        assert len([x for x in proc.stderr.splitlines()
                    if "cannot write" in x or x.count(": ") > 0]) >= 1
    left = [p for p in out.rglob("*") if p.is_file()] if out.exists() \
        else []
    assert not [p for p in left if p.name.endswith(".tmp")], left
    for p in left:
        assert whole(p), p
    if proc.returncode == 0:
        assert (out / "report.md").is_file() and (out / "report.html") \
            .is_file()
    return proc.returncode


# ---- the property ---------------------------------------------------------------

def run_for(seconds, fn):
    deadline = time.monotonic() + seconds
    while True:
        fn()
        if time.monotonic() >= deadline:
            break


@pytest.mark.long
def test_forged_result_sets_never_pass_a_verdict_the_runs_do_not_give(
        material):
    base = Path(tempfile.mkdtemp(prefix="gate-forge-"))
    try:
        @settings(max_examples=4, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.data(), st.sampled_from(sorted(material)),
               st.sampled_from(sorted(FORGERIES)),
               st.sampled_from(["text", "md", "junit", "github"]),
               st.sampled_from(["text", "junit", "github"]))
        def one(data, kind, how, fmt, gate_fmt):
            work = base / "work"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            a, b = work / "a", work / "b"
            shutil.copytree(material[kind][0], a)
            shutil.copytree(material[kind][1], b)
            expect, fix = FORGERIES[how](data.draw, a, b)
            code, out, err = compare(a, b, "--fail-on", "slower",
                                     "--format", fmt)
            COUNT["sets"] += 1
            check_output(fmt, code, out, err)
            if expect == "refused":
                assert code == 2, (how, fix, code, err[-500:])
            else:
                want = honest_code(material, kind,
                                   None if expect == "names" else fix, work)
                assert code == want, (how, code, want, err[-500:])
            # gate on the saved comparison decides as compare --fail-on
            jcode, jout, jerr = compare(a, b, "--format", "json")
            if jcode == 0:
                saved = work / "compare.json"
                saved.write_text(jout)
                gcode, gout, gerr = forgekit.in_process(orbgatecmd.main, [
                    str(saved), "--fail-on", "slower", "--format",
                    gate_fmt])
                check_output(gate_fmt, gcode, gout, gerr)
                assert gcode == code, (how, gcode, code, gerr[-500:])
                # ... and refuses it rewritten
                doc = json.loads(jout)
                if forge_saved(data.draw, doc):
                    saved.write_text(json.dumps(doc))
                    gcode, _, gerr = forgekit.in_process(orbgatecmd.main, [
                        str(saved), "--fail-on", "slower"])
                    COUNT["saved"] += 1
                    assert gcode == 2, (how, gerr[-500:])
            else:
                assert jcode == 2 and code == 2, (jcode, code)
            # every tenth set, in a long run: a report of it, written
            # under a file size limit (seconds each: not in make test)
            if COUNT["sets"] % 10 == 0 and SECONDS > 60:
                COUNT["reports"] += 1
                limit = data.draw(st.sampled_from([None, 30_000, 150_000]))
                rc = check_report(a, b, work / "report", limit)
                if fix in REFUSED_AT_LOAD:
                    assert rc == 2      # no report of forged runs

        run_for(SECONDS, one)
        print(f"\nforge: {COUNT['sets']} forged result sets, "
              f"{COUNT['saved']} rewritten comparisons, {COUNT['reports']} "
              "reports under a size limit, 0 failures")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def forge_saved(draw, doc):
    """Rewrite one thing of a saved comparison that its values contradict:
    True when something was rewritten."""
    tested = [m for r in doc["scenarios"] for m in r["metrics"].values()
              if m.get("q_value") is not None]   # tested and primary
    if not tested:
        return False
    m = draw(st.sampled_from(tested))
    how = draw(st.sampled_from(["verdict", "ratio", "value", "primary"]))
    if how == "verdict":
        words = [w for w in ("same", "inconclusive", "faster", "slower",
                             "negligible") if w != m["verdict"]]
        m["verdict"] = draw(st.sampled_from(words))
        m.pop("withheld", None)
    elif how == "ratio":
        f = draw(st.sampled_from([0.5, 2.0]))
        for k in ("ratio", "ci_low", "ci_high"):
            m[k] *= f
    elif how == "value":
        vals = m["b_values"]
        i = draw(st.sampled_from([i for i, v in enumerate(vals)
                                  if v is not None] or [0]))
        vals[i] = (vals[i] or 1.0) * 3
    else:
        m["primary"] = not m["primary"]
    return True
