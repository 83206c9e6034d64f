"""Input validation for ``apply``: bytes -> JSON -> shape (JSON Schema) -> policy rules.

Imported only on the write path: through sensitive.py it compiles the detectors,
which the read paths (``status``, ``context``) must not pay for. The shape is checked
by writes/shape.py, not jsonschema, whose import alone would cost every write several
times the interpreter's start (documentation/performance.md).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from .. import policy
from ..errors import MemoryStoreError
from ..storage.rows import STAMP, forbidden_char
from . import timeline
from .sensitive import sensitive_field, sensitive_text  # also re-exported from here
from .shape import first_error as shape_error
from .shape import not_allowed

TYPE_CHECKING = False  # typing costs a few ms to import; every write would pay it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Delta = dict[str, Any]


# Compiled on first use by re's own cache, and only for a delta with an occurred_at:
# compiling a pattern at import costs every write (documentation/performance.md).
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_DATETIME = (
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})"
    rf"(?::([0-9]{{2}})(?:\.([0-9]{{1,6}}))?)?({policy.OFFSET_PATTERN})"
)


def _invalid(message: str, index: int | None, path: str, **extra: Any) -> MemoryStoreError:
    details: dict[str, Any] = {"index": index, "path": path}
    details.update(extra)
    return MemoryStoreError("INVALID_DELTA", message, details)


# ---------------------------------------------------------------------------
# Step 5: size, JSON, shape


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _invalid(f"repeated key {key!r} in a JSON object", None, "$")
        obj[key] = value
    return obj


def _reject_constant(name: str) -> Any:
    raise _invalid(f"{name} is not valid JSON", None, "$")


def parse_body(
    raw: bytes | str,
    limit: int = policy.INPUT_BYTES_MAX,
    expected: str = 'a delta object or {"deltas": [...]}',
) -> Any:
    """Decode and parse one input body (apply's, or an import document), refusing what
    plain ``json.loads`` lets through and anything over ``limit`` bytes."""
    too_large = _invalid(f"input is larger than {limit} bytes", None, "$", limit=limit)
    if isinstance(raw, bytes):
        if len(raw) > limit:
            raise too_large
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _invalid("input is not valid UTF-8", None, "$", byte_offset=exc.start) from None
    else:
        text = raw
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError:
            raise _invalid("input contains a lone surrogate", None, "$") from None
        if size > limit:
            raise too_large
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise _invalid(f"no input: expected {expected}", None, "$")
    try:
        return json.loads(
            text, object_pairs_hook=_reject_duplicate_keys, parse_constant=_reject_constant
        )
    except MemoryStoreError:
        raise
    except json.JSONDecodeError as exc:
        raise _invalid(
            f"input is not valid JSON: {exc.msg}", None, "$", line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:
        raise _invalid("input is nested too deeply", None, "$") from None
    except ValueError:
        # int() refuses numbers with thousands of digits; none is meaningful here.
        raise _invalid("input holds a number too large to be meaningful", None, "$") from None


def _key_text(key: str) -> str:
    """A key as it may appear in a message: escaped if it is not printable UTF-8."""
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return ascii(key)
    return key if key.isprintable() else ascii(key)


def _json_path(prefix: str, parts: Any) -> str:
    out = prefix
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


# The rule of each patterned key in words, with the fix (documentation/commands.md#errors-a-person-can-act-on): a person
# reading the error should not have to read a regular expression. The pattern
# itself stays in ``details.pattern`` for programs.
PATTERN_RULES = {
    "occurred_at": (
        "must be a date like 2026-08-02, or a date and time like 2026-08-02T14:30+08:00; "
        "work out a relative date such as “上周六” or “last Saturday” from today's date first"
    ),
    "subject_id": (
        "must be a code like obj-a; put the person's name in display_label "
        "(a code is 1-64 letters, digits and _ . : -, starting with a letter or digit)"
    ),
    "field": "must be lowercase snake_case, such as display_label (a-z, 0-9 and _, at most 64)",
    "id": "must be a memory id like m-0123456789abcdef, as show or context print it",
}


def pattern_rule(key: str) -> str:
    """The words for a patterned key's rule (``PATTERN_RULES``), or a plain fallback."""
    return PATTERN_RULES.get(key, "is not in the expected form")


def _schema_details(error: Any) -> dict[str, Any]:
    """The machine form of a schema error, kept beside the words of the message."""
    if error.validator == "pattern":
        return {"pattern": error.validator_value}
    return {}


def _describe(error: Any) -> str:
    """A message that never echoes the offending value (it might be sensitive)."""
    where = ".".join(str(p) for p in error.absolute_path) or "delta"
    v, expected = error.validator, error.validator_value
    if v == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"unknown key(s): {', '.join(map(_key_text, extra))}"
    if v == "required":
        missing = [
            k for k in expected if isinstance(error.instance, dict) and k not in error.instance
        ]
        return f"{where}: missing required key(s): {', '.join(missing) or ', '.join(expected)}"
    if v == "type":
        return f"{where} must be of type {expected}"
    if v == "enum":
        return f"{where} must be one of: {', '.join(map(str, expected))}"
    if v == "const":
        return f"{where} must be {expected!r}"
    if v == "maxLength":
        return f"{where} must be at most {expected} characters (after trimming)"
    if v == "minLength":
        return f"{where} must not be empty"
    if v == "pattern":
        key = str(error.absolute_path[-1]) if error.absolute_path else where
        return f"{where} {pattern_rule(key)}"
    if v in ("oneOf", "anyOf"):
        return (
            "a delete needs either just an id, just a past_id (one past value), or scope, "
            "subject_id and field (and occurred_at for an event)"
        )
    if v == "not":
        return f"{where}: 'user' (in any case) is reserved for the user scope"
    if v in ("minItems", "maxItems"):
        return f"deltas must hold 1 to {policy.DELTAS_PER_APPLY_MAX} items"
    return f"{where} is invalid ({v})"


def _check_text(text: str, index: int, path: str) -> None:
    found = forbidden_char(text)
    if found is None:
        return
    cp, kind = found
    if kind == "a lone surrogate":
        raise _invalid(f"{path} contains a lone surrogate", index, path)
    what = kind if kind == "a control character" else "a forbidden character"
    raise _invalid(f"{path} contains {what} U+{cp:04X}", index, path, codepoint=f"U+{cp:04X}")


def _normalize_occurred_at(raw: str, index: int, path: str) -> str:
    try:
        if re.fullmatch(_DATE, raw):
            datetime.strptime(raw, "%Y-%m-%d")
            return raw
        m = re.fullmatch(_DATETIME, raw)
        if not m:
            raise ValueError
        year, month, day, hour, minute, second, frac, tz = m.groups()
        offset = timezone.utc
        if tz != "Z":
            sign = 1 if tz[0] == "+" else -1
            hh, mm = int(tz[1:3]), int(tz[4:6])  # in range: policy.OFFSET_PATTERN
            from datetime import timedelta

            offset = timezone(sign * timedelta(hours=hh, minutes=mm))
        dt = datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute),
            int(second or 0),
            tzinfo=offset,
        )
        return dt.astimezone(timezone.utc).strftime(STAMP)
    except (ValueError, OverflowError):
        raise _invalid(
            f"{path} must be a real calendar date like 2026-08-02, or a date and time like "
            "2026-08-02T14:30+08:00 (Z or an offset such as +08:00 after the time)",
            index,
            path,
            format="YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS[.ffffff]](Z|±HH:MM)",
        ) from None


def normalize_delta(
    delta: Any, index: int, prefix: str, first_error: Callable[[Any], Any] = shape_error
) -> Delta:
    """Shape-check one delta and return its normalized form (trimmed, defaults filled).

    ``first_error`` finds the schema error to report (writes/shape.py); the tests pass
    one built on jsonschema, the reference it must agree with."""
    if not isinstance(delta, dict):
        raise _invalid("a delta must be a JSON object", index, prefix)
    # Character rules apply to the raw text; trimming happens before the schema so
    # that the schema's length limits describe what is stored.
    work = dict(delta)
    for key in ("value", "source_ref"):
        if isinstance(work.get(key), str):
            _check_text(work[key], index, f"{prefix}.{key}")
            work[key] = work[key].strip()
    error = first_error(work)
    if error is not None:
        path = _json_path(prefix, error.absolute_path)
        if error.validator is None and error.key:  # a key not allowed here
            path += "." + error.key
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
            if extra:
                path += "." + _key_text(extra[0])
        message = _describe(error) if error.validator is not None else not_allowed(error.key, work)
        raise _invalid(message, index, path, **_schema_details(error))
    for key, pattern in (
        ("subject_id", policy.SUBJECT_ID_PATTERN),
        ("field", policy.FIELD_PATTERN),
    ):
        # The schema's pattern (the same, tests/test_docs.py) is searched, and its $ lets
        # one trailing newline through; a full match is required.
        if key in work and work[key].endswith("\n"):
            raise _invalid(f"{key} {pattern_rule(key)}", index, f"{prefix}.{key}", pattern=pattern)
    action = work.get("action", "upsert")
    out: Delta = {"action": action}
    # one past value: deleted, or corrected (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id)
    if "past_id" in work:
        out["past_id"] = work["past_id"]
        if action == "upsert":
            out.update(
                value=work["value"],
                correction=True,
                source_type=work.get("source_type"),
                sensitive=work.get("sensitive", False),
            )
        return out
    if action != "upsert" and "id" in work:
        out["id"] = work["id"]
        if action == "end":  # when the value stopped being true
            out["occurred_at"] = _occurred(work, index, prefix)
            out["occurred_day"] = _day(work)
        return out
    scope = work["scope"]
    out["scope"] = scope
    out["subject_id"] = policy.USER_SUBJECT if scope == "user" else work["subject_id"]
    out["field"] = work["field"]
    out["occurred_at"] = _occurred(work, index, prefix)
    out["occurred_day"] = _day(work)
    if action != "upsert":
        return out
    m = re.fullmatch(_DATETIME, work["occurred_at"]) if work.get("occurred_at") else None
    out["occurred_offset"] = m.group(8) if m else None
    out["value"] = work["value"]
    out["source_type"] = work["source_type"]
    out["source_ref"] = work.get("source_ref") or None
    out["confidence"] = work.get("confidence", policy.DEFAULT_CONFIDENCE)
    out["sensitive"] = work.get("sensitive", False)
    out["correction"] = work.get("correction", False)
    out["replaces"] = work.get("replaces")
    out["pinned"] = work.get("pinned")  # None: an existing event keeps its pin
    return out


def _day(work: dict[str, Any]) -> str | None:
    """The day of ``occurred_at`` as the person gave it (in its own offset): the ``since``
    of "together since 00:30 on 1 March, Beijing time" is 1 March, not UTC's 28 February.
    Called after the value was checked."""
    occurred = work.get("occurred_at")
    return occurred[:10] if occurred else None


def _occurred(work: dict[str, Any], index: int, prefix: str) -> str | None:
    occurred = work.get("occurred_at")
    return _normalize_occurred_at(occurred, index, f"{prefix}.occurred_at") if occurred else None


def row_key(delta: Delta) -> tuple[str, str, str, str]:
    occurred = delta["occurred_at"] if delta["scope"] == "event" else ""
    return (delta["scope"], delta["subject_id"], delta["field"], occurred or "")


def load_deltas(payload: Any) -> list[Delta]:
    """Steps 5 and 6 of the check order (documentation/commands.md#consent-states-and-the-order-of-checks), for the whole batch."""
    if isinstance(payload, dict) and "deltas" in payload:
        extra = sorted(set(payload) - {"deltas"})
        if extra:
            raise _invalid(
                f"unknown key(s) beside deltas: {', '.join(map(_key_text, extra))}",
                None,
                "$." + _key_text(extra[0]),
            )
        items = payload["deltas"]
        if not isinstance(items, list):
            raise _invalid("deltas must be a list", None, "$.deltas")
        if not 1 <= len(items) <= policy.DELTAS_PER_APPLY_MAX:
            raise _invalid(
                f"deltas must hold 1 to {policy.DELTAS_PER_APPLY_MAX} items (got {len(items)})",
                None,
                "$.deltas",
                limit=policy.DELTAS_PER_APPLY_MAX,
            )
        prefixes = [f"$.deltas[{i}]" for i in range(len(items))]
    else:
        items = [payload]
        prefixes = ["$"]
    deltas = [
        normalize_delta(d, i, p) for i, (d, p) in enumerate(zip(items, prefixes, strict=True))
    ]
    keys: list[tuple[str, ...]] = [
        ("id", d["id"])
        if "id" in d
        else ("past_id", d["past_id"])
        if "past_id" in d
        else row_key(d)
        for d in deltas
    ]
    timeline.check_histories(deltas, keys, prefixes)
    for i, d in enumerate(deltas):
        check_policy(d, i, prefixes[i])
    return deltas


# ---------------------------------------------------------------------------
# Step 6: sensitive content, then eligibility


def check_policy(delta: Delta, index: int, prefix: str) -> None:
    if delta["action"] != "upsert":
        return
    if delta.get("sensitive"):
        raise MemoryStoreError(
            "SENSITIVE_REJECTED",
            "the delta is marked sensitive; sensitive data is never stored",
            {"index": index, "detector": "sensitive_flag", "path": f"{prefix}.sensitive"},
        )
    detector = sensitive_field(delta["field"]) if "field" in delta else None
    if detector:
        raise MemoryStoreError(
            "SENSITIVE_REJECTED",
            f"field names about {detector.replace('_', ' ')} are never stored",
            {"index": index, "detector": f"field:{detector}", "path": f"{prefix}.field"},
        )
    for key in ("value", "source_ref", "subject_id"):
        text = delta.get(key)
        if text:
            found = sensitive_text(text)
            if found:
                raise MemoryStoreError(
                    "SENSITIVE_REJECTED",
                    f"{key} looks like it contains {found.replace('_', ' ')}; it was not stored",
                    {"index": index, "detector": found, "path": f"{prefix}.{key}"},
                )
    if "past_id" in delta:
        return  # its row's scope is known once the row is found (writes/apply.py)
    check_eligible(delta["scope"], delta["source_type"], index, prefix)


def check_eligible(scope: str, source_type: str, index: int, prefix: str) -> None:
    """SOURCE_NOT_ELIGIBLE when ``source_type`` may not write to ``scope`` (references/memory-rules.md#source-types-and-eligibility-enforced)."""
    allowed = policy.ELIGIBILITY[scope]
    if source_type not in allowed:
        raise MemoryStoreError(
            "SOURCE_NOT_ELIGIBLE",
            f"source {source_type} may not write to scope {scope}",
            {
                "index": index,
                "scope": scope,
                "source_type": source_type,
                "allowed_source_types": list(allowed),
                "path": f"{prefix}.source_type",
            },
        )
