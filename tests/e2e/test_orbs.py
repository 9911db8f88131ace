"""End-to-end: choosing the ORB installation a server is built against
(server.orb), what the result records of it, and build-orb's argument
errors. The real source build is `make compare-orbs`, not a test: it takes
about 8 minutes."""
import glob
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS, ORBBENCH, assert_nothing_left

# One worker for the tests that run make in the tree (make test's -n 2):
# two makes at once would write the same files of build/.
pytestmark = pytest.mark.xdist_group("make")


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


@pytest.mark.long
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


@pytest.mark.long
def test_default_is_the_system_orb(fake_orb, tmp_path):
    _, bin_dir = fake_orb
    r = run(bin_dir, out=tmp_path / "s.json")
    assert r.returncode == 0, r.stderr
    orb = json.loads((tmp_path / "s.json").read_text())["orb"]
    assert orb["id"] == "omniorb-system"
    assert orb["library_path"].startswith("/usr/lib/")


@pytest.mark.long
def test_unknown_orb_exits_2(fake_orb, tmp_path):
    _, bin_dir = fake_orb
    r = run(bin_dir, "server.orb=omniorb-9.9", out=tmp_path / "u.json")
    assert r.returncode == 2
    assert 'key "server.orb": no ORB installation "omniorb-9.9"' in r.stderr
    assert "omniorb-fake" in r.stderr  # what is there instead
    assert not (tmp_path / "u.json").exists()


@pytest.mark.long
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


@pytest.mark.long
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


def copy_build_orb(scripts):
    """build-orb and what it sources (progress.sh, build-orb.d/: one file
    an ORB family) copied into the folder scripts."""
    for name in ("build-orb", "progress.sh"):
        shutil.copy(ROOT / "scripts" / name, scripts)
    shutil.copytree(ROOT / "scripts" / "build-orb.d", scripts / "build-orb.d")


def tao_tree(tmp_path, version):
    """build-orb copied into a tree of the test's own (its orbs/ is made
    there), and a fake ACE+TAO release holding TAO `version`."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    copy_build_orb(tree / "scripts")
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
    copy_build_orb(tree / "scripts")
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


def copied_build_orb(tmp_path):
    """build-orb copied into a tree of the test's own (its orbs/ is made
    there)."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    copy_build_orb(tree / "scripts")
    return tree


@pytest.mark.parametrize("given,needle", [
    ("release", "holds MICO 9.9.9, not 2.3.13"),
    ("not-a-release", "is not a MICO tree"),
])
def test_build_orb_mico_checks_its_source(tmp_path, given, needle):
    """A tree that is not MICO 2.3.13 is refused before configure runs,
    and leaves only the log."""
    tree = copied_build_orb(tmp_path)
    src = tmp_path / "mico"
    (src / "orb").mkdir(parents=True)
    (src / "configure").write_text("#!/bin/sh\nexit 1\n")
    (src / "configure").chmod(0o755)
    (src / "VERSION").write_text("9.9.9\n")
    if given == "release":
        (src / "orb" / "orb.cc").write_text("")
    r = subprocess.run([str(tree / "scripts" / "build-orb"), "mico",
                        "2.3.13", "--source", str(src), "-j", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert needle in r.stderr
    work = tree / "orbs" / ".build-mico-2.3.13"
    assert sorted(p.name for p in work.iterdir()) == ["build.log", "prefix"]
    assert not (tree / "orbs" / "mico-2.3.13").exists()


def omniorbpy_release(tmp_path, version):
    """A fake omniORBpy release tree saying `version`."""
    src = tmp_path / "omniORBpy"
    (src / "modules").mkdir(parents=True)
    (src / "modules" / "omnipy.cc").write_text("")
    (src / "configure").write_text("#!/bin/sh\nexit 1\n")
    (src / "configure").chmod(0o755)
    (src / ("THIS_IS_OMNIORBPY_" + version.replace(".", "_"))).write_text("")
    return src


@pytest.mark.skipif(not Path("/usr/include/omniORB4/CORBA.h").exists(),
                    reason="no Debian omniORB (libomniorb4-dev)")
def test_build_orb_omniorbpy_checks_its_source(tmp_path):
    """omniORBpy 4.2.x goes with Debian's omniORB 4.2.5; a tree saying
    another version is refused before configure runs."""
    tree = copied_build_orb(tmp_path)
    src = omniorbpy_release(tmp_path, "9.9.9")
    r = subprocess.run([str(tree / "scripts" / "build-orb"), "omniorbpy",
                        "4.2.6", "--source", str(src), "-j", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert "holds omniORBpy 9.9.9, not 4.2.6" in r.stderr
    work = tree / "orbs" / ".build-omniorbpy-4.2.6"
    assert sorted(p.name for p in work.iterdir()) == ["build.log", "prefix"]


def test_build_orb_omniorbpy_needs_its_omniorb(tmp_path):
    """omniORBpy X.Y works with omniORB X.Y only: without one (neither
    the system's nor a build in orbs/) it is refused, naming the build to
    make first, and nothing is written."""
    tree = copied_build_orb(tmp_path)
    src = omniorbpy_release(tmp_path, "5.1.0")
    r = subprocess.run([str(tree / "scripts" / "build-orb"), "omniorbpy",
                        "5.1.0", "--source", str(src), "-j", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert "omniORBpy 5.1.0 needs omniORB 5.1.x" in r.stderr
    assert "scripts/build-orb omniorb 5.1.N --source PATH" in r.stderr
    assert not (tree / "orbs").exists()


def omniorb_tree(tmp_path):
    """build-orb copied into a tree of the test's own (its orbs/ is made
    there)."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    copy_build_orb(tree / "scripts")
    return tree


@pytest.mark.parametrize("layout,needle", [
    # a release tarball's tree, and one of omniORB's history (git archive
    # of a tag: omniORB/ beside omniORBpy/): both say their version
    ("release", "is omniORB 9.9.9, not 4.1.7"),
    ("history", "is omniORB 9.9.9, not 4.1.7"),
    # omniORB 3 (Kegel's): config/config.mk, no configure
    ("omniorb3", "is omniORB 2 or 3 (config/config.mk, no configure "
     "script): its build is not supported"),
])
def test_build_orb_omniorb_checks_its_source(tmp_path, layout, needle):
    """A tree that is not the release asked for is refused before
    configure runs, and leaves only the log."""
    tree = omniorb_tree(tmp_path)
    src = tmp_path / "src"
    top = src / "omniORB" if layout == "history" else src
    top.mkdir(parents=True)
    if layout == "omniorb3":
        (top / "config").mkdir()
        (top / "config" / "config.mk").write_text("platform = x\n")
        (top / "THIS_IS_omniORB_3_0_4").write_text("")
    else:
        (top / "configure").write_text("#!/bin/sh\nexit 1\n")
        (top / "configure").chmod(0o755)
        (top / "THIS_IS_OMNIORB_9_9_9").write_text("")
    r = subprocess.run([str(tree / "scripts" / "build-orb"), "omniorb",
                        "4.1.7", "--source", str(src), "-j", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    # one line (after any "installing" of missing build packages)
    assert needle in r.stderr.strip().splitlines()[-1], r.stderr
    work = tree / "orbs" / ".build-omniorb-4.1.7"
    assert sorted(p.name for p in work.iterdir()) == ["build.log", "prefix"]
    assert not (tree / "orbs" / "omniorb-4.1.7").exists()


# omniORB releases of the history built here (docs/servers.md#old-omniorb);
# none in a fresh checkout, so make test passes without them.
OLD_BUILDS = sorted(p.parent.name for p in
                    (ROOT / "orbs").glob("omniorb-4.[01].*/BUILD_INFO"))


@pytest.mark.skipif(not OLD_BUILDS, reason="no old omniORB release built: "
                    "scripts/build-orb omniorb 4.1.7 --source TREE "
                    "(docs/servers.md#old-omniorb)")
@pytest.mark.parametrize("orb", OLD_BUILDS)
def test_an_old_release_serves_and_says_how_it_was_built(orb, tmp_path):
    """Its server (stubs from the release's own back end, converted) answers
    the client over Unix sockets and TCP, the result names the release, and
    orb.build the patches of its build."""
    exe = ROOT / "bin" / "orbs" / orb / "echo-server"
    assert exe.exists(), f"{exe}: run make"
    version = orb.split("-", 1)[1]
    for transport in ("unix", "tcp"):
        out = tmp_path / f"{transport}.json"
        r = run(ROOT / "bin", f"server.orb={orb}", f"transport={transport}",
                "sweep.max_n=3", out=out)
        assert r.returncode == 0, r.stderr
        doc = json.loads(out.read_text())
        assert doc["orb"]["id"] == orb
        assert doc["orb"]["version"] == version
        assert "orbbench.oldidl" in doc["orb"]["build"]
        assert doc["orb"]["library_path"].startswith(
            str(ROOT / "orbs" / orb / "lib"))
        assert_nothing_left(doc)
