"""End-to-end: footprint accounting per step, memory cgroups that emulate
small machines, CPU placement, and bad `machine` values."""
import glob
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import (ORBBENCH, SCENARIOS, assert_nothing_left, wait_for)

FIELDS = ("rss_kb", "pss_kb", "uss_kb", "threads", "fds")


def test_footprint_to_20(orbbench):
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=10",
                 "sweep.step=10", "sweep.max_n=20", "sweep.rounds=3")
    assert r.rc == 0, r.stderr
    b = r.doc["baseline"]
    assert b["mem_available_kb"] > 0 and b["settle_ms"] >= 200
    assert isinstance(b["settled"], bool)
    first = r.doc["steps"][0]["machine"]
    assert (first["mem_available_kb"] - b["mem_available_kb"] ==
            first["delta"]["mem_available_kb"])
    for step in r.doc["steps"]:
        n = step["n"]
        fp = step["footprint"]
        assert fp["of"] == n and fp["probed"] == n and not fp["sampled"]
        servers = fp["servers"]
        assert len(servers) == n
        assert {s["pid"] for s in servers} <= {s["pid"]
                                                for s in r.doc["servers"]}
        for s in servers:
            assert 0 < s["uss_kb"] <= s["pss_kb"] <= s["rss_kb"]
            assert s["threads"] >= 1
            assert s["fds"] >= 3
        for f in FIELDS:
            vals = [s[f] for s in servers]
            assert fp[f]["sum"] == pytest.approx(sum(vals))
            assert fp[f]["min"] == min(vals) and fp[f]["max"] == max(vals)
            assert fp[f]["mean"] == pytest.approx(sum(vals) / n)
        m = step["machine"]
        for k in ("mem_available_kb", "mem_free_kb", "slab_kb",
                  "kernel_stack_kb", "page_tables_kb"):
            assert m[k] > 0
        assert set(m["delta"]) == {"mem_available_kb", "slab_kb",
                                   "kernel_stack_kb", "page_tables_kb",
                                   "tcp_retrans_segs", "softnet_dropped"}
        # 20 servers' threads need kernel stacks: the kernel's share shows
        assert m["delta"]["kernel_stack_kb"] > 0
        per = step["mem_per_server_kb"]
        assert per["pss"] == pytest.approx(fp["pss_kb"]["sum"] / n)
        assert per["uss"] == pytest.approx(fp["uss_kb"]["sum"] / n)
        assert per["mem_available"] == pytest.approx(
            -m["delta"]["mem_available_kb"] / n)
        st = step["server_start_ms"]
        assert st["count"] == 10 and 0 < st["min"] <= st["median"] <= st["max"]
        cl = step["client"]
        assert cl["rss_kb"] > 0 and cl["threads"] >= 1 and cl["fds"] >= n
    # an omniORB 4 server has at least its main, listener and one
    # connection thread once a client is connected
    assert r.doc["steps"][-1]["footprint"]["threads"]["min"] >= 3


def test_probe_budget_samples_a_stride(orbbench):
    r = orbbench(SCENARIOS / "sync-tcp.json", "sweep.start=30",
                 "sweep.step=30", "sweep.max_n=60", "sweep.rounds=2",
                 "probe.budget_ms=1", "probe.per_server_max=0")
    assert r.rc == 0, r.stderr
    first, second = r.doc["steps"]
    assert not first["footprint"]["sampled"]  # no cost known yet
    fp = second["footprint"]
    assert fp["sampled"] and fp["stride"] > 1
    assert fp["probed"] == -(-60 // fp["stride"])
    assert "servers" not in fp
    # sums over all servers are estimated from the sample's mean
    assert fp["pss_kb"]["sum"] == pytest.approx(fp["pss_kb"]["mean"] * 60)


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="needs root: makes a memory cgroup")
def test_small_memory_limit_stops_cleanly(orbbench):
    r = orbbench(SCENARIOS / "sync-unix.json", "sweep.start=5",
                 "sweep.step=5", "sweep.max_n=200", "sweep.rounds=2",
                 "machine.mem_limit_mb=12")
    assert r.rc == 0, r.stderr
    res = r.doc["result"]
    assert res["stop_reason"] in ("memory", "resource"), res
    assert "OOM" in res["detail"] or "MB" in res["detail"]
    assert res["max_servers"] < 200
    assert r.doc["machine"]["mem_limit_bytes"] == 12 * 1024 * 1024
    assert r.doc["machine"]["cgroup"]
    # this run's cgroups are gone (other runs on the machine may have
    # theirs), and so is every server (checked by the fixture)
    mine = [r.doc["machine"]["cgroup"],
            r.doc["machine"].get("cpu_accounting_cgroup")]
    assert all(p is None or not os.path.exists(p) for p in mine), mine


def test_servers_run_on_cpu_0(tmp_path):
    out = tmp_path / "pin.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"), "--out",
         str(out), "--set", "sweep.start=4", "--set", "sweep.step=4",
         "--set", "sweep.max_n=400", "--set", "machine.cpus=0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        doc = wait_for(lambda: out.exists() and json.loads(out.read_text()))
        assert doc, "no checkpoint"
        assert doc["machine"]["server_cpus"] == "0"
        checked = 0
        for s in doc["servers"]:
            for status in glob.glob(f"/proc/{s['pid']}/task/*/status"):
                try:
                    text = open(status).read()
                except OSError:
                    continue
                line = [l for l in text.splitlines()
                        if l.startswith("Cpus_allowed_list:")][0]
                assert line.split()[1] == "0", (status, line)
                checked += 1
        assert checked >= 4 * 3  # every thread of every server
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert_nothing_left(json.loads(out.read_text()))


@pytest.mark.parametrize("sets,needle", [
    (["machine.bogus=1"], 'unknown key "machine.bogus"'),
    (["machine.mem_limit_mb=0"], "machine.mem_limit_mb: 0 is out of range"),
    (["machine.cpus=99"], "machine.cpus: CPU 99 is not on this machine"),
    (["machine.client_cpus=0-x"], "is not a CPU list"),
    (["machine.limit_client=true"], "needs machine.mem_limit_mb"),
    (["machine.limit_client=yes"], "is not true or false"),
])
def test_bad_machine_values(sets, needle):
    args = [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json")]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 2
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_bad_machine_value_in_file(tmp_path):
    p = tmp_path / "m.json"
    p.write_text('{"machine": {"cpus": "7"}}')
    r = subprocess.run([str(ORBBENCH), "run", str(p)], capture_output=True,
                       text=True)
    assert r.returncode == 2
    assert r.stderr.startswith(f"orbbench: {p}: key \"machine.cpus\"")


CGROUP = "/sys/fs/cgroup"


def v2_controllers(path):
    try:
        with open(os.path.join(path, "cgroup.controllers")) as f:
            return f.read().split()
    except OSError:
        return []


def own_v2_cgroup():
    """This process's cgroup in the v2 hierarchy ("0::/path"), or "/"."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].strip()
    return "/"


def make_pids_cgroup(name):
    """A new pids cgroup `name`: cgroup v1's pids controller, else a v2
    cgroup below ours (or below the root, as the client does for memory:
    v2 enables no controller below a cgroup that holds processes) whose
    parent enables pids. Returns its folder; pytest.skip when the kernel
    has no pids controller at all; fails when it has one and no pids
    cgroup can be made."""
    v1 = os.path.join(CGROUP, "pids")
    if os.path.isfile(os.path.join(v1, "cgroup.procs")):
        cg = os.path.join(v1, name)
        os.mkdir(cg)
        return cg
    if "pids" not in v2_controllers(CGROUP):
        pytest.skip(f"no pids controller: neither {v1} (cgroup v1) nor "
                    f"pids in {CGROUP}/cgroup.controllers (v2)")
    tried = []
    for parent in dict.fromkeys([CGROUP + own_v2_cgroup().rstrip("/"),
                                 CGROUP]):
        try:
            with open(os.path.join(parent, "cgroup.subtree_control"),
                      "w") as f:
                f.write("+pids")
        except OSError as e:
            tried.append(f"{parent}: +pids: {e.strerror}")
        cg = os.path.join(parent, name)
        os.mkdir(cg)
        if os.path.exists(os.path.join(cg, "pids.max")):
            return cg
        os.rmdir(cg)
    pytest.fail("cannot make a cgroup v2 pids cgroup: " + "; ".join(tried))


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="needs root: makes a pids cgroup")
def test_task_limit_is_named_as_a_resource_stop(tmp_path):
    """Under a pids cgroup of 40 tasks (each server needs 2-4), a server
    cannot start the thread for its connection: the sweep stops with
    `resource` and names the limit, not a failed call. cgroup v1 or v2:
    the client reads pids.max from whichever it is in."""
    cg = make_pids_cgroup(f"orbbench-test-{os.getpid()}")
    try:
        with open(os.path.join(cg, "pids.max"), "w") as f:
            f.write("40")
        out = tmp_path / "pids.json"
        r = subprocess.run(
            ["sh", "-c", f'echo $$ > {cg}/cgroup.procs && exec "$@"', "sh",
             str(ORBBENCH), "run", str(SCENARIOS / "sync-unix.json"),
             "--out", str(out), "--set", "sweep.start=2", "--set",
             "sweep.step=2", "--set", "sweep.max_n=100"],
            capture_output=True, text=True, timeout=120)
        doc = json.loads(out.read_text())
        assert r.returncode == 0, r.stderr
        res = doc["result"]
        assert res["stop_reason"] == "resource", res
        assert "pids.max 40" in res["detail"]
        assert 0 < res["max_servers"] < 20
        assert_nothing_left(doc)
    finally:
        for _ in range(100):
            try:
                os.rmdir(cg)
                break
            except OSError:
                time.sleep(0.05)
