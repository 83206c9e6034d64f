"""Subjects by name: the person says 小林, the store keeps obj-a (contract §22).

Wherever a command takes a subject (``context``, ``search``, ``show``,
``forget-object``, ``tidy``), :func:`resolve` turns the value given into the
subject it means: a known code stays as it is; otherwise a value that is
exactly one subject's ``display_label`` (the ``object`` row of that field)
becomes that subject's code; two subjects with that label are ambiguous
(``INVALID_ARGUMENTS`` listing both). Anything else is passed on unchanged,
so each command answers an unknown subject as it always has (``context``:
``subject_known`` false; ``forget-object``: ``SUBJECT_NOT_FOUND``, which lists
the known subjects with their labels, :func:`not_found`).

The store holds at most a few hundred rows, so one query without an index on
the value costs microseconds; it runs only when a subject is given.
"""

from __future__ import annotations

from . import policy
from .errors import MemoryStoreError, error

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from .storage import Session

_BY_LABEL = (
    "SELECT DISTINCT subject_id FROM memories "
    "WHERE scope = 'object' AND field = 'display_label' AND value = ? ORDER BY subject_id"
)
# A message names at most this many subjects; details always list them all.
MESSAGE_SUBJECTS = 12


def resolve(session: Session, given: str | None) -> str | None:
    """The subject code ``given`` means (see the module docstring); None stays None."""
    if given is None or given == policy.USER_SUBJECT:
        return given
    return _lookup(session, given)[0]


def resolve_existing(session: Session, given: str) -> str:
    """:func:`resolve` for a command that needs the subject to exist (``forget-object``):
    SUBJECT_NOT_FOUND, with the known subjects and their labels, when it does not."""
    code, exists = _lookup(session, given)
    if not exists:
        raise not_found(session, given)
    return code


def _lookup(session: Session, given: str) -> tuple[str, bool]:
    """(the code, whether that subject has a live row or an undo snapshot)."""
    if session.blank:
        return given, False
    if session.holds_subject(given):
        return given, True
    conn = session.conn
    if given == policy.USER_SUBJECT:
        return given, False  # the user's profile is never found by a label
    found = [r[0] for r in conn.execute(_BY_LABEL, (given.strip(),))]
    if len(found) == 1:
        return found[0], True
    if len(found) > 1:
        listed = labelled(conn, found)
        raise error(
            "INVALID_ARGUMENTS",
            f"{len(found)} subjects are called {given.strip()}: "
            f"{_names(listed)}; give the code of the one you mean",
            argument="subject_id",
            subject_id=given,
            subjects=listed,
        )
    return given, False


def labelled(conn: sqlite3.Connection, codes: list[str]) -> list[dict[str, Any]]:
    """``[{subject_id, display_label}]`` for ``codes`` (the label null when there is none)."""
    labels = dict(
        conn.execute(
            "SELECT subject_id, value FROM memories "
            "WHERE scope = 'object' AND field = 'display_label' AND value != ''"
        ).fetchall()
    )
    return [{"subject_id": c, "display_label": labels.get(c)} for c in codes]


def known(conn: sqlite3.Connection) -> list[str]:
    """Every subject with a live row or an undo snapshot, in code order."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT subject_id FROM memories UNION SELECT subject_id FROM operation_rows ORDER BY 1"
        )
    ]


def _names(listed: list[dict[str, Any]]) -> str:
    shown = [
        f"{s['subject_id']} ({s['display_label']})" if s["display_label"] else s["subject_id"]
        for s in listed[:MESSAGE_SUBJECTS]
    ]
    more = len(listed) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def not_found(session: Session, given: str) -> MemoryStoreError:
    """SUBJECT_NOT_FOUND naming the known subjects by code and label.

    ``details.known_subjects`` stays the list of codes release 1 gave;
    ``details.subjects`` adds each one's ``display_label``.
    """
    codes = [] if session.blank else known(session.conn)
    listed = [] if session.blank else labelled(session.conn, codes)
    hint = f"known subjects: {_names(listed)}" if listed else "no subject is stored yet"
    return error(
        "SUBJECT_NOT_FOUND",
        f"no memory is about that subject (neither a code nor a display_label); "
        f"nothing was deleted; {hint}",
        subject_id=given,
        known_subjects=codes,
        subjects=listed,
    )
