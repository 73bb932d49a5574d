"""The transcript reader on the real fixtures and on broken input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS

from graphiti_session_tracking.transcripts import TranscriptNotFoundError, read_transcript
from graphiti_session_tracking.transcripts.reader import count_messages


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


def _line(**record: object) -> str:
    return json.dumps(record) + "\n"


def _user(uuid: str, content: object, ts: str, **extra: object) -> str:
    return _line(
        type="user",
        uuid=uuid,
        sessionId="s1",
        cwd="/p",
        timestamp=ts,
        message={"role": "user", "content": content},
        **extra,
    )


def _assistant(uuid: str, mid: str, content: list[object], ts: str, **extra: object) -> str:
    return _line(
        type="assistant",
        uuid=uuid,
        sessionId="s1",
        cwd="/p",
        timestamp=ts,
        message={
            "id": mid,
            "role": "assistant",
            "content": content,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
        **extra,
    )


def test_sidechains_summaries_unknown_types_and_error_results(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_text(
        _line(type="summary", summary="Earlier: set up the repo", leafUuid="x")
        + _user("u1", "Fix the failing build", "2026-01-01T10:00:00Z", gitBranch="main", version="2.1.0")
        + _assistant(
            "a1",
            "m1",
            [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}],
            "2026-01-01T10:00:05Z",
        )
        + _user(
            "u2",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "is_error": True,
                    "content": [{"type": "text", "text": "make: *** Error 2"}],
                }
            ],
            "2026-01-01T10:00:06Z",
        )
        + _assistant(
            "a2", "m2", [{"type": "text", "text": "Looking around"}], "2026-01-01T10:00:07Z", isSidechain=True
        )
        + _line(type="hologram-v9", payload={"future": True})
        + _line(type="file-history-snapshot", snapshot={})
        + _user("u3", "Stop hook feedback: keep going", "2026-01-01T10:01:00Z")
        + _user("u4", 42, "2026-01-01T10:02:00Z")
        + _assistant(
            "a3",
            "m3",
            [{"type": "tool_use", "id": "t2", "name": "Read", "input": "not a dict"}],
            "not a timestamp",
        )
    )
    session = read_transcript(path)
    assert session.summaries == ["Earlier: set up the repo"]
    assert session.git_branch == "main" and session.version == "2.1.0"
    assert session.record_counts["hologram-v9"] == 1 and session.record_counts["file-history-snapshot"] == 1
    bash = session.tool_calls[0]
    assert bash.result is not None and bash.result.is_error and not bash.succeeded
    assert bash.result.text == "make: *** Error 2"
    sidechain = [m for m in session.messages if m.is_sidechain]
    assert [m.text for m in sidechain] == ["Looking around"]
    assert [m.text for m in session.messages if m.is_human] == ["Fix the failing build"]
    assert [str(p) for p in session.problems] == [
        f"{path}:9: user message content is neither text nor a list",
        f"{path}:10: timestamp: not a time: 'not a timestamp'",
        f"{path}:10: message.content[0].input: expected an object, got 'not a dict'",
    ]
    assert session.tool_calls[1].input == {}
    assert session.usage.input_tokens == 30
    assert session.ended_at is not None and session.ended_at.isoformat() == "2026-01-01T10:02:00+00:00"


def test_wrong_field_types_are_reported_and_the_rest_of_the_record_is_used(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text(
        _line(
            type="user",
            uuid="u1",
            sessionId=5,
            cwd="/p",
            timestamp="2026-01-01T10:00:00Z",
            message={"role": "user", "content": "Fix the build"},
        )
        + _line(
            type="user",
            uuid="u2",
            sessionId="s1",
            cwd=["/p"],
            gitBranch=7,
            timestamp="not a time",
            isSidechain="no",
            isMeta=1,
            parentUuid=3,
            message={"role": 1, "content": "And the tests"},
        )
        + _line(
            type="assistant",
            uuid=9,
            sessionId="s1",
            timestamp=1767261600,
            message={
                "id": 4,
                "content": [5, {"type": "text", "text": ["x"]}, {"type": "text", "text": "ok"}],
                "usage": {"input_tokens": -1, "output_tokens": "5", "cache_read_input_tokens": 2},
            },
        )
        + _line(type=3, timestamp="2026-01-01T10:05:00Z")
        + _line(
            type="user",
            uuid="u3",
            timestamp="2026-01-01T10:06:00Z",
            toolUseResult=12,
            message={
                "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": "yes", "content": "x"}]
            },
        )
    )
    session = read_transcript(path)
    assert [str(p) for p in session.problems] == [
        f"{path}:1: sessionId: expected a string, got 5",
        f"{path}:2: cwd: expected a string, got a list",
        f"{path}:2: gitBranch: expected a string, got 7",
        f"{path}:2: parentUuid: expected a string, got 3",
        f"{path}:2: timestamp: not a time: 'not a time'",
        f"{path}:2: message.role: expected a string, got 1",
        f"{path}:2: isMeta: expected true or false, got 1",
        f"{path}:2: isSidechain: expected true or false, got 'no'",
        f"{path}:3: timestamp: expected a string, got 1767261600",
        f"{path}:3: message.id: expected a string, got 4",
        f"{path}:3: uuid: expected a string, got 9",
        f"{path}:3: message.usage.input_tokens: expected a count, got -1",
        f"{path}:3: message.usage.output_tokens: expected a count, got '5'",
        f"{path}:3: message.content[0]: expected an object, got 5",
        f"{path}:3: message.content[1].text: expected a string, got a list",
        f"{path}:4: type: expected a string, got 3",
        f"{path}:5: toolUseResult: expected an object, got 12",
        f"{path}:5: message.content[0].is_error: expected true or false, got 'yes'",
    ]
    # The rest of each record is used: the wrong fields are left out, nothing else.
    assert session.session_id == "s1" and session.cwd == "/p" and session.git_branch is None
    _, user2, assistant, user3 = session.messages
    assert user2.text == "And the tests" and user2.timestamp is None and user2.is_human
    assert not user2.is_sidechain
    assert assistant.text == "ok" and assistant.uuid == "line-3" and assistant.timestamp is None
    assert session.usage.input_tokens == 0 and session.usage.cache_read_input_tokens == 2
    assert session.started_at is not None and session.started_at.isoformat() == "2026-01-01T10:00:00+00:00"
    assert session.record_counts["<missing>"] == 1
    assert user3.tool_results == ["t1"]


def test_subagent_transcripts_are_attached_as_sidechain(tmp_path: Path) -> None:
    main = tmp_path / "s1.jsonl"
    main.write_text(_user("u1", "Port it", "2026-01-01T10:00:00Z"))
    agents = tmp_path / "s1" / "subagents"
    agents.mkdir(parents=True)
    (agents / "agent-1.jsonl").write_text(
        _assistant(
            "a1",
            "m9",
            [
                {
                    "type": "tool_use",
                    "id": "t9",
                    "name": "Write",
                    "input": {"file_path": "/p/x.py", "content": "x"},
                }
            ],
            "2026-01-01T10:00:03Z",
        )
        + _user("u9", [{"type": "tool_result", "tool_use_id": "t9", "content": "ok"}], "2026-01-01T10:00:04Z")
        + "{broken\n"
    )
    session = read_transcript(main)
    assert session.subagent_files == [str(agents / "agent-1.jsonl")]
    (call,) = session.tool_calls
    assert call.is_sidechain and call.succeeded
    assert [str(p) for p in session.problems] == [
        f"{agents / 'agent-1.jsonl'}:3: invalid JSON: Expecting property name enclosed in double quotes (column 2)"
    ]
    assert session.end_offset == main.stat().st_size  # offsets belong to the main transcript
    assert read_transcript(main, include_subagents=False).tool_calls == []


def test_huge_transcript_is_read_with_bounded_memory(tmp_path: Path) -> None:
    """Reading 10x more data must not take 10x more memory: long texts are cut, lines streamed."""
    import subprocess
    import sys

    def write(path: Path, calls: int) -> None:
        blob = "x" * 500_000
        with path.open("w") as handle:
            handle.write(_user("u0", "Generate files", "2026-01-01T10:00:00Z"))
            for i in range(calls):
                handle.write(
                    _assistant(
                        f"a{i}",
                        f"m{i}",
                        [
                            {
                                "type": "tool_use",
                                "id": f"t{i}",
                                "name": "Write",
                                "input": {"file_path": f"/p/f{i}.txt", "content": blob},
                            }
                        ],
                        "2026-01-01T10:00:01Z",
                    )
                )
                handle.write(
                    _user(
                        f"r{i}",
                        [{"type": "tool_result", "tool_use_id": f"t{i}", "content": blob}],
                        "2026-01-01T10:00:02Z",
                    )
                )

    def peak_mb(path: Path) -> float:
        code = (
            "import resource, sys\n"
            "from graphiti_session_tracking.transcripts import read_transcript\n"
            "s = read_transcript(sys.argv[1])\n"
            "assert len(s.tool_calls) > 0 and not s.problems\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
        )
        return float(out.stdout)

    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    write(small, 20)  # ~20 MB
    write(large, 300)  # ~300 MB
    assert large.stat().st_size > 290_000_000
    small_mb, large_mb = peak_mb(small), peak_mb(large)
    assert large_mb < small_mb * 1.6, (small_mb, large_mb)


def test_continuing_a_previous_read_equals_a_full_read(tmp_path: Path) -> None:
    lines = (TRANSCRIPTS / "python-to-rust-port.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b"".join(lines[:40]))
    first = read_transcript(path)
    path.write_bytes(b"".join(lines))
    continued = read_transcript(path, start_offset=first.end_offset, previous=first)
    full = read_transcript(path)
    assert [m.text for m in continued.messages] == [m.text for m in full.messages]
    assert [(c.id, c.succeeded) for c in continued.tool_calls] == [
        (c.id, c.succeeded) for c in full.tool_calls
    ]
    assert continued.usage == full.usage and continued.end_offset == full.end_offset
    assert continued.started_at == full.started_at and continued.ended_at == full.ended_at


def test_a_prompt_queued_while_the_assistant_worked_is_the_users_words(tmp_path: Path) -> None:
    """Claude Code hands a prompt typed mid-turn to the model as a `queued_command` attachment,
    never as a user message; a background task's notification comes the same way and is not a
    person's."""
    path = tmp_path / "q.jsonl"

    def queued(uuid: str, prompt: object, mode: str) -> str:
        attachment = {"type": "queued_command", "prompt": prompt, "commandMode": mode}
        return _line(type="attachment", uuid=uuid, attachment=attachment, timestamp="2026-01-01T10:00:03Z")

    path.write_text(
        _user("u1", "Release v0.3.4", "2026-01-01T10:00:00Z")
        + queued("q1", "also add the CHANGELOG entries before tagging", "prompt")
        + queued(
            "q2", "<task-notification>\n<status>completed</status>\n</task-notification>", "task-notification"
        )
        + queued("q3", [{"type": "text", "text": "and keep the tag unsigned"}], "prompt")
        + _line(type="attachment", uuid="r1", attachment={"type": "task_reminder", "content": []})
    )
    session = read_transcript(path)
    assert [m.text for m in session.messages if m.is_human] == [
        "Release v0.3.4",
        "also add the CHANGELOG entries before tagging",
        "and keep the tag unsigned",
    ]
    assert session.messages[1].line == 2 and session.record_counts["attachment"] == 4
    assert count_messages(path, 0) == len(session.messages) == 3
