"""MemoryStore: the public facade. One method per command; returns plain data, never prints.

Each method checks its own arguments (the rules of ``commands``), opens the store
through a :class:`~memory_store.storage.Session` and hands the work to the module
of that concern (``consent``, ``writes``, ``recall``, ``erasure``, ``transfer``,
``doctor``; ``subjects`` for a name), imported when first needed so that a call
pays only for its own.
"""

from __future__ import annotations

from . import policy
from .commands import (
    check_date,
    check_limit,
    check_max_chars,
    check_query,
    check_scope,
    check_text,
)
from .errors import MemoryStoreError, require_confirm
from .policy import ROW_KEYS
from .storage import Opened, Session
from .storage.files import Location

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import os
    from collections.abc import Callable
    from typing import Any


class MemoryStore:
    """A consent-gated, bounded memory store in one SQLite file.

    By default every method opens the database, does its work (a write in one
    ``BEGIN IMMEDIATE`` transaction) and closes it again, so a store object is
    cheap to keep and safe to share between calls. A long-lived host (the MCP
    server) calls :meth:`hold` to keep one connection across calls; before each
    call it is revalidated against the file at the store's path. Failures
    raise :class:`MemoryStoreError` with a code of references/error-codes.md#error-codes.
    """

    def __init__(self, data_dir: str | os.PathLike[str] | None = None):
        self.location = Location(data_dir)
        self.data_dir = self.location.data_dir
        self.path = self.location.path
        self._holding = False
        self._held: Session | None = None

    # ------------------------------------------------------------------ sessions

    def hold(self) -> None:
        """Keep one connection open across calls (no transaction stays open between them)."""
        self._holding = True

    def release(self) -> None:
        """Close a held connection; later calls open one per call again."""
        self._holding = False
        self._drop_held()

    def _drop_held(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None

    def _open(self, reading: bool = False) -> Opened:
        """The store, checked (documentation/commands.md#consent-states-and-the-order-of-checks steps 2-3) and ready; closed after the call
        unless held. ``reading``: no store is "nothing is kept" (``storage``)."""
        if not self._holding:
            return Opened(Session.open(self.location, reading))
        held = self._held
        if held is not None and not held.is_current():
            # Deleted or replaced by another process: answer as a fresh process would.
            self._drop_held()
            held = None
        if held is None:
            held = self._held = Session.open(self.location, reading)
            held.remember = True
        else:
            try:
                held.refresh()
            except MemoryStoreError:
                self._drop_held()
                raise
        return Opened(held, close=False)

    # ------------------------------------------------------------------ consent

    def status(self, verbose: bool = False) -> dict[str, Any]:
        """Whether memory exists, consent, counts; the caps near one (or ``verbose``);
        never creates anything."""
        from .consent import status

        self._drop_held()
        return status(self.location, verbose)

    def enable(self, confirm: bool = False) -> dict[str, Any]:
        """Record the user's explicit consent; the only call that creates the store."""
        require_confirm(confirm, "enable")
        from .consent import enable

        self._drop_held()
        return enable(self.location, confirm)

    def pause(self) -> dict[str, Any]:
        """Stop apply, context, search and import until resume; nothing is deleted."""
        from .consent import set_paused

        with self._open() as session:
            return set_paused(session, True)

    def resume(self) -> dict[str, Any]:
        """Lift a pause."""
        from .consent import set_paused

        with self._open() as session:
            return set_paused(session, False)

    # ------------------------------------------------------------------ changes

    def apply(
        self, payload: object, dry_run: bool = False, verbose: bool = False
    ) -> dict[str, Any]:
        """Record one delta or a batch. ``payload`` may be a callable returning the
        raw body: it is called only after the consent gate, so that without
        consent the input is never read. Rows come back compact, whole with ``verbose``.
        ``{"action": "delete", "past_id": …}`` removes one past value, ``{"past_id": …,
        "value": …, "correction": True}`` corrects it (references/time.md#it-was-wrong-back-then-too-correct-the-past-value-by-its-past_id). A ``subject_id`` loosely a
        known ``display_label`` ("Dana" for "Dana (my manager)") is ``SUBJECT_NOT_FOUND``
        with ``details.did_you_mean``; a new subject without a ``display_label`` in the
        batch gets an ``unlabelled_subject`` warning."""
        with self._open() as session:
            return _apply(session, payload, dry_run, verbose)

    def undo(self, op_id: str | None = None) -> dict[str, Any]:
        """Revert the latest operation, or the one named."""
        check_text(op_id, "op_id")
        from . import writes

        with self._open() as session:
            return writes.undo(session, op_id)

    def log(self) -> dict[str, Any]:
        """The undoable operations, newest first."""
        from . import writes

        with self._open(reading=True) as session:
            return writes.log(session)

    # ------------------------------------------------------------------ reading

    def show(self, subject_id: str | None = None, scope: str | None = None) -> dict[str, Any]:
        """Everything stored, optionally for one subject or scope, in any consent state."""
        check_scope(scope)
        check_text(subject_id, "subject_id")
        from . import recall

        with self._open(reading=True) as session:
            subject_id = _subject(session, subject_id)
            return {"subject_id": subject_id, **recall.show(session, subject_id, scope)}

    def context(
        self,
        subject_id: str | None = None,
        max_chars: int = policy.CONTEXT_MAX_CHARS_DEFAULT,
        query: str | None = None,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        """What matters for one subject, within a character budget; needs consent.

        ``query`` (the user's current message) ranks the memories by relevance to it;
        a time it names ("back in Chicago") puts the values true then first, and
        ``data["as_of"]`` says which time. ``as_of`` (``YYYY-MM-DD``): the values
        true that day first."""
        check_max_chars(max_chars)
        check_text(subject_id, "subject_id")
        query = None if query is None else check_query(query)
        check_date(as_of)
        from . import recall

        with self._open() as session:
            return recall.context(session, subject_id, max_chars, query, _label, as_of)

    def search(
        self,
        query: str,
        subject_id: str | None = None,
        scope: str | None = None,
        limit: int = policy.SEARCH_LIMIT_DEFAULT,
        max_chars: int = policy.SEARCH_MAX_CHARS_DEFAULT,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        """The memories a question matches, across subjects (or one subject or scope),
        best first; needs consent ("who did I say likes hiking?"). Those true at the
        time the question names, or on ``as_of`` (``YYYY-MM-DD``), first."""
        query = check_query(query)
        check_text(subject_id, "subject_id")
        check_scope(scope)
        check_limit(limit)
        check_max_chars(max_chars)
        check_date(as_of)
        from . import recall

        with self._open() as session:
            subject_id = _subject(session, subject_id, gated=True)
            found = recall.search(session, query, subject_id, scope, limit, max_chars, as_of)
            return {"query": found.pop("query"), "subject_id": subject_id, **found}

    def tidy(self, subject_id: str | None = None) -> dict[str, Any]:
        """What has doubled (by the head word of the field names), gone stale or ended, plans
        whose day has passed and subjects with no label, and an ``apply`` body that fixes what
        can be fixed mechanically, with each step in words (``steps``); needs consent, never
        writes (documentation/time.md#writing, documentation/commands.md#a-person-named-never-guessed)."""
        check_text(subject_id, "subject_id")
        from .writes import tidy

        with self._open() as session:
            subject_id = _subject(session, subject_id, gated=True)
            return tidy.tidy(session, subject_id)

    # ------------------------------------------------------------------ forgetting

    def forget(self, memory_id: str, confirm: bool = False) -> dict[str, Any]:
        """Delete one memory and every operation that mentions it, physically."""
        check_text(memory_id, "memory_id")
        require_confirm(confirm, "forget")
        from . import erasure

        return _with_receipt(self, lambda s: erasure.forget(s, "memory_id", memory_id))

    def forget_object(self, subject_id: str, confirm: bool = False) -> dict[str, Any]:
        """Delete every memory about one subject and the operations that mention it."""
        check_text(subject_id, "subject_id")
        require_confirm(confirm, "forget-object")
        from . import erasure
        from .subjects import resolve_existing

        return _with_receipt(
            self, lambda s: erasure.forget(s, "subject_id", resolve_existing(s, subject_id))
        )

    def forget_preview(
        self, memory_id: str | None = None, subject_id: str | None = None
    ) -> dict[str, Any]:
        """What ``forget`` (a ``memory_id``) or ``forget_object`` (a ``subject_id``) would
        delete: ``rows``, ``operations``, ``subject_id``, ``label``, ``value``; changes nothing."""
        which = "forget" if memory_id is not None else "forget-object"
        return self.deletion_preview(which, memory_id=memory_id, subject_id=subject_id)

    def deletion_preview(
        self,
        command: str,
        memory_id: str | None = None,
        subject_id: str | None = None,
        delete: bool = False,
    ) -> dict[str, Any]:
        """What ``command`` (forget, forget-object, clear, revoke, ``delete``: --delete; enable)
        would remove, counted now: ``rows``, ``operations`` (+ a forget's ``subject_id``,
        ``label``, ``value``), for the person's question on MCP and the page. Changes nothing."""
        if command == "forget":
            return _forget_counts(self._open, "memory_id", memory_id)
        if command == "forget-object":
            return _forget_counts(self._open, "subject_id", subject_id)
        from .consent import whole_store_counts

        return whole_store_counts(self.status(), command, delete)

    def clear(self, confirm: bool = False) -> dict[str, Any]:
        """Delete every memory and the undo history; consent stays as it is."""
        require_confirm(confirm, "clear")
        from . import erasure

        return _with_receipt(self, erasure.clear)

    def revoke(self, confirm: bool = False, delete: bool = False) -> dict[str, Any]:
        """Withdraw consent (data kept, paused); with ``delete``, erase the store and its files,
        leaving only a tombstone (``consent_state: revoked``, ``revoked_at``) so that
        ``status`` answers ``revoked``; ``enable(confirm=True)`` removes it (documentation/privacy.md#what-revoke---delete-leaves-a-tombstone)."""
        require_confirm(confirm, "revoke --delete" if delete else "revoke")
        from . import erasure

        if delete:
            self._drop_held()  # our own connection must not keep the files alive
            return erasure.revoke_delete(self.location)
        with self._open() as session:
            return erasure.revoke(session)

    # ------------------------------------------------------------------ copies

    def export(self, output: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """A copy of everything stored as one JSON document, or a new file (mode 600)."""
        from . import transfer

        transfer.check_output(output, self.data_dir)
        with self._open(reading=True) as session:
            return transfer.export(session, output)

    def import_(self, source: object, dry_run: bool = False) -> dict[str, Any]:
        """Bring back a document written by ``export``: every row checked like ``apply``'s,
        all or nothing, one undoable operation, refused rather than pruned over a cap.

        ``source`` is the document (a dict, JSON text or bytes) or a callable
        returning it, called only after the consent gate."""
        from . import transfer

        with self._open() as session:
            return transfer.import_(session, source, dry_run)

    def review(self, output: str | os.PathLike[str]) -> dict[str, Any]:
        """Write the review page (one self-contained HTML file, mode 600) of everything stored."""
        from . import transfer

        transfer.check_output(output, self.data_dir, "review")
        return transfer.review_file(output, *self.review_snapshot())

    def review_snapshot(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """What the review page shows (consent, caps, every row, the recent operations) and
        tidy's findings, in any consent state, for the page (``review/``). Changes nothing."""
        from .review.snapshot import review_snapshot

        with self._open(reading=True) as session:
            return review_snapshot(session)

    def doctor(self, fix: bool = False) -> dict[str, Any]:
        """Read-only checks of the files, schema and stored rows; ``fix`` repairs file modes."""
        from .doctor import run_doctor

        self._drop_held()
        return run_doctor(self.location, fix)


def _with_receipt(
    store: MemoryStore, erase: Callable[[Session], tuple[dict[str, Any], Any]]
) -> dict[str, Any]:
    """An erasure, then its receipt (``data.verified``): the erased texts searched for in
    the store's files once no connection of this process holds them (reading a file would
    drop SQLite's locks on it); a held connection is reopened by the next call."""
    from .erasure import verify

    with store._open() as session:
        result, search = erase(session)
    store._drop_held()
    return {**result, "verified": verify(store.location, search)}


def _subject(session: Session, given: str | None, gated: bool = False) -> str | None:
    """The subject code a caller's value means: a code, or exactly one subject's
    display_label (``subjects.resolve``). ``gated``: the consent gate comes first (the order (documentation/commands.md#consent-states-and-the-order-of-checks)), so without consent not even the labels are read."""
    if given is None:
        return None
    if gated:
        session.gate(session.settings())
    if given == policy.USER_SUBJECT or session.holds_subject(given):
        return given  # a code (the usual case): no label to look up, subjects.py not needed
    from .subjects import resolve

    return resolve(session, given)


def _label(session: Session, given: str) -> str:
    """``subjects.resolve`` for a value that names no stored row (``recall.context`` has
    read the rows after the consent gate, so a known code costs no lookup)."""
    from .subjects import resolve

    return resolve(session, given) or given


def _apply(session: Session, payload: object, dry_run: bool, verbose: bool) -> dict[str, Any]:
    """``writes.apply`` with the subjects by name around it: a ``subject_id`` that is a
    person's name is answered with that person (``_name_as_code``), and a new
    ``display_label`` another subject shares gets a warning (``subjects.similar_labels``)."""
    from .writes.apply import apply

    given: list[object] = []  # the body as read, for a name given as a code
    checked: list[list[dict[str, Any]]] = []  # the deltas as validated

    def reading() -> object:
        given.append(payload() if callable(payload) else payload)
        return given[-1]

    def checking(session: Session, deltas: list[dict[str, Any]]) -> dict[str, int]:
        checked.append(deltas)
        return _new_subjects(session, deltas)

    try:
        result = apply(session, reading, dry_run, verbose, checking)
    except MemoryStoreError as err:
        named = _name_as_code(session, err, given)
        if named is err:
            raise
        raise named from None
    if checked and any(d.get("field") == "display_label" for d in checked[-1]):
        from .subjects import similar_labels

        similar_labels(session, result["results"], checked[-1])
    return result


def _name_as_code(session: Session, err: MemoryStoreError, given: list[object]) -> MemoryStoreError:
    """``subjects.name_given_as_code`` for an ``INVALID_DELTA`` about a ``subject_id``
    (a name such as 小林 is no code), imported only then; any other error as it is."""
    path = str(err.details.get("path", ""))
    if err.code != "INVALID_DELTA" or not path.endswith(".subject_id") or not given:
        return err
    from .subjects import name_given_as_code

    return name_given_as_code(session, err, given[-1])


def _new_subjects(session: Session, deltas: list[dict[str, Any]]) -> dict[str, int]:
    """``subjects.check_new_subjects``, imported only for a batch that names a subject the
    store does not hold (most writes are about someone known: they pay for no module)."""
    codes = {d.get("subject_id") for d in deltas} - {None, policy.USER_SUBJECT}
    if all(session.holds_subject(c) for c in codes if c is not None):
        return {}
    from .subjects import check_new_subjects

    return check_new_subjects(session, deltas)


def limits() -> dict[str, Any]:
    """The caps of the current policy, as ``status`` reports them."""
    from .consent import limits as current

    return current()


__all__ = ["MemoryStore", "MemoryStoreError", "ROW_KEYS", "limits"]


def _forget_counts(open_store: Callable[[], Opened], column: str, given: Any) -> dict[str, Any]:
    """``deletion_preview`` of a forget: ``column`` is ``memory_id`` or ``subject_id``."""
    value = check_text(given, column)
    if value is None:
        raise MemoryStoreError(
            "INVALID_ARGUMENTS", "give memory_id or subject_id", {"argument": column}
        )
    from . import erasure
    from .subjects import resolve_existing

    with open_store() as session:
        if column == "subject_id":
            value = resolve_existing(session, value)
        return erasure.preview(session, column, value)
