"""A review's verdict ("**Verdict:** APPROVE"): what a review the session was asked for concluded.
It is the review's outcome, not a choice the session made, so it is a completed task, not a
decision; "what was the verdict on PR 102?" still finds it."""

from __future__ import annotations

import re

from graphiti_session_tracking.transcripts import Session, ToolKind

from ._sentences import plain, prose_lines
from .decisions.marked import MARKER_END, MARKER_START, stated

_VERDICT = re.compile(MARKER_START + r"(?:final\s+|overall\s+)?verdict" + MARKER_END, re.IGNORECASE)
_VERDICT_MAX = 160


def review_verdicts(session: Session) -> list[str]:
    """Each verdict the assistant or a sub-agent stated, once, with the sub-agent's task when it
    has one ("Review PR 12: Verdict: APPROVE"); the bare main-thread line when a sub-agent's
    already says it."""
    found: dict[str, None] = {}
    for call in session.tool_calls:
        if call.kind is ToolKind.SUBAGENT and call.succeeded and call.result is not None:
            task = str(call.input.get("description") or "").strip()
            for value in _verdicts(call.result.text):
                found.setdefault(f"{task}: Verdict: {value}" if task else f"Verdict: {value}", None)
    for message in session.messages:
        if message.role == "assistant":
            for value in _verdicts(message.text):
                line = f"Verdict: {value}"
                if not any(known.endswith(line) for known in found):
                    found.setdefault(line, None)
    return list(found)


def _verdicts(text: str) -> list[str]:
    stated_values = (
        stated(plain(m.group(1)).strip()) for raw in prose_lines(text) if (m := _VERDICT.match(plain(raw)))
    )
    return [value[:_VERDICT_MAX] for value in stated_values if value]
