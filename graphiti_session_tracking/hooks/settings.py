"""Our entries in Claude Code's settings.json (`~/.claude/settings.json`, or a project's
`.claude/settings.json`), or Gemini CLI's (`~/.gemini/settings.json`, `.gemini/settings.json`,
hooks in the same shape, timeouts in milliseconds): added beside whatever else is there, never
twice, removed alone.

A file we cannot read as JSON is reported with its line and never written. Before each change the
file as it was is kept beside it (`settings.json.graphiti-sessions.bak`), and the new one replaces
it whole (written to a temporary file, then renamed).
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from graphiti_session_tracking.private_files import private_folder, write_private

Scope = Literal["user", "project"]
MARK = "graphiti_session_tracking hook "  # how our commands are told from other tools' hooks
TIMEOUT_S = 10


@dataclass(frozen=True)
class Host:
    """An agent whose settings.json runs command hooks: its folder, its events (each to the
    handler we run), and its timeout unit."""

    folder: str
    events: dict[str, str]
    timeout_unit: int  # Claude Code counts seconds, Gemini CLI milliseconds


HOSTS: dict[str, Host] = {
    "claude-code": Host(
        ".claude",
        {"SessionStart": "session-start", "SessionEnd": "session-end", "PreCompact": "pre-compact"},
        1,
    ),
    "gemini-cli": Host(
        ".gemini",
        {"SessionStart": "session-start", "SessionEnd": "session-end", "PreCompress": "pre-compact"},
        1000,
    ),
}
HANDLERS = ("session-start", "session-end", "pre-compact")


class SettingsError(Exception):
    """A settings file that cannot be used as it is (exit 2; the file is left untouched)."""


def settings_path(scope: Scope, project: Path | None = None, agent: str = "claude-code") -> Path:
    folder = HOSTS[agent].folder
    if scope == "user":
        return Path.home() / folder / "settings.json"
    return (project or Path.cwd()) / folder / "settings.json"


def command_for(event: str, agent: str = "claude-code") -> str:
    """The hook's command line: this Python, so the hook runs the installed package whatever PATH says."""
    handler = HOSTS[agent].events[event]
    named = [] if agent == "claude-code" else [f"--agent={agent}"]
    return shlex.join([sys.executable, "-m", "graphiti_session_tracking", "hook", handler, *named])


def read_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read it ({exc}); left as it is") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); left as it is") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{path}:1: the settings must be a JSON object; left as it is")
    hooks = data.get("hooks", {})
    # Besides its events' lists, Gemini CLI's `hooks` may hold its own switches (`enabled`, `disabled`).
    events = [name for host in HOSTS.values() for name in host.events]
    if not isinstance(hooks, dict) or any(not isinstance(hooks[e], list) for e in events if e in hooks):
        raise SettingsError(f"{path}: `hooks` is not an object of lists; left as it is")
    return data


def installed(path: Path) -> dict[str, str]:
    """Our command of each event installed in `path`."""
    found: dict[str, str] = {}
    for event, groups in read_settings(path).get("hooks", {}).items():
        for group in groups if isinstance(groups, list) else []:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(hook, dict) and MARK in str(hook.get("command", "")):
                    found[event] = str(hook["command"])
    return found


def install(path: Path, events: list[str], agent: str = "claude-code") -> list[str]:
    """Add our hook to each event (replacing an older command of ours); what changed."""
    data = read_settings(path)
    hooks = data.setdefault("hooks", {})
    changed = []
    for event in events:
        groups = hooks.setdefault(event, [])
        mine: dict[str, Any] = {
            "type": "command",
            "command": command_for(event, agent),
            "timeout": TIMEOUT_S * HOSTS[agent].timeout_unit,
        }
        if agent != "claude-code":
            mine["name"] = "graphiti-sessions"  # how Gemini CLI names a hook in its listings
        present = [h for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if _ours(h)]
        if present == [mine]:
            continue
        _drop_ours(groups)
        groups.append({"hooks": [mine]})
        changed.append(event)
    if changed:
        _write(path, data)
    return changed


def uninstall(path: Path) -> list[str]:
    """Remove our hooks only; events left with no hook at all are removed too."""
    data = read_settings(path)
    hooks = data.get("hooks", {})
    removed = [event for event, groups in hooks.items() if isinstance(groups, list) and _drop_ours(groups)]
    for event in [e for e, groups in hooks.items() if isinstance(groups, list) and not groups]:
        del hooks[event]
    if "hooks" in data and not hooks:
        del data["hooks"]
    if removed:
        _write(path, data)
    return removed


def _ours(hook: Any) -> bool:
    return isinstance(hook, dict) and MARK in str(hook.get("command", ""))


def _drop_ours(groups: list[Any]) -> bool:
    """Remove our hooks from an event's groups (and groups left empty); whether any was."""
    dropped = False
    for group in list(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        kept = [h for h in group["hooks"] if not _ours(h)]
        if len(kept) != len(group["hooks"]):
            dropped = True
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    return dropped


def _write(path: Path, data: dict[str, Any]) -> None:
    """The settings file is the user's: one that exists keeps its mode. A new one, its new
    folders and the backup are private (0700 / 0600): settings.json may hold secrets in `env`."""
    private_folder(path.parent)
    if path.exists():
        write_private(path.with_name(path.name + ".graphiti-sessions.bak"), path.read_bytes())
    write_private(path, json.dumps(data, indent=2) + "\n", keep_mode=True)
