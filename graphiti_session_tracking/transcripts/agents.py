"""Where each coding agent keeps its sessions, which files in a folder are sessions, and what a
session source looks like now: the one place the pipeline asks about agents' storage.

A source is a path. Most agents write one file per session (Claude Code, Codex CLI, Gemini CLI).
OpenCode keeps a session in many files (its JSON tree: the session file names it) or in rows of
one SQLite database; a session in a database is the path `<database>#<session id>`, which no
file has, and whose size and time come from the rows (`source_state`).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from graphiti_session_tracking.config import claude_projects

from .gemini import is_gemini_chat
from .opencode import is_child_session, is_opencode_session, opencode_tree_fingerprint
from .opencode_db import OpenCodeDatabaseError, opencode_db_fingerprint, opencode_db_sessions

__all__ = [
    "AGENT_NAMES",
    "DB_SESSION_MARK",
    "OpenCodeDatabaseError",
    "SourceState",
    "database_sessions",
    "default_folders",
    "in_database",
    "is_session_json",
    "sessions_under",
    "source_state",
]

AGENT_NAMES = ("claude-code", "codex", "gemini-cli", "opencode")
DB_SESSION_MARK = "#"
_OPENCODE_DATABASES = ("opencode.db", "opencode-local.db", "opencode-beta.db")


def default_folders() -> list[Path]:
    """Each installed agent's session folder, those that exist (Claude Code's first):
    `~/.claude/projects` (or `$CLAUDE_CONFIG_DIR/projects`), `$CODEX_HOME/sessions` and
    `archived_sessions` (`~/.codex`), `~/.gemini/tmp`, `$XDG_DATA_HOME/opencode`
    (`~/.local/share/opencode`). None installed: Claude Code's, so that the error names it."""
    home = Path.home()
    codex = Path(os.environ.get("CODEX_HOME") or home / ".codex").expanduser()
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share").expanduser()
    folders = [
        claude_projects(),
        codex / "sessions",
        codex / "archived_sessions",
        home / ".gemini" / "tmp",
        data / "opencode",
    ]
    found = [folder for folder in folders if folder.is_dir()]
    return found or [folders[0]]


def in_database(source: Path) -> tuple[Path, str] | None:
    """(database, session id) of an OpenCode session kept in a database, else None."""
    text = str(source)
    database, mark, session_id = text.rpartition(DB_SESSION_MARK)
    if not mark or not session_id or Path(database).name not in _OPENCODE_DATABASES:
        return None
    return Path(database), session_id


def is_session_json(path: Path) -> bool:
    """A `.json` file that is an agent's session (Gemini CLI's older chats, an OpenCode session
    file) rather than one of this project's summary files."""
    return is_gemini_chat(path) or is_opencode_session(path)


def sessions_under(folder: Path, unlistable: list[Path]) -> list[Path]:
    """The session sources under `folder`, sorted (linked folders are not followed, sub-agent
    transcripts belong to their session): `.jsonl` transcripts; Gemini CLI chats (`chats/*.json`, or a
    chat file by its name elsewhere);
    OpenCode session files that are not a sub-agent's, unless an OpenCode database beside them
    holds the same sessions (after OpenCode's own migration the old tree stays on disk); and each
    session of an OpenCode database. Folders that cannot be listed are added to `unlistable`."""
    found: list[Path] = []

    def cannot_list(error: OSError) -> None:
        unlistable.append(Path(error.filename) if error.filename else folder)

    for root, dirs, files in os.walk(folder, onerror=cannot_list):
        here = Path(root)
        databases = [name for name in files if name in _OPENCODE_DATABASES]
        if databases and "storage" in dirs:
            dirs.remove("storage")  # migrated: the database holds these sessions
        # Claude Code's sub-agent transcripts are read with their session; in OpenCode's tree only
        # the session files name sessions (messages and parts are read from there).
        dirs[:] = [d for d in dirs if d != "subagents" and (here.name != "storage" or d == "session")]
        for name in files:
            path = here / name
            if name.endswith(".jsonl") or (name.endswith(".json") and _json_session(path)):
                found.append(path)
        for name in databases:
            found += database_sessions(here / name)
    return sorted(found)


def database_sessions(database: Path) -> list[Path]:
    """Each session of an OpenCode database as a source, or the database itself when it cannot be
    read (then reported as a failed source, with the reason) or is not OpenCode's."""
    if database.name not in _OPENCODE_DATABASES:
        return [database]
    try:
        return [Path(f"{database}{DB_SESSION_MARK}{sid}") for sid in opencode_db_sessions(database)]
    except OpenCodeDatabaseError:
        return [database]


# Gemini CLI's name for a chat file (`session-2026-01-02T10-00-6e6e6e6e.json`), also once a chat is
# copied out of its `chats/` folder, with a prefix (`shop__session-….json`): other JSON files of a
# folder (package.json, a summary) are not opened to find out.
_GEMINI_CHAT_NAME = re.compile(r"(?:^|[_.-])session-\d{4}-\d\d-\d\dT[\w-]+\.json$")


def _json_session(path: Path) -> bool:
    if path.parent.name == "chats" or _GEMINI_CHAT_NAME.search(path.name):
        return is_gemini_chat(path)
    if path.parent.parent.name == "session":
        return is_opencode_session(path) and not is_child_session(path)
    return False


class SourceState:
    """What a source looks like now: size, modification time and kind, as `os.stat` says them for
    a file; for a session spread over files or rows, their total size and newest time."""

    __slots__ = ("is_file", "mtime_ns", "one_file", "size")

    def __init__(self, size: int, mtime_ns: int, is_file: bool = True, one_file: bool = True) -> None:
        self.size, self.mtime_ns, self.is_file = size, mtime_ns, is_file
        self.one_file = one_file  # the session is this one file: its bytes can be hashed

    @property
    def mtime(self) -> float:
        return self.mtime_ns / 1e9


def source_state(source: Path) -> SourceState:
    """The source's state; raises OSError (a file) or OpenCodeDatabaseError (a database session)
    when it cannot be read."""
    stored = in_database(source)
    if stored is not None:
        size, mtime_ns = opencode_db_fingerprint(*stored)
        return SourceState(size, mtime_ns, one_file=False)
    info = source.stat()
    if stat.S_ISREG(info.st_mode) and source.parent.parent.name == "session" and is_opencode_session(source):
        size, mtime_ns = opencode_tree_fingerprint(source)
        return SourceState(size, mtime_ns, one_file=False)
    return SourceState(info.st_size, info.st_mtime_ns, stat.S_ISREG(info.st_mode))
