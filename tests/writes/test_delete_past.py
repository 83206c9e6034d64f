"""Removing one past value (``MemoryStore.delete_past``, the served page's "forget this
past value"): one undoable operation; the row and its other values stay.

Real stores through the CLI and the library; ``show`` and ``log`` read back what happened.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import delta, ok, put

from memory_store import MemoryStore
from memory_store.errors import MemoryStoreError


def _city(*values: str) -> str:
    for i, value in enumerate(values):
        put(delta(subject="obj-a", field="city", value=value, occurred_at=f"202{i}-01-01"))
    (row,) = [m for m in ok("show")["memories"] if m["field"] == "city"]
    return str(row["id"])


def _past(memory_id: str) -> list[str]:
    (row,) = [m for m in ok("show")["memories"] if m["id"] == memory_id]
    return [p["value"] for p in row["past"]]


def test_one_past_value_goes_and_undo_brings_it_back(enabled: Path) -> None:
    memory_id = _city("北京", "上海", "杭州")
    assert _past(memory_id) == ["北京", "上海"]
    result = MemoryStore().delete_past(memory_id, 0)
    assert _past(memory_id) == ["上海"]
    (row,) = [m for m in ok("show")["memories"] if m["id"] == memory_id]
    assert row["value"] == "杭州" and row["ended"] is False
    assert ok("log")["operations"][0]["op_id"] == result["op_id"]
    assert "past value deleted: 北京" in result["summary"]
    ok("undo", "--op-id", result["op_id"])
    assert _past(memory_id) == ["北京", "上海"]


def test_a_missing_past_value_changes_nothing(enabled: Path) -> None:
    memory_id = _city("北京", "杭州")
    before = ok("log")["operations"]
    for memory, index in ((memory_id, 1), (memory_id, -1), ("m-0000000000000000", 0)):
        with pytest.raises(MemoryStoreError) as caught:
            MemoryStore().delete_past(memory, index)
        assert caught.value.code == "MEMORY_NOT_FOUND"
    assert ok("log")["operations"] == before and _past(memory_id) == ["北京"]


def test_the_only_value_of_an_ended_row_is_forgotten_with_the_row(enabled: Path) -> None:
    memory_id = _city("北京")
    put({"action": "end", "id": memory_id})
    with pytest.raises(MemoryStoreError) as caught:
        MemoryStore().delete_past(memory_id, 0)
    assert caught.value.code == "INVALID_ARGUMENTS" and _past(memory_id) == ["北京"]


def test_it_needs_consent_like_any_write(enabled: Path) -> None:
    memory_id = _city("北京", "杭州")
    ok("pause")
    with pytest.raises(MemoryStoreError) as caught:
        MemoryStore().delete_past(memory_id, 0)
    assert caught.value.code == "MEMORY_PAUSED" and _past(memory_id) == ["北京"]
