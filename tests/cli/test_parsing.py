"""The command line's two economies in parsing (cli.parse) change no result.

argparse counts the words each argument takes by matching its own small patterns
("(-*A-*)([-AO]*)") against the kinds of the words ("AAO"); cli matches them
without compiling a regular expression (cli._nargs_match), so it must answer
exactly as ``re.match`` does. And a call that names its command first skips the
top-level parser, so the command's parser must get exactly what that parser
would have handed it.
"""

from __future__ import annotations

import argparse
import itertools
import re

import pytest

from memory_store import cli
from memory_store.commands import NAMES
from memory_store.errors import MemoryStoreError

NARGS = (None, "?", "*", "+", argparse.REMAINDER, argparse.PARSER, argparse.SUPPRESS, 1, 2, 3)


def _patterns() -> list[str]:
    """Every pattern argparse's own _get_nargs_pattern builds, for an optional and a
    positional, and positionals' patterns joined as _match_arguments_partial joins them."""
    parser = argparse.ArgumentParser()
    optional, positional = [], []
    for nargs in NARGS:
        optional.append(parser._get_nargs_pattern(argparse.Action(["-x"], "x", nargs=nargs)))
        positional.append(parser._get_nargs_pattern(argparse.Action([], "x", nargs=nargs)))
    joined = ["".join(p) for k in (2, 3) for p in itertools.product(positional[:7], repeat=k)]
    return sorted(set(optional + positional + joined))


def _kinds(longest: int) -> list[str]:
    return ["".join(p) for n in range(longest + 1) for p in itertools.product("AO-", repeat=n)]


def _expected(pattern: str, text: str) -> tuple[str, ...] | None:
    found = re.match(pattern, text)
    return None if found is None else found.groups()


def test_argparse_patterns_match_as_re_matches_them() -> None:
    patterns, texts = _patterns(), _kinds(5)
    assert len(patterns) > 300
    for pattern in patterns:
        for text in texts:
            found = cli._LazyRe.match(pattern, text)
            got = None if found is None else found.groups()
            assert got == _expected(pattern, text), (pattern, text)
            if found is not None:
                assert found.group(1) == got[0]


@pytest.mark.parametrize(
    "pattern", ["(A+)", "([A-O])", "(A{2})", "A*", "(A|O)", "((A))", "(A)(", "([AO)", "(.*)", "()*"]
)
def test_any_other_pattern_is_left_to_re(pattern: str) -> None:
    assert cli._nargs_match(pattern, "AO") is None
    for text in _kinds(3):  # and the answer is re's
        try:
            expected = _expected(pattern, text)
        except re.error:
            continue
        found = cli._LazyRe.match(pattern, text)
        assert (None if found is None else found.groups()) == expected


def _argvs() -> list[list[str]]:
    tails = [
        [],
        ["--subject-id", "obj-a"],
        ["--query", "她现在做什么工作？", "--max-chars", "800"],
        ["--query", "-2.5"],
        ["--format", "table"],
        ["--data-dir", "/tmp/x"],
        ["--version"],
        ["x", "--", "y"],
        ["--confirm"],
        ["--subject-id=obj-a", "extra"],
        ["-"],
        ["--unknown"],
    ]
    return [[name, *tail] for name in NAMES for tail in tails]


def _outcome(argv: list[str]) -> tuple[str, object]:
    try:
        return "ok", vars(cli.parse(argv))
    except MemoryStoreError as exc:
        return "error", (exc.code, exc.message, exc.command)
    except SystemExit as exc:
        return "exit", exc.code


@pytest.mark.parametrize("argv", _argvs(), ids=" ".join)
def test_a_call_that_names_its_command_first_parses_as_through_the_top_parser(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # "--format json" first is the default, spelled out: it takes the top parser's way.
    assert _outcome(argv) == _outcome(["--format", "json", *argv])
    capsys.readouterr()


def test_the_parse_compiles_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = re.compile

    def spy(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", spy)
    monkeypatch.setattr(re, "_compile", lambda p, f: compiled.append(p) or real(p, f))
    for argv in (
        ["context", "--subject-id", "obj-a", "--query", "她现在做什么工作？"],
        ["--format", "table", "search", "--query", "hiking"],
        ["forget", "m-1234567890abcdef", "--confirm"],
        ["status"],
    ):
        cli.parse(argv)
    assert compiled == []
