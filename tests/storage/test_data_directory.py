"""Where the store is (documentation/variables.md#where-the-store-lives, documentation/privacy.md#what-is-kept-and-where, documentation/permissions.md#what-the-code-enforces-for-everyone): the data directory, as given and as found.

``--data-dir``, ``MEMORY_STORE_DIR`` and the platform default (``XDG_DATA_HOME``, else
``HOME``) are paths, normalized before SQLite sees them, a leading ``//`` included; an
empty one, on the command line or in the environment, is refused by every command and by
the library, and never read as the default store.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import (
    DB_NAME,
    cli,
    delta,
    envelope_of,
    left_after_revoke_delete,
    ok,
    run_cli,
    run_with_env,
)

from memory_store import MemoryStore, MemoryStoreError
from memory_store.commands.catalog import COMMANDS

VALUE = "小A喜欢爬山，周末常去香山"


# ---------------------------------------------------------------- paths are paths


@pytest.mark.parametrize(
    "shape",
    ["//{dir}/x", "/./{dir}/x", "/{dir}//x//", "/{dir}/./x/.", "//{dir}/../{name}/x/"],
)
def test_a_data_dir_is_normalized_before_sqlite_sees_it(tmp_path: Path, shape: str) -> None:
    store = tmp_path / "x"
    given = shape.format(dir=str(tmp_path).lstrip("/"), name=tmp_path.name)
    data = ok("--data-dir", given, "enable", "--confirm")
    assert data["path"] == str(store / DB_NAME)
    ok("--data-dir", given, "apply", "--json", json.dumps(delta(value="路径")))
    assert ok("--data-dir", str(store), "show")["count"] == 1
    gone = ok("--data-dir", given, "revoke", "--delete", "--confirm")
    assert gone["deleted"] is True
    assert left_after_revoke_delete(store) == []


@pytest.mark.parametrize("variable", ["XDG_DATA_HOME", "HOME"])
def test_a_home_starting_with_two_slashes_is_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.delenv("MEMORY_STORE_DIR")
    if variable == "HOME":
        monkeypatch.delenv("XDG_DATA_HOME")
        expected = tmp_path / ".local" / "share" / "memory-store"
    else:
        expected = tmp_path / "memory-store"
    monkeypatch.setenv(variable, "//" + str(tmp_path).lstrip("/"))
    r = run_cli("enable", "--confirm")
    assert r.code == 0, r.stdout
    assert r.data["path"] == str(expected / DB_NAME)
    assert ok("revoke", "--delete", "--confirm", spawn=True)["deleted"] is True
    assert left_after_revoke_delete(expected) == []


# ---------------------------------------------------------------- an empty directory is not the default store


def _args_for(name: str) -> list[str]:
    """Arguments that pass the command's parser, so only the directory can be refused."""
    words = [name]
    for option in COMMANDS[name].options:
        if option.tool_only:
            continue
        value = {"int": "10", "scope": "object", "path": "some-file"}.get(option.kind, "x")
        if getattr(option, "choices", None):  # skill: "path" reads nothing and writes nothing
            value = option.choices[-1]
        if option.positional:
            words.append(value)
        elif option.required:
            words += [option.flag, value]
    return words


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("how", ["option", "option=", "environment"])
def test_an_empty_data_dir_is_refused_by_every_command(name: str, how: str) -> None:
    if how == "environment":
        r = cli(*_args_for(name), env={"MEMORY_STORE_DIR": ""})
        expected = {"environment": "MEMORY_STORE_DIR"}
    else:
        given = ["--data-dir", ""] if how == "option" else ["--data-dir="]
        r = cli(*given, *_args_for(name))
        expected = {"option": "--data-dir"}
    assert r.code == 2 and r.error is not None, r.stdout
    assert r.error["code"] == "INVALID_ARGUMENTS" and r.error["details"] == expected, r.error


def test_the_library_refuses_an_empty_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MemoryStoreError) as caught:
        MemoryStore(data_dir="")
    assert caught.value.code == "INVALID_ARGUMENTS"
    monkeypatch.setenv("MEMORY_STORE_DIR", "")
    with pytest.raises(MemoryStoreError) as caught:
        MemoryStore()
    assert caught.value.code == "INVALID_ARGUMENTS"


def test_an_empty_data_dir_never_clears_the_default_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    assert envelope_of(run_with_env(["enable", "--confirm"], env))["ok"] is True
    body = json.dumps(delta(value=VALUE), ensure_ascii=False)
    assert envelope_of(run_with_env(["apply", "--json", body], env))["ok"] is True
    default = envelope_of(run_with_env(["status"], env))["data"]
    assert default["path"].startswith(str(home / "data")) and default["counts"]["total"] == 1
    for words, extra in (
        (["--data-dir", ""], {}),
        (["--data-dir="], {}),
        ([], {"MEMORY_STORE_DIR": ""}),
    ):
        for command in (["clear", "--confirm"], ["revoke", "--delete", "--confirm"], ["status"]):
            proc = run_with_env([*words, *command], {**env, **extra})
            assert proc.returncode == 2, proc.stdout
            assert envelope_of(proc)["error"]["code"] == "INVALID_ARGUMENTS"
    shown = envelope_of(run_with_env(["show"], env))["data"]["memories"]
    assert [m["value"] for m in shown] == [VALUE]
