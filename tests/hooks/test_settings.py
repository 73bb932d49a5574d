"""Installing the hooks into Claude Code's settings.json: beside other tools' hooks and settings,
idempotent, with a backup; a malformed file is reported with its line and never overwritten."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import cli

from graphiti_session_tracking.hooks.settings import SettingsError, install, installed, uninstall

OTHERS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "SessionEnd": [{"hooks": [{"type": "command", "command": "other-tool flush"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    },
}


def test_install_merges_is_idempotent_and_uninstall_removes_only_ours(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OTHERS))
    assert install(path, ["SessionStart", "SessionEnd"]) == ["SessionStart", "SessionEnd"]
    assert install(path, ["SessionStart", "SessionEnd"]) == []  # idempotent
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == OTHERS["permissions"]
    assert data["hooks"]["PreToolUse"] == OTHERS["hooks"]["PreToolUse"]
    commands = [h["command"] for g in data["hooks"]["SessionEnd"] for h in g["hooks"]]
    assert (
        commands[0] == "other-tool flush" and commands[1].endswith("hook session-end") and len(commands) == 2
    )
    assert set(installed(path)) == {"SessionStart", "SessionEnd"}
    assert uninstall(path) == ["SessionEnd", "SessionStart"]
    assert json.loads(path.read_text()) == OTHERS
    assert uninstall(path) == []


def test_backup_is_the_file_before_the_change(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(OTHERS, indent=4))
    before = path.read_text()
    install(path, ["SessionEnd"])
    assert Path(f"{path}.graphiti-sessions.bak").read_text() == before


def test_a_missing_file_is_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / ".claude" / "settings.json"
    install(path, ["SessionStart", "SessionEnd", "PreCompact"])
    assert set(installed(path)) == {"SessionStart", "SessionEnd", "PreCompact"}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{\n  "model": "opus",\n  "hooks": {,}\n}\n', ":3:"),
        ("[1, 2]", ":1:"),
        ('{"hooks": {"SessionEnd": {}}}', ""),
    ],
)
def test_a_malformed_file_is_reported_and_never_written(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(SettingsError, match="left as it is") as raised:
        install(path, ["SessionEnd"])
    assert f"{path}{where}" in str(raised.value)
    assert path.read_text() == text and not Path(f"{path}.graphiti-sessions.bak").exists()


def test_the_commands_user_and_project_scopes(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(home), "GRAPHITI_HOME": str(tmp_path / "g")}

    def run(*args: str) -> str:
        done = cli("hook", *args, env=env, cwd=project)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "added SessionStart, SessionEnd" in run("install")
    assert "already installed" in run("install")
    assert "added SessionStart, SessionEnd, PreCompact" in run("install", "--project", "--pre-compact")
    status = json.loads(run("status", "--json"))
    assert set(status["user"]["hooks"]) == {"SessionStart", "SessionEnd"}
    assert set(status["project"]["hooks"]) == {"SessionStart", "SessionEnd", "PreCompact"}
    assert "removed" in run("uninstall", "--project")
    assert not (project / ".claude" / "settings.json").read_text().count("graphiti_session_tracking")
    (home / ".claude" / "settings.json").write_text("{oops")
    broken = cli("hook", "install", env=env, cwd=project)
    assert broken.returncode == 2 and ":1: not valid JSON" in broken.stderr


def test_gemini_cli_hooks_beside_its_own_switches(tmp_path: Path) -> None:
    """Gemini CLI's settings.json takes hooks in the same shape, its timeouts in milliseconds, and
    may keep its own switches in `hooks` (`enabled`, `disabled`): kept as they are."""
    home = tmp_path / "home"
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    theirs = {
        "theme": "dark",
        "hooks": {"enabled": True, "disabled": ["x"], "SessionEnd": OTHERS["hooks"]["SessionEnd"]},
    }
    path.write_text(json.dumps(theirs))
    env = {**os.environ, "HOME": str(home)}
    done = cli("hook", "install", "--agent", "gemini-cli", env=env, cwd=tmp_path)
    assert done.returncode == 0 and "added SessionStart, SessionEnd" in done.stdout, done.stderr
    data = json.loads(path.read_text())
    assert data["theme"] == "dark" and data["hooks"]["enabled"] is True and data["hooks"]["disabled"] == ["x"]
    (ours,) = [h for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    assert ours["command"].endswith("hook session-start --agent=gemini-cli") and ours["timeout"] == 10_000
    assert set(installed(path)) == {"SessionStart", "SessionEnd"}
    status = json.loads(cli("hook", "status", "--json", env=env, cwd=tmp_path).stdout)
    assert set(status["gemini-cli user"]["hooks"]) == {"SessionStart", "SessionEnd"}
    assert status["user"]["hooks"] == {}  # Claude Code's settings untouched
    assert cli("hook", "uninstall", "--agent", "gemini-cli", env=env, cwd=tmp_path).returncode == 0
    assert json.loads(path.read_text()) == theirs
