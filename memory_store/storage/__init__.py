"""A Session: one store opened, checked and inspected once.

The CLI opens a session per command and closes it; the MCP server keeps one
open across calls and asks :meth:`Session.is_current` before each, so that a
database deleted or replaced by another process (``revoke --delete`` in a
terminal) is never written through a stale connection.

No session ever opens the store's files by path: POSIX advisory locks belong
to the process, and closing any descriptor of the file drops every lock the
process holds on it, SQLite's included, those of a session held elsewhere in
the same process among them. Another process could then checkpoint and delete
the ``-wal`` under that connection, and writes would be lost. So the checks
use ``lstat``, and SQLite itself recognizes a file that is not a database
(``SQLITE_NOTADB``, which :func:`db.translate` makes ``STORE_CORRUPT``), except
one too short to have a header (:func:`files.check_length`).
"""

from __future__ import annotations

import os
import sqlite3

from ..errors import MemoryStoreError, error
from . import db, files
from .db import SCHEMA_VERSION

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .files import Location


# The fix follows the person's answer, consent_state, in every face: revoked, never offer;
# paused, resume only when asked; never asked, offer once (documentation/permissions.md).
_REVOKED = "work without memory and do not ask again unless they raise it (only they can turn it back on: `{}`)"
_OFFER = "if remembering would help, offer it once; only the person's yes turns it on (`{}`)"


def not_initialized(location: Location | None = None, reading: bool = False) -> MemoryStoreError:
    """NOT_INITIALIZED; with the store's ``location``, the command names it (documentation/variables.md#commands-handed-to-the-person-name-the-store).
    ``reading``: a command that only reads (``show``, ``log``, ``review``, ``export``)."""
    command = location.command("enable", "--confirm") if location else "enable --confirm"
    kept = "nothing is kept: " if reading else ""
    if location is not None:
        from . import tombstone

        left = tombstone.read(location.data_dir)
        # documentation/privacy.md#what-revoke---delete-leaves-a-tombstone: revoked stays revoked
        if left is not None:
            return error(
                "NOT_INITIALIZED",
                f"{kept}the person turned memory off and had everything deleted; "
                + _REVOKED.format(command),
                consent_state="revoked",
                revoked_at=left["revoked_at"],
            )
    if reading:
        return error(
            "NOT_INITIALIZED",
            "nothing is kept: long-term memory was never turned on here",
            consent_state="absent",
        )
    return error(
        "NOT_INITIALIZED",
        "long-term memory is not on: " + _OFFER.format(command),
        consent_state="absent",
    )


def consent_state(settings: dict[str, Any]) -> str:
    """One word for the person's answer, from the settings of an existing store.

    ``revoked`` needs a consent given once (``consent_at``) or a revoke on
    record: a file whose first ``enable`` never finished (zero-length, or no
    consent recorded) is ``never_enabled``, a person who has not yet been
    asked. ``enable --confirm`` clears ``revoked_at``, so a store enabled again
    is ``enabled`` or ``paused`` as before.
    """
    if settings["consent_enabled"]:
        return "paused" if settings["paused"] else "enabled"
    if settings["revoked_at"] or settings["consent_at"]:
        return "revoked"
    return "never_enabled"


def consent_refusal(location: Location, settings: dict[str, Any], what: str) -> MemoryStoreError:
    """CONSENT_REQUIRED or MEMORY_PAUSED for a store whose person has not said yes, said
    no or paused, with the fix their answer allows; ``what`` says what did not happen."""
    state = consent_state(settings)
    if state == "paused":
        resume = location.command("resume")
        return error(
            "MEMORY_PAUSED",
            f"memory is paused: work without it; resume only when the person asks (`{resume}`); "
            + what,
            consent_state=state,
        )
    command = location.command("enable", "--confirm")
    fix = (
        "the person turned memory off: " + _REVOKED
        if state == "revoked"
        else ("long-term memory is not on: " + _OFFER)
    )
    return error("CONSENT_REQUIRED", f"{fix.format(command)}; {what}", consent_state=state)


def schema_too_new(found: int) -> MemoryStoreError:
    return error(
        "SCHEMA_TOO_NEW",
        "the store was written by a newer memory-store; upgrade before using it",
        found=found,
        supported=SCHEMA_VERSION,
    )


def not_a_memory_store() -> MemoryStoreError:
    return error("STORE_CORRUPT", "the file holds a database that is not a memory store")


_HOLDS = (
    "SELECT 1 FROM memories WHERE subject_id = ? "
    "UNION ALL SELECT 1 FROM operation_rows WHERE subject_id = ? LIMIT 1"
)


def _setting_value(value: Any) -> str | None:
    if isinstance(value, bool):
        return "1" if value else "0"
    return None if value is None else str(value)


class Session:
    """An open connection to one store, and what opening it learned.

    ``version`` is the schema version (``PRAGMA user_version``); ``blank`` is
    true for a zero-length or table-less file, a first ``enable`` that did not
    finish.
    """

    def __init__(
        self,
        location: Location,
        conn: sqlite3.Connection,
        st: os.stat_result,
        check_owner: bool = True,
    ):
        self.location = location
        self.conn = conn
        self.identity = (st.st_dev, st.st_ino)
        self.check_owner = check_owner  # rechecked before every call of a held session
        self.version = 0
        self.blank = False
        # A held session (the server) remembers the last rows it read; see read_rows.
        self.remember = False
        self._rows: tuple[tuple[Any, ...], list[dict[str, Any]]] | None = None

    # -------------------------------------------------------------- opening

    @classmethod
    def attach(cls, location: Location, check_owner: bool = True) -> Session | None:
        """Steps 2-3 of the check order (documentation/commands.md#consent-states-and-the-order-of-checks), up to a connection.

        The data directory and the files must be safe (and, unless
        ``check_owner`` is false, owned by this user and not writable by
        others), a non-empty file must be SQLite; None when there is no store
        (nothing is created), including a store that a concurrent
        ``revoke --delete`` removed while this ran.
        """
        dir_st = files.check_data_dir(location.data_dir)
        if dir_st is None:
            return None
        if check_owner:
            files.check_ownership(dir_st)
        st = files.check_store_files(location.path)
        if st is None:
            return None
        if check_owner:
            files.check_ownership(dir_st, st)
        files.check_length(st)
        try:
            conn = db.connect(location.path)
        except MemoryStoreError as exc:
            if exc.code == "STORE_UNAVAILABLE" and not os.path.lexists(location.path):
                return None  # removed since the lstat above: answer as for an absent store
            raise
        return cls(location, conn, st, check_owner)

    @classmethod
    def open(cls, location: Location, reading: bool = False) -> Session:
        """A session on an existing, current store; NOT_INITIALIZED when there is none
        (``reading``: for a command that only reads, it says that nothing is kept)."""
        session = cls.attach(location)
        if session is None:
            raise not_initialized(location, reading)
        try:
            session.inspect()
        except BaseException:
            session.close()
            raise
        return session

    def inspect(self, migrate_older: bool = True, allow_too_new: bool = False) -> None:
        """Read the schema version; refuse a newer or foreign schema, migrate an older one."""
        try:
            version, tables = db.read_schema(self.conn)
            if version > SCHEMA_VERSION:
                if not allow_too_new:
                    raise schema_too_new(version)
            elif version == 0:
                if tables:
                    raise not_a_memory_store()
            elif version < SCHEMA_VERSION and migrate_older:
                from .migrations import migrate

                version = migrate(self.conn)
        except sqlite3.Error as exc:
            raise db.translate(exc) from None
        self.version = version
        self.blank = version == 0

    def initialize(self) -> None:
        """Complete a blank or older store: WAL journal, every migration (``enable``)."""
        from .migrations import migrate

        db.ensure_wal(self.conn)
        self.version = migrate(self.conn)
        self.blank = False

    def _current_stat(self) -> os.stat_result | None:
        """The database file's ``lstat`` after the checks a fresh process makes (``attach``):
        the directory and files safe and, unless this session skips it, owned by this user
        and not writable by others — a held session (the server) must notice a ``chmod
        777`` made while it runs. None when the directory or the database is gone."""
        dir_st = files.check_data_dir(self.location.data_dir)
        if dir_st is None:
            return None
        if self.check_owner:
            files.check_ownership(dir_st)
        st = files.check_store_files(self.location.path)
        if st is not None and self.check_owner:
            files.check_ownership(dir_st, st)
        return st

    def is_current(self) -> bool:
        """Whether the file at the store's path is still the one this session holds.

        ``lstat`` only (see the module docstring). False when the database was
        removed or replaced, or its directory or files became unsafe.
        """
        try:
            st = self._current_stat()
        except MemoryStoreError:
            return False
        return st is not None and (st.st_dev, st.st_ino) == self.identity

    def refresh(self) -> None:
        """Notice a migration by another process since the last call (or a newer release's)."""
        try:
            changed = db.user_version(self.conn) != self.version
        except sqlite3.Error as exc:
            raise db.translate(exc) from None
        if changed:
            self.inspect()

    def close(self) -> None:
        self._rows = None
        self.conn.close()

    # -------------------------------------------------------------- reading

    def read_rows(
        self, where: str = "", params: tuple[Any, ...] = (), columns: str | None = None
    ) -> list[dict[str, Any]]:
        """``rows.select`` on this connection. A held session keeps the last answer while
        SQLite says the database is unchanged, the rule SQLite's own page cache follows:
        no commit by another connection (``PRAGMA data_version``) and none by this one
        (``total_changes``). Reading ~40 rows costs more than ranking them, and a host asks
        about the same person turn after turn. The rows are shared: never change them.
        ``columns``: a ``SELECT ... FROM memories`` of fewer columns (``rows.RECALL``).
        """
        from . import rows

        columns = columns or rows.SELECT
        if not self.remember:
            return rows.select(self.conn, where, params, columns)
        try:
            key = (columns, where, *params, db.data_version(self.conn), self.conn.total_changes)
        except sqlite3.Error as exc:
            raise db.translate(exc) from None
        if self._rows is not None and self._rows[0] == key:
            return self._rows[1]
        self._rows = None  # never two copies
        found = rows.select(self.conn, where, params, columns)
        self._rows = (key, found)
        return found

    def holds_subject(self, code: str) -> bool:
        """Whether a subject code has a live row or an undo snapshot (``subjects``)."""
        return not self.blank and self.conn.execute(_HOLDS, (code, code)).fetchone() is not None

    # -------------------------------------------------------------- settings

    def settings(self) -> dict[str, Any]:
        raw: dict[str, str | None] = {}
        if not self.blank:
            raw = dict(self.conn.execute("SELECT key, value FROM settings").fetchall())
        return {
            "consent_enabled": raw.get("consent_enabled") == "1",
            "consent_at": raw.get("consent_at"),
            "consent_renewed_at": raw.get("consent_renewed_at"),
            "revoked_at": raw.get("revoked_at"),
            "paused": raw.get("paused") == "1",
            "policy_version": int(version) if (version := raw.get("policy_version")) else None,
            "write_seq": int(raw.get("write_seq") or 0),
            "erase_pending": raw.get("erase_pending") == "1",
        }

    def set(self, **values: Any) -> None:
        """Write settings; call inside a transaction."""
        self.conn.executemany(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [(key, _setting_value(value)) for key, value in values.items()],
        )

    def gate(self, settings: dict[str, Any]) -> None:
        """Step 4: consent, then pause. ``apply``, ``context`` and ``search`` pass it.

        A store that ``revoke --delete`` emptied and removed while this call
        held it open is refused as absent, as a fresh process would refuse it.
        """
        if settings["consent_enabled"] and not settings["paused"]:
            return
        self.ensure_current()
        raise consent_refusal(self.location, settings, "nothing was read or written")

    # -------------------------------------------------------------- writing

    def ensure_current(self) -> None:
        """NOT_INITIALIZED when the database was removed since it was opened; STORE_BUSY
        when another file took its place (the command may simply be run again);
        STORE_UNSAFE when the directory or the database became another user's or
        writable by others, as a fresh process would refuse it."""
        try:
            st = self._current_stat()
        except MemoryStoreError as exc:
            if files.is_ownership_problem(exc):
                raise
            st = None
        if st is not None and (st.st_dev, st.st_ino) == self.identity:
            return
        if self.location_exists():
            raise error(
                "STORE_BUSY",
                "the store was replaced while this command ran; nothing was written; try again",
            )
        raise not_initialized(self.location)

    def location_exists(self) -> bool:
        return os.path.lexists(self.location.path)

    def transaction(self) -> _Write:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` for one write (a store taken out of WAL goes back first).

        Once the lock is held, the file at the store's path must still be the
        one this session opened: a write that lost a race with ``revoke
        --delete`` would otherwise be acknowledged into an unlinked file.
        """
        self._rows = None  # a write may delete what they hold
        if not self.blank:  # a blank file stays as it is until enable completes it
            db.restore_wal(self.conn)
        return _Write(self)

    def finish_erasure(self, needed: bool, wait_ms: int | None = None) -> bool:
        """Erase freed bytes after a commit; True when the erasure is complete.

        Every committed write calls it: ``needed`` when the write itself freed
        data, otherwise it finishes an erasure an earlier write left pending
        (a reader pinned old pages, or the process died before its VACUUM).
        The write itself has committed (and set ``erase_pending`` in the same
        transaction), so nothing here may turn it into a failure: if erasure
        cannot finish (a reader pins old pages, the disk is full), the flag
        stays set and the next write completes the job.
        """
        if needed:
            forget_cached_text()
        try:
            if not (needed or self.settings()["erase_pending"]):
                return True
            if not db.erase(self.conn, wait_ms):
                return False
            with self.transaction():
                self.set(erase_pending=False)
            return True
        except (MemoryStoreError, sqlite3.Error):
            return False


# A module above storage that keeps rows' text between calls (recall's ranking) registers
# its clearing here: a long-lived process must not keep erased text (privacy.md).
_ON_ERASURE: list[Callable[[], None]] = []


def on_erasure(forget: Callable[[], None]) -> None:
    """Have ``forget`` called after every erasure in this process."""
    if forget not in _ON_ERASURE:
        _ON_ERASURE.append(forget)


def forget_cached_text() -> None:
    """Clear every cache registered with :func:`on_erasure` (after rows were erased)."""
    for forget in _ON_ERASURE:
        forget()


class _Write(db.transaction):
    def __init__(self, session: Session):
        super().__init__(session.conn)
        self.session = session

    def __enter__(self) -> sqlite3.Connection:
        conn = super().__enter__()
        try:
            self.session.ensure_current()
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return conn


class Opened:
    """``with Opened(session):`` closes the session and turns a stray sqlite3 error into a code."""

    def __init__(self, session: Session, close: bool = True):
        self.session = session
        self.close = close

    def __enter__(self) -> Session:
        return self.session

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self.close:
            self.session.close()
        elif self.session.conn.in_transaction:
            self.session.conn.execute("ROLLBACK")  # no transaction outlives a call
        if isinstance(exc, sqlite3.Error):
            raise db.translate(exc) from None
