"""`graphiti-sessions mcp`: the session graph's questions as MCP tools, over stdio (the official
MCP SDK). Each tool is a thin wrapper over the query functions the CLI uses, with output bounded in
size (and a note saying what was left out).

Answers are scoped to the project the server was started in (Claude Code starts it in the project
folder, and may name it in CLAUDE_PROJECT_DIR), so the model never has to guess a group id: a call
without one answers for that project's group when the graph has it, else for every group, and
says which in `scope`. `all_projects` widens a call to every group; a group id names one.

The backend stays open between calls, so a warm call answers in milliseconds. On FalkorDB Lite
it reads through the file's shared server (graph/embedded_server.py), so an `ingest`, `watch` or
hook writes the same file meanwhile; a server that went away is found again on the next call.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import os
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
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
from graphiti_session_tracking.recap.files import project_group
from graphiti_session_tracking.redact import Gate

MAX_CHARS = 20_000  # what one tool answer may hold; more rows are left out, and the answer says so
DEFAULT_ROWS = 20
CLEANUP_DAYS = 30  # Claude Code deletes transcripts older than its cleanupPeriodDays (default 30)
WARN_DAYS = 7  # ... and the status warns a week before
MAX_ROWS = 500

# The parameters the tools share, described for the model that calls them.
Group = Annotated[
    str | None,
    Field(
        description="One project's group id (session_tracking_status lists them); default: the project "
        "the server was started in, or every project when that one has no sessions."
    ),
]
AllProjects = Annotated[bool, Field(description="Every project, not only the one the server was started in.")]
Limit = Annotated[int, Field(ge=1, le=MAX_ROWS, description="At most this many rows.")]
Since = Annotated[str | None, Field(description="From this ISO date or timestamp (UTC if no zone).")]
Until = Annotated[str | None, Field(description="Up to this ISO date (inclusive) or timestamp.")]
SessionId = Annotated[str | None, Field(description="A session id or its 8-character prefix.")]
FilePath = Annotated[str | None, Field(description="A file path relative to the project root.")]
Text = Annotated[str | None, Field(description="Words to look for (case-insensitive).")]
READ_ONLY = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
# Said by every tool that takes a group id, so the model knows it need not pass one.
SCOPED = (
    "Without group_id it answers for the project the server was started in (every project when "
    "that one has no sessions yet); the answer's `scope` says which (`{group_id, project}` or "
    '"all"); all_projects=true answers for every project.'
)


@dataclass(frozen=True)
class Scope:
    """Which groups a call answers for: one (`group_id`, with `project` when it is the server's
    own), or every group (`group_id` None)."""

    group_id: GroupId | None
    project: Path | None = None

    def describe(self) -> dict[str, str] | str:
        if self.group_id is None:
            return "all"
        if self.project is None:
            return {"group_id": self.group_id}
        return {"group_id": self.group_id, "project": str(self.project)}


class ScopeError(ValueError):
    """A call that names both a group and every project."""


def server_project(fixed: GroupId | None) -> tuple[Path, GroupId] | None:
    """The project folder the server serves and its group (as the recap derives it): Claude
    Code's CLAUDE_PROJECT_DIR when it names a folder, else the folder the server was started in."""
    named = os.environ.get("CLAUDE_PROJECT_DIR", "")
    try:
        folder = Path(named) if named and os.path.isabs(named) and os.path.isdir(named) else Path.cwd()
        return folder, project_group(fixed, folder)
    except (OSError, InvalidGroupIdError):  # a working folder deleted under us: no project
        return None


class _Graph:
    """The backend, opened on the first call and kept open (opened again if its server was lost),
    and the server's project, whose group is the default scope once the graph has it."""

    def __init__(self, pipeline: Pipeline, project: tuple[Path, GroupId] | None = None) -> None:
        self.pipeline = pipeline
        self.project = project
        self._opened: AbstractAsyncContextManager[Backend] | None = None
        self._backend: Backend | None = None
        self._lock = asyncio.Lock()
        self._project_known = False  # a group, once in the graph, stays: asked until it is there

    async def scope(self, group_id: str | None, all_projects: bool = False) -> Scope:
        """The groups a call answers for: the named one, every one, or the server's project's
        when the graph has it (else every one: an empty answer would look like no history)."""
        if group_id:
            if all_projects:
                raise ScopeError("give group_id or all_projects, not both")
            return Scope(GroupId(group_id))
        if all_projects or self.project is None:
            return Scope(None)
        folder, group = self.project
        if not self._project_known:
            self._project_known = group in await (await self.backend()).list_groups()
        return Scope(group, folder) if self._project_known else Scope(None)

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
            "them. Ask before repeating work or guessing a project's history. Times are ISO 8601 UTC. "
            "Calls answer for the project this server was started in (the answer's `scope` says so); "
            "all_projects=true asks every project, group_id one (session_tracking_status lists them)."
        ),
    )
    graph = _Graph(pipeline, server_project(pipeline.group_id))
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

        description = inspect.cleandoc(function.__doc__ or "")
        if "group_id" in inspect.signature(function).parameters:
            description = f"{description} {SCOPED}"
        return server.tool(annotations=READ_ONLY, structured_output=False, description=description)(gated)

    async def scoped(
        group_id: str | None, all_projects: bool, answer: Callable[[Scope], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """The answer for the call's scope, which it names (unless it is only an error)."""
        try:
            scope = await graph.scope(group_id, all_projects)
        except (ScopeError, InvalidGroupIdError, BackendError) as exc:
            return {"error": str(exc)}
        found = await answer(scope)
        return found if "error" in found else {"scope": scope.describe(), **found}

    async def rows(name: str, scope: Scope, limit: int, **filters: Any) -> dict[str, Any]:
        try:
            found = await run_query(
                await graph.backend(),
                name,
                group_id=scope.group_id,
                limit=limit + 1,
                **{k: v for k, v in filters.items() if v is not None},
            )
        except (QueryError, InvalidGroupIdError, BackendError) as exc:
            return {"error": str(exc)}
        return bounded(found, limit, scope)

    @tool
    async def search_sessions(
        query: Annotated[str, Field(description="Words or a question.")],
        group_id: Group = None,
        all_projects: AllProjects = False,
        record_type: Annotated[
            str | None,
            Field(
                description="Only one kind: session, decision, error, config, file, tool, test, task, discovery, commit."
            ),
        ] = None,
        limit: Limit = DEFAULT_SEARCH_LIMIT,
    ) -> dict[str, Any]:
        """Search everything recorded about past sessions (decisions, errors, settings, files, tests,
        the session summaries) for words or a question; best score first. record_type narrows it
        to one kind: session, decision, error, config, file, tool, test, task, discovery. A hit's
        score is its relevance, higher is better: without embeddings the database's full-text
        score (above 0, unbounded, comparable within one answer), with embeddings (the local
        embedder, on by default, or a configured one) the reciprocal rank fusion of full text and
        similarity (up to 2); `scored_by` says which."""
        from graphiti_session_tracking.graph.search import SearchError
        from graphiti_session_tracking.graph.search import scored_search as search

        async def answer(scope: Scope) -> dict[str, Any]:
            try:
                hits, scored_by = await search(
                    await graph.backend(),
                    query,
                    scope.group_id,
                    limit,
                    record_type,
                    pipeline.embedder,
                    pipeline.local_embedder,
                )
            except (SearchError, BackendError) as exc:
                return {"error": str(exc)}
            return {"scored_by": scored_by, **bounded([hit.to_dict() for hit in hits], limit, scope)}

        return await scoped(group_id, all_projects, answer)

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
                project=Path(project) if project else (graph.project[0] if graph.project else None),
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
        all_projects: AllProjects = False,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """What was decided, why, and what was turned down; newest first. file: a path relative to the
        project (decisions naming it come first, then decisions of sessions that modified it); text:
        words in the decision or its rationale; since/until: ISO dates; session: a session id prefix."""
        filters = {"file": file, "text": text, "since": since, "until": until, "session": session}
        return await scoped(group_id, all_projects, lambda scope: rows("decisions", scope, limit, **filters))

    @tool
    async def get_error_resolutions(
        text: Text = None,
        file: FilePath = None,
        root_cause: Annotated[str | None, Field(description="Words of the root cause.")] = None,
        seen_before: Annotated[bool, Field(description="Only errors hit more than once.")] = False,
        since: Since = None,
        until: Until = None,
        group_id: Group = None,
        all_projects: AllProjects = False,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """Errors hit and how they were fixed: the failing line, root cause (only when the session
        stated one), the fix, how it was verified, how often the same error was hit in the project
        and the latest fix. text: words of the error (an error code, an exception); seen_before: only
        errors hit more than once."""
        filters = {
            "text": text,
            "file": file,
            "root_cause": root_cause,
            "seen_before": True if seen_before else None,
            "since": since,
            "until": until,
        }
        return await scoped(group_id, all_projects, lambda scope: rows("errors", scope, limit, **filters))

    @tool
    async def get_config_history(
        setting: Annotated[str | None, Field(description="Its full name or last dotted part.")] = None,
        file: FilePath = None,
        current: Annotated[bool, Field(description="Only the value in force of each setting.")] = False,
        group_id: Group = None,
        all_projects: AllProjects = False,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """Settings changed in configuration files: old and new value, the session, when, and until
        when each value held; oldest first. setting: its full name or last dotted part; current: only
        the value in force of each setting."""
        filters = {"setting": setting, "file": file, "current": True if current else None}
        return await scoped(
            group_id, all_projects, lambda scope: rows("config-changes", scope, limit, **filters)
        )

    @tool
    async def get_file_history(
        path: Annotated[str, Field(description="A file path relative to the project root.")],
        group_id: Group = None,
        all_projects: AllProjects = False,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """A file's history: the decisions and errors that concern it (named first, then those of sessions
        that modified it) and the settings changed in it. path: relative to the project root."""

        async def answer(scope: Scope) -> dict[str, Any]:
            decisions, errors, changes = await asyncio.gather(
                rows("decisions", scope, limit, file=path),
                rows("errors", scope, limit, file=path),
                rows("config-changes", scope, limit, file=path),
            )
            return {"decisions": decisions, "errors": errors, "config_changes": changes}

        return await scoped(group_id, all_projects, answer)

    @tool
    async def get_session_summary(
        session: Annotated[str, Field(description="The session id or its 8-character prefix.")],
        group_id: Group = None,
        all_projects: AllProjects = False,
        limit: Limit = 100,
    ) -> dict[str, Any]:
        """One session: everything it recorded (files, decisions, errors, settings, tests, tasks,
        commits), as relation, record type, name and fact. session: the session id or its
        8-character prefix."""
        return await scoped(
            group_id, all_projects, lambda scope: rows("session", scope, limit, session=session)
        )

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
        all_projects: AllProjects = False,
        limit: Limit = DEFAULT_ROWS,
    ) -> dict[str, Any]:
        """Commits sessions made (sha, message, branch, files, pull request) and the session that
        made each; newest first. sha: a commit sha or its first 4+ characters, which also returns
        everything the session that made it recorded (its decisions and errors say why); file: a
        path relative to the project."""

        async def answer(scope: Scope) -> dict[str, Any]:
            commits = await rows(
                "commits", scope, limit, sha=sha, file=file, session=session, since=since, until=until
            )
            if sha is None or "error" in commits:
                return commits
            return {"commits": commits, "session": await rows("session", scope, limit, commit=sha)}

        return await scoped(group_id, all_projects, answer)

    @tool
    async def session_tracking_status() -> dict[str, Any]:
        """What is ingested and from where: the graph, the projects (group ids) and their session
        counts, the scope calls without group_id answer for (the server's project, or "all"), the
        ledger's last run, and transcripts that Claude Code will delete soon (its
        cleanupPeriodDays) that are not ingested yet."""
        return await status(pipeline, graph)

    return server


def bounded(found: list[dict[str, Any]], limit: int, scope: Scope | None = None) -> dict[str, Any]:
    """At most `limit` rows and MAX_CHARS of JSON; what was left out is said, and so is where else
    to look when the server's own project had nothing."""
    if not found and scope is not None and scope.project is not None:
        return {"rows": [], "note": "nothing in this project: all_projects=true looks in every project"}
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
        answer["scope"] = (await graph.scope(None)).describe()
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
