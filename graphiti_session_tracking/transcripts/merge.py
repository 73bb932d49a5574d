"""One session from several transcripts that carry the same session id.

Claude Code writes a session's records to more than one file in a few ways: a copied transcript
(a backup, a synced folder), a resumed or forked session whose new file repeats the old history
under the old id, a sub-agent transcript given on its own. Each holds part of the session; the
union of their records, once each, in time order, is the whole of it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from .model import Message, Session, TokenUsage, ToolCall

_NEVER = datetime.min.replace(tzinfo=UTC)


def _key(session: Session, message: Message) -> str:
    """A record's identity across files: its uuid, or the API message id of a split response; a
    record without a uuid (`line-N`) is only itself."""
    if message.message_id:
        return f"id:{message.message_id}"
    if message.uuid.startswith("line-"):
        return f"{session.source_file}:{message.uuid}"
    return f"uuid:{message.uuid}"


def _weight(message: Message) -> int:
    """How much a message holds: a copy taken mid-response has less of it."""
    return (
        len(message.text)
        + 1000 * len(message.tool_calls)
        + sum(c.result is not None for c in message.tool_calls)
    )


def merge_sessions(sessions: list[Session]) -> Session:
    """The union of the sessions (the first one names the source and session id): every message
    once, the fullest copy of it, ordered by time (a message without a time follows the one
    before it in its file)."""
    first = sessions[0]
    chosen: dict[str, tuple[datetime | None, int, Message]] = {}
    order = 0
    for session in sessions:
        when: datetime | None = None
        for message in session.messages:
            when = message.timestamp or when
            key = _key(session, message)
            order += 1
            kept = chosen.get(key)
            if kept is None:
                chosen[key] = (when, order, message)
            elif _weight(message) > _weight(kept[2]):
                chosen[key] = (kept[0], kept[1], message)
    ranked = sorted(chosen.values(), key=lambda item: (item[0] is None, item[0] or _NEVER, item[1]))
    messages = [message for _, _, message in ranked]
    calls: dict[str, ToolCall] = {}
    for message in messages:
        for call in message.tool_calls:
            if call.id not in calls or (calls[call.id].result is None and call.result is not None):
                calls[call.id] = call
    for message in messages:  # a result that came back in one copy only counts in the union
        message.tool_calls = [calls[c.id] for c in message.tool_calls]
    merged = Session(
        session_id=first.session_id,
        source_file=first.source_file,
        cwd=next((s.cwd for s in sessions if s.cwd), None),
        agent=first.agent,
        messages=messages,
        tool_calls=list({c.id: c for m in messages for c in m.tool_calls}.values()),
        end_offset=first.end_offset,
    )
    latest = max(sessions, key=lambda s: (s.ended_at is not None, s.ended_at or _NEVER))
    merged.git_branch, merged.version = latest.git_branch or first.git_branch, latest.version or first.version
    starts = [s.started_at for s in sessions if s.started_at is not None]
    ends = [s.ended_at for s in sessions if s.ended_at is not None]
    merged.started_at, merged.ended_at = min(starts, default=None), max(ends, default=None)
    for session in sessions:
        merged.summaries += [text for text in session.summaries if text not in merged.summaries]
        for kind, count in session.record_counts.items():
            merged.record_counts[kind] = max(count, merged.record_counts.get(kind, 0))
        merged.problems += session.problems
        merged.subagent_files += [f for f in session.subagent_files if f not in merged.subagent_files]
        merged.lines_read += session.lines_read
    merged.usage = TokenUsage()
    for message in messages:
        if message.usage is not None:
            merged.usage.add(message.usage)
    return merged
