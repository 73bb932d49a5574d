"""Read an OpenCode session from its SQLite database (`opencode.db`, OpenCode 1.x) into a Session.

The database keeps the JSON tree's objects: `session` as columns, `message` and `part` as a `data`
JSON column holding the object without its ids (json-migration.ts moved the tree there). Rows are
made those objects again and fed to the builder the tree reader uses, so a session reads the same
from either form. The database is opened read-only (`mode=ro`), so a running OpenCode is never
disturbed. One that cannot be read at all (locked past the busy timeout, damaged, not OpenCode's,
or without the session asked for) raises OpenCodeDatabaseError naming the file: there is no
session to return. A bad row is a Problem naming `<db>#<session id>` and the row's id, and the rest
is read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .model import Problem, Session
from .opencode_build import OpenCodeBuilder, OpenCodeRecord, Records
from .spill import loads_json

__all__ = ["OpenCodeDatabaseError", "opencode_db_fingerprint", "opencode_db_sessions", "read_opencode_db"]

_BUSY_TIMEOUT_S = 2.0  # how long to wait for OpenCode's own write to finish before giving up
# The session and every sub-agent session under it (sub-agents can run sub-agents).
_TREE = (
    "WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id = ? "
    "UNION SELECT session.id FROM session JOIN tree ON session.parent_id = tree.id) "
)


class OpenCodeDatabaseError(ValueError):
    """The database cannot be read: locked, damaged, not OpenCode's, or without that session."""


def opencode_db_sessions(db: Path) -> list[str]:
    """The ids of the database's sessions that are not a sub-agent's, oldest first."""
    with _open(db) as conn:
        rows = conn.execute(
            "SELECT id FROM session WHERE parent_id IS NULL OR parent_id = '' ORDER BY time_created, id"
        ).fetchall()
    return [str(row["id"]) for row in rows]


def read_opencode_db(db: Path, session_id: str) -> Session:
    """The session `session_id` with its sub-agents' sessions, as the JSON tree reader gives it."""
    session = Session(session_id=session_id, source_file=f"{db}#{session_id}", agent="opencode")
    builder = OpenCodeBuilder(session)
    with _open(db) as conn:
        pending, seen = [(session_id, False)], set()
        while pending:
            ident, sub = pending.pop(0)
            row = conn.execute("SELECT * FROM session WHERE id = ?", (ident,)).fetchone()
            if row is None and not sub:
                raise OpenCodeDatabaseError(f"{db}: no session {session_id} in this OpenCode database")
            if row is None or ident in seen:
                continue
            seen.add(ident)
            source = f"{db}#{ident}"
            named = builder.add(_session_record(row, source), _messages(conn, ident, source, session), sub)
            if sub:
                session.subagent_files.append(source)
            children = conn.execute(
                "SELECT id FROM session WHERE parent_id = ? ORDER BY time_created, id", (ident,)
            ).fetchall()
            pending += [(child, True) for child in dict.fromkeys([*named, *(str(r["id"]) for r in children)])]
    return session


def opencode_db_fingerprint(db: Path, session_id: str) -> tuple[int, int]:
    """(rows plus the bytes of their data, latest `time_updated` in ns) over the session's and its
    sub-agents' sessions, messages and parts: any row added or updated changes it."""
    with _open(db) as conn:
        found, newest = conn.execute(
            f"{_TREE}SELECT COUNT(*), MAX(time_updated) FROM session WHERE id IN tree", (session_id,)
        ).fetchone()
        if not found:
            raise OpenCodeDatabaseError(f"{db}: no session {session_id} in this OpenCode database")
        size, latest = 0, int(newest or 0)
        for table in ("message", "part"):
            rows, length, updated = conn.execute(
                f"{_TREE}SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0), MAX(time_updated) "
                f"FROM {table} WHERE session_id IN tree",
                (session_id,),
            ).fetchone()
            size += int(rows) + int(length)
            latest = max(latest, int(updated or 0))
    return size, latest * 1_000_000


@contextmanager
def _open(db: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection; any SQLite failure becomes an OpenCodeDatabaseError naming `db`."""
    if not db.is_file():
        raise OpenCodeDatabaseError(f"{db}: no such OpenCode database")
    try:
        conn = sqlite3.connect(f"file:{quote(str(db.absolute()))}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise OpenCodeDatabaseError(f"{db}: cannot open the OpenCode database: {exc}") from exc
    conn.row_factory = sqlite3.Row
    try:
        yield conn
    except sqlite3.Error as exc:
        busy = "locked" in str(exc) or "busy" in str(exc)
        hint = " (OpenCode is writing to it; read it again later)" if busy else ""
        raise OpenCodeDatabaseError(f"{db}: cannot read the OpenCode database: {exc}{hint}") from exc
    finally:
        conn.close()


def _session_record(row: sqlite3.Row, source: str) -> OpenCodeRecord:
    """The session row as the tree's session object (a column a later schema dropped is left out)."""
    columns = set(row.keys())

    def column(name: str) -> Any:
        return row[name] if name in columns else None

    data = {
        "id": row["id"],
        "projectID": column("project_id"),
        "parentID": column("parent_id"),
        "directory": column("directory"),
        "title": column("title"),
        "version": column("version"),
        "time": {"created": column("time_created"), "updated": column("time_updated")},
    }
    return OpenCodeRecord(
        {k: v for k, v in data.items() if v is not None}, source, 0, f"session {row['id']}: "
    )


def _messages(conn: sqlite3.Connection, session_id: str, source: str, session: Session) -> Records:
    """The session's messages with their parts, each row's object given back its ids."""
    parts: dict[str, list[OpenCodeRecord]] = {}
    for row in conn.execute(
        "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", (session_id,)
    ):
        data = _data(row, "part", source, session)
        if data is not None:
            data.update(id=row["id"], sessionID=session_id, messageID=row["message_id"])
            record = OpenCodeRecord(data, source, 0, f"part {row['id']}: ", len(row["data"]))
            parts.setdefault(str(row["message_id"]), []).append(record)
    found: Records = []
    for row in conn.execute(
        "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
    ):
        data = _data(row, "message", source, session)
        if data is not None:
            data.update(id=row["id"], sessionID=session_id)
            record = OpenCodeRecord(data, source, 0, f"message {row['id']}: ", len(row["data"]))
            found.append((record, parts.get(str(row["id"]), [])))
    return found


def _data(row: sqlite3.Row, kind: str, source: str, session: Session) -> dict[str, Any] | None:
    """A row's `data` object; one that is not a JSON object is a Problem naming the row."""
    raw = row["data"]
    try:
        data = loads_json(raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw)
    except (ValueError, TypeError) as exc:
        session.problems.append(Problem(source, 0, f"{kind} {row['id']}: data is not JSON: {exc}"))
        return None
    if not isinstance(data, dict):
        problem = f"{kind} {row['id']}: data is not a JSON object but {type(data).__name__}"
        session.problems.append(Problem(source, 0, problem))
        return None
    return data
