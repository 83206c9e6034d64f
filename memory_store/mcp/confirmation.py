"""The person's confirmation over MCP: the question (elicitation) a confirmed tool asks
before it enables or deletes, what it counts, and what the answer does.

Declared with the SDK's resolver mechanism, so the confirmation is no argument the model
could fill in. Imported only by the MCP server. No ``from __future__ import annotations``:
the SDK reads the resolvers' annotations as objects.
"""

import inspect
from typing import Any

from mcp.server.mcpserver import (
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
)
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from pydantic import BaseModel, Field, StrictBool

from ..commands import Command
from ..errors import MemoryStoreError
from . import confirmation_text
from .results import ok, refusal, run_tool, with_signature


class Confirm(BaseModel):
    """The form the person sees: one yes/no (flat, as elicitation requires)."""

    # Strict: a yes is the boolean the form asks for, never a string a host filled in
    # ("yes", "1"); anything else did not come from the person (documentation/hosts.md).
    confirm: StrictBool = Field(
        title="确认 · Confirm", description="是 / yes: do it; 否 / no: change nothing"
    )


class CannotAsk(BaseModel):
    """The resolver's answer when the client cannot elicit: nothing is asked, nothing done."""

    language: str = "both"


class Refused(BaseModel):
    """The resolver's answer when the command would be refused anyway: nothing is asked."""

    code: str
    message: str
    details: dict[str, Any] = {}


def can_elicit(ctx: Context) -> bool:
    """Whether the client declared form elicitation (the SDK's own test, done first so that
    a client without it gets an ordinary result rather than a protocol error)."""
    caps = ctx.client_capabilities
    el = caps.elicitation if caps is not None else None
    return el is not None and (el.form is not None or el.url is None)


def _facts(store: Any, command: str, args: dict[str, Any]) -> dict[str, Any]:
    """What the command would touch, counted now, for the question (the page's count too)."""
    return dict(
        store.deletion_preview(
            command,
            memory_id=args.get("memory_id"),
            subject_id=args.get("subject_id"),
            delete=bool(args.get("delete")),
        )
    )


def _terminal_command(store: Any, command: Command, args: dict[str, Any]) -> str:
    """The exact command line the person can run themselves, on this store (named unless
    it is the platform default: their terminal has not the server's environment)."""
    words = [command.name]
    for option in command.options:
        value = args.get(option.name)
        if option.positional and value is not None:
            words.append(value)
        elif option.kind == "flag" and value and not option.cli_only:
            words.append(option.flag)
    if any(o.name == "confirm" for o in command.options):
        words.append("--confirm")
    return store.location.command(*words)


def _question(store: Any, command: Command, args: dict[str, Any]) -> tuple[str, str, str]:
    """(question, language, the subject's code or ""), counted from the store now: the
    same words can name another person once a label moves (documentation/mcp.md#why-the-person-confirms-and-how)."""
    facts = _facts(store, command.name, args)
    text, language = confirmation_text.ask(command.name, args, facts)
    return text, language, facts.get("subject_id") or ""


def resolver(
    store: Any, command: Command, params: list[inspect.Parameter], asked: dict[str, str]
) -> Any:
    async def ask(**kwargs: Any) -> Any:
        ctx = kwargs.pop("ctx")
        try:
            text, language, subject = _question(store, command, kwargs)
        except MemoryStoreError as exc:
            return Refused(code=exc.code, message=exc.message, details=exc.details)
        asked["text"] = text  # what the person answers; the tool compares it after the yes
        asked["language"] = language
        # Whom the person was first asked about: a retry carrying their answer (the
        # modern generation) runs this again, and must not move it to whoever the same
        # words name now.
        asked.setdefault("subject", subject)
        if not can_elicit(ctx):
            return CannotAsk(language=language)
        return Elicit(text, Confirm)

    by_name = [p.replace(default=inspect.Parameter.empty) for p in params]
    ctx = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    returns = Elicit[Confirm] | CannotAsk | Refused
    return with_signature(ask, f"ask_{command.tool.name}", [ctx, *by_name], returns)


def _changed_since_asked(
    store: Any, command: Command, args: dict[str, Any], asked: dict[str, str]
) -> Any:
    """After a yes: the question counted again. If its numbers changed while the person
    read it (the terminal added memories), the yes was not to this deletion: nothing is
    done, and the next call asks with the new numbers. None when the question still holds.

    The modern protocol re-runs the resolver when the answer comes back and asks again
    itself; the legacy one asks once, and only this recount keeps it from deleting more.
    The subject's code is compared too: a label that now names another subject asks the
    same words about someone else."""
    try:
        now, language, subject = _question(store, command, args)
    except MemoryStoreError as exc:
        return refusal(exc)
    if now == asked.get("text") and subject == asked.get("subject"):
        return None
    text = confirmation_text.nothing_changed("changed_while_asked", language)
    return ok({"changed": False, "reason": "changed_while_asked"}, text)


def cannot_ask(store: Any, command: Command, args: dict[str, Any], language: str) -> CallToolResult:
    """The ordinary result (documentation/mcp.md#hosts-without-elicitation) when the person could not be asked: nothing changed, and the
    command they can run themselves."""
    line = _terminal_command(store, command, args)
    text = confirmation_text.nothing_changed("cannot_ask", language, line)
    # The person can also say yes on their page, which memory_open_page opens.
    return ok({"changed": False, "reason": "cannot_ask", "command": line, "page": True}, text)


def _is_error(result: Any) -> bool:
    if isinstance(result, dict):
        return bool(result.get("isError"))
    return bool(getattr(result, "is_error", False))


def answered_with_an_error(store: Any, questions: dict[str, tuple[Command, dict[str, str]]]) -> Any:
    """The middleware for a client whose answer is no answer: a JSON-RPC error (it could
    not show the form), an accept without content, or content without the boolean asked
    (a host that fills in forms on its own). The SDK makes each the tool call's own
    error, which tells the model nothing it can act on; the person was not asked, so the
    call is "cannot ask", and they can still say yes on their page
    (``documentation/hosts.md``). ``questions``: each confirmed tool's command and the
    question its resolver asked in this call (``answered`` once ``confirmed`` ran)."""

    async def middleware(ctx: Any, call_next: Any) -> Any:
        params = ctx.params if isinstance(ctx.params, dict) else {}
        name = params.get("name")
        found = (
            questions.get(name) if ctx.method == "tools/call" and isinstance(name, str) else None
        )
        if found is None:
            return await call_next(ctx)
        command, asked = found
        if "requestState" not in params and "inputResponses" not in params:
            asked.clear()  # a new call, not a retry carrying the answer: nothing asked yet
        try:
            result = await call_next(ctx)
        except MCPError:
            if "text" not in asked:  # not the answer to our question: not ours to recast
                raise
            return _cannot_ask_wire(store, command, params, asked)
        if "text" in asked and "answered" not in asked and _is_error(result):
            # Asked, and the answer never reached ``confirmed``: the SDK refused it.
            return _cannot_ask_wire(store, command, params, asked)
        return result

    return middleware


def _cannot_ask_wire(
    store: Any, command: Command, params: dict[str, Any], asked: dict[str, str]
) -> dict[str, Any]:
    args = params.get("arguments")
    args = args if isinstance(args, dict) else {}
    result = cannot_ask(store, command, args, asked.get("language", "both"))
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")


def confirmed(
    store: Any, command: Command, args: dict[str, Any], answer: Any, asked: dict[str, str]
) -> CallToolResult:
    """Run the command on the person's yes; anything else changes nothing, and says so.
    A decline or a cancel may come from a host that never showed the question, so the
    result says the person can still confirm on their page (``page: true``)."""
    asked["answered"] = "yes"
    language = confirmation_text.language_of(args.get("language"))
    match answer:
        case AcceptedElicitation(data=Refused() as r):
            return refusal(MemoryStoreError(r.code, r.message, r.details))
        case AcceptedElicitation(data=CannotAsk() as c):
            return cannot_ask(store, command, args, c.language)
        case AcceptedElicitation(data=Confirm(confirm=True)):
            stale = _changed_since_asked(store, command, args, asked)
            return stale or run_tool(store, command, {**args, "confirm": True})
        case AcceptedElicitation():
            reason = "answered_no"
        case DeclinedElicitation():
            reason = "declined"
        case CancelledElicitation():
            reason = "cancelled"
        case _:  # pragma: no cover - the SDK's union has no other member
            reason = "cancelled"
    text = confirmation_text.nothing_changed(reason, language)
    data: dict[str, Any] = {"changed": False, "reason": reason}
    if reason in ("declined", "cancelled"):
        data["page"] = True
    return ok(data, text)
