"""MemoryStore: the library core. One method per command; returns plain data, never prints."""

from __future__ import annotations

import json
import os
import sqlite3
import time

from . import db, policy
from .errors import MemoryStoreError
from .paths import DB_NAME, SIDE_SUFFIXES, create_private_file, make_private_dirs, resolve_data_dir
from .policy import ROW_KEYS

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

# Internal columns kept in snapshots so that undo restores a row exactly.
_ALL_COLUMNS = (*ROW_KEYS, "occurred_key", "write_seq")
_SELECT = "SELECT " + ", ".join(_ALL_COLUMNS) + " FROM memories"
_INSERT = (
    f"INSERT INTO memories ({', '.join(_ALL_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _ALL_COLUMNS)})"
)
_SCOPE_ORDER = {scope: i for i, scope in enumerate(policy.SCOPES)}
_CONFIDENCE_RANK = {c: i for i, c in enumerate(policy.CONFIDENCES)}  # high=0


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in ROW_KEYS}


def _key_of(row: dict[str, Any]) -> str:
    """A stable text form of a row's identity (scope, subject, field, event date)."""
    return json.dumps(
        [row["scope"], row["subject_id"], row["field"], row.get("occurred_key") or ""],
        ensure_ascii=False,
    )


def _label(row: dict[str, Any]) -> str:
    where = f"{row['scope']}.{row['field']}"
    if row["scope"] == "event" and row.get("occurred_at"):
        where += f"@{row['occurred_at']}"
    return where if row["subject_id"] == policy.USER_SUBJECT else f"{row['subject_id']} {where}"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _summarize(results: list[dict[str, Any]], pruned: list[dict[str, Any]]) -> str:
    parts = []
    for r in results:
        m, action = r["memory"], r["action"]
        if action in ("created", "updated"):
            parts.append(f"{_label(m)} → {_short(m['value'])}")
        elif action == "deleted":
            parts.append(f"{_label(m)} deleted")
    if not parts:
        return "no change"
    text = "; ".join(parts[:3])
    if len(parts) > 3:
        text += f"; +{len(parts) - 3} more"
    if pruned:
        text += f" (pruned {len(pruned)} old row{'s' if len(pruned) > 1 else ''})"
    return text


def _error(code: str, message: str, **details: Any) -> MemoryStoreError:
    return MemoryStoreError(code, message, details)


def _require_confirm(confirm: bool, what: str) -> None:
    if not confirm:
        raise _error(
            "CONFIRMATION_REQUIRED",
            f"{what} needs --confirm, given only after the user's explicit words; nothing changed",
        )


def check_max_chars(value: int) -> int:
    lo, hi = policy.CONTEXT_MAX_CHARS_MIN, policy.CONTEXT_MAX_CHARS_MAX
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _error(
            "INVALID_ARGUMENTS",
            f"max_chars must be an integer from {lo} to {hi}",
            minimum=lo,
            maximum=hi,
        )
    return value


def check_text(name: str, value: str | None) -> str | None:
    """An id or subject given by the caller: a non-empty string of valid UTF-8."""
    if value is None:
        return None
    ok = isinstance(value, str) and value.strip() != ""
    if ok:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            ok = False
    if not ok:
        raise _error("INVALID_ARGUMENTS", f"{name} must be non-empty UTF-8 text", argument=name)
    return value


def check_scope(value: str | None) -> str | None:
    if value is not None and value not in policy.SCOPES:
        raise _error(
            "INVALID_ARGUMENTS",
            f"scope must be one of: {', '.join(policy.SCOPES)}",
            allowed=list(policy.SCOPES),
        )
    return value


class _Handle:
    """An open store: the connection plus what the safety checks learned.

    Used as ``with store._open() as h``: closes the connection on exit and turns
    a stray sqlite3 error into the contract's code.
    """

    def __init__(self, conn: sqlite3.Connection, version: int, blank: bool):
        self.conn = conn
        self.version = version
        # A zero-length or table-less file: a first enable that did not finish.
        self.blank = blank

    def __enter__(self) -> _Handle:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.conn.close()
        if isinstance(exc, sqlite3.Error):
            raise db.translate(exc) from None

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
            "policy_version": int(raw["policy_version"]) if raw.get("policy_version") else None,
            "write_seq": int(raw.get("write_seq") or 0),
            "erase_pending": raw.get("erase_pending") == "1",
        }


def _set(conn: sqlite3.Connection, **values: Any) -> None:
    for key, value in values.items():
        if isinstance(value, bool):
            value = "1" if value else "0"
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, None if value is None else str(value)),
        )


class _DryRun(Exception):
    def __init__(self, result: dict[str, Any]):
        super().__init__("dry run")
        self.result = result


class MemoryStore:
    """A consent-gated, bounded memory store in one SQLite file.

    Every public method opens the database, does its work (a write in one
    ``BEGIN IMMEDIATE`` transaction) and closes it again, so a store object is
    cheap to keep and safe to share between calls. Failures raise
    :class:`MemoryStoreError` with a code from the contract.
    """

    def __init__(self, data_dir: str | os.PathLike[str] | None = None):
        self.data_dir = resolve_data_dir(data_dir)
        self.path = os.path.join(self.data_dir, DB_NAME)

    # ------------------------------------------------------------------ opening

    def _open(self) -> _Handle:
        """Safety, integrity, existence checks (contract §5 steps 2-3), then a connection."""
        size = db.check_store_files(self.path) if db.check_data_dir(self.data_dir) else None
        if size is None:
            raise _error(
                "NOT_INITIALIZED",
                "long-term memory is not enabled: ask the user, then run `enable --confirm`",
            )
        if size > 0:
            db.check_header(self.path)
        conn = db.connect(self.path)
        try:
            return self._inspect(conn)
        except BaseException:
            conn.close()
            raise

    def _inspect(self, conn: sqlite3.Connection, allow_too_new: bool = False) -> _Handle:
        try:
            version = db.user_version(conn)
            if version > db.SCHEMA_VERSION and not allow_too_new:
                raise _error(
                    "SCHEMA_TOO_NEW",
                    "the store was written by a newer memory-store; upgrade before using it",
                    found=version,
                    supported=db.SCHEMA_VERSION,
                )
            if version == 0:
                if db.has_tables(conn):
                    raise _error(
                        "STORE_CORRUPT", "the file holds a database that is not a memory store"
                    )
                return _Handle(conn, 0, blank=True)
            if version < db.SCHEMA_VERSION:
                version = db.migrate(conn)
            return _Handle(conn, version, blank=False)
        except sqlite3.Error as exc:
            raise db.translate(exc) from None

    @staticmethod
    def _gate(settings: dict[str, Any]) -> None:
        if not settings["consent_enabled"]:
            raise _error(
                "CONSENT_REQUIRED",
                "the user has not agreed to long-term memory (or withdrew consent); nothing was read or written",
            )
        if settings["paused"]:
            raise _error("MEMORY_PAUSED", "memory is paused; nothing was read or written")

    def _finish_erasure(self, h: _Handle, needed: bool, wait_ms: int | None = None) -> bool:
        """Erase freed bytes after a commit; True when the erasure is complete.

        The write itself has committed (and set ``erase_pending`` in the same
        transaction), so nothing here may turn it into a failure: if erasure
        cannot finish (a reader pins old pages, the disk is full), the flag
        stays set and the next write completes the job.
        """
        try:
            if not (needed or h.settings()["erase_pending"]):
                return True
            if not db.erase(h.conn, wait_ms):
                return False
            with db.transaction(h.conn):
                _set(h.conn, erase_pending=False)
            return True
        except (MemoryStoreError, sqlite3.Error):
            return False

    # ------------------------------------------------------------------ status

    def status(self) -> dict[str, Any]:
        base: dict[str, Any] = {
            "exists": False,
            "consent_enabled": False,
            "consent_at": None,
            "paused": False,
            "policy_version": None,
            "schema_version": None,
            "counts": {"total": 0, "by_scope": {s: 0 for s in policy.SCOPES}},
            "limits": limits(),
            "undo_available": 0,
            "path": self.path,
        }
        size = db.check_store_files(self.path) if db.check_data_dir(self.data_dir) else None
        if size is None:
            return base
        if size > 0:
            db.check_header(self.path)
        base["exists"] = True
        conn = db.connect(self.path)
        try:
            h = self._inspect(conn, allow_too_new=True)
            base["schema_version"] = h.version
            if h.version > db.SCHEMA_VERSION:
                # A newer release's store: report what we know, read nothing else.
                base.update(consent_enabled=None, paused=None, counts=None, undo_available=None)
                return base
            s = h.settings()
            base.update(
                consent_enabled=s["consent_enabled"],
                consent_at=s["consent_at"],
                paused=s["paused"],
                policy_version=s["policy_version"],
            )
            if not h.blank:
                by_scope = base["counts"]["by_scope"]
                for scope, n in conn.execute("SELECT scope, COUNT(*) FROM memories GROUP BY scope"):
                    by_scope[scope] = n
                base["counts"]["total"] = sum(by_scope.values())
                base["undo_available"] = conn.execute("SELECT COUNT(*) FROM operations").fetchone()[
                    0
                ]
            return base
        except sqlite3.Error as exc:
            raise db.translate(exc) from None
        finally:
            conn.close()

    # ------------------------------------------------------------------ consent

    def enable(self, confirm: bool = False) -> dict[str, Any]:
        _require_confirm(confirm, "enable")
        if not db.check_data_dir(self.data_dir):
            try:
                make_private_dirs(self.data_dir)
            except OSError as exc:
                raise db.translate(exc) from None
        size = db.check_store_files(self.path)
        created = False
        if size is None:
            # A stale -wal beside a missing database must never be replayed into a new one.
            self._remove_side_files()
            try:
                create_private_file(self.path)
                created = True
            except FileExistsError:
                pass  # another process won the race; use its file
            except OSError as exc:
                raise db.translate(exc) from None
            db.check_store_files(self.path)
        elif size > 0:
            db.check_header(self.path)
        conn = db.connect(self.path)
        try:
            version = db.user_version(conn)
            if version > db.SCHEMA_VERSION:
                raise _error(
                    "SCHEMA_TOO_NEW",
                    "the store was written by a newer memory-store; upgrade before using it",
                    found=version,
                    supported=db.SCHEMA_VERSION,
                )
            if version == 0 and db.has_tables(conn):
                raise _error(
                    "STORE_CORRUPT", "the file holds a database that is not a memory store"
                )
            db.ensure_wal(conn)
            db.migrate(conn)
            h = _Handle(conn, db.SCHEMA_VERSION, blank=False)
            now = _now()
            with db.transaction(conn):
                s = h.settings()
                _set(
                    conn,
                    consent_enabled=True,
                    consent_at=s["consent_at"] or now,
                    consent_renewed_at=now,
                    paused=False,
                    revoked_at=None,
                    policy_version=policy.POLICY_VERSION,
                )
            s = h.settings()
            return {
                "consent_enabled": True,
                "consent_at": s["consent_at"],
                "consent_renewed_at": s["consent_renewed_at"],
                "paused": False,
                "policy_version": policy.POLICY_VERSION,
                "schema_version": db.SCHEMA_VERSION,
                "created": created,
                "path": self.path,
            }
        except sqlite3.Error as exc:
            raise db.translate(exc) from None
        finally:
            conn.close()

    def _set_paused(self, paused: bool) -> dict[str, Any]:
        with self._open() as h:
            with db.transaction(h.conn):
                s = h.settings()
                if not s["consent_enabled"]:
                    raise _error(
                        "CONSENT_REQUIRED",
                        "memory is not enabled; pause and resume need the user's consent first",
                    )
                changed = s["paused"] != paused
                if changed:
                    _set(h.conn, paused=paused)
            return {"paused": paused, "changed": changed, "consent_enabled": True}

    def pause(self) -> dict[str, Any]:
        return self._set_paused(True)

    def resume(self) -> dict[str, Any]:
        return self._set_paused(False)

    # ------------------------------------------------------------------ apply

    def apply(self, payload: object, dry_run: bool = False) -> dict[str, Any]:
        """Record one delta or a batch. ``payload`` may be a callable returning the
        raw body: it is called only after the consent gate, so that without
        consent the input is never read."""
        with self._open() as h:
            self._gate(h.settings())
            from . import validation  # the write path pays for jsonschema, the read paths do not

            raw = payload() if callable(payload) else payload
            if isinstance(raw, bytearray):
                raw = bytes(raw)
            elif not isinstance(raw, (bytes, str)):
                # Python data takes the same road as text: one parser, one set of limits.
                try:
                    raw = json.dumps(raw, ensure_ascii=False)
                except (TypeError, ValueError):
                    raise _error(
                        "INVALID_DELTA", "the delta is not JSON data", index=None, path="$"
                    ) from None
            body = validation.parse_body(raw)
            deltas = validation.load_deltas(body)
            try:
                with db.transaction(h.conn):
                    settings = h.settings()  # again under the lock: consent may have changed
                    self._gate(settings)
                    result, trimmed = self._apply_deltas(h.conn, deltas, settings["write_seq"])
                    if dry_run:
                        raise _DryRun(result)
            except _DryRun as done:
                result = done.result
                result.update(op_id=None, undo_hint=None, dry_run=True)
                return result
            result["dry_run"] = False
            self._finish_erasure(h, trimmed, db.SHORT_ERASE_WAIT_MS)
            return result

    def _find_by_key(self, conn: sqlite3.Connection, key: tuple[str, ...]) -> dict[str, Any] | None:
        rows = db.fetch_all(
            conn,
            _SELECT + " WHERE scope = ? AND subject_id = ? AND field = ? AND occurred_key = ?",
            key,
        )
        return rows[0] if rows else None

    def _find_by_id(self, conn: sqlite3.Connection, memory_id: str) -> dict[str, Any] | None:
        rows = db.fetch_all(conn, _SELECT + " WHERE id = ?", (memory_id,))
        return rows[0] if rows else None

    def _apply_deltas(
        self, conn: sqlite3.Connection, deltas: list[dict[str, Any]], seq: int
    ) -> tuple[dict[str, Any], bool]:
        """Write the batch inside the caller's transaction; ``seq`` is the last write sequence."""
        from .validation import row_key

        now = _now()
        touched: dict[str, dict[str, Any]] = {}  # memory id -> {id, before, after}
        results: list[dict[str, Any]] = []
        keys_named: dict[str, int] = {}
        protected: set[str] = set()
        for i, d in enumerate(deltas):
            if d["action"] == "delete":
                row = (
                    self._find_by_id(conn, d["id"])
                    if "id" in d
                    else self._find_by_key(conn, row_key(d))
                )
                if row is None:
                    raise _error(
                        "MEMORY_NOT_FOUND",
                        f"delta {i} deletes a memory that does not exist; nothing was changed",
                        index=i,
                    )
                key = _key_of(row)
            else:
                key = _key_of({**d, "occurred_key": row_key(d)[3]})
                row = self._find_by_key(conn, row_key(d))
            if key in keys_named:
                raise _error(
                    "INVALID_DELTA",
                    f"deltas {keys_named[key]} and {i} name the same memory",
                    index=i,
                    other_index=keys_named[key],
                    path=f"$.deltas[{i}]",
                )
            keys_named[key] = i
            if d["action"] == "delete":
                conn.execute("DELETE FROM memories WHERE id = ?", (row["id"],))
                touched[row["id"]] = {"id": row["id"], "before": row, "after": None}
                results.append({"index": i, "action": "deleted", "memory": _public(row)})
                continue
            new_values = {
                "value": d["value"],
                "source_type": d["source_type"],
                "source_ref": d["source_ref"],
                "occurred_at": d["occurred_at"],
                "confidence": d["confidence"],
            }
            if row is not None and all(row[k] == v for k, v in new_values.items()):
                protected.add(row["id"])
                results.append({"index": i, "action": "unchanged", "memory": _public(row)})
                continue
            seq += 1
            if row is not None:
                new = {**row, **new_values, "updated_at": now, "write_seq": seq}
                conn.execute(
                    "UPDATE memories SET value = ?, source_type = ?, source_ref = ?, occurred_at = ?, "
                    "confidence = ?, updated_at = ?, write_seq = ? WHERE id = ?",
                    (*new_values.values(), now, seq, row["id"]),
                )
                action = "updated"
            else:
                new = {
                    "id": "m-" + os.urandom(8).hex(),
                    "scope": d["scope"],
                    "subject_id": d["subject_id"],
                    "field": d["field"],
                    **new_values,
                    "created_at": now,
                    "updated_at": now,
                    "occurred_key": row_key(d)[3],
                    "write_seq": seq,
                }
                conn.execute(_INSERT, tuple(new[c] for c in _ALL_COLUMNS))
                action = "created"
            protected.add(new["id"])
            touched[new["id"]] = {"id": new["id"], "before": row, "after": new}
            results.append({"index": i, "action": action, "memory": _public(new)})

        pruned = self._enforce_caps(conn, results, protected, touched)
        summary = _summarize(results, pruned)
        result: dict[str, Any] = {
            "op_id": None,
            "results": results,
            "pruned": [_public(r) for r in pruned],
            "summary": summary,
            "undo_hint": None,
        }
        if not touched:
            return result, False
        op_seq = (conn.execute("SELECT MAX(seq) FROM operations").fetchone()[0] or 0) + 1
        op_id = "op-" + os.urandom(4).hex()
        entries = list(touched.values())
        conn.execute(
            "INSERT INTO operations (seq, op_id, created_at, action, summary, rows, snapshot) "
            "VALUES (?, ?, ?, 'apply', ?, ?, ?)",
            (op_seq, op_id, now, summary, len(entries), json.dumps(entries, ensure_ascii=False)),
        )
        conn.executemany(
            "INSERT INTO operation_rows (seq, memory_id, subject_id, row_key) VALUES (?, ?, ?, ?)",
            [
                (
                    op_seq,
                    e["id"],
                    (e["after"] or e["before"])["subject_id"],
                    _key_of(e["after"] or e["before"]),
                )
                for e in entries
            ],
        )
        trimmed = self._trim_history(conn)
        _set(conn, write_seq=seq, **({"erase_pending": True} if trimmed else {}))
        result["op_id"] = op_id
        result["undo_hint"] = f"memory-store undo --op-id {op_id}"
        return result, trimmed

    @staticmethod
    def _trim_history(conn: sqlite3.Connection) -> bool:
        old = [
            r[0]
            for r in conn.execute(
                "SELECT seq FROM operations ORDER BY seq DESC LIMIT -1 OFFSET ?",
                (policy.HISTORY_MAX,),
            )
        ]
        for seq in old:
            conn.execute("DELETE FROM operation_rows WHERE seq = ?", (seq,))
            conn.execute("DELETE FROM operations WHERE seq = ?", (seq,))
        return bool(old)

    def _enforce_caps(
        self,
        conn: sqlite3.Connection,
        results: list[dict[str, Any]],
        protected: set[str],
        touched: dict[str, dict[str, Any]],
    ) -> list[dict[str, Any]]:
        """Refuse or prune per policy, on the net result of the whole batch."""
        pruned: list[dict[str, Any]] = []

        def group_of(m: dict[str, Any]) -> tuple[str, str | None]:
            per_subject = policy.CAPS[m["scope"]]["per"] == "subject"
            return (m["scope"], m["subject_id"] if per_subject else None)

        def count(scope: str, subject: str | None) -> int:
            if subject is None:
                return conn.execute(
                    "SELECT COUNT(*) FROM memories WHERE scope = ?", (scope,)
                ).fetchone()[0]
            return conn.execute(
                "SELECT COUNT(*) FROM memories WHERE scope = ? AND subject_id = ?", (scope, subject)
            ).fetchone()[0]

        replaced: dict[tuple[str, str | None], int] = {}  # rows pruned per group so far

        def over_index(group: tuple[str, str | None] | None, start: int, cap: int) -> int:
            """First delta that adds a row to the kind while it is over its cap.

            For the store-wide cap, a row created in a group that pruned one of
            its own old rows only replaces it and adds nothing to the total.
            """
            credits = dict(replaced) if group is None else {}
            running = start
            first_create = None
            for r in results:
                if group is not None and group_of(r["memory"]) != group:
                    continue
                if r["action"] == "created":
                    g = group_of(r["memory"])
                    if credits.get(g):
                        credits[g] -= 1
                        continue
                    running += 1
                    first_create = r["index"] if first_create is None else first_create
                    if running > cap:
                        return r["index"]
                elif r["action"] == "deleted":
                    running -= 1
            return first_create if first_create is not None else results[-1]["index"]

        groups: dict[tuple[str, str | None], int] = {}
        for r in results:
            if r["action"] == "created":
                g = group_of(r["memory"])
                groups[g] = groups.get(g, 0) + 1
        for g in groups:
            scope, subject = g
            cap = int(policy.CAPS[scope]["max"])  # type: ignore[call-overload]
            n = count(scope, subject)
            if n <= cap:
                continue
            delta_net = sum(
                (r["action"] == "created") - (r["action"] == "deleted")
                for r in results
                if group_of(r["memory"]) == g
            )
            before = n - delta_net
            if policy.CAPS[scope]["policy"] == "refuse":
                raise _error(
                    "MEMORY_LIMIT_REACHED",
                    f"{scope} rows{'' if subject is None else ' for ' + subject} are at the cap of {cap}; "
                    "delete or merge an old field first (the user curates these)",
                    index=over_index(g, before, cap),
                    scope=scope,
                    subject_id=subject,
                    limit=cap,
                    count=before,
                )
            params: list[Any] = [scope, subject]
            candidates = db.fetch_all(
                conn,
                _SELECT + " WHERE scope = ? AND subject_id = ? ORDER BY updated_at, write_seq",
                params,
            )
            candidates = [c for c in candidates if c["id"] not in protected]
            need = n - cap
            if len(candidates) < need:
                named = 0
                index = results[-1]["index"]
                for r in results:
                    if group_of(r["memory"]) == g and r["action"] != "deleted":
                        named += 1
                        if named > cap:
                            index = r["index"]
                            break
                raise _error(
                    "MEMORY_LIMIT_REACHED",
                    f"this batch alone writes more than {cap} {scope} rows for {subject}",
                    index=index,
                    scope=scope,
                    subject_id=subject,
                    limit=cap,
                )
            for row in candidates[:need]:
                self._prune(conn, row, touched, pruned)
            replaced[g] = need

        total = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
        if total > policy.TOTAL_ROWS_MAX and groups:
            need = total - policy.TOTAL_ROWS_MAX
            marks = ", ".join("?" for _ in policy.GLOBAL_PRUNE_SCOPES)
            candidates = db.fetch_all(
                conn,
                _SELECT + f" WHERE scope IN ({marks}) ORDER BY updated_at, write_seq",
                policy.GLOBAL_PRUNE_SCOPES,
            )
            candidates = [c for c in candidates if c["id"] not in protected]
            if len(candidates) < need:
                net = sum((r["action"] == "created") - (r["action"] == "deleted") for r in results)
                raise _error(
                    "MEMORY_LIMIT_REACHED",
                    f"the store holds its maximum of {policy.TOTAL_ROWS_MAX} rows and nothing more can be "
                    "pruned; ask the user to archive or forget old subjects",
                    index=over_index(None, total - net + len(pruned), policy.TOTAL_ROWS_MAX),
                    scope=None,
                    limit=policy.TOTAL_ROWS_MAX,
                    count=total - len(candidates),
                )
            for row in candidates[:need]:
                self._prune(conn, row, touched, pruned)
        return pruned

    @staticmethod
    def _prune(
        conn: sqlite3.Connection,
        row: dict[str, Any],
        touched: dict[str, dict[str, Any]],
        pruned: list[dict[str, Any]],
    ) -> None:
        conn.execute("DELETE FROM memories WHERE id = ?", (row["id"],))
        touched[row["id"]] = {"id": row["id"], "before": row, "after": None}
        pruned.append(row)

    # ------------------------------------------------------------------ undo / log

    def undo(self, op_id: str | None = None) -> dict[str, Any]:
        check_text("op_id", op_id)
        with self._open() as h:
            if h.blank:
                raise _error("NOTHING_TO_UNDO", "there is no operation to undo")
            conn = h.conn
            with db.transaction(conn):
                if op_id is None:
                    ops = db.fetch_all(conn, "SELECT * FROM operations ORDER BY seq DESC LIMIT 1")
                    if not ops:
                        raise _error("NOTHING_TO_UNDO", "there is no operation to undo")
                else:
                    ops = db.fetch_all(conn, "SELECT * FROM operations WHERE op_id = ?", (op_id,))
                    if not ops:
                        raise _error(
                            "OPERATION_NOT_FOUND",
                            "no undoable operation has that id (see `log`)",
                            op_id=op_id,
                        )
                op = ops[0]
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
                    raise _error(
                        "UNDO_CONFLICT",
                        "a later operation changed the same memory; undo it first",
                        op_id=op["op_id"],
                        later_op_ids=later,
                    )
                entries = json.loads(op["snapshot"])
                for e in entries:
                    current = self._find_by_id(conn, e["id"])
                    if current != e["after"]:
                        raise _error(
                            "UNDO_CONFLICT",
                            "the memory no longer matches what the operation wrote",
                            op_id=op["op_id"],
                            later_op_ids=[],
                            memory_id=e["id"],
                        )
                restored, removed = [], []
                for e in entries:
                    if e["after"] is not None:
                        conn.execute("DELETE FROM memories WHERE id = ?", (e["id"],))
                        if e["before"] is None:
                            removed.append(_public(e["after"]))
                for e in entries:
                    if e["before"] is not None:
                        conn.execute(_INSERT, tuple(e["before"][c] for c in _ALL_COLUMNS))
                        restored.append(_public(e["before"]))
                self._check_caps_after_undo(conn, entries, op["op_id"])
                conn.execute("DELETE FROM operation_rows WHERE seq = ?", (op["seq"],))
                conn.execute("DELETE FROM operations WHERE seq = ?", (op["seq"],))
                _set(conn, erase_pending=True)
            erased = self._finish_erasure(h, True)
            return {
                "undone_op_id": op["op_id"],
                "restored": restored,
                "removed": removed,
                "summary": f"undid: {op['summary']}",
                "erased": erased,
            }

    @staticmethod
    def _check_caps_after_undo(
        conn: sqlite3.Connection, entries: list[dict[str, Any]], op_id: str
    ) -> None:
        """Restoring a deleted row must not push a kind past its cap."""
        for e in entries:
            row = e["before"]
            if row is None:
                continue
            cap_rule = policy.CAPS[row["scope"]]
            sql = "SELECT COUNT(*) FROM memories WHERE scope = ?"
            params: list[Any] = [row["scope"]]
            if cap_rule["per"] == "subject":
                sql += " AND subject_id = ?"
                params.append(row["subject_id"])
            n = conn.execute(sql, params).fetchone()[0]
            total = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
            if n > int(cap_rule["max"]) or total > policy.TOTAL_ROWS_MAX:  # type: ignore[call-overload]
                raise _error(
                    "MEMORY_LIMIT_REACHED",
                    "undoing this would push the store past a cap: delete a newer row first",
                    op_id=op_id,
                    scope=row["scope"],
                    subject_id=row["subject_id"],
                    limit=cap_rule["max"],
                )

    def log(self) -> dict[str, Any]:
        with self._open() as h:
            if h.blank:
                return {"operations": []}
            ops = db.fetch_all(
                h.conn,
                "SELECT op_id, created_at, action, summary, rows FROM operations ORDER BY seq DESC",
            )
            return {"operations": ops}

    # ------------------------------------------------------------------ reading

    def _rows(self, h: _Handle, where: str = "", params: Any = ()) -> list[dict[str, Any]]:
        if h.blank:
            return []
        return db.fetch_all(h.conn, _SELECT + where, params)

    def show(self, subject_id: str | None = None, scope: str | None = None) -> dict[str, Any]:
        check_scope(scope)
        check_text("subject_id", subject_id)
        with self._open() as h:
            clauses, params = [], []
            if subject_id is not None:
                clauses.append("subject_id = ?")
                params.append(subject_id)
            if scope is not None:
                clauses.append("scope = ?")
                params.append(scope)
            where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
            rows = self._rows(h, where, params)
        rows.sort(
            key=lambda r: (_SCOPE_ORDER[r["scope"]], r["subject_id"], r["field"], r["occurred_key"])
        )
        return {"count": len(rows), "memories": [_public(r) for r in rows]}

    def context(
        self, subject_id: str | None = None, max_chars: int = policy.CONTEXT_MAX_CHARS_DEFAULT
    ) -> dict[str, Any]:
        check_max_chars(max_chars)
        check_text("subject_id", subject_id)
        with self._open() as h:
            self._gate(h.settings())
            if subject_id is None:
                rows = self._rows(h)
            else:
                rows = self._rows(
                    h, " WHERE subject_id IN (?, ?)", (policy.USER_SUBJECT, subject_id)
                )
        user_rows = [r for r in rows if r["scope"] == "user"]
        user_rows.sort(key=lambda r: (r["updated_at"], r["write_seq"]), reverse=True)
        result: dict[str, Any] = {"subject_id": subject_id}
        if subject_id is None or subject_id == policy.USER_SUBJECT:
            ranked = user_rows
            if subject_id is None:
                result["roster"] = _roster([r for r in rows if r["scope"] != "user"])
        else:
            mine = [r for r in rows if r["subject_id"] == subject_id and r["scope"] != "user"]

            def newest(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
                return sorted(rs, key=lambda r: (r["updated_at"], r["write_seq"]), reverse=True)

            objects = newest([r for r in mine if r["scope"] == "object"])
            objects.sort(key=lambda r: r["field"] != "display_label")  # the label is dropped last
            relationships = newest([r for r in mine if r["scope"] == "relationship"])
            hypotheses = sorted(
                (r for r in mine if r["scope"] == "hypothesis"),
                key=lambda r: (-_CONFIDENCE_RANK[r["confidence"]], r["updated_at"], r["write_seq"]),
                reverse=True,
            )
            events = sorted(
                (r for r in mine if r["scope"] == "event"),
                key=lambda r: (r["occurred_at"] or "", r["write_seq"]),
                reverse=True,
            )[: policy.CONTEXT_EVENTS]
            ranked = objects + relationships + user_rows + hypotheses + events
            result["subject_known"] = bool(mine)
        memories, omitted = _fit([_public(r) for r in ranked], max_chars)
        result.update(
            memories=memories, truncated=omitted > 0, omitted=omitted, max_chars=max_chars
        )
        return result

    # ------------------------------------------------------------------ forgetting

    def forget(self, memory_id: str, confirm: bool = False) -> dict[str, Any]:
        check_text("memory_id", memory_id)
        _require_confirm(confirm, "forget")
        return self._forget("memory_id", memory_id)

    def forget_object(self, subject_id: str, confirm: bool = False) -> dict[str, Any]:
        check_text("subject_id", subject_id)
        _require_confirm(confirm, "forget-object")
        return self._forget("subject_id", subject_id)

    def _forget(self, column: str, value: str) -> dict[str, Any]:
        with self._open() as h:
            conn = h.conn
            if h.blank:
                self._not_found(column, value, [])
            with db.transaction(conn):
                row_column = "id" if column == "memory_id" else "subject_id"
                live = conn.execute(
                    f"SELECT COUNT(*) FROM memories WHERE {row_column} = ?", (value,)
                ).fetchone()[0]
                seqs = [
                    r[0]
                    for r in conn.execute(
                        f"SELECT DISTINCT seq FROM operation_rows WHERE {column} = ?", (value,)
                    )
                ]
                if not live and not seqs:
                    known = [
                        r[0]
                        for r in conn.execute(
                            "SELECT subject_id FROM memories UNION SELECT subject_id FROM operation_rows "
                            "ORDER BY 1"
                        )
                    ]
                    self._not_found(column, value, known)
                conn.execute(f"DELETE FROM memories WHERE {row_column} = ?", (value,))
                for seq in seqs:
                    conn.execute("DELETE FROM operation_rows WHERE seq = ?", (seq,))
                    conn.execute("DELETE FROM operations WHERE seq = ?", (seq,))
                _set(conn, erase_pending=True)
            erased = self._finish_erasure(h, True)
            return {"deleted": live, "operations_removed": len(seqs), "erased": erased}

    @staticmethod
    def _not_found(column: str, value: str, known: list[str]) -> None:
        if column == "memory_id":
            raise _error(
                "MEMORY_NOT_FOUND", "no memory has that id; nothing was deleted", memory_id=value
            )
        raise _error(
            "SUBJECT_NOT_FOUND",
            "no memory is about that subject; nothing was deleted",
            subject_id=value,
            known_subjects=known,
        )

    def clear(self, confirm: bool = False) -> dict[str, Any]:
        _require_confirm(confirm, "clear")
        with self._open() as h:
            if h.blank:
                return {"deleted": 0, "operations_removed": 0, "erased": True}
            conn = h.conn
            with db.transaction(conn):
                deleted = conn.execute("DELETE FROM memories").rowcount
                ops = conn.execute("DELETE FROM operations").rowcount
                conn.execute("DELETE FROM operation_rows")
                _set(conn, erase_pending=True)
            erased = self._finish_erasure(h, True)
            return {"deleted": deleted, "operations_removed": ops, "erased": erased}

    def revoke(self, confirm: bool = False, delete: bool = False) -> dict[str, Any]:
        _require_confirm(confirm, "revoke --delete" if delete else "revoke")
        if delete:
            return self._revoke_delete()
        with self._open() as h:
            if not h.blank:
                with db.transaction(h.conn):
                    _set(h.conn, consent_enabled=False, paused=True, revoked_at=_now())
            return {"consent_enabled": False, "paused": True, "deleted": False}

    def _remove_side_files(self) -> None:
        for suffix in SIDE_SUFFIXES:
            try:
                os.unlink(self.path + suffix)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise db.translate(exc) from None

    def _revoke_delete(self) -> dict[str, Any]:
        """Delete everything; works on a missing, blank, too-new or corrupt store.

        The rows go first, in one transaction that also withdraws consent, so an
        interruption leaves the store unchanged or empty-and-revoked. Only then
        are the files overwritten and removed.
        """
        deleted_rows = 0
        clean = False  # True once SQLite itself has emptied and erased the file
        if not db.check_data_dir(self.data_dir):
            return {"consent_enabled": False, "deleted": True, "rows_deleted": 0, "erased": True}
        size = db.check_store_files(self.path)
        if size:
            healthy = True
            try:
                db.check_header(self.path)
            except MemoryStoreError:
                healthy = False
            if healthy:
                try:
                    conn = db.connect(self.path)
                except MemoryStoreError as exc:
                    if exc.code != "STORE_CORRUPT":
                        raise
                    conn = None
                if conn is not None:
                    try:
                        deleted_rows, clean = self._empty_and_revoke(conn)
                    finally:
                        conn.close()
        # Where SQLite could not erase the files (unreadable, newer schema, or a
        # reader pinned old pages) they are overwritten with zeros, so that a
        # process still holding them open cannot read the old bytes. The
        # database is opened first and unlinked before a byte of it is
        # overwritten: an interruption leaves it intact or absent, never a
        # half-zeroed database at the store's path. A clean file is unlinked
        # as it is.
        fds = [] if clean else [db.open_for_overwrite(self.path + s) for s in ("", "-wal")]
        try:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise db.translate(exc) from None
            self._remove_side_files()
            for fd in fds:
                if fd is not None:
                    db.overwrite_with_zeros(fd)
        finally:
            for fd in fds:
                if fd is not None:
                    os.close(fd)
        return {
            "consent_enabled": False,
            "deleted": True,
            "rows_deleted": deleted_rows,
            "erased": True,  # the files are gone, zeroed first wherever SQLite could not erase
        }

    def _empty_and_revoke(self, conn: sqlite3.Connection) -> tuple[int, bool]:
        try:
            h = self._inspect(conn, allow_too_new=True)
            if h.blank:
                return 0, True
            if h.version > db.SCHEMA_VERSION:
                return 0, False  # a newer release's tables: do not guess, overwrite the file
            with db.transaction(conn):
                deleted = conn.execute("DELETE FROM memories").rowcount
                conn.execute("DELETE FROM operations")
                conn.execute("DELETE FROM operation_rows")
                _set(
                    conn, consent_enabled=False, paused=True, revoked_at=_now(), erase_pending=True
                )
            return deleted, db.erase(conn)
        except MemoryStoreError as exc:
            if exc.code == "STORE_CORRUPT":
                return 0, False  # unreadable: the files are overwritten and removed below
            raise
        except sqlite3.Error as exc:
            err = db.translate(exc)
            if err.code == "STORE_CORRUPT":
                return 0, False
            raise err from None

    # ------------------------------------------------------------------ export

    def export(self, output: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        if output is not None and os.path.lexists(output):
            raise _error("INVALID_ARGUMENTS", "the export file already exists; choose a new name")
        with self._open() as h:
            s = h.settings()
            rows = self._rows(h)
        rows.sort(
            key=lambda r: (_SCOPE_ORDER[r["scope"]], r["subject_id"], r["field"], r["occurred_key"])
        )
        document = {
            "format": "memory-store-export/v1",
            "exported_at": _now(),
            "policy_version": s["policy_version"],
            "schema_version": h.version,
            "consent": {
                "enabled": s["consent_enabled"],
                "consent_at": s["consent_at"],
                "consent_renewed_at": s["consent_renewed_at"],
                "paused": s["paused"],
                "revoked_at": s["revoked_at"],
            },
            "memories": [_public(r) for r in rows],
        }
        if output is None:
            return {"document": document}
        path = os.path.abspath(os.fspath(output))
        text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        try:
            fd = os.open(
                path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
            )
        except FileExistsError:
            raise _error(
                "INVALID_ARGUMENTS", "the export file already exists; choose a new name"
            ) from None
        except OSError as exc:
            raise _error(
                "INVALID_ARGUMENTS", f"cannot create the export file: {exc.strerror}"
            ) from None
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise db.translate(exc) from None
        return {"path": path, "count": len(rows)}

    # ------------------------------------------------------------------ doctor

    def doctor(self, fix: bool = False) -> dict[str, Any]:
        from .doctor import run_doctor

        return run_doctor(self, fix)


def limits() -> dict[str, Any]:
    return {
        "value_chars": policy.VALUE_CHARS_MAX,
        "total_rows": policy.TOTAL_ROWS_MAX,
        "by_scope": {scope: dict(rule) for scope, rule in policy.CAPS.items()},
        "undo_history": policy.HISTORY_MAX,
        "deltas_per_apply": policy.DELTAS_PER_APPLY_MAX,
        "input_bytes": policy.INPUT_BYTES_MAX,
    }


def _roster(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    subjects: dict[str, dict[str, Any]] = {}
    for r in rows:
        entry = subjects.setdefault(
            r["subject_id"],
            {
                "subject_id": r["subject_id"],
                "display_label": None,
                "counts": {},
                "last_updated": "",
            },
        )
        entry["counts"][r["scope"]] = entry["counts"].get(r["scope"], 0) + 1
        entry["last_updated"] = max(entry["last_updated"], r["updated_at"])
        if r["scope"] == "object" and r["field"] == "display_label":
            entry["display_label"] = r["value"]
    ordered = sorted(
        subjects.values(), key=lambda e: (e["last_updated"], e["subject_id"]), reverse=True
    )
    return ordered[: policy.CONTEXT_ROSTER_MAX]


def _fit(memories: list[dict[str, Any]], max_chars: int) -> tuple[list[dict[str, Any]], int]:
    """Drop from the end (lowest priority) until json.dumps(memories) fits in max_chars.

    The length of a list's JSON is 2 + the items' lengths + 2 per separator, so
    each item is measured once.
    """
    if len(json.dumps(memories, ensure_ascii=False)) <= max_chars:
        return memories, 0  # the common case: one serialization, nothing dropped
    sizes = [len(json.dumps(m, ensure_ascii=False)) for m in memories]
    total = 2 + sum(sizes) + 2 * max(len(sizes) - 1, 0)
    keep = len(memories)
    while keep and total > max_chars:
        keep -= 1
        total -= sizes[keep] + (2 if keep else 0)
    return memories[:keep], len(memories) - keep


__all__ = ["MemoryStore", "MemoryStoreError", "ROW_KEYS", "limits"]
