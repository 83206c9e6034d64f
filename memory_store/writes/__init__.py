"""The operation record: what each write changed, so that ``undo`` can revert it and
``log`` list it (documentation/commands.md#what-each-command-promises); the undo window of ``policy.HISTORY_MAX``."""

from __future__ import annotations

import json
import os

from .. import policy
from ..errors import error
from ..storage import db, rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from ..storage import Session


def one_line(text: str) -> str:
    """Text as a summary shows it: ⏎ for a newline, a space for a tab (documentation/commands.md#what-each-command-promises)."""
    return text.replace("\n", "⏎").replace("\t", " ")


def _short(text: str, limit: int = 40) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize(results: list[dict[str, Any]], pruned: list[dict[str, Any]]) -> str:
    """An operation's one line: its first three changes, then how many more."""
    parts = []
    for r in results:
        m, action = r["memory"], r["action"]
        if action in ("created", "updated") and "past_id" in r:  # one value of a history
            past = next(p for p in m["past"] if p["past_id"] == r["past_id"])
            parts.append(f"{rows.label(m)} → {_short(past['value'])} (until {past['until']})")
        elif action in ("created", "updated"):
            part = f"{rows.label(m)} → {_short(m['value'])}"
            if "replaced" in r:
                part += f" (replaces {r['replaced']['scope']}.{r['replaced']['field']}, now past)"
            elif "related" in r:
                others = ", ".join(f"{m['scope']}.{o['field']}" for o in r["related"])
                part += f" (also current: {others})"
            parts.append(part)
        elif action == "deleted":
            parts.append(f"{rows.label(m)} deleted")
        elif action == "ended":
            parts.append(f"{rows.label(m)} ended")
        elif action == "past_deleted":
            parts.append(f"{rows.label(m)}: a past value deleted")
        elif action == "past_corrected":
            # The store-wide cap of past values may have trimmed it again in this batch.
            corrected = next((p for p in m["past"] if p["past_id"] == r["past_id"]), None)
            text = f" → {_short(corrected['value'])}" if corrected else ""
            parts.append(f"{rows.label(m)}: past value corrected{text}")
    if not parts:
        return "no change"
    text = "; ".join(parts[:3])
    if len(parts) > 3:
        text += f"; +{len(parts) - 3} more"
    if pruned:
        text += f" (pruned {len(pruned)} old row{'s' if len(pruned) > 1 else ''})"
    return text


def record_operation(
    conn: sqlite3.Connection, action: str, summary: str, entries: list[dict[str, Any]], when: str
) -> str:
    """One undoable operation: its before/after snapshot and the index of the rows it touched."""
    seq = (conn.execute("SELECT MAX(seq) FROM operations").fetchone()[0] or 0) + 1
    op_id = "op-" + os.urandom(4).hex()
    conn.execute(
        "INSERT INTO operations (seq, op_id, created_at, action, summary, rows, snapshot) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (seq, op_id, when, action, summary, len(entries), json.dumps(entries, ensure_ascii=False)),
    )
    conn.executemany(
        "INSERT INTO operation_rows (seq, memory_id, subject_id, row_key) VALUES (?, ?, ?, ?)",
        [
            (
                seq,
                e["id"],
                (e["after"] or e["before"])["subject_id"],
                rows.key_of(e["after"] or e["before"]),
            )
            for e in entries
        ],
    )
    return op_id


def drop_operation(conn: sqlite3.Connection, seq: int) -> None:
    conn.execute("DELETE FROM operation_rows WHERE seq = ?", (seq,))
    conn.execute("DELETE FROM operations WHERE seq = ?", (seq,))


def trim_history(conn: sqlite3.Connection) -> bool:
    """Keep the newest operations of the undo window; True if any left it."""
    old = [
        r[0]
        for r in conn.execute(
            "SELECT seq FROM operations ORDER BY seq DESC LIMIT -1 OFFSET ?",
            (policy.HISTORY_MAX,),
        )
    ]
    for seq in old:
        drop_operation(conn, seq)
    return bool(old)


def _operation_to_undo(conn: sqlite3.Connection, op_id: str | None) -> dict[str, Any]:
    if op_id is None:
        ops = db.fetch_all(conn, "SELECT * FROM operations ORDER BY seq DESC LIMIT 1")
        if not ops:
            raise error("NOTHING_TO_UNDO", "there is no operation to undo")
        return ops[0]
    ops = db.fetch_all(conn, "SELECT * FROM operations WHERE op_id = ?", (op_id,))
    if not ops:
        raise error(
            "OPERATION_NOT_FOUND", "no undoable operation has that id (see `log`)", op_id=op_id
        )
    return ops[0]


def _refuse_conflicts(conn: sqlite3.Connection, op: dict[str, Any], entries: list[Any]) -> None:
    """UNDO_CONFLICT when a later operation, or anything else, changed a row since."""
    later = [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT o.op_id, o.seq FROM operations o "
            "JOIN operation_rows lr ON lr.seq = o.seq "
            "JOIN operation_rows mine ON mine.seq = ? "
            "AND (lr.memory_id = mine.memory_id OR lr.row_key = mine.row_key) "
            "WHERE o.seq > ? ORDER BY o.seq DESC",
            (op["seq"], op["seq"]),
        )
    ]
    if later:
        raise error(
            "UNDO_CONFLICT",
            "a later operation changed the same memory; undo it first",
            op_id=op["op_id"],
            later_op_ids=later,
        )
    for e in entries:
        if rows.find_by_id(conn, e["id"]) != e["after"]:
            raise error(
                "UNDO_CONFLICT",
                "the memory no longer matches what the operation wrote",
                op_id=op["op_id"],
                later_op_ids=[],
                memory_id=e["id"],
            )


def undo(session: Session, op_id: str | None = None) -> dict[str, Any]:
    """Revert the latest operation, or the one named; not itself undoable."""
    if session.blank:
        raise error("NOTHING_TO_UNDO", "there is no operation to undo")
    conn = session.conn
    with session.transaction():
        op = _operation_to_undo(conn, op_id)
        entries = json.loads(op["snapshot"])
        _refuse_conflicts(conn, op, entries)
        restored, removed = [], []
        for e in entries:
            if e["after"] is not None:
                rows.delete(conn, e["id"])
                if e["before"] is None:
                    removed.append(rows.public(e["after"]))
        for e in entries:
            if e["before"] is not None:
                rows.insert(conn, e["before"])
                restored.append(rows.public(e["before"]))
        from .caps import check_after_undo  # undo's alone: erasure and tidy need no caps

        check_after_undo(conn, entries, op["op_id"])
        drop_operation(conn, op["seq"])
        session.set(erase_pending=True)
    erased = session.finish_erasure(True)
    return {
        "undone_op_id": op["op_id"],
        "restored": restored,
        "removed": removed,
        "summary": f"undid: {one_line(op['summary'])}",
        "erased": erased,
    }


def log(session: Session) -> dict[str, Any]:
    if session.blank:
        return {"operations": []}
    ops = db.fetch_all(
        session.conn,
        "SELECT op_id, created_at, action, summary, rows FROM operations ORDER BY seq DESC",
    )
    for op in ops:  # summaries written before release 2 may span lines
        op["summary"] = one_line(op["summary"])
    return {"operations": ops}
