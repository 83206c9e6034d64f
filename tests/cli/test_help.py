"""``--help`` and ``--version`` (documentation/commands.md#one-envelope-semantic-exit-codes): usage for the program and every command,
worked examples that run, and a pause whose help names what it stops.

Help and the version are plain text on stdout with exit status 0, never an envelope,
and reading them creates no store.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support import COMMAND_NAMES, ROOT, cli, delta, fails, ok, put, run_cli

import memory_store
import memory_store.cli


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["apply", "--help"], ["context", "--help"]])
def test_help_exits_zero_with_usage(args: list[str], private_store: Path) -> None:
    r = run_cli(*args, check_envelope=False)
    assert r.code == 0
    assert "usage:" in r.stdout
    assert "Traceback" not in r.stderr
    if args[0] == "apply":
        assert "--json" in r.stdout and "--dry-run" in r.stdout
    if args[0] == "--help":
        for command in COMMAND_NAMES:
            assert command in r.stdout
    assert not private_store.exists()


def test_in_process_main_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert memory_store.cli.main(["--help"]) == 0
    assert "usage:" in capsys.readouterr().out
    assert memory_store.cli.main(["apply", "--help"]) == 0
    assert "usage:" in capsys.readouterr().out


def test_every_subcommand_help_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    for command in COMMAND_NAMES:
        assert memory_store.cli.main([command, "--help"]) == 0, command
        out = capsys.readouterr().out
        assert "usage:" in out and command in out, command


def test_apply_help_shows_examples_that_work(private_store: Path) -> None:
    """documentation/privacy.md#what-they-look-for: apply's examples show a correction, a replacement, an end and a pin;
    each validates against the real delta schema and field rules, and, run in order on a
    real store (the id `replaces` names being the row it replaces), each is applied."""
    from memory_store.commands import EXAMPLES
    from memory_store.writes import validation

    help_text = run_cli("apply", "--help", check_envelope=False)
    assert help_text.code == 0 and "examples:" in help_text.stdout
    assert EXAMPLES["apply"].splitlines()[1] in help_text.stdout
    ok("enable", "--confirm")
    lines = [line.strip() for line in EXAMPLES["apply"].splitlines()]
    runnable = [line for line in lines if line.startswith("memory-store apply --json")]
    bodies = [shlex.split(line)[3] for line in runnable]
    for needed in ('"correction": true', '"replaces"', '"action": "end"', '"pinned": true'):
        assert any(needed in body for body in bodies), needed
    actions = []
    for body in bodies:
        validation.load_deltas(validation.parse_body(body))  # raises if the schema refuses it
        if '"replaces"' in body:
            (job,) = [m for m in ok("show")["memories"] if m["field"] == "fact_job"]
            body = body.replace("m-0123456789abcdef", job["id"])
        actions += [r["action"] for r in ok("apply", "--json", body)["results"]]
    assert "ended" in actions and len(actions) == len(bodies) + 1  # the batch holds two
    (tmp := private_store.parent / "delta.json").write_text(bodies[0], encoding="utf-8")
    assert ok("apply", "--file", str(tmp), "--dry-run")["dry_run"] is True  # the last example


def test_apply_help_points_at_files_an_install_has() -> None:
    """Not a checkout's paths: the installed skill's, which `skill path` finds."""
    from memory_store.commands import EXAMPLES

    folder = Path(ok("skill", "path")["path"])
    for name in re.findall(r"references/[\w/.-]+\.(?:md|json)", EXAMPLES["apply"]):
        assert (folder / name).is_file(), name
    assert "memory-store skill path" in EXAMPLES["apply"]


def test_help_is_wrapped_to_the_terminal_but_examples_stay_whole() -> None:
    for args in (["--help"], ["apply", "--help"], ["mcp", "--help"]):
        shown = run_cli(*args, check_envelope=False, env={"COLUMNS": "60"})
        assert shown.code == 0
        for line in shown.stdout.splitlines():
            if not line.lstrip().startswith("memory-store apply "):
                assert len(line) <= 60, (args, line)
    examples = [line for line in shown.stdout.splitlines() if "apply --json" in line]
    assert not examples  # mcp's help shows none
    apply = run_cli("apply", "--help", check_envelope=False, env={"COLUMNS": "60"}).stdout
    from memory_store.commands import EXAMPLES

    for line in EXAMPLES["apply"].splitlines():
        if line.lstrip().startswith("memory-store "):
            assert line in apply.splitlines()  # one line, to paste whole


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
    reference = (ROOT / "references" / "cli.md").read_text("utf-8")
    assert "`--help` and `--version`" in reference
    version = run_cli("--version", check_envelope=False)
    assert version.code == 0 and version.stdout.startswith("memory-store ")


def test_version() -> None:
    r = cli("--version", check_envelope=False)
    assert r.code == 0 and r.stdout.strip() == f"memory-store {memory_store.__version__}"
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", "--version"], capture_output=True, text=True
    )
    assert (
        proc.returncode == 0 and proc.stdout.strip() == f"memory-store {memory_store.__version__}"
    )
    assert proc.stderr == ""
    json.dumps(proc.stdout)  # plain text, not an envelope


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["stauts"], "status"),
        (["forget-objet", "obj-a", "--confirm"], "forget-object"),
        (["show", "--subjet-id", "obj-a"], "--subject-id"),
        (["mcp", "--print-config", "claude-cod"], "claude-code"),
        (["skill", "instal"], "install"),
        (["show", "--scope", "objct"], "object"),
        (["--format", "tabel", "status"], "table"),
    ],
)
def test_a_mistyped_word_gets_what_was_meant_in_the_envelope(args: list[str], meant: str) -> None:
    failed = run_cli(*args)  # a real process: exit status 2 and one envelope
    assert failed.code == 2 and failed.env["error"]["code"] == "INVALID_ARGUMENTS"
    assert failed.env["error"]["details"]["did_you_mean"][0] == meant
    assert f"did you mean {meant}" in failed.env["error"]["message"]


def test_a_word_close_to_nothing_gets_no_guess() -> None:
    failed = run_cli("xyzzy")
    assert failed.code == 2 and failed.env["error"]["details"] == {}
    assert "--help" in failed.env["error"]["message"]
