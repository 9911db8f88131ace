"""The documentation's links lead somewhere: every relative Markdown link in
README.md, docs/**/*.md and plots/README.md names a file or folder of the
tree, and an anchor (#...) names a heading of the Markdown file it points
at, by GitHub's slug rule. Also: README.md stays short enough to read.

Needs no build: it reads files only."""
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 200

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target) and ![alt](target); the target ends at the first space or ')'
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+).+?\1")


def doc_files():
    files = [ROOT / "README.md", ROOT / "plots" / "README.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    return [f for f in files if f.exists()]


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for i, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield i, line


def slug(heading):
    """GitHub's anchor for a heading's text: inline markup dropped,
    lowercase, every character but letters, digits, marks, '_', '-' and
    spaces dropped, spaces turned into '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)                         # inline HTML
    text = text.lower()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in "LNM":
            out.append("-" if ch == " " else ch)
    return "".join(out)


_anchors = {}


def anchors(path):
    """Every anchor GitHub makes for the headings of a Markdown file,
    repeats numbered -1, -2, ..."""
    if path not in _anchors:
        seen = {}
        found = set()
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = found
    return _anchors[path]


def links(path):
    """(line number, target) of every relative link in path's prose."""
    for no, line in prose_lines(path.read_text(encoding="utf-8")):
        line = INLINE_CODE.sub("", line)
        for m in LINK.finditer(line):
            target = m.group(1)
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # empty, or http:, https:, mailto:, ...
            yield no, target


def broken(path):
    """Why each broken link of path is broken."""
    bad = []
    for no, target in links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / unquote(file_part)).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}:{no}: ({target})"
        if file_part.startswith("/"):
            bad.append(f"{where}: an absolute path; links must be relative")
            continue
        if not dest.exists():
            bad.append(f"{where}: no such file {file_part}")
            continue
        if ROOT not in dest.parents and dest != ROOT:
            bad.append(f"{where}: outside the tree")
            continue
        if anchor and dest.suffix == ".md" and dest.is_file():
            if unquote(anchor) not in anchors(dest):
                bad.append(f"{where}: no heading with anchor #{anchor} "
                           f"in {dest.relative_to(ROOT)}")
    return bad


@pytest.mark.parametrize("doc", doc_files(),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_links_lead_somewhere(doc):
    bad = broken(doc)
    assert not bad, "broken links:\n" + "\n".join(bad)


def test_the_docs_are_found():
    names = {str(p.relative_to(ROOT)) for p in doc_files()}
    assert "README.md" in names
    assert any(n.startswith("docs/") for n in names), names


def test_readme_is_short():
    n = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert n <= README_MAX_LINES, \
        f"README.md has {n} lines, more than {README_MAX_LINES}: move detail into docs/"


@pytest.mark.parametrize("heading, want", [
    ("The upcall rate (`\"kind\": \"rate\"`)", "the-upcall-rate-kind-rate"),
    ("A rate run (scenario kind `rate`)", "a-rate-run-scenario-kind-rate"),
    ("Servers orbbench did not start (`server.kind` `external`)",
     "servers-orbbench-did-not-start-serverkind-external"),
    ("Set up and test", "set-up-and-test"),
    ("call_us, µs and A/B", "call_us-µs-and-ab"),
    ("[a link](x.md) here", "a-link-here"),
])
def test_slug_follows_github(heading, want):
    assert slug(heading) == want


def test_repeated_headings_are_numbered(tmp_path):
    p = tmp_path / "x.md"
    p.write_text("# Measured\n\n```\n# not a heading\n```\n## Measured\n### Measured\n")
    assert anchors(p) == {"measured", "measured-1", "measured-2"}
