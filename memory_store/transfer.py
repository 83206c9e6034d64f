"""The person's copy of their memory: ``export`` and ``import``.

``export`` writes every live row (and its history) as one document; ``import`` takes
such a document back, every row checked like an ``apply`` delta, all or nothing, as
one undoable operation refused over any cap (documentation/commands.md#import-an-export-comes-back). The files written here
(an export, and the review page's file, ``review --output``) are private and never
inside the store's directory (:func:`check_output`, :func:`write_private`)."""

from __future__ import annotations

import json
import os
import re
import time

from . import policy
from .errors import error, unavailable
from .policy import ROW_KEYS
from .storage import db, rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from .storage import Session

# v2: each row's time (documentation/time.md#where-history-lives); v3: each past value's handle, past_id (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id) — a
# past value's since may be null (it began on or after the change that ended it) — and
# the offset each event time was written in, occurred_offset (documentation/commands.md#import-an-export-comes-back).
EXPORT_FORMAT = "memory-store-export/v3"
READ_FORMATS = ("memory-store-export/v1", "memory-store-export/v2", EXPORT_FORMAT)
_OFFSET_RE = re.compile(policy.OFFSET_PATTERN)  # what apply takes (writes/validation.py)
# What an upsert delta carries of a row (the rest is the row's identity or its times).
_DELTA_KEYS = tuple(k for k in ROW_KEYS if k not in ("id", "created_at", "updated_at"))


def check_output(
    output: str | os.PathLike[str] | None, data_dir: str, what: str = "export"
) -> None:
    """Refuse an output path before the store is opened (step 1 of the check order).

    Not inside the store's directory: a file there could be removed by the
    store's own housekeeping (SQLite deletes a stray ``-wal``), and it would
    outlive ``forget`` and ``revoke --delete``. Never an existing file.
    """
    if output is None:
        return
    target = os.path.realpath(os.path.dirname(os.path.abspath(os.fspath(output))))
    store_dir = os.path.realpath(data_dir)
    if target == store_dir or target.startswith(store_dir.rstrip(os.sep) + os.sep):
        raise error(
            "INVALID_ARGUMENTS",
            f"the {what} file may not be inside the store's directory, where deleting "
            "memories could not reach it; choose another place",
        )
    if os.path.lexists(output):
        raise error("INVALID_ARGUMENTS", f"the {what} file already exists; choose a new name")


def document(session: Session) -> dict[str, Any]:
    """Everything live as one ``memory-store-export/v3`` document (not the undo snapshots):
    each row as ``show`` gives it plus ``occurred_offset``, so a restored store shows an
    event's time in the offset it was told in (documentation/commands.md#import-an-export-comes-back)."""
    s = session.settings()
    found = [] if session.blank else rows.select(session.conn)
    found.sort(key=rows.storage_order)
    return {
        "format": EXPORT_FORMAT,
        "exported_at": rows.now(),
        "policy_version": s["policy_version"],
        "schema_version": session.version,
        "consent": {
            "enabled": s["consent_enabled"],
            "consent_at": s["consent_at"],
            "consent_renewed_at": s["consent_renewed_at"],
            "paused": s["paused"],
            "revoked_at": s["revoked_at"],
        },
        "memories": [{**rows.public(r), "occurred_offset": r["occurred_offset"]} for r in found],
    }


def write_private(output: str | os.PathLike[str], text: str, what: str = "export") -> str:
    """Create ``output`` with mode 0600 and write ``text``; never overwrite or follow a link."""
    path = os.path.abspath(os.fspath(output))
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
    except FileExistsError:
        raise error(
            "INVALID_ARGUMENTS", f"the {what} file already exists; choose a new name"
        ) from None
    except OSError as exc:
        raise error("INVALID_ARGUMENTS", f"cannot create the {what} file: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise unavailable(exc) from None
    return path


def export(session: Session, output: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    doc = document(session)
    if output is None:
        return {"document": doc}
    path = write_private(output, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return {"path": path, "count": len(doc["memories"])}


# ---------------------------------------------------------------- import

_ROW_TIMES = ("created_at", "updated_at")
_FORMAT_PREFIX = "memory-store-export/"


def _is_stamp(value: Any, fmt: str = rows.STAMP, length: int = 20) -> bool:
    """A UTC time as the store writes it (or, with ``_DATE``, a date), zero-padded:
    strptime alone would take "2026-1-1"."""
    if not isinstance(value, str) or len(value) != length:
        return False
    try:
        time.strptime(value, fmt)
    except ValueError:
        return False
    return True


_DATE = ("%Y-%m-%d", 10)


def _bad(message: str, path: str = "$", index: int | None = None) -> Exception:
    return error("INVALID_DELTA", message, index=index, path=path)


_ENVELOPE_KEYS = {"schema", "ok", "command", "data", "error"}


def _unwrap(body: Any) -> Any:
    """The document inside what ``memory-store export`` printed, so that
    ``memory-store export | memory-store import -`` works; anything else is returned
    as it is (a bare document, or something ``_document_rows`` refuses)."""
    if not isinstance(body, dict) or "format" in body or set(body) != _ENVELOPE_KEYS:
        return body
    if body["schema"] != "memory-store/v1":
        raise _bad(f"an envelope of another schema ({body['schema']!r})", "$.schema")
    if body["command"] != "export" or body["ok"] is not True:
        raise _bad(
            "this envelope is not a successful export's; "
            "give an export document, or pipe `memory-store export` into `import -`",
            "$.command",
        )
    data = body["data"]
    if not isinstance(data, dict) or "document" not in data:
        raise _bad(
            "this export was written to a file (--output): import that file instead",
            "$.data.document",
        )
    return data["document"]


def _document_rows(body: Any) -> list[Any]:
    """The export document's memories (bare, or inside export's envelope), once its
    format and shape are this release's (``import_`` has unwrapped an envelope)."""
    if not isinstance(body, dict) or not isinstance(body.get("format"), str):
        raise _bad("not a memory-store export document (no format)", "$.format")
    found = body["format"]
    if found not in READ_FORMATS:
        newer = found.startswith(_FORMAT_PREFIX)
        raise _bad(
            f"document format {found!r} is {'another version' if newer else 'not an export'}; "
            f"this release reads {' and '.join(READ_FORMATS)}",
            "$.format",
        )
    extra = sorted(
        set(body)
        - {"format", "exported_at", "policy_version", "schema_version", "consent", "memories"}
    )
    if extra:
        raise _bad(f"unknown key(s) in the document: {', '.join(extra)}", f"$.{extra[0]}")
    memories = body.get("memories")
    if not isinstance(memories, list):
        raise _bad("the document's memories must be a list", "$.memories")
    if len(memories) > policy.TOTAL_ROWS_MAX:
        raise _bad(f"the document holds more than {policy.TOTAL_ROWS_MAX} memories", "$.memories")
    return memories


def _delta_of(row: Any, index: int, version: int, moment: str) -> dict[str, Any]:
    """A stored row as the delta that writes it, checked like apply's (field rules,
    sensitive content, eligibility), with its id, times and (version 2) history kept
    for the restore.

    No time may lie after ``moment``, the import's: pruning keeps the newest rows, so a
    row stamped 2999 would never go and every later event would prune a real one."""
    from .writes import validation

    path = f"$.memories[{index}]"
    if not isinstance(row, dict):
        raise _bad("a memory must be a JSON object", path, index)
    keys = ROW_KEYS if version == 1 else rows.PUBLIC_KEYS
    keys += ("occurred_offset",) if version >= 3 else ()
    if set(row) != set(keys):
        odd = sorted(set(row) ^ set(keys))
        raise _bad(f"a memory has exactly the row keys; not: {', '.join(odd)}", path, index)
    if not isinstance(row["id"], str):
        raise _bad("id must be a string", f"{path}.id", index)
    for key in _ROW_TIMES:
        if not _is_stamp(row[key]):
            raise _bad(f"{key} must be a UTC time YYYY-MM-DDTHH:MM:SSZ", f"{path}.{key}", index)
        if row[key] > moment:  # one format, so the text orders as the time
            raise _bad(
                f"{key} {row[key]} is after this import ({moment}): a hand-edited export?",
                f"{path}.{key}",
                index,
            )
    delta = {k: row[k] for k in _DELTA_KEYS if row[k] is not None}
    history = _history(row, index, path, version) if version >= 2 else None
    if history and history["ended"]:
        delta["value"] = history["past"][-1]["value"]  # checked as the value it was
    d = validation.normalize_delta(delta, index, path)
    validation.check_policy(d, index, path)
    d.update(id=row["id"], created_at=row["created_at"], updated_at=row["updated_at"])
    if version >= 3:
        d["occurred_offset"] = _offset(row, index, path)
    if history is None:  # version 1 kept no time: the rule of the migration; a stored
        # row's past values and pin, which the document cannot know, stay as they are
        d["since"] = (d["occurred_at"] or row["updated_at"])[:10]
        return d
    past = []
    for i, p in enumerate(history["past"]):
        entry = {**delta, "value": p["value"], "source_type": p["source_type"]}
        where = f"{path}.past[{i}]"
        checked = validation.normalize_delta(entry, index, where)
        validation.check_policy(checked, index, where)
        past.append({**p, "value": checked["value"]})  # kept as checked: trimmed, 1-200
    d.update(since=history["since"], pinned=history["pinned"])
    d["past"] = json.dumps(past, ensure_ascii=False) if past else None
    if history["ended"]:
        d["value"] = ""
    return d


def _offset(row: dict[str, Any], index: int, path: str) -> str | None:
    """A version-3 row's ``occurred_offset``: null, or the offset of a written event time."""
    offset = row["occurred_offset"]
    if offset is None:
        return None
    if not isinstance(offset, str) or not _OFFSET_RE.fullmatch(offset):
        raise _bad("occurred_offset is null, Z or +HH:MM/-HH:MM", f"{path}.occurred_offset", index)
    if row["occurred_at"] is None:
        raise _bad("occurred_offset needs an occurred_at", f"{path}.occurred_offset", index)
    return offset


def _history(row: dict[str, Any], index: int, path: str, version: int) -> dict[str, Any]:
    """A version-2 or -3 row's time, in the shape ``show`` gives it (documentation/time.md#where-history-lives). A
    version-2 past value gets its handle (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id) as migration 4 gives one: from the row's id
    and its content, so importing the same document twice changes nothing."""
    if not _is_stamp(row["since"], *_DATE):
        raise _bad("since must be a date YYYY-MM-DD", f"{path}.since", index)
    past = row["past"]
    if not isinstance(past, list) or len(past) > policy.PAST_PER_ROW_MAX:
        raise _bad(
            f"past must be a list of at most {policy.PAST_PER_ROW_MAX} values",
            f"{path}.past",
            index,
        )
    keys = policy.PAST_KEYS if version >= 3 else policy.PAST_KEYS_V2
    for i, p in enumerate(past):
        ok = isinstance(p, dict) and set(p) == set(keys)
        ok = (
            ok
            and _is_stamp(p["until"], *_DATE)
            and (
                (p["since"] is None and version >= 3)
                or (_is_stamp(p["since"], *_DATE) and p["since"] <= p["until"])
            )
        )
        ok = ok and isinstance(p["value"], str) and isinstance(p["source_type"], str)
        ok = ok and (
            version < 3 or (isinstance(p["past_id"], str) and rows.is_past_id(p["past_id"]))
        )
        if not ok:
            shape = ", ".join(keys)
            raise _bad(
                f"a past value is {{{shape}}}, since <= until"
                + (" (since may be null; past_id like p-0123456789abcdef)" if version >= 3 else ""),
                f"{path}.past[{i}]",
                index,
            )
    if version < 3 and past:
        from .storage.migrations import with_past_ids

        past = [dict(p) for p in past]
        with_past_ids(str(row["id"]), past)  # the handles migration 4 gives
    if past and row["scope"] not in policy.HISTORY_SCOPES:
        raise _bad(f"a {row['scope']} row keeps no past values", f"{path}.past", index)
    ended, pinned = row["ended"], row["pinned"]
    if not isinstance(ended, bool) or ended != (row["value"] is None) or (ended and not past):
        raise _bad(
            "ended is true exactly when value is null, and an ended row has a past",
            f"{path}.ended",
            index,
        )
    if not isinstance(pinned, bool) or (pinned and row["scope"] != "event"):
        raise _bad("pinned is a boolean, true only on an event", f"{path}.pinned", index)
    return {"since": row["since"], "past": past, "ended": ended, "pinned": pinned}


def _no_repeated_past_ids(deltas: list[dict[str, Any]]) -> None:
    """A handle names one past value (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id): a document that repeats one is refused."""
    where: dict[str, int] = {}
    for i, d in enumerate(deltas):
        for p in json.loads(d.get("past") or "[]"):
            if p["past_id"] in where:
                raise _bad(
                    f"memories {where[p['past_id']]} and {i} hold past values with one past_id",
                    f"$.memories[{i}].past",
                    i,
                )
            where[p["past_id"]] = i


def _summary(total: int, counts: dict[str, int], dry_run: bool) -> str:
    """The import's one line; a dry run imported nothing, so it says what would be."""
    memories = "1 memory" if total == 1 else f"{total} memories"
    if dry_run:
        return (
            f"would import {memories}: {counts['created']} to create, "
            f"{counts['updated']} to update, {counts['unchanged']} unchanged"
        )
    return (
        f"imported {memories}: {counts['created']} created, "
        f"{counts['updated']} updated, {counts['unchanged']} unchanged"
    )


def import_(session: Session, source: object, dry_run: bool = False) -> dict[str, Any]:
    """Bring an export back: all rows or none, one undoable operation, never pruned."""
    session.gate(session.settings())
    from .writes import validation
    from .writes.apply import Batch, DryRun

    raw = source() if callable(source) else source
    if isinstance(raw, bytearray):
        raw = bytes(raw)
    elif not isinstance(raw, (bytes, str)):
        raw = json.dumps(raw, ensure_ascii=False)
    body = _unwrap(validation.parse_body(raw, policy.IMPORT_BYTES_MAX, "an export document"))
    memories = _document_rows(body)
    version = READ_FORMATS.index(body["format"]) + 1
    moment = rows.now()
    deltas = [_delta_of(row, i, version, moment) for i, row in enumerate(memories)]
    _no_repeated_past_ids(deltas)
    seen: dict[tuple[str, ...], int] = {}
    for i, d in enumerate(deltas):
        key = validation.row_key(d)
        if key in seen:
            raise _bad(f"memories {seen[key]} and {i} are the same memory", f"$.memories[{i}]", i)
        seen[key] = i
    try:
        with session.transaction():
            settings = session.settings()
            session.gate(settings)
            replaced = rows.own_past_ids(session.conn, deltas, validation.row_key)
            batch = Batch(session.conn, settings["write_seq"], restore=True)
            batch.write(deltas)
            counts = {a: 0 for a in ("created", "updated", "unchanged")}
            for r in batch.results:
                counts[r["action"]] += 1
            summary = _summary(len(deltas), counts, dry_run)
            if replaced:
                got = "would get" if dry_run else "got"
                summary += (
                    f"; {len(replaced)} past value(s) {got} a new handle (theirs named another)"
                )
            result, trimmed = batch.finish(session, summary)
            if dry_run:
                raise DryRun(result)
    except DryRun as done:
        result, trimmed = done.result, False
    result = {
        "op_id": None if dry_run else result["op_id"],
        "counts": counts,
        "summary": result["summary"],
        "undo_hint": None if dry_run else result["undo_hint"],
        "dry_run": dry_run,
        "past_ids_replaced": replaced,
    }
    if not dry_run:
        session.finish_erasure(trimmed, db.SHORT_ERASE_WAIT_MS)
    return result


def review_file(
    output: str | os.PathLike[str], snapshot: dict[str, Any], findings: list[dict[str, Any]]
) -> dict[str, Any]:
    """The review page drawn from ``snapshot`` and written to a new private file."""
    from .review import render_review

    path = write_private(output, render_review(snapshot, findings), "review")
    people = {m["subject_id"] for m in snapshot["memories"]} - {policy.USER_SUBJECT}
    return {"path": path, "count": len(snapshot["memories"]), "people": len(people)}
