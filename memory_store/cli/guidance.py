"""What the command line tells a person who asked for help or mistyped: help text wrapped
to the terminal, and the command or option they probably meant (imported only then)."""

from __future__ import annotations

import re
import textwrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_LISTED = re.compile(r"^(\s+\S+\s{2,})(\S.*)$")  # "  status         Report whether …"


def wrapped(text: str | None, width: int, program: str) -> str | None:
    """A description or epilog wrapped to ``width``: prose paragraphs are reflowed, a
    listing's descriptions wrap under their own column, and an example command line
    (it starts with ``program``) stays one line, to be pasted whole."""
    if not text:
        return text
    out: list[str] = []
    for paragraph in text.split("\n\n"):
        lines = paragraph.splitlines()
        if any(line.lstrip().startswith(program + " ") or _LISTED.match(line) for line in lines):
            out.append("\n".join(_line(line, width, program) for line in lines))
        else:
            indent = re.match(r"\s*", lines[0]).group() if lines else ""  # type: ignore[union-attr]
            prose = " ".join(line.strip() for line in lines)
            out.append(textwrap.fill(prose, width, initial_indent=indent, subsequent_indent=indent))
    return "\n\n".join(out)


def _line(line: str, width: int, program: str) -> str:
    if len(line) <= width or line.lstrip().startswith(program + " "):
        return line
    listed = _LISTED.match(line)
    if listed is None:
        indent = re.match(r"\s*", line).group()  # type: ignore[union-attr]
        return textwrap.fill(line.strip(), width, initial_indent=indent, subsequent_indent=indent)
    lead, rest = listed.groups()
    if width - len(lead) < 20:  # too narrow to hang: the description under the name
        return (
            lead.rstrip()
            + "\n"
            + textwrap.fill(rest, width, initial_indent=" " * 6, subsequent_indent=" " * 6)
        )
    return textwrap.fill(rest, width, initial_indent=lead, subsequent_indent=" " * len(lead))


def _quoted(text: str) -> list[str]:
    return re.findall(r"'([^']*)'", text)


def suggestion(message: str, command: str | None, args: list[str]) -> tuple[str, dict[str, Any]]:
    """argparse's message, with what the person probably meant: a command, an option's
    value (argparse's ``invalid choice``, or a rule's ``must be one of``, the value read
    back from ``args``) or an option name (``unrecognized arguments``), by
    ``difflib.get_close_matches``. Returns the message and the envelope's details
    (``did_you_mean``, empty when nothing is close)."""
    from difflib import get_close_matches

    rule = re.match(r"argument (\S+): must be one of: (.*)$", message)
    if rule is not None:
        given = _value_of(rule.group(1), args)
        allowed = rule.group(2).split(", ")
        close = get_close_matches(given, allowed, n=3, cutoff=0.6) if given else []
        return _with(message, close, ""), {"did_you_mean": close} if close else {}

    choice = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if choice is not None:
        what, given, allowed = choice.group(1), choice.group(2), _quoted(choice.group(3))
        close = get_close_matches(given, allowed, n=3, cutoff=0.6)
        if what == "COMMAND":
            message = f"{given!r} is not a command"
            from ..storage.files import program  # the words this person's shell runs

            see = f"`{program()} --help` lists them"
        else:
            message = f"{what} cannot be {given!r}: choose from {', '.join(allowed)}"
            see = ""
        return _with(message, close, see), {"did_you_mean": close} if close else {}
    unknown = re.match(r"unrecognized arguments: (.*)$", message)
    if unknown is not None and command is not None:
        flags, close = _flags(command), []
        for word in unknown.group(1).split():
            if word.startswith("--"):
                close += get_close_matches(word.split("=")[0], flags, n=1, cutoff=0.6)
        return _with(message, close, ""), {"did_you_mean": close} if close else {}
    return message, {}


def _value_of(flag: str, args: list[str]) -> str | None:
    """The last value given to ``flag`` (``--flag VALUE`` or ``--flag=VALUE``)."""
    found = None
    for i, word in enumerate(args):
        if word == flag and i + 1 < len(args):
            found = args[i + 1]
        elif word.startswith(flag + "="):
            found = word.split("=", 1)[1]
    return found


def _with(message: str, close: list[str], see: str) -> str:
    if close:
        return f"{message}; did you mean {' or '.join(close)}?"
    return f"{message}; {see}" if see else message


def _flags(command: str) -> list[str]:
    from ..commands.catalog import command as declared  # an error's path: every family is fine

    return [o.flag for o in declared(command).options if not o.positional and not o.tool_only]
