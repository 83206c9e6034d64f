"""The review page: one self-contained HTML file in which a person reads what is remembered.

Pure: it turns a snapshot (consent, caps, counts, rows, recent operations) and,
when given, tidy's findings into text and never touches the store, so the
caller keeps the file rules (mode, no overwrite, where it may be written) and
the page can be tested on its own. It is the person's right of access
(``documentation/review.md``): every stored string of every row is on it — value,
source and reference, confidence, times, past values — each memory as a plain line
with the rest behind its disclosure (``rows``), in one language (``words``), and each
goes through ``e``, since values, labels and evidence come from conversations and may
hold markup. Style and the time rules are in ``markup``.
"""

from __future__ import annotations

from .markup import CONFIDENCE as CONFIDENCE
from .markup import CONSENT, KIND_NOTES, KIND_TITLES, SPEAKING, STYLE, Clock, e
from .rows import rows as _rows
from .sections import PAST_DELETE as PAST_DELETE
from .sections import findings as _findings
from .sections import how_to_forget as _how_to_forget
from .sections import operations as _operations
from .words import from_locale, pick

TYPE_CHECKING = False  # typing costs a few ms to import; the CLI's start-up cannot afford it
if TYPE_CHECKING:
    from typing import Any

CSP = "default-src 'none'; style-src 'unsafe-inline'"
KINDS = ("object", "relationship", "event", "hypothesis")
TITLE = ("助手记得什么", "What the assistant remembers")


def command_text(args: str, data_dir: Any = None) -> str:
    """Every command the page shows is built here, by ``files.command_line`` (what
    ``Location.command`` uses): ``data_dir`` is the store to name, None for the
    platform default, which the person's terminal finds by itself (documentation/review.md).
    ``args`` are space-separated words; each is shell-quoted."""
    from ..storage.files import command_line

    return command_line(None if data_dir is None else str(data_dir), *args.split())


class _Page:
    """What every part of one page shares: its language, clock, store, who is who, and its
    ``controls`` — None for the static file (commands to paste), the served page's
    buttons and forms otherwise (``page.controls.Controls``; their ``lang`` is the page's)."""

    def __init__(self, snapshot: dict[str, Any], controls: Any, lang: str) -> None:
        memories = list(snapshot.get("memories", []))
        self.controls = controls
        self.lang = lang
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
        self.fields = {str(r.get("id")): r.get("field") for r in memories}

    def t(self, zh: str, en: str) -> str:
        """The words in this page's language (not escaped: the page's own text)."""
        return pick(self.lang, zh, en)

    def cmd(self, args: str) -> str:
        return f'<code class="cmd">{e(command_text(args, self.data_dir))}</code>'

    def acts(self, row: dict[str, Any]) -> str:
        return "" if self.controls is None else self.controls.row(row)

    def name(self, subject: str) -> str:
        return self.t("你自己", "You") if subject == "user" else self.labels.get(subject, subject)


def anchor(subject: str) -> str:
    """The id of a person's card (the served page opens at it: ``review --serve --subject-id``)."""
    return "you" if subject == "user" else f"p-{subject}"


def _count(n: int, cap: Any) -> str:
    return f'<span class="count">{int(n)} / {e(cap)}</span>'


def _in_order(kind: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if kind == "event":
        return sorted(rows, key=lambda r: (str(r.get("occurred_at") or ""), str(r.get("field"))))
    # A person's name first, then the rest by field.
    return sorted(rows, key=lambda r: (r.get("field") != "display_label", str(r.get("field"))))


def _section(kind: str, rows: list[dict[str, Any]], page: _Page) -> str:
    # Only a guess needs its note in view: it is the assistant's reading, not a fact.
    note = ""
    if kind == "hypothesis":
        note = f'<p class="note">{page.t(*KIND_NOTES[kind])}</p>'
    return (
        f'<section class="kind kind-{kind}"><h3>{page.t(*KIND_TITLES[kind])}</h3>{note}'
        f"{_rows(_in_order(kind, rows), page)}</section>"
    )


def _caps(rows: list[dict[str, Any]], limits: dict[str, Any], page: _Page) -> str:
    by_scope = limits.get("by_scope", {})
    spans = []
    for kind in KINDS:
        n = sum(1 for r in rows if r.get("scope") == kind)
        cap = by_scope.get(kind, {}).get("max", "?")
        full = ' class="full"' if isinstance(cap, int) and n >= cap else ""
        spans.append(f"<span{full}>{page.t(*KIND_TITLES[kind])} {_count(n, cap)}</span>")
    return f'<p class="caps">{"".join(spans)}</p>'


def _forget_person(subject: str, page: _Page) -> str:
    if page.controls is not None:
        return page.controls.person(subject, page.labels.get(subject))
    what = (
        page.t("删除你自己的资料", "Forget your own profile")
        if subject == "user"
        else page.t("忘记这个人的全部内容", "Forget everything about this person")
    )
    return f'<p class="forget">{what}: {page.cmd(f"forget-object {subject} --confirm")}</p>'


def _card_more(subject: str, caps: str, page: _Page, forget: bool = True) -> str:
    """The card's own details: how full it is, its code, forgetting it all."""
    return (
        f'<details class="card-more"><summary>{page.t("容量和删除", "Room left, forget all")}'
        f'</summary>{caps}<p class="meta">{page.t("代号", "code")} '
        f'<code class="id">{e(subject)}</code></p>'
        f"{_forget_person(subject, page) if forget else ''}</details>"
    )


def _person(subject: str, rows: list[dict[str, Any]], limits: dict[str, Any], page: _Page) -> str:
    sections = "".join(
        _section(kind, kind_rows, page)
        for kind in KINDS
        if (kind_rows := [r for r in rows if r.get("scope") == kind])
    )
    return (
        f'<section class="card person" id="{e(anchor(subject))}"><h2>{e(page.name(subject))}</h2>'
        f"{sections}{_card_more(subject, _caps(rows, limits, page), page)}</section>"
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


def _consent(consent: dict[str, Any], page: _Page) -> str:
    state = page.state
    zh, en, note_zh, note_en = CONSENT[state]
    since = consent.get("revoked_at") if state == "revoked" else consent.get("consent_at")
    since_text = f" · {page.t('自', 'since')} {page.clock.stamp(since)}" if since else ""
    note = page.t(note_zh, note_en)
    if "{resume}" in note:
        if page.controls is not None:
            # The served page's first control is Resume, in the banner at the top
            # (documentation/page.md): this line points at it, not at a terminal.
            note = page.t(*PAUSED_SERVED)
        else:
            note = note.replace("{resume}", page.cmd("resume"))
    return (
        f'<p class="consent"><span class="pill state-{state}">{page.t(zh, en)}</span>{since_text}'
        f' <span class="note">{note}</span></p>'
    )


PAUSED_SERVED = (
    "助手暂时不保存也不回忆，按页面顶部的“恢复记忆”即可恢复。",
    "The assistant neither saves nor recalls until you press Resume memory, at the top.",
)


def _overview(
    snapshot: dict[str, Any], people: list[tuple[str, list[dict[str, Any]]]], page: _Page
) -> str:
    limits, counts = snapshot.get("limits", {}), snapshot.get("counts", {})
    user_cap = limits.get("by_scope", {}).get("user", {}).get("max", "?")
    total = _count(counts.get("total", 0), limits.get("total_rows", "?"))
    mine = _count(counts.get("by_scope", {}).get("user", 0), user_cap)
    undoable = _count(len(snapshot.get("operations", [])), limits.get("undo_history", "?"))
    t = page.t
    stats = [
        (t("全部记忆", "All memories"), total),
        (t("你的资料", "Your profile"), mine),
        (t("人物", "People"), f'<span class="count">{len(people)}</span>'),
        (t("可撤销的操作", "Undoable operations"), undoable),
    ]
    stat_html = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in stats)
    return (
        f'<section class="card overview"><h2 class="quiet">{t("概览", "Overview")}</h2>'
        f'{_consent(snapshot.get("consent", {}), page)}<dl class="stats">{stat_html}</dl></section>'
    )


def _index(cards: list[str], page: _Page, search: Any) -> str:
    """The people whose cards are shown, at the top, each a jump to their card; on the
    served page, the search."""
    links = "".join(f'<a href="#{e(anchor(s))}">{e(page.name(s))}</a>' for s in cards)
    nav = f'<nav class="people" aria-label="{e(page.t("人物", "People"))}">{links}</nav>'
    if page.controls is None:
        return f'<div class="index">{nav}</div>'
    query = "" if search is None else str(search[0])
    label = page.t("搜索记忆", "Search your memories")
    form = (
        f'<form class="search" method="get" action="" role="search">'
        f'<input type="search" name="q" value="{e(query)}" aria-label="{e(label)}"'
        f' placeholder="{e(label)}" maxlength="200">'
        f'<button type="submit">{page.t("搜索", "Search")}</button></form>'
    )
    found = ""
    if search is not None:
        n = len(search[1])
        many = f"{n} memories match" if n != 1 else "1 memory matches"
        said = page.t(f"有 {n} 条记忆符合“{e(query)}”。", f"{many} “{e(query)}”.")
        found = (
            f'<p class="found">{said} <a href="?">{page.t("显示全部", "Show everything")}</a></p>'
        )
    return f'<div class="index">{nav}{form}</div>{found}'


def _you(rows: list[dict[str, Any]], snapshot: dict[str, Any], page: _Page) -> str:
    cap = snapshot.get("limits", {}).get("by_scope", {}).get("user", {}).get("max", "?")
    if rows:
        body = _rows(_in_order("user", rows), page)
    else:
        body = f'<p class="note">{page.t("还没有关于你的记录。", "Nothing about you yet.")}</p>'
    caps = (
        f'<p class="caps"><span>{page.t(*KIND_TITLES["user"])} {_count(len(rows), cap)}</span></p>'
    )
    more = _card_more("user", caps, page, forget=bool(rows) or page.controls is None)
    return (
        f'<section class="card person you" id="you"><h2>{e(page.name("user"))}</h2>'
        f'<p class="note">{page.t(*KIND_NOTES["user"])}</p>{body}{more}</section>'
    )


def _body(snapshot: dict[str, Any], page: _Page, search: Any) -> tuple[str, list[Any], list[str]]:
    """The cards; every person (for the overview's count); the subjects whose cards show."""
    memories = list(snapshot.get("memories", []))
    people = _subjects(memories)
    shown = memories
    if search is not None:
        ids = set(search[1])
        shown = [r for r in memories if r.get("id") in ids]
    if not memories:
        nothing = page.t("还没有记住任何内容。", "Nothing remembered yet.")
        return f'<section class="card"><p class="empty">{nothing}</p></section>', people, []
    mine = [r for r in shown if r.get("scope") == "user"]
    you = _you(mine, snapshot, page) if mine or search is None else ""
    groups = _subjects(shown)
    cards = "".join(_person(s, rows, snapshot.get("limits", {}), page) for s, rows in groups)
    anchors = (["user"] if you else []) + [s for s, _ in groups]
    return f'<div class="cards">{you}{cards}</div>', people, anchors


def render_review(
    snapshot: dict[str, Any],
    findings: list[dict[str, Any]] | None = None,
    controls: Any = None,
    lang: str | None = None,
    search: tuple[str, Any] | None = None,
) -> str:
    """The whole page for ``snapshot`` (keys: generated_at, version, consent, limits,
    counts, memories — as ``show`` gives them, plus occurred_offset —, operations;
    data_dir, the store its commands name, None for the platform default), with
    no script and no external resource. ``findings`` (tidy's) adds a section of
    suggestions; an empty list says there is nothing to tidy, None leaves it out.
    ``controls`` (``page.controls.Controls``) makes it the served page: the same markup
    with a button or form beside each thing the person can change, a search form, and no
    meta policy (the server sends its own in a header). ``lang`` is "zh" or "en" (None: this
    computer's locale, ``words.from_locale``). ``search`` is (the query, the ids of the rows
    that match it): only those rows are shown."""
    page = _Page(snapshot, controls, lang or from_locale())
    body, people, cards = _body(snapshot, page, search)
    t = page.t
    undo_note = t(
        "撤销会恢复该操作之前的样子；若之后的操作改过同一条，请先撤销较新的。",
        "Undo restores what an operation changed; if a later one changed the same rows, undo that one first.",
    )
    ops = list(snapshot.get("operations", []))
    operations = (
        f'<section class="card ops"><details><summary><h2>{t("最近的操作", "Recent operations")}</h2>'
        f' <span class="count">{len(ops)}</span></summary>'
        f'<p class="note">{undo_note}</p>{_operations(ops, page)}</details></section>'
    )
    zone = page.clock.zone()
    zone_note = t(f"时间为本机时区 {zone}", f"times in this computer's time zone, {zone}")
    stamp = (
        f'<p class="stamp">{t("生成于", "Generated")} {page.clock.stamp(snapshot.get("generated_at"))}'
        f" · {zone_note} · memory-store {e(snapshot.get('version'))}</p>"
    )
    title = f"<h1>{t(*TITLE)}</h1>"
    if controls is None:
        header = f"<div>{title}{stamp}</div>"
        footer = t(
            "由 memory-store review 生成的只读副本。",
            "A read-only copy made by memory-store review.",
        )
    else:
        header, footer = controls.header(f"<div>{title}{stamp}</div>"), controls.footer()
    return document(
        f"<header>{header}</header><main>{_overview(snapshot, people, page)}"
        f"{_index(cards, page, search)}{body}"
        f"{_findings(findings, page)}{operations}{_how_to_forget(page)}</main>"
        f"<footer>{footer}</footer>",
        None if controls is not None else CSP,
        page.lang,
    )


def document(body: str, csp: str | None = CSP, lang: str | None = None) -> str:
    """One page around ``body``: UTF-8, the stylesheet inline, a meta policy when ``csp``,
    in ``lang`` ("zh" or "en"; None: the served page's for this request, ``SPEAKING``, else
    this computer's locale)."""
    lang = lang or SPEAKING.get() or from_locale()
    policy = "" if csp is None else f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if lang == "zh" else "en"}"><head>'
        f'<meta charset="utf-8">{policy}'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{pick(lang, '记忆回顾', 'Memory review')}</title><style>{STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )
