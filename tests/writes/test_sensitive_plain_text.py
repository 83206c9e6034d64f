"""The sensitive-content detectors read most values without unicodedata
(documentation/performance.md): ASCII, ideographs, Chinese punctuation and full-width
forms are normalized by table, and must come out exactly as NFKC, the removal of
invisible characters and the digits of every script make them."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_store.writes import sensitive


def by_unicodedata(text: str) -> str:
    """The detectors' normalization the long way, as it was before the tables."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(
        str(unicodedata.decimal(c)) if c.isdecimal() else c
        for c in text
        if unicodedata.category(c) != "Cf"
    )
    return text.translate(sensitive._DASHES)


TABLED = (
    [chr(c) for c in range(0x80)]
    + [chr(c) for c in range(0x4000, 0xA000)]
    + [chr(c) for c in sensitive._WIDE]
    + [chr(c) for c in sensitive._KEPT]
)
# Characters that need unicodedata, to mix in: an accent that composes, invisible
# ones, dashes, other scripts' digits, the ellipsis, compatibility ideographs, kana.
OTHERS = list("\u0301\u200b\u00ad\ufeff\u2013\u2212١१…\uf900ｶéⅫ")


def test_every_tabled_character_reads_as_with_unicodedata() -> None:
    for c in TABLED:
        assert sensitive._normalize(c) == by_unicodedata(c), hex(ord(c))


def test_tabled_text_as_a_whole_reads_as_with_unicodedata() -> None:
    # Nothing in the tables composes with a neighbour: whole texts agree too.
    block = "".join(TABLED)
    assert sensitive._normalize(block) == by_unicodedata(block)


@settings(max_examples=1500, deadline=None, database=None)
@given(st.text(st.sampled_from(TABLED[:200] + TABLED[-200:] + OTHERS), max_size=40))
def test_mixed_text_reads_as_with_unicodedata(text: str) -> None:
    assert sensitive._normalize(text) == by_unicodedata(text)


@settings(max_examples=1000, deadline=None, database=None)
@given(st.text(max_size=40))
def test_any_text_reads_as_with_unicodedata(text: str) -> None:
    assert sensitive._normalize(text) == by_unicodedata(text)


@settings(max_examples=1000, deadline=None, database=None)
@given(st.text(st.sampled_from("abzAZ09 -'é中？\udc80"), max_size=40) | st.text(max_size=40))
def test_words_are_the_runs_of_a_to_z(text: str) -> None:
    assert sensitive._words(text) == re.findall("[a-z]+", text)


@pytest.mark.parametrize(
    ("text", "loaded"),
    [
        ("周末一起去看了电影，之后在河边散步（很久）：ＯＫ！", False),
        ("we talked about the trip, 1:30 pm", False),
        ("Café au lait", True),
    ],
)
def test_unicodedata_is_loaded_only_for_text_that_needs_it(text: str, loaded: bool) -> None:
    probe = (
        "import sys\n"
        "from memory_store.writes.sensitive import sensitive_text\n"
        f"assert sensitive_text({text!r}) is None\n"
        "print('unicodedata' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(loaded)
