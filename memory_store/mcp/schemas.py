"""What ``tools/list`` publishes of each tool: its description and its input schema, in the
subset of JSON Schema every host accepts, derived from the registry and the full schemas.

A host sends the whole list to the model in every conversation (contract §23: at most
16,000 characters, 8,000 of them names, titles, descriptions, input schemas and
annotations). So an input schema is flat — types, enums, bounds and a few words, no
``allOf``/``anyOf``/``oneOf``/``if``/``not``, no ``$ref`` — and derived mechanically
(:func:`flat`) from the registry's options and ``references/schemas/delta.schema.json``,
so an argument or a delta key added there reaches the tools by itself. The rules the flat
schema leaves out (which keys a delete may carry, patterns, real dates) are checked on
every call against the full schemas, which answer with the envelope's code.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from .. import policy
from ..commands import Command, Option

# Keywords a flat schema drops: composition and conditions (several hosts reject them),
# annotations for people, and patterns, said in words in the descriptions instead.
_DROPPED = frozenset(
    (
        "allOf",
        "anyOf",
        "oneOf",
        "if",
        "then",
        "else",
        "not",
        "dependentRequired",
        "dependentSchemas",
        "$schema",
        "$id",
        "$comment",
        "title",
        "minLength",  # 1 on every string the store takes: an empty one is refused anyway
        "pattern",
        "format",
        "examples",
    )
)
_TYPE_OF_KIND = {"flag": "boolean", "int": "integer"}
# What a confirmed tool's result means is in the server's instructions, once.
CONFIRMED = " The person confirms."
LANGUAGE = {"enum": ["zh", "en"]}  # the user's: the question is asked in it


def flat(node: Any) -> Any:
    """A schema without composition, conditions, patterns or titles: what is left can only
    accept more than the full schema, never less."""
    if isinstance(node, list):
        return [flat(n) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key == "properties":  # names of keys, not keywords: a key may be called "title"
            out[key] = {name: flat(sub) for name, sub in value.items()}
        else:
            out[key] = flat(value)
    return out


def delta_schema() -> dict[str, Any]:
    """The delta as a flat schema (``schemas/delta.schema.json``, shipped in the package)."""
    text = resources.files("memory_store").joinpath("schemas/delta.schema.json").read_text("utf-8")
    schema = flat(json.loads(text))
    schema.pop("description", None)  # the argument's own words say what it is
    return schema


def _option_schema(option: Option) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    if option.kind == "object":
        schema = delta_schema()
    elif option.kind == "objects":
        # each item is a delta: its keys are published once, under delta
        schema = {"type": "array", "items": {"type": "object"}, "minItems": 1}
        schema["maxItems"] = policy.DELTAS_PER_APPLY_MAX
    else:
        schema = flat(option.schema)
        if "enum" not in schema:
            schema.setdefault("type", _TYPE_OF_KIND.get(option.kind, "string"))
        if option.kind == "int" and option.default is not None:
            schema["default"] = option.default
    words = option.help if option.tool_help == "" else option.tool_help
    if words:
        schema = {"description": words, **schema}
    return schema


def input_schema(command: Command) -> dict[str, Any]:
    """A tool's published input schema: its options but the command line's own, and for a
    tool the person confirms the language of the question."""
    props: dict[str, Any] = {}
    required = []
    for option in command.options:
        if option.cli_only:
            continue
        props[option.name] = _option_schema(option)
        if option.positional or option.required:
            required.append(option.name)
    if command.tool.confirm:
        props["language"] = dict(LANGUAGE)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def description(command: Command) -> str:
    """A tool's description, written for the model in the tools' terms (``Tool.description``;
    the command's help where a tool has none)."""
    text = command.tool.description or command.help
    return text + CONFIRMED if command.tool.confirm else text
