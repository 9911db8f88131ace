"""server.kind external: orbbench drives servers it did not start, from a
list of IORs (scripts/start-servers), and never stops or signals them."""
import json
import os
import shutil
import signal
import subprocess

import pytest

from conftest import ORBBENCH, ROOT, SCENARIOS, alive, write_scenario

START = ROOT / "scripts" / "start-servers"
ECHO = ROOT / "bin" / "omniorb-echo-server"
QUICK = ["sweep.start=1", "sweep.step=1", "sweep.rounds=3",
         "sweep.warmup_rounds=1"]


def pids_of(path):
    out = []
    for line in path.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) == 2:
            out.append(int(words[1]))
    return out


@pytest.fixture
def servers(tmp_path):
    """start(n, transport) starts n echo servers with the helper and
    returns (list path, pids); every list is stopped at the end."""
    lists = []

    def start(n, transport="tcp"):
        path = tmp_path / f"iors-{len(lists)}.txt"
        subprocess.run([str(START), str(n), "--transport", transport,
                        "--out", str(path)], check=True, timeout=60,
                       capture_output=True)
        lists.append(path)
        return path, pids_of(path)

    yield start
    for path in lists:
        subprocess.run([str(START), "--stop", str(path)], timeout=60,
                       capture_output=True)
        for p in pids_of(path):
            assert not alive(p), f"server {p} outlived --stop"


def run(iors, *sets, extra=(), out=None, timeout=120):
    args = [str(ORBBENCH), "run", str(SCENARIOS / "sync-tcp.json"),
            "--set", "server.kind=external", "--set", f"server.iors={iors}"]
    for s in list(QUICK) + list(sets):
        args += ["--set", s]
    if out:
        args += ["--out", str(out)]
    return subprocess.run(args + list(extra), capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_same_servers_twice_left_running(servers, tmp_path, transport):
    iors, pids = servers(3, transport)
    for mode in ("sync", "event"):
        out = tmp_path / f"{mode}.json"
        p = run(iors, f"mode={mode}", f"transport={transport}", out=out)
        assert p.returncode == 0, p.stderr
        doc = json.loads(out.read_text())
        ext = doc["external"]
        assert ext["started_by_orbbench"] is False
        assert ext["iors"] == str(iors) and ext["servers_listed"] == 3
        assert len(ext["sha256"]) == 64
        assert doc["result"]["stop_reason"] == "max_n"
        assert "the end of" in doc["result"]["detail"]
        assert [s["n"] for s in doc["steps"]] == [1, 2, 3]
        assert doc["servers"] == []  # none of them ours
        fp = doc["steps"][-1]["footprint"]
        assert fp["probed"] == 3 and fp["pss_kb"]["sum"] > 0
        assert all(alive(pid) for pid in pids), "a server was stopped"


def test_bisection_never_kills_external_servers(servers, tmp_path):
    """The crossing search drops servers: it must only disconnect."""
    iors, pids = servers(4)
    out = tmp_path / "r.json"
    p = run(iors, "sweep.max_ms=0.000001", "sweep.near_rounds=2",
            "sweep.max_probes=4", out=out)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "latency"
    assert all(alive(pid) for pid in pids)


def test_without_pids_socket_owner_found(servers, tmp_path):
    iors, pids = servers(2)
    bare = tmp_path / "bare.txt"
    bare.write_text("# no pids\n\n" + "".join(
        line.split()[0] + "\n" for line in iors.read_text().splitlines()
        if line.startswith("IOR:")))
    out = tmp_path / "r.json"
    p = run(bare, out=out)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    got = [(s["line"], s.get("pid"), s.get("pid_from"))
           for s in doc["external"]["servers"]]
    assert got == [(3, pids[0], "socket"), (4, pids[1], "socket")]


def test_dead_server_named(servers, tmp_path):
    iors, pids = servers(3)
    os.kill(pids[1], signal.SIGKILL)
    subprocess.run(["sleep", "0.2"])
    out = tmp_path / "r.json"
    p = run(iors, out=out)
    assert p.returncode == 1
    line = iors.read_text().splitlines().index(
        next(x for x in iors.read_text().splitlines()
             if x.endswith(f" {pids[1]}"))) + 1
    assert f"{iors}:{line}" in p.stderr, p.stderr
    assert "external server 1" in p.stderr
    assert alive(pids[0]) and alive(pids[2])


def test_malformed_line(tmp_path, servers):
    iors, _ = servers(1)
    bad = tmp_path / "bad.txt"
    bad.write_text(iors.read_text() + "\nIOR:0102 not-a-pid\n")
    p = run(bad)
    assert p.returncode == 2
    n = len(iors.read_text().splitlines()) + 2
    assert p.stderr.startswith(f"orbbench: {bad}:{n}: "), p.stderr
    assert p.stderr.count("\n") == 1


def remote_ior(ior):
    """The same IOR with its 127.0.0.1 replaced by 10.9.9.99 (as long)."""
    return ior.replace(b"127.0.0.1".hex(), b"10.9.9.99".hex())


def test_non_loopback_refused_without_permission(tmp_path, servers):
    iors, _ = servers(1)
    ior = next(x for x in iors.read_text().splitlines()
               if x.startswith("IOR:")).split()[0]
    far = tmp_path / "far.txt"
    far.write_text(remote_ior(ior) + "\n")
    p = run(far)
    assert p.returncode == 2
    assert f"{far}:1:" in p.stderr and "10.9.9.99" in p.stderr
    assert "allow" in p.stderr
    # A bad allowance is a config error too.
    p = run(far, extra=["--allow-host", "10.0.0.0/99"])
    assert p.returncode == 2 and "--allow-host" in p.stderr


NS_SCRIPT = r"""
set -u
ip link set lo up
# A dummy interface where the kernel has the module, else the
# namespace's own lo: either way 10.9.9.9 is not a loopback address.
if ip link add d0 type dummy 2>/dev/null; then
    ip addr add 10.9.9.9/32 dev d0 && ip link set d0 up || exit 90
else
    ip addr add 10.9.9.9/32 dev lo || exit 90
fi
"$ECHO" -ORBendPoint giop:tcp:10.9.9.9: > "$DIR/ior.out" 2>/dev/null &
SERVER=$!
for i in $(seq 1 200); do
    [ -s "$DIR/ior.out" ] && break
    sleep 0.05
done
head -n1 "$DIR/ior.out" > "$DIR/far.txt"
"$ORBBENCH" run "$SCEN" --set server.kind=external \
    --set server.iors="$DIR/far.txt" --set sweep.rounds=3 \
    --set sweep.start=1 --out "$DIR/denied.json" > /dev/null 2> "$DIR/denied.err"
echo "denied $?" > "$DIR/rc"
"$ORBBENCH" run "$SCEN" --set server.kind=external \
    --set server.iors="$DIR/far.txt" --set sweep.rounds=3 \
    --set sweep.start=1 --allow-host 10.9.9.0/24 \
    --out "$DIR/allowed.json" > /dev/null 2> "$DIR/allowed.err"
echo "allowed $?" >> "$DIR/rc"
kill -0 $SERVER && echo "alive 0" >> "$DIR/rc"
kill $SERVER
wait $SERVER
exit 0
"""


def test_allowed_remote_in_own_network_namespace(tmp_path):
    if not shutil.which("unshare") or not shutil.which("ip"):
        pytest.skip("network namespace: unshare or ip not installed")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("network namespace not available here (unshare -n: "
                    f"{probe.stderr.decode().strip()})")
    env = dict(os.environ, ECHO=str(ECHO), ORBBENCH=str(ORBBENCH),
               SCEN=str(SCENARIOS / "sync-tcp.json"), DIR=str(tmp_path))
    p = subprocess.run(["unshare", "-n", "bash", "-c", NS_SCRIPT], env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode == 90:
        pytest.skip("network namespace: cannot give it the address "
                    "10.9.9.9")
    rc = (tmp_path / "rc").read_text().split("\n")
    assert rc[0] == "denied 2", (tmp_path / "denied.err").read_text()
    assert "10.9.9.9" in (tmp_path / "denied.err").read_text()
    assert rc[1] == "allowed 0", (tmp_path / "allowed.err").read_text()
    assert rc[2] == "alive 0", "the server was stopped by orbbench"
    doc = json.loads((tmp_path / "allowed.json").read_text())
    assert doc["external"]["allow_hosts"] == ["10.9.9.0/24"]
    step = doc["steps"][0]
    # No PID, not on loopback: the footprint is absent, with the reason.
    assert step["footprint"] is None
    assert "not on this machine's loopback" in \
        step["footprint_unavailable"]["why"]
