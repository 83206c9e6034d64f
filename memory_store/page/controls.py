"""The served page's buttons and forms (``review --serve``): markup only, no store, no script.

Every change is a POST to the page's own server carrying the page's token; a destructive
one (and applying a tidy suggestion) first answers with a confirmation step
(``page.questions``), so a button here never deletes by itself. What each button sends is
the one thing the server needs to run the library's call: the row's id, a past value's
``past_id``, a subject code, an operation id, the rows a suggestion names. The words are
in the page's one language (``lang``). Every value that reaches markup goes through ``e``.
"""

from __future__ import annotations

from ..review.markup import e
from ..review.words import pick
from .questions import row_digest

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    from typing import Any

# Rows whose value can end (documentation/page.md: the current value becomes a past one).
ENDS = ("user", "object", "relationship")
# A name does not stop being true: it is corrected or forgotten, never ended.
NEVER_ENDS = ("display_label",)
# Rows the person can correct on the page; a guess too: the person knows better.
CORRECTS = ("user", "object", "relationship", "event", "hypothesis")
# The findings tidy proposes a change for (its proposal holds a step for their rows).
TIDIES = ("same_concept", "stale_hypothesis")


def form(action: str, token: str, label: str, cls: str = "", **fields: Any) -> str:
    """One button that POSTs ``fields`` (and the page's token) to ``action``."""
    hidden = "".join(
        f'<input type="hidden" name="{e(k)}" value="{e(v)}">'
        for k, v in {"token": token, **fields}.items()
        if v is not None
    )
    kind = f' class="{cls}"' if cls else ""
    return (
        f'<form class="act" method="post" action="{e(action)}">{hidden}'
        f'<button type="submit"{kind}>{label}</button></form>'
    )


class Controls:
    """The buttons of one served page: its ``token`` (every form carries it; the server
    accepts each token once), an optional ``message`` (what the last action did, or its
    error), how long the server waits idle, and the page's language."""

    def __init__(
        self,
        token: str,
        idle_minutes: int,
        message: str = "",
        error: bool = False,
        op_id: str | None = None,
        lang: str = "en",
        paused: bool = False,
    ) -> None:
        self.token = token
        self.idle_minutes = idle_minutes
        self.message, self.error, self.op_id = message, error, op_id
        self.lang = lang
        self.paused = paused

    def t(self, zh: str, en: str) -> str:
        return pick(self.lang, zh, en)

    def _form(self, action: str, label: str, cls: str = "", **fields: Any) -> str:
        return form(action, self.token, label, cls, **fields)

    def row(self, row: dict[str, Any]) -> str:
        """Correct, end and forget, as far as the row allows; inside the row's details."""
        memory_id, scope = row.get("id"), row.get("scope")
        shown = row_digest(row)  # each button acts on this row as shown, or not at all
        current = row.get("value") is not None and not row.get("ended")
        acts = []
        if current and scope in CORRECTS:
            acts.append(
                '<details class="correct"><summary>'
                f"{self.t('纠正', 'Correct')}</summary>"
                f'<form method="post" action="correct">'
                f'<input type="hidden" name="token" value="{e(self.token)}">'
                f'<input type="hidden" name="memory_id" value="{e(memory_id)}">'
                f'<input type="hidden" name="shown" value="{e(shown)}">'
                f'<input type="text" name="value" value="{e(row.get("value"))}" maxlength="200"'
                f' required aria-label="{e(self.t("正确的内容", "The right value"))}">'
                f'<button type="submit" class="primary">{self.t("保存", "Save")}</button></form>'
                "</details>"
            )
        if current and scope in ENDS and row.get("field") not in NEVER_ENDS:
            label = self.t("已不再如此", "No longer true")
            acts.append(self._form("end", label, memory_id=memory_id, shown=shown))
        forget = self.t("删除", "Forget")
        acts.append(self._form("forget", forget, "danger", memory_id=memory_id, shown=shown))
        return f'<div class="acts">{"".join(acts)}</div>'

    def past(self, row: dict[str, Any], entry: dict[str, Any]) -> str:
        """A past value's own forget button, by its ``past_id`` (documentation/page.md); none
        for the only value an ended row holds (forgetting the row is that)."""
        if row.get("ended") and len(row.get("past") or []) <= 1:
            return ""
        label = self.t("删除这个旧值", "Forget this past value")
        handle = str(entry.get("past_id") or "")
        button = self._form("forget-past", label, "danger", memory_id=row.get("id"), past_id=handle)
        return f'<span class="acts">{button}</span>'

    def person(self, subject: str, label: str | None) -> str:
        if subject == "user":
            text = self.t("删除你自己的全部资料", "Forget your whole profile")
        else:
            text = self.t("忘记这个人的全部内容", "Forget everything about this person")
        button = self._form("forget-object", text, "danger", subject_id=subject)
        return f'<div class="acts forget">{button}</div>'

    def tidy(self, finding: dict[str, Any]) -> str:
        """A suggestion's button: it applies tidy's step for these rows, asked first."""
        ids = finding.get("ids")
        if finding.get("kind") not in TIDIES or not isinstance(ids, (list, tuple)) or not ids:
            return ""
        button = self._form("tidy", self.t("照做", "Do it"), ids=",".join(str(i) for i in ids))
        return f'<div class="acts">{button}</div>'

    def resume(self) -> str:
        return self._form("resume", self.t("恢复记忆", "Resume memory"), "primary")

    def undo(self, op_id: Any) -> str:
        return f'<div class="acts">{self._form("undo", self.t("撤销", "Undo"), op_id=op_id)}</div>'

    def header(self, title: str) -> str:
        """The page's title, the language switch and Done; while paused, first of all, the
        banner that says so with its Resume button (``documentation/page.md``)."""
        done = self._form("done", self.t("完成，关闭页面", "Done, close the page"), "primary")
        switch = (
            '<a class="lang" href="?lang=en" hreflang="en" lang="en">English</a>'
            if self.lang == "zh"
            else '<a class="lang" href="?lang=zh" hreflang="zh" lang="zh">中文</a>'
        )
        paused = ""
        if self.paused:
            words = self.t(
                "记忆已暂停：助手现在不保存也不回忆。",
                "Memory is paused: the assistant neither saves nor recalls now.",
            )
            paused = f'<div class="banner" role="status">{words} {self.resume()}</div>'
        note = ""
        if self.message:
            undo = self._form("undo", self.t("撤销这一步", "Undo this"), op_id=self.op_id)
            extra = undo if self.op_id else ""
            cls = "banner error" if self.error else "banner"
            note = f'<div class="{cls}" role="status">{self.message}{extra}</div>'
        head = f'<div class="head-row">{title}<div class="line">{switch}{done}</div></div>'
        return f"{paused}{head}{note}"

    def footer(self) -> str:
        minutes = int(self.idle_minutes)
        return self.t(
            f"这个页面只在本机（127.0.0.1）为你提供；{minutes} 分钟无操作或按“完成”后关闭。",
            f"Served on this computer only (127.0.0.1), for you; it closes after {minutes} "
            "minutes without use, or when you press Done.",
        )

    def settings(self, state: str) -> str:
        """Pause, export, withdraw consent: the store as a whole. (Resume is the page's first
        control while paused, in the banner at the top: documentation/page.md.)"""
        t = self.t
        lines = []
        if state == "enabled":
            lines.append(self._form("pause", t("暂停记忆", "Pause memory")))
        export = (
            '<form method="post" action="export" class="line">'
            f'<input type="hidden" name="token" value="{e(self.token)}">'
            f'<input type="text" name="path" required placeholder="~/memory-export.json"'
            f' aria-label="{e(t("导出到文件", "Export to a file"))}">'
            f'<button type="submit">{t("导出到这个文件", "Export to this file")}</button></form>'
        )
        revoke = ""
        if state in ("enabled", "paused"):
            revoke = self._form(
                "revoke", t("撤回同意（保留记忆）", "Withdraw consent, keep memories")
            )
        delete = self._form(
            "revoke-delete",
            t("撤回同意并删除一切", "Withdraw consent and delete everything"),
            "danger",
        )
        note = t(
            "导出的文件只有你能读（权限 600），不会覆盖已有文件；相对路径从你的主目录算起。",
            "The export is readable by you only (mode 600) and never replaces a file; a relative "
            "path starts at your home folder.",
        )
        return (
            f'<section class="card controls"><h2>{t("整个记忆", "All of memory")}</h2>'
            f'<div class="line">{"".join(lines)}</div>{export}<p class="note">{note}</p>'
            f'<div class="line">{revoke}{delete}</div></section>'
        )
