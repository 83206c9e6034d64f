"""The skill as shipped (``SKILL.md`` and ``references/``), and its copy in a host's skills directory.

A wheel carries the skill under ``memory_store/_skill/`` (``pyproject.toml`` maps
the checkout's root there); an editable install or a bare checkout reads it where
it lies, beside the package. ``memory-store skill path`` says where that is;
``memory-store skill install`` copies it into the folder a host reads skills from
(Claude Code ``~/.claude/skills/``, which Cursor and VS Code read too; Codex
``~/.agents/skills/``, where Codex documents user skills; any other with a directory) under the skill's own name, ``memory-store``.

These commands touch no store: they neither open nor create one, whatever the
data directory. An installed copy that differs from the packaged one (an older
release's, or one the person edited) is replaced only when asked (``force``):
it may hold someone's work.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .errors import MemoryStoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SKILL_NAME = "memory-store"  # the folder's name must equal SKILL.md's `name` (Agent Skills)
HOST_DIRS: dict[str, tuple[str, ...]] = {
    "claude": (".claude", "skills"),  # Claude Code per user; Cursor and VS Code read it too
    "codex": (".agents", "skills"),  # Codex's documented user skills ($HOME/.agents/skills)
}
HOSTS = tuple(HOST_DIRS)
DEFAULT_HOST = "claude"


def packaged_dir() -> Path:
    """The folder holding the packaged ``SKILL.md`` and ``references/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_skill", here.parent):
        if (candidate / "SKILL.md").is_file() and (candidate / "references").is_dir():
            return candidate
    raise MemoryStoreError(
        "INTERNAL_ERROR",
        "this installation carries no SKILL.md; reinstall memory-store from a checkout or a wheel",
        {"looked_in": [str(here / "_skill"), str(here.parent)]},
    )


def reference(*parts: str) -> Path:
    """A file under the packaged ``references/`` (the JSON Schemas, for the MCP server)."""
    return packaged_dir().joinpath("references", *parts)


def bundled_schema(name: str) -> dict[str, Any]:
    """A schema of ``references/schemas/`` as one self-contained document.

    The files refer to each other by name (``memory.schema.json#/$defs/…``); a
    client validating an MCP tool's ``outputSchema`` resolves references only
    inside the document, so each file referred to is embedded under
    ``$defs/<file name>`` and the references are rewritten to point there.
    """
    embedded: dict[str, Any] = {}

    def load(file: str) -> dict[str, Any]:
        doc = json.loads(reference("schemas", file).read_text(encoding="utf-8"))
        doc.pop("$schema", None)
        doc.pop("$id", None)
        return doc

    def rewrite(node: Any, current: str) -> Any:
        if isinstance(node, list):
            return [rewrite(item, current) for item in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                file, _, pointer = value.partition("#")
                file = file or current
                if file == name:
                    out[key] = "#" + pointer
                    continue
                if file not in embedded:
                    embedded[file] = None  # being embedded: a reference back ends here
                    embedded[file] = rewrite(load(file), file)
                out[key] = f"#/$defs/{file}{pointer}"
            else:
                out[key] = rewrite(value, current)
        return out

    root = rewrite(load(name), name)
    if embedded:
        root["$defs"] = {**root.get("$defs", {}), **embedded}
    return root


def output_schema(command: str, confirmed: bool = False) -> dict[str, Any]:
    """An MCP tool's ``outputSchema``: the keys of the command's data and their types
    (``outline``); for a tool the person confirms (``confirmed``) also the keys of the
    answer that nothing changed (every key is optional, so both shapes pass)."""
    schema = outline(shape(bundled_schema(f"{command}.data.schema.json")))
    if confirmed:
        unchanged = outline(shape(bundled_schema("unchanged.schema.json")))
        props = schema["properties"]
        for key, spec in unchanged["properties"].items():
            props[key] = _union(props[key], spec) if key in props else spec
    return schema


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
_JSON_TYPES.update({list: "array", dict: "object"})


def _types(node: Any) -> list[str]:
    """The JSON types a schema node allows, read through const, enum and its branches."""
    if not isinstance(node, dict):
        return []
    found: list[str] = []
    given = node.get("type")
    if given is not None:
        found += given if isinstance(given, list) else [given]
    if "const" in node:
        found.append(_JSON_TYPES[type(node["const"])])
    for value in node.get("enum", ()):
        found.append(_JSON_TYPES[type(value)])
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key, ()):
            found += _types(branch)
    return list(dict.fromkeys(found))


def _branch_props(node: dict[str, Any]) -> dict[str, Any]:
    props = dict(node.get("properties", {}))
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key, ()):
            if isinstance(branch, dict):
                props.update(branch.get("properties", {}))
    return props


def _union(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    types = list(dict.fromkeys(_as_list(a.get("type")) + _as_list(b.get("type"))))
    return {"type": types[0] if len(types) == 1 else types} if types else {}


def _as_list(value: Any) -> list[str]:
    return [] if value is None else value if isinstance(value, list) else [value]


def outline(node: Any, depth: int = 0) -> dict[str, Any]:
    """A schema as the shape of what it describes: each key's JSON types, the keys of an
    object two levels down, no descriptions, no required keys, no rules. A client checks
    every result against the ``outputSchema`` it is given; the rules stay in
    ``references/schemas/``, where the tests hold real results to them. (A host pays
    for each character of ``tools/list`` in every conversation: documentation/mcp.md#the-tools.)"""
    types = _types(node)
    out: dict[str, Any] = {}
    if types:
        out["type"] = types[0] if len(types) == 1 else types
    props = _branch_props(node) if isinstance(node, dict) else {}
    if props and depth < 2:
        out["properties"] = {k: outline(v, depth + 1) for k, v in props.items()}
    return out


# What a row inside a list keeps in the published shape: its type, the keys it must
# have and their words. The invariants between its keys stay in references/schemas/.
_ITEM_KEYS = ("type", "required", "description", "title")
# Conditions between the keys of data (truncated implies omitted > 0, …): the store's
# invariants, checked by the tests against references/schemas/, not by every client call.
_BETWEEN_KEYS = frozenset(("$defs", "allOf", "if", "then", "else"))


def shape(schema: dict[str, Any]) -> dict[str, Any]:
    """The data schema as a client validates it on every call: references inlined, the
    keys of ``data`` with their rules (not the conditions between them), and each item
    of a list (a memory row, a finding) as an object with its required keys only.

    The SDK's client validates every result against the ``outputSchema`` in Python;
    with the full row schema (references, conditions between keys) that took ~2.4 ms
    for one ``memory_context`` answer, ten times what the server spends on it. The
    complete schemas are in ``references/schemas/``, and the tests check real output
    against them."""
    defs = schema.get("$defs", {})

    def resolve(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [resolve(n, depth) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node and node["$ref"].startswith("#/$defs/"):
            target: Any = defs
            for part in node["$ref"][len("#/$defs/") :].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return resolve({**target, **extra}, depth)
        if depth >= 1:  # inside a list: the item's own type and required keys
            return {k: node[k] for k in _ITEM_KEYS if k in node}
        out = {}
        for key, value in node.items():
            if key in _BETWEEN_KEYS:
                continue
            deeper = depth + 1 if key == "items" else depth
            if key == "properties":
                out[key] = {k: resolve(v, depth) for k, v in value.items()}
            else:
                out[key] = resolve(value, deeper)
        return out

    return resolve(schema, 0)


def _tree(root: Path, top: list[Path]) -> dict[str, Path]:
    """Every file under ``top`` (relative POSIX name -> path); hidden files and caches
    (``.DS_Store``, ``__pycache__``) are neither copied nor compared."""
    found: dict[str, Path] = {}
    for start in top:
        paths = [start] if start.is_file() else sorted(start.rglob("*"))
        for path in paths:
            name = path.relative_to(root).as_posix()
            if path.is_file() and not any(
                p.startswith(".") or p == "__pycache__" for p in name.split("/")
            ):
                found[name] = path
    return found


def packaged_files() -> dict[str, Path]:
    root = packaged_dir()
    return _tree(root, [root / "SKILL.md", root / "references"])


def _differences(target: Path, files: dict[str, Path]) -> list[str]:
    """Names that differ between an installed copy and the packaged files ([] = identical)."""
    if target.is_symlink() or not target.is_dir():
        return ["SKILL.md"] if os.path.lexists(target) else sorted(files)
    installed = _tree(target, [target])
    names = sorted(set(installed) | set(files))
    return [
        n
        for n in names
        if n not in installed
        or n not in files
        or installed[n].read_bytes() != files[n].read_bytes()
    ]


def _state(target: Path, files: dict[str, Path]) -> str:
    if not os.path.lexists(target):
        return "absent"
    return "same" if not _differences(target, files) else "differs"


def skills_dir(host: str | None = None, directory: str | os.PathLike[str] | None = None) -> Path:
    """The skills directory: ``directory`` if given, else the host's under the home directory."""
    if directory is not None:
        if str(directory).strip() == "":
            raise MemoryStoreError(
                "INVALID_ARGUMENTS", "--dir must name a directory", {"argument": "--dir"}
            )
        return Path(os.path.expanduser(os.fspath(directory))).absolute()
    if host not in HOST_DIRS:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS",
            f"host must be one of: {', '.join(HOSTS)} (or give a directory)",
            {"allowed": list(HOSTS)},
        )
    return Path.home().joinpath(*HOST_DIRS[host])


def path() -> dict[str, Any]:
    """``skill path``: where the packaged copy is, and how each host's installed copy compares."""
    root = packaged_dir()
    files = packaged_files()
    installed = {}
    for host in HOSTS:
        target = skills_dir(host) / SKILL_NAME
        installed[host] = {"path": str(target), "state": _state(target, files)}
    return {
        "action": "path",
        "path": str(root),
        "skill_md": str(root / "SKILL.md"),
        "files": len(files),
        "installed": installed,
    }


def _refuse_overlap(target: Path, root: Path) -> None:
    """Never install onto (or inside) the packaged copy itself: a checkout named
    ``memory-store`` would be replaced by its own skill."""
    real_target, real_root = target.resolve(), root.resolve()
    if (
        real_target == real_root
        or real_root.is_relative_to(real_target)
        or real_target.is_relative_to(real_root)
    ):
        raise MemoryStoreError(
            "INVALID_ARGUMENTS",
            f"{target} is the packaged copy itself (or holds it); choose another directory",
            {"path": str(target), "packaged": str(root)},
        )


def _not_writable_by_others() -> int:
    """The bits a new skill file or folder never gets: the umask's, and always group and
    others' write (documentation/hosts.md#the-skill) — SKILL.md is instructions an assistant with a shell
    follows, so a umask of 000 must not make them anyone's to edit."""
    umask = os.umask(0o022)
    os.umask(umask)
    return umask | 0o022


def _make_dirs(folder: Path, masked: int) -> None:
    """``folder`` and its missing parents, each 0755 or tighter whatever the umask."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        os.mkdir(made)
        os.chmod(made, 0o777 & ~masked)


def _write(files: dict[str, Path], parent: Path) -> Path:
    """The skill written into a new hidden folder of ``parent`` (renamed into place by the
    caller): folders 0755 and files 0644, or tighter where the umask is."""
    # Imported here, not above: print-config's install hint imports this module for
    # packaged_dir alone, and these two cost it a quarter of the interpreter's start
    # (documentation/performance.md).
    import secrets
    import shutil

    masked = _not_writable_by_others()
    _make_dirs(parent, masked)
    staging = parent / f".{SKILL_NAME}-{secrets.token_hex(4)}"
    _make_dirs(staging, masked)
    try:
        for name, source in files.items():
            dest = staging.joinpath(*name.split("/"))
            _make_dirs(dest.parent, masked)
            shutil.copyfile(source, dest)
            os.chmod(dest, 0o666 & ~masked)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def _swap(staging: Path, target: Path) -> None:
    """Put ``staging`` where ``target`` is: the old copy moves aside first, then goes."""
    import secrets
    import shutil

    old = None
    if os.path.lexists(target):
        old = target.with_name(f".{SKILL_NAME}-old-{secrets.token_hex(4)}")
        os.rename(target, old)
    os.rename(staging, target)
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        else:
            old.unlink()


def install(
    host: str | None = None,
    directory: str | os.PathLike[str] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """``skill install``: copy the packaged skill to ``<skills dir>/memory-store``.

    An identical copy already there is left alone (``changed: false``); a
    different one is replaced only with ``force`` (the whole folder, files the
    person added included), else ``INVALID_ARGUMENTS`` and nothing changes.
    """
    if host is not None and directory is not None:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS", "give --host or --dir, not both", {"argument": "--dir"}
        )
    if directory is None and host is None:
        host = DEFAULT_HOST
    parent = skills_dir(host, directory)
    target = parent / SKILL_NAME
    root = packaged_dir()
    files = packaged_files()
    _refuse_overlap(target, root)
    existed = os.path.lexists(target)
    differs = _differences(target, files) if existed else sorted(files)
    data = {"action": "install", "host": host, "path": str(target), "files": len(files)}
    if existed and not differs:
        return {**data, "changed": False, "replaced": False}
    if existed and not force:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS",
            f"{target} holds a different copy of the skill; nothing changed. "
            "Add --force to replace that whole folder with the packaged copy",
            {"path": str(target), "differs": differs[:20], "argument": "--force"},
        )
    try:
        _swap(_write(files, parent), target)
    except OSError as exc:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS",
            f"cannot write the skill into {parent}: {exc.strerror or exc}",
            {"path": str(parent), "errno": exc.errno},
        ) from None
    return {**data, "changed": True, "replaced": existed}


def run(args: dict[str, Any]) -> dict[str, Any]:
    """The ``skill`` command: ``install`` or ``path`` (which takes no install options)."""
    if args["action"] == "path":
        given = [f for f, v in (("--host", args["host"]), ("--dir", args["dir"])) if v is not None]
        if args["force"]:
            given.append("--force")
        if given:
            raise MemoryStoreError(
                "INVALID_ARGUMENTS",
                f"{', '.join(given)}: only `skill install` takes these",
                {"arguments": given},
            )
        return path()
    return install(host=args["host"], directory=args["dir"], force=args["force"])
