"""Memory as of a time (documentation/time.md#as-of-a-time-anchors-and---as-of), through the real command line (a subprocess).

- a question that names a time by an event ("when we met", "刚认识那会儿") or by a
  value's period ("back in Chicago", "在武汉那会儿") gets the values true then first,
  the asked field first, and ``data.as_of`` naming the anchor;
- ``--as-of DATE`` ranks the values true that day first, past and current;
  a bad date is ``INVALID_ARGUMENTS``;
- a past question finds its field first; without an anchor the order (documentation/time.md#recall) is unchanged.

Every answer is checked against ``show`` (``support.timekit.assert_marked``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import delta, fails, ok, put
from support.timekit import assert_marked, schema_errors, values

EN = "obj-el"
ZH = "obj-xm"


def _rows(subject: str, *deltas: dict[str, Any]) -> None:
    put(*({**d, "subject_id": subject} if d["scope"] != "user" else d for d in deltas))


def ask(subject: str, query: str, *extra: str, budget: str = "1000") -> dict[str, Any]:
    data = ok(
        "context",
        "--subject-id",
        subject,
        "--max-chars",
        budget,
        f"--query={query}",
        *extra,
        spawn=True,
    )
    assert schema_errors("context.data.schema.json", data) == []
    return assert_marked(data)


@pytest.fixture
def elena(enabled: Path) -> None:
    """Elena: a job in Chicago, then one in Denver; a home in Chicago, then Denver; the
    user's job changed too; a pinned first meeting and an ordinary trip."""
    ev = {"scope": "event", "subject_id": EN, "source_type": "user_report"}
    _rows(EN, delta(field="display_label", value="Elena (from the climbing gym)"))
    _rows(EN, delta(field="job", value="Nurse at a hospital downtown", occurred_at="2024-01-10"))
    _rows(EN, delta(field="city", value="Lives in Chicago, Wicker Park", occurred_at="2024-01-10"))
    put(
        {**ev, "field": "first_meeting", "value": "Met Elena at the bouldering wall",
         "occurred_at": "2024-03-02", "pinned": True},
    )  # fmt: skip
    put({**ev, "field": "trip", "value": "Weekend trip to Milwaukee", "occurred_at": "2024-06-01"})
    put(delta("user", field="job", value="Barista at a corner café", occurred_at="2023-05-01"))
    _rows(
        EN, delta(field="job", value="Nurse manager at a Denver clinic", occurred_at="2025-02-01")
    )
    _rows(EN, delta(field="city", value="Moved to Denver, Capitol Hill", occurred_at="2025-01-20"))
    put(delta("user", field="job", value="Shift lead at a roastery", occurred_at="2025-03-01"))
    put({**ev, "field": "move_in", "value": "We moved in together", "occurred_at": "2025-01-20"})


@pytest.fixture
def xiaomin(enabled: Path) -> None:
    """小敏: 在武汉做老师, 后来去深圳做设计; 住武汉, 后来住深圳; 一次置顶的重逢。"""
    ev = {"scope": "event", "subject_id": ZH, "source_type": "user_report"}
    _rows(ZH, delta(field="display_label", value="小敏（高中同学）"))
    _rows(ZH, delta(field="job", value="在武汉一所中学当语文老师", occurred_at="2024-02-01"))
    _rows(ZH, delta(field="city", value="住在武汉光谷", occurred_at="2024-02-01"))
    put(
        {**ev, "field": "reunion", "value": "重逢：在同学聚会上和小敏坐同一桌",
         "occurred_at": "2024-04-06", "pinned": True},
    )  # fmt: skip
    _rows(ZH, delta(field="job", value="跳槽去深圳做平面设计", occurred_at="2025-03-01"))
    _rows(ZH, delta(field="city", value="搬到深圳南山", occurred_at="2025-03-01"))


def test_an_event_names_the_time_in_english(elena: None) -> None:
    data = ask(EN, "What did Elena do for work at the time we met at the bouldering wall?")
    assert values(data)[:2] == ["Elena (from the climbing gym)", "Nurse at a hospital downtown"]
    first_meeting = next(m for m in data["memories"] if m["field"] == "first_meeting")
    assert data["as_of"] == {"date": "2024-03-02", "id": first_meeting["id"]}


def test_a_value_names_a_period_in_english(elena: None) -> None:
    data = ask(EN, "What did Elena do for a living back in Chicago?")
    assert values(data)[1] == "Nurse at a hospital downtown"
    city = next(m for m in data["memories"] if m["value"] == "Lives in Chicago, Wicker Park")
    assert data["as_of"] == {
        "from": "2024-01-10",
        "until": "2025-01-20",
        "id": city["id"],
        "past_id": city["past_id"],
    }
    assert city["until"] == "2025-01-20"


def test_right_before_an_event_is_the_value_that_ended_that_day(elena: None) -> None:
    data = ask(EN, "Where did Elena live right before we moved in together?")
    assert data["as_of"]["date"] == "2025-01-20"
    assert "Lives in Chicago, Wicker Park" in values(data)[1:3]


def test_the_user_asked_about_gets_the_users_value_first(elena: None) -> None:
    data = ask(EN, "Where did I work back in Chicago?")
    assert values(data)[1] == "Barista at a corner café"  # the user's job then, not Elena's


def test_an_event_names_the_time_in_chinese(xiaomin: None) -> None:
    data = ask(ZH, "我们在同学聚会上重逢那会儿，小敏在做什么工作？")
    assert values(data)[1] == "在武汉一所中学当语文老师"
    reunion = next(m for m in data["memories"] if m["field"] == "reunion")
    assert data["as_of"] == {"date": "2024-04-06", "id": reunion["id"]}


def test_a_value_names_a_period_in_chinese(xiaomin: None) -> None:
    data = ask(ZH, "小敏住在武汉那会儿做什么工作？")
    assert values(data)[1] == "在武汉一所中学当语文老师"
    assert data["as_of"]["from"] == "2024-02-01" and data["as_of"]["until"] == "2025-03-01"


def test_as_of_ranks_the_values_true_that_day_first(elena: None) -> None:
    # 1,000 characters: the label and three rows, two of them past values with past_id
    data = ok("context", "--subject-id", EN, "--as-of", "2024-07-01", "--max-chars", "1000",
              spawn=True)  # fmt: skip
    assert data["as_of"] == {"date": "2024-07-01"}
    assert schema_errors("context.data.schema.json", data) == []
    then = assert_marked(data)["memories"][1:4]
    assert {m["value"] for m in then} == {
        "Nurse at a hospital downtown",
        "Lives in Chicago, Wicker Park",
        "Barista at a corner café",
    }
    for m in then:
        assert m["since"] <= "2024-07-01" < m.get("until", "9999")


def test_as_of_in_search(elena: None) -> None:
    data = ok("search", "--query", "Elena job", "--as-of", "2025-06-01", spawn=True)
    assert schema_errors("search.data.schema.json", data) == []
    assert data["as_of"] == {"date": "2025-06-01"}
    assert values(assert_marked(data))[0] == "Nurse manager at a Denver clinic"


@pytest.mark.parametrize("bad", ["2026-13-01", "2026-02-30", "yesterday", "2026-8-2", ""])
def test_a_bad_date_is_invalid_arguments(elena: None, bad: str) -> None:
    for command in (["context", "--subject-id", EN], ["search", "--query", "job"]):
        result = fails("INVALID_ARGUMENTS", *command, f"--as-of={bad}", spawn=True)
        assert "YYYY-MM-DD" in result.error["message"]


def test_a_past_question_finds_its_field_first(xiaomin: None) -> None:
    data = ask(ZH, "她以前在哪工作？")
    assert set(values(data)[1:3]) == {"跳槽去深圳做平面设计", "在武汉一所中学当语文老师"}
    assert data["as_of"] is None


def test_without_an_anchor_the_order_of_section_20_is_unchanged(elena: None) -> None:
    data = ask(EN, "What is Elena's job?")
    assert data["as_of"] is None
    # documentation/time.md#recall: the current value the question matches, and after it its past value
    found = values(data)
    assert found.index("Nurse manager at a Denver clinic") < found.index(
        "Nurse at a hospital downtown"
    )
    plain = ok("context", "--subject-id", EN, spawn=True)
    assert "as_of" not in plain  # without --query and --as-of: release 1's answer, unchanged
