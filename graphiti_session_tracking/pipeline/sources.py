"""Where sessions come from: transcripts and folders of them, summary .json files; which of them
need reading (asking the ledger, so an unchanged source costs a stat), and why one cannot be read."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from graphiti_session_tracking.transcripts import Session, TranscriptNotFoundError
from graphiti_session_tracking.transcripts.agents import (
    OpenCodeDatabaseError,
    database_sessions,
    default_folders,
    in_database,
    sessions_under,
    source_state,
)

from .ledger import Ledger, classify_source

if TYPE_CHECKING:
    from graphiti_session_tracking.summary import EnhancedSessionSummary

DEFAULT_TRANSCRIPTS_DIR = Path.home() / ".claude" / "projects"


class SourceError(Exception):
    """One source could not be read; the message names the file (and line when known)."""


def discover_sources(paths: Iterable[Path]) -> list[Path]:
    """Expand folders into their sessions (transcripts/agents.py says which files are sessions),
    and an OpenCode database into each of its sessions; no paths: every installed agent's folder.

    When none of the paths exists, that is a FileNotFoundError (a usage error: a typo). Anything
    named or found that cannot be read (a missing file beside others that exist, a symbolic link
    loop, a broken link, a FIFO, a folder that cannot be listed, a damaged database) stays in the
    list: `prepare` reports it under `failed` with its reason, the rest goes on.
    """
    found: dict[Path, None] = {}
    named = list(paths) or default_folders()
    modes = {path: _mode(path) for path in named}  # one stat a path: 5,000 files are named at once
    missing = [p for p in named if modes[p] is None and not os.path.lexists(p) and in_database(p) is None]
    if missing and len(missing) == len(named):
        raise FileNotFoundError(f"no such file or folder: {missing[0]}")
    for path in named:
        mode = modes[path] or 0
        if stat.S_ISDIR(mode) or (stat.S_ISREG(mode) and path.suffix == ".db"):
            unlistable: list[Path] = []
            expanded = sessions_under(path, unlistable) if path.is_dir() else database_sessions(path)
            for candidate in [*expanded, *unlistable]:
                found.setdefault(candidate, None)
        else:
            found.setdefault(path, None)
    return list(found)


def _mode(path: Path) -> int | None:
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):  # missing, a link loop, no permission, a NUL in the name
        return None


def unreadable_reason(source: Path, error: OSError) -> str:
    """Why a source cannot be read, in words: a link loop is not "no such file"."""
    try:
        info = source.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
        if exc.errno == errno.ENOENT and source.is_symlink():
            return f"broken symbolic link (to {os.readlink(source)})"
        error = exc
    else:
        if stat.S_ISDIR(info.st_mode):
            try:
                os.scandir(source).close()
            except OSError as exc:
                return f"cannot list folder: {(exc.strerror or str(exc)).lower()}"
            return "a folder, not a file"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file (a FIFO, socket or device)"
    if isinstance(error, TranscriptNotFoundError) or not error.strerror:
        return "cannot be read"
    return error.strerror.lower()


def load_summary_file(path: Path) -> EnhancedSessionSummary:
    """An EnhancedSessionSummary from a .json file; errors name the file, the line and the field."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    except RecursionError as exc:
        raise SourceError(f"{path}:1: invalid JSON: nested too deeply") from exc
    try:
        from graphiti_session_tracking.summary import EnhancedSessionSummary

        return EnhancedSessionSummary.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
        )
        line = _line_of(text, first["loc"])
        raise SourceError(f"{path}:{line}: not a session summary: {problems}") from exc


def _line_of(text: str, loc: tuple[int | str, ...]) -> int:
    """The line where the value at `loc` (a pydantic error location) starts in the JSON `text`:
    the JSON is walked along the path only, skipping sibling values whole."""
    decoder = json.JSONDecoder()
    whitespace = " \t\r\n"

    def skip(i: int) -> int:
        while i < len(text) and text[i] in whitespace:
            i += 1
        return i

    index = skip(0)
    try:
        for step in loc:
            start, opener = index, text[index]
            if opener not in "{[":
                break
            index, position, found = skip(index + 1), 0, False
            while index < len(text) and text[index] not in "}]":
                if opener == "{":
                    key, index = decoder.raw_decode(text, index)
                    index = skip(skip(index) + 1)  # past the colon
                    found = key == step
                else:
                    found = position == step
                if found:
                    break
                _, index = decoder.raw_decode(text, index)
                index = skip(index)
                if index < len(text) and text[index] == ",":
                    index = skip(index + 1)
                position += 1
            if not found:  # e.g. a missing field: the object that lacks it
                index = start
                break
    except (ValueError, IndexError, RecursionError):
        pass  # the nearest position found so far is still the best answer
    return text.count("\n", 0, min(index, len(text))) + 1


def triage(
    source: Path, ledger: Ledger | None, force: bool, since: datetime | None, group_id: str | None
) -> tuple[str, int] | None:
    """('new' | 'grown' | 'changed', offset to read from) of a source to read, or None to skip it
    (unchanged since the ledger saw it, or older than `since`). Costs a stat and a ledger lookup:
    an unchanged tree is answered from here, without loading what summarizing needs."""
    try:
        now = source_state(source)  # a symbolic link loop or a forbidden folder fails here, by name
    except OpenCodeDatabaseError as exc:
        raise SourceError(str(exc)) from exc
    if not now.is_file:  # a FIFO or device would block or never end
        raise SourceError(f"{source}: {unreadable_reason(source, OSError())}")
    if since is not None and datetime.fromtimestamp(now.mtime, tz=since.tzinfo) < since:
        return None
    record = None if ledger is None or force else ledger.get(source)
    state, offset = ("new", 0) if ledger is None or force else classify_source(source, record, now)
    if record is not None and group_id is not None and record.group_id != group_id:
        state, offset = "new", 0  # asked for in another group: read whole and moved there
    return None if state == "unchanged" else (state, offset)


_PEEK_BYTES = 65_536


def peek_session(source: Path) -> tuple[str, str]:
    """(session id, first timestamp) from a transcript's first records, cheaply, to order and group
    a run's sources before reading them; (the file's stem, "") when its opening says neither."""
    session_id, started = "", ""
    stored = in_database(source)
    if stored is not None:
        return stored[1], ""
    if source.suffix == ".jsonl":
        try:
            with source.open("rb") as handle:
                head = handle.read(_PEEK_BYTES)
        except OSError:
            head = b""
        for line in head.splitlines()[:50]:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            session_id = session_id or str(record.get("sessionId") or "")
            started = started or str(record.get("timestamp") or "")
            if session_id and started:
                break
    return session_id or source.stem, started


def no_conversation(session: Session) -> str | None:
    """Why a transcript without messages is a failed source (`ingest` and `summarize` say the same)."""
    if session.messages:
        return None
    detail = f" ({session.problems[0]})" if session.problems else ""
    return f"{session.source_file}: no conversation in transcript{detail}"
