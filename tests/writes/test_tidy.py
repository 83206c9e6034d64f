"""tidy (documentation/time.md#tidy): findings and a proposal, read-only, applied only on the person's yes.

Through the real CLI on a real store; the proposal goes back through ``apply`` and
``undo`` as an assistant would send it; and once through the MCP server's
``memory_tidy`` with the SDK's own client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import cli, delta, fails, ok, put

from memory_store import MemoryStore
from memory_store.mcp import build_server


def kinds(data: dict[str, Any]) -> list[str]:
    return [f["kind"] for f in data["findings"]]


def by_kind(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [f for f in data["findings"] if f["kind"] == kind]


def test_an_empty_store_has_nothing_to_tidy(enabled: Path) -> None:
    data = ok("tidy")
    assert data == {"subject_id": None, "findings": [], "proposal": None, "steps": []}


def test_two_rows_of_one_concept_are_found_and_the_older_is_proposed_to_end(
    enabled: Path,
) -> None:
    old = put(delta(field="job", value="在上海做平面设计师", occurred_at="2025-09-01"))
    new = put(delta(field="occupation", value="在杭州当老师", occurred_at="2026-04-02"))
    old_id = old["results"][0]["memory"]["id"]
    new_id = new["results"][0]["memory"]["id"]
    data = ok("tidy")
    [finding] = by_kind(data, "same_concept")
    assert finding["subject_id"] == "obj-a" and set(finding["ids"]) == {old_id, new_id}
    assert data["proposal"] == {
        "deltas": [{"action": "end", "id": old_id, "occurred_at": "2026-04-02"}]
    }
    before = ok("show")["memories"]
    assert ok("show")["memories"] == before  # tidy wrote nothing
    # The person says yes: the proposal is one undoable operation.
    applied = ok("apply", "--json", json.dumps(data["proposal"]))
    assert [r["action"] for r in applied["results"]] == ["ended"]
    job = next(m for m in ok("show")["memories"] if m["id"] == old_id)
    assert job["ended"] is True and job["past"][-1]["until"] == "2026-04-02"
    assert by_kind(ok("tidy"), "same_concept") == []
    assert [f["ids"] for f in by_kind(ok("tidy"), "ended")] == [[old_id]]
    ok("undo")
    assert ok("show")["memories"] == before


def test_a_stale_hypothesis_is_proposed_for_deletion(enabled: Path) -> None:
    # An import keeps a row's own times: a guess last written in January is stale by now.
    doc = ok("export")["document"]
    doc["memories"] = [
        {
            "id": "m-000000000000abc1",
            "scope": "hypothesis",
            "subject_id": "obj-a",
            "field": "interest_level",
            "value": "兴趣一般",
            "source_type": "assistant_inference",
            "source_ref": "turn:3",
            "occurred_at": None,
            "confidence": "low",
            "created_at": "2026-01-05T10:00:00Z",
            "updated_at": "2026-01-05T10:00:00Z",
            "since": "2026-01-05",
            "past": [],
            "ended": False,
            "pinned": False,
            "occurred_offset": None,
        }
    ]
    ok("import", "-", input=json.dumps(doc, ensure_ascii=False))
    put(delta("hypothesis", field="intent", value="想多见面"))  # fresh: not stale
    data = ok("tidy", "--subject-id", "obj-a")
    [finding] = by_kind(data, "stale_hypothesis")
    assert finding["ids"] == ["m-000000000000abc1"]
    assert data["proposal"] == {"deltas": [{"action": "delete", "id": "m-000000000000abc1"}]}


def test_a_relative_date_in_a_value_is_found(enabled: Path) -> None:
    put(delta("event", field="conflict", value="昨天因为迟到吵了一架", occurred_at="2026-11-20"))
    put(delta(field="hobby", value="Started climbing last week"))
    found = by_kind(ok("tidy"), "relative_date")
    assert len(found) == 2
    assert any("昨天" in f["message"] and "2026-11-20" in f["message"] for f in found)
    assert ok("tidy")["proposal"] is None  # only the person can say what to write


def test_a_kind_near_its_cap_names_what_pruning_removes_next(enabled: Path) -> None:
    first = put(delta("event", field="date", value="第一次约会", occurred_at="2026-01-01"))
    for day in range(2, 17):  # 16 of 20 events: 80 %
        put(delta("event", field="date", value=f"约会 {day}", occurred_at=f"2026-02-{day:02d}"))
    [finding] = by_kind(ok("tidy"), "near_cap")
    assert finding["subject_id"] == "obj-a" and "16 of 20" in finding["message"]
    assert finding["ids"] == [first["results"][0]["memory"]["id"]]
    # A pinned milestone is never what pruning removes next.
    put(delta("event", field="date", value="第一次约会", occurred_at="2026-01-01", pinned=True))
    [finding] = by_kind(ok("tidy"), "near_cap")
    assert finding["ids"] != [first["results"][0]["memory"]["id"]]


def test_tidy_takes_a_label_and_keeps_to_that_subject(enabled: Path) -> None:
    put(delta(value="小林"), delta(field="job", value="设计师"), delta(field="work", value="老师"))
    put(delta(subject="obj-b", value="老王"), delta(subject="obj-b", field="city", value="上海"))
    put(delta(subject="obj-b", field="location", value="杭州"))
    data = ok("tidy", "--subject-id", "小林")
    assert data["subject_id"] == "obj-a"
    assert {f["subject_id"] for f in data["findings"]} == {"obj-a"}
    assert {f["subject_id"] for f in by_kind(ok("tidy"), "same_concept")} == {"obj-a", "obj-b"}


def test_tidy_is_gated_like_context(enabled: Path) -> None:
    put(delta(field="job", value="设计师"))
    ok("pause")
    fails("MEMORY_PAUSED", "tidy")
    ok("resume")
    ok("revoke", "--confirm")
    fails("CONSENT_REQUIRED", "tidy")


def test_tidy_on_no_store(private_store: Path) -> None:
    fails("NOT_INITIALIZED", "tidy")
    assert not private_store.exists()


def test_the_table_lists_the_findings_and_the_proposal(enabled: Path) -> None:
    put(delta(field="job", value="设计师"), delta(field="occupation", value="老师"))
    shown = cli("--format", "table", "tidy", check_envelope=False)
    assert shown.code == 0
    assert "same_concept" in shown.stdout and '"action": "end"' in shown.stdout


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_memory_tidy_over_mcp(enabled: Path, mode: str) -> None:
    put(
        delta(field="display_label", value="小A"),
        delta(field="job", value="设计师"),
        delta(field="occupation", value="老师"),
    )
    store = MemoryStore(enabled)
    store.hold()
    try:
        async with Client(build_server(store), mode=mode) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["memory_tidy"].annotations.read_only_hint is True
            result = await client.call_tool("memory_tidy", {"subject_id": "obj-a"})
            assert result.is_error is False
            data = result.structured_content
            assert [f["kind"] for f in data["findings"]] == ["same_concept"]
            assert data["proposal"]["deltas"][0]["action"] == "end"
    finally:
        store.release()


def test_each_step_of_the_proposal_is_said_in_words(enabled: Path) -> None:
    put(
        delta(value="小林"),
        delta(field="job", value="在上海做平面设计师", occurred_at="2025-09-01"),
        delta(field="occupation", value="在杭州当老师", occurred_at="2026-04-02"),
    )
    data = ok("tidy")
    assert len(data["steps"]) == len(data["proposal"]["deltas"]) == 1
    [step] = data["steps"]
    assert step.startswith("1. end obj-a object.job")
    assert "2026-04-02" in step and "past value" in step and "occupation" in step


def test_a_schedule_at_work_is_not_a_second_job(enabled: Path) -> None:
    # documentation/mcp.md#the-tools: found by playing the skill — tidy proposed ending a fact still true.
    put(
        delta(value="小林"),
        delta(field="fact_job", value="产品经理"),
        delta(field="fact_work_schedule", value="经常加班到很晚"),
        delta(field="hobby_climbing", value="周末攀岩"),
        delta(field="hobby_reading", value="读科幻小说"),
    )
    data = ok("tidy")
    assert by_kind(data, "same_concept") == [] and data["proposal"] is None


def test_a_plan_whose_day_has_passed_is_reported(enabled: Path) -> None:
    put(
        delta(value="小林"),
        delta("relationship", field="planned_dinner", value="2020-01-10 一起吃火锅"),
        delta("relationship", field="planned_trip", value="去杭州", occurred_at="2020-03-01"),
        delta("relationship", field="planned_concert", value="2999年5月1日 看演唱会"),
        delta("relationship", field="planned_walk", value="找个周末散步"),
    )
    found = by_kind(ok("tidy"), "past_plan")
    assert sorted(f["message"].split(":")[0] for f in found) == [
        "obj-a relationship.planned_dinner",
        "obj-a relationship.planned_trip",
    ]
    assert any("2020-01-10" in f["message"] for f in found)
    assert ok("tidy")["proposal"] is None  # only the person knows how it went


def test_subjects_without_a_label_are_listed(enabled: Path) -> None:
    put(delta(value="Dana (my manager)"), delta(field="job", value="engineering manager"))
    put(delta(subject="obj-b", field="job", value="manager"))
    [finding] = by_kind(ok("tidy"), "unlabelled_subject")
    assert finding["subject_id"] == "obj-b" and "display_label" in finding["message"]
