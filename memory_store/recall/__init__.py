"""Reading memory back: ``show`` (everything), ``context`` (what matters, in a budget) and
``search`` (which rows, of whom, match a question).

``context`` and ``search`` return compact rows (documentation/recall.md#what-context---query-returns), without the bookkeeping
``show`` keeps; with a query, ``relevance.py`` orders the candidates; no index is kept,
so nothing here can outlive a deleted memory.
"""

from __future__ import annotations

import json

from .. import policy
from ..storage import on_erasure, rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..storage import Session

_CONFIDENCE_RANK = {c: i for i, c in enumerate(policy.CONFIDENCES)}  # high=0
# the budget's measure (documentation/commands.md#what-each-command-promises)
_JSON = json.JSONEncoder(ensure_ascii=False)
_STRING = json.encoder.encode_basestring  # how json.dumps(..., ensure_ascii=False) writes a string
# Asked about a person, a user-profile row's relevance counts this share of the same
# score on that person's row (the recall benchmark's DEV split: documentation/recall.md).
USER_ROW_WEIGHT = 0.6


def show(
    session: Session, subject_id: str | None = None, scope: str | None = None
) -> dict[str, Any]:
    """Everything stored, in any consent state (the user's right of access)."""
    found = [] if session.blank else _select(session, subject_id, scope)
    ordered = sorted(found, key=rows.storage_order)  # not in place: the rows may be shared
    return {"count": len(ordered), "memories": [rows.public(r) for r in ordered]}


def _select(session: Session, subject_id: str | None, scope: str | None) -> list[dict[str, Any]]:
    """Every row, or one subject's, or one scope's."""
    clauses, params = [], []
    if subject_id is not None:
        clauses.append("subject_id = ?")
        params.append(subject_id)
    if scope is not None:
        clauses.append("scope = ?")
        params.append(scope)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return session.read_rows(where, tuple(params))


def _newest(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(found, key=lambda r: (r["updated_at"], r["write_seq"]), reverse=True)


def priority_order(
    mine: list[dict[str, Any]], user_rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Release 1's order for one subject, most important first.

    Object rows (the display label first), relationship rows, the user
    profile, hypotheses (highest confidence, then newest), and the most
    recent events with every pinned milestone (documentation/time.md#writing); the budget cuts
    from the end.
    """
    objects = _newest([r for r in mine if r["scope"] == "object"])
    objects.sort(key=lambda r: r["field"] != "display_label")
    relationships = _newest([r for r in mine if r["scope"] == "relationship"])
    hypotheses = sorted(
        (r for r in mine if r["scope"] == "hypothesis"),
        key=lambda r: (-_CONFIDENCE_RANK[r["confidence"]], r["updated_at"], r["write_seq"]),
        reverse=True,
    )
    events = sorted(
        (r for r in mine if r["scope"] == "event"),
        key=lambda r: (r["occurred_at"] or "", r["write_seq"]),
        reverse=True,
    )
    events = events[: policy.CONTEXT_EVENTS] + [
        r for r in events[policy.CONTEXT_EVENTS :] if r["pinned"]
    ]
    return objects + relationships + user_rows + hypotheses + events


def context(
    session: Session,
    subject_id: str | None = None,
    max_chars: int = policy.CONTEXT_MAX_CHARS_DEFAULT,
    query: str | None = None,
    resolve: Callable[[Session, str], str] | None = None,
    as_of: str | None = None,
) -> dict[str, Any]:
    """What matters for one subject (or the profile and a roster), within ``max_chars``.

    With ``query``: the subject's display label first, then every candidate the
    query matches (all of the subject's events among them, and the past values
    of its rows: documentation/time.md#recall), best first, then the rest in release 1's order; the values
    true at a time the query names, or on the day ``as_of``, first (documentation/time.md#as-of-a-time-anchors-and---as-of, ``in_time``).
    Only current values are candidates without a query. ``resolve`` turns a subject that
    no row names into the subject it means (a display label, documentation/commands.md#a-person-named-never-guessed), after the gate."""
    session.gate(session.settings())
    found = _rows_of(session, subject_id)
    unnamed = subject_id not in (None, policy.USER_SUBJECT) and not any(
        r["subject_id"] == subject_id for r in found
    )
    if resolve is not None and unnamed:
        named = resolve(session, subject_id)  # type: ignore[arg-type]
        if named != subject_id:
            subject_id, found = named, _rows_of(session, named)
    current, dated, history = _derived(found, subject_id)
    user_rows = _newest([r for r in current if r["scope"] == "user"])
    result: dict[str, Any] = {"subject_id": subject_id}
    candidates, label = user_rows, []
    if subject_id is None or subject_id == policy.USER_SUBJECT:
        ranked = user_rows
        if subject_id is None:
            from .roster import roster

            result["roster"] = roster([r for r in found if r["scope"] != "user"])
    else:
        mine = [r for r in current if r["subject_id"] == subject_id and r["scope"] != "user"]
        ranked = priority_order(mine, user_rows)
        candidates = [r for r in ranked if r["scope"] != "event"]
        candidates += [r for r in mine if r["scope"] == "event"]  # all of them, not only 8
        label = [r for r in ranked[:1] if r["scope"] == "object" and r["field"] == "display_label"]
        result["subject_known"] = any(r["scope"] != "user" for r in found)
    about_time = user_first = False
    if query is not None:
        from .relevance import about_time as asks_about_time
        from .relevance import speaks_of_user
        from .terms import fold_text

        words = fold_text(query)[1]
        about_time = asks_about_time(query, words)
        user_first = speaks_of_user(query, label, words)
        weight = 1.0 if user_first else USER_ROW_WEIGHT
        topic = _without_name(query, label)  # who it is about: every row here, no topic
        ranked = by_relevance(
            topic, subject_id, label, candidates, ranked, history, about_time, weight
        )
    if query is not None or as_of is not None:
        pool = candidates + history
        ranked, result["as_of"] = in_time(query, about_time, ranked, pool, label, user_first, as_of)
    if about_time or as_of is not None:  # about time: every row carries its date
        dated = dated | {r["id"] for r in ranked}
    result["query"] = query
    result["ranked_by"] = "priority" if query is None else "relevance"
    # compacted only as far as the budget reaches (fit)
    result.update(roster_fit(result, ranked, max_chars, lambda r: compact(r, subject_id, dated)))
    return result


def in_time(
    query: str | None,
    timely: bool,
    ranked: list[dict[str, Any]],
    pool: list[dict[str, Any]],
    first: list[dict[str, Any]],
    user_first: bool,
    as_of: str | None,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """``ranked`` and ``data.as_of`` for any question (``timely``: one with a time cue)
    or a day asked for (``anchors.reorder``, documentation/time.md). A question asking
    for a date ("when did we meet?", "哪天") names none, nor does any question on a store
    where no value ever changed: the order stays, and ``anchors`` is not even imported."""
    if as_of is None:  # no day asked for: the question's own time, if it names one
        text = query or ""
        opening = text.lower().split(None, 1)[:1]  # "when …": its first word
        if opening and opening[0] in policy.DATE_QUESTIONS_EN.split():
            return ranked, None
        if any(w in text for w in policy.DATE_QUESTIONS_ZH.split()):
            return ranked, None
        if not any("until" in r for r in pool):
            return ranked, None  # no value ever changed: every time has the same answer
    from .anchors import reorder

    return reorder(query, ranked, pool, first, user_first, as_of, timely)


def _without_name(query: str, label: list[dict[str, Any]]) -> str:
    """The question without the person's spoken name, when it holds more: every row here
    is theirs, so the name tells no row apart (documentation/recall.md)."""
    from .terms import spoken_name

    name = (spoken_name(label[0]["value"]) if label else "").lower()
    low = query.lower()
    if not name or len(name) >= len(query.strip()) or len(low) != len(query):
        return query
    at = low.find(name)
    while at != -1:
        query = query[:at] + " " * len(name) + query[at + len(name) :]
        at = low.find(name, at + len(name))
    return query


def _rows_of(session: Session, subject_id: str | None) -> list[dict[str, Any]]:
    if session.blank:
        return []
    if subject_id is None:
        return session.read_rows(columns=rows.RECALL)
    where = " WHERE subject_id IN (?, ?)"
    return session.read_rows(where, (policy.USER_SUBJECT, subject_id), rows.RECALL)


# What one call derives from the rows it read: the current rows, the ids whose since is
# shown, the past values as rows. A held session (the MCP server) hands back the very
# same list while the database is unchanged, and a host asks about one person turn after
# turn; one entry, dropped with the rows' text when a deletion is erased (``forget``).
_DERIVED: list[Any] = []


def _derived(
    found: list[dict[str, Any]], subject_id: str | None
) -> tuple[list[dict[str, Any]], set[str], list[dict[str, Any]]]:
    if _DERIVED and _DERIVED[0] is found and _DERIVED[1] == subject_id:
        return _DERIVED[2]
    # The past of the rows this call may recall: without a subject, the profile's only.
    mine = [r for r in found if subject_id is not None or r["scope"] == "user"]
    derived = _derive(found, mine)
    _DERIVED[:] = [found, subject_id, derived]
    return derived


def _derive(
    found: list[dict[str, Any]], mine: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], set[str], list[dict[str, Any]]]:
    """The current rows of ``found`` (an ended row has none), the ids whose ``since`` is
    shown, and the past values of ``mine`` as rows."""
    current = [r for r in found if rows.is_current(r)]
    history = rows.past_rows([r for r in mine if r["scope"] in policy.HISTORY_SCOPES])
    return current, _dated(current), history


def forget() -> None:
    """Drop what the last call derived (past values are text): see ``_DERIVED``."""
    _DERIVED.clear()


on_erasure(forget)


def _dated(current: list[dict[str, Any]]) -> set[str]:
    """Rows whose ``since`` is worth its budget (documentation/time.md#recall): relationship rows,
    hypotheses, rows with past values and rows with a same-concept sibling."""
    out = {
        r["id"]
        for r in current
        if r["scope"] in ("relationship", "hypothesis") or r["past"] is not None
    }
    if len(current) > 1:
        out |= rows.with_siblings(current)
    return out


def roster_fit(
    result: dict[str, Any],
    memories: list[dict[str, Any]],
    max_chars: int,
    convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The budget: memories first; without a subject the roster counts against it too,
    trimmed least recently updated first (it is ordered most recent first)."""
    kept, omitted = fit(memories, max_chars, convert)
    out: dict[str, Any] = {"memories": kept}
    if "roster" in result:
        spent = len(_JSON.encode(kept))
        roster_kept, roster_omitted = fit(result["roster"], max(max_chars - spent, 0))
        out["roster"] = roster_kept
        omitted += roster_omitted
    out.update(truncated=omitted > 0, omitted=omitted, max_chars=max_chars)
    return out


def compact(
    row: dict[str, Any], subject_id: str | None, dated: set[str] | frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A row as ``context`` and ``search`` return it (documentation/recall.md#what-context---query-returns): always id, scope,
    field and value; the rest only when it tells the reader something. A past value
    always carries ``since`` and ``until``; a current row in ``dated`` its ``since``
    (unless its ``occurred_at`` already says that day)."""
    out = {"id": row["id"], "scope": row["scope"]}
    if row["subject_id"] != subject_id:
        out["subject_id"] = row["subject_id"]
    out["field"] = row["field"]
    out["value"] = row["value"]
    occurred = row["occurred_at"]
    if occurred:
        out["occurred_at"] = occurred
    if "until" in row:
        out["since"] = row["since"]
        out["until"] = row["until"]
        # references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id: by the row's id, the current value would go
        out["past_id"] = row["past_id"]
    elif row["id"] in dated and row["scope"] != "event" and (occurred or "")[:10] != row["since"]:
        out["since"] = row["since"]
    return rows.with_compact_tail(out, row)


def _recent_first(pair: tuple[float, dict[str, Any]]) -> tuple[float, bool, str, int]:
    score, row = pair
    return score, "until" not in row, row["updated_at"], row["write_seq"]


def scored(
    query: str,
    candidates: list[dict[str, Any]],
    subject_id: str | None = None,
    drop_common: bool = True,
    user_weight: float = USER_ROW_WEIGHT,
) -> list[tuple[float, dict[str, Any]]]:
    """The candidates the query matches with their scores, best first (ties: a current
    value before a past one, then the most recently written). Asked about a person, the
    user's own rows weigh less than theirs for the same words: the question is about them."""
    from .relevance import score_rows

    scores = score_rows(query, candidates, drop_common)
    if subject_id not in (None, policy.USER_SUBJECT):
        scores = [
            s * user_weight if r["scope"] == "user" else s
            for s, r in zip(scores, candidates, strict=True)
        ]
    if any("until" in r for r in candidates):
        scores = _with_row_scores(scores, candidates)
    hits = [(s, r) for s, r in zip(scores, candidates, strict=True) if s > 0]
    hits.sort(key=_recent_first, reverse=True)
    return hits


def _with_row_scores(scores: list[float], candidates: list[dict[str, Any]]) -> list[float]:
    """A past value scores at least what its row's current value scores: the question that
    finds "moved to Brooklyn" is about where she lives, and "before" asks for the value
    that came before it, whose own words ("lives in Cambridge") it may not share. The
    current value still comes first on a tie (``_recent_first``)."""
    current = {r["id"]: s for s, r in zip(scores, candidates, strict=True) if "until" not in r}
    return [
        max(s, current.get(r["id"], 0.0)) if "until" in r else s
        for s, r in zip(scores, candidates, strict=True)
    ]


def matches(
    query: str,
    candidates: list[dict[str, Any]],
    subject_id: str | None = None,
    drop_common: bool = True,
    about_time: bool = False,
    user_weight: float = USER_ROW_WEIGHT,
) -> list[dict[str, Any]]:
    """The matching candidates, best first. Past values (rows with ``until``) rank with
    current rows when the question is about time, else after every current match:
    a question about now is answered by what is current first (documentation/time.md#recall)."""
    hits = [r for _, r in scored(query, candidates, subject_id, drop_common, user_weight)]
    if about_time:
        from .terms import asks_about_an_end

        if asks_about_an_end(query):  # "when did we end …": a row that ended says when
            hits.sort(key=lambda r: not r.get("last_of_ended"))  # stable: else best first
        return hits
    return [r for r in hits if "until" not in r] + [r for r in hits if "until" in r]


def by_relevance(
    query: str,
    subject_id: str | None,
    first: list[dict[str, Any]],
    candidates: list[dict[str, Any]],
    priority: list[dict[str, Any]],
    past: list[dict[str, Any]] | tuple[()] = (),
    about_time: bool = False,
    user_weight: float = USER_ROW_WEIGHT,
) -> list[dict[str, Any]]:
    """``first`` (the subject's label), the matches, then the rest in ``priority`` order."""
    pool = [r for r in candidates if r not in first] + list(past)
    placed = first + matches(
        query, pool, subject_id, about_time=about_time, user_weight=user_weight
    )
    taken = {r["id"] for r in placed if "until" not in r}
    return placed + [r for r in priority if r["id"] not in taken]


def search(
    session: Session,
    query: str,
    subject_id: str | None = None,
    scope: str | None = None,
    limit: int = policy.SEARCH_LIMIT_DEFAULT,
    max_chars: int = policy.SEARCH_MAX_CHARS_DEFAULT,
    as_of: str | None = None,
) -> dict[str, Any]:
    """The rows a question matches, across subjects (or one subject or scope), best first;
    past values among them, marked with ``until`` (documentation/time.md#recall); those true at the time
    the question names (or on ``as_of``) first (documentation/time.md#as-of-a-time-anchors-and---as-of)."""
    session.gate(session.settings())
    from . import terms
    from .relevance import about_time as asks_about_time
    from .relevance import speaks_of_user

    found = [] if session.blank else _select(session, subject_id, scope)
    current, dated, past = _derive(found, found)
    about_time = asks_about_time(query)
    ranked = matches(query, current + past, drop_common=False, about_time=about_time)
    first_person = speaks_of_user(query, [], terms.fold_text(query)[1])  # "where did I …"
    ranked, anchor = in_time(query, about_time, ranked, ranked, [], first_person, as_of)
    if about_time or as_of is not None:
        dated = dated | {r["id"] for r in ranked}
    hits = [compact(r, None, dated) for r in ranked[:limit]]
    kept, omitted = fit(hits, max_chars)
    out = {"query": query, "as_of": anchor, "count": len(kept), "memories": kept}
    return {**out, "truncated": omitted > 0}


def _json_len(memory: dict[str, Any]) -> int:
    """``len(json.dumps(memory, ensure_ascii=False))`` of a row whose values are text,
    counted from its strings' own JSON forms (one small C call each, no encoder)."""
    total = 2 * len(memory)  # braces, and ", " between items
    for key, value in memory.items():
        total += _KEY_LENGTHS.get(key) or _key_length(key)
        total += len(_STRING(value)) if value.__class__ is str else len(_JSON.encode(value))
    return total


# '"key": ' for each key a row or roster entry has; the same few keys, every call.
_KEY_LENGTHS: dict[str, int] = {}


def _key_length(key: str) -> int:
    length = _KEY_LENGTHS[key] = len(_STRING(key)) + 2
    return length


def fit(
    memories: list[dict[str, Any]],
    max_chars: int,
    convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """The longest prefix of ``memories`` whose ``json.dumps`` fits in ``max_chars``: a
    list's JSON is 2 + its items' lengths + 2 per separator, so items are measured from
    the front, each once, only until the budget is spent."""
    total = 2  # "[]"
    kept: list[dict[str, Any]] = []
    # With ``convert`` (``compact``), each item in its returned form, made while it fits.
    for memory in memories if convert is None else map(convert, memories):
        total += _json_len(memory) + (2 if kept else 0)
        if total > max_chars:
            break
        kept.append(memory)
    return kept, len(memories) - len(kept)
