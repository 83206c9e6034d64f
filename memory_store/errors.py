"""One exception type carrying a stable error code, the code -> exit-status table, and the
envelope every command's output is: a result, or the error's code, message and details.

One module, not two: each module a command imports costs it about as much as ranking
one person's rows (``documentation/performance.md``). The tables of ``--format table``
are ``cli/table_output.py``'s, imported only for them."""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

# The exit-status table (documentation/commands.md#one-envelope-semantic-exit-codes). Tests check that the documentation matches it.
EXIT_STATUS: dict[str, int] = {
    "INTERNAL_ERROR": 1,
    "INVALID_ARGUMENTS": 2,
    "NOT_INITIALIZED": 3,
    "NOTHING_TO_UNDO": 3,
    "OPERATION_NOT_FOUND": 3,
    "SUBJECT_NOT_FOUND": 3,
    "MEMORY_NOT_FOUND": 3,
    "INVALID_DELTA": 4,
    "SENSITIVE_REJECTED": 4,
    "CONSENT_REQUIRED": 5,
    "MEMORY_PAUSED": 5,
    "CONFIRMATION_REQUIRED": 5,
    "SOURCE_NOT_ELIGIBLE": 5,
    "MEMORY_LIMIT_REACHED": 5,
    "UNDO_CONFLICT": 5,
    "STORE_BUSY": 6,
    "STORE_UNAVAILABLE": 6,
    "STORE_CORRUPT": 7,
    "SCHEMA_TOO_NEW": 7,
    "STORE_UNSAFE": 7,
}


class MemoryStoreError(Exception):
    """The only exception the library raises on purpose.

    ``code`` is one of :data:`EXIT_STATUS`; ``details`` is JSON-serialisable and
    never contains text that a sensitive-content detector matched.
    """

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None):
        if code not in EXIT_STATUS:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self.code]

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details}


class ArgumentRuleError(MemoryStoreError):
    """INVALID_ARGUMENTS for one argument; ``rule`` is the message without the name."""

    def __init__(self, name: str, rule: str, **details: Any):
        super().__init__("INVALID_ARGUMENTS", f"{name} {rule}", details)
        self.rule = rule


def error(code: str, message: str, **details: Any) -> MemoryStoreError:
    return MemoryStoreError(code, message, details)


_AFTER_YES = "given only after the user's explicit words; nothing changed"


class ConfirmationRequired(MemoryStoreError):
    """CONFIRMATION_REQUIRED in the caller's own words: the library's message says
    ``confirm=True``; the command line's (:meth:`on_command_line`) says ``--confirm``."""

    def __init__(self, command: str):
        call = command.replace(" --delete", "(delete=True)").replace("-", "_")
        super().__init__("CONFIRMATION_REQUIRED", f"{call} needs confirm=True, {_AFTER_YES}")
        self.command = command

    def on_command_line(self) -> MemoryStoreError:
        return MemoryStoreError(
            "CONFIRMATION_REQUIRED", f"{self.command} needs --confirm, {_AFTER_YES}", self.details
        )


def require_confirm(confirm: bool, what: str) -> None:
    """Step 1 of the check order: a destructive command without confirmation changes nothing.
    ``what`` is the command's name on the command line (``revoke --delete``)."""
    if not confirm:
        raise ConfirmationRequired(what)


def unavailable(exc: OSError) -> MemoryStoreError:
    """An OS error on the store's files: permission, read-only, disk full, a file in the way."""
    return MemoryStoreError(
        "STORE_UNAVAILABLE",
        f"the store cannot be used: {exc.strerror or exc}",
        {"errno": exc.errno},
    )


# ---------------------------------------------------------------- the envelope

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
