"""What the command line reads on a command's behalf: ``apply``'s body and ``import``'s
document, from a file or standard input, each only when the library asks for it (after
the consent gate). Imported by the command line (this package) for those two commands only."""

from __future__ import annotations

import sys

from .. import policy
from ..errors import MemoryStoreError

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any


def _read_limited(stream: Any) -> bytes:
    # One byte past the limit is enough to know the input is too large.
    return stream.read(policy.INPUT_BYTES_MAX + 1)


def _apply_source(ns: argparse.Namespace) -> Callable[[], bytes | str]:
    """apply's body, read only when the library asks (after the consent gate)."""

    def load() -> bytes | str:
        if ns.json is not None:
            return ns.json
        if ns.file is not None:
            try:
                with open(ns.file, "rb") as fh:
                    return _read_limited(fh)
            except OSError as exc:
                raise MemoryStoreError(
                    "INVALID_ARGUMENTS", f"cannot read --file: {exc.strerror}", {"option": "--file"}
                ) from None
        stdin = sys.stdin
        if stdin is None or stdin.isatty():
            raise MemoryStoreError(
                "INVALID_ARGUMENTS", "give the delta with --json, --file, or on standard input", {}
            )
        return _read_limited(stdin.buffer)

    return load


def _import_source(ns: argparse.Namespace) -> Callable[[], bytes]:
    """import's document, read only when the library asks (after the consent gate)."""

    def load() -> bytes:
        if ns.file == "-":
            if sys.stdin is None:  # file descriptor 0 closed
                raise MemoryStoreError(
                    "INVALID_ARGUMENTS",
                    "standard input is closed: give the export document as FILE, or pipe it in",
                    {"argument": "FILE"},
                )
            return sys.stdin.buffer.read(policy.IMPORT_BYTES_MAX + 1)
        try:
            with open(ns.file, "rb") as fh:
                return fh.read(policy.IMPORT_BYTES_MAX + 1)
        except OSError as exc:
            raise MemoryStoreError(
                "INVALID_ARGUMENTS", f"cannot read FILE: {exc.strerror}", {"argument": "FILE"}
            ) from None

    return load


# Inputs the command line reads on a command's behalf (files, standard input).
# The command's argument each input becomes.
INPUTS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "apply": lambda ns: {"payload": _apply_source(ns)},
    "import": lambda ns: {"source": _import_source(ns)},
}
