"""`graphiti-sessions classify-tools`: how each tool call of a transcript is classified, and why."""

from __future__ import annotations

import json
from pathlib import Path

import click

from graphiti_session_tracking.redact import Gate

from .app import main
from .render import layout_of, note, output_options, print_rows, reader_may_leave
from .screen import Screen
from .shell import UsageFailure, config_option, llm_option, load, run, warn


@main.command(name="classify-tools")
@click.argument("transcript", type=click.Path(path_type=Path))
@llm_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per tool call.")
@output_options
@config_option
def classify_tools(
    transcript: Path, use_llm: bool | None, as_json: bool, layout: str | None, config_path: Path | None
) -> None:
    """Show how each tool call of a transcript is classified, where that came from, and cache statistics.

    Sources: `heuristic` (built-in rules, no LLM), `cache` (an earlier LLM answer), `llm` (asked now,
    in one batched call per session). A table on a terminal, tab-separated lines (--plain) in a
    pipe or a file unless --table; the cache statistics go to stderr with --plain and --json.

    \b
    Example:
      graphiti-sessions classify-tools ~/.claude/projects/-home-me-myapp/3f1c2a9b.jsonl --json
    """
    from graphiti_session_tracking.pipeline.compose import build_pipeline
    from graphiti_session_tracking.transcripts import TranscriptNotFoundError, read_transcript

    output = layout_of(as_json, layout)
    config = load(config_path)
    try:
        session = read_transcript(transcript)
    except TranscriptNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc
    built = build_pipeline(config, use_llm=use_llm)
    classifier = built.summarizers().classifier
    assert classifier is not None
    results = run(classifier.classify_session(session.tool_calls))
    warn([*(str(p) for p in session.problems), *classifier.problems])
    rows = [
        {
            "tool_name": call.name,
            "intent": result.intent.value,
            "domain": result.domain.value,
            "confidence": result.confidence,
            "activity_signals": dict(result.activity_signals),
            "source": result.source,
            "line": call.line,
            "reasoning": result.reasoning,
        }
        for call, result in zip(session.tool_calls, results, strict=True)
    ]
    rows = Gate(built.redactor).data(rows)  # reasons may quote a command: through the gate
    stats = classifier.stats.as_dict()
    if output == "json":
        click.echo(json.dumps(rows, indent=2))
        click.echo(f"cache statistics: {json.dumps(stats)}", err=True)
        return
    shown = [
        {
            "line": row["line"],
            "tool": row["tool_name"],
            "intent": row["intent"],
            "domain": row["domain"],
            "confidence": row["confidence"],
            "source": row["source"],
            "signals": ", ".join(f"{k} {v:.2f}" for k, v in row["activity_signals"].items() if v),
        }
        for row in rows
    ]
    statistics = "cache statistics: " + ", ".join(f"{k} {v}" for k, v in stats.items())
    with reader_may_leave():
        screen = None if output == "plain" else Screen()
        print_rows(
            shown,
            ["line", "tool", "intent", "domain", "confidence", "source", "signals"],
            title=f"{len(rows)} tool calls in {transcript.name}",
            plain=output == "plain",
            drops=("confidence", "source"),  # what a narrow terminal can do without
            screen=screen,
        )
        if screen is None:  # plain lines are data: the statistics go beside them, as with --json
            click.echo(statistics, err=True)
        else:
            note(statistics, False, screen)  # wrapped at spaces, as the table
