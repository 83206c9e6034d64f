"""The user's copy of their memory: ``export`` (and, in time, ``import``)."""

from __future__ import annotations

import json
import os
import time

from . import db, policy, rows
from .errors import error, unavailable
from .policy import ROW_KEYS

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from .session import Session

EXPORT_FORMAT = "memory-store-export/v1"
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
    """Everything live as one ``memory-store-export/v1`` document (not the undo snapshots)."""
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
        "memories": [rows.public(r) for r in found],
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


def _is_time(value: Any) -> bool:
    if not isinstance(value, str) or len(value) != 20:
        return False
    try:
        time.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return False
    return True


def _bad(message: str, path: str = "$", index: int | None = None) -> Exception:
    return error("INVALID_DELTA", message, index=index, path=path)


def _document_rows(body: Any) -> list[Any]:
    """The export document's memories, once its format and shape are this release's."""
    if not isinstance(body, dict) or not isinstance(body.get("format"), str):
        raise _bad("not a memory-store export document (no format)", "$.format")
    found = body["format"]
    if found != EXPORT_FORMAT:
        newer = found.startswith(_FORMAT_PREFIX)
        raise _bad(
            f"document format {found!r} is {'another version' if newer else 'not an export'}; "
            f"this release reads {EXPORT_FORMAT}",
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


def _delta_of(row: Any, index: int, moment: str) -> dict[str, Any]:
    """A stored row as the delta that writes it, checked like apply's (field rules,
    sensitive content, eligibility), with its id and times kept for the restore.

    No time may lie after ``moment``, the import's: pruning keeps the newest rows, so a
    row stamped 2999 would never go and every later event would prune a real one."""
    from . import validation

    path = f"$.memories[{index}]"
    if not isinstance(row, dict):
        raise _bad("a memory must be a JSON object", path, index)
    if set(row) != set(ROW_KEYS):
        odd = sorted(set(row) ^ set(ROW_KEYS))
        raise _bad(f"a memory has exactly the row keys; not: {', '.join(odd)}", path, index)
    if not isinstance(row["id"], str):
        raise _bad("id must be a string", f"{path}.id", index)
    for key in _ROW_TIMES:
        if not _is_time(row[key]):
            raise _bad(f"{key} must be a UTC time YYYY-MM-DDTHH:MM:SSZ", f"{path}.{key}", index)
        if row[key] > moment:  # one format, so the text orders as the time
            raise _bad(
                f"{key} {row[key]} is after this import ({moment}): a hand-edited export?",
                f"{path}.{key}",
                index,
            )
    delta = {k: row[k] for k in _DELTA_KEYS if row[k] is not None}
    d = validation.normalize_delta(delta, index, path)
    validation.check_policy(d, index, path)
    d.update(id=row["id"], created_at=row["created_at"], updated_at=row["updated_at"])
    return d


def import_(session: Session, source: object, dry_run: bool = False) -> dict[str, Any]:
    """Bring an export back: all rows or none, one undoable operation, never pruned."""
    session.gate(session.settings())
    from . import changes, validation

    raw = source() if callable(source) else source
    if isinstance(raw, bytearray):
        raw = bytes(raw)
    elif not isinstance(raw, (bytes, str)):
        raw = json.dumps(raw, ensure_ascii=False)
    body = validation.parse_body(raw, policy.IMPORT_BYTES_MAX, "an export document")
    moment = rows.now()
    deltas = [_delta_of(row, i, moment) for i, row in enumerate(_document_rows(body))]
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
            batch = changes.Batch(session.conn, settings["write_seq"], restore=True)
            batch.write(deltas)
            counts = {a: 0 for a in ("created", "updated", "unchanged")}
            for r in batch.results:
                counts[r["action"]] += 1
            summary = (
                f"imported {len(deltas)} memories: {counts['created']} created, "
                f"{counts['updated']} updated, {counts['unchanged']} unchanged"
            )
            result, trimmed = batch.finish(session, summary)
            if dry_run:
                raise changes.DryRun(result)
    except changes.DryRun as done:
        result, trimmed = done.result, False
    result = {
        "op_id": None if dry_run else result["op_id"],
        "counts": counts,
        "summary": result["summary"],
        "undo_hint": None if dry_run else result["undo_hint"],
        "dry_run": dry_run,
    }
    if not dry_run:
        session.finish_erasure(trimmed, db.SHORT_ERASE_WAIT_MS)
    return result


# ---------------------------------------------------------------- review


def review(session: Session, output: str | os.PathLike[str]) -> dict[str, Any]:
    """The review page (``review.py``) of everything stored, written to a new private file."""
    from . import __version__, changes
    from .consent import limits
    from .review import render_review

    s = session.settings()
    found = [] if session.blank else rows.select(session.conn)
    found.sort(key=rows.storage_order)
    memories = [rows.public(r) for r in found]
    by_scope = {scope: 0 for scope in policy.SCOPES}
    for m in memories:
        by_scope[m["scope"]] += 1
    snapshot = {
        "generated_at": rows.now(),
        "version": __version__,
        "consent": {
            "enabled": s["consent_enabled"],
            "paused": s["paused"],
            "consent_at": s["consent_at"],
            "revoked_at": s["revoked_at"],
        },
        "limits": limits(),
        "counts": {"total": len(memories), "by_scope": by_scope},
        "memories": memories,
        "operations": changes.log(session)["operations"],
    }
    path = write_private(output, render_review(snapshot), "review")
    people = {m["subject_id"] for m in memories} - {policy.USER_SUBJECT}
    return {"path": path, "count": len(memories), "people": len(people)}
