"""Same concept, two rows (documentation/time.md#same-concept-two-rows-related): which field names hold one concept.

Through the real CLI: an upsert that creates a second current row of a concept lists
the first under ``related``; rows of different concepts list nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import delta, put


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("job", "occupation"),
        ("job", "work"),
        ("fact_job", "current_jobs"),
        ("city", "lives_in"),
        ("city", "location"),
        ("city", "current_city"),
        ("school", "university"),
    ],
)
def test_fields_of_one_concept_are_related(enabled: Path, first: str, second: str) -> None:
    old = put(delta(field=first, value="旧的"))["results"][0]["memory"]
    result = put(delta(field=second, value="新的"))["results"][0]
    assert [r["id"] for r in result.get("related", [])] == [old["id"]]


@pytest.mark.parametrize(
    ("first", "second"), [("city", "hometown"), ("job", "hobby"), ("mbti", "display_label")]
)
def test_fields_of_other_concepts_are_not(enabled: Path, first: str, second: str) -> None:
    put(delta(field=first, value="一"))
    assert "related" not in put(delta(field=second, value="二"))["results"][0]


def test_the_scopes_and_subjects_stay_apart(enabled: Path) -> None:
    put(delta(field="job", value="设计师"))
    assert (
        "related" not in put(delta(subject="obj-b", field="occupation", value="老师"))["results"][0]
    )
    assert "related" not in put(delta("user", field="occupation", value="工程师"))["results"][0]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("fact_job", "fact_work_schedule"),
        ("job", "work_stress"),
        ("hobby_climbing", "hobby_reading"),
        ("city", "city_council_meeting"),
    ],
)
def test_a_word_inside_a_field_is_not_its_concept(enabled: Path, first: str, second: str) -> None:
    # documentation/time.md#same-concept-two-rows-related: the head word names the concept, not any word in the name.
    put(delta(field=first, value="一"))
    assert "related" not in put(delta(field=second, value="二"))["results"][0]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("job", "fact_job"),
        ("current_job", "occupation"),
        ("job_title", "job"),
        ("city", "city_of_residence"),
    ],
)
def test_the_head_word_names_the_concept(enabled: Path, first: str, second: str) -> None:
    old = put(delta(field=first, value="旧的"))["results"][0]["memory"]
    result = put(delta(field=second, value="新的"))["results"][0]
    assert [r["id"] for r in result.get("related", [])] == [old["id"]]
