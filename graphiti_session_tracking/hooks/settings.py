"""Our entries in Claude Code's settings.json (`~/.claude/settings.json`, or a project's
`.claude/settings.json`), or Gemini CLI's (`~/.gemini/settings.json`, `.gemini/settings.json`,
hooks in the same shape, timeouts in milliseconds): added beside whatever else is there, never
twice, removed alone.

The file is the user's, so it is edited as text, not rewritten: our entries are spliced in and cut
out again with the file's own indentation, separators and line endings, and every other byte stays
(key order, non-ASCII text, the trailing newline or its absence). Install then uninstall gives the
file back byte for byte; containers we added (`hooks`, an event's list) go again when we empty them.

A file we cannot read as JSON is reported with its line and never written. Before each change the
file as it was is kept beside it (`settings.json.graphiti-sessions.bak`), and the new one replaces
it whole (written to a temporary file beside it, then renamed). A settings.json that is a symbolic
link (dotfiles) stays one: the file it points to is the one replaced, keeping its mode.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .json_text import Edit, JsonFileError, Node, append, load, parse, style_of, write

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


class SettingsError(JsonFileError):
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
    return _load(path)[1]


def _load(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and settings; a file whose `hooks` we cannot use is left as it is."""
    try:
        text, data = load(path)
    except JsonFileError as exc:
        raise SettingsError(
            str(exc).replace("must hold a JSON object", "settings must be a JSON object")
        ) from exc
    hooks = data.get("hooks", {})
    # Besides its events' lists, Gemini CLI's `hooks` may hold its own switches (`enabled`, `disabled`).
    events = [name for host in HOSTS.values() for name in host.events]
    if not isinstance(hooks, dict) or any(not isinstance(hooks[e], list) for e in events if e in hooks):
        raise SettingsError(f"{path}: `hooks` is not an object of lists; left as it is")
    return text, data


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
    original, _ = _load(path)
    text = original if original.strip() else "{}\n"
    changed = []
    for event in events:
        mine: dict[str, Any] = {
            "type": "command",
            "command": command_for(event, agent),
            "timeout": TIMEOUT_S * HOSTS[agent].timeout_unit,
        }
        if agent != "claude-code":
            mine["name"] = "graphiti-sessions"  # how Gemini CLI names a hook in its listings
        groups = _event_list(parse(text), event)
        if groups is not None:
            present = [h for g in groups.value if isinstance(g, dict) for h in g.get("hooks", []) if _ours(h)]
            if present == [mine]:
                continue
            while (cut := _first_ours(parse(text), only=event)) is not None:
                text = cut.edit.remove(text, upto=1)  # the list stays: ours follows
        text = _add_group(text, event, {"hooks": [mine]})
        changed.append(event)
    if changed:
        write(path, text)
    return changed


def uninstall(path: Path) -> list[str]:
    """Remove our hooks only. A group, an event's list or `hooks` itself that removing ours leaves
    empty goes too, so a file we added them to comes back as it was; other empty ones stay."""
    text, removed = _load(path)[0], list[str]()
    if not text.strip():
        return removed
    while (cut := _first_ours(parse(text))) is not None:
        text = cut.edit.remove(text, upto=3)
        if cut.event not in removed:
            removed.append(cut.event)
    if removed:
        write(path, text)
    return removed


def _ours(hook: Any) -> bool:
    return isinstance(hook, dict) and MARK in str(hook.get("command", ""))


@dataclass(frozen=True)
class _Cut:
    """One hook of ours: its event, and the edit removing it."""

    event: str
    edit: Edit


def _event_list(root: Node, event: str) -> Node | None:
    hooks = root.member("hooks")
    found = hooks.node.member(event) if hooks and isinstance(hooks.node.value, dict) else None
    return found.node if found and isinstance(found.node.value, list) else None


def _first_ours(root: Node, only: str | None = None) -> _Cut | None:
    """Our first hook in the text (of the event `only`, if given), as the edit removing it."""
    for cut in _all_ours(root):
        if only is None or cut.event == only:
            return cut
    return None


def _all_ours(root: Node) -> Iterator[_Cut]:
    hooks = root.member("hooks")
    if hooks is None or not isinstance(hooks.node.value, dict):
        return
    events = hooks.node.elements
    for e, event in enumerate(events):
        if event.key is None or hooks.node.member(event.key) is not event:
            continue  # a repeated key: json.loads keeps the last one only
        if not isinstance(event.node.value, list):
            continue
        for g, group in enumerate(event.node.elements):
            listed = group.node.member("hooks") if isinstance(group.node.value, dict) else None
            if listed is None or not isinstance(listed.node.value, list):
                continue
            for h, hook in enumerate(listed.node.elements):
                if _ours(hook.node.value):
                    at_root = root.elements.index(hooks)
                    levels = [(listed.node, h), (event.node, g), (hooks.node, e), (root, at_root)]
                    yield _Cut(event.key, Edit(levels))


def _add_group(text: str, event: str, group: dict[str, Any]) -> str:
    """Append `group` to the event's list, making the list, and `hooks`, where they are missing."""
    root = parse(text)
    look = style_of(text, root)
    hooks = root.member("hooks")
    if hooks is None:
        return append(text, root, "hooks", {event: [group]}, look)
    listed = hooks.node.member(event)
    if listed is None:
        return append(text, hooks.node, event, [group], look)
    return append(text, listed.node, None, group, look)
