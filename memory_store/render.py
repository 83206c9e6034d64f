"""The envelope, as JSON: every command's output, and how it is written. The
tables of ``--format table`` are ``tables.py``, imported only for them (every call would
pay to load them)."""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

ENVELOPE_SCHEMA = "memory-store/v1"


def envelope(
    command: str | None, data: Any = None, error: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "schema": ENVELOPE_SCHEMA,
        "ok": error is None,
        "command": command,
        "data": data if error is None else None,
        "error": error,
    }


def dumps(obj: Any) -> str:
    # Not ASCII-escaped, but the three characters that some readers take for a
    # line break inside a JSON string are escaped, so the envelope is one line
    # by any definition.
    text = json.dumps(obj, ensure_ascii=False)
    return text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def write(stream: Any, text: str) -> None:
    # UTF-8 whatever the locale: the envelope is never ASCII-escaped. A lone
    # surrogate (an undecodable byte in argv, echoed in an argparse message)
    # becomes a \udcXX escape, which is still valid JSON and valid UTF-8.
    data = (text + "\n").encode("utf-8", "backslashreplace")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))
        stream.flush()
