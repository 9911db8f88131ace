"""orbbench.progress's estimate, throttle and terminal lines on a clock
of our own (no timing is asserted: the clock is the test's); orbbench
run's and run-suite's lines of real runs: tests/e2e/test_progress.py."""
import io

import pytest

import orbbench.progress as orbprogress


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
