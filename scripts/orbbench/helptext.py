"""What the client says about itself, read for the man pages and the
shell completion (orbbench.manpages, orbbench.completion): the subcommand
table (`orbbench help --list`), each help parted into the sections of the
one shape every orbbench help has (client/subcmd.c: usage, description,
options, exit, examples), the options a help lists, and the scenario keys
(`orbbench keys`). Standard library only."""
import argparse
import collections
import os
import re
import subprocess
from pathlib import Path

# One row of the subcommand table (client/subcmd.c SUBCMDS).
Row = collections.namedtuple("Row", "name exe installed summary")

# A paragraph whose first line starts so is that section's; any other
# paragraph is description. Both argparse option groups are options.
HEADINGS = (("usage:", "usage"), ("positional arguments:", "options"),
            ("options:", "options"), ("subcommands:", "subcommands"),
            ("exit:", "exit"), ("examples:", "examples"))
# What a subcommand's help must have.
REQUIRED = ("usage", "description", "options", "exit", "examples")
# An option's name in the left column of an options line.
OPTION = re.compile(r"(?:^|[\s,|\[])(--?[A-Za-z0-9][\w-]*)")


def printed(client, *args):
    """What `client ARGS` prints on standard output (80 columns); exit 2
    naming the command when it fails."""
    env = dict(os.environ, COLUMNS="80")
    r = subprocess.run([str(client), *args], capture_output=True, text=True,
                       env=env, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"helptext: {client} {' '.join(args)}: exit "
                         f"{r.returncode}: {r.stderr.strip()}")
    return r.stdout


def table(client):
    """[Row] of `orbbench help --list`, in its order."""
    rows = []
    for line in printed(client, "help", "--list").splitlines():
        name, exe, where, summary = line.split("\t")
        rows.append(Row(name, None if exe == "-" else exe,
                        where == "installed", summary))
    return rows


def sections(text):
    """{section: [paragraph]} of a help, each paragraph's lines as
    printed but for its heading: "usage: " is cut from the first usage
    line (and as many columns from the rest), a heading line alone
    ("options:") is dropped, "exit: " is cut with its indent."""
    out = collections.defaultdict(list)
    for para in re.split(r"\n[ \t]*\n", text.strip("\n")):
        lines = para.split("\n")
        name = next((s for h, s in HEADINGS if lines[0].startswith(h)),
                    "description")
        if name == "usage":
            cut = len("usage: ")
            lines = [lines[0][cut:]] + [x[cut:] if x[:cut].isspace() else
                                        x.strip() for x in lines[1:]]
        elif name == "exit":
            lines = [" ".join(para[len("exit:"):].split())]
        elif name != "description":
            lines = lines[1:] if lines[0].rstrip().endswith(":") else lines
        out[name].append("\n".join(lines))
    return dict(out)


def check_shape(name, secs):
    """Exit 2 naming the subcommand when its help lacks a section."""
    missing = [s for s in REQUIRED if s not in secs]
    if missing:
        raise SystemExit(f"helptext: orbbench help {name}: no "
                         f"{', '.join(missing)} (client/subcmd.c says "
                         f"what every help holds)")


def options(secs):
    """The options an help's options section lists, in order, once."""
    seen = []
    for para in secs.get("options", []):
        for line in para.split("\n"):
            if not re.match(r"^ {1,4}-", line):
                continue
            left = re.split(r"\s{2,}", line.strip())[0]
            for opt in OPTION.findall(" " + left):
                if opt not in seen:
                    seen.append(opt)
    return seen


def keys(client):
    """[(key, [choices])] of `orbbench keys` (choices empty but for a
    key of type choice)."""
    out = []
    for line in printed(client, "keys").splitlines():
        m = re.match(r"^  (\S+) +(\S+) +(.*)$", line)
        if not m:
            continue
        key, kind, rest = m.groups()
        choices = rest.split(" default")[0].split("|") \
            if kind == "choice" else []
        out.append((key, choices))
    return out


def write_files(out, texts):
    """Each {file name: text} into folder out (made if need be), UTF-8;
    their paths, in order."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
        paths.append(out / name)
    return paths


def generator_main(prog, doc, write, argv, version=False):
    """The command line of a build-time generator (manpages, completion):
    --client PATH, --out DIR (and --version V): write(client, out[,
    version]); exit 0."""
    p = argparse.ArgumentParser(prog=prog, description=doc)
    p.add_argument("--client", required=True, type=Path)
    p.add_argument("--out", required=True, type=Path)
    if version:
        p.add_argument("--version", default="0.0.0")
    a = p.parse_args(argv)
    write(a.client, a.out, *([a.version] if version else []))
    return 0

