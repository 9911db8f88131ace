"""End-to-end: the ORB-less servers (servers/raw, servers/giop_min) as
server kinds: every call mode over every transport each serves, a raw
server killed mid-run, and the scenario errors that name their key."""
import json
import os
import signal
import socket
import struct
import subprocess

import pytest

from conftest import (BIN, ORBBENCH, SCENARIOS, assert_nothing_left,
                      write_scenario)

MODES = ["sync", "thread-per-call", "pool", "event"]
KIND_TRANSPORTS = [("raw", "tcp"), ("raw", "unix"), ("raw", "pipe"),
                   ("giop-min", "tcp"), ("giop-min", "unix")]


def small(tmp_path, kind, transport, mode):
    return write_scenario(tmp_path / f"{kind}-{transport}-{mode}.json",
                          name=f"{kind}-{transport}", transport=transport,
                          mode=mode, server={"kind": kind},
                          client={"pool_size": 3},
                          sweep={"start": 4, "step": 4, "max_n": 8,
                                 "rounds": 3})


@pytest.mark.parametrize("kind,transport", KIND_TRANSPORTS)
@pytest.mark.parametrize("mode", MODES)
def test_kind_mode_transport(orbbench, tmp_path, kind, transport, mode):
    r = orbbench(small(tmp_path, kind, transport, mode))
    assert r.rc == 0, r.stderr
    doc = r.doc
    assert doc["result"]["stop_reason"] == "max_n"
    assert [s["n"] for s in doc["steps"]] == [4, 8]
    # every call of every round was answered with its own id and echo (a
    # wrong one fails the run), and counted
    for s in doc["steps"]:
        assert s["calls"] == 3 * s["n"] and s["call_us"]["count"] == 3 * s["n"]
    # what ran: the kind's own binary, no ORB, its version from --version
    orb = doc["orb"]
    assert orb["id"] == kind and orb["name"] == kind
    assert orb["version"] and "library_path" not in orb
    assert orb["server_path"].endswith(f"/{kind}-server")
    # ORB-less servers are one thread each
    assert doc["steps"][-1]["footprint"]["threads"]["max"] == 1
    # the client holds one descriptor per server for a socket, two for a
    # pipe pair, and none more (the spawner keeps no copy)
    per = 2 if transport == "pipe" else 1
    a, b = doc["steps"]
    assert b["client"]["fds"] - a["client"]["fds"] == 4 * per
    # the descriptor limit the client needed, and what it raised it to
    nr = doc["limits"]["nofile_raised"]
    assert nr["needed"] == 256 + 8 * per
    assert nr["soft"] == nr["hard"] == doc["limits"]["nofile"]
    assert nr["soft"] >= nr["soft_at_start"]


@pytest.mark.parametrize("mode", ["sync", "event"])
def test_raw_pipe_large_payload(orbbench, tmp_path, mode):
    """300 KB does not fit a pipe's buffer: both sides' writes block and
    wait for the other to read (the event loop watches the write end)."""
    r = orbbench(small(tmp_path, "raw", "pipe", mode),
                 "call.payload_bytes=300000")
    assert r.rc == 0, r.stderr
    assert r.doc["steps"][-1]["calls"] == 24


def test_raw_ignores_server_orb(orbbench, tmp_path):
    p = small(tmp_path, "raw", "unix", "sync")
    r = orbbench(p, "server.orb=omniorb-4.9.9")
    assert r.rc == 0, r.stderr
    assert r.doc["orb"]["id"] == "raw"


def test_raw_server_killed_mid_run(live_sweep):
    proc, out, doc = live_sweep("server.kind=raw")
    victim = doc["servers"][0]["pid"]
    os.kill(victim, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == 1
    final = json.loads(out.read_text())
    res = final["result"]
    assert res["stop_reason"] == "server_died"
    assert f"pid {victim}" in res["detail"]
    assert "killed by signal 9" in res["detail"]
    assert_nothing_left(final)


@pytest.mark.parametrize("kind", ["omniorb", "giop-min"])
def test_pipe_needs_a_kind_that_serves_it(tmp_path, kind):
    p = write_scenario(tmp_path / "p.json", transport="pipe",
                       server={"kind": kind})
    r = run_cli("run", p)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert lines == [f'orbbench: {p}: key "transport": server kind '
                     f'"{kind}" does not serve "pipe" (it serves tcp, unix)']


def run_cli(*args):
    return subprocess.run([str(ORBBENCH), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("how", ["file", "set"])
def test_unknown_kind_exits_2_naming_the_key(tmp_path, how):
    if how == "file":
        p = write_scenario(tmp_path / "k.json", server={"kind": "corba-lite"})
        r = run_cli("run", p)
        needle = 'key "server.kind"'
    else:
        r = run_cli("run", SCENARIOS / "sync-unix.json", "--set",
                    "server.kind=corba-lite")
        needle = "--set server.kind"
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert '"corba-lite" is not one of' in lines[0] and "raw" in lines[0]


# ---- giop-min on its own: dispatch, oneway, bad messages ----------------

def giop_request(rid, key, op, arg, response=True):
    """A GIOP 1.2 Request, little-endian, one string argument."""
    def pad(b, n):
        return b + b"\0" * (-len(b) % n)
    body = struct.pack("<IB3xH", rid, 3 if response else 0, 0)
    body = pad(body, 4) + struct.pack("<I", len(key)) + key
    body = pad(body, 4) + struct.pack("<I", len(op) + 1) + op + b"\0"
    body = pad(body, 4) + struct.pack("<I", 0)  # no service contexts
    # the body's alignment counts from the message start (header: 12)
    body += b"\0" * (-(12 + len(body)) % 8)
    body += struct.pack("<I", len(arg) + 1) + arg + b"\0"
    return b"GIOP\x01\x02\x01\x00" + struct.pack("<I", len(body)) + body


def read_message(sock):
    head = b""
    while len(head) < 12:
        chunk = sock.recv(12 - len(head))
        assert chunk, "connection closed"
        head += chunk
    little = head[6] & 1
    (size,) = struct.unpack("<I" if little else ">I", head[8:12])
    body = b""
    while len(body) < size:
        body += sock.recv(size - len(body))
    return head, body, "<" if little else ">"


@pytest.fixture
def giop_min(tmp_path):
    proc = subprocess.Popen([str(BIN / "giop-min-server"), "--endpoint",
                             "tcp:127.0.0.1:0"], stdout=subprocess.PIPE,
                            text=True)
    try:
        ior = proc.stdout.readline().strip()
        assert ior.startswith("IOR:")
        # the port is in the IIOP profile; ask the kernel instead of
        # decoding it again here: the server's one listening socket
        port = None
        for line in open("/proc/net/tcp").read().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A":  # LISTEN
                inode = f[9]
                fds = os.listdir(f"/proc/{proc.pid}/fd")
                links = {os.readlink(f"/proc/{proc.pid}/fd/{d}")
                         for d in fds}
                if f"socket:[{inode}]" in links:
                    port = int(f[1].split(":")[1], 16)
        assert port
        yield socket.create_connection(("127.0.0.1", port), timeout=5)
    finally:
        proc.kill()
        proc.wait()


KEY = b"orbbench-giop-min-echo"


def test_giop_min_dispatch_and_oneway(giop_min):
    s = giop_min
    # a oneway call first: run, never answered; then a normal call, whose
    # reply must be the next message on the connection
    s.sendall(giop_request(1, KEY, b"echoString", b"quiet", response=False))
    s.sendall(giop_request(2, KEY, b"echoString", b"hello"))
    head, body, o = read_message(s)
    assert head[7] == 1  # Reply
    rid, status, ctx = struct.unpack(o + "III", body[:12])
    assert (rid, status, ctx) == (2, 0, 0)
    rest = body[12:]
    rest = rest[(-(12 + 12)) % 8:]  # 8-aligned from the message start
    (n,) = struct.unpack(o + "I", rest[:4])
    assert rest[4:4 + n] == b"hello\0"
    # an unknown operation, then an unknown object: system exceptions
    for rid, key, op, exc in [(3, KEY, b"echoStrung", b"BAD_OPERATION"),
                              (4, b"nobody", b"echoString",
                               b"OBJECT_NOT_EXIST")]:
        s.sendall(giop_request(rid, key, op, b"x"))
        head, body, o = read_message(s)
        got_rid, status = struct.unpack(o + "II", body[:8])
        assert (got_rid, status) == (rid, 2)
        assert b"IDL:omg.org/CORBA/" + exc + b":1.0" in body
    # not GIOP: a MessageError, then the server closes the connection
    s.sendall(b"HTTP/1.0 GET /\r\n\r\n")
    head, body, o = read_message(s)
    assert head[:4] == b"GIOP" and head[7] == 6
    assert s.recv(1) == b""


def test_descriptor_limit_is_named_with_the_count(tmp_path):
    """A hard RLIMIT_NOFILE the client cannot raise: the sweep stops as a
    resource stop naming the limit and how many descriptors the client
    held (it said -1: /proc/self/fd cannot be opened at the limit)."""
    import re
    out = tmp_path / "r.json"
    r = subprocess.run(
        ["prlimit", "--nofile=120:120", str(ORBBENCH), "run",
         str(SCENARIOS / "sync-unix.json"), "--out", str(out),
         "--set", "server.kind=raw", "--set", "transport=pipe",
         "--set", "mode=event", "--set", "sweep.start=10",
         "--set", "sweep.step=20", "--set", "sweep.max_n=200",
         "--set", "sweep.max_ms=100000", "--set", "sweep.resolution=0",
         "--set", "sweep.rounds=2"],
        capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "resource"
    m = re.search(r"client descriptors (-?\d+) of RLIMIT_NOFILE 120",
                  doc["result"]["detail"])
    assert m, doc["result"]["detail"]
    assert 100 <= int(m.group(1)) <= 120
