"""Schema versions (documentation/commands.md#robustness): ordered migrations, each in the transaction of its
``user_version`` bump.

- a blank store gets exactly the expected schema at ``len(MIGRATIONS)``;
- a store written at version 1 (built here by hand, as the first version was written)
  migrates on the next command with its data, consent and undo history intact,
  and ends with the same schema as a blank store;
- running the migrations again changes nothing;
- a failing migration rolls back and leaves the file as it was;
- a newer ``user_version`` is ``SCHEMA_TOO_NEW`` (exit 7) for every command but
  ``status`` and ``revoke --delete --confirm``, and nothing is written.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import DB_NAME, delta, fails, left_after_revoke_delete, ok, run_cli
from support.oldstore import old_row, open_old_store, write_old_store

from memory_store import MemoryStore, MemoryStoreError
from memory_store.storage import db, migrations
from memory_store.storage.file_writes import create_private_file, make_private_dirs

EXPECTED_TABLES = {
    "settings": ["key", "value"],
    "memories": [
        "id",
        "scope",
        "subject_id",
        "field",
        "occurred_key",
        "value",
        "source_type",
        "source_ref",
        "occurred_at",
        "confidence",
        "created_at",
        "updated_at",
        "write_seq",
        "since",  # release 3 (documentation/time.md#writing): added by m003_time
        "past",
        "pinned",
        "occurred_offset",
    ],
    "operations": ["seq", "op_id", "created_at", "action", "summary", "rows", "snapshot"],
    "operation_rows": ["seq", "memory_id", "subject_id", "row_key"],
}
EXPECTED_INDEXES = {
    # name: (table, columns)
    "memories_write_order": ("memories", ["subject_id", "scope", "updated_at", "write_seq"]),
    "operation_rows_memory": ("operation_rows", ["memory_id"]),
    "operation_rows_subject": ("operation_rows", ["subject_id"]),
    "operation_rows_key": ("operation_rows", ["row_key"]),
}
# Implicit indexes of PRIMARY KEY / UNIQUE constraints.
EXPECTED_AUTO_INDEXES = {
    ("settings", ("key",)),
    ("memories", ("id",)),
    ("memories", ("scope", "subject_id", "field", "occurred_key")),
    ("operations", ("op_id",)),
    ("operation_rows", ("seq", "memory_id")),
}


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)


def schema_dump(path: Path) -> dict[str, Any]:
    conn = connect(path)
    try:
        return {
            "user_version": conn.execute("PRAGMA user_version").fetchone()[0],
            "master": conn.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
            ).fetchall(),
        }
    finally:
        conn.close()


def data_dump(path: Path) -> dict[str, Any]:
    conn = connect(path)
    try:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in EXPECTED_TABLES
        }
    finally:
        conn.close()


def user_version(path: Path) -> int:
    return schema_dump(path)["user_version"]


def assert_current_schema(path: Path) -> None:
    conn = connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(migrations.MIGRATIONS)
        assert len(migrations.MIGRATIONS) == db.SCHEMA_VERSION
        objects = conn.execute("SELECT type, name, tbl_name FROM sqlite_master").fetchall()
        tables = {name for kind, name, _ in objects if kind == "table"}
        assert tables == set(EXPECTED_TABLES)
        assert {kind for kind, _, _ in objects} == {"table", "index"}  # no views, no triggers
        for table, columns in EXPECTED_TABLES.items():
            info = conn.execute(f"PRAGMA table_info({table})").fetchall()
            assert [row[1] for row in info] == columns, table
        named = {name: table for kind, name, table in objects if kind == "index"}
        auto = {n for n in named if n.startswith("sqlite_autoindex_")}
        assert set(named) - auto == set(EXPECTED_INDEXES)
        for name, (table, columns) in EXPECTED_INDEXES.items():
            assert named[name] == table
            cols = [r[2] for r in conn.execute(f"PRAGMA index_info({name})")]
            assert cols == columns, name
        auto_shapes = {
            (named[n], tuple(r[2] for r in conn.execute(f"PRAGMA index_info({n})"))) for n in auto
        }
        assert auto_shapes == EXPECTED_AUTO_INDEXES
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


# --------------------------------------------------------------------------- a blank store


def test_a_blank_store_gets_exactly_the_expected_schema(private_store: Path) -> None:
    data = ok("enable", "--confirm")
    assert data["schema_version"] == len(migrations.MIGRATIONS)
    assert_current_schema(private_store / DB_NAME)
    assert ok("status")["schema_version"] == len(migrations.MIGRATIONS)


def test_the_migration_list_applied_to_an_empty_file_matches_enable(
    private_store: Path, tmp_path: Path
) -> None:
    ok("enable", "--confirm")
    other = tmp_path / "bare" / DB_NAME
    make_private_dirs(str(other.parent))
    create_private_file(str(other))
    conn = db.connect(str(other))
    try:
        assert migrations.migrate(conn) == len(migrations.MIGRATIONS)
    finally:
        conn.close()
    assert schema_dump(other) == schema_dump(private_store / DB_NAME)


# --------------------------------------------------------------------------- version 1

T0 = "2026-10-01T08:00:00Z"
T1 = "2026-10-02T09:30:00Z"


def _row(mid: str, scope: str, subject: str, field: str, value: str, seq: int, **kw: Any) -> dict:
    return old_row(mid, scope, subject, field, value, seq, T0, **kw)


def build_v1_store(store_dir: Path) -> dict[str, Any]:
    """A store as release 1 (schema version 1) left it: consent given, six rows,
    and one undoable operation that updated one row and created another."""
    path = store_dir / DB_NAME
    conn = open_old_store(store_dir, 1)
    try:
        label_old = _row("m-00000000000000a1", "object", "obj-a", "display_label", "Ann", 2)
        label_new = {**label_old, "value": "Ann (小安)", "updated_at": T1, "write_seq": 6}
        created = _row(
            "m-00000000000000a6",
            "relationship",
            "obj-a",
            "stage",
            "friends",
            7,
            created_at=T1,
            updated_at=T1,
        )
        rows = [
            _row(
                "m-00000000000000u1",
                "user",
                "user",
                "goal",
                "learn to cook",
                1,
                source_type="user_explicit",
            ),
            label_new,
            _row(
                "m-00000000000000a3",
                "event",
                "obj-a",
                "invitation",
                "dinner at 7",
                3,
                occurred_at="2026-09-30",
            ),
            _row(
                "m-00000000000000a4",
                "hypothesis",
                "obj-a",
                "intent",
                "wants to reconnect",
                4,
                source_type="assistant_inference",
                source_ref="turn:12",
                confidence="low",
            ),
            _row("m-00000000000000b5", "object", "obj-b", "mbti", "INTJ", 5),
            created,
        ]
        snapshot = [
            {"id": label_old["id"], "before": label_old, "after": label_new},
            {"id": created["id"], "before": None, "after": created},
        ]
        summary = "obj-a object.display_label → Ann (小安); obj-a relationship.stage → friends"
        operation = {"op_id": "op-0000v001", "created_at": T1, "summary": summary}
        write_old_store(conn, rows, {**operation, "entries": snapshot}, T0)
    finally:
        conn.close()
    assert user_version(path) == 1
    public = [{k: v for k, v in r.items() if k not in ("occurred_key", "write_seq")} for r in rows]
    return {"rows": public, "label_old": label_old, "created": created}


def test_a_v1_fixture_has_the_v1_schema(private_store: Path) -> None:
    build_v1_store(private_store)
    names = {r[1] for r in schema_dump(private_store / DB_NAME)["master"]}
    assert "memories_subject" in names and "memories_write_order" not in names


@pytest.mark.parametrize(
    "command",
    [["show"], ["status"], ["log"], ["export"], ["context", "--subject-id", "obj-a"]],
)
def test_a_v1_store_migrates_on_the_next_command_with_its_data_intact(
    private_store: Path, command: list[str]
) -> None:
    fixture = build_v1_store(private_store)
    path = private_store / DB_NAME
    before = data_dump(path)
    ok(*command)
    assert_current_schema(path)
    after = data_dump(path)
    # Release 3's migration adds each row's time and nothing else: since is the row's
    # occurred_at or the day it was written, no past, not pinned.
    assert after["memories"] == [
        (*row, (row[8] or row[11])[:10], None, 0, None) for row in before["memories"]
    ]
    assert after["settings"] == before["settings"]
    assert after["operation_rows"] == before["operation_rows"]
    shown = ok("show")
    expected = [
        {**r, "since": (r["occurred_at"] or r["updated_at"])[:10], "past": [], "ended": False}
        | {"pinned": False}
        for r in fixture["rows"]
    ]
    assert sorted(shown["memories"], key=lambda r: r["id"]) == sorted(
        expected, key=lambda r: r["id"]
    )
    status = ok("status")
    assert status["consent_enabled"] is True and status["consent_at"] == T0
    assert status["schema_version"] == len(migrations.MIGRATIONS)
    assert status["undo_available"] == 1
    # The same schema as a store created by this release.
    fresh = MemoryStore(private_store.parent / "fresh")
    fresh.enable(confirm=True)
    assert schema_dump(Path(fresh.path))["master"] == schema_dump(path)["master"]


def test_the_migrated_store_keeps_working(private_store: Path) -> None:
    fixture = build_v1_store(private_store)
    data = ok("apply", "--json", json.dumps(delta(subject="obj-c", value="Cleo")))
    assert data["results"][0]["action"] == "created"
    assert user_version(private_store / DB_NAME) == len(migrations.MIGRATIONS)
    ok("undo")  # the new operation
    # Release 1's operation is still undoable: its before-snapshot restores exactly.
    undone = ok("undo")
    assert undone["undone_op_id"] == "op-0000v001"
    rows = {r["id"]: r for r in ok("show")["memories"]}
    old = fixture["label_old"]
    assert rows[old["id"]]["value"] == "Ann" and rows[old["id"]]["updated_at"] == T0
    assert fixture["created"]["id"] not in rows
    context = ok("context", "--subject-id", "obj-a")
    assert {m["field"] for m in context["memories"]} >= {"display_label", "goal", "intent"}
    assert MemoryStore(private_store).doctor()["ok"] is True


def test_processes_migrating_at_once_all_succeed(private_store: Path) -> None:
    fixture = build_v1_store(private_store)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memory_store", "show"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert err == b"" and p.returncode == 0, (out, err)
        assert json.loads(out)["data"]["count"] == len(fixture["rows"])
    assert_current_schema(private_store / DB_NAME)


def test_doctor_reports_an_old_schema_without_migrating_it(private_store: Path) -> None:
    build_v1_store(private_store)
    report = ok("doctor")
    assert report["ok"] is True
    assert any(f["check"] == "schema" and f["severity"] == "warning" for f in report["findings"])
    assert user_version(private_store / DB_NAME) == 1


# --------------------------------------------------------------------------- idempotence


def test_running_migrations_twice_changes_nothing(private_store: Path) -> None:
    build_v1_store(private_store)
    path = private_store / DB_NAME
    conn = db.connect(str(path))
    try:
        assert migrations.migrate(conn) == len(migrations.MIGRATIONS)
    finally:
        conn.close()
    schema, data = schema_dump(path), data_dump(path)
    raw = path.read_bytes()
    conn = db.connect(str(path))
    try:
        assert migrations.migrate(conn) == len(migrations.MIGRATIONS)  # nothing to do
        assert migrations.migrate(conn, migrations.MIGRATIONS[:1]) == len(
            migrations.MIGRATIONS
        )  # never goes back
    finally:
        conn.close()
    assert schema_dump(path) == schema and data_dump(path) == data
    assert path.read_bytes() == raw
    ok("show")
    ok("status")
    assert schema_dump(path) == schema and data_dump(path) == data


# --------------------------------------------------------------------------- a failing step


def fail_with_python_error(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE half_done (x INTEGER)")
    conn.execute("CREATE INDEX half_done_x ON half_done (x)")
    conn.execute("ALTER TABLE memories ADD COLUMN extra TEXT")
    conn.execute("DROP INDEX operation_rows_key")
    conn.execute("INSERT INTO half_done VALUES (1)")
    conn.execute("UPDATE memories SET value = 'clobbered'")
    conn.execute("DELETE FROM settings WHERE key = 'consent_enabled'")
    raise RuntimeError("migration failed halfway")


def fail_with_sqlite_error(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE half_done (x INTEGER)")
    conn.execute("DELETE FROM operations")
    conn.execute("INSERT INTO no_such_table VALUES (1)")


@pytest.mark.parametrize("failing", [fail_with_python_error, fail_with_sqlite_error])
def test_a_failing_migration_rolls_back_and_leaves_the_file_as_it_was(
    enabled: Path, failing: Any
) -> None:
    ok("apply", "--json", json.dumps({"deltas": [delta(value="Ann"), delta(subject="obj-b")]}))
    path = enabled / DB_NAME
    schema, data = schema_dump(path), data_dump(path)
    raw = path.read_bytes()
    conn = db.connect(str(path))
    try:
        with pytest.raises((RuntimeError, sqlite3.Error)):
            migrations.migrate(conn, [*migrations.MIGRATIONS, failing])
        assert not conn.in_transaction
        assert db.user_version(conn) == len(migrations.MIGRATIONS)
    finally:
        conn.close()
    assert schema_dump(path) == schema
    assert data_dump(path) == data
    assert path.read_bytes() == raw
    assert {p.name for p in enabled.iterdir()} == {DB_NAME}
    assert ok("show")["count"] == 2
    assert MemoryStore(enabled).doctor()["ok"] is True


def test_a_failing_step_after_an_old_version_keeps_the_old_version(private_store: Path) -> None:
    fixture = build_v1_store(private_store)
    path = private_store / DB_NAME
    schema, data = schema_dump(path), data_dump(path)
    conn = db.connect(str(path))
    try:
        with pytest.raises(RuntimeError):
            migrations.migrate(
                conn, [migrations.MIGRATIONS[0], fail_with_python_error, *migrations.MIGRATIONS[1:]]
            )
    finally:
        conn.close()
    assert schema_dump(path) == schema and data_dump(path) == data
    assert schema["user_version"] == 1
    # The real release then migrates it normally.
    assert len(ok("show")["memories"]) == len(fixture["rows"])
    assert_current_schema(path)


# --------------------------------------------------------------------------- a newer schema


def make_too_new(store_dir: Path) -> int:
    newer = len(migrations.MIGRATIONS) + 1
    conn = connect(store_dir / DB_NAME)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("CREATE TABLE future_feature (x TEXT)")
        conn.execute("ALTER TABLE memories ADD COLUMN future_column TEXT")
        conn.execute(f"PRAGMA user_version={newer}")
        conn.execute("COMMIT")
    finally:
        conn.close()
    return newer


REFUSED_UNDER_TOO_NEW = [
    ["apply", "--json", json.dumps(delta(value="new value"))],
    ["apply", "--json", "{not json"],
    ["apply", "--dry-run", "--json", json.dumps(delta(value="new value"))],
    ["show"],
    ["show", "--subject-id", "obj-a"],
    ["context"],
    ["context", "--subject-id", "obj-a"],
    ["log"],
    ["export"],
    ["undo"],
    ["undo", "--op-id", "op-00000000"],
    ["pause"],
    ["resume"],
    ["forget", "m-0000000000000000", "--confirm"],
    ["forget-object", "obj-a", "--confirm"],
    ["clear", "--confirm"],
    ["revoke", "--confirm"],
    ["enable", "--confirm"],
]


def test_a_newer_schema_refuses_every_command_and_writes_nothing(
    enabled: Path, tmp_path: Path
) -> None:
    ok("apply", "--json", json.dumps({"deltas": [delta(value="Ann"), delta(subject="obj-b")]}))
    newer = make_too_new(enabled)
    path = enabled / DB_NAME
    raw = path.read_bytes()
    for args in REFUSED_UNDER_TOO_NEW:
        r = fails("SCHEMA_TOO_NEW", *args)
        assert r.code == 7
        assert r.error["details"] == {"found": newer, "supported": len(migrations.MIGRATIONS)}, args
        assert path.read_bytes() == raw, args
        assert {p.name for p in enabled.iterdir()} == {DB_NAME}, args
    out = tmp_path / "export.json"
    fails("SCHEMA_TOO_NEW", "export", "--output", str(out))
    assert not out.exists()
    # --table errors go to stderr, same exit status.
    r = run_cli("--format", "table", "show", check_envelope=False)
    assert r.code == 7 and r.stdout == "" and "SCHEMA_TOO_NEW" in r.stderr
    # The library refuses the same way.
    store = MemoryStore(enabled)
    for call in (store.show, store.log, store.export, lambda: store.apply(delta())):
        with pytest.raises(MemoryStoreError) as excinfo:
            call()
        assert excinfo.value.code == "SCHEMA_TOO_NEW"
    assert path.read_bytes() == raw

    status = ok("status")
    assert status["exists"] is True and status["schema_version"] == newer
    # documentation/commands.md#what-each-command-promises: under SCHEMA_TOO_NEW only status and revoke --delete run; doctor refuses too,
    # and doctor --fix repairs nothing.
    os.chmod(path, 0o644)
    for args in (["doctor"], ["doctor", "--fix"]):
        r = fails("SCHEMA_TOO_NEW", *args)
        assert r.error["details"]["found"] == newer
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    os.chmod(path, 0o600)
    assert path.read_bytes() == raw
    assert user_version(path) == newer

    data = ok("revoke", "--delete", "--confirm")
    assert data["deleted"] is True
    assert left_after_revoke_delete(enabled) == []
    assert ok("status")["exists"] is False


def test_library_migrate_never_downgrades_a_newer_store(enabled: Path) -> None:
    newer = make_too_new(enabled)
    path = enabled / DB_NAME
    schema = schema_dump(path)
    conn = db.connect(str(path))
    try:
        assert migrations.migrate(conn) == newer
    finally:
        conn.close()
    assert schema_dump(path) == schema
    assert os.stat(path).st_mode & 0o777 == 0o600
