"""Sensitive-content detectors: field names and the text of values (contract §6, §17).

Imported only by validation.py on the write path; the read paths never pay for
compiling these patterns. Even there a pattern is compiled only when a text could
match it (``re`` keeps it in its cache): compiling them all cost an ``apply`` a
fifth of the interpreter's start, and most values hold no number, no "@" and
none of the key prefixes. Each test before a pattern is a condition every match
needs, so the answers are the same as running every pattern.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable

from .. import sensitive_terms as terms


def sensitive_field(field: str) -> str | None:
    """The detector a field name is about (``home_address``…), or None."""
    joined = f"_{field}_"
    for run in terms.FORM_OF_ADDRESS_RUNS:
        joined = joined.replace(f"_{run}_", "_")
    words = joined.strip("_").split("_")
    for detector, fragments in terms.SENSITIVE_FIELD_FRAGMENTS.items():
        for frag in fragments:
            if "_" in frag:
                if f"_{frag}_" in joined or any(
                    "_".join(words[i:]).startswith(frag) for i in range(len(words))
                ):
                    return detector
            elif any(
                w.startswith(frag) and w[len(frag) :] in terms.SENSITIVE_FIELD_SUFFIXES
                for w in words
            ):
                return detector
    if ("condition" in words or "conditions" in words) and any(
        w in terms.HEALTH_CONDITION_WORDS for w in words
    ):
        return "medical"
    return None


# --- value detectors --------------------------------------------------------
#
# They read the text after _normalize, so that fullwidth digits, invisible
# characters and odd dashes cannot hide a number. A number is judged by the
# shape of its digit groups (_windows), so that a list of dates, years or prices
# with the right digit count is not taken for a card or a phone number.

# Dashes that NFKC leaves alone but people (and models) put between digits.
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63"), "-")


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    # Cf (zero-width space and joiners, word joiner, BOM, soft hyphen…) is
    # invisible: removing it never changes what the user meant. NFKC leaves the
    # digits of other scripts (١٣٨, १३८) alone; a number is a number in any.
    text = "".join(
        str(unicodedata.decimal(c)) if c.isdecimal() else c
        for c in text
        if unicodedata.category(c) != "Cf"
    )
    return text.translate(_DASHES)


_URL_CREDENTIALS = r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]+:[^\s/?#@]*@"

# "@" and a bracketed "(at)" are unambiguous; the bare word " at " is not ("meet
# at noon", "bought it at taobao.com"): see _spelled_email. Bracketed "(at)" and
# "(dot)", and " dot ", are rewritten to "@" and "." first (_unbracket), so that
# the patterns stay plain ASCII: re compiles in Python, and a case-insensitive
# class with a non-ASCII bracket or nested optional spellings cost several
# milliseconds per process. The lookbehind starts a local part only where a run of
# its characters starts, and what follows it (" ", "@", whitespace) is never one of
# them, so each run is tried once and gives back at most its own length: the search
# stays linear without 3.11's possessive "++", which Python 3.10 cannot compile.
_LOCAL = r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+"
_DOMAIN = r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
_EMAIL = rf"{_LOCAL} ?@ ?{_DOMAIN}"
_SPELLED_EMAIL = rf"({_LOCAL})\s+[Aa][Tt]\s+{_DOMAIN}"
_BRACKETED = r"\s*[(\[{<]\s*([Aa][Tt]|[Dd][Oo][Tt])\s*[)\]}>]\s*|\s+([Dd][Oo][Tt])\s+"


def _unbracket(text: str) -> str:
    """ "(at)", "[at]", "{at}", "<at>", "【at】" as "@"; the same forms of "dot", and " dot ", as "."."""
    if "【" in text:
        text = text.replace("【", "[").replace("】", "]")
    return re.sub(_BRACKETED, lambda m: "@" if (m.group(1) or "").lower() == "at" else ".", text)


def _has_email(text: str) -> bool:
    # Every form needs "@" or "at" ("(at)", " at "): without them nothing can match.
    if "@" not in text and "at" not in text.lower():
        return False
    text = _unbracket(text)
    return bool(re.search(_EMAIL, text)) or _spelled_email(text)


def _spelled_email(text: str) -> bool:
    # "john.doe at example.com", but neither "bought it at taobao.com" (a plain
    # word before "at") nor "Mr.Li at Starbucks.Then we…" (no lower-case TLD).
    for m in re.finditer(_SPELLED_EMAIL, text):
        local, tld = m.group(1), re.split("[^A-Za-z]", m.group())[-1]
        if re.search("[A-Za-z]", local) and re.search("[._%+0-9-]", local) and tld.islower():
            return True
    return False


_API_KEYS = (
    r"(?<![A-Za-z0-9])(?:"
    r"sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{30,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r")"
)
# Every key above begins with one of these ("gh" covers ghp_, gho_…).
_API_KEY_PREFIXES = ("sk-", "gh", "github_pat_", "AKIA", "ASIA", "xox", "AIza", "glpat-")
_LONG_TOKEN = r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}(?![A-Za-z0-9+/=_-])"
_IBAN = r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?:[ -]?[A-Z0-9]){11,30}(?![A-Za-z0-9])"

# A run: digit groups joined by single spaces, dots or dashes, perhaps after "+"
# or a bracketed area code, perhaps ending in the X of an ID number. A group
# glued to a letter ("26T19", "12A") is left out, and so is a time ("11:34").
_RUN = (
    r"(?<![0-9A-Za-z])(?<![0-9]:)(\+)?(?:\(([0-9]{2,4})\) ?)?"
    r"([0-9]+(?:[ .-][0-9]+)*)([Xx](?![0-9A-Za-z]))?(?![0-9A-Za-z]|:[0-9])"
)
# A date ends a run, so that "2026-04-26 2026-05-03" holds no number at all.
_DATE = (
    r"(?<![0-9])(?<![0-9][-./])(?:18|19|20)[0-9]{2}([-./])(?:0?[1-9]|1[0-2])\1"
    r"(?:0?[1-9]|[12][0-9]|3[01])(?![-./]?[0-9])"
)
_HHMM = r"(?:[01][0-9]|2[0-3])[0-5][0-9]"
# Units of amounts and measures. 分 (分机), 年 (年底), 千 (千万)… are left out:
# they also begin ordinary words that may follow a phone number.
_UNIT_AFTER = (
    r" ?(?:元|块|円|¥|\$|€|£|%|°|米|厘米|公斤|斤|克"
    r"|(?:cm|mm|km|kg|lbs?|yuan|rmb|usd|eur|dollars?|euros?|pounds?)(?![A-Za-z]))"
)
_UNIT_BEFORE = r"(?:[¥$€£]|rmb|usd|eur) ?$"
_PRC_ID = (
    r"[1-9][0-9]{5}(?:18|19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[0-9]{3}[0-9X]"
)
_PRC_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_PRC_CHECK = "10X98765432"


class _Window:
    """Consecutive digit groups of one run: what the number detectors judge."""

    def __init__(self, groups: list[str], plus: bool, bracketed: bool, listlike: bool) -> None:
        self.groups, self.lengths, self.digits = groups, [len(g) for g in groups], "".join(groups)
        self.plus = plus  # it starts with "+"
        self.bracketed = bracketed  # its first group was an area code in brackets
        self.listlike = listlike and len(groups) > 1  # unbroken digits are one number


def _is_list(groups: list[str], text: str, start: int, end: int) -> bool:
    """A run of years, times, amounts or round numbers is a list, not one number."""
    years = sum(1 for g in groups if g.isdigit() and 1900 <= int(g) <= 2099)
    return (
        (years >= 2 and all(len(g) == 4 for g in groups))  # 2019 2021 2023
        or (len(groups) >= 3 and all(re.fullmatch(_HHMM, g) for g in groups))  # 0930 1130 1400
        or (len(groups) >= 4 and all(g.endswith("0") for g in groups))  # 1200 1500 1800 2000
        or bool(
            re.compile(_UNIT_AFTER, re.IGNORECASE).match(text, end)
            or re.compile(_UNIT_BEFORE, re.IGNORECASE).search(text, 0, start)
        )
    )


def _windows(text: str) -> list[_Window]:
    found: list[_Window] = []
    text = re.sub(_DATE, ";", text)
    for m in re.finditer(_RUN, text):
        plus, area, body, x = m.groups()
        parts = re.split("([ .-])", body)
        groups, seps = ([area] if area else []) + parts[::2], ([" "] if area else []) + parts[1::2]
        if x:
            groups[-1] += "X"
        # Judged: the whole run, the run less its last piece (a CVV, an extension
        # or a year after the number) and each piece alone. Only a space cuts
        # pieces: "2026-04" or "3.1415…" is one thing.
        cuts = [0] + [i + 1 for i, sep in enumerate(seps) if sep == " "] + [len(groups)]
        spans = {(0, cuts[-1]), (0, cuts[-2]), *zip(cuts[:-1], cuts[1:], strict=True)}
        listlike = _is_list(groups, text, m.start(), m.end())
        for a, b in sorted(spans):
            if a < b and sum(map(len, groups[a:b])) <= 19:  # no detector takes more digits
                first = a == 0
                found.append(
                    _Window(groups[a:b], first and bool(plus), first and bool(area), listlike)
                )
    return found


def _luhn_valid(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _is_card(w: _Window) -> bool:
    if w.plus or w.bracketed or w.listlike or not w.digits.isdigit():
        return False
    if not 13 <= len(w.digits) <= 19 or _is_mobile(_without_country_code(w.groups)):
        return False  # 0086 13812345678 is a phone, whatever Luhn says
    n = w.lengths
    # Grouped as cards are printed: fours (the last group may be shorter), the
    # 4-6-5 / 4-6-4 of Amex and Diners, unbroken, or one digit at a time.
    shaped = (
        len(n) == 1
        or set(n) == {1}
        or n in ([4, 6, 5], [4, 6, 4])
        or (len(n) >= 4 and set(n[:-1]) == {4} and n[-1] <= 4)
    )
    return shaped and _luhn_valid(w.digits)


def _is_mobile(groups: list[str]) -> bool:
    """A mainland-China mobile: 11 digits starting 1[3-9], grouped as people write it."""
    n = [len(g) for g in groups]
    return bool(re.fullmatch("1[3-9][0-9]{9}", "".join(groups))) and (
        n in ([11], [3, 4, 4], [3, 8], [7, 4]) or set(n) == {1}
    )


def _without_country_code(groups: list[str]) -> list[str]:
    if len(groups) > 1 and groups[0] in ("86", "0086"):
        return groups[1:]
    m = re.fullmatch("(?:0086|86)(1[0-9]{10})", groups[0]) if len(groups) == 1 else None
    return [m.group(1)] if m else groups


def _is_phone(w: _Window) -> bool:
    if w.listlike or not w.digits.isdigit():
        return False
    n = w.lengths
    if w.plus:  # E.164: a country code of 1-3 digits and 7-14 more, grouped or not
        return 8 <= len(w.digits) <= 15 and (len(n) == 1 or n[0] <= 3)
    if _is_mobile(w.groups) or _is_mobile(_without_country_code(w.groups)):
        return True
    # An area code (leading 0, or in brackets), then groups of three or more:
    # 010-12345678, 020 7946 0958, (020) 7946 0958, 07700 900123.
    national = (
        (w.bracketed or bool(re.fullmatch("0[1-9][0-9]{0,3}", w.groups[0])))
        and 2 <= len(n) <= 4
        and w.groups[1][0] != "0"  # a subscriber number never starts with 0
        and min(n[1:]) >= 3
        and 10 <= len(w.digits) <= 12
    )
    # 555-123-4567; no area code has 9 in the middle, as prices like 899 999 1299 do.
    north_american = n == [3, 3, 4] and bool(re.match("[2-9][0-8]", w.digits))
    service = n == [4, 3, 3] and w.digits[:3] in ("400", "800")  # 4008-123-123
    return national or north_american or service


def _is_prc_id(w: _Window) -> bool:
    # Checksum and birth date make a chance match rare, so most groupings count
    # ("110105 19491231 0021"), but not groups of one or two digits in the
    # middle, as in a list of dates and times.
    n, s = w.lengths, w.digits
    if w.plus or w.bracketed or not (min(n[:-1], default=3) >= 3 or set(n) == {1}):
        return False
    if not re.fullmatch(_PRC_ID, s):
        return False
    return (
        _PRC_CHECK[sum(int(c) * k for c, k in zip(s[:17], _PRC_WEIGHTS, strict=True)) % 11] == s[17]
    )


def _iban_valid(candidate: str) -> bool:
    s = re.sub("[ -]", "", candidate)
    if not 15 <= len(s) <= 34:
        return False
    rearranged = s[4:] + s[:4]
    try:
        number = int("".join(str(int(c, 36)) for c in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def _has_iban(text: str) -> bool:
    if len(text) < 15 or text.lower() == text:  # at least 15 characters, two capitals first
        return False
    for m in re.finditer(_IBAN, text):
        candidate = m.group()
        # The pattern may have taken a following group too ("… 32 2026").
        while candidate:
            if _iban_valid(candidate):
                return True
            candidate = candidate[: max(candidate.rfind(" "), candidate.rfind("-"), 0)]
    return False


def _long_token_is_secret(token: str) -> bool:
    classes = sum(
        (
            any(c.islower() for c in token),
            any(c.isupper() for c in token),
            any(c.isdigit() for c in token),
        )
    )
    if classes < 2:
        return False
    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= 3.5


# The fewest digits a number detector takes (an E.164 phone number: 8).
_NUMBER_DIGITS_MIN = 8


def _has_key_prefix(text: str) -> bool:
    return any(prefix in text for prefix in _API_KEY_PREFIXES)


# "password is Tulip#2026", "pw: x9", "PIN 4821", "密码是Tulip#2026": a word that
# announces a secret, then the secret. After "is", ":" or "=" any word but an
# ordinary one (terms.SECRET_NOT_A_SECRET: "her password is weak") is the secret;
# with no such link only a word holding a digit or a symbol is ("pw Tulip#2026"),
# so "she forgot her password again" passes.
_SECRET_EN = (
    r"(?<![A-Za-z])(?:{words})(?![A-Za-z])"
    r"(?:\s*(is|was|[:=])\s*|\s+)([^\s,;，。；]+)"
)
_SECRET_ZH = r"(?:{words})(?:是|为|：|:|=|\s)*([A-Za-z0-9][\x21-\x7e]{{2,}})"


def _has_secret(text: str) -> bool:
    low = text.lower()
    if any(w in text for w in terms.SECRET_WORDS_ZH):
        zh = _SECRET_ZH.format(words="|".join(terms.SECRET_WORDS_ZH))
        if re.search(zh, text):
            return True
    if not any(w in low for w in ("pw", "pin", "pass")):
        return False
    words = "|".join(sorted((re.escape(w) for w in terms.SECRET_WORDS_EN), key=len, reverse=True))
    for m in re.finditer(_SECRET_EN.format(words=words), low):
        link, token = m.group(1), m.group(2).strip("\"'.!?()[]")
        if len(token) < 3:
            continue
        marked = any(not c.isalpha() for c in token)  # a digit or a symbol
        if marked and (link or len(token) >= 4):
            return True
        if link and token not in terms.SECRET_NOT_A_SECRET and token.isascii():
            return True
    return False


def _has_medical(text: str) -> bool:
    if any(p in text for p in terms.MEDICAL_PHRASES_ZH):
        return True
    low = text.lower()
    words = set(re.findall(r"[a-z]+", low))
    if words.intersection(terms.MEDICINES):
        return True
    return any(
        re.search(rf"(?<![a-z]){re.escape(p)}(?![a-z])", low)
        for p in terms.MEDICAL_PHRASES_EN
        if p.split()[0] in words
    )


_TEXT_DETECTORS: tuple[tuple[str, Callable[[str, list[_Window]], bool]], ...] = (
    ("url_credentials", lambda t, ws: "://" in t and bool(re.search(_URL_CREDENTIALS, t))),
    ("email", lambda t, ws: _has_email(t)),
    ("api_key", lambda t, ws: _has_key_prefix(t) and bool(re.search(_API_KEYS, t))),
    ("prc_id", lambda t, ws: any(_is_prc_id(w) for w in ws)),
    ("iban", lambda t, ws: _has_iban(t)),
    ("payment_card", lambda t, ws: any(_is_card(w) for w in ws)),
    ("phone", lambda t, ws: any(_is_phone(w) for w in ws)),
    (
        "api_key",
        lambda t, ws: len(t) >= 32 and any(map(_long_token_is_secret, re.findall(_LONG_TOKEN, t))),
    ),
    ("secret", lambda t, ws: _has_secret(t)),
    ("medical", lambda t, ws: _has_medical(t)),
)


def sensitive_text(text: str) -> str | None:
    """The name of the first detector that matches ``text``, or None."""
    text = _normalize(text)
    # _normalize leaves only ASCII digits, and a number is made of them.
    few = sum(map(text.count, "0123456789")) < _NUMBER_DIGITS_MIN
    windows = [] if few else _windows(text)
    for name, detect in _TEXT_DETECTORS:
        if detect(text, windows):
            return name
    return None
