"""`graphiti-sessions mcp`: the session graph's questions as MCP tools, over stdio (the official
MCP SDK). Each tool is a thin wrapper over the query functions the CLI uses, scoped to one group
when asked, with output bounded in size (and a note saying what was left out).

The backend stays open between calls, so a warm call answers in milliseconds. On FalkorDB Lite
it reads through the file's shared server (graph/embedded_server.py), so an `ingest`, `watch` or
hook writes the same file meanwhile; a server that went away is found again on the next call.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from graphiti_session_tracking.graph.backends import Backend, BackendError, open_backend
from graphiti_session_tracking.graph.queries import QueryError, run_query
from graphiti_session_tracking.graph.schema import DEFAULT_SEARCH_LIMIT
from graphiti_session_tracking.group_id import GroupId, InvalidGroupIdError
from graphiti_session_tracking.pipeline.compose import Pipeline
from graphiti_session_tracking.pipeline.ledger import classify_source
from graphiti_session_tracking.pipeline.sources import DEFAULT_TRANSCRIPTS_DIR, discover_sources
from graphiti_session_tracking.redact import Gate

MAX_CHARS = 20_000  # what one tool answer may hold; more rows are left out, and the answer says so
DEFAULT_ROWS = 20
CLEANUP_DAYS = 30  # Claude Code deletes transcripts older than its cleanupPeriodDays (default 30)
WARN_DAYS = 7  # ... and the status warns a week before
MAX_ROWS = 500

# The parameters the tools share, described for the model that calls them.
Group = Annotated[
    str | None,
    Field(description="One project's group id (session_tracking_status lists them); default: every project."),
]
Limit = Annotated[int, Field(ge=1, le=MAX_ROWS, description="At most this many rows.")]
Since = Annotated[str | None, Field(description="From this ISO date or timestamp (UTC if no zone).")]
Until = Annotated[str | None, Field(description="Up to this ISO date (inclusive) or timestamp.")]
SessionId = Annotated[str | None, Field(description="A session id or its 8-character prefix.")]
FilePath = Annotated[str | None, Field(description="A file path relative to the project root.")]
Text = Annotated[str | None, Field(description="Words to look for (case-insensitive).")]
READ_ONLY = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)


class _Graph:
    """The backend, opened on the first call and kept open (opened again if its server was lost)."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self._opened: AbstractAsyncContextManager[Backend] | None = None
        self._backend: Backend | None = None
        self._lock = asyncio.Lock()

    async def backend(self) -> Backend:
        async with self._lock:
            if self._backend is not None and self._backend.why_lost() is not None:
                await self._close()
            if self._backend is None:
                self._opened = open_backend(self.pipeline.graph, writable=False)
                self._backend = await self._opened.__aenter__()
            return self._backend

    async def _close(self) -> None:
        if self._opened is not None:
            opened, self._opened, self._backend = self._opened, None, None
            with contextlib.suppress(Exception):
                await opened.__aexit__(None, None, None)


def build_server(pipeline: Pipeline) -> FastMCP:
    """The MCP server of one graph (its configuration and backend options already applied)."""
    server = FastMCP(
        "graphiti-sessions",
        log_level="WARNING",  # stderr stays quiet: one INFO line per call helps no one
        instructions=(
            "Memory of past coding-agent sessions of the user's projects: decisions and why, errors "
            "and what fixed them, settings and who changed them, files and the sessions that touched "
            "them. Ask before repeating work or guessing a project's history. Times are ISO 8601 UTC; "
            "group_id scopes a call to one project (see session_tracking_status for the groups)."
        ),
    )
    graph = _Graph(pipeline)
    gate = Gate(pipeline.redactor)

    def tool(function: Callable[..., Awaitable[dict[str, Any]]]) -> Any:
        """A read-only tool whose every answer leaves through the gate (secrets, control
        characters), the error texts and what an older version wrote to the graph included; as
        compact JSON (indentation was a sixth of each answer), and an answer that is only an error
        is a tool error (`isError`), so the model does not read it as data."""

        @functools.wraps(function)
        async def gated(*args: Any, **kwargs: Any) -> str:
            answer = gate.data(await function(*args, **kwargs))
            if isinstance(answer, dict) and set(answer) == {"error"}:
                raise ToolError(str(answer["error"]))
            return json.dumps(answer, ensure_ascii=False, separators=(",", ":"), default=str)

        return server.tool(annotations=READ_ONLY, structured_output=False)(gated)

    async def rows(name: str, group_id: str | None, limit: int, **filters: Any) -> dict[str, Any]:
        try:
            group = GroupId(group_id) if group_id else None
            found = await run_query(
                await graph.backend(),
                name,
                group_id=group,
                limit=limit + 1,
                **{k: v for k, v in filters.items() if v is not None},
            )
        except (QueryError, InvalidGroupIdError, BackendError) as exc:
            return {"error": str(exc)}
        return bounded(found, limit)

    @tool
    async def search_sessions(
        query: Annotated[str, Field(description="Words or a question.")],
        group_id: Group = None,
        record_type: Annotated[
            str | None,
            Field(
                description="Only one kind: session, decision, error, config, file, tool, test, task, discovery, commit."
            ),
        ] = None,
        limit: Limit = DEFAULT_SEARCH_LIMIT,
    ) -> dict[str, Any]:
        """Search everything recorded about past sessions (decisions, errors, settings, files, tests,
        the session summaries) for words or a question; best matches first. record_type narrows it
        to one kind: session, decision, error, config, file, tool, test, task, discovery."""
        from graphiti_session_tracking.graph.search import SearchError
        from graphiti_session_tracking.graph.search import search_sessions as search

        try:
            group = GroupId(group_id) if group_id else None
            hits = await search(await graph.backend(), query, group, limit, record_type, pipeline.embedder)
        except (SearchError, InvalidGroupIdError, BackendError) as exc:
            return {"error": str(exc)}
        return bounded([hit.to_dict() for hit in hits], limit)

    @tool
    async def get_recap(
        session: SessionId = None,
        project: Annotated[
            str | None, Field(description="The project folder; default: the server's.")
        ] = None,
        budget: Annotated[
            int, Field(ge=100, le=8000, description="Tokens (about 4 characters each).")
        ] = 1000,
    ) -> dict[str, Any]:
        """What to know before working on a project again: where its latest session (or the given
        session id prefix) stopped, its open next steps and unresolved errors, the decisions and
        settings in force; Markdown within budget tokens (about 4 characters each). project: the
        project folder (default: the server's working folder)."""
        from graphiti_session_tracking.recap.build import RecapError, build_recap

        try:
            made = await build_recap(
                pipeline,
                session=session,
                project=Path(project) if project else None,
                budget=budget,
                backend=await graph.backend(),
            )
        except (RecapError, BackendError, QueryError) as exc:
            return {"error": str(exc)}
        return {"session_id": made.session_id, "group_id": made.group_id, "recap": made.markdown}

    @tool
    async def get_decisions(
        file: FilePath = None,
        text: Text = None,
        since: Since = None,
        until: Until = None,
        session: SessionId = None,
        group_id: Group = None,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """What was decided, why, and what was turned down; newest first. file: a path relative to the
        project (decisions naming it come first, then decisions of sessions that modified it); text:
        words in the decision or its rationale; since/until: ISO dates; session: a session id prefix."""
        return await rows(
            "decisions", group_id, limit, file=file, text=text, since=since, until=until, session=session
        )

    @tool
    async def get_error_resolutions(
        text: Text = None,
        file: FilePath = None,
        root_cause: Annotated[str | None, Field(description="Words of the root cause.")] = None,
        seen_before: Annotated[bool, Field(description="Only errors hit more than once.")] = False,
        since: Since = None,
        until: Until = None,
        group_id: Group = None,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """Errors hit and how they were fixed: the failing line, root cause (only when the session
        stated one), the fix, how it was verified, how often the same error was hit in the project
        and the latest fix. text: words of the error (an error code, an exception); seen_before: only
        errors hit more than once."""
        return await rows(
            "errors",
            group_id,
            limit,
            text=text,
            file=file,
            root_cause=root_cause,
            seen_before=True if seen_before else None,
            since=since,
            until=until,
        )

    @tool
    async def get_config_history(
        setting: Annotated[str | None, Field(description="Its full name or last dotted part.")] = None,
        file: FilePath = None,
        current: Annotated[bool, Field(description="Only the value in force of each setting.")] = False,
        group_id: Group = None,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """Settings changed in configuration files: old and new value, the session, when, and until
        when each value held; oldest first. setting: its full name or last dotted part; current: only
        the value in force of each setting."""
        return await rows(
            "config-changes", group_id, limit, setting=setting, file=file, current=True if current else None
        )

    @tool
    async def get_file_history(
        path: Annotated[str, Field(description="A file path relative to the project root.")],
        group_id: Group = None,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """A file's history: the decisions and errors that concern it (named first, then those of sessions
        that modified it) and the settings changed in it. path: relative to the project root."""
        decisions, errors, changes = await asyncio.gather(
            rows("decisions", group_id, limit, file=path),
            rows("errors", group_id, limit, file=path),
            rows("config-changes", group_id, limit, file=path),
        )
        return {"decisions": decisions, "errors": errors, "config_changes": changes}

    @tool
    async def get_session_summary(
        session: Annotated[str, Field(description="The session id or its 8-character prefix.")],
        group_id: Group = None,
        limit: Limit = 100,
    ) -> dict[str, Any]:
        """One session: everything it recorded (files, decisions, errors, settings, tests, tasks,
        commits), as relation, record type, name and fact. session: the session id or its
        8-character prefix."""
        return await rows("session", group_id, limit, session=session)

    @tool
    async def get_commits(
        sha: Annotated[
            str | None, Field(description="A commit sha or its first 4 or more characters.")
        ] = None,
        file: FilePath = None,
        session: SessionId = None,
        since: Since = None,
        until: Until = None,
        group_id: Group = None,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """Commits sessions made (sha, message, branch, files, pull request) and the session that
        made each; newest first. sha: a commit sha or its first 4+ characters, which also returns
        everything the session that made it recorded (its decisions and errors say why); file: a
        path relative to the project."""
        commits = await rows(
            "commits", group_id, limit, sha=sha, file=file, session=session, since=since, until=until
        )
        if sha is None or "error" in commits:
            return commits
        return {"commits": commits, "session": await rows("session", group_id, limit, commit=sha)}

    @tool
    async def session_tracking_status() -> dict[str, Any]:
        """What is ingested and from where: the graph, the projects (group ids) and their session
        counts, the ledger's last run, and transcripts that Claude Code will delete soon (its
        cleanupPeriodDays) that are not ingested yet."""
        return await status(pipeline, graph)

    return server


def bounded(found: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """At most `limit` rows and MAX_CHARS of JSON; what was left out is said."""
    shown = found[:limit]
    more = len(found) > limit
    while shown and len(json.dumps(shown, default=str)) > MAX_CHARS:
        shown = shown[: max(1, len(shown) * 3 // 4)] if len(shown) > 1 else []
        more = True
    answer: dict[str, Any] = {"rows": shown}
    if more:
        answer["note"] = (
            f"{len(shown)} rows shown; more exist: narrow the call (group_id, since, text) or raise limit"
        )
    return answer


async def status(pipeline: Pipeline, graph: _Graph) -> dict[str, Any]:
    """The status answer: the graph, its groups, the ledger, transcripts about to be deleted."""
    answer: dict[str, Any] = {"backend": pipeline.graph.backend, "location": pipeline.graph.location}
    try:
        backend = await graph.backend()
        counts = await run_query(backend, "sessions")
        groups: dict[str, int] = {}
        for row in counts:
            groups[row["group_id"]] = groups.get(row["group_id"], 0) + 1
        answer["groups"] = dict(sorted(groups.items()))
        answer["sessions"] = len(counts)
    except (BackendError, QueryError) as exc:
        answer["error"] = str(exc)
    with pipeline.ledger() as ledger:
        answer["ledger"] = ledger.summary()
        answer["expiring_not_ingested"] = expiring(ledger, pipeline.config.transcripts_folder)
    return answer


def expiring(
    ledger: Any, root: Path = DEFAULT_TRANSCRIPTS_DIR, now: float | None = None
) -> list[dict[str, Any]]:
    """Transcripts Claude Code deletes within WARN_DAYS that the ledger has not ingested as they are."""
    if not root.is_dir():
        return []
    days = _cleanup_days()
    now = time.time() if now is None else now
    soon: list[dict[str, Any]] = []
    for source in discover_sources([root]):
        try:
            mtime = source.stat().st_mtime
        except OSError:
            continue
        deleted_at = mtime + days * 86400
        if deleted_at - now > WARN_DAYS * 86400:
            continue
        if classify_source(source, ledger.get(source))[0] == "unchanged":
            continue
        when = datetime.fromtimestamp(deleted_at, tz=UTC)
        soon.append({"path": str(source), "deleted_after": when.isoformat(timespec="seconds")})
    return soon[:50]


def _cleanup_days() -> int:
    """Claude Code's cleanupPeriodDays from ~/.claude/settings.json, else its default (30)."""
    settings = Path(os.environ.get("CLAUDE_CONFIG_DIR", str(Path.home() / ".claude"))) / "settings.json"
    try:
        value = json.loads(settings.read_text(encoding="utf-8")).get("cleanupPeriodDays", CLEANUP_DAYS)
    except (OSError, ValueError, AttributeError):
        return CLEANUP_DAYS
    return int(value) if isinstance(value, int) and value > 0 else CLEANUP_DAYS


__all__ = ["build_server"]
