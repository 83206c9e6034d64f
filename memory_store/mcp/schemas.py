"""What ``tools/list`` publishes of each tool: its description and its input schema, in the
subset of JSON Schema every host accepts, derived from the registry and the full schemas.

A host sends the whole list to the model in every conversation (documentation/mcp.md#the-tools: at most
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
from ..errors import MemoryStoreError

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


# ---------------------------------------------------------------- a call's arguments

# What a value of each published type must be, in the command line's words. A number or a
# truth value written as text ("2000", "true"), which some hosts send, is still taken: the
# SDK reads it as the number or the truth value it says.
_TYPE_RULES = {
    "boolean": (
        "must be true or false",
        lambda v: isinstance(v, bool) or (isinstance(v, str) and v.lower() in ("true", "false")),
    ),
    "integer": (
        "must be an integer",
        lambda v: (
            (isinstance(v, int) and not isinstance(v, bool))
            or (isinstance(v, str) and v.strip().lstrip("-").isdigit() and v.strip().isascii())
        ),
    ),
    "string": ("must be non-empty UTF-8 text", lambda v: isinstance(v, str)),
    "object": ("must be one delta, a JSON object", lambda v: isinstance(v, dict)),
    "array": ("must be a list of deltas", lambda v: isinstance(v, list)),
}


def check_arguments(
    command: Command, schema: dict[str, Any], args: object
) -> dict[str, Any] | None:
    """The refusal (``{code, message, details}``) for a call whose arguments the tool does
    not take, lacks or cannot read, in the command line's words, before the SDK reads
    them: an unknown argument is never ignored (``dryrun`` for ``dry_run`` would write),
    and no library's text reaches the model. None when they fit the input schema; the
    library still checks each value's rule. ``schema`` is the tool's
    :func:`input_schema`, made once."""
    tool = command.tool.name
    props: dict[str, Any] = schema["properties"]
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return _refused(tool, "the arguments must be a JSON object", argument=None)
    unknown = sorted(set(args) - set(props))
    if unknown:
        import difflib

        near = [m for u in unknown for m in difflib.get_close_matches(u, list(props), 1, 0.6)]
        takes = f" ({tool} takes {', '.join(props)})." if props else f" ({tool} takes none)."
        hint = f"; did you mean {', '.join(near)}?" if near else takes
        return _refused(
            tool,
            f"unrecognized arguments: {', '.join(unknown)}{hint} Nothing was done.",
            argument=unknown[0],
            did_you_mean=near,
        )
    missing = [name for name in schema.get("required", []) if args.get(name) is None]
    if missing:
        return _refused(
            tool, f"the following arguments are required: {', '.join(missing)}", argument=missing[0]
        )
    options = {o.name: o for o in command.options}
    for name, value in args.items():
        rule = _broken_rule(props[name], options.get(name), value, name)
        if rule is None:
            continue
        if props[name].get("type") in ("object", "array"):  # apply's body: the CLI's code
            return {
                "code": "INVALID_DELTA",
                "message": rule,
                "details": {"index": None, "path": "$"},
            }
        return _refused(tool, rule, argument=name)
    return None


def _broken_rule(prop: dict[str, Any], option: Option | None, value: Any, name: str) -> str | None:
    """The rule ``value`` breaks, in words, or None (null stands for the default)."""
    if value is None:
        return None
    if "enum" in prop:
        return (
            None if value in prop["enum"] else f"{name} must be one of: {', '.join(prop['enum'])}"
        )
    words, fits = _TYPE_RULES.get(prop.get("type", ""), ("", lambda v: True))
    if fits(value):
        return None
    if option is not None and option.check is not None:
        try:
            option.check(value, name)  # the library's own words for its rule
        except MemoryStoreError as broken:
            return broken.message
    return f"{name} {words}"


def _refused(tool: str, message: str, argument: str | None, **details: Any) -> dict[str, Any]:
    return {
        "code": "INVALID_ARGUMENTS",
        "message": message,
        "details": {"tool": tool, "argument": argument, **details},
    }
