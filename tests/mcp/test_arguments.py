"""MCP arguments are checked like the command line's (documentation/mcp.md): an unknown
argument is refused ``INVALID_ARGUMENTS`` with ``did_you_mean`` and nothing is done
(``dryrun`` for ``dry_run`` once wrote); a missing or mistyped one is answered with the
envelope's code and the library's words — never a validation library's report or a web
address. Through the MCP SDK's own client against the real server, in both protocol
generations, and as raw lines to ``memory-store mcp`` over pipes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import MODES, RAW_HANDSHAKE, data_of, delta, ok, raw_mcp_session, refusal_payload

from memory_store.mcp import build_server

pytestmark = pytest.mark.anyio


def _plain(payload: dict[str, Any]) -> None:
    """The refusal speaks the envelope's words, not pydantic's."""
    text = json.dumps(payload)
    for foreign in ("pydantic", "http", "validation error", "type=", "Input should"):
        assert foreign not in text, payload


async def _refused(client: Any, tool: str, args: dict[str, Any], code: str) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert result.is_error is True and result.structured_content is None
    payload = refusal_payload(result.content[0].text)
    assert payload["code"] == code, payload
    _plain(payload)
    return payload


@pytest.mark.parametrize("mode", MODES)
async def test_a_near_miss_dry_run_is_refused_and_nothing_is_written(
    enabled: Path, store: Any, mode: str
) -> None:
    body = delta(value="小A")
    async with Client(build_server(store), mode=mode) as client:
        payload = await _refused(
            client, "memory_apply", {"delta": body, "dryrun": True}, "INVALID_ARGUMENTS"
        )
        assert payload["details"]["did_you_mean"] == ["dry_run"]
        assert payload["details"]["argument"] == "dryrun"
        assert "dry_run" in payload["message"]
        assert ok("show")["count"] == 0  # nothing was written
        # The right name is a dry run indeed.
        tried = data_of(await client.call_tool("memory_apply", {"delta": body, "dry_run": True}))
        assert tried["dry_run"] is True
    assert ok("show")["count"] == 0


@pytest.mark.parametrize(
    ("tool", "args", "meant"),
    [
        ("memory_context", {"subjectid": "obj-a"}, ["subject_id"]),
        ("memory_context", {"maxchars": 2000}, ["max_chars"]),
        ("memory_search", {"query": "x", "limits": 5}, ["limit"]),
        ("memory_show", {"subject": "obj-a"}, ["subject_id"]),
        ("memory_status", {"colour": "blue"}, []),
    ],
)
async def test_an_unknown_argument_is_never_ignored(
    enabled: Path, store: Any, tool: str, args: dict[str, Any], meant: list[str]
) -> None:
    async with Client(build_server(store)) as client:
        payload = await _refused(client, tool, args, "INVALID_ARGUMENTS")
    assert payload["details"]["did_you_mean"] == meant
    assert payload["details"]["tool"] == tool
    if not meant:  # the message says what the tool takes instead
        assert f"{tool} takes" in payload["message"]


@pytest.mark.parametrize("mode", MODES)
async def test_missing_and_mistyped_arguments_get_the_envelopes_words(
    enabled: Path, store: Any, mode: str
) -> None:
    async with Client(build_server(store), mode=mode) as client:
        missing = await _refused(client, "memory_search", {}, "INVALID_ARGUMENTS")
        assert missing["message"] == "the following arguments are required: query"
        assert missing["details"]["argument"] == "query"
        forget = await _refused(client, "memory_forget", {}, "INVALID_ARGUMENTS")
        assert forget["details"]["argument"] == "memory_id"
        chars = await _refused(client, "memory_context", {"max_chars": "lots"}, "INVALID_ARGUMENTS")
        assert chars["message"] == "max_chars must be an integer from 500 to 8000"
        limit = await _refused(
            client, "memory_search", {"query": "x", "limit": "ten"}, "INVALID_ARGUMENTS"
        )
        assert limit["message"] == "limit must be an integer from 1 to 50"
        flag = await _refused(
            client, "memory_apply", {"delta": delta(), "dry_run": "yes"}, "INVALID_ARGUMENTS"
        )
        assert flag["message"] == "dry_run must be true or false"
        op = await _refused(client, "memory_undo", {"op_id": 3}, "INVALID_ARGUMENTS")
        assert op["message"] == "op_id must be non-empty UTF-8 text"
        scope = await _refused(client, "memory_context", {"scope": "friends"}, "INVALID_ARGUMENTS")
        assert scope["details"]["argument"] == "scope"
        # apply's body keeps the command line's code for a body it cannot read.
        one = await _refused(client, "memory_apply", {"delta": "not an object"}, "INVALID_DELTA")
        assert one["details"] == {"index": None, "path": "$"}
        many = await _refused(client, "memory_apply", {"deltas": {"a": 1}}, "INVALID_DELTA")
        assert many["message"] == "deltas must be a list of deltas"
        # Null stands for an optional argument's default, as before.
        shown = data_of(await client.call_tool("memory_show", {"subject_id": None}))
        assert shown["count"] == 0


async def test_a_confirmed_tool_refuses_before_asking(enabled: Path, store: Any) -> None:
    asked: list[Any] = []

    async def never(context: Any, params: Any) -> Any:
        asked.append(params)
        raise AssertionError("the person must not be asked")

    async with Client(build_server(store), elicitation_callback=never) as client:
        payload = await _refused(client, "memory_clear", {"language": "fr"}, "INVALID_ARGUMENTS")
        assert payload["message"] == "language must be one of: zh, en"
        await _refused(client, "memory_forget_object", {"subjectid": "obj-a"}, "INVALID_ARGUMENTS")
    assert asked == []


def test_over_stdio_an_unknown_argument_is_refused_and_nothing_written(enabled: Path) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "memory_apply",
            "arguments": {"delta": delta(value="小A"), "dryrun": True},
        },
    }
    replies = raw_mcp_session([*RAW_HANDSHAKE, json.dumps(call).encode()], {2})
    result = replies[2]["result"]
    assert result["isError"] is True and "structuredContent" not in result
    payload = refusal_payload(result["content"][0]["text"])
    assert payload["code"] == "INVALID_ARGUMENTS"
    assert payload["details"]["did_you_mean"] == ["dry_run"]
    assert ok("show")["count"] == 0


async def test_a_number_or_truth_value_written_as_text_is_still_taken(
    enabled: Path, store: Any
) -> None:
    # Some hosts send every argument as text: "2000" is the number it says, as before.
    async with Client(build_server(store)) as client:
        context = data_of(await client.call_tool("memory_context", {"max_chars": "2000"}))
        assert context["max_chars"] == 2000
        tried = data_of(
            await client.call_tool("memory_apply", {"delta": delta(), "dry_run": "true"})
        )
        assert tried["dry_run"] is True
        chars = await _refused(client, "memory_context", {"max_chars": "20"}, "INVALID_ARGUMENTS")
        assert chars["message"] == "max_chars must be an integer from 500 to 8000"
    assert ok("show")["count"] == 0
