"""`graphiti-sessions watch`: summarize sessions as they happen (when idle or grown enough)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .app import main
from .shell import UsageFailure, backend_options, group_option, llm_option, pipeline, run, warn


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--idle-minutes",
    type=click.FloatRange(min=0),
    default=None,
    help="Summarize a changed transcript once untouched this long "
    "(default: config session_tracking.inactivity_timeout, 30 minutes).",
)
@click.option(
    "--min-new-messages",
    type=click.IntRange(min=1),
    default=None,
    help="...or once it has this many new messages (default: session_tracking.min_new_messages, 20).",
)
@click.option(
    "--interval",
    "interval_s",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds between passes (default: config session_tracking.check_interval, 60).",
)
@click.option("--once", is_flag=True, help="One pass, then exit (for cron or a systemd timer).")
@group_option
@llm_option
@click.option("--json", "as_json", is_flag=True, help="One JSON report line per pass.")
@backend_options
def watch(
    paths: tuple[Path, ...],
    idle_minutes: float | None,
    min_new_messages: int | None,
    interval_s: float | None,
    once: bool,
    group_id: str | None,
    use_llm: bool | None,
    as_json: bool,
    **opts: Any,
) -> None:
    """Summarize sessions as they happen: after 30 minutes idle or 20 new messages.

    Every --interval seconds, sessions under PATHS (default session_tracking.watch_path, else every
    installed agent's folder: ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp,
    ~/.local/share/opencode) that are new or grew since their last summary are summarized when idle for --idle-minutes (by file time) or
    when they have --min-new-messages new messages; the new summary replaces the session's earlier
    one (summary_version + 1). The rest waits for a later pass. Stops cleanly on Ctrl-C or SIGTERM.
    A backend that is down fails that pass only (exit 2 with --once; 1 when some sources failed).

    \b
    Example:
      graphiti-sessions watch ~/.claude/projects --idle-minutes 15 --json
      graphiti-sessions watch --once --backend neo4j --uri bolt://localhost:7687   # from cron
    """
    from graphiti_session_tracking.pipeline.sources import discover_sources
    from graphiti_session_tracking.pipeline.watch import PassReport, Thresholds, Watcher

    sessions = pipeline(opts, use_llm=use_llm)  # configuration errors now, not in the first pass
    settings = sessions.config.session_tracking
    if not settings.enabled:
        raise UsageFailure("session tracking is off in the configuration (session_tracking.enabled: false)")
    roots = list(paths) or sessions.config.watch_roots
    try:
        discover_sources(roots)
    except FileNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc

    def show(report: PassReport) -> None:
        data = report.to_dict()
        ingest = data["ingest"] or {}
        warn(ingest.get("problems", []), [*data["failed"], *ingest.get("failed", [])])
        if data["error"]:
            click.echo(f"error: {data['error']}", err=True)  # one line, never wrapped
        if as_json:
            click.echo(json.dumps(data, default=str))
            return
        reasons = [c["reason"] for c in data["due"]]
        click.echo(
            f"pass {data['number']}: {data['sources_seen']} sources, {len(reasons)} due "
            f"({reasons.count('idle')} idle, {reasons.count('messages')} by messages), "
            f"{len(data['waiting'])} waiting, {data['unchanged']} unchanged; "
            f"{ingest.get('ingested', 0)} ingested, "
            f"{len(data['failed']) + len(ingest.get('failed', []))} failed"
            + ("; backend error" if data["error"] else "")
        )

    with sessions.ledger() as ledger:
        watcher = Watcher(
            roots=roots,
            ledger=ledger,
            pipeline=sessions,
            thresholds=Thresholds(
                idle_minutes=settings.inactivity_timeout / 60 if idle_minutes is None else idle_minutes,
                min_new_messages=settings.min_new_messages if min_new_messages is None else min_new_messages,
            ),
            group_id=group_id,
        )
        last = run(
            watcher.run(settings.check_interval if interval_s is None else interval_s, show, once=once)
        )
    if once and last is not None and last.exit_code:
        sys.exit(last.exit_code)
