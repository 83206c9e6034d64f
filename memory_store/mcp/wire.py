"""The MCP server's stdio wire: every JSON-RPC line read and checked before the SDK sees it.

The SDK's stdio transport decodes a line as UTF-8 with replacement and parses it with
pydantic: a line it cannot parse (a lone surrogate such as ``"\\ud800"``, half an emoji,
which models do emit) is dropped without an answer, so the host waits for ever; bytes
that are not UTF-8 silently become U+FFFD; and a repeated key keeps its last value, where
the CLI refuses the same delta (documentation/mcp.md#arguments-checked-like-the-command-lines). So the server reads the lines itself
(:class:`CheckedLines`, given to the SDK's ``stdio_server`` as its input) and passes on
unchanged every line that parses cleanly. Any other line is answered:

- a ``tools/call`` whose *arguments* hold the problem becomes a call of no tool, which
  :func:`refusals` turns into a tool error with the envelope's ``{code, message,
  details}`` — ``INVALID_DELTA`` inside ``memory_apply``'s delta, as the CLI answers,
  ``INVALID_ARGUMENTS`` elsewhere — through the SDK's own result path, so the reply has
  the shape of the protocol generation in use;
- any other request gets a JSON-RPC error with its id, a line that is not JSON a parse
  error (``id: null``, JSON-RPC 2.0), and a client's response holding one (its answer to
  a question) an error in its place, so that nothing waits for it and a repeated
  ``"confirm"`` is never read as its last value. A notification has no one to answer;
  a request whose ``id`` MCP forbids (null, fractional, an object, a boolean), which the
  SDK would take for a notification and never answer, gets ``-32600`` with ``id: null``.

Imported only by the MCP server. No ``from __future__ import annotations``, like the rest of ``mcp``.
"""

import json
import re
from contextlib import suppress
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    jsonrpc_message_adapter,
)

from .results import as_refusal, is_refusal

# The tool a refused call is re-addressed to: no tool has this name (names hold no "/").
REFUSED_TOOL = "memory-store/refused"
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


class _Repeated(dict[str, Any]):  # noqa: FURB189 - a marker type: the object had a repeated key
    __slots__ = ("repeated",)
    repeated: str


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            marked = _Repeated(pairs)
            marked.repeated = key
            return marked
        obj[key] = value
    return obj


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _first_problem(message: Any) -> tuple[str, list[Any], str | None] | None:
    """(kind, path, key) of the first lone surrogate or repeated key, in document order."""
    stack: list[tuple[list[Any], Any]] = [([], message)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if _has_surrogate(value):
                return "surrogate", path, None
        elif isinstance(value, dict):
            if isinstance(value, _Repeated):
                return "repeated", path, value.repeated
            for key, item in reversed(value.items()):
                if _has_surrogate(key):
                    return "surrogate", path, None
                stack.append(([*path, key], item))
        elif isinstance(value, list):
            stack.extend(([*path, i], item) for i, item in reversed(list(enumerate(value))))
    return None


def _shown(text: str) -> str:
    """Text fit for a reply: a lone surrogate (or a byte that was not UTF-8) as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _json_path(path: list[Any]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{_shown(str(p))}" for p in path)


def _described(kind: str, where: str, key: str | None) -> str:
    if kind == "repeated":
        return f"repeated key {_shown(key or '')!r} in a JSON object"
    return (
        f"{where} holds a lone surrogate (half of a character such as an emoji, or bytes "
        "that are not UTF-8); send whole characters"
    )


def tool_refusal(tool: str, kind: str, path: list[Any], key: str | None) -> dict[str, Any]:
    """The CLI's refusal for a problem at ``path`` inside a tool's arguments."""
    if tool == "memory_apply":
        # The delta is apply's body: the path and index the CLI gives for --json (a
        # problem beside the delta, "delta" given twice, is at the body's top).
        inside = bool(path) and path[0] in ("delta", "deltas")
        body = path[1:] if inside and path[0] == "delta" else path
        index = path[1] if inside and path[0] == "deltas" and len(path) > 1 else None
        where = _json_path(body)
        details: dict[str, Any] = {"index": index, "path": where}
        return {
            "code": "INVALID_DELTA",
            "message": _described(kind, where, key),
            "details": details,
        }
    where = _json_path(path)
    details = {"argument": _shown(str(path[0])) if path else None, "path": where}
    return {
        "code": "INVALID_ARGUMENTS",
        "message": _described(kind, where, key),
        "details": details,
    }


def _request_id(message: Any) -> Any:
    """The message's id when it can be echoed in a reply, else None."""
    id_ = message.get("id") if isinstance(message, dict) else None
    if isinstance(id_, bool) or not isinstance(id_, (str, int)):
        return None
    return None if isinstance(id_, str) and _has_surrogate(id_) else id_


def _refused(message: Any, code: int, text: str) -> tuple[str | None, Any]:
    """(line, error) answering ``message`` with a JSON-RPC error: a request by its id (or
    ``id: null`` when it has none that can be echoed), a client's response by an error
    response in its place, so the question it answers is not left waiting."""
    id_ = _request_id(message)
    if isinstance(message, dict) and "method" not in message and id_ is not None:
        reply = {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": text}}
        return json.dumps(reply), None
    if isinstance(message, dict) and "method" in message and "id" not in message:
        return None, None  # a notification: no one to answer
    return None, _error(id_, code, text)


def _error(id_: Any, code: int, message: str) -> SessionMessage:
    return SessionMessage(
        JSONRPCError(jsonrpc="2.0", id=id_, error=ErrorData(code=code, message=message))
    )


def _answer(message: Any, problem: tuple[str, list[Any], str | None]) -> tuple[str | None, Any]:
    """(line for the SDK, error to send) for a message holding ``problem``."""
    kind, path, key = problem
    id_ = _request_id(message)
    params = message.get("params") if isinstance(message, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    if (
        id_ is not None
        and message.get("method") == "tools/call"
        and path[:2] == ["params", "arguments"]
        and isinstance(params, dict)
        and isinstance(name, str)
        and not _has_surrogate(name)
        and not isinstance(params, _Repeated)
    ):
        refused: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": id_,
            "method": "tools/call",
            "params": {"name": REFUSED_TOOL, "arguments": tool_refusal(name, kind, path[2:], key)},
        }
        meta = params.get("_meta")
        if isinstance(meta, dict) and _first_problem(meta) is None:
            refused["params"]["_meta"] = meta  # the modern generation's request metadata
        return json.dumps(refused, ensure_ascii=False), None
    code = INVALID_PARAMS if path[:1] == ["params"] else INVALID_REQUEST
    return _refused(message, code, _described(kind, _json_path(path), key))


def check_line(raw: bytes) -> tuple[str | None, Any]:
    """(the line to hand the SDK or None, a ``SessionMessage`` to send back or None)."""
    text = raw.decode("utf-8", "surrogateescape")  # a byte that is not UTF-8: a surrogate
    if not text.strip():
        return None, None
    repeated = False

    def pairs(found: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        obj = _pairs(found)
        repeated = repeated or isinstance(obj, _Repeated)
        return obj

    try:
        message = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None, _error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    if repeated or _has_surrogate(text) or _ESCAPED_SURROGATE.search(text):
        problem = _first_problem(message)
        if problem is not None:
            return _answer(message, problem)
    # null, 1.5, {}, true: an id the SDK would read as a notification's, never answered
    has_id = isinstance(message, dict) and "method" in message and "id" in message
    if has_id and _request_id(message) is None:
        text = "Invalid request: an id is a string or an integer (MCP forbids null)"
        return None, _error(None, INVALID_REQUEST, text)
    try:  # what the SDK would drop in silence (not JSON-RPC at all): answered here
        jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError:  # pydantic's ValidationError is a ValueError
        return _refused(message, INVALID_REQUEST, "Invalid request: not a JSON-RPC message")
    return text, None


class CheckedLines:
    """The server's input for the SDK's ``stdio_server(stdin=...)``: the lines of
    ``stream`` (binary), each checked by :func:`check_line`. ``reply`` is the
    transport's write stream, set once the transport has made it."""

    def __init__(self, stream: Any):
        self._file = anyio.wrap_file(stream)
        self.reply: Any = None

    def __aiter__(self) -> "CheckedLines":
        return self

    async def __anext__(self) -> str:
        while True:
            raw = await self._file.readline()
            if not raw:
                raise StopAsyncIteration
            line, answer = check_line(raw)
            if answer is not None and self.reply is not None:
                # After the session ended no one is listening.
                with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await self.reply.send(answer)
            if line is not None:
                return line


def refusals() -> Any:
    """The middleware that answers a call :func:`check_line` re-addressed: the SDK's own
    "unknown tool" result (so its envelope fits the protocol generation), carrying the
    refusal. A client naming the tool itself only gets back what it sent."""

    async def middleware(ctx: Any, call_next: Any) -> Any:
        params = ctx.params if isinstance(ctx.params, dict) else {}
        if ctx.method != "tools/call" or params.get("name") != REFUSED_TOOL:
            return await call_next(ctx)
        payload = params.get("arguments")
        result = await call_next(ctx)
        if not is_refusal(payload):
            return result
        return as_refusal(result, payload)

    return middleware
