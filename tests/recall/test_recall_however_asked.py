"""A time named however it is asked (documentation/time.md, "However it is asked"), through
the real command line (a subprocess), in English and in Chinese, with no time cue word:

- by an event ("the weekend we drove to Reno", "国庆我们去大理那一趟");
- by another value's period ("in the months Rosa lived in Leeds", "小周住在深圳那阵子");
- by an order word ("earliest", "最开始"): the first value of the asked field first;
- by the user's own life ("the month I got promoted", "我辞职去出版社那个月");
- between two events ("between the jazz festival and the Reno wedding", "分手到复合中间");
- and a question that names no time keeps the order of documentation/time.md#recall, ``data.as_of`` null.

Every answer is checked against ``show`` (``support.timekit.assert_marked``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import delta, ok, put
from support.timekit import assert_marked, schema_errors, values

EN = "obj-ro"
ZH = "obj-xz"


def ask(subject: str, query: str, budget: str = "1000") -> dict[str, Any]:
    data = ok(
        "context", "--subject-id", subject, "--max-chars", budget, f"--query={query}", spawn=True
    )
    assert schema_errors("context.data.schema.json", data) == []
    return assert_marked(data)


def story(subject: str, label: str, facts: dict[str, list[tuple[str, str]]]) -> None:
    """A person's label, then each field's values in the order they became true (the
    ``stage`` field as a relationship row, ``user_*`` fields as the user's own), then
    events (``event_*``: one value, its day)."""
    put(delta(subject=subject, value=label))
    steps = sorted((day, field, value) for field, told in facts.items() for value, day in told)
    for day, field, value in steps:
        if field.startswith("event_"):
            put(delta("event", subject=subject, field=field[6:], value=value, occurred_at=day))
        elif field.startswith("user_"):
            put(delta("user", field=field[5:], value=value, occurred_at=day))
        else:
            scope = "relationship" if field == "stage" else "object"
            put(delta(scope, subject=subject, field=field, value=value, occurred_at=day))


@pytest.fixture
def rosa(enabled: Path) -> None:
    story(
        EN,
        "Rosa (from the pottery studio)",
        {
            "job": [
                ("Line cook at a diner", "2024-01-10"),
                ("Runs a food truck downtown", "2024-09-01"),
                ("Chef at a bistro in Portland", "2025-06-01"),
            ],
            "city": [
                ("Lives in Tacoma", "2024-01-10"),
                ("Moved to Leeds for a course", "2025-02-01"),
                ("Lives in Portland", "2025-08-01"),
            ],
            "hobby": [
                ("Plays volleyball on weekends", "2024-01-10"),
                ("Paints watercolors", "2025-03-01"),
            ],
            "stage": [
                ("Just met at the pottery studio", "2024-01-10"),
                ("Dating", "2024-04-05"),
                ("Together", "2024-10-01"),
            ],
            "event_trip": [("Drove to Reno for her cousin's wedding", "2024-11-15")],
            "event_outing": [("A night at the jazz festival", "2024-06-20")],
            "user_job": [
                ("Teacher at a middle school", "2023-09-01"),
                ("Promoted to vice principal", "2025-01-15"),
            ],
        },
    )


@pytest.fixture
def xiaozhou(enabled: Path) -> None:
    story(
        ZH,
        "小周（羽毛球认识的）",
        {
            "job": [
                ("在成都一家游戏公司做策划", "2024-02-01"),
                ("跳槽去深圳一家银行做柜员", "2024-10-01"),
                ("回成都开了一家花店", "2025-07-01"),
            ],
            "city": [
                ("住在成都高新区", "2024-02-01"),
                ("搬去深圳福田", "2024-10-01"),
                ("搬回成都玉林", "2025-07-01"),
            ],
            "hobby": [
                ("周末打羽毛球", "2024-02-01"),
                ("迷上了冲浪", "2024-11-01"),
                ("在学做陶艺", "2025-08-01"),
            ],
            "stage": [
                ("羽毛球馆认识，刚加微信", "2024-02-01"),
                ("暧昧", "2024-03-20"),
                ("正式在一起", "2024-05-20"),
            ],
            "event_trip": [("国庆一起去大理玩了五天", "2024-10-02")],
            "event_breakup": [("分手：电话里大吵一架", "2024-12-01")],
            "event_reconcile": [("复合：他飞回成都找我", "2025-03-01")],
            "user_job": [
                ("在小学教语文", "2023-09-01"),
                ("辞职去出版社做编辑", "2025-02-01"),
            ],
        },
    )


def _row(data: dict[str, Any], value: str) -> dict[str, Any]:
    return next(m for m in data["memories"] if m["value"] == value)


def test_an_event_names_the_time_in_english(rosa: None) -> None:
    data = ask(
        EN, "The weekend we drove to Reno for her cousin's wedding, what was Rosa doing for work?"
    )
    assert values(data)[1] == "Runs a food truck downtown"
    trip = _row(data, "Drove to Reno for her cousin's wedding")
    assert data["as_of"] == {"date": "2024-11-15", "id": trip["id"]}


def test_an_event_names_the_time_in_chinese(xiaozhou: None) -> None:
    data = ask(ZH, "国庆我们去大理那一趟，小周在哪上班？")
    assert values(data)[1] == "跳槽去深圳一家银行做柜员"
    assert data["as_of"]["date"] == "2024-10-02"


def test_another_values_period_in_english(rosa: None) -> None:
    data = ask(EN, "In the months Rosa lived in Leeds, what was her job?")
    # Leeds: 2025-02-01 to 2025-08-01; the food truck held four months of it, the bistro two
    assert values(data)[1] == "Runs a food truck downtown"
    assert data["as_of"]["from"] == "2025-02-01" and data["as_of"]["until"] == "2025-08-01"


def test_another_values_period_in_chinese(xiaozhou: None) -> None:
    data = ask(ZH, "小周住在深圳福田那阵子，有什么爱好？")
    assert values(data)[1] == "迷上了冲浪"
    assert (data["as_of"]["from"], data["as_of"]["until"]) == ("2024-10-01", "2025-07-01")


def test_a_period_named_by_the_only_concept_asked_in_english(rosa: None) -> None:
    # "lived" names the time, not the question: what she did is found by "weekends"
    data = ask(EN, "In the months Rosa lived in Tacoma, what did she do on weekends?")
    assert values(data)[1] == "Plays volleyball on weekends"
    assert (data["as_of"]["from"], data["as_of"]["until"]) == ("2024-01-10", "2025-02-01")


def test_a_period_named_by_the_only_concept_asked_in_chinese(xiaozhou: None) -> None:
    data = ask(ZH, "小周住在深圳福田那阵子，周末常干什么？")
    assert values(data)[1] == "迷上了冲浪"  # it held the most of that time
    assert (data["as_of"]["from"], data["as_of"]["until"]) == ("2024-10-01", "2025-07-01")


def test_an_order_word_puts_the_earliest_value_first_in_english(rosa: None) -> None:
    assert values(ask(EN, "What was Rosa's earliest job?"))[1] == "Line cook at a diner"


def test_an_order_word_puts_the_earliest_value_first_in_chinese(xiaozhou: None) -> None:
    assert values(ask(ZH, "我们最开始是什么关系？"))[1] == "羽毛球馆认识，刚加微信"
    assert values(ask(ZH, "小周最早在哪家公司上班？"))[1] == "在成都一家游戏公司做策划"


def test_the_users_own_life_names_the_time_in_english(rosa: None) -> None:
    data = ask(EN, "The month I got promoted to vice principal, where was Rosa living?")
    assert values(data)[1] == "Lives in Tacoma"
    assert data["as_of"]["date"] == "2025-01-15"  # the start of the user's new job


def test_the_users_own_life_names_the_time_in_chinese(xiaozhou: None) -> None:
    data = ask(ZH, "我辞职去出版社做编辑的那个月，小周住在哪？")
    assert values(data)[1] == "搬去深圳福田"
    assert data["as_of"]["date"] == "2025-02-01"


def test_two_events_bound_a_period_in_english(rosa: None) -> None:
    data = ask(EN, "Between the jazz festival and the Reno wedding, what was Rosa's hobby?")
    assert values(data)[1] == "Plays volleyball on weekends"
    assert (data["as_of"]["from"], data["as_of"]["until"]) == ("2024-06-20", "2024-11-15")


def test_two_events_bound_a_period_in_chinese(xiaozhou: None) -> None:
    data = ask(ZH, "分手到复合中间那几个月，小周有什么爱好？")
    assert values(data)[1] == "迷上了冲浪"
    assert (data["as_of"]["from"], data["as_of"]["until"]) == ("2024-12-01", "2025-03-01")


@pytest.mark.parametrize(
    ("who", "question", "now"),
    [
        ("rosa", "What does Rosa do?", "Chef at a bistro in Portland"),
        ("xiaozhou", "小周在哪上班？", "回成都开了一家花店"),
    ],
)
def test_a_question_naming_no_time_keeps_the_current_value_first(
    request: pytest.FixtureRequest, who: str, question: str, now: str
) -> None:
    request.getfixturevalue(who)
    subject = EN if who == "rosa" else ZH
    data = ask(subject, question)
    assert data["as_of"] is None
    found = values(data)
    assert now in found[:3]
    assert all(m["value"] != now or "until" not in m for m in data["memories"])


def test_search_finds_the_time_too(rosa: None) -> None:
    data = ok(
        "search",
        "--query",
        "The weekend we drove to Reno for her cousin's wedding, what was Rosa's job?",
        spawn=True,
    )
    assert schema_errors("search.data.schema.json", data) == []
    assert data["as_of"]["date"] == "2024-11-15"
    assert values(assert_marked(data))[0] == "Runs a food truck downtown"


def test_the_persons_own_name_is_no_topic(enabled: Path) -> None:
    # Every row is Theo's: those that merely mention him must not crowd out the one asked for.
    story(
        "obj-th",
        "Theo (matched on Hinge)",
        {
            "job": [
                ("Account manager at a software company", "2024-03-01"),
                ("Product manager at a climate startup", "2025-06-01"),
            ],
            "city": [("Lives in Somerville with two roommates", "2024-03-01")],
            **{
                f"event_outing{i}": [(f"Theo and I {what}, a long and lovely evening", day)]
                for i, (what, day) in enumerate(
                    [
                        ("went to a jazz bar in Cambridge", "2024-04-01"),
                        ("cooked dumplings at his place", "2024-05-01"),
                        ("walked along the Charles at night", "2024-06-01"),
                        ("saw a play at the Huntington", "2024-07-01"),
                        ("went apple picking in Stow", "2024-09-01"),
                        ("threw a surprise party for my birthday", "2024-12-01"),
                    ]
                )
            },
        },
    )
    data = ask("obj-th", "What does Theo do?")
    assert "Product manager at a climate startup" in values(data)[:3]


def test_a_leisure_verb_asks_for_the_hobby_in_chinese(xiaozhou: None) -> None:
    # 爱玩 names no field and no hobby value shares a word with the question: the alias
    # table's hobby heads take the leisure verbs (references/recall-aliases.md)
    data = ask(ZH, "小周刚去深圳银行做柜员的时候，平时爱玩什么？")
    assert values(data)[1] == "周末打羽毛球"  # 冲浪 began a month later
    assert data["as_of"]["date"] == "2024-10-01"


def test_a_leisure_phrase_asks_for_the_hobby_in_english(rosa: None) -> None:
    data = ask(EN, "The week Rosa started the food truck, what did she do in her spare time?")
    assert values(data)[1] == "Plays volleyball on weekends"
    assert data["as_of"]["date"] == "2024-09-01"


def test_a_goal_names_no_time(enabled: Path) -> None:
    # "Wants to meet someone" is a wish: its dates say when it was told, not when anything
    # happened, so it does not rival the first meeting as the question's time.
    story(
        "obj-na",
        "Nadia (salsa class)",
        {
            "job": [("Pastry cook at a bakery", "2025-01-19")],
            "event_first_meeting": [("Met Nadia at a salsa class, partnered", "2025-01-18")],
            "user_job": [
                ("Civil engineer at a transport firm", "2025-01-19"),
                ("Promoted to project engineer", "2025-09-15"),
                ("Bridge engineer in Seattle", "2026-06-01"),
            ],
            "user_goal": [
                ("Wants to meet someone outside of work and dating apps", "2025-01-19"),
                ("Wants to live in the same city as Nadia", "2026-03-15"),
            ],
        },
    )
    data = ask("obj-na", "Where was I working when Nadia and I met?")
    assert data["as_of"]["date"] == "2025-01-18"
    assert values(data).index("Civil engineer at a transport firm") < 3  # hers, mine then
