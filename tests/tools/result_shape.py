#!/usr/bin/env python3
"""A JSON document's shape, without its values: one line per path, with
the types found there (a list's elements merged under PATH[]), sorted, so
that two results of the same code diff empty whatever they measured.

usage: tests/tools/result_shape.py [--keep KEY]... FILE...
  --keep KEY  also print the values at keys named KEY (e.g. kind, phase):
              the ones a shape depends on
A dev tool for refactors (a before/after diff of result files, issue 52);
not part of the suite. Exit 2 on a file that is not JSON.
"""
import json
import sys

USAGE = next(line for line in __doc__.splitlines()
             if line.startswith("usage:"))


def type_name(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "list"
    return "object"


def walk(v, path, out, keep):
    out.setdefault(path, set()).add(type_name(v))
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, f"{path}.{k}" if path else k, out, keep)
            if k in keep and not isinstance(x, (dict, list)):
                out.setdefault(f"{path}.{k}={json.dumps(x)}", set())
    elif isinstance(v, list):
        for x in v:
            walk(x, path + "[]", out, keep)


def shape(doc, keep=()):
    out = {}
    walk(doc, "", out, set(keep))
    return [f"{p or '.'}: {'|'.join(sorted(t))}" if t else p
            for p, t in sorted(out.items())]


def main(argv):
    keep, files = [], []
    it = iter(argv)
    for a in it:
        if a == "--keep":
            keep.append(next(it, ""))
        elif a.startswith("-"):
            print(USAGE, file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        print(USAGE, file=sys.stderr)
        return 2
    for f in files:
        try:
            with open(f) as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            print(f"result_shape: {f}: {e}", file=sys.stderr)
            return 2
        if len(files) > 1:
            print(f"== {f}")
        print("\n".join(shape(doc, keep)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
