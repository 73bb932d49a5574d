"""The offline extractor: the parts of a summary that the transcript states outright, no LLM."""

from __future__ import annotations

from graphiti_session_tracking.transcripts import Session

from .config_changes import extract_config_changes
from .decisions import extract_decisions
from .errors import extract_errors_resolved
from .files import relative_path, written_file
from .model import EnhancedSessionSummary, Outcome
from .test_results import extract_test_results
from .todos import extract_tasks

_OBJECTIVE_LIMIT = 500


def files_modified(session: Session) -> list[str]:
    """Files written by the session, relative to its project, in first-write order, once each."""
    seen: dict[str, None] = {}
    for call in session.tool_calls:
        path = written_file(call)
        if path is not None:
            seen.setdefault(relative_path(path, session.cwd), None)
    return list(seen)


def objective(session: Session) -> str:
    """The first real request a person typed, cut to a readable length."""
    for message in session.messages:
        if message.is_human and not message.is_sidechain:
            text = " ".join(message.text.split())
            return text if len(text) <= _OBJECTIVE_LIMIT else text[: _OBJECTIVE_LIMIT - 1].rstrip() + "…"
    return session.summaries[0] if session.summaries else "(no user request in transcript)"


def outcome(session: Session) -> Outcome:
    """How the session ended: the last word is the assistant's and its last tool call worked."""
    main = [m for m in session.messages if not m.is_sidechain and not m.is_meta]
    if not main:
        return "abandoned"
    last_calls = [c for c in session.tool_calls if not c.is_sidechain]
    if last_calls and last_calls[-1].result is None:
        return "in_progress"
    if main[-1].role == "assistant":
        return "completed"
    return "in_progress"


def extract_summary(session: Session) -> EnhancedSessionSummary:
    """A summary built from the transcript's own facts."""
    duration = None
    if session.started_at and session.ended_at:
        duration = int((session.ended_at - session.started_at).total_seconds() // 60)
    mcp = sorted({c.name for c in session.tool_calls if c.name.startswith("mcp__")})
    completed, next_steps = extract_tasks(session)
    return EnhancedSessionSummary(
        session_id=session.session_id,
        project_path=session.cwd,
        git_branch=session.git_branch,
        started_at=session.started_at,
        ended_at=session.ended_at,
        session_file=session.source_file,
        objective=objective(session),
        outcome=outcome(session),
        completed_tasks=completed or None,
        next_steps=next_steps or None,
        key_decisions=extract_decisions(session) or None,
        errors_resolved=extract_errors_resolved(session) or None,
        config_changes=extract_config_changes(session) or None,
        test_results=extract_test_results(session),
        files_modified=files_modified(session) or None,
        mcp_tools_used=mcp or None,
        message_count=session.user_message_count + session.assistant_message_count,
        duration_minutes=duration,
    )
