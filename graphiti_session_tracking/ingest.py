"""Ingest sources (transcripts, folders of them, summary .json files) into the graph.

The CLI's `ingest` is a thin layer over `ingest_paths`, so programs get the same behaviour: every
good source goes in, every bad one is reported with its reason, none stops the others.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .graph.backends import Backend
from .graph.mapping import iso_time, resolve_group_id
from .graph.writer import SessionGraphWriter
from .summary import EnhancedSessionSummarizer, EnhancedSessionSummary, summarize_session
from .tools import UnifiedToolClassifier
from .transcripts import read_transcript

DEFAULT_TRANSCRIPTS_DIR = Path.home() / ".claude" / "projects"


class SourceError(Exception):
    """One source could not be read; the message names the file (and line when known)."""


@dataclass
class IngestReport:
    sources_seen: int = 0
    skipped: int = 0
    ingested: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    nodes_written: int = 0
    edges_written: int = 0
    llm_calls: int = 0
    problems: list[str] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def discover_sources(paths: Iterable[Path]) -> list[Path]:
    """Expand folders into their transcripts (sub-agent transcripts belong to their session)."""
    found: dict[Path, None] = {}
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"no such file or folder: {path}")
        if path.is_dir():
            for candidate in sorted(path.rglob("*.jsonl")):
                if "subagents" not in candidate.relative_to(path).parts and candidate.is_file():
                    found.setdefault(candidate, None)
        else:
            found.setdefault(path, None)
    return list(found)


async def load_source(
    path: Path,
    classifier: UnifiedToolClassifier | None = None,
    summarizer: EnhancedSessionSummarizer | None = None,
) -> tuple[EnhancedSessionSummary, list[str]]:
    """A summary from a transcript (.jsonl) or a summary JSON file (.json), with the problems seen."""
    if path.suffix == ".json":
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SourceError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
        try:
            return EnhancedSessionSummary.model_validate(data), []
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
            )
            raise SourceError(f"{path}: not a session summary: {problems}") from exc
    session = read_transcript(path)
    if not session.messages:
        detail = f" ({session.problems[0]})" if session.problems else ""
        raise SourceError(f"{path}: no conversation in transcript{detail}")
    summary = await summarize_session(session, classifier, summarizer)
    return summary, [str(p) for p in session.problems]


async def ingest_paths(
    backend: Backend | None,
    sources: list[Path],
    *,
    group_id: str | None = None,
    classifier: UnifiedToolClassifier | None = None,
    summarizer: EnhancedSessionSummarizer | None = None,
    on_progress: Callable[[Path], None] | None = None,
) -> IngestReport:
    """Summarize and write each source; with `backend=None`, a dry run that writes nothing."""
    report = IngestReport()
    loaded: list[tuple[Path, EnhancedSessionSummary]] = []
    for source in sources:
        report.sources_seen += 1
        try:
            summary, problems = await load_source(source, classifier, summarizer)
        except (SourceError, OSError, ValueError) as exc:
            report.failed.append({"source": str(source), "error": str(exc)})
            continue
        finally:
            if on_progress is not None:
                on_progress(source)
        report.problems.extend(problems)
        report.problems.extend(f"{source}: {note}" for note in summary.notes or [])
        report.llm_calls += summary.llm_calls
        loaded.append((source, summary))
    # Oldest first, so that each session finds the one it CONTINUES already written.
    loaded.sort(key=lambda item: (item[1].started_at is None, iso_time(item[1].started_at) or ""))
    writer = SessionGraphWriter(backend) if backend is not None else None
    for source, summary in loaded:
        if writer is None:
            report.sessions.append(
                {
                    "source": str(source),
                    "session_id": summary.session_id,
                    "group_id": resolve_group_id(summary, group_id),
                    "status": "dry-run",
                }
            )
            continue
        try:
            result = await writer.ingest(summary, group_id=group_id)
        except ValueError as exc:  # e.g. an invalid group id derived for this source
            report.failed.append({"source": str(source), "error": str(exc)})
            continue
        if result.status == "unchanged":
            report.skipped += 1
        else:
            report.ingested += 1
        report.nodes_written += result.nodes_written
        report.edges_written += result.edges_written
        report.sessions.append({"source": str(source), **asdict(result)})
    if classifier is not None:
        report.llm_calls += classifier.stats.llm_calls
        report.problems.extend(classifier.problems)
    return report
