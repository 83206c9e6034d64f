"""``memory-store review --serve``: the review page served to the person on 127.0.0.1.

Standard library only (``http.server``), so it runs in every install, the MCP extra or
not. Only the person: it listens on 127.0.0.1 alone; a secret made at each start is in
the address the browser is given (``/open?key=…``) and is exchanged once for an
``HttpOnly``, ``SameSite=Strict`` cookie; every request must carry that cookie, a
``Host`` naming this server (DNS rebinding) and, where the browser sends one, an
``Origin`` and ``Sec-Fetch-Site`` of this page (other local pages); every change is a
POST with a token of a page this server rendered, each token taken once. Anything else
gets a 403 with a neutral body and changes nothing. The page has no script at all; its
policy allows only its own stylesheet (by hash) and forms posted to itself. The server
ends after ``MEMORY_STORE_PAGE_IDLE_SECONDS`` (default 900) without an accepted request,
or when the person presses done. Requests are handled one at a time against the store.
What each button does is ``actions``; the page's markup is ``review``'s.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import socketserver
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from ..errors import MemoryStoreError
from ..review import anchor, document, render_review
from ..review.markup import SPEAKING, STYLE, e
from ..review.words import from_accept_language, pick, speaking
from . import actions, doors, questions, setup
from .controls import Controls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..store import MemoryStore

HOST = "127.0.0.1"  # never 0.0.0.0, never an IPv6 wildcard: the person's own machine only
BODY_MAX = 64 * 1024
KEEP = 64  # outstanding page tokens and notes kept (the oldest go first)
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")
POLICY = (
    f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = (
    ("Content-Security-Policy", POLICY),
    ("Cache-Control", "no-store"),  # a forgotten value must not stay in the browser's cache
    # Not no-referrer: with it Chromium sends "Origin: null" on the page's own forms, and
    # the Origin check is what keeps other local pages out. Nothing leaves this origin.
    ("Referrer-Policy", "same-origin"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)
FORBIDDEN = b"403 Forbidden\n"


class _Kept(OrderedDict[str, Any]):
    """A bounded map: adding past ``KEEP`` drops the oldest entry."""

    def add(self, key: str, value: Any) -> str:
        self[key] = value
        while len(self) > KEEP:
            self.popitem(last=False)
        return key


class PageState:
    """One server's secrets, tokens and clock (made anew at each start). ``request``: the
    assistant's request the page opened at (an action and its form fields), shown first
    until the person answers it."""

    def __init__(
        self,
        store: MemoryStore,
        idle: int,
        subject: str | None,
        request: tuple[str, dict[str, str]] | None = None,
    ) -> None:
        self.store, self.idle, self.subject, self.request = store, idle, subject, request
        self.key = secrets.token_urlsafe(32)  # in the address opened, exchanged once
        self.session = secrets.token_urlsafe(32)  # the cookie's value
        # Every address of the page lives under this path, and the cookie is scoped to
        # it: no other server on 127.0.0.1, whatever its port, is ever sent the cookie.
        self.base = "/" + secrets.token_urlsafe(16)
        self.spent = False
        self.lang: str | None = None  # chosen on the page (?lang=); else Accept-Language
        self.tokens = _Kept()
        self.notes = _Kept()
        self.port = 0
        self.last = time.monotonic()
        self.done = threading.Event()
        self.lock = threading.Lock()

    @property
    def authority(self) -> str:
        return f"{HOST}:{self.port}"

    @property
    def cookie(self) -> str:
        # Cookies are per host, not per port: a name of its own keeps two pages apart.
        return f"memory_page_{self.port}"

    def token(self) -> str:
        return self.tokens.add(secrets.token_urlsafe(24), True)

    def controls(
        self,
        note: tuple[str, bool, str | None] | None = None,
        lang: str = "en",
        paused: bool = False,
    ) -> Controls:
        message, error, op_id = note or ("", False, None)
        idle = max(1, self.idle // 60)
        return Controls(self.token(), idle, message, error, op_id, lang, paused)

    def reopen(self) -> str:
        """The command that serves the page again, as the person's shell takes it."""
        return self.store.location.command("review", "--serve")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: PageState

    def server_bind(self) -> None:
        # HTTPServer.server_bind asks DNS for this host's name; 127.0.0.1 needs no lookup.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = HOST, int(self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        if os.environ.get("MEMORY_STORE_DEBUG") == "1":
            super().handle_error(request, client_address)


def _place_of(subject: Any) -> str:
    """Where on the page a subject's card is (``#…``); "" for the top of the page."""
    return "#" + quote(anchor(subject), safe="-._:") if isinstance(subject, str) else ""


def _problem(exc: MemoryStoreError) -> tuple[str, bool, None]:
    return (f'<span class="code">{e(exc.code)}</span> {e(exc.message)}', True, None)


INTERNAL = MemoryStoreError("INTERNAL_ERROR", "the page server failed unexpectedly", {})


class _Handler(BaseHTTPRequestHandler):
    """One request: the checks first, then the page or the action."""

    server: _Server
    timeout = 30  # a connection that sends nothing is dropped, not waited for
    protocol_version = "HTTP/1.0"  # one request per connection

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request line holds the key: nothing is logged

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        self._send(code, b"" if code != 403 else FORBIDDEN, "text/plain; charset=utf-8")

    def _send(
        self, status: int, body: bytes, kind: str, extra: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self.send_response_only(status)  # no Server or Date header: nothing to reveal
        for name, value in (("Content-Type", kind), *HEADERS, *extra):
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _forbidden(self) -> None:
        self._send(403, FORBIDDEN, "text/plain; charset=utf-8")

    def _lost(self) -> None:
        """No page secret (another browser, a bookmark, a restart, a used link): a 403
        saying how to get a new link, in the person's language, nothing of the store."""
        lang = from_accept_language(self.headers.get("Accept-Language")) or "en"
        body = doors.forbidden(lang, self.server.state.reopen())
        self._send(403, body.encode("utf-8"), "text/html; charset=utf-8")

    def _inside(self, path: str) -> str | None:
        """``path`` within the page (``/``, ``/forget``…), None when not under its secret."""
        base = self.server.state.base
        return path[len(base) :] if path.startswith(base + "/") else None

    def _html(self, markup: str, status: int = 200) -> None:
        self._send(status, markup.encode("utf-8"), "text/html; charset=utf-8")

    def _redirect(self, where: str, extra: tuple[tuple[str, str], ...] = ()) -> None:
        self._send(303, b"", "text/plain; charset=utf-8", (("Location", where), *extra))

    # ------------------------------------------------------------ the checks

    def _from_this_page(self) -> bool:
        """``Host`` names this server; ``Origin`` and ``Sec-Fetch-Site``, where sent, are it."""
        state = self.server.state
        if self.headers.get("Host", "").lower() != state.authority:
            return False  # DNS rebinding: another name that resolves here
        origin = self.headers.get("Origin")
        if origin is not None and origin != f"http://{state.authority}":
            return False
        site = self.headers.get("Sec-Fetch-Site")
        return site is None or site in ("same-origin", "none")

    def _has_cookie(self) -> bool:
        state = self.server.state
        for header in self.headers.get_all("Cookie") or ():
            for part in header.split(";"):
                name, _, value = part.strip().partition("=")
                if name == state.cookie and hmac.compare_digest(value, state.session):
                    return True
        return False

    # ------------------------------------------------------------ GET

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        state = self.server.state
        url = urlsplit(self.path)
        if not self._from_this_page():
            return self._forbidden()
        path = self._inside(url.path)
        if path == "/open":
            return self._exchange(parse_qs(url.query).get("key", [""])[0])
        if path is None or not self._has_cookie():
            return self._lost()
        state.last = time.monotonic()
        query = parse_qs(url.query)
        # The person's switch (?lang=) holds from now on; this request's thread speaks it.
        state.lang = speaking(query.get("lang", [""])[0], state.lang, None)
        SPEAKING.set(speaking(state.lang, None, self.headers.get("Accept-Language")) or "en")
        if path != "/":
            return self._send(404, b"", "text/plain; charset=utf-8")
        note = state.notes.get(query.get("note", [""])[0])
        with state.lock:
            self._html(self._page(note, query.get("q", [""])[0].strip()))

    do_HEAD = do_GET  # noqa: N815 - as GET, without the body

    def _exchange(self, key: str) -> None:
        """The address opened carries the key once; it becomes the cookie."""
        state = self.server.state
        if state.spent and self._has_cookie():
            return self._redirect(state.base + "/")  # the same browser again (a reload)
        with state.lock:
            if state.spent or not key or not hmac.compare_digest(key, state.key):
                return self._lost()
            state.spent = True
            state.last = time.monotonic()
        cookie = f"{state.cookie}={state.session}; HttpOnly; SameSite=Strict; Path={state.base}"
        self._redirect(state.base + "/" + _place_of(state.subject), (("Set-Cookie", cookie),))

    def _page(self, note: tuple[str, bool, str | None] | None, search: str = "") -> str:
        """Before consent, the page that asks for it; then the assistant's request, if one
        waits; then the store's page (paused: Resume first), narrowed to ``search``'s rows
        when it is given."""
        state = self.server.state
        lang = SPEAKING.get() or "en"
        controls = state.controls(note, lang)
        try:
            word = state.store.status()["consent_state"]
            if word in doors.BEFORE_CONSENT:
                delete = state.store.location.command("revoke", "--delete", "--confirm")
                asked = state.request is not None and state.request[0] == "enable"
                return doors.welcome(
                    lang, controls.token, state.store.data_dir, delete, asked, controls.message
                )
            if state.request is not None and state.request[0] != "enable":
                action, fields = state.request
                facts = actions.facts(state.store, action, fields)
                lead = doors.requested(lang, action, facts)
                body = questions.confirmation(action, facts, fields, controls.token, lead=lead)
                return document(body, None)
            controls = state.controls(note, lang, paused=word == "paused")
            snapshot, findings = state.store.review_snapshot()
            found = actions.search(state.store, search, lang, controls) if search else None
            return render_review(snapshot, findings, controls, lang, found)
        except MemoryStoreError as exc:
            return self._problem_page(controls, exc)
        except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
            return self._problem_page(controls, INTERNAL)

    def _problem_page(self, controls: Controls, exc: MemoryStoreError) -> str:
        title = f"<div><h1>{pick(controls.lang, '助手记得什么', 'What the assistant remembers')}</h1></div>"
        message = _problem(exc)[0]
        return document(
            f'<header>{controls.header(title)}</header><main><section class="card">'
            f'<p class="banner error">{message}</p></section></main>',
            None,
            controls.lang,
        )

    # ------------------------------------------------------------ POST

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        state = self.server.state
        # A browser always names the page a form came from; a POST without an Origin
        # did not come from this page.
        if not self._from_this_page() or "Origin" not in self.headers:
            return self._forbidden()
        path = self._inside(urlsplit(self.path).path)
        if path is None or not self._has_cookie():
            return self._lost()
        form = self._form()
        if form is None or state.tokens.pop(form.pop("token", ""), None) is None:
            return self._forbidden()
        state.last = time.monotonic()
        # The question and the note after it, in the page's language.
        SPEAKING.set(speaking(state.lang, None, self.headers.get("Accept-Language")) or "en")
        action = path.lstrip("/")
        if action == "done":
            self._html(document(questions.closed(state.reopen()), None))
            state.done.set()
            return None
        if action not in actions.FIELDS:
            return self._send(404, b"", "text/plain; charset=utf-8")
        with state.lock:
            self._act(action, form)
        return None

    def _form(self) -> dict[str, str] | None:
        """The form's fields, each given once; None for a body that is not one."""
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            return None
        if not 0 <= length <= BODY_MAX:
            return None
        try:
            text = self.rfile.read(length).decode("utf-8")
            fields = parse_qs(text, keep_blank_values=True, max_num_fields=16)
        except (UnicodeDecodeError, ValueError):
            return None
        if any(len(values) != 1 for values in fields.values()):
            return None
        return {name: values[0] for name, values in fields.items()}

    def _act(self, action: str, form: dict[str, str]) -> None:
        state = self.server.state
        allowed = {*actions.FIELDS[action], "confirm", "asked"}
        subject: str | None = None
        try:
            if set(form) - allowed:
                raise MemoryStoreError("INVALID_ARGUMENTS", "unexpected form fields", {})
            before = state.store.status()["consent_state"] in doors.BEFORE_CONSENT
            if before != (action == "enable") or action == "dismiss":
                # Before consent the one thing possible is the person's yes; after it,
                # enable has nothing to do. "Not now" drops the request, nothing else.
                state.request = None if action == "dismiss" else state.request
                return self._redirect(state.base + "/")
            actions.check_shown(state.store, form, action)  # else nothing is written
            if action in questions.DESTRUCTIVE:
                facts = actions.facts(state.store, action, form)
                asked = form.get("asked", "")
                if form.get("confirm") != "yes" or not hmac.compare_digest(
                    asked, questions.digest(facts)
                ):
                    return self._ask(action, facts, form, changed=form.get("confirm") == "yes")
            done = actions.run(state.store, action, form)
            if state.request is not None and state.request[0] == action:
                state.request = None  # answered: the page shows the store again
            note: tuple[str, bool, str | None] = (done.message, False, done.op_id)
            subject = done.subject
        except actions.Stale as changed:
            note, subject = (changed.done.message, True, None), changed.done.subject
        except MemoryStoreError as exc:
            note = _problem(exc)
        except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
            note = _problem(INTERNAL)
        key = state.notes.add(secrets.token_urlsafe(12), note)
        return self._redirect(f"{state.base}/?note={key}" + _place_of(subject))

    def _ask(self, action: str, facts: dict[str, Any], form: dict[str, str], changed: bool) -> None:
        state = self.server.state
        fields = {k: v for k, v in form.items() if k in actions.FIELDS[action]}
        back = "./" + _place_of(facts.get("subject_id"))
        lead = ""
        if state.request is not None and state.request[0] == action:
            lead = doors.requested(SPEAKING.get() or "en", action, facts)
        body = questions.confirmation(action, facts, fields, state.token(), back, changed, lead)
        self._html(document(body, None))

    def _refuse(self) -> None:
        if not self._from_this_page():
            return self._forbidden()
        if self._inside(urlsplit(self.path).path) is None or not self._has_cookie():
            return self._lost()
        return self._send(405, b"", "text/plain; charset=utf-8")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse  # noqa: N815


def serve(
    store: MemoryStore,
    announce: Callable[[dict[str, Any], str | None], None],
    port: int | None = None,
    open_browser: bool = True,
    subject: str | None = None,
    ask: str | None = None,
    memory_id: str | None = None,
) -> None:
    """Serve ``store``'s page until done or idle, in any consent state. ``announce(data,
    address)`` is called once it listens: ``data`` for the envelope, ``address`` (the one
    with the key) when the person must open it themselves (``open_browser`` false, or no
    browser could start). ``ask``: the assistant's request the page opens at (with
    ``subject`` or ``memory_id``). A refusal before that (a damaged store, an unknown
    subject, a port in use) raises."""
    subject, request = setup.opening(store, subject, ask, memory_id)
    state = PageState(store, setup.idle_seconds(), subject, request)
    try:
        server = _Server((HOST, port or 0), _Handler)
    except OSError as exc:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS",
            f"cannot listen on {HOST} port {port}: {exc.strerror or exc}",
            {"port": port},
        ) from None
    server.state, state.port = state, server.server_port
    threading.Thread(target=server.serve_forever, args=(0.2,), daemon=True).start()
    try:
        address = f"http://{state.authority}{state.base}/open?key={state.key}"
        opened = open_browser and setup.open_browser(address)
        data = {
            "serving": True,
            "url": f"http://{state.authority}{state.base}/",
            "port": state.port,
            "opened": opened,
            "subject_id": state.subject,
            "ask": None if request is None else request[0],
            "idle_seconds": state.idle,
        }
        announce(data, None if opened else address)
        state.last = time.monotonic()
        while not state.done.wait(0.5):
            if time.monotonic() - state.last >= state.idle:
                break
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
