"""The registry's parts: options and commands, the rules of their arguments, and the
table of contents (:data:`FAMILY_OF`: each command, in the help's order, and the family
module of this package that declares it).

A :class:`Command` holds what the command line, the MCP server and the
reference documentation need: its name and help, its options (each with the
library's own rule), the library call, the keys of its ``data`` and notes.
The rules (``check_*``) are the library's: ``MemoryStore`` checks its
arguments with them, the CLI's argparse ``type=`` functions call them, so each
rule has one message wherever it is broken.
The command line builds argparse from one family's records; ``catalog`` joins every
family (the MCP server's tools, ``scripts/gen_cli_reference.py``'s ``references/cli.md``),
and the tests check both against each other. This module imports no family: every
assistant turn pays for what it imports.
"""

from __future__ import annotations

from .. import policy
from ..errors import ArgumentRuleError, ConfirmationRequired

TYPE_CHECKING = False  # typing costs a few ms to import; every assistant turn would pay it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # A command's library call: (MemoryStore, arguments by name) -> its data.
    Call = Callable[[Any, dict[str, Any]], dict[str, Any] | None]


MAX_CHARS_RULE = (
    f"must be an integer from {policy.CONTEXT_MAX_CHARS_MIN} to {policy.CONTEXT_MAX_CHARS_MAX}"
)
SCOPE_RULE = f"must be one of: {', '.join(policy.SCOPES)}"
TEXT_RULE = "must be non-empty UTF-8 text"
LIMIT_RULE = f"must be an integer from {policy.SEARCH_LIMIT_MIN} to {policy.SEARCH_LIMIT_MAX}"


def check_max_chars(value: Any, name: str = "max_chars") -> int:
    lo, hi = policy.CONTEXT_MAX_CHARS_MIN, policy.CONTEXT_MAX_CHARS_MAX
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ArgumentRuleError(name, MAX_CHARS_RULE, minimum=lo, maximum=hi)
    return value


def check_scope(value: Any, name: str = "scope") -> str | None:
    if value is not None and value not in policy.SCOPES:
        raise ArgumentRuleError(name, SCOPE_RULE, allowed=list(policy.SCOPES))
    return value


def check_text(value: Any, name: str) -> str | None:
    """An id or subject given by the caller: a non-empty string of valid UTF-8.

    An argv byte that is not UTF-8 arrives as a lone surrogate; no id or
    subject can contain one.
    """
    if value is None:
        return None
    ok = isinstance(value, str) and value.strip() != ""
    if ok:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            ok = False
    if not ok:
        raise ArgumentRuleError(name, TEXT_RULE, argument=name)
    return value


def check_limit(value: Any, name: str = "limit") -> int:
    lo, hi = policy.SEARCH_LIMIT_MIN, policy.SEARCH_LIMIT_MAX
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ArgumentRuleError(name, LIMIT_RULE, minimum=lo, maximum=hi)
    return value


def check_query(value: Any, name: str = "query") -> str:
    """The user's question, trimmed: the rules of a stored value, 1-500 characters.

    The rule lives with the ranking (``relevance.check_query``), imported only
    when a query is given.
    """
    from ..recall.relevance import check_query as check

    return check(value)


DATE_RULE = "must be a date like 2026-08-02 (YYYY-MM-DD)"


def check_date(value: Any, name: str = "as_of") -> str | None:
    """A day the caller names (``--as-of``): ``YYYY-MM-DD``, a real date."""
    if value is None:
        return None
    ok = isinstance(value, str) and len(value) == 10 and value[4] == value[7] == "-"
    if ok:
        import datetime  # only for a call that names a day

        try:
            ok = datetime.date.fromisoformat(value).isoformat() == value
        except ValueError:
            ok = False
    if not ok:
        raise ArgumentRuleError(name, DATE_RULE, argument=name)
    return value


class Option:
    """One argument of a command.

    ``kind`` is ``flag`` (a boolean switch), ``text`` (an id or name),
    ``int``, ``scope``, ``path`` or ``choice`` (one of ``choices``); ``check``
    is the library rule the value must pass (``check_*``). A ``positional`` option has no flag. A
    ``cli_only`` option exists only on the command line (``--confirm``, which
    the MCP server replaces with a question to the person; ``apply``'s input
    sources), a ``tool_only`` one only in the MCP server (``apply``'s delta as
    JSON data). Options sharing a ``group`` exclude each other; ``schema`` holds
    the rule as JSON Schema keywords, for the server's input schemas, and
    ``tool_help`` the words a tool's input schema gives (``help`` when empty, none
    when None): fewer, since the schema states the bounds and a host pays for every
    character.
    """

    __slots__ = (
        "name",
        "kind",
        "help",
        "metavar",
        "default",
        "check",
        "positional",
        "cli_only",
        "group",
        "required",
        "schema",
        "tool_only",
        "choices",
        "tool_help",
    )

    def __init__(
        self,
        name: str,
        kind: str,
        help: str,
        *,
        metavar: str | None = None,
        default: Any = None,
        check: Callable[..., Any] | None = None,
        positional: bool = False,
        cli_only: bool = False,
        group: str | None = None,
        required: bool = False,
        schema: dict[str, Any] | None = None,
        tool_only: bool = False,
        choices: tuple[str, ...] = (),
        tool_help: str | None = "",
    ):
        self.name = name
        self.kind = kind
        self.help = help
        self.metavar = metavar
        self.default = default
        self.check = check
        self.positional = positional
        self.cli_only = cli_only
        self.group = group
        self.required = required
        self.schema = schema or {}  # JSON Schema constraints the MCP server publishes
        self.tool_only = tool_only
        self.choices = choices
        self.tool_help = tool_help

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


class Command:
    """One command: ``call(store, args)`` runs it, ``args`` holding each option by name."""

    __slots__ = ("name", "help", "options", "call", "output", "notes", "tool", "serves")

    def __init__(
        self,
        name: str,
        help: str,
        options: tuple[Option, ...],
        call: Call,  # (MemoryStore, args) -> data; None only for a command that serves
        output: tuple[tuple[str, str, str], ...],
        notes: str,
        serves: bool = False,
    ):
        self.name = name
        self.help = help
        self.options = options
        self.call = _in_command_words(call) if CONFIRM in options else call
        self.output = output
        self.notes = notes
        self.tool: Any = None  # a commands.Tool, set by commands.command (the MCP server reads it)
        self.serves = serves  # owns stdout (the MCP server): no envelope on success


def _in_command_words(call: Call) -> Call:
    """A command taking ``--confirm``: its missing-confirmation error names the flag, not
    the library's ``confirm=True`` (the MCP server always passes a confirmation it asked for)."""

    def run(store: Any, args: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return call(store, args)
        except ConfirmationRequired as exc:
            raise exc.on_command_line() from None

    return run


# Each command, in the order the help lists them, and the family module declaring it
# (commands_<family>.py): the command line imports only the one it runs.
FAMILY_OF = {
    "status": "consent",
    "enable": "consent",
    "pause": "consent",
    "resume": "consent",
    "apply": "memory",
    "undo": "memory",
    "log": "memory",
    "show": "recall",
    "context": "recall",
    "search": "recall",
    "tidy": "memory",
    "forget": "consent",
    "forget-object": "consent",
    "revoke": "consent",
    "clear": "consent",
    "export": "host",
    "import": "host",
    "review": "host",
    "open-page": "host",
    "mcp": "host",
    "skill": "host",
    "doctor": "host",
}
NAMES: tuple[str, ...] = tuple(FAMILY_OF)


CONFIRM = Option("confirm", "flag", "the user has explicitly agreed", cli_only=True)

# Worked examples, shown under a command's --help and in references/cli.md; each
# command line in them is run by the tests (tests/cli/test_help.py).
EXAMPLES: dict[str, str] = {
    "apply": """\
examples:
  memory-store apply --json '{"scope": "object", "subject_id": "obj-a", "field": "display_label", "value": "小林（读书会认识的设计师）", "source_type": "user_report"}'
  memory-store apply --json '{"deltas": [{"scope": "event", "subject_id": "obj-a", "field": "first_date", "value": "一起去看了展览", "source_type": "user_report", "occurred_at": "2026-08-02"}, {"scope": "user", "field": "relationship_goal", "value": "想找认真的关系", "source_type": "user_explicit"}]}'
  memory-store apply --json '{"scope": "object", "subject_id": "obj-a", "field": "fact_job", "value": "家具设计师", "source_type": "user_report", "correction": true}'
  memory-store apply --json '{"scope": "object", "subject_id": "obj-a", "field": "occupation", "value": "辞职后去杭州当老师了", "source_type": "user_report", "replaces": "m-0123456789abcdef"}'
  memory-store apply --json '{"action": "end", "scope": "object", "subject_id": "obj-a", "field": "occupation", "occurred_at": "2026-11-20"}'
  memory-store apply --json '{"scope": "event", "subject_id": "obj-a", "field": "milestone", "value": "第一次见面：读书会上认识", "source_type": "user_report", "occurred_at": "2026-03-14", "pinned": true}'
  memory-store apply --file delta.json --dry-run

subject_id is a code (obj-a); the person's name goes in display_label. occurred_at
is a date like 2026-08-02: work out "last Saturday" first. "correction": true
rewrites a value that was wrong all along (no past value is kept); "replaces" names
the row the new value takes over from (its id, from the result's related or from
show); "action": "end" records that something stopped, on occurred_at, keeping what
it was; "pinned": true keeps a milestone from being pruned. The rules of every key
are in the skill's references/memory-rules.md, references/time.md and
references/schemas/delta.schema.json (`memory-store skill path` says where the
installed skill is).""",
}
ROW = "row"
ROWS = "list of rows"
ERASED = (
    "erased",
    "bool",
    "the bytes are physically gone (false: another process held the file; the next write finishes)",
)
BUDGET_HELP = (
    f"budget for the memories, {policy.CONTEXT_MAX_CHARS_MIN}-{policy.CONTEXT_MAX_CHARS_MAX} "
    f"(default {policy.CONTEXT_MAX_CHARS_DEFAULT})"
)
PATH_NOTE = "the database file (for host logs; never shown to the user)"
QUERY = Option(
    "query",
    "text",
    "the user's current message: rank the memories by relevance to it "
    f"(1-{policy.QUERY_CHARS_MAX} characters)",
    metavar="TEXT",
    check=check_query,
    schema={"type": "string", "minLength": 1, "maxLength": policy.QUERY_CHARS_MAX},
    tool_help="the user's current message",
)

AS_OF = Option(
    "as_of",
    "text",
    "a day (YYYY-MM-DD): the values true that day first, past or current",
    tool_help="YYYY-MM-DD: what was true that day first",
    metavar="DATE",
    check=check_date,
    schema={"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
)


SUBJECT_NAMES = "a code like obj-a, or exactly one subject's display_label"
TOOL_SUBJECT = "a code or a display_label"
TOOL_SUBJECT_ROLES = ("the person being discussed",)


def subject_option(help_text: str, positional: bool = False) -> Option:
    """A subject argument: a code, or a display label that names exactly one subject
    (``subjects.resolve``)."""
    return Option(
        "subject_id",
        "text",
        f"{help_text}: {SUBJECT_NAMES}" if help_text else SUBJECT_NAMES,
        # The tool's words: the code-or-label rule alone, but for the one whose role
        # it names (context's "the person being discussed").
        tool_help=f"{help_text}: {TOOL_SUBJECT}"
        if help_text in TOOL_SUBJECT_ROLES
        else TOOL_SUBJECT,
        metavar="SUBJECT" if positional else "S",
        check=check_text,
        positional=positional,
        schema={"type": "string"},
    )


TEXT_SCHEMA = {"type": "string", "minLength": 1}
MAX_CHARS_SCHEMA = {
    "type": "integer",
    "minimum": policy.CONTEXT_MAX_CHARS_MIN,
    "maximum": policy.CONTEXT_MAX_CHARS_MAX,
}
SCOPE_SCHEMA = {"enum": list(policy.SCOPES)}
