"""``open-page`` (MCP ``memory_open_page``): the served page started for the person, in the
background, from a process that must not wait for it (the MCP server, an assistant's shell).

It starts ``memory-store review --serve`` on the same store as a process of its own (a
new session: it outlives the call, and a terminal's hang-up or the server's exit does not
end it), reads the one envelope the page prints once it listens, and returns. The page
opens the browser itself, so the one-time key goes from that process to the browser and
never passes through here: the result says that the page opened, and where, not how to
get in.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time

from ..errors import MemoryStoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..store import MemoryStore

START_SECONDS = 30.0  # start-up, the browser's launch included


def _first_line(proc: subprocess.Popen[bytes]) -> bytes:
    """The page's one line on stdout, or b"" if it ended or said nothing in time."""
    assert proc.stdout is not None
    deadline = time.monotonic() + START_SECONDS
    buffer = b""
    while b"\n" not in buffer:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            return b""
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        buffer += chunk
    return buffer.split(b"\n", 1)[0]


def _failed(message: str) -> MemoryStoreError:
    return MemoryStoreError("INTERNAL_ERROR", message, {})


def open_page(
    store: MemoryStore, subject: str | None, ask: str | None = None, memory_id: str | None = None
) -> dict[str, Any]:
    """Start the page on ``store`` (at ``subject``, or at the request ``ask``) and return
    once it listens."""
    location = store.location
    given = (("--subject-id", subject), ("--ask", ask), ("--memory-id", memory_id))
    options = [word for flag, value in given if value is not None for word in (flag, value)]
    words = ["--data-dir", location.data_dir, "review", "--serve", *options]
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_store", *words],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        line = _first_line(proc)
    finally:
        assert proc.stdout is not None
        proc.stdout.close()
    try:
        envelope = json.loads(line.decode("utf-8")) if line else None
    except (UnicodeDecodeError, ValueError):
        envelope = None
    if not isinstance(envelope, dict):
        proc.kill()
        proc.wait()
        raise _failed("the page did not start")
    if not envelope.get("ok"):
        proc.wait()
        error = envelope.get("error") or {}
        raise MemoryStoreError(
            str(error.get("code", "INTERNAL_ERROR")),
            str(error.get("message", "the page did not start")),
            dict(error.get("details") or {}),
        )
    data = envelope["data"]
    result = {
        "opened": bool(data.get("opened")),
        "subject_id": data.get("subject_id"),
        "idle_minutes": max(1, int(data.get("idle_seconds", 900)) // 60),
    }
    if ask is not None:
        result["ask"] = data.get("ask")
    if not result["opened"]:
        # No browser here: the page would wait for no one. The person can start it
        # themselves in a terminal, where its address is printed for them.
        proc.terminate()
        proc.wait()
        result["command"] = location.command("review", "--serve", *options)
        return result
    # Reaped when it ends, so that a long-lived caller (the MCP server) keeps no zombie.
    threading.Thread(target=proc.wait, daemon=True).start()
    return result
