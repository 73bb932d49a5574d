"""A review's verdict ("**Verdict:** APPROVE"): what a review the session was asked for concluded.
It is the review's outcome, not a choice the session made, so it is a completed task, not a
decision; "what was the verdict on PR 102?" still finds it."""

from __future__ import annotations

import re

from graphiti_session_tracking.transcripts import Session, ToolKind

from ._sentences import plain, prose_lines

_VERDICT = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:#{1,6}\s+)?(?:\*\*|__)?(?:final\s+|overall\s+)?verdict(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$",
    re.IGNORECASE,
)
# A template's choices, not a verdict reached: `<your verdict>`, `APPROVE / REQUEST CHANGES`.
_TEMPLATE = re.compile(r"[\[<{].*[\]>}]|/|\bor\b", re.IGNORECASE)
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
    values = []
    for raw in prose_lines(text):
        match = _VERDICT.match(plain(raw))
        if match is None:
            continue
        written = plain(match.group(1)).strip()
        value = re.sub(r"[^\w)\]'\"]+$", "", written).strip()
        if value and not written.endswith("?") and not (_TEMPLATE.search(written) and len(written) < 40):
            values.append(value[:_VERDICT_MAX])
    return values
