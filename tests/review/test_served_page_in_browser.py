"""The person's page in a real browser (documentation/page.md#what-the-person-can-do-on-it): headless Chromium, driven by
Playwright, clicks the served page's buttons, and the store (its files, and ``show``
through the CLI) is checked after each.

The page is the real ``review --serve --no-open`` process on a store the CLI filled
(``browser.build_realistic_store``: you, 小林 and Alex, every kind). The browser opens the
address with the one-time key, as the person's browser does. These tests never skip in CI
(``support.page.require_browser``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, delta, find_leaks, ok, put
from support.browser import build_realistic_store
from support.page import Served, chromium, serve

MARK = "删掉我-forget-me-7f3a"
OLD, NEW = "住在杭州-hz-old", "住在上海-sh-new"


@pytest.fixture
def served(enabled: Path) -> Iterator[Served]:
    build_realistic_store()
    put(delta("object", "obj-a", "favourite_snack", MARK))
    put(delta("object", "obj-a", "home", OLD, occurred_at="2025-01-01"))
    put(delta("object", "obj-a", "home", NEW, occurred_at="2026-03-01"))
    page = serve()
    yield page
    page.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def tab(browser: Any, served: Served) -> Iterator[Any]:
    # An English browser (Accept-Language: en-US): the page is in English.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto(served.address)  # /open?key=… → the cookie → /
    yield page
    context.close()


def _row(tab: Any, text: str) -> Any:
    """The row showing ``text``, its details (and buttons) opened as the person opens them."""
    row = tab.locator("li.row", has_text=text).first
    if row.locator("details").first.get_attribute("open") is None:
        row.locator("summary.line").first.click()
    return row


def _row_of(field: str, subject: str = "obj-a") -> dict[str, Any]:
    (row,) = [m for m in ok("show", "--subject-id", subject)["memories"] if m["field"] == field]
    return dict(row)


def _confirm(tab: Any) -> str:
    """The confirmation step's question; then the person's yes."""
    question = tab.locator("section.confirm .question").inner_text()
    tab.locator("section.confirm button.danger").click()
    tab.wait_for_load_state()
    return str(question)


def test_the_key_lets_the_browser_in_and_the_page_shows_the_store(tab: Any, served: Served) -> None:
    assert tab.url == served.url
    text = tab.locator("body").inner_text()
    for value in (MARK, NEW, "小林", "Alex", "可能偏焦虑型依恋"):
        assert value in text, value
    # A past value, the IDs and the raw field names wait behind the row's disclosure.
    assert OLD not in text and "m-" not in text and "favourite_snack" not in text
    assert "favourite snack" in text and "since March 2026" in text
    row = _row(tab, NEW)
    assert OLD in row.inner_text() and _row_of("home")["id"] in row.inner_text()
    # The cookie is HttpOnly: the page's own script (it has none) could not read it either.
    assert tab.evaluate("document.cookie") == ""
    (cookie,) = tab.context.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert served.key not in cookie["value"]


def test_forget_is_asked_with_real_counts_then_gone_from_the_files(
    tab: Any, served: Served, enabled: Path
) -> None:
    _row(tab, MARK).locator("form[action='forget'] button").click()
    question = tab.locator("section.confirm .question").inner_text()
    assert MARK in question and "1 undo step" in question and "cannot be undone" in question
    # No, keep it: back on the page, nothing changed.
    tab.locator("section.confirm a.button").click()
    assert MARK in tab.locator("body").inner_text() and find_leaks(enabled, [MARK])
    _row(tab, MARK).locator("form[action='forget'] button").click()
    _confirm(tab)
    assert "Forgotten for good: 1 memory and 1 undo step" in tab.locator(".banner").inner_text()
    assert MARK not in tab.locator("body").inner_text()
    assert [m for m in ok("show")["memories"] if m["value"] == MARK] == []
    assert find_leaks(enabled, [MARK]) == []  # memory.sqlite3, -wal and -shm


def test_a_correction_on_the_page_is_undone_on_the_page(tab: Any, served: Served) -> None:
    row = _row(tab, NEW)
    row.locator("details.correct summary").click()
    row.locator("details.correct input[name='value']").fill("住在苏州-corrected")
    row.locator("details.correct button").click()
    tab.wait_for_load_state()
    banner = tab.locator(".banner").inner_text()
    assert "Corrected" in banner and "小林" in banner and "obj-a" not in banner  # by name
    home = _row_of("home")
    assert home["value"] == "住在苏州-corrected"
    assert [p["value"] for p in home["past"]] == [OLD]  # a correction is not history
    assert home["source_type"] == "user_explicit"
    tab.locator(".banner form[action='undo'] button").click()
    tab.wait_for_load_state()
    assert "Undone" in tab.locator(".banner").inner_text()
    assert _row_of("home")["value"] == NEW
    assert ok("log")["operations"][0]["summary"] != "住在苏州-corrected"


def test_ending_a_fact_and_forgetting_a_past_value_are_undoable(tab: Any, served: Served) -> None:
    _row(tab, NEW).locator("form[action='end'] button").click()
    tab.wait_for_load_state()
    home = _row_of("home")
    assert home["ended"] is True and [p["value"] for p in home["past"]] == [OLD, NEW]
    tab.locator(".banner form[action='undo'] button").click()
    tab.wait_for_load_state()
    assert _row_of("home")["value"] == NEW
    past = _row(tab, NEW).locator("li", has_text=OLD)
    past.locator("form[action='forget-past'] button").click()
    question = tab.locator("section.confirm .question").inner_text()
    assert OLD in question and "2025-01-01" in question
    _confirm(tab)
    assert "Past value deleted" in tab.locator(".banner").inner_text()
    home = _row_of("home")
    assert home["value"] == NEW and home["past"] == []
    assert OLD not in _row(tab, NEW).text_content()
    tab.locator(".banner form[action='undo'] button").click()
    tab.wait_for_load_state()
    assert [p["value"] for p in _row_of("home")["past"]] == [OLD]


def test_an_operation_in_the_list_is_undone(tab: Any, served: Served) -> None:
    latest = ok("log")["operations"][0]
    assert NEW in latest["summary"]
    tab.locator("section.ops summary").click()  # the list waits behind its disclosure
    tab.locator(f"form[action='undo']:has(input[value='{latest['op_id']}']) button").click()
    tab.wait_for_load_state()
    assert "Undone" in tab.locator(".banner").inner_text()
    assert _row_of("home")["value"] == OLD


def test_forget_a_person_counts_their_memories(tab: Any, served: Served, enabled: Path) -> None:
    rows = ok("show", "--subject-id", "obj-b")["count"]
    tab.locator("#p-obj-b details.card-more summary").click()  # the card's own details
    tab.locator("form[action='forget-object']:has(input[value='obj-b']) button").click()
    question = tab.locator("section.confirm .question").inner_text()
    assert f"Forget all {rows} memories about Alex" in question
    _confirm(tab)
    assert "Alex" not in tab.locator("main").inner_text()
    assert [m for m in ok("show")["memories"] if m["subject_id"] == "obj-b"] == []
    assert find_leaks(enabled, ["Colleague on the data team", "同组，不想影响工作"]) == []


def test_pause_resume_and_export_to_a_named_file(tab: Any, served: Served, tmp_path: Path) -> None:
    tab.locator("form[action='pause'] button").click()
    tab.wait_for_load_state()
    assert ok("status")["consent_state"] == "paused"
    # Paused, the page's first control is Resume, in the banner that says so; the consent
    # line points at it, not at a terminal command; it is the page's only Resume.
    assert "paused" in tab.locator("header .banner").first.inner_text()
    assert tab.locator("button").first.inner_text() == "Resume memory"
    overview = tab.locator("section.overview").inner_text()
    assert "Paused" in overview and "press Resume memory, at the top" in overview
    assert "memory-store" not in overview
    tab.locator("form[action='resume'] button").click()
    tab.wait_for_load_state()
    assert ok("status")["consent_state"] == "enabled"
    target = tmp_path / "我的记忆.json"
    tab.locator("form[action='export'] input[name='path']").fill(str(target))
    tab.locator("form[action='export'] button").click()
    tab.wait_for_load_state()
    assert str(target) in tab.locator(".banner").inner_text()
    exported = json.loads(target.read_text(encoding="utf-8"))
    assert MARK in {m["value"] for m in exported["memories"]}
    assert target.stat().st_mode & 0o777 == 0o600
    # Never over an existing file: the library's refusal, shown with its code.
    tab.locator("form[action='export'] input[name='path']").fill(str(target))
    tab.locator("form[action='export'] button").click()
    tab.wait_for_load_state()
    assert "INVALID_ARGUMENTS" in tab.locator(".banner.error").inner_text()


def test_revoke_keeping_then_deleting(tab: Any, served: Served, enabled: Path) -> None:
    total = ok("status")["counts"]["total"]
    tab.locator("form[action='revoke'] button").click()
    assert f"The {total} memories stay" in tab.locator("section.confirm .question").inner_text()
    _confirm(tab)
    assert ok("status")["consent_state"] == "revoked" and find_leaks(enabled, [MARK])
    # Revoked: the page shows what is kept, where, how to delete it, and only "Turn on
    # memory" (documentation/page.md); its click is the person's yes again.
    text = tab.locator("body").inner_text()
    assert MARK not in text and "revoke --delete --confirm" in text
    assert tab.locator("button").count() == 1
    tab.locator("form[action='enable'] button").click()
    tab.wait_for_load_state()
    assert ok("status")["consent_state"] == "enabled"
    tab.locator("form[action='revoke-delete'] button").click()
    assert f"All {total} memories" in tab.locator("section.confirm .question").inner_text()
    _confirm(tab)
    assert "Everything is deleted" in tab.locator("body").inner_text()
    assert not (enabled / "memory.sqlite3").exists()
    assert find_leaks(enabled, [MARK]) == []


def test_another_local_page_cannot_post_to_it(browser: Any, served: Served, enabled: Path) -> None:
    """A page on another port of 127.0.0.1 is the same *site*, so SameSite=Strict still
    sends the cookie with its form: the Origin check is what refuses it."""
    form = (
        f'<form id="f" method="post" action="{served.url}forget">'
        f'<input name="memory_id" value="{_row_of("favourite_snack")["id"]}">'
        '<input name="token" value="guess"><input name="confirm" value="yes"></form>'
        "<script>document.getElementById('f').submit()</script>"
    ).encode()

    class Evil(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(form)

        def log_message(self, *args: Any) -> None:
            pass

    evil = ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(served.address)
        page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
        page.wait_for_url(f"{served.url}forget")
        assert "403" in page.locator("body").inner_text()
    finally:
        context.close()
        evil.shutdown()
        evil.server_close()
    assert find_leaks(enabled, [MARK]) and _row_of("favourite_snack")["value"] == MARK


def test_at_390_px_nothing_runs_off_and_dark_follows_the_system(
    browser: Any, served: Served, tmp_path: Path
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, color_scheme="dark", device_scale_factor=1
    )
    try:
        page = context.new_page()
        page.goto(served.address)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        widest = page.evaluate(
            "Math.max(...[...document.querySelectorAll('main *')]"
            ".map(e => e.getBoundingClientRect().right))"
        )
        assert widest <= 390
        # A row stacks: what it is about (and when) above its value, not beside it.
        line = page.locator("li.row summary.line").first
        what, value = line.locator(".what").bounding_box(), line.locator(".value").bounding_box()
        assert value["y"] >= what["y"] + what["height"] - 1
        paper = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        rgb = [int(c) for c in paper[paper.index("(") + 1 : -1].split(",")[:3]]
        assert sum(rgb) < 150, paper  # the dark theme's paper
        page.screenshot(path=str(tmp_path / "page-390.png"), full_page=True)
    finally:
        context.close()
    assert (tmp_path / "page-390.png").stat().st_size > 10_000


def test_ci_installs_what_these_tests_need_and_never_skips_them() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "export MEMORY_STORE_REQUIRE_BROWSER=1" in ci.splitlines()
    assert "apt-get install -y -qq chromium" in ci
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    test_extra = project["project"]["optional-dependencies"]["test"]
    assert any(d.startswith("playwright") for d in test_extra)
