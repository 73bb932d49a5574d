"""The transcript seam: readers give each tool call a kind, and nothing after them reads a name."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from conftest import TRANSCRIPTS

from graphiti_session_tracking.activity import ActivityDetector, is_error_result
from graphiti_session_tracking.summary.errors import extract_errors_resolved
from graphiti_session_tracking.summary.files import written_file
from graphiti_session_tracking.transcripts import Message, Session, ToolCall, ToolKind, read_transcript
from graphiti_session_tracking.transcripts.claude_tools import CLAUDE_TOOL_KINDS
from graphiti_session_tracking.transcripts.model import ToolResult
from graphiti_session_tracking.transcripts.state import decode_session, encode_session

PACKAGE = Path(__file__).parents[2] / "graphiti_session_tracking"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_claude_reader_gives_every_call_its_kind() -> None:
    session = read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl")
    kinds = {(call.name, call.kind) for call in session.tool_calls}
    assert ("Bash", ToolKind.COMMAND) in kinds and ("Write", ToolKind.WRITE) in kinds
    assert all(kind == CLAUDE_TOOL_KINDS.get(name, ToolKind.OTHER) for name, kind in kinds)


def test_a_session_state_keeps_each_call_s_kind() -> None:
    session = _other_agent_session()
    again = decode_session(encode_session(session))
    assert [c.kind for c in again.tool_calls] == [c.kind for c in session.tool_calls]
    assert [c.name for c in again.tool_calls] == ["shell", "apply_patch", "shell"]


def _call(index: int, name: str, kind: ToolKind, payload: dict[str, str], text: str, error: bool) -> ToolCall:
    at = T0 + timedelta(minutes=index)
    return ToolCall(f"c{index}", name, payload, at, index, result=ToolResult(text, error, at), kind=kind)


def _other_agent_session() -> Session:
    """Another agent's calls, named its way: what they do is all the extractors may look at."""
    calls = [
        _call(
            1,
            "shell",
            ToolKind.COMMAND,
            {"command": "pytest -q"},
            "E   ImportError: no module named foo\n1 failed",
            True,
        ),
        _call(2, "apply_patch", ToolKind.EDIT, {"file_path": "/p/tests/test_foo.py"}, "patched", False),
        _call(3, "shell", ToolKind.COMMAND, {"command": "pytest -q"}, "3 passed in 0.1s", False),
    ]
    messages = [
        Message("m0", "user", "Make the tests pass", T0, 0),
        *(Message(f"m{c.line}", "assistant", "", c.timestamp, c.line, tool_calls=[c]) for c in calls),
    ]
    return Session("s", "s.jsonl", cwd="/p", started_at=T0, messages=messages, tool_calls=calls)


def test_extractors_work_on_kinds_whatever_the_tools_are_called() -> None:
    session = _other_agent_session()
    errors = extract_errors_resolved(session)
    assert [e.error for e in errors] == ["ImportError: no module named foo"]
    assert "tests/test_foo.py" in errors[0].fix
    assert written_file(session.tool_calls[1]) == "/p/tests/test_foo.py"
    assert is_error_result(session.tool_calls[0]) and not is_error_result(session.tool_calls[1])
    assert ActivityDetector().explain(session)["files"]["testing"] > 0  # the edited test file


def test_no_module_past_the_readers_names_a_claude_code_tool() -> None:
    names = "|".join(re.escape(name) for name in CLAUDE_TOOL_KINDS)
    literal = re.compile(rf"[\"']({names})[\"']")
    # The tool classifier classifies tools by their names (what a Tool node is named).
    allowed = {"transcripts", "tools"}
    offenders = [
        f"{path.relative_to(PACKAGE)}: {match.group(0)}"
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in allowed
        for match in literal.finditer(path.read_text())
    ]
    assert offenders == ['graph/schema.py: "Task"']  # the label of a task record, not the tool
