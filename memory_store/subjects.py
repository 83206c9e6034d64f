"""Subjects by name: the person says 小林, the store keeps obj-a (documentation/commands.md#a-person-named-never-guessed).

Wherever a command takes a subject (``context``, ``search``, ``show``,
``forget-object``, ``tidy``), :func:`resolve` turns the value given into the
subject it means: a known code stays as it is; otherwise a value that is
exactly one subject's ``display_label`` (the ``object`` row of that field)
becomes that subject's code; two subjects with that label are ambiguous
(``INVALID_ARGUMENTS`` listing both). A value that matches a label only
loosely (documentation/commands.md#a-person-named-never-guessed: ignoring case, full/half width and spaces, or a label's
leading name before a bracket or comma — "Dana" for "Dana (my manager)",
"小林" for "小林（读书会认识的设计师）") is answered with ``SUBJECT_NOT_FOUND``
and ``details.did_you_mean``: a plain name must not quietly become a second
person, nor be taken for one the person may not mean. Anything else is passed
on unchanged, so each command answers an unknown subject as it always has
(``context``: ``subject_known`` false; ``forget-object``: ``SUBJECT_NOT_FOUND``,
which lists the known subjects with their labels, :func:`not_found`).
:func:`check_new_subjects` does the same for the subjects an ``apply`` would
create, and names the ones it creates without a ``display_label``;
:func:`name_given_as_code` answers an ``apply`` whose ``subject_id`` is no code at all
(小林, "Bea Li") but a known label; :func:`similar_labels` warns of a new label that
shares its leading name with another subject's ("阿杰" beside "阿杰（读书会认识的男生）"),
and :func:`label_pairs` lists such pairs for ``tidy``.

The store holds at most a few hundred rows, so one query without an index on
the value costs microseconds; it runs only when a subject is given.
"""

from __future__ import annotations

from . import policy
from .errors import MemoryStoreError, error
from .storage.rows import fold, leading_name, name_key

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
    if not found:
        near = loose_matches(conn, given)
        if near:
            raise not_found(session, given, near)
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


def not_found(
    session: Session, given: str, near: list[dict[str, Any]] | None = None
) -> MemoryStoreError:
    """SUBJECT_NOT_FOUND naming the known subjects by code and label.

    ``details.known_subjects`` stays the list of codes release 1 gave;
    ``details.subjects`` adds each one's ``display_label``; ``near`` (the loose
    matches) becomes ``details.did_you_mean``.
    """
    codes = [] if session.blank else known(session.conn)
    listed = [] if session.blank else labelled(session.conn, codes)
    if near:
        return _did_you_mean(given, near, subjects=listed, known_subjects=codes)
    hint = f"known subjects: {_names(listed)}" if listed else "no subject is stored yet"
    return error(
        "SUBJECT_NOT_FOUND",
        f"no memory is about that subject (neither a code nor a display_label); "
        f"nothing was deleted; {hint}",
        subject_id=given,
        known_subjects=codes,
        subjects=listed,
    )


def _did_you_mean(given: str, near: list[dict[str, Any]], **details: Any) -> MemoryStoreError:
    return error(
        "SUBJECT_NOT_FOUND",
        f"no subject has the code {given!r}; did you mean {_names(near)}? "
        "Pass that code as subject_id (a code never holds a name); nothing was changed",
        subject_id=given,
        did_you_mean=near,
        **details,
    )


# ---------------------------------------------------------------- loose matches (documentation/commands.md#a-person-named-never-guessed)


def loose_matches(conn: sqlite3.Connection, given: str) -> list[dict[str, Any]]:
    """``[{subject_id, display_label}]`` of the subjects ``given`` names loosely: a label
    (or its leading name) or a code, with case, width and spaces ignored. A value that is
    exactly a label is not loose (:func:`resolve` resolves it), but it is listed too."""
    want = fold(given)
    if not want:
        return []
    labels = conn.execute(
        "SELECT subject_id, value FROM memories "
        "WHERE scope = 'object' AND field = 'display_label' AND value != '' ORDER BY subject_id"
    ).fetchall()
    near = {
        code: label
        for code, label in labels
        if want in (fold(label), fold(leading_name(label))) and code != given
    }
    for code in known(conn):
        if code != given and fold(code) == want and code != policy.USER_SUBJECT:
            near.setdefault(code, dict(labels).get(code))
    return [{"subject_id": c, "display_label": near[c]} for c in sorted(near)]


def check_new_subjects(session: Session, deltas: list[dict[str, Any]]) -> dict[str, int]:
    """The subjects an ``apply`` batch would create, checked inside its transaction
    (documentation/commands.md#a-person-named-never-guessed): one whose code matches a known subject's label or code loosely
    ("Dana" for "Dana (my manager)") is refused with ``SUBJECT_NOT_FOUND`` and
    ``did_you_mean`` unless the batch gives it a ``display_label`` of its own (a
    second person of that name, on purpose). Returns the new subjects without a
    ``display_label`` in the batch, each with the index of its first delta."""
    labelled_here = {
        d["subject_id"]
        for d in deltas
        if d["action"] == "upsert" and d["scope"] == "object" and d["field"] == "display_label"
    }
    new: dict[str, int | None] = {}
    for i, d in enumerate(deltas):
        code = d.get("subject_id")
        if d["action"] != "upsert" or code in (None, policy.USER_SUBJECT) or code in new:
            continue
        if session.holds_subject(code) or code in labelled_here:
            new[code] = None
            continue
        near = loose_matches(session.conn, code)
        if near:
            err = _did_you_mean(code, near)
            err.details["index"] = i
            raise err
        new[code] = i
    return {code: i for code, i in new.items() if i is not None}


# ---------------------------------------------------------------- names on writes (permissions.md)


def name_given_as_code(session: Session, err: MemoryStoreError, body: object) -> MemoryStoreError:
    """The error for ``apply``'s ``INVALID_DELTA`` on a ``subject_id`` that is no code (a
    name with a space or in Chinese): when it is a subject's label, exactly or loosely
    ("小林", "Ｂｅａ Ｌｉ", "bea li"), ``SUBJECT_NOT_FOUND`` offering that subject in
    ``did_you_mean``, as the read commands do; any other value keeps ``err``."""
    index = err.details.get("index")
    given = _subject_at(body, index)
    if given is None or session.blank:
        return err
    near = loose_matches(session.conn, given)
    if not near:
        return err
    found = _did_you_mean(given, near)
    found.details["index"] = index
    return found


def _subject_at(body: object, index: object) -> str | None:
    """The ``subject_id`` of the delta at ``index`` of an apply body as it was given."""
    import json

    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return None
    deltas = body.get("deltas") if isinstance(body, dict) and "deltas" in body else [body]
    if not isinstance(deltas, list) or not isinstance(index, int) or not 0 <= index < len(deltas):
        return None
    given = deltas[index].get("subject_id") if isinstance(deltas[index], dict) else None
    return given if isinstance(given, str) else None


def _labels(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT subject_id, value FROM memories "
        "WHERE scope = 'object' AND field = 'display_label' AND value != '' ORDER BY subject_id"
    ).fetchall()


def similar_labels(
    session: Session, results: list[dict[str, Any]], deltas: list[dict[str, Any]]
) -> None:
    """A ``similar_label`` warning on each result that wrote a ``display_label`` whose
    leading name is another subject's ("阿杰" beside "阿杰（读书会认识的男生）"): two
    people, or one person written twice? The result names the other subject; the person
    decides (nothing is merged or refused). The labels compared are those before the
    batch and those it wrote before this delta, so a dry run warns as the apply would."""
    batch = {
        d["subject_id"]: (i, d["value"])
        for i, d in enumerate(deltas)
        if d.get("action") == "upsert" and d.get("scope") == "object"
        if d.get("field") == "display_label"
    }
    before = [(c, label) for c, label in _labels(session.conn) if c not in batch]
    for r in results:
        d = deltas[r["index"]]
        if r["action"] not in ("created", "updated") or batch.get(d.get("subject_id")) is None:
            continue
        if batch[d["subject_id"]][0] != r["index"] or not name_key(d["value"]):
            continue
        earlier = [(c, v) for c, (i, v) in batch.items() if i < r["index"]]
        alike = [
            {"subject_id": code, "display_label": label}
            for code, label in sorted(before + earlier)
            if code != d["subject_id"] and name_key(label) == name_key(d["value"])
        ]
        if alike:
            r.setdefault("warnings", []).append(
                {
                    "code": "similar_label",
                    "message": f"already known by the name {leading_name(d['value']).strip()}: "
                    f"{_names(alike)}; if this is that person, undo and write to their code; "
                    "if not, give each a label that tells them apart",
                    "subjects": alike,
                }
            )
