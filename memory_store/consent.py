"""The consent state: ``status``, ``enable``, ``pause`` and ``resume`` (documentation/commands.md#consent-states-and-the-order-of-checks, documentation/commands.md#what-each-command-promises)."""

from __future__ import annotations

import os

from . import policy
from .errors import MemoryStoreError, require_confirm, unavailable
from .storage import Opened, Session, consent_refusal, consent_state, db, files, not_initialized
from .storage.db import SCHEMA_VERSION

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from .storage.files import Location


def limits() -> dict[str, Any]:
    return {
        "value_chars": policy.VALUE_CHARS_MAX,
        "total_rows": policy.TOTAL_ROWS_MAX,
        "by_scope": {scope: dict(rule) for scope, rule in policy.CAPS.items()},
        "undo_history": policy.HISTORY_MAX,
        "deltas_per_apply": policy.DELTAS_PER_APPLY_MAX,
        "input_bytes": policy.INPUT_BYTES_MAX,
    }


CONSENT_STATES = ("absent", "never_enabled", "enabled", "paused", "revoked")


def near_a_cap(conn: Any, total: int) -> bool:
    """Whether any kind holds ``NEAR_CAP_SHARE`` of its cap or more (per store, or in its
    fullest subject), or the store as a whole does: then ``status`` shows the caps."""
    if total >= policy.NEAR_CAP_SHARE * policy.TOTAL_ROWS_MAX:
        return True
    fullest: dict[str, int] = {}
    by_subject = "SELECT scope, COUNT(*) FROM memories GROUP BY scope, subject_id"
    for scope, n in conn.execute(by_subject):
        fullest[scope] = max(fullest.get(scope, 0), n)
    for scope, rule in policy.CAPS.items():
        held = fullest.get(scope, 0)
        if rule["per"] == "store":
            held = conn.execute("SELECT COUNT(*) FROM memories WHERE scope = ?", (scope,))
            held = held.fetchone()[0]
        if held >= policy.NEAR_CAP_SHARE * rule["max"]:  # type: ignore[operator]
            return True
    return False


def status(location: Location, verbose: bool = False) -> dict[str, Any]:
    """Never fails on a missing store and never creates anything. The caps (``limits``)
    only where a kind nears its cap, or when ``verbose``: the model reads this every task
    (documentation/mcp.md#the-tools), and the caps are policy, the same every time."""
    data = _status(location)
    if not (verbose or data.pop("_near", False)):
        data["limits"] = None
    data.pop("_near", None)
    return data


def _status(location: Location) -> dict[str, Any]:
    base: dict[str, Any] = {
        "exists": False,
        "consent_state": "absent",
        "consent_enabled": False,
        "consent_at": None,
        "revoked_at": None,
        "paused": False,
        "policy_version": None,
        "schema_version": None,
        "counts": {"total": 0, "by_scope": {s: 0 for s in policy.SCOPES}},
        "limits": limits(),
        "undo_available": 0,
        "path": location.path,
        "unsafe": None,
    }
    try:
        session = Session.attach(location)
    except MemoryStoreError as exc:
        if not files.is_ownership_problem(exc):
            raise
        # Reported, not refused (documentation/privacy.md#what-is-kept-and-where); a file someone else could have swapped is not read.
        base.update(
            exists=os.path.lexists(location.path),
            consent_state=None if os.path.lexists(location.path) else "absent",
            consent_enabled=None,
            paused=None,
            counts=None,
            undo_available=None,
            unsafe=exc.to_dict(),
        )
        return base
    if session is None:
        from .storage import tombstone

        left = tombstone.read(location.data_dir)
        if left is not None:  # revoke --delete: the store is gone, the person's no is not
            base.update(consent_state="revoked", revoked_at=left["revoked_at"])
        return base
    base["exists"] = True
    with Opened(session):
        session.inspect(allow_too_new=True)
        base["schema_version"] = session.version
        if session.version > SCHEMA_VERSION:
            # A newer release's store: report what we know, read nothing else.
            base.update(
                consent_state=None,
                consent_enabled=None,
                paused=None,
                counts=None,
                undo_available=None,
            )
            return base
        s = session.settings()
        base.update(
            consent_state=consent_state(s),
            consent_enabled=s["consent_enabled"],
            consent_at=s["consent_at"],
            revoked_at=s["revoked_at"],
            paused=s["paused"],
            policy_version=s["policy_version"],
        )
        if not session.blank:
            conn = session.conn
            by_scope = base["counts"]["by_scope"]
            for scope, n in conn.execute("SELECT scope, COUNT(*) FROM memories GROUP BY scope"):
                by_scope[scope] = n
            base["counts"]["total"] = sum(by_scope.values())
            base["undo_available"] = conn.execute("SELECT COUNT(*) FROM operations").fetchone()[0]
            base["_near"] = near_a_cap(conn, base["counts"]["total"])
        return base


def _create_store(location: Location) -> bool:
    """The directory (0700) and an empty database file (0600); True if this call created it."""
    from .storage.file_writes import create_private_file, make_private_dirs, remove_side_files

    try:
        dir_st = files.check_data_dir(location.data_dir)
        if dir_st is None:
            make_private_dirs(location.data_dir)
        else:
            files.check_ownership(dir_st)  # never adopt a directory another user controls
    except OSError as exc:
        raise unavailable(exc) from None
    if files.check_store_files(location.path) is not None:
        return False
    # A stale -wal beside a missing database must never be replayed into a new one.
    remove_side_files(location.path)
    try:
        create_private_file(location.path)
    except FileExistsError:
        return False  # another process won the race; use its file
    except OSError as exc:
        raise unavailable(exc) from None
    return True


def enable(location: Location, confirm: bool = False) -> dict[str, Any]:
    from .storage.rows import now

    require_confirm(confirm, "enable")
    created = _create_store(location)
    session = Session.attach(location)
    if session is None:
        raise not_initialized(location)  # removed again by a concurrent revoke --delete
    with Opened(session):
        session.inspect(migrate_older=False)
        session.initialize()
        stamp = now()
        with session.transaction():
            s = session.settings()
            session.set(
                consent_enabled=True,
                consent_at=s["consent_at"] or stamp,
                consent_renewed_at=stamp,
                paused=False,
                revoked_at=None,
                policy_version=policy.POLICY_VERSION,
            )
        session.finish_erasure(False, db.SHORT_ERASE_WAIT_MS)
        from .storage import tombstone

        tombstone.remove(location.data_dir)  # the person's yes: a fresh start
        s = session.settings()
        return {
            "consent_enabled": True,
            "consent_at": s["consent_at"],
            "consent_renewed_at": s["consent_renewed_at"],
            "paused": False,
            "policy_version": policy.POLICY_VERSION,
            "schema_version": session.version,
            "created": created,
            "path": location.path,
        }


def set_paused(session: Session, paused: bool) -> dict[str, Any]:
    with session.transaction():
        s = session.settings()
        if not s["consent_enabled"]:
            what = "pause and resume need the person's consent first; nothing changed"
            raise consent_refusal(session.location, s, what)
        changed = s["paused"] != paused
        if changed:
            session.set(paused=paused)
    session.finish_erasure(False, db.SHORT_ERASE_WAIT_MS)
    return {"paused": paused, "changed": changed, "consent_enabled": True}


def whole_store_counts(status: dict[str, Any], command: str, delete: bool) -> dict[str, Any]:
    """``deletion_preview`` of a command on the whole store, from its ``status``: an
    unsafe store refuses it (``revoke --delete`` still runs: the right to delete,
    ``documentation/privacy.md``)."""
    if command not in ("enable", "clear", "revoke"):
        raise MemoryStoreError("INVALID_ARGUMENTS", f"nothing to count for {command}", {})
    unsafe = status["unsafe"]
    if unsafe and not (command == "revoke" and delete):
        raise MemoryStoreError(unsafe["code"], unsafe["message"], unsafe["details"])
    if command == "enable":
        return {}
    counts = status["counts"] or {}
    return {"rows": counts.get("total", 0), "operations": status["undo_available"] or 0}
