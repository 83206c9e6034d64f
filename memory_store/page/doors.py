"""The pages the person meets before the store's own (``documentation/page.md``): the
page before consent, with its one "Turn on memory" button; the assistant's request,
which the person answers with a click; and the 403 page a link that no longer works gets.

Each speaks one language, the browser's (``Accept-Language``: Chinese or English), and
none reveals anything of the store beyond what the person needs to get in again.
Every value that reaches markup goes through ``e``.
"""

from __future__ import annotations

from ..review.markup import e
from ..review.words import pick

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    from typing import Any

# The consent states in which nothing is remembered for the assistant (documentation/commands.md#consent-states-and-the-order-of-checks).
BEFORE_CONSENT = ("absent", "never_enabled", "revoked")


def _shell(lang: str, title: str, body: str) -> str:
    """A page of its own (the store's page is ``review.document``, in both languages)."""
    from ..review.markup import STYLE

    html_lang = "zh-CN" if lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{html_lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{STYLE}</style></head><body><main>"
        f'<section class="card">{body}</section></main></body></html>\n'
    )


def forbidden(lang: str, reopen: str) -> str:
    """The 403 page: why this link does not open the page, and how to get a new one.
    ``reopen`` is the command that serves the page, as the person's shell takes it."""
    title = pick(lang, "这个链接已失效", "This link no longer opens the page")
    text = pick(
        lang,
        "记忆页面的链接只能用一次，而且只在打开它的那个浏览器里有效"
        "（换了浏览器、用书签、重启过浏览器或页面都会这样）。这里没有显示任何记忆。",
        "Memory page links work once, in the browser that opened them (another browser, a "
        "bookmark, or a restart of the browser or the page ends them). Nothing of your "
        "memory is shown here.",
    )
    how = pick(
        lang,
        "要打开新的页面：请你的助手“打开我的记忆页面”，或在终端运行：",
        "To get a new one: ask your assistant to open your memory page, or run this in a terminal:",
    )
    return _shell(
        lang,
        title,
        f"<h1>{e(title)}</h1><p>{e(text)}</p><p>{e(how)}</p><p><code>{e(reopen)}</code></p>",
    )


def welcome(
    lang: str, token: str, where: str, delete_command: str, asked: bool, note: str = ""
) -> str:
    """The page before consent: what memory-store keeps, where, how to delete it, and one
    button, whose click is the person's yes (``enable --confirm``). ``asked``: the
    assistant opened the page to ask for it; ``note``: what the last click did (markup,
    as ``actions`` words it: after a withdrawal, what was erased)."""
    title = pick(lang, "开启记忆？", "Turn on memory?")
    lead = (
        pick(lang, "你的助手请你开启记忆。", "Your assistant asked to turn on memory. ")
        if asked
        else ""
    )
    what = pick(
        lang,
        "开启后，助手会把你告诉它的关于你自己和你身边的人的关键信息（名字、工作、"
        "关系、发生过的事）记下来，下次对话时用上。密码、健康等敏感内容不会保存。",
        "With memory on, the assistant keeps the key things you tell it about yourself and "
        "the people in your life (names, work, how you know each other, what happened) and "
        "uses them in later conversations. Passwords, health details and other sensitive "
        "things are never kept.",
    )
    place = pick(
        lang,
        "记忆只保存在这台电脑上的一个文件里：",
        "It stays in one file on this computer, here:",
    )
    delete = pick(
        lang,
        "你随时可以在这个页面上改正或删除任何一条，暂停记忆，或全部删除；也可以在终端运行：",
        "You can correct or forget any of it on this page at any time, pause memory, or "
        "delete everything; or run this in a terminal:",
    )
    button = pick(lang, "开启记忆", "Turn on memory")
    return _shell(
        lang,
        title,
        (f'<div class="banner" role="status">{note}</div>' if note else "")
        + f"<h1>{e(title)}</h1><p>{e(lead)}{e(what)}</p>"
        f'<p>{e(place)} <code class="id">{e(where)}</code></p>'
        f"<p>{e(delete)}</p><p><code>{e(delete_command)}</code></p>"
        f'<form class="act" method="post" action="enable">'
        f'<input type="hidden" name="token" value="{e(token)}">'
        f'<button type="submit" class="primary">{e(button)}</button></form>',
    )


def requested(lang: str, action: str, facts: dict[str, Any]) -> str:
    """The line above the assistant's request: who asked, for what, with the real counts
    ("Your assistant asked to forget 小林 — 15 memories and 7 undo steps.")."""
    rows, ops = int(facts.get("rows") or 0), int(facts.get("operations") or 0)
    label = facts.get("label") or facts.get("subject_id") or ""
    if facts.get("subject_id") == "user":
        label = pick(lang, "你自己的资料", "your own profile")
    if lang == "zh":
        what = {
            "forget": f"删除一条记忆（“{facts.get('value') or ''}”）和 {ops} 个撤销步骤",
            "forget-object": f"忘记{label}——{rows} 条记忆和 {ops} 个撤销步骤",
            "clear": f"删除全部 {rows} 条记忆和 {ops} 个撤销步骤",
            "revoke": f"停止记忆（{rows} 条记忆保留）",
            "revoke-delete": f"停止记忆并删除一切——{rows} 条记忆和 {ops} 个撤销步骤",
        }[action]
        return f"你的助手请求{what}。"
    memories = f"{rows} {'memory' if rows == 1 else 'memories'}"
    steps = f"{ops} undo {'step' if ops == 1 else 'steps'}"
    what = {
        "forget": f"forget one memory (“{facts.get('value') or ''}”) and {steps}",
        "forget-object": f"forget {label} — {memories} and {steps}",
        "clear": f"delete all {memories} and {steps}",
        "revoke": f"stop remembering ({memories} kept)",
        "revoke-delete": f"stop remembering and delete everything — {memories} and {steps}",
    }[action]
    return f"Your assistant asked to {what}."
