"""Only the person (documentation/page.md#only-the-person): the served page refuses every request that is not from
the browser it was opened in, and a refused request changes nothing and reveals nothing.

Each test runs the real ``memory-store review --serve --no-open`` process on a real store
and speaks HTTP to it with exactly the headers given (``support.page.request``), as
another program on this computer, another local page or a DNS-rebinding site would.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support import delta, fails, ok, put, raw_files
from support.page import Served, login, request, serve

MARK = "page-secret-value-秘密"


@pytest.fixture
def page(enabled: Path) -> Served:
    put(delta("user", field="city", value=MARK))
    served = serve()
    yield served
    served.stop()


def _form(page: Served, cookie: str) -> tuple[str, str]:
    """The page's token and the marked row's id, read from the page as the browser gets it."""
    text = request(page, "GET", "/", {"Cookie": cookie}).text
    token = re.search(r'name="token" value="([^"]+)"', text)
    memory_id = re.search(r'name="memory_id" value="([^"]+)"', text)
    assert token and memory_id, text[:500]
    return token.group(1), memory_id.group(1)


def _forget(page: Served, memory_id: str, token: str, **headers: str) -> int:
    """A confirmed forget of ``memory_id`` as a POST with the given headers; its status."""
    body = f"token={token}&memory_id={memory_id}&confirm=yes&asked=x"
    return request(page, "POST", "/forget", headers, body).status


def test_the_page_listens_on_127_0_0_1_only(page: Served) -> None:
    assert page.url == f"http://127.0.0.1:{page.port}{page.base}/"
    assert re.fullmatch(r"/[A-Za-z0-9_-]{20,}", page.base), page.base  # made at each start
    assert page.data["opened"] is False and page.data["idle_seconds"] == 900
    # Bound to 127.0.0.1 itself, not a wildcard: the same port on any other address of
    # this machine (another loopback address, IPv6's) refuses the connection.
    for family, address in ((socket.AF_INET, "127.0.0.2"), (socket.AF_INET6, "::1")):
        with socket.socket(family) as probe:
            probe.settimeout(2)
            assert probe.connect_ex((address, page.port)) != 0, address


def _lost(reply: Any, english: bool = True) -> None:
    """The 403 a link that no longer works gets: how to get a new one, nothing stored."""
    assert reply.status == 403 and not reply.cookies and "Server" not in reply.headers
    assert MARK.encode() not in reply.body
    if english:
        assert "work once, in the browser that opened them" in reply.text
        assert "ask your assistant to open your memory page" in reply.text
    else:
        assert "只能用一次" in reply.text and "请你的助手" in reply.text
    assert "review --serve" in reply.text  # the command that serves it again


def test_without_the_secret_every_path_is_a_403_that_shows_the_way_back(
    page: Served, enabled: Path
) -> None:
    before = raw_files(enabled)
    paths = ("/", "/?note=x", "/nothing", "//", "//open", f"//open?key={page.key}", "//x/")
    for method in ("GET", "HEAD"):
        for path in paths:
            reply = request(page, method, path)
            assert reply.status == 403, (method, path)
            if method == "GET":
                _lost(reply)
    for wrong in ("", "x", page.key[:-1] + ("A" if page.key[-1] != "A" else "B")):
        _lost(request(page, "GET", f"/open?key={wrong}"))
    _lost(request(page, "GET", "/", {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}), False)
    _lost(request(page, "GET", "/", {"Accept-Language": "de-DE, en;q=0.5, zh;q=0.4"}))
    _lost(request(page, "POST", "/forget", {"Origin": page.origin}, "memory_id=x&confirm=yes"))
    # Another name for this server (DNS rebinding) or another page's Origin learns nothing.
    for headers in ({"Host": "localhost:1"}, {"Origin": "http://127.0.0.1:1"}):
        reply = request(page, "POST", "/forget", headers, "memory_id=x&confirm=yes")
        assert reply.status == 403 and reply.body == b"403 Forbidden\n"
    assert request(page, "GET", "/", {"Host": "evil.example"}).body == b"403 Forbidden\n"
    assert raw_files(enabled) == before


def test_the_key_becomes_a_strict_httponly_cookie_once(page: Served) -> None:
    reply = request(page, "GET", f"/open?key={page.key}")
    assert reply.status == 303 and reply.headers["Location"] == page.base + "/"
    (cookie,) = reply.cookies
    flags = [f.strip() for f in cookie.split(";")]
    # Scoped to the page's own path: no other server on 127.0.0.1 is ever sent it.
    assert "HttpOnly" in flags and "SameSite=Strict" in flags and f"Path={page.base}" in flags
    assert page.key not in cookie
    # The address works once: a second use (a copied link, a history entry) is refused.
    assert request(page, "GET", f"/open?key={page.key}").status == 403
    shown = request(page, "GET", "/", {"Cookie": cookie.split(";")[0]})
    assert shown.status == 200 and MARK in shown.text
    assert page.key not in shown.text
    assert request(page, "GET", "/", {"Cookie": "memory_page_1=nope"}).status == 403
    # The browser that holds the cookie opening the address again just gets the page.
    again = request(page, "GET", f"/open?key={page.key}", {"Cookie": cookie.split(";")[0]})
    assert again.status == 303 and again.headers["Location"] == page.base + "/"
    assert not again.cookies


def test_the_policy_allows_no_script_and_nothing_from_elsewhere(page: Served) -> None:
    cookie = login(page)
    reply = request(page, "GET", "/", {"Cookie": cookie})
    policy = reply.headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert "script-src" not in directives  # default-src 'none': no script at all
    assert re.fullmatch(r"'sha256-[A-Za-z0-9+/=]+'", directives["style-src"])
    assert directives["form-action"] == "'self'" and directives["frame-ancestors"] == "'none'"
    assert "<script" not in reply.text and "http://" not in reply.text.split("<body", 1)[1]
    assert reply.headers["Cache-Control"] == "no-store"
    assert reply.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:{port}", "localhost:{port}", "127.0.0.1", ""]
)
def test_a_foreign_host_is_refused_with_the_cookie(page: Served, enabled: Path, host: str) -> None:
    """DNS rebinding: a site whose name resolves to 127.0.0.1 sends its own Host."""
    cookie = login(page)
    token, memory_id = _form(page, cookie)
    before = raw_files(enabled)
    host = host.format(port=page.port)
    assert request(page, "GET", "/", {"Cookie": cookie, "Host": host}).status == 403
    assert _forget(page, memory_id, token, Cookie=cookie, Host=host, Origin=page.origin) == 403
    assert raw_files(enabled) == before
    assert MARK in request(page, "GET", "/", {"Cookie": cookie}).text


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "http://127.0.0.1:1", "http://localhost", "null"]
)
def test_a_post_from_another_page_is_refused(page: Served, enabled: Path, origin: str) -> None:
    cookie = login(page)
    token, memory_id = _form(page, cookie)
    before = raw_files(enabled)
    assert _forget(page, memory_id, token, Cookie=cookie, Origin=origin) == 403
    assert _forget(page, memory_id, token, Cookie=cookie) == 403  # no Origin at all
    cross = {"Cookie": cookie, "Origin": page.origin, "Sec-Fetch-Site": "same-site"}
    assert _forget(page, memory_id, token, **cross) == 403
    assert raw_files(enabled) == before


def test_a_change_needs_a_post_with_a_token_the_page_gave(page: Served, enabled: Path) -> None:
    cookie = login(page)
    token, memory_id = _form(page, cookie)
    before = raw_files(enabled)
    same = {"Cookie": cookie, "Origin": page.origin}
    assert _forget(page, memory_id, "forged-token", **same) == 403
    assert _forget(page, memory_id, "", **same) == 403
    body = f"memory_id={memory_id}&confirm=yes"
    assert request(page, "POST", "/forget", same, body).status == 403  # no token field
    reply = request(page, "GET", f"/forget?token={token}&memory_id={memory_id}&confirm=yes", same)
    assert reply.status == 404  # a GET changes nothing, whatever it carries
    assert request(page, "PUT", "/forget", same, body).status == 405
    assert raw_files(enabled) == before
    # The real token, but the yes without the question's digest: asked again, not done.
    reply = request(page, "POST", "/forget", same, f"token={token}&memory_id={memory_id}")
    assert reply.status == 200 and "Please confirm" in reply.text and MARK in reply.text
    assert raw_files(enabled) == before
    # A token is taken once: the same form posted again is refused.
    assert _forget(page, memory_id, token, **same) == 403
    assert ok("show")["count"] == 1


def test_done_ends_the_server(page: Served) -> None:
    cookie = login(page)
    token, _ = _form(page, cookie)
    reply = request(
        page, "POST", "/done", {"Cookie": cookie, "Origin": page.origin}, f"token={token}"
    )
    assert reply.status == 200 and "The page is closed" in reply.text
    assert page.ended() == 0
    # The page names the command that serves it again, as the person's shell takes it
    # (this store's directory, this install's program); run, it serves the page again.
    import html

    found = re.search(r"<code>([^<]*review --serve)</code>", reply.text)
    assert found, reply.text
    again = subprocess.run(
        ["sh", "-c", html.unescape(found.group(1)) + " --no-open"],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "MEMORY_STORE_PAGE_IDLE_SECONDS": "1",
            "MEMORY_STORE_DIR": "/nonexistent",
        },
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout.splitlines()[0])["data"]["serving"] is True


def test_the_server_ends_when_idle(enabled: Path) -> None:
    started = time.monotonic()
    served = serve(env={"MEMORY_STORE_PAGE_IDLE_SECONDS": "2"})
    try:
        assert served.data["idle_seconds"] == 2
        assert served.ended(timeout=30) == 0
        assert time.monotonic() - started < 25
        with pytest.raises(OSError):
            request(served, "GET", "/")
    finally:
        served.stop()


def test_a_refused_start_is_one_envelope(private_store: Path, tmp_path: Path) -> None:
    ok("enable", "--confirm")
    fails("INVALID_ARGUMENTS", "review", "--serve", "--output", str(tmp_path / "r.html"))
    fails("INVALID_ARGUMENTS", "review", "--port", "8080")
    fails("INVALID_ARGUMENTS", "review")
    fails("INVALID_ARGUMENTS", "review", "--serve", "--port", "70000")
    fails("SUBJECT_NOT_FOUND", "review", "--serve", "--no-open", "--subject-id", "obj-nobody")


def test_a_port_in_use_is_refused(enabled: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = fails("INVALID_ARGUMENTS", "review", "--serve", "--no-open", "--port", str(port))
    assert result.error is not None and result.error["details"] == {"port": port}


def test_the_port_asked_for_is_used(enabled: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    served = serve("--port", str(port))
    try:
        assert served.port == port and served.url == f"http://127.0.0.1:{port}{served.base}/"
    finally:
        served.stop()


def test_a_hostile_value_is_text_in_every_form_of_the_served_page(enabled: Path) -> None:
    hostile = '"><script>alert(1)</script><input name="token" value="x'
    put(delta("user", field="city", value=hostile))
    served = serve()
    try:
        cookie = login(served)
        text = request(served, "GET", "/", {"Cookie": cookie}).text
        body = text.split("<body", 1)[1]
        assert "<script" not in body and hostile not in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
        # The correct form's input carries the value escaped, so no second token field appears
        # and the form posts exactly the fields the page wrote.
        # (Every form that posts; the search is a GET form, which changes nothing.)
        posts = body.count('<form class="act" method="post"') + body.count('<form method="post"')
        assert posts == body.count("<form") - body.count('<form class="search" method="get"')
        assert len(re.findall(r'<input type="hidden" name="token"', body)) == posts
    finally:
        served.stop()


def test_without_no_open_the_browser_gets_the_address_and_nothing_prints_it(
    enabled: Path, tmp_path: Path
) -> None:
    log = tmp_path / "opened.txt"
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{log}"\n', encoding="utf-8")
    script.chmod(0o700)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_store", "review", "--serve"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "BROWSER": str(script)},
    )
    assert proc.stdout is not None
    data = json.loads(proc.stdout.readline())["data"]
    assert data["opened"] is True
    address = log.read_text(encoding="utf-8").strip()
    page = Served(proc, data, address)
    assert address.startswith(f"http://127.0.0.1:{page.port}{page.base}/open?key=")
    login(page)  # the key works once: the page is now the browser's alone
    assert request(page, "GET", f"/open?key={page.key}").status == 403
    proc.terminate()
    out, err = proc.communicate(timeout=30)
    assert page.key.encode() not in out + err  # printed nowhere: only the browser got it


def test_with_format_table_the_page_announces_itself_in_lines(enabled: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memory_store",
            "--format",
            "table",
            "review",
            "--serve",
            "--no-open",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={**os.environ, "MEMORY_STORE_PAGE_IDLE_SECONDS": "1"},
        timeout=60,
    )
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 0 and out.startswith("serving") and "{" not in out
    assert "/open?key=" in proc.stderr.decode("utf-8") and "key=" not in out
