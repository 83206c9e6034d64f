"""Names resolve to subjects (contract §22): the person says 小林, the store keeps obj-a.

``context``, ``show``, ``search`` and ``forget-object`` take a subject's display label
where they take its id; a label two subjects share is ambiguous and lists both; an
unknown subject lists the known ones with their labels; without consent no label is
read; the MCP tools take names too.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import call, data_of, delta, fails, ok, put

from memory_store.mcp import build_server


def test_context_by_label_resolves_to_the_subject(people: Path) -> None:
    found = ok("context", "--subject-id", "小林")
    assert found["subject_id"] == "obj-a" and found["subject_known"] is True
    assert "在读书会认识" in [m["value"] for m in found["memories"]]
    assert ok("context", "--subject-id", "obj-a")["subject_id"] == "obj-a"  # codes still work
    unknown = ok("context", "--subject-id", "小张")
    assert unknown["subject_id"] == "小张" and unknown["subject_known"] is False


def test_show_and_search_by_label(people: Path) -> None:
    shown = ok("show", "--subject-id", "老王")
    assert shown["subject_id"] == "obj-b"
    assert [m["subject_id"] for m in shown["memories"]] == ["obj-b"]
    searched = ok("search", "--query", "读书会", "--subject-id", "小林")
    assert searched["subject_id"] == "obj-a" and searched["count"] == 1
    assert ok("search", "--query", "读书会")["subject_id"] is None


def test_forget_object_by_label(people: Path) -> None:
    forgotten = ok("forget-object", "老王", "--confirm")
    assert forgotten["subject_id"] == "obj-b" and forgotten["deleted"] == 1
    assert ok("show", "--subject-id", "obj-b")["count"] == 0
    assert ok("show", "--subject-id", "obj-a")["count"] == 2


def test_a_label_two_subjects_share_is_ambiguous(people: Path) -> None:
    put(delta(subject="obj-c", value="小林"))
    before = ok("show")
    for args in (["context", "--subject-id", "小林"], ["forget-object", "小林", "--confirm"]):
        failed = fails("INVALID_ARGUMENTS", *args)
        error = failed.error
        assert "obj-a (小林)" in error["message"] and "obj-c (小林)" in error["message"]
        assert error["details"]["subjects"] == [
            {"subject_id": "obj-a", "display_label": "小林"},
            {"subject_id": "obj-c", "display_label": "小林"},
        ]
    assert ok("show") == before


def test_subject_not_found_lists_the_known_subjects_with_labels(people: Path) -> None:
    failed = fails("SUBJECT_NOT_FOUND", "forget-object", "小张", "--confirm")
    error = failed.error
    assert "obj-a (小林)" in error["message"] and "obj-b (老王)" in error["message"]
    assert error["details"]["known_subjects"] == ["obj-a", "obj-b"]
    assert error["details"]["subjects"] == [
        {"subject_id": "obj-a", "display_label": "小林"},
        {"subject_id": "obj-b", "display_label": "老王"},
    ]


def test_without_consent_no_label_is_read(people: Path) -> None:
    put(delta(subject="obj-c", value="小林"))  # ambiguous, were it looked up
    ok("revoke", "--confirm")
    fails("CONSENT_REQUIRED", "context", "--subject-id", "小林")
    fails("CONSENT_REQUIRED", "search", "--query", "x", "--subject-id", "小林")


@pytest.mark.anyio
async def test_mcp_tools_take_names(people: Path, store: Any) -> None:
    async with Client(build_server(store)) as client:
        context = data_of(await call(client, "memory_context", subject_id="小林"))
        ask = data_of(await call(client, "memory_forget_object", subject_id="老王"))
    assert context["subject_id"] == "obj-a" and context["subject_known"] is True
    assert ask["reason"] == "cannot_ask"
    assert shlex.split(ask["command"])[-3:] == ["forget-object", "老王", "--confirm"]
