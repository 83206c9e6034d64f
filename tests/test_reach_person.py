"""Contract §22, for the person: commands handed out name the store, revoked is not
"never asked", errors say the rule in words, names resolve to subjects, pipes work.

Everything runs through the real CLI (in process, or a subprocess where a pipe or
the environment matters) and, for the MCP server, a real MCP client.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import cli, delta, fails, ok, put, run_cli
from mcp import Client

from memory_store import MemoryStore
from memory_store.mcp import build_server


def data_of(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.structured_content
    return result.structured_content


async def call(client: Any, name: str, **arguments: Any) -> Any:
    return await client.call_tool(name, arguments)


# ---------------------------------------------------------------- commands name the store


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
    failed = fails("NOT_INITIALIZED", "--data-dir", str(where), "log")
    assert f"`memory-store --data-dir {where} enable --confirm`" in failed.error["message"]


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


# ---------------------------------------------------------------- revoked is not "never asked"


def _consent() -> tuple[str, Any]:
    status = ok("status")
    return status["consent_state"], status["revoked_at"]


def test_consent_state_walks_every_state(private_store: Path) -> None:
    assert _consent() == ("absent", None)
    ok("enable", "--confirm")
    assert _consent() == ("enabled", None)
    ok("pause")
    assert _consent() == ("paused", None)
    ok("revoke", "--confirm")
    state, revoked_at = _consent()
    status = ok("status")
    assert state == "revoked" and revoked_at is not None
    assert status["consent_enabled"] is False and status["consent_at"] is not None
    ok("enable", "--confirm")  # consent restored: the revoke is no longer the answer
    assert _consent() == ("enabled", None)
    ok("revoke", "--delete", "--confirm")
    assert _consent() == ("absent", None)


def test_a_first_enable_that_did_not_finish_is_never_enabled(private_store: Path) -> None:
    private_store.mkdir(mode=0o700)
    (private_store / "memory.sqlite3").touch(mode=0o600)  # zero-length, as a crash leaves it
    status = ok("status")
    assert status["exists"] is True
    assert (status["consent_state"], status["revoked_at"]) == ("never_enabled", None)
    ok("enable", "--confirm")
    assert _consent() == ("enabled", None)


@pytest.mark.anyio
async def test_memory_status_tells_revoked_from_never_asked(store: Any) -> None:
    ok("enable", "--confirm")
    ok("revoke", "--confirm")
    async with Client(build_server(store)) as client:
        status = data_of(await call(client, "memory_status"))
    assert status["consent_state"] == "revoked" and status["revoked_at"]


# ---------------------------------------------------------------- names, not only codes


@pytest.fixture
def people(private_store: Path) -> Path:
    ok("enable", "--confirm")
    put(
        delta(subject="obj-a", value="小林"),
        delta(scope="event", subject="obj-a", field="met", value="在读书会认识"),
        delta(subject="obj-b", value="老王"),
    )
    return private_store


def test_context_by_label_resolves_to_the_subject(people: Path) -> None:
    found = ok("context", "--subject-id", "小林")
    assert found["subject_id"] == "obj-a" and found["subject_known"] is True
    assert "在读书会认识" in [m["value"] for m in found["memories"]]
    assert ok("context", "--subject-id", "obj-a")["subject_id"] == "obj-a"  # codes still work
    unknown = ok("context", "--subject-id", "小张")
    assert unknown["subject_id"] == "小张" and unknown["subject_known"] is False


def test_show_and_search_by_label(people: Path) -> None:
    shown = ok("show", "--subject-id", "老王")
    assert shown["subject_id"] == "obj-b"
    assert [m["subject_id"] for m in shown["memories"]] == ["obj-b"]
    searched = ok("search", "--query", "读书会", "--subject-id", "小林")
    assert searched["subject_id"] == "obj-a" and searched["count"] == 1
    assert ok("search", "--query", "读书会")["subject_id"] is None


def test_forget_object_by_label(people: Path) -> None:
    forgotten = ok("forget-object", "老王", "--confirm")
    assert forgotten["subject_id"] == "obj-b" and forgotten["deleted"] == 1
    assert ok("show", "--subject-id", "obj-b")["count"] == 0
    assert ok("show", "--subject-id", "obj-a")["count"] == 2


def test_a_label_two_subjects_share_is_ambiguous(people: Path) -> None:
    put(delta(subject="obj-c", value="小林"))
    before = ok("show")
    for args in (["context", "--subject-id", "小林"], ["forget-object", "小林", "--confirm"]):
        failed = fails("INVALID_ARGUMENTS", *args)
        error = failed.error
        assert "obj-a (小林)" in error["message"] and "obj-c (小林)" in error["message"]
        assert error["details"]["subjects"] == [
            {"subject_id": "obj-a", "display_label": "小林"},
            {"subject_id": "obj-c", "display_label": "小林"},
        ]
    assert ok("show") == before


def test_subject_not_found_lists_the_known_subjects_with_labels(people: Path) -> None:
    failed = fails("SUBJECT_NOT_FOUND", "forget-object", "小张", "--confirm")
    error = failed.error
    assert "obj-a (小林)" in error["message"] and "obj-b (老王)" in error["message"]
    assert error["details"]["known_subjects"] == ["obj-a", "obj-b"]
    assert error["details"]["subjects"] == [
        {"subject_id": "obj-a", "display_label": "小林"},
        {"subject_id": "obj-b", "display_label": "老王"},
    ]


def test_without_consent_no_label_is_read(people: Path) -> None:
    put(delta(subject="obj-c", value="小林"))  # ambiguous, were it looked up
    ok("revoke", "--confirm")
    fails("CONSENT_REQUIRED", "context", "--subject-id", "小林")
    fails("CONSENT_REQUIRED", "search", "--query", "x", "--subject-id", "小林")


@pytest.mark.anyio
async def test_mcp_tools_take_names(people: Path, store: Any) -> None:
    async with Client(build_server(store)) as client:
        context = data_of(await call(client, "memory_context", subject_id="小林"))
        ask = data_of(await call(client, "memory_forget_object", subject_id="老王"))
    assert context["subject_id"] == "obj-a" and context["subject_known"] is True
    assert ask["reason"] == "cannot_ask"
    assert shlex.split(ask["command"])[-3:] == ["forget-object", "老王", "--confirm"]


# ---------------------------------------------------------------- pipes


def test_export_piped_into_import(people: Path) -> None:
    exported = run_cli("export")
    assert exported.code == 0
    ok("clear", "--confirm")
    dry = run_cli("import", "-", "--dry-run", input=exported.stdout)
    assert dry.code == 0 and dry.data["counts"]["created"] == 3
    assert dry.data["summary"].startswith("would import 3 memories: 3 to create")
    assert "imported" not in dry.data["summary"]
    imported = run_cli("import", "-", input=exported.stdout)
    assert imported.code == 0 and imported.data["counts"]["created"] == 3
    assert imported.data["summary"].startswith("imported 3 memories: 3 created")
    assert ok("show")["memories"] == exported.data["document"]["memories"]


def test_a_real_shell_pipe(people: Path) -> None:
    import subprocess
    import sys

    ok("revoke", "--delete", "--confirm")
    ok("enable", "--confirm")
    put(delta(value="小林"))
    exe = f"{shlex.quote(sys.executable)} -m memory_store"
    line = f"{exe} export | {exe} import - --dry-run"
    proc = subprocess.run(line, shell=True, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)["data"]
    assert result["summary"] == "would import 1 memory: 0 to create, 0 to update, 1 unchanged"


def test_an_envelope_that_is_not_an_export_is_refused(people: Path, tmp_path: Path) -> None:
    status = run_cli("status").stdout
    failed = fails("INVALID_DELTA", "import", "-", input=status)
    assert failed.error["details"]["path"] == "$.command"
    written = run_cli("export", "--output", str(tmp_path / "copy.json")).stdout
    failed = fails("INVALID_DELTA", "import", "-", input=written)
    assert "--output" in failed.error["message"]


# ---------------------------------------------------------------- words for each face


def test_missing_confirmation_in_each_faces_words(private_store: Path) -> None:
    from memory_store import MemoryStoreError

    failed = fails("CONFIRMATION_REQUIRED", "revoke", "--delete")
    assert failed.error["message"].startswith("revoke --delete needs --confirm")
    assert "confirm=True" not in failed.error["message"]
    store = MemoryStore(private_store)
    with pytest.raises(MemoryStoreError) as raised:
        store.forget_object("obj-a")
    assert raised.value.code == "CONFIRMATION_REQUIRED"
    assert raised.value.message.startswith("forget_object needs confirm=True")
    assert "--confirm" not in raised.value.message
    assert not private_store.exists()


@pytest.mark.anyio
async def test_one_memory_and_one_undo_step_read_as_singular(private_store: Path) -> None:
    from mcp_types import ElicitResult

    ok("enable", "--confirm")
    put(delta(value="Alex"))
    seen: list[str] = []

    async def no(context: Any, params: Any) -> ElicitResult:
        seen.append(params.message)
        return ElicitResult(action="decline")

    store = MemoryStore(private_store)
    async with Client(build_server(store), elicitation_callback=no) as client:
        await call(client, "memory_forget_object", subject_id="Alex", language="en")
        await call(client, "memory_revoke", language="en")
    assert seen[0] == (
        "Delete the 1 memory about Alex and the 1 undo step that mentions it? "
        "This cannot be undone."
    )
    assert seen[1].startswith("Stop remembering? The 1 memory stays,")


# ---------------------------------------------------------------- help


def test_apply_help_shows_examples_that_work(private_store: Path) -> None:
    from memory_store.commands import EXAMPLES

    help_text = run_cli("apply", "--help", check_envelope=False)
    assert help_text.code == 0 and "examples:" in help_text.stdout
    assert EXAMPLES["apply"].splitlines()[1] in help_text.stdout
    ok("enable", "--confirm")
    lines = [line.strip() for line in EXAMPLES["apply"].splitlines()]
    runnable = [line for line in lines if line.startswith("memory-store apply --json")]
    assert len(runnable) == 2
    for line in runnable:
        result = ok(*shlex.split(line)[1:], "--dry-run")
        assert result["dry_run"] is True and result["results"]


def test_pause_help_names_what_it_stops_and_it_stops_them(private_store: Path) -> None:
    from memory_store.commands.consent import GATED

    help_text = run_cli("pause", "--help", check_envelope=False).stdout
    stopped_line = help_text.split("\n\n")[1]
    for name in GATED:
        assert name in stopped_line
    ok("enable", "--confirm")
    put(delta(value="小林"))
    document = json.dumps(ok("export")["document"], ensure_ascii=False)
    ok("pause")
    fails("MEMORY_PAUSED", "apply", "--json", json.dumps(delta(value="x")))
    fails("MEMORY_PAUSED", "context", "--subject-id", "obj-a")
    fails("MEMORY_PAUSED", "search", "--query", "小林")
    fails("MEMORY_PAUSED", "import", "-", input=document)
    for still in (["show"], ["status"], ["log"], ["export"], ["undo"]):
        ok(*still)


def test_cli_reference_lists_version_beside_help() -> None:
    reference = (Path(__file__).parent.parent / "references" / "cli.md").read_text("utf-8")
    assert "`--help` and `--version`" in reference
    version = run_cli("--version", check_envelope=False)
    assert version.code == 0 and version.stdout.startswith("memory-store ")


# ---------------------------------------------------------------- tables that fit


LONG = "在读书会认识的室内设计师，喜欢周末去看展览，also likes long walks by the river"


@pytest.fixture
def wide(private_store: Path) -> Path:
    ok("enable", "--confirm")
    put(delta(subject="obj-a", value="小林"), delta(subject="obj-a", field="fact", value=LONG))
    put(delta(subject="obj-b", value="007"))
    return private_store


@pytest.mark.parametrize("columns", [100, 60, 44])
@pytest.mark.parametrize(
    "command", [["search", "--query", "设计师 小林 007"], ["log"], ["show"], ["status"]]
)
def test_tables_fit_the_terminal(wide: Path, command: list[str], columns: int) -> None:
    from test_table import _check_aligned
    from wcwidth import wcswidth

    shown = cli("--format", "table", *command, env={"COLUMNS": str(columns)}, check_envelope=False)
    assert shown.code == 0 and shown.stderr == ""
    lines = shown.stdout.splitlines()
    assert max(wcswidth(line) for line in lines) <= columns, shown.stdout
    assert "{" not in shown.stdout or command == ["status"]  # rows are tables, not JSON blobs
    _check_aligned(shown.stdout)
    if command[0] in ("search", "show"):
        assert "…" in shown.stdout and LONG not in shown.stdout
        assert "007" in shown.stdout  # a value that looks like a number stays text


def test_search_table_shows_rows_as_columns(wide: Path) -> None:
    shown = cli("--format", "table", "search", "--query", "设计师", check_envelope=False)
    header = next(line for line in shown.stdout.splitlines() if " scope " in line)
    assert header.split() == [
        "subject_id",
        "scope",
        "field",
        "value",
        "occurred_at",
        "confidence",
        "id",
    ]
    assert LONG in shown.stdout  # not a terminal, no COLUMNS: every value whole


def test_a_pipe_gets_every_value_whole(wide: Path) -> None:
    piped = run_cli("--format", "table", "show", check_envelope=False, env={"COLUMNS": ""})
    assert piped.code == 0 and LONG in piped.stdout  # stdout is a pipe: nothing clipped


def test_readme_library_table_lists_every_public_method() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text("utf-8")
    table = [line for line in readme.splitlines() if line.startswith("| ")]
    public = [name for name in dir(MemoryStore) if not name.startswith("_")]
    assert "search" in public and "hold" in public
    for name in public:
        assert any(f"`{name}(" in line for line in table), name
    assert any("query=None" in line and "`context(" in line for line in table)


# ---------------------------------------------------------------- errors a person can act on


def _refusal(**changes: Any) -> dict[str, Any]:
    body = {**delta(scope="event", field="met", value="在读书会认识"), **changes}
    failed = fails("INVALID_DELTA", "apply", "--json", json.dumps(body, ensure_ascii=False))
    return failed.error


@pytest.mark.parametrize(
    ("key", "bad", "words"),
    [
        ("occurred_at", "上周六", "must be a date like 2026-08-02, or a date and time like"),
        ("subject_id", "小林", "a code like obj-a; put the person's name in display_label"),
        ("field", "Display Label", "lowercase snake_case, such as display_label"),
    ],
)
def test_validation_says_the_rule_in_words(
    private_store: Path, key: str, bad: str, words: str
) -> None:
    ok("enable", "--confirm")
    error = _refusal(**{key: bad})
    assert error["message"].startswith(key) and words in error["message"]
    assert "^" not in error["message"] and "[0-9]" not in error["message"]
    assert error["details"]["path"] == f"$.{key}"
    assert error["details"]["pattern"].startswith("^")  # the machine form stays in details
    assert ok("show")["count"] == 0


def test_an_impossible_date_is_explained_too(private_store: Path) -> None:
    ok("enable", "--confirm")
    error = _refusal(occurred_at="2026-02-30")
    assert "a real calendar date like 2026-08-02" in error["message"]
    assert "YYYY" not in error["message"] and "YYYY-MM-DD" in error["details"]["format"]
