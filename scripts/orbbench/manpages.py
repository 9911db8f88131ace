"""The man pages, written at build time from what the client prints: the
subcommand table (`orbbench help --list`), `orbbench --help`, each
subcommand's own help (`orbbench help SUB`) and the scenario keys
(`orbbench keys`), so that a page cannot say other than --help does.

usage: python3 -m orbbench.manpages --client BIN/orbbench --out DIR [--version V]

Writes DIR/orbbench.1 and DIR/orbbench-SUB.1 for every subcommand."""
import argparse
import os
import subprocess
from pathlib import Path

LAYOUT = """\
The client is PREFIX/bin/orbbench; the servers and the scripts it runs for
suite, compare, report and the rest are in PREFIX/libexec/orbbench/ (in a
checkout: bin/ and scripts/), found from the client's own folder; the
shipped scenarios are in PREFIX/share/orbbench/scenarios/, the
documentation in PREFIX/share/doc/orbbench/. Results and figures go under
the working folder (results/, plots/) unless --out says otherwise; nothing
is written into the installation."""

EXIT = """\
0 success (a run that reached its stop; a comparison without regression),
1 the run failed, or compare --fail-on found a regression, 2 usage,
scenario or input error (one line naming the file or key), 130
interrupted. A script subcommand's status is the script's."""


def printed(client, *args, usage=False):
    """What `client ARGS` prints on standard output (80 columns); with
    usage, a help printed on standard error with exit 2 is taken too
    (build-orb has no --help: it prints its usage so)."""
    env = dict(os.environ, COLUMNS="80")
    r = subprocess.run([str(client), *args], capture_output=True, text=True,
                       env=env, timeout=120)
    if usage and r.returncode == 2 and not r.stdout and \
            r.stderr.startswith("usage:"):
        return r.stderr
    if r.returncode != 0:
        raise SystemExit(f"manpages: {client} {' '.join(args)}: exit "
                         f"{r.returncode}: {r.stderr.strip()}")
    return r.stdout


def table(client):
    """[(name, summary)] of `orbbench help --list`."""
    rows = []
    for line in printed(client, "help", "--list").splitlines():
        name, _exe, summary = line.split("\t")
        rows.append((name, summary))
    return rows


def escape(line):
    """One line of text as roff: backslashes, and a leading . or '."""
    line = line.replace("\\", "\\e")
    return "\\&" + line if line.startswith((".", "'")) else line


def verbatim(text):
    """Text kept as printed: no filling, no adjusting."""
    return [".nf"] + [escape(x) for x in text.rstrip("\n").split("\n")] + \
        [".fi"]


def page(name, summary, version, sections):
    """A man page in section 1: [(heading, roff lines)]."""
    out = [f'.TH {name.upper()} 1 "" "orbbench {version}" '
           '"orbbench manual"', ".SH NAME",
           f"{name} \\- {escape(summary)}"]
    for heading, lines in sections:
        out += [f".SH {heading}"] + lines
    return "\n".join(out) + "\n"


def paragraph(text):
    return [escape(" ".join(text.split()))]


def main_page(client, rows, version):
    subs = []
    for name, summary in rows:
        subs += [".TP", f".B {name}", f"{escape(summary)}; "
                 f"see \\fBorbbench\\-{name}\\fR(1)."]
    also = ", ".join(f"\\fBorbbench\\-{n}\\fR(1)" for n, _ in rows)
    return page("orbbench", "how many CORBA servers one machine holds, "
                "and what each costs", version, [
                    ("SYNOPSIS", verbatim(printed(client, "--help"))),
                    ("SUBCOMMANDS", subs),
                    ("SCENARIO KEYS", paragraph(
                        "Every key a scenario file may hold, as "
                        "orbbench keys prints them:") +
                     verbatim(printed(client, "keys"))),
                    ("FILES", paragraph(LAYOUT)),
                    ("EXIT STATUS", paragraph(EXIT)),
                    ("SEE ALSO", [also])])


def sub_page(client, name, summary, version):
    return page(f"orbbench-{name}", summary, version, [
        ("SYNOPSIS", [f".B orbbench {name}", "[ARGUMENTS...]"]),
        ("DESCRIPTION", paragraph(
            f"What orbbench help {name} prints:") +
         verbatim(printed(client, "help", name, usage=True))),
        ("SEE ALSO", ["\\fBorbbench\\fR(1)"])])


def write(client, out, version):
    """Every page into out; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    rows = table(client)
    pages = {"orbbench.1": main_page(client, rows, version)}
    for name, summary in rows:
        pages[f"orbbench-{name}.1"] = sub_page(client, name, summary,
                                               version)
    paths = []
    for fname, text in pages.items():
        p = out / fname
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    return paths


def main(argv=None):
    p = argparse.ArgumentParser(prog="manpages", description=__doc__)
    p.add_argument("--client", required=True, type=Path)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--version", default="0.0.0")
    a = p.parse_args(argv)
    write(a.client, a.out, a.version)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
