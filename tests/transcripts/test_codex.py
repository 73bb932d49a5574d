"""The Codex CLI reader on real rollout files (tests/fixtures/codex, see SOURCE.md) and on damaged ones."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, TRANSCRIPTS

from graphiti_session_tracking.summary import summarize_session
from graphiti_session_tracking.transcripts import ToolKind, read_transcript
from graphiti_session_tracking.transcripts.codex import is_codex_rollout, read_codex
from graphiti_session_tracking.transcripts.codex_patch import parse_patch

CODEX = FIXTURES / "codex"
DASHBOARD = CODEX / "agentcmd__rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl"
PRISMA = CODEX / "agentcmd__rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"
SCRIBE = CODEX / "scribe__rollout-transcript-0.130-trimmed.jsonl"
CODE_MODE = CODEX / "hk__019f5d4f-5d25-7c42-87d1-79de9e276e30__ckpt-2ad768bbbb7b-0.jsonl"
MONOREPO = "/Users/jnarowski/Dev/spectora/src/spectora-labs-monorepo-v2"


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def raw_calls(path: Path) -> dict[str, dict[str, Any]]:
    """call_id -> the function_call payload, read straight from the JSON (independently of the reader)."""
    return {
        r["payload"]["call_id"]: r["payload"]
        for r in records(path)
        if r["type"] == "response_item" and r["payload"]["type"] == "function_call"
    }


def raw_exit_codes(path: Path) -> dict[str, int]:
    """call_id -> exit code of each 0.40 `shell` output (JSON inside the output string)."""
    codes: dict[str, int] = {}
    for r in records(path):
        if r["type"] == "response_item" and r["payload"]["type"] == "function_call_output":
            codes[r["payload"]["call_id"]] = json.loads(r["payload"]["output"])["metadata"]["exit_code"]
    return codes


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("path", "identity"),
    [
        (
            DASHBOARD,
            (
                "01997ea4-a70d-7da3-8c20-c736db82a7c5",
                MONOREPO,
                "0.40.0",
                "feat/dashboard-refactor",
                at("2025-09-25T02:12:23.966"),
                at("2025-09-25T02:16:32.870"),
            ),
        ),
        (
            PRISMA,
            (
                "019982b8-3422-79e0-8b3b-05abaf4f3c3e",
                MONOREPO,
                "0.40.0",
                "feat/add-prisma-v5",
                at("2025-09-25T21:12:14.126"),
                at("2025-09-25T21:15:08.505"),
            ),
        ),
        (
            SCRIBE,
            (
                "019e2b97-a47a-7e42-b8a3-c4364f6098d9",
                "/tmp/scribe-codex-fixture/Projects/scribe",
                "0.130.0",
                "main",
                at("2026-05-15T12:24:44.578"),
                at("2026-05-15T12:30:37.672"),
            ),
        ),
    ],
    ids=lambda v: v.stem[:30] if isinstance(v, Path) else "",
)
def test_identity_and_whole_file_read(path: Path, identity: tuple[Any, ...]) -> None:
    session = read_codex(path)
    got = (
        session.session_id,
        session.cwd,
        session.version,
        session.git_branch,
        session.started_at,
        session.ended_at,
    )
    assert got == identity
    assert session.problems == []
    assert session.lines_read == len(path.read_text().splitlines())
    assert session.end_offset == path.stat().st_size


def test_user_requests_are_what_the_person_typed() -> None:
    session = read_codex(DASHBOARD)
    users = [m for m in session.messages if m.role == "user"]
    # Three user-role items: <environment_context>, then two IDE-wrapped requests (one with an image).
    assert len(users) == 2 and all(m.is_human for m in users)
    assert users[0].text.startswith("When I load the dashboard, I see 4 queries. Are all of these necessary?")
    assert users[1].text == "so prefetching isn't slowing down data loading for the intial load?"
    for message in session.messages:
        assert "# Context from my IDE setup" not in message.text
        assert "<environment_context>" not in message.text
    prisma = [m for m in read_codex(PRISMA).messages if m.role == "user"]
    assert len(prisma) == 1 and prisma[0].text.startswith("Evaluate @packages/services and create a new")
    scribe = [m.text for m in read_codex(SCRIBE).messages if m.role == "user"]
    assert scribe == [
        "Analyze this project and make feedback and suggestion how to improve it or in case you find back report it"
    ]


@pytest.mark.parametrize(("path", "commands"), [(DASHBOARD, 16), (PRISMA, 34), (SCRIBE, 1)])
def test_tool_calls_by_kind_linked_to_their_outputs(path: Path, commands: int) -> None:
    session = read_codex(path)
    assert Counter(c.kind for c in session.tool_calls) == {ToolKind.COMMAND: commands}
    assert [c.id for c in session.tool_calls] == list(raw_calls(path))
    assert all(c.result is not None for c in session.tool_calls)
    # Each call hangs on the assistant message of its model response, in the session's order.
    attached = [c for m in session.messages if m.role == "assistant" for c in m.tool_calls]
    assert attached == session.tool_calls


def test_commands_are_scripts_and_outputs_are_unwrapped() -> None:
    session = read_codex(PRISMA)
    raw = raw_calls(PRISMA)
    for call in session.tool_calls:
        argv = json.loads(raw[call.id]["arguments"])["command"]
        assert argv[:2] == ["bash", "-lc"] and call.input == {"command": argv[2]}
        assert call.name == "shell"
    first = session.tool_calls[0]
    assert first.input == {"command": "ls"}
    assert first.result is not None and not first.result.is_error
    assert first.result.text.startswith("CLAUDE.md\nREADME.md\napps\n")  # the JSON wrapper is gone
    assert all(not c.result.is_error for c in session.tool_calls if c.result)  # every exit code is 0
    assert set(raw_exit_codes(PRISMA).values()) == {0}


def test_a_failing_command_is_an_error_starting_with_its_exit_code() -> None:
    session = read_codex(DASHBOARD)
    codes = raw_exit_codes(DASHBOARD)
    failed = {c.id for c in session.tool_calls if c.result is not None and c.result.is_error}
    assert failed == {call_id for call_id, code in codes.items() if code != 0} and len(failed) == 3
    syntax = session.tool_calls[0]
    assert syntax.kind is ToolKind.COMMAND and syntax.result is not None and syntax.result.is_error
    assert syntax.result.text.startswith("Exit code 2\nbash: -c: line 0: syntax error near unexpected token")
    missing = session.tool_calls[1]
    assert missing.result is not None and missing.result.text.startswith("Exit code 1\nsed: ")
    passing = session.tool_calls[2]
    assert passing.result is not None and not passing.result.text.startswith("Exit code")


def test_exec_command_header_is_parsed() -> None:
    session = read_codex(SCRIBE)
    (call,) = session.tool_calls
    assert (call.name, call.kind, call.input) == ("exec_command", ToolKind.COMMAND, {"command": "pwd"})
    assert call.result is not None and not call.result.is_error
    assert call.result.text == "/tmp/scribe-codex-fixture/Projects/scribe\n"  # only what follows Output:


def test_assistant_text_and_reasoning_summaries() -> None:
    session = read_codex(DASHBOARD)
    assistant = [m for m in session.messages if m.role == "assistant"]
    assert len(assistant) == 18  # 16 tool-calling responses and 2 answers
    assert assistant[0].thinking == "**Analyzing dashboard query necessity**"
    assert assistant[0].tool_calls == [session.tool_calls[0]]
    assert assistant[-1].text.startswith("**Impact On Initial Load**") and not assistant[-1].tool_calls
    assert session.usage.output_tokens == 4808  # the last cumulative token_count
    assert session.usage.cache_read_input_tokens == 120192


async def test_summary_of_a_read_only_investigation() -> None:
    summary = await summarize_session(read_codex(DASHBOARD))
    assert summary.session_id == "01997ea4-a70d-7da3-8c20-c736db82a7c5"
    assert summary.objective.startswith("When I load the dashboard, I see 4 queries.")
    assert summary.files_modified is None  # nothing was edited in this session
    # Its three failures (a path with parentheses not quoted, then not found) were never fixed:
    # the session went on with other files.
    assert summary.errors_resolved is None
    assert summary.message_count == 20


def _line(kind: str, payload: dict[str, Any], second: int) -> str:
    return json.dumps({"timestamp": f"2025-09-25T02:20:{second:02d}.000Z", "type": kind, "payload": payload})


def _shell(call_id: str, script: str, second: int, workdir: str | None = None) -> str:
    args: dict[str, Any] = {"command": ["bash", "-lc", script], **({"workdir": workdir} if workdir else {})}
    payload = {"type": "function_call", "name": "shell", "arguments": json.dumps(args), "call_id": call_id}
    return _line("response_item", payload, second)


def _shell_output(call_id: str, output: str, code: int, second: int) -> str:
    wrapped = json.dumps({"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.1}})
    payload = {"type": "function_call_output", "call_id": call_id, "output": wrapped}
    return _line("response_item", payload, second)


def test_a_command_run_with_escalated_permissions_is_unsandboxed(tmp_path: Path) -> None:
    """0.40's `with_escalated_permissions` and later `sandbox_permissions: require_escalated` both
    ask the user to run the command outside the sandbox; the summary needs to know which did."""
    meta = DASHBOARD.read_text().splitlines()[0]
    newer = {"cmd": "cargo test", "sandbox_permissions": "require_escalated", "justification": "network"}
    lines = [
        meta,
        _shell("c1", "cargo test", 1),
        _shell_output("c1", "error: failed to download: Could not resolve host: static.crates.io", 101, 2),
        _line(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c2",
                "arguments": json.dumps(
                    {"command": ["bash", "-lc", "cargo test"], "with_escalated_permissions": True}
                ),
            },
            3,
        ),
        _shell_output("c2", "test result: ok. 3 passed", 0, 4),
        _line(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c3",
                "arguments": json.dumps(newer),
            },
            5,
        ),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")

    calls = read_codex(path).tool_calls

    assert [c.unsandboxed for c in calls] == [False, True, True]
    assert [c.input["command"] for c in calls] == ["cargo test"] * 3


TS_ERROR = "src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
HEREDOC = (
    "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: src/util.ts\n+export const one = 1;\n"
    "+export const two = 2;\n*** End Patch\nPATCH\n"
)
CUSTOM_PATCH = (
    "*** Begin Patch\n*** Update File: src/app.ts\n@@\n import { one } from './util';\n-const n: number = '1';\n"
    "+const n: number = one;\n@@ export function f() {\n-  return 0;\n+  return n;\n }\n"
    "*** Delete File: src/old.ts\n*** End Patch"
)


def edit_session(tmp_path: Path) -> Path:
    """A session with patches, shaped like the records of the 0.40 (`shell` heredoc) and later
    (`custom_tool_call` apply_patch) eras, and a type check that fails, then passes."""
    meta = DASHBOARD.read_text().splitlines()[0]  # the real session_meta
    lines = [
        meta,
        _line("turn_context", {"cwd": MONOREPO, "model": "gpt-5-codex"}, 1),
        _line(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the types"}]},
            1,
        ),
        _shell("c1", "pnpm check-types", 2),
        _shell_output("c1", TS_ERROR, 2, 3),
        _line("turn_context", {"cwd": MONOREPO}, 4),
        _shell("c2", HEREDOC, 4, workdir=MONOREPO),
        _shell_output("c2", "Success. Updated the following files:\nA src/util.ts\n", 0, 5),
        _line(
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "input": CUSTOM_PATCH, "call_id": "c3"},
            6,
        ),
        _line(
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "c3", "output": "Exit code: 0\nOutput:\nDone!\n"},
            7,
        ),
        _line(
            "response_item",
            {
                "type": "function_call",
                "name": "update_plan",
                "arguments": json.dumps({"plan": [{"step": "Fix the types", "status": "completed"}]}),
                "call_id": "c4",
            },
            8,
        ),
        _line(
            "response_item", {"type": "function_call_output", "call_id": "c4", "output": "Plan updated"}, 8
        ),
        _shell("c5", "pnpm check-types", 9),
        _shell_output("c5", "", 0, 10),
    ]
    path = tmp_path / "rollout-2025-09-25T02-20-00-edits.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_patches_become_one_write_or_edit_per_file(tmp_path: Path) -> None:
    session = read_codex(edit_session(tmp_path))
    assert [(c.id, c.name, c.kind) for c in session.tool_calls] == [
        ("c1", "shell", ToolKind.COMMAND),
        ("c2", "shell", ToolKind.COMMAND),  # the heredoc's shell call is a command as well
        ("c2#1", "apply_patch", ToolKind.WRITE),
        ("c3#1", "apply_patch", ToolKind.EDIT),
        ("c3#2", "apply_patch", ToolKind.EDIT),
        ("c4", "update_plan", ToolKind.TODO),
        ("c5", "shell", ToolKind.COMMAND),
    ]
    calls = {c.id: c for c in session.tool_calls}
    assert calls["c2#1"].input == {
        "file_path": f"{MONOREPO}/src/util.ts",
        "content": "export const one = 1;\nexport const two = 2;",
    }
    assert calls["c3#1"].input == {
        "file_path": f"{MONOREPO}/src/app.ts",
        "edits": [
            {
                "old_string": "import { one } from './util';\nconst n: number = '1';",
                "new_string": "import { one } from './util';\nconst n: number = one;",
            },
            {"old_string": "  return 0;\n}", "new_string": "  return n;\n}"},
        ],
    }
    assert calls["c3#2"].input == {"file_path": f"{MONOREPO}/src/old.ts", "old_string": "", "new_string": ""}
    assert calls["c2#1"].result is calls["c2"].result and calls["c2#1"].succeeded
    assert calls["c3#1"].result is not None and calls["c3#1"].result.text == "Done!\n"
    assert calls["c4"].input["todos"] == [{"content": "Fix the types", "status": "completed"}]
    failed = calls["c1"].result
    assert failed is not None and failed.is_error and failed.text == f"Exit code 2\n{TS_ERROR}"


async def test_summary_reads_files_and_fixed_errors_from_patches(tmp_path: Path) -> None:
    summary = await summarize_session(read_codex(edit_session(tmp_path)))
    assert summary.files_modified == ["src/util.ts", "src/app.ts", "src/old.ts"]
    assert summary.errors_resolved is not None
    assert [e.error for e in summary.errors_resolved] == [TS_ERROR.strip()]
    assert summary.completed_tasks == ["Fix the types"]


def test_parse_patch_moves_and_first_hunk_without_header() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n-x = 1\n+x = 2\n"
        "*** End of File\n*** End Patch"
    )
    assert parse_patch(patch) == [("update", "b.py", [("x = 1", "x = 2")])]
    assert parse_patch("not a patch") == []


def test_damaged_lines_are_problems_and_the_rest_is_read(tmp_path: Path) -> None:
    lines = DASHBOARD.read_text().splitlines(keepends=True)
    assert json.loads(lines[11])["type"] == "event_msg"  # line 12: agent_reasoning, no content of ours
    lines[11] = '{"timestamp": "2025-09-25T02:12:35.000Z", "type": "event_msg", "payl\n'
    lines.insert(20, "[1, 2, 3]\n")  # becomes line 21
    lines[6] = json.dumps({**json.loads(lines[6]), "timestamp": "soon"}) + "\n"
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(lines) + '{"timestamp": "2025-09-25T02:17:00.000Z", "type": "event')
    session = read_codex(damaged)
    assert [(p.source, p.line) for p in session.problems] == [
        (str(damaged), 7),
        (str(damaged), 12),
        (str(damaged), 21),
        (str(damaged), 114),
    ]
    assert session.problems[0].message == "timestamp: not a time"
    assert session.problems[1].message.startswith("invalid JSON")
    assert session.problems[2].message == "expected a JSON object, got list"
    assert "truncated last line" in session.problems[3].message
    assert session.lines_read == 113 and session.end_offset == len("".join(lines).encode())
    good = read_codex(DASHBOARD)
    assert [(c.id, c.input, c.result) for c in session.tool_calls] == [
        (c.id, c.input, c.result) for c in good.tool_calls
    ]
    assert [m.text for m in session.messages] == [m.text for m in good.messages]


def test_sniffing_tells_codex_from_claude_code(tmp_path: Path) -> None:
    assert all(is_codex_rollout(p) for p in (DASHBOARD, PRISMA, SCRIBE))
    assert not any(is_codex_rollout(p) for p in TRANSCRIPTS.glob("*.jsonl"))
    long_meta = tmp_path / "long.jsonl"  # newer files carry tens of KB of instructions in line one
    meta = {"id": "x", "base_instructions": {"text": "y" * 100_000}}
    long_meta.write_text(
        json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": meta})
    )
    assert is_codex_rollout(long_meta)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    assert not is_codex_rollout(empty)


def test_read_transcript_dispatches_on_the_file() -> None:
    codex = read_transcript(DASHBOARD)
    assert codex.session_id == "01997ea4-a70d-7da3-8c20-c736db82a7c5"
    assert codex.tool_calls == read_codex(DASHBOARD).tool_calls
    # A Codex file is read whole, whatever offset an incremental ingest asks for.
    again = read_transcript(DASHBOARD, start_offset=codex.end_offset // 2, previous=codex)
    assert again.tool_calls == codex.tool_calls and again.end_offset == codex.end_offset
    claude = read_transcript(TRANSCRIPTS / "hello-world-script.jsonl")
    assert claude.session_id == "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    assert [(c.name, c.kind) for c in claude.tool_calls] == [
        ("Write", ToolKind.WRITE),
        ("Bash", ToolKind.COMMAND),
    ]
    assert claude.problems == [] and claude.version == "2.1.14"


TEAMS = CODEX / "agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"


async def test_a_real_session_with_patches_failures_and_fixes() -> None:
    """A real 0.40 session: 29 apply_patch edits inside shell calls, type errors fixed by them,
    a refused patch (the user's no, not an error) and a shell quoting slip fixed by quoting."""
    summary = await summarize_session(read_transcript(TEAMS))
    assert summary.objective.startswith(
        "Updating a team to assign a lead or change from viewer to contributor"
    )
    assert "apps/spectora-labs/src/app/(protected)/settings/teams/components/TeamSheet.tsx" in (
        summary.files_modified or []
    )
    assert len(summary.files_modified or []) == 8
    errors = summary.errors_resolved or []
    codes = [e.error.split("error ")[1].split(":")[0] for e in errors if " error TS" in e.error]
    assert codes == ["TS2345", "TS2769", "TS2322"]
    assert all(e.fix.startswith("Edited ") for e in errors if " error TS" in e.error)
    assert not any("rejected" in e.error for e in errors)
    # the shell could not parse a command line (an unquoted path with parentheses): a typo, no record
    assert not any("syntax error near unexpected token" in e.error for e in errors)


async def test_code_mode_scripts_are_read_as_the_calls_they_make() -> None:
    """Codex Desktop's code mode: each `exec` script is the command, patch or poll it runs; a script
    still running when its time slice ended gets the output of the `wait` that saw it complete; the
    script header is gone; a command the shell could not run is a failure though no exit status
    is recorded."""
    from graphiti_session_tracking.summary.errors.verdict import failure_lines

    session = read_transcript(CODE_MODE)
    calls = session.tool_calls
    kinds = Counter(c.kind for c in calls)
    assert kinds[ToolKind.OTHER] == 0 and kinds[ToolKind.COMMAND] == 21 and kinds[ToolKind.EDIT] == 2
    assert sum(1 for r in records(CODE_MODE) if r["payload"].get("name") == "exec") == 24
    assert not any(c.result is not None and c.result.text.startswith("Script ") for c in calls)
    (slow,) = [
        c
        for c in calls
        if c.input.get("command", "").endswith(
            "mise run test:bats:libgit2 test/check_list_files_empty_with_stderr.bats"
        )
    ]
    assert slow.result is not None and slow.result.text.startswith("diff --git")  # from the 7th wait
    (missing,) = [c for c in calls if "do HK_LIBGIT2=1 bats" in c.input.get("command", "")]
    assert failure_lines(missing) == ["zsh:1: command not found: bats"]
    summary = await summarize_session(session)
    assert summary.files_modified == ["test/check_list_files_empty_with_stderr.bats"]
    assert [(c.sha, c.pull_request) for c in summary.commits or []] == [("f924895", 1068)]


def test_a_command_result_a_code_mode_script_printed_as_json_is_its_output_and_status() -> None:
    from graphiti_session_tracking.transcripts.codex_code_mode import printed_result

    failed = printed_result(
        '{"exit_code":101,"output":"\\nthread \'main\' panicked at src/a.rs:1:2:\\nboom"}'
    )
    assert failed == ("Exit code 101\n\nthread 'main' panicked at src/a.rs:1:2:\nboom", 101)
    assert printed_result('{"exitCode": 0, "stdout": "ok", "stderr": ""}') == ("ok", 0)
    assert printed_result('{"data": {"title": "x"}}') == ('{"data": {"title": "x"}}', None)  # gh api's JSON
    assert printed_result("{not json") == ("{not json", None)


def test_a_rollout_written_before_0_39_is_read_too(tmp_path: Path) -> None:
    """Before 0.39 a rollout's first line was the bare session header and every later line a bare
    response item or a `record_type` marker: read, not taken for an empty Claude Code file."""
    path = tmp_path / "rollout-2025-08-23T05-46-47-legacy.jsonl"
    header = {
        "id": "5f0c2f1e-legacy",
        "timestamp": "2025-08-23T05:46:47.469Z",
        "instructions": None,
        "git": {"branch": "main"},
    }
    script = {"command": ["bash", "-lc", "npm test"], "workdir": "/p"}
    failed = json.dumps(
        {"output": "FAIL src/a.test.ts\nTypeError: x is undefined", "metadata": {"exit_code": 1}}
    )
    items = [
        header,
        {"record_type": "state"},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "<environment_context>\n<cwd>/p</cwd>\n</environment_context>"}
            ],
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Fix the failing test"}],
        },
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Run the tests first"}],
            "encrypted_content": "x",
        },
        {"type": "function_call", "name": "shell", "arguments": json.dumps(script), "call_id": "call_1"},
        {"type": "function_call_output", "call_id": "call_1", "output": failed},
        {"record_type": "state"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "The test fails on an undefined x."}],
        },
    ]
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    assert is_codex_rollout(path)
    session = read_transcript(path)
    assert (session.agent, session.session_id, session.git_branch) == ("codex", "5f0c2f1e-legacy", "main")
    assert session.started_at == datetime(2025, 8, 23, 5, 46, 47, 469000, tzinfo=UTC)
    assert [m.text for m in session.messages if m.is_human] == ["Fix the failing test"]
    (call,) = session.tool_calls
    assert call.kind is ToolKind.COMMAND and call.input["command"] == "npm test"
    assert (
        call.result is not None and call.result.is_error and "TypeError: x is undefined" in call.result.text
    )
    assert "The test fails on an undefined x." in [m.text for m in session.messages]
    assert session.problems == [] and session.record_counts["state"] == 2


async def test_plan_modes_questions_and_the_answers_given_are_the_users_decisions(tmp_path: Path) -> None:
    """`request_user_input` (Codex's Plan mode) reads as a question, its answers by question text."""
    questions = [
        {
            "id": "storage",
            "header": "Storage",
            "question": "Where should sessions be stored?",
            "options": [
                {"label": "SQLite (Recommended)", "description": "One file, no server to run"},
                {"label": "Postgres", "description": "Shared by the team"},
            ],
        },
        {
            "id": "auth",
            "header": "Auth",
            "question": "Which login should the CLI use?",
            "options": [{"label": "Device code", "description": ""}, {"label": "API key", "description": ""}],
        },
    ]
    call = {
        "type": "function_call",
        "name": "request_user_input",
        "arguments": json.dumps({"questions": questions}),
        "call_id": "q1",
    }
    answers = {
        "answers": {"storage": {"answers": ["SQLite (Recommended)"]}, "auth": {"answers": ["API key"]}}
    }
    output = {"type": "function_call_output", "call_id": "q1", "output": json.dumps(answers)}
    path = tmp_path / "rollout.jsonl"
    meta = DASHBOARD.read_text().splitlines()[0]
    path.write_text(
        "\n".join([meta, _line("response_item", call, 2), _line("response_item", output, 3)]) + "\n"
    )

    session = read_codex(path)
    [question] = session.tool_calls
    assert question.kind is ToolKind.QUESTION
    summary = await summarize_session(session)
    decided = [(d.decision, d.rationale, d.alternatives, d.by) for d in summary.key_decisions or []]
    assert decided == [
        ("Where should sessions be stored? SQLite", "One file, no server to run", ["Postgres"], "user"),
        ("Which login should the CLI use? API key", "", ["Device code"], "user"),
    ]
