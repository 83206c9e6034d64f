"""Commands that read memories back: show, context, search (every assistant turn calls
``context``: this family is kept small, since each call imports all of it)."""

from __future__ import annotations

from .. import policy
from . import (
    AS_OF,
    BUDGET_HELP,
    MAX_CHARS_SCHEMA,
    QUERY,
    ROWS,
    SCOPE_SCHEMA,
    Command,
    Option,
    check_limit,
    check_max_chars,
    check_query,
    check_scope,
    subject_option,
)

# show's and search's --scope
ONLY_SCOPE = Option(
    "scope",
    "scope",
    "only this scope",
    tool_help=None,  # a filter by its name and its enum
    metavar="K",
    check=check_scope,
    schema=SCOPE_SCHEMA,
)

FAMILY = (
    Command(
        "show",
        "Show everything stored, optionally for one subject or scope.",
        (
            subject_option("only this subject"),
            ONLY_SCOPE,
        ),
        lambda s, a: s.show(subject_id=a["subject_id"], scope=a["scope"]),
        (
            (
                "subject_id",
                "string / null",
                "the subject shown: the code given, or the one whose `display_label` was given",
            ),
            ("count", "int", "number of rows"),
            ("memories", ROWS, "ordered by scope, subject, field, event date"),
        ),
        "Works in any consent state (the user's right of access).",
    ),
    Command(
        "context",
        "Recall what matters for one subject, within a character budget.",
        (
            subject_option("the person being discussed"),
            Option(
                "max_chars",
                "int",
                BUDGET_HELP,
                metavar="N",
                default=policy.CONTEXT_MAX_CHARS_DEFAULT,
                check=check_max_chars,
                schema=MAX_CHARS_SCHEMA,
                tool_help=None,  # the name and the bounds say it,
            ),
            QUERY,
            AS_OF,
        ),
        lambda s, a: s.context(
            subject_id=a["subject_id"],
            max_chars=a["max_chars"],
            query=a["query"],
            as_of=a["as_of"],
        ),
        (
            (
                "subject_id",
                "string / null",
                "the subject asked for: the code given, or the one whose `display_label` was given",
            ),
            (
                "subject_known",
                "bool",
                "only with a subject other than `user`: false for a new subject",
            ),
            (
                "memories",
                "list of compact rows",
                "most important (or most relevant) first; rows with scope `hypothesis` are tentative",
            ),
            (
                "roster",
                "list",
                "only without a subject: `subject_id`, `display_label`, `counts`, `last_updated`, at most 50",
            ),
            (
                "truncated",
                "bool",
                "some memories (or roster entries) did not fit in `max_chars`",
            ),
            ("omitted", "int", "how many were left out"),
            ("max_chars", "int", "the budget used"),
            ("query", "string / null", "the query, trimmed; null without `--query`"),
            (
                "as_of",
                "object / null",
                "with `--query` or `--as-of`: the time the values first in `memories` were "
                "true at, `{date}` or `{from, until}`, with the `id` (and `past_id`) of the "
                "event or value that named it; null when the question names none",
            ),
            (
                "ranked_by",
                "string",
                "`relevance` with `--query`, else `priority` (release 1's order)",
            ),
        ),
        "Needs consent and no pause; never writes. Rows are compact (`schemas/context.data.schema.json`): "
        "`id`, `scope`, `field`, `value`, and `subject_id`, `occurred_at`, `confidence`, "
        "`source_type`, `source_ref`, `since`, `pinned` only when they tell the reader something; "
        "a value that is no longer current always carries `until`. With a subject: the "
        "user profile, the subject's object and relationship rows, its hypotheses and its 8 most "
        "recent events with every pinned one, most important first. With `--query`: the "
        "subject's `display_label` first, then every row the query matches (all of the "
        "subject's events and the past values of its rows are candidates; past values rank "
        "with current rows for a question about time, after them otherwise), best first, then "
        'the rest in that order. A question naming a time by an event or a value ("back in '
        'Chicago", "刚认识那会儿"), or `--as-of DATE`: the values true then first, the asked '
        "field's first (`data.as_of`). Without a subject: the user profile and a roster of "
        "subjects, which counts against the budget too. What does not fit in `--max-chars` "
        "(measured on the JSON of `memories`) is dropped from the end.",
    ),
    Command(
        "search",
        "Find the memories a question matches, across subjects: who, and what.",
        (
            Option(
                "query",
                "text",
                f"what to look for, in the user's words (1-{policy.QUERY_CHARS_MAX} characters)",
                metavar="TEXT",
                check=check_query,
                required=True,
                schema={"type": "string", "minLength": 1, "maxLength": policy.QUERY_CHARS_MAX},
                tool_help="in the user's words",
            ),
            subject_option("only this subject"),
            ONLY_SCOPE,
            Option(
                "limit",
                "int",
                f"at most N rows, {policy.SEARCH_LIMIT_MIN}-{policy.SEARCH_LIMIT_MAX} "
                f"(default {policy.SEARCH_LIMIT_DEFAULT})",
                metavar="N",
                default=policy.SEARCH_LIMIT_DEFAULT,
                check=check_limit,
                tool_help="max rows",
                schema={
                    "type": "integer",
                    "minimum": policy.SEARCH_LIMIT_MIN,
                    "maximum": policy.SEARCH_LIMIT_MAX,
                },
            ),
            Option(
                "max_chars",
                "int",
                f"budget for the memories, {policy.CONTEXT_MAX_CHARS_MIN}-"
                f"{policy.CONTEXT_MAX_CHARS_MAX} (default {policy.SEARCH_MAX_CHARS_DEFAULT})",
                metavar="N",
                default=policy.SEARCH_MAX_CHARS_DEFAULT,
                check=check_max_chars,
                schema=MAX_CHARS_SCHEMA,
                tool_help=None,  # the name and the bounds say it,
            ),
            AS_OF,
        ),
        lambda s, a: s.search(
            a["query"],
            subject_id=a["subject_id"],
            scope=a["scope"],
            limit=a["limit"],
            max_chars=a["max_chars"],
            as_of=a["as_of"],
        ),
        (
            ("query", "string", "the query, trimmed"),
            (
                "as_of",
                "object / null",
                "the time the question (or `--as-of`) names, as in `context`; null when none",
            ),
            (
                "subject_id",
                "string / null",
                "the subject searched (the code, also when its `display_label` was given); null for all",
            ),
            ("count", "int", "rows returned"),
            ("memories", "list of compact rows", "best match first; each carries `subject_id`"),
            ("truncated", "bool", "some matches did not fit in `max_chars`"),
        ),
        "Needs consent and no pause (it reads memory content, like `context`); never writes. "
        "Only rows with a positive relevance score, best first (ties: most recently written). "
        'For "who did I say likes hiking?" and for finding which subject the user means.',
    ),
)
