"""Fuzzing the transcript reader: whatever the bytes, it returns a Session and names each problem.

Inputs: arbitrary bytes; arbitrary JSON lines; records shaped like Claude Code's with wrong types
and missing fields; the same damaged (cut lines, invalid UTF-8, garbage); reads resumed at any
offset. Properties: `read_transcript` never raises; every problem is `file:line: reason` with a
line that exists; `end_offset` is a line boundary; the texts left in the transcript (spills) can
be read back; a read continued from an offset (also through the ledger's encoding) equals a full
read.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from graphiti_session_tracking.summary import summarize_session
from graphiti_session_tracking.transcripts import Session, read_transcript
from graphiti_session_tracking.transcripts.state import decode_session, encode_session

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def transcript(data: bytes) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.jsonl"
        path.write_bytes(data)
        yield path


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def check(session: Session, path: Path, data: bytes, start_offset: int = 0) -> None:
    """The properties every read must have, whatever the input."""
    first_line = data[: max(0, start_offset)].count(b"\n") + 1
    for problem in session.problems:
        assert problem.source == str(path)
        assert first_line <= problem.line <= line_count(data), (problem, first_line)
        assert problem.message and "\n" not in problem.message
        assert str(problem) == f"{path}:{problem.line}: {problem.message}"
    end = session.end_offset
    assert min(max(0, start_offset), len(data)) <= end <= len(data)
    # A line boundary: the start, just after a newline, or the end of a complete last line.
    assert end == max(0, start_offset) or data[end - 1 : end] == b"\n" or end == len(data)
    for call in session.tool_calls:  # spilled texts read back from the file
        assert isinstance(call.full_input, dict)
        if call.input_cut:
            assert call.full_input != call.input
        if call.result is not None:
            assert isinstance(call.result.text, str)
            assert call.result.structured is None or isinstance(call.result.structured, dict)


# --- strategies ---------------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Long texts (past the reader's inline limits) built cheaply.
long_texts = st.builds(
    lambda word, n: (word + "\n") * n, st.text(min_size=1, max_size=8), st.integers(0, 2_500)
)
texts = st.text(max_size=40) | long_texts
zones = st.sampled_from([None, UTC, timezone(timedelta(hours=14)), timezone(-timedelta(hours=12))])
timestamps = (
    st.builds(
        lambda moment, zone: moment.replace(tzinfo=zone).isoformat(),
        st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
        zones,
    )
    | st.sampled_from(["2026-01-01T10:00:00Z", "2026-01-01T10:00:00", "2026-13-01T00:00:00Z", "yesterday"])
    | json_values
)
call_ids = st.sampled_from(["t1", "t2", "t3"]) | json_values
tool_names = (
    st.sampled_from(["Bash", "Write", "Edit", "MultiEdit", "Read", "TodoWrite", "mcp__x__y"]) | json_values
)
input_keys = st.sampled_from(
    ["command", "file_path", "content", "old_string", "new_string", "todos", "edits"]
)
text_blocks = st.fixed_dictionaries({"type": st.just("text")}, optional={"text": texts | json_values})
tool_uses = st.fixed_dictionaries(
    {"type": st.just("tool_use")},
    optional={
        "id": call_ids,
        "name": tool_names,
        "input": st.dictionaries(input_keys, texts | json_values, max_size=4) | json_values,
    },
)
tool_results = st.fixed_dictionaries(
    {"type": st.just("tool_result")},
    optional={
        "tool_use_id": call_ids,
        "content": texts | st.lists(text_blocks, max_size=3) | json_values,
        "is_error": st.booleans() | json_values,
    },
)
blocks = text_blocks | tool_uses | tool_results | json_values
usage = st.dictionaries(
    st.sampled_from(["input_tokens", "output_tokens", "cache_read_input_tokens"]),
    st.integers(min_value=-5, max_value=10**12) | json_values,
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["user", "assistant"]) | json_values,
        "id": st.sampled_from(["m1", "m2"]) | json_values,
        "content": texts | st.lists(blocks, max_size=4) | json_values,
        "usage": usage | json_values,
    },
)
records = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user", "assistant", "summary", "system", "progress", "x-future"])
        | json_values
    },
    optional={
        "message": messages | json_values,
        "uuid": st.text(max_size=12) | json_values,
        "sessionId": st.text(max_size=12) | json_values,
        "cwd": st.sampled_from(["/p", ""]) | json_values,
        "gitBranch": st.text(max_size=8) | json_values,
        "version": st.text(max_size=8) | json_values,
        "timestamp": timestamps,
        "isSidechain": st.booleans() | json_values,
        "isMeta": st.booleans() | json_values,
        "summary": st.text(max_size=20) | json_values,
        "toolUseResult": st.dictionaries(
            st.sampled_from(["stdout", "stderr", "type", "originalFile", "content"]), texts | json_values
        )
        | json_values,
    },
)


def jsonl(items: list[Any]) -> bytes:
    return b"".join(json.dumps(item).encode() + b"\n" for item in items)


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """Plausible records, then some lines cut, given invalid UTF-8 or garbage; maybe no last newline."""
    lines = [json.dumps(r).encode() for r in draw(st.lists(records, max_size=8))]
    out = []
    for line in lines:
        damage = draw(st.sampled_from(["none", "none", "cut", "bad-utf8", "garbage", "blank"]))
        if damage == "cut" and line:
            line = line[: draw(st.integers(0, len(line) - 1))]
        elif damage == "bad-utf8":
            at = draw(st.integers(0, len(line)))
            line = (
                line[:at]
                + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]))
                + line[at:]
            )
        elif damage == "garbage":
            line = draw(st.binary(max_size=30)).replace(b"\n", b" ")
        elif damage == "blank":
            line = b"   "
        out.append(line)
    data = b"\n".join(out)
    return data + b"\n" if draw(st.booleans()) else data


# --- properties ---------------------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=2_000))
# Found by fuzzing, once crashes: an integer past Python's 4,300-digit limit, nesting deeper than
# the stack (on a complete and on an unfinished last line), times with and without a zone.
@example(b'{"type": "user", "n": ' + b"9" * 5_000 + b"}\n")
@example(b"[" * 100_000 + b"]" * 100_000 + b"\n")
@example(b"[" * 100_000)
@example(
    b'{"type": "x", "timestamp": "2026-01-01T10:00:00Z"}\n{"type": "x", "timestamp": "2026-01-01T09:00:00"}\n'
)
def test_arbitrary_bytes(data: bytes) -> None:
    with transcript(data) as path:
        check(read_transcript(path), path, data)


@FUZZ
@given(st.lists(json_values, max_size=10))
def test_arbitrary_json_lines(items: list[Any]) -> None:
    data = jsonl(items)
    with transcript(data) as path:
        session = read_transcript(path)
        check(session, path, data)
        assert session.end_offset == len(data)  # every line is complete


@FUZZ
@given(st.lists(records, max_size=12))
def test_claude_code_records_with_wrong_types_and_missing_fields(items: list[dict[str, Any]]) -> None:
    data = jsonl(items)
    with transcript(data) as path:
        session = read_transcript(path)
        check(session, path, data)
        assert session.lines_read == len(items)
        assert sum(session.record_counts.values()) == len(items)  # every record counted, none lost


@FUZZ
@given(damaged())
def test_cut_lines_invalid_utf8_and_garbage(data: bytes) -> None:
    with transcript(data) as path:
        session = read_transcript(path)
        check(session, path, data)
        if data[session.end_offset :].strip():
            # An unfinished last line is left for the next read, and said so (blanks need no word).
            assert str(session.problems[-1]).endswith("left for the next read")


@FUZZ
@given(damaged(), st.integers(min_value=-10, max_value=3_000))
def test_resumed_at_any_offset(data: bytes, offset: int) -> None:
    with transcript(data) as path:
        check(read_transcript(path, start_offset=offset), path, data, offset)


@FUZZ
@given(st.lists(records, min_size=1, max_size=10), st.data())
def test_continued_read_equals_full_read_also_through_the_ledger_encoding(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    lines = [json.dumps(item).encode() + b"\n" for item in items]
    cut = data.draw(st.integers(0, len(lines)))
    head = b"".join(lines[:cut])
    with transcript(head) as path:
        first = read_transcript(path)
        kept = decode_session(encode_session(first))
        path.write_bytes(b"".join(lines))
        full = read_transcript(path)
        for previous in (first, kept):
            continued = read_transcript(path, start_offset=previous.end_offset, previous=previous)
            check(continued, path, b"".join(lines), previous.end_offset)
            assert _shape(continued) == _shape(full)


def _shape(session: Session) -> Any:
    """What a continued read must reproduce: messages, calls with results and texts, totals."""
    return (
        session.session_id,
        session.cwd,
        session.started_at,
        session.ended_at,
        session.usage,
        session.end_offset,
        [(m.role, m.text, m.is_sidechain, m.is_meta, [c.id for c in m.tool_calls]) for m in session.messages],
        [
            (
                c.id,
                c.name,
                c.full_input,
                c.result.text if c.result else None,
                c.result and c.result.structured,
            )
            for c in session.tool_calls
        ],
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records, max_size=12))
def test_whatever_the_reader_returns_can_be_summarized(items: list[dict[str, Any]]) -> None:
    """The extractors read spilled texts and odd inputs of the same records without failing."""
    data = jsonl(items)
    with transcript(data) as path:
        session = read_transcript(path)
        summary = asyncio.run(summarize_session(session))
        assert summary.message_count == session.user_message_count + session.assistant_message_count
