"""Text and the standard streams (documentation/commands.md#one-envelope-semantic-exit-codes, documentation/commands.md#robustness): UTF-8 in and out, whatever the locale.

Output is UTF-8 and never ASCII-escaped, under any locale; argv is read as UTF-8 whatever
the locale's codec (GB18030, Latin-1, C), and bytes that are not UTF-8 are refused as
such; odd text on the command line (line breaks, undecodable bytes, a data directory
that is not UTF-8) gets a proper code and one line; a closed standard input is
``INVALID_ARGUMENTS`` in words, and a closed standard output no traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import delta, envelope_of, fails, ok, put, run_cli, run_with_env

from memory_store.errors import EXIT_STATUS

ZH = "双方已确认进入排他约会"
VALID_DELTA = json.dumps(delta("relationship", field="stage", value=ZH), ensure_ascii=False)
VALUE = "小A喜欢爬山，周末常去香山"


# ---------------------------------------------------------------- UTF-8 out, not ASCII-escaped


def test_chinese_text_is_not_ascii_escaped(enabled: Path) -> None:
    r = run_cli("apply", "--json", VALID_DELTA)
    assert ZH in r.stdout
    assert "\\u" not in r.stdout
    assert r.data["results"][0]["memory"]["value"] == ZH
    for args in (["show"], ["context", "--subject-id", "obj-a"], ["export"], ["log"]):
        r = run_cli(*args)
        assert ZH in r.stdout, args
        assert "\\u" not in r.stdout, args


def test_output_is_utf8_whatever_the_locale(enabled: Path) -> None:
    ok("apply", "--json", VALID_DELTA)
    r = run_cli("show", env={"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii"})
    assert ZH.encode("utf-8") in r.stdout.encode("utf-8")
    assert r.data["memories"][0]["value"] == ZH


def test_error_messages_with_chinese_subject_are_valid_json(enabled: Path) -> None:
    r = fails("SUBJECT_NOT_FOUND", "forget-object", "小A", "--confirm")
    assert "\\u" not in r.stdout
    r = fails("OPERATION_NOT_FOUND", "undo", "--op-id", "操作")
    assert "\\u" not in r.stdout


# ---------------------------------------------------------------- UTF-8 in, whatever the locale


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
    assert envelope_of(run_with_env(["enable", "--confirm"], env))["ok"] is True
    body = json.dumps(delta(field="hobby", value=VALUE), ensure_ascii=False)
    applied = envelope_of(run_with_env(["apply", "--json", body], env))
    assert applied["ok"] is True, applied
    # The exact text is stored, not the locale's reading of its bytes.
    shown = ok("--data-dir", str(store), "show")["memories"]
    assert [m["value"] for m in shown] == [VALUE]
    found = envelope_of(run_with_env(["search", "--query", "香山"], env))
    assert [m["value"] for m in found["data"]["memories"]] == [VALUE]
    ctx = envelope_of(run_with_env(["context", "--subject-id", "obj-a", "--query", "爬山"], env))
    assert [m["value"] for m in ctx["data"]["memories"]] == [VALUE]
    # An id given on the command line is found by its text.
    memory_id = shown[0]["id"]
    forgot = envelope_of(run_with_env(["forget", memory_id, "--confirm"], env))
    assert forgot["ok"] is True and forgot["data"]["deleted"] == 1
    # Bytes that are not UTF-8 are refused as before, whatever the locale made of them.
    bad = json.dumps(delta(value="X")).encode().replace(b'"X"', b'"\xff\xfe"')
    refused = envelope_of(run_with_env([b"apply", b"--json", bad], env))
    assert refused["error"]["code"] == "INVALID_DELTA", refused
    assert "surrogate" in refused["error"]["message"]
    refused = envelope_of(run_with_env([b"search", b"--query", b"\xb0\xa1"], env))  # 啊 in GB18030
    assert refused["error"]["code"] == "INVALID_ARGUMENTS", refused
    assert ok("--data-dir", str(store), "show")["count"] == 0


# ---------------------------------------------------------------- odd text on the command line


def _raw(*args: str, fmt: str = "json") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "memory_store", "--format", fmt, *args],
        capture_output=True,
        env=dict(os.environ),
        timeout=60,
        input=b"",
    )


@pytest.mark.parametrize(
    ("args", "needs_store"),
    [
        (["status", "x\ny"], False),
        (["show", "--subject-id", "a", "b\nc"], False),
        (
            [
                "apply",
                "--json",
                '{"scope":"user","field":"goal","value":"x",'
                '"source_type":"user_explicit","evil\\nkey":1}',
            ],
            True,
        ),
    ],
    ids=["extra-arg", "extra-args", "unknown-json-key"],
)
def test_table_error_with_line_break_in_user_text_is_one_line(
    args: list[str], needs_store: bool
) -> None:
    """documentation/commands.md#one-envelope-semantic-exit-codes: with --format table an error is one line on stderr, whatever the user typed."""
    if needs_store:
        ok("enable", "--confirm")
    json_mode = _raw(*args)
    code = json.loads(json_mode.stdout)["error"]["code"]
    proc = _raw(*args, fmt="table")
    assert proc.returncode == json_mode.returncode == EXIT_STATUS[code]
    assert proc.stdout == b""
    text = proc.stderr.decode("utf-8")
    assert text.endswith("\n")
    assert "\n" not in text[:-1], repr(text)


NON_UTF8 = "\udcff\udcfe"  # the bytes FF FE on the command line (os.fsencode)


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["forget-object", NON_UTF8, "--confirm"], {"INVALID_ARGUMENTS", "SUBJECT_NOT_FOUND"}),
        (["forget", NON_UTF8, "--confirm"], {"INVALID_ARGUMENTS", "MEMORY_NOT_FOUND"}),
        (["undo", "--op-id", NON_UTF8], {"INVALID_ARGUMENTS", "OPERATION_NOT_FOUND"}),
        (["show", "--subject-id", NON_UTF8], {"INVALID_ARGUMENTS", None}),
        (["context", "--subject-id", NON_UTF8], {"INVALID_ARGUMENTS", None}),
    ],
    ids=["forget-object", "forget", "undo", "show", "context"],
)
def test_non_utf8_ids_on_the_command_line(args: list[str], allowed: set[str | None]) -> None:
    """documentation/commands.md#robustness: odd Unicode gets a proper code (a bad command line, or nothing found),
    never INTERNAL_ERROR, and stdout stays UTF-8."""
    ok("enable", "--confirm")
    ok("apply", "--json", VALID_DELTA)
    before = ok("show")
    proc = _raw(*args)
    assert proc.stderr == b""
    # documentation/commands.md#one-envelope-semantic-exit-codes: stdout is UTF-8
    text = proc.stdout.decode("utf-8")
    env = json.loads(text)
    code = env["error"]["code"] if env["error"] else None
    assert code in allowed, (code, env["error"] and env["error"]["message"])
    assert proc.returncode == (EXIT_STATUS[code] if code else 0)
    assert ok("show") == before


def test_stdout_is_utf8_for_a_non_utf8_data_dir(tmp_path: Path) -> None:
    """documentation/commands.md#one-envelope-semantic-exit-codes: stdout is UTF-8 even when a path it reports is not (Linux paths are bytes)."""
    store = str(tmp_path) + "/caf\udce9"  # the byte E9, not valid UTF-8
    for args in (["status"], ["enable", "--confirm"], ["status"]):
        proc = _raw("--data-dir", store, *args)
        assert proc.returncode == 0, proc.stdout
        env = json.loads(proc.stdout.decode("utf-8"))
        assert env["ok"] is True


# ---------------------------------------------------------------- closed standard streams


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
    proc = run_with_env(command, env, preexec_fn=_close_stdin)
    envelope = envelope_of(proc)
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
    proc = run_with_env(["import", str(exported)], env, preexec_fn=_close_stdin)
    assert envelope_of(proc)["ok"] is True
    assert [m["value"] for m in ok("show")["memories"]] == [VALUE]


@pytest.mark.parametrize("args", [["status"], ["bogus"], ["show"]], ids=["ok", "argparse", "error"])
def test_closed_stdout_gives_no_traceback(args: list[str]) -> None:
    """documentation/commands.md#one-envelope-semantic-exit-codes: no Python traceback ever reaches the user, even when the reader of stdout
    has gone away (``memory-store status | head -c0``, a host that closed its pipe)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: writing raises EPIPE
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "memory_store", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            input=b"",
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    assert b"Exception ignored" not in proc.stderr, proc.stderr.decode()
