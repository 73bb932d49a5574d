"""A parsed Session as compact bytes and back, for the ingest ledger to continue a grown transcript.

The session is written in chunks of plain lists (JSON, then zlib as a stream), so the memory
taken is one chunk's, and tool texts are not copied at all: a call or result refers to its line
in the transcript (`Spill`), as in memory. JSON rather than pickle or marshal: these bytes are
read back from a file on disk, and neither of those is safe on bytes someone else wrote (a
planted pickle runs code). Every text kept (messages, call inputs, short results, problems) goes
through the caller's `redact` first: the ledger must not hold in clear what the graph may not.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from .kinds import ToolKind
from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult
from .spill import Spill

_FORMAT = b"GSS5"  # JSON lists, zlib stream; older formats (marshal, pickle, GSS3 without kinds, GSS4 without agent) are re-read, never loaded
_CHUNK = 2_000

Redact = Callable[[str], str]


class StateError(ValueError):
    """Bytes that are not a session state written by `encode_session`."""


# A message text longer than this is kept as its head and tail: redacting it costs time in
# proportion (a 50 MB paste would take seconds), and every reader of a resumed session looks at a
# message's start (the request), its sentences near the ends, or a bounded window of it.
TEXT_LIMIT = 64_000


def encode_session(session: Session, redact: Redact | None = None) -> bytes:
    """The session as bytes, its texts passed through `redact`; `decode_session` gives it back
    (messages longer than TEXT_LIMIT as their head and tail)."""
    return _FORMAT + b"".join(_compressed(_blobs(session, _bounded(redact or _same))))


def _bounded(redact: Redact) -> Redact:
    def apply(text: str) -> str:
        if len(text) > TEXT_LIMIT:
            half = TEXT_LIMIT // 2
            text = text[:half] + f"\n…[{len(text) - TEXT_LIMIT} characters not kept]…\n" + text[-half:]
        return redact(text)

    return apply


def decode_session(data: bytes) -> Session:
    """The session `encode_session` wrote; StateError when the bytes are anything else."""
    try:
        if not data.startswith(_FORMAT):
            raise StateError("unknown or older session state format")
        return _decode(_unframed(data[len(_FORMAT) :]))
    except StateError:
        raise
    except Exception as exc:  # damaged bytes: any error of zlib, json or the shapes below
        raise StateError(f"damaged session state: {type(exc).__name__}: {exc}") from exc


def _same(text: str) -> str:
    return text


def _deep(value: Any, redact: Redact) -> Any:
    """Every string inside a JSON-like value, redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _deep(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_deep(item, redact) for item in value]
    return value


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _compressed(blobs: Iterator[bytes]) -> Iterator[bytes]:
    packer = zlib.compressobj(1)
    for blob in blobs:
        yield packer.compress(struct.pack(">I", len(blob)) + blob)
    yield packer.flush()


def _unframed(compressed: bytes) -> Iterator[Any]:
    """The stored items, decompressed a piece at a time (never the whole state at once)."""
    unpacker = zlib.decompressobj()
    buffer = b""
    view = memoryview(compressed)
    for start in range(0, len(compressed), 1 << 16):
        buffer += unpacker.decompress(view[start : start + (1 << 16)])
        while len(buffer) >= 4:
            (size,) = struct.unpack_from(">I", buffer)
            if len(buffer) < 4 + size:
                break
            yield json.loads(buffer[4 : 4 + size])
            buffer = buffer[4 + size :]
    if buffer or not unpacker.eof:
        raise StateError("truncated session state")


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _usage(usage: TokenUsage | None) -> tuple[int, int, int, int] | None:
    if usage is None:
        return None
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_creation_input_tokens,
        usage.cache_read_input_tokens,
    )


def _spill(spill: Spill | None, paths: dict[str, int]) -> tuple[int, int, int, int, int, int] | None:
    if spill is None:
        return None
    return (paths[spill.path], spill.offset, spill.length, spill.crc, spill.line, spill.block)


def _blobs(session: Session, redact: Redact) -> Iterator[bytes]:
    """Header (with the transcript paths spills name), chunks of calls, chunks of messages."""
    calls = list(session.tool_calls)
    index = {id(call): i for i, call in enumerate(calls)}
    for message in session.messages:  # calls only a message holds (a hand-built session)
        for call in message.tool_calls:
            if id(call) not in index:
                index[id(call)] = len(calls)
                calls.append(call)
    paths: dict[str, int] = {}
    for call in calls:
        for spill in (call._spill, call.result._spill if call.result else None):
            if spill is not None:
                paths.setdefault(spill.path, len(paths))
    yield _dumps(
        (
            session.session_id,
            session.source_file,
            session.cwd,
            session.git_branch,
            session.agent,
            session.version,
            _time(session.started_at),
            _time(session.ended_at),
            [redact(summary) for summary in session.summaries],
            session.record_counts,
            _usage(session.usage),
            [(p.source, p.line, redact(p.message)) for p in session.problems],
            session.subagent_files,
            session.start_offset,
            session.end_offset,
            session.lines_read,
            len(session.tool_calls),
            len(calls),
            len(session.messages),
            list(paths),
        )
    )
    for start in range(0, len(calls), _CHUNK):
        yield _dumps([_call(call, paths, redact) for call in calls[start : start + _CHUNK]])
    for start in range(0, len(session.messages), _CHUNK):
        yield _dumps(
            [
                (
                    m.uuid,
                    m.role,
                    redact(m.text),
                    _time(m.timestamp),
                    m.line,
                    m.is_sidechain,
                    m.is_meta,
                    m.from_subagent,
                    m.message_id,
                    [index[id(call)] for call in m.tool_calls],
                    [redact(text) for text in m.tool_results],
                    _usage(m.usage),
                    redact(m.thinking),
                )
                for m in session.messages[start : start + _CHUNK]
            ]
        )
    yield _dumps(list(paths))


def _call(call: ToolCall, paths: dict[str, int], redact: Redact) -> tuple[Any, ...]:
    (id_, name, kind, input_, timestamp, line, sidechain, subagent, result, spill) = call.__getstate__()
    encoded_result = None
    if result is not None:
        text, is_error, result_time, structured, result_spill, lazy = result.__getstate__()
        encoded_result = (
            _deep(text, redact),
            is_error,
            _time(result_time),
            _deep(structured, redact),
            _spill(result_spill, paths),
            lazy,
        )
    return (
        id_,
        name,
        kind.value,
        _deep(input_, redact),
        _time(timestamp),
        line,
        sidechain,
        subagent,
        encoded_result,
        _spill(spill, paths),
    )


def _decode(items: Iterator[Any]) -> Session:
    (
        session_id,
        source_file,
        cwd,
        git_branch,
        agent,
        version,
        started_at,
        ended_at,
        summaries,
        record_counts,
        usage,
        problems,
        subagent_files,
        start_offset,
        end_offset,
        lines_read,
        session_calls,
        all_calls,
        message_count,
        paths,
    ) = next(items)

    def spill(value: tuple[int, int, int, int, int, int] | None) -> Spill | None:
        return None if value is None else Spill(paths[value[0]], *value[1:])

    calls: list[ToolCall] = []
    while len(calls) < all_calls:
        for id_, name, kind, input_, timestamp, line, sidechain, subagent, raw_result, raw_spill in next(
            items
        ):
            result = None
            if raw_result is not None:
                text, is_error, result_time, structured, result_spill, lazy = raw_result
                result = ToolResult.__new__(ToolResult)
                result.__setstate__(
                    (text, is_error, _parse_time(result_time), structured, spill(result_spill), lazy)
                )
            call = ToolCall.__new__(ToolCall)
            call.__setstate__(
                (
                    id_,
                    name,
                    ToolKind(kind),
                    input_,
                    _parse_time(timestamp),
                    line,
                    sidechain,
                    subagent,
                    result,
                    spill(raw_spill),
                )
            )
            calls.append(call)
    messages: list[Message] = []
    while len(messages) < message_count:
        messages.extend(
            Message(
                uuid=uuid,
                role=role,
                text=text,
                timestamp=_parse_time(timestamp),
                line=line,
                is_sidechain=sidechain,
                is_meta=meta,
                from_subagent=subagent,
                message_id=message_id,
                tool_calls=[calls[i] for i in call_indices],
                tool_results=tool_results,
                usage=TokenUsage(*message_usage) if message_usage is not None else None,
                thinking=thinking,
            )
            for (
                uuid,
                role,
                text,
                timestamp,
                line,
                sidechain,
                meta,
                subagent,
                message_id,
                call_indices,
                tool_results,
                message_usage,
                thinking,
            ) in next(items)
        )
    return Session(
        session_id=session_id,
        source_file=source_file,
        cwd=cwd,
        git_branch=git_branch,
        agent=agent,
        version=version,
        started_at=_parse_time(started_at),
        ended_at=_parse_time(ended_at),
        messages=messages,
        tool_calls=calls[:session_calls],
        summaries=summaries,
        record_counts=record_counts,
        usage=TokenUsage(*usage),
        problems=[Problem(*p) for p in problems],
        subagent_files=subagent_files,
        start_offset=start_offset,
        end_offset=end_offset,
        lines_read=lines_read,
    )
