"""Commands handed to the person name the store (documentation/variables.md#commands-handed-to-the-person-name-the-store).

An undo hint, doctor's advice, the NOT_INITIALIZED message and the command an MCP client
that cannot ask hands over are whole commands the person can paste into a terminal that
has no ``MEMORY_STORE_DIR``: a store set by the environment is named with ``--data-dir``
(quoted for the shell), the platform default is not named. Through the real CLI, and the
MCP server with a real MCP client.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import call, data_of, delta, fails, ok, put, run_cli

from memory_store import MemoryStore
from memory_store.mcp import build_server


@pytest.fixture
def env_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store found only through MEMORY_STORE_DIR, at a path that needs quoting."""
    where = tmp_path / "host's store"
    monkeypatch.setenv("MEMORY_STORE_DIR", str(where))
    ok("enable", "--confirm")
    return where


@pytest.fixture
def default_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform default store (platformdirs, under XDG_DATA_HOME in tmp_path)."""
    monkeypatch.delenv("MEMORY_STORE_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    enabled = ok("enable", "--confirm")
    assert enabled["path"].startswith(str(tmp_path / "xdg"))
    return Path(enabled["path"]).parent


# ---------------------------------------------------------------- the command line


def test_apply_undo_hint_names_a_store_set_by_the_environment(env_store: Path) -> None:
    applied = put(delta(value="小林"))
    flag = f"--data-dir {shlex.quote(str(env_store))}"
    assert applied["undo_hint"] == f"memory-store {flag} undo --op-id {applied['op_id']}"
    assert "'" in applied["undo_hint"]  # the apostrophe in the path is quoted
    # The person's terminal has no MEMORY_STORE_DIR: the hint alone finds the store.
    words = shlex.split(applied["undo_hint"])[1:]
    undone = ok(*words, env={"MEMORY_STORE_DIR": ""})
    assert undone["undone_op_id"] == applied["op_id"]


def test_the_platform_default_store_is_not_named(default_store: Path) -> None:
    applied = put(delta(value="小林"))
    assert applied["undo_hint"] == f"memory-store undo --op-id {applied['op_id']}"


def test_import_undo_hint_names_the_store(env_store: Path, tmp_path: Path) -> None:
    put(delta(value="小林"))
    document = json.dumps(ok("export")["document"], ensure_ascii=False)
    ok("clear", "--confirm")
    imported = ok("import", "-", input=document)
    assert imported["undo_hint"].startswith(
        f"memory-store --data-dir {shlex.quote(str(env_store))} undo --op-id "
    )


def test_doctor_advice_names_the_store(env_store: Path) -> None:
    db = env_store / "memory.sqlite3"
    os.chmod(db, 0o644)
    try:
        findings = ok("doctor")["findings"]
    finally:
        os.chmod(db, stat.S_IRUSR | stat.S_IWUSR)
    message = next(f["message"] for f in findings if f["check"] == "file_mode")
    assert f"`memory-store --data-dir {shlex.quote(str(env_store))} doctor --fix`" in message


def test_not_initialized_names_the_store_to_enable(tmp_path: Path) -> None:
    where = tmp_path / "elsewhere"
    # context, not a read such as log: a read says that nothing is kept, and names no command
    failed = fails("NOT_INITIALIZED", "--data-dir", str(where), "context")
    assert f"`memory-store --data-dir {where} enable --confirm`" in failed.error["message"]


# ---------------------------------------------------------------- the MCP server, when it cannot ask


@pytest.mark.anyio
async def test_mcp_cannot_ask_names_a_store_set_by_the_environment(env_store: Path) -> None:
    put(delta(value="小林"))
    store = MemoryStore()  # as a server configured through `env` makes it
    store.hold()
    try:
        async with Client(build_server(store)) as client:  # no elicitation
            forget = data_of(await call(client, "memory_forget_object", subject_id="obj-a"))
            enable = data_of(await call(client, "memory_enable"))
    finally:
        store.release()
    flag = f"--data-dir {shlex.quote(str(env_store))}"
    assert forget["reason"] == "cannot_ask"
    assert forget["command"] == f"memory-store {flag} forget-object obj-a --confirm"
    assert enable["command"] == f"memory-store {flag} enable --confirm"
    line = run_cli(*shlex.split(forget["command"])[1:], env={"MEMORY_STORE_DIR": ""})
    assert line.data["deleted"] == 1


@pytest.mark.anyio
async def test_mcp_cannot_ask_on_the_default_store_names_no_directory(
    default_store: Path,
) -> None:
    memory_id = put(delta(value="小林"))["results"][0]["memory"]["id"]
    store = MemoryStore()
    async with Client(build_server(store)) as client:
        enable = data_of(await call(client, "memory_enable"))
        forget = data_of(await call(client, "memory_forget", memory_id=memory_id))
    assert enable["command"] == "memory-store enable --confirm"
    assert forget["command"] == f"memory-store forget {memory_id} --confirm"


# ---------------------------------------------------------------- an install whose bin is not on PATH
# (documentation/variables.md#commands-handed-to-the-person-name-the-store): a virtual environment made as the README makes one, never activated.

SHELL_PATH = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])  # no memory-store


def _installed(bin_dir: Path, store: Path, *args: str, path: str = SHELL_PATH) -> Any:
    proc = subprocess.run(
        [str(bin_dir / "memory-store"), "--data-dir", str(store), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path, "MEMORY_STORE_DIR": ""},
        timeout=60,
    )
    return json.loads(proc.stdout)


def _in_a_shell(command: str, path: str = SHELL_PATH) -> Any:
    """The line run as the person's shell runs a pasted line: its own PATH, no
    MEMORY_STORE_DIR."""
    env = {k: v for k, v in os.environ.items() if k != "MEMORY_STORE_DIR"}
    proc = subprocess.run(
        command, shell=True, capture_output=True, text=True, env={**env, "PATH": path}, timeout=60
    )
    assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
    return json.loads(proc.stdout)


def test_hints_of_an_install_off_path_name_its_script_and_run(
    venv_install: Path, tmp_path: Path
) -> None:
    store = tmp_path / "my store"  # a space: the script and the directory are quoted
    script = shlex.quote(str(venv_install / "memory-store"))
    refused = _installed(venv_install, store, "context")
    assert refused["error"]["code"] == "NOT_INITIALIZED"
    enable = refused["error"]["message"].split("`")[1]
    assert enable == f"{script} --data-dir {shlex.quote(str(store))} enable --confirm"
    assert _in_a_shell(enable)["data"]["consent_enabled"] is True

    body = json.dumps(delta(value="小林"), ensure_ascii=False)
    applied = _installed(venv_install, store, "apply", "--json", body)["data"]
    assert applied["undo_hint"].startswith(f"{script} --data-dir ")
    assert _in_a_shell(applied["undo_hint"])["data"]["undone_op_id"] == applied["op_id"]

    os.chmod(store / "memory.sqlite3", 0o644)
    findings = _installed(venv_install, store, "doctor")["data"]["findings"]
    message = next(f["message"] for f in findings if f["check"] == "file_mode")
    fix = message.split("`")[1]
    assert fix.startswith(f"{script} --data-dir ")
    assert _in_a_shell(fix)["data"]["fixed"] == ["memory.sqlite3"]


def test_a_mistyped_or_missing_command_points_at_help_the_shell_runs(
    venv_install: Path, tmp_path: Path
) -> None:
    script = shlex.quote(str(venv_install / "memory-store"))
    for args in (("xyzzy",), ()):  # nothing close to suggest: the hint is --help
        refused = _installed(venv_install, tmp_path / "s", *args)
        assert refused["error"]["code"] == "INVALID_ARGUMENTS"
        assert f"`{script} --help`" in refused["error"]["message"], refused
        helped = subprocess.run(
            f"{script} --help",
            shell=True,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PATH": SHELL_PATH},
        )
        assert helped.returncode == 0 and "status" in helped.stdout


def test_the_bare_name_where_the_shell_finds_this_install(
    venv_install: Path, tmp_path: Path
) -> None:
    on_path = os.pathsep.join([str(venv_install), SHELL_PATH])
    store = tmp_path / "store2"
    _installed(venv_install, store, "enable", "--confirm", path=on_path)
    body = json.dumps(delta(value="小林"), ensure_ascii=False)
    hint = _installed(venv_install, store, "apply", "--json", body, path=on_path)["data"]
    assert hint["undo_hint"].startswith("memory-store --data-dir ")
    assert _in_a_shell(hint["undo_hint"], path=on_path)["ok"] is True


def test_a_link_on_path_to_this_install_is_this_install(venv_install: Path, tmp_path: Path) -> None:
    # pipx and uv put a link to the environment's script in ~/.local/bin
    local_bin = tmp_path / "local-bin"
    local_bin.mkdir()
    (local_bin / "memory-store").symlink_to(venv_install / "memory-store")
    on_path = os.pathsep.join([str(local_bin), SHELL_PATH])
    refused = _installed(venv_install, tmp_path / "s", "context", path=on_path)
    assert "`memory-store --data-dir " in refused["error"]["message"]


def test_another_memory_store_first_on_path_is_not_named(
    venv_install: Path, tmp_path: Path
) -> None:
    # This test environment's own memory-store comes first: a hint must still start
    # the install that wrote it, not whichever the shell finds first.
    other = Path(sys.executable).parent
    assert (other / "memory-store").is_file()
    on_path = os.pathsep.join([str(other), str(venv_install), SHELL_PATH])
    refused = _installed(venv_install, tmp_path / "s", "context", path=on_path)
    assert f"`{venv_install / 'memory-store'} --data-dir " in refused["error"]["message"]


@pytest.mark.anyio
async def test_mcp_cannot_ask_from_an_install_off_path_hands_over_a_command_that_runs(
    venv_install_mcp: Path, tmp_path: Path
) -> None:
    # Claude Desktop and Cherry Studio start the server by its absolute path and cannot
    # ask: turning memory on rests on the command the person is handed.
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    store = tmp_path / "desktop store"
    params = StdioServerParameters(
        command=str(venv_install_mcp / "memory-store"),
        args=["--data-dir", str(store), "mcp"],
        env={"PATH": SHELL_PATH},
    )
    async with Client(stdio_client(params)) as client:  # no elicitation
        enable = data_of(await call(client, "memory_enable"))
    assert enable["reason"] == "cannot_ask"
    assert enable["command"].startswith(shlex.quote(str(venv_install_mcp / "memory-store")))
    assert _in_a_shell(enable["command"])["data"]["consent_enabled"] is True


def test_the_review_page_of_an_install_off_path_hands_over_commands_that_run(
    venv_install: Path, tmp_path: Path
) -> None:
    import html
    import re

    store = tmp_path / "paused store"
    _installed(venv_install, store, "enable", "--confirm")
    _installed(venv_install, store, "apply", "--json", json.dumps(delta(value="小林")))
    _installed(venv_install, store, "pause")
    page = tmp_path / "page.html"
    assert _installed(venv_install, store, "review", "--output", str(page))["ok"] is True
    commands = [
        html.unescape(c)
        for c in re.findall(r'<code class="cmd">(.*?)</code>', page.read_text("utf-8"))
    ]
    script = shlex.quote(str(venv_install / "memory-store"))
    assert commands and all(c.startswith(f"{script} --data-dir ") for c in commands), commands
    (resume,) = {c for c in commands if c.endswith(" resume")}  # the paused note's, and the list's
    assert _in_a_shell(resume)["data"]["paused"] is False
