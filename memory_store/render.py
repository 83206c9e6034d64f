"""The envelope, as JSON: every command's output. The tables of ``--format table`` are
``tables.py``, imported only for them (every call would pay to load them)."""

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
