"""The per-turn commands stay light: heavy imports are paid only on the paths that need them.

Deterministic, not timed: it checks which modules a real ``status`` / ``context``
process imported, so a later change cannot quietly put jsonschema or tabulate
back on the hot path (documentation/performance.md#targets; figures in documentation/performance.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import apply, delta, ok

PROBE = """
import json, sys
from memory_store.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""
HEAVY = (
    "jsonschema",
    "tabulate",
    "wcwidth",
    "typing",
    "pathlib",
    "urllib",
    "shutil",
    "contextlib",
    "mcp",
    "mcp_types",
    "pydantic",
    "anyio",
)
# What the interpreter and this environment load anyway (an editable install's
# import hook brings pathlib, for instance): only what memory-store adds counts.
FLOOR = "import json, sys, sqlite3, argparse; print(json.dumps(sorted(sys.modules)))"


def floor_modules() -> set[str]:
    out = subprocess.run([sys.executable, "-c", FLOOR], capture_output=True, text=True, timeout=60)
    return set(json.loads(out.stdout))


def added_heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules - floor_modules() if m.split(".")[0] in HEAVY)


def loaded_modules(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if "table" not in args:
        assert json.loads(proc.stdout)["ok"] is True
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.fixture
def populated(enabled: Path) -> Path:
    apply(
        delta(field="display_label", value="A"),
        delta(scope="event", field="conflict", value="吵架"),
    )
    return enabled


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["context", "--subject-id", "obj-a"],
        ["context"],
        ["show"],
        ["log"],
        ["context", "--subject-id", "obj-a", "--query", "他们吵架了吗？ any conflict?"],
        ["search", "--query", "吵架 conflict"],
    ],
)
def test_read_paths_import_nothing_heavy(populated: Path, args: list[str]) -> None:
    assert added_heavy(loaded_modules(*args)) == []


def test_a_chinese_question_on_chinese_rows_does_not_load_unicodedata(populated: Path) -> None:
    # Loading it costs more than ranking one person's rows; ideographs need no NFKC.
    apply(delta(scope="event", field="outing", value="周末一起去看了电影 we saw a film"))
    args = ("context", "--subject-id", "obj-a", "--query", "我们上次一起看电影是什么时候？")
    assert "unicodedata" not in loaded_modules(*args) - floor_modules()
    assert "unicodedata" in loaded_modules(
        "context", "--subject-id", "obj-a", "--query", "ＭＢＴＩ"
    )


def test_status_on_absent_store_imports_nothing_heavy() -> None:
    assert added_heavy(loaded_modules("status")) == []


def test_apply_checks_its_schema_without_jsonschema(populated: Path) -> None:
    # writes/shape.py checks the delta; jsonschema alone would cost every write several
    # times the interpreter's start (documentation/performance.md).
    body = json.dumps(delta(field="mbti", value="INTJ"))
    assert added_heavy(loaded_modules("apply", "--json", body)) == []
    event = delta(scope="event", field="met", value="见面", occurred_at="2026-03-01T20:00+08:00")
    refused = json.dumps({"deltas": [event, {**event, "field": "Bad"}]})
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "apply", "--json", refused],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(proc.stdout)["error"]["code"] == "INVALID_DELTA"
    assert added_heavy(set(json.loads(proc.stderr.strip().splitlines()[-1]))) == []


def test_print_config_finds_the_sdk_without_importing_it(populated: Path) -> None:
    modules = loaded_modules("mcp", "--print-config", "claude-code")
    assert not {m.split(".")[0] for m in modules} & {"mcp", "mcp_types", "pydantic", "anyio"}


def test_table_output_pays_for_tabulate() -> None:
    assert "tabulate" in loaded_modules("--format", "table", "status")


def test_platformdirs_only_without_an_explicit_directory(populated: Path, monkeypatch) -> None:
    assert "platformdirs" not in loaded_modules("status")
    monkeypatch.delenv("MEMORY_STORE_DIR")
    modules = loaded_modules("status")
    assert "platformdirs" in modules
    ok("status")  # the platformdirs path still answers with an envelope


@pytest.mark.parametrize(
    ("args", "family"),
    [
        (["status"], "memory_store.commands.consent"),
        (["context", "--subject-id", "obj-a"], "memory_store.commands.recall"),
        (["context", "--subject-id", "obj-a", "--query", "吵架"], "memory_store.commands.recall"),
        (["log"], "memory_store.commands.memory"),
    ],
)
def test_a_call_imports_only_its_own_commands_family(
    populated: Path, args: list[str], family: str
) -> None:
    # nor commands.catalog, which joins every family (for --help, the server and the docs)
    families = {m for m in loaded_modules(*args) if m.startswith("memory_store.commands")}
    assert families == {"memory_store.commands", family}


def test_each_command_is_found_in_the_family_the_registry_names() -> None:
    from memory_store.commands import NAMES
    from memory_store.commands import catalog as commands

    assert tuple(commands.COMMANDS) == NAMES
    for name in NAMES:
        assert commands.command(name) is commands.COMMANDS[name]
        assert commands.COMMANDS[name].tool is commands.TOOLS.get(name)


def test_the_parse_leaves_argparse_as_found_and_still_knows_a_negative_number() -> None:
    # cli.parse compiles argparse's patterns only when used (cli._Lazy): a value that
    # is a negative number must still be taken as a value, not as an unknown option.
    import argparse

    from memory_store import cli
    from memory_store.errors import MemoryStoreError

    before = (argparse._, argparse._re)
    assert cli.parse(["search", "--query", "-2.5"]).query == "-2.5"
    assert cli.parse(["search", "--query", "-7"]).query == "-7"
    with pytest.raises(MemoryStoreError, match="expected one argument"):
        cli.parse(["search", "--query", "-x"])
    assert (argparse._, argparse._re) == before


# How many of the package's own modules each call loads (release 3's flat package loaded
# the same numbers): a package's entry module is its __init__, so the move into concern
# packages (documentation/performance.md#targets) added no module to any call; each one costs ~0.2 M instructions.
OWN_MODULES = [
    (["status"], 11),
    (["context", "--subject-id", "obj-a"], 13),
    (["context", "--subject-id", "obj-a", "--query", "他们吵架了吗？ any conflict?"], 16),
    (["search", "--query", "吵架 conflict"], 15),
    # a question about time, and a day asked for, add recall/anchors.py (documentation/time.md#as-of-a-time-anchors-and---as-of)
    (["context", "--subject-id", "obj-a", "--query", "吵架那会儿她在做什么工作？"], 17),
    (["context", "--subject-id", "obj-a", "--as-of", "2026-01-01"], 14),
    (["show"], 12),
    (["log"], 13),
    (["tidy"], 13),
    # the sensitive detectors' word lists left policy.py for a leaf of their own
    # (sensitive_terms.py), and writes/shape.py with its generated schema replaced
    # jsonschema's ~60 modules
    (["apply", "--json", json.dumps(delta(field="mbti", value="INTJ"))], 21),
    (["undo"], 13),
    (["forget-object", "obj-a", "--confirm"], 16),
]


@pytest.mark.parametrize(("args", "most"), OWN_MODULES, ids=lambda v: str(v)[:30])
def test_no_call_loads_more_of_the_package_than_before(
    populated: Path, args: list[str], most: int
) -> None:
    own = sorted(m for m in loaded_modules(*args) if m.split(".")[0] == "memory_store")
    assert len(own) <= most, own


# main() as the console script calls it (no argv: the process is the command's), then
# whether the cyclic collector is on when the command is done.
COLLECTOR_PROBE = """
import gc, sys
from memory_store.cli import main
sys.argv = ["memory-store", *sys.argv[1:]]
code = main() if sys.argv[1:2] != ["--argv"] else main(sys.argv[2:])
sys.stdout.flush()
print("collector", gc.isenabled(), file=sys.stderr)
sys.exit(code)
"""


def collector_after(*args: str, env: dict[str, str] | None = None) -> bool:
    proc = subprocess.run(
        [sys.executable, "-c", COLLECTOR_PROBE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stderr.strip().splitlines()[-1] == "collector True"


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["context", "--subject-id", "obj-a", "--query", "他们吵架了吗？ any conflict?"],
        ["apply", "--json", json.dumps(delta(field="mbti", value="INTJ"))],
    ],
    ids=lambda v: v[0],
)
def test_a_one_call_process_runs_without_the_cyclic_collector(
    populated: Path, args: list[str]
) -> None:
    # Reference counting frees what a call drops; the collector's passes over the
    # modules just imported were ~2 % of a turn (documentation/performance.md).
    assert collector_after(*args) is False
    assert ok("context", "--subject-id", "obj-a")["subject_known"] is True


def test_main_called_with_arguments_leaves_the_callers_collector_alone(populated: Path) -> None:
    # A program (or a test) calling main(["status"]) in its own process keeps its own GC.
    assert collector_after("--argv", "status") is True


def test_a_server_turns_the_collector_back_on(populated: Path) -> None:
    # `memory-store mcp` lives as long as its client: with standard input closed at once
    # the server ends, and the collector main() turned off was back on while it served.
    assert collector_after("mcp") is True


def test_the_page_server_turns_the_collector_back_on(populated: Path) -> None:
    import os

    env = {**os.environ, "MEMORY_STORE_PAGE_IDLE_SECONDS": "1"}  # ends after 1 s unused
    assert collector_after("review", "--serve", "--no-open", env=env) is True


def test_a_one_call_process_closes_the_store_itself(enabled: Path) -> None:
    # main() freezes the process's objects before the interpreter exits, so the exit's
    # last collection passes them by (documentation/performance.md): the call itself must
    # have closed the store, which SQLite shows by removing -wal and -shm on the last close.
    apply(delta(field="display_label", value="A"), spawn=True)
    ok("undo", spawn=True)
    ok("status", spawn=True)
    assert sorted(p.name for p in enabled.iterdir() if p.name.startswith("memory.")) == [
        "memory.sqlite3"
    ]
