"""A measurement kind is one module in scripts/orbbench/kinds/: the
package imports every module it finds there (nothing lists them), each
registers its kind under its own name, the default kind first. Shown on
the package as it is, and on a copy with a module added, once a kind and
once a module that registers nothing (the check fails on it)."""
import json
import shutil
import subprocess
import sys

import orbbench.kinds as orbkinds
import orbbench.results as orbresults
from conftest import ROOT

KINDS_DIR = ROOT / "scripts" / "orbbench" / "kinds"

REGISTERED = ("import json, orbbench.kinds as k, orbbench.results as r\n"
              "print(json.dumps([list(r.KINDS), list(k.module_names())]))\n")


def mismatch(kinds, modules):
    """What is wrong with registered kinds against the modules found:
    [] when each module registered the kind of its name, in their order,
    the default kind first."""
    out = []
    if list(kinds) != list(modules):
        out.append(f"registered {list(kinds)}, modules {list(modules)}")
    if not modules or modules[0] != orbresults.DEFAULT_KIND:
        out.append(f"{orbresults.DEFAULT_KIND} is not first")
    return out


def in_copy(tmp_path, extra):
    """(kinds registered, modules found) of a copy of the package with
    the modules `extra` ({name: source}) added to its kinds."""
    top = tmp_path / "scripts"
    shutil.copytree(ROOT / "scripts" / "orbbench", top / "orbbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name, source in extra.items():
        (top / "orbbench" / "kinds" / f"{name}.py").write_text(source)
    out = subprocess.run([sys.executable, "-c", REGISTERED], cwd=top,
                         capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(top)})
    return json.loads(out.stdout)


def test_every_module_in_kinds_is_a_registered_kind():
    files = sorted(f.stem for f in KINDS_DIR.glob("*.py")
                   if f.stem != "__init__")
    assert sorted(orbkinds.module_names()) == files
    assert mismatch(orbresults.KINDS, orbkinds.module_names()) == []
    assert [m.__name__ for m in orbkinds.MODULES] == [
        f"orbbench.kinds.{n}" for n in orbkinds.module_names()]


def test_a_new_module_is_a_new_kind_with_no_other_edit(tmp_path):
    kinds, modules = in_copy(tmp_path, {"aaa_demo": (
        "import orbbench.results as r\n"
        "r.register(r.Kind('aaa_demo', 'demo'))\n")})
    assert "aaa_demo" in kinds and kinds[0] == orbresults.DEFAULT_KIND
    assert mismatch(kinds, modules) == []


def test_the_check_fails_on_a_module_that_registers_nothing(tmp_path):
    kinds, modules = in_copy(tmp_path, {"silent": "X = 1\n"})
    assert "silent" in modules and "silent" not in kinds
    assert mismatch(kinds, modules) != []
