"""What the tests of the gate failing closed share (tests/py/
test_fails_closed_forged.py: forged files; tests/e2e/test_fails_closed.py:
real runs): running compare, gate and the scripts, the one-line refusal
they must give, copies of the regression sets to forge."""
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SCRIPTS = ROOT / "scripts"


def run(cmd, *args, timeout=300, **kw):
    return subprocess.run([str(cmd), *map(str, args)], capture_output=True,
                          text=True, errors="replace", timeout=timeout, **kw)


def compare(*args, **kw):
    return run(SCRIPTS / "compare", *args, **kw)


def gate(*args):
    return run(SCRIPTS / "gate", *args)


# What compare says of a run it leaves out or counts once, before an
# error of one line.
NOTES = ("counted once", "not counted as a repeat")


def refused(r, *words):
    """Exit 2, one line on stderr holding words (after the notes on runs
    left out or counted once), nothing on stdout."""
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert lines and all(any(n in x for n in NOTES) for x in lines[:-1]), \
        r.stderr[-2000:]
    for w in words:
        assert w in lines[-1], lines[-1]
    assert r.stdout == ""


def sets(tmp_path, a=FIXTURES / "repeat-A", b=FIXTURES / "repeat-B"):
    """Copies of two result sets (the fixtures: B 100 us a call slower)."""
    out = tmp_path / "sets"
    shutil.copytree(a, out / "a")
    shutil.copytree(b, out / "b")
    return out / "a", out / "b"


def runs(folder, scenario=None):
    return sorted(f for f in folder.glob("*.json") if f.name !=
                  "summary.json" and (scenario is None or
                                      f.name.startswith(scenario + ".")))


def edit(path, fn):
    d = json.loads(path.read_text())
    fn(d)
    path.write_text(json.dumps(d))


def saved(tmp_path, a, b):
    """compare --format json of a and b, saved."""
    c = compare(a, b, "--format", "json")
    assert c.returncode == 0, c.stderr
    f = tmp_path / "compare.json"
    f.write_text(c.stdout)
    return f


def whole(f):
    data = f.read_bytes()
    if f.suffix == ".png":
        return data[-12:-4] == b"\x00\x00\x00\x00IEND"
    if f.suffix == ".svg":
        return data.rstrip().endswith(b"</svg>")
    if f.suffix == ".html":
        return data.rstrip().endswith(b"</html>")
    return True


def check_nothing_partial(out):
    files = [p for p in out.rglob("*") if p.is_file()]
    assert not [p for p in files if p.name.endswith(".tmp")], files
    assert all(whole(p) for p in files), files
