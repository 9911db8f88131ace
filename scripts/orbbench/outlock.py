"""One writer per output folder: a suite, a report or a history takes a
lock on its --out before it writes anything there, and holds it until it
exits. A second writer of the same folder is refused at once (exit 2,
one line), never left to overwrite the first one's files.

The lock is flock(2) on LOCK_NAME inside the folder: the kernel drops it
when its holder exits, however it exits (SIGKILL too), so a stale lock
file is no lock. The file stays (removing it would let two writers lock
two different files of one name); readers of result folders read *.json
only. Standard library only."""
import errno
import fcntl
import os
from pathlib import Path

LOCK_NAME = ".orbbench-writer.lock"

# The locks this process holds: open until it exits.
_HELD = {}


class Busy(ValueError):
    """The folder cannot be written by this process (exit 2, one line)."""


def claim(folder):
    """Create folder (and its parents) if needed and lock it for this
    process; the folder as a Path. Busy naming the folder when it cannot
    be created or locked (a read-only file system, a file in the way,
    another writer)."""
    folder = Path(folder)
    key = str(folder.resolve())
    if key in _HELD:
        return folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise Busy(f"{folder}: not a folder") from None
    except OSError as e:
        raise Busy(f"{folder}: cannot create the folder "
                   f"({os.strerror(e.errno)})") from None
    lock = folder / LOCK_NAME
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC |
                     os.O_NOFOLLOW, 0o644)
    except OSError as e:
        raise Busy(f"{folder}: cannot write into it "
                   f"({os.strerror(e.errno)})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise _another_writer(folder) from None
        raise Busy(f"{folder}: cannot lock it ({os.strerror(e.errno)})") \
            from None
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:
        pass    # the pid is for people; the lock is what counts
    _HELD[key] = fd
    return folder


def _another_writer(folder):
    return Busy(f"{folder}: another orbbench is writing into it "
                f"(it holds {LOCK_NAME}); one writer per folder: "
                "give another --out")


def _held(folder):
    """True when another process holds folder's lock now. Creates
    nothing: a lock file that is not there is not held."""
    try:
        fd = os.open(Path(folder) / LOCK_NAME,
                     os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError as e:
        return e.errno in (errno.EWOULDBLOCK, errno.EAGAIN)
    finally:
        os.close(fd)    # drops the probe's own lock, if it took it


def others(folder):
    """The entries of folder but its lock file: what another run left."""
    return [p for p in Path(folder).iterdir() if p.name != LOCK_NAME]


def claim_new(folder):
    """claim(folder) for a suite's --out, which must be new or empty (the
    lock file aside): files already there would be read as the suite's
    results. Busy otherwise."""
    def refuse():
        return Busy(f"{folder}: not empty: its files would be taken for "
                    "this run's results; give a new folder with --out")
    folder = Path(folder)
    if folder.is_dir() and others(folder):
        # A writer at work there is the better answer than its files.
        raise _another_writer(folder) if _held(folder) else refuse()
    claim(folder)
    if others(folder):
        raise refuse()          # a writer came between
    return folder
