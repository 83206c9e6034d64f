"""A page left open while the assistant writes (documentation/page.md): every button
carries the row as shown, and a row the store changed since the page was drawn is not
written over — the page shows it as it is now and asks again. A correction changes the
value alone: the event time keeps its written offset, confidence and evidence stay, the
source becomes the person's own word. After a forget, the note says what the erasure's
receipt says.

The real ``review --serve`` process in Chromium (Playwright); the assistant is the real CLI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import delta, ok, put
from support.page import Served, chromium, serve


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def opened(browser: Any, enabled: Path) -> Iterator[tuple[Any, Served]]:
    put(
        delta("object", "obj-a", "display_label", "小林"),
        delta("object", "obj-a", "city", "Pari"),
        delta(
            "event",
            "obj-a",
            "dinner",
            "dinner at Bar Pari",
            occurred_at="2026-03-01T19:30:00+08:00",
            source="user_report",
            confidence="medium",
            source_ref="chat 3",
        ),
    )
    page = serve()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    tab = context.new_page()
    tab.goto(page.address)
    yield tab, page
    context.close()
    page.stop()


def _row(field: str) -> dict[str, Any]:
    (row,) = [m for m in ok("show", "--subject-id", "obj-a")["memories"] if m["field"] == field]
    return dict(row)


def _on_page(tab: Any, text: str) -> Any:
    """The row showing ``text`` (a fact or an event), its buttons shown as the person
    shows them: a row whose details are closed is opened first."""
    row = tab.locator(":is(tr, li)", has_text=text).first
    line = row.locator("summary.line")
    if line.count() and row.locator("details").first.get_attribute("open") is None:
        line.first.click()
    return row


def _correct(tab: Any, shown: str, value: str) -> None:
    row = _on_page(tab, shown)
    row.locator("details.correct summary").click()
    row.locator("details.correct input[name='value']").fill(value)
    row.locator("details.correct button").click()
    tab.wait_for_load_state()


def _assistant_writes_berlin() -> None:
    city = _row("city")
    put(delta("object", "obj-a", "city", "Berlin", correction=True))
    assert _row("city")["value"] == "Berlin" and city["id"] == _row("city")["id"]


def test_a_correction_on_a_stale_page_writes_nothing_and_shows_the_row_anew(
    opened: tuple[Any, Served],
) -> None:
    tab, _ = opened
    _assistant_writes_berlin()  # while the page still shows "Pari"
    log = ok("log")["operations"]
    _correct(tab, "Pari", "Paris")
    assert _row("city")["value"] == "Berlin"  # "Berlin" was not overwritten
    assert ok("log")["operations"] == log  # nothing written at all
    banner = tab.locator(".banner.error").inner_text()
    assert "changed while the page was open" in banner and "Berlin" in banner
    assert "Nothing was written" in banner
    # The page now shows the row as it is; a correction made on it is written.
    assert _on_page(tab, "Berlin").count() == 1
    _correct(tab, "Berlin", "Paris")
    assert _row("city")["value"] == "Paris"


def test_ending_on_a_stale_page_writes_nothing(opened: tuple[Any, Served]) -> None:
    tab, _ = opened
    _assistant_writes_berlin()
    log = ok("log")["operations"]
    _on_page(tab, "Pari").locator("form[action='end'] button").click()
    tab.wait_for_load_state()
    city = _row("city")
    assert city["value"] == "Berlin" and not city["ended"]
    assert ok("log")["operations"] == log
    assert "Berlin" in tab.locator(".banner.error").inner_text()


def test_forgetting_on_a_stale_page_deletes_nothing(opened: tuple[Any, Served]) -> None:
    tab, _ = opened
    _assistant_writes_berlin()
    _on_page(tab, "Pari").locator("form[action='forget'] button").click()
    tab.wait_for_load_state()
    assert _row("city")["value"] == "Berlin"
    assert tab.locator("section.confirm").count() == 0  # not even asked: shown anew first
    assert "Berlin" in tab.locator(".banner.error").inner_text()


def test_a_correction_keeps_the_written_time_confidence_and_evidence(
    opened: tuple[Any, Served], tmp_path: Path
) -> None:
    tab, _ = opened
    before = _row("dinner")
    _correct(tab, "dinner at Bar Pari", "dinner at Bar Paris")
    after = _row("dinner")
    assert after["value"] == "dinner at Bar Paris" and after["id"] == before["id"]
    assert after["occurred_at"] == before["occurred_at"] == "2026-03-01T11:30:00Z"
    for key in ("confidence", "source_ref"):
        assert after[key] == before[key], key
    assert after["source_type"] == "user_explicit"
    assert "kept as your own words" in tab.locator(".banner").inner_text()
    target = tmp_path / "export.json"
    ok("export", "--output", str(target))
    (dinner,) = [
        m for m in json.loads(target.read_text("utf-8"))["memories"] if m["field"] == "dinner"
    ]
    assert dinner["occurred_offset"] == "+08:00"  # 19:30 +08:00 stays so, not 11:30 UTC


def test_the_note_after_a_forget_says_what_the_erasure_checked(
    opened: tuple[Any, Served],
) -> None:
    tab, _ = opened
    # The receipt the library gives (data.verified, documentation/privacy.md), if it gives
    # one: the page's note says it; without it, the note claims nothing.
    put(delta("object", "obj-b", "city", "Oslo-probe"))
    (probe,) = [m for m in ok("show", "--subject-id", "obj-b")["memories"]]
    receipt = ok("forget", probe["id"], "--confirm").get("verified")
    tab.reload()
    _on_page(tab, "Pari").locator("form[action='forget'] button").click()
    tab.locator("section.confirm button.danger").click()
    tab.wait_for_load_state()
    note = tab.locator(".banner").first.inner_text()
    assert "Forgotten for good" in note
    checked = "looked for in the memory's files" in note and "found in none" in note
    assert checked == bool(receipt and receipt.get("absent") and receipt.get("texts")), note
