"""A report as a list of blocks, and its two renderings: Markdown (figures
linked) and one self-contained HTML file (figures embedded). Shared by
the commands that write reports (report, history).

The blocks: ("h1"|"h2"|"h3"|"p", text), ("table", head, rows, align:
"l"/"r" per column), ("list", items), ("code", text), ("img", Figure),
("toc",)."""
import base64
import html
import os
import re

import orbbench.cli as orbcli
import orbbench.escape as orbesc


def figure_blocks(figures, skipped):
    """Each figure under its title with its caption, then what was not
    drawn (skipped: one line each)."""
    out = []
    for f in figures:
        out += [("h3", f.title), ("img", f), ("p", f.caption)]
    if skipped:
        out += [("p", "Not drawn:"), ("list", skipped)]
    return out


# ---- rendering ------------------------------------------------------------

def anchor(text):
    """GitHub's heading anchor: lower case, spaces to '-', most
    punctuation dropped."""
    text = re.sub(r"[^\w\- ]", "", text.lower(), flags=re.U)
    return text.replace(" ", "-")


def heading_anchors(report):
    """{id(block): anchor} of every heading, a repeated one suffixed -1,
    -2, ... as GitHub does (a report of three or more sets repeats its
    figure headings once per set)."""
    seen, out = {}, {}
    for b in report:
        if b[0] in ("h1", "h2", "h3"):
            a = anchor(b[1])
            n = seen.get(a, 0)
            seen[a] = n + 1
            out[id(b)] = a if n == 0 else f"{a}-{n}"
    return out


def toc(report):
    """[(level, text, anchor)] of the h2 and h3 headings."""
    anchors = heading_anchors(report)
    return [(int(b[0][1]), b[1], anchors[id(b)]) for b in report
            if b[0] in ("h2", "h3")]


def _link_text(text):
    """Text inside [...] of a link: md_text, and every bracket escaped."""
    return orbesc.md_text(text).replace("[", "\\[").replace("]", "\\]")


def to_markdown(report, folder):
    """report.md's text; figures are linked relative to folder, where
    report.md is written. Every text is escaped for Markdown
    (orbbench.escape: md_line, md_text, md_code): names and values from
    result files can neither forge a heading or a line of their own nor
    hold HTML or a link."""
    out = []
    for b in report:
        kind = b[0]
        if kind in ("h1", "h2", "h3"):
            out += ["#" * int(kind[1]) + " " + orbesc.md_line(b[1]), ""]
        elif kind == "toc":
            out += ["Contents:", ""] + [
                "  " * (lvl - 2) + f"- [{_link_text(t)}](#{a})"
                for lvl, t, a in toc(report)] + [""]
        elif kind == "p":
            out += [orbesc.md_line(b[1]), ""]
        elif kind == "table":
            out += [orbcli.md_table(b[1], b[2], b[3]), ""]
        elif kind == "list":
            out += [f"- {orbesc.md_line(x)}" for x in b[1]] + [""]
        elif kind == "code":
            out += [orbesc.md_code(b[1], "sh"), ""]
        elif kind == "img":
            # Only what is written with the report: the PNG (the SVG is
            # there too, for those who want to edit it). Its file name is
            # orbbench.escape.filename's: nothing to escape in the link.
            f = b[1]
            out += [f"![{_link_text(f.title)}]"
                    f"({os.path.relpath(f.png, folder)})", ""]
    return "\n".join(out)


CSS = """body{font-family:sans-serif;max-width:1240px;margin:2em auto;
padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0;
font-size:.92em}.wide{overflow-x:auto}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
.r{text-align:right;white-space:nowrap}img{max-width:100%}nav{background:#f6f6f6;
padding:.5em 1.5em;margin:1em 0}nav ul{margin:.2em 0}
pre{background:#f4f4f4;padding:1em;overflow-x:auto}"""


def html_block(b, report):
    e = html.escape
    kind = b[0]
    if kind in ("h2", "h3"):
        return (f'<{kind} id="{heading_anchors(report)[id(b)]}">'
                f'{e(b[1])}</{kind}>')
    if kind in ("h1", "p"):
        return f"<{kind}>{e(b[1])}</{kind}>"
    if kind == "toc":
        items, open_sub = [], False
        for lvl, t, a in toc(report):
            if lvl == 3 and not open_sub:
                items.append("<ul>")
                open_sub = True
            elif lvl == 2 and open_sub:
                items.append("</ul>")
                open_sub = False
            items.append(f'<li><a href="#{a}">{e(t)}</a></li>')
        if open_sub:
            items.append("</ul>")
        return "<nav><b>Contents</b><ul>" + "".join(items) + "</ul></nav>"
    if kind == "table":
        cls = [' class="r"' if a == "r" else "" for a in b[3]]
        head = "".join(f"<th{k}>{e(str(c))}</th>" for c, k in zip(b[1], cls))
        rows = "".join("<tr>" + "".join(f"<td{k}>{e(str(c))}</td>"
                                        for c, k in zip(r, cls)) + "</tr>"
                       for r in b[2])
        # Numbers do not wrap ("1119 (1030–1131)" on one line); a table
        # wider than the page scrolls instead of squeezing them.
        return f'<div class="wide"><table><tr>{head}</tr>{rows}</table></div>'
    if kind == "list":
        return "<ul>" + "".join(f"<li>{e(x)}</li>" for x in b[1]) + "</ul>"
    if kind == "code":
        return f"<pre><code>{e(b[1])}</code></pre>"
    f = b[1]
    data = base64.b64encode(f.png.read_bytes()).decode()
    return (f'<img alt="{e(f.title)}" '
            f'src="data:image/png;base64,{data}">')


def to_html(report):
    title = html.escape(report[0][1])
    body = "\n".join(html_block(b, report) for b in report)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{title}</title><style>{CSS}</style></head>\n"
            f"<body>\n{body}\n</body></html>\n")
