"""The served page's confirmation step: the question, with real counts, in both languages.

A destructive button (forget a row, a past value or a person; withdraw consent, with or
without deleting) answers with this page instead of acting. Its yes-button carries
``asked``, a digest of the counts the person read; the server counts again before it acts
and, if anything changed meanwhile, asks again with the new numbers (as the MCP server does
after an elicitation, documentation/mcp.md#why-the-person-confirms-and-how). The person is the one clicking, so this page is their
channel, like the question a client asks. Every stored string goes through ``e``.
"""

from __future__ import annotations

import hashlib
import json

from ..review.markup import SPEAKING, bi, e, say
from ..review.words import field_name

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    from typing import Any

# Asked first: what deletes, and a tidy suggestion (it changes rows the person did not type).
DESTRUCTIVE = (
    "forget",
    "forget-past",
    "forget-object",
    "clear",
    "revoke",
    "revoke-delete",
    "tidy",
)
FOR_GOOD = ("删除后无法撤销。", "This cannot be undone.")


def digest(facts: dict[str, Any]) -> str:
    """What the person was shown, as a short fingerprint to compare after their yes."""
    text = json.dumps(facts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def row_digest(row: dict[str, Any]) -> str:
    """The row as the page showed it (id, value, since, until), as a fingerprint each of
    its buttons carries: a row the store changed since then is not written over
    (``documentation/page.md``)."""
    past = row.get("past") or []
    until = past[-1].get("until") if row.get("ended") and past else None
    shown = {"id": row.get("id"), "value": row.get("value"), "since": row.get("since")}
    return digest({**shown, "until": until})


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _quote(value: Any, limit: int = 120) -> str:
    text = " ".join(str(value or "").split())
    return e(text if len(text) <= limit else text[: limit - 1] + "…")


def _who(facts: dict[str, Any]) -> tuple[str, str]:
    if facts.get("subject_id") == "user":
        return "你自己", "you"
    who = e(facts.get("label") or facts.get("subject_id") or "?")
    return who, who


def question(action: str, facts: dict[str, Any]) -> tuple[str, str]:
    """(Chinese, English) question for ``action``, as markup; ``facts`` are its counts."""
    zh_who, en_who = _who(facts)
    rows, ops = int(facts.get("rows") or 0), int(facts.get("operations") or 0)
    steps = _n(ops, "undo step", "undo steps")
    value = _quote(facts.get("value"))
    if action == "forget":
        zh = f"永久删除这条关于{zh_who}的记忆？“{value}”。提到它的 {ops} 个撤销步骤也会删除。"
        zh += FOR_GOOD[0]
        en = (
            f"Forget this memory about {en_who} for good: “{value}”? The {steps} that mention "
            f"it go too. {FOR_GOOD[1]}"
        )
    elif action == "forget-past":
        span = f"{e(facts.get('since') or '…')} → {e(facts.get('until') or '…')}"
        zh = f"删除{zh_who}的这个旧值？“{value}”（{span}）。这一步可以撤销。"
        en = f"Delete this past value about {en_who}: “{value}” ({span})? You can undo this step."
    elif action == "forget-object":
        zh = f"永久删除关于{zh_who}的全部 {rows} 条记忆，以及提到它们的 {ops} 个撤销步骤？"
        zh += FOR_GOOD[0]
        en = (
            f"Forget all {_n(rows, 'memory', 'memories')} about {en_who} for good, and the "
            f"{steps} that mention them? {FOR_GOOD[1]}"
        )
    elif action == "clear":
        zh = f"永久删除全部 {rows} 条记忆和 {ops} 个撤销步骤？记忆保持开启。" + FOR_GOOD[0]
        en = (
            f"Forget all {_n(rows, 'memory', 'memories')} and the {steps} for good? Memory "
            f"stays on. {FOR_GOOD[1]}"
        )
    elif action == "revoke":
        zh = f"撤回同意？已有的 {rows} 条记忆保留，但在你重新同意之前，助手不再读取或写入。"
        en = (
            f"Withdraw consent? The {_n(rows, 'memory', 'memories')} stay, but the assistant "
            "reads and writes nothing until you agree again."
        )
    elif action == "revoke-delete":
        zh = f"撤回同意并删除一切？全部 {rows} 条记忆、{ops} 个撤销步骤和记忆文件都会永久删除。"
        zh += FOR_GOOD[0]
        en = (
            f"Withdraw consent and delete everything? All {_n(rows, 'memory', 'memories')}, the "
            f"{steps} and the memory files go for good. {FOR_GOOD[1]}"
        )
    elif action == "tidy":
        zh, en = _tidy(facts)
    else:
        raise ValueError(action)
    return zh, en


def _tidy(facts: dict[str, Any]) -> tuple[str, str]:
    """Tidy's steps for one suggestion, in words: "end “…” (job) as of 2026-03-10"."""
    zh_parts, en_parts = [], []
    for step in facts.get("steps") or []:
        value = _quote(step.get("value"), 60)
        names = (field_name(step.get("field"), "zh"), field_name(step.get("field"), "en"))
        if step.get("action") == "end":
            when = e(step.get("as_of") or "")
            zh_parts.append(f"把“{value}”（{e(names[0])}）记为截至 {when} 不再如此，保留为旧值")
            en_parts.append(f"end “{value}” ({e(names[1])}) as of {when}, kept as a past value")
        else:
            zh_parts.append(f"删除推测“{value}”（{e(names[0])}）")
            en_parts.append(f"delete the guess “{value}” ({e(names[1])})")
    zh = "照这条建议整理？" + "；".join(zh_parts) + "。这一步可以撤销。"
    en = "Apply this suggestion: " + "; ".join(en_parts) + "? You can undo this step."
    return zh, en


YES = {
    "forget": ("删除", "Forget it"),
    "forget-past": ("删除这个旧值", "Delete the past value"),
    "forget-object": ("全部删除", "Forget them"),
    "clear": ("全部删除", "Forget everything"),
    "revoke": ("撤回同意", "Withdraw consent"),
    "revoke-delete": ("全部删除", "Delete everything"),
    "tidy": ("照做", "Do it"),
}


def confirmation(
    action: str,
    facts: dict[str, Any],
    fields: dict[str, str],
    token: str,
    back: str = "./",
    changed: bool = False,
    lead: str = "",
) -> str:
    """The body of the confirmation step: the question, yes (a POST with ``fields``, the
    token and the digest of ``facts``) and no (back to the page, nothing changed).
    ``lead``: the assistant's request this answers (``doors.requested``); its no is
    "Not now", a POST that drops the request (``dismiss``) and changes nothing else."""
    zh, en = question(action, facts)
    hidden = {**fields, "token": token, "confirm": "yes", "asked": digest(facts)}
    inputs = "".join(
        f'<input type="hidden" name="{e(k)}" value="{e(v)}">' for k, v in hidden.items()
    )
    again = ""
    if changed:
        again = (
            '<p class="banner error">'
            + say(
                "在你阅读时，记忆有了变化；下面是最新的数量，什么都还没有删除。",
                "The memory changed while you were reading; here are the new numbers. Nothing was "
                "deleted yet.",
            )
            + "</p>"
        )
    no = f'<a class="button" href="{e(back)}">{bi("不，保留", "No, keep it")}</a>'
    if lead:
        no = (
            f'<form method="post" action="dismiss"><input type="hidden" name="token" '
            f'value="{e(token)}"><button type="submit">{bi("现在不", "Not now")}</button></form>'
        )
        lead = f'<p class="asked"><strong>{e(lead)}</strong></p>'
    return (
        f'<main><section class="card confirm"><h2>{bi("请确认", "Please confirm")}</h2>{again}'
        f'{lead}<p class="question">{_both(zh, en)}</p>'
        f'<div class="acts"><form method="post" action="{e(action)}">{inputs}'
        f'<button type="submit" class="danger">{bi(*YES[action])}</button></form>'
        f"{no}</div></section></main>"
    )


def _both(zh: str, en: str) -> str:
    """The question in the page's language (``SPEAKING``), or in both, one under the other."""
    lang = SPEAKING.get()
    if lang is not None:
        return zh if lang == "zh" else en
    return f'{zh}<br><span lang="en">{en}</span>'


def closed(reopen: str) -> str:
    """The body the person sees after pressing done: the server has stopped. ``reopen`` is
    the command that serves the page again, as this person's shell must be given it."""
    return (
        '<main><section class="card"><h2>' + bi("页面已关闭", "The page is closed") + "</h2>"
        '<p class="note">'
        + say(
            "服务已停止，可以关闭这个标签页。需要时请助手再打开，或运行：",
            "The server has stopped; you can close this tab. Ask the assistant to open it again, "
            "or run:",
        )
        + f"</p><p><code>{e(reopen)}</code>"
        + "</p></section></main>"
    )
