"""The library's reference: documentation/library.md's table of ``MemoryStore`` lists every
public method."""

from __future__ import annotations

from support import ROOT

from memory_store import MemoryStore


def test_library_table_lists_every_public_method() -> None:
    readme = (ROOT / "documentation" / "library.md").read_text("utf-8")
    table = [line for line in readme.splitlines() if line.startswith("| ")]
    public = [name for name in dir(MemoryStore) if not name.startswith("_")]
    assert "search" in public and "hold" in public
    for name in public:
        assert any(f"`{name}(" in line for line in table), name
    assert any("query=None" in line and "`context(" in line for line in table)
