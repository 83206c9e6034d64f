"""Relevance of memories to the user's question (documentation/recall.md#the-method): terms, scoring, the
query's rules and the alias table. In process and fast; the ordering that
``context --query`` builds from the scores is tested through the CLI below."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, apply, delta, fails, ok

from memory_store.errors import EXIT_STATUS, MemoryStoreError
from memory_store.recall import terms
from memory_store.recall.aliases import GROUPS, MEMBERS
from memory_store.recall.relevance import QUERY_CHARS_MAX, check_query, score_rows
from memory_store.recall.terms import stem_of as _stem


def row(value: str, field: str = "fact", scope: str = "object", **extra: str) -> dict[str, str]:
    return {"scope": scope, "subject_id": "obj-a", "field": field, "value": value, **extra}


def scores(query: str, *values: str) -> list[float]:
    return score_rows(query, [row(v) for v in values])


def best(query: str, *values: str) -> str:
    """The value that scores highest; fails when nothing scores."""
    result = scores(query, *values)
    assert max(result) > 0, (query, result)
    return values[result.index(max(result))]


FILLER = ("周末去看了一场电影", "We went hiking in the hills", "他喜欢听民谣", "likes quiet cafes")


# ---------------------------------------------------------------------------
# terms


def test_english_words_match_whatever_the_case() -> None:
    assert best("Where does she WORK now?", "she works at a bakery", *FILLER) == (
        "she works at a bakery"
    )
    assert scores("BAKERY", "Bakery on Main Street", "a library")[0] > 0


@pytest.mark.parametrize(
    ("forms", "stem"),
    [
        (("work", "works", "worked", "working"), "work"),
        (("plan", "plans", "planned", "planning"), "plan"),
        (("study", "studies", "studied"), "study"),
        (("love", "loves", "loved", "loving"), "lov"),
        (("go", "goes", "went", "gone"), "go"),
        (("adopt", "adoption", "adopted"), "adopt"),
    ],
)
def test_suffix_folding(forms: tuple[str, ...], stem: str) -> None:
    assert {_stem(f) for f in forms} == {stem}


def test_a_folded_word_matches_its_other_forms() -> None:
    assert best("Did he go camping?", "He went camping in June", *FILLER) == (
        "He went camping in June"
    )
    assert best("her studies", "she studied law", *FILLER) == "she studied law"


def test_every_irregular_base_folds_to_a_prefix_of_itself() -> None:
    # terms.search_keys looks only at bases that begin with the stem's key.
    for base in set(terms._IRREGULAR.values()):
        assert base.startswith(terms.search_keys(_stem(base))[0]), base


def test_the_words_table_keeps_ascii_letters_digits_and_the_separator() -> None:
    kept = {b for b in range(256) if terms._WORDS_ONLY[b] == b}
    assert kept == {0, 0x20, *(b for b in range(128) if chr(b).isalnum())}
    assert all(terms._WORDS_ONLY[b] in (b, 0x20) for b in range(256))


def test_chinese_alias_lookup_equals_a_scan_of_every_term() -> None:
    # The units, read from the table here: every group's heads, then every cluster.
    units = [group[3].split() for group in GROUPS]
    units += [c.split() if c != "-" else [] for _, zh in MEMBERS.values() for c in zh.split("; ")]
    every = [term for unit in units for term in unit]
    pieces = [*every, *"的了吗我你他 ", *(a + b for a, b in zip(every, every[7:], strict=False))]
    for i, text in enumerate(pieces):
        text = "问" + text + pieces[(i * 31) % len(pieces)]
        plain = terms.without_le(text)
        expected = [u for u, unit in enumerate(units) if any(t in plain for t in unit)]
        assert terms.units_named([], "", text) == expected, text
        # A group named by a head is named once, whatever members it names too.
        heads = {terms.unit_of(u)[0] for u in expected if terms.unit_of(u)[1] < 0}
        concepts = terms.groups_of([], "", text)
        assert [g for g, k in concepts if k < 0] == sorted(heads), text
        assert all(g not in heads for g, k in concepts if k >= 0), text


def test_chinese_matches_by_characters_and_bigrams() -> None:
    s = scores("他的职业是什么", "他的职业是护士", "她喜欢爬山", "今天天气很好")
    assert s[0] > 0 and s[1] == 0 and s[2] == 0
    # A bigram shared counts more than its two characters apart.
    shared = scores("看电影", "周末一起看电影", "电台里放影片")
    assert shared[0] > shared[1] > 0


def test_mixed_chinese_and_english() -> None:
    assert best("她的MBTI是什么", "MBTI是INFJ", *FILLER) == "MBTI是INFJ"
    assert best("他在Google工作吗", "在Google做工程师", *FILLER) == "在Google做工程师"
    # Digits glued to Chinese are words of their own.
    assert best("打了82分", "我给她打了82/100", *FILLER) == "我给她打了82/100"


def test_full_width_text_folds_to_ascii() -> None:
    assert unicodedata.normalize("NFKC", "ＡＢＣ，１２３") == "ABC,123"
    assert best("ＩＮＦＪ", "mbti is infj", *FILLER) == "mbti is infj"
    assert best("infj", "ＭＢＴＩ：ＩＮＦＪ", *FILLER) == "ＭＢＴＩ：ＩＮＦＪ"
    assert best("１２３", "room 123", *FILLER) == "room 123"


def test_ideographs_need_no_folding() -> None:
    # terms.folded lowers ASCII-and-ideograph text as bytes, without unicodedata: true
    # only if no character U+4000-U+9FFF has another NFKC form or a case.
    block = "".join(map(chr, range(0x4000, 0xA000)))
    assert unicodedata.is_normalized("NFKC", block)
    assert block.lower() == block == block.upper()


@pytest.mark.parametrize(
    "text",
    [
        "周末一起去看了电影 we talked about the TRIP",
        "ＭＢＴＩ是ＩＮＦＪ",  # full-width letters
        "她住在　上海",  # the ideographic space
        "ｶﾀｶﾅ 和 カタカナ",  # half-width kana
        "等等…… 再说",  # the ellipsis
        "İstanbul 和 ΣΊΣΥΦΟΣ",  # letters whose lowercase is longer or differs
        "Café 咖啡 cafe\u0301",  # a combining accent
        "한국어 日本語 中文",
        "\U00020000 扩展B",  # beyond the BMP
        "上海" * 5000,  # longer than the short way takes
    ],
)
def test_folding_is_nfkc_then_lowercase(text: str) -> None:
    expected = unicodedata.normalize("NFKC", text).lower()
    assert terms.folded(text) == (expected, expected.encode("utf-8", "surrogatepass"))


def test_stop_words_alone_match_nothing() -> None:
    assert scores("What is it? When was the?", "what is it", "the one") == [0.0, 0.0]
    assert scores("他是什么？的了吗", "他是我的朋友", "什么都好") == [0.0, 0.0]


def test_unrelated_text_scores_zero() -> None:
    assert scores("跑步", "家乡在青岛") == [0.0]
    # Two members of one group are not synonyms (documentation/recall.md#the-alias-table-widens-the-question-not-a-field): for search, running is
    # no reading; the group's own name is what reaches every hobby. context, filling one
    # person's budget, lets a member reach its siblings.
    assert score_rows("跑步", [row("喜欢看书")], False) == [0.0]
    assert score_rows("她有什么爱好", [row("喜欢看书")], False)[0] > 0
    assert scores("跑步", "喜欢看书")[0] > 0
    assert scores("violin lessons", "she adopted a cat") == [0.0]
    assert score_rows("anything", []) == []


def test_field_name_parts_are_terms() -> None:
    rows = [
        row("下周日去美术馆看画展", field="planned_activity", scope="relationship"),
        row("双方已确认进入排他约会", field="stage", scope="relationship"),
    ]
    got = score_rows("what is the next planned activity?", rows)
    assert got[0] > 0 and got[1] == 0


def test_a_hypothesis_is_scored_with_its_evidence() -> None:
    hypothesis = row(
        "也许想确认我的态度", field="intent", scope="hypothesis", source_ref="turn:9 问起房租"
    )
    fact = row("问起房租", field="fact", source_ref="turn:9 问起房租")
    got = score_rows("房租", [hypothesis, fact, row("无关")])
    assert got[0] > 0 and got[1] > 0
    # Only a hypothesis's evidence is its text: a fact's source_ref is not.
    assert score_rows("turn", [fact]) == [0.0]


def test_the_year_or_month_of_an_event_is_a_term() -> None:
    rows = [
        row("went to the beach", scope="event", occurred_at="2023-07-08"),
        row("went to the beach", scope="event", occurred_at="2022-03-01"),
        row("went to the beach", scope="event", occurred_at="2023-01-15"),
    ]
    july = score_rows("Where did she go in July 2023?", rows)
    assert july[0] > july[2] > july[1] > 0
    assert score_rows("她7月份在做什么", rows)[0] > 0
    # "may" the verb is no month; May 2022 is.
    assert score_rows("she may go", [row("x", scope="event", occurred_at="2022-05-01")]) == [0.0]
    may = [row("x", scope="event", occurred_at="2022-05-01")]
    assert score_rows("in May 2022", may)[0] > 0


# ---------------------------------------------------------------------------
# aliases


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("她生日是哪天？", "birthday is in March"),  # zh -> en
        ("When is her birthday?", "生日在三月"),  # en -> zh
        ("她老公是干什么工作的？", "works night shifts as a nurse"),
        ("What does he do for a living?", "在一家银行工作"),
        ("她有没有过敏的东西", "allergic to peanuts"),
        ("Is he allergic to anything?", "一碰花粉就过敏"),
        ("下周请她吃寿司行吗", "她不吃虾和螃蟹"),  # zh <-> zh: a kind of food
        ("他们上次吵架是为什么？", "两人最近矛盾很多"),
        ("did they ever fight?", "上周因为迟到起了冲突"),
        ("打算哪天见家长？", "planning to meet her parents at new year"),
        ("Does she have any siblings?", "有个弟弟在读高中"),
        ("他养宠物吗？", "has a cat named Mochi"),
        ("where did they travel?", "国庆去了趟成都旅行"),
        ("他们最近见面没有", "上周末见了面"),  # 了 inside a separable verb
        ("他后来道歉没有", "第二天他就道了歉"),
    ],
)
def test_aliases_join_words_that_share_no_term(query: str, value: str) -> None:
    unrelated = ("最近换了新手机", "has a blue car", "阳台种了番茄", "owns a red scooter")
    got = score_rows(query, [row(value), *(row(v) for v in unrelated)])
    assert got[0] > 0 and got[0] == max(got), (query, got)


def test_an_alias_named_by_a_field_counts() -> None:
    job = row("在医院做护士长", field="fact_job")
    other = row("家乡在青岛", field="fact_hometown")
    got = score_rows("What does she do for a living?", [job, other])
    assert got[0] > 0 and got[1] == 0


def test_a_field_counts_only_when_the_question_asks_about_it() -> None:
    # documentation/recall.md#the-alias-table-widens-the-question-not-a-field: a member word (hiking, 钢琴) reaches its synonyms, not every row in
    # hobby; a head (hobbies, 爱好) does. The same in context and search.
    piano = row("plays the piano", field="hobby")
    succulents = row("在阳台养了一排多肉", field="hobby")
    for for_context in (True, False):
        assert score_rows("hiking", [succulents, row("x")], for_context) == [0.0, 0.0]
        assert score_rows("爱好", [succulents, row("x")], for_context)[0] > 0
        assert score_rows("her hobbies?", [succulents, row("x")], for_context)[0] > 0
        assert score_rows("钢琴", [piano, row("x")], for_context)[0] > 0
    # A field that names the member itself counts.
    assert score_rows("爬山", [row("每周六", field="hiking"), row("x")], False)[0] > 0


def test_words_of_liking_count_only_beside_another_term() -> None:
    rows = [row("周末常去徒步", field="hobby"), row("喜欢吃火锅", field="preference_food")]
    assert score_rows("谁喜欢爬山", rows, False) == [
        pytest.approx(score_rows("爬山", rows, False)[0]),
        0.0,
    ]
    assert score_rows("她喜欢什么", rows, False)[1] > 0  # nothing else to go by
    assert score_rows("who likes hiking?", [row("likes spicy food"), row("hiking")], False)[0] == 0


def test_idf_a_rare_term_counts_more_than_a_common_one() -> None:
    values = [f"Anna went to the park, day {i}" for i in range(8)] + ["Anna adopted a kitten"]
    got = scores("Anna kitten", *values)
    assert got[-1] == max(got)
    assert got[-1] > 2 * got[0] > 0  # "anna" is in every row: it says little


def test_length_normalization_prefers_the_shorter_row_for_the_same_match() -> None:
    got = scores("pottery", "pottery class", "pottery " + "and many other things " * 6)
    assert got[0] > got[1] > 0


# ---------------------------------------------------------------------------
# the alias table is data with rules (aliases.py's docstring)

_CJK = re.compile(r"[\u3400-\u9fff]")


def test_alias_groups_follow_their_rules() -> None:
    names = [name for name, *_ in GROUPS]
    assert len(names) == len(set(names))
    assert set(MEMBERS) <= set(names)
    for name, words, phrases, chinese in GROUPS:
        members = MEMBERS.get(name)
        assert re.fullmatch(r"[a-z][a-z_]*", name), name
        assert words or phrases or chinese or members, name
        for word in words.split():
            assert re.fullmatch(r"[a-z0-9]+", word), (name, word)
        for phrase in phrases.split("; ") if phrases else []:
            assert re.fullmatch(r"[a-z0-9]+( [a-z0-9]+)+", phrase), (name, phrase)
        for text in (words, chinese, *(members or ())):  # one space between terms
            assert text == " ".join(text.split()), name
        for term in chinese.split():
            _chinese_term(name, term)
        english, zh = members or ("", "")
        clusters = list(zip(english.split("; "), zh.split("; "), strict=True)) if members else []
        for en_terms, zh_terms in clusters:
            assert (en_terms, zh_terms) != ("-", "-"), name
            for item in en_terms.split() if en_terms != "-" else []:
                # a word, or a phrase with "_" between its words
                assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", item), (name, item)
            for item in zh_terms.split() if zh_terms != "-" else []:
                _chinese_term(name, item)
        # No term twice in one group.
        every = words.split() + (phrases.split("; ") if phrases else []) + chinese.split()
        every += [t for pair in clusters for side in pair for t in side.split() if t != "-"]
        assert len(every) == len(set(every)), name


def _chinese_term(name: str, term: str) -> None:
    assert _CJK.search(term) and not any(c.isascii() for c in term), (name, term)
    assert unicodedata.normalize("NFKC", term).lower() == term, (name, term)


# ---------------------------------------------------------------------------
# the query


def _fails(text: str, *fragments: str) -> MemoryStoreError:
    with pytest.raises(MemoryStoreError) as info:
        check_query(text)
    exc = info.value
    assert exc.code == "INVALID_ARGUMENTS" and EXIT_STATUS[exc.code] == 2
    assert exc.details["argument"] == "query"
    for fragment in fragments:
        assert fragment in exc.message, exc.message
    return exc


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   \t\n ", "empty"),
        ("\u3000", "empty"),  # ideographic space is whitespace too
        ("x" * (QUERY_CHARS_MAX + 1), "at most 500"),
        (" " + "好" * (QUERY_CHARS_MAX + 1) + " ", "at most 500"),
        ("hello\x00", "control character U+0000"),
        ("hello\x1b[31m", "control character U+001B"),
        ("a\x7fb", "control character U+007F"),
        ("a\x85b", "control character U+0085"),
        ("abc\u202edef", "bidi control U+202E"),
        ("abc\u2066def", "bidi control U+2066"),
        ("line\u2028break", "line or paragraph separator U+2028"),
        ("para\u2029break", "line or paragraph separator U+2029"),
        ("bad \udcff byte", "lone surrogate U+DCFF"),
    ],
)
def test_bad_queries_are_refused_with_the_rule(text: str, fragment: str) -> None:
    _fails(text, fragment)


def test_good_queries_are_trimmed() -> None:
    assert check_query("  他喜欢吃什么？ \n") == "他喜欢吃什么？"
    exactly = "问" * QUERY_CHARS_MAX
    assert check_query(f"\t {exactly} \n") == exactly
    assert check_query("tab\tand\nnewline inside") == "tab\tand\nnewline inside"
    assert check_query("😀 emoji and ＡＢＣ") == "😀 emoji and ＡＢＣ"


def test_check_query_refuses_what_is_not_text() -> None:
    _fails(b"bytes")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# context --query through the CLI (the ordering (documentation/recall.md#what-context---query-returns))


def _context(*args: str) -> dict[str, Any]:
    return ok("context", "--subject-id", "obj-a", *args)


def _events(days: range, value: str = "普通的一天") -> list[dict[str, Any]]:
    return [
        delta("event", field="milestone", value=f"{value} {d}", occurred_at=f"2026-03-{d:02d}")
        for d in days
    ]


def test_query_puts_the_label_first_then_the_matches_then_the_priority_order(
    enabled: Path,
) -> None:
    apply(
        delta("user", field="goal", value="想找一段长期关系"),
        delta(field="display_label", value="小A"),
        delta(field="fact_job", value="在银行做柜员"),
        delta(field="mbti", value="ENFP"),
        delta("relationship", field="stage", value="刚认识两周"),
        delta("hypothesis", field="intent", value="可能只想交朋友"),
        *_events(range(1, 4)),
    )
    plain = _context()
    assert plain["ranked_by"] == "priority" and plain["query"] is None
    data = _context("--query", "  她从事什么职业？ ")
    assert data["ranked_by"] == "relevance"
    assert data["query"] == "她从事什么职业？"
    fields = [m["field"] for m in data["memories"]]
    assert fields[:2] == ["display_label", "fact_job"]
    # The rest: release 1's order, unchanged.
    rest = [m["field"] for m in plain["memories"] if m["field"] not in fields[:2]]
    assert fields[2:] == rest
    assert len(fields) == len(plain["memories"])


def test_query_reaches_an_event_older_than_the_eight_newest(enabled: Path) -> None:
    apply(
        delta(field="display_label", value="小A"),
        *_events(range(1, 2), "一起去西湖划船"),
        *_events(range(2, 11)),
    )
    oldest = "一起去西湖划船 1"
    assert oldest not in [m["value"] for m in _context()["memories"]]
    values = [m["value"] for m in _context("--query", "划船那次是哪年？")["memories"]]
    assert values[:2] == ["小A", oldest]
    # Unmatched events stay limited to the 8 newest, as without a query.
    assert len([v for v in values if v.startswith("普通的一天")]) == 8


def test_query_without_a_match_keeps_the_priority_order(enabled: Path) -> None:
    apply(delta(field="display_label", value="小A"), *_events(range(1, 11)))
    plain = _context()["memories"]
    data = _context("--query", "violin")
    assert data["ranked_by"] == "relevance"
    assert data["memories"] == plain


def test_query_results_are_cut_to_the_budget_from_the_end(enabled: Path) -> None:
    apply(
        delta(field="display_label", value="小A"),
        delta(field="fact_pet", value="家里有只橘猫叫团子"),
        *[delta(field=f"fact_{i}", value="很长的一段无关描述" * 10) for i in range(6)],
    )
    data = _context("--max-chars", "500", "--query", "她养猫吗")
    memories = data["memories"]
    assert [m["field"] for m in memories[:2]] == ["display_label", "fact_pet"]
    assert data["truncated"] is True and data["omitted"] == 8 - len(memories)
    assert len(json.dumps(memories, ensure_ascii=False)) <= 500


@pytest.mark.parametrize(
    "query",
    ["", "   ", "x" * (QUERY_CHARS_MAX + 1), "a\u202eb", "a\x1bb"],
)
def test_a_bad_query_is_a_bad_command_line(query: str) -> None:
    # Checked with the command line, before the store is even looked for.
    result = fails("INVALID_ARGUMENTS", "context", f"--query={query}")
    assert "query" in result.error["message"] or "--query" in result.error["message"]


# ---------------------------------------------------------------------------
# references/recall-aliases.md lists exactly the code's groups


def test_the_alias_reference_is_the_code_s_table() -> None:
    import importlib.util

    root = ROOT
    spec = importlib.util.spec_from_file_location(
        "gen_recall_aliases", root / "scripts" / "gen_recall_aliases.py"
    )
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = (root / "references" / "recall-aliases.md").read_text(encoding="utf-8")
    assert text == gen.render(), "stale: run python scripts/gen_recall_aliases.py"
    # And, read back from the page itself, the same groups, heads and members.
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    documented = {}
    for line in rows:
        name, heads, members = (cell.strip() for cell in line.strip("|").split("|"))
        documented[name.strip("`")] = (set(heads.split(", ")) - {""}, members)
    expected = {
        name: (
            set(words.split()) | ({*phrases.split("; ")} - {""}) | set(chinese.split()),
            gen.members_text(*MEMBERS.get(name, ("", ""))),
        )
        for name, words, phrases, chinese in GROUPS
    }
    assert documented == expected
