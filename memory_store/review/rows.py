"""One memory on the review page: a line a person would write, and its details behind a
disclosure.

The line is what the row is about in words (``words.field_name``), the value and when
("since March 2025", "until October 2026", an event's day). Everything else the store
keeps about the row — the source in words and its reference, confidence, the exact
times with their offset, the field's key, the ID, the past values with their handles —
and the served page's buttons sit in the row's ``<details>``, so that the person's right
of access (``documentation/review.md``) loses nothing and the default view stays plain
(``documentation/page.md``). ``page`` is the assembly's ``_Page``. Every stored string goes
through ``e``.
"""

from __future__ import annotations

from .markup import CONFIDENCE, SOURCES, e, utc_stamp, zone_of
from .words import day, field_name, since, until

TYPE_CHECKING = False  # typing costs a few ms to import; the CLI's start-up cannot afford it
if TYPE_CHECKING:
    from typing import Any


def _past_list(row: dict[str, Any]) -> list[dict[str, Any]]:
    past = row.get("past")
    return [p for p in past if isinstance(p, dict)] if isinstance(past, list) else []


def _last_until(row: dict[str, Any]) -> Any:
    past = _past_list(row)
    return past[-1].get("until") if past else None


def event_day(row: dict[str, Any], page: Any) -> str:
    """An event's day in words, with its time of day when it has one, in the offset it was
    told in (``documentation/review.md``, Times)."""
    stored = row.get("occurred_at")
    dt = utc_stamp(stored)
    if dt is None:
        return day(stored, page.lang)
    local = page.clock.local(dt, zone_of(row.get("occurred_offset")))
    return f"{day(local.strftime('%Y-%m-%d'), page.lang)} {local:%H:%M}"


def _when(row: dict[str, Any], page: Any) -> str:
    lang, scope = page.lang, row.get("scope")
    if row.get("ended"):
        end = _last_until(row)
        return until(end, lang) if end else page.t("已结束", "ended")
    if scope == "event":
        return event_day(row, page)
    if scope == "hypothesis":
        level = CONFIDENCE.get(str(row.get("confidence")))
        sure = page.t(f"把握{level[0]}", f"{level[1]} confidence") if level else ""
        return page.t("推测", "a guess") + (f" · {sure}" if sure else "")
    return since(row["since"], lang) if row.get("since") else ""


def line(row: dict[str, Any], page: Any) -> str:
    """The row as a person reads it: what it is about, the value, when."""
    value = row.get("value")
    if row.get("ended") and value is None:
        past = _past_list(row)
        value = past[-1].get("value") if past else None
    marks = ""
    if row.get("pinned"):
        marks = f'<span class="milestone">{page.t("里程碑", "milestone")}</span> '
    when = _when(row, page)
    return (
        f'<span class="what">{e(field_name(row.get("field"), page.lang))}</span> '
        f'<span class="value">{marks}{e(value)}</span>'
        + (f' <span class="when">{e(when)}</span>' if when else "")
    )


def source(kind: Any, page: Any) -> str:
    # A value the page does not know (a newer release's source type) is shown as stored.
    return e(page.t(*SOURCES[kind])) if kind in SOURCES else e(kind)


def _times(row: dict[str, Any], page: Any) -> list[str]:
    clock, t = page.clock, page.t
    spans = []
    if row.get("scope") == "event":
        at = clock.stamp(row.get("occurred_at"), row.get("occurred_offset"))
        spans.append(f"{t('发生于', 'happened')} {at}")
    elif row.get("since") and not (row.get("ended") and row.get("since") == _last_until(row)):
        # An ended row's since is the day it ended, said once below.
        spans.append(f"{t('自', 'since')} {e(row.get('since'))}")
    as_of = row.get("occurred_at")
    if as_of and row.get("scope") != "event" and str(as_of)[:10] != str(row.get("since")):
        # Outside events occurred_at means "as of"; it is shown only where since is not it.
        spans.append(f"{t('截至', 'as of')} {clock.stamp(as_of, row.get('occurred_offset'))}")
    if row.get("ended") and _last_until(row):
        spans.append(f"{t('结束于', 'ended')} {e(_last_until(row))}")
    spans.append(f"{t('记下', 'written')} {clock.stamp(row.get('created_at'))}")
    if row.get("updated_at") != row.get("created_at"):
        spans.append(f"{t('更新', 'updated')} {clock.stamp(row.get('updated_at'))}")
    return spans


def about(row: dict[str, Any], page: Any) -> str:
    """What the store keeps about the row besides its line: source, confidence, the exact
    times, its key and ID, the reference or evidence, the past values."""
    t = page.t
    said = [f"{t('来源', 'source')}: {source(row.get('source_type'), page)}"]
    level = CONFIDENCE.get(str(row.get("confidence")))
    if level:
        said.append(f"{t('把握', 'confidence')}: {e(t(*level))}")
    keys = [
        f"{t('项目', 'field')} <code>{e(row.get('field'))}</code>",
        f'ID <code class="id">{e(row.get("id"))}</code>',
    ]
    lines = [said, _times(row, page), keys]
    out = "".join(
        f'<p class="meta">{" ".join(f"<span>{s}</span>" for s in spans)}</p>' for spans in lines
    )
    ref = row.get("source_ref")
    if ref is not None and ref != "":
        word = t("依据", "evidence") if row.get("scope") == "hypothesis" else t("出处", "reference")
        out += f'<p class="evidence">{word}: <span class="ref">{e(ref)}</span></p>'
    return out + history(row, page)


def history(row: dict[str, Any], page: Any) -> str:
    """The row's past values, oldest first: "2025-09-01 → 2026-03-10: 在上海做平面设计师"."""
    past = _past_list(row)
    if not past:
        return ""
    controls = page.controls
    items = "".join(
        f'<li><span class="span">{e(p.get("since") or "…")} → {e(p.get("until") or "…")}:</span>'
        f' <span class="value">{e(p.get("value"))}</span>'
        f' <span class="src">({source(p.get("source_type"), page)})</span>'
        # Its own handle (documentation/page.md): removing it never takes the row.
        f' <code class="id past-id">{e(p.get("past_id") or "")}</code>'
        f"{'' if controls is None else controls.past(row, p)}</li>"
        for p in past
    )
    return f'<div class="history">{page.t("以前", "Earlier")}<ol>{items}</ol></div>'


def row(row: dict[str, Any], page: Any) -> str:
    """One memory: its line, and its details (and buttons) behind the line."""
    classes = ["row", row.get("scope") or ""]
    classes += [flag for flag in ("ended", "pinned") if row.get(flag)]
    return (
        f'<li class="{e(" ".join(c for c in classes if c))}" id="{e(row_anchor(row))}">'
        f'<details><summary class="line">{line(row, page)}</summary>'
        f'<div class="more">{about(row, page)}{page.acts(row)}</div></details></li>'
    )


def row_anchor(r: dict[str, Any]) -> str:
    return f"row-{r.get('id')}"


def rows(items: list[dict[str, Any]], page: Any) -> str:
    return f'<ul class="rows">{"".join(row(r, page) for r in items)}</ul>'
