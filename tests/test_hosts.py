"""Host configuration, tested (documentation/hosts.md#the-configuration-printed-for-this-install).

- ``mcp --print-config HOST`` through the real CLI: every host's text parses
  (JSON, TOML with ``tomllib``, the shell line with ``shlex``) and names this
  install's absolute command and the store in use;
- every snippet in ``documentation/hosts.md`` parses and is exactly what the code
  prints for the page's example paths;
- the server starts from every printed configuration (a real subprocess, the MCP
  SDK's stdio client) and lists its tools; where ``npx`` exists, the MCP
  Inspector's CLI does the same, and every tool it lists has a title and an outputSchema
  (the results that obey it are tested in mcp/test_tools.py).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import fails, ok

from memory_store import hosts, skill
from memory_store.commands.catalog import TOOLS
from memory_store.commands.host import HOST_NAMES, SKILL_HOSTS

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")

ROOT = Path(__file__).resolve().parent.parent
HOSTS_MD = ROOT / "documentation" / "hosts.md"
EXAMPLE_COMMAND = "/home/me/memory-store-venv/bin/memory-store"
EXAMPLE_DIR = "/home/me/.local/share/memory-store"


def _parse(fmt: str, text: str) -> tuple[str, list[str]]:
    """(command, args) from a configuration text, read as the host reads it."""
    if fmt == "shell":
        words = shlex.split(text)
        # Claude Code's documented form: claude mcp add --scope user NAME -- COMMAND ARGS…
        assert words[:6] == ["claude", "mcp", "add", "--scope", "user", "memory-store"], words
        rest = words[words.index("--") + 1 :]
        return rest[0], rest[1:]
    if fmt == "toml":
        server = tomllib.loads(text)["mcp_servers"]["memory-store"]
    else:
        doc = json.loads(text)
        servers = doc.get("mcpServers") or doc["servers"]
        server = servers["memory-store"]
        assert server.get("type", "stdio") == "stdio"
    assert set(server) <= {"type", "command", "args"}, server
    return server["command"], server["args"]


def _printed(host: str, *global_args: str) -> dict[str, Any]:
    return ok(*global_args, "mcp", "--print-config", host, spawn=True)


# ---------------------------------------------------------------- printed configurations


def test_the_registry_names_every_host_the_code_knows() -> None:
    assert HOST_NAMES == hosts.NAMES
    assert SKILL_HOSTS == skill.HOSTS


def test_the_mcp_extra_is_the_requirement_the_error_names() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["optional-dependencies"]["mcp"] == [hosts.MCP_REQUIREMENT]


@pytest.mark.parametrize("host", hosts.NAMES)
def test_print_config_names_this_install_and_the_store(host: str, private_store: Path) -> None:
    data = _printed(host)
    title, fmt, where, elicits = hosts.HOSTS[host]
    assert (data["host"], data["title"], data["format"]) == (host, title, fmt)
    assert (data["where"], data["elicits"]) == (where, elicits)
    command, args = _parse(fmt, data["config"])
    assert (command, args) == (data["command"], data["args"])
    assert os.path.isabs(command) and os.access(command, os.X_OK)
    assert args[-3:] == ["--data-dir", str(private_store), "mcp"]
    assert data["data_dir"] == str(private_store)
    assert not private_store.exists()  # printing creates nothing


def test_print_config_pins_the_directory_given_and_the_default(tmp_path: Path) -> None:
    given = tmp_path / "given"
    data = _printed("codex", "--data-dir", str(given))
    assert data["args"][-3:] == ["--data-dir", str(given), "mcp"]
    env = {"MEMORY_STORE_DIR": ""}  # unset below: the platform default, written out
    script = (
        "import os, sys; os.environ.pop('MEMORY_STORE_DIR');"
        "from memory_store.cli import main; sys.exit(main(['mcp', '--print-config', 'stdio']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, **env, "XDG_DATA_HOME": str(tmp_path / "xdg")},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    default = json.loads(proc.stdout)["data"]
    assert default["data_dir"] == str(tmp_path / "xdg" / "memory-store")
    assert default["args"][-3:] == ["--data-dir", default["data_dir"], "mcp"]


@pytest.mark.parametrize("how", ["--data-dir", "MEMORY_STORE_DIR"])
def test_a_data_directory_that_is_not_utf8_is_refused(tmp_path: Path, how: str) -> None:
    """documentation/hosts.md#the-configuration-printed-for-this-install: a lone surrogate cannot be saved in a UTF-8 configuration, and its escaped
    form would name another, empty directory — print-config refuses, saying why."""
    odd = os.fsencode(tmp_path) + b"/caf\xe9-store"
    argv: list[Any] = [sys.executable, "-m", "memory_store"]
    env = {k: v for k, v in os.environ.items() if k != "MEMORY_STORE_DIR"}
    if how == "--data-dir":
        argv += ["--data-dir", odd]
    else:
        env_bytes = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
        env_bytes[b"MEMORY_STORE_DIR"] = odd
    for host in ("claude-desktop", "codex", "claude-code"):
        proc = subprocess.run(
            [*argv, "mcp", "--print-config", host],
            capture_output=True,
            env=env if how == "--data-dir" else env_bytes,
            timeout=60,
        )
        out = json.loads(proc.stdout.decode("utf-8"))
        assert proc.returncode == 2 and out["error"]["code"] == "INVALID_ARGUMENTS", out
        assert "not valid UTF-8" in out["error"]["message"]
        assert out["data"] is None
    assert not (tmp_path / "caf\udce9-store").exists() and os.listdir(tmp_path) == []


def test_print_config_in_table_format_is_the_text_alone() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memory_store",
            "--format",
            "table",
            "mcp",
            "--print-config",
            "codex",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert tomllib.loads(proc.stdout)["mcp_servers"]["memory-store"]["args"][-1] == "mcp"


def test_an_unknown_host_is_invalid_arguments() -> None:
    r = fails("INVALID_ARGUMENTS", "mcp", "--print-config", "notepad")
    assert "claude-code" in r.error["message"]


def test_toml_strings_survive_awkward_paths() -> None:
    command, args = 'C:\\Users\\me "x"\\memory-store.exe', ["--data-dir", "/tmp/记忆 \x7f", "mcp"]
    text = hosts._text("codex", command, args)
    assert _parse("toml", text) == (command, args)
    assert _parse("json", hosts._text("stdio", command, args)) == (command, args)
    assert _parse("shell", hosts._text("claude-code", command, args)) == (command, args)


# ---------------------------------------------------------------- documentation/hosts.md


def _snippets() -> list[tuple[str, str]]:
    return re.findall(r"^```(\w+)\n(.*?)^```$", HOSTS_MD.read_text(encoding="utf-8"), re.M | re.S)


def test_every_snippet_in_hosts_md_parses() -> None:
    snippets = _snippets()
    assert {lang for lang, _ in snippets} == {"sh", "json", "toml"}
    for lang, body in snippets:
        if lang == "json":
            json.loads(body)
        elif lang == "toml":
            tomllib.loads(body)
        else:
            for line in body.splitlines():
                assert shlex.split(line, comments=True) is not None, line


@pytest.mark.parametrize("host", hosts.NAMES)
def test_hosts_md_shows_exactly_what_the_code_prints(host: str) -> None:
    args = ["--data-dir", EXAMPLE_DIR, "mcp"]
    text = hosts._text(host, EXAMPLE_COMMAND, args)
    bodies = [body for _, body in _snippets()]
    assert text in bodies or text.rstrip("\n") + "\n" in bodies, (host, text)
    page = HOSTS_MD.read_text(encoding="utf-8")
    assert f"### {hosts.HOSTS[host][0]}" in page.replace(
        "### Any stdio client", "### any stdio client"
    )


def test_no_document_or_message_installs_from_a_package_index() -> None:
    """The project is not published: nobody may be told to install "memory-store" from one."""
    wrong = re.compile(r"pip install\s+[\"']?memory-store\b|memory-store\[mcp\]")
    places = [ROOT / "README.md", ROOT / "SKILL.md", ROOT / "pyproject.toml"]
    for folder in ("documentation", "references", "memory_store", "scripts"):
        places += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".md", ".py", ".json")]
    for path in places:
        assert not wrong.search(path.read_text(encoding="utf-8")), path


# ---------------------------------------------------------------- an install without the extra


def _from(bin_dir: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [str(bin_dir / "memory-store"), *args], capture_output=True, text=True, timeout=120
    )
    assert proc.stderr == "", proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_without_the_extra_print_config_is_refused_as_serving_is(
    venv_install: Path, tmp_path: Path
) -> None:
    # A real virtual environment with the wheel and its dependencies, not the MCP SDK.
    lacks = subprocess.run([str(venv_install / "python"), "-c", "import mcp"], capture_output=True)
    assert lacks.returncode == 1 and b"ModuleNotFoundError" in lacks.stderr
    store = ["--data-dir", str(tmp_path / "store")]
    served = _from(venv_install, *store, "mcp")
    for host in hosts.NAMES:
        printed = _from(venv_install, *store, "mcp", "--print-config", host)
        assert printed[0] == 2 and printed[1]["error"]["code"] == "INVALID_ARGUMENTS", host
        assert printed[1]["error"] == served[1]["error"], host  # the same refusal, word for word
    install = served[1]["error"]["details"]["install"]
    assert install.startswith(shlex.quote(str(venv_install / "python")) + " -m pip install ")
    assert not (tmp_path / "store").exists()


def test_with_the_extra_print_config_names_the_installed_script(
    venv_install_mcp: Path, tmp_path: Path
) -> None:
    code, printed = _from(
        venv_install_mcp, "--data-dir", str(tmp_path), "mcp", "--print-config", "claude-code"
    )
    assert code == 0, printed
    assert printed["data"]["command"] == str(venv_install_mcp / "memory-store")


# ---------------------------------------------------------------- the server, started as printed


pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _list_tools(command: str, args: list[str], tmp_path: Path) -> list[Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    # No MEMORY_STORE_DIR and no PYTHONPATH: only what the SDK passes any server.
    params = StdioServerParameters(command=command, args=args, env={})
    with open(tmp_path / "stderr", "w+") as err:
        async with Client(stdio_client(params, errlog=err)) as client:
            tools = (await client.list_tools()).tools
            status = await client.call_tool("memory_status", {})
        err.seek(0)
        assert err.read() == ""
    assert status.is_error is False and status.structured_content["exists"] is True
    return tools


@pytest.mark.parametrize("host", hosts.NAMES)
async def test_the_server_starts_from_the_printed_configuration(
    host: str, tmp_path: Path, enabled: Path
) -> None:
    data = _printed(host, "--data-dir", str(enabled))
    command, args = _parse(data["format"], data["config"])
    tools = await _list_tools(command, args, tmp_path)
    assert {t.name for t in tools} == {t.name for t in TOOLS.values()}


def _npx() -> str | None:
    return shutil.which("npx")


@pytest.mark.skipif(_npx() is None, reason="npx (Node.js) is not installed here: no MCP Inspector")
def test_the_mcp_inspector_starts_the_printed_configuration(enabled: Path) -> None:
    data = _printed("stdio", "--data-dir", str(enabled))
    command, args = _parse("json", data["config"])
    proc = subprocess.run(
        [
            "npx",
            "-y",
            "@modelcontextprotocol/inspector",
            "--cli",
            command,
            *args,
            "--method",
            "tools/list",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    listed = {t["name"]: t for t in json.loads(proc.stdout)["tools"]}
    assert set(listed) == {t.name for t in TOOLS.values()}
    assert all(t.get("title") and t.get("outputSchema") for t in listed.values())
