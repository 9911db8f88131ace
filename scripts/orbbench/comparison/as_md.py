"""A comparison as Markdown (GitHub tables)."""
import orbbench.cli as orbcli
from orbbench.comparison.parts import (
    client_table, env_lines, interference_lines, kind_tables, main_table,
    method_lines, note_lines, set_lines, steps_blocks, suite_lines, suite_table,
    unmatched_lines)


def render_md(cmps):
    env = env_lines(cmps)
    lines = ["# Comparison (A is the baseline)", ""]
    lines += [f"- {x}" for x in set_lines(cmps)]
    lines += ["", f"**{env[0]}**", ""]
    lines += [f"- {x.strip()}" if not x.startswith("Environment") else
              f"\n**{x}**\n" for x in env[1:] + unmatched_lines(cmps)]
    shead, srows = suite_table(cmps)
    if srows:
        lines += ["", "## The suite", "", orbcli.md_table(shead, srows), ""]
        lines += [f"- {x}" for x in suite_lines(cmps)]
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
        lines += ["", f"## {title}", "",
                  orbcli.md_table(khead, krows,
                                  "l" + "r" * (len(khead) - 2) + "l"), ""]
    lines += [f"- {x}" for x in method_lines(cmps) +
              interference_lines(cmps) + note_lines(cmps)]
    for title, shead, srows in steps_blocks(cmps):
        lines += ["", f"## {title}", "", orbcli.md_table(shead, srows)]
    return "\n".join(lines) + "\n"
