"""Read and summarize what is new or changed: a grown transcript from where the last read stopped,
transcripts that share a session id merged into one session, exact copies set aside."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from graphiti_session_tracking.graph.schema import iso_time
from graphiti_session_tracking.transcripts import Session, TranscriptChangedError, read_transcript
from graphiti_session_tracking.transcripts.agents import is_session_json
from graphiti_session_tracking.transcripts.merge import merge_sessions
from graphiti_session_tracking.transcripts.state import decode_session, encode_session

from .ledger import Ledger, SourceRecord, classify_source, source_hash
from .parallel import Failed, Read, Readers
from .policy import NO_POLICY, Policy
from .reports import IngestReport
from .sources import SourceError, load_summary_file, no_conversation, peek_session, triage, unreadable_reason

# Summarizing loads its modules (the extractors' regexes, graphiti-core) when a source needs
# them, so an unchanged tree is answered from the ledger at once.
if TYPE_CHECKING:
    from graphiti_session_tracking.redact import Redactor
    from graphiti_session_tracking.summary import EnhancedSessionSummarizer, EnhancedSessionSummary
    from graphiti_session_tracking.tools import UnifiedToolClassifier

    Tools = tuple[UnifiedToolClassifier | None, EnhancedSessionSummarizer | None, Redactor]


KEEP_STATE_S = 24 * 3600  # a transcript touched this recently may still grow (see `may_grow`)


@dataclass
class PreparedSource:
    """A source read and summarized, waiting to be written."""

    path: Path
    summary: EnhancedSessionSummary
    # The parsed session, encoded (None for summary .json files): to merge the parts of one
    # session in this run, and for the ledger to continue a transcript that grows. Redacted only
    # when the ledger keeps it (`keep_state`): redacting every message is a third of a first
    # ingest, and a transcript no agent has touched for a day rarely grows again.
    session_state: bytes | None
    byte_offset: int
    keep_state: bool = False
    # Other transcripts of the same session id read in this run, merged into `summary` (recorded
    # in the ledger with it), and exact copies of them (recorded, not written).
    parts: list[PreparedSource] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # every transcript of a merged session
    project_root: str | None = None  # the session's project folder (for excluded_paths)


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


Planned = tuple[Path, str, int]  # a source to read: its path, ledger state and offset to read from


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
    policy: Policy = NO_POLICY,
) -> Prepared:
    """Read and summarize the sources that are new or changed since the ledger last saw them, or
    that were ingested into another group than `group_id` (the write moves them), all at once.

    `tools`, when given, makes the classifier, summarizer and redactor on the first source that
    needs reading: a run where nothing changed never builds them."""
    report = IngestReport()
    todo = plan_sources(sources, report, ledger, force, since, group_id, policy, on_progress)
    if todo and tools is not None:
        classifier, summarizer, redactor = tools()
    return await prepare_planned(
        todo, report, ledger, (classifier, summarizer, redactor), policy=policy, on_progress=on_progress
    )


def plan_sources(
    sources: list[Path],
    report: IngestReport,
    ledger: Ledger | None,
    force: bool,
    since: datetime | None,
    group_id: str | None,
    policy: Policy,
    on_progress: Callable[[Path], None] | None = None,
) -> list[Planned]:
    """The sources that need reading (new, grown, changed, moved); the rest are counted in `report`."""
    todo: list[Planned] = []
    for source in sources:
        report.sources_seen += 1
        if policy.too_old(source) or policy.excludes(source):
            why = "excluded_paths" if policy.excludes(source) else "older than keep_length_days"
            report.excluded.append(f"{source}: {why}")
            if on_progress is not None:
                on_progress(source)
            continue
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
    return todo


def in_rounds(todo: list[Planned], size: int) -> list[list[Planned]]:
    """The planned sources in rounds of about `size`, oldest session first and the transcripts of
    one session id in the same round, so that a run can read, write and let go of one round at a
    time (memory does not grow with the number of sessions) and still write each session once,
    after the session it continues."""
    sessions: dict[str, list[Planned]] = {}
    starts: dict[str, str] = {}
    for planned in todo:
        session_id, started = peek_session(planned[0])
        sessions.setdefault(session_id, []).append(planned)
        known = [t for t in (starts.get(session_id), started) if t]  # an unknown start never wins
        starts[session_id] = min(known, default="")
    rounds: list[list[Planned]] = [[]]
    for session_id in sorted(sessions, key=lambda key: (starts[key] == "", starts[key], key)):
        if len(rounds[-1]) >= size:
            rounds.append([])
        rounds[-1].extend(sessions[session_id])
    return [r for r in rounds if r]


async def prepare_planned(
    todo: list[Planned],
    report: IngestReport,
    ledger: Ledger | None,
    made: tuple[UnifiedToolClassifier | None, EnhancedSessionSummarizer | None, Redactor | None],
    *,
    policy: Policy = NO_POLICY,
    on_progress: Callable[[Path], None] | None = None,
    readers: Readers | None = None,
) -> Prepared:
    """Read and summarize planned sources into `report`: one item per session, oldest first.
    With `readers` (offline only), whole transcripts are read by its workers, all at once."""
    classifier, summarizer, redactor = made
    if readers is not None:
        readers.ahead(whole_reads(todo))
    if redactor is None:
        from graphiti_session_tracking.redact import Redactor

        redactor = Redactor()
    calls_before = classifier.stats.llm_calls if classifier is not None else 0
    problems_before = len(classifier.problems) if classifier is not None else 0
    prepared: list[PreparedSource] = []
    for source, state, offset in todo:
        item: PreparedSource | None
        await asyncio.sleep(0)  # a signal handled by the event loop (watch) gets its turn
        try:
            read = await readers.take(source) if readers is not None and whole_read(source, state) else None
            if isinstance(read, Failed):
                raise SourceError(read.error)
            if read is not None:
                item = _prepared(source, read, report)
            else:
                item = await _prepare_one(
                    source, state, offset, ledger, classifier, summarizer, redactor, report
                )
            if item is not None and policy.excludes(item.project_root):
                report.excluded.append(f"{source}: project {item.project_root} is in excluded_paths")
                item = None
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
    for item in prepared:
        item.summary = policy.trim(item.summary)
    if classifier is not None:
        report.llm_calls += classifier.stats.llm_calls - calls_before
        report.problems.extend(classifier.problems[problems_before:])
    # Oldest first, so that each session finds the one it CONTINUES already written.
    prepared.sort(key=lambda p: (p.summary.started_at is None, iso_time(p.summary.started_at) or ""))
    return Prepared(report, prepared, duplicates)


def _is_transcript(path: Path) -> bool:
    """A session's transcript, not a summary .json file (whose records cannot be merged)."""
    return not (path.suffix == ".json" and not is_session_json(path))


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
            if Path(r.path) not in in_run and _is_transcript(Path(r.path))
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
        if state is None:  # its state was not kept (or cannot be read): its file, unchanged, is read again
            try:
                state = read_transcript(path)
            except (OSError, ValueError) as exc:
                report.problems.append(f"{path}: recorded for session {session_id} but unreadable now: {exc}")
                continue
        seen.setdefault(record.content_hash, record.path)
        sessions.append(state)
        names.append(record.path)
    primary: PreparedSource | None = None
    copies: list[Duplicate] = []
    for item in transcripts:
        digest = source_hash(item.path)
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
        from graphiti_session_tracking.summary import summarize_session

        session = merge_sessions(merge.sessions)
        item.summary = await summarize_session(session, classifier, summarizer, redactor)
        report.llm_calls += item.summary.llm_calls
    return item


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
    if source.suffix == ".json" and not is_session_json(source):
        summary = load_summary_file(source)  # redacted where every summary enters the graph: the writer
        return PreparedSource(source, summary, None, source.stat().st_size)
    previous = ledger.session_state(source) if ledger is not None and state == "grown" else None
    try:
        session, summary = await read_and_summarize(
            source, offset, previous, classifier, summarizer, redactor
        )
    except TranscriptChangedError:
        if previous is None:
            raise
        # The part read before was rewritten after all (its tail still matched): read it whole.
        previous = None
        session, summary = await read_and_summarize(source, 0, None, classifier, summarizer, redactor)
    if previous is not None and session.start_offset > 0:  # a Codex rollout is read whole
        report.read_incrementally += 1
    report.llm_calls += summary.llm_calls
    return _prepared(source, compact(source, session, summary, redactor), report)


def compact(source: Path, session: Session, summary: EnhancedSessionSummary, redactor: Redactor) -> Read:
    """What is kept of a transcript read (here or in a worker) until the write: the summary and
    the session's compact state, so many sessions in one run stay small."""
    keep = may_grow(source)
    return Read(
        summary=summary,
        state=encode_session(session, redactor.redact if keep else None),
        end_offset=session.end_offset,
        keep_state=keep,
        project_root=session.project_root,
        problems=[str(p) for p in session.problems],
    )


def whole_read(source: Path, state: str) -> bool:
    """A transcript read from its start (what a worker can do): not one that grew since the last
    read (that goes on from the ledger's state), not a summary .json file."""
    return state != "grown" and _is_transcript(source)


def whole_reads(todo: list[Planned]) -> list[Path]:
    """The planned sources a worker can read."""
    return [source for source, state, _ in todo if whole_read(source, state)]


def _prepared(source: Path, read: Read, report: IngestReport) -> PreparedSource:
    report.problems.extend(read.problems)
    report.problems.extend(f"{source}: {note}" for note in read.summary.notes or [])
    return PreparedSource(
        source,
        read.summary,
        read.state,
        read.end_offset,
        keep_state=read.keep_state,
        project_root=read.project_root,
    )


def may_grow(source: Path, now: float | None = None) -> bool:
    """Whether an agent may still append to the transcript (touched within KEEP_STATE_S): only
    then does the ledger keep its parsed state, so that its next read continues where this one
    stopped; an older one that grows after all is read whole again."""
    try:
        return (now if now is not None else time.time()) - source.stat().st_mtime < KEEP_STATE_S
    except OSError:
        return False


async def read_and_summarize(
    source: Path,
    offset: int,
    previous: Session | None,
    classifier: UnifiedToolClassifier | None,
    summarizer: EnhancedSessionSummarizer | None,
    redactor: Redactor,
) -> tuple[Session, EnhancedSessionSummary]:
    from graphiti_session_tracking.summary import summarize_session

    session = read_transcript(source, start_offset=offset if previous else 0, previous=previous)
    unusable = no_conversation(session)
    if unusable is not None:
        raise SourceError(unusable)
    return session, await summarize_session(session, classifier, summarizer, redactor)
