"""Stores at schema version 2 gain time (documentation/time.md#where-history-lives, "Migration and compatibility").

A store is built at schema version 2 by running the first two migrations, with
rows and an undoable operation as that version wrote them. The next command migrates
it: each row's since is its occurred_at or the day of its updated_at, no past, not
pinned; and undo of the old operation still works afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import db_connect, delta, ok, put, without_past_ids
from support.oldstore import old_row, open_old_store, write_old_store
from support.timekit import shown, today

from memory_store.storage import migrations

T0 = "2026-09-01T08:00:00Z"
T1 = "2026-10-02T23:30:00Z"


def _row(mid: str, scope: str, subject: str, field: str, value: str, seq: int, **kw: Any) -> dict:
    return old_row(mid, scope, subject, field, value, seq, T0, **kw)


def build_v2_store(store_dir: Path) -> dict[str, Any]:
    """Release 2's store: consent given, four rows, and one undoable operation that
    changed a job (release 2 kept no past value) and created a stage dated 2025-05-01."""
    conn = open_old_store(store_dir, 2)
    try:
        job_old = _row("m-00000000000000a1", "object", "obj-a", "job", "设计师", 1)
        job_new = {**job_old, "value": "老师", "updated_at": T1, "write_seq": 5}
        stage = _row(
            "m-00000000000000a2",
            "relationship",
            "obj-a",
            "stage",
            "暧昧期",
            6,
            occurred_at="2025-05-01",
            created_at=T1,
            updated_at=T1,
        )
        rows = [
            job_new,
            stage,
            _row(
                "m-00000000000000a3",
                "event",
                "obj-a",
                "conflict",
                "吵架",
                3,
                occurred_at="2026-08-30",
            ),
            _row(
                "m-00000000000000u1",
                "user",
                "user",
                "goal",
                "学做饭",
                4,
                source_type="user_explicit",
            ),
        ]
        snapshot = [
            {"id": job_old["id"], "before": job_old, "after": job_new},
            {"id": stage["id"], "before": None, "after": stage},
        ]
        operation = {"op_id": "op-0000v002", "created_at": T1, "summary": "obj-a object.job → 老师"}
        write_old_store(conn, rows, {**operation, "entries": snapshot}, T0)
    finally:
        conn.close()
    conn = db_connect(store_dir)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    finally:
        conn.close()
    return {"rows": rows, "job_old": job_old}


def test_release_two_rows_get_since_from_occurred_at_or_updated_at(private_store: Path) -> None:
    build_v2_store(private_store)
    rows = {m["field"]: m for m in ok("show")["memories"]}
    assert ok("status")["schema_version"] == len(migrations.MIGRATIONS)
    assert rows["job"]["since"] == "2026-10-02"  # the day of its updated_at (UTC)
    assert rows["stage"]["since"] == "2025-05-01"  # its occurred_at
    assert rows["conflict"]["since"] == "2026-08-30"
    assert rows["goal"]["since"] == "2026-09-01"
    for m in rows.values():
        assert m["past"] == [] and m["ended"] is False and m["pinned"] is False


def test_undo_of_a_release_two_operation_still_works_after_the_migration(
    private_store: Path,
) -> None:
    fixture = build_v2_store(private_store)
    ok("show")  # migrates
    data = ok("undo")
    assert data["undone_op_id"] == "op-0000v002"
    rows = {m["field"]: m for m in ok("show")["memories"]}
    assert "stage" not in rows
    assert rows["job"]["value"] == "设计师"
    assert rows["job"]["updated_at"] == fixture["job_old"]["updated_at"]
    assert rows["job"]["since"] == "2026-09-01" and rows["job"]["past"] == []


def test_a_migrated_row_changes_and_keeps_history_like_a_new_one(private_store: Path) -> None:
    build_v2_store(private_store)
    put(delta(field="job", value="老师", source="user_explicit", confidence="high"))
    assert {m["field"]: m for m in shown().values()}["job"]["since"] == "2026-10-02"
    put(delta("relationship", field="stage", value="在一起", occurred_at="2025-09-01"))
    stage = {m["field"]: m for m in shown().values()}["stage"]
    assert without_past_ids(stage["past"]) == [
        {
            "value": "暧昧期",
            "since": "2025-05-01",
            "until": "2025-09-01",
            "source_type": "user_report",
        }
    ]
    put(delta("user", field="goal", value="学游泳"))
    goal = {m["field"]: m for m in shown().values()}["goal"]
    assert goal["since"] == today() and goal["past"][0]["since"] == "2026-09-01"
    assert ok("doctor")["ok"] is True
