"""results/ stays small: the example results the docs cite are kept
thinned (results/README.md), and together with everything else under
results/ that git would keep they stay within 10 MB."""
import subprocess
from pathlib import Path

from conftest import ROOT

LIMIT = 10 * 1024 * 1024  # bytes, as du -h counts a megabyte


def kept_files():
    """The files under results/ that are in the tree or would be added
    (not ignored): runs' own results/DATE-... folders do not count."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others",
             "--exclude-standard", "--", "results"],
            cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return [p for p in (ROOT / "results" / "examples").rglob("*")
                if p.is_file()]
    return [ROOT / Path(p.decode()) for p in out.split(b"\0") if p]


def total_bytes(files):
    return sum(p.stat().st_size for p in files if p.is_file())


def test_results_stay_within_10_mb():
    files = kept_files()
    assert files, "no files under results/"
    size = total_bytes(files)
    biggest = sorted(files, key=lambda p: -p.stat().st_size
                     if p.is_file() else 0)[:5]
    assert size <= LIMIT, (
        f"results/ holds {size / 2**20:.1f} MB, over {LIMIT / 2**20:.0f} MB; "
        f"thin new examples with results/slim.py (results/README.md); "
        f"biggest: " + ", ".join(
            f"{p.relative_to(ROOT)} ({p.stat().st_size} B)" for p in biggest))


def test_the_size_check_can_fail(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"0" * (LIMIT + 1))
    assert total_bytes([big]) > LIMIT
