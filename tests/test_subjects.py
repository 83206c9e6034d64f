"""Names resolve to subjects (documentation/commands.md#a-person-named-never-guessed): the person says 小林, the store keeps obj-a.

``context``, ``show``, ``search`` and ``forget-object`` take a subject's display label
where they take its id; a label two subjects share is ambiguous and lists both; an
unknown subject lists the known ones with their labels; without consent no label is
read; the MCP tools take names too.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import call, data_of, delta, fails, ok, put, refused

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


# --- documentation/commands.md#a-person-named-never-guessed: a plain name does not make a second person ---------------------


@pytest.fixture
def labelled(people: Path) -> Path:
    """people, plus Dana (my manager) as obj-d and 小林 renamed with a note in brackets."""
    put(
        delta(subject="obj-d", value="Dana (my manager)"),
        delta(subject="obj-d", field="job", value="engineering manager"),
        delta(subject="obj-a", value="小林（读书会认识的设计师）"),
    )
    return people


DANA = [{"subject_id": "obj-d", "display_label": "Dana (my manager)"}]
XIAOLIN = [{"subject_id": "obj-a", "display_label": "小林（读书会认识的设计师）"}]


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("Dana", DANA),
        ("dana", DANA),
        ("ＤＡＮＡ", DANA),
        ("dana(my manager)", DANA),
        ("DANA (MY MANAGER)", DANA),
        ("小林", XIAOLIN),
        ("小 林", XIAOLIN),
        ("OBJ-D", DANA),
    ],
)
def test_a_loose_name_is_not_found_with_did_you_mean_everywhere(
    labelled: Path, given: str, meant: list[dict[str, Any]]
) -> None:
    before = ok("show")
    for args in (
        ["context", "--subject-id", given],
        ["context", "--subject-id", given, "--query", "她做什么工作"],
        ["show", "--subject-id", given],
        ["search", "--query", "manager", "--subject-id", given],
        ["tidy", "--subject-id", given],
        ["forget-object", given, "--confirm"],
    ):
        error = fails("SUBJECT_NOT_FOUND", *args).error
        assert error["details"]["did_you_mean"] == meant, args
        assert meant[0]["subject_id"] in error["message"]
    assert ok("show") == before


def test_exact_labels_and_codes_keep_resolving(labelled: Path) -> None:
    assert ok("context", "--subject-id", "Dana (my manager)")["subject_id"] == "obj-d"
    assert ok("show", "--subject-id", "小林（读书会认识的设计师）")["subject_id"] == "obj-a"
    assert ok("context", "--subject-id", "obj-d")["subject_known"] is True
    unknown = ok("context", "--subject-id", "Zed")  # no label is near: unknown, as before
    assert unknown["subject_known"] is False


def test_apply_refuses_a_name_taken_for_a_code(labelled: Path) -> None:
    before = ok("show")
    body = delta(subject="Dana", field="job", value="director")
    error = fails("SUBJECT_NOT_FOUND", "apply", "--json", json.dumps(body)).error
    assert error["details"]["did_you_mean"] == DANA and error["details"]["index"] == 0
    error = fails("SUBJECT_NOT_FOUND", "apply", "--dry-run", "--json", json.dumps(body)).error
    assert error["details"]["did_you_mean"] == DANA
    assert ok("show") == before
    # A second Dana on purpose: the batch names her, so she is a new person.
    # She is written, with a similar_label warning naming the Dana already known.
    made = put(delta(subject="dana", value="Dana (from climbing)"), body | {"subject_id": "dana"})
    label, job = made["results"]
    assert [w["code"] for w in label["warnings"]] == ["similar_label"]
    assert label["warnings"][0]["subjects"] == DANA and "warnings" not in job


def test_a_new_subject_without_a_label_is_applied_with_a_warning(labelled: Path) -> None:
    made = put(
        delta(subject="obj-x", field="job", value="teacher"),
        delta(subject="obj-x", field="city", value="Hangzhou"),
    )
    first, second = made["results"]
    assert [w["code"] for w in first["warnings"]] == ["unlabelled_subject"]
    assert "display_label" in first["warnings"][0]["message"] and "warnings" not in second
    again = put(delta(subject="obj-x", field="hobby", value="climbing"))  # no longer new
    assert "warnings" not in again["results"][0]
    assert [
        f["subject_id"] for f in ok("tidy")["findings"] if f["kind"] == "unlabelled_subject"
    ] == ["obj-x"]


@pytest.mark.anyio
async def test_mcp_tools_answer_a_loose_name_with_did_you_mean(labelled: Path, store: Any) -> None:
    body = delta(subject="Dana", field="job", value="director")
    async with Client(build_server(store)) as client:
        context = refused(
            await call(client, "memory_context", subject_id="Dana"), "SUBJECT_NOT_FOUND"
        )
        applied = refused(await call(client, "memory_apply", delta=body), "SUBJECT_NOT_FOUND")
        shown = refused(await call(client, "memory_show", subject_id="小林"), "SUBJECT_NOT_FOUND")
        forget = refused(
            await call(client, "memory_forget_object", subject_id="dana"), "SUBJECT_NOT_FOUND"
        )
        assert forget["details"]["did_you_mean"] == DANA
    assert context["details"]["did_you_mean"] == applied["details"]["did_you_mean"] == DANA
    assert shown["details"]["did_you_mean"] == XIAOLIN
