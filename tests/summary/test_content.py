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


def _edit(path: str, old: str, new: str, output: str = "ok", is_error: bool = False) -> ToolCall:
    return ToolCall(
        id="e",
        name="Edit",
        input={"file_path": path, "old_string": old, "new_string": new},
        timestamp=None,
        line=2,
        result=ToolResult(output, is_error, None),
    )


def test_an_edit_is_named_by_its_path_relative_to_the_project() -> None:
    call = _edit("/p/src/a.py", "x = 1", "x = 2")
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


def test_when_the_essential_lines_alone_overflow_the_start_of_the_session_stays() -> None:
    """A very long session's people's words and failures alone exceed the budget: each is cut to
    what it says most, and what says least is left out wherever it is, not the session's start
    (which held the request)."""
    from graphiti_session_tracking.summary.content import ESSENTIAL, ContentLine, fit

    filler = " ".join(f"Part {i} of the log touched `mod{i}.py` as usual." for i in range(40))
    lines = [
        ContentLine(
            0, "User: Migrate the importer to SQLite instead of Postgres because it runs offline.", ESSENTIAL
        )
    ]
    lines += [ContentLine(i, f"User: here is more of the log. {filler}", ESSENTIAL) for i in range(1, 100)]
    lines.append(ContentLine(100, "  - Ran `pytest` → FAILED: error: no such table: imports", ESSENTIAL))
    kept, note = fit(lines, 6_000)
    texts = [line.text for line in kept]
    assert note is not None and note.endswith("shortened to fit") and sum(len(t) + 8 for t in texts) <= 6_000
    assert texts[0].startswith("User: Migrate the importer to SQLite instead of Postgres")
    assert any("no such table: imports" in t for t in texts)


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


def test_under_a_budget_calls_that_succeeded_go_before_the_assistants_words() -> None:
    """A successful tool call's line says what the summary's files and commands already say; the
    assistant's words hold the choices and reasons, so the budget cuts the calls first."""
    from graphiti_session_tracking.summary.content import ACTION, USEFUL, ContentLine, fit

    lines = [ContentLine(i, f"  - Ran `make step{i}` → ok `build/out{i}.txt`", ACTION) for i in range(40)]
    lines.append(ContentLine(50, "Assistant: I'll keep the cache on disk because the job restarts.", USEFUL))
    lines += [ContentLine(60 + i, f"Assistant: Step {i} is done.", USEFUL) for i in range(5)]
    kept, note = fit(lines, 900)
    texts = [line.text for line in kept]
    assert note is not None and sum(len(t) + 8 for t in texts) <= 900
    assert all(line in kept for line in lines if line.priority == USEFUL)  # every word kept
    assert 0 < sum(line.priority == ACTION for line in kept) < 40  # the calls fill what is left


def test_long_texts_are_cut_no_shorter_than_the_budget_needs() -> None:
    """A narrative a little over the budget keeps most of each long answer (every sentence of
    which gives a choice): cutting each to 400 characters would lose most of them for nothing."""
    from graphiti_session_tracking.summary.content import USEFUL, ContentLine, fit

    choices = " ".join(
        f"Part {i} uses approach {i} instead of approach {i}b because it is simpler." for i in range(20)
    )
    lines = [ContentLine(i, f"Assistant: {choices}", USEFUL) for i in range(6)]
    budget = sum(len(line.text) + 8 for line in lines) - 200
    kept, note = fit(lines, budget)
    assert note is not None and "long texts shortened" in note
    assert sum(len(line.text) + 8 for line in kept) <= budget and len(kept) == 6
    assert all(1_000 < len(line.text) <= 1_200 for line in kept)


def _lines(call: ToolCall) -> list[tuple[str, int]]:
    from graphiti_session_tracking.summary.content import _call_lines

    return _call_lines(call, "/p")


def test_a_failure_of_the_work_is_essential_an_editing_hiccup_or_a_lookup_is_not() -> None:
    from graphiti_session_tracking.summary.content import ACTION, ESSENTIAL, LOOKUP

    failed = _lines(_bash("cargo build", "error[E0308]: mismatched types\n --> src/a.rs:3:5", is_error=True))
    assert failed[0][1] == ESSENTIAL and "mismatched types" in failed[1][0] and failed[1][1] == ESSENTIAL
    hiccup = _edit(
        "/p/a.py", "x", "y", "<tool_use_error>String to replace not found in file.</tool_use_error>", True
    )
    assert [priority for _, priority in _lines(hiccup)] == [ACTION, ACTION]  # kept, cut like a success
    looked = _lines(_bash("sed -n '1,80p' src/db.ts", "if (error) {\n  throw new Error('query failed')\n}"))
    assert {priority for _, priority in looked} == {LOOKUP}  # code it listed is not a failure
    refused = _lines(
        _bash("sudo cat ci.yml", "sudo: a terminal is required to read the password", is_error=True)
    )
    assert refused[0][1] == ESSENTIAL  # a lookup that failed is a failure all the same


def test_a_refused_call_keeps_the_users_words_as_a_persons() -> None:
    from graphiti_session_tracking.summary.content import ESSENTIAL

    refused = _bash(
        "git push origin main",
        "The user doesn't want to proceed with this tool use. To tell you how to proceed, the user "
        "said:\nopen a PR instead, main is protected",
        is_error=True,
    )
    said = [priority for text, priority in _lines(refused) if text.startswith("    → the user: ")]
    assert said == [ESSENTIAL]


def test_a_background_tasks_report_is_evidence_not_a_persons_words(tmp_path: Path) -> None:
    from graphiti_session_tracking.summary.content import ESSENTIAL, USEFUL, session_content

    builder = TranscriptBuilder(cwd="/p")
    builder.user("Run the suite in the background and fix what fails.")
    builder.user(
        "<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n<summary>Background command "
        '"npm test" failed with exit code 1</summary>\n</task-notification>'
    )
    builder.user("<task-notification>\n<status>completed</status>\n<summary>Agent finished</summary>")
    session = builder.read(tmp_path)
    assert [m.is_human for m in session.messages] == [True, False, False]
    lines = session_content(session)
    assert [line.priority for line in lines] == [ESSENTIAL, ESSENTIAL, USEFUL]
    assert lines[1].text.startswith("(harness) <task-notification>") and "exit code 1" in lines[1].text


def test_a_long_plan_keeps_the_choice_said_in_its_middle(tmp_path: Path) -> None:
    """An approved plan is a decision: the choice in the middle of a long one reaches the model,
    not only its head and tail."""
    from graphiti_session_tracking.summary.content import ESSENTIAL, session_content

    steps = "\n".join(f"{i}. Update screen {i} to the new layout, nothing to choose here." for i in range(40))
    plan = (
        f"# Plan\n{steps}\nUse pnpm workspaces instead of npm because installs must be reproducible.\n{steps}"
    )
    builder = TranscriptBuilder(cwd="/p")
    builder.user("Plan the migration.")
    builder.call("ExitPlanMode", {"plan": plan}, "User has approved your plan.")
    lines = session_content(builder.read(tmp_path))
    proposed = next(line for line in lines if "Proposed a plan" in line.text)
    assert proposed.priority == ESSENTIAL and len(proposed.text) <= 3_100
    assert "Use pnpm workspaces instead of npm because installs must be reproducible." in proposed.text
