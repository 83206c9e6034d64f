"""Validation of `apply` input through the real CLI (documentation/commands.md#one-envelope-semantic-exit-codes, documentation/commands.md#consent-states-and-the-order-of-checks, references/memory-rules.md#the-five-kinds, documentation/commands.md#caps, documentation/commands.md#what-each-command-promises).

Every behaviour under test goes through the real command line, ``main(argv)``
run in process (``support.cli``); the few cases about what reaches the
process itself (argv bytes, a huge stdin) run ``python -m memory_store`` in a
subprocess. The library is used only to set a store up or to *look* at it
(``show``/``log``), which keeps "nothing changed" checks cheap. Tables of
refusals report every failing case at once. A refusal says the rule in words (documentation/commands.md#errors-a-person-can-act-on);
the machine form stays in ``details``.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from support import Result, apply, cli, delta, fails, ok, prc_id, run_cli

from memory_store import MemoryStore

SCOPES = ("user", "object", "relationship", "event", "hypothesis")
SOURCES = ("user_explicit", "user_report", "chatlab", "tool", "assistant_inference")
# references/memory-rules.md#source-types-and-eligibility-enforced, eligibility table (written out here, not imported from policy.py).
ELIGIBLE = {
    "user": ["user_explicit"],
    "object": ["user_explicit", "user_report"],
    "relationship": ["user_explicit", "user_report"],
    "event": ["user_explicit", "user_report", "chatlab", "tool"],
    "hypothesis": list(SOURCES),
}


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def store(private_store: Path) -> Path:
    """A store with consent given (in-process: the enable CLI is tested elsewhere)."""
    MemoryStore(private_store).enable(confirm=True)
    return private_store


def state(store_dir: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Everything observable about the store: all rows and the undo log."""
    s = MemoryStore(store_dir)
    return s.show()["memories"], s.log()["operations"]


def rows(store_dir: Path) -> list[dict[str, Any]]:
    return MemoryStore(store_dir).show()["memories"]


def seed(store_dir: Path, *deltas: dict[str, Any]) -> list[dict[str, Any]]:
    """Write rows in-process; return the stored memories."""
    body = deltas[0] if len(deltas) == 1 else {"deltas": list(deltas)}
    return [r["memory"] for r in MemoryStore(store_dir).apply(body, verbose=True)["results"]]


def _body(d: Any) -> str:
    return d if isinstance(d, str) else json.dumps(d, ensure_ascii=False)


def run_all(calls: Iterable[tuple[list[str], bytes | None]]) -> list[Result]:
    return [cli(*args, input=stdin) for args, stdin in calls]


def apply_all(bodies: Iterable[Any], *extra: str) -> list[Result]:
    """``apply --json BODY`` for each body (str → as is, bytes → stdin, else JSON-encoded)."""
    calls: list[tuple[list[str], bytes | None]] = []
    for b in bodies:
        if isinstance(b, bytes):
            calls.append((["apply", *extra], b))
        else:
            calls.append((["apply", "--json", _body(b), *extra], None))
    return run_all(calls)


def check_invalid(result: Result, index: int | None = 0, path_prefix: str = "$") -> str | None:
    """None if ``result`` is INVALID_DELTA (exit 4) with details.index/path, else a complaint."""
    err = result.error
    if err is None or err["code"] != "INVALID_DELTA" or result.code != 4:
        return f"expected INVALID_DELTA, got {result.stdout.strip()}"
    details = err["details"]
    if "index" not in details or "path" not in details:
        return f"details lack index/path: {details}"
    if details["index"] != index:
        return f"details.index {details['index']!r} != {index!r}"
    if not (isinstance(details["path"], str) and details["path"].startswith(path_prefix)):
        return f"details.path {details['path']!r} does not start with {path_prefix!r}"
    return None


def refuse_all(
    store_dir: Path,
    cases: dict[str, Any],
    index: int | None = 0,
    path_prefix: str = "$",
) -> list[Result]:
    """Every case is INVALID_DELTA with details.index/path, and the store is unchanged."""
    before = state(store_dir)
    results = apply_all(cases.values())
    problems = {
        label: msg
        for label, r in zip(cases, results, strict=True)
        if (msg := check_invalid(r, index, path_prefix)) is not None
    }
    assert not problems, problems
    assert state(store_dir) == before
    return results


def accept_all(deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Apply all (distinct-key) deltas as one batch through the CLI; return the stored rows."""
    r = apply(*deltas)
    assert r.code == 0, r.stdout
    data = r.data
    assert all(r["action"] in ("created", "updated") for r in data["results"]), data
    return [r["memory"] for r in data["results"]]


def luhn_complete(partial: str) -> str:
    """Append the Luhn check digit to ``partial``."""
    for check in "0123456789":
        digits = partial + check
        total = 0
        for i, c in enumerate(reversed(digits)):
            n = int(c)
            if i % 2:
                n = n * 2 - 9 if n > 4 else n * 2
            total += n
        if total % 10 == 0:
            return digits
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------- eligibility


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("scope", SCOPES)
def test_eligibility_matrix(store: Path, scope: str, source: str) -> None:
    # Something already stored, so that "unchanged" means something.
    seed(store, delta("object", "obj-z", "display_label", "Zed"))
    before = state(store)
    r = apply(delta(scope, "obj-a", "fact", "something true", source=source))
    if source in ELIGIBLE[scope]:
        assert r.code == 0, r.stdout
        (res,) = r.data["results"]
        m = res["memory"]
        assert res["action"] == "created"
        assert (m["scope"], m["source_type"], m["value"]) == (scope, source, "something true")
        assert m["subject_id"] == ("user" if scope == "user" else "obj-a")
        assert len(rows(store)) == 2
    else:
        assert r.error is not None and r.error["code"] == "SOURCE_NOT_ELIGIBLE", r.stdout
        assert r.code == 5
        details = r.error["details"]
        assert details["scope"] == scope
        assert details["source_type"] == source
        assert sorted(details["allowed_source_types"]) == sorted(ELIGIBLE[scope])
        assert details["index"] == 0
        assert state(store) == before


def test_inference_never_becomes_a_fact_even_with_high_confidence(store: Path) -> None:
    bodies = [
        delta(scope, source="assistant_inference", confidence="high", source_ref="turn:9")
        for scope in ("user", "object", "relationship", "event")
    ]
    for r in apply_all(bodies):
        assert r.error is not None and r.error["code"] == "SOURCE_NOT_ELIGIBLE", r.stdout
        assert r.error["details"]["source_type"] == "assistant_inference"
    assert rows(store) == []


def test_hypothesis_needs_explicit_confidence_and_evidence(store: Path) -> None:
    base = delta("hypothesis", field="intent", value="wants to reconnect")
    no_conf = {k: v for k, v in base.items() if k != "confidence"}
    no_ref = {k: v for k, v in base.items() if k != "source_ref"}
    refuse_all(
        store,
        {
            "no confidence": no_conf,
            "no confidence, explicit upsert": {**no_conf, "action": "upsert"},
            "no source_ref": no_ref,
            "empty source_ref": {**base, "source_ref": ""},
            "blank source_ref": {**base, "source_ref": "   "},
            "null source_ref": {**base, "source_ref": None},
        },
    )
    # With both, and any source, it is stored.
    m = accept_all([{**base, "confidence": "medium", "source_type": "chatlab"}])[0]
    assert (m["confidence"], m["source_ref"]) == ("medium", "turn:3")


# --------------------------------------------------------------------------- value rules


def test_value_length_counts_code_points_after_trimming(store: Path) -> None:
    padded = " \t\u3000\u00a0" + "长" * 200 + "\n \u2003"
    stored = accept_all(
        [
            delta("user", field="goal", value="字" * 200),
            delta("user", field="goal3", value=padded),
            delta("user", field="goal4", value="  hello world \n"),
            delta("user", field="goal5", value="😀" * 200),
            delta("user", field="goal6", value="x"),
        ]
    )
    assert [m["value"] for m in stored] == ["字" * 200, "长" * 200, "hello world", "😀" * 200, "x"]
    refuse_all(
        store,
        {
            "201 chinese": delta("user", field="goal7", value="字" * 201),
            "201 emoji": delta("user", field="goal7", value="😀" * 201),
            "empty": delta("user", field="goal7", value=""),
            "blank": delta("user", field="goal7", value=" "),
        },
        path_prefix="$",
    )


def test_tab_and_newline_allowed_inside_value(store: Path) -> None:
    (m,) = accept_all([delta("user", field="goal", value="line one\n\tline two")])
    assert m["value"] == "line one\n\tline two"
    assert rows(store)[0]["value"] == "line one\n\tline two"


FORBIDDEN = [
    "\x00",
    "\r",
    "\x1b",
    "\x7f",
    "\x85",
    "\x9f",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
    "\u2028",
    "\u2029",
]


def test_forbidden_characters_refused(store: Path) -> None:
    cases: dict[str, Any] = {}
    for c in FORBIDDEN:
        cases[f"value middle U+{ord(c):04X}"] = delta("user", field="goal", value=f"a{c}b")
    # At the ends too: trimming must not make a forbidden character acceptable
    # (\x85, \x0b, U+2028, U+2029 are whitespace to str.strip()).
    for c in ("\x85", "\x0b", "\u2028"):
        cases[f"value end U+{ord(c):04X}"] = delta("user", field="goal", value=f"text{c}")
    for c in ("\x85", "\u2029"):
        cases[f"value start U+{ord(c):04X}"] = delta("user", field="goal", value=f"{c}text")
    # source_ref follows the same character rules.
    for c in ("\x00", "\x85", "\u202e"):
        cases[f"source_ref U+{ord(c):04X}"] = delta("object", value="ok", source_ref=f"t{c}3")
    results = refuse_all(store, cases)
    for label, r in zip(cases, results, strict=True):
        expected = "source_ref" if label.startswith("source_ref") else "value"
        assert r.error["details"]["path"].endswith(expected), (label, r.error)


def test_source_ref_length(store: Path) -> None:
    (m,) = accept_all([delta("object", value="ok", source_ref="  " + "r" * 200 + " ")])
    assert m["source_ref"] == "r" * 200
    refuse_all(store, {"201": delta("object", field="fact", value="ok", source_ref="r" * 201)})


def test_lone_surrogates_in_strings_refused(store: Path) -> None:
    # json.dumps escapes a lone surrogate as the six characters \ud800.
    cases = {
        "value high": json.dumps(delta("user", field="goal", value="a\ud800b")),
        "source_ref": json.dumps(delta("object", value="ok", source_ref="x\udc80y")),
        "field": json.dumps(delta("user", field="goal\ud800")),
    }
    assert all("\\ud" in body for body in cases.values())
    results = refuse_all(store, cases)
    assert results[0].error["details"]["path"] == "$.value"


@pytest.mark.parametrize(("surrogate", "where"), [("\ud800", "key"), ("\udcff", "batch_key")])
def test_lone_surrogate_in_a_key_gets_a_clean_envelope(
    store: Path, surrogate: str, where: str
) -> None:
    """Odd Unicode anywhere gets an envelope (documentation/commands.md#one-envelope-semantic-exit-codes, documentation/commands.md#robustness): no traceback, valid UTF-8 stdout."""
    d = delta("user", field="goal", value="ok")
    body: Any = {**d, surrogate: 1} if where == "key" else {"deltas": [d], surrogate: 1}
    text = json.dumps(body, ensure_ascii=True)
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", "apply", "--json", text],
        capture_output=True,
        timeout=60,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr.decode("utf-8", "replace")
    assert proc.stderr == b""
    out = proc.stdout.decode("utf-8")  # must be valid UTF-8
    env = json.loads(out)
    assert env["ok"] is False and env["error"]["code"] == "INVALID_DELTA"
    assert proc.returncode == 4
    assert rows(store) == []


def test_invalid_utf8_refused(store: Path) -> None:
    body = json.dumps(delta("user", field="goal", value="XX")).encode()
    bad = body.replace(b"XX", b"\xff\xfe")
    path = store.parent / "bad.json"
    path.write_bytes(bad)
    before = state(store)
    results = run_all(
        [
            (["apply"], bad),
            (["apply"], body.replace(b"XX", "字".encode()[:2])),  # truncated sequence
            (["apply"], body.replace(b"XX", b"\xed\xa0\x80")),  # an encoded surrogate
            (["apply", "--file", str(path)], None),
        ]
    )
    problems = [m for r in results if (m := check_invalid(r, None)) is not None]
    assert not problems, problems
    # Through the command line: Python hands undecodable argv bytes over as surrogates.
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", "apply", "--json", bad],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 4, proc.stdout
    assert json.loads(proc.stdout.decode("utf-8"))["error"]["code"] == "INVALID_DELTA"
    assert proc.stderr == b""
    assert state(store) == before


# --------------------------------------------------------------------------- subject_id, field


def test_subject_id_and_field_are_full_matches(store: Path) -> None:
    cases: dict[str, Any] = {}
    for s in ["obj a", "-obj", "对象", "", "o" * 65, "obj-a\n", "\nobj-a", "obj-a\t"]:
        cases[f"subject {s!r}"] = delta("object", subject=s)
    for f in ["Goal", "1goal", "goal-x", "", "g" * 65, "goal\n", "目标"]:
        cases[f"field {f!r}"] = delta("user", field=f)
    results = refuse_all(store, cases)
    for label, r in zip(cases, results, strict=True):
        expected = "$.subject_id" if label.startswith("subject") else "$.field"
        assert r.error["details"]["path"] == expected, (label, r.error)
    stored = accept_all(
        [
            delta("object", subject=s, field="display_label")
            for s in ("obj-a", "A", "9", "o" * 64, "x_y.z:w-1")
        ]
        + [delta("user", field=f, value="v") for f in ("g", "goal_2", "g" * 64)]
    )
    assert [m["subject_id"] for m in stored[:5]] == ["obj-a", "A", "9", "o" * 64, "x_y.z:w-1"]
    assert [m["field"] for m in stored[5:]] == ["g", "goal_2", "g" * 64]


def test_user_scope_subject(store: Path) -> None:
    (a,) = accept_all([delta("user", field="goal", value="a")])
    assert a["subject_id"] == "user"
    (b,) = accept_all([delta("user", field="goal", value="b", subject_id="user")])
    assert (b["id"], b["subject_id"], b["value"]) == (a["id"], "user", "b")
    refuse_all(
        store,
        {
            other: delta("user", field="goal", value="c", subject_id=other)
            for other in ("obj-a", "User", "user\n")
        },
    )
    assert [r["value"] for r in rows(store)] == ["b"]


def test_other_scopes_may_not_use_user_and_need_a_subject(store: Path) -> None:
    cases: dict[str, Any] = {}
    for scope in ("object", "relationship", "event", "hypothesis"):
        cases[f"{scope} user"] = delta(scope, subject="user")
    for scope in ("object", "event"):
        cases[f"{scope} missing"] = {k: v for k, v in delta(scope).items() if k != "subject_id"}
    refuse_all(store, cases)


@pytest.mark.parametrize("subject", ["User", "USER", "uSeR"])
@pytest.mark.parametrize("scope", ["object", "relationship", "event", "hypothesis"])
def test_user_is_reserved_whatever_its_case(enabled: Path, scope: str, subject: str) -> None:
    r = fails("INVALID_DELTA", "apply", "--json", json.dumps(delta(scope=scope, subject=subject)))
    assert r.error["details"]["path"] == "$.subject_id"
    assert ok("show")["count"] == 0


# --------------------------------------------------------------------------- occurred_at


OCCURRED_OK = [
    ("2024-02-29", "2024-02-29"),
    ("2026-08-02", "2026-08-02"),
    ("2026-08-02T20:30+08:00", "2026-08-02T12:30:00Z"),
    ("2026-08-02T02:00+08:00", "2026-08-01T18:00:00Z"),
    ("2026-08-02T20:30Z", "2026-08-02T20:30:00Z"),
    ("2026-08-02T20:30:15Z", "2026-08-02T20:30:15Z"),
    ("2026-08-02T20:30:15.123456Z", "2026-08-02T20:30:15Z"),
    ("2026-12-31T23:30-01:00", "2027-01-01T00:30:00Z"),
    ("2026-08-02T20:30:00+00:00", "2026-08-02T20:30:00Z"),
    ("2026-08-02T05:45+05:45", "2026-08-02T00:00:00Z"),
]


def test_occurred_at_normalized(store: Path) -> None:
    stored = accept_all(
        [
            delta("event", field=f"ev_{i}", value="dinner", occurred_at=given)
            for i, (given, _) in enumerate(OCCURRED_OK)
        ]
    )
    assert [m["occurred_at"] for m in stored] == [expected for _, expected in OCCURRED_OK]
    assert sorted(r["occurred_at"] for r in rows(store)) == sorted(e for _, e in OCCURRED_OK)


OCCURRED_BAD = [
    "2026-02-30",
    "2023-02-29",
    "2026-13-01",
    "2026-04-31",
    "2026/08/02",
    "2026-08-02\n",
    "2026-08-02T20:30",
    "2026-08-02 20:30Z",
    "2026-08-02T25:00Z",
    "2026-08-02T20:30+24:00",
    "2026-08-02T20:30:15.1234567Z",
    "2026-02-30T10:00Z",
    "tomorrow",
    "２０２６-08-02",
]


def test_occurred_at_refused(store: Path) -> None:
    cases: dict[str, Any] = {
        f"event {g!r}": delta("event", field="invitation", value="dinner", occurred_at=g)
        for g in OCCURRED_BAD
    }
    # Optional elsewhere, but when given it follows the same rules.
    cases["relationship 2026-02-30"] = delta(
        "relationship", field="stage", value="x", occurred_at="2026-02-30"
    )
    cases["event missing"] = {k: v for k, v in delta("event").items() if k != "occurred_at"}
    refuse_all(store, cases)


def test_event_key_includes_normalized_occurred_at(store: Path) -> None:
    (a,) = accept_all(
        [delta("event", field="conflict", value="argued", occurred_at="2026-08-02T20:30+08:00")]
    )
    # The same instant in another notation is the same row.
    r = apply(delta("event", field="conflict", value="argued", occurred_at="2026-08-02T12:30:00Z"))
    assert r.data["results"][0]["action"] == "unchanged"
    assert r.data["results"][0]["memory"]["id"] == a["id"]
    # Another date is another row.
    (b,) = accept_all([delta("event", field="conflict", value="argued", occurred_at="2026-08-03")])
    assert b["id"] != a["id"]
    assert len(rows(store)) == 2


def test_occurred_at_elsewhere_is_optional_and_not_part_of_the_key(store: Path) -> None:
    (a,) = seed(store, delta("relationship", field="stage", value="dating"))
    assert a["occurred_at"] is None
    data = apply(
        delta("relationship", field="stage", value="dating", occurred_at="2026-08-02T20:30+08:00")
    ).data
    (res,) = data["results"]
    assert res["action"] == "updated"
    assert res["memory"]["id"] == a["id"]
    assert res["memory"]["occurred_at"] == "2026-08-02T12:30:00Z"


# --------------------------------------------------------------------------- other fields


def test_confidence_enum_and_default(store: Path) -> None:
    stored = accept_all(
        [delta("object", field="fact", value="x")]
        + [
            delta("object", field=f"f_{c}", value="x", confidence=c)
            for c in ("high", "medium", "low")
        ]
    )
    assert [m["confidence"] for m in stored] == ["medium", "high", "medium", "low"]
    refuse_all(
        store,
        {
            repr(bad): delta("object", field="fact2", value="x", confidence=bad)
            for bad in ("certain", "HIGH", None, 1)
        },
    )


def test_unknown_keys_wrong_types_and_missing_keys_refused(store: Path) -> None:
    cases: dict[str, Any] = {}
    for extra in ({"note": "x"}, {"id": "m-0123456789abcdef"}, {"action": "merge"}):
        cases[f"extra {extra}"] = {**delta("object"), **extra}
    for key, value in [
        ("scope", "profile"),
        ("value", 3),
        ("value", ["a"]),
        ("source_type", "model"),
        ("subject_id", 1),
        ("sensitive", "yes"),
    ]:
        cases[f"{key}={value!r}"] = {**delta("object"), key: value}
    for missing in ("scope", "field", "value", "source_type"):
        cases[f"missing {missing}"] = {k: v for k, v in delta("object").items() if k != missing}
    refuse_all(store, cases)


def test_sensitive_flag(store: Path) -> None:
    r = fails(
        "SENSITIVE_REJECTED",
        "apply",
        "--json",
        json.dumps(delta("object", field="fact", value="harmless", sensitive=True)),
    )
    assert r.code == 4
    assert r.error["details"]["index"] == 0
    assert r.error["details"]["detector"]
    assert rows(store) == []
    (m,) = accept_all([delta("object", field="fact", value="harmless", sensitive=False)])
    assert m["value"] == "harmless" and "sensitive" not in m


def test_malformed_json_refused(store: Path) -> None:
    good = '"scope": "object", "subject_id": "obj-a", "field": "fact", "source_type": "user_report"'
    delta_with = json.dumps(delta("object", value="PLACEHOLDER")).replace
    cases: dict[str, Any] = {
        "repeated value": "{" + good + ', "value": "a", "value": "b"}',
        "repeated in batch item": '{"deltas": [{' + good + ', "value": "a", "field": "x"}]}',
        "NaN": delta_with('"PLACEHOLDER"', "NaN"),
        "Infinity": delta_with('"PLACEHOLDER"', "Infinity"),
        "deep array": "[" * 20000 + "]" * 20000,
        "deep object": '{"a":' * 10000 + "1" + "}" * 10000,
        "deep inside a delta": delta_with('"PLACEHOLDER"', "[" * 5000 + "]" * 5000),
        "huge integer": delta_with('"PLACEHOLDER"', "9" * 5000),
        "not json": "hello",
        "empty": "",
    }
    refuse_all(store, cases, index=None)
    # Shapes that parse but are not a delta: still INVALID_DELTA with index and path.
    cases = {
        "array": "[]",
        "null": "null",
        "list of deltas": json.dumps([delta("object")]),
        "deltas not a list": '{"deltas": {}}',
        "moderately deep value": delta_with('"PLACEHOLDER"', "[" * 200 + "]" * 200),
        "overflowing float": delta_with('"PLACEHOLDER"', "1e400"),
    }
    before = state(store)
    results = apply_all(cases.values())
    for label, r in zip(cases, results, strict=True):
        assert r.error is not None and r.error["code"] == "INVALID_DELTA", (label, r.stdout)
        assert r.code == 4
        assert {"index", "path"} <= set(r.error["details"]), (label, r.error)
    assert state(store) == before


def test_the_cli_refuses_the_same_repeated_key(enabled: Path) -> None:
    body = json.dumps(delta(value="first"))[:-1] + ', "value": "second"}'
    r = run_cli("apply", "--json", body)
    assert r.error["code"] == "INVALID_DELTA"
    assert r.error["message"] == "repeated key 'value' in a JSON object"
    assert r.error["details"] == {"index": None, "path": "$"}


# --------------------------------------------------------------------------- batches


def test_batch_of_twenty_in_one_operation(store: Path) -> None:
    deltas = [delta("object", field=f"fact_{i}", value=f"v{i}") for i in range(15)]
    deltas += [delta("relationship", field=f"rel_{i}", value=f"r{i}") for i in range(5)]
    data = apply(*deltas).data
    assert [r["index"] for r in data["results"]] == list(range(20))
    assert {r["action"] for r in data["results"]} == {"created"}
    assert len(rows(store)) == 20
    log = MemoryStore(store).log()["operations"]
    assert len(log) == 1 and log[0]["op_id"] == data["op_id"] and log[0]["rows"] == 20


def test_batch_size_limits(store: Path) -> None:
    too_many = [delta("object", field=f"fact_{i}", value=f"v{i}") for i in range(21)]
    refuse_all(
        store,
        {
            "21": {"deltas": too_many},
            "0": {"deltas": []},
            "extra key": {"deltas": [delta("object")], "extra": 1},
        },
        index=None,
    )
    refuse_all(store, {"null item": {"deltas": [None]}}, index=0, path_prefix="$.deltas[0]")
    refuse_all(
        store, {"number item": {"deltas": [delta("user"), 1]}}, index=1, path_prefix="$.deltas[1]"
    )


BAD_THIRD = [
    (delta("object", field="Bad-Field"), "INVALID_DELTA"),
    (delta("object", field="fact_2", value="x" * 201), "INVALID_DELTA"),
    ({"scope": "object", "subject_id": "obj-a", "field": "fact_2"}, "INVALID_DELTA"),
    (delta("object", field="fact_2", source="assistant_inference"), "SOURCE_NOT_ELIGIBLE"),
    (delta("user", field="fact_2", source="user_report"), "SOURCE_NOT_ELIGIBLE"),
    (delta("object", field="fact_2", value="mail me at bob@example.org"), "SENSITIVE_REJECTED"),
    (delta("object", field="password"), "SENSITIVE_REJECTED"),
    (delta("object", field="fact_2", sensitive=True), "SENSITIVE_REJECTED"),
]


def test_bad_third_delta_rejects_whole_batch(store: Path) -> None:
    seed(store, delta("object", field="display_label", value="Old"))
    before = state(store)
    bodies = []
    for bad, _code in BAD_THIRD:
        batch = [
            delta("object", field="display_label", value="New"),
            delta("user", field="goal", value="be kind"),
            bad,
            delta("event", field="invitation", value="dinner"),
        ]
        bodies.append({"deltas": batch})
    real = apply_all(bodies)
    dry_picks = [0, 3, 5]  # one per error code
    dry_results = apply_all([bodies[i] for i in dry_picks], "--dry-run")
    dry = dict(zip(dry_picks, dry_results, strict=True))
    for i, ((bad, code), r) in enumerate(zip(BAD_THIRD, real, strict=True)):
        assert r.error is not None and r.error["code"] == code, (bad, r.stdout)
        assert r.error["details"]["index"] == 2, r.error
        if code == "INVALID_DELTA":
            assert r.error["details"]["path"].startswith("$.deltas[2]"), r.error
        # A dry run of the same batch gives the same refusal.
        if i in dry:
            assert (dry[i].code, dry[i].error) == (r.code, r.error)
    assert state(store) == before


def test_check_order_shape_then_sensitive_then_eligibility(store: Path) -> None:
    """documentation/commands.md#consent-states-and-the-order-of-checks: (5) the shape of the whole input, then (6) per delta sensitive, then eligibility."""
    shape_last = [
        delta("object", field="fact", value="bob@example.org"),
        delta("object", field="x", source="assistant_inference"),
        delta("object", field="BAD"),
    ]
    both = delta("user", field="goal", value="bob@example.org", source="assistant_inference")
    # (6) per-delta policy comes before (7) not-found.
    missing_first = [
        {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "missing"},
        delta("user", field="goal", source="chatlab"),
    ]
    r1, r2, r3 = apply_all([{"deltas": shape_last}, both, {"deltas": missing_first}])
    assert r1.error["code"] == "INVALID_DELTA" and r1.error["details"]["index"] == 2
    assert r2.error["code"] == "SENSITIVE_REJECTED"
    assert r3.error["code"] == "SOURCE_NOT_ELIGIBLE" and r3.error["details"]["index"] == 1
    assert "bob@example.org" not in r1.stdout + r2.stdout
    assert rows(store) == []


SAME_KEY = [
    (delta("user", field="goal", value="a"), delta("user", field="goal", value="b")),
    (
        delta("user", field="goal", value="a"),
        delta("user", field="goal", value="a", subject_id="user"),
    ),
    (
        delta("object", field="fact", value="a"),
        {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "fact"},
    ),
    (
        delta("event", field="conflict", occurred_at="2026-08-02T20:30+08:00"),
        delta("event", field="conflict", value="B", occurred_at="2026-08-02T12:30:00Z"),
    ),
    # two dates make a history (tests/writes/test_history_in_one_write.py); one date twice not
    (
        delta("relationship", field="stage", value="a", occurred_at="2026-01-01"),
        delta("relationship", field="stage", value="b", occurred_at="2026-01-01"),
    ),
    (
        delta("hypothesis", field="intent", value="a"),
        delta("hypothesis", field="intent", value="a", confidence="high"),
    ),
]


def test_same_key_twice_in_a_batch_refused(store: Path) -> None:
    seed(store, delta("object", field="fact", value="a"))
    before = state(store)
    results = apply_all(
        {"deltas": [delta("object", field="other"), first, second]} for first, second in SAME_KEY
    )
    for pair, r in zip(SAME_KEY, results, strict=True):
        assert r.error is not None and r.error["code"] == "INVALID_DELTA", (pair, r.stdout)
        assert r.error["details"]["index"] == 2, r.error
        assert "path" in r.error["details"]
    assert state(store) == before


def test_same_row_by_id_and_by_key_in_a_batch_refused(store: Path) -> None:
    (m,) = seed(store, delta("object", field="fact", value="a"))
    before = state(store)
    batch = [{"action": "delete", "id": m["id"]}, delta("object", field="fact", value="b")]
    r = fails("INVALID_DELTA", "apply", "--json", json.dumps({"deltas": batch}))
    assert r.error["details"]["index"] == 1
    assert "path" in r.error["details"]
    assert state(store) == before


# --------------------------------------------------------------------------- input size


def _padded_body(total_bytes: int) -> str:
    body = json.dumps(delta("user", field="goal", value="padded"))
    return body + " " * (total_bytes - len(body.encode()))


def test_input_limit(store: Path) -> None:
    over = _padded_body(65537)
    path = store.parent / "big.json"
    path.write_text(over)
    # Multi-byte characters count as bytes, not characters.
    multibyte = json.dumps(delta("user", field="goal", value="x"))[:-1]
    multibyte += ', "note": "' + "字" * 22000 + '"}'
    assert len(multibyte) < 65536 < len(multibyte.encode())
    results = run_all(
        [
            (["apply", "--json", over], None),
            (["apply", "--json", multibyte], None),
            (["apply"], over.encode()),
            # A very large stdin is refused without being read to the end.
            (["apply"], b" " * (8 * 1024 * 1024)),
            (["apply", "--file", str(path)], None),
            (["apply", "--dry-run", "--json", over], None),
            (["apply", "--file", "/dev/zero"], None),
        ]
    )
    problems = [m for r in results if (m := check_invalid(r, None)) is not None]
    assert not problems, problems
    assert rows(store) == []
    # Exactly 64 KiB is still accepted, by either route.
    assert run_cli("apply", "--json", _padded_body(65536)).code == 0
    r = run_cli("apply", input=_padded_body(65536).encode())
    assert r.code == 0 and r.data["results"][0]["action"] == "unchanged"


def test_stdin_is_not_read_past_the_limit(store: Path) -> None:
    """An over-long stdin that never ends is refused at once, not read to its end."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_store", "apply"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError, ValueError):
            proc.stdin.write(b" " * 70000)  # the pipe buffer holds what is not read
            proc.stdin.flush()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        proc.wait(timeout=30)  # stdin stays open: only a bounded read lets it finish
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    writer.join(timeout=5)
    out, err = proc.stdout.read(), proc.stderr.read()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        with contextlib.suppress(BrokenPipeError):
            stream.close()
    assert proc.returncode == 4, (out, err)
    assert json.loads(out)["error"]["code"] == "INVALID_DELTA"
    assert err == b""
    assert rows(store) == []


# --------------------------------------------------------------------------- sensitive content


SENSITIVE_FIELDS = [
    "password",
    "api_token",
    "bank_account",
    "card_number",
    "id_card",
    "passport",
    "home_address",
    "phone_number",
    "email",
    "diagnosis",
    "sexual_history",
]


def test_sensitive_field_names_refused(store: Path) -> None:
    bodies = [delta("object", field=f, value="something") for f in SENSITIVE_FIELDS]
    for body, r in zip(bodies, apply_all(bodies), strict=True):
        assert r.error is not None and r.error["code"] == "SENSITIVE_REJECTED", (body, r.stdout)
        assert r.code == 4
        assert r.error["details"]["detector"]
        assert r.error["details"]["index"] == 0
        assert "something" not in r.stdout
    assert rows(store) == []


def _sensitive_cases() -> dict[str, str]:
    card = luhn_complete("411111111111111")  # 16 digits
    grouped = " ".join(card[i : i + 4] for i in range(0, 16, 4))
    rid = prc_id("11010519900307123")
    rid_x = prc_id("11010519491231002")
    assert rid_x.endswith("X")
    return {
        "email": "alice.smith+tag@example.com",
        "email in chinese text": "她的邮箱是alice@example.cn",
        "cn mobile": "13812345678",
        "cn mobile in text": "她的手机是13812345678，晚上打",
        "cn mobile dashed": "138-1234-5678",
        "cn mobile +86": "+86 138 1234 5678",
        "e164 uk": "+44 20 7946 0958",
        "prc id": rid,
        "prc id in text": f"身份证 {rid} 别忘了",
        "prc id with X": rid_x,
        "card": card,
        "card grouped": grouped,
        "amex": luhn_complete("37828224631000"),
        # The rest of the list (documentation/privacy.md#what-they-look-for): grouped phone forms, IBAN, API keys, URL credentials.
        "grouped phone": "(020) 7946 0958",
        "iban": "GB82 WEST 1234 5698 7654 32",
        "openai key": "sk-proj-Ab3dEf6hIj9kLm2nOp5q",
        "github token": "ghp_" + "aB3" * 12,
        "aws key": "AKIAIOSFODNN7EXAMPLE",
        "slack token": "xoxb-1234567890-AbCdEfGhIjKl",
        "url credentials": "https://bob:hunter2@example.com/x",
        "long token": "a8Kd9fJ2mQ7xZ4pL1wE6rT3yU5iO0sNb",
    }


def test_sensitive_values_refused_without_echo(store: Path) -> None:
    cases = _sensitive_cases()
    # Every case in the value; a few in source_ref and through a dry run.
    bodies = [(label, delta("object", field="fact", value=s), ()) for label, s in cases.items()]
    for label in ("email", "prc id"):
        bodies.append(
            (label, delta("object", field="fact", value="ok", source_ref=cases[label]), ())
        )
    for label in ("card",):
        bodies.append((label, delta("object", field="fact", value=cases[label]), ("--dry-run",)))
    results = run_all(
        (["apply", "--json", json.dumps(b, ensure_ascii=False), *extra], None)
        for _, b, extra in bodies
    )
    for (label, _, _), r in zip(bodies, results, strict=True):
        secret = cases[label]
        assert r.error is not None and r.error["code"] == "SENSITIVE_REJECTED", (label, r.stdout)
        assert r.code == 4
        assert r.error["details"]["detector"], label
        assert r.error["details"]["index"] == 0
        digits = "".join(c for c in secret if c.isdigit())
        needles = {secret, digits, digits[-8:], secret.split("@")[0][-5:]} - {""}
        for needle in needles:
            assert needle not in r.stdout and needle not in r.stderr, (label, needle)
    assert rows(store) == []


def test_ordinary_values_pass(store: Path) -> None:
    card = luhn_complete("411111111111111")
    not_luhn = card[:-1] + str((int(card[-1]) + 1) % 10)
    values = [
        "2026-08-02 19:30",
        "385 元",
        "85/100",
        "INTJ",
        "28 岁",
        "周六晚上 7 点见面",
        "2026-08-02T19:30",
        "1999",
        "第 3 次约会",
        "评分 9.5/10",
        "19:30-21:00",
        "¥1,280",
        "2026-08-02 19:30:45",
        "价格 1280-1580 元",
        "身高 175cm",
        "13:00 13:30 14:00",
        "2026.08.02",
        "v1.2.3",
        not_luhn,
    ]
    stored = accept_all(
        [delta("object", f"obj-{i // 10}", f"fact_{i}", v) for i, v in enumerate(values)]
    )
    assert [m["value"] for m in stored] == values


# --------------------------------------------------------------------------- dry run


def test_dry_run_reports_and_writes_nothing(store: Path) -> None:
    seed(store, delta("object", field="display_label", value="Old"))
    before_show, before_log = ok("show"), ok("log")
    batch = [
        delta("object", field="display_label", value="New"),
        delta("object", field="display_label", value="Old", subject="obj-b"),
        delta("user", field="goal", value="listen more"),
        delta("relationship", field="stage", value="dating"),
    ]
    data = apply(*batch, dry_run=True).data
    assert data["dry_run"] is True
    assert data["op_id"] is None
    assert [r["action"] for r in data["results"]] == ["updated", "created", "created", "created"]
    assert data["results"][0]["memory"]["value"] == "New"
    assert data["pruned"] == []
    assert isinstance(data["summary"], str) and data["summary"]
    assert (ok("show"), ok("log")) == (before_show, before_log)
    # The real apply then does what the dry run said.
    real = apply(*batch).data
    assert real["dry_run"] is False and real["op_id"]
    assert [r["action"] for r in real["results"]] == [r["action"] for r in data["results"]]
    assert ok("show")["count"] == 4


def test_dry_run_reports_pruning_without_pruning(store: Path) -> None:
    seed(store, *[delta("hypothesis", field=f"h{i}", value=f"v{i}") for i in range(5)])
    before = ok("show")
    oldest = [m for m in before["memories"] if m["field"] == "h0"]
    data = apply(delta("hypothesis", field="h5", value="v5"), dry_run=True).data
    assert data["dry_run"] is True and data["op_id"] is None
    assert data["pruned"] == oldest
    assert ok("show") == before


def test_dry_run_refusals_match_real_apply(store: Path) -> None:
    seed(store, *[delta("relationship", field=f"r{i}", value="v") for i in range(10)])
    cases = [
        json.dumps(delta("relationship", field="r10", value="v")),  # MEMORY_LIMIT_REACHED
        json.dumps({"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "nope"}),
        json.dumps(delta("user", field="goal", source="tool")),
        "not json",
    ]
    before = state(store)
    dry = apply_all(cases, "--dry-run")
    real = apply_all(cases)
    codes = [r.error["code"] for r in real]
    assert codes == [
        "MEMORY_LIMIT_REACHED",
        "MEMORY_NOT_FOUND",
        "SOURCE_NOT_ELIGIBLE",
        "INVALID_DELTA",
    ]
    for d, r in zip(dry, real, strict=True):
        assert (d.code, d.error) == (r.code, r.error)
    assert state(store) == before


# --------------------------------------------------------------------------- delete


def test_delete_by_key_and_by_id(store: Path) -> None:
    made = seed(
        store,
        delta("object", field="display_label", value="A"),
        delta("user", field="goal", value="g"),
        delta("event", field="conflict", value="c", occurred_at="2026-08-02T20:30+08:00"),
        delta("hypothesis", field="intent", value="i"),
        delta("relationship", field="stage", value="s"),
    )
    before = rows(store)
    data = apply(
        {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "display_label"},
        {"action": "delete", "scope": "user", "field": "goal"},
        {
            "action": "delete",
            "scope": "event",
            "subject_id": "obj-a",
            "field": "conflict",
            "occurred_at": "2026-08-02T12:30:00Z",
        },
        {"action": "delete", "scope": "hypothesis", "subject_id": "obj-a", "field": "intent"},
        {"action": "delete", "id": made[4]["id"]},
    ).data
    assert [r["action"] for r in data["results"]] == ["deleted"] * 5
    assert [r["memory"] for r in data["results"]] == made
    assert rows(store) == []
    assert data["op_id"]
    # Deleting is undoable like any other write.
    ok("undo", "--op-id", data["op_id"])
    assert rows(store) == before


def test_delete_missing_row_fails_whole_batch(store: Path) -> None:
    seed(
        store,
        delta("object", field="display_label", value="A"),
        delta("object", field="fact", value="F"),
        delta("event", field="conflict", value="c", occurred_at="2026-08-02"),
    )
    before = state(store)
    batch = [
        delta("object", field="new_field", value="N"),
        {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "fact"},
        {"action": "delete", "scope": "object", "subject_id": "obj-a", "field": "missing"},
        delta("user", field="goal", value="g"),
    ]
    results = apply_all(
        [
            {"deltas": batch},
            {"action": "delete", "id": "m-0000000000000000"},
            # An event's key includes its date: another date is another (missing) row.
            {
                "action": "delete",
                "scope": "event",
                "subject_id": "obj-a",
                "field": "conflict",
                "occurred_at": "2026-08-03",
            },
            # A row of another subject is not this one.
            {"action": "delete", "scope": "object", "subject_id": "obj-b", "field": "fact"},
        ]
    )
    for r, index in zip(results, (2, 0, 0, 0), strict=True):
        assert r.error is not None and r.error["code"] == "MEMORY_NOT_FOUND", r.stdout
        assert r.code == 3
        assert r.error["details"]["index"] == index
    assert state(store) == before


def test_delete_with_a_value_or_incomplete_key_refused(store: Path) -> None:
    (m,) = seed(store, delta("event", field="conflict", value="c"))
    key = {
        "action": "delete",
        "scope": "event",
        "subject_id": "obj-a",
        "field": "conflict",
        "occurred_at": "2026-08-02",
    }
    cases: dict[str, Any] = {}
    for extra in ({"value": "x"}, {"source_type": "user_report"}, {"confidence": "high"}):
        cases[f"key + {extra}"] = {**key, **extra}
    cases["id + value"] = {"action": "delete", "id": m["id"], "value": "x"}
    cases["key + id"] = {**key, "id": m["id"]}
    cases["id + scope"] = {"action": "delete", "id": m["id"], "scope": "event"}
    cases["no occurred_at"] = {k: v for k, v in key.items() if k != "occurred_at"}
    cases["no subject"] = {k: v for k, v in key.items() if k != "subject_id"}
    cases["nothing"] = {"action": "delete"}
    cases["bad id"] = {"action": "delete", "id": "obj-a"}
    refuse_all(store, cases)


# --------------------------------------------------------------------------- unchanged


def test_identical_write_is_unchanged_and_not_logged(store: Path) -> None:
    first = apply(
        delta("object", field="display_label", value="A", source_ref="turn:1"),
        delta("user", field="goal", value="g"),
    ).data
    assert first["op_id"]
    log_before, show_before = ok("log"), ok("show")
    # The same values; whitespace that trimming removes makes no difference.
    again = apply(
        delta("object", field="display_label", value="  A\n", source_ref=" turn:1 "),
        delta("user", field="goal", value="g", subject_id="user"),
    ).data
    assert [r["action"] for r in again["results"]] == ["unchanged", "unchanged"]
    assert again["op_id"] is None
    assert again["pruned"] == []
    assert [r["memory"] for r in again["results"]] == [r["memory"] for r in first["results"]]
    assert (ok("log"), ok("show")) == (log_before, show_before)
    assert ok("status")["undo_available"] == 1
    # Undo still reverts the real write, not the no-op.
    assert ok("undo")["undone_op_id"] == first["op_id"]
    assert rows(store) == []


def test_partly_unchanged_batch_records_only_real_changes(store: Path) -> None:
    seed(store, delta("object", field="display_label", value="A"))
    data = apply(
        delta("object", field="display_label", value="A"),
        delta("object", field="mbti", value="INTJ"),
    ).data
    assert [r["action"] for r in data["results"]] == ["unchanged", "created"]
    assert data["op_id"]
    log = ok("log")["operations"]
    assert len(log) == 2 and log[0]["op_id"] == data["op_id"] and log[0]["rows"] == 1


def test_any_difference_is_an_update(store: Path) -> None:
    (m,) = seed(store, delta("object", field="fact", value="A"))
    for change in (
        {"confidence": "high"},
        {"source_ref": "turn:2"},
        {"source_type": "user_explicit"},
        {"occurred_at": "2026-08-02"},
        {"value": "B"},
    ):
        data = apply({**delta("object", field="fact", value="A"), **change}).data
        assert data["results"][0]["action"] == "updated", change
        assert data["results"][0]["memory"]["id"] == m["id"]
        assert data["op_id"]


# --------------------------------------------------------------------------- the rule in words


def _refusal(**changes: Any) -> dict[str, Any]:
    body = {**delta(scope="event", field="met", value="在读书会认识"), **changes}
    failed = fails("INVALID_DELTA", "apply", "--json", json.dumps(body, ensure_ascii=False))
    return failed.error


@pytest.mark.parametrize(
    ("key", "bad", "words"),
    [
        ("occurred_at", "上周六", "must be a date like 2026-08-02, or a date and time like"),
        ("subject_id", "小林", "a code like obj-a; put the person's name in display_label"),
        ("field", "Display Label", "lowercase snake_case, such as display_label"),
    ],
)
def test_validation_says_the_rule_in_words(
    private_store: Path, key: str, bad: str, words: str
) -> None:
    ok("enable", "--confirm")
    error = _refusal(**{key: bad})
    assert error["message"].startswith(key) and words in error["message"]
    assert "^" not in error["message"] and "[0-9]" not in error["message"]
    assert error["details"]["path"] == f"$.{key}"
    assert error["details"]["pattern"].startswith("^")  # the machine form stays in details
    assert ok("show")["count"] == 0


def test_an_impossible_date_is_explained_too(private_store: Path) -> None:
    ok("enable", "--confirm")
    error = _refusal(occurred_at="2026-02-30")
    assert "a real calendar date like 2026-08-02" in error["message"]
    assert "YYYY" not in error["message"] and "YYYY-MM-DD" in error["details"]["format"]
