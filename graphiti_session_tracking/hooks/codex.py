"""Codex CLI's program hook: `notify` in `$CODEX_HOME/config.toml` (default `~/.codex`) names one
program that Codex runs after each agent turn, the event as JSON in its last argument
(`{"type": "agent-turn-complete", "thread-id", "turn-id", "cwd", …}`).

Codex runs one such program, so ours is added only when the slot is free (a notifier already
there is the user's: they are told, and `watch` captures Codex sessions instead). It is written as
the file's first line, where a top-level key belongs whatever tables follow, so every other byte of
the file stays as it was; uninstall removes that line alone.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from graphiti_session_tracking.private_files import private_folder, write_private

from .settings import SettingsError

MARK = "graphiti_session_tracking hook codex-notify"
_THREAD = re.compile(r"[0-9a-fA-F-]{8,64}")


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def config_path() -> Path:
    return codex_home() / "config.toml"


def notify_line() -> str:
    """Our `notify` entry (a JSON array of strings is a TOML array of basic strings)."""
    command = [sys.executable, "-m", "graphiti_session_tracking", "hook", "codex-notify"]
    return f"notify = {json.dumps(command)}  # graphiti-sessions\n"


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text("utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read it ({exc}); left as it is") from exc
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML ({exc}); left as it is") from exc


def installed(path: Path) -> bool:
    text, _ = _read(path)
    return any(_ours(line) for line in text.splitlines())


def install(path: Path) -> list[str]:
    """Add our notify program: ["notify"], or [] when it is there already. Another program in the
    slot is a SettingsError naming it (the file is not written)."""
    text, data = _read(path)
    current = data.get("notify")
    if current is not None:
        if installed(path):
            return []
        raise SettingsError(
            f"{path}: notify already runs {current!r}, and Codex runs one notify program; "
            "remove it to use ours, or capture Codex sessions with `graphiti-sessions watch`"
        )
    private_folder(path.parent)
    if path.exists():
        write_private(path.with_name(path.name + ".graphiti-sessions.bak"), path.read_bytes())
    write_private(path, notify_line() + text, keep_mode=True)
    return ["notify"]


def uninstall(path: Path) -> list[str]:
    """Remove our notify line only: ["notify"], or [] when it was not there."""
    text, _ = _read(path)
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if not _ours(line)]
    if len(kept) == len(lines):
        return []
    write_private(path.with_name(path.name + ".graphiti-sessions.bak"), text)
    write_private(path, "".join(kept), keep_mode=True)
    return ["notify"]


def _ours(line: str) -> bool:
    """Whether a line of config.toml is our notify entry (read as TOML, not matched as text)."""
    if not line.lstrip().startswith("notify"):
        return False
    try:
        value = tomllib.loads(line).get("notify")
    except tomllib.TOMLDecodeError:
        return False
    return isinstance(value, list) and MARK in " ".join(str(part) for part in value)


def rollout_of(event: dict[str, Any]) -> Path | None:
    """The rollout file of the event's thread (its session id ends the file's name), if any."""
    thread = event.get("thread-id") or event.get("thread_id")
    if not isinstance(thread, str) or not _THREAD.fullmatch(thread):
        return None
    folder = codex_home() / "sessions"  # an archived thread takes no more turns
    found = sorted(folder.glob(f"**/rollout-*-{thread}.jsonl")) if folder.is_dir() else []
    return found[-1] if found else None


def read_notification(argv: list[str]) -> dict[str, Any]:
    """The event Codex passed as the last argument; anything else is an empty event."""
    try:
        data = json.loads(argv[-1]) if argv else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
