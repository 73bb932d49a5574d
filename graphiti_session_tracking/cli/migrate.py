"""`graphiti-sessions migrate`: summaries of the older session-tracking module into the graph."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .app import main
from .shell import UsageFailure, backend_options, check_group_id, pipeline, run, warn


@main.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from-graph", is_flag=True, help="Migrate the old session-summary episodes in the graph.")
@click.option(
    "--group-id",
    default=None,
    callback=check_group_id,
    help="Write every migrated session to this group ([A-Za-z0-9_]); default: the old episode's "
    "group (sanitized), or legacy_import for files.",
)
@click.option("--dry-run", is_flag=True, help="Read and convert, write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@backend_options
def migrate(
    files: tuple[Path, ...], from_graph: bool, group_id: str | None, dry_run: bool, as_json: bool, **opts: Any
) -> None:
    """Migrate summaries written by the older session-tracking module into the session graph.

    FILES are SessionSummarySchema exports: one object per .json file, one per line of .jsonl, or
    an old markdown summary (.md); folders are searched for .json and .jsonl. --from-graph reads
    the old `Session NNN: ...` episodes of the backend. The old episodes, entities and edges are
    never changed; running it again changes nothing. A record that cannot be read is reported
    with its episode uuid or file:line and skipped (exit 1); the rest still goes in.

    \b
    Example:
      graphiti-sessions migrate --from-graph --dry-run --json --backend neo4j --uri bolt://localhost:7687
      graphiti-sessions migrate exported.jsonl old-summary.json --group-id myapp_1a2b3c4d
    """
    from graphiti_session_tracking.legacy.migrate import discover_legacy_files

    if not files and not from_graph:
        raise UsageFailure("nothing to migrate: give legacy .json/.jsonl/.md files or --from-graph")
    sessions = pipeline(opts, writable=None if dry_run and not from_graph else not dry_run)
    try:
        discover_legacy_files(files)  # a missing path is a usage error, before any work
    except FileNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc

    report = run(
        sessions.migrate(list(files), from_graph=from_graph, group_id=group_id, dry_run=dry_run)
    ).to_dict()
    warn(report["problems"], report["failed"])
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        done = f"{len(report['sessions'])} would be migrated" if dry_run else f"{report['ingested']} migrated"
        click.echo(
            f"{report['sources_seen']} legacy records: {done}, {report['skipped']} unchanged or superseded, "
            f"{len(report['failed'])} failed; {report['nodes_written']} nodes and "
            f"{report['edges_written']} edges written"
        )
        for episode in report.get("indexer_episodes", []):  # the old indexer's transcripts, not summaries
            where = episode["transcript"] or "no longer on disk"
            click.echo(f"indexer episode {episode['name']!r} (not a summary): transcript {where}")
    if report["failed"]:
        sys.exit(1)
