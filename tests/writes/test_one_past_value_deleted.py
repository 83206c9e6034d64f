"""Removing one past value by its ``past_id`` (``apply``, what the served page's "forget
this past value" runs): one undoable operation; the row and its other values stay.

Real stores through the CLI and the library; ``show`` and ``log`` read back what happened.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import delta, fails, ok, put

from memory_store import MemoryStore
from memory_store.errors import MemoryStoreError


def _city(*values: str) -> str:
    for i, value in enumerate(values):
        put(delta(subject="obj-a", field="city", value=value, occurred_at=f"202{i}-01-01"))
    (row,) = [m for m in ok("show")["memories"] if m["field"] == "city"]
    return str(row["id"])


def _row(memory_id: str) -> dict:
    (row,) = [m for m in ok("show")["memories"] if m["id"] == memory_id]
    return row


def _past(memory_id: str) -> list[str]:
    return [p["value"] for p in _row(memory_id)["past"]]


def _forget_past(past_id: str) -> dict:
    return MemoryStore().apply({"action": "delete", "past_id": past_id})


def test_one_past_value_goes_and_undo_brings_it_back(enabled: Path) -> None:
    memory_id = _city("北京", "上海", "杭州")
    assert _past(memory_id) == ["北京", "上海"]
    result = _forget_past(_row(memory_id)["past"][0]["past_id"])
    assert _past(memory_id) == ["上海"]
    row = _row(memory_id)
    assert row["value"] == "杭州" and row["ended"] is False
    assert ok("log")["operations"][0]["op_id"] == result["op_id"]
    ok("undo", "--op-id", result["op_id"])
    assert _past(memory_id) == ["北京", "上海"]


def test_a_missing_past_value_changes_nothing(enabled: Path) -> None:
    memory_id = _city("北京", "杭州")
    before = ok("log")["operations"]
    with pytest.raises(MemoryStoreError) as caught:
        _forget_past("p-0000000000000000")
    assert caught.value.code == "MEMORY_NOT_FOUND"
    assert ok("log")["operations"] == before and _past(memory_id) == ["北京"]


def test_it_needs_consent_like_any_write(enabled: Path) -> None:
    memory_id = _city("北京", "杭州")
    past_id = _row(memory_id)["past"][0]["past_id"]
    ok("pause")
    with pytest.raises(MemoryStoreError) as caught:
        _forget_past(past_id)
    assert caught.value.code == "MEMORY_PAUSED" and _past(memory_id) == ["北京"]


def test_the_only_value_of_an_ended_row_is_forgotten_with_the_row(enabled: Path) -> None:
    """An ended row holds nothing but its past: deleting that value alone would leave a
    row with no value at all (which export and import refuse)."""
    memory_id = _city("北京")
    put({"action": "end", "id": memory_id})
    with pytest.raises(MemoryStoreError) as caught:
        _forget_past(_row(memory_id)["past"][0]["past_id"])
    assert caught.value.code == "INVALID_DELTA" and _past(memory_id) == ["北京"]
    assert caught.value.details["id"] == memory_id
    body = json.dumps({"action": "delete", "past_id": _row(memory_id)["past"][0]["past_id"]})
    r = fails("INVALID_DELTA", "apply", "--json", body)  # the envelope the schema describes
    assert r.error["details"]["path"].startswith("$")
