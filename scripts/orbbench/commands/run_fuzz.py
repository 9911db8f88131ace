"""Run libFuzzer targets one after another, each for SECONDS, from a
scratch copy of its seed corpus, and print what each did: executions,
executions per second, coverage (cov: edges, ft: features, from
libFuzzer's final stats), corpus size, crashes.

usage: scripts/run-fuzz [--seconds S] [--corpus DIR] [--work DIR] TARGET...

TARGET is a fuzz binary (build/fuzz/fuzz_ior); its seeds are
CORPUS/NAME (fuzz/corpus/fuzz_ior), copied to WORK/NAME/corpus
(build/fuzz/work/...), so the committed corpus never grows; a dictionary
CORPUS/../NAME.dict (fuzz/fuzz_scenario.dict) is used when there is one. A crash stops
that target (the others still run); its input is kept in WORK/NAME/ and
its path printed, with the log. Exit: 0 no crash, 1 a target crashed or
failed to run, 2 usage.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

import orbbench.cli as orbcli

PROG = orbcli.prog("run-fuzz")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


# libFuzzer's status lines ("#1234 NEW cov: 56 ft: 78 corp: 9/1b ...")
# and final stats ("stat::number_of_executed_units: 1234").
STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
STAT = re.compile(r"^stat::(\w+):\s*(\d+)")
ARTIFACT = re.compile(r"Test unit written to (\S+)")
# The first line that says what went wrong: a target's FUZZ_CHECK, UBSan,
# ASan/LSan, or libFuzzer itself (timeout, out of memory, signal).
CRASH_KIND = re.compile(r"(check failed: .*|runtime error: .*|"
                        r"ERROR: (?:AddressSanitizer|LeakSanitizer|"
                        r"libFuzzer): .*)")


def run_target(binary, seconds, corpus_root, work_root):
    name = os.path.basename(binary)
    work = os.path.join(work_root, name)
    shutil.rmtree(work, ignore_errors=True)
    corpus = os.path.join(work, "corpus")
    seeds = os.path.join(corpus_root, name)
    if os.path.isdir(seeds):
        shutil.copytree(seeds, corpus)
    else:
        os.makedirs(corpus)
    log_path = os.path.join(work, "fuzz.log")
    cmd = [binary, f"-max_total_time={seconds}", "-print_final_stats=1",
           "-timeout=10", f"-artifact_prefix={work}/"]
    dict_path = os.path.join(os.path.dirname(corpus_root), name + ".dict")
    if os.path.isfile(dict_path):
        cmd.append(f"-dict={dict_path}")
    cmd.append(corpus)
    start = time.monotonic()
    with open(log_path, "w") as log:
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    elapsed = time.monotonic() - start

    r = {"name": name, "rc": rc, "elapsed": elapsed, "log": log_path,
         "runs": 0, "cov": 0, "ft": 0, "corp": 0, "artifacts": [],
         "kind": ""}
    stats = {}
    with open(log_path, errors="replace") as log:
        for line in log:
            m = STATUS.match(line)
            if m:
                r["runs"], r["cov"], r["ft"], r["corp"] = map(int,
                                                              m.groups())
            m = STAT.match(line)
            if m:
                stats[m.group(1)] = int(m.group(2))
            m = ARTIFACT.search(line)
            if m:
                r["artifacts"].append(m.group(1))
            m = CRASH_KIND.search(line)
            if m and not r["kind"]:
                r["kind"] = m.group(1).strip()[:160]
    # The final count (after the last status line) when libFuzzer gave it.
    r["runs"] = stats.get("number_of_executed_units", r["runs"])
    r["exec_s"] = stats.get("average_exec_per_sec",
                            int(r["runs"] / elapsed) if elapsed else 0)
    r["crashed"] = rc != 0
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Run libFuzzer targets from scratch copies of their "
                    "seed corpora.")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "fuzz", "corpus"))
    ap.add_argument("--work",
                    default=os.path.join(ROOT, "build", "fuzz", "work"))
    ap.add_argument("targets", nargs="+")
    a = ap.parse_args(argv)
    if a.seconds < 1:
        ap.error("--seconds must be at least 1")
    for t in a.targets:
        if not os.access(t, os.X_OK):
            ap.error(f"{t}: not an executable (run make fuzz-build)")

    results = []
    for t in a.targets:
        print(f"{PROG}: {os.path.basename(t)} for {a.seconds} s",
              file=sys.stderr, flush=True)
        results.append(run_target(t, a.seconds, a.corpus, a.work))

    head = (f"{'target':<18} {'executions':>12} {'exec/s':>9} {'cov':>6} "
            f"{'ft':>6} {'corpus':>7} {'crashes':>8} {'time':>7}")
    print(head)
    for r in results:
        print(f"{r['name']:<18} {r['runs']:>12} {r['exec_s']:>9} "
              f"{r['cov']:>6} {r['ft']:>6} {r['corp']:>7} "
              f"{1 if r['crashed'] else 0:>8} {r['elapsed']:>6.0f}s")
    total_runs = sum(r["runs"] for r in results)
    total_time = sum(r["elapsed"] for r in results)
    crashed = [r for r in results if r["crashed"]]
    print(f"{'total':<18} {total_runs:>12} "
          f"{int(total_runs / total_time) if total_time else 0:>9} "
          f"{'':>6} {'':>6} {'':>7} {len(crashed):>8} {total_time:>6.0f}s")
    for r in crashed:
        what = r["kind"] or f"exit {r['rc']}"
        inputs = ", ".join(r["artifacts"]) or "no input written"
        print(f"{PROG}: {r['name']} crashed ({what}): {inputs} "
              f"(log {r['log']})", file=sys.stderr)
    return 1 if crashed else 0

