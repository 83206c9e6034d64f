"""The served review page (``review --serve``): the real process, real HTTP requests, and
Playwright driving the system's Chromium.

``serve()`` starts ``python -m memory_store review --serve --no-open`` on the test's store
and reads what it prints: the envelope on stdout and the address with the one-time key on
stderr. ``request()`` speaks HTTP to it with exactly the headers given (``Host`` included),
for the security cases. ``chromium()`` is Playwright's Chromium — the system's browser
(``/usr/bin/chromium``: Playwright's own browser download is not reachable here). The
browser tests never skip in CI (``CI`` or ``MEMORY_STORE_REQUIRE_BROWSER`` set, as ``.ci/run``
sets it): a missing Playwright or Chromium fails there.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
LAUNCH_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium_path() -> str | None:
    found = next((p for p in CHROMIUM_PATHS if os.access(p, os.X_OK)), None)
    return found or shutil.which("chromium")


def require_browser() -> None:
    """Skip outside CI when Playwright or Chromium is missing; in CI, fail instead."""
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = 'playwright is not installed (pip install -e ".[test]")'
    if problem is None and chromium_path() is None:
        problem = "no chromium (apt-get install -y chromium)"
    if problem is None:
        return
    if os.environ.get("CI") or os.environ.get("MEMORY_STORE_REQUIRE_BROWSER"):
        pytest.fail(f"browser tests never skip in CI: {problem}")
    pytest.skip(problem)


@contextmanager
def chromium() -> Iterator[Any]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Served:
    """One running page: its process, port, envelope data and the address with its key."""

    def __init__(self, proc: subprocess.Popen[bytes], data: dict[str, Any], address: str):
        self.proc, self.data, self.address = proc, data, address
        self.port: int = data["port"]
        self.url: str = data["url"]
        self.key = address.rsplit("key=", 1)[1]
        # Every address of the page is under a path made at each start (the cookie's).
        self.base = address.split(f":{self.port}", 1)[1].rsplit("/open?", 1)[0]
        self.authority = f"127.0.0.1:{self.port}"
        self.origin = f"http://{self.authority}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def ended(self, timeout: float = 30) -> int:
        """The exit status once the server ends by itself."""
        return self.proc.wait(timeout=timeout)


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "memory_store", "review", "--serve", "--no-open", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )


def serve(*args: str, env: dict[str, str] | None = None) -> Served:
    """The page of the current store, listening; its address read from stderr."""
    proc = start(*args, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    envelope = json.loads(proc.stdout.readline())
    assert envelope["ok"], envelope
    address = proc.stderr.readline().decode("utf-8").rsplit(": ", 1)[1].strip()
    proc.stderr.readline()  # the same sentence in Chinese
    return Served(proc, envelope["data"], address)


@pytest.fixture
def served(enabled: Path) -> Iterator[Served]:
    page = serve()
    yield page
    page.stop()


class Reply:
    def __init__(self, status: int, headers: dict[str, str], body: bytes, cookies: list[str]):
        self.status, self.headers, self.body, self.cookies = status, headers, body, cookies

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def request(
    page: Served,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: str | None = None,
) -> Reply:
    """One HTTP request with exactly these headers (``Host`` is this server's unless given).
    ``path`` is within the page (``/``, ``/forget``…) unless it starts with ``//``: then it
    is the server's own path, outside the page's secret (``//x`` is ``/x``)."""
    path = path[1:] if path.startswith("//") else page.base + path
    conn = http.client.HTTPConnection("127.0.0.1", page.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        sent = {"Host": page.authority, **(headers or {})}
        data = body.encode("utf-8") if body is not None else None
        if data is not None:
            sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
            sent["Content-Length"] = str(len(data))
        for name, value in sent.items():
            conn.putheader(name, value)
        conn.endheaders(data)
        response = conn.getresponse()
        payload = response.read()
        cookies = response.msg.get_all("Set-Cookie") or []
        return Reply(response.status, dict(response.getheaders()), payload, cookies)
    finally:
        conn.close()


def login(page: Served) -> str:
    """The cookie the one-time key is exchanged for, as a ``Cookie`` header's value."""
    reply = request(page, "GET", f"/open?key={page.key}")
    assert reply.status == 303, reply.status
    (cookie,) = reply.cookies
    return cookie.split(";", 1)[0]
