"""Progress of long work (suite, fleet; build-orb's bash has its own
step()): step i of n, the time elapsed and an estimate of what is left
(the mean time of the steps done, times the steps to go), on stderr. On a
terminal the step under way is one line rewritten in place and each
finished step stays as a line; elsewhere (a log, a pipe, a fleet host's
captured output) one line per event, each starting "[i/n]", a step's
start ending in "..." and its end carrying the timing.
Standard library only."""
import sys
import time


def duration(s):
    """'42.0s', '3m05s', '1h02m'."""
    if s < 60:
        return f"{s:.1f}s"
    if s < 3600:
        return f"{int(s // 60)}m{int(s % 60):02d}s"
    return f"{int(s // 3600)}h{int(s % 3600 // 60):02d}m"


class Progress:
    """Steps 1..total; start() before each, done() after it."""

    def __init__(self, total, stream=None, tty=None, clock=time.monotonic):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.t0 = clock()
        self.step = 0
        self.finished = 0
        self.live = False

    def tag(self):
        return f"[{self.step}/{self.total}]"

    def timing(self):
        """'elapsed 1m02s, about 3m06s left' (no estimate before the first
        step is done)."""
        spent = self.clock() - self.t0
        text = f"elapsed {duration(spent)}"
        if 0 < self.finished < self.total:
            left = spent / self.finished * (self.total - self.finished)
            text += f", about {duration(left)} left"
        return text

    def _write(self, line, transient):
        if self.tty:
            # \r and erase-to-end: the step under way's line is replaced.
            self.stream.write("\r" + line + "\x1b[K" + ("" if transient
                                                         else "\n"))
        else:
            self.stream.write(line + "\n")
        self.live = transient and self.tty
        self.stream.flush()

    def start(self, label, step=None):
        """Step `step` (default: the next) begins: "[i/n] label ...", and
        on a terminal the timing after it."""
        self.step = step if step is not None else self.step + 1
        self._write(f"{self.tag()} {label} ..." +
                    (f" ({self.timing()})" if self.tty else ""), True)

    def done(self, text):
        """The step under way ended: text says how ('sync-unix: max
        servers 1000 (latency) in 31.2s')."""
        self.finished += 1
        self._write(f"{self.tag()} {text} ({self.timing()})", False)

    def note(self, line):
        """A line of its own, not a step (a warning), kept above the
        live line."""
        if self.live:
            self.stream.write("\r\x1b[K")
        self.stream.write(line + "\n")
        self.stream.flush()
        self.live = False
