"""What a host pays for the server (documentation/mcp.md#the-tools): ``tools/list`` and the instructions,
measured through the SDK's own client, within the targets, with every tool and argument
kept; input schemas in the subset of JSON Schema every host accepts; descriptions in the
tools' terms; and the full schemas still enforced on every call.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp import Client
from support import MODES, ROOT, call, delta, ok, refused

from memory_store.commands.catalog import COMMANDS
from memory_store.mcp import build_server, schemas

pytestmark = pytest.mark.anyio

TOTAL_MAX = 16_000  # tools/list as compact JSON
MODEL_FACING_MAX = 8_000  # names, titles, descriptions, input schemas, annotations
INSTRUCTIONS_MAX = 1_000
MODEL_FACING = ("name", "title", "description", "inputSchema", "annotations")
COMPOSITION = {"allOf", "anyOf", "oneOf", "if", "then", "else", "not", "$ref"}


def _compact(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


async def _listing(store: Any, mode: str) -> tuple[list[dict[str, Any]], str]:
    async with Client(build_server(store), mode=mode) as client:
        listed = await client.list_tools()
        instructions = client.instructions
    return listed.model_dump(mode="json", by_alias=True, exclude_none=True)["tools"], instructions


def _full_delta() -> dict[str, Any]:
    return json.loads((ROOT / "references" / "schemas" / "delta.schema.json").read_text("utf-8"))


def _keywords(node: Any) -> set[str]:
    """Every schema keyword used anywhere in ``node`` (the names under properties are keys)."""
    if isinstance(node, list):
        return set().union(*map(_keywords, node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = set(node)
    for key, value in node.items():
        if key == "properties":
            found |= set().union(*map(_keywords, value.values())) if value else set()
        else:
            found |= _keywords(value)
    return found


@pytest.mark.parametrize("mode", MODES)
async def test_the_tool_list_and_instructions_fit_what_a_host_can_afford(
    store: Any, mode: str
) -> None:
    tools, instructions = await _listing(store, mode)
    total = _compact({"tools": tools})
    facing = sum(_compact({k: t[k] for k in MODEL_FACING if k in t}) for t in tools)
    print(f"tools/list {total}, model-facing {facing}, instructions {len(instructions)}")
    assert total <= TOTAL_MAX, total
    assert facing <= MODEL_FACING_MAX, facing
    assert len(instructions) <= INSTRUCTIONS_MAX, len(instructions)
    # nothing was dropped to get there: every tool, every argument
    by_name = {t["name"]: t for t in tools}
    for command in COMMANDS.values():
        if command.tool is None:
            continue
        props = by_name[command.tool.name]["inputSchema"]["properties"]
        expected = {o.name for o in command.options if not o.cli_only}
        assert set(props) == expected | ({"language"} if command.tool.confirm else set())
    delta_keys = set(by_name["memory_apply"]["inputSchema"]["properties"]["delta"]["properties"])
    assert delta_keys == set(schemas.flat(_full_delta())["properties"])
    assert delta_keys == set(_full_delta()["properties"])


async def test_input_schemas_use_no_composition_and_descriptions_speak_mcp(store: Any) -> None:
    tools, instructions = await _listing(store, "auto")
    cli_words = re.compile(r"--[a-z]|\.json\b|\.md\b|schemas/|contract|§|memory-store [a-z]")
    for tool in tools:
        assert not _keywords(tool["inputSchema"]) & COMPOSITION, tool["name"]
        words = [tool["description"]]
        words += [
            v for k, v in _walk(tool["inputSchema"]) if k == "description" and isinstance(v, str)
        ]
        for text in words:
            assert not cli_words.search(text), (tool["name"], text)
        assert tool["outputSchema"]["type"] == "object"
        assert not _keywords(tool["outputSchema"]) & COMPOSITION, tool["name"]
    assert not cli_words.search(instructions)


def _walk(node: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties":
                for sub in value.values():
                    out += _walk(sub)
            else:
                out.append((key, value))
                out += _walk(value)
    elif isinstance(node, list):
        for item in node:
            out += _walk(item)
    return out


async def test_the_server_holds_every_call_to_the_full_schemas(store: Any) -> None:
    """What the flat schema lets through, the full one refuses, with the envelope's code."""
    ok("enable", "--confirm")
    async with Client(build_server(store)) as client:
        written = await call(client, "memory_apply", delta=delta(value="小林"))
        assert written.is_error is False
        # a delete carries nothing but the row's key or id (an if/then of the full schema)
        both = {"action": "delete", "id": "m-0000000000000000", "value": "x"}
        refused(await call(client, "memory_apply", delta=both), "INVALID_DELTA")
        # patterns are words in the flat schema, rules in the full one
        bad_date = delta("event", field="met", value="见面", occurred_at="last Saturday")
        assert refused(await call(client, "memory_apply", delta=bad_date), "INVALID_DELTA")
        bad_item = await call(client, "memory_apply", deltas=[{"scope": "user"}])
        assert refused(bad_item, "INVALID_DELTA")["details"]["index"] == 0
