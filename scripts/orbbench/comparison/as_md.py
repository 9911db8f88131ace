"""A comparison as Markdown (GitHub tables). Every text is escaped for
Markdown (orbbench.escape: md_line, md_text; tables by md_table): a name
or value from a result cannot forge a heading or a line, nor hold HTML
or a link."""
import orbbench.cli as orbcli
import orbbench.escape as orbesc
from orbbench.comparison.parts import (
    client_table, env_lines, interference_lines, kind_tables, main_table,
    method_lines, note_lines, set_lines, steps_blocks, suite_lines, suite_table,
    unmatched_lines)


def items(lines):
    """Each line a list item."""
    return [f"- {orbesc.md_line(x.strip())}" for x in lines]


def render_md(cmps):
    env = env_lines(cmps)
    lines = ["# Comparison (A is the baseline)", ""]
    lines += items(set_lines(cmps))
    lines += ["", f"**{orbesc.md_text(env[0])}**", ""]
    lines += [f"- {orbesc.md_line(x.strip())}"
              if not x.startswith("Environment") else
              f"\n**{orbesc.md_text(x)}**\n"
              for x in env[1:] + unmatched_lines(cmps)]
    shead, srows = suite_table(cmps)
    if srows:
        lines += ["", "## The suite", "", orbcli.md_table(shead, srows), ""]
        lines += items(suite_lines(cmps))
    head, rows = main_table(cmps)
    if rows:
        lines += ["", "## Per scenario", "",
                  orbcli.md_table(head, rows,
                                  "l" + "r" * (len(head) - 2) + "l"), ""]
    chead, crows = client_table(cmps)
    if crows:
        lines += ["", "## The client", "", "The caller that made the calls "
                  "(orbbench's docs/callers.md); descriptive: 95% "
                  "intervals, no verdict.", "",
                  orbcli.md_table(chead, crows, "l" + "r" * (len(chead) - 1)),
                  ""]
    for title, khead, krows in kind_tables(cmps):
        lines += ["", f"## {orbesc.md_line(title)}", "",
                  orbcli.md_table(khead, krows,
                                  "l" + "r" * (len(khead) - 2) + "l"), ""]
    lines += items(method_lines(cmps) + interference_lines(cmps) +
                   note_lines(cmps))
    for title, shead, srows in steps_blocks(cmps):
        lines += ["", f"## {orbesc.md_line(title)}", "",
                  orbcli.md_table(shead, srows)]
    return "\n".join(lines) + "\n"
