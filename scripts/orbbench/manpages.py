"""The man pages, written at build time from what the client prints: the
subcommand table (`orbbench help --list`), `orbbench --help`, each
subcommand's own help (`orbbench help SUB`, parted into its sections by
orbbench.helptext) and the scenario keys (`orbbench keys`), so that a page
cannot say other than --help does.

usage: python3 -m orbbench.manpages --client BIN/orbbench --out DIR [--version V]

Writes DIR/orbbench.1 and DIR/orbbench-SUB.1 for every subcommand that is
installed (not those that run from a checkout only)."""

import orbbench.helptext as orbhelp

LAYOUT = """\
The client is PREFIX/bin/orbbench; the servers and the scripts it runs for
suite, compare, report and the rest are in PREFIX/libexec/orbbench/ (in a
checkout: bin/ and scripts/), found from the client's own folder; the
shipped scenarios are in PREFIX/share/orbbench/scenarios/ (in a checkout:
scenarios/, as the examples name them), the documentation in
PREFIX/share/doc/orbbench/. Results and figures go under the working
folder (results/, plots/) unless --out says otherwise; nothing is written
into the installation."""


def escape(line):
    """One line of text as roff: backslashes, and a leading . or '."""
    line = line.replace("\\", "\\e")
    return "\\&" + line if line.startswith((".", "'")) else line


def verbatim(text):
    """Text kept as printed: no filling, no adjusting."""
    return [".nf"] + [escape(x) for x in text.rstrip("\n").split("\n")] + \
        [".fi"]


def paragraph(text):
    return [escape(" ".join(text.split()))]


def prose(paras):
    """Description paragraphs, kept as printed (the help's lists and
    command lines, and no word hyphenated or changed by filling)."""
    out = []
    for i, p in enumerate(paras):
        if i:
            out.append(".PP")
        out += verbatim(p)
    return out


def page(name, summary, version, sections):
    """A man page in section 1: [(heading, roff lines)]."""
    # .nh: no hyphenation, so that a page says the help's words whole.
    out = [f'.TH {name.upper()} 1 "" "orbbench {version}" '
           '"orbbench manual"', ".nh", ".SH NAME",
           f"{name} \\- {escape(summary)}"]
    for heading, lines in sections:
        out += [f".SH {heading}"] + lines
    return "\n".join(out) + "\n"


def see_also(names):
    return [", ".join(f"\\fB{n}\\fR(1)" for n in names)]


def main_page(client, rows, version):
    secs = orbhelp.sections(orbhelp.printed(client, "--help"))
    subs = []
    for r in rows:
        subs += [".TP", f".B {r.name}", f"{escape(r.summary)}; "
                 f"see \\fBorbbench\\-{r.name}\\fR(1)."]
    return page("orbbench", "how many CORBA servers one machine holds, "
                "and what each costs", version, [
                    ("SYNOPSIS", verbatim("\n".join(secs["usage"]))),
                    ("DESCRIPTION", prose(secs["description"])),
                    ("SUBCOMMANDS", subs),
                    ("SCENARIO KEYS", paragraph(
                        "Every key a scenario file may hold, as "
                        "orbbench keys prints them:") +
                     verbatim(orbhelp.printed(client, "keys"))),
                    ("EXIT STATUS", paragraph(" ".join(secs["exit"]))),
                    ("EXAMPLES", verbatim("\n".join(secs["examples"]))),
                    ("FILES", paragraph(LAYOUT)),
                    ("SEE ALSO", see_also(f"orbbench\\-{r.name}"
                                          for r in rows))])


def sub_page(client, row, version):
    secs = orbhelp.sections(orbhelp.printed(client, "help", row.name))
    orbhelp.check_shape(row.name, secs)
    return page(f"orbbench-{row.name}", row.summary, version, [
        ("SYNOPSIS", verbatim("\n".join(secs["usage"]))),
        ("DESCRIPTION", prose(secs["description"])),
        ("OPTIONS", verbatim("\n\n".join(secs["options"]))),
        ("EXIT STATUS", paragraph(" ".join(secs["exit"]))),
        ("EXAMPLES", verbatim("\n".join(secs["examples"]))),
        ("FILES", paragraph(LAYOUT)),
        ("SEE ALSO", see_also(["orbbench"]))])


def write(client, out, version):
    """Every installed subcommand's page, and orbbench.1, into out;
    return their paths."""
    rows = [r for r in orbhelp.table(client) if r.installed]
    pages = {"orbbench.1": main_page(client, rows, version)}
    for r in rows:
        pages[f"orbbench-{r.name}.1"] = sub_page(client, r, version)
    return orbhelp.write_files(out, pages)


def main(argv=None):
    return orbhelp.generator_main("manpages", __doc__, write, argv,
                                  version=True)


if __name__ == "__main__":
    raise SystemExit(main())
