"""documentation/commands.md#what-each-command-promises undo: exact restoration, --op-id, UNDO_CONFLICT, NOTHING_TO_UNDO,
OPERATION_NOT_FOUND, undo never being itself undoable, and an operation's summary on one
line (documentation/commands.md#what-each-command-promises)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support import backdate, delta, fails, ok, op_ids, put, run_cli

from memory_store import MemoryStore

OLD = "2020-01-02T03:04:05Z"


def rows() -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in ok("show")["memories"]}


def test_undo_of_created_rows_removes_them(enabled: Path) -> None:
    base = put(delta("user", field="goal", value="长期关系"))
    before = rows()
    op = put(
        delta(field="display_label", value="小A"),
        delta("event", field="invitation", value="周六吃饭"),
    )
    created = {r["memory"]["id"] for r in op["results"]}
    assert created <= set(rows())
    undone = ok("undo")
    assert undone["undone_op_id"] == op["op_id"]
    assert {m["id"] for m in undone["removed"]} == created
    assert undone["restored"] == []
    assert rows() == before
    assert op_ids() == [base["op_id"]]


def test_undo_of_an_update_restores_the_row_exactly(enabled: Path) -> None:
    put(delta(field="mbti", value="INFJ", source_ref="turn:1", confidence="high"))
    backdate(enabled)
    before = rows()
    [original] = before.values()
    assert original["updated_at"] == OLD and original["created_at"] == OLD
    op = put(delta(field="mbti", value="ENFP", source="user_explicit", confidence="low"))
    assert op["results"][0]["action"] == "updated"
    changed = rows()[original["id"]]
    assert changed["value"] == "ENFP" and changed["updated_at"] != OLD
    assert changed["created_at"] == OLD
    undone = ok("undo")
    assert undone["restored"] == [original]
    assert undone["removed"] == []
    assert rows() == before  # every key, id and timestamps included


def test_undo_of_a_delete_restores_the_row_exactly(enabled: Path) -> None:
    put(
        delta(field="display_label", value="小A"),
        delta("event", field="conflict", value="争吵", occurred_at="2026-05-01T20:30:00+08:00"),
    )
    backdate(enabled)
    before = rows()
    event = next(m for m in before.values() if m["scope"] == "event")
    assert event["occurred_at"] == "2026-05-01T12:30:00Z"
    label = next(m for m in before.values() if m["scope"] == "object")
    op = ok(
        "apply",
        "--json",
        json.dumps(
            {
                "deltas": [
                    {"action": "delete", "id": label["id"]},
                    {
                        "action": "delete",
                        "scope": "event",
                        "subject_id": "obj-a",
                        "field": "conflict",
                        "occurred_at": "2026-05-01T12:30:00Z",
                    },
                ]
            }
        ),
    )
    assert [r["action"] for r in op["results"]] == ["deleted", "deleted"]
    assert rows() == {}
    undone = ok("undo")
    assert sorted(undone["restored"], key=lambda m: m["id"]) == sorted(
        before.values(), key=lambda m: m["id"]
    )
    assert rows() == before


def test_undo_of_a_mixed_batch(enabled: Path) -> None:
    put(delta(field="mbti", value="INFJ"), delta(field="fact", value="喜欢猫"))
    backdate(enabled)
    before = rows()
    fact = next(m for m in before.values() if m["field"] == "fact")
    put(
        delta(field="mbti", value="ENFP"),
        {"action": "delete", "id": fact["id"]},
        delta("relationship", field="stage", value="暧昧"),
    )
    ok("undo")
    assert rows() == before


def test_undo_restores_pruned_rows(enabled: Path) -> None:
    for i in range(5):
        put(delta("hypothesis", field=f"h{i}", value=f"猜测{i}"))
    backdate(enabled)
    before = rows()
    op = put(delta("hypothesis", field="h5", value="猜测5"))
    assert len(op["pruned"]) == 1
    pruned = op["pruned"][0]
    assert pruned in before.values()
    assert pruned["id"] not in rows()
    undone = ok("undo")
    assert pruned in undone["restored"]
    assert rows() == before


def test_undo_named_older_operation(enabled: Path) -> None:
    first = put(delta(field="display_label", value="小A"))
    second = put(delta(subject="obj-b", field="display_label", value="小B"))
    third = put(delta(subject="obj-c", field="display_label", value="小C"))
    undone = ok("undo", "--op-id", second["op_id"])
    assert undone["undone_op_id"] == second["op_id"]
    assert {m["subject_id"] for m in rows().values()} == {"obj-a", "obj-c"}
    assert op_ids() == [third["op_id"], first["op_id"]]
    fails("OPERATION_NOT_FOUND", "undo", "--op-id", second["op_id"])
    assert ok("undo")["undone_op_id"] == third["op_id"]
    assert ok("undo")["undone_op_id"] == first["op_id"]
    fails("NOTHING_TO_UNDO", "undo")


def test_undo_conflict_when_a_later_operation_changed_the_row(enabled: Path) -> None:
    first = put(delta(field="mbti", value="INFJ"))
    unrelated = put(delta(subject="obj-b", field="display_label", value="小B"))
    second = put(delta(field="mbti", value="ENFP"))
    before = (rows(), op_ids())
    r = fails("UNDO_CONFLICT", "undo", "--op-id", first["op_id"])
    assert r.code == 5
    later = r.error["details"]["later_op_ids"]
    assert later == [second["op_id"]]
    assert unrelated["op_id"] not in later
    assert (rows(), op_ids()) == before  # a refusal changes nothing
    # undo the later one first, then the earlier one goes
    assert ok("undo", "--op-id", second["op_id"])["undone_op_id"] == second["op_id"]
    assert ok("undo", "--op-id", first["op_id"])["undone_op_id"] == first["op_id"]
    assert {m["subject_id"] for m in rows().values()} == {"obj-b"}
    assert op_ids() == [unrelated["op_id"]]


def test_undo_conflict_lists_every_later_operation(enabled: Path) -> None:
    first = put(delta(field="mbti", value="INFJ"))
    second = put(delta(field="mbti", value="ENFP"))
    third = ok(
        "apply",
        "--json",
        json.dumps({"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "mbti"}),
    )
    fourth = put(delta(field="mbti", value="ISTP"))  # a new row under the same key
    r = fails("UNDO_CONFLICT", "undo", "--op-id", first["op_id"])
    assert set(r.error["details"]["later_op_ids"]) == {
        second["op_id"],
        third["op_id"],
        fourth["op_id"],
    }
    r = fails("UNDO_CONFLICT", "undo", "--op-id", second["op_id"])
    assert set(r.error["details"]["later_op_ids"]) == {third["op_id"], fourth["op_id"]}
    for op in (fourth, third, second, first):
        assert ok("undo")["undone_op_id"] == op["op_id"]
    assert rows() == {}


def test_undo_conflict_after_a_later_delete(enabled: Path) -> None:
    first = put(delta(field="display_label", value="小A"))
    mid = first["results"][0]["memory"]["id"]
    second = ok("apply", "--json", json.dumps({"action": "delete", "id": mid}))
    r = fails("UNDO_CONFLICT", "undo", "--op-id", first["op_id"])
    assert r.error["details"]["later_op_ids"] == [second["op_id"]]
    ok("undo")
    assert mid in rows()
    ok("undo")
    assert rows() == {}


def test_nothing_to_undo(enabled: Path) -> None:
    r = fails("NOTHING_TO_UNDO", "undo")
    assert r.code == 3
    put(delta(field="display_label", value="小A"))
    ok("undo")
    fails("NOTHING_TO_UNDO", "undo")
    # an unchanged write records no operation to undo
    put(delta(field="display_label", value="小A"))
    put(delta(field="display_label", value="小A"))
    ok("undo")
    fails("NOTHING_TO_UNDO", "undo")
    # a dry run records none either
    ok("apply", "--dry-run", "--json", json.dumps(delta(field="mbti", value="INFJ")))
    fails("NOTHING_TO_UNDO", "undo")


def test_operation_not_found(enabled: Path) -> None:
    put(delta(field="display_label", value="小A"))
    before = (rows(), op_ids())
    r = fails("OPERATION_NOT_FOUND", "undo", "--op-id", "op-00000000")
    assert r.code == 3
    fails("OPERATION_NOT_FOUND", "undo", "--op-id", "'; DROP TABLE memories; --")
    assert (rows(), op_ids()) == before


def test_undo_is_not_itself_undoable(enabled: Path) -> None:
    a = put(delta(field="display_label", value="小A"))
    b = put(delta(subject="obj-b", field="display_label", value="小B"))
    assert len(ok("log")["operations"]) == 2
    assert ok("status")["undo_available"] == 2
    ok("undo")
    ops = ok("log")["operations"]
    assert [o["op_id"] for o in ops] == [a["op_id"]]
    assert all(o["op_id"] != b["op_id"] for o in ops)
    assert ok("status")["undo_available"] == 1
    # the next undo reverts the earlier apply, never "redoes" the undone one
    assert ok("undo")["undone_op_id"] == a["op_id"]
    assert rows() == {}
    assert ok("log")["operations"] == []
    fails("NOTHING_TO_UNDO", "undo")


def test_undo_while_paused_or_revoked(enabled: Path) -> None:
    put(delta(field="display_label", value="小A"))
    put(delta(subject="obj-b", field="display_label", value="小B"))
    ok("pause")
    ok("undo")
    ok("revoke", "--confirm")
    ok("undo")
    assert rows() == {}
    assert ok("status")["consent_enabled"] is False


def test_undo_conflict_when_a_later_operation_pruned_the_row(enabled: Path) -> None:
    first = put(delta("hypothesis", field="h0", value="猜测0"))
    for i in range(1, 5):
        put(delta("hypothesis", field=f"h{i}", value=f"猜测{i}"))
    pruning = put(delta("hypothesis", field="h5", value="猜测5"))
    assert [m["field"] for m in pruning["pruned"]] == ["h0"]
    before = (rows(), op_ids())
    r = fails("UNDO_CONFLICT", "undo", "--op-id", first["op_id"])
    assert r.error["details"]["later_op_ids"] == [pruning["op_id"]]
    assert (rows(), op_ids()) == before
    ok("undo")  # the pruning apply: h0 comes back, h5 goes
    assert {m["field"] for m in rows().values()} == {f"h{i}" for i in range(5)}
    assert ok("undo", "--op-id", first["op_id"])["undone_op_id"] == first["op_id"]
    assert {m["field"] for m in rows().values()} == {f"h{i}" for i in range(1, 5)}


def test_an_operation_out_of_the_window_is_not_found(enabled: Path) -> None:
    lib = MemoryStore(enabled)
    first = lib.apply(delta("user", field="f0", value="v0"))
    for i in range(1, 21):
        lib.apply(delta("user", field=f"f{i}", value=f"v{i}"))
    assert len(op_ids()) == 20
    assert first["op_id"] not in op_ids()
    fails("OPERATION_NOT_FOUND", "undo", "--op-id", first["op_id"])
    assert len(rows()) == 21


def test_the_summary_is_one_line(enabled: Path) -> None:
    data = put(delta(field="fact", value="第一行\n第二行\twith a tab"))
    assert data["summary"] == "obj-a object.fact → 第一行⏎第二行 with a tab"
    logged = ok("log")["operations"][0]["summary"]
    assert logged == data["summary"]
    assert "\n" not in ok("undo")["summary"]
    table = run_cli("--format", "table", "log", check_envelope=False)
    assert table.code == 0
