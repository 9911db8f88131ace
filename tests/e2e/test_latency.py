"""End-to-end: the latency kind (the Miro table's rows). A small run
against a real omniORB server keeps every call's time and summarizes
them; the sizes are the payload's; several servers are called in turn; a
server that stops answering fails the run naming it; malformed latency
scenarios are exit 2 naming the key."""
import json
import statistics

import pytest

from conftest import SCENARIOS, run_suite, write_scenario
from test_misbehave import run_fake


def latency(tmp_path, payload="SharedBelief", transport="unix", **lat):
    lat = {"calls": 40, "warmup_calls": 5, **lat}
    return write_scenario(tmp_path / f"lat-{payload}-{transport}.json",
                          kind="latency", transport=transport,
                          call={"payload": payload}, latency=lat)


def test_small_run(orbbench, tmp_path):
    r = orbbench(latency(tmp_path))
    assert r.rc == 0, r.stderr
    doc = r.doc
    assert doc["kind"] == "latency"
    assert doc["result"]["stop_reason"] == "done"
    lat = doc["latency"]
    assert (lat["payload"], lat["calls"], lat["warmup_calls"],
            lat["servers"]) == ("SharedBelief", 40, 5, 1)
    # every measured call kept, and the summary is theirs (µs)
    us = [ns / 1e3 for ns in lat["samples_ns"]]
    assert len(us) == 40 and all(u > 0 for u in us)
    s = lat["call_us"]
    assert s["count"] == 40
    assert s["min"] == pytest.approx(min(us))
    assert s["max"] == pytest.approx(max(us))
    assert s["median"] == pytest.approx(statistics.median(us))
    assert s["mean"] == pytest.approx(statistics.fmean(us))
    assert s["stddev"] == pytest.approx(statistics.pstdev(us))
    assert s["min"] <= s["median"] <= s["p99"] <= s["max"]
    # sizes: the value (idl/payloads.idl), its call and echo on the wire
    # (GIOP header, omniORB's object key, the operation name), its event
    assert lat["value_bytes"] == 1260
    assert lat["request_bytes"] > lat["value_bytes"] + 40
    # reply: 12-byte header, id, status, no contexts, then the value
    assert lat["reply_bytes"] == 24 + 1260
    assert lat["event_bytes"] > lat["value_bytes"] + 8
    assert "payload SharedBelief (1260 bytes): 40 calls, median" in r.stdout


@pytest.mark.parametrize("payload,value,reply", [
    ("None", 0, 24), ("string", 4 + 16 + 1, 24 + 21),
    ("Odometry", 44, 24 + 44)])
def test_sizes(orbbench, tmp_path, payload, value, reply):
    r = orbbench(latency(tmp_path, payload, "tcp", calls=5))
    assert r.rc == 0, r.stderr
    lat = r.doc["latency"]
    assert (lat["value_bytes"], lat["reply_bytes"]) == (value, reply)
    if payload == "string":
        assert lat["event_bytes"] is None  # no event type for it
    else:
        assert lat["event_bytes"] > value


def test_servers_in_turn(orbbench, tmp_path):
    p = latency(tmp_path, "Octet1K", "unix", servers=3, calls=30)
    r = orbbench(p, "server.kind=giop-min")
    assert r.rc == 0, r.stderr
    assert len(r.doc["servers"]) == 3
    assert r.doc["latency"]["call_us"]["count"] == 30


def test_server_not_answering_is_named(tmp_path):
    r = run_fake(tmp_path, "unix", "call.timeout_ms=300",
                 args=["--behave", "never-reply"],
                 scenario=latency(tmp_path, calls=5, warmup_calls=0))
    assert r.rc == 1, r.stderr
    assert "no reply within 300 ms in the measured calls" in r.stderr
    assert r.doc["result"]["stop_reason"] == "call_failed"
    assert r.doc["latency"]["call_us"]["count"] == 0


@pytest.mark.parametrize("sets,message", [
    (["latency.calls=0"], '--set latency.calls: 0 is out of range'),
    (["latency.servers=257"], "--set latency.servers: 257 is out of range"),
    (["mode=event"],
     '--set mode: only for "kind": "sweep" or "fanin" scenarios (this '
     'one is "latency")'),
])
def test_malformed_is_exit_2(orbbench, tmp_path, sets, message):
    r = orbbench(latency(tmp_path), *sets)
    assert r.rc == 2 and r.doc is None
    assert r.stderr.startswith("orbbench: " + message), r.stderr


def test_latency_key_in_a_sweep_is_exit_2(orbbench):
    r = orbbench(SCENARIOS / "sync-unix.json", "latency.calls=10")
    assert r.rc == 2
    assert '--set latency.calls: only for "kind": "latency"' in r.stderr


def test_miro_scenarios_check(tmp_path):
    """Every shipped Miro scenario is valid, one per payload and
    transport, 1,000 calls for Octet100K as the seed, 10,000 else."""
    import json
    import subprocess
    from conftest import ORBBENCH
    files = sorted((SCENARIOS / "miro").glob("*.json"))
    got = set()
    for f in files:
        out = subprocess.run([str(ORBBENCH), "check", str(f)],
                             capture_output=True, text=True, check=True)
        sc = json.loads(out.stdout)
        if sc["kind"] != "latency":
            continue
        p = sc["call"]["payload"]
        got.add((p, sc["transport"]))
        assert sc["latency"]["calls"] == (1000 if p == "Octet100K"
                                          else 10000)
    assert got == {(p, t) for p in ["None", "Octet1K", "Octet100K",
                                    "Odometry", "RangeSensor",
                                    "SharedBelief"]
                   for t in ["tcp", "unix"]}


def test_run_suite_variants_of_latency_runs(tmp_path):
    # compare weighs sweeps only: with variants of latency runs the suite
    # skips it, says so, and still ends 0 with every variant's results.
    d = tmp_path / "suite"
    d.mkdir()
    write_scenario(d / "l.json", kind="latency",
                   latency={"calls": 20, "warmup_calls": 2})
    r = run_suite(d, "--out", tmp_path / "out", "--variant", "a",
                  "--variant", "b:call.payload=Odometry")
    assert r.returncode == 0, r.stderr
    assert "compare skipped" in r.stdout
    for v in ("a", "b"):
        doc = json.loads((tmp_path / "out" / v / "l.json").read_text())
        assert doc["latency"]["calls"] == 20
        # the resolved scenario names a string's length, not a typed one's
        assert ("payload_bytes" in doc["scenario"]["call"]) == (v == "a")
