"""Deletion the person asks for: ``forget``, ``forget-object``, ``clear``, ``revoke`` (documentation/commands.md#what-each-command-promises, documentation/privacy.md#erasure-is-physical).

None of these is undoable, and each leaves no copy of what it removed in the
store's files: rows and every undo snapshot that mentions them go in one
transaction, then the file is rebuilt (``Session.finish_erasure``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat

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
        # a past value's handle (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id), not a row's id
        if value.startswith("p-"):
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


def forget(session: Session, column: str, value: str) -> tuple[dict[str, Any], Search]:
    """Delete a row (``column`` memory_id) or a subject (subject_id), and every
    operation whose snapshots mention it. A value that survives only in an undo
    snapshot still counts as found; nothing at all is MEMORY_/SUBJECT_NOT_FOUND.
    With the result, the texts its receipt searches the files for (:func:`verify`)."""
    conn = session.conn
    with session.transaction():
        live, seqs = _targets(session, column, value)
        where = f" WHERE {_ROW_COLUMN[column]} = ?"
        texts = _texts_of(conn, where, (value,), seqs)
        conn.execute("DELETE FROM memories" + where, (value,))
        for seq in seqs:
            drop_operation(conn, seq)
        session.set(erase_pending=True)
    erased = session.finish_erasure(True)
    result: dict[str, Any] = {"deleted": live, "operations_removed": len(seqs), "erased": erased}
    if column == "subject_id":
        result["subject_id"] = value  # the code forgotten, when a label was given
    return result, _to_search(conn, texts)


def clear(session: Session) -> tuple[dict[str, Any], Search]:
    """Every memory and the whole undo history; consent stays as it is."""
    if session.blank:
        return {"deleted": 0, "operations_removed": 0, "erased": True}, ([], 0)
    conn = session.conn
    with session.transaction():
        texts = _texts_of(conn)
        deleted = conn.execute("DELETE FROM memories").rowcount
        ops = conn.execute("DELETE FROM operations").rowcount
        conn.execute("DELETE FROM operation_rows")
        session.set(erase_pending=True)
    erased = session.finish_erasure(True)
    result = {"deleted": deleted, "operations_removed": ops, "erased": erased}
    return result, _to_search(conn, texts)


# ---------------------------------------------------------------- the receipt
#
# documentation/privacy.md ("The receipt"): after an erasure, the texts it removed are
# searched for in the store's files, as UTF-8, and the result says what was found.

Search = tuple  # (texts to search for, how many were left unchecked)
_SHORTEST = 3  # UTF-8 bytes: one or two occur in any SQLite file by chance
_KEYS = ("value", "source_ref")  # values and labels, and the evidence


def _texts_of(
    conn: sqlite3.Connection, where: str = "", params: tuple[Any, ...] = (), seqs: Any = None
) -> set[str]:
    """The values, labels, evidence and past values of the rows ``where`` selects, and
    every text of the operations ``seqs`` (all when None: their snapshots and summaries):
    all that an erasure removes."""
    found: set[str] = set()
    for value, ref, past in conn.execute(
        f"SELECT value, source_ref, past FROM memories{where}", params
    ):
        _collect({"value": value, "source_ref": ref, "past": past}, found)
    ops = "SELECT summary, snapshot FROM operations"
    if seqs is not None:
        ops += " WHERE seq IN (SELECT value FROM json_each(?))"
    for summary, snapshot in conn.execute(ops, () if seqs is None else (json.dumps(seqs),)):
        found.add(summary)
        _collect(json.loads(snapshot), found)
    return found


def _collect(obj: Any, found: set[str]) -> None:
    if isinstance(obj, dict):
        for key, item in obj.items():
            if key in _KEYS and isinstance(item, str) and item:
                found.add(item)
            elif key == "past" and isinstance(item, str):
                _collect(json.loads(item), found)  # a row's past values: JSON text
            else:
                _collect(item, found)
    elif isinstance(obj, list):
        for item in obj:
            _collect(item, found)


def _to_search(conn: sqlite3.Connection | None, texts: set[str]) -> Search:
    """The texts a receipt can search for: not those the store still holds (a value
    another memory shares, a word of a value that stays) nor the shortest; how many
    were left out. No ``conn``: the store is gone (``revoke --delete``)."""
    try:
        if conn is None:
            raise sqlite3.Error
        kept = "\n".join(
            str(v)
            for query in (
                "SELECT * FROM memories",
                "SELECT summary, snapshot FROM operations",
                "SELECT key, value FROM settings",
                "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL",
            )
            for row in conn.execute(query)
            for v in row
            if v is not None
        )
    except sqlite3.Error:
        kept = ""
    search = sorted(t for t in texts if len(t.encode("utf-8")) >= _SHORTEST and t not in kept)
    return search, len(texts) - len(search)


def verify(location: Location, search: Search) -> dict[str, Any]:
    """The receipt: ``search``'s texts looked for, as UTF-8 (and as the JSON text a
    snapshot holds them in), in each of the store's files that exists. Called once no
    connection of this process is open on the store: reading a file would drop the
    locks SQLite holds on it (``storage`` explains)."""
    texts, unchecked = search
    names, size, found = [], 0, 0
    blobs = []
    for name in _receipt_files(location):
        data = _read(os.path.join(location.data_dir, name))
        if data is not None:
            names.append(name)
            size += len(data)
            blobs.append(data)
    for text in texts:
        forms = {text, json.dumps(text, ensure_ascii=False)[1:-1]}
        forms.add(json.dumps(json.dumps(text, ensure_ascii=False), ensure_ascii=False)[3:-3])
        needles = [f.encode("utf-8") for f in forms if f]
        if any(n in blob for n in needles for blob in blobs):
            found += 1
    return {
        "absent": found == 0,
        "files": names,
        "bytes": size,
        "texts": len(texts),
        "found": found,
        "unchecked": unchecked,
    }


def _receipt_files(location: Location) -> list[str]:
    base = os.path.basename(location.path)
    from .storage import tombstone

    return [base + s for s in ("", "-wal", "-shm", "-journal")] + [tombstone.NAME]


def _read(path: str) -> bytes | None:
    """A regular file's bytes; None when absent, a symlink, not a regular file or unreadable."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


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
    full disk can block the deletion (documentation/privacy.md#what-revoke---delete-leaves-a-tombstone).
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
            "verified": verify(location, ([], 0)),
        }
    file_writes.remove_unsafe_side_files(location.path)
    deleted_rows, clean, texts = _empty_if_readable(location)
    # Before a file goes: the database says revoked until its last byte is removed and
    # the tombstone says it from before, so a kill at any instant between leaves
    # "revoked", never a directory that reads as "never asked" (documentation/privacy.md).
    left = tombstone.write(location.data_dir, now())
    overwritten = _remove_files(location.path, clean)
    if not left:  # a full disk has room for it only once the files are gone
        left = tombstone.write(location.data_dir, now())
    return {
        "consent_enabled": False,
        "deleted": True,
        "rows_deleted": deleted_rows,
        # The files are gone; their bytes were erased by SQLite or zeroed first,
        # unless the disk refused even that (overwritten: false).
        "erased": overwritten,
        "overwritten": overwritten,
        "tombstone": left,
        "verified": verify(location, _to_search(None, texts)),
    }


def _empty_if_readable(location: Location) -> tuple[int, bool, set[str]]:
    """(rows deleted, whether SQLite itself emptied and erased the file, the texts the
    rows and operations held: what the receipt searches for)."""
    try:
        # The right to delete does not depend on who owns the directory (documentation/permissions.md#what-the-code-enforces-for-everyone).
        session = Session.attach(location, check_owner=False)
        if session is None:
            return 0, False, set()
        try:
            return _empty_and_revoke(session)
        finally:
            session.close()
    except MemoryStoreError as exc:
        if exc.code == "STORE_CORRUPT":
            return 0, False, set()  # not SQLite: the file is overwritten and removed
        if exc.code != "STORE_UNAVAILABLE" or not os.path.lexists(location.path):
            raise
        # A disk with no free byte: SQLite cannot even give its -shm a page, so it
        # reads nothing ("disk I/O error"). The files are zeroed where the disk allows
        # and unlinked anyway (documentation/privacy.md#what-revoke---delete-leaves-a-tombstone); an unlink the system refuses still fails.
        return _count_without_shm(location.path), False, set()


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


def _empty_and_revoke(session: Session) -> tuple[int, bool, set[str]]:
    texts: set[str] = set()
    try:
        session.inspect(allow_too_new=True)
        if session.blank:
            return 0, True, texts
        if session.version > SCHEMA_VERSION:
            return 0, False, texts  # a newer release's tables: do not guess, overwrite the file
        conn = session.conn
        rows = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
        try:
            with session.transaction():
                texts = _texts_of(conn)
                conn.execute("DELETE FROM memories")
                conn.execute("DELETE FROM operations")
                conn.execute("DELETE FROM operation_rows")
                session.set(
                    consent_enabled=False, paused=True, revoked_at=now(), erase_pending=True
                )
            return rows, db.erase(conn), texts
        except MemoryStoreError as exc:
            if exc.code != "STORE_UNAVAILABLE":
                raise
            return rows, False, texts  # a full disk: the files are overwritten and removed anyway
    except MemoryStoreError as exc:
        if exc.code == "STORE_CORRUPT":
            return 0, False, texts  # unreadable: the files are overwritten and removed below
        raise
    except sqlite3.Error as exc:
        err = db.translate(exc)
        if err.code == "STORE_CORRUPT":
            return 0, False, texts
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
