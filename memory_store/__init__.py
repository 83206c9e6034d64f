"""memory-store: a local, consent-gated, bounded long-term memory in one SQLite file."""

from __future__ import annotations

__version__ = "0.2.0"

from .errors import EXIT_STATUS, MemoryStoreError  # noqa: E402
from .store import MemoryStore  # noqa: E402

__all__ = ["EXIT_STATUS", "MemoryStore", "MemoryStoreError", "__version__"]
