"""The skill ships in the package and installs where a host reads skills (documentation/hosts.md#the-skill).

Through the real command line in a subprocess with a temporary ``HOME`` (the
host directories are under it), the Agent Skills reference validator on what was
installed, and a wheel built from this checkout: it must carry ``SKILL.md`` and
``references/``, and an install of it must find them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support import fails, ok

from memory_store import skill
from memory_store.commands.catalog import TOOLS

ROOT = Path(__file__).resolve().parent.parent
SKILL_FILES = sorted(
    ["SKILL.md"]
    + [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "references").rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.parts)
    ]
)


def _agentskills() -> str:
    beside = Path(sys.executable).parent / "agentskills"
    found = str(beside) if beside.exists() else shutil.which("agentskills")
    if found is None and sys.version_info < (3, 11):
        pytest.skip("skills-ref (agentskills) needs Python 3.11 or later")
    assert found, "agentskills is not installed: pip install -e '.[test]'"
    return found


def _validate(folder: Path) -> None:
    proc = subprocess.run(
        [_agentskills(), "validate", str(folder)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """A temporary HOME for the subprocess: ~/.claude and ~/.agents are under it."""
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home")}


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _same_as_checkout(folder: Path) -> None:
    assert _files(folder) == SKILL_FILES
    for name in SKILL_FILES:
        assert (folder / name).read_bytes() == (ROOT / name).read_bytes(), name


def test_install_for_claude_code_by_default(home: dict[str, str], private_store: Path) -> None:
    data = ok("skill", "install", spawn=True, env=home)
    target = Path(home["HOME"]) / ".claude" / "skills" / "memory-store"
    assert data == {
        "action": "install",
        "host": "claude",
        "path": str(target),
        "files": len(SKILL_FILES),
        "changed": True,
        "replaced": False,
    }
    _same_as_checkout(target)
    _validate(target)
    assert not private_store.exists()  # the skill commands open and create no store


def test_install_for_codex_and_path_reports_each_host(home: dict[str, str]) -> None:
    data = ok("skill", "install", "--host", "codex", spawn=True, env=home)
    target = Path(home["HOME"]) / ".agents" / "skills" / "memory-store"
    assert data["path"] == str(target) and data["host"] == "codex"
    _validate(target)
    where = ok("skill", "path", spawn=True, env=home)
    assert where["action"] == "path"
    assert Path(where["skill_md"]).read_bytes() == (ROOT / "SKILL.md").read_bytes()
    assert where["files"] == len(SKILL_FILES)
    assert where["installed"] == {
        "claude": {"path": home["HOME"] + "/.claude/skills/memory-store", "state": "absent"},
        "codex": {"path": str(target), "state": "same"},
    }


def test_an_identical_copy_is_left_alone(home: dict[str, str], tmp_path: Path) -> None:
    skills = tmp_path / "any-host" / "skills"
    first = ok("skill", "install", "--dir", str(skills), spawn=True, env=home)
    assert first["changed"] is True and first["host"] is None
    stamp = (skills / "memory-store" / "SKILL.md").stat().st_mtime_ns
    again = ok("skill", "install", "--dir", str(skills), spawn=True, env=home)
    assert again == {**first, "changed": False}
    assert (skills / "memory-store" / "SKILL.md").stat().st_mtime_ns == stamp
    _validate(skills / "memory-store")


def test_a_different_copy_is_replaced_only_with_force(home: dict[str, str], tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    ok("skill", "install", "--dir", str(skills), spawn=True, env=home)
    target = skills / "memory-store"
    edited = "---\nname: memory-store\ndescription: my own notes\n---\nmine\n"
    (target / "SKILL.md").write_text(edited, encoding="utf-8")
    (target / "notes.md").write_text("kept until --force", encoding="utf-8")
    refused = fails(
        "INVALID_ARGUMENTS", "skill", "install", "--dir", str(skills), spawn=True, env=home
    )
    error = refused.error
    assert error["code"] == "INVALID_ARGUMENTS" and "--force" in error["message"]
    assert error["details"]["differs"] == ["SKILL.md", "notes.md"]
    assert (target / "SKILL.md").read_text(encoding="utf-8") == edited  # nothing changed
    assert (target / "notes.md").exists()
    forced = ok("skill", "install", "--dir", str(skills), "--force", spawn=True, env=home)
    assert forced["changed"] is True and forced["replaced"] is True
    _same_as_checkout(target)  # the whole folder, notes.md gone
    assert sorted(p.name for p in skills.iterdir()) == ["memory-store"]  # no staging left
    _validate(target)


def test_a_symlinked_copy_is_replaced_not_written_through(
    home: dict[str, str], tmp_path: Path
) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    elsewhere = tmp_path / "my-skill"
    elsewhere.mkdir()
    (elsewhere / "SKILL.md").write_text("mine", encoding="utf-8")
    (skills / "memory-store").symlink_to(elsewhere)
    fails("INVALID_ARGUMENTS", "skill", "install", "--dir", str(skills), spawn=True, env=home)
    ok("skill", "install", "--dir", str(skills), "--force", spawn=True, env=home)
    assert not (skills / "memory-store").is_symlink()
    _same_as_checkout(skills / "memory-store")
    assert (elsewhere / "SKILL.md").read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize(
    "args",
    [
        ["skill", "install", "--host", "claude", "--dir", "x"],
        ["skill", "install", "--host", "vim"],
        ["skill", "uninstall"],
        ["skill"],
        ["skill", "path", "--force"],
        ["skill", "path", "--host", "codex"],
        ["skill", "install", "--dir", ""],
    ],
)
def test_bad_command_lines_are_invalid_arguments(home: dict[str, str], args: list[str]) -> None:
    r = fails("INVALID_ARGUMENTS", *args, spawn=True, env=home)
    assert r.error["code"] == "INVALID_ARGUMENTS"
    assert r.env["command"] == "skill"
    assert list(Path(home["HOME"]).iterdir()) == []


def test_the_packaged_copy_is_never_a_target(home: dict[str, str]) -> None:
    r = fails(
        "INVALID_ARGUMENTS",
        "skill",
        "install",
        "--dir",
        str(ROOT / "references"),
        "--force",
        spawn=True,
        env=home,
    )
    assert "packaged copy" in r.error["message"]
    assert not (ROOT / "references" / "memory-store").exists()


def test_an_unwritable_directory_is_invalid_arguments(home: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    r = fails(
        "INVALID_ARGUMENTS",
        "skill",
        "install",
        "--dir",
        str(tmp_path / "a-file" / "skills"),
        spawn=True,
        env=home,
    )
    assert r.error["code"] == "INVALID_ARGUMENTS" and "cannot write" in r.error["message"]


def test_the_library_functions(tmp_path: Path) -> None:
    data = skill.install(directory=tmp_path / "skills")
    assert data["changed"] is True and data["path"] == str(tmp_path / "skills" / "memory-store")
    assert skill.install(directory=tmp_path / "skills")["changed"] is False
    assert skill.path()["path"] == str(ROOT)  # a checkout reads the skill in place
    assert skill.SKILL_NAME == "memory-store"


# ---------------------------------------------------------------- the built package


def _from_wheel(site: Path, *args: str, home: dict[str, str]) -> dict:
    env = {**os.environ, **home, "PYTHONPATH": str(site)}
    proc = subprocess.run(  # run outside the checkout, whose memory_store would come first
        [sys.executable, "-m", "memory_store", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=site.parent,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)["data"]


def test_the_wheel_carries_the_skill_and_installs_it(
    installed_wheel: Path, home: dict[str, str]
) -> None:
    names = set(zipfile.ZipFile(next(installed_wheel.parent.glob("dist/*.whl"))).namelist())
    for name in SKILL_FILES:
        assert f"memory_store/_skill/{name}" in names, name
    where = _from_wheel(installed_wheel, "skill", "path", home=home)
    assert where["path"] == str(installed_wheel / "memory_store" / "_skill")
    done = _from_wheel(installed_wheel, "skill", "install", home=home)
    target = Path(done["path"])
    assert target == Path(home["HOME"]) / ".claude" / "skills" / "memory-store"
    _same_as_checkout(target)
    _validate(target)


def test_the_installed_server_publishes_output_schemas_from_the_package(
    installed_wheel: Path,
) -> None:
    """The server reads references/schemas from the installed package, not a checkout."""
    script = (
        "import json, sys\n"
        "from memory_store import skill\n"
        "from memory_store.commands.catalog import COMMANDS\n"
        "print(json.dumps({'root': str(skill.packaged_dir()), 'schemas': sorted(\n"
        "    n for n, c in COMMANDS.items() if c.tool and skill.output_schema(n, c.tool.confirm))}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(installed_wheel)},
        timeout=60,
        cwd=installed_wheel.parent,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["root"] == str(installed_wheel / "memory_store" / "_skill")
    assert len(out["schemas"]) == len(TOOLS)


@pytest.mark.parametrize("umask", ["000", "002"])
def test_installed_files_are_never_writable_by_others(
    home: dict[str, str], tmp_path: Path, umask: str
) -> None:
    """SKILL.md is instructions an assistant with a shell follows (documentation/hosts.md#the-skill): under a
    permissive umask the folders stay 0755 and the files 0644, the new parents included."""
    skills = tmp_path / "new" / "skills"
    proc = subprocess.run(
        ["sh", "-c", f'umask {umask} && exec "$0" -m memory_store skill install --dir "$1"']
        + [sys.executable, str(skills)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **home},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    target = skills / "memory-store"
    folders = [tmp_path / "new", skills, target] + [p for p in target.rglob("*") if p.is_dir()]
    files = [p for p in target.rglob("*") if p.is_file()]
    assert len(files) == len(SKILL_FILES)
    assert {oct(p.stat().st_mode & 0o777) for p in folders} == {"0o755"}
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {"0o644"}


def test_a_tight_umask_stays_tight(home: dict[str, str], tmp_path: Path) -> None:
    proc = subprocess.run(
        ["sh", "-c", 'umask 077 && exec "$0" -m memory_store skill install --dir "$1"']
        + [sys.executable, str(tmp_path / "skills")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **home},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    target = tmp_path / "skills" / "memory-store"
    assert (target / "SKILL.md").stat().st_mode & 0o777 == 0o600
    assert target.stat().st_mode & 0o777 == 0o700
