"""What an MCP tool answers: the command's data as a result, a refusal as a tool error with
the envelope's ``{code, message, details}``, and the function the SDK reads a tool's
parameters from. Imported only by the MCP server (this package's ``__init__`` and ``confirmation``).
"""

import inspect
import json
import logging
import os
import re
from typing import Any, TypeGuard

from mcp_types import CallToolResult, TextContent

from ..commands import Command
from ..errors import MemoryStoreError, dumps

log = logging.getLogger("memory_store.server")


def _text(data: Any) -> str:
    return dumps(data)  # the same JSON, for clients that read only text (MCP's advice)


def ok(data: dict[str, Any], text: str | None = None) -> CallToolResult:
    """The command's ``data`` as structured content, and as text for clients that read text."""
    return CallToolResult(
        content=[TextContent(type="text", text=text if text is not None else _text(data))],
        structured_content=data,
    )


def refusal_text(payload: dict[str, Any]) -> str:
    """A refusal as the text a model reads: the envelope's ``{code, message, details}`` as
    JSON (the message says the fix)."""
    return dumps(
        {"code": payload["code"], "message": payload["message"], "details": payload["details"]}
    )


# The library's fix names the command a shell runs (with the store's --data-dir); the
# model here calls a tool. The words around it, which follow the person's consent_state,
# stay the library's.
_COMMAND = re.compile(r"`[^`\n]*? (enable --confirm|resume)`")
_TOOL = {"enable --confirm": "memory_enable", "resume": "memory_resume"}


def in_tool_terms(message: str) -> str:
    return _COMMAND.sub(lambda m: _TOOL[m.group(1)], message)


def refusal(error: MemoryStoreError) -> CallToolResult:
    """A tool error carrying the envelope as text only. Structured content is what the
    tool's ``outputSchema`` describes (the data of a success); a client built on the
    TypeScript SDK 1.x validates any structured content of an error against it and shows
    the model only the mismatch, never the code."""
    payload = error.to_dict()
    payload["message"] = in_tool_terms(error.message)
    return CallToolResult(
        content=[TextContent(type="text", text=refusal_text(payload))], is_error=True
    )


def as_refusal(result: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """A tool result as the wire carries it, recast as the refusal ``payload``: its text
    only, no structured content (as :func:`refusal` makes one)."""
    answer = {k: v for k, v in result.items() if k != "structuredContent"}
    return {**answer, "content": [{"type": "text", "text": refusal_text(payload)}], "isError": True}


def refusal_of(text: str) -> dict[str, Any] | None:
    """The ``{code, message, details}`` a refusal's text carries; None for other text."""
    try:
        payload = json.loads(text)
    except ValueError:
        return None
    return payload if is_refusal(payload) else None


def is_refusal(payload: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``payload`` has a refusal's shape: exactly ``{code, message, details}``."""
    return isinstance(payload, dict) and set(payload) == {"code", "message", "details"}


def run_tool(store: Any, command: Command, args: dict[str, Any]) -> CallToolResult:
    """One library call; every failure ends in a tool error with an error code (references/error-codes.md#error-codes)."""
    try:
        data = command.call(store, args)
        if data is None:  # only `mcp` serves instead of answering, and it is no tool
            raise MemoryStoreError("INTERNAL_ERROR", f"{command.name} returned no data")
        return ok(data)
    except MemoryStoreError as exc:
        return refusal(exc)
    except Exception:  # noqa: BLE001 - the last line of defence: no traceback reaches the client
        if os.environ.get("MEMORY_STORE_DEBUG") == "1":
            log.exception("tool %s failed", command.name)
        return refusal(MemoryStoreError("INTERNAL_ERROR", "the memory server failed unexpectedly"))


def with_signature(fn: Any, name: str, params: list[inspect.Parameter], returns: Any) -> Any:
    fn.__name__ = fn.__qualname__ = name
    fn.__signature__ = inspect.Signature(params, return_annotation=returns)
    fn.__annotations__ = {p.name: p.annotation for p in params} | {"return": returns}
    return fn
