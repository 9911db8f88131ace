#!/usr/bin/python3
"""The shape of an orbbench result JSON, and the difference of two shapes.

    /usr/bin/python3 tests/tools/result_shape.py A.json B.json
    /usr/bin/python3 tests/tools/result_shape.py A.json    # its shape alone

A result's shape is the set of its key paths, each with the JSON types seen
there.  Measured values do not count, only which keys there are and what
type their values have.  Decisions:

* Paths are keys joined by "."; the elements of a list are merged into one
  "[]" step (``steps[].round_ms.median``), so a run of 3 steps and one of 30
  have the same shape.  A list's own path has type "array"; a list that is
  empty contributes no "[]" paths.
* Types are "object", "array", "string", "number", "bool", "null".  int and
  float are one type, "number": JSON has no such distinction and the
  writers print 2.0 as 2 in places.
* Object keys that are data rather than names are collapsed into one "{*}"
  step and the collapse is noted: keys that are all numbers (per-N or
  per-k maps).  The results of the shipped scenarios that ran here on
  2026-12-06 (125 at base 49b19c1 and main, 30 more of kinds new on main)
  held no such map, and no map keyed by server, source or payload name:
  those are lists of objects.  DATA_KEYS
  lists paths to collapse whatever their keys look like; it is empty.
* A path whose types differ only in "null" on one side (a value that is
  null in one run and set in the other, e.g. machine.server_cpus with and
  without a CPU set) is listed as "null on one side", not as a change.
* A path missing on one side under a list that was empty on that side
  (every element unseen) is listed as "unseen", not as removed or added.

It prints the paths only in A (removed), only in B (added), those whose
type changed, then the notes.  Exit 0 when nothing was removed or changed
type (additions allowed), 1 otherwise, 2 on unreadable input.
"""
import json
import re
import sys

DATA_KEYS = ()  # paths of objects whose keys are data, e.g. ("x.per_n",)
_NUMERIC = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def jtype(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    raise TypeError("not a JSON value: %r" % (v,))


def is_data_object(path, obj):
    if path in DATA_KEYS:
        return True
    return bool(obj) and all(_NUMERIC.match(k) for k in obj)


def shape(doc):
    """(paths, empty_lists, collapsed): paths maps a path to its set of
    types; empty_lists are the list paths never seen with an element;
    collapsed the object paths whose keys were taken as data."""
    paths, seen_elem, lists, collapsed = {}, set(), set(), set()

    def walk(v, path):
        paths.setdefault(path, set()).add(jtype(v))
        if isinstance(v, dict):
            if is_data_object(path, v):
                collapsed.add(path)
                for x in v.values():
                    walk(x, path + ".{*}")
            else:
                for k, x in v.items():
                    walk(x, (path + "." + k) if path else k)
        elif isinstance(v, list):
            lists.add(path)
            for x in v:
                seen_elem.add(path)
                walk(x, path + "[]")

    walk(doc, "")
    paths.pop("", None)
    return paths, lists - seen_elem, collapsed


def _under_empty(path, empty):
    return any(path.startswith(e + "[]") for e in empty)


def diff(a, b):
    """The difference of two shapes (as from shape()), as a dict of lists."""
    pa, ea, ca = a
    pb, eb, cb = b
    out = {"removed": [], "added": [], "changed": [], "null": [],
           "unseen": [], "collapsed": sorted(ca | cb)}
    for p in sorted(set(pa) | set(pb)):
        if p not in pb:
            (out["unseen"] if _under_empty(p, eb) else out["removed"]).append(
                (p, pa[p]))
        elif p not in pa:
            (out["unseen"] if _under_empty(p, ea) else out["added"]).append(
                (p, pb[p]))
        elif pa[p] != pb[p]:
            if (pa[p] - {"null"} == pb[p] - {"null"}
                    or pa[p] == {"null"} or pb[p] == {"null"}):
                out["null"].append((p, pa[p], pb[p]))
            else:
                out["changed"].append((p, pa[p], pb[p]))
    return out


def load(path):
    with open(path) as f:
        return json.load(f)


def _t(s):
    return "|".join(sorted(s))


def report(d, out=sys.stdout):
    for key, title in (("removed", "only in A (removed)"),
                       ("added", "only in B (added)")):
        print("%s: %d" % (title, len(d[key])), file=out)
        for p, t in d[key]:
            print("  %s  %s" % (p, _t(t)), file=out)
    print("changed type: %d" % len(d["changed"]), file=out)
    for p, ta, tb in d["changed"]:
        print("  %s  %s -> %s" % (p, _t(ta), _t(tb)), file=out)
    if d["null"]:
        print("null on one side: %d" % len(d["null"]), file=out)
        for p, ta, tb in d["null"]:
            print("  %s  %s -> %s" % (p, _t(ta), _t(tb)), file=out)
    if d["unseen"]:
        print("unseen (under a list empty on one side): %d"
              % len(d["unseen"]), file=out)
        for p, t in d["unseen"]:
            print("  %s  %s" % (p, _t(t)), file=out)
    if d["collapsed"]:
        print("keys taken as data: %s" % ", ".join(d["collapsed"]), file=out)


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: result_shape.py A.json [B.json]", file=sys.stderr)
        return 2
    try:
        a, *b = [load(f) for f in argv[1:]]
    except (OSError, ValueError) as e:
        print("result_shape.py: %s" % e, file=sys.stderr)
        return 2
    if not b:
        for path, types in sorted(shape(a)[0].items()):
            print("%s: %s" % (path, _t(types)))
        return 0
    b = b[0]
    d = diff(shape(a), shape(b))
    report(d)
    return 1 if d["removed"] or d["changed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
