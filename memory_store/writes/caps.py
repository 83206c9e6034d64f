"""Caps (documentation/commands.md#caps), checked on the net result of a whole batch: refuse or prune."""

from __future__ import annotations

from .. import policy
from ..errors import error
from ..storage import rows

TYPE_CHECKING = False  # typing costs a few ms to import; the read paths cannot afford it
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    Group = tuple[str, str | None]


def count(conn: sqlite3.Connection, group: Group) -> int:
    scope, subject = group
    params: tuple[str, ...]
    if subject is None:
        sql, params = "SELECT COUNT(*) FROM memories WHERE scope = ?", (scope,)
    else:
        sql = "SELECT COUNT(*) FROM memories WHERE scope = ? AND subject_id = ?"
        params = (scope, subject)
    return conn.execute(sql, params).fetchone()[0]


def total(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]


class Enforcer:
    """One batch's cap check, inside its transaction.

    ``results`` are the batch's per-delta results (``index``, ``action``,
    ``memory``); ``protected`` the ids it named, which are never pruned;
    ``touched`` its snapshot entries, to which pruned rows are added so that
    undo brings them back. With ``prune`` false (``import``) every cap
    refuses: a restore is never trimmed silently.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        results: list[dict[str, Any]],
        protected: set[str],
        touched: dict[str, dict[str, Any]],
        prune: bool = True,
    ):
        self.conn = conn
        self.prune = prune
        self.results = results
        self.protected = protected
        self.touched = touched
        self.pruned: list[dict[str, Any]] = []
        self.replaced: dict[Group, int] = {}  # rows pruned per group so far

    def run(self) -> list[dict[str, Any]]:
        # In the order the batch first creates in each group, so the error names that delta.
        groups = dict.fromkeys(
            policy.cap_group(r["memory"]) for r in self.results if r["action"] == "created"
        )
        for group in groups:
            self._check_group(group)
        if groups:
            self._check_store()
        return self.pruned

    def _net(self, group: Group | None) -> int:
        return sum(
            (r["action"] == "created") - (r["action"] == "deleted")
            for r in self.results
            if group is None or policy.cap_group(r["memory"]) == group
        )

    def _check_group(self, group: Group) -> None:
        scope, subject = group
        cap, n = policy.cap_of(scope), count(self.conn, group)
        if n <= cap:
            return
        if not self.prune:
            raise self._refused_import(scope, subject, cap, n)
        if policy.CAPS[scope]["policy"] == "refuse":
            before = n - self._net(group)
            raise error(
                "MEMORY_LIMIT_REACHED",
                f"{scope} rows{'' if subject is None else ' for ' + subject} are at the cap of {cap}; "
                "delete or merge an old field first (the user curates these)",
                index=self._first_over(group, before, cap),
                scope=scope,
                subject_id=subject,
                limit=cap,
                count=before,
            )
        candidates = self._candidates(" WHERE scope = ? AND subject_id = ?", (scope, subject))
        need = n - cap
        if len(candidates) < need:
            raise self._unprunable(group, cap)
        self._prune(candidates[:need])
        self.replaced[group] = need

    def _check_store(self) -> None:
        n = total(self.conn)
        if n <= policy.TOTAL_ROWS_MAX:
            return
        if not self.prune:
            raise self._refused_import(None, None, policy.TOTAL_ROWS_MAX, n)
        need = n - policy.TOTAL_ROWS_MAX
        marks = ", ".join("?" for _ in policy.GLOBAL_PRUNE_SCOPES)
        candidates = self._candidates(f" WHERE scope IN ({marks})", policy.GLOBAL_PRUNE_SCOPES)
        if len(candidates) < need:
            start = n - self._net(None) + len(self.pruned)
            raise error(
                "MEMORY_LIMIT_REACHED",
                f"the store holds its maximum of {policy.TOTAL_ROWS_MAX} rows and nothing more can be "
                "pruned; ask the user to archive or forget old subjects",
                index=self._first_over(None, start, policy.TOTAL_ROWS_MAX),
                scope=None,
                limit=policy.TOTAL_ROWS_MAX,
                count=n - len(candidates),
            )
        self._prune(candidates[:need])

    def _refused_import(
        self, scope: str | None, subject: str | None, cap: int, n: int
    ) -> Exception:
        group = None if scope is None else (scope, subject)
        where = "rows in all" if scope is None else f"{scope} rows"
        if subject is not None:
            where += f" for {subject}"
        return error(
            "MEMORY_LIMIT_REACHED",
            f"the import would make {n} {where}, over the cap of {cap}; nothing was imported "
            "(forget or clear rows first, or import a smaller document)",
            index=self._first_over(group, n - self._net(group), cap),
            scope=scope,
            subject_id=subject,
            limit=cap,
            count=n,
        )

    def _candidates(self, where: str, params: Any) -> list[dict[str, Any]]:
        """Prunable rows, least recently written first (``updated_at``, then write order);
        a pinned milestone never is (documentation/time.md#writing)."""
        found = rows.select(self.conn, where + " ORDER BY updated_at, write_seq", params)
        return [c for c in found if c["id"] not in self.protected and not c["pinned"]]

    def _prune(self, victims: list[dict[str, Any]]) -> None:
        for row in victims:
            rows.delete(self.conn, row["id"])
            self.touched[row["id"]] = {"id": row["id"], "before": row, "after": None}
            self.pruned.append(row)

    def _first_over(self, group: Group | None, start: int, cap: int) -> int:
        """The first delta that adds a row to the kind while it is over its cap.

        For the store-wide cap (``group`` None), a row created in a group that
        pruned one of its own old rows only replaces it and adds nothing.
        """
        credits = dict(self.replaced) if group is None else {}
        running = start
        first_create = None
        for r in self.results:
            g = policy.cap_group(r["memory"])
            if group is not None and g != group:
                continue
            if r["action"] == "created":
                if credits.get(g):
                    credits[g] -= 1
                    continue
                running += 1
                first_create = r["index"] if first_create is None else first_create
                if running > cap:
                    return r["index"]
            elif r["action"] == "deleted":
                running -= 1
        return first_create if first_create is not None else self.results[-1]["index"]

    def _unprunable(self, group: Group, cap: int) -> Exception:
        """A pruning kind that cannot make room: what stays is the batch's own rows and
        the pinned milestones it does not name (never pruned, documentation/time.md#writing). The error
        names the first delta that does not fit beside them (documentation/mcp.md#hosts-without-elicitation)."""
        scope, subject = group
        pinned = self.conn.execute(
            "SELECT id FROM memories WHERE scope = ? AND subject_id = ? AND pinned = 1",
            (scope, subject),
        ).fetchall()
        fixed = sum(1 for (mid,) in pinned if mid not in self.protected)
        named, index = fixed, self.results[-1]["index"]
        for r in self.results:
            if policy.cap_group(r["memory"]) == group and r["action"] != "deleted":
                named += 1
                if named > cap:
                    index = r["index"]
                    break
        details = {"index": index, "scope": scope, "subject_id": subject, "limit": cap}
        if not fixed:
            message = f"this batch alone writes more than {cap} {scope} rows for {subject}"
            return error("MEMORY_LIMIT_REACHED", message, **details)
        message = (
            f"{fixed} pinned {scope} rows for {subject} are never pruned, so only "
            f"{cap - fixed} of the cap of {cap} can be this batch's; write fewer, or unpin "
            "or forget an old milestone first"
        )
        return error("MEMORY_LIMIT_REACHED", message, **details, pinned_count=fixed)


PINS = policy.PINNED_PER_SUBJECT_MAX


def check_after_undo(conn: sqlite3.Connection, entries: list[dict[str, Any]], op_id: str) -> None:
    """Restoring a deleted row must not push a kind past its cap."""
    for e in entries:
        row = e["before"]
        if row is None:
            continue
        cap = policy.cap_of(row["scope"])
        if count(conn, policy.cap_group(row)) > cap or total(conn) > policy.TOTAL_ROWS_MAX:
            raise error(
                "MEMORY_LIMIT_REACHED",
                "undoing this would push the store past a cap: delete a newer row first",
                op_id=op_id,
                scope=row["scope"],
                subject_id=row["subject_id"],
                limit=cap,
            )
        pins = "SELECT COUNT(*) FROM memories WHERE scope = 'event' AND subject_id = ? AND pinned"
        if row["pinned"] and conn.execute(pins, (row["subject_id"],)).fetchone()[0] > PINS:
            raise error(
                "MEMORY_LIMIT_REACHED",
                f"undoing this would pin more than {PINS} milestones: unpin a newer one first",
                op_id=op_id,
                scope="event",
                subject_id=row["subject_id"],
                limit=PINS,
            )
    # Nor past the store's past values (documentation/time.md#writing): undo restores exactly, or not at all.
    past = sum(len(rows.past_of(r)) for r in rows.select(conn, " WHERE past IS NOT NULL"))
    if past > policy.PAST_STORE_MAX:
        raise error(
            "MEMORY_LIMIT_REACHED",
            f"undoing this would keep {past} past values, over the cap of "
            f"{policy.PAST_STORE_MAX}: delete or correct a newer change first",
            op_id=op_id,
            limit=policy.PAST_STORE_MAX,
        )
