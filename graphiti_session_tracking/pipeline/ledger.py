"""The ingest ledger: what each source looked like when it was last ingested into a graph.

A small SQLite file (stdlib, safe for several processes at once, atomic on crash) rather than
nodes in the graph: an unchanged re-run then answers from the ledger without even starting the
graph backend, and a grown transcript is re-read from where the last read stopped. One ledger
belongs to one graph: beside the FalkorDB Lite file (deleted with it), or under
~/.graphiti/ledgers/ for a server, keyed by its URI and database. If a server's graph is wiped,
`ingest --force` re-ingests everything.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from graphiti_session_tracking.config import GRAPHITI_HOME, GraphConfig
from graphiti_session_tracking.private_files import open_private, private_folder
from graphiti_session_tracking.redact import RULES_VERSION, Redactor
from graphiti_session_tracking.transcripts import Session
from graphiti_session_tracking.transcripts.agents import SourceState, source_state
from graphiti_session_tracking.transcripts.state import StateError, decode_session, encode_session

_TAIL = 4096  # bytes before the read offset whose hash tells an append from a rewrite

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    byte_offset INTEGER NOT NULL,
    tail_hash TEXT NOT NULL,
    session_id TEXT,
    group_id TEXT,
    summary_version INTEGER,
    ingested_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    session_state BLOB
)
"""
_META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"


@dataclass(frozen=True)
class SourceRecord:
    path: str
    size: int
    mtime_ns: int
    content_hash: str
    byte_offset: int
    tail_hash: str
    session_id: str | None
    group_id: str | None
    summary_version: int | None


def source_hash(path: Path, now: SourceState | None = None) -> str:
    """sha256 of a one-file source's bytes; for a session kept in many files or in database rows
    (OpenCode), of its path, total size and newest time, which change with any part of it. `now`:
    its state when the caller has it (for OpenCode, a walk of the files or a query of the rows)."""
    now = now or source_state(path)
    if now.one_file:
        return file_hash(path)
    return hashlib.sha256(f"{path}\x1f{now.size}\x1f{now.mtime_ns}".encode()).hexdigest()


def file_hash(path: Path, limit: int | None = None) -> str:
    """sha256 of the file (or of its first `limit` bytes), read in chunks: memory stays flat."""
    digest = hashlib.sha256()
    remaining = limit
    with path.open("rb") as handle:
        while remaining is None or remaining > 0:
            chunk = handle.read(1 << 20 if remaining is None else min(1 << 20, remaining))
            if not chunk:
                break
            digest.update(chunk)
            if remaining is not None:
                remaining -= len(chunk)
    return digest.hexdigest()


def tail_hash(path: Path, offset: int) -> str:
    """sha256 of the `_TAIL` bytes before `offset`: equal after an append, different after a rewrite."""
    start = max(0, offset - _TAIL)
    with path.open("rb") as handle:
        handle.seek(start)
        return hashlib.sha256(handle.read(offset - start)).hexdigest()


def default_ledger_path(config: GraphConfig) -> Path:
    if config.embedded:
        db = Path(config.db_path).expanduser()
        return db.with_name(db.name + ".ledger.sqlite")
    key = f"{config.backend}|{config.uri}|{config.database}"
    return GRAPHITI_HOME / "ledgers" / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.sqlite"


def last_ingest(path: Path, group_id: str) -> float | None:
    """When a source of `group_id` was last ingested into the ledger at `path` (seconds since the
    epoch), read-only and without the ledger's set-up: the SessionStart hook asks it to tell a
    kept recap from one that later ingests made stale. None when nothing of the group is known."""
    if not path.is_file():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2)) as db:
            row = db.execute(
                "SELECT max(ingested_at) FROM sources WHERE group_id = ?", (group_id,)
            ).fetchone()
    except sqlite3.Error:
        return None
    if not row or not row[0]:
        return None
    return datetime.strptime(row[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()


class Ledger:
    """Per-source records of one graph. Every method is one short transaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        private_folder(path.parent)
        # Private to the user from the first byte (it names every transcript and session), and so
        # are SQLite's -wal and -shm files, which it creates with the database's mode; a ledger
        # an earlier version made readable by all is made private too.
        open_private(path, "ab").close()
        self._db = sqlite3.connect(path, timeout=60, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout=60000")
        # Two processes opening a new ledger at once: switching to WAL can report "locked" at
        # once, without waiting on the busy timeout; retry it for as long as the timeout.
        deadline = time.monotonic() + 60
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(_SCHEMA)
                self._db.execute(_META)
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

        self._redact_older_states()

    def _redact_older_states(self) -> None:
        """Session states kept under older redaction rules pass today's once (an older format
        cannot be read back: it is dropped, which costs one full re-read): the ledger never
        holds in clear what today's rules redact."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'redaction_rules'").fetchone()
        if row is not None and int(row[0]) >= RULES_VERSION:
            return
        redactor = Redactor()
        with self._transaction() as db:
            states = db.execute("SELECT path, session_state FROM sources WHERE session_state IS NOT NULL")
            for path, state in states.fetchall():
                try:
                    fresh: bytes | None = encode_session(decode_session(state), redactor.redact)
                except StateError:
                    fresh = None
                db.execute("UPDATE sources SET session_state = ? WHERE path = ?", (fresh, path))
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('redaction_rules', ?)",
                (str(RULES_VERSION),),
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def get(self, path: Path) -> SourceRecord | None:
        row = self._db.execute(
            "SELECT path, size, mtime_ns, content_hash, byte_offset, tail_hash, session_id, group_id, "
            "summary_version FROM sources WHERE path = ?",
            (resolved(path),),
        ).fetchone()
        return SourceRecord(*row) if row else None

    def session_state(self, path: Path) -> Session | None:
        """The parsed session as it was after the last read, to continue from (None if unusable)."""
        row = self._db.execute(
            "SELECT session_state FROM sources WHERE path = ?", (resolved(path),)
        ).fetchone()
        if not row or row[0] is None:
            return None
        try:
            return decode_session(row[0])  # our own bytes, written below
        except StateError:  # an older or damaged state only costs a full re-read
            return None

    def record(
        self,
        path: Path,
        *,
        byte_offset: int,
        session_id: str | None,
        group_id: str | None,
        summary_version: int | None,
        session: bytes | None = None,
    ) -> None:
        """Record a source as ingested; `session` is the parsed session as `encode_session` bytes,
        already redacted (transcripts/state.py: about 100 bytes a tool call)."""
        real = Path(resolved(path))
        try:
            now = source_state(real)
            digest = source_hash(real, now)
            size = now.size
            if real.suffix == ".jsonl" and size > byte_offset and _line_after(real, byte_offset):
                # Lines appended after the read stopped (while it summarized): record the size that
                # was read, so the next run sees the transcript as grown instead of unchanged.
                size = byte_offset
            tail = tail_hash(real, byte_offset) if real.suffix == ".jsonl" else ""
        except (OSError, ValueError):  # ValueError: an OpenCode database that cannot be read
            return  # removed (or unreadable) since it was read: its session is written, nothing to remember
        state = session
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO sources (path, size, mtime_ns, content_hash, byte_offset, tail_hash, "
                "session_id, group_id, summary_version, session_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    str(real),
                    size,
                    now.mtime_ns,
                    digest,
                    byte_offset,
                    tail,  # only a JSONL transcript grows by appended lines (classify_source)
                    session_id,
                    group_id,
                    summary_version,
                    state,
                ),
            )

    def sources_of_session(self, session_id: str) -> list[SourceRecord]:
        """Every source recorded for a session (more than one when files share its id)."""
        rows = self._db.execute(
            "SELECT path, size, mtime_ns, content_hash, byte_offset, tail_hash, session_id, group_id, "
            "summary_version FROM sources WHERE session_id = ? ORDER BY path",
            (session_id,),
        ).fetchall()
        return [SourceRecord(*row) for row in rows]

    def forget(self, path: Path) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM sources WHERE path = ?", (resolved(path),))

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM sources").fetchone()[0])

    def summary(self) -> dict[str, object]:
        """What the ledger knows: sources, sessions, the last ingest, sources per group."""
        sources, sessions, last = self._db.execute(
            "SELECT count(*), count(DISTINCT session_id), max(ingested_at) FROM sources"
        ).fetchone()
        groups = dict(
            self._db.execute(
                "SELECT coalesce(group_id, ''), count(*) FROM sources GROUP BY group_id"
            ).fetchall()
        )
        return {
            "path": str(self.path),
            "sources": sources,
            "sessions": sessions,
            "last_ingest": last,
            "groups": groups,
        }


def _line_after(path: Path, offset: int) -> bool:
    """Whether a complete line (a newline) follows `offset`; a line still being written does not
    count: the reader leaves it for later, and the file is unchanged until it is finished."""
    with path.open("rb") as handle:
        handle.seek(offset)
        while chunk := handle.read(1 << 16):
            if b"\n" in chunk:
                return True
    return False


# Each folder's own resolution, kept a few seconds: an unchanged tree of 5,000 sources spent 0.1 s
# resolving the same folder again for every file in it.
_FOLDERS: dict[str, tuple[float, str]] = {}
_FOLDER_TTL_S = 5.0
_PARENT = re.compile(r"(?:^|/)\.\.(?:/|$)")


def resolved(path: Path) -> str:
    """`str(path.resolve())`, the ledger's key of a source, with the folder's part looked up once
    for the files in it (a path with `..` or a link as its last part is resolved in full)."""
    raw = os.fspath(path)
    if _PARENT.search(raw) or os.path.islink(raw):
        return str(Path(raw).resolve())
    text = raw if os.path.isabs(raw) else os.path.abspath(raw)
    folder, name = os.path.split(text)
    now = time.monotonic()
    known = _FOLDERS.get(folder)
    if known is None or now - known[0] > _FOLDER_TTL_S:
        known = _FOLDERS[folder] = (now, os.path.realpath(folder))
    return os.path.join(known[1], name)


def classify_source(
    path: Path, record: SourceRecord | None, now: SourceState | None = None
) -> tuple[str, int]:
    """('new' | 'unchanged' | 'grown' | 'changed', offset to read from) for a source and its record
    (`now`: the source's state, when the caller has just taken it)."""
    if record is None:
        return "new", 0
    now = now or source_state(path)
    if now.size == record.size and now.mtime_ns == record.mtime_ns:
        return "unchanged", 0
    if now.size == record.size and source_hash(path, now) == record.content_hash:
        return "unchanged", 0
    if (
        path.suffix == ".jsonl"
        and now.size > record.byte_offset > 0
        and tail_hash(path, record.byte_offset) == record.tail_hash
    ):
        return "grown", record.byte_offset
    return "changed", 0
