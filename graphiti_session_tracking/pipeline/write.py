"""Write prepared summaries into the graph, oldest session first, and record each in the ledger
as soon as its batch is committed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from graphiti_session_tracking.graph.backends import Backend, BackendLost
from graphiti_session_tracking.graph.schema import resolve_group_id

from .ledger import Ledger
from .prepare import Prepared, PreparedSource, prepare
from .reports import IngestReport

if TYPE_CHECKING:
    from graphiti_session_tracking.graph.writer import SessionGraphWriter, WriteResult

    from .summary_files import SummaryFiles


async def write(
    writer: SessionGraphWriter | SummaryFiles | None,
    prepared: Prepared,
    *,
    ledger: Ledger | None = None,
    group_id: str | None = None,
    on_progress: Callable[[Path], None] | None = None,
) -> IngestReport:
    """Write the prepared summaries (with `writer=None`, a dry run) and record them in the ledger.

    Raises `BackendLost` when the backend goes away; what was committed before is recorded."""
    report = prepared.report
    for copy in prepared.duplicates:  # copies of sessions ingested before: recorded where those are
        if ledger is not None and writer is not None:
            _record(ledger, copy.source, copy.source.summary.session_id, copy.group_id, None)
        report.add_duplicate(str(copy.source.path), copy.of, copy.source.summary.session_id, copy.group_id)
    if writer is None:
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

    await writer.ingest_many([item.summary for item in writable], group_id=group_id, on_batch=committed)
    from graphiti_session_tracking.graph.writer import SessionGraphWriter

    if isinstance(writer, SessionGraphWriter):  # sessions written before the local embedder was on
        try:
            report.vectors_backfilled = await writer.backfill_vectors()
        except BackendLost as lost:  # every session of the run is written: say so
            raise lost.of_run(len(writable), len(writable)) from lost
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
        session=item.session_state if item.keep_state else None,  # only a redacted state is kept
    )


async def ingest_paths(
    backend: Backend,
    sources: list[Path],
    *,
    ledger: Ledger | None = None,
    group_id: str | None = None,
    force: bool = False,
) -> IngestReport:
    """Prepare and write in one go into a backend the caller holds open, with the built-in rules
    (no LLM, no embedder): the library's shortcut. The commands go through `Pipeline.ingest`."""
    from graphiti_session_tracking.graph.writer import SessionGraphWriter

    prepared = await prepare(sources, ledger=ledger, group_id=group_id, force=force)
    return await write(SessionGraphWriter(backend), prepared, ledger=ledger, group_id=group_id)
