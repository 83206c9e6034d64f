"""The page's words (``review/words.py``): field names a person reads, dates in words, and
which language to speak (documentation/page.md, documentation/review.md)."""

from __future__ import annotations

import pytest

from memory_store.review.words import (
    day,
    field_name,
    from_accept_language,
    from_locale,
    month,
    since,
    speaking,
    until,
)


@pytest.mark.parametrize(
    ("field", "en", "zh"),
    [
        ("display_label", "name", "名字"),
        ("job", "job", "工作"),
        ("fact_job", "job", "工作"),
        ("goal_work", "goal: work", "目标：工作"),
        ("goal_next_goal", "goal: next goal", "目标：下一步"),
        ("shared_project", "shared project", "一起做的事"),
        ("favourite_snack", "favourite snack", "favourite snack"),
        ("likes.coffee", "likes: coffee", "喜欢：coffee"),
        ("mbti", "MBTI", "MBTI"),
        ("", "", ""),
    ],
)
def test_field_names_read_as_words(field: str, en: str, zh: str) -> None:
    assert field_name(field, "en") == en
    assert field_name(field, "zh") == zh


def test_dates_in_words() -> None:
    assert since("2025-03-10", "en") == "since March 2025"
    assert since("2025-03-10", "zh") == "2025年3月起"
    assert until("2024-09", "en") == "until September 2024"
    assert until("2024-09-30", "zh") == "到2024年9月为止"
    assert day("2026-05-03", "en") == "3 May 2026" and day("2026-05-03", "zh") == "2026年5月3日"
    assert month("2025", "en") == "2025" and month("2025", "zh") == "2025年"
    # Anything else is shown as stored (escaped by the page).
    assert month("<b>soon</b>", "en") == "<b>soon</b>" and month("2025-13-01", "en") == "2025-13-01"
    assert day(None, "en") == ""


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("en-US,en;q=0.9,zh-CN;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,zh-TW;q=0.5,en;q=0.4", "zh"),
        ("en;q=0.2, zh;q=0.7", "zh"),
        ("zh;q=0, en;q=0.1", "en"),
        ("fr, de", None),
        ("", None),
        (None, None),
        ("zh;q=bad", None),
    ],
)
def test_the_language_a_browser_asks_for(header: str | None, lang: str | None) -> None:
    assert from_accept_language(header) == lang


def test_the_language_of_the_locale() -> None:
    assert from_locale({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert from_locale({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}) == "en"  # LC_ALL wins
    assert from_locale({"LC_MESSAGES": "zh_TW", "LANG": "en_US.UTF-8"}) == "zh"
    assert from_locale({"LANG": "C.UTF-8"}) == "en" and from_locale({}) == "en"


def test_the_served_pages_language_the_switch_then_the_browser() -> None:
    assert speaking("zh", None, "en-US") == "zh"  # the person's switch
    assert speaking("<b>", "zh", "en-US") == "zh"  # not a language: the kept choice stays
    assert speaking(None, None, "zh-CN,zh;q=0.9") == "zh"  # else the browser
    assert speaking(None, None, "fr-FR") is None and speaking("", None, None) is None
