"""``memory-store mcp`` over stdio, as hosts run it (documentation/mcp.md#install-and-run, documentation/mcp.md#arguments-checked-like-the-command-lines).

A real server process through the SDK's stdio client, in both protocol generations, with
``--data-dir`` over the environment the host passes; every request answered — a lone
surrogate, bytes that are not UTF-8, a key given twice, a line that is not JSON — with
only JSON-RPC on stdout and no traceback; without the ``mcp`` extra, an install that
works (the MCP Inspector's CLI, a third-party client: ``test_inspector.py``).

What the SDK's client would never send (a lone surrogate, a repeated key) goes through a
proxy in front of it, or as raw lines over pipes (``support.raw_mcp_session``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from support import (
    MODES,
    RAW_HANDSHAKE,
    ROOT,
    YES,
    call,
    data_of,
    delta,
    ok,
    raw_mcp_session,
    refusal_payload,
    refused,
)

pytestmark = pytest.mark.anyio


# ---------------------------------------------------------------- a real server process


def _params(store_dir: Path, *extra: str) -> Any:
    from mcp import StdioServerParameters

    # The SDK passes on only HOME, PATH and a few more: the store and the debug switch go explicitly.
    env = {"MEMORY_STORE_DIR": str(store_dir), "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memory_store", *extra, "mcp"], env=env
    )


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
async def test_memory_store_mcp_over_stdio(
    private_store: Path, tmp_path: Path, mode: str, version: str
) -> None:
    from mcp.client.stdio import stdio_client

    with open(tmp_path / "stderr", "w+") as err:
        transport = stdio_client(_params(private_store), errlog=err)
        async with Client(transport, mode=mode, elicitation_callback=YES) as client:
            assert client.protocol_version == version
            assert client.server_info.name == "memory-store"
            refused(await call(client, "memory_context"), "NOT_INITIALIZED")
            assert data_of(await call(client, "memory_enable"))["consent_enabled"] is True
            data_of(await call(client, "memory_apply", delta=delta(value="小林")))
            ctx = data_of(await call(client, "memory_context", subject_id="obj-a", query="小林"))
            assert ctx["memories"][0]["value"] == "小林"
            refused(
                await client.call_tool("memory_context", {"max_chars": "lots"}), "INVALID_ARGUMENTS"
            )
            gone = data_of(await call(client, "memory_forget_object", subject_id="obj-a"))
            assert gone["deleted"] == 1 and gone["erased"] is True
        err.seek(0)
        assert "Traceback" not in err.read()
    assert ok("show")["count"] == 0


async def test_memory_store_mcp_obeys_data_dir(enabled: Path, tmp_path: Path) -> None:
    """``--data-dir`` names the store, over the MEMORY_STORE_DIR the host passes (documentation/mcp.md#install-and-run)."""
    from mcp.client.stdio import stdio_client

    ok("apply", "--json", json.dumps(delta(value="小林"), ensure_ascii=False))
    elsewhere = tmp_path / "elsewhere"
    async with Client(stdio_client(_params(elsewhere, "--data-dir", str(enabled)))) as client:
        shown = data_of(await call(client, "memory_show"))
    assert [m["value"] for m in shown["memories"]] == ["小林"]
    assert not elsewhere.exists()  # nothing created where the environment pointed


def test_without_the_extra_mcp_is_invalid_arguments_naming_the_install(enabled: Path) -> None:
    script = (
        "import sys; sys.modules['mcp'] = None  # as if the extra were not installed\n"
        "from memory_store.cli import main; sys.exit(main(['mcp']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    envelope = json.loads(proc.stdout)
    assert envelope["command"] == "mcp" and envelope["error"]["code"] == "INVALID_ARGUMENTS"
    # An install that works (documentation/mcp.md#install-and-run): this environment's pip, from this checkout;
    # never a package index's "memory-store", which is not published.
    install = envelope["error"]["details"]["install"]
    assert install.startswith(f"{sys.executable} -m pip install "), install
    assert install.endswith("[mcp]'") and install in envelope["error"]["message"]
    assert "memory-store[mcp]" not in envelope["error"]["message"]
    assert proc.stderr == ""


# ---------------------------------------------------------------- every request is answered


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
    env = {"MEMORY_STORE_DIR": str(store_dir), "PYTHONPATH": str(ROOT)}
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


def test_a_malformed_message_never_kills_the_server_and_stdout_is_only_json_rpc(
    enabled: Path,
) -> None:
    lines = [
        b"this is not json",
        RAW_HANDSHAKE[0],
        b'{"jsonrpc": "2.0", "id": 99, "method": ',
        RAW_HANDSHAKE[1],
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "memory_status", "arguments": {}},
            }
        ).encode(),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "memory_apply", "arguments": {"delta": "not an object"}},
            }
        ).encode(),
    ]
    by_id = raw_mcp_session(lines, {1, 2, 3})
    assert by_id[2]["result"]["structuredContent"]["exists"] is True
    assert by_id[3]["result"]["isError"] is True
    assert "structuredContent" not in by_id[3]["result"]
    code = refusal_payload(by_id[3]["result"]["content"][0]["text"])["code"]
    assert code in ("INVALID_ARGUMENTS", "INVALID_DELTA")


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
    assert "structuredContent" not in replies[2]["result"]
    assert (
        refusal_payload(replies[2]["result"]["content"][0]["text"])["code"] == "INVALID_ARGUMENTS"
    )
    assert replies[3]["error"]["message"] == "repeated key 'name' in a JSON object"
    assert "lone surrogate" in replies[4]["error"]["message"]
    assert replies[5]["error"]["code"] == -32600
    assert replies[None]["error"]["code"] == -32700  # JSON-RPC 2.0: a parse error, id null
    assert replies[6]["result"]["structuredContent"]["exists"] is True


@pytest.mark.parametrize("bad_id", ["null", "1.5", '{"n": 1}', "true", "[2]"])
def test_a_request_with_an_id_mcp_forbids_is_answered(enabled: Path, bad_id: str) -> None:
    """documentation/mcp.md#arguments-checked-like-the-command-lines: every JSON-RPC request is answered — an id the reply cannot echo gets -32600
    with id null, never silence; the session goes on."""
    lines = [
        b'{"jsonrpc": "2.0", "id": %s, "method": "tools/list"}' % bad_id.encode(),
        b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call",'
        b' "params": {"name": "memory_status", "arguments": {}}}',
    ]
    replies = raw_mcp_session([*RAW_HANDSHAKE, *lines], {None, 6})
    assert replies[None]["error"]["code"] == -32600
    assert "id" in replies[None]["error"]["message"]
    assert replies[6]["result"]["structuredContent"]["exists"] is True
