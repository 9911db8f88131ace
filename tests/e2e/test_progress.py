"""Live progress with an estimate (docs/usage.md#progress): orbbench run's
--progress-fd lines against the measurements its result records, and
run-suite's lines on a pipe (orbbench.progress's estimate, throttle and
terminal lines on a clock of our own: tests/py/test_progress_lines.py)."""
import json
import os
import re
import shutil
import subprocess

import pytest

import orbbench.progress as orbprogress
from conftest import BIN, ORBBENCH, ROOT, assert_nothing_left

FIXTURES = ROOT / "tests" / "fixtures"
SYNC = FIXTURES / "repeat-scenarios" / "sync-unix.json"


def run_with_fd(tmp_path, *sets, extra=(), scenario=SYNC):
    """orbbench run SCENARIO with --progress-fd on a pipe: (process,
    result, the JSON lines it wrote there)."""
    out = tmp_path / "r.json"
    r, w = os.pipe()
    args = [str(ORBBENCH), "run", str(scenario), "--out", str(out),
            "--no-progress", "--progress-fd", str(w), *extra]
    for s in sets:
        args += ["--set", s]
    try:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                pass_fds=(w,))
        os.close(w)
        w = None
        with os.fdopen(r, "rb") as f:
            r = None
            data = f.read()  # to the end: the run closed its end
        stdout, stderr = proc.communicate(timeout=240)
    finally:
        for fd in (r, w):
            if fd is not None:
                os.close(fd)
    proc.stdout, proc.stderr = stdout, stderr
    doc = json.loads(out.read_text()) if out.exists() else None
    if doc:
        assert_nothing_left(doc)
    return proc, doc, [json.loads(l) for l in data.splitlines()]


def measurements(doc):
    """Every step and probe of a result, in the order taken."""
    return sorted(doc["steps"] + doc["probes"], key=lambda m: m["elapsed_s"])


def test_progress_fd_a_line_per_measurement(tmp_path):
    """A sweep to max_n: one line after every step but the last (after
    it the run is over), each naming the step the result records, with
    an estimate that falls to the end."""
    p, doc, lines = run_with_fd(tmp_path, "sweep.max_n=14", "sweep.start=2",
                                "sweep.step=4", "sweep.rounds=2",
                                "sweep.max_ms=1000")
    assert p.returncode == 0, p.stderr
    assert doc["result"]["stop_reason"] == "max_n"
    taken = measurements(doc)
    assert [m["n"] for m in taken] == [2, 6, 10, 14]
    assert [(l["what"], l["n"]) for l in lines] == \
        [(m["phase"], m["n"]) for m in taken[:-1]]
    for i, l in enumerate(lines):
        assert l["v"] == 1 and l["scenario"] == "sync-unix"
        assert l["phase"] == "sweep" and "side" not in l
        assert l["steps"] == i + 1 and l["probes"] == 0
        assert l["max_ms"] == 1000
        assert l["round_ms"] == pytest.approx(
            taken[i]["round_ms"]["median"], rel=1e-4)
        assert l["left_s"] is not None and l["left_s"] >= 0
    # The result's command is one that runs again: without the descriptor.
    assert "--progress-fd" not in doc["command"]
    assert "--no-progress" in doc["command"]


def test_progress_fd_through_the_search(tmp_path):
    """max_ms below any round: the first step is over, confirmed, and the
    search bisects down to N=1; the lines say search and count its
    measurements, the estimate its budget."""
    p, doc, lines = run_with_fd(tmp_path, "sweep.max_n=14", "sweep.start=2",
                                "sweep.step=4", "sweep.rounds=2",
                                "sweep.near_rounds=2", "sweep.max_ms=0.0001")
    assert p.returncode == 0, p.stderr
    assert doc["result"]["stop_reason"] == "latency"
    taken = measurements(doc)
    assert [(m["phase"], m["n"]) for m in taken] == \
        [("sweep", 2), ("confirm", 2), ("bisect", 1)]
    assert [(l["phase"], l["what"], l["n"], l["probes"]) for l in lines] == \
        [("sweep", "sweep", 2, 0), ("search", "confirm", 2, 1)]
    assert all(l["left_s"] > 0 and l["max_probes"] == 12 for l in lines)


@pytest.mark.parametrize("scenario,sets,unit,total", [
    ("fifo/01-tpc-unix-sync.json",
     ("rate.repeats=4", "rate.duration_s=0.05", "rate.warmup_s=0"),
     "repeat", 4),
    ("miro/01-None-unix.json",
     ("latency.calls=3000", "latency.warmup_calls=0"), "call", 3000)])
def test_progress_fd_of_a_kind_that_counts_repeats_or_calls(
        tmp_path, scenario, sets, unit, total):
    """Kinds without steps (rate, latency; scaling, clock, channel and
    marshal alike) count what they measure: done of total, the estimate
    the rest at their pace, down to 0 at the last."""
    p, doc, lines = run_with_fd(tmp_path, *sets,
                                scenario=ROOT / "scenarios" / scenario)
    assert p.returncode == 0, p.stderr
    assert doc["result"]["stop_reason"] == "done"
    assert lines and all(l["v"] == 1 and l["unit"] == unit and
                         l["total"] == total and l["n"] == -1 and
                         l["round_ms"] is None for l in lines), lines
    done = [l["done"] for l in lines]
    assert done == sorted(done) and done[-1] == total
    if unit == "repeat":
        assert done == [1, 2, 3, 4]
        assert all(l["extra"].endswith(" kHz") for l in lines)
    assert lines[-1]["left_s"] == 0
    assert all(l["left_s"] >= 0 for l in lines)
    text = orbprogress.sub_text(lines[0], 1.0)
    assert f"{done[0]}/{total} {unit}s" in text and "step" not in text


def test_progress_fd_must_be_open(tmp_path):
    for arg, why in (("99", "not an open descriptor"),
                     ("x", "give a descriptor number"),
                     ("0", "give a descriptor number")):
        r = subprocess.run([str(ORBBENCH), "run", str(SYNC), "--out",
                            str(tmp_path / "x.json"), "--progress-fd", arg],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (arg, r.stderr)
        assert f"--progress-fd {arg}: {why}" in r.stderr
        assert not (tmp_path / "x.json").exists()


def test_run_live_line_has_the_estimate(tmp_path):
    """--progress: the live line on stderr, rewritten in place, with N,
    the phase, the round against max_ms and what is left."""
    out = tmp_path / "r.json"
    r = subprocess.run([str(ORBBENCH), "run", str(SYNC), "--out", str(out),
                        "--progress", "--set", "sweep.max_n=10", "--set",
                        "sweep.rounds=2", "--set", "sweep.max_ms=1000"],
                       capture_output=True, timeout=240)
    err = r.stderr.decode()  # bytes: text mode would turn \r into \n
    assert r.returncode == 0, err
    lines = [l for l in err.split("\r\x1b[K") if l.strip()]
    assert re.fullmatch(r"sync-unix: N=2  sweep  round [0-9.]+ of 1000 ms  "
                        r"1 step  about [0-9.]+ s left  MemAvailable "
                        r"[0-9.]+ GiB  \([0-9]+ s\)", lines[0]), lines
    assert "N=6  sweep" in lines[1] and "2 steps" in lines[1]
    assert err.endswith("\r\x1b[K")  # erased at the end


def suite_dir(tmp_path):
    src = tmp_path / "suite"
    src.mkdir()
    shutil.copy(SYNC, src)
    return src


def suite(src, out, **env):
    """run-suite over src into out, on pipes, with the client under test
    and ORBBENCH_PROGRESS_EVERY as given (else its default)."""
    base = {k: v for k, v in os.environ.items()
            if k != "ORBBENCH_PROGRESS_EVERY"}
    return subprocess.run(
        [str(ROOT / "scripts" / "run-suite"), str(src), "--out", str(out),
         "--set", "sweep.max_n=14", "--set", "sweep.rounds=2", "--set",
         "sweep.max_ms=1000"], capture_output=True, text=True, timeout=240,
        env=dict(base, ORBBENCH_BIN=str(BIN), **env))


SUB = re.compile(r"\[1/1\] sync-unix \| N=(\d+) (sweep|search|refine)"
                 r"(?: \(\w+ \d+/\d+\))?, round [0-9.]+ of [0-9.g]+ ms, "
                 r"(\d+) steps?, about [0-9.ms]+ left; elapsed ([0-9.ms]+)"
                 r"(?:, about [0-9.ms]+ left)?")


def test_suite_on_a_pipe_every_measurement(tmp_path):
    """run-suite on a pipe, ORBBENCH_PROGRESS_EVERY=0: the scenario's own
    line after each of its measurements but the last, between the suite's
    start and end lines, each with N, the phase and what is left."""
    out = tmp_path / "out"
    r = suite(suite_dir(tmp_path), out, ORBBENCH_PROGRESS_EVERY="0")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == "[1/1] sync-unix ..."
    assert lines[-1].startswith("[1/1] sync-unix: max servers 14 (max_n)")
    subs = [SUB.fullmatch(l) for l in lines[1:-1]]
    assert all(subs), lines
    doc = json.loads((out / "sync-unix.json").read_text())
    taken = measurements(doc)
    assert [int(m.group(1)) for m in subs] == [m["n"] for m in taken[:-1]]
    assert [int(m.group(3)) for m in subs] == list(range(1, len(taken)))
    assert "\x1b" not in r.stderr  # a pipe gets no terminal escapes


def test_suite_on_a_pipe_throttled(tmp_path):
    """The default: the scenario's line at most every 5 seconds, so the
    first at once, and a short run no more."""
    out = tmp_path / "out"
    r = suite(suite_dir(tmp_path), out)
    assert r.returncode == 0, r.stderr
    subs = [l for l in r.stderr.splitlines() if " | " in l]
    assert subs and all(SUB.fullmatch(l) for l in subs)
    seconds = sorted(m["elapsed_s"] for m in measurements(json.loads(
        (out / "sync-unix.json").read_text())))
    assert len(subs) <= 1 + int(seconds[-1] // orbprogress.EVERY_S)

