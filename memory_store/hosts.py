"""How each MCP host starts ``memory-store mcp``: its configuration, with this install's paths.

``memory-store mcp --print-config HOST`` prints it (``documentation/hosts.md``
explains each). The command is absolute — the console script beside this
interpreter, else the interpreter with ``-m memory_store`` — because a GUI app
does not inherit the shell's ``PATH``; the data directory in use is pinned with
``--data-dir`` in ``args``, because a host passes its server only a few
environment variables of its own (and a GUI app another ``XDG_DATA_HOME``), so
the server and the person's terminal always mean the same store. A configuration is
printed only by an install that can serve it: without the MCP SDK, ``--print-config``
is refused as serving is (:func:`require_sdk`), never an ``ok`` the host then fails to
start.
"""

from __future__ import annotations

import json
import os
import shlex
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .errors import MemoryStoreError

SERVER_NAME = "memory-store"
MCP_REQUIREMENT = "mcp>=2.3,<3"  # the `mcp` extra of pyproject.toml (tests/test_hosts.py checks)

# name -> (title, format, where the text goes, whether the client elicits)
HOSTS: dict[str, tuple[str, str, str, bool]] = {
    "claude-code": (
        "Claude Code",
        "shell",
        "run it in a terminal (user scope: every project)",
        True,
    ),
    "codex": ("Codex CLI", "toml", "~/.codex/config.toml", True),
    "claude-desktop": (
        "Claude Desktop",
        "json",
        "claude_desktop_config.json (Settings → Developer → Edit Config)",
        False,
    ),
    "cursor": ("Cursor", "json", "~/.cursor/mcp.json (or .cursor/mcp.json in a project)", True),
    "vscode": (
        "VS Code",
        "json",
        ".vscode/mcp.json (or MCP: Open User Configuration)",
        True,
    ),
    "cherry-studio": (
        "Cherry Studio",
        "json",
        "Settings → MCP → Add → Import from JSON",
        False,
    ),
    "stdio": ("any stdio client", "json", "the client's server list", False),
}
NAMES = tuple(HOSTS)


def server_command() -> tuple[str, list[str]]:
    """(command, leading args) that start this very installation, as absolute paths: its
    console script (the one the commands handed to the person name,
    ``storage.files.install_script``), else the interpreter with ``-m memory_store``."""
    from .storage.files import install_script

    script = install_script()
    if script is not None:
        return script, []
    return os.path.abspath(sys.executable), ["-m", "memory_store"]


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string, once DEL (legal raw in JSON) is escaped.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _text(host: str, command: str, args: list[str]) -> str:
    fmt = HOSTS[host][1]
    if fmt == "shell":
        # Claude Code's documented form: options before the name, the command after `--`
        words = ["claude", "mcp", "add", "--scope", "user", SERVER_NAME, "--", command, *args]
        return shlex.join(words)
    if fmt == "toml":
        return (
            f"[mcp_servers.{SERVER_NAME}]\n"
            f"command = {_toml_string(command)}\n"
            f"args = [{', '.join(_toml_string(a) for a in args)}]\n"
        )
    server: dict[str, Any] = {"command": command, "args": args}
    if host in ("vscode", "cherry-studio"):
        server = {"type": "stdio", **server}
    key = "servers" if host == "vscode" else "mcpServers"
    return json.dumps({key: {SERVER_NAME: server}}, ensure_ascii=False, indent=2) + "\n"


def _refuse_unwritable_paths(command: str, data_dir: str) -> None:
    """A path that is not valid UTF-8 arrives as lone surrogates (PEP 383): a host's
    configuration file (JSON, TOML, UTF-8) cannot hold it, and the escaped text it would
    hold names another, empty directory (documentation/hosts.md#the-configuration-printed-for-this-install) — refuse rather than print it."""
    for what, path in (("the data directory", data_dir), ("this installation's path", command)):
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            from .errors import MemoryStoreError

            shown = path.encode("utf-8", "backslashreplace").decode("utf-8")
            raise MemoryStoreError(
                "INVALID_ARGUMENTS",
                f"{what} {shown} is not valid UTF-8, so no host configuration can name it; "
                "choose a directory whose name is UTF-8",
                {"argument": "--data-dir"} if path is data_dir else {},
            ) from None


def print_config(host: str, data_dir: str) -> dict[str, Any]:
    """``mcp --print-config HOST``: the configuration text for ``host`` and its parts."""
    if host not in HOSTS:
        from .errors import MemoryStoreError

        raise MemoryStoreError(
            "INVALID_ARGUMENTS",
            f"--print-config must be one of: {', '.join(NAMES)}",
            {"allowed": list(NAMES)},
        )
    require_sdk()
    title, fmt, where, elicits = HOSTS[host]
    command, lead = server_command()
    args = [*lead, "--data-dir", data_dir, "mcp"]
    _refuse_unwritable_paths(command, data_dir)
    return {
        "host": host,
        "title": title,
        "format": fmt,
        "config": _text(host, command, args),
        "where": where,
        "elicits": elicits,
        "command": command,
        "args": args,
        "data_dir": data_dir,
    }


def install_hint() -> tuple[str, dict[str, Any]]:
    """What to run when the MCP SDK is missing: (message, details), for this environment.

    From a checkout (an editable install) the extra is installed from its path;
    otherwise the SDK the extra names is added to this interpreter's environment.
    Never a package index's ``memory-store``: the project is not published.
    """
    from .skill import packaged_dir

    python = os.path.abspath(sys.executable)
    root = packaged_dir()
    if (root / "pyproject.toml").is_file():
        install = f"{shlex.quote(python)} -m pip install {shlex.quote(f'{root}[mcp]')}"
    else:
        install = f"{shlex.quote(python)} -m pip install {shlex.quote(MCP_REQUIREMENT)}"
    message = (
        'the MCP server needs the MCP SDK (the "mcp" extra), which this installation lacks: '
        f"run {install} — or reinstall from your checkout or wheel with the extra, e.g. "
        'pip install ".[mcp]", pipx install --force ".[mcp]", uv tool install --force ".[mcp]"'
    )
    return message, {"install": install, "extra": "mcp", "requirement": MCP_REQUIREMENT}


SDK_MODULES = ("mcp", "mcp_types", "pydantic", "anyio")  # what the server imports of the extra


def missing_sdk(exc: ImportError) -> MemoryStoreError | None:
    """The refusal for an install without the MCP SDK (INVALID_ARGUMENTS, naming the
    install that adds it), when ``exc`` is the SDK missing; None for any other import
    error. Serving (the command line's ``mcp``) and ``--print-config`` both refuse by it."""
    if (exc.name or "").split(".")[0] not in SDK_MODULES:
        return None
    return _sdk_refusal()


def _sdk_refusal() -> MemoryStoreError:
    from .errors import MemoryStoreError as Refusal

    message, details = install_hint()
    return Refusal("INVALID_ARGUMENTS", message, details)


def require_sdk() -> None:
    """Refuse as serving would where the SDK is not installed: found, not imported
    (importing it costs --print-config more than a second; documentation/performance.md)."""
    from importlib.util import find_spec

    for name in SDK_MODULES:
        if find_spec(name) is None:
            raise _sdk_refusal()
