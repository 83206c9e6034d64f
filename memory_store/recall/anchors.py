"""Memory as of a time (documentation/time.md#as-of-a-time-anchors-and---as-of): the time a question names, and the values true then.

People name a time by what happened then ("when we met", "在武汉那会儿"), not by a date.
The store holds the date: an event's ``occurred_at``, a value's ``since``-``until``. Here,
for a question about time (the cues of ``policy.py``), the *anchor* is the event or value
whose own words the question matches best (the relevance of ``relevance.py`` over values
alone); the *asked fields* are the fields the question names by their names or concepts
(``relevance.score_rows`` over field names, widened to the fields of the same concept,
``rows.concepts_of``). An anchor counts only when the question also asks about a field
of another concept than the anchor's: "when did she move to Hangzhou?" asks about the
move itself. Then the asked fields' values true at the anchor come first, then the anchor,
then the rest in the order they had. ``--as-of DATE`` names the time directly.

Nothing here is kept between calls: each call reads the rows it was given.
"""

from __future__ import annotations

from .. import policy
from ..storage import on_erasure
from ..storage import rows as stored
from .periods import OPEN as _OPEN
from .periods import nearest as _nearest
from .periods import overlap as _overlap
from .periods import span as _span
from .periods import true_at

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any


def asked_fields(query: str, pool: list[dict[str, Any]]) -> set[str]:
    """The fields (of profile, person and relationship rows) the question names: by a
    field's own words or a concept of the alias table, then every field of the same
    concept (``city`` -> ``lives_in``)."""
    from .relevance import score_rows
    from .terms import fold_text, stem_of

    fields = sorted(
        {r["field"] for r in pool if r["scope"] in policy.HISTORY_SCOPES}
        - {"display_label"}  # identity, never the question's subject matter
    )
    probes = [{"scope": "object", "field": f, "value": ""} for f in fields]
    named = {f for f, s in zip(fields, score_rows(query, probes), strict=True) if s > 0}
    concepts = set().union(*map(stored.concepts_of, named)) if named else set()
    stems = {stem_of(w) for w in fold_text(query)[1]}  # "live": the place concept's word
    concepts |= {c for c, words in _concept_stems().items() if stems & words}
    return named | {f for f in fields if stored.concepts_of(f) & concepts}


def _concept_stems() -> dict[str, set[str]]:
    """Each concept's words as stems, found once: they are the policy's words, not the
    store's, and a held store asks on every call (documentation/performance.md#the-mcp-server)."""
    from .terms import stem_of

    if not _CONCEPT_STEMS:
        for c, words in policy.FIELD_CONCEPTS.items():
            _CONCEPT_STEMS[c] = {stem_of(w) for w in words}
    return _CONCEPT_STEMS


_CONCEPT_STEMS: dict[str, set[str]] = {}


def find(
    query: str,
    pool: list[dict[str, Any]],
    asked: set[str],
    name: str = "",
    at_start: bool = False,
    user_first: bool = False,
) -> tuple[list[dict[str, Any]], set[str]]:
    """The anchors, best first, and the asked fields left once their concept is taken
    out; ``([], asked)`` when the question names no time apart from what it asks about.

    An anchor is a row naming a time whose value the question matches by words that
    neither name an asked field (those the fields' probes hold, ``_probe``) nor are the
    person's ``name`` (who, not when) or a time cue. One that would leave no asked field
    is the question's subject, not its time, and is passed over; a row of an asked field
    is the anchor only when no other row comes near it (``NEAR``), and rows that come
    near the best anchor are anchors too (the question cannot tell them apart).

    A question names a time only when its words single one out: the best time's score
    is ``CLEAR`` times that of any time giving another answer (other values of the
    asked fields true then), cue word or not. A question naming a period by two times
    (``periods.between``) gets the best row of each of the two best times, when those
    two stand out so from the rest. ``at_start``: a value anchors by its start."""
    if not asked:
        return [], asked
    from .periods import between

    timed = [r for r in pool if _span(r) is not None and not _aim(r)]
    text = _time_named(query, name)
    found, over = _scored(text, timed, asked, user_first)
    if over > 0 and over >= CLEAR * (found[0][0] if found else 0.0):
        return _by_a_value(text, timed, asked)  # a value of the asked concept matches best
    picked = _pick(found, pool, asked, at_start, between(query)) if found else None
    if picked is not None and _shares_a_word(text, picked[1][0], asked):
        return picked[1], picked[2]
    return _by_a_value(text, timed, asked)


def _aim(row: dict[str, Any]) -> bool:
    """Whether a row states an aim -- a goal, a plan, a wish ("Wants to meet someone
    outside of work") -- rather than something that was so: its dates say when it was
    told, not when anything happened, so it names no time (documentation/time.md)."""
    field = row["field"]
    return stored.kind_of(field) in _AIMS or "goal" in stored.concepts_of(field)


_AIMS = frozenset(("goal", "plan", "wish"))


def _by_a_value(
    text: str, timed: list[dict[str, Any]], asked: set[str]
) -> tuple[list[dict[str, Any]], set[str]]:
    """No time named apart from the asked fields: maybe by a value of one of their
    concepts ("in the months she lived in Leeds, …", "the month I started the Seattle
    job, where was I living?"). Per concept, its values are matched with their field
    names and that concept's words; one scoring ``CLEAR`` times any other is the anchor,
    and the other concepts stay asked (none: the question's other words say what,
    ``_then_asked``)."""
    from .relevance import score_rows

    for concept in sorted(set().union(*map(stored.concepts_of, asked))):
        named = {f for f in asked if concept in stored.concepts_of(f)}
        rows = [r for r in timed if r["field"] in named]
        probes = [_probe(f) for f in sorted(asked - named)]
        scores = score_rows(text, rows + probes, apart=len(probes))[: len(rows)]
        ranked = sorted(zip(scores, range(len(rows)), strict=True), reverse=True) + [(0.0, -1)]
        best, at = ranked[0]
        if best > 0 and best >= CLEAR * ranked[1][0] and _shares_a_word(text, rows[at], asked):
            return [rows[at]], asked - named
    return [], asked


def _then_asked(
    query: str, name: str, anchor: dict[str, Any], then: list[dict[str, Any]]
) -> set[str]:
    """The fields a question asks about without naming one, once its time is found: those
    of the values true then that its other words match best ("… what did she do on
    weekends?": the hobby "hikes in the Dales on weekends"), the anchor's words and
    concept set aside."""
    from .relevance import score_rows

    taken = stored.concepts_of(anchor["field"])
    rows = [r for r in then if r["scope"] != "event" and not stored.concepts_of(r["field"]) & taken]
    apart = [_probe(anchor["field"]), {**anchor, "field": ""}]
    text = _time_named(query, name, units=False)  # "weekends" may say what, here
    scores = score_rows(text, rows + apart, apart=2)[: len(rows)]
    best = max(scores, default=0.0)
    return {r["field"] for s, r in zip(scores, rows, strict=True) if best > 0 and s == best}


def _shares_a_word(text: str, row: dict[str, Any], asked: set[str]) -> bool:
    """Whether an anchor shares a word with the question, not only a character: one
    Chinese character ("对" of 对象) names no time. Words of the asked fields' probes
    do not count."""
    held: set[str] = set()
    for field in asked:
        probe = _probe(field)
        if "words" not in probe:  # kept with the probe: asked again for the same fields
            probe["words"] = frozenset(_words(probe["value"]))
        held |= probe["words"]
    return bool((_words(text) - held) & _words(row["value"]))


def _words(value: str) -> set[str]:
    """A text's English words (folded) and Chinese terms of two characters or more."""
    from .terms import cjk_terms, fold_text, stem_of

    _, latin, runs = fold_text(value)
    return {stem_of(w) for w in latin} | {t for t in cjk_terms(runs) if len(t) > 1}


def _time_named(query: str, name: str, units: bool = True) -> str:
    """The question without what says how it names a time (``periods.without_units``),
    the person's name (who, not when) and the time cues (that it asks about a time)."""
    from .periods import without_units
    from .relevance import en_cues
    from .terms import stem_of

    query = without_units(query) if units else query
    for word in (name, *_CUES):
        if word and word in query:
            query = query.replace(word, " ")
    cues = en_cues()
    return " ".join(w for w in query.split() if stem_of(w.lower().strip("?,.!;:")) not in cues)


def _scored(
    text: str, timed: list[dict[str, Any]], asked: set[str], user_first: bool
) -> tuple[list[tuple[float, dict[str, Any], set[str]]], float]:
    """The rows naming a time that ``text`` matches by their values, best first, each
    with the asked fields it leaves: its concept is taken, unless that leaves nothing
    and it is a value of the other one than asked about (the user's, unless
    ``user_first``): "the week I got promoted, what was her job?". And the best score of
    a row passed over for leaving nothing to ask."""
    from .relevance import score_rows

    values = [{**r, "field": ""} for r in timed]  # the value's words, not its field's
    probes = [_probe(f) for f in sorted(asked)]
    scores = score_rows(text, values + probes, apart=len(probes))
    found, over = [], 0.0
    for score, row in sorted(zip(scores, timed, strict=False), key=lambda p: -p[0]):
        taken = stored.concepts_of(row["field"])
        left = {f for f in asked if f != row["field"] and not stored.concepts_of(f) & taken}
        if not left and _theirs(row, user_first):
            left = set(asked)
        if score > 0 and left:
            found.append((score, row, left))
        elif score > over:
            over = score
    return found, over


def _theirs(row: dict[str, Any], user_first: bool) -> bool:
    """Whether a value is not of the one the question asks about."""
    return row["scope"] != "event" and (row["subject_id"] == policy.USER_SUBJECT) != user_first


def _pick(
    found: list[tuple[float, dict[str, Any], set[str]]],
    pool: list[dict[str, Any]],
    asked: set[str],
    at_start: bool,
    two: bool,
) -> tuple[float, list[dict[str, Any]], set[str]] | None:
    """The anchors among ``found`` when one time (or, ``two``, two times) clearly
    stands out, with its score and the fields left to ask; None when none does."""
    other = [x for x in found if x[1]["field"] not in asked or x[2] == asked]
    if other and other[0][0] >= NEAR * found[0][0]:
        found = other
    best, _, left = found[0]
    # Times compete only when they give another answer: the value of each asked field
    # that held longest then. Each answer's best row, best first.
    held = [r for r in pool if r["field"] in left and r["scope"] in policy.HISTORY_SCOPES]
    answers: dict[frozenset[int], tuple[float, dict[str, Any]]] = {}
    times: dict[str, tuple[float, dict[str, Any], frozenset[int]]] = {}  # by start
    for score, row, _ in found:
        if len(answers) > 1 and not two:
            break  # the best time and its best rival are known (found is best first)
        span = _span(row)
        if at_start:  # a value named as a point in time: its start (``periods.point``)
            span = (span[0], span[0])  # type: ignore[index]
        then = _answer(held, span)  # type: ignore[arg-type]
        answers.setdefault(then, (score, row))
        times.setdefault(span[0], (score, row, then))  # type: ignore[index]
    scores = [score for score, _ in answers.values()] + [0.0, 0.0]
    pair = list(times.values())[:2]
    if two and len(pair) == 2:  # two times bound a period, whatever each answers
        rival = [t[0] for t in list(times.values())[2:] if t[2] not in (pair[0][2], pair[1][2])]
        if pair[1][0] >= CLEAR * max(rival, default=0.0):
            return best, [pair[0][1], pair[1][1]], left
    if best < CLEAR * scores[1]:
        return None  # no time stands out: the question may name none
    return best, [row for score, row, _ in found[:3] if score >= TIE * best], left


def _answer(held: list[dict[str, Any]], span: tuple[str, str]) -> frozenset[int]:
    """What a time answers: per subject and concept (``city`` and ``lives_in`` are one),
    the value that held longest in it, or on a day, the one that began last."""
    best: dict[tuple[str, frozenset[str]], tuple[int, str, int]] = {}
    for r in held:
        if true_at(r, *span):
            key = (r["subject_id"], stored.concepts_of(r["field"]) or frozenset([r["field"]]))
            rank = (_overlap(r, [span], ""), r["since"] or "", id(r))
            if key not in best or rank > best[key]:
                best[key] = rank
    return frozenset(i for _, _, i in best.values())


# A row of another field than those asked is the anchor if it scores at least NEAR of
# the best; rows scoring at least TIE of the anchor are anchors too.
NEAR = 0.5
TIE = 0.8
# The best time must score this many times any time that gives another answer.
CLEAR = 1.5


def _probe(field: str) -> dict[str, Any]:
    """A row holding the words that name ``field``: its own, its concepts' (``policy.
    FIELD_CONCEPTS``), and the Chinese heads of the alias groups those words head; and
    (``words``) those words as ``_shares_a_word`` compares them. Made once per field
    and process: one question asks for the same probes four or five times."""
    known = _PROBES.get(field)
    if known is None:
        from .aliases import GROUPS
        from .terms import stem_of, units_named

        words = field.split("_")
        for concept in stored.concepts_of(field):
            words += [w for c in policy.FIELD_CONCEPTS[concept] for w in c.split("_")]
        # The table is searched for these few words, not folded whole: a question that
        # names a time pays for its own words only (documentation/time.md).
        heads = units_named(list(dict.fromkeys(map(stem_of, words))), "", "")
        words += [GROUPS[u][3] for u in heads if u < len(GROUPS)]
        value = " ".join(words)
        if len(_PROBES) >= _PROBES_MAX:
            _PROBES.clear()
        known = _PROBES[field] = {"scope": "object", "field": field, "value": value}
    return known


# Field names are the store's words: kept only until an erasure, and only so many.
_PROBES: dict[str, dict[str, Any]] = {}
_PROBES_MAX = 256
on_erasure(_PROBES.clear)


def reorder(
    query: str | None,
    ranked: list[dict[str, Any]],
    pool: list[dict[str, Any]],
    first: list[dict[str, Any]],
    user_first: bool,
    as_of: str | None = None,
    timely: bool = True,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """``ranked`` (the order of documentation/time.md#recall, ``first`` at its head) with the values true at a
    time first: on ``as_of`` every value, else at the anchors the question names the
    asked fields' values (the anchors after them); for a question about the past
    (``timely``, or an order word) with no anchor, the asked fields' rows in their
    order, or earliest (latest) first for an order word. Returns the order and
    ``data.as_of`` (None when no time was found)."""
    if as_of is None and query is None:
        return ranked, None
    from .periods import between, bounded, by_order, order_of, point

    asked = set() if query is None else asked_fields(query, pool)
    anchors: list[dict[str, Any]] = []
    spans = [(as_of, as_of)] if as_of is not None else []
    order = 0 if query is None or as_of is not None else order_of(query)  # -1 first, 1 last
    if query is not None and as_of is None and not _speaks_of_now(query):
        at_start = order < 0 or point(query)
        anchors, asked = find(query, pool, asked, _name(first), at_start, user_first)
        spans = [_span(a) for a in anchors]  # type: ignore[misc]
        held = [r for r in pool if r["field"] in asked and r["scope"] in policy.HISTORY_SCOPES]
        if asked and not any("until" in r for r in held):
            anchors, spans = [], []  # the asked field never changed: no time picks a value
        period = bounded(spans) if len(spans) > 1 and between(query) else None
        if period is not None:
            spans = [period]
        elif at_start and spans and spans[0][0] != spans[0][1]:
            spans = [(spans[0][0], spans[0][0])]  # "the week she started …": its start
    if not spans and not timely and not order:
        return ranked, None  # a question naming no time: the order without one (time.md)
    firsts = {id(r) for r in first}
    head = [r for r in ranked if id(r) in firsts]
    rest = [r for r in ranked if id(r) not in firsts]
    wanted = policy.USER_SUBJECT if user_first else None
    if not spans:
        lead = [r for r in rest if r["field"] in asked and r["scope"] in policy.HISTORY_SCOPES]
        # whom it asks about first; then, a question naming the person ("the week Theo
        # started business school, what was I studying?"), the user's own
        lead = [r for r in lead if not _other(r, wanted)] + (
            [r for r in lead if _other(r, wanted)] if wanted is None else []
        )
        if not any("until" in r for r in lead):
            # no past value of the asked field to find first: the order (documentation/time.md#recall)
            lead = []
        elif order:
            lead = by_order(lead, order)  # "我们最开始是什么关系？": the first stage first
    else:
        seen = firsts | {id(r) for r in rest}
        held = [r for r in pool if r["field"] in asked and r["scope"] in policy.HISTORY_SCOPES]
        told = spans if as_of is not None else [_nearest(span, held) for span in spans]
        then = [r for r in rest + [r for r in pool if id(r) not in seen] if _when(r, told) < 9]
        if anchors and not asked:  # found by a value of the only concept named
            asked = _then_asked(query or "", _name(first), anchors[0], then)
        days = {day for r in pool for day in _span(r) or ()}  # the latest day the store knows
        last = max(days - {_OPEN}, default="")
        then.sort(
            key=lambda r: (
                r["field"] not in asked,
                _other(r, wanted),
                _when(r, told),
                -_overlap(r, told, last),  # over a period: the value that held it longest
            )
        )
        lead = [r for r in then if r["field"] in asked or as_of is not None]
        lead += [a for a in anchors if a not in lead]
    chosen = {id(r) for r in lead}
    placed = head + lead + [r for r in rest if id(r) not in chosen]
    if not spans:
        return placed, None
    return placed, public(spans[0], anchors[0] if anchors else None)


def _when(row: dict[str, Any], spans: list[tuple[str, str]]) -> int:
    """The first span the value was true in (9: none)."""
    return next((i for i, span in enumerate(spans) if true_at(row, *span)), 9)


def _name(first: list[dict[str, Any]]) -> str:
    """The person's name as a question says it (``terms.spoken_name`` of their label)."""
    from .terms import spoken_name

    return spoken_name(first[0]["value"]) if first else ""


def _other(row: dict[str, Any], wanted: str | None) -> bool:
    """Whether a row is not about whom the question asks (the user, or the person)."""
    mine = row["subject_id"] == policy.USER_SUBJECT
    return mine != (wanted == policy.USER_SUBJECT)


def _speaks_of_now(query: str) -> bool:
    """A question that says "now" names the present, whatever else it mentions."""
    from .terms import fold_text

    words = fold_text(query)[1]
    return any(w in query for w in _NOW_ZH) or not _NOW_EN.isdisjoint(words)


_NOW_ZH = policy.NOW_CUES_ZH.split()
_CUES = sorted(policy.TIME_CUES_ZH.split(), key=len, reverse=True)
_NOW_EN = frozenset(policy.NOW_CUES_EN.split())


def public(span: tuple[str, str], anchor: dict[str, Any] | None) -> dict[str, Any]:
    """``data.as_of``: ``{date}`` or ``{from, until}`` (``until`` null while the value
    is true), and the row it came from."""
    start, end = span
    out: dict[str, Any] = (
        {"date": start} if start == end else {"from": start, "until": None if end == _OPEN else end}
    )
    if anchor is not None:
        out.update(source(anchor))
    return out


def source(row: dict[str, Any]) -> dict[str, Any]:
    """Which stored value an anchor is: the row's ``id``, and for a past value its own
    handle, ``past_id`` (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id), as ``show`` gives it."""
    out: dict[str, Any] = {"id": row["id"]}
    if "until" in row and row.get("past_id"):
        out["past_id"] = row["past_id"]
    return out
