"""Recall (documentation/recall.md#what-context---query-returns): compact rows, the roster within the budget, and search.

The ranking itself and the ordering rules of ``context --query`` are tested in
test_relevance.py; this file covers the shapes and the search command.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from support import backdate, delta, fails, ok, put

from memory_store import MemoryStore


@pytest.fixture
def people(enabled: Path) -> Path:
    put(
        delta("user", field="diet", value="不吃辣 no spicy food"),
        delta(value="小林"),
        delta(field="hobby", value="周末喜欢去爬山 hiking on weekends"),
        delta("relationship", field="stage", value="刚开始约会", confidence="high"),
        delta("event", field="conflict", value="因为迟到吵了一架", occurred_at="2026-05-01"),
        delta(
            "hypothesis",
            field="attachment_style",
            value="可能是焦虑型",
            source_ref="turn:9 回复慢就着急",
        ),
        delta(subject="obj-b", value="Alex"),
        delta(subject="obj-b", field="hobby", value="loves hiking and climbing"),
        delta(subject="obj-b", field="job", value="designer at a studio", source="user_explicit"),
    )
    return enabled


def test_context_rows_are_compact(people: Path) -> None:
    memories = ok("context", "--subject-id", "obj-a")["memories"]
    by_field = {m["field"]: m for m in memories}
    assert by_field["display_label"] == {
        "id": by_field["display_label"]["id"],
        "scope": "object",
        "field": "display_label",
        "value": "小林",
        "source_type": "user_report",
    }
    assert by_field["diet"]["subject_id"] == "user" and "source_type" not in by_field["diet"]
    assert by_field["stage"]["confidence"] == "high"
    assert by_field["conflict"]["occurred_at"] == "2026-05-01"
    guess = by_field["attachment_style"]
    assert guess["confidence"] == "low" and guess["source_ref"] == "turn:9 回复慢就着急"
    for m in memories:
        assert "created_at" not in m and "updated_at" not in m
        assert "source_ref" not in m or m["scope"] == "hypothesis"


def test_without_a_subject_the_roster_counts_against_the_budget(enabled: Path) -> None:
    for start in (0, 20):
        put(*(delta(subject=f"p-{i:02d}", value=f"人{i}" * 20) for i in range(start, start + 20)))
    backdate(enabled, "2020-01-01T00:00:00Z", "WHERE subject_id = 'p-00'")
    full = ok("context", "--max-chars", "8000")
    assert full["truncated"] is False and len(full["roster"]) == 40
    data = ok("context", "--max-chars", "1000")
    size = len(json.dumps(data["memories"], ensure_ascii=False)) + len(
        json.dumps(data["roster"], ensure_ascii=False)
    )
    assert size <= 1000 and data["truncated"] is True
    assert data["omitted"] == 40 - len(data["roster"])
    kept = [e["subject_id"] for e in data["roster"]]
    assert "p-00" not in kept  # least recently updated goes first
    assert kept == [e["subject_id"] for e in full["roster"]][: len(kept)]


def test_search_finds_who_across_subjects(people: Path) -> None:
    data = ok("search", "--query", "who likes hiking?")
    subjects = [m["subject_id"] for m in data["memories"]]
    assert set(subjects) == {"obj-a", "obj-b"}
    assert data["count"] == len(data["memories"]) and data["truncated"] is False
    assert data["query"] == "who likes hiking?"
    for m in data["memories"]:
        assert {"id", "scope", "subject_id", "field", "value"} <= set(m)
        assert "created_at" not in m
    # Across languages, through the alias table: 设计师 ↔ designer.
    designer = ok("search", "--query", "那个设计师是谁")["memories"]
    assert designer and designer[0]["subject_id"] == "obj-b"


def test_search_filters_limit_and_budget(people: Path) -> None:
    only_b = ok("search", "--query", "hiking", "--subject-id", "obj-b")["memories"]
    assert {m["subject_id"] for m in only_b} == {"obj-b"}
    scoped = ok("search", "--query", "hiking 约会", "--scope", "relationship")["memories"]
    assert [m["field"] for m in scoped] == ["stage"]
    assert len(ok("search", "--query", "hiking", "--limit", "1")["memories"]) == 1
    put(
        *(
            delta(subject="obj-c", field=f"f{i}", value=f"hiking trip {i} " + "x" * 150)
            for i in range(12)
        )
    )
    tight = ok("search", "--query", "hiking", "--limit", "50", "--max-chars", "500")
    assert tight["truncated"] is True
    assert len(json.dumps(tight["memories"], ensure_ascii=False)) <= 500
    assert ok("search", "--query", "nothing like this at all, zebra")["memories"] == []


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        (["--query", ""], "empty"),
        (["--query", "   \t "], "empty"),
        (["--query", "x" * 501], "500"),
        (["--query", "bad\x07bell"], "control"),
        (["--query", "rtl\u202eoverride"], "bidi"),
        (["--query", "line\u2028break"], "separator"),
        (["--query", "ok", "--limit", "0"], "1 to 50"),
        (["--query", "ok", "--limit", "51"], "1 to 50"),
        (["--query", "ok", "--max-chars", "100"], "500 to 8000"),
        (["--query", "ok", "--scope", "everything"], "one of"),
        ([], "required"),
    ],
)
def test_search_bad_input_is_invalid_arguments(people: Path, args: list[str], rule: str) -> None:
    r = fails("INVALID_ARGUMENTS", "search", *args)
    assert rule in r.error["message"]


@pytest.mark.parametrize(
    "query", ["", "  ", "x" * 501, "a\x00b", "a\u2066b", "a\u2029b"], ids=range(6)
)
def test_context_bad_query_is_invalid_arguments(people: Path, query: str) -> None:
    fails("INVALID_ARGUMENTS", "context", "--subject-id", "obj-a", f"--query={query}")


def test_a_query_of_exactly_500_characters_is_accepted(people: Path) -> None:
    data = ok("context", "--subject-id", "obj-a", "--query", "  " + "爬" * 500 + "  ")
    assert data["query"] == "爬" * 500 and data["ranked_by"] == "relevance"


def test_the_library_refuses_a_lone_surrogate(people: Path) -> None:
    store = MemoryStore()
    for call in (lambda: store.search("bad\udcff"), lambda: store.context("obj-a", query="\ud800")):
        with pytest.raises(Exception) as excinfo:
            call()
        assert excinfo.value.code == "INVALID_ARGUMENTS"  # type: ignore[attr-defined]


def test_search_needs_consent_and_no_pause(people: Path) -> None:
    ok("pause")
    fails("MEMORY_PAUSED", "search", "--query", "hiking")
    ok("resume")
    ok("revoke", "--confirm")
    fails("CONSENT_REQUIRED", "search", "--query", "hiking")
    ok("revoke", "--delete", "--confirm")
    fails("NOT_INITIALIZED", "search", "--query", "hiking")


def test_reading_with_a_query_never_writes(people: Path) -> None:
    def digest() -> str:
        return hashlib.sha256((people / "memory.sqlite3").read_bytes()).hexdigest()

    ok("context", "--subject-id", "obj-a")  # settle the files
    before = digest()
    for _ in range(3):
        ok("context", "--subject-id", "obj-a", "--query", "吵架了吗")
        ok("search", "--query", "hiking")
        ok("context", "--query", "anything")
    assert digest() == before
    assert ok("log")["operations"][0]["summary"].startswith("user.diet")


def test_asked_about_a_person_their_rows_outrank_the_profile_for_the_same_words(
    enabled: Path,
) -> None:
    put(
        delta("user", field="food", value="喜欢吃火锅"),
        delta(value="小林"),
        delta(field="food", value="喜欢吃火锅"),
    )
    data = ok("context", "--subject-id", "obj-a", "--query", "吃火锅")
    assert [m.get("subject_id", "obj-a") for m in data["memories"][:3]] == [
        "obj-a",
        "obj-a",
        "user",
    ]


def test_a_word_in_nearly_every_row_does_not_decide_the_order(enabled: Path) -> None:
    """The person's name in nearly every row about them tells the rows apart too little:
    rows that share nothing else with the question keep the priority order."""
    put(delta(value="Caroline"))
    put(
        *(
            delta(
                "event",
                field=f"e{i}",
                value=f"Caroline did thing {i}",
                occurred_at=f"2026-01-{i + 10}",
            )
            for i in range(19)
        )
    )
    put(*(delta(field=f"fact{i}", value=f"Caroline fact {i}") for i in range(10)))
    put(delta(field="pet", value="Caroline has a cat named Luna"))
    data = ok(
        "context",
        "--subject-id",
        "obj-a",
        "--query",
        "Does Caroline have a cat?",
        "--max-chars",
        "8000",
    )
    fields = [m["field"] for m in data["memories"]]
    assert fields[:2] == ["display_label", "pet"]
    # then release 1's order: objects (newest first) before events, only 8 events
    assert all(f.startswith("fact") for f in fields[2:12])
    assert sum(1 for m in data["memories"] if m["scope"] == "event") == 8
