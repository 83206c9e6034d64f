"""Commands that write memories and their history: apply, undo, log, tidy."""

from __future__ import annotations

from . import ROWS, TEXT_SCHEMA, Command, Option, check_text, subject_option

FAMILY = (
    Command(
        "apply",
        'Record one delta or a batch {"deltas": [...]} in one undoable operation.',
        (
            Option(
                "json",
                "text",
                "the delta or batch as JSON text",
                metavar="TEXT",
                cli_only=True,
                group="source",
            ),
            Option(
                "file",
                "path",
                "read the delta or batch from a file",
                metavar="PATH",
                cli_only=True,
                group="source",
            ),
            Option(
                "delta",
                "object",
                "one change; or give deltas",
                tool_only=True,
            ),
            Option(
                "deltas",
                "objects",
                "several changes like delta, one undo step",
                tool_only=True,
            ),
            Option(
                "dry_run", "flag", "validate and report, write nothing", tool_help="write nothing"
            ),
            Option(
                "verbose",
                "flag",
                "whole rows in the result, not compact ones",
                tool_help="whole rows",
            ),
        ),
        lambda s, a: s.apply(a["payload"], dry_run=a["dry_run"], verbose=a["verbose"]),
        (
            (
                "op_id",
                "string / null",
                "the operation to undo; null for a dry run or when nothing changed",
            ),
            (
                "results",
                "list",
                "per delta: `index`, `action` (`created`, `updated`, `unchanged`, `deleted`, "
                "`ended`, `past_deleted`, `past_corrected`), `memory` (the compact row; whole "
                "with `--verbose`); `related` (current rows of the same concept, `id`, `field`, "
                "`value`, `since`) when it created a second one; `replaced` (the row a "
                "`replaces` ended); `past_id` (a delta that named a past value); `warnings` "
                "(`unlabelled_subject`: a new subject with no `display_label` in the batch; "
                "`similar_label`: another subject's label has the same leading name, in "
                "`subjects`)",
            ),
            (
                "pruned",
                ROWS,
                "rows removed to keep a pruning kind (event, hypothesis) within its cap "
                "(compact; whole with `--verbose`)",
            ),
            ("summary", "string", 'one line such as "obj-a relationship.stage → …"'),
            ("undo_hint", "string / null", "the command that reverts this operation"),
            ("dry_run", "bool", "true when nothing was written"),
        ),
        "The body comes from `--json`, `--file` or standard input (at most 64 KiB): one delta "
        '(`schemas/delta.schema.json`) or `{"deltas": [ … ]}` with 1-20 of them. A delta with '
        '`"action": "delete"` names a row by `id`, or by `scope`, `subject_id`, `field` (and '
        '`occurred_at` for an event), and carries nothing else; `"action": "end"` names a '
        "profile, person or relationship row the same way (with `occurred_at`, the day it "
        'stopped) and keeps its value as past. `"correction": true` replaces a value without '
        'keeping it as past; `"replaces": "<id>"` ends a same-concept row in the same '
        'operation; `"pinned": true` keeps an event from pruning (documentation/time.md). '
        '`{"action": "delete", "past_id": "p-…"}` removes one past value and `{"past_id": '
        '"p-…", "value": …, "correction": true}` corrects it. A `subject_id` that is no known '
        "code but loosely a known label is `SUBJECT_NOT_FOUND` with `details.did_you_mean`. "
        "Consent is checked before the body is read. The whole batch is one operation: all "
        "of it is written, or none.",
    ),
    Command(
        "undo",
        "Revert the latest operation, or the one named.",
        (
            Option(
                "op_id",
                "text",
                "the operation to revert (see log)",
                tool_help="default: the latest",
                metavar="ID",
                check=check_text,
                schema=TEXT_SCHEMA,
            ),
        ),
        lambda s, a: s.undo(op_id=a["op_id"]),
        (
            ("undone_op_id", "string", "the operation reverted"),
            ("restored", ROWS, "rows put back from the before-snapshot"),
            ("removed", ROWS, "rows the operation had created"),
            ("summary", "string", '"undid: …"'),
            ("erased", "bool", "the removed values are physically gone from the files"),
        ),
        "Not itself undoable. `UNDO_CONFLICT` lists in `details.later_op_ids` the operations to undo first.",
    ),
    Command(
        "log",
        "List the undoable operations, newest first.",
        (),
        lambda s, a: s.log(),
        (
            (
                "operations",
                "list",
                "newest first: `op_id`, `created_at`, `action`, `summary`, `rows` (rows touched)",
            ),
        ),
        "Works in any consent state. `rows` is how many rows the operation touched; give `op_id` to `undo --op-id`.",
    ),
    Command(
        "tidy",
        "Find what has doubled, gone stale or ended, and propose an apply that fixes it.",
        (subject_option("only this subject"),),
        lambda s, a: s.tidy(subject_id=a["subject_id"]),
        (
            ("subject_id", "string / null", "the subject looked at; null for the whole store"),
            (
                "findings",
                "list",
                "each `kind` (`same_concept`, `stale_hypothesis`, `relative_date`, `near_cap`, "
                "`ended`, `past_plan`, `unlabelled_subject`, `similar_label`), `subject_id`, "
                "`ids` (rows it is "
                "about), `message`",
            ),
            (
                "proposal",
                "object / null",
                'an `apply` body (`{"deltas": [...]}`, at most 20) resolving what can be resolved '
                "mechanically: end the older of two same-concept rows, delete stale hypotheses; "
                "null when there is nothing to apply",
            ),
            ("steps", "list", "what each delta of `proposal` does, in words, in its order"),
        ),
        "Needs consent and no pause (it reads memory content, like `context`); never writes. "
        "Show the findings to the person and apply `proposal` only on their yes: it is then "
        "one undoable operation. Run it when `status` shows kinds filling up.",
    ),
)
