"""What the page needs before it listens (``documentation/page.md``): its idle time,
the person or the assistant's request it opens at, and the browser it opens in.

The page starts in any consent state; before consent nothing of the store is read, so a
subject or a request other than turning memory on is not looked up then (the page shows
only its "Turn on memory" button).
"""

from __future__ import annotations

import os
import sys
import threading

from ..errors import MemoryStoreError
from .doors import BEFORE_CONSENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..store import MemoryStore

ENV_IDLE = "MEMORY_STORE_PAGE_IDLE_SECONDS"
IDLE_DEFAULT = 900
IDLE_MAX = 86400
# What the assistant may ask the page to put to the person (open-page's ask): each a
# page action and the argument it needs (revoke-delete: memory_revoke with delete).
ASKS = {
    "enable": None,
    "forget": "memory_id",
    "forget-object": "subject_id",
    "clear": None,
    "revoke": None,
    "revoke-delete": None,
}


def idle_seconds() -> int:
    """The idle timeout: ``MEMORY_STORE_PAGE_IDLE_SECONDS`` (1-86400), else 15 minutes."""
    try:
        value = int(os.environ.get(ENV_IDLE, ""), 10)
    except ValueError:
        return IDLE_DEFAULT
    return value if 1 <= value <= IDLE_MAX else IDLE_DEFAULT


def open_browser(url: str) -> bool:
    """``webbrowser.open`` with this process's stdout pointed away: a browser (or the
    command in ``BROWSER``) inherits it, and stdout carries the one envelope."""
    import webbrowser

    graphical = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    if os.name == "posix" and sys.platform != "darwin" and not any(map(os.environ.get, graphical)):
        # No desktop to show a page on: webbrowser would fall back to a console browser
        # (lynx, w3m) on a terminal this process may not have. The address is printed.
        return False
    result: list[bool] = []

    def run() -> None:
        try:
            result.append(bool(webbrowser.open(url, new=2)))
        except webbrowser.Error:
            result.append(False)

    sys.stdout.flush()
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        opener = threading.Thread(target=run, daemon=True)
        opener.start()
        opener.join(10)  # a browser command that is still running has started
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    return result[0] if result else True


def _subject(store: MemoryStore, given: str | None) -> str | None:
    """The subject the page opens at: a code, or one subject's display_label."""
    if given is None:
        return None
    try:
        return str(store.forget_preview(subject_id=given)["subject_id"])  # resolves, reads only
    except MemoryStoreError as exc:
        if exc.code != "SUBJECT_NOT_FOUND":
            raise
        message = exc.message.replace("nothing was deleted; ", "")
        raise MemoryStoreError(exc.code, message, exc.details) from None


def _refused(message: str, argument: str) -> MemoryStoreError:
    return MemoryStoreError("INVALID_ARGUMENTS", message, {"argument": argument})


def opening(
    store: MemoryStore, subject: str | None, ask: str | None, memory_id: str | None
) -> tuple[str | None, tuple[str, dict[str, str]] | None]:
    """The subject the page opens at and the request it shows first (an action and its
    form fields), checked against the store now. A damaged store refuses here."""
    if ask is None and memory_id is not None:
        raise _refused("memory_id goes with ask forget", "memory_id")
    if ask is not None and ask not in ASKS:
        raise _refused(f"ask is one of {', '.join(ASKS)}", "ask")
    needs = ASKS.get(ask or "")
    if ask == "forget" and memory_id is None:
        raise _refused("ask forget needs memory_id", "memory_id")
    if ask == "forget-object" and subject is None:
        raise _refused("ask forget-object needs subject_id", "subject_id")
    if ask is not None and needs != "memory_id" and memory_id is not None:
        raise _refused("memory_id goes with ask forget", "memory_id")
    if store.status()["consent_state"] in BEFORE_CONSENT:
        return None, ("enable", {}) if ask == "enable" else None
    store.review_snapshot()  # STORE_CORRUPT, a newer schema…: nothing listens
    code = _subject(store, subject)
    if ask is None or ask == "enable":
        return code, None
    fields: dict[str, str] = {}
    if ask == "forget":
        assert memory_id is not None
        store.deletion_preview("forget", memory_id=memory_id)  # MEMORY_NOT_FOUND now
        fields["memory_id"] = memory_id
    elif ask == "forget-object":
        assert code is not None
        fields["subject_id"] = code
    return code, (ask, fields)
