"""The store the MCP server holds open, beside the terminal (documentation/mcp.md#beside-the-cli-on-one-store, documentation/mcp.md#arguments-checked-like-the-command-lines).

The server keeps one connection across calls; the terminal is the real CLI in another
process. What the terminal does between calls — pause, forget, revoke --delete, the
checkpoints of commands that close their last connection — is seen by the server's next
call and loses no write; and ownership and mode are rechecked on every call, so a data
directory made world-writable while serving is refused (memory_status reports it) before
anyone is asked anything.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import ElicitResult
from support import (
    MODES,
    YES,
    call,
    data_of,
    delta,
    left_after_revoke_delete,
    ok,
    refused,
    run_cli,
    two_people,
)

from memory_store.mcp import build_server

pytestmark = pytest.mark.anyio


# ---------------------------------------------------------------- the terminal beside the server


async def test_the_terminal_and_the_server_on_one_store(store: Any, private_store: Path) -> None:
    ok("enable", "--confirm")
    async with Client(build_server(store), elicitation_callback=YES) as client:
        data_of(await call(client, "memory_apply", delta=delta(value="小林")))
        ok("pause", spawn=True)
        refused(
            await call(client, "memory_apply", delta=delta(field="a", value="b")), "MEMORY_PAUSED"
        )
        ok("resume", spawn=True)
        data_of(await call(client, "memory_apply", delta=delta(field="job", value="设计师")))
        gone = ok(
            "forget-object", "obj-a", "--confirm", spawn=True
        )  # the server is idle, holding the file
        assert gone["erased"] is True and gone["deleted"] == 2
        data_of(await call(client, "memory_apply", delta=delta(value="again")))
        ok("revoke", "--delete", "--confirm", spawn=True)
        lost = refused(
            await call(client, "memory_apply", delta=delta(value="lost?")), "NOT_INITIALIZED"
        )
        # documentation/privacy.md#what-revoke---delete-leaves-a-tombstone: do not ask again
        assert lost["details"]["consent_state"] == "revoked"
        refused(
            await call(client, "memory_log"),
            "NOT_INITIALIZED",
        )
        status = data_of(await call(client, "memory_status"))
        assert status["consent_state"] == "revoked" and status["exists"] is False
        assert left_after_revoke_delete(private_store) == []  # no file came back
        ok("enable", "--confirm", spawn=True)
        data_of(await call(client, "memory_apply", delta=delta(value="新的文件")))
    assert [m["value"] for m in ok("show", spawn=True)["memories"]] == ["新的文件"]


async def test_no_write_is_lost_while_the_terminal_checkpoints(
    store: Any, private_store: Path
) -> None:
    """The trap of documentation/mcp.md#beside-the-cli-on-one-store: a process holding a connection must never open the store's files by
    path (closing that descriptor drops its POSIX locks, and another process's checkpoint
    could then delete the -wal under it). The terminal runs commands that close the last
    connection of their process, checkpoint and erase between the server's writes."""
    ok("enable", "--confirm")
    written = []
    async with Client(build_server(store)) as client:
        for i in range(12):
            value = f"server write {i} 服务器"
            data_of(await call(client, "memory_apply", delta=delta(field=f"f{i}", value=value)))
            written.append(value)
            terminal = [["status"], ["show"], ["doctor"]][i % 3]
            ok(*terminal, spawn=True)
            if i % 4 == 3:
                ok(
                    "apply",
                    "--json",
                    json.dumps(delta(subject="obj-t", field=f"t{i}", value="t")),
                    spawn=True,
                )
                ok(
                    "forget-object", "obj-t", "--confirm", spawn=True
                )  # VACUUM + truncating checkpoint
            shown = {
                m["value"] for m in ok("show", "--subject-id", "obj-a", spawn=True)["memories"]
            }
            assert set(written) <= shown, i
    store.release()
    assert {m["value"] for m in ok("show", spawn=True)["memories"]} == set(written)
    assert ok("doctor", spawn=True)["ok"] is True


# ---------------------------------------------------------------- ownership and mode, rechecked on every call


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
]  # and not revoke --delete: the right to delete does not depend on the directory (documentation/permissions.md#what-the-code-enforces-for-everyone)


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
    two_people()
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
