"""End-to-end: the marshal kind (marshaling alone, no servers). The C
codec and omniORB's C++ marshaling (bin/omniorb-marshal-bench) encode
each payload; omniORB must marshal the client's bytes exactly and take
the client's event any as the payload's <Name>Event; a benchmark that
disagrees, is missing or hangs fails the run naming it."""
import json
import shutil
import subprocess
import time

import pytest

from conftest import BIN, ORBBENCH, run_suite, write_scenario

SIZES = {"None": 0, "Octet1K": 1028, "Octet100K": 102404, "Odometry": 44,
         "RangeSensor": 1460, "SharedBelief": 1260}


def marshal(tmp_path, **m):
    m = {"encodes": 50, "repeats": 3, **m}
    return write_scenario(tmp_path / "marshal.json", kind="marshal",
                          marshal=m)


def run(scenario, out, orbbench=ORBBENCH, timeout=120):
    return subprocess.run([str(orbbench), "run", str(scenario), "--out",
                           str(out)], capture_output=True, text=True,
                          timeout=timeout)


def test_both_codecs(tmp_path):
    r = run(marshal(tmp_path), tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    import json
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["kind"] == "marshal" and doc["result"]["stop_reason"] == "done"
    m = doc["marshal"]
    assert (m["encodes"], m["repeats"]) == (50, 3)
    assert m["omniorb"]["version"].startswith("omniORB ")
    assert [p["name"] for p in m["payloads"]] == list(SIZES)
    for p in m["payloads"]:
        assert p["value_bytes"] == SIZES[p["name"]]
        for codec in ("c", "omniorb"):
            f = p[codec]
            assert len(f["repeats_ns"]) == 3
            assert f["ns_per_encode"]["count"] == 3
            assert f["ns_per_encode"]["median"] > 0
        # omniORB unmarshaled the client's any and found the event in it
        assert p["omniorb_event"] == "ok"
    assert "Odometry" in r.stdout and "omniORB" in r.stdout


def test_c_codec_only(tmp_path):
    r = run(marshal(tmp_path, omniorb=False, payloads=["Odometry"]),
            tmp_path / "r.json")
    assert r.returncode == 0, r.stderr
    import json
    m = json.loads((tmp_path / "r.json").read_text())["marshal"]
    assert m["omniorb"] is None
    assert [p["name"] for p in m["payloads"]] == ["Odometry"]
    assert "omniorb" not in m["payloads"][0]


def fake_bench(tmp_path, script):
    """orbbench copied into a folder of its own beside a fake benchmark:
    it runs what lies beside it."""
    d = tmp_path / "bin"
    d.mkdir()
    shutil.copy(ORBBENCH, d / "orbbench")
    if script is not None:
        b = d / "omniorb-marshal-bench"
        b.write_text("#!/bin/sh\n" + script + "\n")
        b.chmod(0o755)
    return d / "orbbench"


def answer(error, event):
    """A benchmark that reads its input and answers this for Odometry."""
    return ("cat > /dev/null; echo '{\"orb\": \"omniORB 9\", "
            "\"payloads\": [{\"name\": \"Odometry\", \"ns_per_encode\": "
            f"[1], \"error\": {error}, \"event\": \"{event}\"}}]}}'")


@pytest.mark.parametrize("script,message", [
    (answer('"byte 7 is 1, the client s 0"', "ok"),
     "omniorb-marshal-bench: Odometry: byte 7 is 1, the client s 0"),
    (answer("null", "omniORB did not extract the any"),
     "omniorb-marshal-bench: Odometry: omniORB did not extract the any"),
    (answer("null", "ok").replace("Odometry", "None"),
     "omniorb-marshal-bench: Odometry: no answer for this payload"),
    (None, "cannot run it (run make first?)"),
    ("cat > /dev/null; echo not json", "exited with status 0, no JSON"),
    ("exit 3", "exited with status 3, no JSON answer"),
], ids=["disagrees", "no-event", "no-row", "missing", "not-json", "fails"])
def test_bench_failure_is_named(tmp_path, script, message):
    exe = fake_bench(tmp_path, script)
    r = run(marshal(tmp_path, payloads=["Odometry"]), tmp_path / "r.json",
            orbbench=exe)
    assert r.returncode == 1, r.stderr
    assert message in r.stderr.strip().splitlines()[-1], r.stderr
    assert (tmp_path / "r.json").exists()  # what was gathered is written


def test_bench_that_reads_nothing(tmp_path):
    """Its input (Octet100K's is 200 KB of hex) fills the pipe: the
    client's write fails (EPIPE, not a SIGPIPE that would end it), and
    the benchmark's status is the failure."""
    exe = fake_bench(tmp_path, "exit 3")
    r = run(marshal(tmp_path), tmp_path / "r.json", orbbench=exe)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "exited with status 3, no JSON answer" in r.stderr


def test_hanging_bench_ends_within_max_seconds(tmp_path):
    exe = fake_bench(tmp_path, "exec sleep 60")
    t0 = time.monotonic()
    r = run(marshal(tmp_path, payloads=["None"], max_seconds=1),
            tmp_path / "r.json", orbbench=exe)
    assert time.monotonic() - t0 < 10
    assert r.returncode == 1
    assert "no answer within marshal.max_seconds" in r.stderr
    # the benchmark was killed, not left behind
    out = subprocess.run(["pgrep", "-f", str(tmp_path / "bin")],
                         capture_output=True, text=True)
    assert out.stdout == ""


@pytest.mark.parametrize("payloads,message", [
    (["string"], '"string" is not a typed payload'),
    (["Odometry", "Odometry"], '"Odometry" is listed twice'),
    (["Octet2K"], '"Octet2K" is not a typed payload'),
])
def test_bad_payload_list_is_exit_2(tmp_path, payloads, message):
    p = marshal(tmp_path, payloads=payloads)
    r = run(p, tmp_path / "r.json")
    assert r.returncode == 2
    assert r.stderr.startswith(f'orbbench: {p}: key "marshal.payloads": '
                               + message), r.stderr


def test_marshal_key_in_a_sweep_is_exit_2(tmp_path):
    p = write_scenario(tmp_path / "s.json", marshal={"encodes": 5})
    r = run(p, tmp_path / "r.json")
    assert r.returncode == 2
    assert 'key "marshal.encodes": only for "kind": "marshal"' in r.stderr


def test_run_suite_summarises_a_run_without_servers(tmp_path):
    # A marshal result's orb is null: the suite's summary row says "—"
    # for it instead of failing on the missing ORB.
    d = tmp_path / "suite"
    d.mkdir()
    write_scenario(d / "m.json", kind="marshal",
                   marshal={"payloads": ["Odometry"], "encodes": 100,
                            "repeats": 3})
    r = run_suite(d, "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    row = json.loads((tmp_path / "out" / "summary.json").read_text())
    row = row["rows"][0] if isinstance(row, dict) else row[0]
    assert row["orb"] == "—" and row["kind"] == "marshal"
