"""One line per tool call: what the recap and the LLM condensing read instead of the call."""

from __future__ import annotations

from pathlib import Path

from transcript_builder import TranscriptBuilder

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


def test_a_long_answer_is_cut_to_what_it_says_not_its_head_and_tail() -> None:
    from graphiti_session_tracking.summary.content import salient_cut

    filler = " ".join(f"Line {i} of the survey lists more files that look ordinary." for i in range(40))
    text = f"I looked at the importer. {filler} I'll use the streaming API instead of the batch API because memory must stay flat. {filler} Done."
    cut = salient_cut(text, 400)
    assert len(cut) <= 400 and "streaming API instead of the batch API because memory" in cut
    assert cut.startswith("I looked at the importer.")


def test_under_a_budget_the_lines_that_say_most_stay() -> None:
    from graphiti_session_tracking.summary.content import ESSENTIAL, LOOKUP, USEFUL, ContentLine, fit

    lines = [ContentLine(0, "User: make the importer fast", ESSENTIAL)]
    lines += [ContentLine(i, f"  - Read src/file_{i}.py", LOOKUP) for i in range(1, 40)]
    lines += [
        ContentLine(40 + i, f"Assistant: Looking at module {i} now, nothing of note here at all.", USEFUL)
        for i in range(30)
    ]
    lines.append(
        ContentLine(
            80, "Assistant: We'll keep SQLite instead of Postgres because the job runs offline.", USEFUL
        )
    )
    lines += [
        ContentLine(90 + i, f"Assistant: Still looking at part {i}, more of the same.", USEFUL)
        for i in range(30)
    ]
    kept, note = fit(lines, 900)
    texts = [line.text for line in kept]
    assert sum(len(t) + 8 for t in texts) <= 900 and note is not None
    assert "User: make the importer fast" in texts
    assert any("SQLite instead of Postgres" in t for t in texts)
    assert not any(t.startswith("  - Read") for t in texts)


def test_a_long_message_keeps_the_choice_said_in_its_middle(tmp_path: Path) -> None:
    """A person's or the assistant's long text is cut to what it says most, not to its head and
    tail: the choice in the middle of a pasted spec reaches the model."""
    from graphiti_session_tracking.summary.content import render, session_content

    filler = " ".join(f"Section {i} describes the screens, nothing to decide here." for i in range(60))
    builder = TranscriptBuilder(cwd="/p")
    builder.user(
        f"Here is the spec. {filler} We will use SQLite instead of Postgres because it ships in one file. {filler} Go."
    )
    narrative = render(session_content(builder.read(tmp_path)))
    assert "use SQLite instead of Postgres because it ships in one file" in narrative
    assert len(narrative) < 3_200
