"""`graphiti-sessions recap`: what a new session needs to know about the previous work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from graphiti_session_tracking.private_files import write_private

from .app import main
from .shell import UsageFailure, backend_options, llm_option, pipeline, run


@main.command()
@click.option(
    "--session", "session_id", default=None, help="Recap this session (an id or its 8-character prefix)."
)
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Recap the latest session of this project (default: the current folder's).",
)
@click.option(
    "--budget", type=click.IntRange(min=100), default=1000, show_default=True, help="Tokens (≈ chars / 4)."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write it here (e.g. _handoff.md).",
)
@click.option("--json", "as_json", is_flag=True, help="The recap and its scores as JSON.")
@llm_option
@backend_options
def recap(
    session_id: str | None,
    project: Path | None,
    budget: int,
    out: Path | None,
    as_json: bool,
    use_llm: bool | None,
    **opts: Any,
) -> None:
    """The recap a new session starts with: where the last session of the project stopped (its most
    novel, central, recent and consequential parts within --budget tokens; tool calls one line each,
    no file contents), its open next steps and unresolved errors, and the decisions and settings in
    force. With an LLM (--llm or session_tracking.auto_summarize) one call writes it as prose.

    \b
    Example:
      graphiti-sessions recap                          # the current folder's project
      graphiti-sessions recap --session 3f1c9a2b --out _handoff.md
    """
    from graphiti_session_tracking.recap.build import RecapError, build_recap

    sessions = pipeline(opts, use_llm=use_llm, writable=False, check=False)
    try:
        made = run(
            build_recap(
                sessions, session=session_id, project=project, budget=budget, use_llm=sessions.llm.enabled
            )
        )
    except RecapError as exc:
        raise UsageFailure(str(exc)) from exc
    if out is not None:
        write_private(out, made.markdown, keep_mode=True)  # new: 0600; an existing file keeps its mode
    if as_json:
        data = {
            "session_id": made.session_id,
            "group_id": made.group_id,
            "tokens": made.tokens,
            "generated_by": made.generated_by,
            "chunks_left_out": made.chunks_left_out,
            "chunks": [
                {
                    "index": c.chunk.index,
                    "score": round(c.score, 4),
                    "novelty": round(c.novelty, 4),
                    "centrality": round(c.centrality, 4),
                    "recency": round(c.recency, 4),
                    "action": c.action,
                    "lines": c.chunk.lines,
                }
                for c in made.chunks
            ],
            "markdown": made.markdown,
        }
        click.echo(json.dumps(data, indent=2))
    elif out is None:
        click.echo(made.markdown, nl=False)
    else:
        click.echo(f"wrote {out} ({made.tokens} tokens)")
