"""Terms: how a question and a memory are cut into the words, characters and concepts
that ``relevance`` matches (contract §13).

Text is NFKC-folded and lowercased. Runs of letters and digits are words, with
light English suffix folding (works, worked, working -> work) and cut to a
prefix of five letters; runs of CJK characters give their single characters
and overlapping bigrams; each language has a short stop list. An alias group
(``aliases.py``) is a concept both languages name; a year or month is a date
term. No regular expression is compiled here (see ``relevance.py``: cost).
"""

from __future__ import annotations

from .aliases import GROUPS

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
    "wives": "wife", "lives": "life", "knives": "knife", "leaves": "leaf",
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


def nfkc(text: str) -> str:
    """NFKC form of a non-ASCII text (ASCII is its own NFKC form)."""
    import unicodedata  # loaded only for text that needs it

    if unicodedata.is_normalized("NFKC", text):
        return text  # the usual case, checked far faster than normalized
    return unicodedata.normalize("NFKC", text)


def fold_text(text: str) -> tuple[str, list[str], list[str]]:
    """The question -> (folded text, words, CJK runs).

    "打78分" gives the word 78 and the runs 打 and 分; punctuation is dropped
    before NFKC, since full-width punctuation (，？) would make every Chinese
    sentence take the slow way.
    """
    if text.isascii():
        text = text.lower()
        return text, ascii_words(text).split(), []
    text = nfkc(" ".join("".join(c if c.isalnum() else " " for c in text).split())).lower()
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


def ascii_words(text: str) -> str:
    """``text`` with every character but ASCII letters and digits a space."""
    return text.encode().translate(_WORDS_ONLY, _CONTINUATION).decode()


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


def groups_of(stems: list[str], spaced: str, text: str) -> list[int]:
    """The alias groups the question names. ``spaced``: its words between spaces;
    ``text``: the folded question."""
    found: dict[int, None] = {}
    if stems:
        words, starts = _joined(_ENGLISH)
        for stem in stems:
            key = " " + _key(stem)
            at = words.find(key)
            while at != -1:
                end = words.find(" ", at + 1)
                if stem_of(words[at + 1 : end]) == stem:
                    found[position_in(starts, at)] = None
                at = words.find(key, end)
    if spaced:
        for phrase, gid in _phrases():
            if phrase in spaced:
                found[gid] = None
    if not text.isascii():
        text = without_le(text)
        joined, starts = _joined(_CHINESE)
        for char in dict.fromkeys(text.replace(" ", "")):  # the terms it begins
            key = " " + char
            at = joined.find(key)
            while at != -1:
                end = joined.find(" ", at + 1)
                if joined[at + 1 : end] in text:
                    found[position_in(starts, at)] = None
                at = joined.find(key, end)
    return list(found)


def without_le(text: str) -> str:
    """Text as Chinese alias terms are found in it: without the particle 了, which
    separable verbs take inside them (道了歉 is 道歉, 吵了架 is 吵架)."""
    return text.replace("了", "") if "了" in text else text


_ENGLISH, _CHINESE = 1, 3  # the columns of aliases.GROUPS searched by groups_of
_JOINED: dict[int, tuple[str, list[int]]] = {}


def _joined(column: int) -> tuple[str, list[int]]:
    """One column of every group (its English words, or its Chinese terms) in one
    text, each word between spaces, and where each group starts; built once."""
    found = _JOINED.get(column)
    if found is None:
        parts = [f" {group[column]} " for group in GROUPS]
        starts = [0]
        for part in parts[:-1]:
            starts.append(starts[-1] + len(part))
        found = _JOINED[column] = ("".join(parts), starts)
    return found


_PHRASES: list[tuple[str, int]] = []


def _phrases() -> list[tuple[str, int]]:
    if not _PHRASES:
        for gid, group in enumerate(GROUPS):
            if group[2]:
                _PHRASES.extend((f" {p} ", gid) for p in group[2].split("; "))
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
    """An alias group as rows are searched for it."""

    def __init__(self, words: str, phrases: str, chinese: str):
        stems = dict.fromkeys(stem_of(w) for w in words.split())
        self.keys = [(f" {key}", stem) for stem in stems for key in search_keys(stem)]
        self.phrases = phrases.split("; ") if phrases else []
        self.chinese = chinese.split()


_GROUPS: dict[int, Group] = {}


def group_at(gid: int) -> Group:
    group = _GROUPS.get(gid)
    if group is None:
        group = _GROUPS[gid] = Group(*GROUPS[gid][1:])
    return group


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
