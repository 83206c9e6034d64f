"""Memory as of a time (documentation/time.md#as-of-a-time-anchors-and---as-of) through the MCP SDK's own client, in process.

``memory_context`` and ``memory_search`` take ``as_of`` (a day; a bad one is a tool
error with ``INVALID_ARGUMENTS``) and return ``data.as_of``: the anchor a question
names by an event or a value, in Chinese and in English, or the day asked for.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from support import MODES, call, data_of, delta, ok, put, refused

from memory_store import skill
from memory_store.mcp import build_server

pytestmark = pytest.mark.anyio

S = "obj-ml"


@pytest.fixture
def marcus(store: Any) -> Any:
    """Marcus: a first meeting (pinned), a job in Boston then Seattle; the user's home
    in Wuhan, then in Shanghai."""
    ok("enable", "--confirm")
    put(delta(subject=S, value="Marcus（跑团认识）"))
    put(delta(subject=S, field="job", value="Barista in Boston", occurred_at="2024-01-05"))
    put(
        delta(
            "event",
            subject=S,
            field="first_meeting",
            value="第一次见面：在江滩夜跑团认识 Marcus, we met at the river run",
            occurred_at="2024-02-10",
            pinned=True,
        )
    )
    put(delta("user", field="city", value="住在武汉汉口", occurred_at="2023-09-01"))
    put(
        delta(subject=S, field="job", value="Product designer in Seattle", occurred_at="2025-04-01")
    )
    put(delta("user", field="city", value="搬到上海徐汇", occurred_at="2025-06-01"))
    return store


def _valid(tool: str, data: dict[str, Any]) -> None:
    schema = skill.output_schema(tool.removeprefix("memory_"))
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(data)]
    assert errors == [], errors


@pytest.mark.parametrize("mode", MODES)
async def test_the_tools_offer_as_of(marcus: Any, mode: str) -> None:
    async with Client(build_server(marcus), mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for name in ("memory_context", "memory_search"):
        prop = tools[name].input_schema["properties"]["as_of"]
        assert "YYYY-MM-DD" in prop["description"]
        assert "as_of" not in tools[name].input_schema.get("required", [])


@pytest.mark.parametrize("mode", MODES)
async def test_an_event_anchor_in_english_and_a_period_anchor_in_chinese(
    marcus: Any, mode: str
) -> None:
    async with Client(build_server(marcus), mode=mode) as client:
        met = data_of(
            await call(
                client,
                "memory_context",
                subject_id=S,
                max_chars=1000,
                query="What was Marcus's job at the time we met at the river run?",
            )
        )
        home = data_of(
            await call(
                client,
                "memory_context",
                subject_id=S,
                max_chars=1000,
                query="我住在武汉那会儿，Marcus 做什么工作？",
            )
        )
    _valid("memory_context", met)
    _valid("memory_context", home)
    meeting = next(m for m in met["memories"] if m["field"] == "first_meeting")
    assert met["as_of"] == {"date": "2024-02-10", "id": meeting["id"]}
    assert met["memories"][1]["value"] == "Barista in Boston"
    assert met["memories"][1]["until"] == "2025-04-01"
    assert home["as_of"]["from"] == "2023-09-01" and home["as_of"]["until"] == "2025-06-01"
    anchor = [m for m in home["memories"] if m.get("past_id") == home["as_of"]["past_id"]]
    assert [(m["id"], m["until"]) for m in anchor] == [(home["as_of"]["id"], "2025-06-01")]
    assert home["memories"][1]["value"] == "Barista in Boston"


@pytest.mark.parametrize("mode", MODES)
async def test_as_of_and_a_bad_date(marcus: Any, mode: str) -> None:
    async with Client(build_server(marcus), mode=mode) as client:
        day = data_of(
            await call(client, "memory_context", subject_id=S, max_chars=600, as_of="2024-06-01")
        )
        found = data_of(await call(client, "memory_search", query="Marcus job", as_of="2025-05-01"))
        for tool, args in (
            ("memory_context", {"subject_id": S}),
            ("memory_search", {"query": "job"}),
        ):
            bad = await call(client, tool, as_of="2024-02-30", **args)
            assert "YYYY-MM-DD" in refused(bad, "INVALID_ARGUMENTS")["message"]
    _valid("memory_context", day)
    _valid("memory_search", found)
    assert day["as_of"] == {"date": "2024-06-01"}
    then = {m["value"] for m in day["memories"][1:3]}
    assert then == {"Barista in Boston", "住在武汉汉口"}
    assert found["as_of"] == {"date": "2025-05-01"}
    assert found["memories"][0]["value"] == "Product designer in Seattle"


@pytest.mark.parametrize("mode", MODES)
async def test_no_anchor_leaves_as_of_null(marcus: Any, mode: str) -> None:
    async with Client(build_server(marcus), mode=mode) as client:
        data = data_of(
            await call(client, "memory_context", subject_id=S, query="What is Marcus's job?")
        )
        plain = data_of(await call(client, "memory_context", subject_id=S))
    assert data["as_of"] is None
    assert data["memories"][1]["value"] == "Product designer in Seattle"
    assert "as_of" not in plain
