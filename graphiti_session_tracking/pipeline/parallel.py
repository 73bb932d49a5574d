"""Reading and summarizing a first ingest's transcripts on every core.

Offline summarizing is pure Python and was three quarters of a first ingest's CPU on one core. A
run with many whole transcripts to read (a backfill, a new machine) hands them to worker
processes, one per core, while the process itself writes the round before: the summaries are the
same as when read in the process, in the same order. Only whole reads without an LLM go to the
workers: a transcript read on from where the last read stopped needs its parsed state from the
ledger, and an LLM client (its budget, its meter) lives in one process.

Workers start from a fork server that has imported the readers and extractors once, so a worker
costs a fork, not an import. A failure to read a source comes back as that source's failure; a
worker that dies takes no source with it: what it held is read again in the process.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the pool's modules load when a run starts one
    from concurrent.futures import Future, ProcessPoolExecutor

    from graphiti_session_tracking.redact import Redactor
    from graphiti_session_tracking.summary import EnhancedSessionSummary
    from graphiti_session_tracking.tools import UnifiedToolClassifier

# Fewer transcripts than this are read in the process: starting workers costs about a second.
PARALLEL_MIN = 24
MAX_WORKERS = 4
WORKERS_ENV = "GRAPHITI_SESSIONS_WORKERS"  # 1 reads everything in the process
_PRELOAD = [
    "graphiti_session_tracking.summary",
    "graphiti_session_tracking.tools",
    "graphiti_session_tracking.transcripts",
]


@dataclass
class Read:
    """One transcript read and summarized (in a worker or in the process): what `prepare` keeps
    of it until the write."""

    summary: EnhancedSessionSummary
    state: bytes
    end_offset: int
    keep_state: bool
    project_root: str | None
    problems: list[str]


@dataclass
class Failed:
    """A source the worker could not use, with the reason `prepare` reports."""

    error: str


def worker_count() -> int:
    """Workers for a large run: the cores this process may use (at most MAX_WORKERS), or the
    number GRAPHITI_SESSIONS_WORKERS names; 1 means no workers."""
    named = os.environ.get(WORKERS_ENV, "").strip()
    if named:
        try:
            return max(1, int(named))
        except ValueError:
            raise ValueError(f"{WORKERS_ENV} must be a whole number of workers, not {named!r}") from None
    return min(MAX_WORKERS, len(os.sched_getaffinity(0)))


class Readers:
    """A pool of worker processes that read and summarize whole transcripts offline.

    `take(source)` gives the source's result: the one asked for ahead (`ahead`), or a new one.
    When the pool breaks or a worker's answer cannot come back, `take` answers None and the caller
    reads the source itself (where a real error is reported as that source's)."""

    def __init__(
        self, workers: int, redaction: tuple[Sequence[tuple[str, str]], Sequence[str]], cache: Path
    ) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(list(redaction[0]), list(redaction[1]), str(cache)),
        )
        self._asked: dict[Path, Future[Read | Failed]] = {}

    def ahead(self, sources: Sequence[Path]) -> None:
        """Start reading these sources now (the next round, while this one is written)."""
        for source in sources:
            self._ask(source)

    def _ask(self, source: Path) -> Future[Read | Failed] | None:
        from concurrent.futures.process import BrokenProcessPool

        if source in self._asked:
            return self._asked[source]
        if self._pool is None:
            return None
        try:
            future = self._pool.submit(read_in_worker, str(source))
        except (BrokenProcessPool, RuntimeError, OSError):  # no worker could start (no fork server)
            self._broken()
            return None
        self._asked[source] = future
        return future

    async def take(self, source: Path) -> Read | Failed | None:
        from concurrent.futures.process import BrokenProcessPool

        future = self._ask(source)
        if future is None:
            return None
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._broken()
            return None
        except Exception:  # the source is read in-process, where a real error is its own
            return None
        finally:
            self._asked.pop(source, None)

    def _broken(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None

    def close(self, *, at_once: bool = False) -> None:
        """Stop the workers: when the run is over, after what they hold; `at_once` (Ctrl-C, an
        error) without waiting for a transcript nobody will write."""
        if self._pool is None:
            return
        if at_once:
            # Python 3.14 names this terminate_workers(); 3.12 keeps the processes here.
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None


_TOOLS: tuple[UnifiedToolClassifier, Redactor] | None = None


def _start_worker(patterns: list[tuple[str, str]], allowlist: list[str], cache: str) -> None:
    """A worker's own classifier (offline, reading the shared cache) and redactor (same rules)."""
    from graphiti_session_tracking.redact import Redactor
    from graphiti_session_tracking.tools import UnifiedToolClassifier

    global _TOOLS
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _TOOLS = (UnifiedToolClassifier(None, Path(cache)), Redactor(patterns, allowlist))


def read_in_worker(source: str) -> Read | Failed:
    """Read and summarize one whole transcript (in a worker)."""
    from .prepare import compact, read_and_summarize
    from .sources import SourceError, unreadable_reason

    assert _TOOLS is not None, "the worker was not started by Readers"
    classifier, redactor = _TOOLS
    path = Path(source)
    try:
        session, summary = asyncio.run(read_and_summarize(path, 0, None, classifier, None, redactor))
    except OSError as exc:
        return Failed(f"{path}: {unreadable_reason(path, exc)}")
    except (SourceError, ValueError) as exc:
        return Failed(str(exc))
    return compact(path, session, summary, redactor)
