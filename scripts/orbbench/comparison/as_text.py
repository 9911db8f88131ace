"""A comparison as text: the tables and the lines for a terminal. Every
line and table cell is escaped (orbbench.escape.text): a name from a
result cannot break its line; compare guards the whole text's line
starts (orbbench.escape.guard_lines)."""
import orbbench.cli as orbcli
import orbbench.escape as orbesc
from orbbench.comparison.parts import (
    client_table, env_lines, interference_lines, kind_tables, main_table,
    method_lines, note_lines, set_lines, steps_blocks, suite_lines, suite_table,
    unmatched_lines)


def escaped(lines):
    return [orbesc.text(x) for x in lines]


def render_text(cmps):
    lines = escaped(set_lines(cmps)) + [""]
    lines += escaped(env_lines(cmps) + unmatched_lines(cmps))
    shead, srows = suite_table(cmps)
    if srows:
        lines += ["", "The suite:", "", orbcli.text_table(shead, srows), ""]
        lines += escaped(suite_lines(cmps))
    head, rows = main_table(cmps)
    if rows:
        lines += ["", "Per scenario:", "", orbcli.text_table(head, rows), ""]
    chead, crows = client_table(cmps)
    if crows:
        lines += ["", "The client (the caller that made the calls, "
                  "docs/callers.md; descriptive, 95% intervals):", "",
                  orbcli.text_table(chead, crows), ""]
    for title, khead, krows in kind_tables(cmps):
        lines += ["", f"{orbesc.text(title)}:", "",
                  orbcli.text_table(khead, krows), ""]
    lines += escaped(method_lines(cmps) + interference_lines(cmps))
    notes = note_lines(cmps)
    if notes:
        lines += ["Notes:"] + [f"  {orbesc.text(n)}" for n in notes]
    for title, shead, srows in steps_blocks(cmps):
        lines += ["", f"{orbesc.text(title)} (median over runs):", "",
                  orbcli.text_table(shead, srows)]
    return "\n".join(lines) + "\n"
