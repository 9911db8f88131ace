"""Escaping at the edge: text from servers, IORs and result files is data,
and where it reaches a medium it is escaped for that medium and cut to a
bounded length. One function per medium:

  terminal(s)      non-printable characters as \\x1b, \\n, \\u2028 …
  text(s)          the same for the tool's own assembled text, not cut
  gh_message(s)    a GitHub workflow command's message: % CR LF as %25
                   %0D %0A (GitHub's own escaping), then terminal()
  gh_property(s)   a workflow command's property: also : and , (%3A %2C)
  md(s)            one Markdown table cell or inline text: Markdown and
                   HTML specials backslash-escaped or as entities, no
                   line breaks, so that no name can forge a heading, a
                   link, raw HTML or a line of its own
  xml(s)           JUnit text and attributes: the characters XML 1.0
                   forbids (most C0 controls, lone surrogates, U+FFFE/F)
                   escaped as \\x.. (ElementTree escapes <>&"')
  guard_lines(t)   a whole text the tool wrote: each line terminal-safe,
                   and a line that would start with :: (a workflow
                   command the tool did not mean) prefixed with a \\
  md_text(s)       Markdown text of any length (a paragraph, a list item,
                   a table cell of md_table): the specials of Markdown and
                   HTML escaped, no line break; prose stays readable
  md_line(s)       md_text, and a line start that would open a heading, a
                   list, a quote or a rule escaped too
  md_code(t)       a fenced code block of t: a fence longer than any run
                   of backticks inside, so nothing in t can close it
  figure_text(s)   a figure's title, footer or label: cut, non-printables
                   escaped (matplotlib's mathtext is off: orbbench.plot)
  filename(s, e)   a file name's stem from a name: letters, digits, . _ -,
                   cut with a digest of the whole so two names stay two

Every function but text, md_text, md_line and md_code cuts its input first
(cut(): LIMIT characters, then a marker saying how many were left out),
so output is bounded whatever the input; those four take what the tool
itself assembled, whose parts are bounded where they are read (a
scenario's name at LIMIT by orbbench.results, any string of a result at
orbbench.safeload.MAX_STRING). LIMIT is the one bound of a name: above
the longest name the client accepts (client/core/scenario.h: a scenario
name of 127 characters; tests/py/test_escape.py checks it), so a name
the client wrote is never cut nor refused. Standard library only."""
import hashlib
import re

LIMIT = 200             # characters of one name or message shown
MARK = "…[{n} more characters cut]"


def cut(s, limit=LIMIT):
    """s, at most limit characters, then a marker saying what was cut."""
    s = str(s)
    if len(s) <= limit:
        return s
    return s[:limit] + MARK.format(n=len(s) - limit)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _esc_char(c):
    if c in _NAMED:
        return _NAMED[c]
    o = ord(c)
    if o < 0x100:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def _printable(s, keep=""):
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() or c in keep else _esc_char(c)
                   for c in s)


def terminal(s, limit=LIMIT):
    """s cut and with every non-printable character (ESC, CR, LF, C1
    controls, line and paragraph separators, lone surrogates) escaped."""
    return _printable(cut(s, limit))


def text(s):
    """A terminal's text the tool assembled (a table cell, a line): every
    non-printable but a tab escaped, so that nothing in it can break its
    line or drive the terminal; not cut (names in it were)."""
    return _printable(str(s), keep="\t")


def gh_message(s, limit=LIMIT):
    """A workflow command's message (after the second ::)."""
    s = cut(s, limit)
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _printable(s)


def gh_property(s, limit=LIMIT):
    """A workflow command's property value (title=…)."""
    return gh_message(s, limit).replace(":", "%3A").replace(",", "%2C")


# What can open a Markdown construct mid-line (emphasis, code, links,
# images, tables, autolinks, strike-through); the line-start ones (# - +
# 1.) cannot matter inside a cell, which never starts a line. Underscores
# inside words ("round_ms") emphasize nothing in GitHub's Markdown; one
# at a word's edge is escaped.
_MD_SPECIAL = re.compile(r"([\\`*{}\[\]()#!|~>]|(?<!\w)_|_(?!\w))")


def md(s, limit=LIMIT):
    """One cell or inline span of Markdown: HTML specials as entities,
    Markdown specials backslash-escaped, non-printables escaped (so no
    line break: a name stays inside its cell)."""
    s = _printable(cut(s, limit))
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    return _MD_SPECIAL.sub(r"\\\1", s)


# XML 1.0's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
# [#x10000-#x10FFFF]; anything else cannot appear even as a reference.
_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml(s, limit=LIMIT):
    """Text or an attribute value for JUnit XML: cut, the characters XML
    1.0 forbids escaped (ElementTree escapes the XML specials)."""
    s = _XML_BAD.sub(lambda m: _esc_char(m.group()), cut(s, limit))
    return _printable(s, keep="\t")  # and no line or paragraph separator


def guard_lines(text):
    """A whole text of the tool's: every line with its non-printables but
    tabs escaped, and a backslash before a line that would start with ::
    (after blanks), which GitHub would run as a workflow command."""
    out = []
    for line in text.split("\n"):
        line = _printable(line, keep="\t")
        if line.lstrip().startswith("::"):
            line = "\\" + line
        out.append(line)
    return "\n".join(out)


# ---- Markdown text, code blocks; figures; file names -------------------------

# Inside a line: what opens emphasis, code, strike-through, a table cell,
# math, or (with a bracket right before it) a link or an image; & and <
# become entities (no HTML, no autolink), > too. Parentheses and
# brackets alone stay, so that "1.07 [1.02–1.12] (3 runs)" reads as it
# is; a "](" or "][" has its bracket escaped: no link can form.
_MD_INLINE = re.compile(r"([\\`*~|$]|(?<!\w)_|_(?!\w)|\](?=[(\[]))")
# What a line may not start with: a heading, a list item, a quote, a
# setext or thematic rule, an ordered list item ("1." or "1)"), a link
# reference definition ("[x]: url").
_MD_START = re.compile(r"^(\s*\d*)((?<=\d)[.)]|(?<!\d)[#+=\-\[])")


def md_text(s):
    """s as Markdown text that renders as s: non-printables escaped (so
    no line break: it cannot start a line of its own), & < > as
    entities, Markdown's inline specials backslash-escaped. Not cut:
    the tool's own text (names in it went through cut already)."""
    s = _printable(str(s))
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_INLINE.sub(r"\\\1", s)


def md_line(s):
    """md_text(s) for a whole line (a paragraph, a heading's text, a list
    item): also a start that would make it a heading, list item or rule
    escaped."""
    return _MD_START.sub(r"\1\\\2", md_text(s), count=1)


def md_code(text, info=""):
    """A fenced code block holding text as it is: its fence one backtick
    longer than the longest run of backticks in text (at least three),
    so that no line of text can end it; non-printables but tabs escaped
    line by line."""
    lines = [_printable(line, keep="\t") for line in str(text).split("\n")]
    longest = max((len(m) for m in re.findall("`+", "\n".join(lines))),
                  default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence + info] + lines + [fence])


def figure_text(s, limit=LIMIT):
    """A title, footer or label drawn on a figure: cut, every non-printable
    escaped (one line per given line: only the tool's own line breaks)."""
    return "\n".join(_printable(cut(x, limit)) for x in str(s).split("\n"))


FILENAME_STEM = 100   # characters of a name kept in a file name


def filename(s, empty):
    """A file name's stem from a name: runs of anything but letters,
    digits, '.', '_' and '-' become '-', no dot or dash at either end
    (no hidden file, no "..", no option); `empty` when
    nothing is left. A longer stem is cut to FILENAME_STEM characters and
    given 8 hex digits of the whole name's sha256, so that it fits any
    file system's 255 bytes with a prefix and a suffix and two long names
    that share a start stay two files."""
    s = str(s)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", s).strip("-.")
    stem = stem or empty
    if len(stem) > FILENAME_STEM:
        digest = hashlib.sha256(s.encode("utf-8", "surrogatepass"))
        stem = stem[:FILENAME_STEM] + "-" + digest.hexdigest()[:8]
    return stem
