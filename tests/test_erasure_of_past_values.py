"""Past values are erased with their row (documentation/privacy.md#past-values-release-3, documentation/privacy.md#erasure-is-physical), and doctor knows them.

Each past value carries a unique marker; after forget, forget-object, clear and
revoke --delete the raw bytes of memory.sqlite3, -wal and -shm hold none of them.
Another process keeps the database open throughout (``held_open``): a file read in
this process would drop a connection's POSIX locks, so such a test proves nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import delta, find_leaks, held_open, ok, put, raw_files
from support.timekit import shown


@pytest.fixture
def watched(enabled: Path) -> Any:
    with held_open(enabled, "idle"):
        yield enabled


def _with_history(subject: str, tag: str) -> tuple[list[str], list[str]]:
    """Rows of ``subject`` with past values, an ended row and a pinned event; returns
    (their ids, every marker written)."""
    marks = [f"{tag}-past{i}-过去" for i in range(4)]
    ids = []
    r = put(delta(subject=subject, field="city", value=marks[0], occurred_at="2024-01-01"))
    ids.append(r["results"][0]["memory"]["id"])
    put(delta(subject=subject, field="city", value=marks[1], occurred_at="2025-01-01"))
    put(delta(subject=subject, field="city", value=f"{tag}-now-现在", occurred_at="2026-01-01"))
    r = put(delta("relationship", subject=subject, field="stage", value=marks[2]))
    ids.append(r["results"][0]["memory"]["id"])
    put({"action": "end", "id": ids[-1]})
    r = put(
        delta(
            "event",
            subject=subject,
            field="first_meeting",
            value=marks[3],
            occurred_at="2024-01-01",
            pinned=True,
        )
    )
    ids.append(r["results"][0]["memory"]["id"])
    return ids, [*marks, f"{tag}-now-现在"]


def test_the_markers_are_seen_while_stored(watched: Path) -> None:
    _, marks = _with_history("obj-a", "seen")
    assert {m for m, _ in find_leaks(watched, marks)} == set(marks)


def test_forget_erases_a_rows_past_values(watched: Path) -> None:
    ids, marks = _with_history("obj-a", "fg")
    _, kept = _with_history("obj-b", "keep")
    for memory_id in ids:
        ok("forget", memory_id, "--confirm")
    assert find_leaks(watched, marks) == []
    assert {m for m, _ in find_leaks(watched, kept)} == set(kept)


def test_forget_object_erases_past_values(watched: Path) -> None:
    _, marks = _with_history("obj-a", "fo")
    _, kept = _with_history("obj-b", "stay")
    data = ok("forget-object", "obj-a", "--confirm")
    assert data["erased"] is True
    assert find_leaks(watched, marks) == []
    assert {m for m, _ in find_leaks(watched, kept)} == set(kept)


def test_clear_erases_past_values(watched: Path) -> None:
    _, marks = _with_history("obj-a", "cl")
    put(delta("user", field="goal", value="user-past-目标"))
    put(delta("user", field="goal", value="user-now"))
    ok("clear", "--confirm")
    assert find_leaks(watched, [*marks, "user-past-目标", "user-now"]) == []


def test_revoke_delete_removes_every_file(watched: Path) -> None:
    _with_history("obj-a", "rv")
    ok("revoke", "--delete", "--confirm")
    assert raw_files(watched) == {}


def test_a_past_value_dropped_by_the_row_cap_leaves_with_the_undo_window(
    watched: Path,
) -> None:
    first = "oldest-past-将被丢弃"
    put(delta(field="city", value=first, occurred_at="2020-01-01"))
    for i in range(1, 5):
        put(delta(field="city", value=f"city-{i}", occurred_at=f"202{i}-01-01"))
    assert [p["value"] for m in shown().values() for p in m["past"]] == [
        "city-1",
        "city-2",
        "city-3",
    ]
    assert find_leaks(watched, [first])  # undo can still bring it back
    for i in range(20):
        put(delta(subject=f"pad-{i}", field="fact", value=f"pad {i}"))
    assert find_leaks(watched, [first]) == []


# ---------------------------------------------------------------- doctor


def test_doctor_is_ok_on_a_store_with_past_ended_and_pinned_rows(enabled: Path) -> None:
    _with_history("obj-a", "doc")
    job = put(delta(field="job", value="设计师"))
    put(delta(field="occupation", value="老师", replaces=job["results"][0]["memory"]["id"]))
    data = ok("doctor")
    bad = [f for f in data["findings"] if f["severity"] != "ok"]
    assert data["ok"] is True, bad
