"""End-to-end: crossing-replay (tests/replay/crossing_replay.c, `make
crossing-replay`) on a recorded cold sweep: --probes K refits on the
steps and the first K probes alone."""
import json
import re
import subprocess

import pytest

from conftest import ROOT

# One worker for the tests that run make in the tree (make test's -n 2):
# two makes at once would write the same files of build/.
pytestmark = pytest.mark.xdist_group("make")

REPLAY = ROOT / "build" / "release" / "tests" / "crossing-replay"
RESULT = (ROOT / "results" / "examples" / "resolution-2026-11-30" /
          "paired-a-vs-a" / "a" / "07-event-tcp.r1.json")
NEW = re.compile(r"\tnew ([\d.]+) \[([\d.]+), ([\d.]+)\]")
FIRST = re.compile(r"\tfirst (\d+) probes (\S+) ([\d.]+) \[([\d.]+), ([\d.]+)\]")


@pytest.fixture(scope="module")
def replay():
    subprocess.run(["make", "-s", "crossing-replay"], cwd=ROOT, check=True,
                   capture_output=True, timeout=300)

    def run(*args):
        return subprocess.run([str(REPLAY), *args], capture_output=True,
                              text=True, timeout=60)
    return run


def line(proc):
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[0]


def test_every_probe_kept_is_the_full_fit_and_none_the_steps_alone(replay):
    doc = json.loads(RESULT.read_text())
    probes = len(doc["probes"])
    assert probes >= 2
    full = line(replay("--probes", str(probes), str(RESULT)))
    new = tuple(round(float(x)) for x in NEW.search(full).groups())
    k, method, *got = FIRST.search(full).groups()
    assert int(k) == probes and method == "local-fit"
    assert tuple(round(float(x)) for x in got) == new
    # The steps alone: a bracket from the sweep's own steps (its last
    # under max_ms and its first over), a wider interval than with the
    # probes near the crossing, and still about the same N.
    steps = line(replay("--probes", "0", str(RESULT)))
    _, _, n, low, high = FIRST.search(steps).groups()
    n, low, high = float(n), float(low), float(high)
    assert low < n < high
    assert (high - low) > (new[2] - new[1])
    max_ms = doc["scenario"]["sweep"]["max_ms"]
    under = [s["n"] for s in doc["steps"]
             if s["round_ms"]["median"] <= max_ms]
    over = [s["n"] for s in doc["steps"]
            if s["round_ms"]["median"] > max_ms]
    assert max(under) / 1.5 < n < min(over) * 1.5
    # Without --probes the line is as before.
    assert "\tfirst " not in line(replay(str(RESULT)))


@pytest.mark.parametrize("args", [["--probes", "x", str(RESULT)],
                                  ["--probes", "-1", str(RESULT)],
                                  ["--probes", "2"]])
def test_a_bad_count_or_no_file_is_exit_2(replay, args):
    proc = replay(*args)
    assert proc.returncode == 2
    assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1
