"""The command registry: every command declared once, with the rules of its arguments.

A :class:`Command` holds what the command line, the MCP server and the
reference documentation need: its name and help, its options (each with the
library's own rule), the library call, the keys of its ``data`` and notes.
The rules (``check_*``) are the library's: ``MemoryStore`` checks its
arguments with them, the CLI's argparse ``type=`` functions call them, so each
rule has one message wherever it is broken.
``cli.py`` builds argparse from it, ``scripts/gen_cli_reference.py`` writes
``references/cli.md`` from it, and the tests check both against each other.
Importing this module must stay cheap: every assistant turn pays for it.
"""

from __future__ import annotations

from . import policy
from .errors import ArgumentRuleError

TYPE_CHECKING = False  # typing costs a few ms to import; every assistant turn would pay it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


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
    from .relevance import check_query as check

    return check(value)


class Option:
    """One argument of a command.

    ``kind`` is ``flag`` (a boolean switch), ``text`` (an id or name),
    ``int``, ``scope`` or ``path``; ``check`` is the library rule the value
    must pass (``check_*``). A ``positional`` option has no flag. A
    ``cli_only`` option exists only on the command line (``--confirm``, which
    the MCP server replaces with a question to the person; ``apply``'s input
    sources), a ``tool_only`` one only in the MCP server (``apply``'s delta as
    JSON data). Options sharing a ``group`` exclude each other; ``schema`` holds
    the rule as JSON Schema keywords, for the server's input schemas.
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
        call: Callable[[Any, dict[str, Any]], dict[str, Any]] | None,  # (MemoryStore, args) -> data
        output: tuple[tuple[str, str, str], ...],
        notes: str,
        serves: bool = False,
    ):
        self.name = name
        self.help = help
        self.options = options
        self.call = call
        self.output = output
        self.notes = notes
        self.tool: Tool | None = None  # set below, from TOOLS
        self.serves = serves  # owns stdout (the MCP server): no envelope on success


class Tool:
    """How the MCP server offers a command to a model: its tool name, its hints, and
    whether the person must confirm it in their client (elicitation) first."""

    __slots__ = ("name", "read_only", "destructive", "idempotent", "confirm")

    def __init__(
        self,
        name: str,
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        confirm: bool = False,
    ):
        self.name = name
        self.read_only = read_only
        self.destructive = destructive
        self.idempotent = idempotent
        self.confirm = confirm


CONFIRM = Option("confirm", "flag", "the user has explicitly agreed", cli_only=True)
ROW = "row"
ROWS = "list of rows"
ERASED = (
    "erased",
    "bool",
    "the bytes are physically gone (false: another process held the file; the next write finishes)",
)
_BUDGET = (
    f"budget for the memories, {policy.CONTEXT_MAX_CHARS_MIN}-{policy.CONTEXT_MAX_CHARS_MAX} "
    f"(default {policy.CONTEXT_MAX_CHARS_DEFAULT})"
)
_PATH_NOTE = "the database file (for host logs; never shown to the user)"
_QUERY = Option(
    "query",
    "text",
    "the user's current message: rank the memories by relevance to it "
    f"(1-{policy.QUERY_CHARS_MAX} characters)",
    metavar="TEXT",
    check=check_query,
    schema={"type": "string", "minLength": 1, "maxLength": policy.QUERY_CHARS_MAX},
)


def _subject(help_text: str, positional: bool = False) -> Option:
    return Option(
        "subject_id",
        "text",
        help_text,
        metavar="SUBJECT" if positional else "S",
        check=check_text,
        positional=positional,
        schema={"type": "string", "minLength": 1, "maxLength": 64},
    )


_TEXT = {"type": "string", "minLength": 1}
_MAX_CHARS = {
    "type": "integer",
    "minimum": policy.CONTEXT_MAX_CHARS_MIN,
    "maximum": policy.CONTEXT_MAX_CHARS_MAX,
}
_SCOPE = {"enum": list(policy.SCOPES)}


COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "status",
            "Report whether memory exists, consent, counts against caps, undo history.",
            (),
            lambda s, a: s.status(),
            (
                ("exists", "bool", "a database file exists; when false nothing else was read"),
                (
                    "consent_enabled",
                    "bool / null",
                    "the user's consent is in force (null: store from a newer release)",
                ),
                ("consent_at", "time / null", "when the user first agreed"),
                ("paused", "bool / null", "memory is paused"),
                ("policy_version", "int / null", "policy the consent was given under"),
                (
                    "schema_version",
                    "int / null",
                    "the database schema version (`PRAGMA user_version`)",
                ),
                ("counts", "object / null", "`total` and `by_scope` (rows per scope)"),
                (
                    "limits",
                    "object",
                    "the caps: `value_chars`, `total_rows`, `by_scope` (`max`, `per`, `policy`), `undo_history`, `deltas_per_apply`, `input_bytes`",
                ),
                (
                    "undo_available",
                    "int / null",
                    f"operations `undo` can revert (0-{policy.HISTORY_MAX})",
                ),
                ("path", "string", _PATH_NOTE),
                (
                    "unsafe",
                    "object / null",
                    "the `STORE_UNSAFE` error (`code`, `message`, `details.reason` `owner` or `permissions`) when another user owns the directory or database or the directory is writable by group or others; the database is then not read",
                ),
            ),
            "Works in every state and never creates anything; on a missing store `exists` is false. "
            "A store another user could swap is reported in `unsafe`, not refused.",
        ),
        Command(
            "enable",
            "Record the user's explicit consent and create the store.",
            (CONFIRM,),
            lambda s, a: s.enable(confirm=a["confirm"]),
            (
                ("consent_enabled", "true", "consent is in force"),
                ("consent_at", "time", "first consent (kept when consent is renewed)"),
                ("consent_renewed_at", "time", "this consent"),
                ("paused", "false", "enable lifts a pause"),
                ("policy_version", "int", "the policy consented to"),
                ("schema_version", "int", "the database schema version"),
                ("created", "bool", "this call created the database file"),
                ("path", "string", _PATH_NOTE),
            ),
            "Run it only after the user's explicit yes. Without `--confirm`: `CONFIRMATION_REQUIRED`, nothing created. It is the only command that creates the directory (mode 700) and the database (mode 600).",
        ),
        Command(
            "pause",
            "Stop apply and context until resume; nothing is deleted.",
            (),
            lambda s, a: s.pause(),
            (
                ("paused", "true", "apply and context now refuse with `MEMORY_PAUSED`"),
                ("changed", "bool", "false if it was already paused"),
                ("consent_enabled", "true", "consent is unchanged"),
            ),
            "Needs consent (`CONSENT_REQUIRED` otherwise); idempotent.",
        ),
        Command(
            "resume",
            "Lift a pause.",
            (),
            lambda s, a: s.resume(),
            (
                ("paused", "false", "apply and context work again"),
                ("changed", "bool", "false if it was not paused"),
                ("consent_enabled", "true", "consent is unchanged"),
            ),
            "Needs consent (`CONSENT_REQUIRED` otherwise); idempotent.",
        ),
        Command(
            "apply",
            'Record one delta or a batch {"deltas": [...]} in one undoable operation.',
            (
                Option(
                    "json",
                    "text",
                    "the delta or batch as JSON text",
                    metavar="TEXT",
                    cli_only=True,
                    group="source",
                ),
                Option(
                    "file",
                    "path",
                    "read the delta or batch from a file",
                    metavar="PATH",
                    cli_only=True,
                    group="source",
                ),
                Option(
                    "delta",
                    "object",
                    "one delta (schemas/delta.schema.json); or give deltas",
                    tool_only=True,
                ),
                Option(
                    "deltas",
                    "objects",
                    f"a batch of 1-{policy.DELTAS_PER_APPLY_MAX} deltas, one undoable operation",
                    tool_only=True,
                ),
                Option("dry_run", "flag", "validate and report, write nothing"),
            ),
            lambda s, a: s.apply(a["payload"], dry_run=a["dry_run"]),
            (
                (
                    "op_id",
                    "string / null",
                    "the operation to undo; null for a dry run or when nothing changed",
                ),
                (
                    "results",
                    "list",
                    "per delta: `index`, `action` (`created`, `updated`, `unchanged`, `deleted`), `memory` (row)",
                ),
                (
                    "pruned",
                    ROWS,
                    "rows removed to keep a pruning kind (event, hypothesis) within its cap",
                ),
                ("summary", "string", 'one line such as "obj-a relationship.stage → …"'),
                ("undo_hint", "string / null", "the command that reverts this operation"),
                ("dry_run", "bool", "true when nothing was written"),
            ),
            "The body comes from `--json`, `--file` or standard input (at most 64 KiB): one delta "
            '(`schemas/delta.schema.json`) or `{"deltas": [ … ]}` with 1-20 of them. A delta with '
            '`"action": "delete"` names a row by `id`, or by `scope`, `subject_id`, `field` (and '
            "`occurred_at` for an event), and carries nothing else. Consent is checked before the "
            "body is read. The whole batch is one operation: all of it is written, or none.",
        ),
        Command(
            "undo",
            "Revert the latest operation, or the one named.",
            (
                Option(
                    "op_id",
                    "text",
                    "the operation to revert (see log)",
                    metavar="ID",
                    check=check_text,
                    schema=_TEXT,
                ),
            ),
            lambda s, a: s.undo(op_id=a["op_id"]),
            (
                ("undone_op_id", "string", "the operation reverted"),
                ("restored", ROWS, "rows put back from the before-snapshot"),
                ("removed", ROWS, "rows the operation had created"),
                ("summary", "string", '"undid: …"'),
                ("erased", "bool", "the removed values are physically gone from the files"),
            ),
            "Not itself undoable. `UNDO_CONFLICT` lists in `details.later_op_ids` the operations to undo first.",
        ),
        Command(
            "log",
            "List the undoable operations, newest first.",
            (),
            lambda s, a: s.log(),
            (
                (
                    "operations",
                    "list",
                    "newest first: `op_id`, `created_at`, `action`, `summary`, `rows` (rows touched)",
                ),
            ),
            "Works in any consent state. `rows` is how many rows the operation touched; give `op_id` to `undo --op-id`.",
        ),
        Command(
            "show",
            "Show everything stored, optionally for one subject or scope.",
            (
                _subject("only this subject"),
                Option(
                    "scope",
                    "scope",
                    "only this scope",
                    metavar="K",
                    check=check_scope,
                    schema=_SCOPE,
                ),
            ),
            lambda s, a: s.show(subject_id=a["subject_id"], scope=a["scope"]),
            (
                ("count", "int", "number of rows"),
                ("memories", ROWS, "ordered by scope, subject, field, event date"),
            ),
            "Works in any consent state (the user's right of access).",
        ),
        Command(
            "context",
            "Recall what matters for one subject, within a character budget.",
            (
                _subject("the person being discussed"),
                Option(
                    "max_chars",
                    "int",
                    _BUDGET,
                    metavar="N",
                    default=policy.CONTEXT_MAX_CHARS_DEFAULT,
                    check=check_max_chars,
                    schema=_MAX_CHARS,
                ),
                _QUERY,
            ),
            lambda s, a: s.context(
                subject_id=a["subject_id"], max_chars=a["max_chars"], query=a["query"]
            ),
            (
                ("subject_id", "string / null", "the subject asked for"),
                (
                    "subject_known",
                    "bool",
                    "only with a subject other than `user`: false for a new subject",
                ),
                (
                    "memories",
                    "list of compact rows",
                    "most important (or most relevant) first; rows with scope `hypothesis` are tentative",
                ),
                (
                    "roster",
                    "list",
                    "only without a subject: `subject_id`, `display_label`, `counts`, `last_updated`, at most 50",
                ),
                (
                    "truncated",
                    "bool",
                    "some memories (or roster entries) did not fit in `max_chars`",
                ),
                ("omitted", "int", "how many were left out"),
                ("max_chars", "int", "the budget used"),
                ("query", "string / null", "the query, trimmed; null without `--query`"),
                (
                    "ranked_by",
                    "string",
                    "`relevance` with `--query`, else `priority` (release 1's order)",
                ),
            ),
            "Needs consent and no pause; never writes. Rows are compact (`schemas/context.data.schema.json`): "
            "`id`, `scope`, `field`, `value`, and `subject_id`, `occurred_at`, `confidence`, "
            "`source_type`, `source_ref` only when they tell the reader something. With a subject: the "
            "user profile, the subject's object and relationship rows, its hypotheses and its 8 most "
            "recent events, most important first. With `--query`: the subject's `display_label` first, "
            "then every row the query matches (all of the subject's events are candidates), best "
            "first, then the rest in that order. Without a subject: the user profile and a roster of "
            "subjects, which counts against the budget too. What does not fit in `--max-chars` "
            "(measured on the JSON of `memories`) is dropped from the end.",
        ),
        Command(
            "search",
            "Find the memories a question matches, across subjects: who, and what.",
            (
                Option(
                    "query",
                    "text",
                    f"what to look for, in the user's words (1-{policy.QUERY_CHARS_MAX} characters)",
                    metavar="TEXT",
                    check=check_query,
                    required=True,
                    schema={"type": "string", "minLength": 1, "maxLength": policy.QUERY_CHARS_MAX},
                ),
                _subject("only this subject"),
                Option(
                    "scope",
                    "scope",
                    "only this scope",
                    metavar="K",
                    check=check_scope,
                    schema=_SCOPE,
                ),
                Option(
                    "limit",
                    "int",
                    f"at most N rows, {policy.SEARCH_LIMIT_MIN}-{policy.SEARCH_LIMIT_MAX} "
                    f"(default {policy.SEARCH_LIMIT_DEFAULT})",
                    metavar="N",
                    default=policy.SEARCH_LIMIT_DEFAULT,
                    check=check_limit,
                    schema={
                        "type": "integer",
                        "minimum": policy.SEARCH_LIMIT_MIN,
                        "maximum": policy.SEARCH_LIMIT_MAX,
                    },
                ),
                Option(
                    "max_chars",
                    "int",
                    f"budget for the memories, {policy.CONTEXT_MAX_CHARS_MIN}-"
                    f"{policy.CONTEXT_MAX_CHARS_MAX} (default {policy.SEARCH_MAX_CHARS_DEFAULT})",
                    metavar="N",
                    default=policy.SEARCH_MAX_CHARS_DEFAULT,
                    check=check_max_chars,
                    schema=_MAX_CHARS,
                ),
            ),
            lambda s, a: s.search(
                a["query"],
                subject_id=a["subject_id"],
                scope=a["scope"],
                limit=a["limit"],
                max_chars=a["max_chars"],
            ),
            (
                ("query", "string", "the query, trimmed"),
                ("count", "int", "rows returned"),
                ("memories", "list of compact rows", "best match first; each carries `subject_id`"),
                ("truncated", "bool", "some matches did not fit in `max_chars`"),
            ),
            "Needs consent and no pause (it reads memory content, like `context`); never writes. "
            "Only rows with a positive relevance score, best first (ties: most recently written). "
            'For "who did I say likes hiking?" and for finding which subject the user means.',
        ),
        Command(
            "forget",
            "Delete one memory and every operation that mentions it, physically.",
            (
                Option(
                    "memory_id",
                    "text",
                    "",
                    metavar="MEMORY_ID",
                    check=check_text,
                    positional=True,
                    schema=_TEXT,
                ),
                CONFIRM,
            ),
            lambda s, a: s.forget(a["memory_id"], confirm=a["confirm"]),
            (
                ("deleted", "int", "live rows removed"),
                ("operations_removed", "int", "undo operations that mentioned the row, removed"),
                ERASED,
            ),
            "Not undoable. `MEMORY_NOT_FOUND` when no live row and no undo snapshot has that id.",
        ),
        Command(
            "forget-object",
            "Delete every memory about one subject and the operations that mention it, physically.",
            (_subject("", positional=True), CONFIRM),
            lambda s, a: s.forget_object(a["subject_id"], confirm=a["confirm"]),
            (
                ("deleted", "int", "live rows of the subject removed, all scopes"),
                (
                    "operations_removed",
                    "int",
                    "undo operations that mentioned the subject, removed",
                ),
                ERASED,
            ),
            "Not undoable; `forget-object user --confirm` forgets the user's own profile. "
            "`SUBJECT_NOT_FOUND` lists the known subject ids in `details.known_subjects`.",
        ),
        Command(
            "revoke",
            "Withdraw consent (data kept, paused); with --delete, erase the store and its files.",
            (Option("delete", "flag", "also delete every memory and the files"), CONFIRM),
            lambda s, a: s.revoke(confirm=a["confirm"], delete=a["delete"]),
            (
                ("consent_enabled", "false", "consent withdrawn"),
                ("deleted", "bool", "true with `--delete`: the store and its files are gone"),
                ("paused", "true", "without `--delete` only: data kept, memory paused"),
                ("rows_deleted", "int", "with `--delete` only: memories that were erased"),
                (
                    "erased",
                    "bool",
                    "with `--delete` only: the bytes were erased before the files were removed",
                ),
                (
                    "overwritten",
                    "bool",
                    "with `--delete` only: false when not even zeros could be written (a full disk); the files were removed anyway",
                ),
            ),
            "`revoke --confirm` keeps the data and pauses; apply and context then answer "
            "`CONSENT_REQUIRED` until `enable --confirm`. `revoke --delete --confirm` is "
            "irreversible, works on a missing, damaged, newer-release or unsafe store, beside "
            "planted side files and on a full disk, and leaves the directory empty.",
        ),
        Command(
            "clear",
            "Delete every memory and the undo history; consent stays as it is.",
            (CONFIRM,),
            lambda s, a: s.clear(confirm=a["confirm"]),
            (
                ("deleted", "int", "rows removed"),
                ("operations_removed", "int", "undo operations removed"),
                ("erased", "bool", "the bytes are physically gone"),
            ),
            "Not undoable; consent stays as it is.",
        ),
        Command(
            "export",
            "Write a copy of everything stored as one JSON document.",
            (
                Option(
                    "output",
                    "path",
                    "create FILE (mode 600) instead of printing",
                    metavar="FILE",
                ),
            ),
            lambda s, a: s.export(output=a["output"]),
            (
                (
                    "document",
                    "object",
                    "without `--output`: the `memory-store-export/v1` document (`schemas/export.schema.json`)",
                ),
                ("path", "string", "with `--output`: the file created (mode 600)"),
                ("count", "int", "with `--output`: memories written"),
            ),
            "Works in any consent state. `--output` refuses an existing file and a path inside the "
            "store's directory (`INVALID_ARGUMENTS`).",
        ),
        Command(
            "import",
            "Bring back a document written by export, as one undoable operation.",
            (
                Option(
                    "file",
                    "path",
                    "the export document; - reads standard input",
                    metavar="FILE",
                    positional=True,
                    cli_only=True,
                ),
                Option("dry_run", "flag", "check and report, write nothing"),
            ),
            lambda s, a: s.import_(a["source"], dry_run=a["dry_run"]),
            (
                (
                    "op_id",
                    "string / null",
                    "the operation to undo; null for a dry run or when nothing changed",
                ),
                ("counts", "object", "rows `created`, `updated` and `unchanged`"),
                ("summary", "string", '"imported N memories: … created, … updated, … unchanged"'),
                ("undo_hint", "string / null", "the command that reverts the whole import"),
                ("dry_run", "bool", "true when nothing was written"),
            ),
            "Needs consent and no pause. At most 1 MiB; a document of another format version is "
            "`INVALID_DELTA`. Every row is checked like an `apply` delta (field rules, "
            "`SENSITIVE_REJECTED`, `SOURCE_NOT_ELIGIBLE`) and upserted by key with its own "
            "`occurred_at`, `confidence`, sources, times and (when free) id. An import that would "
            "put any kind over its cap is refused whole (`MEMORY_LIMIT_REACHED`), never pruned. "
            "All or nothing; `undo` reverts it.",
        ),
        Command(
            "review",
            "Write a page to read everything remembered in a browser (HTML, mode 600).",
            (
                Option(
                    "output",
                    "path",
                    "create FILE (mode 600); never overwrites",
                    metavar="FILE",
                    required=True,
                ),
            ),
            lambda s, a: s.review(output=a["output"]),
            (
                ("path", "string", "the file created (mode 600)"),
                ("count", "int", "memories on the page"),
                ("people", "int", "subjects other than the user"),
            ),
            "Works in any consent state (the user's right of access). One self-contained page: "
            "no script, nothing fetched. Refuses an existing file and a path inside the store's "
            "directory (`INVALID_ARGUMENTS`). Like an export, the file is a copy the store cannot erase.",
        ),
        Command(
            "mcp",
            "Serve this memory to an assistant over MCP (stdio), the person confirming deletions.",
            (),
            None,  # the command line runs the server itself (cli.py): a face, not a library call
            (),
            'Needs the extra: `pip install "memory-store[mcp]"` (without it: `INVALID_ARGUMENTS`). '
            "stdout then carries only JSON-RPC until the client closes standard input; no envelope "
            "is printed on success. See `documentation/mcp.md`.",
            serves=True,
        ),
        Command(
            "doctor",
            "Check the files, schema and stored rows; read-only.",
            (Option("fix", "flag", "repair file modes (only)"),),
            lambda s, a: s.doctor(fix=a["fix"]),
            (
                ("ok", "bool", "no finding has severity `error`"),
                (
                    "findings",
                    "list",
                    "`check`, `severity` (`ok`, `info`, `warning`, `error`), `message`, optional `details`",
                ),
                ("fixed", "list", "files whose mode `--fix` repaired"),
            ),
            "Read-only (apart from `--fix`); a damaged store is reported as a finding with `ok: false`, not as an error.",
        ),
    )
}

# The MCP tools (server.py): the commands a model may call, and the ones the person
# confirms in their client. export, import, review, doctor and mcp are not tools.
TOOLS: dict[str, Tool] = {
    "status": Tool("memory_status", read_only=True, idempotent=True),
    "context": Tool("memory_context", read_only=True, idempotent=True),
    "search": Tool("memory_search", read_only=True, idempotent=True),
    "show": Tool("memory_show", read_only=True, idempotent=True),
    "log": Tool("memory_log", read_only=True, idempotent=True),
    "apply": Tool("memory_apply"),
    "undo": Tool("memory_undo"),
    "pause": Tool("memory_pause", idempotent=True),
    "resume": Tool("memory_resume", idempotent=True),
    "enable": Tool("memory_enable", idempotent=True, confirm=True),
    "forget": Tool("memory_forget", destructive=True, idempotent=True, confirm=True),
    "forget-object": Tool("memory_forget_object", destructive=True, idempotent=True, confirm=True),
    "clear": Tool("memory_clear", destructive=True, idempotent=True, confirm=True),
    "revoke": Tool("memory_revoke", destructive=True, idempotent=True, confirm=True),
}
for _name, _tool in TOOLS.items():
    COMMANDS[_name].tool = _tool
