"""orbbench.progress's estimate, throttle and terminal lines on a clock
of our own (no timing is asserted: the clock is the test's), and
build-orb's (scripts/progress.sh); orbbench run's and run-suite's lines
of real runs: tests/e2e/test_progress.py."""
import io
import subprocess

import pytest

import orbbench.progress as orbprogress
from conftest import ROOT


def test_estimate_left_from_the_steps_and_the_current_one():
    # Nothing known yet.
    assert orbprogress.estimate_left([], 4) is None
    # Two done in 10 and 30 s: 20 s each for the other two.
    assert orbprogress.estimate_left([10, 30], 4) == 40
    # The third under way for 5 s says 25 s more: its whole is 30, the
    # mean of the three 70/3, and one step after it.
    assert orbprogress.estimate_left([10, 30], 4, 5, 25) == \
        pytest.approx(25 + 70 / 3)
    # The first under way, no step done: it alone sets the others.
    assert orbprogress.estimate_left([], 3, 10, 50) == 50 + 60 * 2
    # The last: only its own.
    assert orbprogress.estimate_left([1, 2], 3, 4, 7) == 7


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


INFO = {"v": 1, "scenario": "s", "phase": "sweep", "what": "sweep",
        "n": 313, "round_ms": 12.07, "max_ms": 100, "steps": 12,
        "probes": 0, "max_probes": 12, "elapsed_s": 30, "left_s": 40}


def test_pipe_lines_at_most_every_few_seconds():
    clock = Clock()
    out = io.StringIO()
    p = orbprogress.Progress(2, stream=out, tty=False, clock=clock, every=5)
    p.start("s")
    for t in (0, 1, 4.9, 5, 6, 9.9, 10.5, 11):
        clock.t = t
        p.sub(dict(INFO, n=int(t * 10)))
    lines = out.getvalue().splitlines()
    assert lines[0] == "[1/2] s ..."
    assert [l.split(" | ")[1].split(" ")[0] for l in lines[1:]] == \
        ["N=0", "N=50", "N=105"]
    # The step's own estimate, counted down from when it came; the
    # suite's: it and one more step of its expected whole.
    assert lines[1] == ("[1/2] s | N=0 sweep, round 12.07 of 100 ms, "
                        "12 steps, about 40.0s left; elapsed 0.0s, "
                        "about 1m20s left")


def test_terminal_two_lines_redrawn_and_counted_down():
    clock = Clock()
    out = io.StringIO()
    p = orbprogress.Progress(1, stream=out, tty=True, clock=clock)
    p.start("s")
    p.sub(dict(INFO, what="bisect", phase="search", probes=3))
    clock.t = 10
    p.tick()
    p.done("s: ok")
    frames = out.getvalue()
    assert frames == (
        "\r[1/1] s ... (elapsed 0.0s)\x1b[K"
        "\r[1/1] s ... (elapsed 0.0s, about 40.0s left)\x1b[K"
        "\n  N=313 search (bisect 3/12), round 12.07 of 100 ms, 12 steps, "
        "about 40.0s left\x1b[K"
        # tick: both lines erased, the cursor back up, redrawn
        "\r\x1b[K\x1b[A\r\x1b[K"
        "\r[1/1] s ... (elapsed 10.0s, about 30.0s left)\x1b[K"
        "\n  N=313 search (bisect 3/12), round 12.07 of 100 ms, 12 steps, "
        "about 30.0s left\x1b[K"
        "\r\x1b[K\x1b[A\r\x1b[K"
        "\r[1/1] s: ok (elapsed 10.0s)\x1b[K\n")


def test_until_verdict_says_both_ends():
    clock = Clock()
    out = io.StringIO()
    p = orbprogress.Progress(8, stream=out, tty=False, clock=clock)
    p.horizon = (4, "look 1 of 3 (after repeat 2)")
    for i in range(2):
        p.start("s")
        clock.t += 10
        p.done("s: ok")
    assert out.getvalue().splitlines()[-1] == (
        "[2/8] s: ok (elapsed 20.0s, about 20.0s left to look 1 of 3 "
        "(after repeat 2), at most 1m00s)")


def test_sub_text_escapes_what_it_shows():
    text = orbprogress.sub_text(dict(INFO, phase="x\x1b[2J", side="A"),
                                None)
    assert "\x1b" not in text and text.startswith("[A] N=313 x")


def test_progress_steps_elapsed_and_estimate():
    now = [0.0]
    out = io.StringIO()
    p = orbprogress.Progress(3, stream=out, tty=False, clock=lambda: now[0])
    p.start("a")
    now[0] = 10
    p.done("a: ok in 10s")
    p.start("b")
    now[0] = 30
    p.done("b: ok")
    assert out.getvalue().splitlines() == [
        "[1/3] a ...",
        "[1/3] a: ok in 10s (elapsed 10.0s, about 20.0s left)",
        "[2/3] b ...",
        "[2/3] b: ok (elapsed 30.0s, about 15.0s left)"]
    tty = io.StringIO()
    q = orbprogress.Progress(2, stream=tty, tty=True, clock=lambda: 0.0)
    q.start("x")
    q.note("warning")
    q.done("x: ok")
    # The note above the live line, which is drawn again under it.
    assert tty.getvalue() == ("\r[1/2] x ... (elapsed 0.0s)\x1b[K"
                              "\r\x1b[Kwarning\n"
                              "\r[1/2] x ... (elapsed 0.0s)\x1b[K"
                              "\r[1/2] x: ok (elapsed 0.0s, about 0.0s left)"
                              "\x1b[K\n")
    assert orbprogress.duration(3725) == "1h02m"


def progress_lines(script):
    """The stderr lines of bash running `script` after sourcing
    scripts/progress.sh (build-orb's progress)."""
    r = subprocess.run(["bash", "-c", f". {ROOT}/scripts/progress.sh; "
                        + script], capture_output=True, text=True,
                       timeout=30)
    return r.stderr.splitlines()


def test_build_orbs_progress_weighs_its_steps():
    assert progress_lines(
        "progress_plan 1 8 1; "
        "progress_step one; PROGRESS_T0=$((SECONDS - 10)); "
        "progress_step two; PROGRESS_T0=$((SECONDS - 90)); "
        "progress_step three") == [
        "progress: [1/3] one ... (elapsed 0s)",
        "progress: [2/3] two ... (elapsed 10s, about 1m30s left)",
        "progress: [3/3] three ... (elapsed 1m30s, about 10s left)"]


def test_build_orbs_progress_says_when_a_step_outruns_its_estimate():
    # Step one took 10 s, so step two (the same share) should take 10 s;
    # 30 s into it the line says so instead of "about 0s left".
    assert progress_lines(
        "progress_plan 1 1; "
        "progress_step one; PROGRESS_T0=$((SECONDS - 10)); "
        "progress_step two; PROGRESS_T0=$((SECONDS - 40)); "
        "PROGRESS_STEP_T0=$((SECONDS - 30)); PROGRESS_SHOWN=0; "
        "ORBBENCH_PROGRESS_EVERY=0 progress_tick") == [
        "progress: [1/2] one ... (elapsed 0s)",
        "progress: [2/2] two ... (elapsed 10s, about 10s left)",
        "progress: [2/2] two ... (elapsed 40s, longer than estimated)"]
