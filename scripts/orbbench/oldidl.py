"""An old omniidl back end (or build script folder), made to run on Python 3.

omniORB up to 4.1.7 wrote omniidl's back ends and its build scripts in
Python 2 (``except X, e:``, ``print "..."``, ``string.join``), and its
library build runs omniidl on its own IDL. Debian 12 has no Python 2, so
scripts/build-orb drives an old release with the system omniidl's front
end (4.2.5, Python 3) and the release's own C++ back end, converted here.
The conversion is mechanical and kept in one place, so that the patch a
build applied can be named in its BUILD_INFO:

1. leading tabs become spaces (Python 2 read a tab as up to 8 columns;
   Python 3 refuses a mix);
2. lib2to3's fixers, except map, filter and zip: Python 2 code indexes
   what they return, so every module instead imports list-returning ones
   from ``py2compat`` (below), which also gives back the string module's
   functions (``string.join`` ...) and the builtins ``cmp`` and ``apply``;
3. ``x.sort(f)`` and ``x.sort(cmp=f)`` become ``x.sort(key=cmp_to_key(f))``;
4. a class with ``__cmp__`` gains ``__eq__``, ``__ne__``, ``__lt__`` ...
   from it, and keeps identity hashing as in Python 2.

    python3 -m orbbench.oldidl SRC DEST PACKAGE   # a back-end package
    python3 -m orbbench.oldidl DIR                # a scripts folder, in place
"""

import os
import re
import shutil
import sys
import warnings

PY2COMPAT = '''\
"""Python 2 behaviour the converted code relies on (orbbench.oldidl)."""
import builtins
import string as _string

_map, _filter, _zip = map, filter, zip


def map(f, *seqs):
    if f is None:
        return list(_zip(*seqs)) if len(seqs) > 1 else list(seqs[0])
    return list(_map(f, *seqs))


def filter(f, seq):
    got = [x for x in seq if (f(x) if f is not None else x)]
    if isinstance(seq, str):
        return "".join(got)
    return got


def zip(*seqs):
    return list(_zip(*seqs))


def _cmp(a, b):
    return (a > b) - (a < b)


def _apply(f, args=(), kwargs=None):
    return f(*args, **(kwargs or {}))


# lib2to3's apply fixer rewrites apply(f, args) but not apply(f), which
# omniORB 4.0's output.py calls.
for _name, _f in (("cmp", _cmp), ("apply", _apply)):
    if not hasattr(builtins, _name):
        setattr(builtins, _name, _f)

_FUNCS = {
    "join": lambda words, sep=" ": sep.join(words),
    "joinfields": lambda words, sep=" ": sep.join(words),
    "split": lambda s, sep=None, n=-1: s.split(sep, n),
    "splitfields": lambda s, sep=None, n=-1: s.split(sep, n),
    "replace": lambda s, old, new, n=-1: s.replace(old, new, n),
    "strip": lambda s, chars=None: s.strip(chars),
    "lstrip": lambda s, chars=None: s.lstrip(chars),
    "rstrip": lambda s, chars=None: s.rstrip(chars),
    "lower": lambda s: s.lower(),
    "upper": lambda s: s.upper(),
    "capitalize": lambda s: s.capitalize(),
    "find": lambda s, *a: s.find(*a),
    "rfind": lambda s, *a: s.rfind(*a),
    "index": lambda s, *a: s.index(*a),
    "rindex": lambda s, *a: s.rindex(*a),
    "count": lambda s, *a: s.count(*a),
    "ljust": lambda s, w, c=" ": s.ljust(w, c),
    "rjust": lambda s, w, c=" ": s.rjust(w, c),
    "center": lambda s, w, c=" ": s.center(w, c),
    "zfill": lambda s, w: s.zfill(w),
    "expandtabs": lambda s, t=8: s.expandtabs(t),
    "atoi": lambda s, base=10: int(s, base),
    "atol": lambda s, base=10: int(s, base),
    "atof": float,
}
for _name, _f in _FUNCS.items():
    if not hasattr(_string, _name):
        setattr(_string, _name, _f)
for _name, _value in (("letters", _string.ascii_letters),
                      ("lowercase", _string.ascii_lowercase),
                      ("uppercase", _string.ascii_uppercase)):
    if not hasattr(_string, _name):
        setattr(_string, _name, _value)
'''

_CMP_METHODS = (
    "__eq__ = lambda self, other: self.__cmp__(other) == 0",
    "__ne__ = lambda self, other: self.__cmp__(other) != 0",
    "__lt__ = lambda self, other: self.__cmp__(other) < 0",
    "__le__ = lambda self, other: self.__cmp__(other) <= 0",
    "__gt__ = lambda self, other: self.__cmp__(other) > 0",
    "__ge__ = lambda self, other: self.__cmp__(other) >= 0",
    "__hash__ = object.__hash__",
)


def expand_leading_tabs(text):
    out = []
    for line in text.splitlines(keepends=True):
        lead = len(line) - len(line.lstrip(" \t"))
        out.append(line[:lead].expandtabs(8) + line[lead:])
    return "".join(out)


_SORT = re.compile(r"\.sort\(\s*(?:cmp\s*=\s*)?([A-Za-z_][\w.]*)\s*\)")


def fix_sort(text):
    """x.sort(f) / x.sort(cmp=f) -> x.sort(key=functools.cmp_to_key(f))."""
    new, n = _SORT.subn(r".sort(key=__import__('functools').cmp_to_key(\1))",
                        text)
    return new


def fix_cmp_classes(text):
    """After each `def __cmp__`, the rich comparisons made from it."""
    lines = text.splitlines(keepends=True)
    out = []
    for line in lines:
        m = re.match(r"^(\s*)def __cmp__\s*\(", line)
        if m:
            indent = m.group(1)
            for method in _CMP_METHODS:
                out.append(indent + method + "\n")
        out.append(line)
    return "".join(out)


def add_import(text, module):
    """The py2compat import, after any shebang, encoding line and
    docstring-less __future__ imports (which must come first)."""
    line = "from %s import map, filter, zip  # orbbench.oldidl\n" % module
    lines = text.splitlines(keepends=True)
    at = 0
    while at < len(lines) and (lines[at].startswith("#!") or
                               re.match(r"^#.*coding[:=]", lines[at])):
        at += 1
    last_future = None
    for i, l in enumerate(lines):
        if l.startswith("from __future__ import"):
            last_future = i
    if last_future is not None:
        at = last_future + 1
    return "".join(lines[:at] + [line] + lines[at:])


def _is_python(path):
    if path.endswith(".py"):
        return True
    try:
        with open(path, "rb") as f:
            first = f.readline()
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def _refactor(paths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from lib2to3 import refactor
    fixers = [f for f in refactor.get_fixers_from_package("lib2to3.fixes")
              if f.rsplit(".", 1)[-1] not in ("fix_map", "fix_filter",
                                              "fix_zip")]
    tool = refactor.RefactoringTool(fixers, {"print_function": False})
    for p in paths:
        with open(p, encoding="latin-1") as f:
            text = f.read()
        text = expand_leading_tabs(text)
        try:
            tree = tool.refactor_string(text, p)
        except Exception as e:  # lib2to3's ParseError, TokenError ...
            raise SystemExit(f"oldidl: {p}: lib2to3 cannot read it as "
                             f"Python 2 ({type(e).__name__}: {e})")
        with open(p, "w", encoding="latin-1") as f:
            f.write(str(tree))
    if tool.errors:
        raise SystemExit("oldidl: lib2to3 could not convert: %s" %
                         "; ".join(str(e) for e in tool.errors[:3]))


def convert(paths, module):
    _refactor(paths)
    for p in paths:
        with open(p, encoding="latin-1") as f:
            text = f.read()
        text = add_import(fix_cmp_classes(fix_sort(text)), module)
        with open(p, "w", encoding="latin-1") as f:
            f.write(text)
    bad = []
    for p in paths:
        with open(p, encoding="latin-1") as f:
            try:
                compile(f.read(), p, "exec")
            except SyntaxError as e:
                bad.append("%s:%s: %s" % (p, e.lineno, e.msg))
    if bad:
        raise SystemExit("oldidl: still not Python 3: " + "; ".join(bad[:3]))


def convert_package(src, dest, package):
    """SRC (an omniidl_be folder) copied to DEST/PACKAGE and converted."""
    target = os.path.join(dest, package)
    if os.path.exists(target):
        shutil.rmtree(target)
    shutil.copytree(src, target,
                    ignore=shutil.ignore_patterns("*.pyc", "CVS", "GNUmakefile*",
                                                  "dir.mk"))
    paths = [os.path.join(d, f) for d, _, fs in os.walk(target)
             for f in fs if f.endswith(".py")]
    convert(sorted(paths), package + ".py2compat")
    with open(os.path.join(target, "py2compat.py"), "w") as f:
        f.write(PY2COMPAT)
    return target


def convert_scripts(folder):
    """Every Python script directly in FOLDER, converted in place."""
    paths = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                   if os.path.isfile(os.path.join(folder, f)) and
                   f != "py2compat.py" and
                   _is_python(os.path.join(folder, f)))
    convert(paths, "py2compat")
    with open(os.path.join(folder, "py2compat.py"), "w") as f:
        f.write(PY2COMPAT)
    return paths


def main(argv):
    if len(argv) == 1:
        convert_scripts(argv[0])
    elif len(argv) == 3:
        convert_package(*argv)
    else:
        sys.stderr.write("usage: python3 -m orbbench.oldidl SRC DEST PACKAGE"
                         " | python3 -m orbbench.oldidl SCRIPTS_DIR\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
