"""A comparison as text: the tables and the lines for a terminal."""
import orbbench.cli as orbcli
from orbbench.comparison.parts import (
    client_table, env_lines, interference_lines, kind_tables, main_table,
    method_lines, note_lines, set_lines, steps_blocks, suite_lines, suite_table,
    unmatched_lines)


def render_text(cmps):
    lines = set_lines(cmps) + [""]
    lines += env_lines(cmps) + unmatched_lines(cmps)
    shead, srows = suite_table(cmps)
    if srows:
        lines += ["", "The suite:", "", orbcli.text_table(shead, srows), ""]
        lines += suite_lines(cmps)
    head, rows = main_table(cmps)
    if rows:
        lines += ["", "Per scenario:", "", orbcli.text_table(head, rows), ""]
    chead, crows = client_table(cmps)
    if crows:
        lines += ["", "The client (the caller that made the calls, "
                  "docs/callers.md; descriptive, 95% intervals):", "",
                  orbcli.text_table(chead, crows), ""]
    for title, khead, krows in kind_tables(cmps):
        lines += ["", f"{title}:", "", orbcli.text_table(khead, krows), ""]
    lines += method_lines(cmps) + interference_lines(cmps)
    notes = note_lines(cmps)
    if notes:
        lines += ["Notes:"] + [f"  {n}" for n in notes]
    for title, shead, srows in steps_blocks(cmps):
        lines += ["", f"{title} (median over runs):", "",
                  orbcli.text_table(shead, srows)]
    return "\n".join(lines) + "\n"
