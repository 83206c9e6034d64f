"""The whole registry: every command joined from its family, and the MCP tools.

Each family module (``consent``, ``memory``, ``recall``, ``host`` in this package)
declares its commands with the parts in ``commands/__init__.py``; this module
joins them in the order the help lists them (:data:`COMMANDS`, built on first
use) and says which a model may call as MCP tools (:data:`TOOLS`). The MCP
server builds its tools from it, ``--help`` its list of commands,
``scripts/gen_cli_reference.py`` ``references/cli.md``. A command-line call
never imports it: it needs only its own command's family (``cli.declared``).
"""

from __future__ import annotations

from . import FAMILY_OF, NAMES, Command, Option

__all__ = ["COMMANDS", "NAMES", "TOOLS", "Command", "Option", "Tool", "command"]

COMMANDS: dict[str, Command]  # every command by name, in NAMES' order: see __getattr__


def _family(family: str) -> tuple[Command, ...]:
    from . import consent, host, memory, recall

    return {"consent": consent, "memory": memory, "recall": recall, "host": host}[family].FAMILY


def command(name: str) -> Command:
    """One command's declaration, importing only its family (KeyError for an unknown name)."""
    for found in _family(FAMILY_OF[name]):
        if found.name == name:
            found.tool = TOOLS.get(name)
            return found
    raise KeyError(name)


def _all() -> dict[str, Command]:
    declared = {c.name: c for f in ("consent", "memory", "recall", "host") for c in _family(f)}
    if set(declared) != set(NAMES):
        raise RuntimeError(f"commands declared and listed differ: {set(declared) ^ set(NAMES)}")
    return {name: command(name) for name in NAMES}


def listing(prog: str) -> str:
    """The top-level help's list of commands, each with its help."""
    lines = [f"  {name:<14} {declared.help}" for name, declared in _all().items()]
    return (
        "commands:\n" + "\n".join(lines) + "\n\nEvery command prints one JSON envelope on "
        f"stdout; `{prog} COMMAND --help` for its options."
    )


def __getattr__(name: str) -> dict[str, Command]:
    # COMMANDS, built on first use (PEP 562) and kept as an ordinary global after.
    if name == "COMMANDS":
        commands = globals()["COMMANDS"] = _all()
        return commands
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Tool:
    """How the MCP server offers a command to a model: its tool name, the title a client
    shows, its description (for the model, in the tools' terms: arguments and result, no
    command-line flags or files; a host pays for every character in every conversation),
    its hints, and whether the person must confirm it in their client (elicitation)
    first."""

    __slots__ = (
        "name",
        "title",
        "description",
        "read_only",
        "destructive",
        "idempotent",
        "confirm",
    )

    def __init__(
        self,
        name: str,
        title: str,
        description: str = "",
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        confirm: bool = False,
    ):
        self.name = name
        self.title = title
        self.description = description
        self.read_only = read_only
        self.destructive = destructive
        self.idempotent = idempotent
        self.confirm = confirm


# The MCP tools (the mcp package): the commands a model may call, and the ones the person
# confirms in their client. export, import, review, doctor, mcp and skill are not tools;
# open-page opens the person's own page, where they confirm for themselves.
TOOLS: dict[str, Tool] = {
    "status": Tool(
        "memory_status",
        "记忆状态 · Memory status",
        "Call first in a task: consent_state says what to do.",
        read_only=True,
        idempotent=True,
    ),
    "context": Tool(
        "memory_context",
        "回忆相关记忆 · Recall memories",
        "The user profile and one subject's rows, those matching query first; without "
        "subject_id, a roster. A row with until is past; a hypothesis is a guess.",
        read_only=True,
        idempotent=True,
    ),
    "search": Tool(
        "memory_search",
        "搜索记忆 · Search memories",
        "Rows matching query across people: whom the user means, or who had a trait.",
        read_only=True,
        idempotent=True,
    ),
    "tidy": Tool(
        "memory_tidy",
        "整理记忆 · Tidy memory",
        "Doubles, stale guesses, relative dates, near-full kinds; memory_apply its proposal "
        "only on the person's yes.",
        read_only=True,
        idempotent=True,
    ),
    "show": Tool(
        "memory_show",
        "查看记忆 · Show memories",
        "Every row in full, in any consent state: for the person asking what is remembered.",
        read_only=True,
        idempotent=True,
    ),
    "log": Tool(
        "memory_log",
        "记忆操作记录 · Memory log",
        "The undoable operations, newest first.",
        read_only=True,
        idempotent=True,
    ),
    "apply": Tool(
        "memory_apply",
        "写入记忆 · Save to memory",
        "One delta, or deltas as one undo step. source_type: user_explicit "
        "(the user on themselves; only one for scope user), user_report (on others), "
        "chatlab/tool (events), assistant_inference (hypotheses only, with confidence and "
        "source_ref). delete/end: the row's id, or scope, subject_id, field (+ occurred_at for "
        "an event), nothing else.",
    ),
    "undo": Tool(
        "memory_undo",
        "撤销上一步 · Undo",
        "Revert the latest operation, or op_id (from memory_log).",
    ),
    "pause": Tool(
        "memory_pause",
        "暂停记忆 · Pause memory",
        "On the person's request: no recall or writes until memory_resume; nothing deleted.",
        idempotent=True,
    ),
    "resume": Tool(
        "memory_resume",
        "恢复记忆 · Resume memory",
        "On the person's request: lift a pause.",
        idempotent=True,
    ),
    "enable": Tool(
        "memory_enable",
        "开启记忆 · Turn memory on",
        "Turn memory on: consent_state absent or never_enabled and it would help, or the "
        "person asks.",
        idempotent=True,
        confirm=True,
    ),
    "open-page": Tool(
        "memory_open_page",
        "打开记忆页面 · Open the memory page",
        "Open the person's memory page in their browser: they see, fix, delete and confirm there.",
    ),
    "forget": Tool(
        "memory_forget",
        "删除一条记忆 · Forget one memory",
        "Erase one row (memory_id) and the undo steps that mention it.",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
    "forget-object": Tool(
        "memory_forget_object",
        "忘掉一个人 · Forget a person",
        "Erase every row about one subject (user: the profile) and the undo steps naming it.",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
    "clear": Tool(
        "memory_clear",
        "清空记忆 · Clear all memories",
        "Erase every row and the undo history; consent stays.",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
    "revoke": Tool(
        "memory_revoke",
        "撤回同意 · Revoke consent",
        "Withdraw consent: memory stops, rows kept; delete: erase everything.",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
}
