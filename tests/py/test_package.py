"""The shape of the Python side (scripts/orbbench): its import graph has
no cycle, no core module imports a kind module (orbbench.kinds fills the
registry; the cores only look kinds up), the executables in scripts/ are
thin wrappers, and nothing reaches in with sys.path or one-letter
aliases. The checks are read from the source with ast (nothing is
imported), and each is also run on a small package made to break it, so
that they can be seen to fail."""
import ast

from conftest import ROOT

SCRIPTS = ROOT / "scripts"
PACKAGE = "orbbench"
MAX_WRAPPER_LINES = 80
# Not cores: the kinds (which register themselves) and the command-line
# front ends (which import the kinds, then the cores).
NOT_CORES = (f"{PACKAGE}.kinds", f"{PACKAGE}.commands")


def module_files(top):
    """{module name: path} of every module of the package under top."""
    out = {}
    for f in sorted((top / PACKAGE).rglob("*.py")):
        parts = list(f.relative_to(top).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


def imported(name, path, known):
    """The package's modules that module name (at path) imports, at the
    top or inside a function: `import a.b`, `from a import b` (b a module
    or a name in a), relative imports resolved."""
    out = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known
                       else base for a in node.names]
        else:
            continue
        out |= {t for t in targets if t in known and t != name}
    return out


def import_graph(top):
    """{module: {modules it imports}} over the package under top."""
    files = module_files(top)
    return {name: imported(name, path, files) for name, path in
            files.items()}


def cycles(graph):
    """Every import cycle, as [m1, m2, ..., m1], each found once (a
    depth-first search; a cycle is reported from where it was entered)."""
    found, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open":
                found.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n, stack)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return found


def is_core(module):
    return not any(module == p or module.startswith(p + ".")
                   for p in NOT_CORES)


def cores_importing_kinds(graph):
    """[(core module, kind module it imports)]."""
    kinds = f"{PACKAGE}.kinds"
    return sorted((m, n) for m, deps in graph.items() if is_core(m)
                  for n in deps if n == kinds or n.startswith(kinds + "."))


def python_executables(folder):
    """The Python executables directly in folder (by their #! line)."""
    return sorted(f for f in folder.iterdir() if f.is_file() and
                  f.read_text(errors="replace").startswith("#!") and
                  "python" in f.read_text(errors="replace").split("\n")[0])


def long_executables(folder, limit=MAX_WRAPPER_LINES):
    """[(name, lines)] of the Python executables over limit lines."""
    return [(f.name, n) for f in python_executables(folder)
            if (n := len(f.read_text().splitlines())) > limit]


def one_letter_aliases(files):
    """[(file, alias)] of imports aliased to one letter."""
    return [(f.name, a.asname) for f in files
            for node in ast.walk(ast.parse(f.read_text(), str(f)))
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for a in node.names if a.asname and len(a.asname) == 1]


def sys_path_edits(files):
    """[file name] of the files that call sys.path.insert or append (in
    their code: a script they write out as text is not theirs)."""
    def edits(node):
        f = node.func if isinstance(node, ast.Call) else None
        return (isinstance(f, ast.Attribute) and
                f.attr in ("insert", "append") and
                isinstance(f.value, ast.Attribute) and
                f.value.attr == "path" and
                isinstance(f.value.value, ast.Name) and
                f.value.value.id == "sys")
    return [f.name for f in files
            if any(edits(n) for n in ast.walk(ast.parse(f.read_text())))]


def python_sources():
    return (sorted(SCRIPTS.rglob("*.py")) + python_executables(SCRIPTS) +
            sorted((ROOT / "tests").rglob("*.py")))


# ---- the package as it is --------------------------------------------------

def test_the_package_has_no_import_cycle():
    graph = import_graph(SCRIPTS)
    assert f"{PACKAGE}.results" in graph and f"{PACKAGE}.kinds" in graph
    assert cycles(graph) == []


def test_no_core_imports_a_kind_module():
    graph = import_graph(SCRIPTS)
    # the front ends do (the kinds package imports every kind module it
    # finds: tests/py/test_kind_discovery.py)
    assert f"{PACKAGE}.kinds" in graph[f"{PACKAGE}.commands.report"]
    assert f"{PACKAGE}.kinds.sweep" in graph
    assert cores_importing_kinds(graph) == []


def test_executables_are_thin_wrappers():
    names = {f.name for f in python_executables(SCRIPTS)}
    assert {"compare", "report", "run-suite", "fleet-host"} <= names
    assert long_executables(SCRIPTS) == []


def test_no_sys_path_or_one_letter_aliases():
    """Tests reach the package through tests/e2e/conftest.py's one
    sys.path entry; nothing is imported as a single letter."""
    tests = sorted((ROOT / "tests").rglob("test_*.py"))
    assert sys_path_edits(tests) == []
    assert one_letter_aliases(python_sources()) == []


# ---- the checks can fail ---------------------------------------------------

def write_package(top, modules):
    """A package under top: {module name: source}."""
    for name, text in modules.items():
        parts = name.split(".")
        folder = top.joinpath(*parts[:-1])
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(1, len(parts)):
            init = top.joinpath(*parts[:i], "__init__.py")
            if not init.exists():
                init.write_text("")
        (folder / f"{parts[-1]}.py").write_text(text)


def test_a_cycle_is_found(tmp_path):
    write_package(tmp_path, {
        f"{PACKAGE}.results": "import json\n",
        f"{PACKAGE}.plot": f"import {PACKAGE}.results\n",
        # inside a function, and as from-import: still an edge
        f"{PACKAGE}.figures.ab": f"def f():\n    from {PACKAGE} import plot\n",
        f"{PACKAGE}.stats": f"from {PACKAGE}.figures.ab import f\n",
    })
    assert cycles(import_graph(tmp_path)) == []
    (tmp_path / PACKAGE / "results.py").write_text(
        f"def g():\n    import {PACKAGE}.stats as orbstats\n")
    assert cycles(import_graph(tmp_path)) == [
        [f"{PACKAGE}.figures.ab", f"{PACKAGE}.plot", f"{PACKAGE}.results",
         f"{PACKAGE}.stats", f"{PACKAGE}.figures.ab"]]


def test_a_core_importing_a_kind_is_found(tmp_path):
    write_package(tmp_path, {
        f"{PACKAGE}.results": "KINDS = {}\n",
        f"{PACKAGE}.kinds.rate": f"import {PACKAGE}.results\n",
        f"{PACKAGE}.commands.plot": f"import {PACKAGE}.kinds.rate\n",
        f"{PACKAGE}.plot": f"from {PACKAGE}.kinds import rate\n",
    })
    assert cores_importing_kinds(import_graph(tmp_path)) == [
        (f"{PACKAGE}.plot", f"{PACKAGE}.kinds.rate")]


def test_a_long_executable_and_an_alias_are_found(tmp_path):
    (tmp_path / "short").write_text("#!/usr/bin/python3\n" + "pass\n" * 79)
    (tmp_path / "long").write_text("#!/usr/bin/python3\n" + "pass\n" * 80)
    (tmp_path / "shell").write_text("#!/bin/sh\n" + "true\n" * 100)
    assert long_executables(tmp_path) == [("long", 81)]
    (tmp_path / "a.py").write_text("import orbbench.results as R\n"
                                   "import orbbench.plot as orbplot\n"
                                   "from orbbench.plot import Skip as S\n"
                                   "import sys\n"
                                   "sys.path.insert(0, 'scripts')\n"
                                   "TEXT = 'sys.path.insert(0, 1)'\n")
    assert one_letter_aliases([tmp_path / "a.py"]) == [("a.py", "R"),
                                                        ("a.py", "S")]
    assert sys_path_edits([tmp_path / "a.py"]) == ["a.py"]
    (tmp_path / "a.py").write_text("TEXT = 'sys.path.insert(0, 1)'\n")
    assert sys_path_edits([tmp_path / "a.py"]) == []
