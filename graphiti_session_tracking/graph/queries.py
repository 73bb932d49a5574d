"""The canned Cypher queries (graph/cypher/*.cypher), run over one group or every group.

Each query is one parameterized Cypher text that runs unchanged on Neo4j and FalkorDB; only the
types of time parameters differ (Neo4j stores edge times as DateTime, FalkorDB as ISO strings),
and that conversion lives here, asked of `backend.dialect`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from graphiti_session_tracking.dimensions import ACTIVITY_DIMENSIONS, DOMINANT_THRESHOLD
from graphiti_session_tracking.redact import Gate

from .backends import Backend
from .dialect import Dialect
from .schema import iso_time

QUERY_NAMES = ("decisions", "errors", "config-changes", "files", "sessions", "tests", "commits", "session")

# The filters each query takes (besides group_id and limit); all default to null (no filter).
QUERY_FILTERS: dict[str, tuple[str, ...]] = {
    "decisions": ("file", "text", "since", "until", "session", "min_confidence"),
    "errors": ("text", "root_cause", "file", "since", "until", "session", "seen_before"),
    "config-changes": ("setting", "file", "since", "until", "session", "current"),
    "files": ("since", "until"),
    "sessions": ("activity", "agent", "text", "since", "until"),
    "tests": ("session", "since", "until"),
    "commits": ("sha", "file", "session", "since", "until"),
    "session": ("session", "commit"),
}

# How rows from several groups are ordered once merged, most significant key first.
_ORDER: dict[str, list[tuple[str, bool]]] = {
    "decisions": [("names_file", True), ("valid_at", True), ("decision", False)],
    "errors": [("names_file", True), ("valid_at", True), ("error", False)],
    "config-changes": [("valid_at", False), ("file", False), ("setting", False)],
    "files": [("sessions", True), ("path", False)],
    "sessions": [("activity_score", True), ("started_at", True)],
    "tests": [("valid_at", False), ("session_id", False)],
    "commits": [("committed_at", True), ("sha", False)],
    "session": [("session_id", False), ("relation", False), ("name", False)],
}

# Each group's sessions and how many of them were not written redacted by the given rules
# (`redaction`, the writer's stamp: Redactor.signature); a group of none such is `stamped`.
STAMPED_QUERY = (
    "MATCH (s:Entity:Session) WHERE $group_id IS NULL OR s.group_id = $group_id "
    "RETURN s.group_id AS group_id, "
    "sum(CASE WHEN s.redaction = $signature THEN 0 ELSE 1 END) AS unstamped"
)

_CYPHER = Path(__file__).with_name("cypher")

# Without --limit, a bound no real graph reaches (Cypher's LIMIT needs a number).
NO_LIMIT = 1_000_000


class QueryError(ValueError):
    """A query name, filter or filter value that cannot be used; the message says which."""


def cypher(name: str) -> str:
    """The text of a canned query, comments included (they say what it answers)."""
    if name not in QUERY_NAMES:
        raise QueryError(f"unknown query {name!r}; known: {', '.join(QUERY_NAMES)}")
    # Beside this module, as the package installs it (importlib.resources, for zipped packages,
    # cost every question 10 ms of imports: zipfile, tempfile, its readers).
    return (_CYPHER / f"{name}.cypher").read_text(encoding="utf-8")


def parse_time(value: str | date | datetime, end_of_day: bool = False) -> datetime:
    """An aware UTC datetime from an ISO date or timestamp; a value without a zone is UTC.

    A bare date is the start of that day, or with `end_of_day` its last microsecond, so that
    `--until 2026-01-21` includes the whole day.
    """
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed: date | datetime = (
                date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
            )
        except ValueError:
            raise QueryError(
                f"invalid date {value!r}: use an ISO date (2026-01-21) or timestamp (2026-01-21T09:30:00Z)"
            ) from None
    else:
        parsed = value
    if not isinstance(parsed, datetime):
        parsed = datetime.combine(parsed, time.max if end_of_day else time.min)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def time_param(moment: datetime, dialect: Dialect) -> Any:
    """Edge valid_at is a DateTime on Neo4j (compare with a datetime) and ISO text on FalkorDB."""
    return dialect.time(moment)


def query_params(dialect: Dialect, name: str, filters: Mapping[str, Any]) -> dict[str, Any]:
    """The Cypher parameters of a query from its filters (missing ones are null)."""
    allowed = QUERY_FILTERS[name]
    unknown = sorted(set(filters) - set(allowed))
    if unknown:
        raise QueryError(
            f"query {name!r} takes no filter {', '.join(unknown)}; it takes {', '.join(allowed)}"
        )
    values = {key: filters.get(key) for key in allowed}
    params: dict[str, Any] = {k: v for k, v in values.items() if k not in ("since", "until")}
    for key in ("since", "until"):
        raw = values.get(key)
        moment = None if raw is None else parse_time(raw, end_of_day=key == "until")
        params[key] = None if moment is None else time_param(moment, dialect)
        # Session start and end are fixed-format UTC text on both backends.
        params[f"{key}_text"] = iso_time(moment)
    raw_floor = values.get("min_confidence")
    if raw_floor is not None:
        try:
            floor = float(raw_floor)
        except (TypeError, ValueError):
            raise QueryError(f"min_confidence must be a number, not {raw_floor!r}") from None
        if not 0 <= floor <= 1:
            raise QueryError(f"min_confidence must be between 0 and 1, not {floor}")
        params["min_confidence"] = floor
    if name == "sessions":
        activity = values.get("activity")
        if activity is not None and activity not in ACTIVITY_DIMENSIONS:
            raise QueryError(f"unknown activity {activity!r}; known: {', '.join(ACTIVITY_DIMENSIONS)}")
        params["threshold"] = DOMINANT_THRESHOLD
    if name == "session" and not values.get("session") and not values.get("commit"):
        raise QueryError("query 'session' needs a session id (or its 8-character prefix) or a commit sha")
    for key in ("sha", "commit"):
        sha = values.get(key)
        if sha is not None and not re.fullmatch(r"[0-9a-fA-F]{4,40}", str(sha)):
            raise QueryError(f"{key} must be a commit sha or its first 4 or more hex digits, not {sha!r}")
    return params


_AS_IS = frozenset({str, int, float, bool, type(None)})  # what FalkorDB returns: nothing to convert


def _plain(value: Any) -> Any:
    """Neo4j temporal values become ISO strings, like FalkorDB's, so rows look the same everywhere.
    (A pipe reads every row: 10,000 rows of 16 fields; plain values are returned without a lookup.)"""
    if type(value) in _AS_IS:
        return value
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        native = to_native()
        return native.isoformat() if hasattr(native, "isoformat") else native
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _row(record: Mapping[str, Any]) -> dict[str, Any]:
    row = {key: _plain(value) for key, value in dict(record).items()}
    if isinstance(row.get("files"), list):
        row["files"] = sorted(row["files"])  # collect() has no order on either backend
    return row


async def run_query(
    backend: Backend,
    name: str,
    group_id: str | None = None,
    limit: int | None = None,
    **filters: Any,
) -> list[dict[str, Any]]:
    """Rows of a canned query; without a group id, over every group in the database.

    Rows from several groups (FalkorDB graphs) are merged in the query's own order, then cut to
    `limit`.
    """
    source = cypher(name)
    text = _without_unused_filters(source, filters)
    if limit is not None and limit < 1:
        raise QueryError("limit must be at least 1")
    params = {
        **query_params(backend.dialect, name, filters),
        "group_id": group_id,
        "limit": NO_LIMIT if limit is None else limit,
    }
    groups: list[str | None]
    if group_id is not None:
        groups = [group_id]
    elif backend.graph_per_group:
        groups = list(await backend.list_groups())
    else:
        groups = [None]  # one Neo4j database holds every group; the query's filter is off
    keys = _KEYS.search(text)
    if keys is not None and len(groups) > 1 and limit is not None:
        chosen = await _choose(backend, name, text[: keys.start()] + keys.group(1), params, groups, limit)
        text = _without_unused_filters(source, {**filters, "chosen": True})
        asked = [(group, {**params, "chosen": uuids, "limit": len(uuids)}) for group, uuids in chosen.items()]
    else:
        asked = [(group, params) for group in groups]
    rows: list[dict[str, Any]] = []
    # FalkorDB answers queries on different graphs in parallel: ask every group at once.
    for records in await asyncio.gather(*(backend.read(group, text, values) for group, values in asked)):
        rows.extend(_row(r) for r in records)
    rows = _ordered(name, rows)[:limit]
    # Every row leaves through the gate: a graph written by an older version (fewer rules) may
    # hold what today's rules redact, and any text may carry terminal escapes. A group whose every
    # session today's rules wrote needs no second redaction (a query's rows stay in their group),
    # and asking costs less than compiling the rules (30 ms), let alone applying them.
    gate = Gate()
    present = {row.get("group_id") for row in rows}
    asked_groups = [group for group in groups if group is None or group in present]
    stamped = await _stamped(backend, asked_groups, group_id, gate) if rows else set()
    return [gate.data(row, redacted=row.get("group_id") in stamped) for row in rows]


# A record query's `// keys: RETURN …` line, right after it has chosen its rows: what orders them.
_KEYS = re.compile(r"^// keys: (RETURN .*)$", re.MULTILINE)


async def _choose(
    backend: Backend, name: str, head: str, params: dict[str, Any], groups: list[str | None], limit: int
) -> dict[str | None, list[str]]:
    """Which rows of which groups are the first `limit` of all of them, from each group's first
    `limit` by their sort keys alone: the walk from a record to its session and files costs most
    of the query, and ten projects asked for 50 rows each would walk 500 to show 50."""
    found = await asyncio.gather(*(backend.read(group, head, params) for group in groups))
    candidates = [
        {**_row(r), "_group": group} for group, records in zip(groups, found, strict=True) for r in records
    ]
    chosen: dict[str | None, list[str]] = {}
    for row in _ordered(name, candidates)[:limit]:
        chosen.setdefault(row["_group"], []).append(row["uuid"])
    return chosen


def _ordered(name: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of several groups merged in the query's own order."""
    for key, descending in reversed(_ORDER.get(name, [])):  # stable sorts, least significant first
        rows.sort(key=lambda row: _sort_key(row.get(key), descending), reverse=descending)
    return rows


async def _stamped(backend: Backend, groups: list[str | None], group_id: str | None, gate: Gate) -> set[str]:
    """The groups whose every session carries the stamp of the gate's own rules."""
    stamp = {"group_id": group_id, "signature": gate.signature}
    found = await asyncio.gather(*(backend.read(group, STAMPED_QUERY, stamp) for group in groups))
    return {r["group_id"] for records in found for r in records if r["group_id"] and not r["unstamped"]}


_SECTION = re.compile(r"^// (with|without) \$(\w+):\n.*?^// end \1 \$\2\n", re.MULTILINE | re.DOTALL)


def _without_unused_filters(text: str, filters: Mapping[str, Any]) -> str:
    """The query with its `// with $x:` … `// end with $x` sections only when filter x is set,
    and its `// without $x:` … `// end without $x` sections only when it is not: the file
    filter's joins cost as much as the rest of the query, for nothing when unset."""

    def keep(match: re.Match[str]) -> str:
        wanted = (filters.get(match.group(2)) is not None) == (match.group(1) == "with")
        return match.group(0) if wanted else ""

    return _SECTION.sub(keep, text)


def _sort_key(value: Any, descending: bool) -> tuple[bool, Any]:
    """Nulls last in either direction."""
    return (value is not None, value) if descending else (value is None, value)
