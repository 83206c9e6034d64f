"""A delta's shape, checked against its JSON Schema without importing jsonschema.

`apply` runs on every turn of a conversation; importing jsonschema costs several times
the interpreter's own start (documentation/performance.md). The schema is small and
uses a dozen keywords, so this module evaluates it directly (from writes/delta_schema.py,
generated from memory_store/schemas/delta.schema.json) and picks the error to report the
way ``jsonschema.exceptions.best_match`` does. jsonschema stays the reference:
tests/writes/test_shape_agrees.py runs both over the schema's examples, the suite's
refusals and generated deltas, and they agree on every accept and refuse, code and path.

One difference, on purpose: where a key is not allowed (a ``false`` schema), jsonschema's
error loses the key's name; here it keeps it in ``key``, so the refusal can name it
(documentation/time.md). It is ranked as jsonschema ranks it.
"""

from __future__ import annotations

import re

from .delta_schema import SCHEMA

TYPE_CHECKING = False  # typing costs a few ms to import; every write would pay it
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

WEAK = ("anyOf", "oneOf")
_UNSET: Any = object()


class SchemaError:
    """What jsonschema's ``ValidationError`` carries that validation.py reads."""

    __slots__ = (
        "validator",
        "validator_value",
        "instance",
        "schema",
        "path",
        "context",
        "parent",
        "key",
    )

    def __init__(self, instance: Any = _UNSET, schema: Any = _UNSET, validator: Any = _UNSET):
        self.validator = validator
        self.validator_value: Any = None if validator is None else _UNSET
        self.instance = instance
        self.schema = schema
        self.path: tuple[Any, ...] = ()
        self.context: list[SchemaError] = []
        self.parent: SchemaError | None = None
        self.key: str | None = None  # the key a ``false`` schema refused

    @property
    def absolute_path(self) -> tuple[Any, ...]:
        return self.path if self.parent is None else self.parent.absolute_path + self.path


def _is_type(instance: Any, name: str) -> bool:
    if name == "string":
        return isinstance(instance, str)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "object":
        return isinstance(instance, dict)
    raise ValueError(f"type {name!r} is not evaluated by writes/shape.py")


def _equal(a: Any, b: Any) -> bool:
    """jsonschema's equality for enum and const: True is not 1, False is not 0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _type(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    names = [v] if isinstance(v, str) else v
    if not any(_is_type(instance, n) for n in names):
        yield SchemaError()


def _enum(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if all(not _equal(each, instance) for each in v):
        yield SchemaError()


def _const(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if not _equal(instance, v):
        yield SchemaError()


def _pattern(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if not isinstance(instance, str):
        return
    plain = _PLAIN_PATTERNS.get(v)
    if not (plain(instance) if plain else re.search(v, instance)):
        yield SchemaError()


# The two patterns nearly every delta meets (a field name, a subject id), read with
# str methods: compiling one costs a write ~0.4 % of the interpreter's start
# (documentation/performance.md). The same answers as re.search, "$" matching before
# a final newline included; tests/writes/test_shape_agrees.py compares them.
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_FIELD_CHARS = _LOWER | frozenset("0123456789_")
_ALNUM = _LOWER | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_SUBJECT_CHARS = _ALNUM | frozenset("_.:-")


def _chars(text: str, first: frozenset[str], rest: frozenset[str]) -> bool:
    if text.endswith("\n"):
        text = text[:-1]
    return 0 < len(text) <= 64 and text[0] in first and rest.issuperset(text)


_PLAIN_PATTERNS = {
    "^[a-z][a-z0-9_]{0,63}$": lambda t: _chars(t, _LOWER, _FIELD_CHARS),
    "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$": lambda t: _chars(t, _ALNUM, _SUBJECT_CHARS),
}


def _min_length(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if isinstance(instance, str) and len(instance) < v:
        yield SchemaError()


def _max_length(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if isinstance(instance, str) and len(instance) > v:
        yield SchemaError()


def _additional(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if v is not False or not isinstance(instance, dict):
        return  # the generator admits only true or false here
    known = schema.get("properties", {})
    if any(k not in known for k in instance):
        yield SchemaError()


def _properties(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if not isinstance(instance, dict):
        return
    for name, sub in v.items():
        if name in instance:
            yield from _descend(instance[name], sub, name)


def _required(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if isinstance(instance, dict):
        for name in v:
            if name not in instance:
                yield SchemaError()


def _all_of(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    for sub in v:
        yield from _descend(instance, sub)


def _one_of(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    subs = iter(v)
    found: list[SchemaError] = []
    for sub in subs:
        errors = list(_descend(instance, sub))
        if not errors:
            break
        found.extend(errors)
    else:
        error = SchemaError()
        error.context = found
        for each in found:
            each.parent = error
        yield error
    if any(is_valid(instance, sub) for sub in subs):
        yield SchemaError()


def _not(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if is_valid(instance, v):
        yield SchemaError()


def _if(v: Any, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if is_valid(instance, v):
        if "then" in schema:
            yield from _descend(instance, schema["then"])
    elif "else" in schema:
        yield from _descend(instance, schema["else"])


KEYWORDS = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "pattern": _pattern,
    "minLength": _min_length,
    "maxLength": _max_length,
    "additionalProperties": _additional,
    "properties": _properties,
    "required": _required,
    "allOf": _all_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
}


def _descend(instance: Any, schema: Any, name: str | None = None) -> Iterator[SchemaError]:
    if schema is True:
        return
    if schema is False:
        # As jsonschema: the error of a false schema is not placed under the key's
        # name (so it ranks as a whole-delta error), but the name is kept.
        error = SchemaError(instance, False, None)
        error.key = name
        yield error
        return
    for keyword, value in schema.items():
        check = KEYWORDS.get(keyword)
        if check is None:
            continue
        for error in check(value, instance, schema):
            if error.validator is _UNSET:
                error.validator, error.validator_value = keyword, value
                error.instance, error.schema = instance, schema
            if name is not None:
                error.path = (name, *error.path)
            yield error


def is_valid(instance: Any, schema: Any) -> bool:
    return next(_descend(instance, schema), None) is None


def _matches_type(error: SchemaError) -> bool:
    schema = error.schema
    if not isinstance(schema, dict) or "type" not in schema:
        return False
    names = schema["type"]
    names = [names] if isinstance(names, str) else names
    return any(_is_type(error.instance, n) for n in names)


def _relevance(error: SchemaError) -> tuple[Any, ...]:
    # jsonschema.exceptions.relevance: shallow errors first, then the later key,
    # then any keyword but oneOf/anyOf, then an error whose value has the wrong type.
    return (-len(error.path), error.path, error.validator not in WEAK, not _matches_type(error))


def best_match(errors: Iterator[SchemaError]) -> SchemaError | None:
    """``jsonschema.exceptions.best_match`` with its default relevance."""
    best = max(errors, key=_relevance, default=None)
    if best is None:
        return None
    while best.context:
        smallest = sorted(best.context, key=_relevance)[:2]  # heapq.nsmallest, stable too
        if len(smallest) == 2 and _relevance(smallest[0]) == _relevance(smallest[1]):
            return best
        best = smallest[0]
    return best


def first_error(delta: Any) -> SchemaError | None:
    """The error jsonschema would report first for ``delta``, or None if it is valid."""
    return best_match(_descend(delta, SCHEMA))


def not_allowed(key: str | None, delta: dict[str, Any]) -> str:
    """Why ``key`` may not be in this delta (its schema is ``false`` here), in words that
    name the key and the rule, and say what to do: never "delta is invalid (None)"."""
    key = key or "a key"
    action = delta.get("action", "upsert")
    row_keys = ("id", "scope", "subject_id", "field", "occurred_at")
    if "past_id" in delta:
        if action == "delete" or key in row_keys:
            return (
                f"{key} does not go with past_id: the past_id alone names the past value "
                f"and its memory; remove {key}"
            )
        return (
            f"{key} does not go with past_id: correcting a past value changes its value "
            f"only (source_type may be given); remove {key}"
        )
    if action in ("delete", "end"):
        if "id" in delta and key in (*row_keys, "past_id"):
            return f"{key} does not go with id: the id alone names the memory; remove {key}"
        return f"{key} does not go with action {action}, which writes no value; remove {key}"
    if key == "id":
        return "id does not go with an upsert: name the memory by scope, subject_id and field"
    if key == "pinned":
        return "pinned is for events only (a milestone never pruned); remove pinned"
    if key == "replaces":
        return f"replaces is not for {delta.get('scope')} memories; remove replaces"
    return f"{key} is not allowed in this delta; remove {key}"
