"""The MCP server's part of contract §21 (issue 18 items 5-8), through the SDK's real client:
every request answered (a lone surrogate, bytes that are not UTF-8), a repeated key refused
as the CLI refuses it, ownership and mode rechecked on every call, and a confirmation that
never deletes more than the person was asked about.

Raw JSON-RPC lines go to a real ``memory-store mcp`` process over pipes where the SDK's
client could not send them (it never writes a lone surrogate or a repeated key).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import RAW_HANDSHAKE, delta, ok, raw_mcp_session, refused, run_cli
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitResult

from memory_store.mcp import build_server

MODES = ["auto", "legacy"]
PROJECT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.anyio


def _populate() -> None:
    """小A with two memories and Alex with one, each written by its own apply (one undo step)."""
    for d in (
        delta(value="小A"),
        delta(field="job", value="teacher"),
        delta(subject="obj-b", value="Alex", source="user_explicit"),
    ):
        ok("apply", "--json", json.dumps(d, ensure_ascii=False), spawn=True)


# --- 7. ownership and mode are rechecked on every call ------------------------------------

TOOL_CALLS = [
    ("memory_apply", {"delta": delta(field="hobby", value="爬山")}),
    ("memory_context", {"subject_id": "obj-a"}),
    ("memory_search", {"query": "小A"}),
    ("memory_show", {}),
    ("memory_log", {}),
    ("memory_undo", {}),
    ("memory_pause", {}),
    ("memory_resume", {}),
    ("memory_forget_object", {"subject_id": "obj-a"}),
    ("memory_forget", None),
    ("memory_clear", {}),
    ("memory_revoke", {}),
    ("memory_enable", {}),
]  # and not revoke --delete: the right to delete does not depend on the directory (§17)


def _yes_counting(seen: list[Any]) -> Any:
    async def callback(context: Any, params: Any) -> ElicitResult:
        seen.append(params)
        return ElicitResult(action="accept", content={"confirm": True})

    return callback


@pytest.mark.parametrize("mode", MODES)
async def test_a_data_dir_made_world_writable_while_serving_is_unsafe(
    store: Any, private_store: Path, mode: str
) -> None:
    ok("enable", "--confirm")
    _populate()
    memory_id = ok("show")["memories"][0]["id"]
    seen: list[Any] = []
    async with Client(
        build_server(store), mode=mode, elicitation_callback=_yes_counting(seen)
    ) as client:
        # The server has read the store: its connection is held and current.
        assert (await client.call_tool("memory_show", {})).is_error is False
        os.chmod(private_store, 0o777)
        try:
            cli_status = run_cli("status").data
            assert cli_status["unsafe"]["code"] == "STORE_UNSAFE"
            assert run_cli("show").error["code"] == "STORE_UNSAFE"  # as a fresh process answers
            status = (await client.call_tool("memory_status", {})).structured_content
            assert status["unsafe"] == cli_status["unsafe"]  # reported, not refused
            for name, args in TOOL_CALLS:
                args = {"memory_id": memory_id} if args is None else args
                payload = refused(await client.call_tool(name, args), "STORE_UNSAFE")
                assert payload["details"]["reason"] == "permissions", (name, payload)
        finally:
            os.chmod(private_store, 0o700)
        assert seen == []  # nobody was asked about a store that would be refused
        assert (await client.call_tool("memory_show", {})).structured_content["count"] == 3
    assert [m["value"] for m in ok("show")["memories"]].count("爬山") == 0  # nothing written


# --- 8. a confirmation never deletes more than it asked about -----------------------------

_NUMBERS = re.compile(r"\d+")


def _adding_while_asked(seen: list[str], data_dir: Path, extra: int) -> Any:
    """The person's client: while the first question is open, the terminal adds ``extra``
    memories about 小A (in another process, through the real CLI); then the person says yes."""

    async def callback(context: Any, params: Any) -> ElicitResult:
        seen.append(params.message)
        if len(seen) == 1:
            for i in range(extra):
                d = delta(field=f"pet{i}", value=f"猫{i}")
                r = run_cli("--data-dir", str(data_dir), "apply", "--json", json.dumps(d))
                assert r.code == 0, r.stdout
        return ElicitResult(action="accept", content={"confirm": True})

    return callback


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("memory_forget_object", {"subject_id": "obj-a", "language": "en"}),
        ("memory_clear", {"language": "en"}),
        ("memory_revoke", {"delete": True, "language": "en"}),
        ("memory_revoke", {"language": "en"}),
    ],
    ids=["forget_object", "clear", "revoke-delete", "revoke"],
)
async def test_a_yes_never_covers_what_was_added_while_it_was_asked(
    store: Any, private_store: Path, mode: str, name: str, args: dict[str, Any]
) -> None:
    ok("enable", "--confirm")
    _populate()
    seen: list[str] = []
    answer = _adding_while_asked(seen, private_store, 2)
    async with Client(build_server(store), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool(name, args)
    assert result.is_error is False, result.structured_content
    data = result.structured_content
    if data.get("changed") is False:
        # Nothing at all was done: the yes answered a question that no longer held.
        assert data["reason"] == "changed_while_asked", data
        assert "nothing changed" in result.content[0].text
        assert len(ok("show")["memories"]) == 5 and ok("status")["consent_enabled"] is True
        assert len(seen) == 1
        return
    # Asked again with the new numbers, and the deletion is the one last asked about.
    assert len(seen) == 2 and seen[0] != seen[1], seen
    if name == "memory_revoke" and not args.get("delete"):
        assert "The 5 memories stay" in seen[1]
        assert ok("status")["consent_enabled"] is False
        return
    deleted = data["deleted"] if name != "memory_revoke" else data["rows_deleted"]
    assert int(_NUMBERS.findall(seen[1])[0]) == deleted, (seen, data)
    assert deleted == (4 if name == "memory_forget_object" else 5)


@pytest.mark.parametrize("mode", MODES)
async def test_an_unchanged_store_is_deleted_on_one_yes(store: Any, mode: str) -> None:
    ok("enable", "--confirm")
    _populate()
    seen: list[str] = []
    answer = _adding_while_asked(seen, Path(store.data_dir), 0)
    async with Client(build_server(store), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("memory_forget_object", {"subject_id": "obj-a"})
    assert result.structured_content["deleted"] == 2 and len(seen) == 1
    assert [m["value"] for m in ok("show")["memories"]] == ["Alex"]


# --- 5 and 6. every request is answered; a repeated key is refused -------------------------

# Between the SDK's real client and the real server: a pipe that turns markers the client
# can send into what it never would — the JSON escape of a lone surrogate, bytes that are
# not UTF-8, a key given twice.
PROXY = r"""
import subprocess, sys
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE)
for line in sys.stdin.buffer:
    line = line.replace(b"XLONEX", b"\\ud800").replace(b"XBADX", b"\xff\xfe")
    server.stdin.write(line.replace(b'"XDUP_', b'"'))
    server.stdin.flush()
server.stdin.close()
sys.exit(server.wait())
"""


def _through_proxy(tmp_path: Path, store_dir: Path) -> Any:
    proxy = tmp_path / "proxy.py"
    proxy.write_text(PROXY)
    env = {"MEMORY_STORE_DIR": str(store_dir), "PYTHONPATH": str(PROJECT)}
    return StdioServerParameters(
        command=sys.executable,
        args=[str(proxy), sys.executable, "-m", "memory_store", "mcp"],
        env=env,
    )


@pytest.mark.parametrize("mode", MODES)
async def test_every_request_over_stdio_is_answered(
    enabled: Path, tmp_path: Path, mode: str
) -> None:
    with open(tmp_path / "stderr", "w+") as err, anyio.fail_after(60):
        transport = stdio_client(_through_proxy(tmp_path, enabled), errlog=err)
        async with Client(transport, mode=mode) as client:
            lone = delta(value="小A XLONEX")
            payload = refused(
                await client.call_tool("memory_apply", {"delta": lone}), "INVALID_DELTA"
            )
            assert payload["details"] == {"index": None, "path": "$.value"}
            assert "lone surrogate" in payload["message"]
            batch = [delta(value="小A"), delta(field="job", value="XBADX")]
            payload = refused(
                await client.call_tool("memory_apply", {"deltas": batch}), "INVALID_DELTA"
            )
            assert payload["details"] == {"index": 1, "path": "$.deltas[1].value"}
            payload = refused(
                await client.call_tool("memory_search", {"query": "XLONEX"}), "INVALID_ARGUMENTS"
            )
            assert payload["details"] == {"argument": "query", "path": "$.query"}
            twice = {**delta(value="first"), "XDUP_value": "second"}
            payload = refused(
                await client.call_tool("memory_apply", {"delta": twice}), "INVALID_DELTA"
            )
            assert payload["message"] == "repeated key 'value' in a JSON object"
            assert payload["details"] == {"index": None, "path": "$"}
            two = {"delta": delta(value="one"), "XDUP_delta": delta(value="two")}
            payload = refused(await client.call_tool("memory_apply", two), "INVALID_DELTA")
            assert payload["message"] == "repeated key 'delta' in a JSON object"
            # Outside a tool's arguments: a JSON-RPC error for the same request id.
            with pytest.raises(MCPError):
                await client.call_tool("memory_showXLONEX", {})
            # The server still serves, and nothing refused was stored.
            done = await client.call_tool("memory_apply", {"delta": delta(value="小A")})
            assert done.is_error is False, done.structured_content
        err.seek(0)
        assert "Traceback" not in err.read()
    assert [m["value"] for m in ok("show")["memories"]] == ["小A"]


def test_the_cli_refuses_the_same_repeated_key(enabled: Path) -> None:
    body = json.dumps(delta(value="first"))[:-1] + ', "value": "second"}'
    r = run_cli("apply", "--json", body)
    assert r.error["code"] == "INVALID_DELTA"
    assert r.error["message"] == "repeated key 'value' in a JSON object"
    assert r.error["details"] == {"index": None, "path": "$"}


def test_lines_the_sdk_cannot_read_get_a_json_rpc_answer(enabled: Path) -> None:
    call = '{"jsonrpc": "2.0", "id": %s, "method": "tools/call", "params": %s}'
    lines = [
        (call % (2, '{"name": "memory_search", "arguments": {"query": "\\ud800"}}')).encode(),
        (call % (3, '{"name": "memory_show", "arguments": {}, "name": "memory_log"}')).encode(),
        b'{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"cursor": "\xff"}}',
        b'{"jsonrpc": "2.0", "id": 5, "method": 17}',
        b"this is not json",
        (call % (6, '{"name": "memory_status", "arguments": {}}')).encode(),
    ]
    replies = raw_mcp_session([*RAW_HANDSHAKE, *lines], {2, 3, 4, 5, 6})
    assert replies[2]["result"]["isError"] is True
    assert replies[2]["result"]["structuredContent"]["code"] == "INVALID_ARGUMENTS"
    assert replies[3]["error"]["message"] == "repeated key 'name' in a JSON object"
    assert "lone surrogate" in replies[4]["error"]["message"]
    assert replies[5]["error"]["code"] == -32600
    assert replies[None]["error"]["code"] == -32700  # JSON-RPC 2.0: a parse error, id null
    assert replies[6]["result"]["structuredContent"]["exists"] is True
