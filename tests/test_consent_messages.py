"""Messages follow the person's answer, in every face (documentation/permissions.md).

The fix a refusal gives depends on ``consent_state``: revoked — work without memory and
never offer it unless the person raises it; paused — resume only when asked; never
turned on — offer once, if it would help. A command that only reads (``show``, ``log``,
``review``, ``export``) on a store that does not exist answers that nothing is kept,
with no prompt to ask. The command line, the library and the MCP server (through the
SDK's real client) say the same, the server naming its tools where the command line
names a command.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import DB_NAME, YES, call, data_of, delta, fails, ok, put, refused

from memory_store import MemoryStore, MemoryStoreError
from memory_store.mcp import build_server

OFFER = "offer it once"
NO_ASKING = "do not ask again unless they raise it"
RESUME_WHEN_ASKED = "resume only when the person asks"
NOTHING_KEPT = "nothing is kept"
READS = [["show"], ["log"], ["export"], ["review", "--output", "page.html"]]


def _message(code: str, *args: str) -> dict[str, Any]:
    return dict(fails(code, *args).error)


def _reads(tmp_path: Path) -> list[list[str]]:
    return [[a if a != "page.html" else str(tmp_path / a) for a in r] for r in READS]


def test_never_turned_on_offers_once_and_reads_say_nothing_is_kept(
    private_store: Path, tmp_path: Path
) -> None:
    for command in (["context"], ["apply", "--json", '{"scope": "user"}']):
        refusal = _message("NOT_INITIALIZED", *command)
        assert OFFER in refusal["message"] and "enable --confirm" in refusal["message"]
        assert refusal["details"]["consent_state"] == "absent"
    for command in _reads(tmp_path):
        refusal = _message("NOT_INITIALIZED", *command)
        assert refusal["message"].startswith(NOTHING_KEPT), command
        for prompt in ("ask", "offer", "enable"):
            assert prompt not in refusal["message"], (command, refusal["message"])
    assert not private_store.exists()


def test_a_first_enable_that_never_finished_offers_once(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    (private_store / DB_NAME).touch(mode=0o600)  # a crashed first enable
    refusal = _message("CONSENT_REQUIRED", "context")
    assert refusal["details"]["consent_state"] == "never_enabled"
    assert OFFER in refusal["message"] and NO_ASKING not in refusal["message"]


def test_paused_says_resume_only_when_asked_and_never_offers_enable(enabled: Path) -> None:
    ok("pause")
    for command in (["context"], ["search", "--query", "coffee"], ["tidy"]):
        refusal = _message("MEMORY_PAUSED", *command)
        assert RESUME_WHEN_ASKED in refusal["message"] and "resume`" in refusal["message"]
        assert "enable" not in refusal["message"] and OFFER not in refusal["message"]
        assert refusal["details"]["consent_state"] == "paused"


def test_revoked_with_data_kept_never_offers(enabled: Path) -> None:
    put(delta(value="小林"))
    ok("revoke", "--confirm")
    for command in (["context"], ["resume"], ["pause"]):
        refusal = _message("CONSENT_REQUIRED", *command)
        assert NO_ASKING in refusal["message"] and OFFER not in refusal["message"], command
        assert refusal["details"]["consent_state"] == "revoked"
    assert ok("show")["count"] == 1  # the person's own access stays


def test_revoked_and_deleted_never_offers_and_reads_say_nothing_is_kept(
    enabled: Path, tmp_path: Path
) -> None:
    ok("revoke", "--delete", "--confirm")
    refusal = _message("NOT_INITIALIZED", "context")
    assert NO_ASKING in refusal["message"] and OFFER not in refusal["message"]
    for command in _reads(tmp_path):
        refusal = _message("NOT_INITIALIZED", *command)
        assert refusal["message"].startswith(NOTHING_KEPT), command
        assert NO_ASKING in refusal["message"] and OFFER not in refusal["message"]
        assert refusal["details"]["consent_state"] == "revoked"


def test_the_library_says_what_the_command_line_says(enabled: Path) -> None:
    store = MemoryStore(os.environ["MEMORY_STORE_DIR"])
    for setup, code in (("pause", "MEMORY_PAUSED"), ("revoke", "CONSENT_REQUIRED")):
        ok(setup, *(["--confirm"] if setup == "revoke" else []))
        with pytest.raises(MemoryStoreError) as raised:
            store.context()
        assert raised.value.code == code
        assert raised.value.message == _message(code, "context")["message"]
    ok("revoke", "--delete", "--confirm")
    with pytest.raises(MemoryStoreError) as raised:
        store.show()
    assert raised.value.message == _message("NOT_INITIALIZED", "show")["message"]


@pytest.mark.anyio
async def test_the_server_follows_the_consent_state_in_its_tools_terms(
    private_store: Path,
) -> None:
    store = MemoryStore(os.environ["MEMORY_STORE_DIR"])
    async with Client(build_server(store), elicitation_callback=YES) as client:
        absent = refused(await call(client, "memory_context"), "NOT_INITIALIZED")
        assert OFFER in absent["message"] and "memory_enable" in absent["message"]
        assert "--confirm" not in absent["message"]
        shown = refused(await call(client, "memory_show"), "NOT_INITIALIZED")
        assert shown["message"].startswith(NOTHING_KEPT) and "memory_enable" not in shown["message"]

        data_of(await call(client, "memory_enable"))
        data_of(await call(client, "memory_apply", delta=delta(value="小林")))
        data_of(await call(client, "memory_pause"))
        paused = refused(await call(client, "memory_context"), "MEMORY_PAUSED")
        assert RESUME_WHEN_ASKED in paused["message"] and "memory_resume" in paused["message"]
        assert "memory_enable" not in paused["message"]
        data_of(await call(client, "memory_resume"))

        # revoke --delete over MCP, then what the model is told: never "call memory_enable once".
        data_of(await call(client, "memory_revoke", delete=True))
        for tool in ("memory_context", "memory_apply", "memory_show", "memory_log"):
            args = {"delta": delta(value="x")} if tool == "memory_apply" else {}
            gone = refused(await call(client, tool, **args), "NOT_INITIALIZED")
            assert NO_ASKING in gone["message"] and OFFER not in gone["message"], tool
            assert gone["details"]["consent_state"] == "revoked"
