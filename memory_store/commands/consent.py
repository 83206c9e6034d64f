"""Commands of consent and erasure: status, enable, pause, resume, forget, forget-object, revoke, clear."""

from __future__ import annotations

from .. import policy
from . import (
    CONFIRM,
    ERASED,
    PATH_NOTE,
    TEXT_SCHEMA,
    VERIFIED,
    Command,
    Option,
    check_text,
    subject_option,
)

# The commands that read or write memory content on the assistant's behalf: pause
# stops them (MEMORY_PAUSED), revoke too (CONSENT_REQUIRED). The person's own access
# (show, status, log, export, review), undo and the deletions keep working.
GATED = ("apply", "context", "search", "tidy", "import")
_GATED = ", ".join(GATED[:-1]) + " and " + GATED[-1]

FAMILY = (
    Command(
        "status",
        "Report whether memory exists, consent, counts against caps, undo history.",
        (
            Option(
                "verbose",
                "flag",
                "the caps table too, however full the store",
                tool_help="the caps too",
            ),
        ),
        lambda s, a: s.status(verbose=a["verbose"]),
        (
            ("exists", "bool", "a database file exists; when false nothing else was read"),
            (
                "consent_state",
                "string / null",
                "`absent` (no file), `never_enabled` (a file but consent never given: a first `enable` "
                "that did not finish), `enabled`, `paused`, `revoked` (consent withdrawn, data kept or "
                "deleted with `revoke --delete`: never ask again unless the person raises it); null "
                "when the store could not be read (newer release, unsafe)",
            ),
            (
                "consent_enabled",
                "bool / null",
                "the user's consent is in force (null: store from a newer release)",
            ),
            ("consent_at", "time / null", "when the user first agreed"),
            (
                "revoked_at",
                "time / null",
                "when consent was last withdrawn (`revoke --confirm`, or `revoke --delete`, whose "
                "tombstone keeps only this date); null if never, and again once `enable --confirm` "
                "restores it",
            ),
            ("paused", "bool / null", "memory is paused"),
            ("policy_version", "int / null", "policy the consent was given under"),
            (
                "schema_version",
                "int / null",
                "the database schema version (`PRAGMA user_version`)",
            ),
            ("counts", "object / null", "`total` and `by_scope` (rows per scope)"),
            (
                "limits",
                "object / null",
                "the caps: `value_chars`, `total_rows`, `by_scope` (`max`, `per`, `policy`), "
                "`undo_history`, `deltas_per_apply`, `input_bytes`; null unless a kind (or the "
                "store) holds 80 % of its cap or more, or with `--verbose`",
            ),
            (
                "undo_available",
                "int / null",
                f"operations `undo` can revert (0-{policy.HISTORY_MAX})",
            ),
            ("path", "string", PATH_NOTE),
            (
                "unsafe",
                "object / null",
                "the `STORE_UNSAFE` error (`code`, `message`, `details.reason` `owner` or `permissions`) when another user owns the directory or database or the directory is writable by group or others; the database is then not read",
            ),
        ),
        "Works in every state and never creates anything; on a missing store `exists` is false. "
        "A store another user could swap is reported in `unsafe`, not refused.",
    ),
    Command(
        "enable",
        "Record the user's explicit consent and create the store.",
        (CONFIRM,),
        lambda s, a: s.enable(confirm=a["confirm"]),
        (
            ("consent_enabled", "true", "consent is in force"),
            ("consent_at", "time", "first consent (kept when consent is renewed)"),
            ("consent_renewed_at", "time", "this consent"),
            ("paused", "false", "enable lifts a pause"),
            ("policy_version", "int", "the policy consented to"),
            ("schema_version", "int", "the database schema version"),
            ("created", "bool", "this call created the database file"),
            ("path", "string", PATH_NOTE),
        ),
        "Run it only after the user's explicit yes. Without `--confirm`: `CONFIRMATION_REQUIRED`, nothing created. It is the only command that creates the directory (mode 700) and the database (mode 600).",
    ),
    Command(
        "pause",
        f"Stop {_GATED} until resume; nothing is deleted.",
        (),
        lambda s, a: s.pause(),
        (
            ("paused", "true", f"{_GATED} now refuse with `MEMORY_PAUSED`"),
            ("changed", "bool", "false if it was already paused"),
            ("consent_enabled", "true", "consent is unchanged"),
        ),
        "Needs consent (`CONSENT_REQUIRED` otherwise); idempotent. While paused, show, status, "
        "log, export, review, undo and the forget commands still work: the person can still "
        "see, undo and delete.",
    ),
    Command(
        "resume",
        "Lift a pause.",
        (),
        lambda s, a: s.resume(),
        (
            ("paused", "false", f"{_GATED} work again"),
            ("changed", "bool", "false if it was not paused"),
            ("consent_enabled", "true", "consent is unchanged"),
        ),
        "Needs consent (`CONSENT_REQUIRED` otherwise); idempotent.",
    ),
    Command(
        "forget",
        "Delete one memory and every operation that mentions it, physically.",
        (
            Option(
                "memory_id",
                "text",
                "",
                metavar="MEMORY_ID",
                check=check_text,
                positional=True,
                schema=TEXT_SCHEMA,
            ),
            CONFIRM,
        ),
        lambda s, a: s.forget(a["memory_id"], confirm=a["confirm"]),
        (
            ("deleted", "int", "live rows removed"),
            ("operations_removed", "int", "undo operations that mentioned the row, removed"),
            ERASED,
            VERIFIED,
        ),
        "Not undoable. `MEMORY_NOT_FOUND` when no live row and no undo snapshot has that id.",
    ),
    Command(
        "forget-object",
        "Delete every memory about one subject and the operations that mention it, physically.",
        (subject_option("", positional=True), CONFIRM),
        lambda s, a: s.forget_object(a["subject_id"], confirm=a["confirm"]),
        (
            ("deleted", "int", "live rows of the subject removed, all scopes"),
            (
                "operations_removed",
                "int",
                "undo operations that mentioned the subject, removed",
            ),
            ERASED,
            VERIFIED,
            (
                "subject_id",
                "string",
                "the subject forgotten: the code given, or the one whose `display_label` was given",
            ),
        ),
        "Not undoable; `forget-object user --confirm` forgets the user's own profile. SUBJECT "
        "is a code or exactly one subject's `display_label` (two subjects with that label: "
        "`INVALID_ARGUMENTS` listing both in `details.subjects`). `SUBJECT_NOT_FOUND` names the "
        "known subjects with their labels: `details.subjects` (`subject_id`, `display_label`), "
        "and the codes alone in `details.known_subjects`.",
    ),
    Command(
        "revoke",
        "Withdraw consent (data kept, paused); with --delete, erase the store and its files.",
        (
            Option(
                "delete",
                "flag",
                "also delete every memory and the files",
                tool_help="also erase every row and the files",
            ),
            CONFIRM,
        ),
        lambda s, a: s.revoke(confirm=a["confirm"], delete=a["delete"]),
        (
            ("consent_enabled", "false", "consent withdrawn"),
            ("deleted", "bool", "true with `--delete`: the store and its files are gone"),
            ("paused", "true", "without `--delete` only: data kept, memory paused"),
            ("rows_deleted", "int", "with `--delete` only: memories that were erased"),
            (
                "erased",
                "bool",
                "with `--delete` only: the bytes were erased before the files were removed",
            ),
            (
                "overwritten",
                "bool",
                "with `--delete` only: false when not even zeros could be written (a full disk); the files were removed anyway",
            ),
            (
                "tombstone",
                "bool",
                "with `--delete` only: the tombstone (only `revoked_at`) was left, so `status` "
                "answers `revoked`",
            ),
            (VERIFIED[0], VERIFIED[1], "with `--delete` only: " + VERIFIED[2]),
        ),
        f"`revoke --confirm` keeps the data and pauses; {_GATED} then answer "
        "`CONSENT_REQUIRED` until `enable --confirm`. `revoke --delete --confirm` is "
        "irreversible, works on a missing, damaged, newer-release or unsafe store, beside "
        "planted side files and on a full disk, and leaves in the directory only a tombstone "
        "holding `consent_state: revoked` and `revoked_at` (no memory, label or id): `status` "
        "then answers `revoked`; `enable --confirm` removes it and starts fresh.",
    ),
    Command(
        "clear",
        "Delete every memory and the undo history; consent stays as it is.",
        (CONFIRM,),
        lambda s, a: s.clear(confirm=a["confirm"]),
        (
            ("deleted", "int", "rows removed"),
            ("operations_removed", "int", "undo operations removed"),
            ("erased", "bool", "the bytes are physically gone"),
            VERIFIED,
        ),
        "Not undoable; consent stays as it is.",
    ),
)
