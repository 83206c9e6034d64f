"""How relevant each stored memory is to the user's current question (documentation/recall.md#the-method).

Lexical, and computed per call over the rows ``context`` has already read: no
index is kept, so nothing here can outlive a deleted memory (documentation/privacy.md#erasure-is-physical). :func:`check_query`
takes the question (or refuses it); :func:`score_rows` gives one Okapi BM25 score per row.

Terms. Text is NFKC-folded and lowercased. Runs of letters and digits are words, with
light English suffix folding (works, worked, working -> work) and cut to a prefix of five
letters (adopt, adoption -> adopt); English words outside ASCII (café) are matched whole
only in the question's own alphabet, a row's accented word cut at its first accented
letter. Runs of CJK characters give their single characters and overlapping bigrams.
Each language has a short stop list. A row's text is its value, the parts of its field
name (``planned_activity`` -> planned, activity) and, for a hypothesis, its evidence
(``source_ref``), which ``context`` shows with it. Two more kinds of term:

- an alias group (``aliases.py``) that both the question and the row name, in
  either language: 过敏 and "allergic" name the same group. The table widens
  the question's words, not a field's reach (documentation/recall.md#the-alias-table-widens-the-question-not-a-field): a field name counts only
  when the question asks about its concept (``terms.group_at``);
- a year or month that the question names and the row's ``occurred_at`` holds.

Each term weighs its IDF over the rows (alias groups as much as a word, dates
half as much); BM25's usual k1 = 1.2 and b = 0.75. Words of liking (like,
喜欢) and, in ``search``, the words of a row's subject's label count only in a
row that shares another term with the question — unless the question only names
a person ("Alice"): then it asks for that person's rows.

Cost. ``context`` runs on every turn, mostly as a fresh process: this module imports only
built-ins, compiles no regular expression, folds the rows' joined text once and keeps the
last calls' foldings and question (documentation/recall.md, "Cost-driven choices").
"""

from __future__ import annotations

import math
from itertools import accumulate, repeat

from .. import policy
from ..errors import ArgumentRuleError
from ..policy import QUERY_CHARS_MAX
from ..storage import on_erasure
from ..storage.rows import forbidden_char
from . import terms

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

K1, B = 1.2, 0.75  # Okapi BM25 (Robertson and Zaragoza, 2009), with the usual constants
# A shared alias group counts like a shared word; a shared year or month of
# occurred_at half as much (a date alone says little about the topic).
ALIAS_WEIGHT, DATE_WEIGHT = 1.0, 0.5
# A row of the person a question only names ("Alice"): this share of their label's score.
NAMED_ROW_SHARE = 0.5
# A term that more than this share of many rows hold tells them apart too little
# to count (most often the name of the person asked about, in nearly every row
# about them); the rows it alone matches then keep the priority order.
COMMON_SHARE, COMMON_MIN_ROWS = 0.6, 20
# ---------------------------------------------------------------- the query


def check_query(text: str) -> str:
    """The trimmed query, or ``INVALID_ARGUMENTS`` naming the rule it breaks: a stored
    value's characters (references/memory-rules.md#field-rules-enforced, ``rows.forbidden_char``), then 1-500 after trimming."""
    if not isinstance(text, str):
        raise _invalid("must be text")
    found = forbidden_char(text)
    if found is not None:
        cp, kind = found
        note = " (not valid UTF-8)" if kind == "a lone surrogate" else ""
        raise _invalid(f"contains {kind} U+{cp:04X}{note}", codepoint=f"U+{cp:04X}")
    trimmed = text.strip()
    if not trimmed:
        raise _invalid("must not be empty or only whitespace")
    if len(trimmed) > QUERY_CHARS_MAX:
        raise _invalid(
            f"must be at most {QUERY_CHARS_MAX} characters after trimming (it has {len(trimmed)})",
            maximum=QUERY_CHARS_MAX,
        )
    return trimmed


def _invalid(rule: str, **details: Any) -> ArgumentRuleError:
    return ArgumentRuleError("query", rule, argument="query", **details)


# ---------------------------------------------------------------- the rows


class _Rows:
    """The rows' folded texts, joined into one text that terms are found in."""

    def __init__(self, whole: str, n: int, utf8: bytes | None = None):
        self.whole = whole
        self._utf8 = utf8  # the same text as UTF-8, when folding made it
        self.texts = texts = whole.split(terms.SEP)
        # n rows' values, then their n field names, then (search) their n subjects' labels
        self.n = n
        self.starts = list(accumulate(map((1).__add__, map(len, texts[:-1])), initial=0))
        self._words: list[str] | None = None
        self._without_le: _Rows | None = None
        # What was found, kept while the rows stay the same (see _LAST).
        self.stems: dict[str, dict[int, int]] = {}
        self.terms: dict[str, dict[int, int]] = {}
        self.groups: dict[tuple[int, int, bool], dict[int, int]] = {}
        self._lengths: list[int] | None = None
        self._not_fields: tuple[list[int], list[str]] | None = None

    @classmethod
    def fold(cls, whole: str, n: int) -> _Rows:
        """Rows joined by terms.SEP -> folded: field names' parts apart (fact_job:
        fact job), full-width forms as ASCII (NFKC), lowercase."""
        whole = whole.replace("_", " ")
        if not whole.isascii():
            for mark in terms.NFKC_PUNCTUATION:  # never part of a term
                if mark in whole:
                    whole = whole.replace(mark, " ")
        text, utf8 = terms.folded(whole)
        return cls(text, n, utf8)

    def row_at(self, at: int) -> int:
        """The row holding position ``at`` of the joined text."""
        return terms.position_in(self.starts, at)

    def words(self) -> tuple[str, list[str]]:
        """The rows' ASCII words, each between spaces: one text and one per row."""
        if self._words is None:
            joined = " " + terms.ascii_words(self.utf8()).replace(terms.SEP, f" {terms.SEP} ") + " "
            self._words = (joined, joined.split(terms.SEP))  # type: ignore[assignment]
        return self._words  # type: ignore[return-value]

    def utf8(self) -> bytes:
        if self._utf8 is None:
            self._utf8 = self.whole.encode("utf-8", "surrogatepass")
        return self._utf8

    def without_le(self) -> _Rows:
        if self._without_le is None:
            whole = terms.without_le(self.whole)
            self._without_le = self if whole is self.whole else _Rows(whole, self.n)
        return self._without_le

    def lengths(self) -> list[int]:
        """Each row's length in terms: its words, and two (a character and a
        bigram) per CJK character, counted as the extra bytes of its UTF-8 form;
        its value and its field name together."""
        if self._lengths is None:
            n = self.n
            texts = self.texts[: 2 * n]  # a label adds no length
            spaces = map(str.count, texts, repeat(" "))
            utf8 = self.utf8().split(b"\x00", 2 * n)  # SEP, as UTF-8
            extra = map(int.__sub__, map(len, utf8[: 2 * n]), map(len, texts))
            each = list(map(sum, zip(spaces, extra, repeat(1))))
            self._lengths = list(map(int.__add__, each[:n], each[n : 2 * n]))
        return self._lengths

    def per_row(self, counts: dict[int, int]) -> tuple[dict[int, int], dict[int, int]]:
        """Counts over the texts -> counts per row in its value and field name, and
        counts per row in its subject's label."""
        n = self.n
        if not counts or max(counts) < n:  # the usual case: values only
            return counts, {}
        rows: dict[int, int] = {}
        labels: dict[int, int] = {}
        for i, c in counts.items():
            if i < 2 * n:
                rows[i % n] = rows.get(i % n, 0) + c
            else:
                labels[i - 2 * n] = c
        return rows, labels

    def count_word(self, stem: str) -> dict[int, int]:
        """Row -> how many of its words fold to ``stem``."""
        counts = self.stems.get(stem)
        if counts is not None:
            return counts
        counts = self.stems[stem] = {}
        if not stem.isascii():  # a word of another alphabet: as a string
            return self.count_text(stem)
        joined = self.words()[0]
        found: dict[int, str] = {}  # where each word that may fold to ``stem`` begins
        for key in terms.search_keys(stem):
            key = " " + key
            at = joined.find(key)
            while at != -1:
                end = joined.find(" ", at + 1)
                found[at] = joined[at + 1 : end]
                at = joined.find(key, end)
        free: dict[str, int] = {}  # as str.count counts " word ": two sharing a space, once
        row = last = 0
        for at, word in sorted(found.items()):  # each occurrence to its row, in one pass
            fold = word not in terms.EN_STOP and terms.stem_of(word) == stem
            if fold and at >= free.get(word, 0):
                free[word] = at + len(word) + 2
                row, last = row + joined.count(terms.SEP, last, at), at
                counts[row] = counts.get(row, 0) + 1
        return counts

    def count_text(self, term: str) -> dict[int, int]:
        """Row -> how often ``term`` (CJK characters) occurs in it."""
        counts = self.terms.get(term)
        if counts is not None:
            return counts
        whole = self.whole
        total = whole.count(term)
        if total > 8:
            rows_of, texts = self.not_fields() if not term.isascii() else (None, self.texts)
            found = enumerate(map(str.count, texts, repeat(term)))
            counts = {rows_of[i] if rows_of else i: c for i, c in found if c}
        else:
            counts = {}
            at = whole.find(term) if total else -1
            while at != -1:
                row = self.row_at(at)
                counts[row] = counts.get(row, 0) + 1
                at = whole.find(term, at + len(term))
        self.terms[term] = counts
        return counts

    def not_fields(self) -> tuple[list[int], list[str]]:
        """The texts other than field names, with their positions: a term that is not ASCII
        is never in a field name (they are ASCII), so it is counted in half the texts."""
        if self._not_fields is None:
            n, texts = self.n, self.texts
            keep = list(range(len(texts)))
            if "".join(texts[n : 2 * n]).isascii():
                del keep[n : 2 * n]
            self._not_fields = (keep, [texts[i] for i in keep])
        return self._not_fields

    def rows_naming(self, concept: tuple[int, int], siblings: bool) -> dict[int, int]:
        """Row -> 1 for the rows that name a concept of the question: in their
        value, or in their field name as ``terms.group_at`` allows."""
        named = self.groups.get((*concept, siblings))
        if named is None:
            n = self.n
            in_value, in_field = terms.group_at(*concept, siblings)
            found = self._rows_naming(in_value)
            rows = {i for i in found if i < n}
            if in_field is not in_value:  # field names are ASCII: English terms only
                found = self._rows_naming(in_field) if in_field.keys or in_field.phrases else set()
            rows.update(i - n for i in found if n <= i < 2 * n)
            key = (*concept, siblings)
            named = self.groups[key] = dict.fromkeys(sorted(rows), 1)
        return named

    def _rows_naming(self, group: terms.Group) -> set[int]:
        rows: set[int] = set()
        joined, texts = self.words()
        for key, stem in group.keys:
            if key in joined:
                rows.update(self.count_word(stem))
        for phrase in group.phrases:  # words apart by a space or a hyphen
            phrase = f" {phrase} "
            if phrase in joined:
                rows.update(i for i, t in enumerate(texts) if phrase in t)
        if group.chinese and not self.whole.isascii():
            zh = self.without_le()
            for term in group.chinese:
                if term in zh.whole:
                    rows.update(zh.count_text(term))
        return rows


# ---------------------------------------------------------------- scoring

# The rows of the last four calls, folded, with what was found in them: a host asking about
# one person turn after turn folds them once. A context call scores the rows, their field
# names, the times (documentation/time.md#then-however-it-is-asked); one kept would fold all
# each call (documentation/performance.md#the-mcp-server). A process that exits loses them.
_LAST: list[tuple[str, int, Any]] = []
_ASKED: list[Any] = []  # the last question and its terms (``_asked``), forgotten alike


def score_rows(
    query: str, rows: list[dict[str, Any]], for_context: bool = True, apart: int = 0
) -> list[float]:
    """One Okapi BM25 score per row for ``query``; 0.0 means nothing in common.
    With ``apart``, the last ``apart`` rows only set terms aside: a term one of them
    holds counts in no row (``anchors``: the words that name the asked field).

    Rows are dicts with at least ``scope``, ``field`` and ``value``; a
    hypothesis's ``source_ref`` and any row's ``occurred_at`` are used when
    present. Term weights (IDF) are computed over ``rows``: a word that most
    rows share counts for little.

    ``for_context`` (``context``: one person's rows, cut to a budget for the
    assistant to read) and not (``search``: which rows, of whom, answer this)
    differ in two ways. In ``context`` a word more than ``COMMON_SHARE`` of many
    rows hold counts not at all; ``search`` keeps it: there the user asked for
    exactly that word. And in ``context`` a member of an alias group named by
    the question also reaches its group's other members in values ("hikes" finds
    a camping trip), which a question about one person's activities often needs;
    ``search`` is precise (documentation/recall.md#the-alias-table-widens-the-question-not-a-field): "hiking" does not find who plays the
    piano. Field names are reached the same way in both (``terms.group_at``).
    """
    n = len(rows)
    stems, cjk, groups, dates = _asked(query)
    if not n or not (stems or cjk or groups or dates):
        return [0.0] * n

    # A row's text: its value (with a hypothesis's evidence), then apart its field
    # name, which only the question's own words and the concepts it asks about reach.
    texts = [
        f"{r['value']} {r['source_ref']}"
        if r["scope"] == "hypothesis" and r.get("source_ref")
        else r["value"]
        for r in rows
    ]
    texts += [r["field"] for r in rows]
    if not for_context:  # search: a row speaks of its subject too ("小林的爱好")
        texts += _labels(rows)
    raw = terms.SEP.join(texts)
    found = next((kept for text, size, kept in _LAST if size == n and text == raw), None)
    if found is None:
        found = _Rows.fold(raw, n)
        _LAST[:] = [(raw, n, found), *_LAST[:3]]
    # One column per term of the question: row -> how often the row holds it. Weak
    # terms (like, 喜欢), and the words of a row's subject's label, count only in a
    # row that shares another term with the question.
    columns: list[tuple[float, dict[int, int], bool]] = []
    named: list[tuple[dict[int, int], bool]] = []  # per term: rows whose subject's label holds it
    for counts, weak in [
        *((found.count_word(s), s in terms.WEAK_STEMS) for s in stems),
        *((found.count_text(t), t in terms.WEAK_CJK) for t in cjk),
    ]:
        held, labels = found.per_row(counts)
        columns.append((1.0, held, weak))
        named.append((labels, weak))
    # A question that only names a person ("Alice") asks for their rows (documentation/recall.md#the-alias-table-widens-the-question-not-a-field).
    strong = [labels for labels, weak in named if not weak]
    if not groups and not dates and strong and all(strong):
        return _named_persons_rows(rows, _bm25(columns, found.lengths(), for_context))
    columns += [(1.0, labels, True) for labels, _ in named if labels]
    columns += [(ALIAS_WEIGHT, found.rows_naming(c, for_context), False) for c in groups]
    if dates:
        ats = [row.get("occurred_at") or "" for row in rows]
        held = [(f"y{at[:4]}", f"m{at[5:7]}") if at else () for at in ats]
        for date in dates:
            columns.append((DATE_WEIGHT, {i: 1 for i, h in enumerate(held) if date in h}, False))
    if apart:
        columns = [c for c in columns if all(i < n - apart for i in c[1])]
    return _bm25(columns, found.lengths(), for_context)


def _asked(query: str) -> tuple[list[str], list[str], list[tuple[int, int]], list[str]]:
    """The question's stems, CJK terms, concepts and dates, the last question's kept: a context
    call scores it twice (rows, field names: documentation/time.md#then-however-it-is-asked)."""
    if not _ASKED or _ASKED[0] != query:
        text, words, runs = terms.fold_text(query)
        stems = list(dict.fromkeys(terms.stem_of(w) for w in words if w not in terms.EN_STOP))
        groups = terms.groups_of(stems, f" {' '.join(words)} " if len(words) > 1 else "", text)
        cjk = list(dict.fromkeys(terms.cjk_terms(runs)))
        _ASKED[:] = [query, (stems, cjk, groups, terms.date_terms(text, words))]
    return _ASKED[1]


def _named_persons_rows(rows: list[dict[str, Any]], scores: list[float]) -> list[float]:
    """A question that only names a person: the label rows it matches best (小林, not 小美,
    for "小林"; both Alexes for "Alex") bring in their subjects' rows (documentation/recall.md#the-alias-table-widens-the-question-not-a-field)."""
    at = _label_at(rows)
    best = max((scores[i] for i in at.values()), default=0.0)
    if best <= 0:
        return scores
    chosen = {subject for subject, i in at.items() if scores[i] >= best}
    share = best * NAMED_ROW_SHARE
    return [
        max(score, share) if r["subject_id"] in chosen and r["field"] != "display_label" else score
        for score, r in zip(scores, rows, strict=True)
    ]


def _labels(rows: list[dict[str, Any]]) -> list[str]:
    """Each row's subject's display label, where the rows hold it ("" for the label
    row itself, which matches through its value)."""
    label = {subject: rows[i]["value"] for subject, i in _label_at(rows).items()}
    return ["" if r["field"] == "display_label" else label.get(r["subject_id"], "") for r in rows]


def _label_at(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Where each subject's display label is among ``rows``."""
    kept = ("object", "display_label")
    return {r["subject_id"]: i for i, r in enumerate(rows) if (r["scope"], r["field"]) == kept}


def _bm25(
    columns: list[tuple[float, dict[int, int], bool]], lengths: list[int], drop_common: bool
) -> list[float]:
    n = len(lengths)
    average = sum(lengths) / n
    norms = [K1 * (1.0 - B + B * length / average) for length in lengths]
    scores, weak_scores = [0.0] * n, [0.0] * n
    common = COMMON_SHARE * n if drop_common and n >= COMMON_MIN_ROWS else n
    for weight, column, weak in columns:
        df = len(column)
        if df and df <= common:
            idf = weight * math.log(1.0 + (n - df + 0.5) / (df + 0.5)) * (K1 + 1.0)
            into = weak_scores if weak else scores
            for i, f in column.items():
                into[i] += idf * f / (f + norms[i])
    if any(scores):  # a weak term adds to a row that matches otherwise
        return [s + w if s else 0.0 for s, w in zip(scores, weak_scores, strict=True)]
    return weak_scores  # or, when nothing else matches, it is all there is


def forget() -> None:
    """Drop the last calls' folded row texts, and the words met: a deletion must not leave
    a copy of what it deleted in a long-lived process (the MCP server) until the next query."""
    _LAST.clear()
    _ASKED.clear()
    terms._STEMS.clear()  # its memo of words met: the rows' words (terms.py is at its size)


on_erasure(forget)


def about_time(query: str, words: list[str] | None = None) -> bool:
    """Whether a question is about the past or about time (the cue lists of policy.py);
    ``words``: its folded words, when the caller has them."""
    if any(cue in query for cue in _ZH_CUES):
        return True
    if words is None:
        words = terms.fold_text(query)[1]
    return any(terms.stem_of(w) in en_cues() for w in words)


_ZH_CUES, _EN_CUES = policy.TIME_CUES_ZH.split(), set[str]()


def en_cues() -> set[str]:
    if not _EN_CUES:
        _EN_CUES.update(terms.stem_of(w) for w in policy.TIME_CUES_EN.split())
    return _EN_CUES


_FIRST_PERSON = frozenset(("i", "my", "me", "mine", "myself"))


def speaks_of_user(query: str, label: list[dict[str, Any]], words: list[str]) -> bool:
    """Whether a question about a person is in the first person singular ("what do I do now?",
    "我现在做什么工作？", not "我们") and does not name that person: then it asks about the
    user, whose profile rows count in full. ``words``: its folded words (``terms.fold_text``)."""
    first = "我" in query.replace("我们", "") or not _FIRST_PERSON.isdisjoint(words)
    if not first or not label:
        return first
    name = terms.spoken_name(label[0]["value"].strip())
    return not name or name.lower() not in query.lower()


__all__ = ["QUERY_CHARS_MAX", "check_query", "forget", "score_rows"]
