"""The review page: one self-contained HTML file in which a person reads what is remembered.

Pure: it turns a snapshot (consent, caps, counts, rows, recent operations) and,
when given, tidy's findings into text and never touches the store, so the
caller keeps the file rules (mode, no overwrite, where it may be written) and
the page can be tested on its own. It is the person's right of access
(contract §21): every stored string of every row is on it — value, source and
reference, confidence, times, past values — and each goes through ``e``,
since values, labels and evidence come from conversations and may hold markup.
Words, style and the time rules are in ``markup``.
"""

from __future__ import annotations

from .markup import (
    CONFIDENCE,
    CONSENT,
    KIND_NOTES,
    KIND_TITLES,
    SOURCES,
    STYLE,
    Clock,
    bi,
    e,
    pair,
    say,
)
from .sections import PAST_DELETE as PAST_DELETE
from .sections import findings as _findings
from .sections import how_to_forget as _how_to_forget
from .sections import operations as _operations

TYPE_CHECKING = False  # typing costs a few ms to import; the CLI's start-up cannot afford it
if TYPE_CHECKING:
    from typing import Any

CSP = "default-src 'none'; style-src 'unsafe-inline'"
KINDS = ("object", "relationship", "event", "hypothesis")


def command_text(args: str, data_dir: Any = None) -> str:
    """Every command the page shows is built here, by ``files.command_line`` (what
    ``Location.command`` uses): ``data_dir`` is the store to name, None for the
    platform default, which the person's terminal finds by itself (contract §22).
    ``args`` are space-separated words; each is shell-quoted."""
    from ..storage.files import command_line

    return command_line(None if data_dir is None else str(data_dir), *args.split())


class _Page:
    """What every part of one page shares: its clock, its store, who is who, and its
    ``controls`` — None for the static file (commands to paste), the served page's
    buttons and forms otherwise (``page.controls.Controls``)."""

    def __init__(self, snapshot: dict[str, Any], controls: Any = None) -> None:
        memories = list(snapshot.get("memories", []))
        self.controls = controls
        self.clock = Clock(snapshot.get("generated_at"))
        self.data_dir = snapshot.get("data_dir")
        self.state = _consent_state(snapshot.get("consent", {}))
        self.labels = {
            str(r.get("subject_id")): str(r.get("value"))
            for r in memories
            if r.get("scope") == "object"
            and r.get("field") == "display_label"
            and r.get("value")  # an ended label names no one
        }
        self.offsets = {
            (str(r.get("subject_id")), str(r.get("field")), str(r.get("occurred_at"))): r.get(
                "occurred_offset"
            )
            for r in memories
            if r.get("scope") == "event"
        }

    def cmd(self, args: str) -> str:
        return f'<code class="cmd">{e(command_text(args, self.data_dir))}</code>'

    def acts(self, row: dict[str, Any]) -> str:
        return "" if self.controls is None else self.controls.row(row)


def anchor(subject: str) -> str:
    """The id of a person's card (the served page opens at it: ``review --serve --subject-id``)."""
    return "you" if subject == "user" else f"p-{subject}"


def _cls(row: dict[str, Any], flag: str) -> str:
    # "ended" and "pinned" are both a class and the row's key that sets it.
    return f' class="{flag}"' if row.get(flag) else ""


def _count(n: int, cap: Any) -> str:
    return f'<span class="count">{int(n)} / {e(cap)}</span>'


def _meta(row: dict[str, Any], page: _Page, with_id: bool = True) -> str:
    """Source, confidence (a guess shows its own above), since, when written and changed,
    and the ID: one line in a timeline or card, one per item in a table."""
    clock = page.clock
    spans = [pair(SOURCES, row.get("source_type"))]
    if row.get("scope") != "hypothesis":
        spans.append(f"{bi('把握', 'confidence')} {pair(CONFIDENCE, row.get('confidence'))}")
    since = row.get("since")
    if since and not _since_is_shown(row):
        spans.append(f"{bi('自', 'since')} {e(since)}")
    as_of = row.get("occurred_at")
    if as_of and row.get("scope") != "event" and str(as_of)[:10] != str(since):
        # Outside events occurred_at means "as of"; it is shown only where since is not it.
        spans.append(f"{bi('截至', 'as of')} {clock.stamp(as_of, row.get('occurred_offset'))}")
    spans.append(f"{bi('记下', 'written')} {clock.stamp(row.get('created_at'))}")
    if row.get("updated_at") != row.get("created_at"):
        spans.append(f"{bi('更新', 'updated')} {clock.stamp(row.get('updated_at'))}")
    if with_id:
        spans.append(f'ID <code class="id">{e(row.get("id"))}</code>')
    return " ".join(f"<span>{s}</span>" for s in spans)


def _since_is_shown(row: dict[str, Any]) -> bool:
    """Whether the row's ``since`` is already on the page: an event's date is its since,
    and an ended row's mark carries the date it ended."""
    since = str(row.get("since"))
    if row.get("scope") == "event":
        return since == str(row.get("occurred_at") or "")[:10]
    past = row.get("past") if isinstance(row.get("past"), list) else []
    last = past[-1] if past and isinstance(past[-1], dict) else {}
    return bool(row.get("ended")) and since == str(last.get("until"))


def _reference(row: dict[str, Any], zh: str = "出处", en: str = "Reference") -> str:
    ref = row.get("source_ref")
    if ref is None or ref == "":
        return ""
    return f'<p class="evidence">{bi(zh, en)}: <span class="ref">{e(ref)}</span></p>'


def _past(row: dict[str, Any], page: _Page) -> str:
    """The row's past values, oldest first: "2025-09-01 → 2026-03-10: 在上海做平面设计师"."""
    past = row.get("past")
    if not isinstance(past, list) or not past:
        return ""
    controls = page.controls
    items = "".join(
        f'<li><span class="span">{e(p.get("since") or "…")} → {e(p.get("until") or "…")}:</span>'
        f' <span class="value">{e(p.get("value"))}</span>'
        f' <span class="src">({pair(SOURCES, p.get("source_type"))})</span>'
        # Its own handle (contract §23): removing or correcting it never takes the row.
        f' <code class="id past-id">{e(p.get("past_id") or "")}</code>'
        f"{'' if controls is None else controls.past(row, p)}</li>"
        for p in past
        if isinstance(p, dict)
    )
    return f'<div class="history">{bi("以前", "Earlier")}<ol>{items}</ol></div>'


def _ended(row: dict[str, Any]) -> str:
    if not row.get("ended"):
        return ""
    past = row.get("past") if isinstance(row.get("past"), list) else []
    until = past[-1].get("until") if past and isinstance(past[-1], dict) else None
    when = f" {e(until)}" if until else ""
    return f'<span class="ended-mark">{bi("已结束", "ended")}{when}</span> '


def _facts(rows: list[dict[str, Any]], page: _Page) -> str:
    head = (
        f"<thead><tr><th>{bi('项目', 'Field')}</th><th>{bi('内容', 'Value')}</th>"
        f"<th>{bi('来源和时间', 'Source and times')}</th><th>ID</th></tr></thead>"
    )
    body = "".join(
        f"<tr{_cls(r, 'ended')}>"
        f'<th scope="row"><code>{e(r.get("field"))}</code></th>'
        f'<td>{_ended(r)}<div class="value now">{e(r.get("value"))}</div>{_past(r, page)}'
        f"{page.acts(r)}</td>"
        f'<td class="meta">{_meta(r, page, with_id=False)}{_reference(r)}</td>'
        f'<td class="id"><code>{e(r.get("id"))}</code></td></tr>'
        for r in sorted(rows, key=lambda r: str(r.get("field")))
    )
    return f'<table class="facts">{head}<tbody>{body}</tbody></table>'


def _timeline(rows: list[dict[str, Any]], page: _Page) -> str:
    ordered = sorted(rows, key=lambda r: (str(r.get("occurred_at") or ""), str(r.get("field"))))
    milestone = f'<span class="milestone">{bi("里程碑", "milestone")}</span> '
    items = "".join(
        f'<li{_cls(r, "pinned")}><span class="date">'
        f"{page.clock.stamp(r.get('occurred_at'), r.get('occurred_offset'))}</span> "
        f"{milestone if r.get('pinned') else ''}{_ended(r)}<code>{e(r.get('field'))}</code>"
        f'<div class="value">{e(r.get("value"))}</div>{_past(r, page)}{_reference(r)}'
        f'<p class="meta">{_meta(r, page)}</p>{page.acts(r)}</li>'
        for r in ordered
    )
    return f'<ol class="timeline">{items}</ol>'


def _guesses(rows: list[dict[str, Any]], page: _Page) -> str:
    cards = "".join(
        f'<article class="guess"><span class="badge">{bi("推测", "guess")}</span>{_ended(r)}'
        f'<span class="confidence">{bi("把握", "confidence")}: {pair(CONFIDENCE, r.get("confidence"))}</span>'
        f'<div><code>{e(r.get("field"))}</code></div><div class="value">{e(r.get("value"))}</div>'
        f"{_past(r, page)}{_reference(r, '依据', 'Evidence')}"
        f'<p class="meta">{_meta(r, page)}</p>{page.acts(r)}</article>'
        for r in sorted(rows, key=lambda r: str(r.get("field")))
    )
    return f'<div class="guesses">{cards}</div>'


def _section(kind: str, rows: list[dict[str, Any]], page: _Page) -> str:
    render = {"event": _timeline, "hypothesis": _guesses}.get(kind, _facts)
    zh, en = KIND_NOTES[kind]
    return (
        f'<section class="kind kind-{kind}"><h3>{bi(*KIND_TITLES[kind])}</h3>'
        f'<p class="note">{say(zh, en)}</p>{render(rows, page)}</section>'
    )


def _caps(rows: list[dict[str, Any]], limits: dict[str, Any]) -> str:
    by_scope = limits.get("by_scope", {})
    spans = []
    for kind in KINDS:
        n = sum(1 for r in rows if r.get("scope") == kind)
        cap = by_scope.get(kind, {}).get("max", "?")
        full = ' class="full"' if isinstance(cap, int) and n >= cap else ""
        spans.append(f"<span{full}>{bi(*KIND_TITLES[kind])} {_count(n, cap)}</span>")
    return f'<p class="caps">{"".join(spans)}</p>'


def _forget_person(subject: str, page: _Page) -> str:
    if page.controls is not None:
        return page.controls.person(subject, page.labels.get(subject))
    what = (
        bi("删除你自己的资料", "Forget your own profile")
        if subject == "user"
        else bi("忘记这个人的全部内容", "Forget everything about this person")
    )
    return f'<p class="forget">{what}: {page.cmd(f"forget-object {subject} --confirm")}</p>'


def _person(subject: str, rows: list[dict[str, Any]], limits: dict[str, Any], page: _Page) -> str:
    label = page.labels.get(subject)
    code = f'<code class="id">{e(subject)}</code>'
    title = f"<h2>{e(label)}</h2>{code}" if label else f"<h2>{e(subject)}</h2>"
    sections = "".join(
        _section(kind, kind_rows, page)
        for kind in KINDS
        if (kind_rows := [r for r in rows if r.get("scope") == kind])
    )
    return (
        f'<section class="card person" id="{e(anchor(subject))}"><div class="person-head">'
        f"{title}</div>{_caps(rows, limits)}{sections}{_forget_person(subject, page)}</section>"
    )


def _subjects(memories: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in memories:
        if row.get("scope") != "user":
            groups.setdefault(str(row.get("subject_id")), []).append(row)
    ordered = sorted(groups.items())
    # The people talked about most recently come first, as in the assistant's roster.
    ordered.sort(key=lambda g: max(str(r.get("updated_at") or "") for r in g[1]), reverse=True)
    return ordered


def _consent_state(consent: dict[str, Any]) -> str:
    """``consent.consent_state``'s word when the snapshot carries it (``review`` passes
    it); derived the same way for a snapshot made without it."""
    if consent.get("state") in CONSENT:
        return str(consent["state"])
    if consent.get("enabled"):
        return "paused" if consent.get("paused") else "enabled"
    return "revoked" if consent.get("consent_at") or consent.get("revoked_at") else "absent"


def _overview(
    snapshot: dict[str, Any], people: list[tuple[str, list[dict[str, Any]]]], page: _Page
) -> str:
    consent = snapshot.get("consent", {})
    state = page.state
    zh, en, note_zh, note_en = CONSENT[state]
    since = consent.get("revoked_at") if state == "revoked" else consent.get("consent_at")
    since_text = f" · {bi('自', 'since')} {page.clock.stamp(since)}" if since else ""
    limits, counts = snapshot.get("limits", {}), snapshot.get("counts", {})
    user_cap = limits.get("by_scope", {}).get("user", {}).get("max", "?")
    total = _count(counts.get("total", 0), limits.get("total_rows", "?"))
    mine = _count(counts.get("by_scope", {}).get("user", 0), user_cap)
    undoable = _count(len(snapshot.get("operations", [])), limits.get("undo_history", "?"))
    stats = [
        (bi("全部记忆", "All memories"), total),
        (bi("你的资料", "Your profile"), mine),
        (bi("人物", "People"), f'<span class="count">{len(people)}</span>'),
        (bi("可撤销的操作", "Undoable operations"), undoable),
    ]
    stat_html = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in stats)
    resume = page.cmd("resume") if "{resume}" in note_zh else ""
    links = "".join(
        f'<a href="#{e(anchor(s))}">{e(page.labels.get(s) or s)}</a>' for s, _ in people
    )
    people_html = f'<p class="people">{links}</p>' if links else ""
    return (
        f'<section class="card overview"><h2>{bi("概览", "Overview")}</h2>'
        f'<p>{bi("同意状态", "Consent")}: <span class="pill state-{state}">{bi(zh, en)}</span>{since_text}'
        f'<br><span class="note">{say(note_zh, note_en).replace("{resume}", resume)}</span></p>'
        f'<dl class="stats">{stat_html}</dl>{people_html}</section>'
    )


def _you(rows: list[dict[str, Any]], snapshot: dict[str, Any], page: _Page) -> str:
    cap = snapshot.get("limits", {}).get("by_scope", {}).get("user", {}).get("max", "?")
    if rows:
        table = _facts(rows, page)
    else:
        table = f'<p class="note">{say("还没有关于你的记录。", "Nothing about you yet.")}</p>'
    return (
        f'<section class="card person you" id="you"><div class="person-head">'
        f'<h2>{bi("你自己", "You")}</h2><code class="id">user</code></div>'
        f'<p class="caps"><span>{bi(*KIND_TITLES["user"])} {_count(len(rows), cap)}</span></p>'
        f'<p class="note">{say(*KIND_NOTES["user"])}</p>{table}'
        f"{_forget_person('user', page) if rows or page.controls is None else ''}</section>"
    )


def render_review(
    snapshot: dict[str, Any], findings: list[dict[str, Any]] | None = None, controls: Any = None
) -> str:
    """The whole page for ``snapshot`` (keys: generated_at, version, consent, limits,
    counts, memories — as ``show`` gives them, plus occurred_offset —, operations;
    data_dir, the store its commands name, None for the platform default), with
    no script and no external resource. ``findings`` (tidy's, contract §20) adds a section of
    suggestions; an empty list says there is nothing to tidy, None leaves it out.
    ``controls`` (``page.controls.Controls``) makes it the served page: the same markup
    with a button or form beside each thing the person can change, and no meta policy
    (the server sends its own in a header)."""
    page = _Page(snapshot, controls)
    memories = list(snapshot.get("memories", []))
    people = _subjects(memories)
    if memories:
        body = _you([r for r in memories if r.get("scope") == "user"], snapshot, page) + "".join(
            _person(s, rows, snapshot.get("limits", {}), page) for s, rows in people
        )
    else:
        nothing = say("还没有记住任何内容。", "Nothing remembered yet.")
        body = f'<section class="card"><p class="empty">{nothing}</p></section>'
    undo_note = say(
        "撤销会恢复该操作之前的样子；若之后的操作改过同一条，请先撤销较新的。",
        "Undo restores what an operation changed; if a later one changed the same rows, undo that one first.",
    )
    operations = (
        f'<section class="card ops"><h2>{bi("最近的操作", "Recent operations")}</h2>'
        f'<p class="note">{undo_note}</p>{_operations(list(snapshot.get("operations", [])), page)}</section>'
    )
    zone = page.clock.zone()
    zone_note = bi(f"时间为本机时区 {zone}", f"times in this computer's time zone, {zone}")
    stamp = (
        f'<p class="stamp">{bi("生成于", "Generated")} {page.clock.stamp(snapshot.get("generated_at"))}'
        f" · {zone_note} · memory-store {e(snapshot.get('version'))}</p>"
    )
    title = f"<h1>{bi('助手记得什么', 'What the assistant remembers')}</h1>"
    if controls is None:
        header, footer = (
            f"<div>{title}{stamp}</div>",
            say(
                "由 memory-store review 生成的只读副本。",
                "A read-only copy made by memory-store review.",
            ),
        )
    else:
        header, footer = controls.header(f"<div>{title}{stamp}</div>"), controls.footer()
    return document(
        f"<header>{header}</header><main>{_overview(snapshot, people, page)}{body}"
        f"{_findings(findings, page)}{operations}{_how_to_forget(page)}</main>"
        f"<footer>{footer}</footer>",
        None if controls is not None else CSP,
    )


def document(body: str, csp: str | None = CSP) -> str:
    """One page around ``body``: UTF-8, the stylesheet inline, a meta policy when ``csp``."""
    policy = "" if csp is None else f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
    return (
        f'<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8">{policy}'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>记忆回顾 · Memory review</title><style>{STYLE}</style></head><body>"
        f"{body}</body></html>\n"
    )
