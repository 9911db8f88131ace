"""End-to-end: an event channel in the path (scenario kind "channel").
Real omniEvents and our omniORB push consumer, started and stopped by the
spawner: every payload goes through the channel (and directly) and is
logged; nothing is left running after a run, a failure or a killed
client, and the listening port closes; omniEvents listens on loopback
only; a channel that never delivers (a consumer that does not connect,
omniEvents stopped with SIGSTOP) ends in the named error within the
deadline, with what was measured written; the table script and the
figure's numbers."""
import json
import os
import re
import signal
import struct
import subprocess

import pytest

from conftest import (ORBBENCH, ROOT, SCENARIOS, alive, children,
                      group_members, kill_quietly, wait_for, write_scenario)


PAYLOADS = ["None", "Octet1K", "Octet100K", "Odometry", "RangeSensor",
            "SharedBelief"]
TABLE = ROOT / "scripts" / "miro-channel-table"


def small(tmp_path, payload="Octet1K", via="channel", transport="tcp",
          events=20, warmup=2, **channel):
    return write_scenario(
        tmp_path / f"ch-{payload}-{via}-{transport}.json", kind="channel",
        name=f"ch-{payload.lower()}-{via}", transport=transport,
        call={"payload": payload},
        channel=dict(via=via, events=events, warmup_events=warmup,
                     **channel))


def factory_port(doc):
    return int(doc["channel"]["omnievents"]["factory"].split(":")[3]
               .split("/")[0])


def listening(port):
    """True while a TCP socket listens on `port` (any address)."""
    out = subprocess.run(["ss", "-Hltn"], capture_output=True, text=True,
                         check=True).stdout
    return any(line.split()[3].rsplit(":", 1)[1] == str(port)
               for line in out.splitlines() if line.strip())


def check_logged(doc, events):
    """Every measured event pushed, logged and checked, with sane times."""
    assert doc["kind"] == "channel"
    assert doc["result"]["stop_reason"] == "done"
    ch = doc["channel"]
    assert ch["events_pushed"] == ch["events_logged"] == events
    lat = doc["latency_us"]
    for key in ("push_to_logged", "push_to_received", "push_call"):
        s = lat[key]
        assert s["count"] == events, key
        assert 0 < s["min"] <= s["median"] <= s["p99"] <= s["max"], key
    # received before logged, event by event: so in every order statistic
    assert lat["push_to_received"]["min"] <= lat["push_to_logged"]["min"]
    assert lat["push_to_received"]["max"] <= lat["push_to_logged"]["max"]


# ---- events go through and are logged ----------------------------------

@pytest.mark.parametrize("payload", PAYLOADS)
def test_each_payload_through_the_channel(orbbench, tmp_path, payload):
    r = orbbench(small(tmp_path, payload))
    assert r.rc == 0, r.stderr
    check_logged(r.doc, 20)
    ev = r.doc["channel"]["omnievents"]
    assert ev["version"] == "2.6.2"
    assert ev["cycle_period_ns"] == 100000
    assert "through an omniEvents channel" in r.stdout


@pytest.mark.parametrize("payload", ["None", "SharedBelief"])
@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_direct_push(orbbench, tmp_path, payload, transport):
    r = orbbench(small(tmp_path, payload, via="direct",
                       transport=transport))
    assert r.rc == 0, r.stderr
    check_logged(r.doc, 20)
    assert "omnievents" not in r.doc["channel"]  # none was started
    assert len(r.doc["servers"]) == 1


def test_channel_over_unix(orbbench, tmp_path):
    r = orbbench(small(tmp_path, "RangeSensor", transport="unix"))
    assert r.rc == 0, r.stderr
    check_logged(r.doc, 20)


# ---- started and stopped, nothing left ----------------------------------

def test_started_and_stopped_with_nothing_left(orbbench, tmp_path):
    r = orbbench(small(tmp_path))  # the fixture: servers and group gone
    assert r.rc == 0, r.stderr
    pids = [s["pid"] for s in r.doc["servers"]]
    assert len(pids) == 2 and pids[0] == r.doc["channel"]["omnievents"]["pid"]
    assert not any(alive(p) for p in pids)
    assert not listening(factory_port(r.doc))
    # the run's folder (omniEvents's database, the consumer's log) is gone
    log = r.doc["channel"]["consumer"]["log"]
    assert not os.path.exists(os.path.dirname(log))


def start_long(tmp_path, *sets):
    """A channel run that would last long, in the background; returns
    (proc, result path, {"omniEvents": pid, "consumer": pid}) once both
    run. The caller ends it."""
    scenario = small(tmp_path, events=10_000_000, warmup=0)
    out = tmp_path / "long.json"
    args = [str(ORBBENCH), "run", str(scenario), "--out", str(out)]
    for s in sets:
        args += ["--set", s]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def found():
        members = [m for s in children(proc.pid) for m in group_members(s)]
        named = {}
        for m in members:
            try:
                cmd = open(f"/proc/{m}/cmdline", "rb").read().split(b"\0")
            except OSError:
                continue
            if cmd and cmd[0].endswith(b"omniEvents"):
                named["omniEvents"] = m
            elif cmd and cmd[0].endswith(b"omniorb-event-consumer"):
                named["consumer"] = m
        return named if len(named) == 2 else None

    procs = wait_for(found, timeout=20)
    if not procs:
        proc.kill()
        proc.communicate()
        pytest.fail("omniEvents and the consumer did not both start")
    return proc, out, procs


def logged(consumer):
    """Records in the log of the consumer with pid `consumer` so far (the
    header's count, client/codec/event_log.h), or 0."""
    cmd = open(f"/proc/{consumer}/cmdline", "rb").read().split(b"\0")
    path = cmd[cmd.index(b"--log") + 1].decode()
    try:
        with open(path, "rb") as f:
            head = f.read(32)
    except OSError:
        return 0
    return struct.unpack_from("<Q", head, 24)[0] if len(head) == 32 else 0


def end(proc, procs):
    """Whatever happened: the client gone, and nothing of its left."""
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=60)
    left = wait_for(lambda: not any(alive(p) for p in procs.values()),
                    timeout=15)
    for p in procs.values():
        kill_quietly(p, signal.SIGCONT)
        kill_quietly(p)
    assert left, f"left running: {procs}"


def test_killed_client_leaves_nothing(tmp_path):
    proc, out, procs = start_long(tmp_path)
    try:
        cmd = open(f"/proc/{procs['omniEvents']}/cmdline", "rb").read() \
            .split(b"\0")
        port = int(cmd[cmd.index(b"-p") + 1])
        assert listening(port)
        proc.kill()  # SIGKILL: the client cannot clean up itself
        proc.communicate(timeout=60)
        assert wait_for(lambda: not any(alive(p) for p in procs.values()),
                        timeout=15), f"left running: {procs}"
        assert wait_for(lambda: not listening(port), timeout=5)
    finally:
        end(proc, procs)


def test_omnievents_listens_on_loopback_only(tmp_path):
    proc, out, procs = start_long(tmp_path)
    try:
        ss = subprocess.run(["ss", "-Hltnp"], capture_output=True,
                            text=True, check=True).stdout
        mine = {name: [line.split()[3] for line in ss.splitlines()
                       if f"pid={pid}," in line]
                for name, pid in procs.items()}
        assert mine["omniEvents"], ss  # it does listen
        for name, addrs in mine.items():
            for a in addrs:
                assert a.rsplit(":", 1)[0] == "127.0.0.1", (name, a)
    finally:
        end(proc, procs)


# ---- a channel that never delivers --------------------------------------

def test_consumer_that_does_not_connect(orbbench, tmp_path):
    r = orbbench(small(tmp_path, events=50, warmup=0, deadline_ms=1500),
                 "server.args=--no-connect")
    assert r.rc == 1
    msg = ("event channel: 0 of 50 events reached the consumer within "
           "1500 ms")
    assert msg in r.stderr
    assert r.doc["result"]["stop_reason"] == "not_delivered"
    assert msg in r.doc["result"]["detail"]
    assert r.doc["latency_us"]["push_to_logged"]["count"] == 0
    assert r.doc["channel"]["events_pushed"] >= 1


@pytest.mark.parametrize("via", ["direct", "channel"])
def test_an_event_logged_while_its_push_had_no_reply_is_counted(
        orbbench, tmp_path, via):
    """The consumer logs its 5th event and never replies to its push (nor
    to any later one): the 5th reached the consumer, so the message, the
    result's count and its latency samples all say 5."""
    r = orbbench(small(tmp_path, via=via, events=50, warmup=0,
                       deadline_ms=1500),
                 "server.args=--hang-after 5")
    assert r.rc == 1, r.stderr
    assert r.doc["result"]["stop_reason"] == "not_delivered"
    m = re.search(r"(\d+) of 50 events reached the consumer within "
                  r"1500 ms", r.stderr)
    assert m, r.stderr
    assert int(m.group(1)) == 5
    assert r.doc["channel"]["events_logged"] == 5
    assert r.doc["latency_us"]["push_to_logged"]["count"] == 5
    if via == "direct":
        # the 5th push's reply never came: four replied
        assert "(a push had no reply by then)" in r.stderr
        assert r.doc["channel"]["events_pushed"] == 4


def test_stopped_channel_ends_in_the_named_error(tmp_path):
    proc, out, procs = start_long(tmp_path, "channel.deadline_ms=3000",
                                  "call.timeout_ms=60000")
    try:
        # Events go through: the channel is made and connected.
        assert wait_for(lambda: logged(procs["consumer"]) > 0, timeout=20)
        os.kill(procs["omniEvents"], signal.SIGSTOP)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, err
        m = re.search(r"event channel: (\d+) of 10000000 events reached "
                      r"the consumer within 3000 ms", err)
        assert m, err
        doc = json.loads(out.read_text())
        assert doc["result"]["stop_reason"] == "not_delivered"
        # what was measured before the stop is kept
        got = int(m.group(1))
        assert doc["channel"]["events_logged"] == got
        assert doc["latency_us"]["push_to_logged"]["count"] == got
    finally:
        end(proc, procs)


# ---- other failures, named ---------------------------------------------

def test_log_full_is_named(orbbench, tmp_path):
    r = orbbench(small(tmp_path, "Octet100K", events=30, log_mb=1))
    assert r.rc == 1
    assert r.doc["result"]["stop_reason"] == "log_full"
    assert re.search(r"event consumer \(pid \d+\): its log .*events\.log is "
                     r"full \(1048576 bytes\).*channel\.log_mb", r.stderr)
    # the events before it was full were measured
    assert r.doc["latency_us"]["push_to_logged"]["count"] > 0


def test_omnievents_that_dies_starting_is_named(orbbench, tmp_path):
    fake = tmp_path / "omniEvents"
    fake.write_text("#!/bin/sh\necho 'omniEvents: cannot bind' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    r = orbbench(small(tmp_path), f"channel.omnievents={fake}")
    assert r.rc == 1
    assert re.search(r"server_died: omniEvents: server 0 \(pid \d+\) exited "
                     r"with status 1 before printing its ready line: "
                     r"omniEvents: cannot bind", r.stderr), r.stderr


def test_omnievents_without_an_ior_is_killed_at_the_timeout(orbbench,
                                                            tmp_path):
    fake = tmp_path / "omniEvents"
    fake.write_text("#!/bin/sh\necho 'starting' >&2\nexec sleep 600\n")
    fake.chmod(0o755)
    r = orbbench(small(tmp_path), f"channel.omnievents={fake}",
                 "server.start_timeout_ms=500")
    assert r.rc == 1
    assert re.search(r"omniEvents: server 0 \(pid \d+\) printed no ready "
                     r"line within 500 ms and was killed; its last words: "
                     r"starting", r.stderr), r.stderr


def test_missing_omnievents_is_exit_2(orbbench, tmp_path):
    r = orbbench(small(tmp_path), "channel.omnievents=/nonexistent/oe")
    assert r.rc == 2
    assert 'key "channel.omnievents": /nonexistent/oe: No such file' \
        in r.stderr


def test_string_payload_is_exit_2(orbbench, tmp_path):
    r = orbbench(small(tmp_path, "string"))
    assert r.rc == 2
    assert 'key "call.payload": kind channel pushes events' in r.stderr


def test_channel_keys_in_a_sweep_are_exit_2(orbbench, tmp_path):
    p = write_scenario(tmp_path / "s.json", channel={"events": 5})
    r = orbbench(p)
    assert r.rc == 2
    assert 'key "channel.events": only for "kind": "channel"' in r.stderr


# ---- the table and the figure -------------------------------------------

def result(payload, via, median, mean=None, p99=None, transport="tcp",
           count=100, name=None, cycle=100000):
    """A channel result as the client writes it (the fields used)."""
    lat = {"count": count, "min": median / 2, "mean": mean or median,
           "median": median, "p90": median, "p99": p99 or 2 * median,
           "max": 4 * median, "stddev": 1.0}
    doc = {"kind": "channel",
           "scenario": {"name": name or f"{payload}-{via}",
                        "kind": "channel"},
           "result": {"stop_reason": "done"},
           "channel": {"payload": payload, "via": via,
                       "transport": transport},
           "latency_us": {"push_to_logged": lat,
                          "push_call": dict(lat, median=median / 3)}}
    if via == "channel":
        doc["channel"]["omnievents"] = {"cycle_period_ns": cycle}
    return doc


def test_channel_data_numbers():
    import orbbench.figures.channel as figs_channel
    docs = [result("Octet1K", "channel", 90.0, mean=95.0),
            result("Octet1K", "direct", 20.0, mean=22.0),
            result("None", "direct", 10.0),
            result("None", "channel", 70.0),
            result("None", "channel", 80.0),  # a repeat: medians combine
            result("Odometry", "channel", 50.0, count=0),  # measured none
            result("Odometry", "channel", 60.0, transport="unix")]
    data = figs_channel.channel_data(docs)
    rows = [(r["payload"], r["transport"]) for r in data["rows"]]
    # the seed's payload order
    assert rows == [("None", "tcp"), ("Octet1K", "tcp"),
                    ("Odometry", "unix")]
    none, octet, odo = data["rows"]
    assert none["channel"]["median"] == 75.0 and none["channel"]["runs"] == 2
    assert none["delta_median"] == 65.0
    assert octet["delta_median"] == 70.0 and octet["delta_mean"] == 73.0
    assert octet["seed"] == (32, 39, 565, 497, 34, 31)
    assert odo["direct"] is None and odo["delta_median"] is None
    assert [lb for lb, _ in data["left_out"]] == ["Odometry-channel"]
    head, table = figs_channel.channel_table(data)
    assert head[:2] == ["payload", "transport"] and "TAO Δ" in head
    assert table[1][head.index("median")] == "90.0"
    assert table[1][head.index("direct median")] == "20.0"
    assert table[1][head.index("Δ median")] == "70.0"
    assert table[1][head.index("TAO median")] == "34"
    assert table[2][head.index("Δ median")] == "—"
    assert "+65.0 µs" in figs_channel.channel_caption(data)


def test_table_script_on_real_runs(orbbench, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    for via in ("channel", "direct"):
        r = orbbench(small(tmp_path, "Odometry", via=via))
        assert r.rc == 0, r.stderr
        (results / f"odometry-{via}.json").write_text(json.dumps(r.doc))
    p = subprocess.run([str(TABLE), str(results), "--out",
                        str(tmp_path / "out")], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    row = [line for line in p.stdout.splitlines()
           if line.startswith("| Odometry |")]
    assert len(row) == 1
    cells = [c.strip() for c in row[0].strip("|").split("|")]
    direct = json.loads((results / "odometry-direct.json").read_text())
    chan = json.loads((results / "odometry-channel.json").read_text())
    med = chan["latency_us"]["push_to_logged"]["median"]
    dmed = direct["latency_us"]["push_to_logged"]["median"]
    assert cells[6] == f"{med:.1f}" and cells[8] == f"{dmed:.1f}"
    assert cells[9] == f"{med - dmed:.1f}"
    assert cells[-2:] == ["34", "31"]  # the seed's median and delta
    assert (tmp_path / "out" / "channel.png").stat().st_size > 0
    assert "Table 8.3" in (tmp_path / "out" / "miro-channel.md").read_text()


def test_table_script_without_channel_results_is_exit_2(tmp_path):
    p = subprocess.run([str(TABLE), str(tmp_path)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.startswith("miro-channel-table: ")
    assert len(p.stderr.strip().splitlines()) == 1


def test_shipped_scenarios_check():
    files = sorted((SCENARIOS / "miro-channel").glob("*.json"))
    assert files, "no scenarios/miro-channel/*.json"
    for f in files:
        p = subprocess.run([str(ORBBENCH), "check", str(f)],
                           capture_output=True, text=True)
        assert p.returncode == 0, (f, p.stderr)
        sc = json.loads(p.stdout)
        assert sc["kind"] == "channel"
        assert sc["channel"]["events"] == (1000 if "Octet100K" in f.name
                                           else 10000)
