"""`graphiti-sessions query …`: the canned Cypher queries, as tables or JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from graphiti_session_tracking.dimensions import ACTIVITY_DIMENSIONS
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.queries import QUERY_FILTERS, QueryError, parse_time, run_query

from .app import main
from .render import TABLE_ROWS, layout_of, output_options, print_table, reader_may_leave
from .shell import UsageFailure, backend_options, check_group_id, graph_config, run


@main.group()
def query() -> None:
    """Canned Cypher queries over the session graph (every group unless --group-id).

    The Cypher texts are in graphiti_session_tracking/graph/cypher/; each runs on Neo4j and
    FalkorDB with every value passed as a parameter.

    Output: a table of the first 50 rows on a terminal; tab-separated lines with a header
    (--plain: every row, nothing cut) when stdout is a pipe or a file, unless --table; --json:
    every field.

    \b
    Example:
      graphiti-sessions query decisions --file src/auth.py --since 2026-01-01
    """


def _check_when(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_time(value)
    except QueryError as exc:
        raise click.BadParameter(str(exc)) from exc
    return value


def scope_group_option[F: Callable[..., Any]](func: F) -> F:
    return click.option(
        "--group-id",
        default=None,
        callback=check_group_id,
        help="Only this project's group ([A-Za-z0-9_]); default: every group in the database.",
    )(func)


# The filter options; each query command takes those its Cypher has (QUERY_FILTERS).
_FILTER_OPTIONS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "file": click.option("--file", default=None, help="A file path as stored (relative to the project)."),
    "text": click.option("--text", default=None, help="Case-insensitive substring to look for."),
    "root_cause": click.option(
        "--root-cause", "root_cause", default=None, help="Case-insensitive substring of the root cause."
    ),
    "setting": click.option(
        "--setting", default=None, help="Setting name, full or its last dotted part (case-insensitive)."
    ),
    "activity": click.option(
        "--activity",
        type=click.Choice(ACTIVITY_DIMENSIONS),
        default=None,
        help="Sessions where this activity is dominant (>= 0.3), strongest first.",
    ),
    "since": click.option(
        "--since",
        default=None,
        callback=_check_when,
        help="From this ISO date or timestamp (UTC if no zone).",
    ),
    "until": click.option(
        "--until",
        default=None,
        callback=_check_when,
        help="Up to this ISO date (inclusive) or timestamp (UTC if no zone).",
    ),
    "session": click.option("--session", default=None, help="A session id or its 8-character prefix."),
    "sha": click.option("--sha", default=None, help="A commit sha or its first 4 or more characters."),
    "commit": click.option(
        "--commit", default=None, help="The session that made this commit (a sha or its prefix)."
    ),
    "agent": click.option(
        "--agent",
        type=click.Choice(("claude-code", "codex", "gemini-cli", "opencode")),
        default=None,
        help="Only sessions of this coding agent.",
    ),
    "current": click.option(
        "--current",
        is_flag=True,
        flag_value=True,
        default=None,
        help="Only the value in force of each setting.",
    ),
    "seen_before": click.option(
        "--seen-before",
        "seen_before",
        is_flag=True,
        flag_value=True,
        default=None,
        help="Only errors hit more than once in the project (how often, first, last, the latest fix).",
    ),
    "min_confidence": click.option(
        "--min-confidence",
        "min_confidence",
        type=click.FloatRange(0, 1),
        default=None,
        help="Only decisions the extractor is at least this sure of (0..1; 0.8: stated or accepted "
        "choices, 0.5 and up: also choices read from phrasing). Decisions stored without one are left out.",
    ),
}


def _query_command(name: str, help_text: str) -> Callable[..., None]:
    def command(
        group_id: str | None, as_json: bool, layout: str | None, limit: int | None, **opts: Any
    ) -> None:
        output = layout_of(as_json, layout)
        positional = opts.pop("session_id", None)
        if positional is not None:
            if opts.get("session") not in (None, positional):
                raise UsageFailure(f"two session ids: {positional} and --session {opts['session']}")
            opts["session"] = positional
        filters = {key: opts.pop(key) for key in QUERY_FILTERS[name] if opts.get(key) is not None}
        _, graph = graph_config(opts, writable=False)

        # A table shows its first rows: ask for one more, to know whether to say there are more.
        wanted = TABLE_ROWS + 1 if output == "table" and limit is None else limit

        known: list[str] = []

        async def go() -> list[dict[str, Any]]:
            async with open_backend(graph, writable=False) as backend:
                found = await run_query(backend, name, group_id=group_id, limit=wanted, **filters)
                if not found and group_id is not None:
                    known.extend(await backend.list_groups())
                return found

        try:
            rows = run(go())
        except QueryError as exc:
            raise UsageFailure(str(exc)) from exc
        if output == "json":
            click.echo(json.dumps(rows, indent=2, default=str))
            return
        with reader_may_leave():
            print_table(rows, title=name, limit=limit, plain=output == "plain")
            if group_id is not None and group_id not in known and not rows:
                shown = ", ".join(known[:10]) + (", …" if len(known) > 10 else "")
                click.echo(
                    f"no group {group_id} in this graph; its groups: {shown or 'none'} (query sessions shows whose)"
                )

    command.__doc__ = help_text
    decorated: Callable[..., Any] = backend_options(command)
    for key in reversed(QUERY_FILTERS[name]):
        option = _FILTER_OPTIONS[key]
        decorated = option(decorated)
    decorated = click.option(
        "--limit", type=click.IntRange(min=1), default=None, help="At most this many rows."
    )(decorated)
    decorated = output_options(decorated)
    decorated = click.option("--json", "as_json", is_flag=True, help="Print rows as JSON.")(decorated)
    decorated = scope_group_option(decorated)
    if name == "session":  # `query session 3f1c2a9b` as well as `--session 3f1c2a9b`
        decorated = click.argument("session_id", required=False)(decorated)
    return query.command(name=name)(decorated)


_query_command(
    "decisions",
    """Decisions: what was decided, why, the alternatives, the files it concerns. Newest first.

    --file finds decisions that name the file and decisions of sessions that modified it.
    --min-confidence keeps the decisions the extractor is at least that sure of.
    JSON rows: session_id, decision, rationale, alternatives, confidence, by, files, valid_at,
    group_id.

    \b
    Example:
      graphiti-sessions query decisions --file src/auth.py --json
      graphiti-sessions query decisions --text jwt --since 2026-01-01 --until 2026-01-31
      graphiti-sessions query decisions --min-confidence 0.8
    """,
)

_query_command(
    "errors",
    """Errors resolved: the error, its root cause, the fix and how it was verified. Newest first.

    JSON rows: session_id, error, root_cause, fix, verification, files, valid_at, group_id,
    names_file, times_seen, first_seen, last_seen, last_fix (the same error in the project: how
    often, first and last, and the latest fix recorded). --seen-before: only errors hit again.

    \b
    Example:
      graphiti-sessions query errors --text "401 Unauthorized" --json
      graphiti-sessions query errors --seen-before
      graphiti-sessions query errors --root-cause expiry --file .env
    """,
)

_query_command(
    "config-changes",
    """History of settings: old and new value, file, session and time. Oldest first.

    JSON rows: setting, file, old_value, new_value, reason, session_id, valid_at, until (when a
    later change replaced the value; empty: still in force), group_id. --current: only the values
    in force; --setting X: the setting's history.

    \b
    Example:
      graphiti-sessions query config-changes --current
      graphiti-sessions query config-changes --setting JWT_EXPIRY --json
      graphiti-sessions query config-changes --file pyproject.toml --setting line-length
    """,
)

_query_command(
    "files",
    """Files that sessions modified: path (relative to the project), group, sessions, last change.

    JSON rows: path, group_id, sessions, last_modified_at. Most modified first.

    \b
    Example:
      graphiti-sessions query files --json
      graphiti-sessions query files --group-id myapp_1a2b3c4d --since 2026-01-01
    """,
)

_query_command(
    "sessions",
    """Sessions by dominant activity (>= 0.3, strongest first) or by objective text; else newest first.

    JSON rows: session_id, objective, outcome, primary_activity, activity_score (with --activity),
    started_at, ended_at, message_count, duration_minutes, agent, agent_version, group_id.

    \b
    Example:
      graphiti-sessions query sessions --activity fixing --since 2026-01-01 --json
      graphiti-sessions query sessions --text "port to rust"
      graphiti-sessions query sessions --agent codex
    """,
)

_query_command(
    "tests",
    """Test runs over time: framework, passed/total, failed, skipped, coverage. Oldest first.

    JSON rows: session_id, framework, passed, total, failed, skipped, coverage_pct, failed_tests,
    valid_at, group_id.

    \b
    Example:
      graphiti-sessions query tests --since 2026-01-01 --json
      graphiti-sessions query tests --session 3f1c2a9b
    """,
)

_query_command(
    "commits",
    """Commits sessions made: sha, message, branch, time, files, pull request, and the session.

    JSON rows: sha, message, branch, committed_at, files, pushed, pull_request, session_id,
    objective, agent, group_id. Newest first. --sha finds one commit; `query session --commit`
    shows everything its session did.

    \b
    Example:
      graphiti-sessions query commits --file src/auth.py
      graphiti-sessions query commits --sha 1a2b3c4 --json
    """,
)

_query_command(
    "session",
    """What one session touched: every entity linked from it, with the relation.

    --commit SHA: the session that made that commit ("which session made this commit, and why?").
    JSON rows: session_id, relation, label, name, fact, valid_at, objective, agent, group_id.

    \b
    Example:
      graphiti-sessions query session 3f1c2a9b --json
      graphiti-sessions query session --commit 1a2b3c4
    """,
)
