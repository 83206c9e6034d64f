"""``doctor``: read-only health checks over the files and the stored rows."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import stat

from . import policy
from .errors import MemoryStoreError
from .storage import Session, db, files, not_a_memory_store, schema_too_new
from .storage.db import SCHEMA_VERSION
from .storage.files import FILE_MODE, SIDE_SUFFIXES
from .storage.rows import is_past_id

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from .storage.files import Location


class _Findings:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, check: str, severity: str, message: str, **details: Any) -> None:
        item: dict[str, Any] = {"check": check, "severity": severity, "message": message}
        if details:
            item["details"] = details
        self.items.append(item)


def run_doctor(location: Location, fix: bool = False) -> dict[str, Any]:
    f = _Findings()
    fixed: list[str] = []
    if not _check_directory(location, f):
        return _result(f, fixed)
    try:
        st = files.check_store_files(location.path)
    except MemoryStoreError as exc:
        f.add("files", "error", exc.message, code=exc.code)
        return _result(f, fixed)
    if st is None:
        f.add("files", "info", "no database file: memory is not enabled")
        return _result(f, fixed)
    _check_ownership(location, f, st)
    _check_modes(location, f, fix, fixed)
    if st.st_size == 0:
        f.add("schema", "info", "the database file is empty: a first enable did not finish")
    else:
        _check_file(location, f)
    for name in fixed:
        os.chmod(os.path.join(location.data_dir, name), FILE_MODE)
    return _result(f, fixed)


def _check_directory(location: Location, f: _Findings) -> bool:
    """The data directory: there, a directory, private; False when nothing more can be checked."""
    try:
        dir_st = files.check_data_dir(location.data_dir)
    except MemoryStoreError as exc:
        f.add("data_dir", "error", exc.message)
        return False
    if dir_st is None:
        f.add("data_dir", "info", "no store: memory has never been enabled here")
        return False
    mode = stat.S_IMODE(dir_st.st_mode)
    if mode & 0o077:
        f.add(
            "dir_mode",
            "warning",
            f"the data directory is readable by group or others (mode {mode:o}); "
            f"consider `chmod 700 {shlex.quote(location.data_dir)}` (doctor never changes a directory)",
            mode=f"{mode:o}",
        )
    else:
        f.add("dir_mode", "ok", f"the data directory is private (mode {mode:o})")
    return True


def _check_ownership(location: Location, f: _Findings, st: os.stat_result) -> None:
    try:
        files.check_ownership(os.stat(location.data_dir), st)
    except MemoryStoreError as exc:
        f.add("ownership", "error", exc.message, **exc.details)
        return
    f.add("ownership", "ok", "the directory and the database belong to this user")


def _check_modes(location: Location, f: _Findings, fix: bool, fixed: list[str]) -> None:
    for suffix in ("", *SIDE_SUFFIXES):
        path = location.path + suffix
        try:
            fmode = stat.S_IMODE(os.lstat(path).st_mode)
        except FileNotFoundError:
            continue
        name = os.path.basename(path)
        if fmode == FILE_MODE:
            continue
        if fix:
            fixed.append(name)  # applied at the end, once nothing can refuse any more
            f.add("file_mode", "ok", f"{name} mode {fmode:o} repaired to 600", file=name)
        else:
            f.add(
                "file_mode",
                "error",
                f"{name} has mode {fmode:o}, expected 600 "
                f"(`{location.command('doctor', '--fix')}` repairs it)",
                file=name,
                mode=f"{fmode:o}",
            )


def _check_file(location: Location, f: _Findings) -> None:
    try:
        session = Session.attach(location, check_owner=False)  # reported above
    except MemoryStoreError as exc:
        f.add("integrity", "error", exc.message, code=exc.code)
        return
    if session is None:  # removed since the checks above
        f.add("files", "info", "no database file: memory is not enabled")
        return
    try:
        _check_database(session.conn, f)
    except sqlite3.Error as exc:
        err = db.translate(exc)
        f.add("integrity", "error", err.message, code=err.code)
    finally:
        session.close()


def _result(f: _Findings, fixed: list[str]) -> dict[str, Any]:
    ok = not any(item["severity"] == "error" for item in f.items)
    return {"ok": ok, "findings": f.items, "fixed": fixed}


def _check_database(conn: sqlite3.Connection, f: _Findings) -> None:
    version, tables = db.read_schema(conn)
    if version > SCHEMA_VERSION:
        # documentation/commands.md#what-each-command-promises: under SCHEMA_TOO_NEW only status and revoke --delete run;
        # this release cannot judge a newer release's tables.
        raise schema_too_new(version)
    rows = conn.execute("PRAGMA quick_check").fetchall()
    if [r[0] for r in rows] != ["ok"]:
        f.add(
            "integrity",
            "error",
            "SQLite quick_check found damage",
            problems=[r[0] for r in rows[:10]],
        )
        return
    f.add("integrity", "ok", "SQLite quick_check passed")
    if version == 0:
        if tables:
            f.add("schema", "error", not_a_memory_store().message)
        else:
            f.add("schema", "info", "the database is empty: a first enable did not finish")
        return
    if version < SCHEMA_VERSION:
        f.add(
            "schema",
            "warning",
            f"schema version {version} will be migrated to {SCHEMA_VERSION} on next use",
        )
    else:
        f.add("schema", "ok", f"schema version {version}")
    _check_journal_mode(conn, f)
    _check_rows(conn, f, ended_ok=version >= 3)
    if version >= 3:
        _check_time(conn, f)
    _check_history(conn, f)


def _check_journal_mode(conn: sqlite3.Connection, f: _Findings) -> None:
    mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
    if mode == "wal":
        f.add("journal_mode", "ok", "journal mode WAL")
    else:
        f.add(
            "journal_mode",
            "warning",
            f"journal mode is {mode}, not WAL (another tool changed it); the next write switches it back",
            mode=mode,
        )


def _check_rows(conn: sqlite3.Connection, f: _Findings, ended_ok: bool) -> None:
    """Release 1's invariants; ``ended_ok``: the schema knows ended rows (empty value)."""
    import re

    subject_re = re.compile(policy.SUBJECT_ID_PATTERN.rstrip("$"))
    field_re = re.compile(policy.FIELD_PATTERN.rstrip("$"))
    rows = db.fetch_all(conn, "SELECT * FROM memories")  # an old schema has no past column
    problems = 0
    groups: dict[tuple[str, str | None], int] = {}
    for r in rows:
        scope = r["scope"]
        if scope not in policy.SCOPES:
            f.add("row", "error", f"row {r['id']} has an unknown scope", memory_id=r["id"])
            problems += 1
            continue
        if r["source_type"] not in policy.ELIGIBILITY[scope]:
            f.add(
                "eligibility",
                "error",
                f"row {r['id']} stores a {r['source_type']} source in scope {scope}",
                memory_id=r["id"],
            )
            problems += 1
        if not (1 <= len(r["value"] or "") <= policy.VALUE_CHARS_MAX) and not (
            ended_ok and r["value"] == "" and scope in policy.HISTORY_SCOPES
        ):
            f.add(
                "value_length",
                "error",
                f"row {r['id']} has a value outside 1-200 characters",
                memory_id=r["id"],
            )
            problems += 1
        if not subject_re.fullmatch(r["subject_id"] or "") or not field_re.fullmatch(
            r["field"] or ""
        ):
            f.add(
                "row",
                "error",
                f"row {r['id']} has a malformed subject_id or field",
                memory_id=r["id"],
            )
            problems += 1
        subject = r["subject_id"] or ""
        if (scope == "user" and subject != policy.USER_SUBJECT) or (
            scope != "user" and subject.lower() == policy.USER_SUBJECT
        ):
            f.add("row", "error", f"row {r['id']} misuses the subject id 'user'", memory_id=r["id"])
            problems += 1
        if r["confidence"] not in policy.CONFIDENCES:
            f.add("row", "error", f"row {r['id']} has an unknown confidence", memory_id=r["id"])
            problems += 1
        key = (scope, r["subject_id"] if policy.CAPS[scope]["per"] == "subject" else None)
        groups[key] = groups.get(key, 0) + 1
    for (scope, subject), n in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        cap = int(policy.CAPS[scope]["max"])  # type: ignore[call-overload]
        if n > cap:
            where = f" for {subject}" if subject else ""
            f.add(
                "caps",
                "error",
                f"{n} {scope} rows{where}, over the cap of {cap}",
                scope=scope,
                subject_id=subject,
            )
            problems += 1
    if len(rows) > policy.TOTAL_ROWS_MAX:
        f.add("caps", "error", f"{len(rows)} rows in all, over the cap of {policy.TOTAL_ROWS_MAX}")
        problems += 1
    if not problems:
        f.add("rows", "ok", f"{len(rows)} rows within caps and eligibility")


def _check_time(conn: sqlite3.Connection, f: _Findings) -> None:
    """The invariants (documentation/time.md#where-history-lives): past values (at most 3 a row, 60 in the store, dated,
    only on rows that keep history), an ended row's last value, pinned milestones."""
    rows = db.fetch_all(
        conn, "SELECT id, scope, subject_id, value, since, past, pinned FROM memories"
    )
    problems, total = 0, 0
    pins: dict[str, int] = {}
    # Before migration 4 a past value had no handle (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id); doctor never migrates.
    keys = policy.PAST_KEYS if db.user_version(conn) >= 4 else policy.PAST_KEYS_V2
    for r in rows:
        try:
            past = json.loads(r["past"]) if r["past"] else []
            good = isinstance(past, list) and all(
                set(p) == set(keys)
                and (p["since"] is None or p["since"] <= p["until"])
                and is_past_id(p.get("past_id", "p-0000000000000000"))
                for p in past
            )
        except (ValueError, TypeError, KeyError):
            good = False
        if (
            not good
            or len(past) > policy.PAST_PER_ROW_MAX
            or (past and r["scope"] not in policy.HISTORY_SCOPES)
        ):
            f.add("past", "error", f"row {r['id']} has malformed past values", memory_id=r["id"])
            problems += 1
            continue
        total += len(past)
        if r["value"] == "" and not past:
            f.add("past", "error", f"row {r['id']} ended without a past value", memory_id=r["id"])
            problems += 1
        if r["since"] is not None and len(r["since"]) != 10:
            f.add("since", "error", f"row {r['id']} has a malformed since", memory_id=r["id"])
            problems += 1
        if r["pinned"]:
            if r["scope"] != "event":
                f.add("pinned", "error", f"row {r['id']} is pinned but no event", memory_id=r["id"])
                problems += 1
            pins[r["subject_id"]] = pins.get(r["subject_id"], 0) + 1
    if total > policy.PAST_STORE_MAX:
        f.add("past", "error", f"{total} past values, over the cap of {policy.PAST_STORE_MAX}")
        problems += 1
    for subject, n in sorted(pins.items()):
        if n > policy.PINNED_PER_SUBJECT_MAX:
            f.add(
                "pinned",
                "error",
                f"{n} pinned events for {subject}, over the cap",
                subject_id=subject,
            )
            problems += 1
    if not problems:
        f.add("time", "ok", f"{total} past value(s), {sum(pins.values())} pinned milestone(s)")


def _check_history(conn: sqlite3.Connection, f: _Findings) -> None:
    n_ops = conn.execute("SELECT COUNT(*) FROM operations").fetchone()[0]
    problems = 0
    if n_ops > policy.HISTORY_MAX:
        f.add(
            "history",
            "error",
            f"{n_ops} operations kept, over the undo window of {policy.HISTORY_MAX}",
        )
        problems += 1
    orphans = conn.execute(
        "SELECT COUNT(*) FROM operation_rows WHERE seq NOT IN (SELECT seq FROM operations)"
    ).fetchone()[0]
    if orphans:
        f.add("history", "error", f"{orphans} operation row(s) point at no operation")
        problems += 1
    for op_id, seq, snapshot in conn.execute(
        "SELECT op_id, seq, snapshot FROM operations"
    ).fetchall():
        try:
            entries = json.loads(snapshot)
            ids = {e["id"] for e in entries}
        except (ValueError, TypeError, KeyError):
            f.add("history", "error", f"operation {op_id} has an unreadable snapshot", op_id=op_id)
            problems += 1
            continue
        indexed = {
            r[0] for r in conn.execute("SELECT memory_id FROM operation_rows WHERE seq = ?", (seq,))
        }
        if ids != indexed:
            f.add("history", "error", f"operation {op_id} is not indexed consistently", op_id=op_id)
            problems += 1
    if not problems:
        f.add("history", "ok", f"{n_ops} undoable operation(s)")
