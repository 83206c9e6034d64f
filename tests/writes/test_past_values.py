"""History can be corrected (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id): every past value has its own handle.

Through the real CLI on a real store (and once through the MCP server with the SDK's
client): a past value's ``past_id`` is shown wherever the value is (``show``,
``context``/``search`` rows with ``until``, export); ``apply`` deletes or corrects one
past value by it, undoably; the removed text leaves the files as any overwritten value
does (documentation/privacy.md#erasure-is-physical), searched in the raw bytes with the database held open by another process;
a change dated on or before a value's ``since`` gives that past value ``since: null``;
migration 4 gives a release-3 store's past values and snapshots the same handles.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import (
    DB_NAME,
    call,
    data_of,
    delta,
    fails,
    find_leaks,
    held_open,
    ok,
    put,
    refused,
)
from support.browser import Dom, dump_dom, find_browser, norm, write_review

from memory_store.mcp import build_server

PAST_ID = re.compile(r"p-[0-9a-f]{16}")


def _job_history() -> dict[str, Any]:
    """小林 worked as a designer in Shanghai, then in Hangzhou (the person said so)."""
    put(
        delta(value="小林（读书会认识的）"),
        delta(field="job", value="在上海做平面设计师", occurred_at="2025-07-01"),
    )
    changed = put(delta(field="job", value="在杭州做平面设计师", occurred_at="2026-03-01"))
    return changed["results"][0]["memory"]


def _job() -> dict[str, Any]:
    return next(m for m in ok("show")["memories"] if m["field"] == "job")


def test_each_past_value_has_its_own_handle_wherever_it_is_shown(enabled: Path) -> None:
    job = _job_history()
    [past] = job["past"]
    assert PAST_ID.fullmatch(past["past_id"]) and past["past_id"] != job["id"]
    assert _job()["past"] == job["past"]
    context = ok("context", "--subject-id", "obj-a", "--query", "她以前在哪工作？")
    [row] = [m for m in context["memories"] if "until" in m]
    # A context row with a past value names its handle beside the row's id.
    assert row["past_id"] == past["past_id"] and row["id"] == job["id"]
    assert row["value"] == "在上海做平面设计师"
    found = ok("search", "--query", "上海 设计师")["memories"]
    assert [m["past_id"] for m in found if "until" in m] == [past["past_id"]]
    assert all("past_id" not in m for m in context["memories"] if "until" not in m)
    doc = ok("export")["document"]
    assert doc["format"] == "memory-store-export/v3"
    assert [m["past"] for m in doc["memories"] if m["field"] == "job"] == [job["past"]]


def test_it_was_wrong_back_then_too(enabled: Path) -> None:
    # "不对，她不是做设计的，是做产品经理。之前在上海也是做产品的"
    job = _job_history()
    past_id = job["past"][0]["past_id"]
    fixed = put(
        delta(field="job", value="在杭州做产品经理", correction=True),
        {"past_id": past_id, "value": "在上海做产品经理", "correction": True},
    )
    assert [r["action"] for r in fixed["results"]] == ["updated", "past_corrected"]
    assert fixed["results"][1]["past_id"] == past_id
    assert "past value corrected" in fixed["summary"]
    now = _job()
    assert now["value"] == "在杭州做产品经理" and now["since"] == "2026-03-01"
    assert now["past"] == [{**job["past"][0], "value": "在上海做产品经理"}]
    asked = ok("context", "--subject-id", "obj-a", "--query", "她以前在哪工作？")["memories"]
    values = [m["value"] for m in asked]
    assert "在上海做产品经理" in values and "在上海做平面设计师" not in values
    assert len(ok("log")["operations"]) == 3  # one undo step for both
    ok("undo")
    assert _job()["value"] == job["value"] and _job()["past"] == job["past"]


def test_one_past_value_is_deleted_and_the_row_stays(enabled: Path) -> None:
    job = _job_history()
    past_id = job["past"][0]["past_id"]
    preview = ok(
        "apply", "--dry-run", "--json", json.dumps({"action": "delete", "past_id": past_id})
    )
    assert preview["results"][0]["action"] == "past_deleted" and preview["op_id"] is None
    assert _job()["past"] == job["past"]  # a dry run writes nothing
    gone = put({"action": "delete", "past_id": past_id})
    assert gone["results"][0]["action"] == "past_deleted"
    assert _job()["value"] == job["value"] and _job()["past"] == []
    ok("undo")
    assert _job()["past"] == job["past"]


def test_a_past_id_is_refused_where_it_does_not_fit(enabled: Path) -> None:
    job = _job_history()
    past_id = job["past"][0]["past_id"]
    missing = fails(
        "MEMORY_NOT_FOUND",
        "apply",
        "--json",
        '{"action": "delete", "past_id": "p-0000000000000000"}',
    )
    assert missing.error["details"]["index"] == 0
    for body in (
        {"action": "delete", "past_id": past_id, "scope": "object"},
        {"past_id": past_id, "value": "x"},  # a correction says so
        {"action": "end", "past_id": past_id},
        {"action": "delete", "past_id": job["id"]},  # a row's id is no past value's handle
    ):
        fails("INVALID_DELTA", "apply", "--json", json.dumps(body))
    two = {"deltas": [{"action": "delete", "past_id": past_id}] * 2}
    fails("INVALID_DELTA", "apply", "--json", json.dumps(two))
    secret = {"past_id": past_id, "value": "password is Tulip#2026", "correction": True}
    r = fails("SENSITIVE_REJECTED", "apply", "--json", json.dumps(secret))
    assert "Tulip" not in r.stdout
    guess = {
        "past_id": past_id,
        "value": "在上海",
        "correction": True,
        "source_type": "assistant_inference",
    }
    fails("SOURCE_NOT_ELIGIBLE", "apply", "--json", json.dumps(guess))
    assert _job()["past"] == job["past"]


def test_a_change_dated_on_or_before_the_old_since_leaves_since_unknown(enabled: Path) -> None:
    put(delta(field="city", value="住在成都", occurred_at="2026-07-01"))
    put(delta(field="city", value="住在重庆", occurred_at="2026-07-01"))  # the same day
    put(delta(field="city", value="住在西安", occurred_at="2026-05-01"))  # before it began
    past = next(m for m in ok("show")["memories"] if m["field"] == "city")["past"]
    assert [(p["value"], p["since"], p["until"]) for p in past] == [
        ("住在重庆", None, "2026-05-01"),
        ("住在成都", None, "2026-07-01"),
    ]
    rows = ok("context", "--subject-id", "obj-a", "--query", "她以前住在哪？")["memories"]
    assert all(m["since"] is None for m in rows if "until" in m)


def test_a_deleted_or_corrected_past_value_leaves_the_files(enabled: Path) -> None:
    with held_open(enabled, "idle"):
        put(delta(field="job", value="旧的错误工作-wrong-past", occurred_at="2025-01-01"))
        put(delta(field="job", value="在杭州做产品", occurred_at="2026-01-01"))
        put(delta(field="city", value="旧的城市-old-city", occurred_at="2025-01-01"))
        put(delta(field="city", value="住在杭州", occurred_at="2026-01-01"))
        job_past = _job()["past"][0]["past_id"]
        city = next(m for m in ok("show")["memories"] if m["field"] == "city")
        put({"past_id": job_past, "value": "在上海做产品", "correction": True})
        put({"action": "delete", "past_id": city["past"][0]["past_id"]})
        # Still restorable by undo: the operations' before-snapshots keep the old text.
        assert find_leaks(enabled, ["旧的错误工作-wrong-past", "旧的城市-old-city"])
        for i in range(20):  # both operations leave the 20-step undo window
            put(delta(subject=f"pad-{i}", field="fact", value=f"pad {i}"))
        assert find_leaks(enabled, ["旧的错误工作-wrong-past", "旧的城市-old-city"]) == []
        assert find_leaks(enabled, ["在上海做产品"])
        # Undoing a correction erases the text it wrote.
        put({"past_id": job_past, "value": "撤销的更正-undone-fix", "correction": True})
        ok("undo")
        assert find_leaks(enabled, ["撤销的更正-undone-fix"]) == []


@pytest.mark.anyio
async def test_the_mcp_tool_deletes_and_corrects_a_past_value(enabled: Path, store: Any) -> None:
    job = _job_history()
    past_id = job["past"][0]["past_id"]
    async with Client(build_server(store)) as client:
        fixed = data_of(
            await call(
                client,
                "memory_apply",
                delta={"past_id": past_id, "value": "在上海做产品经理", "correction": True},
            )
        )
        assert fixed["results"][0]["action"] == "past_corrected"
        context = data_of(
            await call(client, "memory_context", subject_id="obj-a", query="她以前在哪工作？")
        )
        assert [m["past_id"] for m in context["memories"] if "until" in m] == [past_id]
        gone = data_of(
            await call(client, "memory_apply", delta={"action": "delete", "past_id": past_id})
        )
        assert gone["results"][0]["action"] == "past_deleted"
        missing = await call(client, "memory_apply", delta={"action": "delete", "past_id": past_id})
        refused(missing, "MEMORY_NOT_FOUND")
    assert _job()["past"] == []


# --- the handles of a release-3 store and of older documents --------------------------


def _as_release_three(store_dir: Path) -> None:
    """The store as release 3 left it: no past value has a handle, schema version 3."""
    conn = sqlite3.connect(store_dir / DB_NAME, isolation_level=None)
    try:

        def strip(raw: str | None) -> str | None:
            if not raw:
                return raw
            past = [{k: v for k, v in p.items() if k != "past_id"} for p in json.loads(raw)]
            return json.dumps(past, ensure_ascii=False)

        conn.execute("BEGIN IMMEDIATE")
        for mid, raw in conn.execute("SELECT id, past FROM memories").fetchall():
            conn.execute("UPDATE memories SET past = ? WHERE id = ?", (strip(raw), mid))
        for seq, raw in conn.execute("SELECT seq, snapshot FROM operations").fetchall():
            entries = json.loads(raw)
            for entry in entries:
                for side in ("before", "after"):
                    if entry.get(side):
                        entry[side]["past"] = strip(entry[side]["past"])
            conn.execute(
                "UPDATE operations SET snapshot = ? WHERE seq = ?",
                (json.dumps(entries, ensure_ascii=False), seq),
            )
        conn.execute("PRAGMA user_version=3")
        conn.execute("COMMIT")
    finally:
        conn.close()


def test_migration_gives_past_values_and_snapshots_the_same_handles(enabled: Path) -> None:
    _job_history()
    put(delta(field="job", value="在杭州做产品经理", occurred_at="2026-09-01"))
    _as_release_three(enabled)
    assert ok("status")["schema_version"] == 4  # opening the store migrated it
    job = _job()
    assert [PAST_ID.fullmatch(p["past_id"]) is not None for p in job["past"]] == [True, True]
    assert len({p["past_id"] for p in job["past"]}) == 2
    assert ok("doctor")["ok"] is True
    # Undo compares the live row with the snapshot exactly: the handles agree.
    ok("undo")
    assert [p["past_id"] for p in _job()["past"]] == [job["past"][0]["past_id"]]
    put({"action": "delete", "past_id": job["past"][0]["past_id"]})
    assert _job()["past"] == []


def test_a_version_two_document_imports_with_handles_and_again_changes_nothing(
    enabled: Path,
) -> None:
    _job_history()
    doc = ok("export")["document"]
    doc["format"] = "memory-store-export/v2"
    for m in doc["memories"]:
        m["past"] = [{k: v for k, v in p.items() if k != "past_id"} for p in m["past"]]
        m.pop("occurred_offset", None)  # release 3 kept no offset either
    ok("clear", "--confirm")
    ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    [past] = _job()["past"]
    assert PAST_ID.fullmatch(past["past_id"])
    again = ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert again["counts"]["unchanged"] == len(doc["memories"]) and again["op_id"] is None
    # A version-3 document keeps its handles; one that repeats a handle is refused.
    doc3 = ok("export")["document"]
    ok("clear", "--confirm")
    ok("import", "-", input=json.dumps(doc3, ensure_ascii=False))
    assert _job()["past"] == [past]
    doc3["memories"].append(
        {
            **next(m for m in doc3["memories"] if m["field"] == "job"),
            "field": "work",
            "id": "m-00000000000000aa",
        }
    )
    fails("INVALID_DELTA", "import", "-", input=json.dumps(doc3, ensure_ascii=False))


@pytest.mark.skipif(
    find_browser() is None, reason="no chromium on PATH (apt-get install -y chromium)"
)
def test_the_review_page_shows_each_past_id(enabled: Path, tmp_path: Path) -> None:
    job = _job_history()
    dom = Dom(dump_dom(write_review(tmp_path / "review.html")))
    shown = [norm(dom.text(i)) for i in dom.find("code", "past-id")]
    assert shown == [job["past"][0]["past_id"]]


def test_forget_with_a_past_id_says_how_to_remove_a_past_value(enabled: Path) -> None:
    job = _job_history()
    refused_forget = fails("MEMORY_NOT_FOUND", "forget", job["past"][0]["past_id"], "--confirm")
    assert "past_id" in refused_forget.error["message"]
    assert _job()["past"] == job["past"]
