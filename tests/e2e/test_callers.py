"""End-to-end: callers (docs/callers.md), an ORB's own client making a
sweep's calls on orbbench's command. Real servers, real caller processes:
a caller sweep records the caller's costs at every step; a failed call
names the caller's error; a caller that dies, hangs or breaks the
protocol ends the run named, within its bound, with nothing left; bad
caller keys are exit 2 before anything starts; orbbench's own client as
a caller makes the calls the direct run makes; paired runs pair
callers. Small N throughout."""
import json
import subprocess

import pytest

from conftest import (BIN, ORBBENCH, ROOT, SCENARIOS, assert_nothing_left,
                      run_suite)

UNIX = SCENARIOS / "sync-unix.json"
# A short sweep: N = 2, 4, 6, three timed rounds a step.
SMALL = ("sweep.start=2", "sweep.step=2", "sweep.max_n=6",
         "sweep.rounds=3", "sweep.warmup_rounds=2")


def test_an_omniorb_caller_sweep_records_the_caller(orbbench):
    """omniORB's deferred calls make the sweep: the result names the
    caller, every step has its block, result.costs its row, and the
    servers hold the caller's connections, never orbbench's."""
    r = orbbench(UNIX, *SMALL, "caller.kind=omniorb",
                 "caller.mode=deferred")
    assert r.rc == 0, r.stderr
    caller = r.doc["caller"]
    assert (caller["kind"], caller["mode"], caller["orb"]) == \
        ("omniorb", "deferred", "omniorb-system")
    assert caller["name"] == "omniORB" and caller["version"]
    assert "deferred" in caller["modes"]
    assert r.doc["scenario"]["caller"]["mode"] == "deferred"
    assert "deferred calls by the caller omniorb" in r.stdout
    assert "the caller: CPU per call" in r.stdout
    steps = r.doc["steps"]
    assert [s["n"] for s in steps] == [2, 4, 6]
    for s in steps:
        c = s["caller"]
        assert s["calls"] == 3 * s["n"]
        assert c["cpu_per_call_us"]["total"] > 0
        assert c["rss_kb"] > 0 and c["pss_kb"] > 0 and c["uss_kb"] > 0
        assert c["threads"] >= 2 and c["fds"] > 0
        assert c["protocol_overhead_us"]["median"] > 0
        # each omniORB server over Unix: its listening socket and the
        # caller's one connection; orbbench's own would be a third
        assert c["server_sockets"]["held"] == 2 * s["n"]
        assert c["server_sockets"]["servers"] == s["n"]
    costs = r.doc["result"]["costs"]["caller"]
    assert costs["cpu_per_call_us"]["total"] > 0
    assert costs["footprint"]["n"] == 6
    assert "pss_kb" in costs["memory_per_server_kb"]


@pytest.mark.parametrize("scenario", sorted(
    (SCENARIOS / "grisby-client").glob("*.json")), ids=lambda p: p.stem)
def test_every_grisby_client_row_runs(orbbench, scenario):
    """Each shipped row of Grisby's table with omniORB's own client runs
    with the system omniORB, its caller.args as shipped (an option the
    ORB refuses fails the caller's start: 01 and 02 once named
    -ORBidleThreadTimeout 0, which no omniORB accepts)."""
    r = orbbench(scenario, *SMALL)
    assert r.rc == 0, r.stderr
    assert r.doc["caller"]["kind"] == "omniorb"
    steps = r.doc["steps"]
    assert steps[-1]["n"] == 6 and all(s["calls"] == 3 * s["n"]
                                       for s in steps)


def test_a_failed_call_names_the_callers_error(orbbench):
    """Servers that refuse a message over 8 KiB: every call of omniORB's
    caller fails with MARSHAL, and the run says so in the caller's words,
    naming the server (exit 1), the fail lines in result.caller_failure."""
    r = orbbench(UNIX, *SMALL, "caller.kind=omniorb",
                 'server.args=["-ORBgiopMaxMsgSize","8192"]',
                 "call.payload_bytes=20000")
    assert r.rc == 1
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("orbbench: call_failed: caller omniorb (omniORB")
    assert "2 of 2 calls failed in round 1" in line
    assert "to target 0 (server 0): MARSHAL" in line
    failure = r.doc["result"]["caller_failure"]
    assert failure["n"] == 2
    assert [f["word"] for f in failure["fails"]] == ["MARSHAL", "MARSHAL"]
    assert [f["target"] for f in failure["fails"]] == [0, 1]


@pytest.mark.parametrize("fault, words", [
    ("--die-after", "exited with status 3 in round 4 (2 calls)"),
    ("--hang-after", "did not answer in round 4 (2 calls) within 5000 ms "
                     "and was killed"),
    ("--garble-after", 'broke the protocol in round 4 (2 calls): "hello '
                       'there"'),
])
def test_a_caller_that_fails_ends_the_run_named(orbbench, fault, words):
    """orbbench's own caller told to die, hang or answer garbage after 3
    rounds: the run stops at its 4th (call_failed, exit 1), naming the
    caller, what it did and its last stderr line; the hung one is killed
    at its bound (2 sync calls of 1 s, plus 1 s and 2 s of margin), and
    nothing is left running (the fixture checks the process group)."""
    r = orbbench(UNIX, *SMALL, "caller.kind=orbbench",
                 f'caller.args=["{fault}","3"]', "call.timeout_ms=1000",
                 timeout=60)
    assert r.rc == 1
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("orbbench: call_failed: caller orbbench "
                           "(orbbench "), line
    assert words in line, line
    assert f"as told ({fault})" in line
    assert line.endswith(" at N=2")
    assert r.doc["result"]["stop_reason"] == "call_failed"


def test_a_caller_that_exits_before_ready_is_named(orbbench):
    """An argument the caller refuses: it exits before its ready line, and
    the run says so with its stderr (exit 1), no step measured."""
    r = orbbench(UNIX, *SMALL, "caller.kind=orbbench",
                 'caller.args=["--no-such-option"]')
    assert r.rc == 1
    line = r.stderr.strip().splitlines()[-1]
    assert "caller orbbench (orbbench " in line and " did not start: " in line
    assert "caller 0 (pid" in line and "exited with status 2" in line
    assert "unknown client argument --no-such-option" in line
    assert r.doc["steps"] == []


@pytest.mark.parametrize("sets, needle", [
    (["caller.kind=nope"],
     '--set caller.kind: "nope" is not one of: none, orbbench, omniorb'),
    (["caller.kind=omniorb", "caller.mode=nope"],
     'key "caller.mode": caller omniorb (omniORB 4.2.5, omniorb-system) '
     'has no mode "nope" (it has: sync, deferred, ami-poller, '
     'ami-callback)'),
    (["caller.kind=omniorb", "caller.orb=omniorb-9.9"],
     'key "caller.orb": no ORB installation "omniorb-9.9" built'),
    (["caller.kind=orbbench", "caller.orb=x y"],
     '--set caller.orb: "x y": use only letters, digits, . _ -'),
    (["caller.mode=deferred"], "--set caller.mode: needs caller.kind"),
    (["caller.kind=omniorb", "mode=pool"],
     '--set mode: "pool": orbbench\'s own call modes do not apply when '
     'caller.kind omniorb makes the calls (give caller.mode)'),
    (["caller.kind=omniorb", "call.payload=Odometry"],
     '--set call.payload: "Odometry": a caller echoes strings'),
    (["caller.kind=omniorb", "client.connect=false"],
     "--set client.connect: false leaves no calls"),
    (["caller.kind=omniorb",
      'caller.args=["-ORBendPoint","giop:tcp:0.0.0.0:"]'],
     'key "caller.args": "-ORBendPoint giop:tcp:0.0.0.0:": callers listen '
     'on loopback only'),
])
def test_bad_caller_keys_exit_2_before_anything_starts(tmp_path, sets,
                                                       needle):
    out = tmp_path / "r.json"
    args = [str(ORBBENCH), "run", str(UNIX), "--out", str(out)]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert not out.exists()


def test_caller_keys_are_the_sweeps_alone(tmp_path):
    r = subprocess.run([str(ORBBENCH), "check",
                        str(SCENARIOS / "fanin" / "01-omniorb-tpc-unix.json"),
                        "--set", "caller.kind=omniorb"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert 'caller.kind: only for "kind": "sweep" scenarios' in r.stderr


def test_keys_lists_the_callers():
    r = subprocess.run([str(ORBBENCH), "keys"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0
    assert "caller.kind" in r.stdout and "none|orbbench|omniorb" in r.stdout
    for key in ("caller.orb", "caller.mode", "caller.args"):
        assert key in r.stdout


def test_orbbench_caller_makes_the_calls_the_direct_run_makes(orbbench):
    """The protocol's control: orbbench's own client as a caller, in sync
    mode, against the same scenario run directly: the same steps, every
    call made and checked in both, as many calls a step."""
    sets = ("sweep.start=3", "sweep.step=3", "sweep.max_n=6",
            "sweep.rounds=4")
    direct = orbbench(UNIX, *sets)
    via = orbbench(UNIX, *sets, "caller.kind=orbbench", "caller.mode=sync")
    assert direct.rc == 0 and via.rc == 0, direct.stderr + via.stderr
    assert "caller" not in direct.doc and "caller" not in direct.doc["steps"][0]
    for d, v in zip(direct.doc["steps"], via.doc["steps"], strict=True):
        assert d["n"] == v["n"]
        assert d["calls"] == v["calls"] == 4 * d["n"]
        assert v["call_us"]["count"] == d["call_us"]["count"]
        assert v["caller"]["server_sockets"]["held"] == 2 * v["n"]
    assert via.doc["result"]["held"] == direct.doc["result"]["held"] == 6


def test_null_mode_answers_without_calling(orbbench):
    """null: every round answered, no call made: the servers hold their
    listening sockets only, and every call's time is 0."""
    r = orbbench(UNIX, *SMALL, "caller.kind=orbbench", "caller.mode=null")
    assert r.rc == 0, r.stderr
    for s in r.doc["steps"]:
        assert s["calls"] == 3 * s["n"]
        assert s["call_us"]["max"] == 0
        assert s["caller"]["server_sockets"]["held"] == s["n"]


def test_versus_pairs_two_callers(tmp_path):
    """--versus caller.mode=deferred: each side its own caller, both
    recorded, nothing left."""
    out, out_b = tmp_path / "a.json", tmp_path / "b.json"
    args = [str(ORBBENCH), "run", str(UNIX), "--out", str(out),
            "--out-versus", str(out_b), "--set", "caller.kind=omniorb",
            "--versus", "caller.mode=deferred", "--no-progress"]
    for s in SMALL:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    a, b = (json.loads(p.read_text()) for p in (out, out_b))
    assert (a["caller"]["mode"], b["caller"]["mode"]) == ("sync", "deferred")
    assert a["paired"]["id"] == b["paired"]["id"]
    assert a["steps"][0]["caller"]["pid"] != b["steps"][0]["caller"]["pid"]
    assert b["paired"]["versus"] == ["caller.mode=deferred"]
    for doc in (a, b):
        assert_nothing_left(doc)


def test_suite_variants_pair_callers(tmp_path):
    """run-suite --variant pairs two caller modes, as two ORBs' servers."""
    scen = tmp_path / "s"
    scen.mkdir()
    (scen / "one.json").write_text(UNIX.read_text())
    r = run_suite(scen, "--variant", "sync:caller.kind=omniorb",
                  "--variant", "deferred:caller.kind=omniorb,"
                  "caller.mode=deferred", "--out", tmp_path / "o",
                  *[x for s in SMALL for x in ("--set", s)], timeout=300)
    assert r.returncode == 0, r.stderr
    docs = [json.loads((tmp_path / "o" / v / "one.json").read_text())
            for v in ("sync", "deferred")]
    assert [d["caller"]["mode"] for d in docs] == ["sync", "deferred"]
    assert docs[0]["paired"]["id"] == docs[1]["paired"]["id"]


# omniORB builds under orbs/ (make builds a caller for each); 4.0 and 4.1
# have no AMI. None in a fresh checkout: these skip.
OLD = sorted(p.parent.name for p in
             (BIN / "orbs").glob("omniorb-4.[01].*/caller"))


@pytest.mark.skipif(not OLD, reason="no omniORB 4.0/4.1 caller built: "
                    "scripts/build-orb omniorb 4.0.7 --source TREE, then "
                    "make (docs/servers.md#old-omniorb-releases)")
@pytest.mark.parametrize("orb", OLD)
def test_an_old_omniorb_caller_has_no_ami(orb, orbbench, tmp_path):
    """An old release's caller runs deferred calls, says it has no AMI,
    and an AMI mode is refused before anything starts."""
    exe = BIN / "orbs" / orb / "caller"
    modes = subprocess.run([str(exe), "--modes"], capture_output=True,
                           text=True, timeout=10).stdout.split()
    assert modes == ["sync", "deferred"]
    r = orbbench(UNIX, *SMALL, "caller.kind=omniorb", f"caller.orb={orb}",
                 "caller.mode=deferred")
    assert r.rc == 0, r.stderr
    assert r.doc["caller"]["version"] == orb.split("-", 1)[1]
    assert r.doc["caller"]["orb"] == orb
    out = tmp_path / "ami.json"
    p = subprocess.run([str(ORBBENCH), "run", str(UNIX), "--out", str(out),
                        "--set", "caller.kind=omniorb", "--set",
                        f"caller.orb={orb}", "--set",
                        "caller.mode=ami-poller"], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 2
    assert 'has no mode "ami-poller" (it has: sync, deferred)' in p.stderr
