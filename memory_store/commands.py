"""The command registry: every command declared once, gathered from its family.

Each family module (``commands_consent``, ``commands_memory``,
``commands_host``) declares its commands with the parts in ``registry``;
this module joins them in the order the help lists them and says which a model
may call as MCP tools. ``cli.py`` builds argparse from it, the server its
tools, ``scripts/gen_cli_reference.py`` ``references/cli.md``.
Importing this module must stay cheap: every assistant turn pays for it.
"""

from __future__ import annotations

from . import commands_consent, commands_host, commands_memory
from .registry import Command, Option, Tool

__all__ = ["COMMANDS", "TOOLS", "Command", "Option", "Tool"]

_ORDER = [
    "status",
    "enable",
    "pause",
    "resume",
    "apply",
    "undo",
    "log",
    "show",
    "context",
    "search",
    "tidy",
    "forget",
    "forget-object",
    "revoke",
    "clear",
    "export",
    "import",
    "review",
    "mcp",
    "skill",
    "doctor",
]
_ALL = {
    c.name: c for c in (*commands_consent.FAMILY, *commands_memory.FAMILY, *commands_host.FAMILY)
}
COMMANDS: dict[str, Command] = {name: _ALL[name] for name in _ORDER}

# The MCP tools (server.py): the commands a model may call, and the ones the person
# confirms in their client. export, import, review, doctor, mcp and skill are not tools.
TOOLS: dict[str, Tool] = {
    "status": Tool("memory_status", "记忆状态 · Memory status", read_only=True, idempotent=True),
    "context": Tool(
        "memory_context", "回忆相关记忆 · Recall memories", read_only=True, idempotent=True
    ),
    "search": Tool("memory_search", "搜索记忆 · Search memories", read_only=True, idempotent=True),
    "tidy": Tool("memory_tidy", "整理记忆 · Tidy memory", read_only=True, idempotent=True),
    "show": Tool("memory_show", "查看记忆 · Show memories", read_only=True, idempotent=True),
    "log": Tool("memory_log", "记忆操作记录 · Memory log", read_only=True, idempotent=True),
    "apply": Tool("memory_apply", "写入记忆 · Save to memory"),
    "undo": Tool("memory_undo", "撤销上一步 · Undo"),
    "pause": Tool("memory_pause", "暂停记忆 · Pause memory", idempotent=True),
    "resume": Tool("memory_resume", "恢复记忆 · Resume memory", idempotent=True),
    "enable": Tool("memory_enable", "开启记忆 · Turn memory on", idempotent=True, confirm=True),
    "forget": Tool(
        "memory_forget",
        "删除一条记忆 · Forget one memory",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
    "forget-object": Tool(
        "memory_forget_object",
        "忘掉一个人 · Forget a person",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
    "clear": Tool(
        "memory_clear",
        "清空记忆 · Clear all memories",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
    "revoke": Tool(
        "memory_revoke",
        "撤回同意 · Revoke consent",
        destructive=True,
        idempotent=True,
        confirm=True,
    ),
}
for _name, _tool in TOOLS.items():
    COMMANDS[_name].tool = _tool
