"""The wheel holds every package (documentation/architecture.md#packages-and-modules): ``pyproject.toml`` lists the packages one by
one, and an editable install would pass while a wheel shipped without a new folder.

The wheel is built from a clean copy of the checkout (``conftest.installed_wheel``); each
package of the source tree is imported from the unpacked wheel, outside the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memory_store"


def _source_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def test_the_wheel_holds_every_module_of_the_source_and_nothing_else(
    installed_wheel: Path,
) -> None:
    (wheel,) = installed_wheel.parent.glob("dist/*.whl")
    shipped = {
        n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".py") and "_skill" not in n
    }
    source = {str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")}
    assert shipped == source


def test_every_package_imports_from_the_installed_wheel(installed_wheel: Path) -> None:
    modules = [m for m in _source_modules() if m != "memory_store.__main__"]
    packages = [m for m in modules if (PACKAGE.parent / m.replace(".", "/")).is_dir()]
    assert len(packages) >= 9, packages  # the package and its eight sub-packages
    script = (
        "import importlib, json, sys\n"
        "names = json.loads(sys.argv[1])\n"
        "print(json.dumps({n: importlib.import_module(n).__file__ for n in names}))\n"
    )
    proc = subprocess.run(  # outside the checkout, whose memory_store would come first
        [sys.executable, "-c", script, json.dumps(modules)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(installed_wheel)},
        cwd=installed_wheel.parent,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    files = json.loads(proc.stdout)
    for name in modules:
        assert Path(files[name]).is_relative_to(installed_wheel), (name, files[name])


def test_the_installed_command_line_answers(installed_wheel: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memory_store", "status"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(installed_wheel)},
        cwd=installed_wheel.parent,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["data"]["exists"] is False
