"""Writes that can be undone: ``apply``, the operation record, ``undo`` and ``log``."""

from __future__ import annotations

import json
import os

from . import caps, db, policy, rows
from .errors import error

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from .session import Session

# The attributes an upsert sets; a write whose attributes all equal the row's is "unchanged".
_WRITTEN = ("value", "source_type", "source_ref", "occurred_at", "confidence")


class DryRun(Exception):
    """Raised inside a write transaction to roll it back and return what it would have done."""

    def __init__(self, result: dict[str, Any]):
        super().__init__("dry run")
        self.result = result


def one_line(text: str) -> str:
    """Text as a summary shows it: ⏎ for a newline, a space for a tab (contract §17)."""
    return text.replace("\n", "⏎").replace("\t", " ")


def _short(text: str, limit: int = 40) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize(results: list[dict[str, Any]], pruned: list[dict[str, Any]]) -> str:
    parts = []
    for r in results:
        m, action = r["memory"], r["action"]
        if action in ("created", "updated"):
            parts.append(f"{rows.label(m)} → {_short(m['value'])}")
        elif action == "deleted":
            parts.append(f"{rows.label(m)} deleted")
    if not parts:
        return "no change"
    text = "; ".join(parts[:3])
    if len(parts) > 3:
        text += f"; +{len(parts) - 3} more"
    if pruned:
        text += f" (pruned {len(pruned)} old row{'s' if len(pruned) > 1 else ''})"
    return text


def read_payload(payload: object) -> Any:
    """The parsed body of an apply: text, bytes, or Python data (taking the same parser)."""
    from . import validation  # the write path pays for jsonschema, the read paths do not

    raw = payload() if callable(payload) else payload
    if isinstance(raw, bytearray):
        raw = bytes(raw)
    elif not isinstance(raw, (bytes, str)):
        try:
            raw = json.dumps(raw, ensure_ascii=False)
        except (TypeError, ValueError):
            raise error(
                "INVALID_DELTA", "the delta is not JSON data", index=None, path="$"
            ) from None
    return validation.parse_body(raw)


def apply(session: Session, payload: object, dry_run: bool = False) -> dict[str, Any]:
    """Record one delta or a batch as one undoable operation.

    ``payload`` may be a callable returning the raw body: it is called only
    after the consent gate, so that without consent the input is never read.
    """
    session.gate(session.settings())
    from . import validation

    deltas = validation.load_deltas(read_payload(payload))
    try:
        with session.transaction():
            settings = session.settings()  # again under the lock: consent may have changed
            session.gate(settings)
            batch = Batch(session.conn, settings["write_seq"])
            batch.write(deltas)
            result, trimmed = batch.finish(session)
            if dry_run:
                raise DryRun(result)
    except DryRun as done:
        result = done.result
        result.update(op_id=None, undo_hint=None, dry_run=True)
        return result
    result["dry_run"] = False
    session.finish_erasure(trimmed, db.SHORT_ERASE_WAIT_MS)
    return result


class Batch:
    """One operation's deltas written inside its transaction, with what undo needs.

    ``apply`` writes with ``now`` as the time and prunes what a pruning kind
    must lose; ``import`` (``restore=True``) keeps each row's own id where it
    is free and its own ``created_at``/``updated_at``, and never prunes.
    """

    def __init__(self, conn: sqlite3.Connection, seq: int, restore: bool = False):
        self.conn = conn
        self.seq = seq  # the last write sequence number used
        self.restore = restore
        self.where = "$.memories" if restore else "$.deltas"
        self.now = rows.now()
        self.touched: dict[str, dict[str, Any]] = {}  # memory id -> {id, before, after}
        self.results: list[dict[str, Any]] = []
        self.keys_named: dict[str, int] = {}
        self.protected: set[str] = set()

    def write(self, deltas: list[dict[str, Any]]) -> None:
        for i, d in enumerate(deltas):
            if d["action"] == "delete":
                self._delete(i, d)
            else:
                self._upsert(i, d)

    def _name(self, i: int, key: str) -> None:
        # Two deltas may name one row in ways validation cannot see (an id and a key).
        if key in self.keys_named:
            raise error(
                "INVALID_DELTA",
                f"deltas {self.keys_named[key]} and {i} name the same memory",
                index=i,
                other_index=self.keys_named[key],
                path=f"{self.where}[{i}]",
            )
        self.keys_named[key] = i

    def _delete(self, i: int, d: dict[str, Any]) -> None:
        from .validation import row_key

        conn = self.conn
        row = rows.find_by_id(conn, d["id"]) if "id" in d else rows.find_by_key(conn, row_key(d))
        if row is None:
            raise error(
                "MEMORY_NOT_FOUND",
                f"delta {i} deletes a memory that does not exist; nothing was changed",
                index=i,
            )
        self._name(i, rows.key_of(row))
        rows.delete(conn, row["id"])
        self.touched[row["id"]] = {"id": row["id"], "before": row, "after": None}
        self.results.append({"index": i, "action": "deleted", "memory": rows.public(row)})

    def _upsert(self, i: int, d: dict[str, Any]) -> None:
        from .validation import row_key

        key = row_key(d)
        self._name(i, rows.key_of({**d, "occurred_key": key[3]}))
        row = rows.find_by_key(self.conn, key)
        values = {k: d[k] for k in _WRITTEN}
        if row is not None and all(row[k] == v for k, v in values.items()):
            self.protected.add(row["id"])
            self.results.append({"index": i, "action": "unchanged", "memory": rows.public(row)})
            return
        self.seq += 1
        created, updated = d.get("created_at", self.now), d.get("updated_at", self.now)
        if row is not None:
            if not self.restore:
                created = row["created_at"]
            new = {**row, **values, "created_at": created, "updated_at": updated}
            new["write_seq"] = self.seq
            self.conn.execute(
                "UPDATE memories SET value = ?, source_type = ?, source_ref = ?, occurred_at = ?, "
                "confidence = ?, created_at = ?, updated_at = ?, write_seq = ? WHERE id = ?",
                (*values.values(), created, updated, self.seq, row["id"]),
            )
            action = "updated"
        else:
            new = {
                "id": self._new_id(d.get("id")),
                "scope": d["scope"],
                "subject_id": d["subject_id"],
                "field": d["field"],
                **values,
                "created_at": created,
                "updated_at": updated,
                "occurred_key": key[3],
                "write_seq": self.seq,
            }
            rows.insert(self.conn, new)
            action = "created"
        self.protected.add(new["id"])
        self.touched[new["id"]] = {"id": new["id"], "before": row, "after": new}
        self.results.append({"index": i, "action": action, "memory": rows.public(new)})

    def _new_id(self, wanted: str | None) -> str:
        """A restored row keeps its id when no other row has it (ids are opaque, so a
        hand-edited document's id is used only if it has the product's shape)."""
        if (
            wanted is not None
            and rows.is_product_id(wanted)
            and rows.find_by_id(self.conn, wanted) is None
            and wanted not in self.touched
        ):
            return wanted
        return "m-" + os.urandom(8).hex()

    def finish(self, session: Session, summary: str | None = None) -> tuple[dict[str, Any], bool]:
        """Caps, then the operation record; (result, whether history was trimmed)."""
        enforcer = caps.Enforcer(
            self.conn, self.results, self.protected, self.touched, prune=not self.restore
        )
        pruned = enforcer.run()
        summary = summary or summarize(self.results, pruned)
        result: dict[str, Any] = {
            "op_id": None,
            "results": self.results,
            "pruned": [rows.public(r) for r in pruned],
            "summary": summary,
            "undo_hint": None,
        }
        if not self.touched:
            return result, False
        action = "import" if self.restore else "apply"
        op_id = record_operation(self.conn, action, summary, list(self.touched.values()), self.now)
        trimmed = trim_history(self.conn)
        session.set(write_seq=self.seq, **({"erase_pending": True} if trimmed else {}))
        result["op_id"] = op_id
        result["undo_hint"] = session.location.command("undo", "--op-id", op_id)
        return result, trimmed


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
        caps.check_after_undo(conn, entries, op["op_id"])
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
