"""Recall over time (documentation/time.md#recall), through the CLI, the MCP server and the JSON Schemas.

- ``context --query`` and ``search`` return past values and ended rows as compact rows
  with ``since`` and ``until``: ranked with current rows when the question is about
  time (以前 / before / 什么时候 / when), after every current match otherwise;
- a value that is no longer current never comes back without ``until`` (every answer
  here is checked against ``show`` by ``support.timekit.assert_marked``);
- compact rows carry ``since`` where documentation/time.md#writing says, and ``pinned: true`` on milestones;
- real outputs validate against ``references/schemas/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import cli, delta, ok, put, refusal_payload
from support.timekit import assert_marked, by_value, context, schema_errors, search, today, values

from memory_store import MemoryStore
from memory_store.mcp import build_server

JOB = "在上海做平面设计师"
TEACHER = "辞职后去杭州当老师了"


def mid(result: dict[str, Any], i: int = 0) -> str:
    return result["results"][i]["memory"]["id"]


@pytest.fixture
def changed_job(enabled: Path) -> dict[str, str]:
    """obj-a: a label, a job that became an occupation (replaces), a city that changed,
    a stage that changed, and a goal that ended."""
    label = put(delta(value="小A"))
    job = put(delta(field="job", value=JOB, occurred_at="2024-03-01"))
    put(delta(field="occupation", value=TEACHER, occurred_at="2026-02-01", replaces=mid(job)))
    city = put(delta(field="city", value="上海", occurred_at="2024-03-01"))
    put(delta(field="city", value="杭州", occurred_at="2026-02-01"))
    stage = put(delta("relationship", field="stage", value="暧昧期", occurred_at="2025-05-01"))
    put(delta("relationship", field="stage", value="正式在一起了", occurred_at="2025-09-01"))
    put(delta("relationship", field="next_goal", value="一起去旅行"))
    put({"action": "end", "scope": "relationship", "subject_id": "obj-a", "field": "next_goal"})
    return {"label": mid(label), "job": mid(job), "city": mid(city), "stage": mid(stage)}


def date_of(m: dict[str, Any]) -> str | None:
    """The day a compact row says its value became true: ``since``, or an
    ``occurred_at`` that is that day (documentation/time.md#recall lets it stand alone)."""
    return m.get("since") or (m.get("occurred_at") or "")[:10] or None


def ask(query: str, subject: str = "obj-a") -> dict[str, Any]:
    return context("--subject-id", subject, "--query", query)


# ---------------------------------------------------------------- context


@pytest.mark.parametrize("query", ["她以前做什么工作？", "what was her job before?"])
def test_a_question_about_the_past_gets_the_past_value_with_since_and_until(
    changed_job: dict[str, str], query: str
) -> None:
    data = ask(query)
    old = by_value(data, JOB)
    assert old["id"] == changed_job["job"] and old["field"] == "job"
    assert old["since"] == "2024-03-01" and old["until"] == "2026-02-01"
    # Ranked with the current rows: right after the label, ahead of the teacher.
    assert values(data)[:2] == ["小A", JOB]


@pytest.mark.parametrize("query", ["我们是什么时候在一起的？", "when did we get together?"])
def test_a_when_question_gets_the_date(changed_job: dict[str, str], query: str) -> None:
    data = ask(query)
    current = by_value(data, "正式在一起了")
    assert date_of(current) == "2025-09-01" and "until" not in current
    if query.startswith("我们"):  # matched word for word, so ranked first after the label
        assert values(data).index("正式在一起了") == 1


def test_a_question_about_now_gets_current_values_first(changed_job: dict[str, str]) -> None:
    data = ask("她现在做什么工作？")
    got = values(data)
    assert got[:2] == ["小A", TEACHER]
    assert got.index(TEACHER) < got.index(JOB)  # the past job still comes, later


def test_a_question_without_a_cue_still_finds_a_past_place(changed_job: dict[str, str]) -> None:
    # The contract's own example (documentation/time.md#recall): no cue word, a past value wanted. "住哪" must
    # reach a city row at all (the place group of the alias table).
    data = ask("她刚认识我的时候住哪？")
    old = by_value(data, "上海")
    assert old["until"] == "2026-02-01"
    assert values(data).index("杭州") < values(data).index("上海")


def test_an_ended_row_comes_back_only_with_until(changed_job: dict[str, str]) -> None:
    data = ask("我们以前的下一个目标是什么？ next goal before")
    old = by_value(data, "一起去旅行")
    assert old["until"] == today()
    assert "一起去旅行" not in values(ok("context", "--subject-id", "obj-a"))


def test_without_a_query_only_current_values_are_recalled(changed_job: dict[str, str]) -> None:
    data = context("--subject-id", "obj-a")
    assert data["ranked_by"] == "priority"
    assert not any("until" in m for m in data["memories"])
    assert JOB not in values(data) and "上海" not in values(data)
    assert "暧昧期" not in values(data)


def test_compact_rows_carry_since_where_the_date_matters(changed_job: dict[str, str]) -> None:
    put(delta(field="hobby", value="爬山"), delta(field="work", value="兼职翻译"))
    data = context("--subject-id", "obj-a")
    rows = {m["field"]: m for m in data["memories"]}
    assert date_of(rows["stage"]) == "2025-09-01"  # a relationship row
    assert date_of(rows["city"]) == "2026-02-01"  # a row with a past value
    assert date_of(rows["occupation"]) == "2026-02-01"  # same concept as work
    assert rows["work"]["since"] == today()
    assert "since" not in rows["hobby"] and "since" not in rows["display_label"]
    # A question about time dates every row it matches.
    hobby = by_value(ask("她什么时候开始爬山的？"), "爬山")
    assert hobby["since"] == today()


def test_a_subject_less_context_recalls_no_other_persons_past(
    changed_job: dict[str, str],
) -> None:
    # Without --subject-id, context gives the user's profile and a roster: obj-a's
    # current rows are not recalled, so neither are its past values.
    put(delta("user", field="goal", value="学做饭"))
    put(delta("user", field="goal", value="学游泳"))
    data = context("--query", "以前的工作和目标")
    assert {m["scope"] for m in data["memories"]} == {"user"}, data["memories"]
    assert "学做饭" in values(data)


def test_pinned_events_say_so_in_compact_rows(enabled: Path) -> None:
    put(
        delta(value="小A"),
        delta(
            "event",
            field="first_meeting",
            value="在咖啡馆认识",
            occurred_at="2024-03-01",
            pinned=True,
        ),
        delta("event", field="conflict", value="吵架", occurred_at="2026-05-01"),
    )
    for data in (context("--subject-id", "obj-a"), ask("我们第一次见面是什么时候？")):
        met = by_value(data, "在咖啡馆认识")
        assert met["pinned"] is True and met["occurred_at"] == "2024-03-01"
        assert "pinned" not in by_value(data, "吵架")


def test_a_small_budget_never_cuts_until_off_a_past_value(changed_job: dict[str, str]) -> None:
    for budget in ("500", "1000"):
        data = context("--subject-id", "obj-a", "--query", "她以前在哪工作", "--max-chars", budget)
        assert len(json.dumps(data["memories"], ensure_ascii=False)) <= int(budget)


# ---------------------------------------------------------------- search


def test_search_returns_past_values_marked(changed_job: dict[str, str]) -> None:
    data = search("--query", "她以前在哪里工作 上海")
    old = by_value(data, JOB)
    assert old["subject_id"] == "obj-a" and old["until"] == "2026-02-01"
    shanghai = by_value(data, "上海")
    assert shanghai["until"] == "2026-02-01"


def test_search_about_now_puts_current_rows_first(changed_job: dict[str, str]) -> None:
    data = search("--query", "杭州 上海")
    got = values(data)
    assert got.index("杭州") < got.index("上海")
    ended = search("--query", "旅行")
    assert by_value(ended, "一起去旅行")["until"] == today()


def test_search_within_one_scope_or_subject_keeps_the_marks(changed_job: dict[str, str]) -> None:
    put(delta(subject="obj-b", field="city", value="北京"))
    put(delta(subject="obj-b", field="city", value="上海浦东"))
    data = search("--query", "以前住在北京还是上海", "--subject-id", "obj-b")
    assert {m["subject_id"] for m in data["memories"]} == {"obj-b"}
    assert by_value(data, "北京")["until"] == today()
    data = search("--query", "以前 阶段 stage", "--scope", "relationship")
    assert {m["scope"] for m in data["memories"]} == {"relationship"}


# ---------------------------------------------------------------- the JSON Schemas


def test_real_time_outputs_validate_against_the_schemas(enabled: Path) -> None:
    job = put(delta(field="job", value=JOB, occurred_at="2024-03-01"))
    related = put(delta(field="occupation", value=TEACHER))
    assert "related" in related["results"][0]
    replaced = put(delta(field="occupation", value=TEACHER, replaces=mid(job)))
    assert "replaced" in replaced["results"][0]
    put(delta(field="city", value="上海"))
    put(delta(field="city", value="杭州"))
    ended = put({"action": "end", "scope": "object", "subject_id": "obj-a", "field": "city"})
    pinned = put(
        delta("event", field="milestone", value="认识", occurred_at="2024-03-01", pinned=True)
    )
    for data in (job, related, replaced, ended, pinned):
        assert schema_errors("apply.data.schema.json", data) == []
    shown = ok("show")
    assert any(m["past"] for m in shown["memories"])
    assert any(m["ended"] for m in shown["memories"])
    assert schema_errors("show.data.schema.json", shown) == []
    for query in ("她以前做什么工作", "她现在住哪", "when did we meet"):
        data = ask(query)
        assert schema_errors("context.data.schema.json", data) == []
    assert any("until" in m for m in ask("她以前住在上海吗")["memories"])
    data = search("--query", "以前 上海 工作")
    assert any("until" in m for m in data["memories"])
    assert schema_errors("search.data.schema.json", data) == []
    exported = ok("export")
    assert schema_errors("export.data.schema.json", exported) == []
    assert schema_errors("export.schema.json", exported["document"]) == []


def test_the_context_schema_refuses_until_without_since(changed_job: dict[str, str]) -> None:
    data = ask("她以前做什么工作？")
    assert schema_errors("context.data.schema.json", data) == []
    broken = json.loads(json.dumps(data, ensure_ascii=False))
    old = next(m for m in broken["memories"] if "until" in m)
    del old["since"]
    assert schema_errors("context.data.schema.json", broken) != []


# ---------------------------------------------------------------- the MCP server


def _data(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.structured_content
    return result.structured_content


def _code(result: Any) -> str:
    assert result.is_error is True, result
    return refusal_payload(result.content[0].text)["code"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_mcp_tools_take_the_time_keys_and_return_until(
    private_store: Path, mode: str
) -> None:
    ok("enable", "--confirm")
    store = MemoryStore(private_store)
    store.hold()
    try:
        async with Client(build_server(store), mode=mode) as client:

            async def apply(**args: Any) -> Any:
                return await client.call_tool("memory_apply", args)

            job = _data(await apply(delta=delta(field="job", value=JOB, occurred_at="2024-03-01")))
            job_id = job["results"][0]["memory"]["id"]
            related = _data(await apply(delta=delta(field="occupation", value=TEACHER)))
            assert related["results"][0]["related"][0]["id"] == job_id
            resent = _data(
                await apply(
                    delta=delta(
                        field="occupation", value=TEACHER, occurred_at="2026-02-01", replaces=job_id
                    )
                )
            )
            assert resent["results"][0]["action"] == "updated"
            replaced = resent["results"][0]["replaced"]  # compact: an ended row's last value
            assert (replaced["value"], replaced["until"]) == (JOB, "2026-02-01")
            batch = _data(
                await apply(
                    deltas=[
                        delta("relationship", field="stage", value="暧昧期", correction=True),
                        delta(
                            "event",
                            field="first_meeting",
                            value="在咖啡馆认识",
                            occurred_at="2024-03-01",
                            pinned=True,
                        ),
                    ]
                )
            )
            assert batch["results"][1]["memory"]["pinned"] is True
            ended = _data(
                await apply(delta={"action": "end", "id": batch["results"][0]["memory"]["id"]})
            )
            assert ended["results"][0]["action"] == "ended"
            bad = await apply(delta={"action": "end", "id": batch["results"][1]["memory"]["id"]})
            assert _code(bad) == "INVALID_DELTA"
            bad = await apply(delta=delta(field="hobby", value="x", pinned=True))
            assert _code(bad) == "INVALID_DELTA"
            ctx = _data(
                await client.call_tool(
                    "memory_context", {"subject_id": "obj-a", "query": "她以前做什么工作？"}
                )
            )
            assert_marked(ctx)
            old = by_value(ctx, JOB)
            assert (old["since"], old["until"]) == ("2024-03-01", "2026-02-01")
            assert schema_errors("context.data.schema.json", ctx) == []
            plain = _data(await client.call_tool("memory_context", {"subject_id": "obj-a"}))
            assert_marked(plain)
            assert by_value(plain, "在咖啡馆认识")["pinned"] is True
            found = _data(await client.call_tool("memory_search", {"query": "以前 工作 上海"}))
            assert_marked(found)
            assert by_value(found, JOB)["until"] == "2026-02-01"
            shown = _data(await client.call_tool("memory_show", {"subject_id": "obj-a"}))
            assert shown == ok("show", "--subject-id", "obj-a", spawn=True)
    finally:
        store.release()


# ---------------------------------------------------------------- tables for a person


def _table(*args: str) -> str:
    r = cli("--format", "table", *args, check_envelope=False, env={"COLUMNS": "400"})
    assert r.code == 0 and r.stderr == "", r.stderr
    return r.stdout


def _line_with(text: str, value: str) -> str:
    lines = [line for line in text.splitlines() if value in line]
    assert len(lines) == 1, text
    return lines[0]


def test_tables_mark_a_past_value_with_its_until(changed_job: dict[str, str]) -> None:
    # "Never returned without until" holds for a person reading a table too.
    text = _table("context", "--subject-id", "obj-a", "--query", "她以前做什么工作？")
    assert "2026-02-01" in _line_with(text, JOB), text
    text = _table("search", "--query", "以前 工作 上海")
    assert "2026-02-01" in _line_with(text, JOB), text


def test_the_show_table_shows_an_ended_row_and_its_past(changed_job: dict[str, str]) -> None:
    text = _table("show", "--subject-id", "obj-a")
    line = _line_with(text, JOB)  # the ended job's last value, in its past
    assert changed_job["job"] in line and "2026-02-01" in line, text
    assert "暧昧期" in text and "2025-05-01" in text


def test_a_past_value_does_not_borrow_the_current_values_confidence(enabled: Path) -> None:
    # A past value keeps {value, since, until, source_type}: the confidence the row has
    # now was never said of the old value.
    put(delta(field="city", value="上海", confidence="low"))
    put(delta(field="city", value="杭州", confidence="high"))
    old = by_value(ask("她以前住在上海还是杭州"), "上海")
    assert old.get("confidence") in (None, "low"), old


def test_an_ended_display_label_is_not_an_empty_label(enabled: Path) -> None:
    label = put(delta(value="小A"))
    put(delta(field="hobby", value="爬山"))
    put({"action": "end", "id": mid(label)})
    roster = ok("context")["roster"]
    assert [r["display_label"] for r in roster] != [""], roster


def test_a_question_about_time_dates_every_row_it_returns(changed_job: dict[str, str]) -> None:
    # documentation/time.md#recall: compact rows carry since "... and every row when the question is about time".
    put(delta(field="hobby", value="爬山"), delta(field="pet", value="养了一只猫"))
    data = ask("她什么时候搬去杭州的？")
    for m in data["memories"]:
        if m["scope"] != "event":
            # A value that ended the day it began has an unknown start (documentation/time.md#writing).
            assert date_of(m) or (m["since"] is None and m["until"]), m


def test_a_question_about_an_ending_finds_the_row_that_ended_first(enabled: Path) -> None:
    # "我们什么时候结束异地的？": the constraint that ended says when, before values of the
    # same words that were merely replaced (a goal to end it, a stage that changed).
    put(delta(value="浩然"))
    put(delta("relationship", field="stage", value="正式在一起，异地恋", occurred_at="2025-06-01"))
    put(delta("relationship", field="constraint", value="异地：他在深圳我在广州，每两周见一次"))
    put(delta("relationship", field="next_goal", value="明年春天结束异地"))
    put(delta("relationship", field="next_goal", value="年底前同居"))
    put(delta("relationship", field="stage", value="同居了", occurred_at="2026-05-01"))
    put(
        {
            "action": "end",
            "scope": "relationship",
            "subject_id": "obj-a",
            "field": "constraint",
            "occurred_at": "2026-04-15",
        }
    )
    for query in ("我们什么时候结束异地的？", "When did we end the long distance? 异地"):
        first = ask(query)["memories"][1]  # after the label
        assert first["field"] == "constraint" and first["until"] == "2026-04-15", first
