"""Read an OpenCode session (sst/opencode, now anomalyco/opencode) from its JSON tree into a Session.

Before the SQLite database of 1.x (`opencode_db.py`), OpenCode kept each record of a session in a
JSON file under `storage/`: `session/<projectID>/<ses>.json`, `message/<ses>/<msg>.json`,
`part/<msg>/<prt>.json` (0.x: `session/info/<ses>.json`, `session/message/<ses>/`,
`session/part/<ses>/<msg>/`). The files are found from the session file's place and folded by the
builder both forms share (`opencode_build.py`), with the sub-agent sessions its `task` calls ran
(beside it, in the same project folder). A session is read whole every time, since its records
change in place: `lines_read` counts the session's own records and `end_offset` their bytes. The
tool-name mapping is `OPENCODE_TOOL_KINDS`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .fields import text_field as _str
from .model import Problem, Session
from .opencode_build import OPENCODE_TOOL_KINDS, OpenCodeBuilder, OpenCodeRecord, Records
from .spill import loads_json

__all__ = [
    "OPENCODE_TOOL_KINDS",
    "is_child_session",
    "is_opencode_session",
    "opencode_tree_fingerprint",
    "read_opencode",
]

_SNIFF_LIMIT = 1 << 20  # a session file is a few hundred bytes; a bigger one is not read to sniff it


def is_opencode_session(path: Path) -> bool:
    """Whether `path` is an OpenCode session file: `…/session/<projectID>/<id>.json` (0.x:
    `…/session/info/<id>.json`) holding an object with an `id`, `time`, and a project or folder."""
    try:
        if path.suffix != ".json" or path.parent.parent.name != "session":
            return False
        if path.stat().st_size > _SNIFF_LIMIT:
            return False
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return (
        isinstance(data, dict)
        and isinstance(data.get("id"), str)
        and isinstance(data.get("time"), dict)
        and (
            isinstance(data.get("projectID"), str)
            or isinstance(data.get("directory"), str)
            or path.parent.name == "info"
        )
    )


def is_child_session(path: Path) -> bool:
    """Whether the session file at `path` is a sub-agent's (it names a parent): read with its parent."""
    try:
        data = json.loads(path.read_bytes()) if path.stat().st_size <= _SNIFF_LIMIT else None
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and isinstance(data.get("parentID"), str) and bool(data["parentID"])


def read_opencode(path: Path) -> Session:
    """The session whose session file is `path`, with its sub-agents' sessions; a file that cannot
    be read is a Problem naming it (and its line), and the rest is read."""
    session = Session(session_id=path.stem, source_file=str(path), agent="opencode")
    _walk(path, session)
    return session


def opencode_tree_fingerprint(path: Path) -> tuple[int, int]:
    """(bytes, latest mtime in ns) of every file of the session and of its sub-agents' sessions: a
    part added or rewritten changes it even when the session file was not touched."""
    tree = _walk(path, Session(session_id=path.stem, source_file=str(path)))
    return tree.size, tree.latest


def _walk(path: Path, session: Session) -> _Tree:
    """Read the session file `path` and the sub-agent sessions its tasks ran (beside it, same project)."""
    tree = _Tree(path, session)
    builder = OpenCodeBuilder(session)
    pending, seen = [(path, False)], set()
    while pending:
        file, sub = pending.pop(0)
        info = tree.load(file)
        ident = str(info.data["id"]) if info is not None else None
        if info is None or ident is None or ident in seen:
            continue
        seen.add(ident)
        children = builder.add(info, tree.messages(ident, file.stem), sub)
        if sub:
            session.subagent_files.append(str(file))
        pending += [
            (file.with_name(f"{c}.json"), True) for c in children if file.with_name(f"{c}.json").is_file()
        ]
    return tree


class _Tree:
    """Where a JSON-tree session's records are, found from its session file's place; counts the
    bytes and latest mtime of every file it opens (the fingerprint)."""

    def __init__(self, session_file: Path, session: Session) -> None:
        self.session = session
        folder = session_file.parent
        self.old = folder.name == "info" and (folder.parent / "message").is_dir()  # 0.x layout
        base = folder.parent if self.old else folder.parent.parent
        self.messages_root, self.parts_root = base / "message", base / "part"
        self.size = self.latest = 0
        self._flat: dict[str, list[OpenCodeRecord]] | None = None

    def load(self, file: Path) -> OpenCodeRecord | None:
        """One JSON file as a record (its `id` from its name when it has none), or a Problem."""
        try:
            with file.open("rb") as handle:
                raw = handle.read()
                stat = os.fstat(handle.fileno())
        except OSError as exc:
            self.session.problems.append(
                Problem(str(file), 0, f"cannot read the file: {exc.strerror or exc}")
            )
            return None
        self.size += stat.st_size
        self.latest = max(self.latest, stat.st_mtime_ns)
        try:
            data = loads_json(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError as exc:
            where = f"{exc.msg} (column {exc.colno})"
            self.session.problems.append(Problem(str(file), exc.lineno, f"invalid JSON: {where}"))
            return None
        except ValueError as exc:  # nested too deeply
            self.session.problems.append(Problem(str(file), 1, f"invalid JSON: {exc}"))
            return None
        if not isinstance(data, dict):
            problem = Problem(str(file), 1, f"expected a JSON object, got {type(data).__name__}")
            self.session.problems.append(problem)
            return None
        if not isinstance(data.get("id"), str):
            data["id"] = file.stem  # OpenCode's own migration takes every id from the file's name
        return OpenCodeRecord(data, str(file), 1, "", len(raw))

    def messages(self, session_id: str, stem: str) -> Records:
        folder = self.messages_root / session_id
        if not folder.is_dir():
            folder = self.messages_root / stem
        found: Records = []
        for file in sorted(folder.glob("*.json")):
            record = self.load(file)
            if record is not None:
                found.append((record, self.parts(session_id, str(record.data["id"]), file.stem)))
        return found

    def parts(self, session_id: str, message_id: str, stem: str) -> list[OpenCodeRecord]:
        """The message's parts: in the folder named by its id (or its file's name), else under `part/`."""
        for name in dict.fromkeys((message_id, stem)):
            folder = self.parts_root / session_id / name if self.old else self.parts_root / name
            if folder.is_dir():
                return [r for f in sorted(folder.glob("*.json")) if (r := self.load(f)) is not None]
        return self._flat_parts().get(message_id, [])

    def _flat_parts(self) -> dict[str, list[OpenCodeRecord]]:
        """Part files straight under `part/`, each naming its message (an early layout), read once."""
        if self._flat is None:
            self._flat = {}
            for file in sorted(self.parts_root.glob("*.json")):
                record = self.load(file)
                owner = _str(record.data, "messageID") if record is not None else None
                if record is not None and owner:
                    self._flat.setdefault(owner, []).append(record)
        return self._flat
