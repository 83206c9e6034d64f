"""Where the store lives: --data-dir > MEMORY_STORE_DIR > platformdirs."""

from __future__ import annotations

import os

APP_NAME = "memory-store"
DB_NAME = "memory.sqlite3"
SIDE_SUFFIXES = ("-wal", "-shm")
ENV_DIR = "MEMORY_STORE_DIR"
DIR_MODE = 0o700
FILE_MODE = 0o600


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> str:
    """The one place that decides the data directory.

    platformdirs is imported only when neither the option nor the environment
    names a directory: it is the most expensive import on the read paths.
    """
    if data_dir is not None and str(data_dir) != "":
        return os.path.abspath(os.path.expanduser(os.fspath(data_dir)))
    env = os.environ.get(ENV_DIR)
    if env:
        return os.path.abspath(os.path.expanduser(env))
    from platformdirs import user_data_dir

    return user_data_dir(APP_NAME, appauthor=False)


def make_private_dirs(path: str) -> None:
    """Create ``path`` and any missing parents as 0700; never chmod what already exists."""
    missing = []
    head = path
    while head and not os.path.lexists(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    for directory in reversed(missing):
        os.mkdir(directory, DIR_MODE)
        os.chmod(directory, DIR_MODE)  # the umask may have narrowed or widened mkdir's mode


def create_private_file(path: str) -> None:
    """Create an empty file with mode 0600 whatever the umask; refuse to follow or reuse."""
    fd = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE
    )
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
