"""Commands of the person's copy and the host: export, import, review, mcp, doctor."""

from __future__ import annotations

from .registry import (
    Command,
    Option,
)

FAMILY = (
    Command(
        "export",
        "Write a copy of everything stored as one JSON document.",
        (
            Option(
                "output",
                "path",
                "create FILE (mode 600) instead of printing",
                metavar="FILE",
            ),
        ),
        lambda s, a: s.export(output=a["output"]),
        (
            (
                "document",
                "object",
                "without `--output`: the `memory-store-export/v1` document (`schemas/export.schema.json`)",
            ),
            ("path", "string", "with `--output`: the file created (mode 600)"),
            ("count", "int", "with `--output`: memories written"),
        ),
        "Works in any consent state. `--output` refuses an existing file and a path inside the "
        "store's directory (`INVALID_ARGUMENTS`).",
    ),
    Command(
        "import",
        "Bring back a document written by export, as one undoable operation.",
        (
            Option(
                "file",
                "path",
                "the export document, or export's whole output; - reads standard input "
                "(memory-store export | memory-store import -)",
                metavar="FILE",
                positional=True,
                cli_only=True,
            ),
            Option("dry_run", "flag", "check and report, write nothing"),
        ),
        lambda s, a: s.import_(a["source"], dry_run=a["dry_run"]),
        (
            (
                "op_id",
                "string / null",
                "the operation to undo; null for a dry run or when nothing changed",
            ),
            ("counts", "object", "rows `created`, `updated` and `unchanged`"),
            (
                "summary",
                "string",
                '"imported N memories: … created, … updated, … unchanged" '
                '(a dry run: "would import N memories: … to create, … to update, … unchanged")',
            ),
            ("undo_hint", "string / null", "the command that reverts the whole import"),
            ("dry_run", "bool", "true when nothing was written"),
        ),
        "Needs consent and no pause. Takes the bare document (`export --output`'s file, or "
        "`data.document`) or the whole envelope `export` prints, so `memory-store export | "
        "memory-store import -` works. At most 1 MiB; a document of another format version is "
        "`INVALID_DELTA`. Every row is checked like an `apply` delta (field rules, "
        "`SENSITIVE_REJECTED`, `SOURCE_NOT_ELIGIBLE`) and upserted by key with its own "
        "`occurred_at`, `confidence`, sources, times and (when free) id. An import that would "
        "put any kind over its cap is refused whole (`MEMORY_LIMIT_REACHED`), never pruned. "
        "All or nothing; `undo` reverts it.",
    ),
    Command(
        "review",
        "Write a page to read everything remembered in a browser (HTML, mode 600).",
        (
            Option(
                "output",
                "path",
                "create FILE (mode 600); never overwrites",
                metavar="FILE",
                required=True,
            ),
        ),
        lambda s, a: s.review(output=a["output"]),
        (
            ("path", "string", "the file created (mode 600)"),
            ("count", "int", "memories on the page"),
            ("people", "int", "subjects other than the user"),
        ),
        "Works in any consent state (the user's right of access). One self-contained page: "
        "no script, nothing fetched. Refuses an existing file and a path inside the store's "
        "directory (`INVALID_ARGUMENTS`). Like an export, the file is a copy the store cannot erase.",
    ),
    Command(
        "mcp",
        "Serve this memory to an assistant over MCP (stdio), the person confirming deletions.",
        (),
        None,  # the command line runs the server itself (cli.py): a face, not a library call
        (),
        'Needs the extra: `pip install "memory-store[mcp]"` (without it: `INVALID_ARGUMENTS`). '
        "stdout then carries only JSON-RPC until the client closes standard input; no envelope "
        "is printed on success. See `documentation/mcp.md`.",
        serves=True,
    ),
    Command(
        "doctor",
        "Check the files, schema and stored rows; read-only.",
        (Option("fix", "flag", "repair file modes (only)"),),
        lambda s, a: s.doctor(fix=a["fix"]),
        (
            ("ok", "bool", "no finding has severity `error`"),
            (
                "findings",
                "list",
                "`check`, `severity` (`ok`, `info`, `warning`, `error`), `message`, optional `details`",
            ),
            ("fixed", "list", "files whose mode `--fix` repaired"),
        ),
        "Read-only (apart from `--fix`); a damaged store is reported as a finding with `ok: false`, not as an error.",
    ),
)
