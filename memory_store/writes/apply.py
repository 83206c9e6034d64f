"""``apply``: a :class:`Batch` of upserts, deletes and ends in one transaction — every
delta checked first (``validation``), then written, the caps checked on the net result
(``caps``), time kept (``timeline``) and one operation recorded with its before/after
snapshots (this package's entry module) — or a dry run that writes nothing."""

from __future__ import annotations

import json
import os

from .. import policy
from ..errors import error
from ..storage import db, rows
from . import caps, record_operation, summarize, timeline, trim_history

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from typing import Any

    from ..storage import Session

# The attributes an upsert sets; a write whose attributes all equal the row's is "unchanged".
_WRITTEN = ("value", "source_type", "source_ref", "occurred_at", "confidence", "occurred_offset")
# The same instant written with another offset is the same memory.
_COMPARED = _WRITTEN[:-1]


class DryRun(Exception):
    """Raised inside a write transaction to roll it back and return what it would have done."""

    def __init__(self, result: dict[str, Any]):
        super().__init__("dry run")
        self.result = result


def read_payload(payload: object) -> Any:
    """The parsed body of an apply: text, bytes, or Python data (taking the same parser)."""
    from . import validation  # the write path pays for the detectors, the read paths do not

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


def apply(
    session: Session,
    payload: object,
    dry_run: bool = False,
    verbose: bool = False,
    new_subjects: Callable[[Session, list[dict[str, Any]]], dict[str, int]] | None = None,
) -> dict[str, Any]:
    """Record one delta or a batch as one undoable operation.

    ``payload`` may be a callable returning the raw body: it is called only
    after the consent gate, so that without consent the input is never read.
    The rows in the result are compact (``rows.compact_written``) unless ``verbose``.
    ``new_subjects`` (the facade passes ``subjects.check_new_subjects``: this package
    does not know subjects by name) checks the subjects the batch would create, inside
    the transaction; each one it returns gets an ``unlabelled_subject`` warning.
    """
    result, deltas = _apply(session, payload, dry_run, new_subjects)
    return result if verbose else compacted(result, deltas)


def compacted(result: dict[str, Any], deltas: list[dict[str, Any]]) -> dict[str, Any]:
    """The result with its rows compact: the model reads it every write (documentation/mcp.md#the-tools:
    a one-delta upsert of a short value in at most 450 characters), and what it must act
    on (``related``, ``replaced``, ``pruned``, ``ended``) keeps its place. A row's
    subject is left out where its delta named it."""
    for r in result["results"]:
        given = deltas[r["index"]]
        named = given.get("subject_id") or ("user" if given.get("scope") == "user" else None)
        r["memory"] = rows.compact_written(r["memory"], named)
        if "replaced" in r:
            r["replaced"] = rows.compact_written(r["replaced"], named)
    result["pruned"] = [rows.compact_written(p) for p in result["pruned"]]
    return result


def _apply(
    session: Session,
    payload: object,
    dry_run: bool,
    new_subjects: Callable[[Session, list[dict[str, Any]]], dict[str, int]] | None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    session.gate(session.settings())
    from . import validation

    deltas = validation.load_deltas(read_payload(payload))
    try:
        with session.transaction():
            settings = session.settings()  # again under the lock: consent may have changed
            session.gate(settings)
            batch = Batch(session.conn, settings["write_seq"])
            fresh = new_subjects(session, deltas) if new_subjects else {}
            batch.write(deltas)
            result, trimmed = batch.finish(session)
            _warn_unlabelled(result["results"], fresh)
            if dry_run:
                raise DryRun(result)
    except DryRun as done:
        result = done.result
        result.update(op_id=None, undo_hint=None, dry_run=True)
        return result, deltas
    result["dry_run"] = False
    session.finish_erasure(trimmed, db.SHORT_ERASE_WAIT_MS)
    return result, deltas


def _warn_unlabelled(results: list[dict[str, Any]], fresh: dict[str, int]) -> None:
    """documentation/commands.md#a-person-named-never-guessed: a subject created with no ``display_label`` in its batch is often a
    name taken for a code; the result says so at the subject's first delta."""
    for code, index in fresh.items():
        for r in results:
            if r["index"] == index:
                r.setdefault("warnings", []).append(
                    {
                        "code": "unlabelled_subject",
                        "message": f"{code} is a new subject with no display_label: if it is "
                        "someone already known, undo and use their code; else write "
                        "display_label (how the person is called)",
                    }
                )


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
        self.chains: dict[str, int] = {}  # a row's key -> the history that named it
        self.deltas: list[dict[str, Any]] = []
        self.protected: set[str] = set()
        # A write that adds a past value (a change, an end) may take the store over its
        # cap of past values; a restore brings its own. Only then is the store counted.
        self.past_grew = restore

    def write(self, deltas: list[dict[str, Any]]) -> None:
        self.deltas = deltas
        for i in timeline.in_date_order(deltas):
            d = deltas[i]
            if "past_id" in d:
                self._past(i, d)
            elif d["action"] == "delete":
                self._delete(i, d)
            elif d["action"] == "end":
                self._end(i, d)
            else:
                self._upsert(i, d)
        self.results.sort(key=lambda r: r["index"])  # a history was written in date order
        # A row a later delta of this batch ended or deleted is not "also current".
        gone = {r["memory"]["id"] for r in self.results if r["action"] in ("ended", "deleted")}
        for r in self.results:
            if gone and "related" in r:
                r["related"] = [o for o in r["related"] if o["id"] not in gone]
                if not r["related"]:
                    del r["related"]

    def _name(self, i: int, key: str, chain: int | None = None) -> None:
        # Two deltas may name one row in ways validation cannot see (an id and a key); a
        # history's deltas (validation marks them ``chain``) name it on purpose.
        if chain is not None and self.chains.setdefault(key, chain) == chain:
            self.keys_named.setdefault(key, i)
            return
        if key in self.keys_named:
            raise error(
                "INVALID_DELTA",
                f"deltas {self.keys_named[key]} and {i} name the same memory",
                index=i,
                other_index=self.keys_named[key],
                path=f"{self.where}[{i}]",
            )
        self.keys_named[key] = i

    def _named_row(self, i: int, d: dict[str, Any], verb: str) -> dict[str, Any]:
        """The row a delete or an end names, by ``id`` or by key; MEMORY_NOT_FOUND if none."""
        from .validation import row_key

        conn = self.conn
        row = rows.find_by_id(conn, d["id"]) if "id" in d else rows.find_by_key(conn, row_key(d))
        if row is None:
            raise error(
                "MEMORY_NOT_FOUND",
                f"delta {i} {verb} a memory that does not exist; nothing was changed",
                index=i,
            )
        return row

    def _delete(self, i: int, d: dict[str, Any]) -> None:
        row = self._named_row(i, d, "deletes")
        self._name(i, rows.key_of(row))
        rows.delete(self.conn, row["id"])
        self._touch(row, None)
        self.results.append({"index": i, "action": "deleted", "memory": rows.public(row)})

    def _touch(self, before: dict[str, Any], after: dict[str, Any] | None) -> None:
        """Record a row's change for the operation, with its first ``before`` in the batch."""
        entry = self.touched.setdefault(before["id"], {"id": before["id"], "before": before})
        entry["after"] = after

    def _past(self, i: int, d: dict[str, Any]) -> None:
        """One past value, by its ``past_id`` (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id): deleted, or corrected — "it
        was wrong back then too". Undone like any write, by the before-snapshot."""
        from .validation import check_eligible

        found = rows.find_past(self.conn, d["past_id"])
        if found is None:
            raise error(
                "MEMORY_NOT_FOUND",
                f"delta {i} names a past value that does not exist; nothing was changed",
                index=i,
                past_id=d["past_id"],
            )
        row, k = found
        self._name(i, "past:" + d["past_id"])
        past = rows.past_of(row)
        entry = past[k]
        if d["action"] == "delete":
            if not rows.is_current(row) and len(past) == 1:  # an ended row is its past
                raise error(
                    "INVALID_DELTA",
                    f"delta {i} names the only value an ended memory holds; delete the "
                    "memory itself (its id) instead",
                    index=i,
                    path=f"{self.where}[{i}].past_id",
                    past_id=d["past_id"],
                    id=row["id"],
                )
            del past[k]
            action = "past_deleted"
        else:
            source_type = d.get("source_type") or entry["source_type"]
            check_eligible(row["scope"], source_type, i, f"{self.where}[{i}]")
            if (entry["value"], entry["source_type"]) == (d["value"], source_type):
                self.protected.add(row["id"])
                unchanged = {"index": i, "action": "unchanged", "memory": rows.public(row)}
                self.results.append({**unchanged, "past_id": d["past_id"]})
                return
            past[k] = {**entry, "value": d["value"], "source_type": source_type}
            action = "past_corrected"
        self.seq += 1
        text = json.dumps(past, ensure_ascii=False) if past else None
        new = {**row, "past": text, "updated_at": self.now, "write_seq": self.seq}
        self.conn.execute(
            "UPDATE memories SET past = ?, updated_at = ?, write_seq = ? WHERE id = ?",
            (text, self.now, self.seq, row["id"]),
        )
        self.protected.add(row["id"])
        self._touch(row, new)
        result = {"index": i, "action": action, "memory": rows.public(new)}
        result["past_id"] = d["past_id"]
        self.results.append(result)

    def _end(self, i: int, d: dict[str, Any]) -> None:
        """``"action": "end"``: the value stopped being true; it stays as a past value."""
        row = self._named_row(i, d, "ends")
        if row["scope"] not in policy.HISTORY_SCOPES:
            raise error(
                "INVALID_DELTA",
                f"only {', '.join(policy.HISTORY_SCOPES)} rows can end; correct or delete "
                f"a{'n' if row['scope'] == 'event' else ''} {row['scope']} instead",
                index=i,
                path=f"{self.where}[{i}].action",
            )
        self._name(i, rows.key_of(row))
        self.protected.add(row["id"])
        if not rows.is_current(row):
            self.results.append({"index": i, "action": "unchanged", "memory": rows.public(row)})
            return
        until = timeline.day_of(d, self.now[:10])
        new = self._end_row(row, until)
        self.results.append({"index": i, "action": "ended", "memory": rows.public(new)})

    def _end_row(self, row: dict[str, Any], until: str) -> dict[str, Any]:
        self.seq += 1
        new = timeline.ended(row, until, self.now, self.seq)
        self.past_grew = True
        self.conn.execute(
            "UPDATE memories SET value = '', past = ?, since = ?, occurred_at = NULL, "
            "occurred_offset = NULL, updated_at = ?, write_seq = ? WHERE id = ?",
            (new["past"], until, self.now, self.seq, row["id"]),
        )
        self._touch(row, new)
        return new

    def _upsert(self, i: int, d: dict[str, Any]) -> None:
        from .validation import row_key

        key = row_key(d)
        self._name(i, rows.key_of({**d, "occurred_key": key[3]}), d.get("chain"))
        row = rows.find_by_key(self.conn, key)
        values = {k: d[k] for k in _WRITTEN}
        keep_pin = row is not None and d.get("pinned") is None
        pinned = row["pinned"] if keep_pin else int(bool(d.get("pinned")))  # type: ignore[index]
        target = timeline.check_replaces(self.conn, i, d) if d.get("replaces") else None
        if (
            row is not None
            and target is None
            and row["pinned"] == pinned
            and all(row[k] == values[k] for k in _COMPARED)
            and ("since" not in d or row["since"] == d["since"])
            and ("past" not in d or row["past"] == d["past"])
        ):
            self.protected.add(row["id"])
            self.results.append({"index": i, "action": "unchanged", "memory": rows.public(row)})
            return
        new = self._write(d, row, values, pinned)
        self.protected.add(new["id"])
        result: dict[str, Any] = {"index": i, "action": "updated" if row else "created"}
        if target is not None:
            self._name(i, rows.key_of(target))
            self.protected.add(target["id"])
            result["replaced"] = rows.public(self._end_row(target, new["since"]))
        if row is None or not rows.is_current(row):
            skip = {target["id"]} if target is not None else set()
            near = timeline.related(self.conn, new, skip) if not self.restore else []
            if near:
                result["related"] = near
        result["memory"] = rows.public(new)
        self.results.append(result)

    def _write(
        self, d: dict[str, Any], row: dict[str, Any] | None, values: dict[str, Any], pinned: int
    ) -> dict[str, Any]:
        """Insert or update the row of an upsert; a changed value of a profile, person or
        relationship row becomes a past value, unless the write is a correction."""
        self.seq += 1
        created, updated = d.get("created_at", self.now), d.get("updated_at", self.now)
        since = timeline.since_for(d, row, self.now[:10])
        if row is None:
            new = {
                "id": _new_id(self.conn, self.touched, d.get("id")),
                "scope": d["scope"],
                "subject_id": d["subject_id"],
                "field": d["field"],
                **values,
                "created_at": created,
                "updated_at": updated,
                "since": since,
                "past": d.get("past"),
                "pinned": pinned,
                "occurred_key": d["occurred_at"] if d["scope"] == "event" else "",
                "write_seq": self.seq,
            }
            rows.insert(self.conn, new)
            self.touched[new["id"]] = {"id": new["id"], "before": None, "after": new}
            return new
        past = row["past"]
        if "past" in d:
            past = d["past"]
        elif (
            row["scope"] in policy.HISTORY_SCOPES
            and rows.is_current(row)
            and row["value"] != values["value"]
            and not d.get("correction")
        ):
            past = timeline.with_past(row, since)
            self.past_grew = True
        if not self.restore:
            created = row["created_at"]
        new = {**row, **values, "created_at": created, "updated_at": updated}
        new.update(since=since, past=past, pinned=pinned, write_seq=self.seq)
        self.conn.execute(
            "UPDATE memories SET value = ?, source_type = ?, source_ref = ?, occurred_at = ?, "
            "confidence = ?, occurred_offset = ?, created_at = ?, updated_at = ?, since = ?, "
            "past = ?, pinned = ?, write_seq = ? WHERE id = ?",
            (*values.values(), created, updated, since, past, pinned, self.seq, row["id"]),
        )
        self._touch(row, new)
        return new

    def finish(self, session: Session, summary: str | None = None) -> tuple[dict[str, Any], bool]:
        """Caps, then the operation record; (result, whether history was trimmed)."""
        timeline.check_pins(self.conn, self.results, self.touched)
        if self.past_grew:
            timeline.trim_store_past(self.conn, self.touched, refuse=self.restore)
        for r in self.results:  # the rows as stored, once the store-wide past cap trimmed
            after = self.touched.get(r["memory"]["id"], {}).get("after")
            if after is not None:
                r["memory"] = rows.public(after)
            if "replaced" in r:
                r["replaced"] = rows.public(self.touched[r["replaced"]["id"]]["after"])
        timeline.mark_history(self.results, self.deltas, self.touched)
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


def _new_id(conn: sqlite3.Connection, touched: dict[str, Any], wanted: str | None) -> str:
    """A restored row keeps its id when no other row has it (ids are opaque, so a
    hand-edited document's id is used only if it has the product's shape)."""
    if (
        wanted is not None
        and rows.is_product_id(wanted)
        and rows.find_by_id(conn, wanted) is None
        and wanted not in touched
    ):
        return wanted
    return "m-" + os.urandom(8).hex()
