"""The one reader of what a measured side wrote: result files, saved
comparisons (gate), sequential.json and suite summaries. In an ORB's CI
the pull request controls the servers, so these files are hostile input.

load_json(path) opens without following a FIFO's or a device's promise
to block (O_NONBLOCK, then fstat: regular files only), reads at most
MAX_BYTES, decodes strict UTF-8, refuses NaN, Infinity and numbers that
overflow to them, nesting deeper than MAX_DEPTH (no RecursionError),
strings longer than MAX_STRING chars and strings that are not valid
UTF-8 (lone surrogates from \\ud800 escapes). Every refusal is a BadInput
(a ValueError) whose text is one line naming the file and, where there is
one, the field ("scenarios[2].metrics.crossing_n.ratio"); the commands
turn it into exit 2. The checks of values in their ranges (crossing N,
ratios, alpha) are the finite_at_least and positive helpers, called
where the values are read. Standard library only."""
import errno
import hashlib
import json
import math
import os
import stat

MAX_BYTES = 16 << 20        # a result file is tens of kB; a sweep of
                            # thousands of steps a few MB
MAX_DEPTH = 64              # results nest about 8 deep
MAX_STRING = 1 << 16        # IORs and stderr tails are far shorter
MAX_NODES = 2_000_000       # values in one document


class BadInput(ValueError):
    """Input a command refuses: exit 2, one line."""


def _where(path, field):
    return f"{path}: field {field}" if field else f"{path}"


def bad(path, field, why):
    return BadInput(f"{_where(path, field)}: {why}")


def read_bytes(path, max_bytes=MAX_BYTES):
    """The bytes of the regular file path, at most max_bytes; BadInput for
    anything else (a FIFO, a device, a folder, a socket; too large;
    unreadable). Symlinks are followed, but to a regular file only: the
    open never blocks (O_NONBLOCK) and fstat decides before any read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise bad(path, None, f"cannot open ({os.strerror(e.errno)})"
                  ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise bad(path, None, "not a regular file (a FIFO, device, "
                      "socket or folder): refused")
        if st.st_size > max_bytes:
            raise bad(path, None, f"{st.st_size} bytes, over the limit of "
                      f"{max_bytes}")
        chunks, total = [], 0
        while True:
            try:
                b = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EINTR):
                    continue
                raise bad(path, None, f"cannot read "
                          f"({os.strerror(e.errno)})") from None
            if not b:
                break
            chunks.append(b)
            total += len(b)
            if total > max_bytes:
                raise bad(path, None, f"over the limit of {max_bytes} "
                          "bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _float(text):
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"{text[:40]} overflows to {v}")
    return v


def _int(text):
    if len(text) > 40:
        raise ValueError(f"integer of {len(text)} digits")
    return int(text)


def parse(data, path="<input>"):
    """The JSON document of bytes data, checked (module docstring)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise bad(path, None, f"not valid UTF-8 at byte {e.start}") \
            from None
    try:
        doc = json.loads(text, parse_constant=_constant,
                         parse_float=_float, parse_int=_int)
    except RecursionError:
        raise bad(path, None, f"nested deeper than {MAX_DEPTH}") from None
    except ValueError as e:
        msg = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise bad(path, None, f"not valid JSON ({msg})") from None
    check_tree(doc, path)
    return doc


def field_name(parts):
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            p = p if len(p) <= 40 and p.isprintable() else \
                (p[:40].encode("unicode_escape").decode("ascii") + "…")
            out += ("." if out else "") + p
    return out


def _check_str(s, path, parts):
    if len(s) > MAX_STRING:
        raise bad(path, field_name(parts), f"a string of {len(s)} "
                  f"characters, over the limit of {MAX_STRING}")
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise bad(path, field_name(parts), "a string that is not valid "
                  "UTF-8 (a lone surrogate)") from None


def check_tree(doc, path):
    """BadInput unless doc nests at most MAX_DEPTH deep, holds at most
    MAX_NODES values, and every string (key or value) is bounded and
    valid UTF-8. Iterative: no recursion on hostile depth."""
    stack = [(doc, [])]
    nodes = 0
    while stack:
        v, parts = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise bad(path, None, f"more than {MAX_NODES} values")
        if len(parts) > MAX_DEPTH:
            raise bad(path, field_name(parts[:8]) + "…",
                      f"nested deeper than {MAX_DEPTH}")
        if isinstance(v, str):
            _check_str(v, path, parts)
        elif isinstance(v, dict):
            for k, x in v.items():
                _check_str(k, path, parts + [k])
                stack.append((x, parts + [k]))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                stack.append((x, parts + [i]))


def load_json(path, max_bytes=MAX_BYTES):
    """The checked JSON document of the regular file path (BadInput)."""
    return parse(read_bytes(path, max_bytes), path)


def load_object(path, max_bytes=MAX_BYTES):
    """load_json, which must give a JSON object."""
    doc = load_json(path, max_bytes)
    if not isinstance(doc, dict):
        raise bad(path, None, f"a JSON {type(doc).__name__}, not an object")
    return doc


# ---- values where they are read -------------------------------------------

def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def number(doc_path, field, v, low=None, low_open=False, high=None,
           high_open=False, allow_none=False):
    """v, checked: a finite number (not a bool) in [low, high] (an open end
    with *_open); None too with allow_none. BadInput names the field."""
    if v is None and allow_none:
        return None
    if not is_num(v) or not math.isfinite(v):
        raise bad(doc_path, field, f"{short(v)} is not a finite number")
    if low is not None and (v <= low if low_open else v < low):
        raise bad(doc_path, field, f"{v!r} is {'at or ' if low_open else ''}"
                  f"below {low}")
    if high is not None and (v >= high if high_open else v > high):
        raise bad(doc_path, field, f"{v!r} is "
                  f"{'at or ' if high_open else ''}above {high}")
    return v


def short(v, limit=40):
    """repr(v), cut: for messages about a value."""
    r = repr(v)
    return r if len(r) <= limit else r[:limit] + "…"


# ---- binding a record to the files it is about -----------------------------

def digest_files(paths):
    """sha256 over the names and bytes of the files, in name order: what a
    sequential.json is bound to (read with read_bytes: regular files
    only)."""
    h = hashlib.sha256()
    for p in sorted(paths, key=lambda x: os.path.basename(str(x))):
        data = read_bytes(p)
        name = os.path.basename(str(p)).encode("utf-8", "surrogateescape")
        h.update(len(name).to_bytes(8, "big") + name)
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()
