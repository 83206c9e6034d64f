"""The questions the person answers before the MCP server deletes or turns memory on.

Pure text, in the user's language when known (Chinese or English), else both;
the numbers are real, counted from the store just before the question is
asked. Built only from the store's state and the tool's arguments, so that a
question re-asked on a later round of the same call reads the same unless
the store changed (then the person is asked again).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    from typing import Any

IRREVERSIBLE = ("此操作无法撤销。", "This cannot be undone.")


def has_cjk(text: str | None) -> bool:
    return bool(text) and any("\u3400" <= ch <= "\u9fff" for ch in text)  # type: ignore[union-attr]


def language_of(given: str | None, *texts: str | None) -> str:
    """``zh``, ``en``, or ``both`` when neither the caller nor the data says."""
    if given in ("zh", "en"):
        return given
    if any(has_cjk(t) for t in texts):
        return "zh"
    if any(t and t.isascii() and any(c.isalpha() for c in t) for t in texts):
        return "en"
    return "both"


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _all(count: int, one: str, many: str) -> str:
    """ "the 1 memory" / "all 3 memories": "all" only where there is more than one."""
    return f"the {_n(count, one, many)}" if count == 1 else f"all {_n(count, one, many)}"


def _steps(ops: int, it: str) -> str:
    """The undo steps that mention ``it``, the verb agreeing with the count."""
    verb = "mentions" if ops == 1 else "mention"
    return f"the {_n(ops, 'undo step', 'undo steps')} that {verb} {it}"


def _pick(language: str, zh: str, en: str) -> str:
    return zh if language == "zh" else en if language == "en" else f"{zh}\n{en}"


def _who(facts: dict[str, Any]) -> tuple[str, str]:
    subject = facts.get("subject_id")
    if subject == "user":
        return "你自己的资料", "your own profile"
    label = facts.get("label") or subject or "?"
    return label, label


def _short(value: str | None, limit: int = 80) -> str:
    text = (value or "").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def ask(command: str, args: dict[str, Any], facts: dict[str, Any]) -> tuple[str, str]:
    """(question, language) for ``command``; ``facts`` are what it would touch."""
    who_zh, who_en = _who(facts)
    rows, ops = facts.get("rows", 0), facts.get("operations", 0)
    value = facts.get("value")
    language = language_of(args.get("language"), facts.get("label"), value)
    if command == "enable":
        zh = (
            "要不要让助手把你告诉它的关于你自己和你身边的人的关键信息记进长期记忆？"
            "记忆只保存在这台设备上，你随时可以说“撤销刚才的记忆”“暂停记忆”或“删除全部”。"
        )
        en = (
            "Let the assistant keep a long-term memory of the key things you tell it about "
            "yourself and the people in your life? It stays only on this device, and you can say "
            '"undo that", "pause memory" or "delete everything" at any time.'
        )
    elif command == "forget":
        zh = f"删除这条关于{who_zh}的记忆吗？“{_short(value)}”，以及提到它的 {ops} 个撤销步骤。"
        zh += IRREVERSIBLE[0]
        en = (
            f"Delete this memory about {who_en}: “{_short(value)}”, and "
            f"{_steps(ops, 'it')}? {IRREVERSIBLE[1]}"
        )
    elif command == "forget-object":
        zh = f"删除关于{who_zh}的全部 {rows} 条记忆，以及提到它们的 {ops} 个撤销步骤吗？{IRREVERSIBLE[0]}"
        en = (
            f"Delete {_all(rows, 'memory', 'memories')} about {who_en} and "
            f"{_steps(ops, 'it' if rows == 1 else 'them')}? {IRREVERSIBLE[1]}"
        )
    elif command == "clear":
        zh = f"删除全部 {rows} 条记忆和 {ops} 个撤销步骤吗？记忆功能保持开启。{IRREVERSIBLE[0]}"
        en = (
            f"Delete {_all(rows, 'memory', 'memories')} and the "
            f"{_n(ops, 'undo step', 'undo steps')}? Memory stays on. {IRREVERSIBLE[1]}"
        )
    elif command == "revoke" and args.get("delete"):
        zh = f"删除全部 {rows} 条记忆、{ops} 个撤销步骤和记忆文件，并停止记忆吗？{IRREVERSIBLE[0]}"
        en = (
            f"Delete {_all(rows, 'memory', 'memories')}, the "
            f"{_n(ops, 'undo step', 'undo steps')} and the memory file, and stop remembering? "
            f"{IRREVERSIBLE[1]}"
        )
    elif command == "revoke":
        zh = f"停止记忆吗？已有的 {rows} 条记忆会保留，但在你重新开启之前，助手不会再读取或写入。"
        en = (
            f"Stop remembering? The {_n(rows, 'memory', 'memories')} "
            f"{'stays' if rows == 1 else 'stay'}, but nothing is read "
            "or written until you turn memory on again."
        )
    else:
        raise ValueError(command)
    return _pick(language, zh, en), language


NOTHING_CHANGED = {
    "answered_no": ("你选择了不，什么都没有改变。", "You answered no; nothing changed."),
    "declined": (
        "你拒绝了，什么都没有改变。如果你并没有看到这个问题，可以在记忆页面上确认。",
        "You declined; nothing changed. If you were not shown the question, you can "
        "confirm on your memory page.",
    ),
    "cancelled": (
        "已取消，什么都没有改变。如果你并没有看到这个问题，可以在记忆页面上确认。",
        "Cancelled; nothing changed. If you were not shown the question, you can confirm "
        "on your memory page.",
    ),
    "changed_while_asked": (
        "在你回答时，记忆有了变化，所以什么都没有改变。需要的话请再说一次，我会按最新的数量重新问你。",
        "The memory changed while you were being asked, so nothing changed. Say so again "
        "and you will be asked with the new numbers.",
    ),
    "cannot_ask": (
        "什么都没有改变：这个客户端无法请你本人确认。你可以在记忆页面上确认（我可以为你打开它），"
        "或自己在终端运行：",
        "Nothing changed: this client cannot ask you to confirm. You can confirm it on your "
        "memory page (I can open it for you), or run this yourself in a terminal:",
    ),
}


def nothing_changed(reason: str, language: str, command_line: str | None = None) -> str:
    zh, en = NOTHING_CHANGED[reason]
    text = _pick(language, zh, en)
    return f"{text}\n  {command_line}" if command_line else text
