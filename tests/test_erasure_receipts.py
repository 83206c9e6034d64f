"""Erasure receipts (documentation/privacy.md, "The receipt").

``forget``, ``forget-object``, ``clear`` and ``revoke --delete`` answer ``data.verified``:
the erased values, labels, evidence and past values searched for, as UTF-8, in the
store's files after the erasure. The receipt is checked here against the files
themselves (``find_leaks`` reads them in this test process, apart from the code), on a
store large enough for SQLite to rebalance its pages; and where another process still
holds the old pages, the receipt says the texts are still there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from support import (
    DB_NAME,
    ROOT,
    YES,
    call,
    data_of,
    delta,
    find_leaks,
    held_open,
    ok,
    put,
)

from memory_store import MemoryStore
from memory_store.mcp import build_server

SCHEMAS = ROOT / "references" / "schemas"
SECRETS = {
    "label": "林小满-读书会",
    "value": "在杭州滨江做产品经理-receipt",
    "evidence": "chat 2026-03-02 she said so-receipt",
    "past": "以前在苏州当老师-receipt",
}


def _store_with_secrets(others: int = 60) -> None:
    """obj-a with every kind of text an erasure removes; ``others`` rows of filler, so
    that the file has many pages."""
    put(delta(value=SECRETS["label"]))
    put(delta(field="job", value=SECRETS["past"], occurred_at="2024-01-01"))
    put(delta(field="job", value=SECRETS["value"], occurred_at="2025-06-01"))
    put(
        delta(
            "hypothesis",
            field="intent",
            value="wants to move back-receipt",
            source_ref=SECRETS["evidence"],
        )
    )
    for i in range(others):
        subject = f"obj-f{i // 10}"
        put(delta(subject=subject, field=f"fact_{i % 10}", value=f"filler {i} " + "x" * 150))


def _check(verified: dict[str, Any], store_dir: Path, texts: list[str]) -> None:
    jsonschema.validate(verified, _verified_schema())
    on_disk = sorted(p.name for p in store_dir.iterdir() if p.name.startswith(DB_NAME))
    assert verified["files"] == [f for f in verified["files"] if f in on_disk + ["revoked.json"]]
    assert set(on_disk) <= set(verified["files"])
    sizes = sum((store_dir / f).stat().st_size for f in verified["files"])
    assert verified["bytes"] == sizes
    assert verified["texts"] >= len(texts)
    assert verified["absent"] is (find_leaks(store_dir, texts) == [])


def _verified_schema() -> dict[str, Any]:
    schema = json.loads((SCHEMAS / "memory.schema.json").read_text())
    return dict(schema["$defs"]["receipt"])


@pytest.mark.parametrize("command", ["forget", "forget-object", "clear", "revoke --delete"])
def test_each_erasure_returns_a_receipt_the_files_confirm(enabled: Path, command: str) -> None:
    _store_with_secrets()
    texts = list(SECRETS.values())
    if command == "forget":
        (job,) = [m for m in ok("show")["memories"] if m["field"] == "job"]
        texts = [SECRETS["value"], SECRETS["past"]]
        result = ok("forget", job["id"], "--confirm")
    elif command == "forget-object":
        result = ok("forget-object", "obj-a", "--confirm")
    elif command == "clear":
        result = ok("clear", "--confirm")
    else:
        result = ok("revoke", "--delete", "--confirm")
    verified = result["verified"]
    assert verified["absent"] is True and verified["found"] == 0
    _check(verified, enabled, texts)
    assert find_leaks(enabled, texts) == []
    if command != "revoke --delete":
        assert verified["files"][0] == DB_NAME and verified["bytes"] > 0


def test_a_text_another_process_still_holds_is_reported_found(enabled: Path) -> None:
    _store_with_secrets(others=5)
    with held_open(enabled, "read"):  # pins the old pages: SQLite cannot erase them yet
        result = ok("forget-object", "obj-a", "--confirm")
        verified = result["verified"]
        assert result["erased"] is False
        assert verified["absent"] is False and verified["found"] >= 1
        _check(verified, enabled, list(SECRETS.values()))
    # The next write completes the erasure; a forget of something else then says so.
    put(delta(subject="obj-b", value="Bo-receipt-next"))
    (row,) = [m for m in ok("show")["memories"] if m["value"] == "Bo-receipt-next"]
    assert ok("forget", row["id"], "--confirm")["verified"]["absent"] is True
    assert find_leaks(enabled, list(SECRETS.values())) == []


def test_a_value_another_memory_shares_is_not_counted_as_erased(enabled: Path) -> None:
    put(delta(field="hobby", value="plays the cello-shared"))
    put(delta(subject="obj-b", field="hobby", value="plays the cello-shared"))
    result = ok("forget-object", "obj-a", "--confirm")
    assert result["verified"]["absent"] is True
    assert result["verified"]["unchecked"] >= 1  # the shared value stays, so unsearched
    assert find_leaks(enabled, ["plays the cello-shared"])  # honestly still there


def test_the_library_on_a_held_store_returns_the_receipt(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "s")
    store.enable(confirm=True)
    store.hold()  # as the MCP server keeps it
    store.apply(delta(field="fact", value=SECRETS["value"]))
    store.apply(delta(field="fact", value="corrected-receipt"))
    verified = store.forget_object("obj-a", confirm=True)["verified"]
    assert verified["absent"] is True and verified["texts"] >= 2
    _check(verified, tmp_path / "s", [SECRETS["value"], "corrected-receipt"])
    store.apply(delta(subject="obj-b", value="still works after the receipt"))
    assert store.show("obj-b")["count"] == 1
    store.release()


@pytest.mark.anyio
async def test_the_mcp_tool_returns_the_receipt(enabled: Path) -> None:
    put(delta(value=SECRETS["label"]), delta(field="job", value=SECRETS["value"]))
    server = build_server(MemoryStore(os.environ["MEMORY_STORE_DIR"]))
    async with Client(server, elicitation_callback=YES) as client:
        result = await call(client, "memory_forget_object", subject_id="obj-a")
    verified = data_of(result)["verified"]
    assert verified["absent"] is True and verified["texts"] >= 2
    assert result.structured_content["verified"] == verified
    _check(verified, enabled, [SECRETS["label"], SECRETS["value"]])
