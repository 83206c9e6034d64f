"""How a question names a time without naming a date (documentation/time.md, "However
it is asked"): the general word tables, in both languages, and the rules they feed.

- *Time units* (week, month, spring, 那个月, 那一趟) say how long the time a question
  names lasted, not which time it was: "the week I got promoted" is found by "promoted".
  They are set aside before the anchor is sought, like the person's name and the cues.
- *Order words* (first, earliest, 最开始, 最早; last, latest, 最后) pick a value by its
  place in a field's history: the earliest (or latest) value of the asked field first.
- *Between words* (between, 之间, 中间, 从…到) join two anchors into the period they bound.

And the time a row names (``span``: an event's day, a value's ``since``-``until``), whether
a value held at a time (``true_at``), for how long (``overlap``), and the first value told
after a day on which none held yet (``nearest``).

Only built-ins are used; nothing is kept between calls.
"""

from __future__ import annotations

from .. import policy

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

# Units of time and the words that point at one, as substrings (Chinese) or as words.
UNITS_ZH = (
    "那一趟 那趟 这一趟 那一回 那回 那一次 那次 这段日子 那段日子 日子 几个月 那个月 这个月 "
    "那一周 那周 那个星期 那一年 那年 那天 那晚 那一晚 中间 这段 那段 那阵子 阵子 期间 周末"
)
UNITS_EN = (
    "week weeks weekend weekends month months year years day days night nights "
    "morning evening spring summer autumn fall winter season time times period"
)
# A time that is a point, not a stretch: a value named with one of these is named by its
# start ("the week I got promoted", "她刚去药企的时候"), not by all the time it held.
POINT_ZH = "那个月 那一周 那周 那个星期 那天 那晚 那一晚 那一刻 刚 开始"
POINT_EN = "week day night weekend month morning evening moment"
# The earliest value of the asked field (first, 最开始), or the latest.
EARLIEST_ZH = "最开始 一开始 刚开始 最早 最初 起初 起先 头一回"
EARLIEST_EN = "first earliest initially"
LATEST_ZH = "最后 最近一次 最新"
LATEST_EN = "latest last"
# Two times and the period between them.
BETWEEN_ZH = "之间 中间"
BETWEEN_EN = "between"


def without_units(query: str) -> str:
    """The question without its time units, order and between words (as ``anchors.find``
    reads it: they say how the time is named, not which time it is)."""
    for unit in _SET_ASIDE_ZH:
        if unit in query:
            query = query.replace(unit, " ")
    return " ".join(w for w in query.split() if _bare(w) not in _SET_ASIDE_EN)


def point(query: str) -> bool:
    """Whether the question names a point in time (``POINT_ZH``, ``POINT_EN``)."""
    return any(w in query for w in _POINT_ZH) or not _POINT_EN.isdisjoint(
        _bare(w) for w in query.split()
    )


def order_of(query: str) -> int:
    """-1: the question asks for the earliest value ("最开始", "first"); 1: the latest;
    0: neither."""
    words = {_bare(w) for w in query.split()}
    if any(w in query for w in _EARLIEST_ZH) or words & _EARLIEST_EN:
        return -1
    if any(w in query for w in _LATEST_ZH) or words & _LATEST_EN:
        return 1
    return 0


def between(query: str) -> bool:
    """Whether the question names a period by the two times that bound it."""
    if any(w in query for w in _BETWEEN_ZH) or "between" in {_bare(w) for w in query.split()}:
        return True
    start = query.find("从")
    return start != -1 and query.find("到", start + 2) != -1


def _bare(word: str) -> str:
    return word.lower().strip("?,.!;:'\"()")


def by_order(rows: list[dict[str, Any]], order: int) -> list[dict[str, Any]]:
    """``rows`` earliest first (``order`` -1) or latest first (1), by when each value
    began, each subject's apart (they are in the order of whom the question asks about)."""
    place: dict[str, int] = {}
    for r in rows:
        place.setdefault(r["subject_id"], len(place))
    out = sorted(rows, key=lambda r: r.get("since") or "", reverse=order > 0)
    out.sort(key=lambda r: place[r["subject_id"]])  # stable: each subject's in its order
    return out


def bounded(spans: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The period between the first two distinct times of ``spans`` (each a value's or an
    event's ``(start, end)``): from the earlier start to the later one."""
    starts = sorted({start for start, _ in spans})
    if len(starts) < 2:
        return None
    return starts[0], starts[1]


_UNITS_ZH = sorted(UNITS_ZH.split(), key=len, reverse=True)
_UNITS_EN = frozenset(UNITS_EN.split())
_POINT_ZH = POINT_ZH.split()
_POINT_EN = frozenset(POINT_EN.split())
_EARLIEST_ZH = EARLIEST_ZH.split()
_EARLIEST_EN = frozenset(EARLIEST_EN.split())
_LATEST_ZH = LATEST_ZH.split()
_LATEST_EN = frozenset(LATEST_EN.split())
_BETWEEN_ZH = BETWEEN_ZH.split()
_SET_ASIDE_ZH = sorted(
    {*_UNITS_ZH, *_EARLIEST_ZH, *_LATEST_ZH, *_BETWEEN_ZH} - {"刚", "开始"}, key=len, reverse=True
)
_SET_ASIDE_EN = _UNITS_EN | _EARLIEST_EN | _LATEST_EN | {"between"}


OPEN = "9999-12-31"  # the end of a value still true


def span(row: dict[str, Any]) -> tuple[str, str] | None:
    """The time a row names: an event's day, a value's ``since``-``until`` (open: still
    true); None for rows that name no time (hypotheses, the display label)."""
    if row["scope"] == "event":
        day = (row["occurred_at"] or "")[:10]
        return (day, day) if day else None
    if row["scope"] not in policy.HISTORY_SCOPES or row["field"] == "display_label":
        return None
    since = row["since"] or ""
    return (since, row.get("until") or OPEN) if since else None


def true_at(row: dict[str, Any], start: str, end: str) -> bool:
    """Whether a value held at some time between ``start`` and ``end`` (a day: both the
    same, and a value replaced that day counts): it began by then and had not yet been
    replaced."""
    own = span(row)
    if own is None or row["scope"] == "event":
        return False
    since, until = own
    if start == end:  # a value that ends or begins that day held then too ("right before")
        return since <= start <= until
    return since < end and until > start


def nearest(span: tuple[str, str], held: list[dict[str, Any]]) -> tuple[str, str]:
    """A day on which no asked value held yet: the day the first one known began (the
    person told of the job the day after the first date)."""
    start, end = span
    if start != end or not held or any(true_at(r, start, end) for r in held):
        return span
    later = [r["since"] for r in held if (r["since"] or "") > start]
    return (min(later), min(later)) if later else span


def overlap(row: dict[str, Any], spans: list[tuple[str, str]], last: str) -> int:
    """How many days of the first span a value held (a value still true: until ``last``,
    the latest day the store knows)."""
    from datetime import date

    own = span(row)
    if own is None or not spans or spans[0][0] == spans[0][1]:
        return 0
    start, end = max(own[0], spans[0][0]), min(own[1], spans[0][1], last or own[1])
    if start >= end or len(start) != 10 or len(end) != 10:
        return 0
    return (date.fromisoformat(end) - date.fromisoformat(start)).days
