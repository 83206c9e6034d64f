"""The review page: one self-contained HTML file in which a person reads what is remembered.

Pure: it turns a snapshot (consent, caps, counts, rows, recent operations) into
text and never touches the store, so the caller keeps the file rules (mode,
no overwrite, where it may be written) and the page can be tested on its own.
Every stored string goes through ``_e``: values, labels and evidence come from
conversations and may contain markup.
"""

from __future__ import annotations

from html import escape

TYPE_CHECKING = False  # typing costs a few ms to import; the CLI's start-up cannot afford it
if TYPE_CHECKING:
    from typing import Any

CSP = "default-src 'none'; style-src 'unsafe-inline'"
KINDS = ("object", "relationship", "event", "hypothesis")

# (Chinese, English) pairs: the reader may read either, so both are always shown.
KIND_TITLES = {
    "user": ("你的资料", "Your profile"),
    "object": ("资料", "Facts"),
    "relationship": ("关系", "Relationship"),
    "event": ("时间线", "Timeline"),
    "hypothesis": ("推测", "Guesses"),
}
KIND_NOTES = {
    "user": (
        "你亲口告诉助手的目标、偏好和界限。",
        "Goals, preferences and boundaries you told the assistant.",
    ),
    "object": ("你告诉助手的关于这个人的稳定事实。", "Stable facts you gave about this person."),
    "relationship": (
        "你们之间的阶段、约定和目标。",
        "Where the two of you stand: stage, agreements, goals.",
    ),
    "event": ("按日期排列的转折点。", "Turning points, in date order."),
    "hypothesis": (
        "助手的推测，不是事实。不对就删掉或纠正它。",
        "The assistant's tentative readings, not facts. Forget or correct any that are wrong.",
    ),
}
SOURCES = {
    "user_explicit": ("你亲口说的", "you said so"),
    "user_report": ("你转述的", "you relayed it"),
    "chatlab": ("聊天记录", "a chat record"),
    "tool": ("工具", "a tool"),
    "assistant_inference": ("助手推断", "the assistant's inference"),
}
CONFIDENCE = {"high": ("高", "high"), "medium": ("中", "medium"), "low": ("低", "low")}
CONSENT = {
    "enabled": ("已启用", "Enabled", "助手可以保存和回忆。", "The assistant may save and recall."),
    "paused": (
        "已暂停",
        "Paused",
        "助手暂时不保存也不回忆，memory-store resume 可恢复。",
        "The assistant neither saves nor recalls until memory-store resume.",
    ),
    "revoked": (
        "已撤回",
        "Revoked",
        "助手不能保存或回忆；已有记录保留，直到你删除。",
        "The assistant can neither save nor recall; what is here stays until you delete it.",
    ),
    "absent": ("未同意", "Not given", "从未同意保存记忆。", "Consent to remember was never given."),
}

FORGET_STEPS = (
    (
        "删除一条记忆（ID 见每一行）",
        "Forget one memory (its ID is shown on each row)",
        "memory-store forget MEMORY_ID --confirm",
    ),
    (
        "删除一个人的全部内容（代号见名字旁）",
        "Forget one person (the code beside the name)",
        "memory-store forget-object SUBJECT --confirm",
    ),
    (
        "删除全部记忆和撤销历史",
        "Forget every memory and the undo history",
        "memory-store clear --confirm",
    ),
    (
        "撤回同意并删除存储文件",
        "Withdraw consent and delete the store's files",
        "memory-store revoke --delete --confirm",
    ),
)

STYLE = """
:root { --ink:#2a2d33; --soft:#6b7079; --line:#e3e0d8; --paper:#f7f5f0; --card:#fff;
  --accent:#2f6b66; --accent-bg:#e8f1ef; --guess:#8a5a00; --guess-bg:#fdf7e8; --warn:#a4461f; }
* { box-sizing: border-box; }
html { background: var(--paper); }
body { margin: 0 auto; max-width: 1160px; padding: 36px 28px 48px; color: var(--ink);
  font: 15px/1.65 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Hiragino Sans GB",
    "Noto Sans CJK SC", "Source Han Sans SC", "Microsoft YaHei", "Helvetica Neue", Arial, sans-serif; }
code, .cmd { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Noto Sans Mono CJK SC",
  monospace; font-size: 0.86em; }
h1 { font-size: 26px; font-weight: 600; margin: 0 0 4px; letter-spacing: 0.01em; }
h2 { font-size: 21px; font-weight: 600; margin: 0; }
h3 { font-size: 15px; font-weight: 600; margin: 22px 0 2px; color: var(--accent); }
[lang="en"] { color: inherit; }
.sub, .note, .meta, .stamp { color: var(--soft); }
.note { margin: 0 0 10px; font-size: 13.5px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px;
  padding: 20px 26px; margin: 18px 0; box-shadow: 0 1px 2px rgba(40, 40, 30, 0.04); }
.value { white-space: pre-wrap; overflow-wrap: anywhere; }
.pill { display: inline-block; border-radius: 999px; padding: 1px 10px; font-size: 13px;
  background: var(--accent-bg); color: var(--accent); }
.state-paused, .state-revoked, .state-absent { background: #fbeee8; color: var(--warn); }
.stats { display: flex; flex-wrap: wrap; gap: 10px 28px; margin: 14px 0 0; padding: 0; }
.stats div { min-width: 150px; }
.stats dt { font-size: 12.5px; color: var(--soft); }
.stats dd { margin: 0; font-size: 18px; font-variant-numeric: tabular-nums; }
.people a { color: var(--accent); text-decoration: none; margin-right: 14px; }
.person-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 12px; }
.caps { display: flex; flex-wrap: wrap; gap: 6px 8px; margin: 10px 0 0; font-size: 13px; }
.caps > span { border: 1px solid var(--line); border-radius: 6px; padding: 1px 8px; color: var(--soft); }
.caps .full { border-color: #e6c79a; color: var(--guess); background: var(--guess-bg); }
.count { font-variant-numeric: tabular-nums; color: var(--ink); }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
table.facts { table-layout: fixed; }
.facts thead th:nth-child(1) { width: 19%; } .facts thead th:nth-child(3) { width: 31%; }
.facts thead th:nth-child(4) { width: 15%; }
.ops thead th:nth-child(1) { width: 19%; } .ops thead th:nth-child(2) { width: 16%; }
.ops .cmd { margin-top: 4px; }
.meta > span { white-space: nowrap; }
.meta > span + span::before { content: "·"; margin-right: 7px; color: #b9bcc2; }
th, td { text-align: left; vertical-align: top; padding: 7px 10px 7px 0; border-bottom: 1px solid var(--line); }
thead th { font-size: 12px; font-weight: 500; color: var(--soft); }
tbody th { font-weight: 500; overflow-wrap: anywhere; }
td.meta { font-size: 12.5px; }
td.id, .id { font-size: 12.5px; color: #4f545c; }
td.id code, code.id { white-space: nowrap; }
.timeline { list-style: none; margin: 6px 0 0; padding: 0 0 0 18px; border-left: 2px solid var(--accent-bg); }
.timeline li { position: relative; padding: 4px 0 12px 12px; break-inside: avoid; }
.timeline li::before { content: ""; position: absolute; left: -25px; top: 11px; width: 10px; height: 10px;
  border-radius: 50%; background: var(--card); border: 2px solid var(--accent); }
.timeline .date { font-weight: 600; font-variant-numeric: tabular-nums; margin-right: 10px; }
.timeline .meta, .guess .meta { font-size: 12.5px; margin: 2px 0 0; }
.guesses { display: grid; grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); gap: 12px; }
.guess { background: var(--guess-bg); border: 1px dashed #dcb877; border-radius: 10px; padding: 12px 14px;
  break-inside: avoid; }
.guess .badge { display: inline-block; font-size: 12px; font-weight: 600; color: var(--guess);
  border: 1px solid #dcb877; border-radius: 999px; padding: 0 9px; margin-right: 6px; }
.guess .value { margin: 6px 0 4px; font-style: italic; }
.evidence { font-size: 13px; margin: 0; }
.forget { margin: 16px 0 0; font-size: 13.5px; color: var(--soft); }
.cmd { display: inline-block; background: #f1efe9; border-radius: 6px; padding: 1px 8px; color: var(--ink);
  overflow-wrap: anywhere; }
.how li { margin: 6px 0; }
.empty { font-size: 16px; color: var(--soft); text-align: center; padding: 24px 0; }
footer { color: var(--soft); font-size: 12.5px; margin-top: 28px; }
@media print {
  html, body { background: #fff; }
  body { max-width: none; padding: 0; font-size: 11pt; }
  .card { box-shadow: none; border-color: #bbb; padding: 12px 0 0; border-width: 1px 0 0; border-radius: 0; }
  .guess { background: #fff; }
  .timeline { margin-left: 8px; }
  td.id, .id { font-size: 8pt; }
  .people a { color: inherit; }
  tr, .guess, .timeline li { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  @page { margin: 16mm 14mm; }
}
"""


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _bi(zh: str, en: str) -> str:
    return f'{zh} · <span lang="en">{en}</span>'


def _say(zh: str, en: str) -> str:
    # Sentences end with their own punctuation, so they need no separator.
    return f'{zh} <span lang="en">{en}</span>'


def _pair(table: dict[str, tuple[str, str]], key: Any) -> str:
    # A value the page does not know (a newer release's source type) is shown as stored.
    return _bi(*table[key]) if key in table else _e(key)


def _when(stamp: Any) -> str:
    text = "" if stamp is None else str(stamp)
    # Stored times are UTC "YYYY-MM-DDTHH:MM:SSZ"; minutes are enough to read them.
    shown = f"{text[:10]} {text[11:16]} UTC" if len(text) == 20 and text[10] == "T" else text
    return f'<time datetime="{_e(text)}">{_e(shown)}</time>'


def _cmd(command: str) -> str:
    # Takes markup: the callers escape what they put into a command.
    return f'<code class="cmd">{command}</code>'


def _count(n: int, cap: Any) -> str:
    return f'<span class="count">{int(n)} / {_e(cap)}</span>'


def _meta(row: dict[str, Any]) -> str:
    return (
        f"<span>{_pair(SOURCES, row.get('source_type'))}</span> "
        f"<span>{_bi('更新', 'updated')} {_when(row.get('updated_at'))}</span> "
        f'<span>ID <code class="id">{_e(row.get("id"))}</code></span>'
    )


def _facts(rows: list[dict[str, Any]]) -> str:
    head = (
        f"<thead><tr><th>{_bi('项目', 'Field')}</th><th>{_bi('内容', 'Value')}</th>"
        f"<th>{_bi('来源和时间', 'Source, updated')}</th><th>ID</th></tr></thead>"
    )
    body = "".join(
        f'<tr><th scope="row"><code>{_e(r.get("field"))}</code></th>'
        f'<td class="value">{_e(r.get("value"))}</td>'
        f'<td class="meta"><span>{_pair(SOURCES, r.get("source_type"))}</span> <span>{_when(r.get("updated_at"))}</span></td>'
        f'<td class="id"><code>{_e(r.get("id"))}</code></td></tr>'
        for r in sorted(rows, key=lambda r: str(r.get("field")))
    )
    return f'<table class="facts">{head}<tbody>{body}</tbody></table>'


def _timeline(rows: list[dict[str, Any]]) -> str:
    ordered = sorted(rows, key=lambda r: (str(r.get("occurred_at") or ""), str(r.get("field"))))
    items = "".join(
        f'<li><span class="date">{_when(r.get("occurred_at"))}</span><code>{_e(r.get("field"))}</code>'
        f'<div class="value">{_e(r.get("value"))}</div><p class="meta">{_meta(r)}</p></li>'
        for r in ordered
    )
    return f'<ol class="timeline">{items}</ol>'


def _guesses(rows: list[dict[str, Any]]) -> str:
    cards = "".join(
        f'<article class="guess"><span class="badge">{_bi("推测", "guess")}</span>'
        f'<span class="confidence">{_bi("把握", "confidence")}: {_pair(CONFIDENCE, r.get("confidence"))}</span>'
        f'<div><code>{_e(r.get("field"))}</code></div><div class="value">{_e(r.get("value"))}</div>'
        f'<p class="evidence">{_bi("依据", "Evidence")}: <span class="value">{_e(r.get("source_ref"))}</span></p>'
        f'<p class="meta">{_meta(r)}</p></article>'
        for r in sorted(rows, key=lambda r: str(r.get("field")))
    )
    return f'<div class="guesses">{cards}</div>'


def _section(kind: str, rows: list[dict[str, Any]]) -> str:
    render = {"event": _timeline, "hypothesis": _guesses}.get(kind, _facts)
    zh, en = KIND_NOTES[kind]
    return (
        f'<section class="kind kind-{kind}"><h3>{_bi(*KIND_TITLES[kind])}</h3>'
        f'<p class="note">{_say(zh, en)}</p>{render(rows)}</section>'
    )


def _caps(rows: list[dict[str, Any]], limits: dict[str, Any]) -> str:
    by_scope = limits.get("by_scope", {})
    spans = []
    for kind in KINDS:
        n = sum(1 for r in rows if r.get("scope") == kind)
        cap = by_scope.get(kind, {}).get("max", "?")
        full = ' class="full"' if isinstance(cap, int) and n >= cap else ""
        spans.append(f"<span{full}>{_bi(*KIND_TITLES[kind])} {_count(n, cap)}</span>")
    return f'<p class="caps">{"".join(spans)}</p>'


def _label_of(rows: list[dict[str, Any]]) -> str | None:
    for r in rows:
        if r.get("scope") == "object" and r.get("field") == "display_label":
            return str(r.get("value"))
    return None


def _person(anchor: str, subject: str, rows: list[dict[str, Any]], limits: dict[str, Any]) -> str:
    label = _label_of(rows)
    code = f'<code class="id">{_e(subject)}</code>'
    title = f"<h2>{_e(label)}</h2>{code}" if label else f"<h2>{_e(subject)}</h2>"
    sections = "".join(
        _section(kind, kind_rows)
        for kind in KINDS
        if (kind_rows := [r for r in rows if r.get("scope") == kind])
    )
    forget = _cmd(f"memory-store forget-object {_e(subject)} --confirm")
    return (
        f'<section class="card person" id="{anchor}"><div class="person-head">{title}</div>'
        f"{_caps(rows, limits)}{sections}"
        f'<p class="forget">{_bi("忘记这个人的全部内容", "Forget everything about this person")}: {forget}</p>'
        "</section>"
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
    if consent.get("enabled"):
        return "paused" if consent.get("paused") else "enabled"
    return "revoked" if consent.get("consent_at") or consent.get("revoked_at") else "absent"


def _overview(snapshot: dict[str, Any], people: list[tuple[str, list[dict[str, Any]]]]) -> str:
    consent = snapshot.get("consent", {})
    state = _consent_state(consent)
    zh, en, note_zh, note_en = CONSENT[state]
    since = consent.get("revoked_at") if state == "revoked" else consent.get("consent_at")
    since_text = f" · {_bi('自', 'since')} {_when(since)}" if since else ""
    limits, counts = snapshot.get("limits", {}), snapshot.get("counts", {})
    user_cap = limits.get("by_scope", {}).get("user", {}).get("max", "?")
    total = _count(counts.get("total", 0), limits.get("total_rows", "?"))
    mine = _count(counts.get("by_scope", {}).get("user", 0), user_cap)
    undoable = _count(len(snapshot.get("operations", [])), limits.get("undo_history", "?"))
    stats = [
        (_bi("全部记忆", "All memories"), total),
        (_bi("你的资料", "Your profile"), mine),
        (_bi("人物", "People"), f'<span class="count">{len(people)}</span>'),
        (_bi("可撤销的操作", "Undoable operations"), undoable),
    ]
    stat_html = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in stats)
    links = "".join(
        f'<a href="#p{i}">{_e(_label_of(rows) or s)}</a>' for i, (s, rows) in enumerate(people, 1)
    )
    people_html = f'<p class="people">{links}</p>' if links else ""
    return (
        f'<section class="card overview"><h2>{_bi("概览", "Overview")}</h2>'
        f'<p>{_bi("同意状态", "Consent")}: <span class="pill state-{state}">{_bi(zh, en)}</span>{since_text}'
        f'<br><span class="note">{_say(note_zh, note_en)}</span></p>'
        f'<dl class="stats">{stat_html}</dl>{people_html}</section>'
    )


def _operations(ops: list[dict[str, Any]]) -> str:
    if not ops:
        return f'<p class="note">{_say("没有可撤销的操作。", "No operations to undo.")}</p>'
    head = (
        f"<thead><tr><th>{_bi('时间', 'When')}</th><th>{_bi('操作', 'Action')}</th>"
        f"<th>{_bi('内容和撤销命令', 'What changed, and the command that undoes it')}</th></tr></thead>"
    )
    body = "".join(
        f'<tr><td class="meta">{_when(op.get("created_at"))}</td><td>{_e(op.get("action"))}'
        f' <span class="meta">· {_e(op.get("rows"))} {_bi("行", "rows")}</span></td>'
        f'<td><div class="value">{_e(op.get("summary"))}</div>'
        f"{_cmd('memory-store undo --op-id ' + _e(op.get('op_id')))}</td></tr>"
        for op in ops
    )
    return f'<table class="ops">{head}<tbody>{body}</tbody></table>'


def _how_to_forget() -> str:
    items = "".join(f"<li>{_bi(zh, en)}: {_cmd(cmd)}</li>" for zh, en, cmd in FORGET_STEPS)
    return (
        f'<section class="card how"><h2>{_bi("如何删除", "How to forget")}</h2>'
        f'<p class="note">{_say("删除是永久的，不能撤销。", "Forgetting is permanent and cannot be undone.")}</p>'
        f"<ul>{items}</ul>"
        f'<p class="note copy">{_say("本页是一份副本：删除存储里的内容不会删除这个文件，请自行删除。", "This page is a copy: forgetting in the store does not delete this file; delete it yourself.")}</p>'
        "</section>"
    )


def _you(rows: list[dict[str, Any]], snapshot: dict[str, Any]) -> str:
    cap = snapshot.get("limits", {}).get("by_scope", {}).get("user", {}).get("max", "?")
    if rows:
        table = _facts(rows)
    else:
        table = f'<p class="note">{_say("还没有关于你的记录。", "Nothing about you yet.")}</p>'
    return (
        f'<section class="card person you"><div class="person-head"><h2>{_bi("你自己", "You")}</h2>'
        f'<code class="id">user</code></div>'
        f'<p class="caps"><span>{_bi(*KIND_TITLES["user"])} {_count(len(rows), cap)}</span></p>'
        f'<p class="note">{_say(*KIND_NOTES["user"])}</p>{table}'
        f'<p class="forget">{_bi("删除你自己的资料", "Forget your own profile")}: '
        f"{_cmd('memory-store forget-object user --confirm')}</p></section>"
    )


def render_review(snapshot: dict[str, Any]) -> str:
    """The whole page for ``snapshot`` (keys: generated_at, version, consent, limits,
    counts, memories, operations), with no script and no external resource."""
    memories = list(snapshot.get("memories", []))
    people = _subjects(memories)
    if memories:
        body = _you([r for r in memories if r.get("scope") == "user"], snapshot) + "".join(
            _person(f"p{i}", s, rows, snapshot.get("limits", {}))
            for i, (s, rows) in enumerate(people, 1)
        )
    else:
        nothing = _say("还没有记住任何内容。", "Nothing remembered yet.")
        body = f'<section class="card"><p class="empty">{nothing}</p></section>'
    undo_note = _say(
        "撤销会恢复该操作之前的样子；若之后的操作改过同一条，请先撤销较新的。",
        "Undo restores what an operation changed; if a later one changed the same rows, undo that one first.",
    )
    operations = (
        f'<section class="card ops"><h2>{_bi("最近的操作", "Recent operations")}</h2>'
        f'<p class="note">{undo_note}</p>{_operations(list(snapshot.get("operations", [])))}</section>'
    )
    return (
        '<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>记忆回顾 · Memory review</title><style>{STYLE}</style></head><body>"
        f"<header><h1>{_bi('助手记得什么', 'What the assistant remembers')}</h1>"
        f'<p class="stamp">{_bi("生成于", "Generated")} {_when(snapshot.get("generated_at"))}'
        f" · memory-store {_e(snapshot.get('version'))}</p></header>"
        f"<main>{_overview(snapshot, people)}{body}{operations}{_how_to_forget()}</main>"
        f"<footer>{_say('由 memory-store review 生成的只读副本。', 'A read-only copy made by memory-store review.')}</footer>"
        "</body></html>\n"
    )
