"""Issue 51: the gate fails closed, second round; the tries where forging
is the point, on copies of the regression sets tests/fixtures/repeat-A
and -B (a run that did not end, a missing scenario, a rewritten verdict,
a number out of range, hostile names, a write that fails). The tries
that need real runs are tests/e2e/test_fails_closed.py. A gate that
cannot decide exits 2 with one line, never 0 or 1; a write that fails
names its file and leaves nothing partial."""
import json
import re
import resource
import subprocess

import pytest

import orbbench.outlock as orboutlock
from closedkit import (FIXTURES, ROOT, SCRIPTS, check_nothing_partial,
                       compare, edit, gate, refused, run, runs, saved, sets)


def test_one_run_of_a_side_that_measured_nothing_fails_closed(tmp_path):
    a, b = sets(tmp_path)
    edit(runs(b, "sync-unix")[1], lambda d: (
        d.update(steps=[], probes=[]),
        d["result"].update(stop_reason="server_died", max_servers=0),
        d["result"].pop("crossing_n"), d["result"].pop("crossing_interval")))
    refused(compare(a, b, "--fail-on", "slower"), "sync-unix",
            "crossing_n", "1 of 3 value(s) of B missing")


@pytest.mark.parametrize("stop", ["interrupted", "write_failed", "running"])
def test_a_run_that_did_not_end_leaves_one_run_and_no_test(tmp_path, stop):
    """Two of three of B's runs of a scenario that did not end: one run is
    left, no test, so the gate cannot decide (exit 2), where before it
    read the fragments as repeats."""
    a, b = sets(tmp_path)
    for f in runs(b, "sync-unix")[:2]:
        edit(f, lambda d: d["result"].update(stop_reason=stop))
    refused(compare(a, b, "--fail-on", "slower"), "sync-unix",
            "no performance metric could be tested")


def test_a_stop_the_client_never_writes_is_refused(tmp_path):
    a, b = sets(tmp_path)
    f = runs(b)[0]
    edit(f, lambda d: d["result"].update(stop_reason="done-honest"))
    refused(compare(a, b, "--fail-on", "slower"), f.name,
            "result.stop_reason", "not a stop the client writes")


def test_a_head_without_the_regressing_scenario_fails_closed(tmp_path):
    a, b = sets(tmp_path)
    for f in runs(b, "sync-unix"):
        f.unlink()
    refused(compare(a, b, "--fail-on", "slower"),
            "1 scenario(s) of A missing from B: sync-unix")
    refused(gate(saved(tmp_path, a, b), "--fail-on", "slower"),
            "missing from B")


@pytest.mark.parametrize("field, value, words", [
    ("verdict", "same", ["verdict", "'same'", "re-derived: 'slower'"]),
    ("verdict", "inconclusive", ["verdict", "re-derived: 'slower'"]),
    ("primary", False, ["primary"]),
    ("higher_is_better", True, ["direction"]),
    ("b_values", [1.0, 1.0, 1.0], ["does not follow"]),
])
def test_gate_refuses_a_verdict_its_numbers_contradict(tmp_path, field,
                                                      value, words):
    a, b = sets(tmp_path)
    f = saved(tmp_path, a, b)
    doc = json.loads(f.read_text())
    m = doc["scenarios"][1]["metrics"]["server_cpu_us"]
    assert m["verdict"] == "slower"
    m[field] = value
    f.write_text(json.dumps(doc))
    refused(gate(f, "--fail-on", "slower"), "compare.json", *words)


def test_gate_refuses_a_comparison_without_its_suite_rows(tmp_path):
    a, b = sets(tmp_path)
    f = saved(tmp_path, a, b)
    doc = json.loads(f.read_text())
    del doc["suite"]
    f.write_text(json.dumps(doc))
    refused(gate(f, "--fail-on", "slower"), "suite")


@pytest.mark.parametrize("field, value", [
    ("cpu_per_call_us.server", -5.0), ("cpu_per_call_us.server_low", -1.0),
    ("round_ms.median", 0.0), ("n", 0), ("calls", -1),
    ("mem_per_server_kb.pss", -3.0), ("rounds_ms", [0.1, 0.0]),
])
def test_a_number_out_of_its_range_is_refused(tmp_path, field, value):
    a, b = sets(tmp_path)
    f = runs(b, "sync-unix")[0]

    def forge(d):
        s = d["steps"][1]
        *path, last = field.split(".")
        for p in path:
            s = s.setdefault(p, {})
        s[last] = value
    edit(f, forge)
    refused(compare(a, b, "--fail-on", "slower"), f.name,
            f"steps[1].{field}")


@pytest.mark.parametrize("cmd", ["report", "history"])
def test_a_report_or_history_into_a_folder_being_written_is_refused(
        tmp_path, cmd):
    out = tmp_path / "out"
    orboutlock.claim(out)          # this process writes there
    args = (["--results", FIXTURES / "repeat-A", "--versus",
             FIXTURES / "repeat-B"] if cmd == "report" else
            [FIXTURES / "repeat-A", FIXTURES / "repeat-B", "--order",
             "given"])
    r = run(SCRIPTS / cmd, *args, "--out", out)
    refused(r, "another orbbench is writing into it")
    assert [p.name for p in out.iterdir()] == [orboutlock.LOCK_NAME]


def test_a_suite_into_a_folder_being_written_names_the_writer(tmp_path):
    """A suite's --out that holds another writer's lock and its first
    files: the answer is the writer, not the files (the files are that
    writer's; they do not say a run is at work there)."""
    out = tmp_path / "out"
    orboutlock.claim(out)          # this process writes there
    (out / "sync-unix.r1.json").write_text("{}")
    r = run(SCRIPTS / "run-suite", FIXTURES / "repeat-scenarios", "--out", out)
    refused(r, str(out), "another orbbench is writing into it")
    # Files alone, with nobody writing: the folder is refused as not empty.
    done = tmp_path / "done"
    done.mkdir()
    (done / "sync-unix.r1.json").write_text("{}")
    (done / orboutlock.LOCK_NAME).write_text("1\n")
    refused(run(SCRIPTS / "run-suite", FIXTURES / "repeat-scenarios", "--out",
                done), str(done), "not empty")


HOSTILE = "x\n## forged\n::error::pwned <script>alert(1)</script> [a](http://e)"


def hostile_sets(tmp_path):
    """repeat-A/-B with a hostile scenario name (every run of sync-unix),
    ORB version, kernel, host and library on every run."""
    a, b = sets(tmp_path)
    for side in (a, b):
        tag = side.name      # A and B differ: compare shows both
        for f in runs(side):
            def forge(d):
                if d["scenario"]["name"] == "sync-unix":
                    d["scenario"]["name"] = "sync\n# head <img onerror=1>"
                d["orb"]["version"] = HOSTILE[:60] + tag
                d["orb"]["library_path"] = HOSTILE + tag
                d["host"]["kernel"] = HOSTILE + tag
                d["host"]["hostname"] = "h\n::warning::x" + tag
            edit(f, forge)
    return a, b


def check_markdown(text):
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
        assert not re.match(r"#+ (forged|head)", line), line
    assert "<script" not in text and "<img" not in text
    assert not re.search(r"(?<!\\)\]\(http://e\)", text)   # no link
    assert "\x1b" not in text


def test_compare_md_and_text_escape_what_they_did_not_write(tmp_path):
    a, b = hostile_sets(tmp_path)
    md = compare(a, b, "--format", "md")
    assert md.returncode == 0, md.stderr
    check_markdown(md.stdout)
    text = compare(a, b)
    assert text.returncode == 0, text.stderr
    for line in text.stdout.splitlines():
        assert not line.lstrip().startswith(("::", "#")), line


def test_report_and_history_escape_what_they_did_not_write(tmp_path):
    a, b = hostile_sets(tmp_path)
    r = run(SCRIPTS / "report", "--results", a, "--versus", b, "--out",
            tmp_path / "rep")
    assert r.returncode == 0, r.stderr
    check_markdown((tmp_path / "rep" / "report.md").read_text())
    h = run(SCRIPTS / "history", f"one={a}", f"two={b}", "--order",
            "given", "--out", tmp_path / "hist")
    assert h.returncode == 0, h.stderr
    check_markdown((tmp_path / "hist" / "history.md").read_text())
    html = (tmp_path / "hist" / "history.html").read_text()
    assert "<script>alert" not in html


def test_make_report_runs_no_command_from_results(tmp_path):
    pwned = tmp_path / "PWNED"
    dry = subprocess.run(["make", "-n", "-s", "-C", str(ROOT), "report",
                          f"RESULTS=x;touch {pwned}"], capture_output=True,
                         text=True, timeout=60)
    line = next(x for x in dry.stdout.splitlines()
                if x.startswith("scripts/report"))
    r = subprocess.run(["sh", "-c", line], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "not a result folder" in r.stderr
    assert not pwned.exists()


def limited(limit):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return set_limit


@pytest.mark.parametrize("cmd", ["report", "history"])
def test_a_write_that_fails_names_the_file_and_leaves_nothing_partial(
        tmp_path, cmd):
    """A file size limit (EFBIG, as a full disk's ENOSPC: a write fails
    mid-file): exit 2, one line naming the file, no partial file and no
    temporary one."""
    out = tmp_path / "out"
    args = (["--results", FIXTURES / "repeat-A", "--versus",
             FIXTURES / "repeat-B"] if cmd == "report" else
            [FIXTURES / "repeat-A", FIXTURES / "repeat-B", "--order",
             "given"])
    r = run(SCRIPTS / cmd, *args, "--out", out, preexec_fn=limited(30_000))
    refused(r, str(out), "cannot write (File too large); nothing written")
    check_nothing_partial(out)


def test_a_result_file_over_16_mb_is_refused_unread(tmp_path):
    a, b = sets(tmp_path)
    big = b / "zz-big.json"
    with open(big, "wb") as f:
        f.truncate(17 << 20)                 # sparse: nothing to read
    refused(compare(a, b, "--fail-on", "slower"), "zz-big.json",
            "over the limit of 16777216")


def test_gate_refuses_a_comparison_without_a_scenario_row(tmp_path):
    """The regressing scenario's row taken out of a saved comparison: its
    suite rows no longer follow from the scenarios left."""
    a, b = sets(tmp_path)
    f = saved(tmp_path, a, b)
    doc = json.loads(f.read_text())
    doc["scenarios"] = doc["scenarios"][:1]
    f.write_text(json.dumps(doc))
    refused(gate(f, "--fail-on", "slower"), "suite.", "does not follow")


@pytest.mark.parametrize("length, code", [(200, 1), (201, 2)])
def test_a_name_over_the_one_bound_is_refused(tmp_path, length, code):
    a, b = sets(tmp_path)
    for f in runs(a, "sync-unix") + runs(b, "sync-unix"):
        edit(f, lambda d: d["scenario"].update(name="s" * length))
    r = compare(a, b, "--fail-on", "slower")
    assert r.returncode == code, r.stderr
    if code == 2:
        refused(r, "scenario.name", "a name of 201 characters (1 to 200)")


def test_a_dollar_in_a_name_is_text_not_math(tmp_path):
    """Figures draw names as text: a $ is no mathtext (which a name could
    make fail to draw: plot exited 2 on "a$\\frac{$b")."""
    a, _ = sets(tmp_path)
    for f in runs(a, "sync-unix"):
        edit(f, lambda d: d["scenario"].update(name="a$\\frac{$b"))
    r = run(SCRIPTS / "plot", a, "--out", tmp_path / "plots")
    assert r.returncode == 0, r.stderr
    check_nothing_partial(tmp_path / "plots")
    assert list((tmp_path / "plots").glob("rounds-a-frac-b.png"))


def test_one_run_a_side_cannot_decide_in_either_front_door(tmp_path):
    """tests/fixtures/A and B: one run a side of each scenario, no
    scenario tested: compare --fail-on and gate both exit 2."""
    a, b = FIXTURES / "A", FIXTURES / "B"
    refused(compare(a, b, "--fail-on", "slower"), "no tested metric",
            "runs A 1, B 1")
    refused(gate(saved(tmp_path, a, b), "--fail-on", "slower"),
            "no tested metric", "runs A 1, B 1")
