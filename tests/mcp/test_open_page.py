"""``memory_open_page`` (documentation/page.md#from-the-assistant): the assistant opens the person's page in their
browser, and never learns the key that lets a browser in.

Through the MCP SDK's own client against the real server. The "browser" is the command
Python's ``webbrowser`` runs (``BROWSER``): a script that writes down the address it was
given, which is what a browser would load. The page is the real ``review --serve`` process
the tool starts; it is ended through its own "done" button.
"""

from __future__ import annotations

import json
import re
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import call, data_of, delta, ok, put
from support.page import Served, login, request

from memory_store.mcp import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def browser_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "opened.txt"
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{log}"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("BROWSER", str(script))
    return log


def _opened(log: Path) -> str:
    for _ in range(100):
        if log.exists() and log.read_text(encoding="utf-8").strip():
            return log.read_text(encoding="utf-8").strip()
        time.sleep(0.1)
    raise AssertionError("no browser was started")


def _page(address: str) -> Served:
    """The running page as the test helpers know it, from the address the browser got."""
    found = re.match(r"http://127\.0\.0\.1:(\d+)(/[\w-]+)/open\?key=", address)
    assert found is not None, address
    port = int(found.group(1))
    data = {"port": port, "url": f"http://127.0.0.1:{port}{found.group(2)}/"}
    return Served(None, data, address)  # type: ignore[arg-type]


def _done(page: Served, cookie: str) -> None:
    token = re.search(
        r'name="token" value="([^"]+)"', request(page, "GET", "/", {"Cookie": cookie}).text
    )
    assert token is not None
    reply = request(
        page, "POST", "/done", {"Cookie": cookie, "Origin": page.origin}, f"token={token.group(1)}"
    )
    assert reply.status == 200


async def test_the_page_opens_in_the_browser_and_the_result_has_no_key(
    store: Any, enabled: Path, browser_log: Path
) -> None:
    put(delta("object", "obj-a", "display_label", "小林"))
    async with Client(build_server(store)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        schema = tools["memory_open_page"].input_schema
        assert set(schema.get("properties", {})) == {"subject_id", "ask", "memory_id"}
        assert not schema.get("required")
        description = tools["memory_open_page"].description or ""
        assert "--" not in description and "/" not in description and len(description) < 300
        result = await call(client, "memory_open_page", subject_id="小林")
    data = data_of(result)
    assert data == {"opened": True, "subject_id": "obj-a", "idle_minutes": 15}
    address = _opened(browser_log)
    key = address.rsplit("key=", 1)[1]
    assert len(key) >= 32
    everything = json.dumps([c.model_dump() for c in result.content], ensure_ascii=False)
    assert key not in everything and key not in json.dumps(result.structured_content)
    page = _page(address)
    reply = request(page, "GET", f"/open?key={key}")
    assert reply.status == 303 and reply.headers["Location"] == page.base + "/#p-obj-a"
    cookie = reply.cookies[0].split(";", 1)[0]
    assert "小林" in request(page, "GET", "/", {"Cookie": cookie}).text
    _done(page, cookie)


async def test_without_a_browser_it_says_what_the_person_can_run(
    store: Any, enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BROWSER", raising=False)  # and no DISPLAY: no desktop here
    async with Client(build_server(store)) as client:
        data = data_of(await call(client, "memory_open_page"))
    assert data["opened"] is False and data["subject_id"] is None
    assert data["command"].endswith("review --serve")
    assert "key=" not in json.dumps(data)


async def test_a_deletion_the_client_cannot_ask_about_points_to_the_page(
    store: Any, enabled: Path
) -> None:
    put(delta("object", "obj-a", "display_label", "小林"))
    async with Client(build_server(store)) as client:  # this client declares no elicitation
        result = await call(client, "memory_forget_object", subject_id="obj-a")
    data = data_of(result)
    assert data["reason"] == "cannot_ask" and data["page"] is True
    assert "记忆页面" in result.content[0].text  # the label is Chinese: so is the answer
    assert "forget-object obj-a --confirm" in data["command"]


async def test_a_second_page_does_not_reuse_the_first_key(
    store: Any, enabled: Path, browser_log: Path
) -> None:
    async with Client(build_server(store)) as client:
        data_of(await call(client, "memory_open_page"))
        first = _opened(browser_log)
        browser_log.write_text("", encoding="utf-8")
        data_of(await call(client, "memory_open_page"))
        second = _opened(browser_log)
    assert first != second and first.rsplit("=", 1)[1] != second.rsplit("=", 1)[1]
    for address in (first, second):
        page = _page(address)
        _done(page, login(page))


async def test_a_request_the_client_could_not_ask_opens_the_page_at_it(
    store: Any, enabled: Path, browser_log: Path
) -> None:
    """cannot_ask, then memory_open_page with the request: the page shows it first with
    the question's real counts; only the person's click there deletes."""
    put(
        delta("object", "obj-a", "display_label", "小林"), delta("object", "obj-a", "job", "设计师")
    )
    async with Client(build_server(store)) as client:  # declares no elicitation
        refused_here = data_of(await call(client, "memory_forget_object", subject_id="小林"))
        assert refused_here["reason"] == "cannot_ask" and refused_here["page"] is True
        result = await call(client, "memory_open_page", ask="forget-object", subject_id="小林")
    data = data_of(result)
    assert data["opened"] is True and data["ask"] == "forget-object"
    page = _page(_opened(browser_log))
    cookie = login(page)
    text = request(page, "GET", "/", {"Cookie": cookie, "Accept-Language": "en"}).text
    ops = len(ok("log")["operations"])
    steps = f"{ops} undo {'step' if ops == 1 else 'steps'}"
    assert f"Your assistant asked to forget 小林 — 2 memories and {steps}." in text
    assert len(ok("show", "--subject-id", "obj-a")["memories"]) == 2  # nothing without a click
    _done(page, cookie)


async def test_before_consent_the_page_opens_and_its_click_turns_memory_on(
    store: Any, private_store: Path, browser_log: Path
) -> None:
    """memory_enable cannot ask in this client; the page can, in any consent state."""
    async with Client(build_server(store)) as client:
        refused_here = data_of(await call(client, "memory_enable"))
        assert refused_here["reason"] == "cannot_ask" and refused_here["page"] is True
        data = data_of(await call(client, "memory_open_page", ask="enable"))
    assert data["opened"] is True and data["ask"] == "enable"
    assert ok("status")["consent_state"] == "absent"
    page = _page(_opened(browser_log))
    cookie = login(page)
    text = request(page, "GET", "/", {"Cookie": cookie, "Accept-Language": "en"}).text
    assert "Your assistant asked to turn on memory" in text and text.count("<form") == 1
    token = re.search(r'name="token" value="([^"]+)"', text)
    assert token is not None
    headers = {"Cookie": cookie, "Origin": page.origin}
    assert request(page, "POST", "/enable", headers, f"token={token.group(1)}").status == 303
    assert ok("status")["consent_state"] == "enabled"
    _done(page, cookie)
