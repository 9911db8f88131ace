"""Connecting to a server that never completes the connection: the connect
is bounded by call.timeout_ms, and Ctrl-C during it ends the run as
interrupted (it used to block in connect(2), retrying after EINTR)."""
import inspect
import json
import signal
import struct
import subprocess
import time

from conftest import ORBBENCH, SCENARIOS, fake_server, kill_quietly


def tcp_ior(host, port, key=b"fake-key"):
    """A stringified IOR for Bench::Echo with one IIOP 1.2 profile."""
    def cdr_string(s):
        b = s.encode() + b"\0"
        return struct.pack("<I", len(b)) + b

    def pad(buf, n):
        return buf + b"\0" * (-len(buf) % n)

    body = b"\x01\x01\x02\x00"  # little endian, IIOP 1.2
    body = pad(body + cdr_string(host), 2) + struct.pack("<H", port)
    body = pad(body, 4) + struct.pack("<I", len(key)) + key
    body = pad(body, 4) + struct.pack("<I", 0)  # no tagged components
    ior = b"\x01\x00\x00\x00" + cdr_string("IDL:Bench/Echo:1.0")
    ior = pad(ior, 4) + struct.pack("<II", 1, 0)  # one TAG_INTERNET_IOP
    ior += struct.pack("<I", len(body)) + body
    return "IOR:" + ior.hex()


# A listening socket whose accept queue is full and never drained: the
# kernel drops further SYNs, so a connect to it hangs. It prints its IOR.
BLACKHOLE = "import struct\n" + inspect.getsource(tcp_ior) + r'''
import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
port = s.getsockname()[1]
fill = []
for _ in range(4):
    c = socket.socket()
    c.setblocking(False)
    c.connect_ex(("127.0.0.1", port))
    fill.append(c)
time.sleep(0.2)
print(tcp_ior("127.0.0.1", port), flush=True)
time.sleep(120)
'''


def start(tmp_path, timeout_ms):
    """orbbench against the black-hole server: (process, result path)."""
    script = tmp_path / "blackhole.py"
    script.write_text(BLACKHOLE)
    srv = fake_server(tmp_path, f"exec /usr/bin/python3 {script}")
    out = tmp_path / "r.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json"), "--out",
         str(out), "--set", f"server.path={srv}", "--set", "sweep.start=1",
         "--set", "sweep.max_n=1", "--set", f"call.timeout_ms={timeout_ms}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, out


def finish(proc, timeout):
    try:
        return proc.communicate(timeout=timeout)
    finally:
        kill_quietly(proc.pid)


def test_connect_is_bounded_by_the_call_timeout(tmp_path):
    t0 = time.monotonic()
    proc, out = start(tmp_path, 700)
    _, err = finish(proc, 30)
    assert proc.returncode == 1, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "call_failed"
    assert "connect tcp:127.0.0.1:" in doc["result"]["detail"]
    assert "no answer in time" in doc["result"]["detail"]
    # a hang check, not a speed claim: the kernel's own SYN retries
    # would take over a minute
    assert time.monotonic() - t0 < 20


def test_ctrl_c_while_connecting_is_an_interruption(tmp_path):
    proc, out = start(tmp_path, 60000)
    # wait for the server, then for the client to be in connect
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        ps = subprocess.run(["pgrep", "-f", str(tmp_path / "blackhole.py")],
                            capture_output=True, text=True).stdout.split()
        if ps:
            break
        time.sleep(0.05)
    assert ps, "the black-hole server did not start"
    time.sleep(0.8)  # it prints its IOR after 0.2 s; the client connects
    proc.send_signal(signal.SIGINT)
    _, err = finish(proc, 20)
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "interrupted"
