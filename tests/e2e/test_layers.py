"""make check-layers: no include in client/ points up a layer or into
another kind, and the check itself fails on one that does (a copy of
client/ with an upward include, or a kind including another kind's
header)."""
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


def planted(tmp_path, rel, include):
    """A copy of client/ whose file `rel` opens with `include`."""
    client = tmp_path / "client"
    shutil.copytree(ROOT / "client", client)
    target = client / rel
    target.write_text(f'#include "{include}"\n' + target.read_text())
    return client, target


def test_an_upward_include_fails(tmp_path):
    client, cdr = planted(tmp_path, "codec/cdr.c", "kinds/run.h")
    r = run(client)
    assert r.returncode == 1
    assert f'{cdr}:1: "kinds/run.h" points up a layer: codec' in r.stdout


def test_an_include_without_its_layer_fails(tmp_path):
    client, _ = planted(tmp_path, "net/conn.c", "transport.h")
    r = run(client)
    assert r.returncode == 1
    assert '"transport.h": no such header' in r.stdout


def test_a_kind_including_another_kinds_header_fails(tmp_path):
    """kinds/rate.c defines kind_rate: a header of its own is rate.c's, and
    fanin.c may not reach into it (as fanin.c and the sweep's driver did
    into kinds/sweep.h before the driver's settings had their own header,
    kinds/stepper_keys.h)."""
    client, fanin = planted(tmp_path, "kinds/fanin.c", "kinds/rate.h")
    (client / "kinds" / "rate.h").write_text("/* rate's own */\n")
    r = run(client)
    assert r.returncode == 1
    assert (f'{fanin}:1: "kinds/rate.h" is kind rate\'s own header: only '
            f'kinds/rate.c may include it') in r.stdout
    assert r.stdout.count("check-layers:") == 1, r.stdout


def test_a_kind_may_include_its_own_header(tmp_path):
    client, _ = planted(tmp_path, "kinds/rate.c", "kinds/rate.h")
    (client / "kinds" / "rate.h").write_text("/* rate's own */\n")
    r = run(client)
    assert r.returncode == 0, r.stdout + r.stderr


def test_shared_headers_of_kinds_are_no_kinds(tmp_path):
    """The stepper, the row, the run context and servers are shared: no
    kind's own header, so any kind includes them."""
    client, _ = planted(tmp_path, "kinds/rate.c", "kinds/stepper.h")
    r = run(client)
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_impl_header_is_its_modules_alone(tmp_path):
    """kinds/stepper_impl.h is what the stepper's files share: a kind
    that reaches into it fails; the stepper's own files may."""
    client, sweep = planted(tmp_path, "kinds/sweep.c",
                            "kinds/stepper_impl.h")
    r = run(client)
    assert r.returncode == 1
    assert (f'{sweep}:1: "kinds/stepper_impl.h" is the inside of module '
            f'stepper: only its files (kinds/stepper*.c) may include it'
            ) in r.stdout
    assert r.stdout.count("check-layers:") == 1, r.stdout
