"""``tidy``: what in the store has grown stale or doubled, and a proposal to fix it
(documentation/time.md#tidy). Read-only: the proposal is an ``apply`` body that the assistant
shows the person and applies only on their yes, as one undoable operation."""

from __future__ import annotations

import re

from .. import policy
from ..storage import rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from ..storage import Session

    Steps = list[tuple[dict[str, Any], str]]  # (a delta of the proposal, what it does in words)

KINDS = (
    "same_concept",
    "stale_hypothesis",
    "relative_date",
    "near_cap",
    "ended",
    "past_plan",
    "unlabelled_subject",
    "similar_label",
)
_RELATIVE = (*policy.RELATIVE_TIME_WORDS_ZH.split(), *policy.RELATIVE_TIME_WORDS_EN)


def tidy(session: Session, subject_id: str | None = None) -> dict[str, Any]:
    """Findings of every kind, one subject's or the whole store's, and the proposal."""
    session.gate(session.settings())
    findings, deltas = analyse([] if session.blank else session.read_rows(), subject_id)
    deltas = deltas[: policy.DELTAS_PER_APPLY_MAX]
    proposal = {"deltas": [d for d, _ in deltas]} if deltas else None
    # The proposal stays a body apply takes as it is; what each step does, in words, is
    # beside it (documentation/commands.md#a-person-named-never-guessed), so that the person hears what a yes does.
    steps = [f"{i + 1}. {says}" for i, (_, says) in enumerate(deltas)]
    return {"subject_id": subject_id, "findings": findings, "proposal": proposal, "steps": steps}


def findings_of(
    stored: list[dict[str, Any]], subject_id: str | None = None
) -> list[dict[str, Any]]:
    """The findings alone, from rows as ``rows.select`` gives them, with no consent gate:
    the review page (the person's own access, documentation/permissions.md#what-the-code-enforces-for-everyone) lists them in every state."""
    return analyse(stored, subject_id)[0]


def analyse(
    stored: list[dict[str, Any]], subject_id: str | None = None
) -> tuple[list[dict[str, Any]], Steps]:
    """(findings, steps) for ``stored``; read-only, so shared rows stay as they are."""
    found = stored if subject_id is None else [r for r in stored if r["subject_id"] == subject_id]
    found = sorted(found, key=rows.storage_order)
    findings: list[dict[str, Any]] = []
    deltas: Steps = []
    _same_concept(found, findings, deltas)
    _stale(found, findings, deltas)
    _relative(found, findings)
    _near_cap(stored, subject_id, findings)
    _ended(found, findings)
    _past_plans(found, findings)
    _unlabelled(found, findings)
    _similar_labels(stored, subject_id, findings)
    return findings, deltas


def _finding(kind: str, subject: str, ids: list[str], message: str) -> dict[str, Any]:
    return {"kind": kind, "subject_id": subject, "ids": ids, "message": message}


def _same_concept(
    found: list[dict[str, Any]], findings: list[dict[str, Any]], deltas: Steps
) -> None:
    """Two current rows of one scope and subject in one concept group of one kind: the
    older (by ``since``, then by write) is proposed to end as of the newer's ``since``.
    A goal, plan, wish or preference is never in a fact's group (``rows.kinded_concepts``),
    so it never ends one; two past values of a kind (``past_job``, ``former_employer``)
    are listed without a proposal: neither is current in the world."""
    ended: set[str] = set()
    groups = rows.concept_groups([r for r in found if rows.is_current(r)])
    for (_, subject, kinded), group in groups.items():
        concept = rows.concept_words(kinded)
        group.sort(key=lambda r: (r["since"] or "", r["updated_at"], r["write_seq"]))
        newest = group[-1]
        names = ", ".join(f"{r['field']} ({r['since']})" for r in group)
        findings.append(
            _finding(
                "same_concept",
                subject,
                [r["id"] for r in group],
                f"{rows.label(newest)}: {len(group)} current rows hold the same {concept}: {names}; "
                f"the newest is {newest['field']}",
            )
        )
        for old in group[:-1] if kinded[0] != "past" else ():
            if old["id"] not in ended:
                ended.add(old["id"])
                says = (
                    f"end {rows.label(old)} (“{_short(old['value'])}”) as of {newest['since']}: "
                    f"it is kept as a past value, no longer current; {newest['field']} "
                    f"(“{_short(newest['value'])}”) stays the current {concept}"
                )
                delta = {"action": "end", "id": old["id"], "occurred_at": newest["since"]}
                deltas.append((delta, says))


def _stale(found: list[dict[str, Any]], findings: list[dict[str, Any]], deltas: Steps) -> None:
    """Hypotheses not rewritten for ``STALE_HYPOTHESIS_DAYS`` days: a guess that nothing
    has confirmed since is proposed for deletion."""
    days = policy.STALE_HYPOTHESIS_DAYS
    cutoff = rows.now(ago=days * 86400)
    for r in found:
        if r["scope"] == "hypothesis" and r["updated_at"] < cutoff:
            findings.append(
                _finding(
                    "stale_hypothesis",
                    r["subject_id"],
                    [r["id"]],
                    f"{rows.label(r)}: a guess not revisited for over {days} days "
                    f"(last written {r['updated_at'][:10]})",
                )
            )
            says = (
                f"delete the guess {rows.label(r)} (“{_short(r['value'])}”): "
                "nothing has confirmed it since; undo brings it back"
            )
            deltas.append(({"action": "delete", "id": r["id"]}, says))


def _relative(found: list[dict[str, Any]], findings: list[dict[str, Any]]) -> None:
    """A value holding a relative time word ("上周", "yesterday"): its absolute date
    follows from the row's ``since`` (or an event's date), and the word will mislead
    once time has passed. Only the person can say what to write, so no delta."""
    for r in found:
        if not rows.is_current(r):
            continue
        lowered = r["value"].lower()
        words = [w for w in _RELATIVE if w in lowered]
        if words:
            day = (r["occurred_at"] or r["since"] or "")[:10]
            findings.append(
                _finding(
                    "relative_date",
                    r["subject_id"],
                    [r["id"]],
                    f"{rows.label(r)}: says “{words[0]}”, relative to {day}; write the date instead",
                )
            )


def _near_cap(
    everything: list[dict[str, Any]], subject_id: str | None, findings: list[dict[str, Any]]
) -> None:
    """Each kind at ``NEAR_CAP_SHARE`` of its cap or more: what pruning removes next
    (events and hypotheses), or that a new field will be refused (profile kinds)."""
    counts: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
    for r in everything:
        counts.setdefault(policy.cap_group(r), []).append(r)
    for (scope, subject), group in sorted(
        counts.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")
    ):
        owner = subject or policy.USER_SUBJECT  # the user profile's cap is store-wide
        if subject_id is not None and owner != subject_id:
            continue
        cap = policy.cap_of(scope)
        if len(group) < policy.NEAR_CAP_SHARE * cap:
            continue
        where = scope if subject is None else f"{subject} {scope}"
        if policy.CAPS[scope]["policy"] == "prune":
            prunable = sorted(
                (r for r in group if not r["pinned"]),
                key=lambda r: (r["updated_at"], r["write_seq"]),
            )
            nxt = prunable[:1]
            tail = (
                f"; the next one pruned is {nxt[0]['field']} (last written {nxt[0]['updated_at'][:10]})"
                if nxt
                else ""
            )
            ids = [r["id"] for r in nxt]
        else:
            tail = "; a new field will be refused until one is deleted or merged"
            ids = []
        findings.append(
            _finding(
                "near_cap",
                owner,
                ids,
                f"{where}: {len(group)} of {cap} rows{tail}",
            )
        )


def _ended(found: list[dict[str, Any]], findings: list[dict[str, Any]]) -> None:
    """Ended rows still count against their cap; the person may delete them (their past
    goes with them) or keep them as history."""
    for r in found:
        if not rows.is_current(r):
            last = rows.past_of(r)[-1] if r["past"] else None
            until = last["until"] if last else r["since"]
            findings.append(
                _finding(
                    "ended",
                    r["subject_id"],
                    [r["id"]],
                    f"{rows.label(r)}: ended {until}; it still counts against its cap "
                    "(delete it to make room, or keep it as history)",
                )
            )


def _short(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _past_plans(found: list[dict[str, Any]], findings: list[dict[str, Any]]) -> None:
    """A current ``planned_*`` row whose date — its ``occurred_at`` or a date in its value
    (2026-08-02, 2026年8月2日) — has passed (documentation/time.md#tidy). Only the person knows how it
    went, so no delta: ask, write what happened as an event, then end or delete the plan."""
    today = rows.now()[:10]
    for r in found:
        if not (r["field"].startswith("planned_") and rows.is_current(r)):
            continue
        day = (r["occurred_at"] or "")[:10] or _date_in(r["value"])
        if day and day < today:
            findings.append(
                _finding(
                    "past_plan",
                    r["subject_id"],
                    [r["id"]],
                    f"{rows.label(r)}: planned for {day}, which has passed; ask how it went, "
                    "write what happened as an event, then end or delete the plan",
                )
            )


def _date_in(value: str) -> str | None:
    m = re.search(
        r"(?<![0-9])(20[0-9]{2})[-./年](1[0-2]|0?[1-9])[-./月](3[01]|[12][0-9]|0?[1-9])", value
    )
    return f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}" if m else None


def _unlabelled(found: list[dict[str, Any]], findings: list[dict[str, Any]]) -> None:
    """Subjects with rows but no ``display_label`` (documentation/commands.md#a-person-named-never-guessed): often a name the model
    took for a code, a second record of someone already known."""
    labelled = {
        r["subject_id"] for r in found if r["field"] == "display_label" and r["scope"] == "object"
    }
    unlabelled: dict[str, int] = {}
    for r in found:
        if r["subject_id"] != policy.USER_SUBJECT and r["subject_id"] not in labelled:
            unlabelled[r["subject_id"]] = unlabelled.get(r["subject_id"], 0) + 1
    for subject, count in sorted(unlabelled.items()):
        findings.append(
            _finding(
                "unlabelled_subject",
                subject,
                [],  # the subject is the finding: its rows are in show
                f"{subject}: {count} row{'s' if count > 1 else ''} but no display_label; "
                "ask who this is, then write a display_label — or, if it is someone already "
                "known, move the rows to that subject and delete these",
            )
        )


def _similar_labels(
    stored: list[dict[str, Any]], subject_id: str | None, findings: list[dict[str, Any]]
) -> None:
    """Two subjects whose labels share a leading name ("阿杰", "阿杰（读书会认识的男生）"):
    two people, or one written twice? Only the person knows, so no delta. With a subject
    asked for, the pairs it is in."""
    for group in rows.same_name_groups(stored):
        subjects = sorted({r["subject_id"] for r in group})
        if subject_id is not None and subject_id not in subjects:
            continue
        names = ", ".join(f"{r['subject_id']} (“{r['value']}”)" for r in group)
        findings.append(
            _finding(
                "similar_label",
                subject_id or subjects[0],
                [r["id"] for r in group],
                f"{len(subjects)} subjects share a name: {names}; if they are one person, "
                "keep one and forget the other, else give each a label that tells them apart",
            )
        )
