"""The kind skeleton (client/kinds/skeleton.c.example) stays true: it
compiles with the client's warnings as errors, and it fills and comments
every field of a kind's row (struct kind_ops and its struct
scenario_kind) and of the window harness's callbacks and plan (struct
window_ops, struct window_plan), so that a field added to either
without a word in the skeleton fails here. Needs gcc and the jansson
headers, no build."""
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

CLIENT = ROOT / "client"
SKELETON = CLIENT / "kinds" / "skeleton.c.example"
CFLAGS = ["-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra",
          "-Wshadow", "-Wformat=2", "-Wstrict-prototypes",
          "-Wmissing-prototypes", "-Wno-format-truncation", "-Werror"]
FUNCTION = re.compile(r"\(\s*\*\s*(\w+)\s*\)")
PLAIN = re.compile(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?::\s*\d+\s*)?;")


def members(header, struct):
    """The member names of `struct NAME { ... };` in a header."""
    text = re.sub(r"/\*.*?\*/", "", (CLIENT / header).read_text(), flags=re.S)
    m = re.search(r"struct %s \{(.*?)\n\};" % struct, text, re.S)
    assert m, f"struct {struct} not found in {header}"
    body = m.group(1)
    names = FUNCTION.findall(body)
    # the function pointers' declarations away, then the plain members
    body = re.sub(r"[^;{}]*\(\s*\*\s*\w+\s*\)\s*\([^;]*\)\s*;", "", body)
    return names + PLAIN.findall(body)


STRUCTS = [("kinds/kind.h", "kind_ops"), ("core/scenario.h", "scenario_kind"),
           ("kinds/window.h", "window_ops"), ("kinds/window.h", "window_plan")]


@pytest.mark.parametrize("header, struct", STRUCTS)
def test_it_names_every_field(header, struct):
    text = SKELETON.read_text()
    fields = members(header, struct)
    assert len(fields) >= 4, fields
    missing = [f for f in fields
               if not re.search(r"\.%s\s*=" % re.escape(f), text)]
    assert not missing, f"{SKELETON.name} does not fill struct {struct}'s " \
        f"{missing}"


@pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")
def test_it_compiles_with_the_clients_flags(tmp_path):
    obj = tmp_path / "skeleton.o"
    r = subprocess.run(["gcc", *CFLAGS, f"-I{CLIENT}", "-x", "c", "-c",
                        str(SKELETON), "-o", str(obj)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    nm = subprocess.run(["nm", str(obj)], capture_output=True, text=True)
    assert re.search(r" [DR] kind_skeleton$", nm.stdout, re.M), nm.stdout


def test_architecture_points_to_it():
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert "client/kinds/skeleton.c.example" in text
