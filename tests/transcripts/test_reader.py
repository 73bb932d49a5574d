"""The transcript reader on the real fixtures and on broken input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS

from graphiti_session_tracking.transcripts import TranscriptNotFoundError, read_transcript


def test_real_transcript_metadata_and_tool_links() -> None:
    session = read_transcript(TRANSCRIPTS / "hello-world-script.jsonl")
    assert session.session_id == "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    assert session.cwd == "/tmp/tmp74wiyiny" and session.version == "2.1.14"
    assert session.problems == []
    assert [c.name for c in session.tool_calls] == ["Write", "Bash"]
    write, bash = session.tool_calls
    assert write.succeeded and write.result is not None and "File created" in write.result.text
    assert write.result.structured is not None and write.result.structured["type"] == "create"
    assert bash.result is not None and "Hello world" in bash.result.text
    assert session.started_at is not None and session.ended_at is not None
    assert session.started_at < session.ended_at


def test_split_api_responses_merge_and_count_usage_once() -> None:
    path = TRANSCRIPTS / "python-to-rust-port.jsonl"
    ids: dict[str, int] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "assistant":
            mid = record["message"]["id"]
            ids[mid] = ids.get(mid, 0) + 1
    session = read_transcript(path)
    assistant = [m for m in session.messages if m.role == "assistant"]
    assert len(assistant) == len(ids)  # one Message per API response, however many lines
    assert any(n > 1 for n in ids.values())
    assert session.usage.output_tokens == sum(m.usage.output_tokens for m in assistant if m.usage)


def test_bad_lines_are_reported_with_line_numbers_and_the_rest_is_read(tmp_path: Path) -> None:
    good = (TRANSCRIPTS / "hello-world-script.jsonl").read_bytes().splitlines(keepends=True)
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(
        good[0]
        + b"{oops\n"
        + good[1]
        + b"[1, 2]\n"
        + b'{"type": "user", "message": "x"}\n'
        + good[2].replace(b"Hello world", b"Hello \xff world")
        + b"".join(good[3:])
        + b'{"type": "assistant", "mess'
    )
    session = read_transcript(broken)
    messages = [str(p) for p in session.problems]
    assert (
        messages[0]
        == f"{broken}:2: invalid JSON: Expecting property name enclosed in double quotes (column 2)"
    )
    assert messages[1] == f"{broken}:4: expected a JSON object, got list"
    assert messages[2] == f"{broken}:5: user record without a message object; skipped"
    assert messages[3].startswith(f"{broken}:6: invalid UTF-8")
    assert (
        messages[-1]
        == f"{broken}:{len(good) + 4}: truncated last line (incomplete write?); left for the next read"
    )
    assert [c.name for c in session.tool_calls] == ["Write", "Bash"]
    assert "Hello \ufffd world" in session.tool_calls[0].input["content"]
    # The truncated line stays unread: a later read starting at end_offset picks it up once complete.
    assert session.end_offset == broken.stat().st_size - len(b'{"type": "assistant", "mess')


def test_resume_from_offset_reads_only_new_lines_with_true_line_numbers(tmp_path: Path) -> None:
    lines = (TRANSCRIPTS / "hello-world-script.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b"".join(lines[:4]))
    first = read_transcript(path)
    path.write_bytes(b"".join(lines[:4]) + b"{bad\n" + b"".join(lines[4:]))
    rest = read_transcript(path, start_offset=first.end_offset)
    assert [str(p) for p in rest.problems] == [
        f"{path}:5: invalid JSON: Expecting property name enclosed in double quotes (column 2)"
    ]
    assert rest.end_offset == path.stat().st_size
    assert len(first.messages) + len(rest.messages) == len(read_transcript(path).messages)


def test_empty_file_and_missing_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    session = read_transcript(empty)
    assert session.messages == [] and session.problems == [] and session.end_offset == 0
    with pytest.raises(TranscriptNotFoundError, match="transcript not found"):
        read_transcript(tmp_path / "missing.jsonl")
