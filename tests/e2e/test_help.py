"""Help in the installed tool's own words (issue 35): every subcommand
answers --help with exit 0 and one usage block that names `orbbench SUB`,
in the one shape the man pages and the completion are read from; a
mistyped subcommand, scenario key or option is one line headed
`orbbench:` with the nearest name ("did you mean") and where to look,
exit 2; the man pages of the installed subcommands have every section;
the bash completion, made from the subcommand table and `orbbench keys`,
completes. Real processes, a few seconds."""
import os
import subprocess
import sys

import pytest

import orbbench.cli as orbcli
import orbbench.completion as orbcomp
import orbbench.helptext as orbhelp
import orbbench.manpages as orbman
from conftest import ORBBENCH, ROOT, SCENARIOS

SCENARIO = SCENARIOS / "sync-tcp.json"
FIXTURES = ROOT / "tests" / "fixtures"


def orbbench(*args):
    return subprocess.run([str(ORBBENCH), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def rows():
    return orbhelp.table(ORBBENCH)


def one_line(r):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


# ---- mistakes: one line, the nearest name, where to look -----------------

@pytest.mark.parametrize("args, line", [
    (["rnu"], 'orbbench: unknown command "rnu"; did you mean "run"? '
     '(see orbbench --help)'),
    (["comapre", "a", "b"], 'orbbench: unknown command "comapre"; did you '
     'mean "compare"? (see orbbench --help)'),
    (["xyzzy"], 'orbbench: unknown command "xyzzy" (see orbbench '
     '--help)'),
    # --help after an unknown subcommand is no help: the same error.
    (["xyzzy", "--help"], 'orbbench: unknown command "xyzzy" (see '
     'orbbench --help)'),
    (["help", "sutie"], 'orbbench: help: unknown subcommand "sutie"; did '
     'you mean "suite"? (see orbbench --help)'),
    (["run", SCENARIO, "--set", "sweep.maxn=200"],
     'orbbench: --set sweep.maxn=200: unknown key "sweep.maxn"; did you '
     'mean "sweep.max_n"? (see orbbench keys)'),
    (["check", SCENARIO, "--set", "swep.max_n=5"],
     'orbbench: --set swep.max_n=5: unknown key "swep.max_n"; did you mean '
     '"sweep.max_n"? (see orbbench keys)'),
    (["check", SCENARIO, "--set", "nothing.like.it=1"],
     'orbbench: --set nothing.like.it=1: unknown key "nothing.like.it" (see '
     'orbbench keys)'),
    (["run", SCENARIO, "--sett", "sweep.max_n=200"],
     'orbbench: run: unknown option "--sett"; did you mean "--set"? (see '
     'orbbench help run)'),
    (["check", SCENARIO, "--pared"],
     'orbbench: check: unknown option "--pared"; did you mean "--paired"? '
     '(see orbbench help check)'),
    (["run", SCENARIO, "--p"], 'orbbench: run: option "--p" is ambiguous: '
     '--paired, --progress, --progress-fd (see orbbench help run)'),
    (["run", SCENARIO, "--out"], 'orbbench: run: option "--out" needs a '
     'value (see orbbench help run)'),
    (["run", SCENARIO, "--paired=yes"], 'orbbench: run: option "--paired" '
     'takes no value (see orbbench help run)'),
    (["ior", "--jsn", "x"], 'orbbench: ior: unknown option "--jsn"; did you '
     'mean "--json"? (see orbbench help ior)'),
    (["suite", FIXTURES / "repeat-scenarios", "--sett", "sweep.max_n=2"],
     'orbbench: suite: unknown option "--sett"; did you mean "--set"? (see '
     'orbbench help suite)'),
    (["compare", FIXTURES / "repeat-A", FIXTURES / "repeat-B",
      "--fail-onn=slower"],
     'orbbench: compare: unknown option "--fail-onn"; did you mean '
     '"--fail-on"? (see orbbench help compare)'),
    (["gate", "x.json", "--fail-on", "slower", "--nothing-like-it"],
     'orbbench: gate: unknown option "--nothing-like-it" (see orbbench '
     'help gate)'),
])
def test_a_mistake_is_one_line_with_the_nearest_name(args, line):
    assert one_line(orbbench(*args)) == line


def test_an_unknown_key_in_a_file_names_the_nearest(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"swep": {"max_n": 5}, "thred": 1}')
    got = one_line(orbbench("check", p))
    assert got.startswith(f"orbbench: {p}: unknown key ")
    assert got.endswith("(see orbbench keys)")
    assert '"swep"; did you mean "sweep"?' in got or \
        'unknown key "thred" (see orbbench keys)' in got


def test_python_and_c_suggest_alike():
    """orbbench.cli.nearest is client/core/suggest.c's twin: the same
    distances (tests/unit/test_suggest.c's) and the same limit."""
    for a, b, d in (("rnu", "run", 1), ("sweep.maxn", "sweep.max_n", 1),
                    ("kitten", "sitting", 3), ("ab", "ba", 1),
                    ("ca", "abc", 3), ("", "run", 3)):
        assert orbcli.distance(a, b) == d, (a, b)
    names = [r.name for r in rows()]
    assert orbcli.nearest("rnu", names) == "run"
    assert orbcli.nearest("rxx", names) is None
    assert orbcli.nearest("cmpre", names) == "compare"
    assert orbcli.nearest("run", names) is None


# ---- every subcommand's help ---------------------------------------------

@pytest.mark.parametrize("name", [r.name for r in orbhelp.table(ORBBENCH)]
                         if ORBBENCH.exists() else [])
def test_every_subcommand_helps_in_its_own_words(name):
    r = orbbench(name, "--help")
    assert r.returncode == 0, r.stderr
    usage = [x for x in r.stdout.splitlines() if x.startswith("usage:")]
    assert len(usage) == 1, r.stdout
    assert usage[0].startswith(f"usage: orbbench {name} ") or \
        usage[0] == f"usage: orbbench {name}", usage[0]
    assert "scripts/" not in usage[0] and str(ROOT) not in r.stdout
    orbhelp.check_shape(name, orbhelp.sections(r.stdout))
    for example in orbhelp.sections(r.stdout)["examples"][0].split("\n"):
        assert example.startswith("  orbbench "), example
    assert orbbench("help", name).stdout == r.stdout
    assert orbbench(name, "-h").stdout == r.stdout


def test_the_general_help_and_no_subcommand():
    h = orbbench("--help")
    assert h.returncode == 0 and h.stdout.startswith(
        "usage: orbbench SUBCOMMAND")
    assert orbbench("help").stdout == h.stdout == orbbench("-h").stdout
    assert h.stdout.count("usage:") == 1
    bare = orbbench()
    assert bare.returncode == 2 and bare.stderr == h.stdout


def test_ci_example_has_a_help():
    r = subprocess.run([str(ROOT / "scripts" / "ci-example"), "--help"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: scripts/ci-example --base")
    assert "--system" in r.stdout and "exit:" in r.stdout
    assert "set -euo" not in r.stdout


# ---- man pages, completion -----------------------------------------------

def test_man_pages_have_every_section_and_only_installed_ones(tmp_path):
    pages = {p.name: p.read_text() for p in
             orbman.write(ORBBENCH, tmp_path, "9.9")}
    installed = [r.name for r in rows() if r.installed]
    checkout = [r.name for r in rows() if not r.installed]
    assert {"fleet", "build-orb", "netns-fleet"} <= set(checkout)
    assert set(pages) == {"orbbench.1"} | {f"orbbench-{n}.1"
                                           for n in installed}
    want = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS",
            "EXAMPLES", "FILES", "SEE ALSO"]
    for name in installed:
        text = pages[f"orbbench-{name}.1"]
        heads = [x[4:] for x in text.splitlines() if x.startswith(".SH ")]
        assert heads == want, (name, heads)
        assert "What orbbench help" not in text
        assert f".B orbbench {name}" not in text  # the usage, as printed
    for name in checkout:
        assert f"orbbench\\-{name}" not in pages["orbbench.1"]


def complete(script, *words):
    """What _orbbench offers for the command line `words` (the last one
    being completed), as bash would ask it."""
    cmd = (f"source {script}; complete -p orbbench; "
           f"COMP_WORDS=({' '.join(repr(w) for w in words)}); "
           f"COMP_CWORD={len(words) - 1}; _orbbench; "
           'printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "complete -o bashdefault -o default -F _orbbench " \
        "orbbench"
    return [x for x in lines[1:] if x]


def test_bash_completion_from_the_table_and_the_keys(tmp_path):
    bash, zsh = orbcomp.write(ORBBENCH, tmp_path)
    assert complete(bash, "orbbench", "ru") == ["run"]
    assert complete(bash, "orbbench", "co") == ["compare"]
    assert complete(bash, "orbbench", "hi") == ["history"]
    assert complete(bash, "orbbench", "fl") == []       # checkout-only
    assert complete(bash, "orbbench", "help", "mi") == [
        "miro-table", "miro-channel-table"]
    assert complete(bash, "orbbench", "run", "x.json", "--se") == ["--set"]
    assert "--fail-on" in complete(bash, "orbbench", "compare", "--f")
    keys = complete(bash, "orbbench", "run", "x.json", "--set", "sweep.max_")
    assert "sweep.max_n=" in keys and "sweep.max_ms=" in keys
    assert all(k.startswith("sweep.max_") for k in keys)
    # bash parts "mode=ev" at "=" (COMP_WORDBREAKS): three words.
    assert complete(bash, "orbbench", "run", "x.json", "--set", "mode", "=",
                    "ev") == ["event"]
    assert complete(bash, "orbbench", "suite", "d", "--set", "mode=th") == [
        "mode=thread-per-call"]
    text = zsh.read_text()
    assert text.startswith("#compdef orbbench\n") and "'run:run one" in text


@pytest.mark.parametrize("argv,head", [
    (["compare", "/nonexistent-a", "/nonexistent-b"], "orbbench: compare: "),
    (["history", "/nonexistent-a", "/nonexistent-b"], "orbbench: history: "),
    (["suite", "/nonexistent"], "orbbench: suite: "),
    (["build-orb", "nosuch"], "orbbench: build-orb: ")])
def test_the_front_door_heads_its_commands_errors_with_its_own_name(
        argv, head):
    """What the user typed heads the message, as the front door's own
    and argparse's do ("orbbench: suite: ..."), not the checkout script
    behind it (run-suite, build-orb); the script run alone keeps its own
    name."""
    r = subprocess.run([str(ORBBENCH), *argv], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.startswith(head) and r.stderr.count("\n") == 1, r.stderr
    exe = {"suite": "run-suite"}.get(argv[0], argv[0])
    r = subprocess.run([str(ROOT / "scripts" / exe), *argv[1:]],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.startswith(f"{exe}: "), r.stderr


def test_the_front_doors_name_is_not_inherited_by_a_commands_children():
    env = dict(os.environ, ORBBENCH_FRONT="suite")
    r = subprocess.run(
        [sys.executable, "-c", "import os, orbbench, orbbench.cli as c; "
         "print(orbbench.FRONT, os.environ.get('ORBBENCH_FRONT'), "
         "c.prog('run-suite'))"],
        capture_output=True, text=True, timeout=60, env=env,
        cwd=ROOT / "scripts")
    assert r.stdout.split() == ["suite", "None", "orbbench:", "suite"], r
