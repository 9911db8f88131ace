"""scripts/commit-msg: the house's commit message shape, as a hook."""
import subprocess
import sys

from conftest import ROOT

HOOK = ROOT / "scripts" / "commit-msg"


def run(tmp_path, message):
    f = tmp_path / "MSG"
    f.write_text(message)
    return subprocess.run([sys.executable, str(HOOK), str(f)],
                          capture_output=True, text=True)


def test_a_message_in_shape_passes(tmp_path):
    r = run(tmp_path, "kinds: split the sweep driver\n\nWhy, with figures.\n")
    assert r.returncode == 0, r.stderr


def test_a_path_as_the_area_passes(tmp_path):
    r = run(tmp_path, "docs/ci.md: the fails-closed table\n")
    assert r.returncode == 0, r.stderr


def test_a_long_subject_is_refused_with_its_length(tmp_path):
    subject = "kinds: " + "x" * 70
    r = run(tmp_path, subject + "\n")
    assert r.returncode == 1
    assert f"{len(subject)} characters" in r.stderr


def test_a_subject_without_an_area_is_refused(tmp_path):
    r = run(tmp_path, "Fix the thing\n")
    assert r.returncode == 1
    assert "area: change" in r.stderr


def test_a_body_glued_to_the_subject_is_refused(tmp_path):
    r = run(tmp_path, "core: fix\nno blank line\n")
    assert r.returncode == 1
    assert "blank line" in r.stderr


def test_comment_lines_git_adds_are_ignored(tmp_path):
    r = run(tmp_path, "# Please enter the commit message\ncore: fix\n")
    assert r.returncode == 0, r.stderr


def test_a_missing_file_is_a_usage_error(tmp_path):
    r = subprocess.run([sys.executable, str(HOOK), str(tmp_path / "none")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "none" in r.stderr
