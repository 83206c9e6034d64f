"""Sensitive-content detectors: field names and the text of values (contract §6, §17).

Imported only by validation.py on the write path; the read paths never pay for
compiling these patterns.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import policy


def sensitive_field(field: str) -> str | None:
    """The detector a field name is about (``home_address``…), or None."""
    joined = f"_{field}_"
    for run in policy.FORM_OF_ADDRESS_RUNS:
        joined = joined.replace(f"_{run}_", "_")
    words = joined.strip("_").split("_")
    for detector, fragments in policy.SENSITIVE_FIELD_FRAGMENTS.items():
        for frag in fragments:
            if "_" in frag:
                if f"_{frag}_" in joined or any(
                    "_".join(words[i:]).startswith(frag) for i in range(len(words))
                ):
                    return detector
            elif any(
                w.startswith(frag) and w[len(frag) :] in policy.SENSITIVE_FIELD_SUFFIXES
                for w in words
            ):
                return detector
    return None


# --- value detectors --------------------------------------------------------

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_URL_CREDENTIALS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]+:[^\s/?#@]*@")
_API_KEYS = re.compile(
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
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}(?![A-Za-z0-9+/=_-])")
# Digits with separators; the candidate is then judged by its digits.
_DIGIT_RUN = re.compile(r"(?<![0-9A-Za-z])\+?\(?[0-9][0-9 ().-]*[0-9](?![0-9A-Za-z])")
_PRC_ID = re.compile(
    r"(?<![0-9A-Za-z])[1-9][0-9]{5}(?:18|19|20)[0-9]{2}(?:0[1-9]|1[0-2])"
    r"(?:0[1-9]|[12][0-9]|3[01])[0-9]{3}[0-9Xx](?![0-9A-Za-z])"
)
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_PRC_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_PRC_CHECK = "10X98765432"


def _prc_id_valid(text: str) -> bool:
    total = sum(int(c) * w for c, w in zip(text[:17], _PRC_WEIGHTS, strict=True))
    return _PRC_CHECK[total % 11] == text[17].upper()


def _luhn_valid(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _iban_valid(candidate: str) -> bool:
    s = candidate.replace(" ", "")
    if not 15 <= len(s) <= 34:
        return False
    rearranged = s[4:] + s[:4]
    try:
        number = int("".join(str(int(c, 36)) for c in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def _is_card(candidate: str) -> bool:
    # Card numbers are written with single spaces or dashes between groups, never
    # with brackets, dots or a leading "+".
    if candidate.startswith("+") or re.search(r"[().]|  |--|- | -", candidate):
        return False
    digits = "".join(c for c in candidate if c.isdigit())
    return 13 <= len(digits) <= 19 and _luhn_valid(digits)


def _is_phone(candidate: str) -> bool:
    digits = "".join(c for c in candidate if c.isdigit())
    groups = [g for g in re.split(r"[ ().-]+", candidate.lstrip("+")) if g]
    if candidate.startswith("+"):
        # E.164: a country code and 7-14 more digits, grouped or not.
        return 8 <= len(digits) <= 15
    bare = digits[2:] if digits.startswith("86") and len(digits) == 13 else digits
    if len(bare) == 11 and bare[0] == "1" and bare[1] in "3456789":
        # Mainland-China mobile, with or without separators, but not when the
        # separators make it look like something else (a date-time run).
        return len(groups) == 1 or all(len(g) >= 3 for g in groups)
    if len(groups) >= 2 and 10 <= len(digits) <= 12:
        # Grouped forms: (020) 7946 0958, 555-123-4567, 010-12345678. Every group
        # has at least three digits, so dates and times never qualify.
        return all(len(g) >= 3 for g in groups) and len(groups) <= 4
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
    import math

    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= 3.5


_TEXT_DETECTORS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("url_credentials", lambda t: bool(_URL_CREDENTIALS.search(t))),
    ("email", lambda t: bool(_EMAIL.search(t))),
    ("api_key", lambda t: bool(_API_KEYS.search(t))),
    ("prc_id", lambda t: any(_prc_id_valid(m.group()) for m in _PRC_ID.finditer(t))),
    ("iban", lambda t: any(_iban_valid(m.group()) for m in _IBAN.finditer(t))),
    ("payment_card", lambda t: any(_is_card(m.group()) for m in _DIGIT_RUN.finditer(t))),
    ("phone", lambda t: any(_is_phone(m.group()) for m in _DIGIT_RUN.finditer(t))),
    (
        "api_key",
        lambda t: any(_long_token_is_secret(m.group()) for m in _LONG_TOKEN.finditer(t)),
    ),
)


def sensitive_text(text: str) -> str | None:
    """The name of the first detector that matches ``text``, or None."""
    for name, detect in _TEXT_DETECTORS:
        if detect(text):
            return name
    return None
