"""Consent on the page, in every host (documentation/page.md): the page starts in any
consent state; before consent it shows what is kept, where and how to delete it, and one
button whose click is the person's yes; paused, its first control is Resume; a request
the client could not put to the person waits on the page, with the real counts, recounted
before acting; "Not now" changes nothing.

The real ``review --serve`` process, real HTTP (``support.page.request``) and, for the
clicks, Chromium through Playwright; the store is checked through the CLI.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import delta, fails, ok, put, raw_files
from support.page import Served, chromium, login, request, serve

EN = {"Accept-Language": "en-GB,en;q=0.9"}
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


def _get(page: Served, cookie: str, headers: dict[str, str] = EN) -> str:
    reply = request(page, "GET", "/", {"Cookie": cookie, **headers})
    assert reply.status == 200, reply.status
    return reply.text


def _post(page: Served, cookie: str, action: str, **fields: str) -> Any:
    token = re.search(r'name="token" value="([^"]+)"', _get(page, cookie))
    assert token is not None
    body = "&".join(f"{k}={v}" for k, v in {"token": token.group(1), **fields}.items())
    return request(page, "POST", f"/{action}", {"Cookie": cookie, "Origin": page.origin}, body)


@pytest.fixture
def running() -> Iterator[list[Served]]:
    pages: list[Served] = []
    yield pages
    for page in pages:
        page.stop()


def _serve(running: list[Served], *args: str) -> Served:
    page = serve(*args)
    running.append(page)
    return page


@pytest.mark.parametrize("state", ["absent", "never_enabled", "revoked", "revoked-deleted"])
def test_before_consent_the_page_offers_only_turning_memory_on(
    private_store: Path, running: list[Served], state: str
) -> None:
    if state == "never_enabled":
        private_store.mkdir(exist_ok=True)
        (private_store / "memory.sqlite3").write_bytes(b"")  # an enable that never finished
    elif state.startswith("revoked"):
        ok("enable", "--confirm")
        put(delta(subject="obj-a", value="小林-kept-secret"))
        ok("revoke", "--confirm", *(["--delete"] if state == "revoked-deleted" else []))
    expected = "revoked" if state.startswith("revoked") else state
    assert ok("status")["consent_state"] == expected
    page = _serve(running, "--subject-id", "obj-a")  # a subject before consent: not looked up
    assert page.data["subject_id"] is None
    cookie = login(page)
    text = _get(page, cookie)
    assert "Turn on memory" in text and "小林-kept-secret" not in text
    assert str(private_store) in text and "revoke --delete --confirm" in text  # where; delete
    assert text.count("<form") == 1 and 'action="enable"' in text  # nothing else possible
    assert "开启记忆" in _get(page, cookie, ZH) and "Turn on memory" not in _get(page, cookie, ZH)
    before = raw_files(private_store)
    for action, fields in (("pause", {}), ("forget-object", {"subject_id": "obj-a"})):
        assert _post(page, cookie, action, confirm="yes", **fields).status == 303
    assert raw_files(private_store) == before  # nothing else was done
    reply = _post(page, cookie, "enable")
    assert reply.status == 303
    status = ok("status")
    assert status["consent_state"] == "enabled"  # the click is enable --confirm
    assert not (private_store / "revoked.json").exists()  # it alone lifts the tombstone
    where = reply.headers["Location"].removeprefix(page.base)
    text = request(page, "GET", where, {"Cookie": cookie, **EN}).text
    assert "Memory is on" in text and 'action="enable"' not in text


def test_the_click_in_a_real_browser_turns_memory_on(
    private_store: Path, running: list[Served]
) -> None:
    ok("enable", "--confirm")
    ok("revoke", "--delete", "--confirm")
    page = _serve(running)
    with chromium() as browser:
        context = browser.new_context(locale="zh-CN")
        tab = context.new_page()
        tab.goto(page.address)
        assert tab.locator("button").count() == 1
        assert "你的记忆" not in tab.locator("body").inner_text()
        tab.locator("button", has_text="开启记忆").click()
        tab.wait_for_load_state()
        assert ok("status")["consent_state"] == "enabled"
        assert "记忆已开启" in tab.locator("body").inner_text()
        context.close()


def test_paused_the_first_control_is_resume(enabled: Path, running: list[Served]) -> None:
    ok("pause")
    page = _serve(running)
    cookie = login(page)
    text = _get(page, cookie)
    first = re.search(r'<form[^>]*action="([^"]+)"', text)
    assert first is not None and first.group(1) == "resume"
    assert "paused" in text[: text.index("<form")]  # the page says so before it
    assert _post(page, cookie, "resume").status == 303
    assert ok("status")["consent_state"] == "enabled"


def _xiaolin() -> tuple[int, int]:
    put(delta(subject="obj-a", value="小林"), delta(subject="obj-a", field="job", value="设计师"))
    put(delta(subject="obj-a", field="city", value="杭州"))
    preview = ok("show", "--subject-id", "obj-a")["memories"]
    return len(preview), len(ok("log")["operations"])


def test_a_request_waits_on_the_page_with_real_counts_and_not_now_changes_nothing(
    enabled: Path, running: list[Served]
) -> None:
    rows, ops = _xiaolin()
    page = _serve(running, "--ask", "forget-object", "--subject-id", "小林")
    assert page.data["ask"] == "forget-object" and page.data["subject_id"] == "obj-a"
    cookie = login(page)
    text = _get(page, cookie)
    line = f"Your assistant asked to forget 小林 — {rows} memories and {ops} undo steps."
    assert line in text
    assert 'action="dismiss"' in text and 'action="forget-object"' in text
    before = raw_files(enabled)
    assert _post(page, cookie, "dismiss").status == 303
    assert raw_files(enabled) == before  # "Not now": nothing changed
    text = _get(page, cookie)
    assert "Your assistant asked" not in text and "小林" in text  # the page itself now
    assert len(ok("show", "--subject-id", "obj-a")["memories"]) == rows


def test_a_request_is_recounted_before_it_acts(enabled: Path, running: list[Served]) -> None:
    rows, ops = _xiaolin()
    page = _serve(running, "--ask", "forget-object", "--subject-id", "obj-a")
    cookie = login(page)
    text = _get(page, cookie)
    asked = re.search(r'name="asked" value="([^"]+)"', text)
    assert asked is not None and f"{rows} memories" in text
    put(delta(subject="obj-a", field="hobby", value="攀岩"))  # the assistant, meanwhile
    reply = _post(
        page, cookie, "forget-object", subject_id="obj-a", confirm="yes", asked=asked.group(1)
    )
    assert reply.status == 200 and f"{rows + 1} memories" in reply.text  # asked again
    assert len(ok("show", "--subject-id", "obj-a")["memories"]) == rows + 1  # nothing gone
    again = re.search(r'name="asked" value="([^"]+)"', reply.text)
    assert again is not None
    done = _post(
        page, cookie, "forget-object", subject_id="obj-a", confirm="yes", asked=again.group(1)
    )
    assert done.status == 303
    assert ok("show", "--subject-id", "obj-a")["memories"] == []
    assert "Your assistant asked" not in _get(page, cookie)  # answered


@pytest.mark.parametrize(
    "ask",
    [("clear",), ("revoke",), ("revoke-delete",), ("forget", "memory_id")],
    ids=lambda a: a[0],
)
def test_every_request_is_shown_with_its_counts_then_done_on_the_click(
    enabled: Path, running: list[Served], ask: tuple[str, ...]
) -> None:
    rows, _ = _xiaolin()
    args = ["--ask", ask[0]]
    if ask[0] == "forget":
        job = [m for m in ok("show")["memories"] if m["field"] == "job"][0]
        args += ["--memory-id", job["id"]]
    page = _serve(running, *args)
    cookie = login(page)
    text = _get(page, cookie)
    assert "Your assistant asked to" in text
    assert (f"{rows} memories" in text) or ask[0] == "forget"
    asked = re.search(r'name="asked" value="([^"]+)"', text)
    assert asked is not None
    fields = {"memory_id": args[-1]} if ask[0] == "forget" else {}
    action = ask[0]
    reply = _post(page, cookie, action, confirm="yes", asked=asked.group(1), **fields)
    assert reply.status == 303
    status = ok("status")
    if ask[0] == "revoke":
        assert status["consent_state"] == "revoked"
    elif ask[0] == "revoke-delete":
        assert status["consent_state"] == "revoked" and not status["exists"]
    elif ask[0] == "clear":
        assert status["counts"]["total"] == 0 and status["consent_state"] == "enabled"
    else:
        assert status["counts"]["total"] == rows - 1


def fails_to_serve(code: str, *args: str) -> None:
    fails(code, "review", "--serve", "--no-open", *args)


def test_a_request_that_cannot_be_made_is_refused_before_the_page_listens(
    enabled: Path,
) -> None:
    fails_to_serve("INVALID_ARGUMENTS", "--ask", "forget")  # which memory?
    fails_to_serve("INVALID_ARGUMENTS", "--ask", "forget-object")  # whom?
    fails_to_serve("INVALID_ARGUMENTS", "--ask", "nothing")
    fails_to_serve("INVALID_ARGUMENTS", "--memory-id", "x")  # with no request
    fails_to_serve("MEMORY_NOT_FOUND", "--ask", "forget", "--memory-id", "mem-nope")
    fails_to_serve("SUBJECT_NOT_FOUND", "--ask", "forget-object", "--subject-id", "nobody")
