"""A commit message in the house's shape, checked (a git commit-msg hook).

The subject is at most 72 characters, "area: change" (an area of one
word or path, lower case, a colon, a space, then the change), and a
blank line parts it from the body, which says why, with the figures.

Install it in a checkout:   ln -s ../../scripts/commit-msg .git/hooks/commit-msg
Check a range of commits:   scripts/commit-msg --range ORIGIN..HEAD
exit: 0 every message in shape, 1 one is not (each named on one line),
2 usage error.
"""
import re
import subprocess
import sys

MAX_SUBJECT = 72
# An area: a word or a path of words ("kinds", "docs/ci.md",
# "run-suite", "tests/e2e"); then ": " and the change.
SUBJECT = re.compile(r"^[a-z0-9][A-Za-z0-9_.+/-]*(, [a-z0-9][A-Za-z0-9_.+/-]*)*: \S")


def problems(message):
    """What is wrong with one commit message: a list of short reasons."""
    lines = [ln for ln in message.splitlines() if not ln.startswith("#")]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ["the message is empty"]
    subject, found = lines[0], []
    if subject.startswith(("Merge ", "Revert \"", "fixup! ", "squash! ")):
        return []
    if len(subject) > MAX_SUBJECT:
        found.append(f"the subject is {len(subject)} characters, over "
                     f"{MAX_SUBJECT}: the why goes in the body")
    if not SUBJECT.match(subject):
        found.append('the subject is not "area: change" '
                     '(e.g. "kinds: split the sweep driver")')
    if len(lines) > 1 and lines[1].strip():
        found.append("no blank line between the subject and the body")
    return found


def check_range(spec):
    try:
        out = subprocess.run(
            ["git", "log", "--format=%H%x00%B%x01", spec], check=True,
            capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print(f"commit-msg: git log {spec}: {err.strip().splitlines()[-1:]}",
              file=sys.stderr)
        return 2
    bad = 0
    for entry in out.split("\x01"):
        if not entry.strip():
            continue
        sha, _, body = entry.strip("\n").partition("\x00")
        for p in problems(body):
            print(f"commit-msg: {sha[:10]}: {p}", file=sys.stderr)
            bad = 1
    return bad


def main(argv):
    if len(argv) == 2 and argv[0] == "--range":
        return check_range(argv[1])
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: scripts/commit-msg MESSAGE-FILE | --range A..B",
              file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8", errors="replace") as f:
            message = f.read()
    except OSError as e:
        print(f"commit-msg: {argv[0]}: {e.strerror}", file=sys.stderr)
        return 2
    found = problems(message)
    for p in found:
        print(f"commit-msg: {p}", file=sys.stderr)
    return 1 if found else 0

