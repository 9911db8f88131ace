"""Kind objects (client/kinds/objects.c): one server whose objects grow
from M = 1 by a factor a step, each step's calls spread over the M. Real
servers of every family at small M (the ORB builds skip, naming their
build command), real sockets: the steps and what each records, the keys
the client makes for objects it was never given (TAO's hold an index of
its own), the policies each server says it set, the floor (giop-min);
the bounds (a call's median, memory per object, time, an OOM kill); bad
scenarios, a server without makeObjects, a server killed mid-run, an
interrupt; and report, compare and keys on its results with no edit to
shared code."""
import json
import os
import signal
import subprocess

import pytest

from conftest import (BIN, ORBBENCH, SCENARIOS, assert_nothing_left, wait_for)
from test_safety import sanitized

# One worker with test_callers_families (make test's -n 2): the checks for
# stray JVMs and callers of the ORB builds see every worker's.
pytestmark = pytest.mark.xdist_group("callers")

OBJECTS = SCENARIOS / "objects"
# Small: M = 1, 10, 100; a few hundred calls a step.
SMALL = ("objects.max_m=100", "objects.calls=300", "objects.warmup=100")
EACH = ("USER_ID", "RETAIN", "USE_ACTIVE_OBJECT_MAP_ONLY")
DEFAULT = ("USER_ID", "NON_RETAIN", "USE_DEFAULT_SERVANT", "MULTIPLE_ID")


def check_steps(r, ms=(1, 10, 100), stop="max_n"):
    """A run that measured every step of ms and stopped as `stop`: each
    step's makes, calls and footprint, as recorded; the objects body."""
    assert (r.rc, r.doc["result"]["stop_reason"]) == (0, stop), r.stderr
    o = r.doc["objects"]
    steps = o["steps"]
    assert [s["m"] for s in steps] == list(ms)
    assert o["made"] == ms[-1] and o["held_m"] == ms[-1]
    prev = 0
    for s in steps:
        assert s["added"] == s["m"] - prev
        prev = s["m"]
        assert s["make"]["calls"] >= 1
        assert s["make"]["client_ns"] > 0
        assert s["make"]["server_ns"] >= 0
        assert s["call_us"]["count"] == 300
        assert 0 < s["call_us"]["median"] <= s["call_us"]["p99"]
        assert s["footprint"]["pss_kb"] > 0
    assert steps[0]["call_ratio"] == {"median": 1.0, "p99": 1.0}
    assert steps[0]["kb_per_object"] is None
    assert all(set(s["kb_per_object"]) == {"pss", "uss"} for s in steps[1:])
    ref = o["reference"]
    assert ref["type_id"] == "IDL:Bench/Echo:1.0"
    assert 0 < ref["key_bytes"] < ref["ior_bytes"]
    assert ref["ior_string_bytes"] == 4 + 2 * (4 + ref["ior_bytes"])
    assert o["key_form"]["forms_left"] >= 1
    assert o["create_us_per_object"]["make_calls"] == len(steps)
    assert len(r.doc["servers"]) == 1
    return o


def test_omniorb_servants_each_and_the_summary(orbbench):
    r = orbbench(OBJECTS / "01-omniorb-each.json", *SMALL)
    o = check_steps(r)
    assert tuple(o["policies"]) == EACH
    assert o["servants"] == "each"
    # omniORB's keys: the POA's prefix and the ObjectId, no index
    assert o["key_form"]["index"] is None
    assert o["key_form"]["digits_at"] == o["reference"]["key_bytes"] - 8
    # a servant and its map entry each: the server grew
    assert o["steps"][-1]["footprint"]["pss_kb"] > \
        o["steps"][0]["footprint"]["pss_kb"]
    assert "a servant for each object, 300 calls a step" in r.stdout
    assert "kB/object since M=1" in r.stdout
    assert "reference: " in r.stdout and "object key 26 bytes" in r.stdout
    assert "stop: max_n (objects.max_m (100) reached" in r.stdout


def test_omniorb_default_servant(orbbench):
    r = orbbench(OBJECTS / "02-omniorb-default.json", *SMALL,
                 "transport=unix")
    o = check_steps(r)
    assert tuple(o["policies"]) == DEFAULT
    assert "one default servant for every object" in r.stdout


def test_giopmin_is_the_floor(orbbench):
    """No POA: the objects are a count, the server one thread whatever
    M; a key past the count is no object (the first step's calls would
    fail if the client made keys beyond it)."""
    r = orbbench(OBJECTS / "15-giopmin.json", "objects.max_m=10000",
                 "objects.calls=300", "objects.warmup=100")
    o = check_steps(r, ms=(1, 10, 100, 1000, 10000))
    fp = [s["footprint"] for s in o["steps"]]
    assert {f["threads"] for f in fp} == {1}
    assert o["policies"][0] == "none:"
    assert o["reference"]["key_bytes"] == len("orbbench-giop-min-") + 8


# ---- every family ----------------------------------------------------------

FAMILIES = {
    # family: (its builds under bin/orbs, transport, how to build one)
    "tao": ("tao-*", "unix", "scripts/build-orb tao 2.2.1 --source "
            "ACE+TAO-src-6.2.1.tar.gz"),
    "orbit2": ("orbit2-*", "unix", "scripts/build-orb orbit2 2.14.19 "
               "--source ORBIT2_SOURCE (github:Distrotech/ORBit2)"),
    "mico": ("mico-*", "unix", "scripts/build-orb mico 2.3.13 --source "
             "/tmp/mico (github:zebastian/mico)"),
    "jacorb": ("jacorb-*", "tcp", "scripts/build-orb jacorb 3.4 --source "
               "JACORB_SOURCE (docs/servers.md#jacorb)"),
    "omniorbpy": ("omniorbpy-*", "unix", "scripts/build-orb omniorbpy "
                  "4.2.6 --source omniORBpy-4.2.6.tar.bz2"),
    "omniorb-4.0.7": ("omniorb-4.0.7", "unix", "scripts/build-orb omniorb "
                      "4.0.7 --source TREE (docs/servers.md#old-omniorb-"
                      "releases)"),
    "omniorb-4.3.3": ("omniorb-4.3.3", "unix", "scripts/build-orb omniorb "
                      "4.3.3 --debian trixie"),
}


def family_sets(family):
    """The --set words for the newest build of family, or skip naming its
    build command."""
    pattern, transport, build = FAMILIES[family]
    builds = sorted((BIN / "orbs").glob(f"{pattern}/echo-server"))
    if not builds:
        pytest.skip(f"no {family} build: {build}, then make")
    kind = family.split("-")[0]
    return (f"server.kind={kind}", f"server.orb={builds[-1].parent.name}",
            f"transport={transport}")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_makes_and_serves_its_objects(orbbench, family):
    """A servant each and a default servant: the client calls objects it
    was only given the first and last of, so each family's keys follow
    the pattern it learned. TAO's hold the object's slot in its active
    object map (active demultiplexing) with a servant each, and none
    with a default servant; ORBit2 says its 'default' is one servant
    under every id."""
    sets = family_sets(family)
    r = orbbench(OBJECTS / "01-omniorb-each.json", *SMALL, *sets,
                 "objects.max_m=1000")
    o = check_steps(r, ms=(1, 10, 100, 1000))
    assert tuple(o["policies"]) == EACH
    assert (o["key_form"]["index"] is not None) == (family == "tao"), \
        o["key_form"]
    r = orbbench(OBJECTS / "02-omniorb-default.json", *SMALL, *sets)
    o = check_steps(r)
    want = DEFAULT if family != "orbit2" else EACH + ("MULTIPLE_ID",)
    assert tuple(o["policies"]) == want
    assert o["key_form"]["index"] is None


def test_combat_makes_its_objects_with_its_own_poa(orbbench):
    r = orbbench(OBJECTS / "13-combat-each.json", "objects.max_m=10",
                 "objects.calls=300", "objects.warmup=50")
    o = check_steps(r, ms=(1, 10))
    assert tuple(o["policies"]) == EACH
    r = orbbench(OBJECTS / "14-combat-default.json", "objects.max_m=10",
                 "objects.calls=300", "objects.warmup=50")
    assert tuple(check_steps(r, ms=(1, 10))["policies"]) == DEFAULT


# ---- the bounds --------------------------------------------------------------

def test_a_median_over_max_call_us_is_the_crossing(orbbench):
    r = orbbench(OBJECTS / "15-giopmin.json", *SMALL,
                 "objects.max_call_us=1")
    assert (r.rc, r.doc["result"]["stop_reason"]) == (0, "latency"), \
        r.stderr
    o = r.doc["objects"]
    assert [s["m"] for s in o["steps"]] == [1] and o["held_m"] == 0
    assert "over objects.max_call_us (1 us); held at M=0" in \
        r.doc["result"]["detail"]


def test_memory_per_object_over_its_bound_is_a_cost_stop(orbbench):
    """Judged from M = 10000 once PSS grew 16 MiB: omniORB's servants
    pass it at 10^5 (ASan's redzones and quarantine, in a sanitized
    build of the server, already at 10^4)."""
    r = orbbench(OBJECTS / "01-omniorb-each.json", "transport=unix",
                 "objects.max_m=1000000", "objects.calls=300",
                 "objects.warmup=100", "objects.max_kb_per_object=0.01")
    assert (r.rc, r.doc["result"]["stop_reason"]) == (0, "cost"), r.stderr
    o = r.doc["objects"]
    assert o["steps"][-1]["m"] in ((10000, 100000) if sanitized()
                                   else (100000,))
    assert [s["kb_judged"] for s in o["steps"]][-1] is True
    assert not any(s["kb_judged"] for s in o["steps"][:-1])
    assert "is over objects.max_kb_per_object (0.01 kB)" in \
        r.doc["result"]["detail"]


def test_the_run_is_bounded_in_time(orbbench):
    """A step's calls past objects.max_seconds end it; the steps before
    are kept."""
    r = orbbench(OBJECTS / "15-giopmin.json", "objects.max_m=1000",
                 "objects.calls=1000000", "objects.warmup=0",
                 "objects.max_seconds=1")
    assert (r.rc, r.doc["result"]["stop_reason"]) == (0, "time_limit"), \
        r.stderr
    assert "objects.max_seconds (1 s) reached at M=1 after" in \
        r.doc["result"]["detail"]


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="needs root: makes a memory cgroup")
def test_a_server_out_of_memory_ends_the_run_named(orbbench):
    """omniORB's 10^6 servants do not fit a 100 MB memory cgroup: the
    OOM killer ends the server while it makes them, a `memory` stop as
    in every kind, the steps before it written (a step earlier when the
    server is built with ASan, whose allocator costs more a servant)."""
    r = orbbench(OBJECTS / "01-omniorb-each.json", "transport=unix",
                 "objects.calls=300", "objects.warmup=100",
                 "machine.mem_limit_mb=100")
    assert r.doc is not None, r.stderr
    assert (r.doc["result"]["stop_reason"], r.rc) == ("memory", 0), \
        (r.doc["result"], r.stderr)
    assert "makeObjects" in r.doc["result"]["detail"]
    assert "OOM killer in the 100 MB memory cgroup" in \
        r.doc["result"]["detail"]
    assert r.doc["objects"]["steps"][-1]["m"] in (
        (10000, 100000) if sanitized() else (100000,))


# ---- errors --------------------------------------------------------------

@pytest.mark.parametrize("sets, key, message", [
    (("objects.servants=some",), "objects.servants", "each"),
    (("objects.growth=1",), "objects.growth", ""),
    (("objects.max_m=0",), "objects.max_m", ""),
    (("objects.calls=0",), "objects.calls", ""),
    (("transport=pipe",), "transport", "kind objects needs"),
    (("call.payload=Octet1K",), "call.payload", "echoString"),
    (("server.kind=raw",), "server.kind", "no GIOP"),
    (("mode=event",), "mode", ""),
    (("sweep.max_n=3",), "sweep.max_n", ""),
])
def test_bad_scenarios_are_refused_naming_the_key(orbbench, sets, key,
                                                  message):
    r = orbbench(OBJECTS / "01-omniorb-each.json", *sets)
    assert r.rc == 2 and r.doc is None, r.stderr
    assert key in r.stderr and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_server_without_makeobjects_is_a_failed_call(tmp_path):
    """The fake GIOP server serves echoString only and hangs up on
    anything else: the run ends call_failed, naming makeObjects."""
    from test_misbehave import run_fake
    r = run_fake(tmp_path, "unix", *SMALL,
                 scenario=OBJECTS / "01-omniorb-each.json")
    assert (r.rc, r.doc["result"]["stop_reason"]) == (1, "call_failed"), \
        r.stderr
    assert "in makeObjects(1) at M=1" in r.doc["result"]["detail"]
    assert r.doc["objects"]["steps"] == []


def start_long_run(tmp_path):
    """An objects run in the background that will not end on its own for
    a while: (process, out, its first checkpoint with a step)."""
    out = tmp_path / "long.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(OBJECTS / "15-giopmin.json"), "--out",
         str(out), "--set", "objects.growth=1.1", "--set",
         "objects.calls=3000", "--set", "objects.warmup=0", "--set",
         "objects.max_seconds=120"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def first_step():
        try:
            doc = json.loads(out.read_text())
        except (OSError, ValueError):
            return None
        return doc if doc.get("objects", {}).get("steps") else None
    doc = wait_for(first_step)
    assert doc, "no step written"
    return proc, out, doc


def finish(proc):
    try:
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_a_server_killed_mid_run_is_server_died(tmp_path):
    proc, out, doc = start_long_run(tmp_path)
    os.kill(doc["servers"][0]["pid"], signal.SIGKILL)
    _, err = finish(proc)
    assert proc.returncode == 1, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "server_died", doc["result"]
    assert "killed by signal 9" in doc["result"]["detail"]
    assert "calling object" in doc["result"]["detail"] or \
        "in makeObjects" in doc["result"]["detail"]
    assert doc["objects"]["steps"][0]["m"] == 1
    assert_nothing_left(doc)


def test_an_interrupt_ends_the_run_and_its_server(tmp_path):
    proc, out, doc = start_long_run(tmp_path)
    proc.send_signal(signal.SIGINT)
    _, err = finish(proc)
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "interrupted"
    assert doc["objects"]["steps"]
    assert_nothing_left(doc)


# ---- the shared Python, unchanged, on its results ----------------------------

@pytest.fixture
def two_folders(orbbench, tmp_path):
    """Two folders, A and B, with two omniORB runs of one scenario each:
    A's with a servant an object, B's with a default servant."""
    folders = []
    for side, servants in (("A", "each"), ("B", "default")):
        folder = tmp_path / side
        folder.mkdir()
        for k in range(2):
            r = orbbench(OBJECTS / "01-omniorb-each.json", *SMALL,
                         "transport=unix", f"objects.servants={servants}")
            assert r.rc == 0, r.stderr
            (folder / f"r{k}.json").write_text(json.dumps(r.doc))
        folders.append(folder)
    return folders


def test_report_compare_and_plot_read_the_kind(two_folders, tmp_path):
    a, b = two_folders
    out = tmp_path / "report"
    r = subprocess.run([str(ORBBENCH), "report", "--results", str(a),
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    md = (out / "report.md").read_text()
    assert "## Many objects in one server" in md
    assert "USER_ID RETAIN USE_ACTIVE_OBJECT_MAP_ONLY" in md
    for stem in ("objects-memory", "objects-call", "objects-create"):
        assert (out / f"{stem}.png").stat().st_size > 0, stem
    r = subprocess.run([str(ORBBENCH), "compare", str(a), str(b),
                        "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = {row["scenario"]: row for row in json.loads(r.stdout)["scenarios"]}
    m = rows["objects-omniorb-each"]["metrics"]
    assert set(m) >= {"kb_per_object", "create_us", "call_growth",
                      "call_us"}
    # a servant and a map entry each against a page or two for all 99;
    # not under ASan, whose redzones and quarantine a default servant's
    # per-call allocations pay too
    kb = m["kb_per_object"]
    assert kb["a_values"] and kb["b_values"], kb
    if not sanitized():
        assert max(v or 0 for v in kb["b_values"]) < min(kb["a_values"]), kb
    assert all(v > 0 for v in m["call_us"]["a_values"] +
               m["call_growth"]["b_values"])


def test_keys_lists_the_kind_s_keys():
    r = subprocess.run([str(ORBBENCH), "keys"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    for key in ("objects.max_m", "objects.growth", "objects.servants",
                "objects.calls", "objects.warmup", "objects.max_call_us",
                "objects.max_kb_per_object", "objects.max_seconds"):
        assert key in r.stdout, key
