"""Ingest sources (transcripts, folders of them, summary .json files) into the graph.

Two steps: `prepare` reads and summarizes what is new or changed (asking the ledger, so unchanged
sources cost a stat and grown transcripts are read from where the last read stopped), and
`write` puts the summaries into the graph, oldest session first, and records each in the ledger.
`ingest_paths` does both. Every good source goes in; a bad one is reported with its reason and
stops nothing. The CLI's `ingest` is a thin layer over these.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .graph.backends import Backend
from .graph.schema import iso_time, resolve_group_id
from .ledger import Ledger, SourceRecord, classify_source, file_hash
from .transcripts import Session, TranscriptChangedError, TranscriptNotFoundError, read_transcript
from .transcripts.merge import merge_sessions
from .transcripts.state import decode_session, encode_session

# Summarizing and writing load their modules (the extractors' regexes, graphiti-core) when a
# source needs them, so an unchanged tree is answered from the ledger at once.
if TYPE_CHECKING:
    from graphiti_core.embedder.client import EmbedderClient

    from .graph.writer import WriteResult
    from .redact import Redactor
    from .summary import EnhancedSessionSummarizer, EnhancedSessionSummary
    from .tools import UnifiedToolClassifier

    Tools = tuple[UnifiedToolClassifier | None, EnhancedSessionSummarizer | None, Redactor]

DEFAULT_TRANSCRIPTS_DIR = Path.home() / ".claude" / "projects"


class SourceError(Exception):
    """One source could not be read; the message names the file (and line when known)."""


@dataclass
class WriteReport:
    """What a run put into the graph; `ingest` and `migrate` report with the same keys."""

    sources_seen: int = 0
    skipped: int = 0  # unchanged (or, for migrate, superseded)
    ingested: int = 0  # written: created or replaced
    failed: list[dict[str, str]] = field(default_factory=list)
    nodes_written: int = 0
    edges_written: int = 0
    problems: list[str] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def add(self, source: str, result: WriteResult, sources: list[str] | None = None) -> None:
        """Count one session's write (`sources`: every transcript merged into it, when several)."""
        if result.status == "unchanged":
            self.skipped += 1
        else:
            self.ingested += 1
        self.nodes_written += result.nodes_written
        self.edges_written += result.edges_written
        self.sessions.append(
            {"source": source, **({"sources": sources} if sources else {}), **asdict(result)}
        )

    def add_duplicate(self, source: str, of: str, session_id: str, group_id: str | None) -> None:
        """A source skipped because its bytes equal another transcript's of the same session."""
        self.skipped += 1
        self.sessions.append(
            {
                "source": source,
                "session_id": session_id,
                "group_id": group_id,
                "status": "duplicate",
                "duplicate_of": of,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IngestReport(WriteReport):
    llm_calls: int = 0
    read_incrementally: int = 0


def discover_sources(paths: Iterable[Path]) -> list[Path]:
    """Expand folders into their transcripts (sub-agent transcripts belong to their session).

    A path that does not exist at all is a FileNotFoundError (a usage error). Anything named or
    found that cannot be read (a symbolic link loop, a broken link, a FIFO, a folder that cannot be
    listed) stays in the list: `prepare` reports it under `failed` with its reason, the rest goes on.
    """
    found: dict[Path, None] = {}
    for path in paths:
        if not os.path.lexists(path):
            raise FileNotFoundError(f"no such file or folder: {path}")
        if path.is_dir():
            for candidate in _transcripts_under(path):
                found.setdefault(candidate, None)
        else:
            found.setdefault(path, None)
    return list(found)


def _transcripts_under(folder: Path) -> list[Path]:
    """The `.jsonl` entries under `folder` (not following linked folders, as `rglob` does not),
    outside `subagents/`, plus each subfolder that cannot be listed."""
    found: list[Path] = []

    def unlistable(error: OSError) -> None:
        found.append(Path(error.filename) if error.filename else folder)

    for root, dirs, files in os.walk(folder, onerror=unlistable):
        dirs[:] = [d for d in dirs if d != "subagents"]
        found.extend(Path(root, name) for name in files if name.endswith(".jsonl"))
    return sorted(found)


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


@dataclass
class PreparedSource:
    """A source read and summarized, waiting to be written."""

    path: Path
    summary: EnhancedSessionSummary
    session_state: bytes | None  # the parsed session, encoded for the ledger; None for .json files
    byte_offset: int
    # Other transcripts of the same session id read in this run, merged into `summary` (recorded
    # in the ledger with it), and exact copies of them (recorded, not written).
    parts: list[PreparedSource] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # every transcript of a merged session


@dataclass
class Duplicate:
    """A source whose bytes equal another transcript's of the same session: nothing more to write."""

    source: PreparedSource
    of: str
    group_id: str | None = None  # the original's group, when the original was ingested before


@dataclass
class Prepared:
    report: IngestReport
    sources: list[PreparedSource]
    duplicates: list[Duplicate] = field(default_factory=list)  # of sources ingested before


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
        from .summary import EnhancedSessionSummary

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


async def prepare(
    sources: list[Path],
    *,
    ledger: Ledger | None = None,
    force: bool = False,
    since: datetime | None = None,
    classifier: UnifiedToolClassifier | None = None,
    summarizer: EnhancedSessionSummarizer | None = None,
    redactor: Redactor | None = None,
    on_progress: Callable[[Path], None] | None = None,
    group_id: str | None = None,
    tools: Callable[[], Tools] | None = None,
) -> Prepared:
    """Read and summarize the sources that are new or changed since the ledger last saw them, or
    that were ingested into another group than `group_id` (the write moves them).

    `tools`, when given, makes the classifier, summarizer and redactor on the first source that
    needs reading: a run where nothing changed never builds them."""
    report = IngestReport()
    prepared: list[PreparedSource] = []
    todo: list[tuple[Path, str, int]] = []
    for source in sources:
        report.sources_seen += 1
        try:
            plan = triage(source, ledger, force, since, group_id)
        except (OSError, SourceError) as exc:
            _fail(report, source, exc)
        else:
            if plan is not None:
                todo.append((source, *plan))
                continue
            report.skipped += 1
        if on_progress is not None:
            on_progress(source)
    if todo and tools is not None:
        classifier, summarizer, redactor = tools()
    if redactor is None:
        from .redact import Redactor

        redactor = Redactor()
    for source, state, offset in todo:
        await asyncio.sleep(0)  # a signal handled by the event loop (watch) gets its turn
        try:
            item = await _prepare_one(source, state, offset, ledger, classifier, summarizer, redactor, report)
        except (OSError, SourceError, ValueError) as exc:
            _fail(report, source, exc)
            item = None
        finally:
            if on_progress is not None:
                on_progress(source)
        if item is not None:
            prepared.append(item)
    duplicates: list[Duplicate] = []
    prepared = await _one_per_session(prepared, duplicates, ledger, classifier, summarizer, redactor, report)
    if classifier is not None:
        report.llm_calls += classifier.stats.llm_calls
        report.problems.extend(classifier.problems)
    # Oldest first, so that each session finds the one it CONTINUES already written.
    prepared.sort(key=lambda p: (p.summary.started_at is None, iso_time(p.summary.started_at) or ""))
    return Prepared(report, prepared, duplicates)


def _fail(report: IngestReport, source: Path, exc: Exception) -> None:
    """A source that cannot be used, with its real reason (a loop, no permission, bad content)."""
    error = f"{source}: {unreadable_reason(source, exc)}" if isinstance(exc, OSError) else str(exc)
    report.failed.append({"source": str(source), "error": error})


async def _one_per_session(
    prepared: list[PreparedSource],
    duplicates: list[Duplicate],
    ledger: Ledger | None,
    classifier: UnifiedToolClassifier | None,
    summarizer: EnhancedSessionSummarizer | None,
    redactor: Redactor,
    report: IngestReport,
) -> list[PreparedSource]:
    """One item per session id: transcripts that share it (this run's, and those the ledger
    recorded for it before) become one session, the union of their records; an exact copy of
    another is a duplicate. Summary files of one id cannot be merged: all but one fail, saying so."""
    by_id: dict[str, list[PreparedSource]] = {}
    for item in prepared:
        by_id.setdefault(item.summary.session_id, []).append(item)
    result: list[PreparedSource] = []
    for session_id, items in by_id.items():
        transcripts = [i for i in items if i.session_state is not None]
        for extra in [i for i in items if i.session_state is None][1 if not transcripts else 0 :]:
            other = (transcripts or items)[0].path
            report.failed.append(
                {
                    "source": str(extra.path),
                    "error": f"{extra.path}: session {session_id} also comes from {other} in this run; "
                    "a summary file is not merged with another source: ingest them apart",
                }
            )
        if not transcripts:
            result.append(items[0])
            continue
        in_run = {i.path.resolve() for i in transcripts}
        earlier = [
            r
            for r in (ledger.sources_of_session(session_id) if ledger is not None else [])
            if Path(r.path) not in in_run
            and ledger is not None
            and ledger.session_state(Path(r.path)) is not None
        ]
        if len(transcripts) == 1 and not earlier:
            result.append(transcripts[0])
            continue
        merged = await _merge(session_id, transcripts, earlier, duplicates, ledger, report)
        if merged is not None:
            result.append(await _summarize_merged(merged, classifier, summarizer, redactor, report))
    return result


@dataclass
class _Merge:
    primary: PreparedSource
    sessions: list[Session]


async def _merge(
    session_id: str,
    transcripts: list[PreparedSource],
    earlier: list[SourceRecord],
    duplicates: list[Duplicate],
    ledger: Ledger | None,
    report: IngestReport,
) -> _Merge | None:
    """The distinct transcripts of one session id; copies become duplicates of the first one seen
    (a transcript ingested before comes first)."""
    seen: dict[str, str] = {}  # content hash -> the first path with it
    sessions: list[Session] = []
    names: list[str] = []
    for record in earlier:
        path = Path(record.path)
        if not path.is_file() or classify_source(path, record)[0] != "unchanged":
            report.problems.append(
                f"{path}: recorded for session {session_id} but gone or changed since; "
                "pass it again to keep its part in the session"
            )
            continue
        state = ledger.session_state(path) if ledger is not None else None
        if state is not None:
            seen.setdefault(record.content_hash, record.path)
            sessions.append(state)
            names.append(record.path)
    primary: PreparedSource | None = None
    copies: list[Duplicate] = []
    for item in transcripts:
        digest = file_hash(item.path)
        if digest in seen:
            group = next((r.group_id for r in earlier if r.path == seen[digest]), None)
            copies.append(Duplicate(item, seen[digest], group))
            continue
        seen[digest] = str(item.path)
        assert item.session_state is not None
        sessions.append(decode_session(item.session_state))
        names.append(str(item.path))
        if primary is None:
            primary = item
        else:
            primary.parts.append(item)
    # Copies are recorded with the session they copy: this run's, or the one ingested before.
    (primary.duplicates if primary is not None else duplicates).extend(copies)
    if primary is None:
        return None  # every source here is a copy of one ingested before: nothing new
    primary.sources = names if len(names) > 1 else []
    # The first transcript read this run leads (it names the summary's source file).
    lead = names.index(str(primary.path))
    sessions.insert(0, sessions.pop(lead))
    return _Merge(primary, sessions)


async def _summarize_merged(
    merge: _Merge,
    classifier: UnifiedToolClassifier | None,
    summarizer: EnhancedSessionSummarizer | None,
    redactor: Redactor,
    report: IngestReport,
) -> PreparedSource:
    item = merge.primary
    if len(merge.sessions) > 1:
        from .summary import summarize_session

        session = merge_sessions(merge.sessions)
        item.summary = await summarize_session(session, classifier, summarizer, redactor)
        report.llm_calls += item.summary.llm_calls
    return item


def triage(
    source: Path, ledger: Ledger | None, force: bool, since: datetime | None, group_id: str | None
) -> tuple[str, int] | None:
    """('new' | 'grown' | 'changed', offset to read from) of a source to read, or None to skip it
    (unchanged since the ledger saw it, or older than `since`). Costs a stat and a ledger lookup:
    an unchanged tree is answered from here, without loading what summarizing needs."""
    mode = source.stat().st_mode  # a symbolic link loop or a forbidden folder fails here, by name
    if not stat.S_ISREG(mode):  # a FIFO or device would block or never end
        raise SourceError(f"{source}: {unreadable_reason(source, OSError())}")
    if since is not None and datetime.fromtimestamp(source.stat().st_mtime, tz=since.tzinfo) < since:
        return None
    record = None if ledger is None or force else ledger.get(source)
    state, offset = ("new", 0) if ledger is None or force else classify_source(source, record)
    if record is not None and group_id is not None and record.group_id != group_id:
        state, offset = "new", 0  # asked for in another group: read whole and moved there
    return None if state == "unchanged" else (state, offset)


async def _prepare_one(
    source: Path,
    state: str,
    offset: int,
    ledger: Ledger | None,
    classifier: UnifiedToolClassifier | None,
    summarizer: EnhancedSessionSummarizer | None,
    redactor: Redactor,
    report: IngestReport,
) -> PreparedSource | None:
    from .summary.redaction import redact_summary

    if source.suffix == ".json":
        summary = redact_summary(load_summary_file(source), redactor)
        return PreparedSource(source, summary, None, source.stat().st_size)
    previous = ledger.session_state(source) if ledger is not None and state == "grown" else None
    try:
        session, summary = await _read_and_summarize(
            source, offset, previous, classifier, summarizer, redactor
        )
    except TranscriptChangedError:
        if previous is None:
            raise
        # The part read before was rewritten after all (its tail still matched): read it whole.
        previous = None
        session, summary = await _read_and_summarize(source, 0, None, classifier, summarizer, redactor)
    if previous is not None:
        report.read_incrementally += 1
    report.problems.extend(str(p) for p in session.problems)
    report.problems.extend(f"{source}: {note}" for note in summary.notes or [])
    report.llm_calls += summary.llm_calls
    # Only the compact state is kept until the write: many sessions in one run stay small.
    return PreparedSource(source, summary, encode_session(session, redactor.redact), session.end_offset)


async def _read_and_summarize(
    source: Path,
    offset: int,
    previous: Session | None,
    classifier: UnifiedToolClassifier | None,
    summarizer: EnhancedSessionSummarizer | None,
    redactor: Redactor,
) -> tuple[Session, EnhancedSessionSummary]:
    from .summary import summarize_session

    session = read_transcript(source, start_offset=offset if previous else 0, previous=previous)
    unusable = no_conversation(session)
    if unusable is not None:
        raise SourceError(unusable)
    return session, await summarize_session(session, classifier, summarizer, redactor)


def no_conversation(session: Session) -> str | None:
    """Why a transcript without messages is a failed source (`ingest` and `summarize` say the same)."""
    if session.messages:
        return None
    detail = f" ({session.problems[0]})" if session.problems else ""
    return f"{session.source_file}: no conversation in transcript{detail}"


async def write(
    backend: Backend | None,
    prepared: Prepared,
    *,
    ledger: Ledger | None = None,
    group_id: str | None = None,
    embedder: EmbedderClient | None = None,
    on_progress: Callable[[Path], None] | None = None,
) -> IngestReport:
    """Write the prepared summaries (with `backend=None`, a dry run) and record them in the ledger.

    Raises `BackendLost` when the backend goes away; what was committed before is recorded."""
    report = prepared.report
    for copy in prepared.duplicates:  # copies of sessions ingested before: recorded where those are
        if ledger is not None and backend is not None:
            _record(ledger, copy.source, copy.source.summary.session_id, copy.group_id, None)
        report.add_duplicate(str(copy.source.path), copy.of, copy.source.summary.session_id, copy.group_id)
    if backend is None:
        for item in prepared.sources:
            report.sessions.append(
                {
                    "source": str(item.path),
                    **({"sources": item.sources} if item.sources else {}),
                    "session_id": item.summary.session_id,
                    "group_id": resolve_group_id(item.summary, group_id),
                    "status": "dry-run",
                }
            )
            for copy in item.duplicates:
                report.add_duplicate(str(copy.source.path), copy.of, item.summary.session_id, None)
        return report
    writable: list[PreparedSource] = []
    for item in prepared.sources:
        try:
            resolve_group_id(item.summary, group_id)
        except ValueError as exc:  # e.g. an invalid group id given for this source
            report.failed.append({"source": str(item.path), "error": str(exc)})
            continue
        writable.append(item)

    def committed(batch: list[tuple[int, WriteResult]]) -> None:
        # Recorded as soon as the batch is in the graph: a run stopped later (backend lost, kill)
        # keeps this progress, and the next run does only the rest.
        for index, result in batch:
            item = writable[index]
            if ledger is not None:
                for part in [item, *item.parts, *(copy.source for copy in item.duplicates)]:
                    _record(ledger, part, result.session_id, result.group_id, result.summary_version)
            report.add(str(item.path), result, item.sources)
            for copy in item.duplicates:
                report.add_duplicate(str(copy.source.path), copy.of, result.session_id, result.group_id)
            if on_progress is not None:
                on_progress(item.path)

    from .graph.writer import SessionGraphWriter

    writer = SessionGraphWriter(backend, embedder=embedder)
    await writer.ingest_many([item.summary for item in writable], group_id=group_id, on_batch=committed)
    return report


def _record(
    ledger: Ledger, item: PreparedSource, session_id: str, group_id: str | None, version: int | None
) -> None:
    ledger.record(
        item.path,
        byte_offset=item.byte_offset,
        session_id=session_id,
        group_id=group_id,
        summary_version=version,
        session=item.session_state,
    )


async def ingest_paths(
    backend: Backend | None,
    sources: list[Path],
    *,
    group_id: str | None = None,
    ledger: Ledger | None = None,
    force: bool = False,
    since: datetime | None = None,
    classifier: UnifiedToolClassifier | None = None,
    summarizer: EnhancedSessionSummarizer | None = None,
    redactor: Redactor | None = None,
    on_progress: Callable[[Path], None] | None = None,
    embedder: EmbedderClient | None = None,
) -> IngestReport:
    """Prepare and write in one go (for callers that hold an open backend)."""
    prepared = await prepare(
        sources,
        group_id=group_id,
        ledger=ledger,
        force=force,
        since=since,
        classifier=classifier,
        summarizer=summarizer,
        redactor=redactor,
        on_progress=on_progress,
    )
    return await write(backend, prepared, ledger=ledger, group_id=group_id, embedder=embedder)
