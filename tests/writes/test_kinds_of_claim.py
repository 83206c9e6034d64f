"""A goal is not a fact (documentation/time.md, "Same concept, two rows"): a field's leading
kind word (``goal_``, ``planned_``, ``wish_``, ``hope_``, ``want_``, ``preference_``,
``past_``…) is part of its concept. Through the real CLI: ``related`` on apply and
``tidy``'s findings and proposal follow it, and tidy never proposes ending a current fact
because of a goal, plan, wish or preference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import delta, ok, put

from memory_store import policy
from memory_store.storage import rows


def same_concept_findings() -> list[dict[str, Any]]:
    return [f for f in ok("tidy")["findings"] if f["kind"] == "same_concept"]


KINDED = [
    "goal_work",
    "goal_job",
    "planned_job",
    "wish_job",
    "hope_career",
    "want_job",
    "preference_work",
    "past_job",
    "former_employer",
    "dream_job",
    "next_job",
]


@pytest.mark.parametrize("other", KINDED)
def test_a_kind_of_claim_about_work_is_not_the_job(enabled: Path, other: str) -> None:
    put(delta(field="fact_job", value="Started a new job at Acme", occurred_at="2026-03-01"))
    result = put(delta(field=other, value="wants to lead a team", occurred_at="2026-04-01"))
    assert "related" not in result["results"][0]
    assert same_concept_findings() == []
    assert ok("tidy")["proposal"] is None


def test_the_release_4_story_tidy_leaves_the_new_job_current(enabled: Path) -> None:
    # A person's own profile: a new job, then a goal about work, as the skill names it.
    job = put(
        delta(
            "user",
            field="job",
            value="Started a new job at Acme",
            occurred_at="2026-03-01",
        )
    )
    goal = put(
        delta(
            "user",
            field="goal_work",
            value="become a team lead within two years",
            occurred_at="2026-05-01",
        )
    )
    assert "related" not in goal["results"][0]
    data = ok("tidy")
    assert data["proposal"] is None and data["steps"] == []
    shown = {m["field"]: m for m in ok("show", "--subject-id", "user")["memories"]}
    assert shown["job"]["id"] == job["results"][0]["memory"]["id"]
    assert shown["job"]["ended"] is False


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("goal_work", "goal_career"),
        ("preference_city", "preferred_location"),
        ("wish_job", "hope_work"),
    ],
)
def test_two_claims_of_one_kind_and_topic_are_one_concept(
    enabled: Path, first: str, second: str
) -> None:
    old = put(delta(field=first, value="旧的", occurred_at="2026-01-01"))["results"][0]["memory"]
    result = put(delta(field=second, value="新的", occurred_at="2026-02-01"))["results"][0]
    assert [r["id"] for r in result.get("related", [])] == [old["id"]]
    [finding] = same_concept_findings()
    assert set(finding["ids"]) == {old["id"], result["memory"]["id"]}
    assert ok("tidy")["proposal"]["deltas"] == [
        {"action": "end", "id": old["id"], "occurred_at": "2026-02-01"}
    ]


def test_two_past_values_of_a_topic_are_listed_but_never_proposed_to_end(enabled: Path) -> None:
    put(delta(field="past_job", value="在上海做设计", occurred_at="2024-01-01"))
    put(delta(field="former_employer", value="一家广告公司", occurred_at="2025-01-01"))
    [finding] = same_concept_findings()
    assert "past job" in finding["message"]
    assert ok("tidy")["proposal"] is None


def test_a_fact_and_a_current_are_still_one_concept(enabled: Path) -> None:
    # The kind words take nothing from the head-word rule: fact_ and current_ are facts.
    old = put(delta(field="fact_job", value="设计师"))["results"][0]["memory"]
    result = put(delta(field="current_job", value="老师"))["results"][0]
    assert [r["id"] for r in result.get("related", [])] == [old["id"]]
    proposal = ok("tidy")["proposal"]
    assert proposal is not None and proposal["deltas"][0]["id"] == old["id"]
    applied = ok("apply", "--json", json.dumps(proposal))
    assert [r["action"] for r in applied["results"]] == ["ended"]


def test_every_kind_the_naming_rules_use_is_a_kind() -> None:
    for word in ("goal", "planned", "wish", "hope", "want", "preference", "past", "agreement"):
        assert rows.kind_of(f"{word}_work"), word
    for fact in ("fact_job", "current_job", "job", "goal", "lives_in"):
        assert rows.kind_of(fact) == "", fact
    assert set(policy.FIELD_KINDS) >= {"goal", "plan", "wish", "preference", "past"}
