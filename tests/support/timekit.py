"""Helpers shared by the tests of documentation/time.md#where-history-lives (memory that knows time).

Every recall answer these tests read goes through :func:`assert_marked`: a row whose
value is not that row's current value in ``show`` must carry ``until`` (documentation/time.md#recall: "a value
that is no longer current is never returned without until").
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from . import ROOT, ok

SCHEMAS = ROOT / "references" / "schemas"


def today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def shown() -> dict[str, dict[str, Any]]:
    """Every stored row by id, as ``show`` gives it."""
    return {m["id"]: m for m in ok("show")["memories"]}


def row(memory_id: str) -> dict[str, Any]:
    return shown()[memory_id]


def assert_marked(answer: dict[str, Any]) -> dict[str, Any]:
    """Check a context or search answer against ``show``; return it."""
    current = {m["id"]: m["value"] for m in ok("show")["memories"]}
    for m in answer["memories"]:
        assert m["id"] in current, m
        if m["value"] != current[m["id"]]:
            assert "until" in m and "since" in m, m
        else:
            assert "until" not in m, m
    return answer


def context(*args: str) -> dict[str, Any]:
    return assert_marked(ok("context", *args))


def search(*args: str) -> dict[str, Any]:
    return assert_marked(ok("search", *args))


def values(answer: dict[str, Any]) -> list[str]:
    return [m["value"] for m in answer["memories"]]


def by_value(answer: dict[str, Any], value: str) -> dict[str, Any]:
    found = [m for m in answer["memories"] if m["value"] == value]
    assert len(found) == 1, (value, answer["memories"])
    return found[0]


def _registry() -> Registry:
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in SCHEMAS.glob("*.json")}
    return Registry().with_resources(
        (name, Resource.from_contents(schema)) for name, schema in schemas.items()
    )


def schema_errors(name: str, instance: Any) -> list[str]:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema, registry=_registry())
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}"
        for e in validator.iter_errors(instance)
    ]
