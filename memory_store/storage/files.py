"""Where the store lives, and whether its files are safe to open.

The data directory is ``--data-dir`` > ``MEMORY_STORE_DIR`` > platformdirs.
The checks here run before SQLite touches a path. Nothing here opens a
database file by path while a connection to it may be open in this process,
except where the caller has closed it first: closing any descriptor of a file
drops every POSIX lock this process holds on it, SQLite's included (see
this package's ``__init__``, the session).
"""

from __future__ import annotations

import os
import stat
import sys

from ..errors import MemoryStoreError, unavailable

APP_NAME = "memory-store"
DB_NAME = "memory.sqlite3"
SIDE_SUFFIXES = ("-wal", "-shm")
# SQLite also creates a rollback journal when a store is out of WAL mode.
CHECKED_SUFFIXES = (*SIDE_SUFFIXES, "-journal")
ENV_DIR = "MEMORY_STORE_DIR"
DIR_MODE = 0o700
FILE_MODE = 0o600


def normal_path(path: str) -> str:
    """An absolute path with no ``.``, ``..`` or repeated separators, and one leading slash.

    POSIX lets a path start with exactly two slashes and ``normpath`` keeps
    them; SQLite would read ``file://x/…`` as a URI naming host ``x``.
    """
    path = os.path.abspath(os.path.expanduser(path))
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    return path


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> str:
    """The one place that decides the data directory.

    An empty directory (``--data-dir ""``, ``MemoryStore(data_dir="")``, or an
    empty ``MEMORY_STORE_DIR``, what an unset shell variable expands to) is
    INVALID_ARGUMENTS, never "not given": read as the default it would let
    ``clear --confirm`` reach the person's real store (documentation/variables.md#where-the-store-lives). The
    environment is consulted only when no directory is given.

    platformdirs is imported only when neither the option nor the environment
    names a directory: it is the most expensive import on the read paths.
    """
    if data_dir is not None:
        path = os.fspath(data_dir)
        if not path:
            raise MemoryStoreError(
                "INVALID_ARGUMENTS",
                'the data directory given is empty (--data-dir "" or data_dir=""): name the '
                "store's directory, or leave it out for the default store",
                {"option": "--data-dir"},
            )
        return normal_path(path)
    env = os.environ.get(ENV_DIR)
    if env is not None:
        if not env:
            raise MemoryStoreError(
                "INVALID_ARGUMENTS",
                f"{ENV_DIR} is set but empty (an unset shell variable?): name the store's "
                f"directory, or unset {ENV_DIR} for the default store",
                {"environment": ENV_DIR},
            )
        return normal_path(env)
    from platformdirs import user_data_dir

    return normal_path(user_data_dir(APP_NAME, appauthor=False))


def install_script() -> str | None:
    """The console script of the install that is running, or None (a checkout run with
    ``python -m``): the one beside ``sys.executable``, kept as the interpreter was
    started — in a virtual environment that link's location is what selects the
    packages."""
    python = os.path.abspath(sys.executable)
    script = os.path.join(os.path.dirname(python), APP_NAME + (".exe" if os.name == "nt" else ""))
    return script if os.path.isfile(script) else None


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def quote(word: str) -> str:
    """``shlex.quote``, without compiling its pattern on every write's undo hint
    (documentation/performance.md)."""
    if not word:
        return "''"
    if all(c in _SAFE for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _which(name: str) -> str | None:
    """``shutil.which`` for a plain name on POSIX: importing shutil (it loads bz2, lzma
    and zlib) cost every apply as much as its whole write (documentation/performance.md)."""
    if os.name == "nt":
        import shutil

        return shutil.which(name)
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


_PROGRAM: list[tuple[str | None, str]] = []  # (PATH, the words): asked once per PATH


def program() -> str:
    """The words that start this install, as the person's shell must be given them.

    The bare ``memory-store`` only where the shell would find this very install
    (``shutil.which`` resolves to the running install's script): a virtual
    environment's ``bin`` is on no one's PATH unless activated, and another
    ``memory-store`` found first would be another install, perhaps another release.
    Else the script's absolute path, one shell word; else the interpreter with
    ``-m memory_store``. Computed only when a command is handed over (``shutil``
    costs the per-turn paths ~3 ms) and kept for as long as PATH is unchanged.
    """
    path = os.environ.get("PATH")
    if _PROGRAM and _PROGRAM[0][0] == path:
        return _PROGRAM[0][1]
    script = install_script()
    if script is None:
        words = f"{quote(os.path.abspath(sys.executable))} -m memory_store"
    else:
        found = _which(APP_NAME)
        same = found is not None and os.path.realpath(found) == os.path.realpath(script)
        words = APP_NAME if same else quote(script)
    _PROGRAM[:] = [(path, words)]
    return words


def command_line(data_dir: str | None, *words: str) -> str:
    """The text of a command handed to the person: ``memory-store [--data-dir DIR] WORDS…``.

    The program is :func:`program`: the bare name where the person's shell finds
    this install, else its absolute path (documentation/variables.md#commands-handed-to-the-person-name-the-store). ``data_dir`` is None for
    the platform default store, which the person's terminal finds by itself; any
    other directory is named, because their terminal has neither the host's
    arguments nor its environment (documentation/variables.md#commands-handed-to-the-person-name-the-store). Every word is shell-quoted, so
    the line can be pasted as it is.
    """
    named = ("--data-dir", data_dir) if data_dir is not None else ()
    return " ".join((program(), *(quote(w) for w in (*named, *words))))


class Location:
    """Where one store lives: its directory and its database file.

    ``named`` is true when the directory came from ``--data-dir`` (or the
    library's ``data_dir``) or ``MEMORY_STORE_DIR`` rather than the platform
    default: commands handed to the person then name it (:meth:`command`).
    Such a directory is named even when it happens to be the default's path:
    finding the default costs the platformdirs import, which the per-turn
    paths do not pay, and naming it anyway is still the right store.
    """

    __slots__ = ("data_dir", "path", "named")

    def __init__(self, data_dir: str | os.PathLike[str] | None = None):
        self.data_dir = resolve_data_dir(data_dir)
        self.path = os.path.join(self.data_dir, DB_NAME)
        self.named = (data_dir is not None and str(data_dir) != "") or bool(os.environ.get(ENV_DIR))

    def command(self, *words: str) -> str:
        """:func:`command_line` for this store: ``location.command("undo", "--op-id", op)``."""
        return command_line(self.data_dir if self.named else None, *words)


# No SQLite database is shorter than its smallest page. SQLite recognizes a longer
# file that is not a database by its header (SQLITE_NOTADB), but it takes a shorter
# one for an empty database (its unix VFS even reports a 1-byte file as empty) and
# would write into it.
SMALLEST_DATABASE = 512


def check_length(st: os.stat_result) -> None:
    """STORE_CORRUPT for a non-empty file too short to be a database (from ``lstat``)."""
    if 0 < st.st_size < SMALLEST_DATABASE:
        raise MemoryStoreError("STORE_CORRUPT", "the store file is not a SQLite database", {})


def _through_a_file() -> MemoryStoreError:
    return MemoryStoreError("STORE_UNAVAILABLE", "the data directory path runs through a file", {})


def check_data_dir(directory: str) -> os.stat_result | None:
    """The directory's ``stat`` if it exists, else None; STORE_UNAVAILABLE if it is something else."""
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise _through_a_file() from None
    except OSError as exc:
        raise unavailable(exc) from None
    if not stat.S_ISDIR(st.st_mode):
        raise MemoryStoreError("STORE_UNAVAILABLE", "the data directory is not a directory", {})
    return st


def _unsafe(message: str, **details: object) -> MemoryStoreError:
    return MemoryStoreError("STORE_UNSAFE", message + "; refusing to use it", details)


def check_ownership(dir_st: os.stat_result, db_st: os.stat_result | None = None) -> None:
    """STORE_UNSAFE when another user could swap the database: a data directory or
    database owned by someone else, or a directory that group or others may write."""
    me = os.geteuid()
    if dir_st.st_uid != me:
        raise _unsafe("the data directory belongs to another user", reason="owner", file=".")
    if dir_st.st_mode & 0o022:
        mode = stat.S_IMODE(dir_st.st_mode)
        raise _unsafe(
            f"the data directory is writable by group or others (mode {mode:o}): another user "
            "could replace the database (chmod 700 fixes it)",
            reason="permissions",
            mode=f"{mode:o}",
        )
    if db_st is not None and db_st.st_uid != me:
        raise _unsafe("the database file belongs to another user", reason="owner", file=DB_NAME)


def is_ownership_problem(exc: MemoryStoreError) -> bool:
    return exc.code == "STORE_UNSAFE" and exc.details.get("reason") in ("owner", "permissions")


def check_store_files(db_path: str) -> os.stat_result | None:
    """The database file's ``lstat``, or None when it does not exist.

    A database, -wal, -shm or -journal that is a symlink or not a regular file
    is STORE_UNSAFE: SQLite would follow it somewhere we did not choose.
    """
    found: os.stat_result | None = None
    for suffix in ("", *CHECKED_SUFFIXES):
        path = db_path + suffix
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            raise _through_a_file() from None
        except OSError as exc:
            raise unavailable(exc) from None
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
            raise MemoryStoreError(
                "STORE_UNSAFE",
                f"{os.path.basename(path)} is a symlink or not a regular file; refusing to use it",
                {"file": os.path.basename(path)},
            )
        if suffix == "":
            found = st
    return found
