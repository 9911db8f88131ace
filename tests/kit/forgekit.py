"""Comparisons as compare writes them, made from given run values: the
tests of the gate's decision (orbbench.decision) need documents whose
verdicts follow from their values (or, forged, do not). Each scenario is
given by its metrics' values per run; the document is drawn by compare's
own model (orbbench.comparison.shape.metric, then judge), so that it is
what `compare --format json` would print for runs with those values."""
import contextlib
import io
import json

import orbbench.comparison.model as orbmodel
import orbbench.comparison.shape as orbshape
from orbbench.comparison.shape import json_doc

# (higher is better, memory) of a sweep row's metrics (pss memory).
DIRECTIONS = {"crossing_n": (True, False), "round_ms": (False, False),
              "server_cpu_us": (False, False), "pss_kb": (False, True)}

# Three runs a side: B holds half the servers and costs half again more.
SLOWER = {"crossing_n": ([100, 104, 98], [50, 52, 49]),
          "round_ms": ([1.0, 1.05, 0.98], [1.5, 1.52, 1.49]),
          "server_cpu_us": ([10, 10.4, 9.9], [15, 15.3, 14.8]),
          "pss_kb": ([400, 401, 399], [400, 402, 399])}
SAME = {"crossing_n": ([100, 101, 100.5], [100.4, 100.6, 100.9]),
        "round_ms": ([1.0, 1.001, 1.002], [1.0, 1.002, 1.001]),
        "server_cpu_us": ([10, 10.01, 10.02], [10.02, 10.0, 10.01]),
        "pss_kb": ([400, 400.5, 400.2], [400.1, 400.4, 400.3])}


def row(name, values, paired=False, kind="sweep", bias_log=None):
    """One scenario row, not yet judged: values {key: (a_values,
    b_values)} for every key of DIRECTIONS; bias_log the interference
    its paired runs measured (orbbench.interference), or None."""
    metrics = {}
    for key, (higher, memory) in DIRECTIONS.items():
        va, vb = values[key]
        extra = {"source": "crossing_n"} if key == "crossing_n" else {}
        metrics[key] = orbshape.metric(list(va), list(vb), higher, memory,
                                       paired=paired, **extra)
    n = len(values["crossing_n"][0])
    return {"scenario": name, "kind": kind, "verdict": "n/a",
            "paired": paired, "interference": None if bias_log is None
            else {"bias_log": bias_log},
            "runs_a": n, "runs_b": len(values["crossing_n"][1]),
            "metrics": metrics,
            "a": {"runs": n, "stop_reasons": ["latency"]},
            "b": {"runs": len(values["crossing_n"][1]),
                  "stop_reasons": ["latency"]}}


def comparison(rows, alpha=0.05, only_in_a=(), suite=True):
    """A two-set comparison document of the rows, judged: what compare's
    JSON holds (its a, b, method, suite, only_in_a …), as plain JSON."""
    doc = comparisons([rows], alpha, only_in_a)
    if not suite:
        doc.pop("suite")
    return doc


def comparisons(rowsets, alpha=0.05, only_in_a=()):
    """The document of one set after A per list of rows (two sets: the
    comparison itself; more: {"sets", "method", "comparisons"}), judged
    together as compare judges them: one BH family over every set."""
    cmps = [{"a": [], "b": [], "mem_kind": "pss", "method": {},
             "environment_differences": [], "only_in_a": list(only_in_a),
             "only_in_b": [], "scenarios": rows} for rows in rowsets]
    orbmodel.judge(cmps, "pss", alpha)
    return json.loads(json.dumps(json_doc(cmps)))


def hostile_comparison(names, values=SLOWER):
    """A judged comparison with one scenario per name (each with values)."""
    return comparison([row(n, values) for n in names])


def in_process(main, argv):
    """A command's main(argv) run in this process: (exit code, stdout,
    stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()
