"""The changes memory-store makes to the file system: private directories and files for a
new store, side files removed, a file's bytes overwritten with zeros (erasure).

Apart from ``files.py``, which every call imports to find and check the store: only
the commands that create or erase a store need these.
"""

from __future__ import annotations

import os
import stat

from ..errors import unavailable
from .files import CHECKED_SUFFIXES, DIR_MODE, FILE_MODE


def make_private_dirs(path: str) -> None:
    """Create ``path`` and any missing parents as 0700; never chmod what already exists."""
    missing = []
    head = path
    while head and not os.path.lexists(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    for directory in reversed(missing):
        os.mkdir(directory, DIR_MODE)
        os.chmod(directory, DIR_MODE)  # the umask may have narrowed or widened mkdir's mode


def create_private_file(path: str) -> None:
    """Create an empty file with mode 0600 whatever the umask; refuse to follow or reuse."""
    fd = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE
    )
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def remove_side_files(db_path: str) -> None:
    """Unlink -wal, -shm and -journal; a symlink or FIFO is removed, never followed or opened."""
    for suffix in CHECKED_SUFFIXES:
        try:
            os.unlink(db_path + suffix)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise unavailable(exc) from None


def remove_unsafe_side_files(db_path: str) -> None:
    """Unlink side files that are not regular files (planted symlinks, FIFOs).

    SQLite only ever creates regular side files, so these hold no memory; left
    in place they would make SQLite write elsewhere, or block on a FIFO.
    """
    for suffix in CHECKED_SUFFIXES:
        path = db_path + suffix
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise unavailable(exc) from None
        if stat.S_ISREG(mode):
            continue
        try:
            if stat.S_ISDIR(mode):
                os.rmdir(path)
            else:
                os.unlink(path)
        except OSError as exc:
            raise unavailable(exc) from None


def open_for_overwrite(path: str) -> int | None:
    """A write descriptor for the regular file at ``path``, or None.

    Never through a symlink and never blocking on a FIFO (O_NONBLOCK): None for
    anything that is absent or not a regular file.
    """
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        import errno  # only here: errno is not otherwise loaded on the per-turn path

        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a symlink, or a FIFO with no reader
            return None
        raise unavailable(exc) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def overwrite_with_zeros(fd: int) -> None:
    """Overwrite an open file's bytes with zeros in place, and sync them to disk.

    Works on a file already unlinked: the bytes are overwritten wherever another
    process still holds it open.
    """
    try:
        size = os.fstat(fd).st_size
        chunk = bytes(65536)
        offset = 0
        while offset < size:
            offset += os.pwrite(fd, chunk[: min(len(chunk), size - offset)], offset)
        os.fsync(fd)
    except OSError as exc:
        raise unavailable(exc) from None
