"""Commands of the person's copy and the host: export, import, review, mcp, skill, doctor."""

from __future__ import annotations

from . import Command, Option, subject_option

TYPE_CHECKING = False  # typing costs a few ms to import; every assistant turn would pay it
if TYPE_CHECKING:
    from typing import Any

# The hosts' names, written out so that the per-turn import of the registry stays cheap
# (hosts.py and skill.py are imported only when these commands run); tests/test_hosts.py
# checks them against hosts.NAMES and skill.HOSTS.
HOST_NAMES = (
    "claude-code",
    "codex",
    "claude-desktop",
    "cursor",
    "vscode",
    "cherry-studio",
    "stdio",
)
SKILL_HOSTS = ("claude", "codex")


def _mcp(store: Any, args: dict[str, Any]) -> dict[str, Any] | None:
    """``--print-config``'s data; None means serve (the command line runs the server)."""
    if args["print_config"] is None:
        return None
    from ..hosts import print_config

    return print_config(args["print_config"], store.data_dir)


def check_port(value: Any, name: str = "port") -> int:
    from ..errors import ArgumentRuleError

    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ArgumentRuleError(
            name, "must be an integer from 0 to 65535", minimum=0, maximum=65535
        )
    return value


SERVE_ONLY = ("port", "no_open", "subject_id", "ask", "memory_id")
# What the assistant may ask the page to put to the person (page/setup.py: ASKS).
ASKS = ("enable", "forget", "forget-object", "clear", "revoke", "revoke-delete")


def ask_options(tool_help: str | None) -> tuple[Option, Option]:
    """``ask`` and its ``memory_id``: a request the client could not put to the person,
    which the page shows first with real counts (``documentation/page.md``)."""
    return (
        Option(
            "ask",
            "choice",
            "open at this request the client could not ask: the person answers it there "
            "(forget needs --memory-id, forget-object --subject-id; revoke-delete is "
            "revoke --delete)",
            metavar="REQUEST",
            choices=ASKS,
            schema={"enum": list(ASKS)},
            tool_help=tool_help,
        ),
        Option("memory_id", "text", "with ask forget: the memory", metavar="ID", tool_help=None),
    )


def _review(store: Any, args: dict[str, Any]) -> dict[str, Any] | None:
    """``--output``'s data; None means serve (the command line runs ``page.server``)."""
    from ..errors import MemoryStoreError

    if args["serve"]:
        if args["output"] is not None:
            raise MemoryStoreError(
                "INVALID_ARGUMENTS", "give --output FILE or --serve, not both", {}
            )
        return None
    given = [
        f"--{n.replace('_', '-')}"
        for n in SERVE_ONLY
        if args.get(n) is not None and args.get(n) is not False
    ]
    if given:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS", f"{', '.join(given)} goes with --serve", {"options": given}
        )
    if args["output"] is None:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS",
            "give --output FILE (a page to keep) or --serve (the page with buttons, in the browser)",
            {},
        )
    return store.review(output=args["output"])


def _open_page(store: Any, args: dict[str, Any]) -> dict[str, Any]:
    from ..page.launch import open_page

    return open_page(store, args["subject_id"], args.get("ask"), args.get("memory_id"))


def _skill(args: dict[str, Any]) -> dict[str, Any]:
    from ..skill import run

    return run(args)


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
                "without `--output`: the `memory-store-export/v3` document (`schemas/export.schema.json`; import also reads v1 and v2)",
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
        "Write a page to read everything remembered (HTML, mode 600), or serve it to the "
        "person's browser with buttons to change it.",
        (
            Option(
                "output",
                "path",
                "create FILE (mode 600); never overwrites",
                metavar="FILE",
            ),
            Option(
                "serve",
                "flag",
                "serve the page on 127.0.0.1 and open it in the browser, with buttons to forget, "
                "end, correct, undo, pause, export and revoke; runs until done or 15 minutes idle",
            ),
            Option(
                "port",
                "int",
                "with --serve: the port (default: any free one)",
                metavar="N",
                check=check_port,
            ),
            Option(
                "no_open",
                "flag",
                "with --serve: open no browser; the address to open (with its one-time key) "
                "goes to standard error",
            ),
            subject_option("with --serve: open the page at this person"),
            *ask_options(""),
        ),
        _review,
        (
            ("path", "string", "with `--output`: the file created (mode 600)"),
            ("count", "int", "with `--output`: memories on the page"),
            ("people", "int", "with `--output`: subjects other than the user"),
            ("serving", "bool", "with `--serve`: true, printed once the page listens"),
            ("url", "string", "with `--serve`: the page's address, without its key"),
            ("port", "int", "with `--serve`: the port on 127.0.0.1"),
            ("opened", "bool", "with `--serve`: a browser was started on the page"),
            ("subject_id", "string / null", "with `--serve`: the person the page opens at"),
            ("ask", "string / null", "with `--serve`: the request the page shows first"),
            ("idle_seconds", "int", "with `--serve`: the server ends after this long unused"),
        ),
        "Works in any consent state (the user's right of access). `--output`: one "
        "self-contained page, no script, nothing fetched; refuses an existing file and a path "
        "inside the store's directory (`INVALID_ARGUMENTS`); like an export, the file is a "
        "copy the store cannot erase. `--serve`: the envelope is printed once the page "
        "listens, then the server runs until the person presses done or "
        "`MEMORY_STORE_PAGE_IDLE_SECONDS` (900) pass unused; only the browser given the "
        "one-time key gets in (`documentation/page.md`). Each button is the CLI's own "
        "operation; a deletion is confirmed on the page with real counts first.",
        serves=True,
    ),
    Command(
        "open-page",
        "Open the person's memory page in their browser, where they see everything and "
        "correct or delete it themselves.",
        (
            subject_option("open the page at this person"),
            *ask_options("a cannot_ask call, to confirm there"),
        ),
        _open_page,
        (
            ("opened", "bool", "the page is open in the person's browser"),
            ("subject_id", "string / null", "the person the page opened at"),
            ("ask", "string / null", "the request the page shows first"),
            ("idle_minutes", "int", "the page closes after this long unused"),
            ("command", "string", "when no browser could be opened: what the person can run"),
        ),
        "Returns at once; the page runs on by itself. Its key is never in the result.",
    ),
    Command(
        "mcp",
        "Serve this memory to an assistant over MCP (stdio), the person confirming deletions.",
        (
            Option(
                "print_config",
                "choice",
                "print the configuration HOST needs to start this server (this install's "
                "absolute paths, this data directory) instead of serving",
                metavar="HOST",
                choices=HOST_NAMES,
            ),
        ),
        _mcp,
        (
            ("host", "string", "with `--print-config`: the host named"),
            ("title", "string", "the host's name for people"),
            ("format", "string", "`shell` (a command to run), `json` or `toml`"),
            ("config", "string", "the configuration text, ready to paste or run"),
            ("where", "string", "where that text goes"),
            ("elicits", "bool", "whether the host asks the person to confirm (MCP elicitation)"),
            ("command", "string", "the absolute command that starts the server"),
            ("args", "list", "its arguments (`--data-dir DIR mcp`)"),
            ("data_dir", "string", "the store the server will use"),
        ),
        "Serving needs the `mcp` extra, installed from a checkout or a wheel "
        '(`pip install ".[mcp]"`; without it: `INVALID_ARGUMENTS`, naming the install for this '
        "environment); stdout then carries only JSON-RPC until the client closes standard "
        "input, and no envelope is printed on success. `--print-config` starts nothing and "
        "prints the envelope, but only where the server could start: without the extra it is "
        "refused the same way. See `documentation/mcp.md` and "
        "`documentation/hosts.md`.",
        serves=True,
    ),
    Command(
        "skill",
        "Install the assistant's skill (SKILL.md and references/) where a host reads skills, "
        "or say where the packaged copy is.",
        (
            Option(
                "action",
                "choice",
                "install: copy the skill into a skills directory; path: where the packaged copy is",
                metavar="ACTION",
                positional=True,
                choices=("install", "path"),
            ),
            Option(
                "host",
                "choice",
                "the host's own skills directory: claude (~/.claude/skills, the default; Cursor "
                "and VS Code read it too) or codex (~/.agents/skills)",
                metavar="HOST",
                choices=SKILL_HOSTS,
                group="where",
            ),
            Option(
                "dir",
                "path",
                "any other skills directory (the skill goes into DIR/memory-store)",
                metavar="DIR",
                group="where",
            ),
            Option("force", "flag", "replace an installed copy that differs from the packaged one"),
        ),
        lambda s, a: _skill(a),
        (
            ("action", "string", "`install` or `path`"),
            ("path", "string", "install: the skill folder written; path: the packaged folder"),
            ("files", "int", "files in the skill (SKILL.md and references/)"),
            ("host", "string / null", "install: the host whose directory was used"),
            ("changed", "bool", "install: false when an identical copy was already there"),
            ("replaced", "bool", "install: a different copy was replaced (`--force`)"),
            ("skill_md", "string", "path: the packaged SKILL.md"),
            (
                "installed",
                "object",
                "path: per host, the installed copy's `path` and `state` (`absent`, `same`, "
                "`differs`)",
            ),
        ),
        "Opens and creates no store. The folder is named `memory-store`, as the skill's `name`. "
        "An identical copy already installed is left as it is; one that differs (an older "
        "release's, or edited) is replaced only with `--force` — the whole folder — else "
        "`INVALID_ARGUMENTS` and nothing changes. `path` takes no other option.",
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
