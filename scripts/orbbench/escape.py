"""Escaping at the edge: text from servers, IORs and result files is data,
and where it reaches a medium it is escaped for that medium and cut to a
bounded length. One function per medium:

  terminal(s)      non-printable characters as \\x1b, \\n, \\u2028 …
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

Every function cuts its input first (cut(): LIMIT characters, then a
marker saying how many were left out), so output is bounded whatever the
input. Standard library only."""
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
