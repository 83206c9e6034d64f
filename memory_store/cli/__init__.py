"""The command line: argparse in, one envelope out. The only code that prints or exits.

One command's parser is built from its registry record (its family alone); the call goes
to ``MemoryStore``; the result or error becomes one envelope and an exit status (tables:
``table_output``; what apply and import read: ``inputs``; the commands that serve —
``memory-store mcp``, ``review --serve`` — ``serving``)."""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
from types import SimpleNamespace

from .. import __version__
from ..commands import EXAMPLES, FAMILY_OF, NAMES
from ..errors import ArgumentRuleError, MemoryStoreError, dumps, envelope, write

TYPE_CHECKING = False  # typing costs a few ms to import; every assistant turn would pay it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..commands import Command, Option

ENV_DEBUG = "MEMORY_STORE_DEBUG"
PROG = "memory-store"


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises (INVALID_ARGUMENTS, naming its command) instead of
    printing usage and exiting."""

    command_name: str | None = None

    def error(self, message: str) -> Any:
        refused = MemoryStoreError("INVALID_ARGUMENTS", message, {})
        refused.command = self.command_name  # type: ignore[attr-defined] # for the envelope
        raise refused

    def format_help(self) -> str:
        from .guidance import wrapped  # only for --help: prose reflowed to the terminal

        if self.command_name is None:  # the top-level parser: its epilog lists every family's
            from ..commands.catalog import listing  # commands, so it is written only for --help

            self.epilog = listing(PROG)
        texts = (self.description, self.epilog)
        self.description, self.epilog = (wrapped(t, _help_width(), PROG) for t in texts)
        return super().format_help()

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse builds a formatter for every add_argument call, and the stock
        # one imports shutil to ask for the terminal size each time; the width
        # matters only for --help, so ask the terminal directly and only once.
        # (formatter_class is always an argparse formatter here, which takes a width)
        return self.formatter_class(prog=self.prog, width=_help_width())  # type: ignore[call-arg]


_WIDTH: list[int] = []


def _help_width() -> int:
    if not _WIDTH:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):
                columns = 80
        _WIDTH.append(max(columns - 2, 20))
    return _WIDTH[0]


class _Lazy:
    """A pattern argparse compiles for every parser, compiled when first used: the help's
    (``--help``), a negative number's only for a word that could be one. Each costs
    about as much as the rest of a parse; most calls use none of them."""

    __slots__ = ("args", "compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self.args = (pattern, flags)
        self.compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self.compiled is None:
            self.compiled = re.compile(*self.args)
        return getattr(self.compiled, name)

    def match(self, text: str, *args: Any) -> Any:
        # argparse's negative-number pattern needs "-" and a digit or "." first
        if self.args == _NEGATIVE and not (
            text[:1] == "-" and (text[1:2] == "." or text[1:2].isdecimal())
        ):
            return None
        return self.__getattr__("match")(text, *args)


_NEGATIVE = (r"^-\d+$|^-\d*\.\d+$", 0)


class _LazyRe:
    """argparse's ``re`` during :func:`parse`: ``compile`` is :class:`_Lazy`, and ``match``
    matches argparse's own patterns without compiling them (:func:`_nargs_match`)."""

    compile = _Lazy

    @staticmethod
    def match(pattern: str, text: str) -> Any:
        found = _nargs_match(pattern, text)
        return re.match(pattern, text) if found is None else (found or None)

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)


def _nargs_match(pattern: str, text: str) -> SimpleNamespace | bool | None:
    """``re.match`` of a pattern argparse builds to count the words each argument takes
    ("(-*A-*)([-AO]*)": groups of A, O, - or [a class], each alone, * or ?) against the
    kinds of the words ("AAO"); False for no match, None for a pattern of another shape.
    Compiling one costs a call about 0.3 M instructions (a whole ``status`` is ~12 M
    above the interpreter's floor); this tries what re tries, in its order: a
    quantified item takes the most it can first, then one less."""
    if pattern[:1] != "(" or pattern[-1:] != ")":
        return None
    groups: list[list[tuple[str, str]]] = []
    for group in pattern[1:-1].split(")("):
        items, at = [], 0
        while at < len(group):
            end = group.find("]", at) + 1 if group[at] == "[" else at + 1
            chars = group[at:end].strip("[]")
            quantifier = group[end] if group[end : end + 1] in ("*", "?") else ""
            if not chars or chars.strip("AO-") or "-" in chars[1:-1]:  # [A-O] is a range
                return None
            items.append((chars, quantifier))
            at = end + len(quantifier)
        groups.append(items)
    ends: list[int] = []

    def walk(g: int, i: int, pos: int) -> bool:
        if i == len(groups[g]):
            ends[g:] = [pos]
            return g + 1 == len(groups) or walk(g + 1, 0, pos)
        chars, quantifier = groups[g][i]
        most = pos
        while most < len(text) and text[most] in chars and (quantifier == "*" or most == pos):
            most += 1
        least = most if not quantifier else pos
        return any(
            walk(g, i + 1, end) for end in range(most, least - 1, -1) if end > pos or quantifier
        )

    if not walk(0, 0, 0):
        return False
    found = tuple(text[a:b] for a, b in zip([0, *ends], ends, strict=False))
    return SimpleNamespace(groups=lambda: found, group=lambda i: found[i - 1])  # argparse's use


def argv_text(text: str) -> str:
    """Command-line text as UTF-8 whatever the locale (documentation/commands.md#robustness).

    Python decodes argv with the locale's codec: under GB18030 the UTF-8 bytes
    of 小A become other characters, under Latin-1 control characters, under a
    C locale without UTF-8 mode lone surrogates. ``os.fsencode`` gives back
    the bytes as they were typed; a byte that is not UTF-8 stays a lone
    surrogate, which every text rule refuses, as before. Paths are left as the
    system gave them: they name files by their bytes.
    """
    return os.fsencode(text).decode("utf-8", "surrogateescape")


def _argparse_type(option: Option, from_argv: bool = False) -> Callable[[str], Any] | None:
    """argparse's ``type=`` for an option: the text (as UTF-8 when it came from the
    process's argv), then the library's own rule."""
    check = option.check
    recode = from_argv and option.kind not in ("path", "flag")
    if check is None:
        return argv_text if recode else None
    name = option.name

    def convert(text: str) -> Any:
        if recode:
            text = argv_text(text)
        try:
            value: Any = text
            if option.kind == "int":
                try:
                    value = int(text, 10)
                except ValueError:
                    check(None, name)  # raises with the rule's one message
            return check(value, name)
        except ArgumentRuleError as exc:
            raise argparse.ArgumentTypeError(exc.rule) from None

    return convert


def _add_option(
    parser: argparse.ArgumentParser | Any, option: Option, from_argv: bool = False
) -> None:
    if option.kind == "flag":
        parser.add_argument(option.flag, action="store_true", help=option.help)
        return
    kwargs: dict[str, Any] = {"metavar": option.metavar, "help": option.help or None}
    converter = _argparse_type(option, from_argv)
    if converter is not None:
        kwargs["type"] = converter
    if option.choices:
        kwargs["choices"] = option.choices
    if option.positional:
        parser.add_argument(option.name, **kwargs)
        return
    if option.default is not None:
        kwargs["default"] = option.default
    if option.required:
        kwargs["required"] = True
    parser.add_argument(option.flag, dest=option.name, **kwargs)


def declared(name: str) -> Command:
    """The one command a call runs, from its family module alone (``commands.catalog``
    joins them all, for the server and the references)."""
    family = FAMILY_OF[name]
    commands: tuple[Command, ...]
    if family == "consent":
        from ..commands.consent import FAMILY as commands
    elif family == "memory":
        from ..commands.memory import FAMILY as commands
    elif family == "recall":
        from ..commands.recall import FAMILY as commands
    else:
        from ..commands.host import FAMILY as commands
    return next(c for c in commands if c.name == name)


def build_parser() -> _Parser:
    """The top-level parser: global options, then the command and its arguments (the
    command's own parser is built only for the command given: :func:`parse`)."""
    parser = _Parser(
        prog=PROG,
        allow_abbrev=False,
        description="A local, consent-gated, bounded long-term memory for conversational assistants.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"{PROG} {__version__}", help="print the version"
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", help="the store's directory (overrides MEMORY_STORE_DIR)"
    )
    parser.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="json envelope (default) or tables",
    )
    parser.add_argument(
        "command", metavar="COMMAND", choices=NAMES, help="one of the commands below"
    )
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def build_command_parser(name: str, from_argv: bool = False) -> _Parser:
    found = declared(name)
    p = _Parser(
        prog=f"{PROG} {name}",
        description=found.help,
        epilog=EXAMPLES.get(name),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    p.command_name = name
    groups: dict[str, Any] = {}
    for option in found.options:
        if option.tool_only:
            continue  # the MCP server's (apply's delta as JSON data)
        target: Any = p
        if option.group is not None:
            if option.group not in groups:
                groups[option.group] = p.add_mutually_exclusive_group()
            target = groups[option.group]
        _add_option(target, option, from_argv)
    return p


def parse(argv: list[str], from_argv: bool = False) -> argparse.Namespace:
    """``from_argv``: the words are the process's own argv (decoded by Python with the
    locale's codec), so text options are decoded again as UTF-8 (:func:`argv_text`)."""
    # argparse passes every message through gettext, which searches the locale
    # directories for a catalogue that neither memory-store nor CPython ships: the
    # answer is always the English text, and skipping the search saves a twentieth of
    # a `status` call. Nor are its patterns compiled (_LazyRe). Both restored after.
    saved, saved_re = argparse._, argparse._re  # type: ignore[attr-defined]
    argparse._, argparse._re = str, _LazyRe()  # type: ignore[attr-defined] # str: the identity
    try:
        if argv[:1] and argv[0] in FAMILY_OF and "--" not in argv:
            # The usual call names its command first, and the top parser would only hand
            # it the rest (tests/cli/test_parsing.py): building that parser is skipped.
            top = argparse.Namespace(
                command=argv[0], format="json", data_dir=None, arguments=argv[1:]
            )
        else:
            top = build_parser().parse_args(argv)
        ns = build_command_parser(top.command, from_argv).parse_args(top.arguments)
    finally:
        argparse._, argparse._re = saved, saved_re  # type: ignore[attr-defined]
    ns.command, ns.format, ns.data_dir = top.command, top.format, top.data_dir
    return ns


def _call(ns: argparse.Namespace) -> dict[str, Any] | None:
    """The command's data; None when it served (``mcp``: stdout was the protocol's)."""
    from ..store import MemoryStore

    found = declared(ns.command)
    args = dict(vars(ns))
    if ns.command in ("apply", "import"):  # input the command line reads on its behalf
        from .inputs import INPUTS

        args.update(INPUTS[ns.command](ns))
    if ns.command == "apply" and ns.format == "table":
        args["verbose"] = True  # a table names each row's subject: whole rows carry it
    store = MemoryStore(ns.data_dir)
    data = found.call(store, args)
    if data is None and found.serves:
        from .serving import serve

        serve(ns.command, store, args)
    return data


def _format_from_argv(argv: list[str]) -> str:
    """--format as given (the last one before the command, as argparse reads it),
    for errors raised before argparse finished."""
    fmt = "json"
    for i, arg in enumerate(argv):
        if arg in NAMES:
            break
        if arg == "--format" and i + 1 < len(argv):
            fmt = "table" if argv[i + 1] == "table" else "json"
        elif arg.startswith("--format="):
            fmt = "table" if arg.split("=", 1)[1] == "table" else "json"
    return fmt


def _emit(
    command: str | None, fmt: str, data: Any = None, error: MemoryStoreError | None = None
) -> None:
    if fmt == "table":
        if error is not None:
            # One line, whatever the message echoes of what the user typed.
            message = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in error.message)
            write(sys.stderr, f"memory-store: {error.code}: {message}")
        else:
            from .table_output import table

            write(sys.stdout, table(command, data))
        return
    write(sys.stdout, dumps(envelope(command, data, error.to_dict() if error else None)))


def _run(
    args: list[str], from_argv: bool = False
) -> tuple[str | None, str, object, MemoryStoreError | None]:
    """Parse and run one command: (command, format, data, error); never raises."""
    command: str | None = None
    fmt = _format_from_argv(args)
    try:
        try:
            ns = parse(args, from_argv)
        except MemoryStoreError as exc:
            if not hasattr(exc, "command"):
                raise  # not the parser's (_Parser.error): as it is
            command, message, details = exc.command, exc.message, dict[str, "Any"]()
            if "required: COMMAND" in message:
                from ..storage.files import program  # as this person's shell runs it

                message = f"a command is required; see `{program()} --help`"
            elif command and any(a.split("=")[0] in ("--format", "--data-dir") for a in args[1:]):
                message += " (global options go before the command)"
            elif any(w in message for w in ("invalid choice", "unrecognized arg", "one of: ")):
                from .guidance import suggestion  # a mistyped word: what was probably meant

                message, details = suggestion(message, command, args)
            raise MemoryStoreError("INVALID_ARGUMENTS", message, details) from None
        command, fmt = ns.command, ns.format
        return command, fmt, _call(ns), None
    except MemoryStoreError as exc:
        return command, fmt, None, exc
    except KeyboardInterrupt:
        return command, fmt, None, MemoryStoreError("INTERNAL_ERROR", "interrupted", {})
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback reaches the user
        if os.environ.get(ENV_DEBUG) == "1":
            import traceback

            traceback.print_exc()
        message = f"unexpected {type(exc).__name__}; rerun with {ENV_DEBUG}=1 for details"
        return command, fmt, None, MemoryStoreError("INTERNAL_ERROR", message, {})


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the process is this one command's (the console script, -m)
        # One call and next to no reference cycles: the collector's passes, and its last
        # one at exit over every module (frozen), free nothing (documentation/performance.md).
        gc.disable()
    try:
        try:
            if argv is None:
                command, fmt, data, error = _run(sys.argv[1:], from_argv=True)
            else:
                command, fmt, data, error = _run(list(argv))
        except SystemExit as exc:  # --help: the one exception to the envelope
            return exc.code if isinstance(exc.code, int) else 0
        status = error.exit_status if error is not None else 0
        if error is None and data is None and command is not None and declared(command).serves:
            return 0  # stdout was the server's wire: no envelope after it
        try:
            _emit(command, fmt, data, error)
        except BrokenPipeError:
            # Whoever read stdout has gone. Point stdout at the null device so that
            # the interpreter's final flush stays quiet, and keep the exit status.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return status
    finally:
        if argv is None:
            gc.freeze()


COMMANDS: dict[str, Command]  # commands.COMMANDS, read through __getattr__ below


def __getattr__(name: str) -> Any:
    # cli.COMMANDS, the whole registry (commands.catalog), read only when asked for.
    if name == "COMMANDS":
        from ..commands.catalog import COMMANDS

        return COMMANDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMANDS", "__version__", "build_command_parser", "build_parser", "main"]
