"""Stores as an earlier schema version left them, for the migration tests: rows and one
undoable operation written at that version, straight into SQLite."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from memory_store.storage import db, migrations
from memory_store.storage.file_writes import create_private_file, make_private_dirs


def old_row(
    mid: str, scope: str, subject: str, field: str, value: str, seq: int, when: str, **kw: Any
) -> dict[str, Any]:
    """A row with the columns releases 1 and 2 had (the 11 keys, occurred_key, write_seq)."""
    return {
        "id": mid,
        "scope": scope,
        "subject_id": subject,
        "field": field,
        "value": value,
        "source_type": kw.get("source_type", "user_report"),
        "source_ref": kw.get("source_ref"),
        "occurred_at": kw.get("occurred_at"),
        "confidence": kw.get("confidence", "medium"),
        "created_at": kw.get("created_at", when),
        "updated_at": kw.get("updated_at", when),
        "occurred_key": kw.get("occurred_at") if scope == "event" else "",
        "write_seq": seq,
    }


def open_old_store(store_dir: Any, version: int) -> sqlite3.Connection:
    """A new database in ``store_dir`` at schema ``version`` (the first migrations only)."""
    make_private_dirs(str(store_dir))
    path = f"{store_dir}/memory.sqlite3"
    create_private_file(path)
    conn = db.connect(path)
    db.ensure_wal(conn)
    assert migrations.migrate(conn, migrations.MIGRATIONS[:version]) == version
    return conn


def write_old_store(
    conn: sqlite3.Connection,
    rows: list[dict[str, Any]],
    operation: dict[str, Any],
    consent_at: str,
) -> None:
    """Consent, the rows and one operation (``op_id``, ``created_at``, ``summary``,
    ``entries``: its snapshot), with the index undo reads, in one transaction."""
    columns = list(rows[0])
    entries = operation["entries"]
    with db.transaction(conn):
        settings = {
            "consent_enabled": "1",
            "consent_at": consent_at,
            "consent_renewed_at": consent_at,
            "paused": "0",
            "revoked_at": None,
            "policy_version": "1",
            "write_seq": str(max(r["write_seq"] for r in rows)),
        }
        for key, value in settings.items():
            conn.execute("INSERT INTO settings (key, value) VALUES (?, ?)", (key, value))
        marks = ", ".join("?" for _ in columns)
        for r in rows:
            conn.execute(
                f"INSERT INTO memories ({', '.join(columns)}) VALUES ({marks})",
                [r[c] for c in columns],
            )
        conn.execute(
            "INSERT INTO operations (seq, op_id, created_at, action, summary, rows, snapshot) "
            "VALUES (1, ?, ?, 'apply', ?, ?, ?)",
            (
                operation["op_id"],
                operation["created_at"],
                operation["summary"],
                len(entries),
                json.dumps(entries, ensure_ascii=False),
            ),
        )
        for e in entries:
            r = e["after"] or e["before"]
            key = json.dumps(
                [r["scope"], r["subject_id"], r["field"], r["occurred_key"]], ensure_ascii=False
            )
            conn.execute(
                "INSERT INTO operation_rows (seq, memory_id, subject_id, row_key) "
                "VALUES (1, ?, ?, ?)",
                (r["id"], r["subject_id"], key),
            )
