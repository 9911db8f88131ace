"""orbbench.oldidl: an old omniidl back end's Python 2, made to run on
Python 3 (scripts/build-orb, for omniORB up to 4.1.7). A package written
here in the Python 2 of those back ends is converted and then imported
and run; what it returns is what Python 2 returned."""
import subprocess
import sys
import textwrap

from conftest import ROOT
from orbbench import oldidl

# The idioms of omniORB 4.0/4.1's omniidl_be, each in a line or two.
PY2 = {
    "__init__.py": "",
    "util.py": '''\
        import string

        class Id:
        \tdef __init__(self, name):
        \t\tself.name = name
        \tdef __cmp__(self, other):
        \t\treturn cmp(self.name, other.name)

        def lexicographic(a, b):
            return cmp(a.name, b.name)

        def names(ids):
            ids.sort(lexicographic)
            return string.join(map(lambda i: i.name, ids), "::")

        def first_upper(words):
            return filter(lambda w: w[0] in string.uppercase, words)[0]

        def pairs(a, b):
            return zip(a, b)[-1]

        def call(f):
            return apply(f)

        def parse(text):
            try:
                return string.atoi(text)
            except ValueError, e:
                return -1

        def shout(out, s):
            print >> out, string.upper(s)
        ''',
}


def make_package(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name, text in PY2.items():
        (src / name).write_text(textwrap.dedent(text))
    return src


def test_a_python2_back_end_runs_on_python3(tmp_path):
    src = make_package(tmp_path)
    # Python 3 cannot even compile the original
    r = subprocess.run([sys.executable, "-c",
                        f"compile(open({str(src / 'util.py')!r}).read(), "
                        "'util.py', 'exec')"], capture_output=True, text=True)
    assert r.returncode != 0 and "SyntaxError" in r.stderr
    dest = tmp_path / "dest"
    dest.mkdir()
    oldidl.convert_package(str(src), str(dest), "old_be")
    program = textwrap.dedent('''\
        import io
        from old_be import util
        ids = [util.Id("b"), util.Id("a"), util.Id("c")]
        print(util.names(ids))
        print(util.Id("a") == util.Id("a"), util.Id("a") < util.Id("b"),
              len({util.Id("a"), util.Id("a")}))
        print(util.first_upper(["x", "Yes", "Zed"]))
        print(util.pairs([1, 2], [3, 4]))
        print(util.call(lambda: "applied"))
        print(util.parse("42"), util.parse("x"))
        out = io.StringIO()
        util.shout(out, "hi")
        print(repr(out.getvalue()))
        ''')
    r = subprocess.run([sys.executable, "-c", program], cwd=dest,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "a::b::c",
        # __cmp__ gives equality and order; hashing stays by identity
        "True True 2",
        "Yes",
        "(2, 4)",
        "applied",
        "42 -1",
        "'HI\\n'",
    ]


def test_a_scripts_folder_is_converted_in_place(tmp_path):
    """bin/scripts: executables with a shebang and no .py, run by the build
    as `python script.py ...`; the shebang stays first."""
    folder = tmp_path / "scripts"
    folder.mkdir()
    tool = folder / "distdate"
    tool.write_text('#!/usr/bin/env python\nimport string, sys\n'
                    'print string.join(sys.argv[1:], "-")\n')
    (folder / "README").write_text("not python\n")
    oldidl.convert_scripts(str(folder))
    assert tool.read_text().startswith("#!/usr/bin/env python\n")
    assert (folder / "README").read_text() == "not python\n"
    r = subprocess.run([sys.executable, str(tool), "a", "b"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "a-b\n"


def test_code_that_stays_python2_is_an_error(tmp_path):
    """What the fixers cannot convert is named, not silently left."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "bad.py").write_text("x = `1`\nif x <> 2: pass\nexec 'y' in {}\n"
                                "def f((a, b)): return a\n")
    (src / "worse.py").write_text("class A:\n  def f(self):\n\treturn 1\n"
                                  "  print 'x' 'y'\n  )\n")
    r = subprocess.run([sys.executable, "-m", "orbbench.oldidl", str(src),
                        str(tmp_path / "dest"), "be"],
                       cwd=ROOT / "scripts", capture_output=True, text=True,
                       timeout=60)
    assert r.returncode != 0
    assert "worse.py" in r.stderr
