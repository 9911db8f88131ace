"""orbbench ior against omniORB's catior: for every IOR the tests hold
(real IORs of other ORBs in tests/fixtures/iors, IORs built here in both
byte orders and IIOP 1.0-1.2, IORs printed by live omniORB echo servers
over tcp and unix) the type id, profiles, host, port, object key and
component tags orbbench shows are the ones catior shows. Malformed input
is exit 2 with its reason."""
import json
import re
import select
import shutil
import socket
import struct
import subprocess

import pytest

from conftest import BIN, ORBBENCH, ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "iors"
CATIOR = shutil.which("catior")
TAO_UIOP = 0x54414f00  # TAO_TAG_UIOP_PROFILE
ORBIT_PROFILES = (0xbadfaeca, 0x4f425400)  # ORBit2's own, its generic one
MICO_UIOP = 20002  # MICO's TAG_UNIX_IOP
ECHO = BIN / "omniorb-echo-server"


def fixture_iors():
    """(file:line, IOR) for every IOR line of the fixture files."""
    out = []
    for path in sorted(FIXTURES.glob("*.txt")):
        for no, line in enumerate(path.read_text().splitlines(), 1):
            if line.startswith("IOR:"):
                out.append((f"{path.name}:{no}", line))
    return out


# ---- catior's text ---------------------------------------------------------

# The components catior names (all others: "Unknown component tag N").
CATIOR_TAGS = {
    "TAG_ORB_TYPE": 0, "TAG_CODE_SETS": 1, "TAG_POLICIES": 2,
    "TAG_ALTERNATE_IIOP_ADDRESS": 3, "TAG_SSL_SEC_TRANS": 20,
    "TAG_CSI_SEC_MECH_LIST": 33, "TAG_OMNIORB_BIDIR": 0x41545401,
    "TAG_OMNIORB_UNIX_TRANS": 0x41545402,
    "TAG_OMNIORB_PERSISTENT_ID": 0x41545403,
    "TAG_OMNIORB_RESTRICTED_CONNECTION": 0x41545404,
    "TAG_OMNIORB_HTTP_TRANS": 0x41545405,
}
IIOP_LINE = re.compile(r"IIOP (\d+)\.(\d+) (\S*) (\d+) 0x([0-9a-f]*)  "
                       r"\((\d+) bytes\)$")
CODESET_LINE = re.compile(r"\s*(w?char) (native code set|conversion code "
                          r"sets):\s*(.*)$")


def run_catior(ior):
    assert CATIOR, "catior not found: scripts/install-deps installs omniorb"
    return subprocess.run([CATIOR, "-x", ior], capture_output=True,
                          text=True, timeout=30)


def parse_catior(text):
    """catior -x output as {type_id, nil, profiles: [{tag, version, host,
    port, key_hex, components: [{tag, text, lines}]}]}."""
    doc = {"type_id": None, "nil": False, "profiles": []}
    prof = None

    def component(line):
        line = line.strip()
        m = re.match(r"(?:Unknown component tag|Broken component with "
                     r"tag) (\d+)$", line)
        tag = int(m.group(1)) if m else CATIOR_TAGS[line.split()[0]]
        prof["components"].append({"tag": tag, "text": line, "more": []})

    for line in text.splitlines():
        if line == "IOR is a nil object reference.":
            doc["nil"] = True
            continue
        m = re.match(r'Type ID: "(.*)"$', line)
        if m:
            doc["type_id"] = m.group(1)
            continue
        m = re.match(r"(\d+)\. (.*)$", line)
        if m:
            rest = m.group(2)
            prof = {"components": []}
            doc["profiles"].append(prof)
            mi = IIOP_LINE.match(rest)
            if mi:
                prof.update(tag=0, version=f"{mi[1]}.{mi[2]}", host=mi[3],
                            port=int(mi[4]), key_hex=mi[5])
                assert int(mi[6]) * 2 == len(mi[5])
            elif rest.startswith("Multiple Component Profile"):
                prof["tag"] = 1
                first = rest[len("Multiple Component Profile"):]
                if first.strip():
                    component(first)
            else:
                mu = re.match(r"Unrecognised profile tag: 0x([0-9a-f]+)$",
                              rest)
                assert mu, f"catior line not understood: {line!r}"
                prof["tag"] = int(mu[1], 16)
            continue
        # A component starts 6 spaces in (12 when broken); lines further
        # in continue the one before.
        if re.match(r"( {6}\S| {12}Broken )", line):
            component(line)
        elif line.strip() and prof and prof["components"]:
            prof["components"][-1]["more"].append(line)
    return doc


def catior_code_sets(comp):
    """{char: (native, [conversions]), wchar: ...} from catior's lines."""
    out = {"char": [None, []], "wchar": [None, []]}
    for line in [comp["text"].replace("TAG_CODE_SETS", "", 1)] + comp["more"]:
        m = CODESET_LINE.match(line)
        assert m, f"code sets line not understood: {line!r}"
        names = [x.strip() for x in m[3].split(",") if x.strip()]
        if m[2].startswith("native"):
            out[m[1]][0] = names[0]
        else:
            out[m[1]][1] = names
    return out


def our_code_set(cs):
    """A code set as catior names it: its name, or (0x%08x)."""
    return cs["name"] or f"({cs['id']})"


def orbbench_json(*args, stdin=None):
    p = subprocess.run([str(ORBBENCH), "ior", "--json", *args],
                       capture_output=True, text=True, timeout=30,
                       input=stdin)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def check_component(ours, theirs):
    """Where catior shows a value, orbbench shows the same one."""
    assert ours["tag"] == theirs["tag"]
    text = theirs["text"]
    name = ours.get("name")
    if text.startswith("Broken") or text.startswith("Unknown"):
        return
    if name == "TAG_ORB_TYPE":
        raw = struct.pack(">I", int(ours["orb_type"], 16))
        esc = "".join(chr(b) if 32 <= b <= 126 else f"\\x{b:02x}"
                      for b in raw)
        assert text.endswith(f"({esc})"), (text, ours)
    elif name == "TAG_CODE_SETS":
        cs = catior_code_sets(theirs)
        for half in ("char", "wchar"):
            assert cs[half][0] == our_code_set(ours[half]["native"])
            assert cs[half][1] == [our_code_set(c)
                                   for c in ours[half]["conversion"]]
    elif name == "TAG_ALTERNATE_IIOP_ADDRESS":
        assert text == f"{name} {ours['host']} {ours['port']}"
    elif name == "TAG_OMNIORB_UNIX_TRANS":
        assert text == f"{name} {ours['host']} {ours['path']}"
    elif name == "TAG_SSL_SEC_TRANS" and "port" in ours:
        want = (f"{name} port = {ours['port']} supports {ours['supports']} "
                f"requires {ours['requires']}")
        if ours["layout"] == "visibroker":
            want += " (visibroker format)"
        assert text == want
    elif name == "TAG_OMNIORB_PERSISTENT_ID":
        n = len(ours["data_hex"]) // 2
        assert text == f"{name} 0x{ours['data_hex']}  ({n} bytes)"


def compare(ior):
    """orbbench's decoding of `ior` against catior's, field by field."""
    cat = run_catior(ior)
    assert cat.returncode == 0, cat.stderr
    theirs = parse_catior(cat.stdout)
    [ours] = orbbench_json(ior)
    assert ours["nil"] == theirs["nil"]
    if theirs["nil"]:
        assert ours["profiles"] == []
        return ours
    assert ours["byte_order"] in ("little", "big")
    assert ours["type_id"] == theirs["type_id"]
    assert [p["tag"] for p in ours["profiles"]] == \
        [p["tag"] for p in theirs["profiles"]]
    for o, t in zip(ours["profiles"], theirs["profiles"]):
        if t["tag"] == 0:
            assert o["iiop_version"] == t["version"]
            assert o["host"] == t["host"]
            assert o["port"] == t["port"]
            assert o["object_key_hex"] == t["key_hex"]
        if t["tag"] in (0, 1):
            assert [c["tag"] for c in o["components"]] == \
                [c["tag"] for c in t["components"]]
            for oc, tc in zip(o["components"], t["components"]):
                check_component(oc, tc)
        elif t["tag"] == TAO_UIOP:
            # omniORB's catior lists TAO's UIOP profile by tag only; its
            # fields are checked against TAO's own layout in
            # tests/unit/test_ior_tao.c.
            assert o["decoded"] and o["uiop_version"] == "1.2"
        elif t["tag"] == MICO_UIOP:
            # The same for MICO's (tests/unit/test_ior_mico.c against
            # MICO's layout).
            assert o["decoded"] and o["uiop_version"] == "1.2"
            assert o["host"] and o["path"].startswith("/")
        elif t["tag"] in ORBIT_PROFILES:
            # The same for ORBit2's profiles (tests/unit/test_ior_orbit2.c
            # against ORBit2's layouts).
            assert o["decoded"] and o["giop_version"] == "1.2"
        else:
            assert not o["decoded"] and "components" not in o
    return ours


@pytest.mark.parametrize("where,ior", fixture_iors(),
                         ids=[w for w, _ in fixture_iors()])
def test_other_orbs_agree_with_catior(where, ior):
    compare(ior)


def test_fixtures_cover_the_orbs():
    """The fixtures hold IORs of each ORB family the issue names, and
    every fixture file decodes through standard input (comments and all),
    with the vendor where the IOR says it."""
    names = {p.stem for p in FIXTURES.glob("*.txt")}
    assert {"tao", "jacorb", "mico", "orbit", "orbix", "visibroker",
            "javaidl", "omniorb"} <= names
    vendors = set()
    for path in FIXTURES.glob("*.txt"):
        docs = orbbench_json("-", stdin=path.read_text())
        assert len(docs) == sum(1 for line in path.read_text().splitlines()
                                if line.startswith("IOR:"))
        for d in docs:
            for p in d["profiles"]:
                vendors |= {c["vendor"] for c in p.get("components", [])
                            if c.get("name") == "TAG_ORB_TYPE"}
    assert {"omniORB", "TAO", "JacORB"} <= vendors


# ---- IORs built here ---------------------------------------------------------

class Cdr:
    """A CDR encapsulation being written: the byte-order octet first,
    alignment from its start."""

    def __init__(self, little):
        self.little = little
        self.b = bytearray([1 if little else 0])

    def _put(self, fmt, v):
        size = struct.calcsize(fmt)
        self.b += bytes(-len(self.b) % size)
        self.b += struct.pack(("<" if self.little else ">") + fmt, v)
        return self

    def octet(self, v):
        return self._put("B", v)

    def ushort(self, v):
        return self._put("H", v)

    def ulong(self, v):
        return self._put("I", v)

    def octets(self, data):
        self.ulong(len(data))
        self.b += data
        return self

    def string(self, s):
        return self.octets(s.encode() + b"\0")


def components(little):
    """Every component orbbench decodes and a few it lists by tag:
    [(tag, encapsulation bytes)]."""
    c = lambda: Cdr(little)  # noqa: E731
    return [
        (0, c().ulong(0x54414f00).b),
        (1, c().ulong(0x00010001).ulong(2).ulong(0x05010001)
         .ulong(0x00010020).ulong(0x00010109).ulong(0).b),
        (3, c().string("127.0.0.2").ushort(2809).b),
        (0x41545402, c().string("box").string("/tmp/s.sock").b),
        (20, c().ushort(0x66).ushort(0).ushort(12124).b),
        (20, c().ulong(6).ulong(2).ushort(443).b),
        (0x41545401, c().string("giop:tcp:127.0.0.1:1234").b),
        (0x41545403, bytes([1, 2, 3])),
        (0x41545404, c().octet(1).ushort(5).ulong(7).ulong(2).ulong(3).b),
        (0x41545405, c().string("http://127.0.0.1/x").b),
        (2, c().ulong(1).ulong(99).octets(b"").b),  # one policy
        (33, c().octet(0).ulong(0).b),  # CSIv2, no mechanism
        (0x12345678, bytes([9, 9])),
    ]


def put_components(cdr, comps):
    cdr.ulong(len(comps))
    for tag, data in comps:
        cdr.ulong(tag).octets(data)


def built_ior(outer_le, prof_le, comp_le, minor, key=b"k\0\xff\x01ey"):
    body = Cdr(prof_le).octet(1).octet(minor).string("127.0.0.1") \
        .ushort(2809).octets(key)
    if minor >= 1:
        put_components(body, components(comp_le))
    multi = Cdr(not prof_le)
    put_components(multi, components(comp_le)[:2])
    ior = Cdr(outer_le).string("IDL:Test/Thing:1.0").ulong(3)
    ior.ulong(0).octets(bytes(body.b))
    ior.ulong(1).octets(bytes(multi.b))
    ior.ulong(0x56495301).octets(bytes([1, 2, 3]))
    return "IOR:" + ior.b.hex()


BUILT = [(f"outer-{'le' if o else 'be'}-profile-{'le' if p else 'be'}-"
          f"iiop-1.{m}", built_ior(o, p, not p, m))
         for o in (True, False) for p in (True, False) for m in (0, 1, 2)]
BUILT += [
    ("nil", "IOR:" + Cdr(True).string("").ulong(0).b.hex()),
    ("empty-type-id-and-key", "IOR:" + Cdr(False).string("").ulong(1)
     .ulong(0).octets(bytes(Cdr(False).octet(1).octet(2).string("::1")
                            .ushort(1).octets(b"").ulong(0).b)).b.hex()),
]


@pytest.mark.parametrize("name,ior", BUILT, ids=[n for n, _ in BUILT])
def test_built_agree_with_catior(name, ior):
    ours = compare(ior)
    if name.startswith("outer-"):
        iiop = ours["profiles"][0]
        assert ours["byte_order"] == ("little" if "outer-le" in name
                                      else "big")
        assert iiop["byte_order"] == ("little" if "profile-le" in name
                                      else "big")
        assert iiop["object_key_text"] == "k\\x00\\xff\\x01ey"
        assert ours["profiles"][2]["name"] is None
        assert ours["profiles"][2]["data_hex"] == "010203"
        assert ours["connect"]["tcp"] == {"ok": True, "host": "127.0.0.1",
                                          "port": 2809, "loopback": True}
        if not name.endswith("1.0"):
            assert ours["connect"]["unix"] == {"ok": True,
                                               "path": "/tmp/s.sock"}


def test_iiop_2_listed_where_catior_refuses():
    """An IIOP 2.0 profile: catior refuses the IOR, orbbench lists it
    undecoded and decodes the rest."""
    other = Cdr(True).octet(2).octet(0).octet(0xee)
    ior = Cdr(True).string("IDL:X:1.0").ulong(1).ulong(0) \
        .octets(bytes(other.b))
    ior = "IOR:" + ior.b.hex()
    assert run_catior(ior).returncode != 0
    [d] = orbbench_json(ior)
    assert d["profiles"][0]["iiop_version"] == "2.0"
    assert d["profiles"][0]["decoded"] is False
    assert d["connect"]["tcp"]["why"] == "bad IOR: unknown IIOP version"


# ---- live omniORB servers ----------------------------------------------------

@pytest.fixture
def echo_server():
    """start(*endpoints) runs bin/omniorb-echo-server on those endpoints
    and returns the IOR it prints; every server is killed at the end."""
    procs = []

    def start(*endpoints):
        args = [str(ECHO)]
        for ep in endpoints:
            args += ["-ORBendPoint", ep]
        p = subprocess.Popen(args, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL, text=True)
        procs.append(p)
        ready, _, _ = select.select([p.stdout], [], [], 20)
        line = p.stdout.readline().strip() if ready else ""
        assert line.startswith("IOR:"), f"server printed {line!r}"
        return line

    yield start
    for p in procs:
        p.kill()
        p.wait(timeout=10)
        p.stdout.close()


def reachable(family, address):
    """A connection to the endpoint orbbench names is accepted."""
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(address)
    return True


def test_live_tcp(echo_server):
    ior = echo_server("giop:tcp:127.0.0.1:")
    d = compare(ior)
    tcp = d["connect"]["tcp"]
    assert tcp["ok"] and tcp["loopback"] and tcp["host"] == "127.0.0.1"
    assert reachable(socket.AF_INET, ("127.0.0.1", tcp["port"]))
    assert d["connect"]["unix"]["ok"] is False
    assert "TAG_OMNIORB_UNIX_TRANS" in d["connect"]["unix"]["why"]


def test_live_unix(echo_server, tmp_path):
    path = tmp_path / "s.sock"
    d = compare(echo_server(f"giop:unix:{path}"))
    assert d["connect"]["unix"] == {"ok": True, "path": str(path)}
    assert reachable(socket.AF_UNIX, str(path))
    # No TCP endpoint: omniORB puts the host name and port 0 in the
    # profile.
    assert d["profiles"][0]["port"] == 0
    assert d["connect"]["tcp"]["ok"] is False
    assert "port is 0" in d["connect"]["tcp"]["why"]


def test_live_tcp_and_unix(echo_server, tmp_path):
    path = tmp_path / "s.sock"
    d = compare(echo_server("giop:tcp:127.0.0.1:", f"giop:unix:{path}"))
    assert reachable(socket.AF_INET, ("127.0.0.1",
                                      d["connect"]["tcp"]["port"]))
    assert d["connect"]["unix"] == {"ok": True, "path": str(path)}
    comps = d["profiles"][0]["components"]
    assert [c["name"] for c in comps] == ["TAG_ORB_TYPE", "TAG_CODE_SETS",
                                          "TAG_OMNIORB_UNIX_TRANS"]


def test_live_alternate_address(echo_server):
    """Two TCP endpoints: the second is a TAG_ALTERNATE_IIOP_ADDRESS."""
    d = compare(echo_server("giop:tcp:127.0.0.1:", "giop:tcp:127.0.0.2:"))
    alt = d["profiles"][0]["components"][2]
    assert alt["name"] == "TAG_ALTERNATE_IIOP_ADDRESS"
    assert alt["host"] == "127.0.0.2"
    assert reachable(socket.AF_INET, ("127.0.0.2", alt["port"]))


# ---- malformed input and the command line ----------------------------------

GOOD = fixture_iors()[0][1]
TCP = ("IOR:010000001300000049444c3a42656e63682f4563686f3a312e3000000100000"
       "00000000060000000010102000a0000003132372e302e302e3100b5b20e000000fe"
       "0a9c0c6b00000d19000000000000000200000000000000080000000100000000545"
       "441010000001c000000010000000100010001000000010001050901010001000000"
       "09010100")


def patched(at, value):
    b = bytearray.fromhex(TCP[4:])
    b[at] = value
    return "IOR:" + b.hex()


# (name, input, reason, does catior refuse it too)
BAD = [
    ("missing-prefix", "corbaloc::127.0.0.1:2809/x",
     'missing "IOR:" prefix (it starts "corbaloc::127.0....")', True),
    ("no-hex", "IOR:", 'no hex digits after "IOR:"', True),
    ("odd-length", TCP + "0", f"odd length: {len(TCP) - 3} hex digits after "
     "\"IOR:\", not whole octets", False),
    ("bad-hex", TCP[:50] + "zz" + TCP[52:],
     "bad hex: 'z' at character 51 of the IOR", True),
    ("truncated-encapsulation", TCP[:60],
     "truncated encapsulation: the profile count (4 bytes at offset 28) "
     "runs past the end of the IOR (28 bytes)", True),
    ("length-past-the-end", TCP[:100], "length past the end: profile 1 has "
     "length 96 at offset 36, but the IOR has 8 bytes left after it", True),
    ("key-past-the-end", patched(60, 0x60), "length past the end: the "
     "object key has length 96 at offset 20, but profile 1 "
     "(TAG_INTERNET_IOP) has 72 bytes left after it", True),
    ("bad-byte-order", patched(0, 2), "bad byte-order octet 0x02 at the "
     "start of the IOR (0 big-endian, 1 little-endian)", False),
    ("bad-profile-byte-order", patched(40, 5), "bad byte-order octet 0x05 "
     "at the start of profile 1 (TAG_INTERNET_IOP) (0 big-endian, 1 "
     "little-endian)", None),
]


@pytest.mark.parametrize("name,ior,reason,catior_refuses", BAD,
                         ids=[b[0] for b in BAD])
def test_malformed_exit_2_with_reason(name, ior, reason, catior_refuses):
    p = subprocess.run([str(ORBBENCH), "ior", ior], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr == f"orbbench: ior: argument 1: {reason}\n"
    if catior_refuses is not None:
        # catior reads odd lengths and byte-order octets other than 0/1
        # leniently; the rest it refuses too.
        assert (run_catior(ior).returncode != 0) == catior_refuses


def test_mixed_input_shows_the_good_ones():
    """A bad IOR among good ones: each bad line named on stderr, the good
    ones shown, exit 2; --json keeps an entry per input."""
    stdin = (f"# a list as scripts/start-servers writes it\n{TCP} 4242\n\n"
             f"IOR:0\n{GOOD}\n{TCP} not-a-pid\n")
    p = subprocess.run([str(ORBBENCH), "ior", "-"], input=stdin,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert p.stderr.splitlines() == [
        "orbbench: ior: standard input, line 4: odd length: 1 hex digits "
        "after \"IOR:\", not whole octets",
        "orbbench: ior: standard input, line 6: expected \"IOR [PID]\""]
    assert p.stdout.count("\nIOR (standard input, line ") == 1
    assert p.stdout.startswith("IOR (standard input, line 2)\n")
    assert "connect tcp:  127.0.0.1:45749\n" in p.stdout
    j = subprocess.run([str(ORBBENCH), "ior", "--json", "-"], input=stdin,
                       capture_output=True, text=True, timeout=30)
    assert j.returncode == 2
    docs = json.loads(j.stdout)
    assert [d["input"] for d in docs] == ["standard input, line 2",
                                          "standard input, line 4",
                                          "standard input, line 5"]
    assert "error" in docs[1] and "error" not in docs[0]


def test_usage_errors():
    for args, msg in (([], "no IOR given"),
                      (["--bogus", TCP], 'unknown option "--bogus"')):
        p = subprocess.run([str(ORBBENCH), "ior", *args], capture_output=True,
                           text=True, timeout=30)
        assert p.returncode == 2 and msg in p.stderr, p.stderr
    p = subprocess.run([str(ORBBENCH), "ior", "--help"], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 0 and "--json" in p.stdout
