"""jsonschema, the reference that writes/shape.py must agree with (documentation/performance.md).

``reference_error`` is what `apply` reported before it stopped importing jsonschema:
``jsonschema.exceptions.best_match`` over the packaged delta schema. jsonschema drops
the name of a key that a ``false`` schema refuses (its error has an empty path); the
name is recovered here from the schema path and the order of the errors, so that the
two can be compared on the refusal's path as well.

``agreeing(normalize_delta)`` runs the product's check with both and fails loudly on
any difference of outcome: tests/conftest.py wraps every call of the suite with it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import jsonschema
import jsonschema.exceptions

from memory_store.errors import MemoryStoreError

from . import ROOT


@lru_cache(maxsize=1)
def delta_schema() -> dict[str, Any]:
    path = ROOT / "memory_store" / "schemas" / "delta.schema.json"
    return json.loads(path.read_text("utf-8"))


@lru_cache(maxsize=1)
def _validator() -> Any:
    schema = delta_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def _refused_key(best: Any, siblings: list[Any], delta: Any) -> str | None:
    """The key a false-schema error stands for: its position among its siblings from
    the same ``properties`` is its key's position among the refused keys present."""
    node: Any = delta_schema()
    for step in best.absolute_schema_path:
        node = node[step]
    if not isinstance(node, dict) or not isinstance(delta, dict):
        return None
    refused = [k for k, sub in node.items() if sub is False and k in delta]
    same = [
        e
        for e in siblings
        if e.validator is None and list(e.absolute_schema_path) == list(best.absolute_schema_path)
    ]
    position = next(i for i, e in enumerate(same) if e is best)
    return refused[position]


def reference_error(delta: Any) -> Any | None:
    errors = list(_validator().iter_errors(delta))
    best = jsonschema.exceptions.best_match(errors)
    if best is None:
        return None
    best.key = None
    if best.validator is None:
        siblings = best.parent.context if best.parent is not None else errors
        best.key = _refused_key(best, siblings, delta)
    return best


def outcome(normalize: Any, delta: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", normalize(delta, *args, **kwargs)
    except MemoryStoreError as exc:
        return exc.code, (exc.message, exc.details)


def agreeing(normalize: Any) -> Any:
    """``normalize_delta`` that also runs with jsonschema and asserts the same outcome."""

    def checked(delta: Any, index: int, prefix: str, **kwargs: Any) -> Any:
        ref = outcome(normalize, delta, index, prefix, first_error=reference_error)
        try:
            fast = normalize(delta, index, prefix, **kwargs)
        except MemoryStoreError as exc:
            got: tuple[str, Any] = (exc.code, (exc.message, exc.details))
            assert got == ref, f"shape.py and jsonschema disagree on {delta!r}: {got} != {ref}"
            raise
        assert ref == ("ok", fast), f"shape.py and jsonschema disagree on {delta!r}: {ref}"
        return fast

    return checked
