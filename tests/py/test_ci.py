"""What CI relies on to fail: the Makefile's sanitizer flags and pytest
options. A sanitized run that reports and carries on, or a skip nobody
sees, would let a broken build pass."""
import re
import shlex
import subprocess

from conftest import ROOT

UB_PROGRAM = r"""
#include <limits.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    (void)argv;
    int x = INT_MAX - 1 + argc; /* INT_MAX when run without arguments */
    x += argc;                  /* signed overflow: undefined */
    printf("%d\n", x);
    return 0;
}
"""


def sanitizer_flags(sanitize):
    """The -f…sanitize… flags `make SANITIZE=…` compiles the client with,
    read from the compile line make would run."""
    build = "build/san-" + sanitize.replace(",", "-")
    r = subprocess.run(["make", "-n", "-B", "-C", str(ROOT),
                        f"SANITIZE={sanitize}",
                        f"{build}/client/codec/cdr.o"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines()
                if "-c client/codec/cdr.c" in l)
    return [w for w in shlex.split(line)
            if re.match(r"-f(no-)?(sanitize|omit-frame-pointer)", w)]


def test_ubsan_report_fails_the_sanitized_run(tmp_path):
    """UBSan prints a report and goes on by default (exit 0): a test of the
    sanitized client would pass with undefined behaviour in it. Built with
    the Makefile's flags, a signed overflow must end the process."""
    flags = sanitizer_flags("address,undefined")
    assert "-fsanitize=address,undefined" in flags
    src = tmp_path / "ub.c"
    src.write_text(UB_PROGRAM)
    exe = tmp_path / "ub"
    cc = subprocess.run(["gcc", *flags, str(src), "-o", str(exe)],
                        capture_output=True, text=True, timeout=120)
    assert cc.returncode == 0, cc.stderr
    r = subprocess.run([str(exe)], capture_output=True, text=True,
                       timeout=60)
    assert "runtime error: signed integer overflow" in r.stderr
    assert r.returncode != 0, "a UBSan report left the exit status 0"


def test_every_pytest_run_lists_its_skips():
    """-rs on every pytest the Makefile runs: a test skipped for want of
    root or a cgroup controller is named with its reason in the output."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    runs = [l for l in text.splitlines() if "-m pytest" in l]
    assert len(runs) >= 2  # make test, make check-sanitizers
    for line in runs:
        assert re.search(r"-m pytest\b.*\s-r\w*s", line), line
