"""What ``revoke --delete`` leaves behind (documentation/privacy.md#what-revoke---delete-leaves-a-tombstone): a tombstone holding only
``consent_state: revoked`` and ``revoked_at`` — no memory, no label, no id — so that
``status`` answers ``revoked`` and the assistant does not ask again a person who said
"delete everything and don't remember me". Only ``enable --confirm`` (the person's yes)
removes it; so does deleting the file (``documentation/privacy.md``).

A small JSON file beside the database rather than a row in it: the database and its
side files are still removed whole, so their physical erasure (documentation/privacy.md#erasure-is-physical) is unchanged.
Imported only by ``status``, ``enable``, ``revoke --delete`` and the NOT_INITIALIZED
answer, never on a per-turn path that finds a store.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat

from .files import FILE_MODE

NAME = "revoked.json"
_MAX_BYTES = 256  # {"consent_state": "revoked", "revoked_at": "…"} and nothing else


def path_in(data_dir: str) -> str:
    return os.path.join(data_dir, NAME)


def read(data_dir: str) -> dict[str, str | None] | None:
    """``{"revoked_at": …}`` when a tombstone is there, else None. Never follows a symlink
    nor blocks on a FIFO; a file that is there but unreadable or malformed still says
    revoked (its date unknown): a person's no is not lost to a damaged file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path_in(data_dir), flags)
    except FileNotFoundError:
        return None
    except OSError:
        return {"revoked_at": None}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {"revoked_at": None}
        raw = os.read(fd, _MAX_BYTES + 1)
    finally:
        os.close(fd)
    try:
        found = json.loads(raw.decode("utf-8"))
        revoked_at = found.get("revoked_at") if isinstance(found, dict) else None
    except (UnicodeDecodeError, ValueError):
        revoked_at = None
    return {"revoked_at": revoked_at if isinstance(revoked_at, str) else None}


def write(data_dir: str, revoked_at: str) -> bool:
    """Leave the tombstone (mode 0600, written whole then renamed into place); False when
    the directory refuses it (a full disk): the erasure stands either way."""
    body = json.dumps({"consent_state": "revoked", "revoked_at": revoked_at}).encode()
    temporary = path_in(data_dir) + ".tmp"
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        fd = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
            FILE_MODE,
        )
        try:
            os.fchmod(fd, FILE_MODE)
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path_in(data_dir))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return False
    return True


def remove(data_dir: str) -> None:
    """Remove the tombstone (``enable --confirm`` starts fresh); absent is fine."""
    for name in (path_in(data_dir), path_in(data_dir) + ".tmp"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
