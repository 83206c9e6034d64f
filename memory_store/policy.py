"""Policy v1 as data: scopes, eligibility, caps, field rules, time cues.

This module is the single source of truth. The validator, the store, the JSON
Schemas and the documentation are all checked against it by the tests. It
holds plain data (patterns are strings, compiled where they are used) and two
lookups of it (the cap of a kind and the rows one cap counts), so that
importing it costs nothing on the read paths.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs a few ms to import; every call imports this module
if TYPE_CHECKING:
    from typing import Any

POLICY_VERSION = 1

# The keys of a memory row, in the order hosts see them (references/memory-rules.md#the-five-kinds).
ROW_KEYS: tuple[str, ...] = (
    "id",
    "scope",
    "subject_id",
    "field",
    "value",
    "source_type",
    "source_ref",
    "occurred_at",
    "confidence",
    "created_at",
    "updated_at",
)

# What a row carries about time (documentation/time.md#where-history-lives), after the keys of references/memory-rules.md#the-five-kinds: the date its
# current value became true, its past values, whether it has ended, whether it is
# a pinned milestone.
TIME_KEYS: tuple[str, ...] = ("since", "past", "ended", "pinned")
PAST_KEYS: tuple[str, ...] = ("value", "since", "until", "source_type", "past_id")
# A past value as export v2 (release 3) wrote it: no handle, and a known since.
PAST_KEYS_V2: tuple[str, ...] = PAST_KEYS[:-1]

SCOPES: tuple[str, ...] = ("user", "object", "relationship", "event", "hypothesis")
SOURCE_TYPES: tuple[str, ...] = (
    "user_explicit",
    "user_report",
    "chatlab",
    "tool",
    "assistant_inference",
)
CONFIDENCES: tuple[str, ...] = ("high", "medium", "low")
DEFAULT_CONFIDENCE = "medium"
ACTIONS: tuple[str, ...] = ("upsert", "delete", "end")
USER_SUBJECT = "user"

# The closer to a stable judgement of a person, the stricter the source.
ELIGIBILITY: dict[str, tuple[str, ...]] = {
    "user": ("user_explicit",),
    "object": ("user_explicit", "user_report"),
    "relationship": ("user_explicit", "user_report"),
    "event": ("user_explicit", "user_report", "chatlab", "tool"),
    "hypothesis": SOURCE_TYPES,
}

# Row caps per scope. "refuse": the user curates profile kinds, the system never
# drops a stable fact on its own. "prune": the least recently written rows go.
# "per": "store" counts the whole scope, "subject" counts rows of one subject.
CAPS: dict[str, dict[str, object]] = {
    "user": {"max": 30, "per": "store", "policy": "refuse"},
    "object": {"max": 15, "per": "subject", "policy": "refuse"},
    "relationship": {"max": 10, "per": "subject", "policy": "refuse"},
    "event": {"max": 20, "per": "subject", "policy": "prune"},
    "hypothesis": {"max": 5, "per": "subject", "policy": "prune"},
}
TOTAL_ROWS_MAX = 200


def cap_of(scope: str) -> int:
    """The most rows one cap of ``scope`` holds."""
    return int(CAPS[scope]["max"])  # type: ignore[call-overload]


def cap_group(row: dict[str, Any]) -> tuple[str, str | None]:
    """The rows one cap counts with ``row``: its scope, per subject or store-wide."""
    per_subject = CAPS[row["scope"]]["per"] == "subject"
    return (row["scope"], row["subject_id"] if per_subject else None)


# When the whole store is over TOTAL_ROWS_MAX these kinds are pruned, oldest first.
GLOBAL_PRUNE_SCOPES: tuple[str, ...] = ("event", "hypothesis")
HISTORY_MAX = 20
DELTAS_PER_APPLY_MAX = 20
INPUT_BYTES_MAX = 64 * 1024
IMPORT_BYTES_MAX = 1024 * 1024
VALUE_CHARS_MAX = 200
SOURCE_REF_CHARS_MAX = 200

# Time (documentation/time.md#where-history-lives). Rows of these scopes keep their past values and can end;
# events and hypotheses are corrected in place.
HISTORY_SCOPES: tuple[str, ...] = ("user", "object", "relationship")
PAST_PER_ROW_MAX = 3
PAST_STORE_MAX = 60
PINNED_PER_SUBJECT_MAX = 5
STALE_HYPOTHESIS_DAYS = 60
NEAR_CAP_SHARE = 0.8

# A question about the past or about time: past values and ended rows then rank
# with current rows by the same relevance. Chinese cues are found as substrings of
# the question, English ones as words (after the same suffix folding as the
# ranking: "changed" is "change").
TIME_CUES_ZH = (  # separated by spaces
    "以前 之前 曾经 原来 原先 当初 那时 过去 从前 早先 后来 什么时候 何时 哪天 哪一天 "
    "几号 几月 哪年 哪一年 多久 多长时间 多少年 多少天 第一次 最早 最初 一开始 开始 "
    "变 换 改 不再 已经不 以后 之后 那年 那天 当时 那会 那阵 那段 那几 时候 期间"
)
TIME_CUES_EN = (  # separated by spaces
    "before earlier previously previous used formerly former originally original when "
    "long first ago since changed change switch switched anymore longer past history "
    "until date day year month start started began begin ended end stop stopped quit "
    "after while during back time"
)
# A question that names the present: it asks about now, whatever else it mentions
# (documentation/time.md#as-of-a-time-anchors-and---as-of: no anchor in "what does she do now that she changed jobs?").
NOW_CUES_ZH = "现在 目前 如今 眼下"  # separated by spaces
NOW_CUES_EN = "now currently nowadays"
# A question asking for a date asks about a time; it does not name one (no anchor).
DATE_QUESTIONS_ZH = "什么时候 何时 哪天 哪一天 几号 几月 哪年 哪一年 多久 多长时间 多少年 多少天"
DATE_QUESTIONS_EN = "when"  # as the question's first word: "when did we meet?"

# A question about something ending ("我们什么时候结束异地的？", "when did she quit?"): the
# last value of a row that ended answers it before values that were merely replaced.
END_CUES_ZH = "结束 不再 停止 停了 辞职 离职 戒掉 戒了 退出 分开 没再"  # separated by spaces
END_CUES_EN = "end ended ending stop stopped quit quitting finish finished"

# Relative time words that a stored value should not keep (tidy: the absolute date
# follows from the row's `since`).
RELATIVE_TIME_WORDS_ZH = (  # separated by spaces
    "昨天 今天 明天 前天 后天 大前天 上周 下周 这周 本周 上个月 下个月 这个月 本月 "
    "去年 今年 明年 前年 刚才 刚刚 上星期 下星期 这星期 上礼拜 下礼拜 今晚 昨晚 明晚"
)
RELATIVE_TIME_WORDS_EN: tuple[str, ...] = (
    "yesterday",
    "today",
    "tomorrow",
    "tonight",
    "last week",
    "next week",
    "this week",
    "last month",
    "next month",
    "this month",
    "last year",
    "next year",
    "this year",
    "just now",
    "recently",
    "the other day",
)

# Same concept, two fields (documentation/time.md#same-concept-two-rows-related "Same concept, two rows"): a field name's
# words (split on "_") that name the concept. Two current rows of one scope and
# subject whose fields name one concept are related: a change may have been
# written under another field. The concepts are the alias table's field groups
# (aliases.py) that people change over time, named by the words field names use.
FIELD_CONCEPTS: dict[str, tuple[str, ...]] = {
    "job": (
        "job",
        "jobs",
        "work",
        "occupation",
        "career",
        "profession",
        "employer",
        "workplace",
        "employment",
        "position",
        "company",
    ),
    "place": (
        "city",
        "location",
        "lives",
        "live",
        "living",
        "residence",
        "resides",
        "reside",
        "based",
        "whereabouts",
        "district",
        "neighborhood",
        "neighbourhood",
        "area",
    ),
    "school": ("school", "education", "university", "college", "major", "degree", "studies"),
    "stage": ("stage", "status", "relationship_status"),
    "partner": ("partner", "boyfriend", "girlfriend", "spouse", "husband", "wife", "dating"),
    "goal": ("goal", "goals", "aim", "objective"),
    "home": ("home", "apartment", "housing", "house", "flat"),
}

# A field's leading kind word says what sort of claim it makes about its topic
# (references/memory-rules.md, "Field naming conventions"): ``goal_work`` is a goal
# about work, ``planned_trip`` a plan, ``past_job`` a job no longer held. Two fields of
# one concept but of different kinds are not one concept (documentation/time.md): a
# goal never ends the job. No kind word (or ``fact_``, ``current_``) is a fact.
FIELD_KINDS: dict[str, tuple[str, ...]] = {
    "goal": ("goal", "goals", "target", "aim"),
    "plan": ("planned", "plan", "plans", "next", "future", "upcoming"),
    "wish": ("wish", "wishes", "hope", "hopes", "want", "wants", "wanted", "dream", "ideal"),
    "preference": ("preference", "preferences", "preferred", "prefers", "favorite", "favourite"),
    "past": ("past", "former", "previous", "prior", "ex", "old"),
    "agreement": ("agreement", "agreements"),
    "boundary": ("boundary", "boundaries"),
    "constraint": ("constraint", "constraints"),
}

# Words that end a field name without being its head (``lives_in``: lives), and
# words that only qualify the word before them (``job_title``: a job). documentation/time.md#same-concept-two-rows-related.
FIELD_TRAILING_WORDS: tuple[str, ...] = ("in", "at", "on", "for", "to", "with", "from", "now")
FIELD_QUALIFIER_TAILS: tuple[str, ...] = ("title", "role", "detail", "info", "description", "name")

# Context recall.
CONTEXT_EVENTS = 8
CONTEXT_ROSTER_MAX = 50
CONTEXT_MAX_CHARS_MIN = 500
CONTEXT_MAX_CHARS_MAX = 8000
CONTEXT_MAX_CHARS_DEFAULT = 4000
QUERY_CHARS_MAX = 500

# search: rows that match a question, across subjects.
SEARCH_LIMIT_MIN = 1
SEARCH_LIMIT_MAX = 50
SEARCH_LIMIT_DEFAULT = 10
SEARCH_MAX_CHARS_DEFAULT = 2000

# Field syntax (full matches).
SUBJECT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
FIELD_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"
# The offset after an event's time: Z, or the offsets clocks use (-12:00 to +14:00, within
# ±14:59). One rule for what apply takes and what import takes back (documentation/commands.md#import-an-export-comes-back).
OFFSET_PATTERN = r"Z|[+-](?:0[0-9]|1[0-4]):[0-5][0-9]"

# Conventional field names; not enforced, documented in references/memory-rules.md.
CONVENTIONAL_FIELDS: dict[str, tuple[str, ...]] = {
    "user": ("goal", "preference", "boundary", "communication_style", "mbti", "self_score"),
    "object": ("display_label", "mbti", "subjective_score", "fact"),
    "relationship": ("stage", "agreement", "constraint", "next_goal", "planned_activity"),
    "event": ("invitation", "promise_kept", "conflict", "repair", "milestone"),
    "hypothesis": ("attachment_style", "intent", "interest_level"),
}

# Value detectors, by the name a refusal gives in details.detector; the patterns
# and checksums are in sensitive.py.
SENSITIVE_VALUE_DETECTORS: tuple[str, ...] = (
    "email",
    "phone",
    "prc_id",
    "payment_card",
    "iban",
    "api_key",
    "url_credentials",
    "secret",
    "medical",
)
# The words and names those detectors look for are in sensitive_terms.py.
