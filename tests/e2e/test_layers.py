"""make check-layers: no include in client/ points up a layer, and the check
itself fails on one that does (a copy of client/ with an upward include)."""
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check-layers"


def run(client):
    return subprocess.run(["/usr/bin/python3", str(CHECK), str(client)],
                          capture_output=True, text=True, timeout=60)


def test_the_tree_keeps_its_layers():
    r = run(ROOT / "client")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == ""


def test_an_upward_include_fails(tmp_path):
    client = tmp_path / "client"
    shutil.copytree(ROOT / "client", client)
    cdr = client / "codec" / "cdr.c"
    cdr.write_text('#include "kinds/run.h"\n' + cdr.read_text())
    r = run(client)
    assert r.returncode == 1
    assert f'{cdr}:1: "kinds/run.h" points up a layer: codec' in r.stdout


def test_an_include_without_its_layer_fails(tmp_path):
    client = tmp_path / "client"
    shutil.copytree(ROOT / "client", client)
    conn = client / "net" / "conn.c"
    conn.write_text('#include "transport.h"\n' + conn.read_text())
    r = run(client)
    assert r.returncode == 1
    assert '"transport.h": no such header' in r.stdout
