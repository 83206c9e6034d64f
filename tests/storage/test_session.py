"""A session held across calls (``MemoryStore.hold``), as the MCP server will use it.

The other party is always the real CLI in another process, as in real use: a
terminal next to a running server.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import DB_NAME, db_connect, delta, left_after_revoke_delete, ok

from memory_store import MemoryStore, MemoryStoreError


def code_of(call: object) -> str:
    with pytest.raises(MemoryStoreError) as excinfo:
        call()  # type: ignore[operator]
    return excinfo.value.code


@pytest.fixture
def held(enabled: Path) -> MemoryStore:
    store = MemoryStore(enabled)
    store.hold()
    store.apply(delta(value="小A"))
    yield store
    store.release()


def test_a_held_store_keeps_one_connection_and_no_transaction(held: MemoryStore) -> None:
    session = held._held
    assert session is not None
    held.context(subject_id="obj-a")
    held.apply(delta(field="mbti", value="INFJ"))
    assert held._held is session  # the same connection served every call
    assert not session.conn.in_transaction


def test_a_store_deleted_by_the_terminal_answers_like_a_fresh_process(
    held: MemoryStore, enabled: Path
) -> None:
    ok("revoke", "--delete", "--confirm", spawn=True)
    assert code_of(lambda: held.apply(delta(field="mbti", value="INFJ"))) == "NOT_INITIALIZED"
    assert code_of(held.log) == "NOT_INITIALIZED"
    assert (
        left_after_revoke_delete(enabled) == []
    )  # nothing written into an unlinked file, nothing created

    ok("enable", "--confirm", spawn=True)
    result = held.apply(delta(field="mbti", value="INFJ"))
    assert result["results"][0]["action"] == "created"
    assert [m["value"] for m in ok("show", spawn=True)["memories"]] == ["INFJ"]


def test_a_replaced_database_is_reopened(held: MemoryStore, enabled: Path) -> None:
    other = enabled.parent / "other"
    ok("--data-dir", str(other), "enable", "--confirm", spawn=True)
    ok(
        "--data-dir",
        str(other),
        "apply",
        "--json",
        '{"scope": "user", "field": "goal", '
        '"value": "从另一个文件", "source_type": "user_explicit"}',
        spawn=True,
    )
    for suffix in ("-wal", "-shm"):
        if (enabled / (DB_NAME + suffix)).exists():
            (enabled / (DB_NAME + suffix)).unlink()
    os.replace(other / DB_NAME, enabled / DB_NAME)
    values = [m["value"] for m in held.show()["memories"]]
    assert values == ["从另一个文件"]


def test_pause_in_the_terminal_applies_to_the_next_call(held: MemoryStore) -> None:
    ok("pause", spawn=True)
    assert code_of(lambda: held.context(subject_id="obj-a")) == "MEMORY_PAUSED"
    ok("resume", spawn=True)
    assert held.context(subject_id="obj-a")["memories"]


def test_a_newer_schema_written_meanwhile_is_refused(held: MemoryStore, enabled: Path) -> None:
    conn = db_connect(enabled)
    conn.execute("PRAGMA user_version=99")
    conn.commit()
    conn.close()
    assert code_of(lambda: held.context(subject_id="obj-a")) == "SCHEMA_TOO_NEW"
    assert held.status()["schema_version"] == 99


def test_forget_in_the_terminal_while_held_erases(held: MemoryStore) -> None:
    held.context(subject_id="obj-a")  # the held connection is open and idle
    result = ok("forget-object", "obj-a", "--confirm", spawn=True)
    assert result["erased"] is True
    assert held.show()["count"] == 0


def values(result: dict) -> list[str]:
    return [m["value"] for m in result["memories"]]


def test_remembered_rows_follow_every_change(held: MemoryStore) -> None:
    """A held session reuses the rows it read only while SQLite says nothing changed."""
    first = held.context(subject_id="obj-a")
    remembered = held._held._rows
    assert held.context(subject_id="obj-a") == first
    assert held._held._rows is remembered  # unchanged store: the same rows, not read again

    ok("apply", "--json", '{"scope": "object", "subject_id": "obj-a", "field": "city", '
       '"value": "杭州", "source_type": "user_report"}', spawn=True)  # fmt: skip
    assert "杭州" in values(held.context(subject_id="obj-a"))  # another process committed

    held.apply(delta(field="job", value="设计师"))
    assert "设计师" in values(held.context(subject_id="obj-a"))  # this connection committed
    assert "设计师" in values(held.search(query="设计师"))
    assert "设计师" in values(held.show(subject_id="obj-a"))


def test_a_deletion_leaves_no_remembered_copy(held: MemoryStore) -> None:
    held.context(subject_id="obj-a")
    assert "小A" in str(held._held._rows)
    held.forget_object("obj-a", confirm=True)
    # The receipt reads the files once this process holds no connection: the held
    # session, and the rows it remembered, are gone (the next call opens a fresh one).
    assert held._held is None
    assert held.context(subject_id="obj-a")["memories"] == []

    held.apply(delta(value="小B"))
    held.context(subject_id="obj-a")
    ok("forget-object", "obj-a", "--confirm", spawn=True)  # in a terminal
    assert held.context(subject_id="obj-a")["memories"] == []
    assert "小B" not in str(held._held._rows)


def test_show_does_not_reorder_the_remembered_rows(held: MemoryStore, enabled: Path) -> None:
    held.apply(
        {"deltas": [delta(field=f, value=v) for f, v in (("job", "老师"), ("city", "成都"))]}
    )
    held.show()  # sorts for display; the rows it shares with later calls stay as read
    conn = db_connect(enabled)
    as_read = [r[0] for r in conn.execute("SELECT * FROM memories")]  # table order
    conn.close()
    assert [r["id"] for r in held._held._rows[1]] == as_read
    assert values(held.show()) == ["成都", "小A", "老师"]  # city, display_label, job


def test_a_per_call_store_beside_a_held_one_loses_no_write(
    held: MemoryStore, enabled: Path
) -> None:
    """POSIX locks belong to the process: had the per-call store opened the database by
    path (release 1's header check did), closing it would have dropped the held
    connection's lock, the terminal's exit would have deleted the -wal under it, and
    the held store's next write would have gone into an unlinked file."""
    for field, value in (("mbti", "INFJ"), ("city", "杭州"), ("job", "nurse")):
        MemoryStore(enabled).context(subject_id="obj-a")  # one session per call, same process
        ok("apply", "--json", json.dumps(delta(field="note", value=value)), spawn=True)
        held.apply(delta(field=field, value=value))
        assert (enabled / (DB_NAME + "-wal")).exists()  # the terminal left it to the held store
    stored = {m["field"]: m["value"] for m in ok("show", spawn=True)["memories"]}
    assert stored == {
        "display_label": "小A",
        "note": "nurse",
        "mbti": "INFJ",
        "city": "杭州",
        "job": "nurse",
    }
