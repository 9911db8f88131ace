"""End-to-end: the typed payloads (call.payload). Each one round-trips
through real omniORB servers over TCP and Unix and through giop-min, in
every call mode; a reply with one wrong field fails the run naming that
field; a big-endian reply is decoded field by field; the key's errors
name it."""
import pytest

from conftest import SCENARIOS, write_scenario
from test_misbehave import run_fake

PAYLOADS = ["None", "Octet1K", "Octet100K", "Odometry", "RangeSensor",
            "SharedBelief"]
MODES = ["sync", "thread-per-call", "pool", "event"]


def small(tmp_path, kind, transport, payload, mode="sync"):
    return write_scenario(
        tmp_path / f"{kind}-{transport}-{payload}-{mode}.json",
        name="payload", transport=transport, mode=mode,
        server={"kind": kind}, client={"pool_size": 2},
        call={"payload": payload},
        sweep={"start": 2, "step": 1, "max_n": 3, "rounds": 2})


def assert_all_calls(r):
    assert r.rc == 0, r.stderr
    # every call of every round answered and checked (a wrong echo fails
    # the run)
    assert [s["n"] for s in r.doc["steps"]] == [2, 3]
    for s in r.doc["steps"]:
        assert s["calls"] == 2 * s["n"]


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("kind,transport", [
    ("omniorb", "tcp"), ("omniorb", "unix"), ("giop-min", "tcp"),
    ("giop-min", "unix"), ("raw", "pipe")])
def test_round_trip(orbbench, tmp_path, kind, transport, payload):
    r = orbbench(small(tmp_path, kind, transport, payload))
    assert_all_calls(r)
    assert r.doc["scenario"]["call"]["payload"] == payload


@pytest.mark.parametrize("mode", MODES)
def test_every_mode(orbbench, tmp_path, mode):
    r = orbbench(small(tmp_path, "omniorb", "unix", "SharedBelief", mode))
    assert_all_calls(r)


def test_string_stays_the_default(orbbench, tmp_path):
    p = write_scenario(tmp_path / "s.json", transport="unix",
                       sweep={"start": 1, "max_n": 1, "rounds": 2})
    r = orbbench(p)
    assert r.rc == 0, r.stderr
    assert r.doc["scenario"]["call"]["payload"] == "string"
    assert r.doc["scenario"]["call"]["payload_bytes"] == 16


# ---- replies the client must check, from the fake GIOP server -----------

FAKE_SETS = ("sweep.start=1", "sweep.max_n=1", "sweep.rounds=2",
             "call.timeout_ms=2000")
# SharedBelief: object 3's cells[7] is bytes 232-235 (see the unit test)
WRONG = [("SharedBelief", "echo,flip=232", "SharedBelief[3].cells[7]: got "),
         ("SharedBelief", "big-endian,flip=235",
          "SharedBelief[3].cells[7]: got "),
         ("Odometry", "echo,flip=36", "Odometry.velocity.rotation: got "),
         ("RangeSensor", "big-endian,flip=12",
          "RangeSensor.range: length "),
         ("Octet1K", "echo,flip=1027", "Octet1K[1023]: got ")]


@pytest.mark.parametrize("payload,behave,named", WRONG,
                         ids=[w[0] + "-" + w[1].split(",")[0] for w in WRONG])
@pytest.mark.parametrize("mode", ["sync", "event"])
def test_wrong_field_named(tmp_path, payload, behave, named, mode):
    r = run_fake(tmp_path, "unix", f"call.payload={payload}", f"mode={mode}",
                 *FAKE_SETS, args=["--behave", behave])
    assert r.rc == 1, r.stderr
    line = r.stderr.strip().splitlines()[-1]
    assert "echo differs from what was sent: " + named in line, line
    assert "server 0 (pid " in line


@pytest.mark.parametrize("payload", PAYLOADS)
def test_big_endian_reply_decodes(tmp_path, payload):
    r = run_fake(tmp_path, "tcp", f"call.payload={payload}", *FAKE_SETS,
                 args=["--behave", "big-endian"])
    assert r.rc == 0, r.stderr
    assert r.doc["steps"][0]["calls"] == 2


# ---- scenario errors -------------------------------------------------------


def test_unknown_payload_is_exit_2(orbbench):
    r = orbbench(SCENARIOS / "sync-unix.json", "call.payload=Octet2K")
    assert r.rc == 2 and r.doc is None
    assert r.stderr.strip() == (
        'orbbench: --set call.payload: "Octet2K" is not one of: string, '
        "None, Octet1K, Octet100K, Odometry, RangeSensor, SharedBelief")


def test_payload_bytes_with_typed_payload_is_exit_2(orbbench, tmp_path):
    p = write_scenario(tmp_path / "p.json",
                       call={"payload": "Odometry", "payload_bytes": 100})
    r = orbbench(p)
    assert r.rc == 2 and r.doc is None
    assert r.stderr.strip() == (
        f'orbbench: {p}: key "call.payload_bytes": only for call.payload '
        '"string" (a typed payload, here "Odometry", has its own size)')


def test_rate_with_typed_payload_is_exit_2(orbbench, tmp_path):
    p = write_scenario(tmp_path / "r.json", kind="rate",
                       call={"payload": "Odometry"})
    r = orbbench(p)
    assert r.rc == 2 and r.doc is None
    assert 'key "call.payload": kind rate echoes strings only' in r.stderr
