"""What each page of the web view shows, read from the graph: a few bounded queries per page.

Every query here is a canned one (graph/queries.py `run_query`) or one of the view's own
(graph/cypher/view-*.cypher, parameters only), each with a LIMIT in its Cypher: a page costs the
same on a graph of 5,000 sessions as on one of 5, and no page runs a query per row.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from graphiti_session_tracking.dimensions import ACTIVITY_DIMENSIONS
from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.queries import run_query
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.redact import Gate

PAGE_SIZE = 50  # sessions on one page of a project's timeline
ROWS = 200  # records of one kind on a session or file page
MAX_PROJECTS = 500
SEARCH_LIMIT = 30


class NotFound(LookupError):
    """No such project, session or file in the graph; the message says which."""


def view_cypher(name: str) -> str:
    """One of the view's own queries (graph/cypher/view-<name>.cypher)."""
    package = resources.files("graphiti_session_tracking.graph")
    return package.joinpath("cypher", f"view-{name}.cypher").read_text(encoding="utf-8")


async def _read(backend: Backend, name: str, group: str | None, **params: Any) -> list[dict[str, Any]]:
    """Rows of a view query on one group, or on every group (one query per graph, at once)."""
    text = view_cypher(name)
    params = {"group_id": group, **params}
    if group is not None or not backend.graph_per_group:
        batches = [await backend.read(group, text, params)]
    else:
        groups = await backend.list_groups()
        batches = list(await asyncio.gather(*(backend.read(g, text, params) for g in groups)))
    rows = [_plain(dict(row)) for batch in batches for row in batch]
    return Gate().data(rows)  # type: ignore[no-any-return]


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """Neo4j temporal values as ISO text, as FalkorDB stores them."""
    for key, value in row.items():
        to_native = getattr(value, "to_native", None)
        if callable(to_native):
            row[key] = to_native().isoformat()
    return row


async def projects(backend: Backend) -> list[dict[str, Any]]:
    """Every project with sessions, latest first."""
    rows = await _read(backend, "projects", None, limit=MAX_PROJECTS)
    rows.sort(key=lambda r: (str(r.get("last_at") or ""), str(r["group_id"])), reverse=True)
    return rows[:MAX_PROJECTS]


@dataclass
class Timeline:
    project: dict[str, Any]
    sessions: list[dict[str, Any]]
    page: int
    pages: int


async def timeline(backend: Backend, group: GroupId, page: int) -> Timeline:
    """One page of a project's sessions, newest first."""
    found = await _read(backend, "projects", group, limit=1) if await _has(backend, group) else []
    if not found:
        raise NotFound(f"no project {group} in the graph")
    pages = max(1, -(-int(found[0]["sessions"]) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    rows = await _read(backend, "timeline", group, skip=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE)
    return Timeline(found[0], rows, page, pages)


async def _has(backend: Backend, group: GroupId) -> bool:
    """FalkorDB: a group is a graph, and asking a graph that does not exist would create it."""
    return not backend.graph_per_group or group in await backend.list_groups()


@dataclass
class SessionPage:
    session: dict[str, Any]
    activity: dict[str, float]
    decisions: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    settings: list[dict[str, Any]]
    files: list[str]
    commits: list[dict[str, Any]]
    latest_session: str | None = None  # the project's latest session, whose recap the page shows
    notes: list[str] = field(default_factory=list)


async def session_page(backend: Backend, group: GroupId, session: str) -> SessionPage:
    """A session and its records: six queries at once, each bounded."""
    found = await _read(backend, "session", group, session=session) if await _has(backend, group) else []
    if not found:
        raise NotFound(f"no session {session} in project {group}")
    if len(found) > 1:
        raise NotFound(f"{session} names more than one session of project {group}: give more of its id")
    node = found[0]
    sid = str(node["session_id"])
    decisions, errors, settings, touched, commits, latest = await asyncio.gather(
        run_query(backend, "decisions", group_id=group, session=sid, limit=ROWS),
        _read(backend, "errors", group, session=sid, limit=ROWS),
        run_query(backend, "config-changes", group_id=group, session=sid, limit=ROWS),
        run_query(backend, "session", group_id=group, session=sid, limit=ROWS * 5),
        run_query(backend, "commits", group_id=group, session=sid, limit=ROWS),
        _read(backend, "timeline", group, skip=0, limit=1),
    )
    for error in errors:
        error["seen_before"] = sorted(
            (pair for pair in error.get("seen_before") or [] if pair and pair[0] != sid),
            key=lambda pair: str(pair[0]),
        )
    files = sorted({str(r["name"]) for r in touched if r["relation"] == "MODIFIED_FILE"})
    activity = {dim: float(node.get(dim) or 0.0) for dim in ACTIVITY_DIMENSIONS}
    return SessionPage(
        session=node,
        activity=activity,
        decisions=decisions,
        errors=errors,
        settings=settings,
        files=files,
        commits=commits,
        latest_session=str(latest[0]["session_id"]) if latest else None,
    )


@dataclass
class FilePage:
    path: str
    decisions: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    settings: list[dict[str, Any]]


async def file_page(backend: Backend, group: GroupId, path: str) -> FilePage:
    """A file's decisions and errors (newest first) and its settings' history (oldest first)."""
    if not await _has(backend, group):
        raise NotFound(f"no project {group} in the graph")
    decisions, errors, settings = await asyncio.gather(
        run_query(backend, "decisions", group_id=group, file=path, limit=ROWS),
        run_query(backend, "errors", group_id=group, file=path, limit=ROWS),
        run_query(backend, "config-changes", group_id=group, file=path, limit=ROWS),
    )
    return FilePage(path, decisions, errors, settings)


async def search(
    backend: Backend, text: str, group: GroupId | None, embedder: Any = None, local: Any = None
) -> list[dict[str, Any]]:
    """Graphiti's search (graph/search.py), each hit with what the page links it to: the session
    that holds the record, or the file it is."""
    from graphiti_session_tracking.graph.search import search_sessions

    found_hits = await search_sessions(
        backend, text, group, SEARCH_LIMIT, kind=None, embedder=embedder, local=local
    )
    hits = [hit.to_dict() for hit in found_hits]
    by_group: dict[str, list[str]] = {}
    for hit in hits:
        by_group.setdefault(str(hit["group_id"]), []).append(str(hit["uuid"]))
    found = await asyncio.gather(*(_read(backend, "hits", g, uuids=u) for g, u in by_group.items()))
    links = {str(r["uuid"]): r for rows in found for r in rows}
    for hit in hits:
        link = links.get(str(hit["uuid"]), {})
        hit["session_id"] = link.get("session_id")
        hit["path"] = link.get("path")
        if hit["kind"] == "episode" and str(hit["text"]).startswith("Session "):
            hit["session_id"] = str(hit["text"]).split()[1].rstrip(":")  # "Session <id8>: …"
    return hits
