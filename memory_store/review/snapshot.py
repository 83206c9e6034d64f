"""The review page's data: what the file (``review --output``) and the served page
(``review --serve``) show, read from one session. The rest of ``review/`` turns it into
markup and never touches the store.

Each row as ``show`` gives it plus the offset its time was written in, tidy's findings
(not gated: the page is the person's own access, ``documentation/review.md``), and the
store's directory when the commands on the page must name it
(``documentation/page.md``)."""

from __future__ import annotations

from .. import policy
from ..storage import rows

TYPE_CHECKING = False  # typing costs a few ms to import
if TYPE_CHECKING:
    from typing import Any

    from ..storage import Session


def review_snapshot(session: Session) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The snapshot the page is drawn from, and tidy's findings over the same rows."""
    from .. import __version__, writes
    from ..consent import consent_state, limits
    from ..writes import tidy

    s = session.settings()
    found = [] if session.blank else rows.select(session.conn)
    found.sort(key=rows.storage_order)
    memories = [{**rows.public(r), "occurred_offset": r["occurred_offset"]} for r in found]
    by_scope = {scope: 0 for scope in policy.SCOPES}
    for m in memories:
        by_scope[m["scope"]] += 1
    location = session.location
    snapshot = {
        "generated_at": rows.now(),
        "version": __version__,
        "consent": {
            "state": consent_state(s),
            "enabled": s["consent_enabled"],
            "paused": s["paused"],
            "consent_at": s["consent_at"],
            "revoked_at": s["revoked_at"],
        },
        "limits": limits(),
        "counts": {"total": len(memories), "by_scope": by_scope},
        "memories": memories,
        "operations": writes.log(session)["operations"],
        # None for the platform default store, which the person's terminal finds itself.
        "data_dir": location.data_dir if location.named else None,
    }
    return snapshot, tidy.findings_of(found)
