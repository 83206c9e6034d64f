"""A memory's history in one write: "she used to live in Suzhou, now Hangzhou" is one apply.

The same memory may appear more than once in a batch when each delta has its own
``occurred_at`` (the day the value became true): the values are written in date order as
one operation, the earlier ones becoming past values; one undo reverts them all. Through
the CLI, the library and the MCP server; export and import keep the history.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import call, data_of, delta, fails, ok, refused

from memory_store import MemoryStore
from memory_store.mcp import build_server

SUZHOU = delta(field="home_city", value="苏州", occurred_at="2019-06-01")
HANGZHOU = delta(field="home_city", value="杭州", occurred_at="2024-03-01")
LABEL = delta(field="display_label", value="小林")


def body(*deltas: dict[str, Any]) -> str:
    return json.dumps({"deltas": list(deltas)}, ensure_ascii=False)


def home(memories: list[dict[str, Any]]) -> dict[str, Any]:
    return next(m for m in memories if m["field"] == "home_city")


def told(row: dict[str, Any]) -> tuple[Any, ...]:
    """A row's history as a person reads it: now, since, and each past value's span."""
    return (
        row["value"],
        row["since"],
        [(p["value"], p["since"], p["until"]) for p in row["past"]],
    )


def test_the_cli_writes_a_history_in_one_operation_in_date_order(enabled: Path) -> None:
    # given newest first: the dates, not the order, decide which value is current
    data = ok("apply", "--json", body(LABEL, HANGZHOU, SUZHOU))
    assert [r["index"] for r in data["results"]] == [0, 1, 2]
    shown = ok("show", "--subject-id", "obj-a")["memories"]
    assert told(home(shown)) == ("杭州", "2024-03-01", [("苏州", "2019-06-01", "2024-03-01")])
    # the older value's result names the past value it became; the line says both values
    assert "past_id" not in data["results"][1]
    assert data["results"][2]["past_id"] == home(shown)["past"][0]["past_id"]
    (operation,) = ok("log")["operations"]
    assert "→ 杭州" in operation["summary"] and "→ 苏州 (until 2024-03-01)" in operation["summary"]
    ok("undo")
    assert ok("show")["memories"] == []


def test_the_library_writes_three_values_and_one_undo_reverts_them(enabled: Path) -> None:
    store = MemoryStore(enabled)
    store.apply(LABEL)
    store.apply(delta(field="home_city", value="上海", occurred_at="2015-09-01"))
    before = store.show(subject_id="obj-a")["memories"]
    wuhan = delta(field="home_city", value="武汉", occurred_at="2021-01-10")
    store.apply({"deltas": [HANGZHOU, SUZHOU, wuhan]})
    row = home(store.show(subject_id="obj-a")["memories"])
    assert told(row) == (
        "杭州",
        "2024-03-01",
        [
            ("上海", "2015-09-01", "2019-06-01"),
            ("苏州", "2019-06-01", "2021-01-10"),
            ("武汉", "2021-01-10", "2024-03-01"),
        ],
    )
    store.undo()
    assert store.show(subject_id="obj-a")["memories"] == before


def test_a_history_survives_export_and_import(enabled: Path, tmp_path: Path) -> None:
    ok("apply", "--json", body(LABEL, SUZHOU, HANGZHOU))
    exported = tmp_path / "export.json"
    MemoryStore(enabled).export(str(exported))
    other = MemoryStore(tmp_path / "other")
    other.enable(confirm=True)
    other.import_(exported.read_text("utf-8"))
    assert told(home(other.show(subject_id="obj-a")["memories"])) == told(
        home(MemoryStore(enabled).show(subject_id="obj-a")["memories"])
    )


@pytest.mark.anyio
async def test_the_mcp_server_writes_a_history_in_one_call(store: Any) -> None:
    store.enable(confirm=True)
    async with Client(build_server(store)) as client:
        data = data_of(await call(client, "memory_apply", deltas=[LABEL, HANGZHOU, SUZHOU]))
        assert data["op_id"]
        row = home(store.show(subject_id="obj-a")["memories"])
        assert told(row) == ("杭州", "2024-03-01", [("苏州", "2019-06-01", "2024-03-01")])
        same_day = {**SUZHOU, "occurred_at": HANGZHOU["occurred_at"]}
        refusal = refused(
            await call(client, "memory_apply", deltas=[HANGZHOU, same_day]), "INVALID_DELTA"
        )
        assert "occurred_at" in refusal["message"]


@pytest.mark.parametrize(
    ("deltas", "path", "words"),
    [
        # no dates: which value is current cannot be told
        (
            [delta(field="home_city", value="杭州"), delta(field="home_city", value="苏州")],
            "$.deltas[1]",
            "give each its own occurred_at",
        ),
        # one date missing
        ([SUZHOU, delta(field="home_city", value="杭州")], "$.deltas[1]", "its own occurred_at"),
        # the same day twice
        ([SUZHOU, {**HANGZHOU, "occurred_at": "2019-06-01"}], "$.deltas[1].occurred_at", "same"),
        # a hypothesis keeps no past values
        (
            [
                delta(scope="hypothesis", field="style", value="a", occurred_at="2020-01-01"),
                delta(scope="hypothesis", field="style", value="b", occurred_at="2021-01-01"),
            ],
            "$.deltas[1]",
            "name the same memory",
        ),
    ],
)
def test_what_cannot_be_a_history_is_refused_in_words(
    enabled: Path, deltas: list[dict[str, Any]], path: str, words: str
) -> None:
    error = fails("INVALID_DELTA", "apply", "--json", body(*deltas)).error
    assert error["details"]["path"] == path and error["details"]["other_index"] == 0
    assert words in error["message"]
    assert ok("show")["memories"] == []
