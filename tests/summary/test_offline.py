"""The offline summary of whole sessions, checked against the transcripts themselves."""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary import extract_summary
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
