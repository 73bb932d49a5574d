"""`graphiti-sessions setup`: Claude Code's hooks and MCP servers in one step, and out again."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from conftest import backend_cli_args, cli

from graphiti_session_tracking.config import GraphConfig

SETTINGS = '{\n    "model": "opus",\n    "statusLine": "Zoë — café"\n}'  # 4 spaces, no final newline
CLAUDE_JSON = '{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}'


def _home(tmp_path: Path) -> tuple[dict[str, str], Path]:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(SETTINGS, encoding="utf-8")
    (home / ".claude.json").write_text(CLAUDE_JSON)
    env = {**os.environ, "HOME": str(home), "GRAPHITI_HOME": str(tmp_path / "g")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env, home


def test_setup_adds_hooks_and_our_server_and_remove_gives_the_files_back_byte_for_byte(
    tmp_path: Path,
) -> None:
    env, home = _home(tmp_path)
    done = cli("setup", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "hooks: added SessionStart, SessionEnd" in done.stdout
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert set(settings["hooks"]) == {"SessionStart", "SessionEnd"} and settings["model"] == "opus"
    servers = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert servers["other"] == {"command": "x"}
    ours = servers["graphiti-sessions"]
    assert ours["command"] == sys.executable and ours["args"] == ["-m", "graphiti_session_tracking", "mcp"]
    assert "not added" in done.stdout  # the upstream server needs a database server and its folder

    again = cli("setup", env=env, cwd=tmp_path)
    assert "already installed" in again.stdout and "already there" in again.stdout

    removed = cli("setup", "--remove", env=env, cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert (home / ".claude" / "settings.json").read_bytes() == SETTINGS.encode("utf-8")
    assert (home / ".claude.json").read_bytes() == CLAUDE_JSON.encode()


def test_project_scope_writes_the_projects_files(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    done = cli("setup", "--project", env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "graphiti-sessions" in json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert "SessionEnd" in json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    assert (home / ".claude.json").read_text() == CLAUDE_JSON


def test_a_broken_file_is_named_and_nothing_changes(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    (home / ".claude.json").write_text('{\n  "numStartups": 3,\n  oops\n}')
    done = cli("setup", env=env, cwd=tmp_path)
    assert done.returncode == 2 and f"{home / '.claude.json'}:3: not valid JSON" in done.stderr
    assert (home / ".claude" / "settings.json").read_text(encoding="utf-8") == SETTINGS


def test_the_upstream_server_is_refused_on_the_embedded_file(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    folder = tmp_path / "mcp_server"
    folder.mkdir()
    (folder / "main.py").write_text("")
    done = cli("setup", "--graphiti-mcp", str(folder), env=env, cwd=tmp_path)
    assert done.returncode == 2 and "cannot open the embedded FalkorDB Lite file" in done.stderr
    assert (home / ".claude.json").read_text() == CLAUDE_JSON
    missing = cli("setup", "--graphiti-mcp", str(tmp_path), env=env, cwd=tmp_path)
    assert missing.returncode == 2 and "no main.py here" in missing.stderr


def test_the_upstream_server_reads_the_same_neo4j_graph(tmp_path: Path, neo4j_config: GraphConfig) -> None:
    env, home = _home(tmp_path)
    folder = tmp_path / "mcp_server"
    folder.mkdir()
    (folder / "main.py").write_text("")
    done = cli("setup", "--graphiti-mcp", str(folder), *backend_cli_args(neo4j_config), env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    upstream = json.loads((home / ".claude.json").read_text())["mcpServers"]["graphiti"]
    config_yaml = tmp_path / "g" / "graphiti-mcp" / "config.yaml"
    assert upstream["command"] == "uv"
    assert upstream["args"] == [
        "run", "--directory", str(folder.resolve()), "main.py", "--transport", "stdio", "--config", str(config_yaml)
    ]  # fmt: skip
    text = config_yaml.read_text()
    assert "provider: neo4j" in text and (neo4j_config.uri or "") in text
    assert (neo4j_config.password or "unset") not in text  # the password stays in the environment
    assert stat.S_IMODE(config_yaml.stat().st_mode) == 0o600
    removed = cli("setup", "--remove", env=env, cwd=tmp_path)
    assert "MCP server graphiti: removed" in removed.stdout
    assert (home / ".claude.json").read_bytes() == CLAUDE_JSON.encode()
