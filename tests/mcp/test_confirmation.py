"""The person confirms (documentation/mcp.md#why-the-person-confirms-and-how, documentation/guarantees.md#robustness, documentation/variables.md#commands-handed-to-the-person-name-the-store): what deletes, or turns memory on, happens only
on the person's yes, asked by elicitation, through the MCP SDK's own client.

In both protocol generations, the question answered yes, no, declined, cancelled and
absent: only a yes changes the store; the question says exactly what will happen, in the
person's language and in the singular for one; a confirmation the model sends is ignored;
a client that cannot ask gets the command to run; and a yes never covers what was added
while it was asked. The terminal is always the real CLI in another process.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import ElicitResult
from support import (
    MODES,
    YES,
    answering,
    call,
    data_of,
    delta,
    ok,
    put,
    refused,
    run_cli,
    two_people,
)

from memory_store import MemoryStore
from memory_store.mcp import build_server

pytestmark = pytest.mark.anyio


# ---------------------------------------------------------------- only the person's yes


def _populate() -> None:
    ok("enable", "--confirm")
    ok(
        "apply",
        "--json",
        json.dumps({"deltas": [delta(value="小A"), delta(field="job", value="设计师")]}),
    )
    ok("apply", "--json", json.dumps(delta(field="job", value="室内设计师")))
    ok("apply", "--json", json.dumps(delta(subject="obj-b", value="Alex")))


def _state() -> Any:
    status = ok("status", spawn=True)
    if not status["exists"]:
        return None
    return (
        ok("show", spawn=True)["memories"],
        ok("log", spawn=True)["operations"],
        (
            status["exists"],
            status["consent_enabled"],
            status["paused"],
        ),
    )


CASES = [
    ("memory_forget_object", {"subject_id": "obj-a"}),
    ("memory_forget", None),  # the id of 小A's job row, found at run time
    ("memory_clear", {}),
    ("memory_revoke", {}),
    ("memory_revoke", {"delete": True}),
]


def _args(name: str, args: dict[str, Any] | None) -> dict[str, Any]:
    if args is not None:
        return args
    job = [m for m in ok("show", spawn=True)["memories"] if m["field"] == "job"][0]
    return {"memory_id": job["id"]}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "args"),
    CASES,
    ids=[f"{n}{'-delete' if a and a.get('delete') else ''}" for n, a in CASES],
)
async def test_only_the_persons_yes_deletes(store: Any, mode: str, name: str, args: Any) -> None:
    _populate()
    args = _args(name, args)
    before = _state()
    for answer in (
        answering("accept", {"confirm": False}),
        answering("decline"),
        answering("cancel"),
    ):
        async with Client(build_server(store), mode=mode, elicitation_callback=answer) as client:
            result = data_of(await call(client, name, **args))
        assert result["changed"] is False and result["reason"] in (
            "answered_no",
            "declined",
            "cancelled",
        )
        assert _state() == before
    seen: list[Any] = []
    async with Client(
        build_server(store),
        mode=mode,
        elicitation_callback=answering("accept", {"confirm": True}, seen),
    ) as client:
        result = data_of(await call(client, name, **args))
    assert len(seen) == 1  # asked once
    assert _state() != before
    assert "changed" not in result  # the command's own data
    if name == "memory_revoke" and args.get("delete"):
        assert result["deleted"] is True and ok("status", spawn=True)["exists"] is False


@pytest.mark.parametrize("mode", MODES)
async def test_a_confirmation_sent_by_the_model_is_ignored(store: Any, mode: str) -> None:
    _populate()
    before = _state()
    # No tool takes confirm or confirmation: an unknown argument is refused before
    # anything is asked or done (documentation/mcp.md), so the model's yes confirms nothing.
    sneaky = {"subject_id": "obj-a", "confirm": True, "confirmation": {"confirm": True}}
    seen: list[Any] = []
    async with Client(
        build_server(store),
        mode=mode,
        elicitation_callback=answering("accept", {"confirm": True}, seen),
    ) as client:
        payload = refused(
            await client.call_tool("memory_forget_object", sneaky), "INVALID_ARGUMENTS"
        )
        assert set(payload["details"]["did_you_mean"]) <= {"confirm", "confirmation"}
        assert "confirm" in payload["message"] and "confirmation" in payload["message"]
    assert seen == [] and _state() == before
    # Without them the person is asked, and their no is kept.
    async with Client(
        build_server(store), mode=mode, elicitation_callback=answering("decline")
    ) as client:
        result = data_of(await call(client, "memory_forget_object", subject_id="obj-a"))
    assert result["reason"] == "declined" and _state() == before


async def test_nothing_to_delete_is_refused_without_asking(store: Any) -> None:
    _populate()
    seen: list[Any] = []
    async with Client(
        build_server(store), elicitation_callback=answering("accept", {"confirm": True}, seen)
    ) as client:
        refused(
            await call(client, "memory_forget_object", subject_id="obj-zz"), "SUBJECT_NOT_FOUND"
        )
        refused(
            await call(client, "memory_forget", memory_id="m-0000000000000000"), "MEMORY_NOT_FOUND"
        )
    assert seen == []


@pytest.mark.parametrize("mode", MODES)
async def test_enable_on_the_persons_yes(store: Any, private_store: Path, mode: str) -> None:
    async with Client(
        build_server(store), mode=mode, elicitation_callback=answering("cancel")
    ) as client:
        assert data_of(await call(client, "memory_enable"))["reason"] == "cancelled"
    assert not private_store.exists()
    async with Client(build_server(store), mode=mode, elicitation_callback=YES) as client:
        enabled = data_of(await call(client, "memory_enable", language="zh"))
        assert enabled["consent_enabled"] is True and enabled["created"] is True
        assert data_of(await call(client, "memory_apply", delta=delta(value="小林")))["op_id"]


# ---------------------------------------------------------------- the question


@pytest.mark.parametrize("mode", MODES)
async def test_the_question_says_exactly_what_will_happen(store: Any, mode: str) -> None:
    _populate()
    seen: list[Any] = []
    no = answering("decline", seen=seen)
    async with Client(build_server(store), mode=mode, elicitation_callback=no) as client:
        await call(client, "memory_forget_object", subject_id="obj-a")
        await call(client, "memory_forget_object", subject_id="obj-b")
        await call(client, "memory_forget_object", subject_id="obj-b", language="zh")
        await call(client, "memory_clear", language="en")
        await call(client, "memory_revoke", delete=True, language="en")
        await call(client, "memory_enable")
    texts = [p.message for p in seen]
    assert texts[0] == "删除关于小A的全部 2 条记忆，以及提到它们的 2 个撤销步骤吗？此操作无法撤销。"
    assert texts[1] == (
        "Delete the 1 memory about Alex and the 1 undo step that mentions it? This cannot be undone."
    )
    assert texts[2].startswith("删除关于Alex的全部 1 条记忆")
    assert (
        texts[3]
        == "Delete all 3 memories and the 3 undo steps? Memory stays on. This cannot be undone."
    )
    assert texts[4].startswith("Delete all 3 memories, the 3 undo steps and the memory file")
    assert "long-term memory" in texts[5] and "长期记忆" in texts[5]  # unknown language: both
    schema = seen[0].requested_schema
    assert (
        list(schema["properties"]) == ["confirm"]
        and schema["properties"]["confirm"]["type"] == "boolean"
    )


@pytest.mark.anyio
async def test_one_memory_and_one_undo_step_read_as_singular(private_store: Path) -> None:
    from mcp_types import ElicitResult

    ok("enable", "--confirm")
    put(delta(value="Alex"))
    seen: list[str] = []

    async def no(context: Any, params: Any) -> ElicitResult:
        seen.append(params.message)
        return ElicitResult(action="decline")

    store = MemoryStore(private_store)
    async with Client(build_server(store), elicitation_callback=no) as client:
        await call(client, "memory_forget_object", subject_id="Alex", language="en")
        await call(client, "memory_revoke", language="en")
    assert seen[0] == (
        "Delete the 1 memory about Alex and the 1 undo step that mentions it? "
        "This cannot be undone."
    )
    assert seen[1].startswith("Stop remembering? The 1 memory stays,")


# ---------------------------------------------------------------- a client that cannot ask


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_cannot_ask_gets_the_command_to_run(store: Any, mode: str) -> None:
    _populate()
    before = _state()
    async with Client(build_server(store), mode=mode) as client:  # no elicitation callback
        result = data_of(await call(client, "memory_forget_object", subject_id="obj-a"))
        enable = data_of(await call(client, "memory_enable"))
    assert result["changed"] is False and result["reason"] == "cannot_ask"
    # The person's terminal has not the server's MEMORY_STORE_DIR: the store is named (documentation/variables.md#commands-handed-to-the-person-name-the-store).
    assert result["command"] == (
        f"memory-store --data-dir {store.data_dir} forget-object obj-a --confirm"
    )
    assert enable["command"] == f"memory-store --data-dir {store.data_dir} enable --confirm"
    assert _state() == before
    line = run_cli(*result["command"].split()[1:])  # and it is the exact command
    assert line.code == 0 and line.data["deleted"] == 2


async def test_the_command_names_a_store_the_terminal_would_not_find(tmp_path: Path) -> None:
    elsewhere = MemoryStore(tmp_path / "elsewhere")
    elsewhere.enable(confirm=True)
    elsewhere.apply(delta(value="小A"))
    elsewhere.hold()
    try:
        async with Client(build_server(elsewhere)) as client:
            result = data_of(await call(client, "memory_forget_object", subject_id="obj-a"))
    finally:
        elsewhere.release()
    assert result["command"] == (
        f"memory-store --data-dir {elsewhere.data_dir} forget-object obj-a --confirm"
    )
    assert run_cli(*result["command"].split()[1:]).data["deleted"] == 1


# ---------------------------------------------------------------- a yes covers only what it asked about


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
    two_people()
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
    two_people()
    seen: list[str] = []
    answer = _adding_while_asked(seen, Path(store.data_dir), 0)
    async with Client(build_server(store), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("memory_forget_object", {"subject_id": "obj-a"})
    assert result.structured_content["deleted"] == 2 and len(seen) == 1
    assert [m["value"] for m in ok("show")["memories"]] == ["Alex"]


def _answering_with_an_error(seen: list[Any]) -> Any:
    """A client that answers the question with a JSON-RPC error (it failed to show it)."""

    async def callback(context: Any, params: Any) -> Any:
        from mcp_types import ErrorData

        seen.append(params)
        return ErrorData(code=-32603, message="the client could not show the form")

    return callback


async def test_a_question_answered_with_an_error_is_cannot_ask(store: Any) -> None:
    """documentation/mcp.md#hosts-without-elicitation: the tool gives the ordinary (documentation/mcp.md#hosts-without-elicitation) "nothing changed, here is the command" result,
    not the client's error as the tool call's. Only the legacy generation has an answer
    that can be an error (a response to ``elicitation/create``); in the modern one the
    answer travels in the client's next ``tools/call``, and an SDK client whose callback
    fails raises on its own side without sending it."""
    mode = "legacy"
    _populate()
    before = _state()
    seen: list[Any] = []
    async with Client(
        build_server(store), mode=mode, elicitation_callback=_answering_with_an_error(seen)
    ) as client:
        result = data_of(await call(client, "memory_forget_object", subject_id="obj-a"))
    assert seen, "the question was asked"
    assert result["changed"] is False and result["reason"] == "cannot_ask"
    assert "forget-object obj-a --confirm" in result["command"]
    assert _state() == before


def _moving_the_label_while_asked(seen: list[str], data_dir: Path) -> Any:
    """While the question about "Alex" (obj-b) is open, the terminal renames obj-b and
    gives a new person, obj-c, the label "Alex" with as many memories and undo steps:
    the same words now name someone else. Then the person says yes."""

    async def callback(context: Any, params: Any) -> ElicitResult:
        seen.append(params.message)
        if len(seen) == 1:
            for d in (
                delta(subject="obj-b", value="Alexander", source="user_explicit"),
                delta(subject="obj-c", value="Alex", source="user_explicit"),
            ):
                r = run_cli("--data-dir", str(data_dir), "apply", "--json", json.dumps(d))
                assert r.code == 0, r.stdout
        return ElicitResult(action="accept", content={"confirm": True})

    return callback


@pytest.mark.parametrize("mode", MODES)
async def test_a_yes_covers_only_the_subject_it_was_asked_about(
    store: Any, private_store: Path, mode: str
) -> None:
    """documentation/mcp.md#why-the-person-confirms-and-how: the recount compares the subject's code, not only the question's text."""
    ok("enable", "--confirm")
    two_people()
    seen: list[str] = []
    answer = _moving_the_label_while_asked(seen, private_store)
    async with Client(build_server(store), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("memory_forget_object", {"subject_id": "Alex"})
    data = data_of(result)
    assert data["changed"] is False and data["reason"] == "changed_while_asked", data
    labels = {
        m["subject_id"]: m["value"] for m in ok("show")["memories"] if m["field"] == "display_label"
    }
    assert labels == {"obj-a": "小A", "obj-b": "Alexander", "obj-c": "Alex"}
    assert len(seen) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("content", [{}, None, {"confirm": "yes"}], ids=["empty", "none", "text"])
async def test_an_accept_without_the_asked_true_is_cannot_ask(
    store: Any, mode: str, content: Any
) -> None:
    """A host that accepts a form on its own (an empty one, or without the boolean asked)
    did not put the question to the person: nothing changes, no error, and the person
    can say yes on their page (documentation/hosts.md)."""
    _populate()
    before = _state()
    async with Client(
        build_server(store), mode=mode, elicitation_callback=answering("accept", content)
    ) as client:
        result = await call(client, "memory_forget_object", subject_id="obj-a")
    assert not result.is_error, result
    data = data_of(result)
    assert data["changed"] is False and data["reason"] == "cannot_ask", data
    assert data["page"] is True and "forget-object obj-a --confirm" in data["command"]
    assert _state() == before


@pytest.mark.parametrize("mode", MODES)
async def test_a_decline_nobody_may_have_said_points_to_the_page(store: Any, mode: str) -> None:
    _populate()
    before = _state()
    async with Client(
        build_server(store), mode=mode, elicitation_callback=answering("decline")
    ) as client:
        result = await call(client, "memory_forget_object", subject_id="obj-a")
    data = data_of(result)
    assert data == {"changed": False, "reason": "declined", "page": True}
    text = result.content[0].text
    assert "page" in text and _state() == before
