"""Schema migrations: each runs in the same transaction as its ``user_version`` bump."""

from __future__ import annotations

import json

from .db import SCHEMA_VERSION, transaction, user_version

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from typing import Any


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


def _since_of(row: dict[str, Any]) -> str:
    # Release 2 kept no date for when a value became true: outside events,
    # occurred_at already meant "as of"; else the day the value was written.
    return (row.get("occurred_at") or row["updated_at"])[:10]


def m003_time(conn: sqlite3.Connection) -> None:
    """documentation/time.md#where-history-lives: each row's ``since``, its past values (JSON, NULL when none),
    whether it is a pinned milestone, and (documentation/review.md#what-the-review-page-shows) the offset its date-time was given in. An ended row keeps an empty ``value``
    (a stored value is never empty), so the column's NOT NULL stays."""
    import json

    conn.execute("ALTER TABLE memories ADD COLUMN since TEXT")
    conn.execute("ALTER TABLE memories ADD COLUMN past TEXT")
    conn.execute("ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    # The offset a date-time was written with ("+08:00", "Z"): occurred_at is kept in
    # UTC, and the review page shows it as the person said it (documentation/review.md#what-the-review-page-shows).
    conn.execute("ALTER TABLE memories ADD COLUMN occurred_offset TEXT")
    conn.execute("UPDATE memories SET since = substr(coalesce(occurred_at, updated_at), 1, 10)")
    # Undo restores a row exactly from its snapshot and compares the live row with the
    # snapshot's "after": the snapshots get the same new columns, by the same rule.
    for seq, snapshot in conn.execute("SELECT seq, snapshot FROM operations").fetchall():
        entries = json.loads(snapshot)
        for entry in entries:
            for side in ("before", "after"):
                row = entry.get(side)
                if row is not None and "since" not in row:
                    row.update(since=_since_of(row), past=None, pinned=0, occurred_offset=None)
        conn.execute(
            "UPDATE operations SET snapshot = ? WHERE seq = ?",
            (json.dumps(entries, ensure_ascii=False), seq),
        )


def past_id_for(memory_id: str, entry: dict[str, Any], occurrence: int) -> str:
    """The handle m004 gives a past value stored before release 4: derived from its row's
    id, its content and how many identical entries precede it in that row's past, so the
    live row and every undo snapshot that holds the same value get the same handle (undo
    compares a live row with its snapshot exactly)."""
    import hashlib

    text = json.dumps(
        [memory_id, entry.get("value"), entry.get("since"), entry.get("until"), occurrence],
        ensure_ascii=False,
    )
    return "p-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def with_past_ids(memory_id: str, past: list[dict[str, Any]]) -> bool:
    """Give each entry of ``past`` without a ``past_id`` its handle (:func:`past_id_for`);
    whether any changed. An imported version-2 document's past values get theirs so too."""
    seen: dict[str, int] = {}
    changed = False
    for entry in past:
        content = json.dumps(
            [entry.get("value"), entry.get("since"), entry.get("until")], ensure_ascii=False
        )
        occurrence = seen[content] = seen.get(content, -1) + 1
        if "past_id" not in entry:
            entry["past_id"] = past_id_for(memory_id, entry, occurrence)
            changed = True
    return changed


def m004_past_ids(conn: sqlite3.Connection) -> None:
    """references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id: every past value gets its own handle (``past_id``), in the rows and in
    the undo snapshots, so that one past value can be deleted or corrected."""
    for memory_id, raw in conn.execute(
        "SELECT id, past FROM memories WHERE past IS NOT NULL"
    ).fetchall():
        past = json.loads(raw)
        if with_past_ids(memory_id, past):
            conn.execute(
                "UPDATE memories SET past = ? WHERE id = ?",
                (json.dumps(past, ensure_ascii=False), memory_id),
            )
    for seq, snapshot in conn.execute("SELECT seq, snapshot FROM operations").fetchall():
        entries = json.loads(snapshot)
        changed = False
        for entry in entries:
            for side in ("before", "after"):
                row = entry.get(side)
                if row is not None and row.get("past"):
                    past = json.loads(row["past"])
                    if with_past_ids(row["id"], past):
                        row["past"] = json.dumps(past, ensure_ascii=False)
                        changed = True
        if changed:
            conn.execute(
                "UPDATE operations SET snapshot = ? WHERE seq = ?",
                (json.dumps(entries, ensure_ascii=False), seq),
            )


# Append only: a released migration is never edited, renumbered or removed. Adding
# one means raising db.SCHEMA_VERSION with it (checked here, at import).
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_initial,
    m002_write_order_index,
    m003_time,
    m004_past_ids,
]
if len(MIGRATIONS) != SCHEMA_VERSION:
    raise ImportError(f"{len(MIGRATIONS)} migrations for schema version {SCHEMA_VERSION}")


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
