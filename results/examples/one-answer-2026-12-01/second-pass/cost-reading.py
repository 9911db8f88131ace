"""TAO/omniORB server CPU per scenario and on the suite, by the three
methods of the second pass, as docs/measured/2026-12-01-one-answer.md
("Where a cost is read") has it.

usage: cost-reading.py ROOT COMPARE
ROOT holds solo/, hold-OT/ (A = omniORB), hold-TO/ (A = TAO), each with
omni/ and tao/ result folders; COMPARE is scripts/compare. The hold-TO
rows are inverted to TAO/omniORB."""
import json
import subprocess
import sys

root, tool = sys.argv[1], sys.argv[2]
RUNS = ("solo", "hold-OT", "hold-TO")


def compare(d):
    a, b = ("tao", "omni") if d == "hold-TO" else ("omni", "tao")
    out = subprocess.run([tool, f"{root}/{d}/{a}", f"{root}/{d}/{b}",
                          "--format", "json"], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def cell(m, inv):
    r, lo, hi, v = m["ratio"], m["ci_low"], m["ci_high"], m["verdict"]
    if inv:
        r, lo, hi = 1 / r, 1 / hi, 1 / lo
        v = {"faster": "slower", "slower": "faster"}.get(v, v)
    return f"{r:.2f} [{lo:.2f}–{hi:.2f}] {v}"


res = {d: compare(d) for d in RUNS}
for sc in ("sync-unix", "event-unix", "pool5-unix"):
    row = []
    for d in RUNS:
        m = next(x for x in res[d]["scenarios"]
                 if x["scenario"] == sc)["metrics"]["server_cpu_us"]
        row.append(cell(m, d == "hold-TO") + f" @{m['at_n']}")
    print(f"| {sc} | " + " | ".join(row) + " |")
print("| suite | " + " | ".join(cell(res[d]["suite"]["server_cpu_us"],
                                      d == "hold-TO") for d in RUNS) + " |")
print("| suite verdict | " + " | ".join(res[d]["suite_verdict"]
                                        for d in RUNS) + " |")
