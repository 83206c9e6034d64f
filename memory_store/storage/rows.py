"""Memory rows as the commands share them: columns, lookups, public form, labels."""

from __future__ import annotations

import json
import time

from .. import policy
from ..policy import ROW_KEYS, TIME_KEYS
from . import db

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from typing import Any

# Internal columns kept in snapshots so that undo restores a row exactly. ``past``
# is JSON text (NULL when none); an ended row's ``value`` is "" (a stored value
# never is), shown as null.
STORED_TIME = ("since", "past", "pinned", "occurred_offset")
ALL_COLUMNS = (*ROW_KEYS, *STORED_TIME, "occurred_key", "write_seq")
PUBLIC_KEYS = (*ROW_KEYS, *TIME_KEYS)
SELECT = "SELECT " + ", ".join(ALL_COLUMNS) + " FROM memories"
# What context reads of a row: not its creation time, its event key or the offset the
# review page shows (each column is decoded for every row of every turn).
_NOT_RECALLED = ("created_at", "occurred_key", "occurred_offset")
RECALL = "SELECT " + ", ".join(c for c in ALL_COLUMNS if c not in _NOT_RECALLED) + " FROM memories"
INSERT = (
    f"INSERT INTO memories ({', '.join(ALL_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in ALL_COLUMNS)})"
)
SCOPE_ORDER = {scope: i for i, scope in enumerate(policy.SCOPES)}


def is_product_id(text: str) -> bool:
    """Whether ``text`` has the shape of the ids this product makes: m- and 16 hex digits."""
    return len(text) == 18 and text.startswith("m-") and not text[2:].strip("0123456789abcdef")


def forbidden_char(text: str) -> tuple[int, str] | None:
    """The first character a stored value (and so a query) may not hold, with its kind:
    a lone surrogate, a control character other than tab and newline, a line or
    paragraph separator, a bidi control (references/memory-rules.md#field-rules-enforced). None for valid text."""
    if text.isprintable():  # the fast answer for nearly all text
        return None
    for ch in text:
        if ch in "\t\n" or ch.isprintable():
            continue
        cp = ord(ch)
        if 0xD800 <= cp <= 0xDFFF:
            return cp, "a lone surrogate"
        if cp < 0x20 or 0x7F <= cp <= 0x9F:
            return cp, "a control character"
        if cp in (0x2028, 0x2029):
            return cp, "a line or paragraph separator"
        if 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069:
            return cp, "a bidi control"
    return None  # other format characters and spaces are allowed


STAMP = "%Y-%m-%dT%H:%M:%SZ"  # how the store writes a time: UTC, to the second


def now(ago: float = 0) -> str:
    """The time ``ago`` seconds before now, as the store writes times."""
    return time.strftime(STAMP, time.gmtime(time.time() - ago))


def public(row: dict[str, Any]) -> dict[str, Any]:
    """The row as hosts see it: the row keys (references/memory-rules.md#the-five-kinds) and its time (documentation/time.md#where-history-lives), nothing internal."""
    out = {k: row[k] for k in ROW_KEYS}
    ended = row["value"] == ""
    if ended:
        out["value"] = None
    out["since"] = row["since"]
    out["past"] = past_of(row)
    out["ended"] = ended
    out["pinned"] = bool(row["pinned"])
    return out


def compact_written(row: dict[str, Any], subject_id: str | None = None) -> dict[str, Any]:
    """A row ``apply`` wrote (its public form) as the compact row of documentation/recall.md#what-context---query-returns, the
    shape ``context`` returns (``recall.compact``): id, scope, field, value; subject_id
    when it is not ``subject_id`` (the one the delta named); the rest only when it tells
    the reader something. An ended row shows its last value with ``since`` and
    ``until``; ``show`` (or ``verbose``) has the whole row."""
    out = {"id": row["id"], "scope": row["scope"]}
    if row["subject_id"] != subject_id:
        out["subject_id"] = row["subject_id"]
    out.update(field=row["field"], value=row["value"])
    if row["ended"] and row["past"]:
        last = row["past"][-1]
        out.update(value=last["value"], since=last["since"], until=last["until"])
    if row["occurred_at"]:
        out["occurred_at"] = row["occurred_at"]
    return with_compact_tail(out, row)


def with_compact_tail(out: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """The keys a compact row (documentation/recall.md#what-context---query-returns) carries only when they tell the reader
    something, added to ``out``: ``recall.compact`` and :func:`compact_written` share them."""
    hypothesis = row["scope"] == "hypothesis"
    if hypothesis or row["confidence"] != policy.DEFAULT_CONFIDENCE:
        out["confidence"] = row["confidence"]
    if row["source_type"] != "user_explicit":
        out["source_type"] = row["source_type"]
    if hypothesis:
        out["source_ref"] = row["source_ref"]  # a guess travels with its evidence
    if row["pinned"]:
        out["pinned"] = True
    return out


def past_of(row: dict[str, Any]) -> list[dict[str, Any]]:
    """A row's past values, oldest first: ``{value, since, until, source_type, past_id}``
    (``since`` null when unknown: a change dated on or before the value began)."""
    raw = row["past"]
    return json.loads(raw) if raw else []


def is_past_id(text: str) -> bool:
    """Whether ``text`` has the shape of a past value's handle: p- and 16 hex digits."""
    return len(text) == 18 and text.startswith("p-") and not text[2:].strip("0123456789abcdef")


def new_past_id() -> str:
    """A past value's own handle (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id): never a row's id, so that "forget the old
    value" cannot name the whole row."""
    import os

    return "p-" + os.urandom(8).hex()


def find_past(conn: sqlite3.Connection, past_id: str) -> tuple[dict[str, Any], int] | None:
    """(the row holding the past value ``past_id``, its index in the row's past), or None."""
    if not is_past_id(past_id):
        return None
    for row in select(conn, " WHERE past LIKE ?", (f'%"{past_id}"%',)):
        for i, entry in enumerate(past_of(row)):
            if entry.get("past_id") == past_id:
                return row, i
    return None


def own_past_ids(
    conn: sqlite3.Connection, deltas: list[dict[str, Any]], key: Callable[[Any], Any]
) -> list[dict[str, Any]]:
    """A handle names one past value (documentation/time.md): an imported row's ``past_id``
    that a row the import does not restore (by ``key``) already holds (an export older than
    a ``replaces`` that moved the value, or a hand-edited copy) is given a handle of its
    own in ``deltas``, derived as migration 4 derives one, so that importing the same
    document again changes nothing. Returns ``{index, was, past_id}`` per handle replaced."""
    from ..errors import error
    from .migrations import past_id_for

    restored = {key(d) for d in deltas}
    taken = {p["past_id"] for d in deltas for p in json.loads(d.get("past") or "[]")}

    def elsewhere(past_id: str) -> bool:
        held = find_past(conn, past_id)
        return held is not None and key(held[0]) not in restored

    replaced = []
    for i, d in enumerate(deltas):
        past = json.loads(d.get("past") or "[]")
        for n, p in enumerate(past):
            if not elsewhere(p["past_id"]):
                continue
            new = past_id_for(d["id"], {k: v for k, v in p.items() if k != "past_id"}, n)
            if new in taken or elsewhere(new):
                where = f"$.memories[{i}].past[{n}]"
                raise error(
                    "INVALID_DELTA", "a past_id names another past value", index=i, path=where
                )
            replaced.append({"index": i, "was": p["past_id"], "past_id": new})
            p["past_id"] = new
            taken.add(new)
        if replaced and replaced[-1]["index"] == i:
            d["past"] = json.dumps(past, ensure_ascii=False)
    return replaced


def is_current(row: dict[str, Any]) -> bool:
    """Whether the row has a current value (an ended row has none)."""
    return row["value"] != ""


def key_of(row: dict[str, Any]) -> str:
    """A stable text form of a row's identity (scope, subject, field, event date)."""
    return json.dumps(
        [row["scope"], row["subject_id"], row["field"], row.get("occurred_key") or ""],
        ensure_ascii=False,
    )


def storage_order(row: dict[str, Any]) -> tuple[int, str, str, str]:
    """``show`` and ``export`` order: scope, subject, field, event date."""
    return (SCOPE_ORDER[row["scope"]], row["subject_id"], row["field"], row["occurred_key"])


def label(row: dict[str, Any]) -> str:
    """``obj-a relationship.stage`` — how a summary names a row."""
    where = f"{row['scope']}.{row['field']}"
    if row["scope"] == "event" and row.get("occurred_at"):
        where += f"@{row['occurred_at']}"
    return where if row["subject_id"] == policy.USER_SUBJECT else f"{row['subject_id']} {where}"


# A label's leading name ends at the first bracket or comma: "Dana (my manager)",
# "小林（读书会认识的设计师）", "Sam, from the climbing gym".
_NAME_ENDS = "([{<（【［《〈,，、;；"


def fold(text: str) -> str:
    """``text`` with case, full/half width and spaces ignored (NFKC, casefold, no spaces)."""
    import unicodedata

    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def leading_name(label: str) -> str:
    """The part of a label before its first bracket or comma ("Dana (my manager)" → "Dana")."""
    cut = min((i for i in (label.find(c) for c in _NAME_ENDS) if i >= 0), default=len(label))
    return label[:cut]


def name_key(label: str) -> str:
    """A label's leading name, folded: two subjects with one key share a name."""
    return fold(leading_name(label))


def same_name_groups(stored: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The ``display_label`` rows of two or more subjects whose labels share a leading
    name ("阿杰", "阿杰（读书会认识的男生）"), one list per name."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in stored:
        if r["scope"] == "object" and r["field"] == "display_label" and name_key(r["value"]):
            groups.setdefault(name_key(r["value"]), []).append(r)
    return [g for g in groups.values() if len({r["subject_id"] for r in g}) > 1]


def select(
    conn: sqlite3.Connection, where: str = "", params: Any = (), columns: str = SELECT
) -> list[dict[str, Any]]:
    return db.fetch_all(conn, columns + where, params)


def find_by_key(conn: sqlite3.Connection, key: tuple[str, ...]) -> dict[str, Any] | None:
    rows = select(
        conn, " WHERE scope = ? AND subject_id = ? AND field = ? AND occurred_key = ?", key
    )
    return rows[0] if rows else None


def find_by_id(conn: sqlite3.Connection, memory_id: str) -> dict[str, Any] | None:
    rows = select(conn, " WHERE id = ?", (memory_id,))
    return rows[0] if rows else None


def insert(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    conn.execute(INSERT, tuple(row[c] for c in ALL_COLUMNS))


def delete(conn: sqlite3.Connection, memory_id: str) -> None:
    conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))


# ---------------------------------------------------------------- time, as reads need it
# (documentation/time.md#writing; the write side is writes/timeline.py)

_CONCEPT_OF_WORD = {
    word: concept for concept, words in policy.FIELD_CONCEPTS.items() for word in words
}


def concepts_of(field: str) -> frozenset[str]:
    """The concept a field's head word names (documentation/time.md#same-concept-two-rows-related), empty when it names none.

    The head is the word the rest qualifies: the last word (``fact_job``,
    ``current_city``: a job, a city), once trailing function words are dropped
    (``lives_in``: lives) and before an ``of`` (``city_of_residence``); a trailing
    word that only qualifies the one before (``job_title``) defers to it. A plural
    counts as its singular. A word inside the name that is not its head names no
    concept: ``fact_work_schedule`` is a schedule, ``work_stress`` a stress.
    """
    known = _CONCEPTS.get(field)
    if known is None:
        concept = _concept_of_head(field.split("_"))
        known = _CONCEPTS[field] = frozenset((concept,) if concept else ())
    return known


_CONCEPTS: dict[str, frozenset[str]] = {}  # field -> concepts; the same few fields every call


def _concept_of_head(words: list[str]) -> str | None:
    if "of" in words[1:]:
        words = words[: words.index("of", 1)]
    while len(words) > 1 and words[-1] in policy.FIELD_TRAILING_WORDS:
        words = words[:-1]
    for i in range(len(words)):  # a run of words the table names ("relationship_status")
        run = "_".join(words[i:])
        if "_" in run and run in _CONCEPT_OF_WORD:
            return _CONCEPT_OF_WORD[run]
    head = _singular(words[-1])
    if head in policy.FIELD_QUALIFIER_TAILS and len(words) > 1:
        head = _singular(words[-2])
    return _CONCEPT_OF_WORD.get(head)


def _singular(word: str) -> str:
    if word in _CONCEPT_OF_WORD or len(word) < 4 or not word.endswith("s"):
        return word
    if word.endswith("ies") and word[:-3] + "y" in _CONCEPT_OF_WORD:
        return word[:-3] + "y"
    return word[:-1]


_KIND_OF_WORD = {word: kind for kind, words in policy.FIELD_KINDS.items() for word in words}


def kind_of(field: str) -> str:
    """The kind of claim a field makes (``goal_work``: a goal, ``planned_trip``: a plan),
    from its leading word (``policy.FIELD_KINDS``); "" for a fact (``job``, ``fact_job``)."""
    first, _, rest = field.partition("_")
    return _KIND_OF_WORD.get(first, "") if rest else ""


def kinded_concepts(field: str) -> frozenset[tuple[str, str]]:
    """(kind, concept) for each concept of ``field``: ``goal_work`` holds ("goal", "job"),
    ``job`` and ``fact_job`` ("", "job"). Rows are one concept only when both agree, so a
    goal, plan, wish or preference about work is never the job itself."""
    kind = kind_of(field)
    return frozenset((kind, concept) for concept in concepts_of(field))


def concept_words(kinded: tuple[str, str]) -> str:
    """A (kind, concept) in words: "job", "goal about job", "past job"."""
    kind, concept = kinded
    if not kind:
        return concept
    return f"past {concept}" if kind == "past" else f"{kind} about {concept}"


def same_concept(a: str, b: str) -> bool:
    return a != b and bool(kinded_concepts(a) & kinded_concepts(b))


def past_rows(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every past value of ``found`` as a row of its own: the row's id, scope, subject and
    field, the past value with its ``since`` and ``until`` (the newest first)."""
    out = []
    for row in found:
        if not row["past"]:
            continue
        ended = row["value"] == ""
        for n, p in enumerate(reversed(past_of(row))):
            out.append(
                {
                    **row,
                    "value": p["value"],
                    "since": p["since"],
                    "until": p["until"],
                    "past_id": p.get("past_id"),
                    # The value an ended row had last: it says when the row ended.
                    "last_of_ended": ended and n == 0,
                    "source_type": p["source_type"],
                    "confidence": policy.DEFAULT_CONFIDENCE,  # a past value keeps none
                    "occurred_at": None,
                    "pinned": 0,
                }
            )
    return out


def concept_groups(
    current: list[dict[str, Any]],
) -> dict[tuple[str, str, tuple[str, str]], list[dict[str, Any]]]:
    """(scope, subject, (kind, concept)) -> the current rows that hold it, where two or
    more do: rows that may both claim to be true (profile, person and relationship rows
    only), of one kind (``kinded_concepts``)."""
    seen: dict[tuple[str, str, tuple[str, str]], list[dict[str, Any]]] = {}
    for row in current:
        if row["scope"] in policy.HISTORY_SCOPES:
            for kinded in sorted(kinded_concepts(row["field"])):
                seen.setdefault((row["scope"], row["subject_id"], kinded), []).append(row)
    return {key: group for key, group in seen.items() if len(group) > 1}


def with_siblings(current: list[dict[str, Any]]) -> set[str]:
    """Ids of current rows that share a concept with another current row of their scope
    and subject."""
    return {r["id"] for group in concept_groups(current).values() for r in group}
