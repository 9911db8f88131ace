"""Every file the tools write is whole or absent: written to a temporary
file beside it, then renamed over it. A write that fails (a full disk,
a read-only folder, a file size limit) removes its temporary file and
raises WriteError naming the file and why: the commands turn it into
one line and exit 2, never a traceback and never half a file.
Standard library only (save_figure takes a matplotlib figure)."""
import os
import secrets
from pathlib import Path


class WriteError(ValueError):
    """A file that could not be written (exit 2, one line naming it)."""


def _temp(path):
    return path.with_name(f".{path.name}.{os.getpid()}."
                          f"{secrets.token_hex(4)}.tmp")


def _failed(path, e):
    why = os.strerror(e.errno) if getattr(e, "errno", None) else str(e)
    return WriteError(f"{path}: cannot write ({why}); nothing written")


def write_with(path, write):
    """Call write(temporary path), then rename the temporary file to path;
    WriteError naming path when either fails (the temporary file
    removed). Returns path."""
    path = Path(path)
    tmp = _temp(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        raise _failed(path, e) from None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return path


def write_text(path, text):
    """Write text (UTF-8) to path, whole or not at all."""
    def write(tmp):
        with open(tmp, "x", encoding="utf-8") as f:
            f.write(text)
    return write_with(path, write)


def save_figure(fig, path, **kwargs):
    """fig.savefig into path, whole or not at all; the format from path's
    suffix (the temporary file's name ends in .tmp)."""
    fmt = Path(path).suffix.lstrip(".")
    return write_with(path, lambda tmp: fig.savefig(tmp, format=fmt,
                                                     **kwargs))
