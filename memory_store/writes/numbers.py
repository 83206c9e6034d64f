"""The number detectors: payment cards, phone numbers and PRC resident IDs read from the
digit runs of a value (documentation/privacy.md, "What the detectors see").

Loaded by sensitive.py only for a text that holds enough digits for one of them, so an
``apply`` of words never pays for these patterns. The text comes normalized: fullwidth
digits, invisible characters and odd dashes are gone. A number is judged by the shape
of its digit groups (windows), so that a list of dates, years or prices with the right
digit count is not taken for a card or a phone number.
"""

from __future__ import annotations

import re

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


class Numbers:
    """The windows of one text, and which number detector they match."""

    def __init__(self, text: str) -> None:
        self.windows = _windows(text)

    def prc_id(self) -> bool:
        return any(map(_is_prc_id, self.windows))

    def card(self) -> bool:
        return any(map(_is_card, self.windows))

    def phone(self) -> bool:
        return any(map(_is_phone, self.windows))
