"""Progress of long work (suite, fleet; build-orb's bash has its own,
scripts/progress.sh): step i of n, the time elapsed and an estimate of
what is left, on stderr.

The estimate: without word from inside the step, the mean time of the
steps done times the steps to go. With it (sub(): orbbench run's
--progress-fd lines, its own estimate of what is left of the scenario,
from the sweep's growth and the search's budget), the step's own
estimate, plus the steps to go at the mean of the steps done and this
step's expected whole (estimate_left()).

On a terminal the step under way is one line rewritten in place, and the
step's own line under it (N, phase, round time, steps, its estimate),
both redrawn each second as the estimates count down; each finished step
stays as a line. Elsewhere (a log, a pipe, a fleet host's captured
output) one line per event, each starting "[i/n]": a step's start ending
in "...", its end carrying the timing, and between them the step's own
lines, "[i/n] LABEL | N=313 sweep, ...", at most one every EVERY_S
seconds (ORBBENCH_PROGRESS_EVERY in the environment). Standard library
only."""
import os
import sys
import threading
import time

import orbbench.escape as orbescape

# A pipe gets a step's own line at most this often (seconds).
EVERY_S = 5.0


def every_s():
    """ORBBENCH_PROGRESS_EVERY (seconds, 0: every line), else EVERY_S."""
    v = os.environ.get("ORBBENCH_PROGRESS_EVERY", "")
    try:
        return max(0.0, float(v)) if v else EVERY_S
    except ValueError:
        return EVERY_S


def duration(s):
    """'42.0s', '3m05s', '1h02m'."""
    if s < 60:
        return f"{s:.1f}s"
    if s < 3600:
        return f"{int(s // 60)}m{int(s % 60):02d}s"
    return f"{int(s // 3600)}h{int(s % 3600 // 60):02d}m"


def estimate_left(durations, total, elapsed=None, left=None):
    """Seconds left of `total` steps, of which len(durations) are done
    (each took its duration), the next under way for `elapsed` seconds
    with its own estimate `left` (None: none). The steps after it each
    take the mean of the steps done and this one's expected whole
    (elapsed + left). None when nothing is known yet."""
    done = len(durations)
    if left is None:
        return None if done == 0 else \
            sum(durations) / done * max(0, total - done)
    mean = (sum(durations) + elapsed + left) / (done + 1)
    return left + mean * max(0, total - done - 1)


def sub_text(info, left):
    """A step's own line from orbbench run's progress line (a dict,
    docs/usage.md#progress): "N=313 sweep, round 12.07 of 100 ms, 12
    steps, about 40.0s left"; left is its estimate counted down."""
    def num(key, default=0):
        v = info.get(key)
        return v if isinstance(v, (int, float)) and \
            not isinstance(v, bool) else default
    phase = orbescape.terminal(str(info.get("phase", "?")), 20)
    head = f"N={num('n'):.0f} {phase}" if num("n", -1) >= 0 else phase
    what = info.get("what")
    if isinstance(what, str) and info.get("phase") != "sweep":
        head += (f" ({orbescape.terminal(what, 20)} {num('probes'):.0f}/"
                 f"{num('max_probes'):.0f})")
    if info.get("side"):
        head = f"[{orbescape.terminal(str(info['side']), 4)}] " + head
    parts = [head]
    unit = info.get("unit")
    if isinstance(unit, str):
        # A kind that counts repeats, events, calls: "3/5 repeats".
        parts.append(f"{num('done'):.0f}/{num('total'):.0f} "
                     f"{orbescape.terminal(unit, 20)}s")
    elif num("max_ms") > 0:
        parts.append(f"round {num('round_ms'):.2f} of {num('max_ms'):g} ms")
    else:
        parts.append(f"round {num('round_ms'):.2f} ms")
    if not isinstance(unit, str):
        steps = num("steps")
        parts.append(f"{steps:.0f} step{'' if steps == 1 else 's'}")
    if isinstance(info.get("extra"), str):
        parts.append(orbescape.terminal(info["extra"], 60))
    if left is not None:
        parts.append(f"about {duration(left)} left")
    return ", ".join(parts)


class Progress:
    """Steps 1..total; start() before each, done() after it, and between
    them sub() with the step's own progress. Safe to call from a reader
    thread (sub, tick) while the main thread starts and ends steps."""

    def __init__(self, total, stream=None, tty=None, clock=time.monotonic,
                 every=None):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.every = every_s() if every is None else every
        self.t0 = clock()
        self.step = 0
        self.finished = 0
        self.durations = []
        self.live = 0          # lines of ours on screen to rewrite
        self.label = ""
        self.step_t0 = None
        self.info = None       # the step's last own progress
        self.info_t = None     # when it came
        self.text = None       # or its line as text (a fleet host's)
        self.printed_t = None  # a pipe: when a step's own line was last
        # --until-verdict: (steps, "look 1 of 6"): the next point where
        # the work may stop, for a second estimate.
        self.horizon = None
        self.lock = threading.RLock()

    def tag(self):
        return f"[{self.step}/{self.total}]"

    def _step_left(self):
        """The step under way's own estimate, counted down since it came;
        None without one."""
        if not self.info or self.info.get("left_s") is None:
            return None
        try:
            left = float(self.info["left_s"])
        except (TypeError, ValueError):
            return None
        return max(0.0, left - (self.clock() - self.info_t))

    def _left(self, total):
        """What is left of the first `total` steps, or None."""
        now = self.clock()
        step_left = self._step_left()
        if step_left is not None and self.step_t0 is not None and \
                self.finished < total:
            return estimate_left(self.durations, total,
                                 now - self.step_t0, step_left)
        if not 0 < self.finished < total:
            return None
        # No word from inside the step: the old rule, everything spent
        # (the step under way too) over the steps done.
        spent = now - self.t0
        return spent / self.finished * (total - self.finished)

    def timing(self):
        """'elapsed 1m02s, about 3m06s left' (no estimate before the first
        step is done, or the step's own first word); with a horizon,
        'about 2m left to look 1 of 6, at most 9m'."""
        spent = self.clock() - self.t0
        text = f"elapsed {duration(spent)}"
        left = self._left(self.total)
        if self.horizon and self.horizon[0] < self.total:
            near = self._left(self.horizon[0])
            if near is not None:
                text += f", about {duration(near)} left to {self.horizon[1]}"
                if left is not None:
                    text += f", at most {duration(left)}"
                return text
        if left is not None and self.finished < self.total:
            text += f", about {duration(left)} left"
        return text

    def _clear(self):
        """Erase our live lines (a terminal), the cursor at the first."""
        if self.live == 2:
            self.stream.write("\r\x1b[K\x1b[A\r\x1b[K")
        elif self.live == 1:
            self.stream.write("\r\x1b[K")
        self.live = 0

    def _sub_line(self):
        if self.text is not None:
            return self.text
        if self.info is not None:
            return sub_text(self.info, self._step_left())
        return None

    def _draw(self):
        """A terminal: the step's line, and its own line under it (one
        line is rewritten from its start; two are erased first)."""
        if self.live == 2:
            self._clear()
        line = f"{self.tag()} {self.label} ... ({self.timing()})"
        sub = self._sub_line()
        self.stream.write("\r" + self._fit(line) + "\x1b[K")
        self.live = 1
        if sub is not None:
            self.stream.write("\n" + self._fit("  " + sub) + "\x1b[K")
            self.live = 2
        self.stream.flush()

    def _fit(self, line):
        """A live line cut to the terminal's width: one that wrapped
        would leave its first part behind at every redraw."""
        try:
            width = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return line
        return line if len(line) < width else line[:max(1, width - 2)] + "…"

    def start(self, label, step=None):
        """Step `step` (default: the next) begins: "[i/n] label ...", and
        on a terminal the timing after it."""
        with self.lock:
            self.step = step if step is not None else self.step + 1
            self.label = label
            self.step_t0 = self.clock()
            self.info = self.text = self.printed_t = None
            if self.tty:
                self._draw()
            else:
                self.stream.write(f"{self.tag()} {label} ...\n")
                self.stream.flush()

    def sub(self, info=None, text=None):
        """The step under way's own progress: a progress line of orbbench
        run (a dict), or a line of text (a fleet host's). A terminal
        redraws; a pipe gets a line at most every self.every seconds."""
        with self.lock:
            if self.step_t0 is None:
                return
            now = self.clock()
            if info is not None:
                self.info, self.info_t, self.text = info, now, None
            else:
                self.text = text
            if self.tty:
                self._draw()
            elif self.printed_t is None or \
                    now - self.printed_t >= self.every:
                self.printed_t = now
                self.stream.write(f"{self.tag()} {self.label} | "
                                  f"{self._sub_line()}; {self.timing()}\n")
                self.stream.flush()

    def tick(self):
        """A second passed: a terminal's estimates count down."""
        with self.lock:
            if self.tty and self.step_t0 is not None:
                self._draw()

    def done(self, text):
        """The step under way ended: text says how ('sync-unix: max
        servers 1000 (latency) in 31.2s')."""
        with self.lock:
            if self.step_t0 is not None:
                self.durations.append(self.clock() - self.step_t0)
            self.finished += 1
            self.step_t0 = None
            self.info = self.text = None
            line = f"{self.tag()} {text} ({self.timing()})"
            if self.tty:
                if self.live == 2:
                    self._clear()
                self.stream.write("\r" + line + "\x1b[K\n")
                self.live = 0
            else:
                self.stream.write(line + "\n")
            self.stream.flush()

    def note(self, line):
        """A line of its own, not a step (a warning), kept above the
        live lines."""
        with self.lock:
            live = self.live
            self._clear()
            self.stream.write(line + "\n")
            self.stream.flush()
            if live and self.step_t0 is not None:
                self._draw()



class ChildProgress:
    """orbbench run's progress lines (--progress-fd: one JSON object a
    line, docs/usage.md#progress), read from a pipe in a thread and given
    to progress.sub(); between them, progress.tick() each second. The
    thread starts after the fork (started()): a thread running while a
    child forks could hold a lock the child's preexec_fn then waits for.

        child = ChildProgress(progress)
        procs.run(args + child.args(), pass_fds=child.pass_fds(),
                  started=child.started)
        child.close()
    """

    def __init__(self, progress, tick_s=1.0):
        self.progress = progress
        self.tick_s = tick_s
        self.r, self.w = os.pipe()
        self.stop = threading.Event()
        self.thread = None

    def args(self):
        return ["--progress-fd", str(self.w)]

    def pass_fds(self):
        return (self.w,)

    def started(self, proc=None):
        """The child has its end: close ours, so that the pipe ends with
        the child, and start reading."""
        os.close(self.w)
        self.w = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        import json
        import select
        buf = b""
        while not self.stop.is_set():
            ready, _, _ = select.select([self.r], [], [], self.tick_s)
            if not ready:
                self.progress.tick()
                continue
            chunk = os.read(self.r, 65536)
            if not chunk:
                break
            *lines, buf = (buf + chunk).split(b"\n")
            buf = buf[-65536:]
            for line in lines:
                try:
                    info = json.loads(line)
                except ValueError:
                    continue  # not a line of ours: never a reason to stop
                if isinstance(info, dict):
                    self.progress.sub(info)

    def close(self):
        """The child ended: read what it left in the pipe, to the end
        (every writer gone: the client sets its end close-on-exec, so no
        server holds it), or stop after DRAIN_S; close the pipe."""
        if self.w is not None:
            os.close(self.w)
            self.w = None
        if self.thread:
            self.thread.join(self.DRAIN_S)
        self.stop.set()
        if self.thread:
            self.thread.join()
        os.close(self.r)

    DRAIN_S = 2.0
