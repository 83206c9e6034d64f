"""Attacks that got through release 2 (contract §21, issue 18), on the command line and the
library: argv decoded with the locale's codec, an empty data directory read as the default
store, a closed standard input, imported rows from the future, ownership rechecked by a
held store, and revoke --delete on a disk without a free byte.

The MCP server's part of §21 is in test_mcp_hardening.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import cli, delta, ok, put

from memory_store import MemoryStore, MemoryStoreError
from memory_store.commands.catalog import COMMANDS

PROJECT = Path(__file__).resolve().parent.parent
VALUE = "小A喜欢爬山，周末常去香山"


def _spawn(
    args: list[str | bytes], env: dict[str, str], **kwargs: Any
) -> subprocess.CompletedProcess[bytes]:
    """``python -m memory_store ARGS`` with exactly ``env`` (plus the import path)."""
    return subprocess.run(
        [sys.executable, "-m", "memory_store", *args],
        capture_output=True,
        env={**env, "PYTHONPATH": str(PROJECT)},
        timeout=60,
        **kwargs,
    )


def _envelope(proc: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    assert proc.stderr == b"", proc.stderr
    lines = proc.stdout.decode("utf-8").splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


# --- 1. command-line text is UTF-8 whatever the locale ------------------------------------

LOCALES = {
    "gb18030": ("zh_CN", "GB18030", "zh_CN.GB18030"),
    "latin-1": ("en_US", "ISO-8859-1", "en_US.ISO-8859-1"),
}


@pytest.fixture(scope="module")
def locales(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GB18030 and Latin-1 locales built with localedef into a private directory (LOCPATH)."""
    if shutil.which("localedef") is None:
        pytest.skip("localedef (glibc's locale compiler) is not installed: no locale can be built")
    root = tmp_path_factory.mktemp("locales")
    for source, charmap, name in LOCALES.values():
        proc = subprocess.run(
            ["localedef", "-i", source, "-f", charmap, str(root / name)], capture_output=True
        )
        if proc.returncode != 0 or not (root / name).is_dir():
            pytest.skip(f"localedef cannot build {name} here: {proc.stderr.decode()[-200:]}")
    return root


def _locale_env(locales: Path, which: str, store: Path) -> dict[str, str]:
    name = "C" if which == "c" else LOCALES[which][2]
    return {
        "PATH": os.environ["PATH"],
        "LOCPATH": str(locales),
        "LC_ALL": name,
        "PYTHONUTF8": "0",  # Python would otherwise switch to UTF-8 mode under the C locale
        "PYTHONCOERCECLOCALE": "0",
        "MEMORY_STORE_DIR": str(store),
    }


@pytest.mark.parametrize("which", ["gb18030", "latin-1", "c"])
def test_argv_text_is_utf8_whatever_the_locale(locales: Path, tmp_path: Path, which: str) -> None:
    store = tmp_path / "store"
    env = _locale_env(locales, which, store)
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; print(sys.getfilesystemencoding(), sys.flags.utf8_mode)",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    encoding, utf8_mode = probe.stdout.split()
    assert utf8_mode == "0" and encoding in ("gb18030", "iso8859-1", "ascii"), probe.stdout
    assert _envelope(_spawn(["enable", "--confirm"], env))["ok"] is True
    body = json.dumps(delta(field="hobby", value=VALUE), ensure_ascii=False)
    applied = _envelope(_spawn(["apply", "--json", body], env))
    assert applied["ok"] is True, applied
    # The exact text is stored, not the locale's reading of its bytes.
    shown = ok("--data-dir", str(store), "show")["memories"]
    assert [m["value"] for m in shown] == [VALUE]
    found = _envelope(_spawn(["search", "--query", "香山"], env))
    assert [m["value"] for m in found["data"]["memories"]] == [VALUE]
    ctx = _envelope(_spawn(["context", "--subject-id", "obj-a", "--query", "爬山"], env))
    assert [m["value"] for m in ctx["data"]["memories"]] == [VALUE]
    # An id given on the command line is found by its text.
    memory_id = shown[0]["id"]
    forgot = _envelope(_spawn(["forget", memory_id, "--confirm"], env))
    assert forgot["ok"] is True and forgot["data"]["deleted"] == 1
    # Bytes that are not UTF-8 are refused as before, whatever the locale made of them.
    bad = json.dumps(delta(value="X")).encode().replace(b'"X"', b'"\xff\xfe"')
    refused = _envelope(_spawn([b"apply", b"--json", bad], env))
    assert refused["error"]["code"] == "INVALID_DELTA", refused
    assert "surrogate" in refused["error"]["message"]
    refused = _envelope(_spawn([b"search", b"--query", b"\xb0\xa1"], env))  # 啊 in GB18030
    assert refused["error"]["code"] == "INVALID_ARGUMENTS", refused
    assert ok("--data-dir", str(store), "show")["count"] == 0


# --- 2. an empty directory is not the default store ---------------------------------------


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
    assert _envelope(_spawn(["enable", "--confirm"], env))["ok"] is True
    body = json.dumps(delta(value=VALUE), ensure_ascii=False)
    assert _envelope(_spawn(["apply", "--json", body], env))["ok"] is True
    default = _envelope(_spawn(["status"], env))["data"]
    assert default["path"].startswith(str(home / "data")) and default["counts"]["total"] == 1
    for words, extra in (
        (["--data-dir", ""], {}),
        (["--data-dir="], {}),
        ([], {"MEMORY_STORE_DIR": ""}),
    ):
        for command in (["clear", "--confirm"], ["revoke", "--delete", "--confirm"], ["status"]):
            proc = _spawn([*words, *command], {**env, **extra})
            assert proc.returncode == 2, proc.stdout
            assert _envelope(proc)["error"]["code"] == "INVALID_ARGUMENTS"
    shown = _envelope(_spawn(["show"], env))["data"]["memories"]
    assert [m["value"] for m in shown] == [VALUE]


# --- 3. a closed standard input -----------------------------------------------------------


def _close_stdin() -> None:
    os.close(0)


@pytest.mark.parametrize(
    "command", [["import", "-"], ["apply"], ["import", "-", "--dry-run"], ["mcp"]]
)
def test_a_closed_stdin_is_invalid_arguments(enabled: Path, command: list[str]) -> None:
    env = {"PATH": os.environ["PATH"], "MEMORY_STORE_DIR": str(enabled)}
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.stdin is None)"],
        capture_output=True,
        text=True,
        preexec_fn=_close_stdin,
    )
    assert probe.stdout.strip() == "True"  # fd 0 really is closed in the child
    proc = _spawn(command, env, preexec_fn=_close_stdin)
    envelope = _envelope(proc)
    assert envelope["error"]["code"] == "INVALID_ARGUMENTS", envelope
    assert proc.returncode == 2
    assert "standard input" in envelope["error"]["message"]
    assert ok("show")["count"] == 0


def test_a_closed_stdin_still_reads_a_file(enabled: Path, tmp_path: Path) -> None:
    put(delta(value=VALUE))
    exported = tmp_path / "export.json"
    ok("export", "--output", str(exported))
    ok("clear", "--confirm")
    env = {"PATH": os.environ["PATH"], "MEMORY_STORE_DIR": str(enabled)}
    proc = _spawn(["import", str(exported)], env, preexec_fn=_close_stdin)
    assert _envelope(proc)["ok"] is True
    assert [m["value"] for m in ok("show")["memories"]] == [VALUE]


# --- 4. imported times are not from the future ---------------------------------------------


def _exported(tmp_path: Path) -> dict[str, Any]:
    put(delta(value="小A"), delta(field="hobby", value="爬山"))
    path = tmp_path / "export.json"
    ok("export", "--output", str(path))
    return json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize("key", ["created_at", "updated_at"])
@pytest.mark.parametrize("when", ["2999-01-01T00:00:00Z", "soon"])
def test_an_imported_time_after_the_import_is_refused(
    enabled: Path, tmp_path: Path, key: str, when: str
) -> None:
    import time

    doc = _exported(tmp_path)
    before = ok("show")["memories"], ok("log")["operations"]
    if when == "soon":  # an hour ahead: a clock set wrong, or an edit
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    doc["memories"][1][key] = when
    if key == "created_at":
        doc["memories"][1]["updated_at"] = when
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    for args in (["import", str(edited)], ["import", str(edited), "--dry-run"]):
        r = cli(*args)
        assert r.code == 4 and r.error is not None and r.error["code"] == "INVALID_DELTA", r.stdout
        assert r.error["details"] == {"index": 1, "path": f"$.memories[1].{key}"}, r.error
        assert when in r.error["message"]
    assert (ok("show")["memories"], ok("log")["operations"]) == before


def test_an_export_imported_at_once_keeps_its_times(enabled: Path, tmp_path: Path) -> None:
    doc = _exported(tmp_path)
    ok("clear", "--confirm")
    r = cli("import", "-", input=json.dumps(doc, ensure_ascii=False))
    assert r.code == 0, r.stdout
    times = {(m["created_at"], m["updated_at"]) for m in ok("show")["memories"]}
    assert times == {(m["created_at"], m["updated_at"]) for m in doc["memories"]}


# --- 9. revoke --delete on a disk with no free byte -----------------------------------------

REVOKE_ON_A_FULL_TMPFS = r"""
import json, os, sqlite3, sys
from memory_store import MemoryStore, MemoryStoreError
from memory_store.cli import main
store_dir, left_behind = sys.argv[1], sys.argv[2]
store = MemoryStore(store_dir)
store.enable(confirm=True)
for i in range(12):
    store.apply({"scope": "event", "subject_id": f"obj-{i % 9}", "field": f"e{i}",
                 "value": f"row {i} " + "满" * 150, "source_type": "user_report",
                 "occurred_at": "2026-08-02"})
path = os.path.join(store_dir, "memory.sqlite3")
pid = os.fork()
if pid == 0:  # a host that died with the store open: its -wal and -shm stay behind
    if left_behind != "nothing":
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute("UPDATE settings SET value = value WHERE key = 'write_seq'")
    os._exit(0)
os.waitpid(pid, 0)
if left_behind == "wal":
    os.unlink(path + "-shm")
before = sorted(os.listdir(store_dir))
fd = os.open(os.path.join(os.path.dirname(store_dir), "filler"), os.O_WRONLY | os.O_CREAT)
for chunk in (b"x" * 65536, b"x" * 4096, b"x"):  # dd until it fails, to the last byte
    try:
        while True:
            os.write(fd, chunk)
    except OSError:
        pass
os.close(fd)
vfs = os.statvfs(store_dir)
code = main(["--data-dir", store_dir, "revoke", "--delete", "--confirm"])
print(json.dumps({"code": code, "before": before, "left": sorted(os.listdir(store_dir)),
                  "free": vfs.f_bavail * vfs.f_frsize}), file=sys.stderr)
"""


LEFT_BEHIND = {
    # As every command leaves it: revoke's own open must create -wal and -shm, and cannot.
    "nothing": ["memory.sqlite3"],
    # A host that died with the store open: SQLite truncates the -shm and regrows it.
    "wal-and-shm": ["memory.sqlite3", "memory.sqlite3-shm", "memory.sqlite3-wal"],
    # A -wal whose -shm someone removed: the -wal must be read without one.
    "wal": ["memory.sqlite3", "memory.sqlite3-wal"],
}


@pytest.mark.parametrize("left_behind", sorted(LEFT_BEHIND))
def test_revoke_delete_unlinks_every_file_on_a_disk_with_no_free_byte(
    tmp_path: Path, left_behind: str
) -> None:
    from test_hostile_files import in_tiny_disk

    proc = in_tiny_disk(tmp_path, REVOKE_ON_A_FULL_TMPFS, left_behind)
    assert proc.stderr.strip(), proc
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    envelope = json.loads(proc.stdout)
    assert report["before"] == LEFT_BEHIND[left_behind]
    assert report["free"] == 0, report  # not one byte left
    assert report["code"] == 0 and report["left"] == [], (report, envelope)
    data = envelope["data"]
    assert data["deleted"] is True and data["consent_enabled"] is False, envelope
    assert data["rows_deleted"] == 12  # counted even where SQLite could not open a -shm
    # Zeroing overwrites pages the files already hold, so even a full tmpfs allows it;
    # where it cannot (a sparse file), the result says overwritten: false
    # (test_hostile_files.py). Either way the result tells the truth about the bytes.
    assert data["erased"] is data["overwritten"]
