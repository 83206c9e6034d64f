"""Terms: how a question and a memory are cut into the words, characters and concepts
that ``relevance`` matches (documentation/recall.md#the-method).

Text is NFKC-folded and lowercased. Runs of letters and digits are words, with
light English suffix folding (works, worked, working -> work) and cut to a
prefix of five letters; runs of CJK characters give their single characters
and overlapping bigrams; each language has a short stop list. An alias group
(``aliases.py``) is a concept both languages name; a year or month is a date
term. No regular expression is compiled here (see ``relevance.py``: cost).
"""

from __future__ import annotations

from .aliases import GROUPS, MEMBERS

PREFIX = 5  # folded English words keep at most this many letters

# UTF-8 bytes -> "ASCII words between spaces": letters and digits stay, the row
# separator stays, other ASCII becomes a space, and so does a non-ASCII
# character (its first byte; its continuation bytes 0x80-0xBF go).
_WORDS_ONLY = (  # a translate table, written out: building it in a loop costs every process
    b"\x00" + b" " * 47 + b"0123456789" + b" " * 7 + b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    + b" " * 6 + b"abcdefghijklmnopqrstuvwxyz" + b" " * 133
)  # fmt: skip
_CONTINUATION = bytes(range(0x80, 0xC0))
_CJK_FROM = "\u2e80"  # CJK radicals onwards (ideographs, kana, hangul): n-grams
SEP = "\x00"  # between rows in one text: no stored value can hold it
# Punctuation of Chinese text that NFKC would change: spaces before the NFKC
# check, so that a text with no other such character skips normalizing.
NFKC_PUNCTUATION = "，：？！；（）"

EN_STOP = frozenset(
    """a about above after again all also am an and any are as at be been before being
    both but by can could d did do does doing during each else ever few for from had has
    have having he her here hers herself him himself his how i if in into is it its
    itself just ll m me might more most much must my myself no nor not now of off on
    once only or other ought our ours ourselves out over own re s same shall she should
    so some such t than that the their theirs them themselves then there these they this
    those through to too under until up ve very was we were what whatever when where
    whether which while who whom whose why will with would yet you your yours yourself
    recently lately ago yesterday today tonight currently last""".split()  # noqa: SIM905 - a word list reads best as text
)
# Single characters that carry no topic: particles, pronouns, copulas, negation.
_ZH_STOP_CHARS = frozenset(
    "的了吗呢吧啊呀么嘛哦是我你他她它们这那哪怎什个和与就也都还在把被得地着过有没不会要"
)
# Characters that almost always end or begin a word: a bigram holding one
# straddles two words ("他今" in 他今天很忙) and is no term.
_ZH_EDGE_CHARS = frozenset("的了吗呢啊呀么嘛哦我你他她它是这那怎什哪")
_ZH_STOP_BIGRAMS = frozenset(
    """什么 怎么 为何 哪里 哪儿 哪个 哪些 多少 时候 是不 不是 有没 没有 我们 你们 他们 她们
    咱们 这个 那个 这次 那次 这样 那样 一下 一个 是否 还是 就是 已经 可以 可能 如果 因为
    所以 但是 然后 觉得 知道 应该 现在""".split()  # noqa: SIM905
)
# Words that say the question is about a liking, not what it is about: a row that
# shares only these with a question holding other words does not match it ("谁喜欢
# 爬山" is not answered by "喜欢吃火锅"). Stems (see stem_of) and CJK terms.
WEAK_STEMS = frozenset(("lik", "lov", "enjoy", "play"))  # like, love, enjoy, play
WEAK_CJK = frozenset(("喜欢", "喜", "欢", "爱", "玩"))
# English words that no suffix rule folds to their base form.
_IRREGULAR = {
    "went": "go", "gone": "go", "goes": "go", "took": "take", "taken": "take",
    "made": "make", "got": "get", "gotten": "get", "saw": "see", "seen": "see",
    "met": "meet", "ran": "run", "began": "begin", "begun": "begin", "bought": "buy",
    "gave": "give", "given": "give", "found": "find", "won": "win", "lost": "lose",
    "left": "leave", "felt": "feel", "came": "come", "spent": "spend", "wrote": "write",
    "written": "write", "became": "become", "brought": "bring", "built": "build",
    "caught": "catch", "chose": "choose", "chosen": "choose", "drew": "draw",
    "drawn": "draw", "drove": "drive", "driven": "drive", "ate": "eat", "eaten": "eat",
    "fell": "fall", "fallen": "fall", "fought": "fight", "flew": "fly", "flown": "fly",
    "forgot": "forget", "froze": "freeze", "grew": "grow", "grown": "grow",
    "heard": "hear", "held": "hold", "hid": "hide", "kept": "keep", "knew": "know",
    "known": "know", "led": "lead", "paid": "pay", "said": "say", "sold": "sell",
    "sent": "send", "sang": "sing", "sung": "sing", "sat": "sit", "slept": "sleep",
    "spoke": "speak", "spoken": "speak", "stood": "stand", "taught": "teach",
    "told": "tell", "thought": "think", "threw": "throw", "thrown": "throw",
    "understood": "understand", "woke": "wake", "wore": "wear", "worn": "wear",
    "swam": "swim", "children": "child", "men": "man", "women": "woman",
    "people": "person", "feet": "foot", "teeth": "tooth", "mice": "mouse",
    "wives": "wife", "knives": "knife", "leaves": "leaf",
}  # fmt: skip
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
_STEMS: dict[str, str] = {}  # memo: the same words recur in every row


# ---------------------------------------------------------------- terms


def stem_of(word: str) -> str:
    """Fold an English word: plural -s/-es/-ies, then -ed/-ing, a prefix of at most
    PREFIX letters, and no final -e (works, worked, working -> work; loves -> lov)."""
    stem = _STEMS.get(word)
    if stem is not None:
        return stem
    stem = _IRREGULAR.get(word, word)
    n = len(stem)
    if n > 3 and stem.isascii() and stem.isalpha():
        if stem.endswith("ies") and n > 4:
            stem = stem[:-3] + "y"
        elif stem.endswith(("sses", "ches", "shes", "xes", "zes")):
            stem = stem[:-2]
        elif stem.endswith("s") and not stem.endswith(("ss", "us", "is")):
            stem = stem[:-1]
        n = len(stem)
        if stem.endswith("ied") and n > 4:
            stem = stem[:-3] + "y"
        elif stem.endswith("ed") and n > 4:
            stem = _undouble(stem[:-2])
        elif stem.endswith("ing") and n > 5:
            stem = _undouble(stem[:-3])
        stem = stem[:PREFIX]
        if len(stem) > 3 and stem[-1] == "e":
            stem = stem[:-1]
    if len(_STEMS) < 50_000:  # bounded, for a long-lived process
        _STEMS[word] = stem
    return stem


def _undouble(stem: str) -> str:
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]  # planned -> plan, but falling -> fall
    return stem


# Text that is its own NFKC form, by its UTF-8 bytes: ASCII, continuation bytes and the
# lead bytes of U+4000-U+9FFF (ideographs: none has a compatibility form, composes with a
# neighbour or has a case). Any other character leaves a lead byte behind.
_PLAIN = bytes(range(0xC0)) + bytes(range(0xE4, 0xEA))
_PLAIN_SHORT = 8000  # longer, unicodedata's own check (faster per character) pays for itself


def folded(text: str) -> tuple[str, bytes]:
    """``text`` in NFKC form (full-width letters as ASCII), lowercase, and its UTF-8.

    A short text of ASCII and ideographs alone, the usual Chinese text, is lowered as
    bytes: its ideographs have no case and no other form, and unicodedata (whose import
    costs more than ranking one person's rows) is not loaded for it."""
    if text.isascii() or len(text) < _PLAIN_SHORT:
        data = text.encode("utf-8", "surrogatepass")
        if text.isascii() or not data.translate(None, _PLAIN):
            data = data.lower()
            return data.decode("utf-8", "surrogatepass"), data
    import unicodedata  # loaded only for text that needs it

    if not unicodedata.is_normalized("NFKC", text):  # checked far faster than normalized
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    return text, text.encode("utf-8", "surrogatepass")


def fold_text(text: str) -> tuple[str, list[str], list[str]]:
    """The question -> (folded text, words, CJK runs).

    "打78分" gives the word 78 and the runs 打 and 分; punctuation is dropped
    before NFKC, since full-width punctuation (，？) would make every Chinese
    sentence take the slow way.
    """
    if text.isascii():
        text = text.lower()
        return text, ascii_words(text).split(), []
    text = folded(" ".join("".join(c if c.isalnum() else " " for c in text).split()))[0]
    words: list[str] = []
    runs: list[str] = []
    for run in text.split():
        if run.isascii() or max(run) < _CJK_FROM:
            words.append(run)  # English, digits, accented Latin, Greek, Cyrillic
        elif min(run) >= _CJK_FROM:
            runs.append(run)
        else:  # CJK and other letters or digits, unspaced
            start = 0
            for i in range(1, len(run) + 1):
                if i == len(run) or (run[i] >= _CJK_FROM) != (run[start] >= _CJK_FROM):
                    (runs if run[start] >= _CJK_FROM else words).append(run[start:i])
                    start = i
    return text, words, runs


def ascii_words(text: str | bytes) -> str:
    """``text`` (or its UTF-8) with every character but ASCII letters and digits a space."""
    data = text if isinstance(text, bytes) else text.encode()
    return data.translate(_WORDS_ONLY, _CONTINUATION).decode()


def cjk_terms(runs: list[str]) -> list[str]:
    """The characters and overlapping bigrams of CJK runs, without stop words."""
    terms = []
    for run in runs:
        terms += [c for c in run if c not in _ZH_STOP_CHARS]
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if (
                pair[0] not in _ZH_EDGE_CHARS
                and pair[1] not in _ZH_EDGE_CHARS
                and pair not in _ZH_STOP_BIGRAMS
            ):
                terms.append(pair)
    return terms


def date_terms(text: str, words: list[str]) -> list[str]:
    """Years (1900-2099) and months the question names: 2023, May 2022, 6月."""
    terms = [f"y{w}" for w in words if len(w) == 4 and w.isdigit() and w[:2] in ("19", "20")]
    for i, w in enumerate(words):
        month = _MONTHS.get(w)
        if month is None:
            continue
        if w == "may" and not any(x.isdigit() for x in words[max(0, i - 1) : i + 2]):
            continue  # "may" the verb, unless a day or a year stands beside it
        terms.append(f"m{month:02d}")
    at = text.find("月")
    while at != -1:  # 6月, 12月
        start = at
        while start > 0 and text[start - 1].isdigit():
            start -= 1
        digits = text[start:at]
        if 0 < len(digits) <= 2 and 1 <= int(digits) <= 12:
            terms.append(f"m{int(digits):02d}")
        at = text.find("月", at + 1)
    return list(dict.fromkeys(terms))


# ---------------------------------------------------------------- the alias table

# The naming units of the alias table: every group's heads (unit = the group's index),
# then every member cluster, in the order of MEMBERS. The table is searched as two
# texts, its English words and its Chinese terms: each unit between spaces, so that
# units meet at a double space and the unit at a position is a count of them. Built
# with a few joins, never term by term: every process asking a question pays it.
_JOINED: dict[int, str] = {}
_CLUSTERS: list[tuple[int, int]] = []  # per MEMBERS entry: its first unit, its group


def _joined(column: int) -> str:
    """The table's English words (column 1) or Chinese terms (column 3), unit by unit."""
    found = _JOINED.get(column)
    if found is None:
        side = 0 if column == 1 else 1
        heads = "  ".join([group[column] for group in GROUPS])
        members = "  ".join([m[side] for m in MEMBERS.values()]).replace("; ", "  ")
        found = _JOINED[column] = f" {heads}  {members} "
    return found


def _unit_at(joined: str, at: int) -> int:
    """The unit holding the term that starts after position ``at`` of a joined text."""
    return joined.count("  ", 0, at + 1)


def unit_of(unit: int) -> tuple[int, int]:
    """A unit -> (its group, its cluster; -1 for the group's heads)."""
    if unit < len(GROUPS):
        return unit, -1
    if not _CLUSTERS:
        gids = {group[0]: gid for gid, group in enumerate(GROUPS)}
        first = len(GROUPS)
        for name, (english, _) in MEMBERS.items():
            _CLUSTERS.append((first, gids[name]))
            first += english.count("; ") + 1
    for first, gid in reversed(_CLUSTERS):
        if first <= unit:
            return gid, unit - first
    raise AssertionError(unit)  # pragma: no cover - a unit is past the heads


def groups_of(stems: list[str], spaced: str, text: str) -> list[tuple[int, int]]:
    """The concepts the question names, as (group, k): k = -1 when it names the group
    by one of its heads (it asks about the group: hobby, 爱好), else the member cluster
    it names (hiking, 爬山), for each group it does not name by a head.
    ``spaced``: the question's words between spaces; ``text``: the folded question."""
    found = units_named(stems, spaced, text)
    heads = [u for u in found if u < len(GROUPS)]
    named = [(u, -1) for u in heads]
    for u in found[len(heads) :]:
        gid, k = unit_of(u)
        if gid not in heads:
            named.append((gid, k))
    return named


def units_named(stems: list[str], spaced: str, text: str) -> list[int]:
    """The naming units (see ``_joined``) that the question's words, phrases or
    Chinese text hold, in order."""
    found: dict[int, None] = {}
    if stems:
        joined = _joined(1)
        for stem in stems:  # English: words that fold to the stem
            key = " " + _key(stem)
            at = joined.find(key)
            while at != -1:
                end = joined.find(" ", at + 1)
                if stem_of(joined[at + 1 : end]) == stem:
                    found[_unit_at(joined, at)] = None
                at = joined.find(key, end)
    if spaced:
        for phrase, unit in _phrases():
            if phrase in spaced:
                found[unit] = None
    if not text.isascii():  # Chinese: the terms each character begins, held by the text
        text = without_le(text)
        joined = _joined(3)
        for char in dict.fromkeys(text.replace(" ", "")):
            # The character alone, not " " + it: a one-character search is several times
            # faster in a text where every other character is a space.
            at = joined.find(char)
            while at != -1:
                if joined[at - 1] != " ":  # inside a term
                    at = joined.find(char, at + 1)
                    continue
                end = joined.find(" ", at)
                if joined[at:end] in text:
                    found[_unit_at(joined, at - 1)] = None
                at = joined.find(char, end)
    return sorted(found)


def without_le(text: str) -> str:
    """Text as Chinese alias terms are found in it: without the particle 了, which
    separable verbs take inside them (道了歉 is 道歉, 吵了架 is 吵架)."""
    return text.replace("了", "") if "了" in text else text


_PHRASES: list[tuple[str, int]] = []


def _phrases() -> list[tuple[str, int]]:
    """Each English phrase of the table, between spaces, with its unit."""
    if not _PHRASES:
        for gid, group in enumerate(GROUPS):
            if group[2]:
                _PHRASES.extend((f" {p} ", gid) for p in group[2].split("; "))
        unit = len(GROUPS)
        for english, _ in MEMBERS.values():
            for cluster in english.split("; "):
                if "_" in cluster:
                    words = cluster.split()
                    _PHRASES.extend((f" {w.replace('_', ' ')} ", unit) for w in words if "_" in w)
                unit += 1
    return _PHRASES


def position_in(starts: list[int], at: int) -> int:
    """The index of the last start at or before ``at`` (starts ascending)."""
    lo, hi = 0, len(starts)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if starts[mid] <= at:
            lo = mid
        else:
            hi = mid
    return lo


class Group:
    """Alias terms -- of a group's heads and some of its clusters -- as rows are
    searched for them."""

    def __init__(self, gid: int, clusters: list[int], heads: bool, chinese: bool = True):
        group = GROUPS[gid]
        english = [group[1]] if heads else []
        zh = [group[3]] if heads else []
        if clusters:
            member_english, member_chinese = (side.split("; ") for side in MEMBERS[group[0]])
            english += [member_english[k] for k in clusters]
            zh += [member_chinese[k] for k in clusters]
        words = [w for text in english for w in text.split() if w != "-"]
        stems = dict.fromkeys(stem_of(w) for w in words if "_" not in w)
        self.keys = [(f" {key}", stem) for stem in stems for key in search_keys(stem)]
        self.phrases = [w.replace("_", " ") for w in words if "_" in w]
        if heads and group[2]:
            self.phrases += group[2].split("; ")
        # Field names are ASCII: a Group searched in them needs no Chinese.
        self.chinese = [t for text in zh for t in text.split() if t != "-"] if chinese else []


_GROUPS: dict[tuple[int, int, bool], tuple[Group, Group]] = {}


def group_at(gid: int, k: int, siblings: bool = False) -> tuple[Group, Group]:
    """What a concept the question names (``groups_of``) is found by: in a row's
    value, and in its field name.

    Named by a head (k = -1, "hobbies?"), the group reaches its heads and every
    member, in values and field names alike: a row in ``hobby`` or one that says
    "plays the piano" answers it. Named by a member only ("hiking"), the question
    is widened to that member's synonyms and translations (爬山, 徒步) and to its
    group's heads ("outdoor activities"), in values; a field name counts only
    when it names the member itself. So "hiking" finds neither every row in
    ``hobby`` nor a sibling member ("plays the piano", 游戏公司).

    With ``siblings`` (``context``, which fills a budget for one person), a member
    reaches its group's other members too, in values only.
    """
    found = _GROUPS.get((gid, k, siblings))
    if found is None:
        if k < 0:
            members = MEMBERS.get(GROUPS[gid][0])
            every = list(range(members[0].count("; ") + 1)) if members else []
            whole = Group(gid, every, heads=True)
            found = (whole, whole)
        else:
            field = Group(gid, [k], heads=False, chinese=False)
            value = group_at(gid, -1)[0] if siblings else Group(gid, [k], heads=True)
            found = (value, field)
        _GROUPS[gid, k, siblings] = found
    return found


def search_keys(stem: str) -> list[str]:
    """What the words that fold to ``stem`` begin with: the stem (or, for a stem
    in -y, the stem without it: studies), and its irregular forms (went: go)."""
    key = _key(stem)
    if not _BY_INITIAL:  # the irregular forms by their base's first letter, once
        for form, base in _IRREGULAR.items():
            _BY_INITIAL.setdefault(base[0], []).append((form, base))
    # A base folds to a prefix of itself (a test keeps it so): the cheap check first.
    irregular = [
        form
        for form, base in _BY_INITIAL.get(stem[0], ())
        if base.startswith(key) and not form.startswith(key) and stem_of(base) == stem
    ]
    return [key, *irregular]


_BY_INITIAL: dict[str, list[tuple[str, str]]] = {}


def _key(stem: str) -> str:
    """What every word that folds to ``stem`` begins with (studies: stud, for study)."""
    return stem[:-1] if stem.endswith("y") and len(stem) > 2 else stem


def asks_about_an_end(query: str) -> bool:
    """Whether a question asks about something ending (policy.END_CUES_*)."""
    from .. import policy  # loaded already: the cue lists are policy, as data

    if any(cue in query for cue in policy.END_CUES_ZH.split()):
        return True
    words = set(query.lower().replace("?", " ").replace(",", " ").split())
    return bool(words.intersection(policy.END_CUES_EN.split()))


def spoken_name(label: str) -> str:
    """What a question calls a person by: their display label up to its first space,
    bracket, comma, colon or dash ("Rosa (from work)" → "Rosa", "小林，设计师" → "小林")."""
    cut = next((i for i, ch in enumerate(label) if ch in " (（,，:：-—"), len(label))
    return label[:cut]
