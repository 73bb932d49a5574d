"""`graphiti-sessions search`: Graphiti's own search over the session graph."""

from __future__ import annotations

import json
from typing import Any

import click

from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.schema import DEFAULT_SEARCH_LIMIT, SEARCH_TYPES

from .app import main
from .query import scope_group_option
from .render import layout_of, output_options, print_table, reader_may_leave
from .shell import UsageFailure, backend_options, pipeline, run


@main.command()
@click.argument("text")
@scope_group_option
@click.option(
    "--type", "kind", type=click.Choice(list(SEARCH_TYPES)), default=None, help="Only this kind of record."
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=DEFAULT_SEARCH_LIMIT,
    show_default=True,
    help="At most this many hits.",
)
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@output_options
@backend_options
def search(
    text: str,
    group_id: str | None,
    kind: str | None,
    limit: int,
    as_json: bool,
    layout: str | None,
    **opts: Any,
) -> None:
    """Graphiti's search over the session graph: entities, facts and session episodes, best first.

    Hybrid by default: full text (BM25) plus the local embedder's nearest records, fused by
    reciprocal rank; with embedder.enabled, Graphiti's hybrid with that embedder; with neither
    (embedder.local.enabled: false), full text only. Every group unless --group-id. JSON rows: kind (node, edge, episode), type (label or
    relation), text (name or fact), uuid, group_id, score. A table on a terminal, tab-separated
    lines (--plain) in a pipe or a file unless --table.

    \b
    Example:
      graphiti-sessions search "jwt expiry" --type decision --json
      graphiti-sessions search Cargo.toml --group-id myapp_1a2b3c4d --limit 5
    """
    from graphiti_session_tracking.graph.search import SearchError, search_sessions

    output = layout_of(as_json, layout)
    sessions = pipeline(opts, writable=False, check=False)  # its embedders, built when asked

    async def go() -> list[dict[str, Any]]:
        async with open_backend(sessions.graph, writable=False) as backend:
            hits = await search_sessions(
                backend, text, group_id, limit, kind, sessions.embedder, sessions.local_embedder
            )
        return [hit.to_dict() for hit in hits]

    try:
        rows = run(go())
    except SearchError as exc:
        raise UsageFailure(str(exc)) from exc
    if output == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    with reader_may_leave():
        if not rows:
            click.echo(f"nothing found for {text!r}")
            return
        print_table(rows, title=f"search: {text}", kind="search", limit=limit, plain=output == "plain")
