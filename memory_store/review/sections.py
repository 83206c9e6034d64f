"""The review page's closing sections: tidy's findings, the recent operations, how to forget.

Apart from the page's assembly (this package's ``__init__``) so that each stays readable.
``page`` is the assembly's ``_Page`` (its language, clock, labels, state and ``controls``:
None for the static file, the served page's buttons otherwise). Every stored string goes
through ``e``.
"""

from __future__ import annotations

from .markup import FINDINGS, e, labelled_summary
from .words import field_name

TYPE_CHECKING = False  # typing costs a few ms to import; the CLI's start-up cannot afford it
if TYPE_CHECKING:
    from typing import Any

FORGET_STEPS = (
    (
        "删除一条记忆（ID 在每一行的详情里）",
        "Forget one memory (its ID is in each row's details)",
        "forget MEMORY_ID --confirm",
    ),
    (
        "删除一个人的全部内容（代号在名片底部）",
        "Forget one person (the code is at the foot of their card)",
        "forget-object SUBJECT --confirm",
    ),
    ("删除全部记忆和撤销历史", "Forget every memory and the undo history", "clear --confirm"),
    (
        "撤回同意并删除存储文件",
        "Withdraw consent and delete the store's files",
        "revoke --delete --confirm",
    ),
)


def _who(subject: Any, page: Any) -> str:
    if subject is None or subject == "":
        return ""
    return f'<span class="who-name">{e(page.name(str(subject)))}</span> '


def _named(ids: list[Any] | tuple[Any, ...], page: Any) -> str:
    """The rows a finding names, as a person reads them: "job, occupation"."""
    fields = [page.fields.get(str(i)) for i in ids]
    names = list(dict.fromkeys(field_name(f, page.lang) for f in fields if f is not None))
    return e(page.t("、", ", ").join(names))


def _finding(f: dict[str, Any], page: Any) -> str:
    ids = f.get("ids")
    ids = ids if isinstance(ids, (list, tuple)) else [] if ids is None else [ids]
    kind = f.get("kind")
    title = e(page.t(*FINDINGS[kind])) if kind in FINDINGS else e(kind)
    codes = " ".join(f'<code class="id">{e(i)}</code>' for i in ids)
    where = f'<p class="meta">ID {codes}</p>' if codes else ""
    button = "" if page.controls is None else page.controls.tidy(f)
    return (
        f'<li class="finding"><details><summary class="line"><span class="kind">{title}</span> '
        f'{_who(f.get("subject_id"), page)}<span class="what">{_named(ids, page)}</span></summary>'
        f'<div class="more"><div class="value">{e(f.get("message"))}</div>{where}</div></details>'
        f"{button}</li>"
    )


def findings(found: list[dict[str, Any]] | None, page: Any) -> str:
    """Tidy's findings (documentation/review.md): suggestions for the person, never changes
    without their yes."""
    if found is None:
        return ""
    t = page.t
    items = [_finding(f if isinstance(f, dict) else {"message": f}, page) for f in found]
    if items:
        body = f'<ul class="findings">{"".join(items)}</ul>'
    else:
        body = f'<p class="note">{t("没有需要整理的。", "Nothing to tidy.")}</p>'
    if page.controls is not None:
        note = t(
            "这些只是建议：按“照做”会先问你，改了也可以撤销。",
            "Suggestions only: “Do it” asks you first, and any change can be undone.",
        )
        proposal = ""
    else:
        note = t(
            "这些只是建议：助手会先问你，你同意才改，改了也可以撤销。",
            "Suggestions only: the assistant asks you first, changes nothing without your yes, "
            "and any change can be undone.",
        )
        proposal = (
            f'<p class="forget">{t("建议的改动", "The proposed changes")}: {page.cmd("tidy")}'
        )
        if page.state != "enabled":  # tidy is gated like context: it answers once consent is on
            proposal += " " + t(
                "（同意有效且未暂停时才能运行）", "(runs once consent is given and not paused)"
            )
        proposal += "</p>"
    return (
        f'<section class="card tidy"><h2>{t("整理建议", "Tidy suggestions")}</h2>'
        f'<p class="note">{note}</p>{body}{proposal}</section>'
    )


def operations(ops: list[dict[str, Any]], page: Any) -> str:
    """The undoable operations, each with the command that undoes it (the served page: a
    button that runs that undo)."""
    t = page.t
    if not ops:
        return f'<p class="note">{t("没有可撤销的操作。", "No operations to undo.")}</p>'
    served = page.controls is not None
    what = (
        t("内容", "What changed")
        if served
        else t("内容和撤销命令", "What changed, and the command that undoes it")
    )
    head = f"<thead><tr><th>{t('时间', 'When')}</th><th>{t('操作', 'Action')}</th><th>{what}</th></tr></thead>"
    rows = []
    for op in ops:
        summary = labelled_summary(
            op.get("summary"), page.labels, page.offsets, page.clock, page.lang
        )
        undo = (
            page.controls.undo(op.get("op_id"))
            if served
            else page.cmd("undo --op-id " + str(op.get("op_id")))
        )
        rows.append(
            f'<tr><td class="meta">{page.clock.stamp(op.get("created_at"))}</td>'
            f'<td>{e(op.get("action"))} <span class="meta">· {e(op.get("rows"))} '
            f'{t("行", "rows")}</span></td><td><div class="value">{summary}</div>{undo}</td></tr>'
        )
    return f'<table class="ops">{head}<tbody>{"".join(rows)}</tbody></table>'


# One word (no spaces), so that the page's quoting keeps the JSON whole.
PAST_DELETE = 'apply --json {"action":"delete","past_id":"PAST_ID"}'


def how_to_forget(page: Any) -> str:
    """The static page's commands for forgetting; the served page has its buttons instead."""
    if page.controls is not None:
        return page.controls.settings(page.state)
    t = page.t
    items = "".join(f"<li>{t(zh, en)}: {page.cmd(args)}</li>" for zh, en, args in FORGET_STEPS)
    past = t(
        "删除一条以前的值（它的 past_id 在详情的“以前”下每一项旁；可撤销）",
        "Remove one earlier value (its past_id is beside it under Earlier, in the details; undoable)",
    )
    copy = t(
        "本页是一份副本：删除存储里的内容不会删除这个文件，请自行删除。",
        "This page is a copy: forgetting in the store does not delete this file; delete it yourself.",
    )
    return (
        f'<section class="card how"><h2>{t("如何删除", "How to forget")}</h2>'
        f'<p class="note">{t("删除是永久的，不能撤销。", "Forgetting is permanent and cannot be undone.")}</p>'
        f'<ul>{items}</ul><p class="forget">{past}: {page.cmd(PAST_DELETE)}</p>'
        f'<p class="note copy">{copy}</p></section>'
    )
