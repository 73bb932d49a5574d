"""The offline summary of whole sessions, checked against the transcripts themselves."""

from __future__ import annotations

import json
import posixpath
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary import EnhancedSessionSummary, extract_summary
from graphiti_session_tracking.transcripts import read_transcript


def written_paths(path: Path) -> list[str]:
    """Files written, found straight from the raw JSON (independently of the reader)."""
    calls: dict[str, str] = {}
    ok: set[str] = set()
    cwd = ""
    for line in path.read_text().splitlines():
        record = json.loads(line)
        cwd = cwd or record.get("cwd", "")
        content = (record.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block["name"] in {
                "Write",
                "Edit",
                "MultiEdit",
                "NotebookEdit",
            }:
                calls[block["id"]] = block["input"].get("file_path") or block["input"].get("notebook_path")
            if block.get("type") == "tool_result" and not block.get("is_error"):
                ok.add(block["tool_use_id"])
    result: list[str] = []
    for call_id, file in calls.items():
        rel = posixpath.relpath(file, cwd) if file.startswith(cwd + "/") else file
        if call_id in ok and rel not in result:
            result.append(rel)
    return result


@pytest.mark.parametrize("transcript", sorted(TRANSCRIPTS.glob("*.jsonl")), ids=lambda p: p.stem)
def test_files_modified_are_exactly_the_files_written(transcript: Path) -> None:
    summary = extract_summary(read_transcript(transcript))
    assert (summary.files_modified or []) == written_paths(transcript)


def test_port_session_facts() -> None:
    summary = extract_summary(read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl"))
    assert summary.test_results is not None
    assert (summary.test_results.framework, summary.test_results.passed, summary.test_results.total) == (
        "cargo",
        29,
        29,
    )
    assert summary.completed_tasks is not None and len(summary.completed_tasks) == 9
    assert summary.next_steps is None
    assert (
        summary.config_changes is not None and summary.config_changes[0].setting == "lints.rust.missing_docs"
    )
    assert summary.duration_minutes == 3 and summary.outcome == "completed"


def test_seeded_error_then_fix_yields_an_error_resolution(tmp_path: Path) -> None:
    builder = TranscriptBuilder(cwd="/p")
    builder.user("The tests fail, please fix them")
    builder.bash(
        "pytest -q",
        "E   ImportError: No module named 'requests'\n1 failed in 0.2s\nExit code 1",
        is_error=True,
    )
    builder.say("The import fails because requests is not declared as a dependency.")
    builder.edit("/p/requirements.txt", "flask==3.0\n", "flask==3.0\nrequests==2.32.3\n")
    builder.bash("pip install -r requirements.txt", "Successfully installed requests-2.32.3")
    builder.bash("pytest -q", "12 passed in 0.5s")
    summary = extract_summary(builder.read(tmp_path))
    assert summary.errors_resolved is not None and len(summary.errors_resolved) == 1
    resolved = summary.errors_resolved[0]
    assert resolved.error == "ImportError: No module named 'requests'"
    assert "requirements.txt" in resolved.fix and "because requests is not declared" in resolved.root_cause
    assert "12 passed" in resolved.verification
    assert summary.test_results is not None and summary.test_results.passed == 12
    assert summary.config_changes is not None and summary.config_changes[0].setting == "requests"
    assert "requirements.txt" in (summary.files_modified or [])


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (
            ["<bash-input>git status</bash-input>", "Fix the login redirect loop"],
            "Fix the login redirect loop",
        ),
        (["<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>", "continue"], ""),
        (
            ["<session-start-hook>Loaded 3 notes</session-start-hook>", "Add a --json flag"],
            "Add a --json flag",
        ),
        (["continue", "Please go ahead.", "Port utils.py to Rust"], "Port utils.py to Rust"),
        (
            ["<system-reminder>Todo list is empty</system-reminder> Make the CI green"],
            "Make the CI green",
        ),
        (
            [
                "<command-name>/clear</command-name><command-message>clear</command-message>",
                "<command-name>/review</command-name>\n<command-message>review</command-message>\n"
                "<command-args>the auth module</command-args>",
            ],
            "/review the auth module",
        ),
        (
            ["This session is being continued from a previous conversation that ran out of context.", "ok"],
            "",
        ),
        (  # an approved plan handed over: its title and what it is for, not its Markdown
            [
                "Implement the following plan:\n\n# Plan: Make `evaluate` the default subcommand\n\n"
                "## Context\n\nRunning `cli --url x` fails. Users must type `evaluate`.\n\n"
                "## Steps\n\n1. Change main.ts"
            ],
            "Implement the plan: Make evaluate the default subcommand. Running cli --url x fails.",
        ),
        (  # a command with arguments is asked in its turn, before what is typed later
            [
                "<command-message>orchestrator is running…</command-message>\n"
                "<command-name>/orchestrator</command-name>\n<command-args>create TODO app by Next.js</command-args>",
                "Thanks! Please update CLAUDE.md too",
            ],
            "/orchestrator create TODO app by Next.js",
        ),
        (  # a Markdown link reads as its text
            [
                "why did this fail [https://ci.example/runs/1](https://ci.example/runs/1) after [#42 (changes)](https://x.example/pull/42)"
            ],
            "why did this fail https://ci.example/runs/1 after #42 (changes)",
        ),
        (  # a person quoting a command's tags in a request gives no command
            [
                "Why does the transcript show <command-name>/clear</command-name> before my prompt?",
            ],
            "Why does the transcript show <command-name>/clear</command-name> before my prompt?",
        ),
        (  # a prompt template's slot for the person's words (Spec Kit)
            [
                "## User Input\n\n```text\nA Blazor site that computes the support table\n```\n\n"
                "You **MUST** consider the user input before proceeding (if not empty).\n\n## Outline"
            ],
            "A Blazor site that computes the support table",
        ),
    ],
)
def test_objective_is_the_first_real_request(tmp_path: Path, turns: list[str], expected: str) -> None:
    builder = TranscriptBuilder()
    for turn in turns:
        builder.user(turn)
        builder.say("Working on it.")
    assert extract_summary(builder.read(tmp_path)).objective == expected


_GO_LOG = "\n".join(
    f"cmd/cli/state_test.go:{n}:31: invalid operation: state.ID != first (mismatched types id.ID and string)"
    for n in range(70, 90)
)
_SERVER_LOG = "\n".join(
    f"[Remediation] Phase {n}: planning fixes for job 9e063482-f731-4e87-a95d-2e07081bead2" for n in range(12)
)


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (  # the log's failing line, in a known form, is kept beside the person's words
            f"when running `mise run test:ci` I get these errors:\n{_GO_LOG}",
            "when running `mise run test:ci` I get these errors: (pasted: cmd/cli/state_test.go:70:31: invalid"
            " operation: state.ID != first (mismatched types id.ID and string))",
        ),
        (  # the paste starts on the request's own line, at a log's timestamp
            f"Can you investigate these runtime errors? [13:35:30.101] [API] GET /api/progress\n{_SERVER_LOG}",
            "Can you investigate these runtime errors?",
        ),
        (  # a request that opens with the paste is left whole: what is asked is somewhere after it
            f"{_SERVER_LOG}\n\nWhy does planning never finish?",
            " ".join(f"{_SERVER_LOG} Why does planning never finish?".split())[:499] + "…",
        ),
    ],
)
def test_a_pasted_log_gives_way_to_the_persons_words(tmp_path: Path, request_: str, expected: str) -> None:
    """A long log pasted into the first request took the whole objective and cut off the request."""
    builder = TranscriptBuilder()
    builder.user(request_)
    builder.say("Looking.")
    assert extract_summary(builder.read(tmp_path)).objective == expected


def test_a_request_that_fits_keeps_its_pasted_lines(tmp_path: Path) -> None:
    request = "Fix this:\n[api] GET /x 500\n[api] GET /y 500\n[api] GET /z 500"
    builder = TranscriptBuilder()
    builder.user(request)
    builder.say("Looking.")
    assert extract_summary(builder.read(tmp_path)).objective == " ".join(request.split())


def test_a_bare_command_is_the_objective_only_when_nothing_else_is_asked(tmp_path: Path) -> None:
    # Claude Code writes the prompt a command expands to as the next user-role line, as meta.
    def session(*typed: str) -> EnhancedSessionSummary:
        builder = TranscriptBuilder()
        builder.user(
            "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>"
        )
        builder.user("Please analyze this codebase and create a CLAUDE.md file.\n\nWhat to add:\n1. Commands")
        builder.records[-1]["isMeta"] = True
        builder.say("Done.")
        for text in typed:
            builder.user(text)
            builder.say("Done.")
        return extract_summary(builder.read(tmp_path))

    assert session().objective == "/init: Please analyze this codebase and create a CLAUDE.md file."
    assert (
        session("continue", "Also document the release steps").objective == "Also document the release steps"
    )


def test_objective_falls_back_to_claude_codes_title(tmp_path: Path) -> None:
    builder = TranscriptBuilder()
    builder.records.append({"type": "summary", "summary": "Fix flaky payment webhook test", "leafUuid": "x"})
    builder.user("continue")
    builder.say("Done.")
    assert extract_summary(builder.read(tmp_path)).objective == "Fix flaky payment webhook test"


def test_a_sub_agent_transcript_on_its_own_has_its_task_as_objective(tmp_path: Path) -> None:
    """An older `agent-*.jsonl` read without its parent: every line is a sidechain."""
    builder = TranscriptBuilder()
    builder.user("Write a poem about Thai green curry")
    builder.bash("ls", "poem.md")
    builder.say("Here is the poem.")
    for record in builder.records:
        record["isSidechain"] = True
    summary = extract_summary(builder.read(tmp_path, "agent-a9cad17.jsonl"))
    assert (summary.objective, summary.outcome) == ("Write a poem about Thai green curry", "completed")


def test_duration_is_active_time_without_long_pauses(tmp_path: Path) -> None:
    builder = TranscriptBuilder()
    builder.user("Start the migration")
    builder.say("Step one done.")  # 10 s apart each
    builder._clock += timedelta(hours=9)  # a night away
    builder.user("Carry on with step two")
    builder._clock += timedelta(minutes=20)  # a long build: counted
    builder.say("Step two done.")
    summary = extract_summary(builder.read(tmp_path))
    assert summary.duration_minutes == 20
    assert "(no request found" not in summary.to_markdown()
