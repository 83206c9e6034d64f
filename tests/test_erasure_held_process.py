"""A long-lived process forgets erased text (documentation/privacy.md).

The MCP server keeps one ``MemoryStore`` across calls (``hold``), and recall keeps the
last rows it ranked, folded, between calls. After an erasure — ``forget``,
``forget-object``, ``clear``, ``undo`` of the write, ``revoke --delete`` — no module of
the package may still hold the erased text, before any further query.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_store import MemoryStore

MARK = "quokkazanzibar"  # folded text keeps it whole: lower case, ASCII


def _holds(obj: Any, seen: set[int], depth: int = 0) -> bool:
    if isinstance(obj, str):
        return MARK in obj
    if depth > 6 or id(obj) in seen:
        return False
    seen.add(id(obj))
    if isinstance(obj, dict):
        return any(_holds(k, seen, depth + 1) or _holds(v, seen, depth + 1) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_holds(x, seen, depth + 1) for x in obj)
    slots = getattr(obj, "__dict__", None)
    if isinstance(slots, dict) and not isinstance(obj, type):
        return _holds(slots, seen, depth + 1)
    return False


def _kept_by_the_package() -> list[str]:
    """The package's module-level values that still hold the marker."""
    found = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("memory_store") or module is None:
            continue
        for attr, value in vars(module).items():
            if attr.startswith("__") or isinstance(value, (types.ModuleType, type)):
                continue
            if callable(value) and not isinstance(value, (list, dict)):
                continue
            if _holds(value, set()):
                found.append(f"{name}.{attr}")
    return found


def _held_store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "store")
    store.enable(confirm=True)
    store.hold()
    store.apply(
        {
            "scope": "object",
            "subject_id": "obj-a",
            "field": "display_label",
            "value": "Ana",
            "source_type": "user_report",
        }
    )
    store.apply(
        {
            "scope": "object",
            "subject_id": "obj-a",
            "field": "hobby",
            "value": f"keeps a {MARK} sticker on her bike",
            "source_type": "user_report",
        }
    )
    store.apply(
        {
            "scope": "object",
            "subject_id": "obj-a",
            "field": "hobby",
            "value": "climbs on Sundays",
            "source_type": "user_report",
            "occurred_at": "2026-03-01",
        }
    )
    # Ranked: the rows' folded text is now kept between calls, as in the server.
    store.context("obj-a", query=f"what about the {MARK} sticker and her bike?")
    store.search(f"{MARK} bike")
    assert _kept_by_the_package(), "the test must first see the cache hold the text"
    return store


def _hobby_id(store: MemoryStore) -> str:
    (row,) = [m for m in store.show("obj-a")["memories"] if m["field"] == "hobby"]
    return str(row["id"])


ERASURES: dict[str, Callable[[MemoryStore], Any]] = {
    "forget": lambda s: s.forget(_hobby_id(s), confirm=True),
    "forget-object": lambda s: s.forget_object("obj-a", confirm=True),
    "clear": lambda s: s.clear(confirm=True),
    "revoke --delete": lambda s: s.revoke(confirm=True, delete=True),
}


@pytest.mark.parametrize("erasure", list(ERASURES))
def test_an_erasure_leaves_no_copy_in_a_held_process(tmp_path: Path, erasure: str) -> None:
    store = _held_store(tmp_path)
    ERASURES[erasure](store)
    assert _kept_by_the_package() == []
    store.release()


def test_undo_of_the_write_leaves_no_copy_in_a_held_process(tmp_path: Path) -> None:
    store = _held_store(tmp_path)
    store.undo()  # the correction: the old value comes back, the sticker's is a past value
    store.undo()  # the write of the sticker itself
    assert MARK not in str(store.show("obj-a"))
    assert _kept_by_the_package() == []
    store.release()
