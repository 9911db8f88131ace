"""One front door: `orbbench SUBCOMMAND` dispatches to the scripts with
their arguments and exit status, `orbbench --help` lists every
subcommand, the man pages say what the help says, and `make install`
gives a tree that runs from anywhere and writes only under the working
folder, with the man pages and completion of the subcommands it has
(orbbench.progress, the suite's and fleet's progress lines:
tests/py/test_progress_lines.py)."""
import os
import re
import subprocess
from pathlib import Path

import pytest

import orbbench.helptext as orbhelp
import orbbench.manpages as orbman
from conftest import BIN, ORBBENCH, ROOT, TINY_SWEEP, set_flags

# One worker for the tests that run make in the tree (make test's -n 2):
# two makes at once would write the same files of build/.
pytestmark = pytest.mark.xdist_group("make")

FIXTURES = ROOT / "tests" / "fixtures"


def orbbench(*args, cwd=None, exe=ORBBENCH, env=None):
    return subprocess.run([str(exe), *map(str, args)], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=env)


def table():
    r = orbbench("help", "--list")
    assert r.returncode == 0, r.stderr
    return [line.split("\t") for line in r.stdout.splitlines()]


def test_help_lists_every_subcommand_and_every_script_is_one():
    rows = table()
    names = [n for n, _, _, _ in rows]
    text = orbbench("--help").stdout
    for name, _, _, summary in rows:
        assert re.search(rf"^  {re.escape(name)} +{re.escape(summary)}$",
                         text, re.M), name
    assert orbbench("help").stdout == text
    # Every script a user runs is reachable from the front door.
    exes = {e for _, e, _, _ in rows if e != "-"}
    users = {"run-suite", "compare", "gate", "report", "plot", "history",
             "run-fleet", "build-orb", "start-servers", "miro-table",
             "miro-channel-table", "netns-fleet"}
    assert users <= exes
    for exe in exes:
        assert (ROOT / "scripts" / exe).is_file(), exe
    assert {"run", "check", "keys", "ior", "suite", "compare", "report",
            "plot", "history", "fleet", "build-orb",
            "start-servers"} <= set(names)


@pytest.mark.parametrize("sub, script", [("compare", "compare"),
                                         ("suite", "run-suite"),
                                         ("gate", "gate")])
def test_help_of_a_script_is_its_own(sub, script):
    r = orbbench("help", sub)
    assert r.returncode == 0, r.stderr
    own = subprocess.run([str(ROOT / "scripts" / script), "--help"],
                         capture_output=True, text=True, timeout=60)
    assert r.stdout == own.stdout and r.stdout.startswith("usage:")


def test_arguments_and_exit_status_pass_through():
    a, b = FIXTURES / "repeat-A", FIXTURES / "repeat-B"
    gated = orbbench("compare", a, b, "--fail-on", "slower")
    assert gated.returncode == 1 and "regression(s)" in gated.stderr
    assert orbbench("compare", b, a, "--fail-on", "slower").returncode == 0
    bad = orbbench("compare", a, FIXTURES / "nowhere")
    assert bad.returncode == 2 and "nowhere" in bad.stderr


@pytest.mark.parametrize("args, message", [
    (["nosuch"], 'unknown command "nosuch"'),
    (["help", "nosuch"], 'help: unknown subcommand "nosuch"'),
    (["help", "run", "check"], "help: one subcommand at a time"),
])
def test_unknown_subcommands_are_one_line_exit_2(args, message):
    r = orbbench(*args)
    assert r.returncode == 2 and message in r.stderr
    assert len(r.stderr.splitlines()) == 1


def words(text):
    return " ".join(text.split())


def test_man_pages_say_what_the_help_says(tmp_path):
    """Each page, rendered by man, holds its subcommand's help as printed,
    section by section (and orbbench(1) the keys); a page for every
    installed row of the table."""
    pages = orbman.write(ORBBENCH, tmp_path, "9.9")
    rows = table()
    assert {p.name for p in pages} == {"orbbench.1"} | {
        f"orbbench-{n}.1" for n, _, where, _ in rows if where == "installed"}
    env = dict(os.environ, MANWIDTH="200", MAN_KEEP_FORMATTING="0")

    def rendered(page):
        r = subprocess.run(["man", "-l", str(page)], capture_output=True,
                           text=True, timeout=60, env=env)
        assert r.returncode == 0, r.stderr
        return words(re.sub(r".\x08", "", r.stdout).replace("\u2010", "-"))
    main = rendered(tmp_path / "orbbench.1")
    for section, texts in orbhelp.sections(orbbench("--help").stdout).items():
        for text in texts if section != "subcommands" else []:  # .TP rows
            assert words(text) in main, text
    assert words(orbbench("keys").stdout) in main
    for name in ("compare", "run", "ior", "suite"):
        page = rendered(tmp_path / f"orbbench-{name}.1")
        for section, texts in orbhelp.sections(
                orbbench("help", name).stdout).items():
            for text in texts:
                assert words(text) in page, (name, section, text)


def tree_files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("dest, prefix", [
    ("dir with space", "/usr/local"),
    ("it's", "/opt/o b"),
    ('q"uote `y` \\n', "/p'q"),
])
def test_make_install_quotes_destdir_and_prefix(tmp_path, dest, prefix):
    """Issue 32: a DESTDIR or PREFIX with blanks or quotes installs where
    it says. Before: ./dir/usr/local/... in the working folder, or an sh
    syntax error."""
    if os.environ.get("ORBBENCH_BIN") not in (None, str(ROOT / "bin")):
        pytest.skip("installs the release build (bin/), not ORBBENCH_BIN")
    work = tmp_path / "work"
    work.mkdir()
    d = tmp_path / dest
    r = subprocess.run(["make", "-s", "-C", str(ROOT), "install",
                        f"DESTDIR={d}", f"PREFIX={prefix}", "PYCOMPILE="],
                       capture_output=True, text=True, timeout=600,
                       cwd=work)
    assert r.returncode == 0, r.stderr
    root = Path(str(d) + prefix)
    assert (root / "bin" / "orbbench").is_file()
    assert (root / "libexec" / "orbbench" / "orbbench" / "gate.py").is_file()
    assert (root / "share" / "man" / "man1" / "orbbench.1").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {"work", Path(dest).parts[0]})
    assert list(work.iterdir()) == []


def test_make_install_runs_from_its_tree_and_writes_only_in_the_cwd(
        tmp_path):
    if os.environ.get("ORBBENCH_BIN") not in (None, str(ROOT / "bin")):
        pytest.skip("installs the release build (bin/), not ORBBENCH_BIN")
    dest = tmp_path / "dest"
    r = subprocess.run(["make", "-s", "-C", str(ROOT), "install",
                        f"DESTDIR={dest}", "PREFIX=/opt/ob"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    prefix = dest / "opt" / "ob"
    for rel in ("bin/orbbench", "libexec/orbbench/omniorb-echo-server",
                "libexec/orbbench/compare", "libexec/orbbench/orbbench/gate.py",
                "share/orbbench/scenarios/sync-unix.json",
                "share/doc/orbbench/README.md",
                "share/man/man1/orbbench.1",
                "share/man/man1/orbbench-compare.1",
                "share/doc/orbbench/LICENSE",
                "share/bash-completion/completions/orbbench",
                "share/zsh/vendor-completions/_orbbench"):
        assert (prefix / rel).exists(), rel
    # What the installed tool has: the installed rows' executables, their
    # pages; no checkout-only one.
    libexec = prefix / "libexec" / "orbbench"
    pages = {p.name for p in (prefix / "share/man/man1").iterdir()}
    for name, exe, where, _ in table():
        assert (exe == "-" or (libexec / exe).exists()) == \
            (where == "installed"), name
        assert (f"orbbench-{name}.1" in pages) == (where == "installed"), \
            name
    assert not (libexec / "build-orb").exists()
    before = tree_files(prefix)
    work = tmp_path / "work"
    work.mkdir()
    exe = prefix / "bin" / "orbbench"
    env = {k: v for k, v in os.environ.items() if k != "ORBBENCH_BIN"}
    run = orbbench("run", prefix / "share/orbbench/scenarios/sync-unix.json",
                   "--set", "sweep.max_n=6", "--set", "sweep.start=2",
                   "--set", "sweep.step=4", "--no-progress",
                   cwd=work, exe=exe, env=env)
    assert run.returncode == 0, run.stderr
    [result] = (work / "results").glob("sync-unix-*.json")
    assert str(prefix / "libexec" / "orbbench") in result.read_text()
    suite = orbbench("suite", FIXTURES / "repeat-scenarios", "--set",
                     "sweep.max_n=6", "--set", "sweep.start=2", "--set",
                     "sweep.step=4", "--set", "sweep.rounds=2",
                     cwd=work, exe=exe, env=env)
    assert suite.returncode == 0, suite.stderr
    [folder] = [p for p in (work / "results").iterdir() if p.is_dir()]
    assert (folder / "summary.md").is_file()
    # compare runs from the installed tree: it reads the suite's results
    # (and refuses them as their own baseline: a copy compares nothing)
    gate = orbbench("compare", folder, folder, "--fail-on", "slower",
                    cwd=work, exe=exe, env=env)
    assert gate.returncode == 2 and "a copy of the baseline" in \
        gate.stderr, gate.stderr
    missing = orbbench("build-orb", cwd=work, exe=exe, env=env)
    assert missing.returncode == 2 and "runs from a checkout" in \
        missing.stderr
    assert tree_files(prefix) == before
    installed = (prefix / "share/man/man1/orbbench.1").read_text()
    built = (ROOT / "build" / "release" / "man" / "orbbench.1").read_text()
    assert installed == built


@pytest.mark.long
def test_the_ci_example_runs_end_to_end(tmp_path):
    """scripts/ci-example, the workflow of docs/ci.md without the ORB
    builds (--system: an A/A paired suite, small bounds): the gate passes
    and leaves the JUnit file, the step summary and the report."""
    if os.environ.get("ORBBENCH_BIN") not in (None, str(ROOT / "bin")):
        pytest.skip("runs the release build (bin/), not ORBBENCH_BIN")
    out = tmp_path / "ci"
    r = subprocess.run([str(ROOT / "scripts" / "ci-example"), "--system",
                        "--suite", str(FIXTURES / "repeat-scenarios"),
                        "--repeat", "2", "--threshold", "25",
                        "--out", str(out),
                        *set_flags(*TINY_SWEEP)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "gate: no regression" in r.stdout
    import junitparser
    xml = junitparser.JUnitXml.fromfile(str(out / "junit.xml"))
    assert sum(1 for s in xml for _ in s) == 8 + 3  # 2 scenarios x 4 metrics, 3 suite rows
    assert (out / "summary.md").read_text().startswith(
        "## orbbench: no regression")
    assert (out / "report" / "report.html").is_file()
