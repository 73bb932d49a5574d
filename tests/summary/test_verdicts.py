"""A review's verdict: a completed task with what was reviewed, never a decision."""

from __future__ import annotations

from pathlib import Path

from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary import extract_summary


def test_a_sub_agents_verdict_is_a_completed_task_said_once(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Review PR 12.")
    t.call(
        "Task",
        {"description": "Review PR 12", "prompt": "Review it. End with Verdict: APPROVE or REQUEST CHANGES."},
        "## Review\n\n**Verdict: APPROVE** ✓\n\nNo blocking issues.",
    )
    t.say("The reviewer found nothing blocking.\n\n**Verdict:** APPROVE")
    summary = extract_summary(t.read(tmp_path))
    assert summary.completed_tasks == ["Review PR 12: Verdict: APPROVE"]
    assert not summary.key_decisions


def test_the_assistants_own_verdict_and_not_a_templates(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Is the migration safe?")
    t.say("Reply with Verdict: <your verdict>.")
    t.say("Verdict: APPROVE / REQUEST CHANGES")
    t.say("### Final verdict: REQUEST CHANGES - the down migration drops the users table.")
    t.say("Verdict: ship it?")
    summary = extract_summary(t.read(tmp_path))
    assert summary.completed_tasks == ["Verdict: REQUEST CHANGES - the down migration drops the users table"]
