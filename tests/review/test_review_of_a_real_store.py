"""The review page of a store the CLI wrote with time in it (documentation/review.md#what-the-review-page-shows, documentation/time.md#where-history-lives, documentation/variables.md#commands-handed-to-the-person-name-the-store).

Everything here goes through the real path: ``apply`` through the CLI writes
a changed value, an ended row, a pinned event, an event told at +08:00 and two
current rows of one concept; the real ``review`` command writes the page; a real
headless Chromium builds its DOM. The page must show each of them, list what
``tidy`` finds (in every consent state: reading is the person's right of access),
and hand out commands that name the store whenever it is not the platform default.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from shlex import quote
from typing import Any

import pytest
from support import apply, delta, ok
from support.browser import BROWSERS, Dom, dump_dom, find_browser, norm, write_review

from memory_store.review import render_review
from memory_store.review.markup import FINDINGS
from memory_store.storage.files import command_line

needs_browser = pytest.mark.skipif(
    find_browser() is None,
    reason=f"no chromium: none of {', '.join(BROWSERS)} on PATH (apt-get install -y chromium)",
)

HOSTILE_PAST = "<script>alert('past')</script><img src=x onerror=alert(1)>上海"


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This computer reads UTC, so a "+08:00" on the page can only come from the row."""
    monkeypatch.setenv("TZ", "UTC0")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _fill() -> dict[str, dict[str, Any]]:
    """The store of a person who told the assistant about 小林 over a year; ``show``'s rows."""
    steps = (
        (
            delta("object", "obj-a", "display_label", "小林"),
            delta("object", "obj-a", "job", "在上海做平面设计师", occurred_at="2025-09-01"),
            delta("object", "obj-a", "city", HOSTILE_PAST, occurred_at="2025-09-01"),
            delta("relationship", "obj-a", "stage", "暧昧期", occurred_at="2026-04-03"),
        ),
        (  # a change, not a correction: the old values become past values
            delta("object", "obj-a", "job", "在杭州做平面设计", occurred_at="2026-03-10"),
            delta("object", "obj-a", "city", "杭州", occurred_at="2026-03-10"),
        ),
        (
            delta(
                "event", "obj-a", "first_date", "第一次约会", occurred_at="2026-04-03", pinned=True
            ),
            delta("event", "obj-a", "conflict", "吵了一架", occurred_at="2026-05-01T21:30+08:00"),
        ),
        (
            {
                "action": "end",
                "scope": "relationship",
                "subject_id": "obj-a",
                "field": "stage",
                "occurred_at": "2026-10-01",
            },
        ),  # fmt: skip
        # A second current row of the job concept: applied, with the first under related.
        (delta("object", "obj-a", "occupation", "辞职后去杭州当老师了", occurred_at="2026-11-01"),),
    )
    for batch in steps:
        result = apply(*batch)
        assert result.code == 0, result.stdout
    return {r["field"]: r for r in ok("show")["memories"]}


def _row(dom: Dom, row_id: str) -> str:
    """The text of the innermost table row or timeline entry that shows ``row_id``
    (not a tidy suggestion naming it)."""
    rows = [i for tag in ("tr", "li") for i in dom.find(tag) if i not in dom.find("li", "finding")]
    found = [i for i in rows if row_id in dom.text(i)]
    assert found, row_id
    return norm(dom.text(max(found)))


def _commands(dom: Dom) -> list[str]:
    return [norm(dom.text(i)) for i in dom.find("code", "cmd")]


@needs_browser
def test_the_page_shows_time_as_the_store_keeps_it(
    enabled: Path, tmp_path: Path, utc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")  # a Chinese locale: the page is in Chinese
    stored = _fill()
    job, city, stage = stored["job"], stored["city"], stored["stage"]
    assert [p["value"] for p in job["past"]] == ["在上海做平面设计师"]
    assert stage["ended"] and stage["value"] is None
    assert stored["first_date"]["pinned"]
    page = write_review(tmp_path / "review.html")
    dom = Dom(dump_dom(page))

    # A changed value: now, and the past value with its span and source.
    shown = _row(dom, job["id"])
    assert shown.startswith("工作 在杭州做平面设计 2026年3月起"), shown
    assert "以前 2025-09-01 → 2026-03-10: 在上海做平面设计师 (你转述的)" in shown
    assert job["since"] == "2026-03-10" and "自 2026-03-10" in shown  # "as of" is since
    assert "截至" not in shown
    assert "Earlier" not in dom.text() and "since" not in dom.text()  # one language
    # An ended row: marked with the day it ended, its last value the end of its history.
    shown = _row(dom, stage["id"])
    assert shown.startswith("阶段 暧昧期 到2026年10月为止"), shown
    assert "结束于 2026-10-01" in shown
    assert "2026-04-03 → 2026-10-01: 暧昧期" in shown
    assert "自 " not in shown  # the end already says when
    assert len(dom.find("li", "ended")) == 1
    # A pinned event is a milestone; the event told at +08:00 reads at +08:00 on a UTC computer.
    assert _row(dom, stored["first_date"]["id"]).startswith(
        "第一次约会 里程碑 第一次约会 2026年4月3日"
    )
    conflict = _row(dom, stored["conflict"]["id"])
    assert conflict.startswith("争吵 吵了一架 2026年5月1日 21:30"), conflict
    assert "发生于 2026-05-01 21:30 +08:00" in conflict
    assert "21:30 +08:00" in norm(dom.text())

    # Hostile markup in a past value stays text, in the DOM Chromium built.
    assert "script" not in dom.tags() and "img" not in dom.tags()
    assert HOSTILE_PAST in dom.text(), "the past value is shown as written"
    assert f"2025-09-01 → 2026-03-10: {HOSTILE_PAST}" in _row(dom, city["id"])


@needs_browser
def test_the_page_lists_what_tidy_finds(enabled: Path, tmp_path: Path) -> None:
    stored = _fill()
    findings = ok("tidy")["findings"]  # what the assistant would be told
    same = [f for f in findings if f["kind"] == "same_concept"]
    assert len(same) == 1 and set(same[0]["ids"]) == {
        stored["job"]["id"],
        stored["occupation"]["id"],
    }
    # Reading is the person's right in every state: a paused store's page lists them too.
    ok("pause")
    dom = Dom(dump_dom(write_review(tmp_path / "review.html")))
    section = dom.find("section", "tidy")
    assert len(section) == 1
    items = [i for i in dom.find("li", "finding") if i > section[0]]
    assert len(items) == len(findings)
    texts = [norm(dom.text(i)) for i in items]
    for finding, text in zip(findings, texts, strict=True):
        assert text.startswith(FINDINGS[finding["kind"]][1]), text
        assert norm(finding["message"]) in text
        for row_id in finding["ids"]:
            assert row_id in text
    suggestion = next(t for t in texts if t.startswith("The same thing, twice"))
    assert suggestion.startswith("The same thing, twice 小林 job, occupation")  # in words
    assert stored["job"]["id"] in suggestion and stored["occupation"]["id"] in suggestion
    ended = [t for t, f in zip(texts, findings, strict=True) if f["kind"] == "ended"]
    assert ended and stored["stage"]["id"] in ended[0]
    # While paused, tidy itself refuses: the page says when its command works.
    tidy_section = norm(dom.text(section[0]))
    assert "runs once consent is given and not paused" in tidy_section


@needs_browser
def test_commands_name_a_store_that_is_not_the_default(
    private_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A space and Chinese in the path: the name must be quoted to paste as one word.
    store = tmp_path / "我的 记忆"
    monkeypatch.setenv("MEMORY_STORE_DIR", str(store))
    ok("enable", "--confirm")
    _fill()
    operations = ok("log")["operations"]
    dom = Dom(dump_dom(write_review(tmp_path / "review.html")))
    commands = _commands(dom)
    named = f"--data-dir '{store}'"
    assert quote(str(store)) == f"'{store}'"
    assert len(commands) >= 4 + 2 + len(operations) + 1  # forget steps, people, undo, tidy
    for command in commands:
        assert command.startswith(f"memory-store {named} "), command
    assert command_line(str(store), "undo", "--op-id", operations[0]["op_id"]) in commands
    assert command_line(str(store), "forget-object", "obj-a", "--confirm") in commands
    assert command_line(str(store), "tidy") in commands


def test_commands_name_a_store_given_by_data_dir(private_store: Path, tmp_path: Path) -> None:
    # --data-dir on the command line names the store as MEMORY_STORE_DIR does (documentation/variables.md#commands-handed-to-the-person-name-the-store).
    other = tmp_path / "other store"
    ok("--data-dir", str(other), "enable", "--confirm")
    page = tmp_path / "review.html"
    ok("--data-dir", str(other), "review", "--output", str(page))
    commands = _commands(Dom(page.read_text(encoding="utf-8")))
    assert commands and all(c.startswith(f"memory-store --data-dir '{other}' ") for c in commands)


@needs_browser
def test_commands_for_the_default_store_name_no_directory(
    private_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The platform default (XDG_DATA_HOME points inside tmp_path): the person's
    # terminal finds it by itself, so no command names a directory.
    monkeypatch.delenv("MEMORY_STORE_DIR")
    ok("enable", "--confirm")
    assert (tmp_path / "xdg-data" / "memory-store" / "memory.sqlite3").is_file()
    _fill()
    dom = Dom(dump_dom(write_review(tmp_path / "review.html")))
    commands = _commands(dom)
    assert len(commands) >= 7
    for command in commands:
        assert "--data-dir" not in command and command.startswith("memory-store "), command
    assert "memory-store tidy" in commands


def test_a_facts_as_of_time_is_shown_where_it_is_not_its_since() -> None:
    # Outside events occurred_at means "as of"; the CLI makes it the row's since, but a
    # row may carry both (a restored or imported one), and nothing stored is left out.
    row = {
        "id": "m-01", "scope": "object", "subject_id": "obj-a", "field": "city", "value": "杭州",
        "source_type": "user_report", "source_ref": None, "confidence": "medium",
        "occurred_at": "2026-05-01T13:30:00Z", "occurred_offset": "+08:00", "since": "2026-03-10",
        "created_at": "2026-06-01T10:00:00Z", "updated_at": "2026-06-01T10:00:00Z",
        "past": [], "ended": False, "pinned": False,
    }  # fmt: skip
    snapshot = {"generated_at": "2026-11-30T12:00:00Z", "memories": [row]}
    text = norm(Dom(render_review(snapshot)).text())
    assert "since 2026-03-10" in text
    assert "as of 2026-05-01 21:30 +08:00" in text
    same = norm(
        Dom(render_review({**snapshot, "memories": [{**row, "since": "2026-05-01"}]})).text()
    )
    assert "as of" not in same and "since 2026-05-01" in same
