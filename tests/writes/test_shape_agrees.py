"""`apply` checks a delta's shape without jsonschema (writes/shape.py); jsonschema stays the
reference, and the two agree on every accept and refuse, on the code, the path and the words.

The suite's own deltas are all checked both ways as they pass (tests/conftest.py); here,
the examples of the documentation's rules, and generated deltas: at least 1,000 on every
run, 10,000 in the slow run (``pytest -m slow``). Why: documentation/performance.md. And
the refusal that once said "delta is invalid (None)", through the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import ROOT, delta, fails, ok
from support.schema_reference import outcome, reference_error

from memory_store.writes import shape
from memory_store.writes.validation import normalize_delta  # the real one, not the wrapped

GENERATOR = ROOT / "scripts" / "gen_delta_checks.py"

# Per key, values a model might send: right ones, and wrong ones of every kind the
# schema tells apart (type, pattern, length, case, booleans that are numbers).
ANY_WRONG = st.sampled_from([None, 0, 1, 1.5, True, False, [], {}, ["x"], {"a": 1}, ""])
TEXT = st.sampled_from(["x", " Hangzhou ", "  ", "a" * 200, "a" * 201, "杭州", "tab\there"])
VALUES: dict[str, Any] = {
    "action": st.sampled_from(["upsert", "delete", "end", "Upsert", "remove"]),
    "id": st.sampled_from(
        ["m-0123456789abcdef", "m-0123456789ABCDEF", "m-1", "p-0123456789abcdef"]
    ),
    "past_id": st.sampled_from(["p-0123456789abcdef", "p-1", "m-0123456789abcdef"]),
    "scope": st.sampled_from(["user", "object", "relationship", "event", "hypothesis", "User"]),
    "subject_id": st.sampled_from(
        ["user", "obj-a", "User", "uSeR", "小林", "obj a", "-a", "a" * 64, "a" * 65, "obj-a\n"]
    ),
    "field": st.sampled_from(
        ["home_city", "display_label", "Home", "1st", "a" * 64, "a" * 65, "goal_work\n"]
    ),
    "value": TEXT,
    "source_type": st.sampled_from(
        ["user_explicit", "user_report", "chatlab", "tool", "assistant_inference", "user"]
    ),
    "source_ref": TEXT,
    "occurred_at": st.sampled_from(
        [
            "2026-08-02",
            "2026-02-30",
            "2026-08-02T14:30+08:00",
            "2026-08-02T14:30:05.123Z",
            "2026-08-02T14:30+15:00",
            "2026-8-2",
            "last Saturday",
            "2026-08-02\n",
        ]
    ),
    "confidence": st.sampled_from(["high", "medium", "low", "HIGH"]),
    "sensitive": st.booleans(),
    "correction": st.booleans(),
    "replaces": st.sampled_from(["m-0123456789abcdef", "x"]),
    "pinned": st.booleans(),
    "extra": st.just("x"),
    "Scope": st.just("user"),
}


def same_outcome(delta: dict[str, Any]) -> None:
    fast = shape.first_error(delta)
    ref = reference_error(delta)
    assert (fast is None) == (ref is None), (delta, fast and fast.validator, ref and ref.message)
    if fast is not None:
        assert (fast.validator, list(fast.absolute_path), fast.key) == (
            ref.validator,
            list(ref.absolute_path),
            ref.key,
        ), delta
    # and through the product's whole check: code, path and words
    got = outcome(normalize_delta, delta, 3, "$.deltas[3]")
    assert got == outcome(normalize_delta, delta, 3, "$.deltas[3]", first_error=reference_error), (
        delta
    )
    if got[0] == "INVALID_DELTA":  # every refusal names its key and rule, never "(None)"
        message, details = got[1]
        assert "invalid (" not in message and "None" not in message, (delta, message)
        key = details["path"].removeprefix("$.deltas[3]").lstrip(".")
        assert key in message, (delta, message)


def test_the_generated_module_is_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


EXAMPLES = [
    {"scope": "user", "field": "home_city", "value": "杭州", "source_type": "user_explicit"},
    {
        "scope": "hypothesis",
        "subject_id": "obj-a",
        "field": "attachment_style",
        "value": "avoidant",
        "source_type": "assistant_inference",
        "confidence": "low",
        "source_ref": "turn:12",
    },
    {
        "scope": "event",
        "subject_id": "obj-a",
        "field": "first_date",
        "value": "看电影",
        "source_type": "user_report",
        "occurred_at": "2026-08-02T20:00+08:00",
        "pinned": True,
    },
    {"action": "delete", "id": "m-0123456789abcdef"},
    {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "mbti"},
    {"action": "end", "scope": "user", "field": "job", "occurred_at": "2026-01-01"},
    {"action": "end", "id": "m-0123456789abcdef"},
    {"action": "delete", "past_id": "p-0123456789abcdef"},
    {"past_id": "p-0123456789abcdef", "value": "苏州", "correction": True},
    {"past_id": "p-0123456789abcdef", "value": "苏州", "correction": True, "source_ref": "t"},
    {"past_id": "p-0123456789abcdef", "value": "苏州", "correction": True, "scope": "user"},
    {"action": "delete", "past_id": "p-0123456789abcdef", "source_type": "user_explicit"},
    {"action": "delete", "id": "m-0123456789abcdef", "field": "job"},
    {"action": "end", "scope": "event", "subject_id": "obj-a", "field": "x"},
    {"scope": "user", "field": "job", "value": "x", "source_type": "user_explicit", "pinned": True},
    {"scope": "object", "subject_id": "USER", "field": "job", "value": "x", "source_type": "tool"},
    {"scope": "event", "subject_id": "obj-a", "field": "x", "value": "y", "source_type": "tool"},
    {"id": "m-0123456789abcdef", "value": "x"},
    {},
    {"scope": "user"},
    {"action": "delete"},
    {"action": "end"},
]


# Real deltas of each kind (the first EXAMPLES, below), changed a little: a key's value
# redrawn (right or wrong), a key dropped, a key added.
@st.composite
def deltas(draw: st.DrawFn) -> dict[str, Any]:
    out = dict(draw(st.sampled_from(EXAMPLES[:9])))
    for key in list(out):
        roll = draw(st.integers(0, 19))
        if roll == 0:
            del out[key]
        elif roll <= 2:
            out[key] = draw(ANY_WRONG)
        elif roll <= 6:
            out[key] = draw(VALUES[key])
    for key in draw(st.lists(st.sampled_from(sorted(VALUES)), max_size=2)):
        out[key] = draw(VALUES[key] if draw(st.booleans()) else ANY_WRONG)
    return out


@pytest.mark.parametrize("delta", EXAMPLES)
def test_examples_agree(delta: dict[str, Any]) -> None:
    same_outcome(delta)


def test_a_refused_key_is_named_never_none() -> None:
    # A past value's correction with one natural extra key was "delta is invalid (None)".
    bad = {"past_id": "p-0123456789abcdef", "value": "苏州", "correction": True}
    for key, value in [("source_ref", "turn:3"), ("scope", "user"), ("field", "home_city")]:
        code, (message, details) = outcome(normalize_delta, {**bad, key: value}, 0, "$")
        assert code == "INVALID_DELTA"
        assert details["path"] == f"$.{key}"
        assert message.startswith(f"{key} does not go with past_id") and "None" not in message


@settings(max_examples=1000, deadline=None, database=None)
@given(deltas())
def test_generated_deltas_agree(delta: dict[str, Any]) -> None:
    same_outcome(delta)


@pytest.mark.slow
@settings(
    max_examples=10_000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(deltas())
def test_ten_thousand_generated_deltas_agree(delta: dict[str, Any]) -> None:
    same_outcome(delta)


def test_the_cli_names_a_key_a_past_correction_does_not_take(enabled: Any) -> None:
    # The case that answered "delta is invalid (None)": a past value corrected with one
    # natural extra key (documentation/time.md, "Keys beside a past_id").
    ok("apply", "--json", json.dumps(delta("user", field="home_city", value="苏州")))
    ok("apply", "--json", json.dumps(delta("user", field="home_city", value="杭州")))
    past_id = ok("show")["memories"][0]["past"][0]["past_id"]
    fix = {"past_id": past_id, "value": "上海", "correction": True}
    for key, value in [("source_ref", "turn:3"), ("field", "home_city"), ("scope", "user")]:
        error = fails("INVALID_DELTA", "apply", "--json", json.dumps({**fix, key: value})).error
        assert error["details"]["path"] == f"$.{key}", error
        assert error["message"].startswith(f"{key} does not go with past_id"), error
        assert f"remove {key}" in error["message"] and "None" not in error["message"]
    deleted = {"action": "delete", "past_id": past_id, "source_type": "user_explicit"}
    error = fails("INVALID_DELTA", "apply", "--json", json.dumps(deleted)).error
    assert error["details"]["path"] == "$.source_type" and "source_type" in error["message"]
    ok("apply", "--json", json.dumps({**fix, "source_type": "user_explicit"}))  # it may restate


# The field-name and subject-id patterns are read with str methods (shape._PLAIN_PATTERNS,
# documentation/performance.md): the same answer as re.search on every string.
PATTERN_EDGES = [
    "",
    "\n",
    "goal",
    "goal\n",
    "goal\n\n",
    "\ngoal",
    "go al",
    "Goal",
    "9goal",
    "_goal",
    "a" * 64,
    "a" * 64 + "\n",
    "a" * 65,
    "obj-a",
    "obj.a:b_c-d",
    "-obj",
    "ｇｏａｌ",
    "goal\r",
]
NAME_CHARS = st.sampled_from("abcxyzAZ09_.:-\n \r\tｇé")


@pytest.mark.parametrize("pattern", sorted(shape._PLAIN_PATTERNS))
def test_plain_patterns_agree_with_re_on_their_edges(pattern: str) -> None:
    plain = shape._PLAIN_PATTERNS[pattern]
    for text in PATTERN_EDGES:
        assert bool(plain(text)) == bool(re.search(pattern, text)), (pattern, text)


@settings(max_examples=2000, deadline=None, database=None)
@given(st.one_of(st.text(NAME_CHARS, max_size=70), st.text(max_size=70)))
def test_plain_patterns_agree_with_re(text: str) -> None:
    for pattern, plain in shape._PLAIN_PATTERNS.items():
        assert bool(plain(text)) == bool(re.search(pattern, text)), (pattern, text)


def test_the_plain_patterns_are_the_schemas() -> None:
    # Each is a pattern the schema uses, so a change to the schema's cannot leave one behind.
    used = set(re.findall(r'"pattern": "([^"]*)"', json.dumps(shape.SCHEMA)))
    assert set(shape._PLAIN_PATTERNS) <= used
