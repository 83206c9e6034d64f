"""Deletion the person asks for: ``forget``, ``forget-object``, ``clear``, ``revoke`` (§8, §9).

None of these is undoable, and each leaves no copy of what it removed in the
store's files: rows and every undo snapshot that mentions them go in one
transaction, then the file is rebuilt (``Session.finish_erasure``).
"""

from __future__ import annotations

import os
import sqlite3

from .errors import MemoryStoreError, error, unavailable
from .storage import Session, db, file_writes, files
from .storage.db import SCHEMA_VERSION
from .storage.rows import now
from .writes import drop_operation

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from .storage.files import Location


def _not_found(column: str, value: str, known: list[str]) -> MemoryStoreError:
    if column == "memory_id":
        if value.startswith("p-"):  # a past value's handle (contract §23), not a row's id
            return error(
                "MEMORY_NOT_FOUND",
                "that is a past value's handle (past_id), not a memory id; nothing was "
                'deleted. Remove one past value with apply {"action": "delete", "past_id": …}',
                memory_id=value,
            )
        return error(
            "MEMORY_NOT_FOUND", "no memory has that id; nothing was deleted", memory_id=value
        )
    return error(
        "SUBJECT_NOT_FOUND",
        "no memory is about that subject; nothing was deleted",
        subject_id=value,
        known_subjects=known,
    )


def known_subjects(conn: sqlite3.Connection) -> list[str]:
    """Every subject with a live row or an undo snapshot."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT subject_id FROM memories UNION SELECT subject_id FROM operation_rows ORDER BY 1"
        )
    ]


# The memories column that a forget's column names (operation_rows says memory_id).
_ROW_COLUMN = {"memory_id": "id", "subject_id": "subject_id"}


def _targets(session: Session, column: str, value: str) -> tuple[int, list[int]]:
    """(live rows, operations whose snapshots mention it) of a row or a subject;
    MEMORY_/SUBJECT_NOT_FOUND when nothing matches anywhere."""
    if session.blank:
        raise _not_found(column, value, [])
    conn = session.conn
    live = conn.execute(
        f"SELECT COUNT(*) FROM memories WHERE {_ROW_COLUMN[column]} = ?", (value,)
    ).fetchone()[0]
    seqs = [
        r[0]
        for r in conn.execute(
            f"SELECT DISTINCT seq FROM operation_rows WHERE {column} = ?", (value,)
        )
    ]
    if not live and not seqs:
        raise _not_found(column, value, known_subjects(conn))
    return live, seqs


def preview(session: Session, column: str, value: str) -> dict[str, Any]:
    """What ``forget``/``forget-object`` would delete, for the question the person is
    asked before it happens: live rows, undo steps, the person's label, the value."""
    live, seqs = _targets(session, column, value)
    conn = session.conn
    row = conn.execute(
        f"SELECT subject_id, value FROM memories WHERE {_ROW_COLUMN[column]} = ? LIMIT 1", (value,)
    ).fetchone()
    subject = value if column == "subject_id" else (row[0] if row else None)
    label = conn.execute(
        "SELECT value FROM memories WHERE scope = 'object' AND field = 'display_label' "
        "AND subject_id = ?",
        (subject,),
    ).fetchone()
    return {
        "rows": live,
        "operations": len(seqs),
        "subject_id": subject,
        "label": label[0] if label else None,
        "value": row[1] if row and column == "memory_id" else None,
    }


def forget(session: Session, column: str, value: str) -> dict[str, Any]:
    """Delete a row (``column`` memory_id) or a subject (subject_id), and every
    operation whose snapshots mention it. A value that survives only in an undo
    snapshot still counts as found; nothing at all is MEMORY_/SUBJECT_NOT_FOUND."""
    conn = session.conn
    with session.transaction():
        live, seqs = _targets(session, column, value)
        conn.execute(f"DELETE FROM memories WHERE {_ROW_COLUMN[column]} = ?", (value,))
        for seq in seqs:
            drop_operation(conn, seq)
        session.set(erase_pending=True)
    erased = session.finish_erasure(True)
    return {"deleted": live, "operations_removed": len(seqs), "erased": erased}


def clear(session: Session) -> dict[str, Any]:
    """Every memory and the whole undo history; consent stays as it is."""
    if session.blank:
        return {"deleted": 0, "operations_removed": 0, "erased": True}
    conn = session.conn
    with session.transaction():
        deleted = conn.execute("DELETE FROM memories").rowcount
        ops = conn.execute("DELETE FROM operations").rowcount
        conn.execute("DELETE FROM operation_rows")
        session.set(erase_pending=True)
    erased = session.finish_erasure(True)
    return {"deleted": deleted, "operations_removed": ops, "erased": erased}


def revoke(session: Session) -> dict[str, Any]:
    """Consent withdrawn, data kept, paused."""
    if not session.blank:
        with session.transaction():
            session.set(consent_enabled=False, paused=True, revoked_at=now())
        session.finish_erasure(False, db.SHORT_ERASE_WAIT_MS)
    return {"consent_enabled": False, "paused": True, "deleted": False}


def revoke_delete(location: Location) -> dict[str, Any]:
    """Delete everything; works on a missing, blank, too-new or corrupt store.

    The rows go first, in one transaction that also withdraws consent, so an
    interruption leaves the store unchanged or empty-and-revoked. Only then
    are the files overwritten and removed. Neither a planted side file nor a
    full disk can block the deletion (contract §17).
    """
    from .storage import forget_cached_text, tombstone

    forget_cached_text()  # this process's copies first: the files' bytes go below
    if not files.check_data_dir(location.data_dir):
        return {
            "consent_enabled": False,
            "deleted": True,
            "rows_deleted": 0,
            "erased": True,
            "overwritten": True,
            "tombstone": False,  # no directory: nothing is created, not even a tombstone
        }
    file_writes.remove_unsafe_side_files(location.path)
    deleted_rows, clean = _empty_if_readable(location)
    # Before a file goes: the database says revoked until its last byte is removed and
    # the tombstone says it from before, so a kill at any instant between leaves
    # "revoked", never a directory that reads as "never asked" (documentation/privacy.md).
    left = tombstone.write(location.data_dir, now())
    overwritten = _remove_files(location.path, clean)
    return {
        "consent_enabled": False,
        "deleted": True,
        "rows_deleted": deleted_rows,
        # The files are gone; their bytes were erased by SQLite or zeroed first,
        # unless the disk refused even that (overwritten: false).
        "erased": overwritten,
        "overwritten": overwritten,
        "tombstone": left,
    }


def _empty_if_readable(location: Location) -> tuple[int, bool]:
    """(rows deleted, whether SQLite itself emptied and erased the file)."""
    try:
        # The right to delete does not depend on who owns the directory (contract §17).
        session = Session.attach(location, check_owner=False)
        if session is None:
            return 0, False
        try:
            return _empty_and_revoke(session)
        finally:
            session.close()
    except MemoryStoreError as exc:
        if exc.code == "STORE_CORRUPT":
            return 0, False  # not SQLite: the file is overwritten and removed
        if exc.code != "STORE_UNAVAILABLE" or not os.path.lexists(location.path):
            raise
        # A disk with no free byte: SQLite cannot even give its -shm a page, so it
        # reads nothing ("disk I/O error"). The files are zeroed where the disk allows
        # and unlinked anyway (contract §21); an unlink the system refuses still fails.
        return _count_without_shm(location.path), False


def _count_without_shm(path: str) -> int:
    """The rows of a store SQLite cannot open normally, for the result: in exclusive
    locking mode SQLite keeps the WAL index in memory and needs no -shm; 0 if even
    that fails. (No other connection of this process is open on
    the file, ``MemoryStore.revoke`` dropped its own, so no lock is lost by closing.)"""
    try:
        # Read-write: a read-only connection cannot read a WAL without a -shm. It only
        # counts; closing may checkpoint the WAL into the file, which is zeroed next.
        conn = sqlite3.connect(db._uri(path), uri=True, isolation_level=None)
    except sqlite3.Error:
        return 0
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        return int(conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def _empty_and_revoke(session: Session) -> tuple[int, bool]:
    try:
        session.inspect(allow_too_new=True)
        if session.blank:
            return 0, True
        if session.version > SCHEMA_VERSION:
            return 0, False  # a newer release's tables: do not guess, overwrite the file
        conn = session.conn
        rows = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
        try:
            with session.transaction():
                conn.execute("DELETE FROM memories")
                conn.execute("DELETE FROM operations")
                conn.execute("DELETE FROM operation_rows")
                session.set(
                    consent_enabled=False, paused=True, revoked_at=now(), erase_pending=True
                )
            return rows, db.erase(conn)
        except MemoryStoreError as exc:
            if exc.code != "STORE_UNAVAILABLE":
                raise
            return rows, False  # a full disk: the files are overwritten and removed anyway
    except MemoryStoreError as exc:
        if exc.code == "STORE_CORRUPT":
            return 0, False  # unreadable: the files are overwritten and removed below
        raise
    except sqlite3.Error as exc:
        err = db.translate(exc)
        if err.code == "STORE_CORRUPT":
            return 0, False
        raise err from None


def _remove_files(path: str, clean: bool) -> bool:
    """Unlink the database and its side files, zeroing them first unless SQLite erased them.

    Zeroing means a process still holding the files open cannot read the old
    bytes. The database is opened first and unlinked before a byte of it is
    overwritten: an interruption leaves it intact or absent, never a
    half-zeroed database at the store's path. The files are unlinked even when
    they cannot be overwritten (a full disk); the result says so: True when
    the bytes were erased or zeroed.
    """
    fds = (
        []
        if clean
        else [file_writes.open_for_overwrite(path + s) for s in ("", "-wal", "-journal")]
    )
    overwritten = True
    try:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise unavailable(exc) from None
        file_writes.remove_side_files(path)
        for fd in fds:
            if fd is not None:
                try:
                    file_writes.overwrite_with_zeros(fd)
                except MemoryStoreError:
                    overwritten = False
    finally:
        for fd in fds:
            if fd is not None:
                os.close(fd)
    return overwritten
