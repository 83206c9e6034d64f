"""SQLite access: connection pragmas, transactions, error translation, erasure."""

from __future__ import annotations

import os
import sqlite3
from itertools import repeat

from ..errors import MemoryStoreError, unavailable

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

# The schema this release writes: the number of migrations in migrations.py. Kept
# here so that opening a current store never imports the migrations.
SCHEMA_VERSION = 4
ENV_BUSY_TIMEOUT = "MEMORY_STORE_BUSY_TIMEOUT_MS"
DEFAULT_BUSY_TIMEOUT_MS = 5000
# An everyday apply that pushes an operation out of the undo window waits only
# this long for readers before leaving the erasure to the next write.
SHORT_ERASE_WAIT_MS = 250

# SQLite primary result codes (the low byte of an extended code).
_BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_CORRUPT = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_UNAVAILABLE = {3, 8, 10, 13, 14, 23}  # PERM, READONLY, IOERR, FULL, CANTOPEN, AUTH


def busy_timeout_ms() -> int:
    raw = os.environ.get(ENV_BUSY_TIMEOUT)
    if raw:
        try:
            return max(0, min(int(raw), 600_000))
        except ValueError:
            pass
    return DEFAULT_BUSY_TIMEOUT_MS


def translate(exc: BaseException) -> MemoryStoreError:
    """Map a sqlite3 or OS error to the error codes (references/error-codes.md#error-codes)."""
    if isinstance(exc, MemoryStoreError):
        return exc
    if isinstance(exc, OSError):
        return unavailable(exc)
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc).lower()
    if primary in _BUSY or "locked" in text or "busy" in text:
        return MemoryStoreError(
            "STORE_BUSY", "the store is busy: another process holds its lock; try again", {}
        )
    if (
        primary in _CORRUPT
        or "not a database" in text
        or "malformed" in text
        or "no such table" in text
        or "no such column" in text
    ):
        return MemoryStoreError(
            "STORE_CORRUPT", "the store file is damaged or is not a memory-store database", {}
        )
    if primary in _UNAVAILABLE or any(
        s in text for s in ("unable to open", "readonly", "read-only", "disk", "i/o", "permission")
    ):
        return MemoryStoreError("STORE_UNAVAILABLE", f"the store cannot be used: {exc}", {})
    return MemoryStoreError("INTERNAL_ERROR", f"unexpected database error: {exc}", {})


# ---------------------------------------------------------------------------
# Connections


def _uri(path: str) -> bytes:
    # A read-write, never-create URI for the file. Built from the file-system
    # encoding of the path (so undecodable bytes in a directory name survive),
    # escaping what a file: URI cannot carry literally; urllib.parse is too
    # slow to import on this path. The path is absolute; "file://" with an empty
    # authority keeps a path that starts with "//" from naming a host.
    raw = os.fsencode(path).replace(b"%", b"%25").replace(b"?", b"%3F").replace(b"#", b"%23")
    return b"file://" + raw + b"?mode=rw"


def connect(db_path: str) -> sqlite3.Connection:
    """Open an existing database file; never creates one (mode=rw)."""
    timeout = busy_timeout_ms()
    try:
        conn = sqlite3.connect(
            _uri(db_path),
            uri=True,
            isolation_level=None,  # we issue BEGIN IMMEDIATE ourselves
            timeout=timeout / 1000,
            check_same_thread=False,
        )
    except sqlite3.Error as exc:
        raise translate(exc) from None
    try:
        # secure_delete zeroes freed cells; temp_store keeps VACUUM's and sorts'
        # scratch copies out of temporary files. synchronous=NORMAL is WAL's
        # recommended setting: commits survive a killed process and the file
        # stays consistent on power loss (the last commits may roll back); the
        # erasure checkpoint still syncs, so a completed erasure is durable.
        # busy_timeout is set by connect()'s timeout argument.
        conn.execute("PRAGMA secure_delete=ON")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error as exc:
        conn.close()
        raise translate(exc) from None
    return conn


class transaction:  # noqa: N801 - used like a function: ``with transaction(conn):``
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception.

    A class rather than ``contextlib.contextmanager``: contextlib is not
    otherwise imported on the read paths.
    """

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise translate(exc) from None
        return self.conn

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            return
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as err:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise translate(err) from None


def ensure_wal(conn: sqlite3.Connection) -> None:
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if str(mode).lower() != "wal":
        conn.execute("PRAGMA journal_mode=WAL")


def restore_wal(conn: sqlite3.Connection) -> None:
    """Switch a store that another tool took out of WAL back, if it can be done now.

    Changing the journal mode needs the file to itself; when another connection
    holds it, the next write tries again.
    """
    try:  # noqa: SIM105 - contextlib is not imported on the per-turn paths
        ensure_wal(conn)
    except sqlite3.Error:
        pass


def erase(conn: sqlite3.Connection, wait_ms: int | None = None) -> bool:
    """Make freed bytes unrecoverable from the store's files; True when complete.

    secure_delete zeroes freed cells, but b-tree rebalancing can leave stale
    copies in the unallocated gap of live pages and the WAL keeps old page
    images. VACUUM rebuilds every page; a TRUNCATE checkpoint copies them into
    the main file and empties the WAL. If a reader holds an old snapshot the
    checkpoint cannot finish: the caller records that and the next write retries.
    """
    if wait_ms is not None:
        conn.execute(f"PRAGMA busy_timeout={wait_ms}")
    try:
        conn.execute("VACUUM")
        busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return busy == 0
    except sqlite3.Error as exc:
        err = translate(exc)
        if err.code == "STORE_BUSY":
            return False
        raise err from None
    finally:
        if wait_ms is not None:
            conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms()}")


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def data_version(conn: sqlite3.Connection) -> int:
    """Changes when another connection commits (not when this one does)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def read_schema(conn: sqlite3.Connection) -> tuple[int, bool]:
    """``(user_version, whether any table exists)`` from one snapshot.

    A store of ours has a version, and then the tables do not matter: one
    ``PRAGMA``, the cheapest statement there is to prepare. Version 0 (a blank
    file, a first ``enable`` under way, a foreign database) is read again with
    the tables in one statement, one read transaction: read in two, a first
    ``enable`` committing in between would make a healthy new store look like
    a foreign database (version 0 with tables).
    """
    version = user_version(conn)
    if version:
        return version, True
    version, tables = conn.execute(
        "SELECT (SELECT user_version FROM pragma_user_version), "
        "EXISTS (SELECT 1 FROM sqlite_master)"
    ).fetchone()
    return int(version), bool(tables)


def fetch_all(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    # One dict per row, zipped without a Python-level loop: a subject's ~40 rows are
    # read on every context call.
    return list(map(dict, map(zip, repeat(names), cur.fetchall())))
