"""Read a Claude Code JSONL transcript into a Session, streaming, one line at a time.

Bad lines never stop the read: each becomes a Problem naming file and line, and the lines around
it still count. Reading can start at a byte offset (incremental ingest); `end_offset` is always at
a line boundary, and a truncated last line (a write in progress) is left for the next read.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphiti_session_tracking.redact import redact_pasted_tokens

from .claude_tools import claude_tool_kind
from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult
from .spill import (
    INPUT_TEXT_LIMIT,
    RESULT_INLINE_LIMIT,
    TEXT_LIMIT,
    Spill,
    block_text,
    decode_record,
    loads_json,
    preview_input,
)

__all__ = [
    "INPUT_TEXT_LIMIT",
    "TEXT_LIMIT",
    "TranscriptNotFoundError",
    "read_transcript",
    "subagent_transcripts",
]


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

    Another agent's session (a Codex CLI rollout, a Gemini CLI chat, an OpenCode session file or
    `<opencode.db>#<session id>`) is read by that agent's reader, always whole (`start_offset` and
    `previous` do not apply; the session's `end_offset` is where the next read would start all the
    same). An OpenCode database that cannot be read raises its OpenCodeDatabaseError.
    """
    # The other agents' readers use this module's helpers: imported here, not at the top.
    from .agents import in_database
    from .codex import is_codex_rollout, read_codex
    from .gemini import is_gemini_chat, read_gemini
    from .opencode import is_opencode_session, read_opencode
    from .opencode_db import read_opencode_db

    source = Path(path)
    start_offset = max(0, start_offset)
    stored = in_database(source)
    if stored is not None:
        return read_opencode_db(*stored)
    if not source.is_file():
        raise TranscriptNotFoundError(f"transcript not found: {source}")
    for is_theirs, read in (
        (is_codex_rollout, read_codex),
        (is_gemini_chat, read_gemini),
        (is_opencode_session, read_opencode),
    ):
        if is_theirs(source):
            return read(source)
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


class _Line:
    """One raw line and where it is, so a long text in it can be read again later (a Spill)."""

    __slots__ = ("_crc", "number", "path", "raw", "start")

    def __init__(self, path: str, number: int, start: int, raw: bytes) -> None:
        self.path, self.number, self.start, self.raw = path, number, start, raw
        self._crc: int | None = None

    def spill(self, block: int) -> Spill:
        if self._crc is None:
            self._crc = zlib.crc32(self.raw)
        return Spill(self.path, self.start, len(self.raw), self._crc, self.number, block)


def _read_into(builder: _SessionBuilder, source: Path, start_offset: int, count_offsets: bool) -> None:
    session = builder.session
    name = str(source)
    where = os.path.abspath(source)  # one string object for every Spill of this file
    for line_no, offset_after, raw in _lines(source, start_offset, session, track_offset=count_offsets):
        record = _decode(raw, name, line_no, session)
        if record is not None:
            builder.add(record, _Line(where, line_no, offset_after - len(raw), raw))
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
                if not raw.strip():
                    return  # trailing blanks of a write in progress: nothing to read yet
                try:
                    decode_record(raw)
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
        record = loads_json(text)
    except ValueError as exc:
        msg = f"{exc.msg} (column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else str(exc)
        session.problems.append(Problem(source, line_no, f"invalid JSON: {msg}"))
        return None
    if not isinstance(record, dict):
        session.problems.append(
            Problem(source, line_no, f"expected a JSON object, got {type(record).__name__}")
        )
        return None
    return record


def _timestamp(value: Any) -> datetime | None:
    """An ISO time; one without a zone is taken as UTC (Claude Code writes UTC), so all compare."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            return parsed.replace(tzinfo=UTC)
        parsed.astimezone(UTC)  # a zone that pushes it out of datetime's range cannot be compared
    except (ValueError, OverflowError):
        return None
    return parsed


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _shown(value: Any) -> str:
    """A wrong value as a problem shows it: short and on one line."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    try:
        text = repr(value) if isinstance(value, str) else json.dumps(value)
    except ValueError:  # an integer too long to print
        text = type(value).__name__
    return text if len(text) <= 60 else text[:59] + "…"


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
        # One copy of each repeated short string (tool names, input keys, paths) for this read.
        self.strings: dict[str, str] = {}

    def share(self, text: str) -> str:
        return self.strings.setdefault(text, text)

    @property
    def source(self) -> str:
        return self.sidechain_file or self.session.source_file

    def _problem(self, line_no: int, message: str) -> None:
        self.session.problems.append(Problem(self.source, line_no, message))

    def _typed(self, line_no: int, container: dict[str, Any], key: str, kind: type, where: str = "") -> Any:
        """`container[key]` when it has the type the reader needs; otherwise None, and a wrong
        type (not a missing field, not null: both mean "not set") is reported as a problem."""
        value = container.get(key)
        if value is None or isinstance(value, kind):
            return value
        expected = {str: "a string", bool: "true or false", dict: "an object", list: "a list"}.get(kind, "?")
        self._problem(line_no, f"{where}{key}: expected {expected}, got {_shown(value)}")
        return None

    def _sidechain(self, record: dict[str, Any], line_no: int) -> bool:
        return self._typed(line_no, record, "isSidechain", bool) is True or self.sidechain_file is not None

    def _uuid(self, record: dict[str, Any], line_no: int) -> str:
        return self._typed(line_no, record, "uuid", str) or f"line-{line_no}"

    def _usage(self, message: dict[str, Any], line_no: int) -> TokenUsage | None:
        usage = self._typed(line_no, message, "usage", dict, "message.")
        if usage is None:
            return None
        counts: list[int] = []
        for name in _USAGE_FIELDS:
            value = usage.get(name)
            if value is not None and not _is_count(value):
                self._problem(line_no, f"message.usage.{name}: expected a count, got {_shown(value)}")
            counts.append(value if _is_count(value) else 0)
        return TokenUsage(*counts)

    def add(self, record: dict[str, Any], line: _Line) -> None:
        session = self.session
        line_no = line.number
        kind = self._typed(line_no, record, "type", str)
        kind_name = kind if isinstance(kind, str) else "<missing>"
        session.record_counts[kind_name] = session.record_counts.get(kind_name, 0) + 1
        timestamp = self._metadata(record, line_no)
        if kind == "summary":
            if isinstance(record.get("summary"), str):
                session.summaries.append(record["summary"])
            return
        if kind == "attachment":
            self._queued(record, line_no, timestamp)
            return
        if kind not in ("user", "assistant"):
            # Bookkeeping (queue-operation, file-history-snapshot, progress, system) and unknown
            # future types: counted above, never a crash.
            return
        message = record.get("message")
        if not isinstance(message, dict):
            self._problem(line_no, f"{kind} record without a message object; skipped")
            return
        self._typed(line_no, message, "role", str, "message.")
        if kind == "assistant":
            self._assistant(record, message, line, timestamp)
        else:
            self._user(record, message, line, timestamp)

    def _queued(self, record: dict[str, Any], line_no: int, timestamp: datetime | None) -> None:
        """A prompt the user typed while the assistant worked, handed to it mid-turn: Claude Code
        writes it as a `queued_command` attachment, never as a user message, and it often
        redirects the work. Other attachments (reminders, hook output, background-task
        notifications) are the harness's."""
        text = redact_pasted_tokens(_queued_prompt(record))
        if text.strip():
            self._user_message(record, line_no, timestamp, text, is_harness_text(text), [])

    def _user_message(
        self,
        record: dict[str, Any],
        line_no: int,
        timestamp: datetime | None,
        text: str,
        is_meta: bool,
        results: list[str],
    ) -> None:
        self.session.messages.append(
            Message(
                uuid=self._uuid(record, line_no),
                role="user",
                text=text,
                timestamp=timestamp,
                line=line_no,
                is_sidechain=self._sidechain(record, line_no),
                from_subagent=self.sidechain_file is not None,
                is_meta=is_meta,
                tool_results=results,
            )
        )

    def _metadata(self, record: dict[str, Any], line_no: int) -> datetime | None:
        """Session-wide fields from any record; returns the record's time."""
        session = self.session
        sid = self._typed(line_no, record, "sessionId", str)
        if sid and session.session_id == Path(session.source_file).stem:
            session.session_id = sid
        cwd = self._typed(line_no, record, "cwd", str)
        if cwd and session.cwd is None:
            session.cwd = cwd
        branch = self._typed(line_no, record, "gitBranch", str)
        if branch:
            session.git_branch = branch
        version = self._typed(line_no, record, "version", str)
        if version is not None:
            session.version = version
        self._typed(line_no, record, "parentUuid", str)
        raw_time = self._typed(line_no, record, "timestamp", str)
        ts = _timestamp(raw_time)
        if raw_time is not None and ts is None:
            self._problem(line_no, f"timestamp: not a time: {_shown(raw_time)}")
        if ts is not None:
            if session.started_at is None or ts < session.started_at:
                session.started_at = ts
            if session.ended_at is None or ts > session.ended_at:
                session.ended_at = ts
        return ts

    def _assistant(
        self, record: dict[str, Any], message: dict[str, Any], line: _Line, timestamp: datetime | None
    ) -> None:
        session = self.session
        line_no = line.number
        message_id = self._typed(line_no, message, "id", str, "message.")
        merged = self.by_message_id.get(message_id) if message_id else None
        sidechain = self._sidechain(record, line_no)
        uuid = self._uuid(record, line_no)
        if merged is None:
            merged = Message(
                uuid=uuid,
                role="assistant",
                text="",
                timestamp=timestamp,
                line=line_no,
                is_sidechain=sidechain,
                from_subagent=self.sidechain_file is not None,
                message_id=message_id,
            )
            session.messages.append(merged)
            if message_id:
                self.by_message_id[message_id] = merged
        usage = self._usage(message, line_no)
        if usage is not None:
            # Every line of a split response repeats the usage; the last one is the final count.
            merged.usage = usage
        content = message.get("content")
        if isinstance(content, str):
            merged.text = f"{merged.text}\n{content}".strip()
            return
        if not isinstance(content, list):
            if content is not None:
                self._problem(line_no, f"message.content: expected text or a list, got {_shown(content)}")
            return
        for index, block in enumerate(content):
            block_type = self._block_type(block, line_no, index)
            if block_type == "text":
                text = self._typed(line_no, block, "text", str, f"message.content[{index}].")
                if text is not None:
                    merged.text = f"{merged.text}\n{text}".strip()
            elif block_type == "tool_use":
                self._tool_use(block, merged, line, index)
            elif block_type == "thinking":
                thought = self._typed(line_no, block, "thinking", str, f"message.content[{index}].")
                if thought:
                    merged.thinking = f"{merged.thinking}\n{thought}".strip()

    def _block_type(self, block: Any, line_no: int, index: int) -> str | None:
        """A content block's type; a block that is not an object, or a non-text type, is reported."""
        if not isinstance(block, dict):
            self._problem(line_no, f"message.content[{index}]: expected an object, got {_shown(block)}")
            return None
        kind = self._typed(line_no, block, "type", str, f"message.content[{index}].")
        return kind if isinstance(kind, str) else None

    def _tool_use(self, block: dict[str, Any], message: Message, line: _Line, index: int) -> None:
        line_no = line.number
        call_id = block.get("id")
        name = block.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str):
            self._problem(line_no, "tool_use block without id or name; skipped")
            return
        if call_id in self.calls:
            return
        tool_input = self._typed(line_no, block, "input", dict, f"message.content[{index}].")
        preview, cut = preview_input(tool_input, self.share) if tool_input is not None else ({}, False)
        call = ToolCall(
            id=call_id,
            name=self.share(name),
            kind=claude_tool_kind(name),
            input=preview,
            timestamp=message.timestamp,
            line=line_no,
            is_sidechain=message.is_sidechain,
            from_subagent=message.from_subagent,
            result=self.pending_results.pop(call_id, None),
            spill=line.spill(index) if cut else None,
        )
        self.calls[call_id] = call
        message.tool_calls.append(call)
        self.session.tool_calls.append(call)

    def _user(
        self, record: dict[str, Any], message: dict[str, Any], line: _Line, timestamp: datetime | None
    ) -> None:
        line_no = line.number
        content = message.get("content")
        texts: list[str] = []
        result_ids: list[str] = []
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            structured = record.get("toolUseResult")
            has_structured = isinstance(structured, dict)
            # Claude Code writes an object, or for some tools a string or a list; never a number.
            if structured is not None and not isinstance(structured, (dict, str, list)):
                self._problem(line_no, f"toolUseResult: expected an object, got {_shown(structured)}")
            for index, block in enumerate(content):
                block_type = self._block_type(block, line_no, index)
                where = f"message.content[{index}]."
                if block_type == "text":
                    text = self._typed(line_no, block, "text", str, where)
                    if text is not None:
                        texts.append(text)
                elif block_type == "tool_result" and self._typed(line_no, block, "tool_use_id", str, where):
                    is_error = self._typed(line_no, block, "is_error", bool, where) is True
                    result = _result(block, line, index, timestamp, has_structured, is_error)
                    call = self.calls.get(block["tool_use_id"])
                    if call is not None:
                        call.result = result
                        result_ids.append(call.id)  # the call's own string, not a second copy
                    else:
                        self.pending_results[block["tool_use_id"]] = result
                        result_ids.append(block["tool_use_id"])
        else:
            self._problem(line_no, "user message content is neither text nor a list")
        is_meta = self._typed(line_no, record, "isMeta", bool) is True
        typed = "\n".join(texts)
        if not result_ids:  # typed by a person: a token pasted alone on a line is a credential
            typed = redact_pasted_tokens(typed)
        self._user_message(record, line_no, timestamp, typed, is_meta or is_harness_text(typed), result_ids)

    def finish(self) -> None:
        for message in self.session.messages:
            if message.usage is not None:
                self.session.usage.add(message.usage)


def _result(
    block: dict[str, Any],
    line: _Line,
    index: int,
    timestamp: datetime | None,
    structured: bool,
    is_error: bool,
) -> ToolResult:
    """A tool result; a long text and the `toolUseResult` are left in the transcript (see spill.py)."""
    text = block_text(block.get("content"))
    inline = text if len(text) <= RESULT_INLINE_LIMIT else None
    if inline is not None and not structured:
        return ToolResult(text=inline, is_error=is_error, timestamp=timestamp)
    return ToolResult.spilled(
        line.spill(index), is_error=is_error, timestamp=timestamp, text=inline, has_structured=structured
    )


def is_harness_text(text: str) -> bool:
    """Text Claude Code or its hooks inject into the user role, not typed by a person (also a
    background task's or sub-agent's `<task-notification>` report)."""
    head = text.lstrip()[:200]
    return head.startswith(
        (
            "<command-",
            "<local-command-",
            "<task-notification>",
            "Stop hook feedback:",
            "Caveat: ",
            "[Request interrupted",
        )
    )


def count_messages(path: Path, offset: int, limit: int | None = None) -> int:
    """Messages in `path` after byte `offset`, counted as the reader counts them; stops at `limit`.

    Only complete lines count (a line still being written is counted when it is finished)."""
    count = 0
    responses: set[str] = set()
    with path.open("rb") as handle:
        handle.seek(offset)
        for raw in handle:
            if limit is not None and count >= limit:
                break
            try:
                record = json.loads(raw)
            except ValueError:  # a bad line or one being written: the reader skips it too
                continue
            if not isinstance(record, dict):
                continue
            queued = _queued_prompt(record)
            if queued.strip() and not is_harness_text(queued):
                count += 1
            message = record.get("message")
            if not isinstance(message, dict):
                continue
            if record.get("type") == "assistant":
                response = message.get("id")
                if isinstance(response, str):
                    if response in responses:
                        continue  # another line of the same API response
                    responses.add(response)
                count += 1
            elif (
                record.get("type") == "user"
                and not record.get("isMeta")
                and not is_harness_text(_user_text(message.get("content")))
            ):
                count += 1
    return count if limit is None else min(count, limit)


def _queued_prompt(record: dict[str, Any]) -> str:
    """The text of a prompt the user queued (an `attachment` record), else ""."""
    attachment = record.get("attachment") if record.get("type") == "attachment" else None
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return ""
    return _user_text(attachment.get("prompt")) if attachment.get("commandMode", "prompt") == "prompt" else ""


def _user_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""
