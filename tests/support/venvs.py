"""A real virtual environment with this checkout's wheel installed, for what only an
install shows: a console script whose ``bin`` is not on PATH, an install without the
``mcp`` extra.

``python -m venv`` makes it; pip (this environment's, ``--python``) installs the wheel
``conftest.installed_wheel`` built, offline, so its console script is written as pip
writes it for a person. The dependencies come from this environment without a package
index: each distribution the wheel needs (and, with ``extra="mcp"``, the SDK's) is
linked into one folder the new environment reads through a ``.pth`` file — only those,
so a distribution the install lacks (the MCP SDK) is truly missing from it.
"""

from __future__ import annotations

import importlib.metadata as metadata
import re
import subprocess
import sys
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement


def _closure(requirements: list[str], extras: tuple[str, ...]) -> set[str]:
    """The distributions installed here that ``requirements`` need, transitively, each
    requirement read with the extras asked of its distribution."""
    seen: set[str] = set()
    todo = [(Requirement(r), extras) for r in requirements]
    while todo:
        req, asked = todo.pop()
        if req.marker is not None and not any(
            req.marker.evaluate({**default_environment(), "extra": x}) for x in ("", *asked)
        ):
            continue
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        key = f"{name}[{','.join(sorted(req.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        todo += [(Requirement(r), tuple(req.extras)) for r in metadata.requires(name) or []]
    return {key.split("[")[0] for key in seen}


def _link_distributions(names: set[str], into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    for name in names:
        dist = metadata.distribution(name)
        site = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            source, target = site / top, into / top
            if source.exists() and not target.exists():
                target.symlink_to(source)


def make_venv(base: Path, wheel: Path, extra: str | None = None) -> Path:
    """A virtual environment in ``base`` with ``wheel`` (and ``extra``'s packages); its bin."""
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps"]
        + ["--no-index", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    wanted = metadata.requires("memory-store") or []
    deps = base / "deps"
    _link_distributions(_closure(wanted, () if extra is None else (extra,)), deps)
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "_deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    return venv / "bin"
