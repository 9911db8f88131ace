"""Issue 51: the gate fails closed, second round. Each try of the issue
where a run is the point, as a test: a head whose servers die, a run
killed mid-sweep or cut short by a file size limit, copies of a real
paired run, two suites on one --out, a read-only --out (the tries where
forging is the point: tests/py/test_fails_closed_forged.py). A gate
that cannot decide exits 2 with one line, never 0 or 1; a write that
fails names its file and leaves nothing partial."""
import json
import os
import resource
import shutil
import signal
import subprocess

import pytest

import orbbench.outlock as orboutlock
from closedkit import (FIXTURES, SCRIPTS, check_nothing_partial, compare,
                       edit, gate, refused, run, runs, saved, sets)
from conftest import (B_WORK_US, ORBBENCH, TINY_SWEEP, assert_nothing_left,
                      kill_quietly, run_suite, set_flags, tiny_paired_suite,
                      wait_for)

# One worker for the module (make test's -n 2): its module-scoped runs are
# made once, not once a worker.
pytestmark = pytest.mark.xdist_group("test_fails_closed")

SMALL = set_flags(*TINY_SWEEP)


# ---- 1. a head whose servers all die ---------------------------------------

@pytest.fixture(scope="module")
def dead_head(tmp_path_factory):
    """A real paired suite whose head's server is /bin/false: every run of
    both sides fails (the base's with partner_failed)."""
    out = tmp_path_factory.mktemp("dead") / "suite"
    r = run_suite(FIXTURES / "repeat-scenarios", "--paired", "--repeat", "3",
                  "--variant", "base", "--variant",
                  "head:server.path=/bin/false", "--out", out, *SMALL)
    assert r.returncode == 1, r.stderr       # failed runs: exit 1
    return out / "base", out / "head"


@pytest.mark.parametrize("fmt", ["text", "junit", "github", "md"])
def test_a_head_whose_servers_die_fails_closed_in_every_format(dead_head,
                                                               fmt):
    base, head = dead_head
    refused(compare(base, head, "--fail-on", "slower", "--format", fmt),
            "no tested metric in any scenario", "server_died",
            "partner_failed", "cannot decide")


def test_gate_and_compare_decide_alike_on_a_dead_head(dead_head, tmp_path):
    base, head = dead_head
    f = saved(tmp_path, base, head)
    refused(gate(f, "--fail-on", "slower"), "no tested metric",
            "cannot decide")
    # without --fail-on compare says what it saw, and exits 0
    text = compare(base, head)
    assert text.returncode == 0
    assert "No verdicts: no metric could be tested" in text.stdout
    assert "one run on a side" not in text.stdout


# ---- 2. runs that did not end ------------------------------------------------

@pytest.fixture(scope="module")
def paired_suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("paired") / "suite"
    r = tiny_paired_suite(out, 3)
    assert r.returncode == 0, r.stderr
    return out


def test_a_run_killed_with_sigkill_is_named_and_left_out(paired_suite,
                                                         tmp_path):
    """A real run of the scenario, SIGKILLed mid-sweep beside the suite's
    runs: its file keeps its last checkpoint (stop running), and compare
    leaves it out, naming it: the verdict is that of the runs without
    it."""
    a, b = sets(tmp_path, paired_suite / "a", paired_suite / "b")
    killed = b / "sync-unix.r4.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(FIXTURES / "repeat-scenarios" /
                                  "sync-unix.json"), "--out", str(killed),
         "--no-progress", "--set", "sweep.max_n=400", "--set",
         "sweep.start=2", "--set", "sweep.step=2", "--set",
         "sweep.rounds=20", "--set", "sweep.max_ms=1000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        assert wait_for(lambda: killed.is_file() and len(json.loads(
            killed.read_text()).get("steps") or []) >= 2, timeout=60)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        kill_quietly(proc.pid)
    doc = json.loads(killed.read_text())
    assert doc["result"]["stop_reason"] == "running"
    assert_nothing_left(doc)
    r = compare(a, b, "--fail-on", "slower")
    assert f"{killed}: stop running: not counted as a repeat" in r.stderr
    killed.unlink()
    assert r.returncode == compare(a, b, "--fail-on", "slower").returncode


def test_a_run_whose_write_failed_is_named_and_left_out(tmp_path):
    """A real run whose result could no longer be written (a file size
    limit): it stops with write_failed, its file keeps its last whole
    checkpoint (stop running), and compare leaves it out."""
    a, b = sets(tmp_path)
    out = b / "sync-unix.r4.json"

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
    r = run(ORBBENCH, "run", FIXTURES / "repeat-scenarios" / "sync-unix.json",
            "--out", out, "--no-progress", "--set", "sweep.max_n=40",
            "--set", "sweep.start=2", "--set", "sweep.step=4",
            preexec_fn=limit)
    assert r.returncode == 1 and "write_failed" in r.stderr, r.stderr
    assert json.loads(out.read_text())["result"]["stop_reason"] == "running"
    c = compare(a, b, "--fail-on", "slower")
    assert f"{out}: stop running: not counted as a repeat" in c.stderr
    assert c.returncode == 1, c.stderr


def test_a_paired_run_whose_write_failed_is_left_out_with_its_partner(
        paired_suite, tmp_path):
    """The suite's own command for one more paired run, its writes cut by
    a file size limit: the side whose write failed keeps its last
    checkpoint (stop running), the other ends partner_failed. Both are
    left out, named (a partner_failed run whose partner is not compared
    was cut short by what it has no record of): the verdict is the
    honest sets'."""
    a, b = sets(tmp_path, paired_suite / "a", paired_suite / "b")
    honest = compare(a, b, "--fail-on", "slower")
    cmd = [x.replace(str(paired_suite / "a" / "sync-unix.r1.json"),
                     str(a / "sync-unix.r4.json")).replace(
                         str(paired_suite / "b" / "sync-unix.r1.json"),
                         str(b / "sync-unix.r4.json"))
           for x in json.loads((a / "sync-unix.r1.json").read_text())[
               "command"]]
    for limit in (12_000, 9_000, 15_000, 6_000):
        def cut():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           preexec_fn=cut)
        written = [x / "sync-unix.r4.json" for x in (a, b)
                   if (x / "sync-unix.r4.json").is_file()]
        if r.returncode == 1 and "write_failed" in r.stderr and written:
            break
        for f in written:
            f.unlink()
    else:
        pytest.fail("no size limit cut the paired run's writes short")
    stops = {json.loads(f.read_text())["result"]["stop_reason"]
             for f in written}
    assert stops <= {"running", "partner_failed"} and "running" in stops
    c = compare(a, b, "--fail-on", "slower")
    for f in written:
        assert f"{f}: stop " in c.stderr and "left out" in c.stderr
    assert c.returncode == honest.returncode, c.stderr


# ---- 3. copies and ids --------------------------------------------------------

def test_byte_copies_of_a_run_count_once_and_are_named(paired_suite,
                                                       tmp_path):
    """Four files of one paired run (three copies, one written out again):
    one repeat, said so; the verdict is the honest sets'."""
    a, b = sets(tmp_path, paired_suite / "a", paired_suite / "b")
    honest = compare(a, b, "--fail-on", "slower", "--format", "json")
    f = runs(b, "sync-unix")[0]
    shutil.copy(f, b / "zz-1.json")
    shutil.copy(f, b / "zz-2.json")
    (b / "zz-3.json").write_text(json.dumps(json.loads(f.read_text()),
                                            indent=3))
    r = compare(a, b, "--fail-on", "slower", "--format", "json")
    assert r.returncode == honest.returncode
    assert r.stderr.count("(the same run): counted once") == 3
    assert json.loads(r.stdout)["scenarios"] == \
        json.loads(honest.stdout)["scenarios"]


def test_four_copies_of_one_run_a_side_give_no_verdict(paired_suite,
                                                       tmp_path):
    """The issue's try: every run of a scenario one run copied (one
    paired.id four times on each side): one repeat a side, no test, exit
    2, where before it gave 0.748 [0.748-0.748] slower."""
    a, b = sets(tmp_path, paired_suite / "a", paired_suite / "b")
    for side in (a, b):
        first, *rest = runs(side, "sync-unix")
        for f in rest:
            shutil.copy(first, f)
        shutil.copy(first, side / "sync-unix.r4.json")
    refused(compare(a, b, "--fail-on", "slower"), "sync-unix",
            "no performance metric could be tested")


def test_two_different_files_of_one_run_are_refused(paired_suite, tmp_path):
    a, b = sets(tmp_path, paired_suite / "a", paired_suite / "b")
    f = runs(b, "sync-unix")[0]
    d = json.loads(f.read_text())
    d["steps"][-1]["round_ms"]["median"] *= 0.5
    (b / "zz-edited.json").write_text(json.dumps(d))
    refused(compare(a, b, "--fail-on", "slower"), "zz-edited.json",
            "paired.id", "an edited copy")


# ---- 4, 5. a missing scenario, a head copied from base -------------------------

@pytest.mark.parametrize("how, words", [
    ("whole", "a copy of the baseline"),
    # one of A's runs among B's: B then mixes A's settings with its own
    ("one", "runs differ in scenario key server.work_us"),
    # the same with B's settings: still A's run
    ("one-as-b", "a copy of the baseline")])
def test_a_head_copied_from_its_base_is_refused(paired_suite, tmp_path, how,
                                                words):
    a, b = sets(tmp_path, paired_suite / "a", paired_suite / "b")
    if how == "whole":
        shutil.rmtree(b)
        shutil.copytree(a, b)
    elif how == "one":
        f = runs(a, "pool5-unix")[1]
        shutil.copy(f, b / f.name)
    else:
        for f in runs(b):
            edit(f, lambda d: d["scenario"]["server"].update(work_us=0))
        f = runs(a, "pool5-unix")[1]
        shutil.copy(f, b / "zz-from-a.json")
    refused(compare(a, b, "--fail-on", "slower"), words)
    refused(compare(a, b, "--format", "json"), words)


def test_a_run_of_a_copied_into_b_and_edited_is_refused(paired_suite,
                                                        tmp_path):
    a, b = sets(tmp_path, paired_suite / "a", paired_suite / "b")
    f = runs(a, "pool5-unix")[0]
    d = json.loads(f.read_text())
    d["steps"][0]["round_ms"]["median"] *= 2
    d["scenario"]["server"]["work_us"] = B_WORK_US   # B's setting
    (b / f.name).write_text(json.dumps(d))
    refused(compare(a, b, "--fail-on", "slower"), "the same run id",
            "edited")


# ---- 8. one writer a folder -------------------------------------------------------

def test_two_suites_on_one_new_out_the_second_is_refused(tmp_path):
    out = tmp_path / "out"
    env = dict(os.environ, ORBBENCH_BIN=str(ORBBENCH.parent))
    first = subprocess.Popen(
        [str(SCRIPTS / "run-suite"), str(FIXTURES / "repeat-scenarios"),
         "--repeat", "2", "--out", str(out), *SMALL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert wait_for(lambda: (out / orboutlock.LOCK_NAME).exists(),
                        timeout=60)
        second = run_suite(FIXTURES / "repeat-scenarios", "--out", out,
                           *SMALL)
        refused(second, str(out), "another orbbench is writing into it")
        _, err = first.communicate(timeout=300)
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["rows"]) == 4 and all(
        (out / r["file"]).is_file() for r in summary["rows"])


# ---- 11, 12. a full disk, a read-only folder ----------------------------------------

@pytest.fixture
def tmpfs(tmp_path):
    """mount(tmpfs, size, options) -> a folder on a fresh tmpfs (root
    only: skipped, naming why, elsewhere); unmounted after the test."""
    mounted = []

    def mount(size="256k", options=""):
        d = tmp_path / f"tmpfs{len(mounted)}"
        d.mkdir()
        opts = f"size={size}" + (f",{options}" if options else "")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs",
                            str(d)], capture_output=True, text=True)
        if r.returncode:
            pytest.skip(f"mount -t tmpfs: {r.stderr.strip()} (needs root)")
        mounted.append(d)
        return d
    yield mount
    for d in mounted:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


def test_a_full_disk_report_names_the_file_and_leaves_nothing_partial(
        tmp_path, tmpfs):
    out = tmpfs("200k") / "rep"
    r = run(SCRIPTS / "report", "--results", FIXTURES / "repeat-A",
            "--versus", FIXTURES / "repeat-B", "--out", out)
    refused(r, str(out), "No space left on device")
    check_nothing_partial(out)


def test_a_suite_on_a_read_only_out_exits_2_in_one_line(tmpfs):
    ro = tmpfs("64k", "ro")
    refused(run_suite(FIXTURES / "repeat-scenarios", "--out", ro / "new",
                      *SMALL), "new", "Read-only file system")


def test_a_suite_that_cannot_write_its_summary_names_it(tmp_path):
    """The suite's runs are written; its summary.json cannot be (a folder
    in its way, made by the client after its first run, while the suite
    runs): one line naming it, exit 2, the results kept whole."""
    out = tmp_path / "out"
    client = tmp_path / "orbbench"
    # Made by the client itself, not by the test after it sees the suite
    # start: a loaded machine let the suite end before the test's poll.
    client.write_text(f"""#!/bin/sh
"{ORBBENCH}" "$@"
rc=$?
mkdir -p "{out / 'summary.json'}"
exit $rc
""")
    client.chmod(0o755)
    proc = subprocess.run(
        [str(SCRIPTS / "run-suite"), str(FIXTURES / "repeat-scenarios"),
         "--orbbench", str(client), "--out", str(out), *SMALL],
        capture_output=True, text=True, timeout=300)
    err = proc.stderr
    assert proc.returncode == 2, err
    lines = [x for x in err.splitlines() if "summary.json" in x]
    assert lines and "cannot write" in lines[-1] and "Traceback" not in err
    for f in runs(out):
        json.loads(f.read_text())          # whole
    assert not list(out.glob(".*.tmp"))
