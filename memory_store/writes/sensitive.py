"""Sensitive-content detectors: field names and the text of values (documentation/privacy.md#what-they-look-for, documentation/privacy.md#what-the-detectors-see).

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
from collections.abc import Callable

from .. import sensitive_terms as terms

TYPE_CHECKING = False  # typing costs an import; annotations are strings here
if TYPE_CHECKING:
    from typing import Any


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
            elif any(_word_is(w, frag, detector) for w in words):
                return detector
    if ("condition" in words or "conditions" in words) and any(
        w in terms.HEALTH_CONDITION_WORDS for w in words
    ):
        return "medical"
    return None


_COMPOUND_TAILS = frozenset(terms.MEDICAL_COMPOUND_TAILS.split())


def _word_is(word: str, frag: str, detector: str) -> bool:
    """``word`` is ``frag``, in the plural ("therapies", "diagnoses") or with a suffix."""
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    elif word.endswith("ses"):
        forms.append(word[:-2] + "is")
    for w in forms:
        if w.startswith(frag) and w[len(frag) :] in terms.SENSITIVE_FIELD_SUFFIXES:
            return True
        at = w.find(frag) if detector == "medical" and len(frag) >= 6 else -1
        rest = w[at + len(frag) :]
        if at >= 0 and (rest in terms.SENSITIVE_FIELD_SUFFIXES or rest in _COMPOUND_TAILS):
            return True
    return False


# --- value detectors --------------------------------------------------------
#
# They read the text after _normalize, so that fullwidth digits, invisible
# characters and odd dashes cannot hide a number. Cards, phone numbers and IDs
# are judged by the shape of their digit groups, in numbers.py.

# Dashes that NFKC leaves alone but people (and models) put between digits.
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63"), "-")
# Most values are ASCII, ideographs and Chinese punctuation, and need no unicodedata
# (its import is a sixth of what the sensitive-content checks add to an apply). The
# full-width forms (，：？（）ＡＢ１２ and the ideographic space) are NFKC's own mapping to
# ASCII; the marks in _KEPT and the ideographs U+4000-U+9FFF (UTF-8 lead bytes E4-E9)
# are their own NFKC form, never invisible (Cf) and never digits, and none composes
# with a neighbour: for a text of these alone the answer is the same without
# unicodedata (tests/writes/test_sensitive.py checks every one of them against it).
_WIDE = {**{c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}, 0x3000: 0x20}
_KEPT = dict.fromkeys(map(ord, "、。〃〈〉《》「」『』【】〔〕〖〗〘〙〚〛〜“”‘’·"))
_PLAIN = bytes(range(0xC0)) + bytes(range(0xE4, 0xEA))


def _normalize(text: str) -> str:
    if text.isascii():
        return text
    text = text.translate(_WIDE)
    if text.translate(_KEPT).encode("utf-8", "surrogatepass").translate(None, _PLAIN):
        text = _normalize_unicode(text)
    return text.translate(_DASHES)


def _normalize_unicode(text: str) -> str:
    import unicodedata  # only for a text _normalize cannot read without it

    text = unicodedata.normalize("NFKC", text)
    # Cf (zero-width space and joiners, word joiner, BOM, soft hyphen…) is
    # invisible: removing it never changes what the user meant. NFKC leaves the
    # digits of other scripts (١٣٨, १३८) alone; a number is a number in any.
    return "".join(
        str(unicodedata.decimal(c)) if c.isdecimal() else c
        for c in text
        if unicodedata.category(c) != "Cf"
    )


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
# so "she forgot her password again" passes. The text is read in lower case.
_SECRET_EN = (
    r"(?<![a-z0-9])(?:{words})(?![a-z])"
    r"(?:\s*(is|was|[:=])\s*|\s+)([^\s,;，。；]+)"
)
_ZH_LINK = r"(?:\s|是|为|為|は|が|는|은|:|=)*"
_ASCII_SECRET = r"[a-z0-9][\x21-\x7e]{2,}"
_CJK_RUN = r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}"
_PASSPHRASE = r"[a-z]+(?: [a-z]+){3,}"
# A credential named by what it opens: "HR portal: Tulip#2291", "the alarm code is 4821",
# "code for the gate: 4821" (terms.ACCOUNT_WORDS, terms.CODE_THINGS).
_GIVEN = r"\s*(?:is|was|[:=]|是|为|為)\s*([^\s,;，。；、]+)"
_ACCOUNT = r"(?<![a-z0-9])(?:{accounts})(?![a-z0-9])" + _GIVEN
_CODE = (
    r"(?<![a-z0-9])(?:(?:{things})\s*(?:{codes})(?:\s+number)?"
    r"|(?:{codes})\s+(?:for|to)\s+(?:the\s+|her\s+|his\s+|my\s+|our\s+|their\s+)?(?:{things}))"
    r"(?![a-z0-9])" + _GIVEN
)
_NOT_A_CREDENTIAL = r"@.*|.*://.*|www\..*|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:/\S*)?"


# The word lists, split once (sensitive_terms.py keeps them as text).
_SECRET_WORDS_ZH = tuple(terms.SECRET_WORDS_ZH.split())
_SECRET_WORDS_PHRASE = frozenset(terms.SECRET_WORDS_PHRASE.split())
_NOT_A_SECRET_ZH = tuple(terms.SECRET_NOT_A_SECRET_ZH.split())
_NOT_A_SECRET = frozenset(terms.SECRET_NOT_A_SECRET.split())
_PASSPHRASE_BREAKERS = _NOT_A_SECRET | frozenset(terms.PASSPHRASE_BREAKERS.split())
_ACCOUNT_WORDS = tuple(terms.ACCOUNT_WORDS.split())
_CODE_THINGS = tuple(terms.CODE_THINGS.split())


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


def _phrase_secret(low: str, at: int) -> bool:
    """Chinese (Japanese, Korean) words at ``at`` that give a secret rather than say
    something about it ("芝麻开门", not "她的生日" or "多少")."""
    m = re.compile(_CJK_RUN).match(low, at)
    return m is not None and not m.group().startswith(_NOT_A_SECRET_ZH)


def _has_zh_secret(low: str) -> bool:
    words = tuple(w for w in _SECRET_WORDS_ZH if w in low)
    for m in re.finditer(_alternation(words), low) if words else ():
        link = re.compile(_ZH_LINK).match(low, m.end())  # it may be empty, never None
        after = link.end() if link else m.end()
        if re.compile(_ASCII_SECRET).match(low, after):
            return True
        linked = link is not None and link.group().strip() != ""
        if linked and m.group() in _SECRET_WORDS_PHRASE and _phrase_secret(low, after):
            return True
    return False


def _has_en_secret(low: str) -> bool:
    if not any(w in low for w in ("pw", "pin", "pass")):
        return False
    for m in re.finditer(_SECRET_EN.format(words=_alternation(terms.SECRET_WORDS_EN)), low):
        link, token = m.group(1), m.group(2).strip("\"'.!?()[]")
        if link and _phrase_secret(low, m.start(2)):  # "her password is 芝麻开门"
            return True
        if link in (":", "=") and _passphrase(low, m.start(2)):
            return True
        if len(token) < 3:
            continue
        marked = any(not c.isalpha() for c in token)  # a digit or a symbol
        if marked and (link or len(token) >= 4):
            return True
        if link and token not in _NOT_A_SECRET and token.isascii():
            return True
    return False


def _passphrase(low: str, at: int) -> bool:
    """Four or more plain words after "password:" ("correct horse battery staple")."""
    m = re.compile(_PASSPHRASE).match(low, at)
    return m is not None and _PASSPHRASE_BREAKERS.isdisjoint(m.group().split()[1:])


def _credential_token(token: str, digits_suffice: bool) -> bool:
    token = token.strip("\"'.!?()[]:;")
    if digits_suffice and len(token) >= 3 and any(c.isdigit() for c in token):
        return True  # "the alarm code is 4821"
    return (
        len(token) >= 6
        and token.isascii()
        and any(c.isalpha() for c in token)
        and any(not c.isalpha() for c in token)
        and not re.fullmatch(_NOT_A_CREDENTIAL, token)
    )


def _has_account_secret(low: str) -> bool:
    accounts = tuple(w for w in _ACCOUNT_WORDS if w in low)
    for m in re.finditer(_ACCOUNT.format(accounts=_alternation(accounts)), low) if accounts else ():
        if _credential_token(m.group(1), digits_suffice=False):
            return True
    things = tuple(w for w in _CODE_THINGS if w in low)
    if not things or not any(w in low for w in terms.CODE_WORDS):
        return False
    codes = _alternation(terms.CODE_WORDS)
    code = _CODE.format(things=_alternation(things), codes=codes)
    return any(_credential_token(m.group(1), digits_suffice=True) for m in re.finditer(code, low))


def _has_secret(text: str) -> bool:
    low = text.lower()
    return _has_zh_secret(low) or _has_en_secret(low) or _has_account_secret(low)


# Health terms: single English words are looked up in the value's words, phrases are
# searched for only when their first word is there (documentation/privacy.md).
_HEALTH_TERMS = (
    *terms.MEDICAL_PHRASES_EN,
    *terms.HEALTH_CONDITIONS_EN,
    *terms.HEALTH_CONDITION_NAMES_EN.split(),
    *terms.MEDICINES.split(),
)
# Every byte but a-z as a space: a text's runs of a-z, as re.findall("[a-z]+") finds
# them, without compiling a pattern on every write.
_A_TO_Z = bytes(c if 97 <= c <= 122 else 32 for c in range(256))


def _words(low: str) -> list[str]:
    """The runs of a-z in ``low`` (any other character, "?" once encoded, separates them)."""
    return low.encode("ascii", "replace").translate(_A_TO_Z).decode("ascii").split()


_MEDICAL_WORDS = frozenset(t for t in _HEALTH_TERMS if t.isalpha())
_MEDICAL_PHRASES = tuple((_words(t)[0], t) for t in _HEALTH_TERMS if not t.isalpha())
_MEDICAL_ZH = (*terms.MEDICAL_PHRASES_ZH.split(), *terms.MEDICINES_ZH.split())


def _has_medical(text: str) -> bool:
    if any(p in text for p in _MEDICAL_ZH):
        return True
    low = text.lower().replace("\u2019", "'")
    words = set(_words(low))
    if not words.isdisjoint(_MEDICAL_WORDS):
        return True
    return any(
        re.search(rf"(?<![a-z]){re.escape(p)}(?![a-z])", low)
        for first, p in _MEDICAL_PHRASES
        if first in words
    )


# The number detectors (numbers.py) are loaded only for a text of enough digits; they
# are called in this order, the IBAN between the ID and the card.
_TEXT_DETECTORS: tuple[tuple[str, Callable[[str, Any], bool]], ...] = (
    ("url_credentials", lambda t, n: "://" in t and bool(re.search(_URL_CREDENTIALS, t))),
    ("email", lambda t, n: _has_email(t)),
    ("api_key", lambda t, n: _has_key_prefix(t) and bool(re.search(_API_KEYS, t))),
    ("prc_id", lambda t, n: n is not None and n.prc_id()),
    ("iban", lambda t, n: _has_iban(t)),
    ("payment_card", lambda t, n: n is not None and n.card()),
    ("phone", lambda t, n: n is not None and n.phone()),
    (
        "api_key",
        lambda t, n: len(t) >= 32 and any(map(_long_token_is_secret, re.findall(_LONG_TOKEN, t))),
    ),
    ("secret", lambda t, n: _has_secret(t)),
    ("medical", lambda t, n: _has_medical(t)),
)


def sensitive_text(text: str) -> str | None:
    """The name of the first detector that matches ``text``, or None."""
    text = _normalize(text)
    # _normalize leaves only ASCII digits, and a number is made of them.
    numbers = None
    if sum(map(text.count, "0123456789")) >= _NUMBER_DIGITS_MIN:
        from .numbers import Numbers

        numbers = Numbers(text)
    for name, detect in _TEXT_DETECTORS:
        if detect(text, numbers):
            return name
    return None
