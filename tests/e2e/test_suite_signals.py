"""Issue 32: a signal to run-suite is never lost. SIGINT reaches the
running client (it stops and writes its result, 130), but one that comes
between two runs, or while the suite itself compares (a look of
--until-verdict), has no client to reach: the suite remembers it and
stops there, exit 130, its summary and sequential.json whole, nothing
left running. The client here is a wrapper that runs the real one and
then sends the suite SIGINT itself, after its run, ignoring the copy the
suite forwards: so the SIGINT lands after a run is done, every time."""
import json
import os
import signal
import subprocess
import sys
import time

from conftest import (ORBBENCH, ROOT, TINY_SWEEP, alive, children,
                      set_flags, wait_for)

SMALL = set_flags(*TINY_SWEEP)
SUITE = ROOT / "tests" / "fixtures" / "repeat-scenarios"


def interrupting_client(tmp_path, after=1):
    """An orbbench that runs the real one, and after its `after`-th run
    (counted in a file) sends its parent, the suite, SIGINT."""
    count = tmp_path / "runs"
    path = tmp_path / "orbbench"
    path.write_text(f"""#!/bin/sh
trap '' INT
"{ORBBENCH}" "$@"
rc=$?
n=$(( $(cat "{count}" 2>/dev/null || echo 0) + 1 ))
echo $n > "{count}"
[ "$n" -eq {after} ] && kill -INT $PPID
exit $rc
""")
    path.chmod(0o755)
    return path, count


def run_suite(tmp_path, client, *args):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "run-suite"),
                        str(SUITE), "--orbbench", str(client), "--out",
                        str(out), *SMALL, *args], capture_output=True,
                       text=True, timeout=300)
    return p, out


def whole_json(path):
    return json.loads(path.read_text())


def test_sigint_after_a_run_stops_the_suite_there(tmp_path):
    client, count = interrupting_client(tmp_path, after=1)
    p, out = run_suite(tmp_path, client, "--repeat", "3")
    assert p.returncode == 130, p.stderr
    assert count.read_text().strip() == "1"     # no second run started
    s = whole_json(out / "summary.json")
    assert s["interrupted"] is True and len(s["rows"]) == 1
    assert not list(out.glob(".*.tmp"))


def test_sigint_before_a_look_stops_the_sequential_suite(tmp_path):
    """The SIGINT comes after the last run of repeat 2, just before the
    first look: before, it was lost and the suite ran on to its maximum
    and exited 0."""
    client, count = interrupting_client(tmp_path, after=4)
    p, out = run_suite(tmp_path, client, "--paired", "--until-verdict",
                       "--repeat", "2", "--max-repeat", "4",
                       "--variant", "a", "--variant", "b:server.work_us=5")
    assert p.returncode == 130, p.stderr
    # 2 scenarios x 2 repeats = 4 paired runs, then nothing
    assert count.read_text().strip() == "4"
    seq = whole_json(out / "sequential.json")
    assert seq["stopped"] == "interrupted"
    assert whole_json(out / "summary.json")["interrupted"] is True


def test_sigterm_between_runs_ends_143_with_nothing_left(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "run-suite"), str(SUITE),
         "--out", str(out), "--repeat", "3", *SMALL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, ORBBENCH_BIN=str(ORBBENCH.parent)))
    try:
        wait_for(lambda: len(list(out.glob("*.json"))) >= 1, timeout=120)
        kids = children(proc.pid)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    time.sleep(0.5)
    for pid in kids:
        assert not alive(pid)
    for f in out.glob("*.json"):
        whole_json(f)
