"""What the command-line front ends (orbbench.commands.*) share: argparse
whose errors are one line, one-line failures and notes on stderr, the
error a result of an unexpected shape raises, and text and markdown
tables. Standard library only."""
import argparse
import re
import sys
import textwrap

import orbbench
import orbbench.escape as orbesc

# One message line at most this long: names in it are data.
MESSAGE_LIMIT = 2000


def text_table(head, rows, align=None):
    """Aligned columns; align is 'l' or 'r' per column (default: the
    first left, the rest right), as md_table's; every cell's
    non-printables escaped (orbbench.escape.text: a name cannot break its
    row)."""
    cells = [[orbesc.text(c) for c in head]] + [
        [orbesc.text(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    align = align or "l" + "r" * (len(head) - 1)
    lines = []
    for r in cells:
        parts = [c.ljust(w) if a == "l" else c.rjust(w)
                 for c, w, a in zip(r, widths, align)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def md_table(head, rows, align=None):
    """A GitHub markdown table; align is 'l' or 'r' per column (default:
    the first left, the rest right). Every cell is text, escaped for
    Markdown (orbbench.escape.md_text: no cell can end its row, open a
    link or hold HTML)."""
    def line(r):
        cells = (orbesc.md_text(c) for c in r)
        return "| " + " | ".join(cells) + " |"
    align = align or "l" + "r" * (len(head) - 1)
    rule = "|" + "".join("---:|" if a == "r" else "---|" for a in align)
    return "\n".join([line(head), rule] + [line(r) for r in rows])


def distance(a, b):
    """The edit distance of two names: insertions, deletions,
    substitutions and swaps of two neighbours, each 1 (optimal string
    alignment), as client/core/suggest.c counts it."""
    before, prev = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            d = min(prev[j - 1] + (a[i - 1] != b[j - 1]), prev[j] + 1,
                    cur[j - 1] + 1)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and \
                    a[i - 2] == b[j - 1]:
                d = min(d, before[j - 2] + 1)
            cur[j] = d
        before, prev = prev, cur
    return prev[len(b)]


def nearest(word, names):
    """"Did you mean": the name nearest to a mistyped word, or None; the
    rule of client/core/suggest.c (the C twin): within 1 edit for words of
    up to 4 characters, else 2; the first of equals in the order given;
    never the word itself."""
    limit = 1 if len(word) <= 4 else 2
    best, best_d = None, limit + 1
    for n in names:
        if n != word and (d := distance(word, n)) < best_d:
            best, best_d = n, d
    return best


class ArgParser(argparse.ArgumentParser):
    """argparse whose errors are one line, exit 2. For `orbbench SUB`
    (sub given): its usage names `orbbench SUB`, its errors are headed
    'orbbench: SUB:', and an unknown option names the nearest known one
    and `orbbench help SUB`; without sub, 'prog: message'."""

    def __init__(self, *args, sub=None, **kwargs):
        self.sub = sub
        if sub:
            kwargs.setdefault("prog", f"orbbench {sub}")
        super().__init__(*args, **kwargs)

    def error(self, message):
        fail(f"orbbench: {self.sub}" if self.sub else self.prog, message)

    def parse_args(self, args=None, namespace=None):
        a, extra = self.parse_known_args(args, namespace)
        if extra:
            self.error(self.unknown(extra[0]))
        return a

    def unknown(self, word):
        """The message for the first word no argument took."""
        see = f" (see orbbench help {self.sub})" if self.sub else ""
        if not word.startswith("--"):
            what = "option" if word.startswith("-") and word != "-" \
                else "argument"
            return f'unexpected {what} "{word}"{see}'
        name = word.split("=", 1)[0]
        longs = [o for a in self._actions for o in a.option_strings
                 if o.startswith("--")]
        best = nearest(name[2:], [o[2:] for o in longs])
        hint = f'; did you mean "--{best}"?' if best else ""
        return f'unknown option "{name}"{hint}{see}'


EXIT = re.compile(r"(?:^|(?<=\s))Exit: (.+?)(?:\n\n|\Z)", re.S)


def parser(sub, doc, examples, raw=False):
    """The ArgParser of `orbbench SUB`, its help in the one shape of every
    orbbench help (client/subcmd.c: usage, description, options, exit,
    examples), from its module's docstring: the paragraph that starts
    with "usage: orbbench SUB" is the usage; the first paragraph the
    description (raw: every paragraph but the usage, as written); the
    sentence that starts "Exit: " the exit codes; then examples, command
    lines."""
    paras = doc.strip("\n").split("\n\n")
    usage = next(p for p in paras if p.startswith(f"usage: orbbench {sub}"))
    m = EXIT.search(doc)
    if not m:
        raise ValueError(f"orbbench {sub}: its docstring has no 'Exit: '")
    codes = " ".join(m.group(1).split())
    if raw:
        text = "\n\n".join(p for p in paras if p is not usage)
        description = re.sub(r"[ \t]+\n", "\n",
                             EXIT.sub("\n\n", text)).strip()
    else:
        description = paras[0]
    epilog = (textwrap.fill(codes, 78, initial_indent="exit: ",
                            subsequent_indent="      ") +
              "\n\nexamples:\n" + "\n".join(f"  {e}" for e in examples))
    return ArgParser(sub=sub, usage=usage[len("usage: "):],
                     description=description, epilog=epilog,
                     formatter_class=argparse.RawTextHelpFormatter if raw
                     else argparse.RawDescriptionHelpFormatter)


def prog(script):
    """The head of a command's messages: "orbbench: SUB" when the front
    door ran it (`orbbench suite`), else its script's name (`run-suite`
    in a checkout)."""
    return f"orbbench: {orbbench.FRONT}" if orbbench.FRONT else script


def fail(prog, msg, code=2):
    """Print 'prog: msg' on stderr, one line (escaped, bounded), and exit
    with code."""
    print(f"{prog}: {orbesc.terminal(msg, MESSAGE_LIMIT)}", file=sys.stderr)
    sys.exit(code)


# What reading a result of an unexpected shape raises past check_shape
# (and arithmetic on values no run gives): one line, exit 2, never a
# traceback.
SHAPE_ERRORS = (KeyError, TypeError, AttributeError, IndexError,
                ArithmeticError)


def shape_error(paths, e):
    """One line for a SHAPE_ERRORS exception, naming the inputs."""
    return (f"{', '.join(map(str, paths))}: a result field has an "
            f"unexpected shape ({type(e).__name__}: {e})")


def note(prog, msg):
    """A one-line message on stderr (skipped figures, what was written),
    escaped and bounded."""
    print(f"{prog}: {orbesc.terminal(msg, MESSAGE_LIMIT)}", file=sys.stderr)
