"""What scripts/run-fleet (on this machine) and scripts/fleet-host (on
each host) share: the line protocol between them over pdsh, what makes two
orbbench trees the same (a fingerprint of the sources, the scenario files'
hashes), and where a fleet run keeps its files on a host. Standard library
only: it runs on every host."""
import fnmatch
import hashlib
import json
import re
from pathlib import Path

# A message from fleet-host is one line "orbbench-fleet {JSON}" on its
# standard output (pdsh puts "HOST: " in front); a line of a results
# archive (base64) is "orbbench-fleet-data CHUNK".
PREFIX = "orbbench-fleet"
DATA = "orbbench-fleet-data"

# The remote command's exit codes for a host without the tree, or with a
# tree that has no scripts/fleet-host (not an orbbench tree, or one older
# than the fleet): run-fleet turns them into a reason.
EXIT_NO_TREE = 97
EXIT_NO_HELPER = 98

# What a run's behaviour depends on: the client's and servers' sources,
# the Makefile that builds them, and the scripts that run them. Docs,
# tests and results may differ between hosts; scenario files are checked
# one by one (scenario_hashes).
SOURCES = ("Makefile", "client", "servers", "idl", "scripts")
SKIP_DIRS = {"__pycache__"}
SKIP_SUFFIXES = (".pyc",)

# A host name becomes a folder name on the host and here.
HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

# Where a fleet run keeps its files on a host, under the tree:
# results/fleet/RUN/HOST/ (the suite's folder), HOST.log, HOST.pid.json.
HOST_RESULTS = Path("results") / "fleet"


def message(event, **fields):
    """The protocol line of one message."""
    return f"{PREFIX} " + json.dumps(dict(event=event, **fields))


def parse_message(text):
    """The dict of a protocol line, or None for any other line."""
    if not text.startswith(PREFIX + " "):
        return None
    try:
        doc = json.loads(text[len(PREFIX) + 1:])
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and "event" in doc else None


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def source_files(root):
    """The files of SOURCES under root, as sorted relative paths."""
    root = Path(root)
    out = []
    for part in SOURCES:
        p = root / part
        if p.is_file():
            out.append(part)
        elif p.is_dir():
            for f in p.rglob("*"):
                rel = f.relative_to(root)
                if (f.is_file() and not SKIP_DIRS & set(rel.parts) and
                        not f.name.endswith(SKIP_SUFFIXES)):
                    out.append(rel.as_posix())
    return sorted(out)


def source_hashes(root):
    """{relative path: sha256} of the source files under root."""
    return {rel: sha256_file(Path(root) / rel) for rel in source_files(root)}


def fingerprint(hashes):
    """One sha256 over source_hashes: equal for two trees whose sources
    are the same byte for byte, whether git checkouts, copies or unpacked
    archives."""
    h = hashlib.sha256()
    for rel in sorted(hashes):
        h.update(f"{rel}\0{hashes[rel]}\n".encode())
    return h.hexdigest()


def differing_files(mine, theirs):
    """[(path, "changed" | "missing" | "extra")] between two
    source_hashes, by path ("missing": in mine, not in theirs)."""
    out = [(p, "changed") for p in mine if p in theirs and
           mine[p] != theirs[p]]
    out += [(p, "missing") for p in mine if p not in theirs]
    out += [(p, "extra") for p in theirs if p not in mine]
    return sorted(out)


def select_scenarios(suite_dir, only):
    """The scenario files orbbench suite runs from suite_dir with these --only
    globs (the file name without .json matched), sorted."""
    files = sorted(Path(suite_dir).glob("*.json"))
    if only:
        files = [f for f in files
                 if any(fnmatch.fnmatchcase(f.stem, g) for g in only)]
    return files


def scenario_hashes(suite_dir, only):
    """{file name: sha256} of the scenarios selected."""
    return {f.name: sha256_file(f) for f in select_scenarios(suite_dir,
                                                             only)}
