"""The commands that serve instead of answering once: ``memory-store mcp`` (the MCP server
on stdio) and ``review --serve`` (the person's page on 127.0.0.1).

Imported only when one of them runs. The MCP SDK is an optional extra that the per-turn
commands never import; without it ``mcp`` refuses with the install that adds it. The page
needs only the standard library; it prints its one envelope here, once it listens.
"""

from __future__ import annotations

import gc
import sys

from ..errors import dumps, envelope, write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _serve_mcp(store: Any) -> None:
    try:
        from ..mcp import serve
    except ImportError as exc:
        from ..hosts import missing_sdk

        refused = missing_sdk(exc)  # --print-config refuses by the same rule
        if refused is None:
            raise
        raise refused from None
    serve(store)


def _announcer(fmt: str) -> Any:
    def announce(data: dict[str, Any], address: str | None) -> None:
        """The page listens: its envelope on stdout (the only one; ``--format table``: its
        lines), and, when no browser was opened on it, the address with its one-time key
        on stderr, for the person to open."""
        if fmt == "table":
            from .table_output import table

            write(sys.stdout, table("review", data))
        else:
            write(sys.stdout, dumps(envelope("review", data, None)))
        sys.stdout.flush()
        if address is not None:
            _print_address(address)

    return announce


def _print_address(address: str) -> None:
    write(
        sys.stderr,
        "memory-store: open this address in your browser (it works once, on this "
        f"computer only): {address}\n"
        "memory-store: 在浏览器中打开上面的地址（只能用一次，只在这台电脑上有效）",
    )
    sys.stderr.flush()


def serve(name: str, store: Any, args: dict[str, Any]) -> None:
    """Serve ``name`` until its client leaves (mcp) or the person is done (the page)."""
    gc.enable()  # a server lives on: the collector main() turned off for one call is back
    if name == "mcp":
        _serve_mcp(store)
        return
    from ..page.server import serve as serve_page

    serve_page(
        store,
        _announcer(args.get("format") or "json"),
        port=args.get("port"),
        open_browser=not args.get("no_open"),
        subject=args.get("subject_id"),
        ask=args.get("ask"),
        memory_id=args.get("memory_id"),
    )
