"""A held store (the MCP server's ``hold``) asked about one person turn after turn folds
their rows once (documentation/performance.md#the-mcp-server): a context call with a
question ranks the rows, then the probes of their field names for a time the question
names (documentation/time.md#then-however-it-is-asked), and both stay folded between calls
until the rows change. The answer is the same whether folded anew or kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memory_store import MemoryStore
from memory_store.recall import relevance


def _store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "store")
    store.enable(confirm=True)
    store.hold()
    for field, value, day in [
        ("display_label", "Rosa", None),
        ("lives_in", "Leeds", "2024-01-10"),
        ("lives_in", "Bristol", "2025-06-01"),
        ("event_trip", "drove to Reno for a wedding", "2024-09-14"),
    ]:
        delta: dict[str, Any] = {
            "scope": "object",
            "subject_id": "obj-ro",
            "field": field,
            "value": value,
            "source_type": "user_report",
        }
        if day:
            delta["occurred_at"] = day
        store.apply(delta)
    return store


def test_a_held_store_folds_the_rows_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    question = "the weekend we drove to Reno, where did Rosa live?"
    first = store.context("obj-ro", query=question)
    folds: list[int] = []
    real = relevance._Rows.fold.__func__  # type: ignore[attr-defined]

    def counted(cls: type, whole: str, n: int) -> Any:
        folds.append(n)
        return real(cls, whole, n)

    monkeypatch.setattr(relevance._Rows, "fold", classmethod(counted))
    again = store.context("obj-ro", query=question)
    assert folds == [], "the rows and their field names were folded again"
    assert again == first
    assert first["as_of"] is not None, "the question names a time: the anchors ran"
    store.apply(
        {
            "scope": "object",
            "subject_id": "obj-ro",
            "field": "hobby",
            "value": "climbs on Sundays",
            "source_type": "user_report",
        }
    )
    store.context("obj-ro", query=question)
    assert folds, "rows that changed are folded anew"
