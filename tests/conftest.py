"""Fixtures, one per job (the helpers they use are in ``support``).

- ``private_store`` (autouse): every test, and every process it starts, uses a
  throwaway data directory, and finds this environment's ``memory-store`` on PATH.
- ``enabled``: that store, with consent given.
- ``people``: an enabled store with 小林 (obj-a, and an event) and 老王 (obj-b), for
  names that resolve to subjects.
- ``store``: the store an MCP server serves, held open across calls as the server holds
  it; ``anyio_backend``: the MCP SDK's clients run on asyncio.
- ``installed_wheel`` (once a session): the wheel built from a clean copy of this
  checkout's files and unpacked as pip installs it, for what only an install shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, delta, ok, put


@pytest.fixture(autouse=True)
def private_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every test (and every subprocess it starts) at a throwaway data directory."""
    store_dir = tmp_path / "store"
    monkeypatch.setenv("MEMORY_STORE_DIR", str(store_dir))
    # Belt and braces: even the platformdirs fallback stays inside tmp_path.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.delenv("MEMORY_STORE_DEBUG", raising=False)
    # As in a shell with this virtual environment activated, the commands handed to the
    # person start with the bare `memory-store` (tests/test_commands_for_the_person.py
    # installs one whose bin is not on PATH, where they start with its absolute path).
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([bin_dir, os.environ.get("PATH", "")]))
    monkeypatch.delenv("MEMORY_STORE_BUSY_TIMEOUT_MS", raising=False)
    # The review page speaks the locale's language (documentation/review.md): English here,
    # whatever the developer's own locale; a test of the Chinese page sets LANG itself.
    monkeypatch.setenv("LANG", "C.UTF-8")
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    # No test opens the developer's own browser: the served page sees no desktop.
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "MEMORY_STORE_PAGE_IDLE_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    return store_dir


@pytest.fixture
def enabled(private_store: Path) -> Path:
    """A store with consent given."""
    ok("enable", "--confirm")
    return private_store


@pytest.fixture
def people(private_store: Path) -> Path:
    """An enabled store with 小林 (obj-a, and an event) and 老王 (obj-b)."""
    ok("enable", "--confirm")
    put(
        delta(subject="obj-a", value="小林"),
        delta(scope="event", subject="obj-a", field="met", value="在读书会认识"),
        delta(subject="obj-b", value="老王"),
    )
    return private_store


@pytest.fixture
def anyio_backend() -> str:
    """anyio-marked tests (the MCP SDK's clients) run on asyncio."""
    return "asyncio"


@pytest.fixture
def store(private_store: Path) -> Any:
    """The store an MCP server serves, held open across calls as the server holds it."""
    from memory_store import MemoryStore

    s = MemoryStore(private_store)
    s.hold()
    yield s
    s.release()


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout's files (tracked, or new and not ignored) copied
    into a clean directory, so that nothing a local build left behind (``build/``) can
    slip into it, then unpacked as pip installs it (``--target``). The wheel itself is in
    the site's sibling ``dist/``."""
    base = tmp_path_factory.mktemp("wheel")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    source = base / "source"
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((ROOT / name).read_bytes())
    pip = [sys.executable, "-m", "pip"]
    build = subprocess.run(
        [*pip, "wheel", str(source), "--no-deps", "-q", "-w", str(base / "dist")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = (base / "dist").glob("memory_store-*-py3-none-any.whl")
    site = base / "site"
    install = subprocess.run(
        [*pip, "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    return site


@pytest.fixture(scope="session")
def venv_install(installed_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real virtual environment holding the wheel (no ``mcp`` extra), as a person makes
    one; its ``bin``, which is on no PATH (``support.venvs``)."""
    from support.venvs import make_venv

    (wheel,) = installed_wheel.parent.glob("dist/*.whl")
    return make_venv(tmp_path_factory.mktemp("venv-install"), wheel)


@pytest.fixture(scope="session")
def venv_install_mcp(installed_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same with the ``mcp`` extra: the install that serves a host."""
    from support.venvs import make_venv

    (wheel,) = installed_wheel.parent.glob("dist/*.whl")
    return make_venv(tmp_path_factory.mktemp("venv-install-mcp"), wheel, extra="mcp")


@pytest.fixture(autouse=True)
def shape_checked_by_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every delta the suite hands the library in process is also checked by jsonschema,
    the reference writes/shape.py must agree with: same accept or refuse, code, path and
    words (support/schema_reference.py)."""
    from support.schema_reference import agreeing

    from memory_store.writes import validation

    monkeypatch.setattr(validation, "normalize_delta", agreeing(validation.normalize_delta))
