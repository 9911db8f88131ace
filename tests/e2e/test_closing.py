"""What a run and a suite end with: the servers held, then what each
server cost (memory, threads, descriptors, CPU per call, a call's time),
each at the N it was measured at, from result.costs; the suite's table
in text, md, csv and json."""
import csv
import io
import json
import re
import subprocess

from conftest import (ORBBENCH, ROOT, SCENARIOS, TINY_SWEEP,
                      assert_nothing_left, run_suite, set_flags)
from test_paired import SMALL

TINY = (*TINY_SWEEP, "sweep.cost_n=7")


def measured(doc):
    return [m for m in doc["steps"] + doc["probes"] if m.get("rounds_ms")]


def test_run_ends_with_a_block_of_every_cost(tmp_path):
    out = tmp_path / "a.json"
    proc = subprocess.run(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), "--out",
         str(out), "--no-progress", *set_flags(*SMALL, "sweep.cost_n=20")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert_nothing_left(doc)
    costs = doc["result"]["costs"]
    # Memory at the largest step with a footprint, as that step has it.
    last = [s for s in doc["steps"] if "footprint" in s][-1]
    assert costs["memory"]["n"] == last["n"]
    assert costs["memory"]["pss_kb"] == last["mem_per_server_kb"]["pss"]
    assert costs["memory"]["threads"] == last["footprint"]["threads"]["mean"]
    assert costs["memory"]["fds"] == last["footprint"]["fds"]["mean"]
    # CPU at the measurement nearest cost_n, as that measurement has it.
    near = min(abs(m["n"] - 20) for m in measured(doc))
    cpu = costs["server_cpu"]
    assert abs(cpu["n"] - 20) == near and cpu["cost_n"] == 20
    assert cpu["us_per_call"] in [m["cpu_per_call_us"]["server"]
                                  for m in measured(doc) if m["n"] == cpu["n"]]
    assert costs["call"] == {"n": doc["steps"][0]["n"], "median_us":
                             doc["steps"][0]["call_us"]["median"]}
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("sync-unix: omniORB ")
    assert lines[1].startswith(f"  the machine held "
                               f"{doc['result']['max_servers']} servers")
    mem = costs["memory"]
    want = (f"  each server at N={mem['n']}: PSS {mem['pss_kb']:.0f} kB, "
            f"USS {mem['uss_kb']:.0f} kB, ")
    (line,) = [x for x in lines if x.startswith("  each server at N=")]
    assert line.startswith(want), line
    assert re.search(rf", {mem['threads']:.4g} threads, {mem['fds']:.4g} "
                     r"descriptors$", line), line
    assert (f"  server CPU per call at N={cpu['n']}: "
            f"{cpu['us_per_call']:.1f} us") in lines
    assert f"  stop: {doc['result']['stop_reason']}: " \
        f"{doc['result']['detail']}" in lines
    assert lines[-1].endswith(f"result: {out}")


def suite(tmp_path, fmt):
    proc = run_suite(ROOT / "tests" / "fixtures" / "repeat-scenarios",
                     "--out", tmp_path / fmt, "--format", fmt,
                     *set_flags(*TINY), timeout=300)
    assert proc.returncode == 0, proc.stderr
    docs = {p.stem: json.loads(p.read_text())
            for p in sorted((tmp_path / fmt).glob("*.json"))
            if p.name != "summary.json"}
    assert len(docs) == 2
    return proc.stdout, docs


def test_the_suites_table_has_every_cost_in_csv_and_json(tmp_path):
    out, docs = suite(tmp_path, "csv")
    table = out[:out.index("\nresults and summary.md in")]
    rows = list(csv.DictReader(io.StringIO(table)))
    assert [r["scenario"] for r in rows] == \
        [d["scenario"]["name"] for d in docs.values()]
    for r, d in zip(rows, docs.values()):
        c = d["result"]["costs"]
        assert r["PSS kB"] == f"{c['memory']['pss_kb']:.0f}"
        assert r["USS kB"] == f"{c['memory']['uss_kb']:.0f}"
        assert r["threads"] == f"{c['memory']['threads']:.4g}"
        assert r["fds"] == f"{c['memory']['fds']:.4g}"
        assert r["at N"] == str(c["memory"]["n"])
        assert r["CPU us/call"] == \
            f"{c['server_cpu']['us_per_call']:.1f} @{c['server_cpu']['n']}"
        assert r["call us"] == \
            f"{c['call']['median_us']:.1f} @{c['call']['n']}"
        assert r["max servers"] == str(d["result"]["max_servers"])
    out, docs = suite(tmp_path, "json")
    got = json.loads(out[:out.index("\nresults and summary.md in")])
    assert [r["costs"] for r in got["rows"]] == \
        [d["result"]["costs"] for d in docs.values()]
    assert "CPU us/call" in got["columns"]


def test_the_suites_text_table_says_where_each_cost_is_from(tmp_path):
    out, docs = suite(tmp_path, "text")
    head = out.splitlines()[0].split()
    assert head[:2] == ["scenario", "max"] and "PSS" in head and \
        "us/call" in head
    assert "sweep.cost_n" in out
    md = (tmp_path / "text" / "summary.md").read_text()
    assert "| PSS kB | USS kB | threads | fds | at N | CPU us/call |" in md


def test_run_format_json_is_one_line_per_side(tmp_path):
    out = tmp_path / "a.json"
    proc = subprocess.run(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), "--out",
         str(out), "--no-progress", "--format", "json", "--paired",
         *set_flags(*SMALL)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2
    for line, side, path in ((lines[0], "a", out),
                             (lines[1], "b", tmp_path / "a.versus.json")):
        got = json.loads(line)
        doc = json.loads(path.read_text())
        assert_nothing_left(doc)
        assert got == {"scenario": "sync-unix", "kind": "sweep",
                       "orb": doc["orb"], "file": str(path),
                       "result": doc["result"], "side": side}
        assert "costs" in got["result"]


def test_run_format_other_is_a_usage_error(tmp_path):
    proc = subprocess.run(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), "--out",
         str(tmp_path / "a.json"), "--format", "csv"],
        capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert proc.stderr.strip() == \
        "orbbench: --format csv: text or json (see orbbench help run)"
    assert not (tmp_path / "a.json").exists()
