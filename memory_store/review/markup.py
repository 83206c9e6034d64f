"""The review page's parts: its words, its stylesheet, escaping, and how it shows times.

Apart from the page's assembly (this package's ``__init__``), so that it stays readable. Nothing
here reads the store; every stored string that reaches markup goes through
``e`` (or a helper that calls it).
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone
from html import escape

TYPE_CHECKING = False  # typing costs a few ms to import; the CLI's start-up cannot afford it
if TYPE_CHECKING:
    from typing import Any

# (Chinese, English) pairs: the page shows the one of its language (``words.pick``).
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
        "助手暂时不保存也不回忆，{resume} 可恢复。",  # {resume}: the command, for this install
        "The assistant neither saves nor recalls until {resume}.",
    ),
    "revoked": (
        "已撤回",
        "Revoked",
        "助手不能保存或回忆；已有记录保留，直到你删除。",
        "The assistant can neither save nor recall; what is here stays until you delete it.",
    ),
    "absent": ("未同意", "Not given", "从未同意保存记忆。", "Consent to remember was never given."),
}
CONSENT["never_enabled"] = CONSENT["absent"]  # consent_state's word for a store never enabled

FINDINGS = {
    "same_concept": ("同一件事记了两条", "The same thing, twice"),
    "stale_hypothesis": ("很久没更新的推测", "A guess not revisited"),
    "relative_date": ("相对的日期", "A relative date"),
    "near_cap": ("快记满了", "Nearly full"),
    "ended": ("已结束", "Ended"),
    "past_plan": ("计划的日子已过", "A plan whose day has passed"),
    "unlabelled_subject": ("不知道是谁的记录", "Rows about someone unnamed"),
    "similar_label": ("两个人同名", "Two people, one name"),
}

STYLE = """
:root { color-scheme: light dark; --ink:#2a2d33; --soft:#6b7079; --line:#e3e0d8; --paper:#f7f5f0;
  --card:#fff; --accent:#2f6b66; --accent-bg:#e8f1ef; --accent-line:#9cc3bd; --guess:#8a5a00;
  --guess-bg:#fdf7e8; --guess-line:#dcb877; --full-line:#e6c79a; --warn:#a4461f; --warn-bg:#fbeee8;
  --warn-line:#e8b9a4; --code-bg:#f1efe9; --id:#4f545c; --dot:#b9bcc2; --shadow:rgba(40, 40, 30, 0.04); }
@media screen and (prefers-color-scheme: dark) {
  :root { --ink:#e4e2dc; --soft:#a3a7ae; --line:#3a3d43; --paper:#17181b; --card:#212327;
    --accent:#7cc4bb; --accent-bg:#1f3532; --accent-line:#3f6f69; --guess:#e6b765;
    --guess-bg:#2c2618; --guess-line:#7a6232; --full-line:#7a6232; --warn:#f0a07c;
    --warn-bg:#3a241c; --warn-line:#7a4431; --code-bg:#2b2d32; --id:#b4b8bf; --dot:#5d6168;
    --shadow:rgba(0, 0, 0, 0.3); }
}
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
  padding: 20px 26px; margin: 18px 0; box-shadow: 0 1px 2px var(--shadow); }
.value { white-space: pre-wrap; overflow-wrap: anywhere; }
.pill { display: inline-block; border-radius: 999px; padding: 1px 10px; font-size: 13px;
  background: var(--accent-bg); color: var(--accent); }
.state-paused, .state-revoked, .state-absent, .state-never_enabled { background: var(--warn-bg);
  color: var(--warn); }
.stats { display: flex; flex-wrap: wrap; gap: 10px 28px; margin: 14px 0 0; padding: 0; }
.stats div { min-width: 150px; }
.stats dt { font-size: 12.5px; color: var(--soft); }
.stats dd { margin: 0; font-size: 18px; font-variant-numeric: tabular-nums; }
.people a { color: var(--accent); text-decoration: none; margin-right: 14px; }
.person-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 12px; }
.caps { display: flex; flex-wrap: wrap; gap: 6px 8px; margin: 10px 0 0; font-size: 13px; }
.caps > span { border: 1px solid var(--line); border-radius: 6px; padding: 1px 8px; color: var(--soft); }
.caps .full { border-color: var(--full-line); color: var(--guess); background: var(--guess-bg); }
.count { font-variant-numeric: tabular-nums; color: var(--ink); }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
.ops thead th:nth-child(1) { width: 19%; } .ops thead th:nth-child(2) { width: 16%; }
.ops .cmd { margin-top: 4px; }
.meta > span { white-space: nowrap; }
.meta > span + span::before { content: "·"; margin-right: 7px; color: var(--dot); }
th, td { text-align: left; vertical-align: top; padding: 7px 10px 7px 0; border-bottom: 1px solid var(--line); }
thead th { font-size: 12px; font-weight: 500; color: var(--soft); }
tbody th { font-weight: 500; overflow-wrap: anywhere; }
td.meta { font-size: 12.5px; }
td.meta > span { display: block; white-space: normal; }
td.meta > span + span::before { content: none; }
td.id, .id { font-size: 12.5px; color: var(--id); }
td.id code, code.id { overflow-wrap: anywhere; }
.evidence { font-size: 13px; margin: 0; }
.forget { margin: 16px 0 0; font-size: 13.5px; color: var(--soft); }
.cmd { display: inline-block; max-width: 100%; background: var(--code-bg); border-radius: 6px;
  padding: 1px 8px; color: var(--ink); overflow-wrap: anywhere; }
.how li { margin: 6px 0; }
.ref { overflow-wrap: anywhere; white-space: pre-wrap; }
.history { margin: 6px 0 0; font-size: 13px; color: var(--soft); }
.history ol { list-style: none; margin: 2px 0 0; padding: 0 0 0 10px; border-left: 2px solid var(--line); }
.history li { margin: 2px 0; }
.history .span { font-variant-numeric: tabular-nums; white-space: nowrap; margin-right: 6px; }
.history .value { color: var(--ink); }
.ended-mark, .milestone { display: inline-block; font-size: 12px; font-weight: 600; border-radius: 999px;
  padding: 0 9px; margin-right: 6px; }
.ended-mark { color: var(--warn); border: 1px solid var(--warn-line); background: var(--warn-bg); }
.milestone { color: var(--accent); border: 1px solid var(--accent-line); background: var(--accent-bg); }
.findings { list-style: none; margin: 8px 0 0; padding: 0; }
.findings li { border-top: 1px solid var(--line); padding: 4px 0; }
.findings .kind { font-weight: 600; margin-right: 8px; }
.findings .meta { margin: 2px 0 0; font-size: 12.5px; }
.who { border-bottom: 1px dotted var(--dot); }
.empty { font-size: 16px; color: var(--soft); text-align: center; padding: 24px 0; }
footer { color: var(--soft); font-size: 12.5px; margin-top: 28px; }
form.act { display: inline; margin: 0; }
.acts { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0 0; align-items: flex-start; }
button, input[type="text"] { font: inherit; font-size: 13px; color: var(--ink); }
button { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px;
  cursor: pointer; }
button:hover { border-color: var(--accent); color: var(--accent); }
button.danger { color: var(--warn); border-color: var(--warn-line); }
button.danger:hover { background: var(--warn-bg); }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--card); }
input[type="text"] { background: var(--paper); border: 1px solid var(--line); border-radius: 6px;
  padding: 3px 8px; width: 100%; max-width: 420px; }
details.correct { display: inline-block; max-width: 100%; }
details.correct summary { display: inline-block; border: 1px solid var(--line); border-radius: 6px;
  padding: 2px 10px; font-size: 13px; cursor: pointer; list-style: none; }
details.correct summary::-webkit-details-marker { display: none; }
details.correct[open] { display: block; }
details.correct form { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0 0; }
.history .acts { display: inline-flex; margin: 0 0 0 6px; }
.banner { border-radius: 10px; padding: 10px 16px; margin: 18px 0 0; background: var(--accent-bg);
  border: 1px solid var(--accent-line); overflow-wrap: anywhere; }
.banner.error { background: var(--warn-bg); border-color: var(--warn-line); }
.banner .code { font-weight: 600; margin-right: 6px; }
.banner form { display: inline; margin-left: 8px; }
.confirm .question { font-size: 17px; margin: 6px 0 14px; overflow-wrap: anywhere; }
.confirm .acts { gap: 10px; }
a.button { display: inline-block; border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px;
  color: var(--ink); text-decoration: none; font-size: 13px; }
.head-row .line { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; }
.head-row { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 8px 16px;
  align-items: flex-start; }
.controls form { margin: 8px 0; }
.controls .line { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.cards { columns: 2 480px; column-gap: 16px; }
.cards .card { margin: 8px 0; break-inside: avoid; display: inline-block; width: 100%; }
.index { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: space-between;
  margin: 12px 0 0; }
.people { display: flex; flex-wrap: wrap; gap: 2px 14px; }
.people a { margin: 0; }
form.search { display: flex; gap: 6px; flex: 1 1 240px; max-width: 420px; }
form.search input { flex: 1 1 auto; min-width: 0; max-width: none; }
.found { margin: 8px 0 0; }
.lang { font-size: 13px; color: var(--accent); }
.quiet { font-size: 15px; color: var(--soft); font-weight: 500; }
.overview .consent { margin: 4px 0 0; }
.overview .stats { margin-top: 6px; }
.rows { list-style: none; margin: 0; padding: 0; }
.row { border-top: 1px solid var(--line); }
.row:first-child { border-top: 0; }
summary.line { display: flex; flex-wrap: wrap; gap: 0 10px; align-items: baseline; padding: 3px 16px 3px 0;
  line-height: 1.5;
  cursor: pointer; list-style: none; position: relative; }
summary.line::-webkit-details-marker { display: none; }
summary.line::after { content: "›"; color: var(--dot); position: absolute; right: 2px; top: 4px; }
details[open] > summary.line::after { content: "⌄"; }
.line .what { flex: 0 0 auto; min-width: 7.5em; color: var(--soft); font-size: 13.5px; }
.line .value { flex: 1 1 12em; min-width: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.line .when { flex: 0 1 auto; margin-left: auto; color: var(--soft); font-size: 12.5px;
  font-variant-numeric: tabular-nums; }
.row.ended .line .value { color: var(--soft); text-decoration: line-through; }
.row.hypothesis .line .value { font-style: italic; color: var(--guess); }
.more { padding: 2px 0 10px 12px; border-left: 2px solid var(--line); margin: 0 0 6px 2px; font-size: 13px; }
.more .meta { margin: 2px 0; font-size: 12.5px; }
.kind h3 { margin: 12px 0 2px; font-size: 13px; }
.kind .note, .you > .note { font-size: 12.5px; margin: 0 0 2px; }
.card-more { margin: 8px 0 0; font-size: 12.5px; color: var(--soft); }
.card-more summary { cursor: pointer; }
.card.person { padding: 12px 20px; }
.card.person h2 + .kind h3, .card.person h2 + .note { margin-top: 4px; }
.card.person h2 { font-size: 19px; }
.ops summary, .how summary { cursor: pointer; }
.ops summary h2 { display: inline; }
@media (max-width: 640px) {
  body { padding: 18px 10px 32px; font-size: 14.5px; }
  h1 { font-size: 22px; }
  .card { padding: 14px 14px; border-radius: 10px; }
  .stats div { min-width: 120px; }
  table.ops, .ops tbody, .ops tr, .ops td { display: block; width: auto; }
  .ops thead { display: none; }
  .ops tr { border-bottom: 1px solid var(--line); padding: 8px 0; }
  .ops td { border: 0; padding: 2px 0; }
  .meta > span { white-space: normal; }
  .history .span { white-space: normal; }
  .cards { columns: auto; }
  .line .what { min-width: 0; font-size: 12.5px; order: 1; }
  .line .when { order: 2; }
  .line .value { order: 3; flex-basis: 100%; }
  .index { padding: 6px 0; }
}
@media print {
  html, body { background: #fff; color: #000; }
  body { max-width: none; padding: 0; font-size: 11pt; }
  .card { box-shadow: none; border-color: #bbb; padding: 12px 0 0; border-width: 1px 0 0; border-radius: 0; }
  td.id, .id { font-size: 8pt; }
  .people a { color: inherit; }
  tr, .row { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  form, details.correct, .controls, .banner, .search { display: none; }
  @page { margin: 16mm 14mm; }
}
"""


def e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


# The language the served page speaks in this request ("zh" or "en"), set by its server
# for the thread that answers it: the page's own words (its buttons' notes, its questions)
# are then in that one language (documentation/page.md). None: both, as a fallback.
SPEAKING: ContextVar[str | None] = ContextVar("speaking", default=None)


def bi(zh: str, en: str) -> str:
    lang = SPEAKING.get()
    if lang is not None:
        return zh if lang == "zh" else en
    return f'{zh} · <span lang="en">{en}</span>'


def say(zh: str, en: str) -> str:
    lang = SPEAKING.get()
    if lang is not None:
        return zh if lang == "zh" else en
    # Sentences end with their own punctuation, so they need no separator.
    return f'{zh} <span lang="en">{en}</span>'


def pair(table: dict[str, tuple[str, str]], key: Any) -> str:
    # A value the page does not know (a newer release's source type) is shown as stored.
    return bi(*table[key]) if key in table else e(key)


# ---------------------------------------------------------------- times

_OFFSET_RE = re.compile(r"([+-])(\d\d):(\d\d)")


def utc_stamp(text: Any) -> datetime | None:
    """A stored date-time ("YYYY-MM-DDTHH:MM:SSZ", always UTC) as a datetime; None otherwise."""
    if not isinstance(text, str) or len(text) != 20 or text[10] != "T" or text[-1] != "Z":
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def zone_of(written: Any) -> timezone | None:
    """The offset an event time was written in ("Z" or "±HH:MM"), if the row kept it."""
    if written == "Z":
        return timezone.utc
    m = _OFFSET_RE.fullmatch(written) if isinstance(written, str) else None
    if not m or int(m[2]) > 23 or int(m[3]) > 59:
        return None
    minutes = int(m[2]) * 60 + int(m[3])
    return timezone(timedelta(minutes=-minutes if m[1] == "-" else minutes))


def offset_name(offset: timedelta | None) -> str:
    minutes = int((offset or timedelta()).total_seconds()) // 60
    if minutes == 0:
        return "UTC"
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _tag(stored: Any, shown: str) -> str:
    # The attribute keeps the stored string exactly; the text is how a person reads it.
    return f'<time datetime="{e(stored)}">{e(shown)}</time>'


class Clock:
    """How one page shows times: each with its offset, "2026-05-01 21:30 +08:00". The page is
    made on the person's own computer for them to read, so a time the machine stamped
    (written, updated, consent) is shown in that computer's time zone (named in the header).
    An event's time is shown in the offset it was written in when the row keeps it
    (``occurred_offset``: "Z" or "±HH:MM"), else in this computer's zone too."""

    def __init__(self, generated_at: Any) -> None:
        ref = utc_stamp(generated_at) or datetime.now(timezone.utc)
        self.offset = self._local(ref).utcoffset()

    @staticmethod
    def _local(dt: datetime, zone: timezone | None = None) -> datetime:
        try:
            return dt.astimezone(zone) if zone else dt.astimezone()
        except (OverflowError, OSError, ValueError):  # year 1 or 9999 shifted past the calendar
            return dt

    def local(self, dt: datetime, zone: timezone | None = None) -> datetime:
        """``dt`` in ``zone`` (an event's written offset), or in this computer's zone."""
        return self._local(dt, zone)

    def zone(self) -> str:
        return offset_name(self.offset)

    def stamp(self, stored: Any, written: Any = None) -> str:
        """``stored`` (UTC, as the store keeps every date-time) in the offset ``written``, or
        in this computer's zone; a date, or anything unreadable, exactly as stored."""
        dt = utc_stamp(stored)
        if dt is None:
            return _tag(stored, "" if stored is None else str(stored))
        local = self._local(dt, zone_of(written))
        return _tag(stored, f"{local:%Y-%m-%d %H:%M} {offset_name(local.utcoffset())}")


# ---------------------------------------------------------------- operation summaries

# Where a summary names a row: at its start, after "undid: ", or after "; " between parts
# ("obj-a event.conflict@2026-07-20T11:30:00Z → …"). A value holding the same pattern
# after "; " would be read the same way; it is still shown as text, only relabelled.
_HEAD_RE = re.compile(
    r"(?:^|(?<=; )|(?<=undid: ))(?:(?P<subject>[A-Za-z0-9_.:-]+) )?"
    r"(?P<where>(?:user|object|relationship|event|hypothesis)\.[^\s@;]+)"
    r"(?:@(?P<at>\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\dZ)?))?"
)


def labelled_summary(
    summary: Any,
    labels: dict[str, str],
    offsets: dict[tuple[str, str, str], Any],
    clock: Clock,
    lang: str = "en",
) -> str:
    """An operation's summary as markup: each subject code with a display label shown as
    that label (the code on hover), each row's key in words (``words.field_name``; the
    key on hover), each event time as the page shows event times."""
    from .words import field_name

    text = "" if summary is None else str(summary)
    out, pos = [], 0
    for m in _HEAD_RE.finditer(text):
        subject, where, at = m["subject"], m["where"], m["at"]
        out.append(e(text[pos : m.start()]))
        if subject in labels:
            out.append(f'<span class="who" title="{e(subject)}">{e(labels[subject])}</span> ')
        elif subject:
            out.append(f"{e(subject)} ")
        field = where.partition(".")[2]
        out.append(f'<span class="key" title="{e(where)}">{e(field_name(field, lang))}</span>')
        if at:
            out.append("@" + clock.stamp(at, offsets.get((subject or "user", field, at))))
        pos = m.end()
    out.append(e(text[pos:]))
    return "".join(out)
