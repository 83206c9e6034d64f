"""``tidy``: what in the store has grown stale or doubled, and a proposal to fix it
(contract §20). Read-only: the proposal is an ``apply`` body that the assistant
shows the person and applies only on their yes, as one undoable operation."""

from __future__ import annotations

from .. import policy
from ..storage import rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    from typing import Any

    from ..storage import Session

KINDS = ("same_concept", "stale_hypothesis", "relative_date", "near_cap", "ended")
_RELATIVE = (*policy.RELATIVE_TIME_WORDS_ZH.split(), *policy.RELATIVE_TIME_WORDS_EN)


def tidy(session: Session, subject_id: str | None = None) -> dict[str, Any]:
    """Findings of every kind, one subject's or the whole store's, and the proposal."""
    session.gate(session.settings())
    findings, deltas = analyse([] if session.blank else session.read_rows(), subject_id)
    proposal = {"deltas": deltas[: policy.DELTAS_PER_APPLY_MAX]} if deltas else None
    return {"subject_id": subject_id, "findings": findings, "proposal": proposal}


def findings_of(
    stored: list[dict[str, Any]], subject_id: str | None = None
) -> list[dict[str, Any]]:
    """The findings alone, from rows as ``rows.select`` gives them, with no consent gate:
    the review page (the person's own access, contract §21) lists them in every state."""
    return analyse(stored, subject_id)[0]


def analyse(
    stored: list[dict[str, Any]], subject_id: str | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(findings, deltas) for ``stored``; read-only, so shared rows stay as they are."""
    found = stored if subject_id is None else [r for r in stored if r["subject_id"] == subject_id]
    found = sorted(found, key=rows.storage_order)
    findings: list[dict[str, Any]] = []
    deltas: list[dict[str, Any]] = []
    _same_concept(found, findings, deltas)
    _stale(found, findings, deltas)
    _relative(found, findings)
    _near_cap(stored, subject_id, findings)
    _ended(found, findings)
    return findings, deltas


def _finding(kind: str, subject: str, ids: list[str], message: str) -> dict[str, Any]:
    return {"kind": kind, "subject_id": subject, "ids": ids, "message": message}


def _same_concept(
    found: list[dict[str, Any]], findings: list[dict[str, Any]], deltas: list[dict[str, Any]]
) -> None:
    """Two current rows of one scope and subject in one concept group: the older (by
    ``since``, then by write) is proposed to end as of the newer's ``since``."""
    ended: set[str] = set()
    groups = rows.concept_groups([r for r in found if rows.is_current(r)])
    for (_, subject, concept), group in groups.items():
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
        for old in group[:-1]:
            if old["id"] not in ended:
                ended.add(old["id"])
                deltas.append({"action": "end", "id": old["id"], "occurred_at": newest["since"]})


def _stale(
    found: list[dict[str, Any]], findings: list[dict[str, Any]], deltas: list[dict[str, Any]]
) -> None:
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
            deltas.append({"action": "delete", "id": r["id"]})


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
