"""What each button of the served page does: the library call the command line makes.

``facts`` counts what a destructive action would remove (``MemoryStore.deletion_preview``,
as the MCP questions count), for the confirmation step; ``run`` makes the
call — ``forget``, ``forget_object``, ``apply`` (``end``, a ``correction``, a past value's
``delete``), ``undo``, ``pause``/``resume``, ``export(output=…)``, ``revoke`` — with
``confirm=True`` only where the person has just said yes on the page. A refusal is the
library's ``MemoryStoreError``, which the server shows with its code; nothing here writes
to the store any other way.
"""

from __future__ import annotations

import hmac
import os
from datetime import datetime, timedelta, timezone

from .. import policy
from ..errors import MemoryStoreError
from ..review.markup import Clock, bi, e, labelled_summary, say
from ..review.words import pick
from .questions import DESTRUCTIVE, row_digest

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    from typing import Any

    from ..store import MemoryStore

# Each action and the form fields it takes (every other field is refused).
FIELDS: dict[str, tuple[str, ...]] = {
    "forget": ("memory_id", "shown"),
    "forget-past": ("memory_id", "past_id"),
    "forget-object": ("subject_id",),
    "end": ("memory_id", "shown"),
    "correct": ("memory_id", "value", "shown"),
    "undo": ("op_id",),
    "pause": (),
    "resume": (),
    "export": ("path",),
    "clear": (),
    "revoke": (),
    "revoke-delete": (),
    "tidy": ("ids",),
    "enable": (),
    "dismiss": (),
}
# Where a correction typed on the page comes from when the row named none: the person
# said it, here (documentation/page.md).
CORRECTION_SOURCE = "review page"
# The buttons that act on one row as the page showed it (``shown``, its digest).
ROW_ACTIONS = ("forget", "end", "correct")


class Done:
    """What an action did: a message (markup), the operation that undoes it, and the card to
    show (the subject it touched; None for the top of the page)."""

    def __init__(self, message: str, op_id: str | None = None, subject: str | None = None):
        self.message, self.op_id, self.subject = message, op_id, subject


def _need(form: dict[str, str], name: str) -> str:
    value = form.get(name, "")
    if not value.strip():
        raise MemoryStoreError("INVALID_ARGUMENTS", f"{name} is missing", {"argument": name})
    return value


def _row(store: MemoryStore, memory_id: str) -> dict[str, Any]:
    """The row now, with the offset its time was written in (the page's own data)."""
    for row in store.review_snapshot()[0]["memories"]:
        if row["id"] == memory_id:
            return dict(row)
    raise MemoryStoreError(
        "MEMORY_NOT_FOUND", "no memory has that id (it may be gone already)", {"id": memory_id}
    )


# The page names one past value by its own handle, ``past_id`` (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id), which the
# command line's apply takes too; the confirmation's digest (its value and dates) still
# guards against a value that changed while the person read the question.
def _past_entry(row: dict[str, Any], handle: str) -> dict[str, Any]:
    for entry in row.get("past") or []:
        if isinstance(entry, dict) and handle and entry.get("past_id") == handle:
            return dict(entry)
    raise MemoryStoreError(
        "MEMORY_NOT_FOUND", "that past value is not stored any more", {"past_id": handle}
    )


def _delete_past(store: MemoryStore, memory_id: str, handle: str) -> dict[str, Any]:
    _past_entry(_row(store, memory_id), handle)
    return dict(store.apply({"action": "delete", "past_id": handle}, verbose=True))


def _label(store: MemoryStore, subject: str) -> str | None:
    for row in store.show(subject_id=subject, scope="object")["memories"]:
        if row["field"] == "display_label" and row["value"]:
            return str(row["value"])
    return None


def facts(store: MemoryStore, action: str, form: dict[str, str]) -> dict[str, Any]:
    """What a destructive ``action`` would remove, counted now (the question's numbers):
    ``MemoryStore.deletion_preview``, the count the MCP question uses."""
    if action == "forget":
        return store.deletion_preview("forget", memory_id=_need(form, "memory_id"))
    if action == "forget-object":
        return store.deletion_preview("forget-object", subject_id=_need(form, "subject_id"))
    if action == "forget-past":
        row = _row(store, _need(form, "memory_id"))
        entry = _past_entry(row, _need(form, "past_id"))
        subject = str(row["subject_id"])
        return {
            "rows": 0,
            "subject_id": subject,
            "label": None if subject == "user" else _label(store, subject),
            "value": entry.get("value"),
            "since": entry.get("since"),
            "until": entry.get("until"),
        }
    if action == "tidy":
        return tidy_steps(store, _need(form, "ids"))
    if action == "clear":
        return store.deletion_preview("clear")
    # revoke, revoke --delete: the whole store (the right to delete runs on any store)
    return store.deletion_preview("revoke", delete=action == "revoke-delete")


def _summary(store: MemoryStore, result: dict[str, Any], subject: Any) -> str:
    """The operation's summary as the page's operation list shows it: the person's name
    instead of their code."""
    label = _label(store, subject) if isinstance(subject, str) and subject != "user" else None
    labels = {subject: label} if label else {}
    return labelled_summary(result.get("summary"), labels, {}, Clock(None))


def _saved(store: MemoryStore, result: dict[str, Any], zh: str, en: str) -> Done:
    results = result.get("results") or [{}]
    subject = (results[0].get("memory") or {}).get("subject_id")
    message = f'{bi(zh, en)}: <span class="value">{_summary(store, result, subject)}</span>'
    return Done(message, result.get("op_id"), subject)


def changed_since_shown(
    store: MemoryStore, form: dict[str, str], action: str
) -> dict[str, Any] | None:
    """For a button on one row: the row as it is now, when it is no longer the row the
    page showed (its digest, ``shown``): the assistant wrote meanwhile. None when it is
    the same (or gone: the call then answers MEMORY_NOT_FOUND), or for other buttons."""
    if action not in ROW_ACTIONS or (action == "forget" and "shown" not in form):
        # A forget the assistant asked for (no row drawn) is guarded by the question's
        # own digest, which holds the value the person reads.
        return None
    try:
        row = _row(store, _need(form, "memory_id"))
    except MemoryStoreError:
        return None
    return None if hmac.compare_digest(form.get("shown", ""), row_digest(row)) else row


class Stale(Exception):
    """A button pressed on a row the store changed since the page was drawn: ``done``
    is the note that shows the row anew."""

    def __init__(self, done: Done) -> None:
        super().__init__("the row changed since the page was drawn")
        self.done = done


def check_shown(store: MemoryStore, form: dict[str, str], action: str) -> None:
    """Raise ``Stale`` when a row button's row is not the one the person saw."""
    now = changed_since_shown(store, form, action)
    if now is not None:
        raise Stale(stale(now))


def stale(row: dict[str, Any]) -> Done:
    """The note for a button pressed on a row the store changed since the page was drawn:
    nothing written; the page shows the row anew, to be chosen again."""
    past = row.get("past") or []
    value = row.get("value") if not row.get("ended") else (past[-1].get("value") if past else "")
    now = f'<span class="value">{e(value)}</span>'
    ended = say("（已不再如此）", " (no longer true)") if row.get("ended") else ""
    message = say(
        f"在页面打开期间，这条记忆已经变了，现在是：{now}{ended}。什么都没有写入；请看下面最新的样子再选一次。",
        f"This memory changed while the page was open; it is now {now}{ended}. Nothing was "
        "written: look at it again below and choose again.",
    )
    return Done(message, None, row.get("subject_id"))


def _written_time(at: str | None, offset: str | None) -> str | None:
    """An event time as it was written: the stored UTC instant in its written offset
    (19:30 +08:00 stays so, not 11:30 UTC)."""
    if not at or not offset or offset == "Z" or "T" not in at:
        return at
    sign = -1 if offset.startswith("-") else 1
    hours, _, minutes = offset[1:].partition(":")
    zone = timezone(sign * timedelta(hours=int(hours), minutes=int(minutes or 0)))
    instant = datetime.fromisoformat(at.replace("Z", "+00:00"))
    return instant.astimezone(zone).isoformat()


def _correction(row: dict[str, Any], value: str) -> dict[str, Any]:
    """The delta that corrects ``row`` to ``value``: its key and everything else it holds
    (the event time in its written offset, confidence, the evidence it came from), only
    the value and its source changed: the person's own word (``user_explicit``)."""
    delta = {
        "scope": row["scope"],
        "subject_id": row["subject_id"],
        "field": row["field"],
        "value": value,
        "source_type": "user_explicit",
        "source_ref": row.get("source_ref") or CORRECTION_SOURCE,
        "correction": True,
    }
    if row.get("confidence"):
        delta["confidence"] = row["confidence"]
    if row["scope"] == "event":
        delta["occurred_at"] = _written_time(row["occurred_at"], row.get("occurred_offset"))
    return delta


def _erasure_note(result: dict[str, Any]) -> str:
    """What the erasure's receipt (``data.verified``, ``documentation/privacy.md``) says:
    the erased text looked for in the store's files and found in none, or still found."""
    note = ""
    if not result.get("erased", True):
        note = " " + say(
            "另一个程序正打开着记忆文件，字节会在下一次写入时擦除。",
            "Another program has the memory file open; its bytes are erased with the next write.",
        )
    verified = result.get("verified")
    if not isinstance(verified, dict) or not verified.get("texts"):
        return note
    if verified.get("absent"):
        return (
            note
            + " "
            + say(
                "已在记忆文件（数据库及其附属文件）中查找被删除的文字：哪里都找不到了。",
                "The erased text was looked for in the memory's files (the database and its side "
                "files) and found in none.",
            )
        )
    return (
        note
        + " "
        + say(
            "被删除的文字仍能在记忆文件中找到（可能有别的程序正打开着它）；关闭那个程序后再删除一次。",
            "The erased text can still be found in the memory's files (another program may hold "
            "them open); close it and forget again.",
        )
    )


def _forgotten(result: dict[str, Any], subject: str | None) -> Done:
    n, ops = result.get("deleted", 0), result.get("operations_removed", 0)
    message = say(
        f"已永久删除 {n} 条记忆和 {ops} 个撤销步骤。",
        f"Forgotten for good: {n} {'memory' if n == 1 else 'memories'} and {ops} undo "
        f"{'step' if ops == 1 else 'steps'}.",
    )
    return Done(message + _erasure_note(result), None, subject)


def _export(store: MemoryStore, path: str) -> Done:
    path = os.path.expanduser(path.strip())
    if path and not os.path.isabs(path):
        path = os.path.join(os.path.expanduser("~"), path)
    result = store.export(output=path)
    n = result.get("count", 0)
    where = f'<code class="id">{e(result.get("path"))}</code>'
    return Done(
        say(
            f"已把 {n} 条记忆导出到 {where}（只有你能读）。",
            f"Exported {n} {'memory' if n == 1 else 'memories'} to {where} (readable by you only).",
        )
    )


def run(store: MemoryStore, action: str, form: dict[str, str]) -> Done:
    """Make ``action``'s library call; destructive ones only after the person's yes."""
    if action in DESTRUCTIVE and form.get("confirm") != "yes":
        raise MemoryStoreError("CONFIRMATION_REQUIRED", "confirm on the page first", {})
    if action == "forget":
        subject = facts(store, action, form).get("subject_id")
        return _forgotten(store.forget(_need(form, "memory_id"), confirm=True), subject)
    if action == "forget-object":
        return _forgotten(store.forget_object(_need(form, "subject_id"), confirm=True), None)
    if action == "forget-past":
        done = _delete_past(store, _need(form, "memory_id"), _need(form, "past_id"))
        return _saved(store, done, "已删除旧值", "Past value deleted")
    if action == "end":
        delta = {"action": "end", "id": _need(form, "memory_id")}
        return _saved(
            store, store.apply(delta, verbose=True), "已记下不再如此", "Marked as no longer true"
        )
    if action == "correct":
        row = _row(store, _need(form, "memory_id"))
        return _saved(
            store,
            store.apply(_correction(row, _need(form, "value")), verbose=True),
            "已纠正（记为你本人的说法）",
            "Corrected (kept as your own words)",
        )
    if action == "undo":
        result = store.undo(_need(form, "op_id"))
        rows = [*(result.get("restored") or []), *(result.get("removed") or [])]
        subject = rows[0].get("subject_id") if rows else None
        summary = _summary(store, result, subject)
        message = f'{bi("已撤销", "Undone")}: <span class="value">{summary}</span>'
        return Done(message + _erasure_note(result))
    if action in ("pause", "resume"):
        (store.pause if action == "pause" else store.resume)()
        if action == "pause":
            return Done(
                say(
                    "记忆已暂停：助手不再保存也不回忆。",
                    "Memory paused: the assistant neither saves nor recalls.",
                )
            )
        return Done(say("记忆已恢复。", "Memory resumed."))
    if action == "export":
        return _export(store, _need(form, "path"))
    if action == "tidy":
        steps = tidy_steps(store, _need(form, "ids"))
        result = store.apply({"deltas": steps["deltas"]}, verbose=True)
        return _saved(store, result, "已照建议整理", "Tidied as suggested")
    if action == "revoke":
        store.revoke(confirm=True)
        return Done(
            say(
                "已撤回同意，记忆保留；在你重新同意之前，助手不会读取或写入。",
                "Consent withdrawn, memories kept: the assistant reads and writes nothing until you agree again.",
            )
        )
    if action == "revoke-delete":
        result = store.revoke(confirm=True, delete=True)
        message = say(
            "已全部删除：记忆、撤销历史和记忆文件都没有了。",
            "Everything is deleted: the memories, the undo history and the memory files.",
        )
        return Done(message + _erasure_note(result))
    if action == "clear":
        return _forgotten(store.clear(confirm=True), None)
    if action == "enable":
        store.enable(confirm=True)
        return Done(
            say(
                "记忆已开启：助手会记下你告诉它的关键信息，你可以在这里查看、改正或删除。",
                "Memory is on: the assistant keeps the key things you tell it; you see, "
                "correct and forget them here.",
            )
        )
    raise MemoryStoreError("INVALID_ARGUMENTS", f"no such action: {action}", {})


def tidy_steps(store: MemoryStore, ids: str) -> dict[str, Any]:
    """Tidy's proposed steps for the rows one suggestion names (``ids``, comma-separated),
    as ``tidy`` proposes them now: the deltas to apply, and each step's row in words
    (what it does, the field, the value, as of when) for the question."""
    wanted = {i for i in ids.split(",") if i}
    proposal = store.tidy().get("proposal") or {}
    deltas = [d for d in proposal.get("deltas") or [] if d.get("id") in wanted]
    if not deltas:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS", "tidy no longer suggests a change to these rows", {"ids": ids}
        )
    steps = []
    for delta in deltas:
        row = _row(store, str(delta["id"]))
        steps.append(
            {
                "action": delta.get("action"),
                "field": row.get("field"),
                "value": row.get("value"),
                "as_of": delta.get("occurred_at"),
            }
        )
    subject = str(_row(store, str(deltas[0]["id"])).get("subject_id"))
    return {"deltas": deltas, "steps": steps, "subject_id": subject}


def search(
    store: MemoryStore, query: str, lang: str, controls: Any
) -> tuple[str, list[str]] | None:
    """The rows ``query`` matches, by the library's own search (``MemoryStore.search``), as
    (the query, their ids); where it refuses, None (everything is shown) and ``controls``
    say why, in ``lang`` (search is the assistant's, so it needs memory on:
    documentation/page.md)."""
    try:
        found = store.search(query, limit=policy.SEARCH_LIMIT_MAX)
    except MemoryStoreError as exc:
        if exc.code in ("CONSENT_REQUIRED", "MEMORY_PAUSED"):
            why = pick(
                lang,
                "搜索只在记忆开启时可用；下面是全部内容。",
                "Search works while memory is on; everything is shown below.",
            )
        else:
            why = f'<span class="code">{e(exc.code)}</span> {e(exc.message)}'
        controls.message, controls.error = why, True
        return None
    return (query, [str(m.get("id")) for m in found.get("memories", [])])
