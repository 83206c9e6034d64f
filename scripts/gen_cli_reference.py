#!/usr/bin/env python3
"""Render references/cli.md from the real argparse parser.

Commands, options, metavars, defaults and help text come from
``memory_store.cli`` (``COMMANDS``, ``build_parser``, ``build_command_parser``);
the keys of each command's ``data`` come from the hand-maintained
``OUTPUT_KEYS`` table below, which ``tests/test_docs.py`` checks against the
published JSON Schemas. The test also checks that the committed file equals
this script's output, so after changing the parser or the table run:

    python scripts/gen_cli_reference.py            # rewrite references/cli.md
    python scripts/gen_cli_reference.py --check    # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "references" / "cli.md"

if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from memory_store import cli, policy  # noqa: E402

ROW = "row"
ROWS = "list of rows"

ERASED = (
    "erased",
    "bool",
    "the bytes are physically gone (false: another process held the file; the next write finishes)",
)

# command -> [(key, type, meaning)]. Keep in step with references/schemas/<command>.data.schema.json
# (tests/test_docs.py compares the key sets). "row" is the object of contract §6, see the top of the file.
OUTPUT_KEYS: dict[str, list[tuple[str, str, str]]] = {
    "status": [
        ("exists", "bool", "a database file exists; when false nothing else was read"),
        (
            "consent_enabled",
            "bool / null",
            "the user's consent is in force (null: store from a newer release)",
        ),
        ("consent_at", "time / null", "when the user first agreed"),
        ("paused", "bool / null", "memory is paused"),
        ("policy_version", "int / null", "policy the consent was given under"),
        ("schema_version", "int / null", "the database schema version (`PRAGMA user_version`)"),
        ("counts", "object / null", "`total` and `by_scope` (rows per scope)"),
        (
            "limits",
            "object",
            "the caps: `value_chars`, `total_rows`, `by_scope` (`max`, `per`, `policy`), `undo_history`, `deltas_per_apply`, `input_bytes`",
        ),
        ("undo_available", "int / null", f"operations `undo` can revert (0-{policy.HISTORY_MAX})"),
        ("path", "string", "the database file (for host logs; never shown to the user)"),
    ],
    "enable": [
        ("consent_enabled", "true", "consent is in force"),
        ("consent_at", "time", "first consent (kept when consent is renewed)"),
        ("consent_renewed_at", "time", "this consent"),
        ("paused", "false", "enable lifts a pause"),
        ("policy_version", "int", "the policy consented to"),
        ("schema_version", "int", "the database schema version"),
        ("created", "bool", "this call created the database file"),
        ("path", "string", "the database file (for host logs; never shown to the user)"),
    ],
    "pause": [
        ("paused", "true", "apply and context now refuse with `MEMORY_PAUSED`"),
        ("changed", "bool", "false if it was already paused"),
        ("consent_enabled", "true", "consent is unchanged"),
    ],
    "resume": [
        ("paused", "false", "apply and context work again"),
        ("changed", "bool", "false if it was not paused"),
        ("consent_enabled", "true", "consent is unchanged"),
    ],
    "apply": [
        (
            "op_id",
            "string / null",
            "the operation to undo; null for a dry run or when nothing changed",
        ),
        (
            "results",
            "list",
            "per delta: `index`, `action` (`created`, `updated`, `unchanged`, `deleted`), `memory` (row)",
        ),
        ("pruned", ROWS, "rows removed to keep a pruning kind (event, hypothesis) within its cap"),
        ("summary", "string", 'one line such as "obj-a relationship.stage → …"'),
        ("undo_hint", "string / null", "the command that reverts this operation"),
        ("dry_run", "bool", "true when nothing was written"),
    ],
    "undo": [
        ("undone_op_id", "string", "the operation reverted"),
        ("restored", ROWS, "rows put back from the before-snapshot"),
        ("removed", ROWS, "rows the operation had created"),
        ("summary", "string", '"undid: …"'),
        ("erased", "bool", "the removed values are physically gone from the files"),
    ],
    "log": [
        (
            "operations",
            "list",
            "newest first: `op_id`, `created_at`, `action`, `summary`, `rows` (rows touched)",
        ),
    ],
    "show": [
        ("count", "int", "number of rows"),
        ("memories", ROWS, "ordered by scope, subject, field, event date"),
    ],
    "context": [
        ("subject_id", "string / null", "the subject asked for"),
        ("subject_known", "bool", "only with a subject other than `user`: false for a new subject"),
        ("memories", ROWS, "most important first; rows with scope `hypothesis` are tentative"),
        (
            "roster",
            "list",
            "only without a subject: `subject_id`, `display_label`, `counts`, `last_updated`, at most 50",
        ),
        ("truncated", "bool", "some memories did not fit in `max_chars`"),
        ("omitted", "int", "how many were left out"),
        ("max_chars", "int", "the budget used"),
    ],
    "forget": [
        ("deleted", "int", "live rows removed"),
        ("operations_removed", "int", "undo operations that mentioned the row, removed"),
        ERASED,
    ],
    "forget-object": [
        ("deleted", "int", "live rows of the subject removed, all scopes"),
        ("operations_removed", "int", "undo operations that mentioned the subject, removed"),
        ERASED,
    ],
    "revoke": [
        ("consent_enabled", "false", "consent withdrawn"),
        ("deleted", "bool", "true with `--delete`: the store and its files are gone"),
        ("paused", "true", "without `--delete` only: data kept, memory paused"),
        ("rows_deleted", "int", "with `--delete` only: memories that were erased"),
        (
            "erased",
            "bool",
            "with `--delete` only: the bytes were erased before the files were removed",
        ),
    ],
    "clear": [
        ("deleted", "int", "rows removed"),
        ("operations_removed", "int", "undo operations removed"),
        ("erased", "bool", "the bytes are physically gone"),
    ],
    "export": [
        (
            "document",
            "object",
            "without `--output`: the `memory-store-export/v1` document (`schemas/export.schema.json`)",
        ),
        ("path", "string", "with `--output`: the file created (mode 600)"),
        ("count", "int", "with `--output`: memories written"),
    ],
    "doctor": [
        ("ok", "bool", "no finding has severity `error`"),
        (
            "findings",
            "list",
            "`check`, `severity` (`ok`, `info`, `warning`, `error`), `message`, optional `details`",
        ),
        ("fixed", "list", "files whose mode `--fix` repaired"),
    ],
}

# Hand-written notes printed under a command's usage.
NOTES: dict[str, str] = {
    "status": "Works in every state and never creates anything; on a missing store `exists` is false.",
    "enable": "Run it only after the user's explicit yes. Without `--confirm`: `CONFIRMATION_REQUIRED`, nothing created. It is the only command that creates the directory (mode 700) and the database (mode 600).",
    "pause": "Needs consent (`CONSENT_REQUIRED` otherwise); idempotent.",
    "resume": "Needs consent (`CONSENT_REQUIRED` otherwise); idempotent.",
    "apply": (
        "The body comes from `--json`, `--file` or standard input (at most 64 KiB): one delta "
        '(`schemas/delta.schema.json`) or `{"deltas": [ … ]}` with 1-20 of them. A delta with '
        '`"action": "delete"` names a row by `id`, or by `scope`, `subject_id`, `field` (and '
        "`occurred_at` for an event), and carries nothing else. Consent is checked before the "
        "body is read. The whole batch is one operation: all of it is written, or none."
    ),
    "undo": "Not itself undoable. `UNDO_CONFLICT` lists in `details.later_op_ids` the operations to undo first.",
    "log": "Works in any consent state. `rows` is how many rows the operation touched; give `op_id` to `undo --op-id`.",
    "show": "Works in any consent state (the user's right of access).",
    "context": (
        "Needs consent and no pause; never writes. With a subject: the user profile, the "
        "subject's object and relationship rows, its hypotheses and its 8 most recent events. "
        "Without one: the user profile and a roster of subjects. What does not fit in "
        "`--max-chars` (measured on the JSON of `memories`) is dropped lowest priority first."
    ),
    "forget": "Not undoable. `MEMORY_NOT_FOUND` when no live row and no undo snapshot has that id.",
    "forget-object": (
        "Not undoable; `forget-object user --confirm` forgets the user's own profile. "
        "`SUBJECT_NOT_FOUND` lists the known subject ids in `details.known_subjects`."
    ),
    "revoke": (
        "`revoke --confirm` keeps the data and pauses; apply and context then answer "
        "`CONSENT_REQUIRED` until `enable --confirm`. `revoke --delete --confirm` is "
        "irreversible, works on a missing, damaged or newer-release store, and leaves the "
        "directory empty."
    ),
    "clear": "Not undoable; consent stays as it is.",
    "export": "Works in any consent state. `--output` refuses an existing file (`INVALID_ARGUMENTS`).",
    "doctor": "Read-only (apart from `--fix`); a damaged store is reported as a finding with `ok: false`, not as an error.",
}

HEADER = """\
# memory-store command-line reference

<!-- Generated by scripts/gen_cli_reference.py from the argparse parser in
memory_store/cli.py. Do not edit by hand: tests/test_docs.py fails when this
file differs from the script's output. -->

```
memory-store [GLOBAL OPTIONS] COMMAND [OPTIONS]
python -m memory_store [GLOBAL OPTIONS] COMMAND [OPTIONS]
```

Every invocation prints exactly one JSON object on stdout — the envelope
`{"schema": "memory-store/v1", "ok", "command", "data", "error"}` — and exits
with the status of its error code (0 on success). `--help` is the one
exception: it prints help text and exits 0. The codes and statuses are in
[error-codes.md](error-codes.md); the JSON Schemas of the envelope and of each
command's `data` are in [schemas/](schemas/). Global options go **before** the
command; an option the command does not know is `INVALID_ARGUMENTS` (exit 2).

A *row* below is one memory, an object with exactly the keys `id`, `scope`,
`subject_id`, `field`, `value`, `source_type`, `source_ref`, `occurred_at`,
`confidence`, `created_at`, `updated_at` (`schemas/memory.schema.json`). Times
are UTC, `YYYY-MM-DDTHH:MM:SSZ`. Later releases may add keys to `data`; the
keys listed here are never renamed.

`enable` and the destructive commands (`forget`, `forget-object`, `revoke`,
`clear`) need `--confirm`, to be given only after the user's own explicit
words; without it they answer `CONFIRMATION_REQUIRED` and change nothing.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _usage(parser: argparse.ArgumentParser) -> str:
    # A wide formatter, so the text does not depend on the terminal's width.
    formatter = argparse.HelpFormatter(parser.prog, width=1000)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    groups = {
        id(action): group
        for group in parser._mutually_exclusive_groups
        for action in group._group_actions
    }
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            name = ", ".join(f"`{s}`" for s in action.option_strings)
        else:
            name = f"`{action.metavar or action.dest.upper()}` (positional)"
        if action.nargs == 0:
            takes = "flag"
        elif action.choices:
            takes = " \\| ".join(f"`{c}`" for c in action.choices)
        else:
            takes = f"`{action.metavar or action.dest.upper()}`"
        notes = []
        if action.required or not action.option_strings:
            notes.append("required")
        if (
            action.nargs != 0
            and action.default not in (None, argparse.SUPPRESS)
            and "default" not in (action.help or "")
        ):
            notes.append(f"default `{action.default}`")
        if action.type is cli._scope:
            notes.append("one of " + ", ".join(f"`{s}`" for s in policy.SCOPES))
        if id(action) in groups:
            others = [
                a.option_strings[0]
                for a in groups[id(action)]._group_actions
                if a is not action and a.option_strings
            ]
            notes.append("not with " + ", ".join(f"`{o}`" for o in others))
        meaning = _cell(action.help or "")
        if notes:
            meaning = f"{meaning} ({'; '.join(notes)})" if meaning else "; ".join(notes)
        rows.append(f"| {name} | {takes} | {meaning} |")
    return rows


def render() -> str:
    out = [HEADER]
    top = cli.build_parser()
    out.append("## Global options\n")
    out.append(f"```\n{_usage(top)}\n```\n")
    out.append("| option | takes | meaning |")
    out.append("|---|---|---|")
    out.extend(row for row in _option_rows(top) if "(positional)" not in row)
    out.append("")
    out.append(
        "The store's directory is `--data-dir` if given, else `MEMORY_STORE_DIR`, else the "
        "platform's user data directory (see `documentation/variables.md`).\n"
    )
    out.append("## Commands\n")
    out.append("| command | what it does |")
    out.append("|---|---|")
    for name, (help_text, _) in cli.COMMANDS.items():
        out.append(f"| [`{name}`](#{name}) | {_cell(help_text)} |")
    out.append("")
    for name, (help_text, _) in cli.COMMANDS.items():
        parser = cli.build_command_parser(name)
        out.append(f"### {name}\n")
        out.append(f"{help_text}\n")
        out.append(f"```\n{_usage(parser)}\n```\n")
        out.append(f"{NOTES[name]}\n")
        rows = _option_rows(parser)
        if rows:
            out.append("| option | takes | meaning |")
            out.append("|---|---|---|")
            out.extend(rows)
        else:
            out.append("No options.")
        out.append("")
        out.append(f"Keys of `data` (`schemas/{name}.data.schema.json`):\n")
        out.append("| key | type | meaning |")
        out.append("|---|---|---|")
        for key, kind, meaning in OUTPUT_KEYS[name]:
            out.append(f"| `{key}` | {kind} | {_cell(meaning)} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if args == ["--check"]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale; run scripts/gen_cli_reference.py")
            return 1
        return 0
    if args:
        print(__doc__)
        return 2
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
