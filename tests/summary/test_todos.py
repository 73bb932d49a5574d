"""Completed tasks and next steps from TodoWrite, on the real port transcript and on built sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS

from graphiti_session_tracking.summary.todos import extract_tasks, todo_items
from graphiti_session_tracking.transcripts import Session, ToolCall, ToolResult, read_transcript

PORT_TASKS = [
    "Initialize Rust library project structure",
    "Port string_utils module",
    "Port math_utils module",
    "Port list_utils module",
    "Port dict_utils module",
    "Port validation module",
    "Run tests and ensure 100% coverage",
    "Update Justfile for Rust",
    "Delete Python source files",
]


def _todo_call(todos: Any, *, line: int = 1, error: bool = False, sidechain: bool = False) -> ToolCall:
    return ToolCall(
        id=f"toolu_{line}",
        name="TodoWrite",
        input={"todos": todos},
        timestamp=None,
        line=line,
        is_sidechain=sidechain,
        result=ToolResult(text="Todos have been modified successfully.", is_error=error, timestamp=None),
    )


def _session(*calls: ToolCall) -> Session:
    return Session(session_id="s", source_file="s.jsonl", tool_calls=list(calls))


def _todo(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": content + "ing"}


def test_port_transcript_last_of_ten_todo_lists_has_everything_done() -> None:
    session = read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl")
    writes = [c for c in session.tool_calls if c.name == "TodoWrite"]
    assert len(writes) == 10
    # The first list had a tenth task the agent later dropped; the last list is what counts.
    assert "Write comprehensive tests for all modules" in [c for c, _ in todo_items(writes[0])]
    assert [status for _, status in todo_items(writes[-1])] == ["completed"] * 9

    completed, next_steps = extract_tasks(session)

    assert completed == PORT_TASKS
    assert next_steps == []


def test_port_transcript_cut_after_the_eighth_list_leaves_the_open_tasks_as_next_steps() -> None:
    session = read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl")
    eighth = [c for c in session.tool_calls if c.name == "TodoWrite"][7]
    session.tool_calls = session.tool_calls[: session.tool_calls.index(eighth) + 1]

    completed, next_steps = extract_tasks(session)

    assert completed == PORT_TASKS[:7]
    assert next_steps == ["Update Justfile for Rust", "Delete Python source files"]


def test_files_without_todo_write_give_nothing() -> None:
    for name in ("hello-world-script.jsonl", "coverage-test-fix.jsonl"):
        assert extract_tasks(read_transcript(TRANSCRIPTS / name)) == ([], [])


def test_pending_and_in_progress_are_next_steps_in_list_order() -> None:
    session = _session(
        _todo_call([_todo("Add login form", "pending")], line=1),
        _todo_call(
            [
                _todo("Add login form", "completed"),
                _todo("Wire the API", "in_progress"),
                _todo("Write e2e tests", "pending"),
            ],
            line=2,
        ),
    )
    assert extract_tasks(session) == (["Add login form"], ["Wire the API", "Write e2e tests"])


def test_a_task_finished_in_an_earlier_list_is_not_a_next_step() -> None:
    session = _session(
        _todo_call([_todo("Fix the flaky test", "completed"), _todo("Update docs", "pending")], line=1),
        # The agent started a new list and re-listed finished work as pending.
        _todo_call([_todo("Fix  the flaky\ntest", "pending"), _todo("Release 1.2", "pending")], line=2),
    )
    assert extract_tasks(session) == ([], ["Release 1.2"])


def test_malformed_inputs_are_skipped_not_fatal() -> None:
    session = _session(
        _todo_call(
            [
                _todo("Keep me", "completed"),
                "not a dict",
                {"content": "no status"},
                {"status": "pending"},
                {"content": 42, "status": "pending"},
                {"content": "   ", "status": "pending"},
                {"content": "Cancelled thing", "status": "cancelled"},
                _todo("Shout", "IN_PROGRESS"),
                _todo("Keep me", "completed"),
            ],
            line=1,
        ),
        _todo_call("not a list", line=2),
        _todo_call({"content": "a dict", "status": "pending"}, line=3),
        _todo_call(None, line=4),
    )
    assert extract_tasks(session) == (["Keep me"], ["Shout"])


def test_todos_sent_as_a_json_string_are_read() -> None:
    todos = json.dumps([_todo("Parse config", "completed"), _todo("Ship it", "pending")])
    assert extract_tasks(_session(_todo_call(todos))) == (["Parse config"], ["Ship it"])
    assert extract_tasks(_session(_todo_call("[not json"))) == ([], [])


def test_rejected_calls_and_sub_agent_lists_do_not_replace_the_main_list() -> None:
    main = _todo_call([_todo("Refactor parser", "completed"), _todo("Benchmark", "pending")], line=1)
    rejected = _todo_call([_todo("Bogus", "completed")], line=2, error=True)
    sub_agent = _todo_call([_todo("Grep for callers", "completed")], line=3, sidechain=True)
    assert extract_tasks(_session(main, rejected, sub_agent)) == (["Refactor parser"], ["Benchmark"])
    assert extract_tasks(_session(sub_agent)) == ([], [])


def test_from_a_written_transcript(tmp_path: Path) -> None:
    """The same through the real reader: a TodoWrite tool_use line and its tool_result."""
    todos = [_todo("Add retries", "completed"), _todo("Tune backoff", "in_progress")]
    records = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s1",
            "timestamp": "2025-01-01T10:00:00Z",
            "message": {"role": "user", "content": "Add retries to the client"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s1",
            "timestamp": "2025-01-01T10:00:05Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "TodoWrite", "input": {"todos": todos}}
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": "s1",
            "timestamp": "2025-01-01T10:00:06Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Todos have been modified"}
                ],
            },
            "toolUseResult": {"oldTodos": [], "newTodos": todos},
        },
    ]
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))

    session = read_transcript(path)

    assert session.problems == []
    assert extract_tasks(session) == (["Add retries"], ["Tune backoff"])
