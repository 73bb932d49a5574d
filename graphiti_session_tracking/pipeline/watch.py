"""Which transcripts are due for a (re-)summary, and the `watch` loop that summarizes them.

A transcript is *due* when it is new, grown or rewritten since the ingest ledger last recorded it
AND either it has been idle for `idle_minutes` or it has at least `min_new_messages` messages past
the point the ledger read up to. Everything else waits for a later pass; unchanged transcripts cost
one `stat`. Re-summarizing replaces the session's earlier version in the graph (the writer does
that and bumps `summary_version`), so a session watched while it runs ends up with one summary.

Idle time is measured by file modification time, the newest of the transcript and its sub-agent
transcripts: Claude Code appends every message as it happens, so the mtime is the time of the last
message, known from one `stat` without parsing anything, and it also sees records that carry no
timestamp. (A copy that does not keep times looks freshly active; it is summarized once it has
been left alone for the threshold.)

New messages are counted from the ledger's byte offset, counting as the reader does (a user
record unless it is meta or harness text, an assistant response once however many lines it spans),
and the count stops at the threshold: a pass never reads more than `min_new_messages` messages of a
transcript to decide, nor anything of one that has not changed.

A pass is discover -> plan -> `Pipeline.ingest` of what is due: the pipeline does the reading,
summarizing, replacing and ledger bookkeeping. It opens the backend only when something was
prepared, and closes it at the end of the pass, so an idle watcher never holds a FalkorDB Lite
file that an `ingest` wants. A backend that is down fails the pass, not the watcher: nothing was
recorded in the ledger for what was not written, so the next pass tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphiti_session_tracking.graph.backends import BackendError, is_connection_loss
from graphiti_session_tracking.transcripts.agents import (
    OpenCodeDatabaseError,
    in_database,
    is_session_json,
    source_state,
)
from graphiti_session_tracking.transcripts.reader import count_messages, subagent_transcripts

from .compose import Pipeline
from .ledger import Ledger, classify_source
from .reports import IngestReport
from .sources import discover_sources

DEFAULT_IDLE_MINUTES = 30.0
DEFAULT_MIN_NEW_MESSAGES = 20
DEFAULT_INTERVAL_S = 60.0


@dataclass(frozen=True)
class Thresholds:
    """When a changed transcript is summarized: idle this long, or this many new messages."""

    idle_minutes: float = DEFAULT_IDLE_MINUTES
    min_new_messages: int = DEFAULT_MIN_NEW_MESSAGES


@dataclass(frozen=True)
class Candidate:
    """A transcript that changed since its last summary, and whether it is due now."""

    source: str
    state: str  # "new", "grown" or "changed" (rewritten), as the ledger classifies it
    idle_minutes: float
    new_messages: int  # counted up to the message threshold, so at most min_new_messages
    reason: str | None  # "idle", "messages", or None while it waits

    @property
    def due(self) -> bool:
        return self.reason is not None


@dataclass
class Plan:
    due: list[Candidate] = field(default_factory=list)
    waiting: list[Candidate] = field(default_factory=list)
    unchanged: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)


def last_activity(path: Path) -> float:
    """When the session last wrote anything: newest mtime of the transcript and its sub-agents."""
    times = [source_state(path).mtime]
    if path.suffix == ".jsonl":
        for agent in subagent_transcripts(path):
            with contextlib.suppress(OSError):  # a sub-agent file removed meanwhile
                times.append(agent.stat().st_mtime)
    return max(times)


def plan_pass(
    sources: Sequence[Path], ledger: Ledger, thresholds: Thresholds, now: float | None = None
) -> Plan:
    """Sort sources into due, waiting and unchanged (`now` in seconds since the epoch)."""
    now = time.time() if now is None else now
    plan = Plan()
    for source in sources:
        try:
            state, offset = classify_source(source, ledger.get(source))
            if state == "unchanged":
                plan.unchanged += 1
                continue
            idle = max(0.0, (now - last_activity(source)) / 60)
            reason: str | None
            if source.suffix == ".json" and not is_session_json(source):  # a finished summary: no wait
                new, reason = 0, "idle"
            else:
                # Messages are counted in Claude Code's lines; other agents' sessions wait for idle.
                in_rows = in_database(source) is not None
                new = 0 if in_rows else count_messages(source, offset, limit=thresholds.min_new_messages)
                reason = (
                    "idle"
                    if idle >= thresholds.idle_minutes
                    else "messages"
                    if new >= thresholds.min_new_messages
                    else None
                )
        except (OSError, OpenCodeDatabaseError) as exc:  # removed or unreadable since: this source only
            reason = getattr(exc, "strerror", None) or str(exc)
            plan.failed.append({"source": str(source), "error": f"{source}: {reason}"})
            continue
        candidate = Candidate(str(source), state, round(idle, 2), new, reason)
        (plan.due if candidate.due else plan.waiting).append(candidate)
    return plan


@dataclass
class PassReport:
    """One pass: what was due and why, what the ingest did, and an error that stopped it."""

    number: int
    started_at: str
    sources_seen: int = 0
    unchanged: int = 0
    due: list[dict[str, Any]] = field(default_factory=list)
    waiting: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    ingest: dict[str, Any] | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def exit_code(self) -> int:
        """As the CLI contract says: 2 backend unreachable, 1 some sources failed, else 0."""
        if self.error is not None:
            return 2
        failed = self.failed or (self.ingest or {}).get("failed")
        return 1 if failed else 0


@dataclass
class Watcher:
    """Runs passes over `roots` into the pipeline's graph, recording progress in `ledger`."""

    roots: list[Path]
    ledger: Ledger
    pipeline: Pipeline
    thresholds: Thresholds = field(default_factory=Thresholds)
    group_id: str | None = None
    passes: int = 0

    async def run_pass(self, now: float | None = None) -> PassReport:
        """Discover, pick what is due, summarize and write it; errors land in the report."""
        self.passes += 1
        report = PassReport(self.passes, datetime.now(UTC).isoformat(timespec="seconds"))
        sources: list[Path] = []
        for root in self.roots:
            try:
                sources.extend(s for s in discover_sources([root]) if s not in sources)
            except FileNotFoundError as exc:  # a folder removed while watching: the others go on
                report.failed.append({"source": str(root), "error": str(exc)})
        plan = plan_pass(sources, self.ledger, self.thresholds, now)
        report.sources_seen = len(sources)
        report.unchanged = plan.unchanged
        report.due = [asdict(c) for c in plan.due]
        report.waiting = [asdict(c) for c in plan.waiting]
        report.failed += plan.failed
        if not plan.due:
            return report
        reports: list[IngestReport] = []  # the run's report, filled as far as it got before an error
        try:
            await self.pipeline.ingest(
                [Path(c.source) for c in plan.due],
                ledger=self.ledger,
                group_id=self.group_id,
                on_prepared=reports.append,
            )
        except Exception as exc:
            if not (isinstance(exc, BackendError) or is_connection_loss(exc)):
                raise
            report.error = str(exc) if isinstance(exc, BackendError) else f"backend lost: {exc}"
        report.ingest = reports[0].to_dict() if reports else None
        return report

    async def run(
        self,
        interval_s: float,
        on_report: Callable[[PassReport], Awaitable[None] | None],
        *,
        once: bool = False,
    ) -> PassReport | None:
        """Pass after pass, `interval_s` apart, until SIGINT or SIGTERM (or one pass if `once`).

        A signal during a pass cancels it: the backend is closed on the way out, what was written
        is recorded, the rest is done by the next run. Returns the last finished pass."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        handled = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
                handled.append(sig)
        last: PassReport | None = None
        try:
            while not stop.is_set():
                current = asyncio.ensure_future(self.run_pass())
                stopper = asyncio.ensure_future(stop.wait())
                await asyncio.wait({current, stopper}, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if not current.done():
                    current.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await current
                    break
                last = current.result()
                outcome = on_report(last)
                if outcome is not None:
                    await outcome
                if once:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=interval_s)
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)
        return last
