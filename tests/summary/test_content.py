"""One line per tool call: what the recap and the LLM condensing read instead of the call."""

from __future__ import annotations

from graphiti_session_tracking.summary.content import collapse_tool_call
from graphiti_session_tracking.transcripts.model import ToolCall, ToolResult


def _bash(command: str, output: str, is_error: bool = False) -> ToolCall:
    result = ToolResult(output, is_error, None)
    return ToolCall(id="t", name="Bash", input={"command": command}, timestamp=None, line=1, result=result)


def test_a_command_ends_on_its_last_line_of_output_not_on_gits_hints() -> None:
    call = _bash(
        "git init && git status",
        "Initialized empty Git repository in /p/.git/\nOn branch master\nnew file:   test.txt\n"
        "hint: Using 'master' as the name for the initial branch.\nhint: \tgit branch -m <name>\n",
    )
    assert collapse_tool_call(call, "/p") == "Ran `git init && git status` → new file: test.txt"


def test_a_failed_command_names_its_error_line() -> None:
    call = _bash("pytest", "collected 3 items\nE   AssertionError: 2 != 3\n1 failed, 2 passed", is_error=True)
    assert collapse_tool_call(call, "/p") == "Ran `pytest` → FAILED: E AssertionError: 2 != 3"


def test_an_edit_is_named_by_its_path_relative_to_the_project() -> None:
    call = ToolCall(
        id="e",
        name="Edit",
        input={"file_path": "/p/src/a.py", "old_string": "x = 1", "new_string": "x = 2"},
        timestamp=None,
        line=2,
        result=ToolResult("ok", False, None),
    )
    assert collapse_tool_call(call, "/p") == "Edited src/a.py: replaced 'x = 1' with 'x = 2'"
