"""`graphiti-sessions summarize`: the EnhancedSessionSummary of one transcript, printed."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from graphiti_session_tracking.redact import Gate

from .app import main
from .shell import UsageFailure, config_option, llm_option, load, run, warn


@main.command()
@click.argument("transcript", type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True
)
@llm_option
@config_option
def summarize(transcript: Path, fmt: str, use_llm: bool | None, config_path: Path | None) -> None:
    """Print the EnhancedSessionSummary of a transcript (offline rules; with --llm, the LLM too).

    Problems in the transcript and an LLM that fails are reported on stderr; the summary is still
    printed (the offline one when the LLM fails). A transcript without any message fails as in
    `ingest`: one line on stderr, exit code 1.

    \b
    Example:
      graphiti-sessions summarize ~/.claude/projects/-home-me-myapp/3f1c2a9b.jsonl --format json
    """
    from graphiti_session_tracking.pipeline.compose import build_pipeline
    from graphiti_session_tracking.pipeline.sources import no_conversation
    from graphiti_session_tracking.summary import summarize_session
    from graphiti_session_tracking.transcripts import TranscriptNotFoundError, read_transcript

    config = load(config_path)
    try:
        session = read_transcript(transcript)
    except TranscriptNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc

    unusable = no_conversation(session)
    if unusable is not None:
        warn([], [{"source": str(transcript), "error": unusable}])
        sys.exit(1)
    sessions = build_pipeline(config, use_llm=use_llm)
    made = sessions.summarizers()
    summary = run(summarize_session(session, made.classifier, made.summarizer, sessions.redactor))
    problems = made.classifier.problems if made.classifier is not None else []
    warn([*(str(p) for p in session.problems), *problems, *(summary.notes or [])])
    gate = Gate(sessions.redactor)  # what is printed passes the output gate, like every way out
    if fmt == "json":
        click.echo(gate.text(summary.model_dump_json(indent=2, exclude_none=True)))
    else:
        click.echo(gate.text(summary.to_markdown()), nl=False)
