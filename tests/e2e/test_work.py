"""End-to-end: the echo server's --work-us option, a known CPU cost per
call."""
import subprocess

import pytest

from conftest import BIN, kill_quietly

SERVER = BIN / "omniorb-echo-server"


@pytest.mark.parametrize("args,value", [
    (["--work-us", "abc"], "abc"),
    (["--work-us=1000001"], "1000001"),
    (["--work-us", "-1"], "-1"),
    (["--work-us", " 5"], " 5"),
    (["--work-us"], ""),
])
def test_echo_server_rejects_bad_work_us(args, value):
    r = subprocess.run([str(SERVER), "-ORBendPoint", "giop:tcp:127.0.0.1:",
                        *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert r.stderr == (f'echo-server: --work-us: "{value}" is not an '
                        "integer in [0, 1000000]\n")
    assert r.stdout == ""


@pytest.mark.parametrize("args", [["--work-us", "5"], ["--work-us=5"]])
def test_echo_server_starts_with_work_us(args):
    # The option, in either form, beside the ORB's own: the server starts.
    p = subprocess.Popen([str(SERVER), *args, "-ORBendPoint",
                          "giop:tcp:127.0.0.1:"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("IOR:") and line.endswith("\n"), (
            line, p.poll())
    finally:
        kill_quietly(p.pid)
        p.communicate(timeout=30)


def test_echo_server_version_is_unchanged():
    r = subprocess.run([str(SERVER), "--version"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0
    assert r.stdout.startswith("omniORB ") and r.stdout.count("\n") == 1
