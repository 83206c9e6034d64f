"""The served page as a person would rather use it (documentation/page.md): plain words,
one language, a search, dense enough for a phone, controls that fit the row.

Real store (the CLI writes it), the real ``review --serve --no-open`` process, and
Playwright driving the system's Chromium; heights and widths are what Chromium lays out.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from support import delta, ok, put
from support.browser import build_dense_store, measure
from support.page import Served, chromium, login, request, serve

LOCALES = {"en": "en-US", "zh": "zh-CN"}
# At most this many screens tall (release 4's page: 16 at 390 px).
SCREENS = {(390, 844): 6, (1280, 900): 3}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def dense(enabled: Path) -> Iterator[Served]:
    assert build_dense_store() == 32
    page = serve()
    yield page
    page.stop()


def _open(browser: Any, served: Served, lang: str, width: int = 1280, height: int = 900) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, locale=LOCALES[lang])
    tab = context.new_page()
    tab.goto(served.address)
    return tab


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_32_memories_fit_in_a_few_screens_at_both_widths(
    browser: Any, dense: Served, lang: str
) -> None:
    tab = _open(browser, dense, lang)
    cookie = tab.context.cookies()
    try:
        for (width, height), most in SCREENS.items():
            tab.set_viewport_size({"width": width, "height": height})
            tab.goto(dense.url)
            size = measure(tab)
            assert size["screens"] <= most, (width, lang, size)
            assert size["scroll_width"] <= width, (width, lang, size)
            right = tab.evaluate(
                "Math.max(...[...document.querySelectorAll('body *')]"
                ".map(e => e.getBoundingClientRect().right))"
            )
            assert right <= width, (width, lang, right)
            # Every memory is on it (a value of each person's card, seen).
            text = tab.locator("main").inner_text()
            for value in ("小林", "Alex", "老王", "Mia", "不聊前任"):
                assert value in text
    finally:
        assert cookie
        tab.context.close()


def test_plain_words_and_one_language_from_the_browser(browser: Any, dense: Served) -> None:
    rows = ok("show")["memories"]
    tab = _open(browser, dense, "en")
    try:
        assert tab.locator("html").get_attribute("lang") == "en"
        text = tab.locator("body").inner_text()
        # What it is about in words, the value, when; no ids, codes, raw keys or sources.
        assert "job\t产品经理，常加班" in text or "job 产品经理，常加班" in " ".join(text.split())
        for row in rows:
            assert row["id"] not in text and row["subject_id"] not in text
        for raw in ("display_label", "fact_job", "first_meeting", "user_report", "obj-", "{"):
            assert raw not in text, raw
        assert "first meeting" in text and "since March 2025" in text
        for chinese in ("概览", "时间线", "推测", "删除"):
            assert chinese not in text  # not both at once
        # The link switches the page to Chinese, and it stays so.
        tab.locator("a.lang").click()
        tab.wait_for_load_state()
        zh = tab.locator("body").inner_text()
        assert tab.locator("html").get_attribute("lang") == "zh-CN"
        assert "时间线" in zh and "2025年3月起" in zh and "第一次见面" in zh
        assert "Timeline" not in zh and "since" not in zh
        tab.goto(dense.url)
        assert "时间线" in tab.locator("body").inner_text()
        # The details hold the rest: source in words, exact times, the id.
        row = next(r for r in rows if r["field"] == "city" and r["subject_id"] == "obj-mia")
        line = tab.locator(f"#row-{row['id']}")
        line.locator("summary.line").click()
        shown = line.inner_text()
        assert row["id"] in shown and "你转述的" in shown and "2025-03-01" in shown
    finally:
        tab.context.close()


def test_a_chinese_browser_gets_the_chinese_page(browser: Any, dense: Served) -> None:
    tab = _open(browser, dense, "zh", 390, 844)
    try:
        text = tab.locator("body").inner_text()
        assert tab.locator("html").get_attribute("lang") == "zh-CN"
        assert "助手记得什么" in text and "What the assistant remembers" not in text
        assert tab.locator("a.lang").inner_text() == "English"
    finally:
        tab.context.close()


def test_search_narrows_the_page_by_the_librarys_search(browser: Any, dense: Served) -> None:
    expected = {m["id"] for m in ok("search", "--query", "火锅", "--limit", "50")["memories"]}
    assert expected
    tab = _open(browser, dense, "en")
    try:
        tab.locator("form.search input[name='q']").fill("火锅")
        tab.locator("form.search button").click()
        tab.wait_for_load_state()
        assert "q=" in tab.url
        shown = {
            str(i).removeprefix("row-")
            for i in tab.locator("li.row").evaluate_all("rows => rows.map(r => r.id)")
        }
        assert shown == expected
        assert "平安夜一起吃了火锅" in tab.locator("main").inner_text()
        assert "Mia" not in tab.locator(".cards").inner_text()
        tab.locator(".found a").click()  # show everything again
        tab.wait_for_load_state()
        assert tab.locator("li.row").count() == 32
        # The index at the top jumps to each person's card.
        hrefs = tab.locator("nav.people a").evaluate_all("a => a.map(x => x.getAttribute('href'))")
        assert hrefs[0] == "#you" and len(hrefs) == 5
        for href in hrefs:
            assert tab.locator(href).count() == 1
    finally:
        tab.context.close()


def test_search_while_paused_says_why_and_shows_everything(browser: Any, dense: Served) -> None:
    ok("pause")
    tab = _open(browser, dense, "en")
    try:
        tab.locator("form.search input[name='q']").fill("火锅")
        tab.locator("form.search button").click()
        tab.wait_for_load_state()
        assert "Search works while memory is on" in tab.locator(".banner.error").inner_text()
        assert tab.locator("li.row").count() == 32
    finally:
        tab.context.close()


def _row(tab: Any, row_id: str) -> Any:
    line = tab.locator(f"#row-{row_id}")
    line.locator("summary.line").first.click()
    return line


def test_controls_fit_the_row(browser: Any, dense: Served) -> None:
    rows = {(r["subject_id"], r["field"]): r for r in ok("show")["memories"]}
    tab = _open(browser, dense, "en")
    try:
        # Buttons wait in the row's details: none shows before the person opens a row.
        visible = [b for b in tab.locator("main .cards button").all() if b.is_visible()]
        assert visible == []
        name = _row(tab, rows[("obj-lin", "display_label")]["id"])
        assert name.locator("form[action='end']").count() == 0  # a name never "ends"
        assert name.locator("details.correct").count() == 1
        job = _row(tab, rows[("obj-lin", "job")]["id"])
        assert job.locator("form[action='end']").count() == 1
        # A guess can be corrected (and forgotten): it keeps how sure it is.
        guess = rows[("obj-lin", "intent")]
        line = _row(tab, guess["id"])
        assert line.locator("form[action='forget']").count() == 1
        line.locator("details.correct summary").click()
        line.locator("details.correct input[name='value']").fill("想认真交往")
        line.locator("details.correct button").click()
        tab.wait_for_load_state()
        (after,) = [
            r for r in ok("show", "--scope", "hypothesis")["memories"] if r["id"] == guess["id"]
        ]
        assert after["value"] == "想认真交往" and after["confidence"] == guess["confidence"]
    finally:
        tab.context.close()


def test_a_tidy_suggestion_is_applied_after_asking(enabled: Path, browser: Any) -> None:
    put(delta("object", "obj-a", "display_label", "小林"))
    put(delta("object", "obj-a", "job", "在杭州做平面设计", occurred_at="2026-03-10"))
    put(delta("object", "obj-a", "occupation", "开了自己的设计工作室", occurred_at="2026-11-01"))
    (same,) = [f for f in ok("tidy")["findings"] if f["kind"] == "same_concept"]
    job = next(m for m in ok("show")["memories"] if m["field"] == "job")
    served = serve()
    tab = _open(browser, served, "en")
    try:
        finding = tab.locator("li.finding", has_text="The same thing, twice")
        finding.locator("form[action='tidy'] button").click()
        question = tab.locator("section.confirm .question").inner_text()
        assert "在杭州做平面设计" in question and "2026-11-01" in question
        assert ok("show", "--subject-id", "obj-a")["count"] == 3  # asked: nothing changed yet
        assert not [m for m in ok("show")["memories"] if m.get("ended")]
        tab.locator("section.confirm button.danger").click()
        tab.wait_for_load_state()
        assert "Tidied as suggested" in tab.locator(".banner").inner_text()
        ended = next(m for m in ok("show")["memories"] if m["id"] == job["id"])
        assert ended["ended"] and not [
            f for f in ok("tidy")["findings"] if f["kind"] == "same_concept"
        ]
        assert same["ids"]
        # Undoable like any change, on the page.
        tab.locator(".banner form[action='undo'] button").click()
        tab.wait_for_load_state()
        assert next(m for m in ok("show")["memories"] if m["id"] == job["id"])["value"]
    finally:
        tab.context.close()
        served.stop()


def test_the_query_and_the_language_come_back_as_text(enabled: Path) -> None:
    put(delta("object", "obj-a", "display_label", "小林"))
    served = serve()
    try:
        cookie = login(served)
        hostile = quote('"><script>alert(1)</script><b>x')
        for path in (f"/?q={hostile}", f"/?lang={hostile}", f"/?q={hostile}&lang=zh"):
            reply = request(served, "GET", path, {"Cookie": cookie})
            assert reply.status == 200
            body = reply.text.split("<body", 1)[1]
            assert "<script" not in body and "<b>" not in body
        assert "&lt;script&gt;" in body and 'lang="zh-CN"' in reply.text
    finally:
        served.stop()


def test_the_question_and_the_note_speak_the_pages_language(browser: Any, dense: Served) -> None:
    row = next(m for m in ok("show")["memories"] if m["value"] == "不聊前任")
    tab = _open(browser, dense, "zh")
    try:
        line = _row(tab, row["id"])
        line.locator("form[action='forget'] button").click()
        question = tab.locator("section.confirm").inner_text()
        assert "永久删除这条关于你自己的记忆" in question and "不聊前任" in question
        assert "Forget" not in question and "Please confirm" not in question
        assert tab.locator("html").get_attribute("lang") == "zh-CN"
        tab.locator("section.confirm button.danger").click()
        tab.wait_for_load_state()
        note = tab.locator(".banner").inner_text()
        assert "已永久删除 1 条记忆" in note and "Forgotten" not in note
        assert [m for m in ok("show")["memories"] if m["id"] == row["id"]] == []
    finally:
        tab.context.close()


def test_the_index_names_only_the_cards_shown(browser: Any, dense: Served) -> None:
    tab = _open(browser, dense, "en")
    try:
        tab.goto(dense.url + "?q=" + quote("火锅"))
        hrefs = tab.locator("nav.people a").evaluate_all("a => a.map(x => x.getAttribute('href'))")
        assert hrefs == ["#p-obj-wang"]  # only 老王's card matches: no link leads nowhere
        assert tab.locator("#p-obj-wang").count() == 1 and tab.locator("#you").count() == 0
    finally:
        tab.context.close()
