"""orbbench.escape: the one bound of a name is above the longest name the
client accepts, and the Markdown, text and file-name escapers hold what
they promise: no line of its own, no HTML, no link, no code fence that
content can close, a file name of the safe characters that fits."""
import re

import pytest

import orbbench.escape as orbesc
from conftest import ROOT


def test_a_name_the_client_accepts_is_never_cut():
    h = (ROOT / "client/core/scenario.h").read_text()
    size = int(re.search(r"char name\[(\d+)\];", h).group(1))
    longest = "n" * (size - 1)
    assert orbesc.LIMIT >= size - 1
    assert orbesc.terminal(longest) == longest
    assert orbesc.md(longest) == longest


@pytest.mark.parametrize("s", [
    "x\n## forged", "x\r\n::error::y", "\u2028::warning::w", "a\x85b",
    "<img src=x onerror=1>", "[a](http://e)", "![i](http://e)", "a|b",
    "`code`", "*em*", "$x$", "# head", "1. item", "- item", "[ref]: http://e",
    "===", "> quote", "& &amp;"])
def test_md_line_makes_one_line_of_plain_text(s):
    out = orbesc.md_line(s)
    assert "\n" not in out and "\r" not in out and "\u2028" not in out
    assert "<" not in out and ">" not in out.replace("&gt;", "")
    assert not re.search(r"(?<!\\)\]\(", out)       # no link or image
    assert not re.match(r"\s*(#|[-+=]|\d+[.)]|\[)", out), out
    assert not re.search(r"(?<!\\)[`*|$]", out)


def test_md_text_keeps_prose_readable():
    s = "1.07 [1.02–1.12] slower (3 runs), max_n"
    assert orbesc.md_text(s) == s


def test_a_code_block_cannot_be_closed_by_its_content():
    text = "a\n```\n# not a heading\n````\nb"
    block = orbesc.md_code(text, "sh")
    fence = block.split("\n")[0]
    assert fence == "`````sh"
    inner = block.split("\n")[1:-1]
    assert not any(line.startswith("`" * 5) for line in inner)
    assert block.endswith("\n`````")


def test_file_names_are_safe_and_fit():
    assert orbesc.filename("../../etc/passwd", "x") == "etc-passwd"
    assert orbesc.filename(".hidden", "x") == "hidden"
    assert orbesc.filename("\n\x00", "empty") == "empty"
    a, b = orbesc.filename("y" * 300 + "a", "x"), \
        orbesc.filename("y" * 300 + "b", "x")
    assert a != b and len(a) <= orbesc.FILENAME_STEM + 9
    assert re.fullmatch(r"[A-Za-z0-9._-]+", a)


def test_text_and_figure_text_escape_line_breaks():
    assert orbesc.text("a\nb\x1b[2J") == "a\\nb\\x1b[2J"
    assert orbesc.figure_text("a$b\x07") == "a$b\\x07"
    assert orbesc.figure_text("l1\nl2") == "l1\nl2"     # the tool's lines
