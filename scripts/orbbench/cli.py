"""What the command-line front ends (orbbench.commands.*) share: argparse
whose errors are one line, one-line failures and notes on stderr, the
error a result of an unexpected shape raises, and text and markdown
tables. Standard library only."""
import argparse
import sys

import orbbench.escape as orbesc

# One message line at most this long: names in it are data.
MESSAGE_LIMIT = 2000


def text_table(head, rows):
    """Aligned columns: the first left, the rest right."""
    cells = [list(map(str, head))] + [list(map(str, r)) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = []
    for r in cells:
        parts = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def md_table(head, rows, align=None):
    """A GitHub markdown table; align is 'l' or 'r' per column (default:
    the first left, the rest right)."""
    def line(r):
        cells = (str(c).replace("|", "\\|") for c in r)
        return "| " + " | ".join(cells) + " |"
    align = align or "l" + "r" * (len(head) - 1)
    rule = "|" + "".join("---:|" if a == "r" else "---|" for a in align)
    return "\n".join([line(head), rule] + [line(r) for r in rows])


class ArgParser(argparse.ArgumentParser):
    """argparse whose errors are one line, 'prog: message', exit 2."""

    def error(self, message):
        fail(self.prog, message)


def fail(prog, msg, code=2):
    """Print 'prog: msg' on stderr, one line (escaped, bounded), and exit
    with code."""
    print(f"{prog}: {orbesc.terminal(msg, MESSAGE_LIMIT)}", file=sys.stderr)
    sys.exit(code)


# What reading a result of an unexpected shape raises past check_shape.
SHAPE_ERRORS = (KeyError, TypeError, AttributeError, IndexError)


def shape_error(paths, e):
    """One line for a SHAPE_ERRORS exception, naming the inputs."""
    return (f"{', '.join(map(str, paths))}: a result field has an "
            f"unexpected shape ({type(e).__name__}: {e})")


def note(prog, msg):
    """A one-line message on stderr (skipped figures, what was written),
    escaped and bounded."""
    print(f"{prog}: {orbesc.terminal(msg, MESSAGE_LIMIT)}", file=sys.stderr)
