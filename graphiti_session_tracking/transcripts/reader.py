"""Read a Claude Code JSONL transcript into a Session, streaming, one line at a time.

Bad lines never stop the read: each becomes a Problem naming file and line, and the lines around
it still count. Reading can start at a byte offset (incremental ingest); `end_offset` is always at
a line boundary, and a truncated last line (a write in progress) is left for the next read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult

# Record types Claude Code writes that carry no conversation content for us; counted, not parsed.
_BOOKKEEPING_TYPES = frozenset(
    {"queue-operation", "file-history-snapshot", "progress", "attachment", "system"}
)
# Tool results keep their head and tail (a test run's totals are at the end) and tool inputs (a
# Write's whole file) their start, so a session's memory grows with its number of calls, not with
# the size of the files and outputs it touched.
TEXT_LIMIT = 8_000
INPUT_TEXT_LIMIT = 4_000


class TranscriptNotFoundError(FileNotFoundError):
    """The transcript path does not exist or is not a file."""


def read_transcript(
    path: str | Path,
    start_offset: int = 0,
    include_subagents: bool = True,
    previous: Session | None = None,
) -> Session:
    """Parse one transcript (from `start_offset`); problems are collected on the Session, not raised.

    Sub-agent transcripts that newer Claude Code versions write beside the session
    (`<session id>/subagents/agent-*.jsonl`) are read too, their messages marked as sidechain.
    With `previous` (the session as parsed up to `start_offset`), reading continues it: only the
    new lines are parsed, and the result is the whole session.
    """
    source = Path(path)
    if not source.is_file():
        raise TranscriptNotFoundError(f"transcript not found: {source}")
    if previous is not None:
        session = _continuation(previous, start_offset)
    else:
        session = Session(session_id=source.stem, source_file=str(source), start_offset=start_offset)
    builder = _SessionBuilder(session)
    _read_into(builder, source, start_offset, count_offsets=True)
    if include_subagents:
        for agent_file in subagent_transcripts(source):
            builder.sidechain_file = str(agent_file)
            _read_into(builder, agent_file, 0, count_offsets=False)
            session.subagent_files.append(str(agent_file))
        builder.sidechain_file = None
    builder.finish()
    return session


def _continuation(previous: Session, start_offset: int) -> Session:
    """The previous session without what is re-read every time (sub-agent files, problems)."""
    messages = [m for m in previous.messages if not m.from_subagent]
    return replace(
        previous,
        messages=messages,
        tool_calls=[c for c in previous.tool_calls if not c.from_subagent],
        problems=[],
        subagent_files=[],
        usage=TokenUsage(),
        start_offset=start_offset,
    )


def subagent_transcripts(source: Path) -> list[Path]:
    """The sub-agent transcripts that belong to the session transcript `source`."""
    folder = source.with_suffix("") / "subagents"
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file()) if folder.is_dir() else []


def _read_into(builder: _SessionBuilder, source: Path, start_offset: int, count_offsets: bool) -> None:
    session = builder.session
    name = str(source)
    for line_no, offset_after, raw in _lines(source, start_offset, session, track_offset=count_offsets):
        record = _decode(raw, name, line_no, session)
        if record is not None:
            builder.add(record, line_no)
        if count_offsets:
            session.end_offset = offset_after
            session.lines_read += 1


def _lines(
    source: Path, start_offset: int, session: Session, track_offset: bool = True
) -> Iterator[tuple[int, int, bytes]]:
    """Yield (line number, byte offset after the line, raw bytes) for complete lines.

    Line numbers count from the start of the file even when reading resumes at an offset, so a
    problem report always points at the real line.
    """
    line_no = 0
    with source.open("rb") as handle:
        if start_offset:
            # Count the lines before the offset without holding them: memory stays flat.
            remaining = start_offset
            while remaining > 0:
                chunk = handle.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                line_no += chunk.count(b"\n")
                remaining -= len(chunk)
        offset = handle.tell()
        if track_offset:
            session.end_offset = offset
        for raw in handle:
            line_no += 1
            offset += len(raw)
            if not raw.endswith(b"\n"):
                try:
                    json.loads(raw)
                except ValueError:
                    session.problems.append(
                        Problem(
                            str(source),
                            line_no,
                            "truncated last line (incomplete write?); left for the next read",
                        )
                    )
                    return
            yield line_no, offset, raw


def _decode(raw: bytes, source: str, line_no: int, session: Session) -> dict[str, Any] | None:
    stripped = raw.strip()
    if not stripped:
        return None
    try:
        text = stripped.decode("utf-8")
    except UnicodeDecodeError as exc:
        session.problems.append(
            Problem(source, line_no, f"invalid UTF-8 at byte {exc.start}; bad bytes replaced")
        )
        text = stripped.decode("utf-8", errors="replace")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        session.problems.append(Problem(source, line_no, f"invalid JSON: {exc.msg} (column {exc.colno})"))
        return None
    if not isinstance(record, dict):
        session.problems.append(
            Problem(source, line_no, f"expected a JSON object, got {type(record).__name__}")
        )
        return None
    return record


def _timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _usage(value: Any) -> TokenUsage | None:
    if not isinstance(value, dict):
        return None
    return TokenUsage(
        input_tokens=_int(value.get("input_tokens")),
        output_tokens=_int(value.get("output_tokens")),
        cache_creation_input_tokens=_int(value.get("cache_creation_input_tokens")),
        cache_read_input_tokens=_int(value.get("cache_read_input_tokens")),
    )


def _block_text(content: Any) -> str:
    """Text of a tool_result's content: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(parts)
    return ""


class _SessionBuilder:
    """Folds records into the Session: merges split API responses, links tool results to calls."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.by_message_id: dict[str, Message] = {}
        self.pending_results: dict[str, ToolResult] = {}
        self.sidechain_file: str | None = None  # set while reading a sub-agent transcript
        for message in session.messages:  # a continued session: later lines may refer back
            if message.message_id:
                self.by_message_id[message.message_id] = message
        self.calls: dict[str, ToolCall] = {call.id: call for call in session.tool_calls}

    @property
    def source(self) -> str:
        return self.sidechain_file or self.session.source_file

    def _problem(self, line_no: int, message: str) -> None:
        self.session.problems.append(Problem(self.source, line_no, message))

    def _sidechain(self, record: dict[str, Any]) -> bool:
        return self.sidechain_file is not None or record.get("isSidechain") is True

    def add(self, record: dict[str, Any], line_no: int) -> None:
        session = self.session
        kind = record.get("type")
        kind_name = kind if isinstance(kind, str) else "<missing>"
        session.record_counts[kind_name] = session.record_counts.get(kind_name, 0) + 1
        self._metadata(record)
        if kind == "summary":
            if isinstance(record.get("summary"), str):
                session.summaries.append(record["summary"])
            return
        if kind not in ("user", "assistant"):
            # Known bookkeeping and unknown future types: counted above, never a crash.
            return
        message = record.get("message")
        if not isinstance(message, dict):
            self._problem(line_no, f"{kind} record without a message object; skipped")
            return
        if kind == "assistant":
            self._assistant(record, message, line_no)
        else:
            self._user(record, message, line_no)

    def _metadata(self, record: dict[str, Any]) -> None:
        session = self.session
        sid = record.get("sessionId")
        if isinstance(sid, str) and sid and session.session_id == Path(session.source_file).stem:
            session.session_id = sid
        if isinstance(record.get("cwd"), str) and record["cwd"] and session.cwd is None:
            session.cwd = record["cwd"]
        if isinstance(record.get("gitBranch"), str) and record["gitBranch"]:
            session.git_branch = record["gitBranch"]
        if isinstance(record.get("version"), str):
            session.version = record["version"]
        ts = _timestamp(record.get("timestamp"))
        if ts is not None:
            if session.started_at is None or ts < session.started_at:
                session.started_at = ts
            if session.ended_at is None or ts > session.ended_at:
                session.ended_at = ts

    def _assistant(self, record: dict[str, Any], message: dict[str, Any], line_no: int) -> None:
        session = self.session
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        merged = self.by_message_id.get(message_id) if message_id else None
        if merged is None:
            merged = Message(
                uuid=str(record.get("uuid") or f"line-{line_no}"),
                role="assistant",
                text="",
                timestamp=_timestamp(record.get("timestamp")),
                line=line_no,
                is_sidechain=self._sidechain(record),
                from_subagent=self.sidechain_file is not None,
                message_id=message_id,
            )
            session.messages.append(merged)
            if message_id:
                self.by_message_id[message_id] = merged
        usage = _usage(message.get("usage"))
        if usage is not None:
            # Every line of a split response repeats the usage; the last one is the final count.
            merged.usage = usage
        content = message.get("content")
        if isinstance(content, str):
            merged.text = f"{merged.text}\n{content}".strip()
            return
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                merged.text = f"{merged.text}\n{block['text']}".strip()
            elif block.get("type") == "tool_use":
                self._tool_use(block, merged, line_no)

    def _tool_use(self, block: dict[str, Any], message: Message, line_no: int) -> None:
        call_id = block.get("id")
        name = block.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str):
            self._problem(line_no, "tool_use block without id or name; skipped")
            return
        if call_id in self.calls:
            return
        tool_input = block.get("input")
        call = ToolCall(
            id=call_id,
            name=name,
            input=_bounded(tool_input) if isinstance(tool_input, dict) else {},
            timestamp=message.timestamp,
            line=line_no,
            is_sidechain=message.is_sidechain,
            from_subagent=message.from_subagent,
            result=self.pending_results.pop(call_id, None),
        )
        self.calls[call_id] = call
        message.tool_calls.append(call)
        self.session.tool_calls.append(call)

    def _user(self, record: dict[str, Any], message: dict[str, Any], line_no: int) -> None:
        content = message.get("content")
        texts: list[str] = []
        result_ids: list[str] = []
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            structured = record.get("toolUseResult")
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    texts.append(block["text"])
                elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                    result = ToolResult(
                        text=_head_and_tail(_block_text(block.get("content"))),
                        is_error=bool(block.get("is_error")),
                        timestamp=_timestamp(record.get("timestamp")),
                        structured=structured if isinstance(structured, dict) else None,
                    )
                    call = self.calls.get(block["tool_use_id"])
                    if call is not None:
                        call.result = result
                    else:
                        self.pending_results[block["tool_use_id"]] = result
                    result_ids.append(block["tool_use_id"])
        else:
            self._problem(line_no, "user message content is neither text nor a list")
        self.session.messages.append(
            Message(
                uuid=str(record.get("uuid") or f"line-{line_no}"),
                role="user",
                text="\n".join(texts),
                timestamp=_timestamp(record.get("timestamp")),
                line=line_no,
                is_sidechain=self._sidechain(record),
                from_subagent=self.sidechain_file is not None,
                is_meta=bool(record.get("isMeta")) or _is_harness_text("\n".join(texts)),
                tool_results=result_ids,
            )
        )

    def finish(self) -> None:
        for message in self.session.messages:
            if message.usage is not None:
                self.session.usage.add(message.usage)


def _head_and_tail(text: str) -> str:
    if len(text) <= TEXT_LIMIT:
        return text
    head, tail = TEXT_LIMIT // 4, TEXT_LIMIT - TEXT_LIMIT // 4
    return f"{text[:head]}\n…[{len(text) - TEXT_LIMIT} characters cut]…\n{text[-tail:]}"


def _bounded(value: Any) -> Any:
    """A copy of a tool input with every long string cut to INPUT_TEXT_LIMIT characters."""
    if isinstance(value, str):
        if len(value) <= INPUT_TEXT_LIMIT:
            return value
        return value[:INPUT_TEXT_LIMIT] + f"…[{len(value) - INPUT_TEXT_LIMIT} more]"
    if isinstance(value, dict):
        return {k: _bounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bounded(v) for v in value]
    return value


def _is_harness_text(text: str) -> bool:
    """Text Claude Code or its hooks inject into the user role, not typed by a person."""
    head = text.lstrip()[:200]
    return head.startswith(
        ("<command-", "<local-command-", "Stop hook feedback:", "Caveat: ", "[Request interrupted")
    )
