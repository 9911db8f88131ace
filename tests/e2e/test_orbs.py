"""End-to-end: choosing the ORB installation a server is built against
(server.orb), what the result records of it, and build-orb's argument
errors. The real source build is `make compare-orbs`, not a test: it takes
about 8 minutes."""
import glob
import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, SCENARIOS, ORBBENCH, assert_nothing_left


def system_lib(name):
    found = sorted(glob.glob(f"/usr/lib/*/{name}.so*"))
    assert found, f"no system {name}"
    return found


@pytest.fixture(scope="module")
def fake_orb(tmp_path_factory):
    """A folder whose omniidl and libraries are the system ones, copied (so
    /proc/PID/maps shows the copy), registered as ORB "omniorb-fake", and a
    bin/ built by the Makefile with an echo server for it."""
    top = tmp_path_factory.mktemp("orbs")
    inst = top / "orbs" / "omniorb-fake"
    (inst / "bin").mkdir(parents=True)
    (inst / "lib").mkdir()
    omniidl = inst / "bin" / "omniidl"
    omniidl.write_text('#!/bin/sh\nexec /usr/bin/omniidl "$@"\n')
    omniidl.chmod(0o755)
    os.symlink("/usr/include", inst / "include")
    for lib in system_lib("libomniORB4") + system_lib("libomnithread"):
        shutil.copy(lib, inst / "lib", follow_symlinks=True)
    bin_dir = top / "bin"
    r = subprocess.run(["make", "-s", "build", f"BIN={bin_dir}",
                        f"ORBS_DIR={top / 'orbs'}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (bin_dir / "orbs" / "omniorb-fake" / "echo-server").exists()
    return top, bin_dir


def run(bin_dir, *sets, out):
    args = [str(bin_dir / "orbbench"), "run", str(SCENARIOS / "sync-tcp.json"),
            "--out", str(out), "--set", "sweep.start=2",
            "--set", "sweep.max_n=2", "--set", "sweep.rounds=2"]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def test_server_orb_selects_the_installation(fake_orb, tmp_path):
    top, bin_dir = fake_orb
    r = run(bin_dir, "server.orb=omniorb-fake", out=tmp_path / "f.json")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "f.json").read_text())
    orb = doc["orb"]
    assert orb["id"] == "omniorb-fake"
    assert orb["server_path"] == str(bin_dir / "orbs/omniorb-fake/echo-server")
    # the library the server actually mapped, read from /proc/PID/maps
    assert orb["library_path"].startswith(str(top / "orbs/omniorb-fake/lib/"))
    assert orb["version"].startswith("4.")
    assert doc["scenario"]["server"]["orb"] == "omniorb-fake"
    assert_nothing_left(doc)


def test_default_is_the_system_orb(fake_orb, tmp_path):
    _, bin_dir = fake_orb
    r = run(bin_dir, out=tmp_path / "s.json")
    assert r.returncode == 0, r.stderr
    orb = json.loads((tmp_path / "s.json").read_text())["orb"]
    assert orb["id"] == "omniorb-system"
    assert orb["library_path"].startswith("/usr/lib/")


def test_unknown_orb_exits_2(fake_orb, tmp_path):
    _, bin_dir = fake_orb
    r = run(bin_dir, "server.orb=omniorb-9.9", out=tmp_path / "u.json")
    assert r.returncode == 2
    assert 'key "server.orb": no ORB installation "omniorb-9.9"' in r.stderr
    assert "omniorb-fake" in r.stderr  # what is there instead
    assert not (tmp_path / "u.json").exists()


def test_missing_system_server_is_not_listed_as_built(fake_orb, tmp_path):
    # Without its echo server the system ORB is not "built here": only the
    # installations whose server can run are named.
    _, bin_dir = fake_orb
    server = bin_dir / "omniorb-echo-server"
    server.rename(tmp_path / "away")  # the fixture is shared: put it back
    try:
        r = run(bin_dir, out=tmp_path / "m.json")
    finally:
        (tmp_path / "away").rename(server)
    assert r.returncode == 2
    built = r.stderr.split("built here: ")[1]
    assert "omniorb-fake" in built and "omniorb-system" not in built


def test_run_suite_solo_interleaves_orbs(fake_orb, tmp_path):
    """--solo: each ORB's run on its own, interleaved (two ORBs are paired
    by default: test_paired)."""
    _, bin_dir = fake_orb
    src = tmp_path / "suite"
    src.mkdir()
    for name in ("a", "b"):
        (src / f"{name}.json").write_text(json.dumps(
            {"name": name, "sweep": {"start": 2, "max_n": 2, "rounds": 2}}))
    out = tmp_path / "out"
    r = subprocess.run([str(ROOT / "scripts/run-suite"), str(src), "--out",
                        str(out), "--orb", "omniorb-system", "--orb",
                        "omniorb-fake", "--solo",
                        "--orbbench", str(bin_dir / "orbbench")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    order = [l.split()[1:3] for l in r.stderr.splitlines() if l.endswith("...")]
    assert order == [["a", "[omniorb-system]"], ["a", "[omniorb-fake]"],
                     ["b", "[omniorb-system]"], ["b", "[omniorb-fake]"]]
    for orb in ("omniorb-system", "omniorb-fake"):
        for name in ("a", "b"):
            doc = json.loads((out / orb / f"{name}.json").read_text())
            assert doc["orb"]["id"] == orb


@pytest.mark.parametrize("args,needle", [
    ([], "usage"),
    (["orbix", "1.0", "--debian", "trixie"], 'unknown ORB "orbix"'),
    (["tao", "2.2.1", "--debian", "trixie"], "--debian is for omniorb only"),
    (["tao", "2.2.1", "--source", "/", "--std", "c++11;x"], "bad --std"),
    (["tao", "2.2.1", "--source", "/", "-j", "0"], "bad -j"),
    (["orbit2", "2.14.19", "--debian", "trixie"],
     "--debian is for omniorb only: give orbit2 --source PATH"),
    (["orbit3", "1.0", "--source", "/"], 'unknown ORB "orbit3"'),
    (["omniorb", "4.3.3"], "give --source PATH or --debian SUITE"),
    (["omniorb", "4.3.3", "--source", "/no/such/tarball.tar.gz"],
     "/no/such/tarball.tar.gz: no such file"),
    (["omniorb", "4.3.3", "--source", "x", "--debian", "trixie"],
     "only one of"),
    (["omniorb", "4.3.3", "--frobnicate"], 'unknown option "--frobnicate"'),
    (["omniorb", "4.3.3", "--debian", "Trixie;rm"], "bad suite"),
])
def test_build_orb_argument_errors(args, needle):
    r = subprocess.run([str(ROOT / "scripts/build-orb"), *args],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert needle in r.stderr


def tao_tree(tmp_path, version):
    """build-orb copied into a tree of the test's own (its orbs/ is made
    there), and a fake ACE+TAO release holding TAO `version`."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    for name in ("build-orb", "progress.sh"):
        shutil.copy(ROOT / "scripts" / name, tree / "scripts")
    src = tmp_path / "ACE_wrappers"
    for d in ("ace", "TAO/tao", "MPC"):
        (src / d).mkdir(parents=True)
    (src / "ace" / "ACE.h").write_text("")
    (src / "MPC" / "mwc.pl").write_text("")
    (src / "TAO" / "tao" / "Version.h").write_text(
        f'#define TAO_VERSION "{version}"\n')
    return tree, src


@pytest.mark.parametrize("given,needle", [
    ("release", "holds TAO 9.9.9, not 2.2.1"),
    ("not-a-release", "is not an ACE+TAO release"),
])
def test_build_orb_tao_checks_its_source(tmp_path, given, needle):
    tree, src = tao_tree(tmp_path, "9.9.9")
    source = src if given == "release" else src / "ace"
    r = subprocess.run([str(tree / "scripts" / "build-orb"), "tao", "2.2.1",
                        "--source", str(source), "-j", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert needle in r.stderr
    # the copy goes, the log stays; nothing installed
    work = tree / "orbs" / ".build-tao-2.2.1"
    # (and the prefix it was made for: a tree restored elsewhere rebuilds)
    assert sorted(p.name for p in work.iterdir()) == ["build.log", "prefix"]
    assert not (tree / "orbs" / "tao-2.2.1").exists()


@pytest.mark.parametrize("given,needle", [
    ("release", "holds ORBit2 9.9.9, not 2.14.19"),
    ("not-a-release", "is not an ORBit2 release"),
])
def test_build_orb_orbit2_checks_its_source(tmp_path, given, needle):
    """A tree that is not ORBit2 2.14.19 is refused before configure runs,
    and leaves only the log."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    for name in ("build-orb", "progress.sh"):
        shutil.copy(ROOT / "scripts" / name, tree / "scripts")
    src = tmp_path / "ORBit2"
    (src / "src" / "orb" / "orb-core").mkdir(parents=True)
    (src / "configure").write_text("#!/bin/sh\nexit 1\n"
                                   "PACKAGE_VERSION='9.9.9'\n")
    (src / "configure").chmod(0o755)
    if given == "release":
        (src / "src" / "orb" / "orb-core" / "corba-orb.c").write_text("")
    r = subprocess.run([str(tree / "scripts" / "build-orb"), "orbit2",
                        "2.14.19", "--source", str(src), "-j", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert needle in r.stderr
    work = tree / "orbs" / ".build-orbit2-2.14.19"
    # (and the prefix it was made for: a tree restored elsewhere rebuilds)
    assert sorted(p.name for p in work.iterdir()) == ["build.log", "prefix"]
    assert not (tree / "orbs" / "orbit2-2.14.19").exists()
