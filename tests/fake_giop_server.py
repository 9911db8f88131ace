#!/usr/bin/env python3
"""A fake GIOP 1.2 echo server for orbbench's misbehaving-server tests.

orbbench starts it as `server.path` with the argv it gives omniORB's echo
server (`-ORBendPoint giop:tcp:127.0.0.1:` or `giop:unix:PATH`, then
`server.args`). It prints an IOR line and serves Bench::Echo::echoString
correctly (and the typed payloads' echo<Name>: the argument's bytes come
back as they are, or in the other byte order for big-endian), or
misbehaves as told:

  --behave SPEC  how every connection is served (default: echo)
  --plan FILE    one SPEC a line, in spawn order: each server claims the
                 next line (a counter in FILE.next, under flock); past the
                 end, echo. Run with server.start_parallel=1 so that spawn
                 order is server order.
  --log FILE     append "PID EVENT" lines: started, accepted, requests,
                 what it sent; tests read it to see what happened
  --work-us N    taken and ignored (orbbench passes it for server.work_us)

SPEC is NAME[,delay_ms=D][,after=N][,pause_ms=P][,flip=B], NAME a key of
BEHAVIOURS below; every behaviour acts delay_ms after a request arrives
(echo,delay_ms=300 is a slow server); flip=B changes byte B of an echoed
typed payload (echo, big-endian): one wrong field.

It ends on SIGTERM at once (default action), by the parent-death signal
the spawner set before exec (kept across exec), or when its parent changes.
Stdin is not watched: the spawner gives servers /dev/null.
"""
import fcntl
import itertools
import os
import select
import signal
import socket
import struct
import sys
import threading
import time

REQUEST, REPLY, CLOSE_CONNECTION, FRAGMENT = 0, 1, 5, 7
NO_EXCEPTION, USER_EXCEPTION, SYSTEM_EXCEPTION, LOCATION_FORWARD = 0, 1, 2, 3
TAG_INTERNET_IOP = 0
TAG_OMNIORB_UNIX_TRANS = 0x41545402
TYPE_ID = "IDL:Bench/Echo:1.0"
OBJECT_KEY = b"\xfefake-giop-echo"

# ---- CDR, little- or big-endian, aligned from the message's start -------


class Out:
    def __init__(self, little=True):
        self.e = "<" if little else ">"
        self.b = bytearray()

    def align(self, n):
        self.b += bytes(-len(self.b) % n)

    def octet(self, v):
        self.b.append(v)

    def ulong(self, v):
        self.align(4)
        self.b += struct.pack(self.e + "I", v)

    def ushort(self, v):
        self.align(2)
        self.b += struct.pack(self.e + "H", v)

    def octets(self, data):
        self.ulong(len(data))
        self.b += data

    def string(self, s):
        self.octets(s.encode() + b"\0" if isinstance(s, str) else s + b"\0")


class In:
    def __init__(self, data, little, pos=0):
        self.e, self.d, self.pos = "<" if little else ">", data, pos

    def align(self, n):
        self.pos += -self.pos % n

    def take(self, n):
        if self.pos + n > len(self.d):
            raise ValueError("truncated request")
        v = self.d[self.pos:self.pos + n]
        self.pos += n
        return v

    def ulong(self):
        self.align(4)
        return struct.unpack(self.e + "I", self.take(4))[0]

    def ushort(self):
        self.align(2)
        return struct.unpack(self.e + "H", self.take(2))[0]

    def octets(self):
        return self.take(self.ulong())

    def string(self):
        return self.octets()[:-1]


def encapsulation(fill, little=True):
    o = Out(little)
    o.octet(1 if little else 0)
    fill(o)
    return bytes(o.b)


def ior(host, port, unix_path=None):
    """A stringified IOR: one IIOP 1.2 profile, with omniORB's Unix-socket
    component when unix_path is given (omniORB names its host there)."""
    def profile(o):
        o.octet(1)
        o.octet(2)
        o.string(host)
        o.ushort(port)
        o.octets(OBJECT_KEY)
        comps = []
        if unix_path:
            comps.append((TAG_OMNIORB_UNIX_TRANS, encapsulation(
                lambda c: (c.string(host), c.string(unix_path)))))
        o.ulong(len(comps))
        for tag, data in comps:
            o.ulong(tag)
            o.octets(data)

    def body(o):
        o.string(TYPE_ID)
        o.ulong(1)
        o.ulong(TAG_INTERNET_IOP)
        o.octets(encapsulation(profile))
    return "IOR:" + encapsulation(body).hex()


# ---- GIOP messages ------------------------------------------------------


def message(msg_type, body, little=True, more=False, magic=b"GIOP",
            size=None):
    flags = (1 if little else 0) | (2 if more else 0)
    size = len(body) if size is None else size
    return (magic + bytes([1, 2, flags, msg_type])
            + struct.pack("<I" if little else ">I", size) + body)


def reply(request_id, status, fill, little=True):
    """A whole Reply: header, id, status, no service contexts, then the
    body (8-aligned from the message start: the header is 12 bytes)."""
    o = Out(little)
    o.b += bytes(12)
    o.ulong(request_id)
    o.ulong(status)
    o.ulong(0)
    o.align(8)
    fill(o)
    return message(REPLY, bytes(o.b[12:]), little)


def read_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def read_message(sock):
    """One whole GIOP message, or None at end of stream."""
    head = read_exact(sock, 12)
    if head is None:
        return None
    if head[:4] != b"GIOP":
        raise ValueError(f"not GIOP: {head[:4]!r}")
    size = struct.unpack("<I" if head[6] & 1 else ">I", head[8:12])[0]
    body = read_exact(sock, size)
    return None if body is None else head + body


# The typed payloads (idl/payloads.idl) as far as the byte order goes:
# "o" octet, "l" a 4-byte field, "d" an 8-byte one, a list a struct,
# ("seq", T) a sequence. Enough to turn a value around; the client checks
# it field by field.
_TIME = ["l", "l"]
_LONGS = ("seq", "l")
TYPED = {
    b"echoNone": None,
    b"echoOctet1K": ("seq", "o"),
    b"echoOctet100K": ("seq", "o"),
    b"echoOdometry": [_TIME, [["l", "l"], "d"], ["l", "d"], "l"],
    b"echoRangeSensor": [_TIME, "l", _LONGS],
    b"echoSharedBelief": ("seq", ["l", "d", _LONGS]),
}


def swap(t, i, o):
    """Copy one value of type t from In i to Out o (another byte order)."""
    if t == "o":
        o.octet(i.take(1)[0])
    elif t in ("l", "d"):
        n = 4 if t == "l" else 8
        i.align(n)
        o.align(n)
        o.b += i.take(n)[::-1]
    elif isinstance(t, list):
        for m in t:
            swap(m, i, o)
    else:
        count = i.ulong()
        o.ulong(count)
        for _ in range(count):
            swap(t[1], i, o)


class Request:
    """A GIOP 1.2 Request for echoString(in string mesg), or for a typed
    payload's echo<Name> (self.body: the argument's bytes)."""

    def __init__(self, msg):
        if msg[7] != REQUEST or msg[4:6] != b"\x01\x02":
            raise ValueError(f"expected a GIOP 1.2 Request, got type {msg[7]}")
        self.little = bool(msg[6] & 1)
        i = In(msg, self.little, 12)
        self.id = i.ulong()
        i.take(4)  # response flags, reserved
        if i.ushort() != 0:
            raise ValueError("target is not a KeyAddr")
        self.key = i.octets()
        self.op = i.string()
        for _ in range(i.ulong()):  # service contexts
            i.ulong()
            i.octets()
        self.body = b""
        if self.op in TYPED:
            if i.pos < len(msg):
                i.align(8)
            self.body = msg[i.pos:]
        else:
            i.align(8)
            self.arg = i.string()


# ---- behaviours: what to send for one request ---------------------------
# Each takes (conn, request) and returns False to hang up after it.


def typed_result(req, little, flip):
    """A typed payload's echo in the given byte order, byte `flip` (if
    any) changed."""
    if little == req.little:
        body = bytearray(req.body)
    else:
        o = Out(little)
        if TYPED[req.op] is not None:
            swap(TYPED[req.op], In(req.body, req.little), o)
        body = o.b
    if flip is not None:
        body[flip] ^= 0x01
    return bytes(body)


def echo_reply(req, little=True, request_id=None, flip=None):
    rid = req.id if request_id is None else request_id
    if req.op in TYPED:
        # A 1.2 body starts 8-aligned: the bytes stay valid as they are.
        result = typed_result(req, little, flip)
        return reply(rid, NO_EXCEPTION, lambda o: o.b.extend(result), little)
    return reply(rid, NO_EXCEPTION, lambda o: o.string(req.arg), little)


def b_echo(c, req):
    c.send(echo_reply(req, little=req.little, flip=c.spec["flip"]))
    return True


def b_wrong_echo(c, req):
    # echoString's reply, its first byte changed: well-formed, not equal
    wrong = bytes([req.arg[0] ^ 1]) + req.arg[1:] if req.arg else b"x"
    c.send(reply(req.id, NO_EXCEPTION, lambda o: o.string(wrong),
                 req.little))
    return True


def b_truncated(c, req):
    r = echo_reply(req)
    c.send(r[:len(r) // 2])
    return False


def b_stall(c, req):
    r = echo_reply(req)
    c.send(r[:len(r) // 2])
    c.hang()  # never returns


def b_huge_length(c, req):
    r = echo_reply(req)
    c.send(r[:8] + struct.pack("<I", 0x7FFFFFF0) + r[12:])
    return True


def b_bad_magic(c, req):
    c.send(b"GIOX" + echo_reply(req)[4:])
    return True


def b_wrong_id(c, req):
    c.send(echo_reply(req, request_id=req.id + 1000))
    return True


def b_system_exception(c, req):
    def body(o):
        o.string("IDL:omg.org/CORBA/TRANSIENT:1.0")
        o.ulong(0x41540002)  # an omniORB minor code
        o.ulong(1)  # COMPLETED_NO
    c.send(reply(req.id, SYSTEM_EXCEPTION, body))
    return True


def b_user_exception(c, req):
    c.send(reply(req.id, USER_EXCEPTION,
                 lambda o: o.string("IDL:Bench/Echo/Refused:1.0")))
    return True


def b_location_forward(c, req):
    # The body is the IOR to go to, itself: the stringified IOR's bytes
    # after "IOR:" and its encapsulation's byte order octet and padding.
    c.send(reply(req.id, LOCATION_FORWARD,
                 lambda o: o.b.extend(bytes.fromhex(c.server.ior[12:]))))
    return True


def b_never_reply(c, req):
    return True


def b_close_after_request(c, req):
    return False


def b_close_after_reply(c, req):
    c.send(echo_reply(req))
    return False


def b_stray_byte(c, req):
    # Later, so the client reads it apart from the reply: on an idle
    # connection, or as the start of the next reply.
    c.send(echo_reply(req))
    time.sleep(0.02)
    c.send(b"\0")
    return True


def b_garbage(c, req):
    c.send(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    return True


def b_fragmented(c, req):
    """The reply as a Reply with the more-fragments flag and Fragments of 8
    bytes each: every message but the last a multiple of 8 long (GIOP
    1.2), each sent on its own."""
    r = echo_reply(req)
    body = r[12:]
    parts = [message(REPLY, body[:12], more=True)]  # id, status, contexts
    rest = body[12:]
    for at in range(0, len(rest), 8):
        more = at + 8 < len(rest)
        parts.append(message(FRAGMENT, struct.pack("<I", req.id)
                             + rest[at:at + 8], more=more))
    for p in parts:
        c.send(p)
        time.sleep(0.001)
    return True


def b_big_endian(c, req):
    c.send(echo_reply(req, little=False, flip=c.spec["flip"]))
    return True


def b_closeconn(c, req):
    """After `after` calls on this connection, a CloseConnection right
    after the reply (the client may already have sent its next request:
    GIOP says it is not processed and may be sent again)."""
    c.send(echo_reply(req))
    if c.calls >= c.spec["after"]:
        c.close_connection()
        return False
    return True


def b_closeconn_mid_call(c, req):
    """The first connection's first request is not answered: after
    delay_ms a CloseConnection (the request was not processed, the client
    may send it again). Later connections echo after delay_ms."""
    if c.number == 0:
        c.close_connection()
        return False
    c.send(echo_reply(req))
    return True


def b_balloon(c, req):
    """After `after` calls on this connection, no reply: the server takes
    memory, 1 MiB at a time, every page written, until something stops it
    (a memory cgroup's OOM killer), or 4 GiB, then it hangs up."""
    if c.calls <= c.spec["after"]:
        c.send(echo_reply(req))
        return True
    hoard = []
    for _ in range(4096):
        hoard.append(b"\x01" * (1 << 20))
    return False


BEHAVIOURS = {
    "echo": b_echo,
    "balloon": b_balloon,
    "truncated": b_truncated,
    "stall": b_stall,
    "huge-length": b_huge_length,
    "bad-magic": b_bad_magic,
    "wrong-id": b_wrong_id,
    "wrong-echo": b_wrong_echo,
    "system-exception": b_system_exception,
    "user-exception": b_user_exception,
    "location-forward": b_location_forward,
    "never-reply": b_never_reply,
    "close-at-once": None,  # hangs up as it accepts
    "close-after-request": b_close_after_request,
    "close-after-reply": b_close_after_reply,
    "stray-byte": b_stray_byte,
    "garbage": b_garbage,
    "fragmented": b_fragmented,
    "big-endian": b_big_endian,
    # CloseConnection at the first idle pause of pause_ms after `after`
    # calls on a connection: between steps, when the client is not calling
    "closeconn-idle": b_echo,
    "closeconn": b_closeconn,
    "closeconn-mid-call": b_closeconn_mid_call,
}


def parse_spec(text):
    """NAME[,key=value...] -> dict with "name" and integer options."""
    name, *opts = text.strip().split(",")
    if name not in BEHAVIOURS:
        raise SystemExit(f"fake-giop-server: unknown behaviour {name!r}")
    spec = {"name": name, "delay_ms": 0, "after": 1, "pause_ms": 20,
            "flip": None}
    for opt in opts:
        key, _, val = opt.partition("=")
        if key not in spec or not val.isdigit():
            raise SystemExit(f"fake-giop-server: bad option {opt!r}")
        spec[key] = int(val)
    return spec


# ---- the server -----------------------------------------------------------


class Connection:
    def __init__(self, server, sock, number):
        self.server, self.sock, self.number = server, sock, number
        self.spec = server.spec
        self.calls = 0

    def send(self, data):
        self.sock.sendall(data)

    def hang(self):
        while True:
            time.sleep(3600)

    def close_connection(self):
        """GIOP's orderly shutdown: CloseConnection, no more writes, then
        read (and drop) what the client still sends until it hangs up, so
        that the close sends no reset and the message is not lost."""
        # Logged first: once the message is out the client reconnects,
        # finishes and stops this server, maybe before this thread runs
        # again (test_misbehave saw conn 1's lines without this one).
        self.server.log(f"conn {self.number}: sends CloseConnection")
        self.send(message(CLOSE_CONNECTION, b""))
        self.sock.shutdown(socket.SHUT_WR)
        self.sock.settimeout(10)
        try:
            while self.sock.recv(4096):
                pass
        except OSError:
            pass

    def idle_for(self, ms):
        """True when nothing arrives within ms."""
        return not select.select([self.sock], [], [], ms / 1000)[0]

    def serve(self):
        spec, act = self.spec, BEHAVIOURS[self.spec["name"]]
        if act is None:
            return
        while True:
            if (spec["name"] == "closeconn-idle"
                    and self.calls >= spec["after"]
                    and self.idle_for(spec["pause_ms"])):
                self.close_connection()
                return
            msg = read_message(self.sock)
            if msg is None:
                return
            req = Request(msg)
            if req.key != OBJECT_KEY or (req.op != b"echoString"
                                         and req.op not in TYPED):
                raise ValueError(f"request for {req.op!r} on key {req.key!r}")
            self.calls += 1
            self.server.log(f"conn {self.number}: request {req.id}")
            if spec["delay_ms"]:
                time.sleep(spec["delay_ms"] / 1000)
            if not act(self, req):
                return

    def run(self):
        try:
            self.serve()
        except (OSError, ValueError) as e:
            self.server.log(f"conn {self.number}: {e}")
        finally:
            self.sock.close()
            self.server.log(f"conn {self.number}: closed")


class Server:
    def __init__(self, endpoint, spec, log_path):
        self.spec, self.log_path = spec, log_path
        kind, _, where = endpoint.partition(":")[2].partition(":")
        if kind == "tcp":
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            host, _, port = where.rpartition(":")
            self.sock.bind((host or "127.0.0.1", int(port or 0)))
            host, port = self.sock.getsockname()
            self.ior = ior(host, port)
        elif kind == "unix":
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(where)
            self.ior = ior(socket.gethostname(), 0, where)
        else:
            raise SystemExit(f"fake-giop-server: endpoint {endpoint!r}")
        self.sock.listen(64)

    def log(self, event):
        if self.log_path:
            line = f"{os.getpid()} {event}\n".encode()
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(fd, line)  # one write: lines from servers do not mix
            os.close(fd)

    def run(self):
        self.log(f"started {self.spec['name']} {self.ior}")
        print(self.ior, flush=True)
        for number in itertools.count():
            sock, _ = self.sock.accept()
            self.log(f"conn {number}: accepted")
            if self.spec["name"] == "close-at-once":
                sock.close()
                self.log(f"conn {number}: closed")
                continue
            threading.Thread(target=Connection(self, sock, number).run,
                             daemon=True).start()


def claim_plan_line(path):
    """The next line of the plan, counted in PATH.next under flock."""
    with open(path + ".next", "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        n = int(counter.read() or 0)
        counter.seek(0)
        counter.truncate()
        counter.write(str(n + 1))
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    return lines[n] if n < len(lines) else "echo"


def watch_parent():
    """Exit when the parent changes: a server started through a wrapper
    that forks keeps no parent-death signal from the spawner."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


def main(argv):
    if argv[1:2] == ["--version"]:
        print("fake-giop 0.1")
        return 0
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    endpoint, behave, plan, log_path = None, "echo", None, None
    args = iter(argv[1:])
    for a in args:
        if a == "-ORBendPoint":
            endpoint = next(args)
        elif a in ("--behave", "--plan", "--log", "--work-us"):
            val = next(args)
            if a == "--behave":
                behave = val
            elif a == "--plan":
                plan = val
            elif a == "--log":
                log_path = val
        else:
            raise SystemExit(f"fake-giop-server: unknown argument {a!r}")
    if not endpoint:
        raise SystemExit("fake-giop-server: no -ORBendPoint")
    spec = parse_spec(claim_plan_line(plan) if plan else behave)
    threading.Thread(target=watch_parent, daemon=True).start()
    Server(endpoint, spec, log_path).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
