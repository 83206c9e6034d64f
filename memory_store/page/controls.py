"""The served page's buttons and forms (``review --serve``): markup only, no store, no script.

Every change is a POST to the page's own server carrying the page's token; a destructive
one first answers with a confirmation step (``page.questions``), so a button here never
deletes by itself. What each button sends is the one thing the server needs to run the
library's call: the row's id, a past value's ``past_id``, a subject code, an operation id.
Every value that reaches markup goes through ``e``.
"""

from __future__ import annotations

from ..review.markup import bi, e, say

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    from typing import Any

# Rows whose value can end (contract §20: the current value becomes a past one).
ENDS = ("user", "object", "relationship")
# Rows the person can correct on the page: a guess is the assistant's reading, not the
# person's words, so it is forgotten (or corrected through the assistant), not retyped.
CORRECTS = ("user", "object", "relationship", "event")


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
    error) and how long the server waits idle."""

    def __init__(
        self,
        token: str,
        idle_minutes: int,
        message: str = "",
        error: bool = False,
        op_id: str | None = None,
    ) -> None:
        self.token = token
        self.idle_minutes = idle_minutes
        self.message, self.error, self.op_id = message, error, op_id

    def _form(self, action: str, label: str, cls: str = "", **fields: Any) -> str:
        return form(action, self.token, label, cls, **fields)

    def row(self, row: dict[str, Any]) -> str:
        """Forget, end and correct, as far as the row allows."""
        memory_id, scope = row.get("id"), row.get("scope")
        current = row.get("value") is not None and not row.get("ended")
        acts = [self._form("/forget", bi("删除", "Forget"), "danger", memory_id=memory_id)]
        if current and scope in ENDS:
            acts.append(self._form("/end", bi("已不再如此", "No longer true"), memory_id=memory_id))
        if current and scope in CORRECTS:
            acts.append(
                '<details class="correct"><summary>'
                f"{bi('纠正', 'Correct')}</summary>"
                f'<form method="post" action="/correct">'
                f'<input type="hidden" name="token" value="{e(self.token)}">'
                f'<input type="hidden" name="memory_id" value="{e(memory_id)}">'
                f'<input type="text" name="value" value="{e(row.get("value"))}" maxlength="200"'
                f' required aria-label="{e("正确的内容 · The right value")}">'
                f'<button type="submit" class="primary">{bi("保存", "Save")}</button></form>'
                "</details>"
            )
        return f'<div class="acts">{"".join(acts)}</div>'

    def past(self, row: dict[str, Any], entry: dict[str, Any]) -> str:
        """A past value's own forget button, by its ``past_id`` (contract §23); none for
        the only value an ended row holds (forgetting the row is that)."""
        if row.get("ended") and len(row.get("past") or []) <= 1:
            return ""
        label = bi("删除这个旧值", "Forget this past value")
        handle = str(entry.get("past_id") or "")
        button = self._form(
            "/forget-past", label, "danger", memory_id=row.get("id"), past_id=handle
        )
        return f'<span class="acts">{button}</span>'

    def person(self, subject: str, label: str | None) -> str:
        if subject == "user":
            text = bi("删除你自己的全部资料", "Forget your whole profile")
        else:
            text = bi("忘记这个人的全部内容", "Forget everything about this person")
        button = self._form("/forget-object", text, "danger", subject_id=subject)
        return f'<div class="acts forget">{button}</div>'

    def undo(self, op_id: Any) -> str:
        return f'<div class="acts">{self._form("/undo", bi("撤销", "Undo"), op_id=op_id)}</div>'

    def header(self, title: str) -> str:
        done = self._form("/done", bi("完成，关闭页面", "Done, close the page"), "primary")
        note = ""
        if self.message:
            undo = self._form("/undo", bi("撤销这一步", "Undo this"), op_id=self.op_id)
            extra = undo if self.op_id else ""
            cls = "banner error" if self.error else "banner"
            note = f'<div class="{cls}" role="status">{self.message}{extra}</div>'
        return f'<div class="head-row">{title}{done}</div>{note}'

    def footer(self) -> str:
        minutes = int(self.idle_minutes)
        return say(
            f"这个页面只在本机（127.0.0.1）为你提供；{minutes} 分钟无操作或按“完成”后关闭。",
            f"Served on this computer only (127.0.0.1), for you; it closes after {minutes} "
            "minutes without use, or when you press Done.",
        )

    def settings(self, state: str) -> str:
        """Pause or resume, export, withdraw consent: the store as a whole."""
        lines = []
        if state == "enabled":
            lines.append(self._form("/pause", bi("暂停记忆", "Pause memory")))
        elif state == "paused":
            lines.append(self._form("/resume", bi("恢复记忆", "Resume memory")))
        export = (
            '<form method="post" action="/export" class="line">'
            f'<input type="hidden" name="token" value="{e(self.token)}">'
            f'<input type="text" name="path" required placeholder="~/memory-export.json"'
            f' aria-label="{e("导出到文件 · Export to a file")}">'
            f'<button type="submit">{bi("导出到这个文件", "Export to this file")}</button></form>'
        )
        revoke = ""
        if state in ("enabled", "paused"):
            revoke = self._form(
                "/revoke", bi("撤回同意（保留记忆）", "Withdraw consent, keep memories")
            )
        delete = self._form(
            "/revoke-delete",
            bi("撤回同意并删除一切", "Withdraw consent and delete everything"),
            "danger",
        )
        note = say(
            "导出的文件只有你能读（权限 600），不会覆盖已有文件；相对路径从你的主目录算起。",
            "The export is readable by you only (mode 600) and never replaces a file; a relative "
            "path starts at your home folder.",
        )
        return (
            f'<section class="card controls"><h2>{bi("整个记忆", "All of memory")}</h2>'
            f'<div class="line">{"".join(lines)}</div>{export}<p class="note">{note}</p>'
            f'<div class="line">{revoke}{delete}</div></section>'
        )
