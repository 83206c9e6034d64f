"""The user's copy of their memory: ``export`` (and, in time, ``import``)."""

from __future__ import annotations

import json
import os

from . import rows
from .errors import error, unavailable

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from .session import Session

EXPORT_FORMAT = "memory-store-export/v1"


def check_output(
    output: str | os.PathLike[str] | None, data_dir: str, what: str = "export"
) -> None:
    """Refuse an output path before the store is opened (step 1 of the check order).

    Not inside the store's directory: a file there could be removed by the
    store's own housekeeping (SQLite deletes a stray ``-wal``), and it would
    outlive ``forget`` and ``revoke --delete``. Never an existing file.
    """
    if output is None:
        return
    target = os.path.realpath(os.path.dirname(os.path.abspath(os.fspath(output))))
    store_dir = os.path.realpath(data_dir)
    if target == store_dir or target.startswith(store_dir.rstrip(os.sep) + os.sep):
        raise error(
            "INVALID_ARGUMENTS",
            f"the {what} file may not be inside the store's directory, where deleting "
            "memories could not reach it; choose another place",
        )
    if os.path.lexists(output):
        raise error("INVALID_ARGUMENTS", f"the {what} file already exists; choose a new name")


def document(session: Session) -> dict[str, Any]:
    """Everything live as one ``memory-store-export/v1`` document (not the undo snapshots)."""
    s = session.settings()
    found = [] if session.blank else rows.select(session.conn)
    found.sort(key=rows.storage_order)
    return {
        "format": EXPORT_FORMAT,
        "exported_at": rows.now(),
        "policy_version": s["policy_version"],
        "schema_version": session.version,
        "consent": {
            "enabled": s["consent_enabled"],
            "consent_at": s["consent_at"],
            "consent_renewed_at": s["consent_renewed_at"],
            "paused": s["paused"],
            "revoked_at": s["revoked_at"],
        },
        "memories": [rows.public(r) for r in found],
    }


def write_private(output: str | os.PathLike[str], text: str, what: str = "export") -> str:
    """Create ``output`` with mode 0600 and write ``text``; never overwrite or follow a link."""
    path = os.path.abspath(os.fspath(output))
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
    except FileExistsError:
        raise error(
            "INVALID_ARGUMENTS", f"the {what} file already exists; choose a new name"
        ) from None
    except OSError as exc:
        raise error("INVALID_ARGUMENTS", f"cannot create the {what} file: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise unavailable(exc) from None
    return path


def export(session: Session, output: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    doc = document(session)
    if output is None:
        return {"document": doc}
    path = write_private(output, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return {"path": path, "count": len(doc["memories"])}
