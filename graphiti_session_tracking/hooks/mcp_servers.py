"""Our MCP server in Claude Code's own list of servers, the user's (`~/.claude.json`, which
`claude mcp add --scope user` writes) or a project's `.mcp.json`: added beside the others, replaced
when it changed, removed alone, the file otherwise byte for byte as it was (json_text)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from .json_text import load, remove_member, set_member, write
from .settings import Scope

NAME = "graphiti-sessions"
GRAPHITI_NAME = "graphiti"  # the upstream Graphiti MCP server, as its own docs name it
_KEY = "mcpServers"


def mcp_config_path(scope: Scope, project: Path | None = None) -> Path:
    """Where Claude Code reads MCP servers for `scope` (CLAUDE_CONFIG_DIR moves the user's file)."""
    if scope == "project":
        return (project or Path.cwd()) / ".mcp.json"
    folder = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(folder) / ".claude.json" if folder else Path.home() / ".claude.json"


def our_server() -> dict[str, Any]:
    """Our server as Claude Code starts it: this Python, so it runs the installed package whatever
    PATH says (as the hooks do)."""
    return {"type": "stdio", "command": sys.executable, "args": ["-m", "graphiti_session_tracking", "mcp"]}


def graphiti_server(directory: Path, config_yaml: Path) -> dict[str, Any]:
    """The upstream Graphiti MCP server run from its checkout's `mcp_server` folder, as its README
    runs it, with the config.yaml we wrote for this graph."""
    return {
        "type": "stdio",
        "command": "uv",
        "args": [
            "run",
            "--directory",
            str(directory),
            "main.py",
            "--transport",
            "stdio",
            "--config",
            str(config_yaml),
        ],
    }


def registered(path: Path) -> dict[str, Any]:
    """The servers listed in `path` (none when it does not exist)."""
    return _servers(load(path)[1])


def _servers(data: dict[str, Any]) -> dict[str, Any]:
    servers = data.get(_KEY)
    return servers if isinstance(servers, dict) else {}


def add(path: Path, name: str, entry: dict[str, Any]) -> bool:
    """List `entry` as `name` in `path`; False when it is already there as it is."""
    text, data = load(path)
    if _servers(data).get(name) == entry:
        return False
    write(path, set_member(text, [_KEY, name], entry))
    return True


def remove(path: Path, name: str) -> bool:
    """Take `name` out of `path`; False when it was not there."""
    text, data = load(path)
    if name not in _servers(data):
        return False
    write(path, remove_member(text, [_KEY, name]))
    return True
