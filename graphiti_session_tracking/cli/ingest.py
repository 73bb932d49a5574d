"""`graphiti-sessions ingest`: transcripts, folders of them, or summary .json files into the graph."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from .app import main
from .shell import UsageFailure, backend_options, group_option, llm_option, pipeline, progress, run, warn


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@group_option
@click.option("--dry-run", is_flag=True, help="Read and summarize, write nothing.")
@click.option("--since", type=click.DateTime(), default=None, help="Only sources modified since (ISO date).")
@click.option("--force", is_flag=True, help="Ignore the ingest ledger: read and write every source again.")
@llm_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@backend_options
def ingest(
    paths: tuple[Path, ...],
    group_id: str | None,
    dry_run: bool,
    since: datetime | None,
    force: bool,
    use_llm: bool | None,
    as_json: bool,
    **opts: Any,
) -> None:
    """Ingest sessions (Claude Code, Codex CLI, Gemini CLI, OpenCode), folders of them, or summary
    .json files.

    Without PATHS, reads session_tracking.watch_path, else every installed agent's folder
    (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp, ~/.local/share/opencode). Sources
    already ingested and unchanged are skipped
    (the ingest ledger remembers them); a transcript that grew is read from where the last read
    stopped and its session re-summarized.

    \b
    Example:
      graphiti-sessions ingest ~/.claude/projects/-home-me-myapp --backend neo4j --uri bolt://localhost:7687
    """
    from graphiti_session_tracking.pipeline.sources import discover_sources

    sessions = pipeline(opts, use_llm=use_llm, check=False)  # its parts are built only if needed
    try:
        sources = discover_sources(list(paths) or sessions.config.watch_roots)
    except FileNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc
    if since is not None and since.tzinfo is None:
        since = since.astimezone()  # a date typed without a zone means local time

    async def go() -> dict[str, Any]:
        # One bar over the sources: each is counted once, unchanged at once, the others when read
        # (the run writes as it goes).
        with sessions.ledger() as ledger, progress(len(sources), "ingesting") as advance:
            report = await sessions.ingest(
                sources,
                ledger=ledger,
                group_id=group_id,
                force=force,
                since=since,
                dry_run=dry_run,
                on_read=advance,
            )
        return report.to_dict()

    report = run(go())
    warn(report["problems"], report["failed"])
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        excluded = f", {len(report['excluded'])} excluded by the config" if report["excluded"] else ""
        where = (
            "" if sessions.store_in_graph else " (store_in_graph is false: summaries written as files only)"
        )
        # --force reads and summarizes every source again; a summary equal to the stored one is
        # left as it is (nothing to write), which is what "unchanged" then says.
        same = "unchanged (read again: the same summary as stored)" if force else "unchanged"
        click.echo(
            f"{report['sources_seen']} sources: {report['ingested']} ingested, {report['skipped']} {same}, "
            f"{len(report['failed'])} failed{excluded}; {report['nodes_written']} nodes and "
            f"{report['edges_written']} edges written{where}"
        )
        if report.get("vectors_backfilled"):
            click.echo(
                f"{report['vectors_backfilled']} sessions written before the local embedder was on "
                "got their vectors (search by meaning finds them now)"
            )
    if report["failed"]:
        sys.exit(1)
