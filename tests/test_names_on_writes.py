"""Names are offered, never guessed, on writes too (documentation/library.md, subjects).

``apply`` with a ``subject_id`` that is no code (a name in Chinese, with a space, in
full width) but a known label, exactly or loosely, is refused ``SUBJECT_NOT_FOUND`` with
``details.did_you_mean`` — never a bare ``INVALID_DELTA``; a new ``display_label`` whose
leading name is another subject's is written with a ``similar_label`` warning naming
that subject, and ``tidy`` lists such pairs. Through the real CLI, the library and the
MCP SDK's own client against the real server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import apply, call, data_of, delta, fails, ok, put, refused

from memory_store import MemoryStore, MemoryStoreError
from memory_store.mcp import build_server

XIAOLIN = [{"subject_id": "obj-a", "display_label": "小林（读书会认识的设计师）"}]
BEA = [{"subject_id": "obj-e", "display_label": "Bea Li"}]


@pytest.fixture
def named(people: Path) -> Path:
    """people (小林 as obj-a, 老王 as obj-b), 小林 with a note in brackets, and Bea Li."""
    put(
        delta(subject="obj-a", value="小林（读书会认识的设计师）"),
        delta(subject="obj-e", value="Bea Li"),
    )
    return people


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("小林", XIAOLIN),
        ("小林（读书会认识的设计师）", XIAOLIN),
        ("Ｂｅａ Ｌｉ", BEA),
        ("bea li", BEA),
        ("Bea Li", BEA),
    ],
)
def test_apply_to_a_name_offers_the_person(named: Path, given: str, meant: Any) -> None:
    before = ok("show")
    for args in (["apply"], ["apply", "--dry-run"]):
        body = delta(subject=given, field="job", value="设计师")
        error = fails("SUBJECT_NOT_FOUND", *args, "--json", json.dumps(body)).error
        assert error["details"]["did_you_mean"] == meant
        assert error["details"]["index"] == 0
        assert meant[0]["subject_id"] in error["message"]
    # In a batch, the delta that names the person is the one pointed at.
    batch = {"deltas": [delta(subject="obj-b", field="job", value="老师"), body]}
    error = fails("SUBJECT_NOT_FOUND", "apply", "--json", json.dumps(batch)).error
    assert error["details"]["index"] == 1 and error["details"]["did_you_mean"] == meant
    assert ok("show") == before


def test_a_name_no_one_has_stays_an_invalid_code(named: Path) -> None:
    body = delta(subject="张 三", field="job", value="x")
    error = fails("INVALID_DELTA", "apply", "--json", json.dumps(body)).error
    assert error["details"]["path"] == "$.subject_id"
    assert "display_label" in error["message"]


def test_the_library_offers_the_person(named: Path) -> None:
    store = MemoryStore(named)
    with pytest.raises(MemoryStoreError) as caught:
        store.apply(delta(subject="小林", field="job", value="设计师"))
    assert caught.value.code == "SUBJECT_NOT_FOUND"
    assert caught.value.details["did_you_mean"] == XIAOLIN
    # A body given as text and as a callable (read after the consent gate) alike.
    body = json.dumps(delta(subject="bea li", field="job", value="x"), ensure_ascii=False)
    for payload in (body, body.encode(), lambda: body):
        with pytest.raises(MemoryStoreError) as caught:
            store.apply(payload)
        assert caught.value.details["did_you_mean"] == BEA


def test_a_second_label_with_the_same_leading_name_is_written_with_a_warning(
    people: Path,
) -> None:
    put(delta(subject="obj-c", value="阿杰（读书会认识的男生）"))
    made = put(delta(subject="obj-d", value="阿杰"))
    [result] = made["results"]
    assert result["action"] == "created"
    [warning] = result["warnings"]
    assert warning["code"] == "similar_label"
    assert warning["subjects"] == [
        {"subject_id": "obj-c", "display_label": "阿杰（读书会认识的男生）"}
    ]
    assert "obj-c" in warning["message"]
    # tidy lists the pair; it proposes nothing (only the person knows).
    [finding] = [f for f in ok("tidy")["findings"] if f["kind"] == "similar_label"]
    assert finding["subject_id"] == "obj-c" and len(finding["ids"]) == 2
    assert ok("tidy")["proposal"] is None
    assert [f["kind"] for f in ok("tidy", "--subject-id", "obj-d")["findings"]] == ["similar_label"]
    # Renaming the second one apart ends the pair.
    renamed = put(delta(subject="obj-d", value="杰哥（健身房）"))
    assert "warnings" not in renamed["results"][0]
    assert [f for f in ok("tidy")["findings"] if f["kind"] == "similar_label"] == []


def test_labels_of_different_names_and_rewrites_are_not_warned(people: Path) -> None:
    put(delta(subject="obj-c", value="Dana (my manager)"))
    assert "warnings" not in put(delta(subject="obj-d", value="Danae"))["results"][0]
    assert "warnings" not in put(delta(subject="obj-c", value="Dana (my boss)"))["results"][0]
    # The same label written again changes nothing and says nothing.
    again = put(delta(subject="obj-c", value="Dana (my boss)"))["results"][0]
    assert again["action"] == "unchanged" and "warnings" not in again


def test_a_dry_run_warns_too(people: Path) -> None:
    put(delta(subject="obj-c", value="Sam, from the climbing gym"))
    r = ok("apply", "--dry-run", "--json", json.dumps(delta(subject="obj-d", value="sam")))
    assert [w["code"] for w in r["results"][0]["warnings"]] == ["similar_label"]


@pytest.mark.anyio
async def test_mcp_apply_offers_the_person_and_warns_of_a_similar_label(
    named: Path, store: Any
) -> None:
    async with Client(build_server(store)) as client:
        body = delta(subject="小林", field="job", value="设计师")
        payload = refused(await call(client, "memory_apply", delta=body), "SUBJECT_NOT_FOUND")
        assert payload["details"]["did_you_mean"] == XIAOLIN
        made = data_of(
            await call(client, "memory_apply", delta=delta(subject="obj-f", value="小林"))
        )
    [warning] = made["results"][0]["warnings"]
    assert warning["code"] == "similar_label" and warning["subjects"] == XIAOLIN


def test_two_of_one_name_in_one_batch_warn_at_the_second_dry_run_or_not(people: Path) -> None:
    batch = [
        delta(subject="obj-c", value="阿杰（读书会认识的男生）"),
        delta(subject="obj-d", value="阿杰"),
    ]
    for dry_run in (True, False):
        r = apply(*batch, dry_run=dry_run)
        assert r.error is None, r.stdout
        first, second = r.data["results"]
        assert "warnings" not in first
        assert [w["subjects"][0]["subject_id"] for w in second["warnings"]] == ["obj-c"]
