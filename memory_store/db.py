"""SQLite access: file safety checks, connection pragmas, transactions, migrations, erasure."""

from __future__ import annotations

import os
import sqlite3
import stat

from .errors import MemoryStoreError
from .paths import SIDE_SUFFIXES

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SQLITE_MAGIC = b"SQLite format 3\x00"
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
    """Map a sqlite3 or OS error to the contract's codes."""
    if isinstance(exc, MemoryStoreError):
        return exc
    if isinstance(exc, OSError):
        return MemoryStoreError(
            "STORE_UNAVAILABLE",
            f"the store cannot be used: {exc.strerror or exc}",
            {"errno": exc.errno},
        )
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
# File checks (before SQLite ever touches the path)


def _through_a_file() -> MemoryStoreError:
    return MemoryStoreError("STORE_UNAVAILABLE", "the data directory path runs through a file", {})


def check_data_dir(directory: str) -> bool:
    """True if the directory exists; STORE_UNAVAILABLE if it is something else."""
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        raise _through_a_file() from None
    except OSError as exc:
        raise translate(exc) from None
    if not stat.S_ISDIR(st.st_mode):
        raise MemoryStoreError("STORE_UNAVAILABLE", "the data directory is not a directory", {})
    return True


def check_store_files(db_path: str) -> int | None:
    """Size of the database file, or None when it does not exist.

    A database, -wal or -shm that is a symlink or not a regular file is
    STORE_UNSAFE: SQLite would follow it somewhere we did not choose.
    """
    size: int | None = None
    for suffix in ("", *SIDE_SUFFIXES):
        path = db_path + suffix
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            raise _through_a_file() from None
        except OSError as exc:
            raise translate(exc) from None
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
            raise MemoryStoreError(
                "STORE_UNSAFE",
                f"{os.path.basename(path)} is a symlink or not a regular file; refusing to use it",
                {"file": os.path.basename(path)},
            )
        if suffix == "":
            size = st.st_size
    return size


def check_header(db_path: str) -> None:
    try:
        with open(db_path, "rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise translate(exc) from None
    if head != SQLITE_MAGIC:
        raise MemoryStoreError("STORE_CORRUPT", "the store file is not a SQLite database", {})


# ---------------------------------------------------------------------------
# Connections


def _uri(path: str) -> bytes:
    # A read-write, never-create URI for the file. Built from the file-system
    # encoding of the path (so undecodable bytes in a directory name survive),
    # escaping what a file: URI cannot carry literally; urllib.parse is too
    # slow to import on this path.
    raw = os.fsencode(path).replace(b"%", b"%25").replace(b"?", b"%3F").replace(b"#", b"%23")
    return b"file:" + raw + b"?mode=rw"


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


def open_for_overwrite(path: str) -> int | None:
    """A write descriptor for ``path`` (never through a symlink), or None if it is absent."""
    try:
        return os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise translate(exc) from None


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
        raise translate(exc) from None


# ---------------------------------------------------------------------------
# Migrations: each runs in the same transaction as its user_version bump.


def m001_initial(conn: sqlite3.Connection) -> None:
    statements = [
        """CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT
        )""",
        """CREATE TABLE memories (
            id TEXT PRIMARY KEY,
            scope TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            field TEXT NOT NULL,
            occurred_key TEXT NOT NULL DEFAULT '',
            value TEXT NOT NULL,
            source_type TEXT NOT NULL,
            source_ref TEXT,
            occurred_at TEXT,
            confidence TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            write_seq INTEGER NOT NULL,
            UNIQUE (scope, subject_id, field, occurred_key)
        )""",
        "CREATE INDEX memories_subject ON memories (subject_id, scope)",
        """CREATE TABLE operations (
            seq INTEGER PRIMARY KEY,
            op_id TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            action TEXT NOT NULL,
            summary TEXT NOT NULL,
            rows INTEGER NOT NULL,
            snapshot TEXT NOT NULL
        )""",
        """CREATE TABLE operation_rows (
            seq INTEGER NOT NULL,
            memory_id TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            row_key TEXT NOT NULL,
            PRIMARY KEY (seq, memory_id)
        )""",
        "CREATE INDEX operation_rows_memory ON operation_rows (memory_id)",
        "CREATE INDEX operation_rows_subject ON operation_rows (subject_id)",
        "CREATE INDEX operation_rows_key ON operation_rows (row_key)",
    ]
    for sql in statements:
        conn.execute(sql)


def m002_write_order_index(conn: sqlite3.Connection) -> None:
    # Pruning and context read rows of one subject in write order; the new index
    # also serves every lookup the old (subject_id, scope) index did.
    conn.execute(
        "CREATE INDEX memories_write_order ON memories (subject_id, scope, updated_at, write_seq)"
    )
    conn.execute("DROP INDEX memories_subject")


# Append only: a released migration is never edited, renumbered or removed.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [m001_initial, m002_write_order_index]
SCHEMA_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is not None


def migrate(conn: sqlite3.Connection, migrations: list[Any] | None = None) -> int:
    """Bring the schema to the latest version; each step is its own transaction."""
    steps = MIGRATIONS if migrations is None else migrations
    version = user_version(conn)
    while version < len(steps):
        with transaction(conn):
            # Another process may have migrated between our read and our lock.
            version = user_version(conn)
            if version >= len(steps):
                break
            steps[version](conn)
            conn.execute(f"PRAGMA user_version={version + 1}")
        version += 1
    return version


def fetch_all(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
